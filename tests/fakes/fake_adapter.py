#!/usr/bin/env python3
"""Deliberately broken adapters that test the runner (SPEC.md 13, A-FAULT-1).

Usage: fake_adapter.py MODE REFERENCE_BINARY [MARKER]

Proxy modes forward every request to `REFERENCE_BINARY serve` and break ONE thing in the
answers; fault modes misbehave at the protocol level. MARKER is ignored (tests use it to
find leftover processes). FAKE_PIDFILE, when set, gets one line per process started
(this one and its `serve` child), so tests can check by pid that none is left.
FAKE_STATE names a file whose existence marks "started before" (restart modes).
"""
import json
import os
import signal
import subprocess
import sys
import time

mode, ref = sys.argv[1], sys.argv[2]
pidfile = os.environ.get("FAKE_PIDFILE")
state_file = os.environ.get("FAKE_STATE")


def note_pid(pid):
    if pidfile:
        with open(pidfile, "a") as f:
            f.write("%d\n" % pid)


note_pid(os.getpid())
restarted = bool(state_file) and os.path.exists(state_file)
if state_file and not restarted and mode in ("dead-after-crash",):
    open(state_file, "w").close()
if mode == "need-env" and os.environ.get("FOO") != "1":
    sys.stderr.write("FOO is not set\n")
    sys.exit(9)
if mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if mode == "silent":
    sys.exit(0)

if mode == "silent-hang" or (mode == "dead-after-crash" and restarted):
    sys.stdin.readline()
    time.sleep(3600)

server = subprocess.Popen([ref, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
note_pid(server.pid)


def ask(line):
    server.stdin.write(line.encode() + b"\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline())


runs = 0
for line in sys.stdin:
    line = line.rstrip("\n")
    msg = json.loads(line)
    if msg.get("cmd") == "stop":
        if mode == "flood-at-stop":
            chunk = "x" * (1 << 16) + "\n"
            while True:
                sys.stdout.write(chunk)
        break
    if msg.get("cmd") == "start":
        hs = ask(line)
        hs["implementation"]["name"] = "fake-" + mode
        if mode == "no-canonical":
            hs["operations"] = [o for o in hs["operations"] if o != "canonical"]
        if mode == "no-operations":
            hs["operations"] = []
        out(hs)
        continue
    runs += 1
    sys.stderr.write("fake %s handling request %s\n" % (mode, msg.get("id")))
    sys.stderr.flush()
    if mode in ("crash", "dead-after-crash"):
        sys.stderr.write("fake: simulated crash\n")
        sys.exit(70)
    if mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "flood-stderr":
        chunk = "e" * (1 << 16)
        while True:
            sys.stderr.write(chunk)
    if mode == "flood-line":
        chunk = "x" * (1 << 16)
        while True:
            sys.stdout.write(chunk)
    if mode == "slow-first" and not restarted:
        open(state_file, "w").close()
        time.sleep(5)  # then answers, too late: the runner must not take it
    if mode == "crash-once" and state_file and not os.path.exists(state_file):
        open(state_file, "w").close()
        sys.exit(71)
    if mode in ("hang", "ignore-term"):
        time.sleep(3600)
    if mode == "garbage":
        sys.stdout.write("hello, I am not JSON\n")
        sys.stdout.flush()
        continue
    if mode == "babble":
        sys.stdout.write("x" * (1 << 20))
        sys.stdout.write("\n")
        sys.stdout.flush()
        continue
    answer = ask(line)
    if mode == "wrong-id":
        answer["id"] = answer["id"] + 1000
    elif mode == "wrong-code":
        if answer.get("error", {}).get("code") == "unknown_parent":
            answer["error"]["code"] = "malformed_event"
    elif mode == "no-line":
        if "error" in answer:
            answer["error"].pop("line", None)
    elif mode == "extra-member":
        if isinstance(answer.get("result"), dict) and "fingerprint" in answer["result"]:
            answer["result"]["x_extra"] = 1
    elif mode == "ensure-ascii-strings":
        r = answer.get("result")
        if isinstance(r, dict) and r.get("user_messages"):
            r["user_messages"] = [json.dumps(m)[1:-1] for m in r["user_messages"]]
    elif mode == "accept-everything":
        if "error" in answer:
            answer = {"id": answer["id"], "result": {"event_count": 0}}
    elif mode == "no-error-id":
        if "error" in answer:
            answer.pop("id")
    out(answer)
