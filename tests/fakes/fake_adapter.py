#!/usr/bin/env python3
"""Deliberately broken adapters that test the runner (SPEC.md 13, A-FAULT-1).

Usage: fake_adapter.py MODE REFERENCE_BINARY [MARKER]

Proxy modes forward every request to `REFERENCE_BINARY serve` and break ONE thing in the
answers (proxy modes combine as FAULT+FAULT: `wrong-stop-reason+accept-gaps` plants two
independent faults); fault modes misbehave at the protocol level. MARKER is ignored (tests use it to
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
        if "hostile-name" in mode.split("+"):
            # A name that would split a markdown table, inject HTML into a step summary
            # and retitle a terminal.
            hs["implementation"]["name"] = "evil\n| x | <b>bold</b> \x1b]0;pwned\x07"
        out(hs)
        continue
    runs += 1
    sys.stderr.write("fake %s handling request %s\n" % (mode, msg.get("id")))
    sys.stderr.flush()
    if "hostile-name" in mode.split("+"):
        # Escape sequences on stderr: clear the screen, set the title.
        sys.stderr.write("\x1b[2J\x1b]0;pwned\x07 stderr of the adapter\n")
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
    if mode == "memory-hog" and runs == 50:
        # Right answers, but from request 50 on the process holds 200 MB (pages touched).
        hog = bytearray(200 << 20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
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
    # Proxy modes combine with `+` (two independent faults: "a+b").
    for m in mode.split("+"):
        if m == "wrong-id":
            answer["id"] = answer["id"] + 1000
        elif m == "wrong-code":
            if answer.get("error", {}).get("code") == "unknown_parent":
                answer["error"]["code"] = "malformed_event"
        elif m == "no-line":
            if "error" in answer:
                answer["error"].pop("line", None)
        elif m == "extra-member":
            if isinstance(answer.get("result"), dict) and "fingerprint" in answer["result"]:
                answer["result"]["x_extra"] = 1
        elif m == "ensure-ascii-strings":
            r = answer.get("result")
            if isinstance(r, dict) and r.get("user_messages"):
                r["user_messages"] = [json.dumps(x)[1:-1] for x in r["user_messages"]]
        elif m == "accept-everything":
            if "error" in answer:
                answer = {"id": answer["id"], "result": {"event_count": 0}}
        elif m == "no-error-id":
            if "error" in answer:
                answer.pop("id")
        elif m == "wrong-stop-reason":
            r = answer.get("result")
            if isinstance(r, dict) and r.get("stop_reason") is not None:
                r["stop_reason"] = "stopped"
        elif m == "result-and-error":
            if "error" in answer:
                answer["result"] = {"event_count": 0}
        elif m == "accept-gaps":
            if answer.get("error", {}).get("code") == "sequence_gap":
                answer = {"id": answer["id"], "result": {"event_count": 0}}
    # Faults for the differential phase; several combine as FAULT+FAULT.
    faults = set(mode.split("+"))
    op = msg.get("op", {}).get("op")
    r = answer.get("result")
    if "wrong-stop" in faults and op == "replay" and isinstance(r, dict):
        # No stop reads as "unknown", and a reason gains a "!".
        reason = r.get("stop_reason")
        r["stop_reason"] = "unknown" if reason is None else reason + "!"
    if "drop-tools" in faults and op == "replay" and isinstance(r, dict):
        r["tool_results"] = []
    if "tree-tips-reversed" in faults and op == "tree_inspect" and isinstance(r, dict):
        r["branch_tips"] = list(reversed(r["branch_tips"]))
        r["children"] = {k: list(reversed(v)) for k, v in r["children"].items()}
    if "tree-save-newline" in faults and op == "tree_apply" and isinstance(r, dict):
        if r.get("tree"):
            r["tree"] = r["tree"] + "\n"
    if "canonical-ascii" in faults and op == "canonical" and isinstance(r, str):
        answer["result"] = "".join(
            c if ord(c) < 0x80 else json.dumps(c)[1:-1] for c in r
        )
    if "store-dup-false" in faults and op == "store_apply" and isinstance(r, dict):
        # Retries acknowledged as new appends.
        for item in r["results"]:
            for ack in item if isinstance(item, list) else [item]:
                if isinstance(ack, dict) and ack.get("duplicate") is True:
                    ack["duplicate"] = False
    out(answer)
