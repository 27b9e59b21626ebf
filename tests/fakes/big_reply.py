#!/usr/bin/env python3
"""A persistent adapter whose every answer is huge (tests/memory.rs, issue 20 item 4).

Usage: big_reply.py MODE MEBIBYTES

MODE `string`: every check is answered `{"id":N,"result":"xxx..."}`, a valid result of
MEBIBYTES MiB (a string: one JSON value, so it is within the parser's value budget).
MODE `zeros`: every check is answered `{"id":N,"result":[0,0,...]}` of MEBIBYTES MiB
(about MEBIBYTES * 2^19 values: past the value budget, SPEC.md 16.5).
The answers are wrong (no vector expects them): each check fails, or is errored.
"""
import json
import sys

mode, mib = sys.argv[1], int(sys.argv[2])
size = mib << 20
if mode == "string":
    body = b'"' + b"x" * (size - 2) + b'"'
elif mode == "zeros":
    body = b"[" + b"0," * (size // 2 - 1) + b"0]"
else:
    sys.exit("unknown mode " + mode)

out = sys.stdout.buffer
for line in sys.stdin:
    msg = json.loads(line)
    cmd = msg.get("cmd")
    if cmd == "stop":
        break
    if cmd == "start":
        hs = {
            "protocol": 1,
            "implementation": {"name": "big-" + mode, "version": "1", "language": "python"},
            "operations": ["validate", "replay", "fingerprint", "branch", "canonical"],
            "profiles": ["core", "trace-0.1"],
        }
        out.write(json.dumps(hs).encode() + b"\n")
    else:
        out.write(b'{"id":%d,"result":' % msg["id"] + body + b"}\n")
    out.flush()
