#!/usr/bin/env python3
"""A correct adapter whose `validate` takes time quadratic in the number of lines.

Usage: slow_adapter.py REFERENCE_BINARY [SECONDS_PER_PAIR]

Every request is forwarded to `REFERENCE_BINARY serve` (so every answer is right); before
it answers a `validate` of n lines it sleeps n*n*SECONDS_PER_PAIR (default 4e-8: 0.64 s at
4,000 lines), the shape of a reader that looks each parent up by a linear scan. Sleeping
rather than computing keeps the growth exact on a loaded machine. `scale` must flag
validate and nothing else (tests/scale.rs).
"""
import base64
import json
import subprocess
import sys
import time

ref = sys.argv[1]
per_pair = float(sys.argv[2]) if len(sys.argv) > 2 else 4e-8
server = subprocess.Popen([ref, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("cmd") == "run" and msg.get("op", {}).get("op") == "validate":
        n = base64.b64decode(msg.get("input_base64", "")).count(b"\n")
        time.sleep(n * n * per_pair)
    server.stdin.write(line.encode())
    server.stdin.flush()
    reply = server.stdout.readline()
    if msg.get("cmd") == "stop":
        break
    if msg.get("cmd") == "start":
        hs = json.loads(reply)
        hs["implementation"]["name"] = "slow-validate"
        reply = (json.dumps(hs) + "\n").encode()
    sys.stdout.buffer.write(reply)
    sys.stdout.flush()
server.stdin.close()
server.wait()
