#!/usr/bin/env python3
"""An adapter whose canonical text or fingerprint framing differs from the spec in ONE way
(tests/fingerprint_bytes.rs, issue 22 item 5).

Usage: canon_variant.py MODE REFERENCE_BINARY

Every request but `canonical` and `fingerprint` is forwarded to `REFERENCE_BINARY serve`.
This adapter answers those two itself, with Python's json module (SPEC.md 3.2 is
`json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))`):

- `int-floats`: a float with an integral value is written as an integer (`1.0` as `1`,
  as RFC 8785 does), in canonical texts and in the events a fingerprint hashes;
- `int-floats-no-canonical`: the same, and the handshake does not offer `canonical`;
- `int-floats-no-until`: `int-floats`, but a fingerprint with `until` is answered
  `unsupported`;
- `newline-framing`: canonical texts are right, but the fingerprint joins the events with
  `\n` instead of `,` (so a journal of one event still hashes right).

FAKE_LOG, when set, names a file that gets one line per `run` request: the operation as
JSON, then, for `canonical`, a tab and the input.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys

mode, ref = sys.argv[1], sys.argv[2]
server = subprocess.Popen([ref, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
int_floats = mode.startswith("int-floats")


def plain(v):
    if isinstance(v, float) and int_floats and v.is_integer() and abs(v) < 1e15:
        return int(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def canon(v):
    return json.dumps(plain(v), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def answer(msg):
    """This adapter's own answer to a `canonical` or `fingerprint` request, or None."""
    op = msg.get("op", {})
    data = base64.b64decode(msg.get("input_base64", ""))
    log = os.environ.get("FAKE_LOG")
    if log:
        with open(log, "a") as f:
            extra = "\t" + data.decode() if op.get("op") == "canonical" else ""
            f.write(json.dumps(op, sort_keys=True) + extra + "\n")
    if op.get("op") == "canonical":
        return {"id": msg["id"], "result": canon(json.loads(data))}
    if op.get("op") == "fingerprint":
        events = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        until = op.get("until")
        if until is not None and mode == "int-floats-no-until":
            return {"id": msg["id"], "unsupported": True}
        if until is not None:
            events = events[: until + 1]
        sep = "\n" if mode == "newline-framing" else ","
        text = "[" + sep.join(canon(e) for e in events) + "]"
        return {"id": msg["id"], "result": hashlib.sha256(text.encode()).hexdigest()}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("cmd") == "run":
        mine = answer(msg)
        if mine is not None:
            sys.stdout.write(json.dumps(mine) + "\n")
            sys.stdout.flush()
            continue
    server.stdin.write(line.encode())
    server.stdin.flush()
    reply = server.stdout.readline()
    if msg.get("cmd") == "stop":
        break
    if msg.get("cmd") == "start":
        hs = json.loads(reply)
        hs["implementation"]["name"] = "canon-" + mode
        if mode.endswith("no-canonical"):
            hs["operations"] = [o for o in hs["operations"] if o != "canonical"]
        reply = (json.dumps(hs) + "\n").encode()
    sys.stdout.buffer.write(reply)
    sys.stdout.flush()
server.stdin.close()
server.wait()
