#!/usr/bin/env python3
"""Adapter for journal_ref (SPEC.md section 13).

Persistent mode (protocol 1, section 13.1), the default:

    python3 adapter.py            # JSON lines on stdin -> JSON lines on stdout

One-shot mode (section 13.2), when the first argument is an operation name:

    python3 adapter.py replay --until 2 < journal.jsonl
    python3 adapter.py OP [--until N] [--at N] [--branch-id ID] [--ops JSON] [--profile P]
    python3 adapter.py tree_apply --ops '[{"step":"append","message":"hi","timestamp":1}]' < tree.jsonl

One-shot exit status: 0 result on stdout, 1 the input was rejected (the
O-ERR-1 object on stdout), 3 operation or profile unsupported, 2 usage or
internal error.
"""

import base64
import binascii
import os
import re
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import journal_ref as jr  # noqa: E402
import tree_ref as tr  # noqa: E402

if hasattr(sys, "set_int_max_str_digits"):
    # C-NUM-3 admits integers of up to 4300 digits; make sure a lowered
    # PYTHONINTMAXSTRDIGITS cannot make int()/str() refuse them.
    if 0 < sys.get_int_max_str_digits() < jr.MAX_INT_DIGITS:
        sys.set_int_max_str_digits(jr.MAX_INT_DIGITS)

VERSION = "0.2.0"
OPERATIONS = jr.OPERATIONS + tr.OPERATIONS
# Protocol requests wrap data (a tree_apply step's message sits 4 levels down
# in a run request), so they get more room than C-DEPTH-1's 128.  The parser
# is iterative; the canonical writer recurses once per level.
REQUEST_MAX_DEPTH = 512
HANDSHAKE = {
    "protocol": 1,
    "implementation": {
        "name": "journal-ref-python",
        "version": VERSION,
        "language": "python",
    },
    "operations": list(OPERATIONS),
    "profiles": list(jr.PROFILES),
}


def _error(code, message):
    return {"code": code, "message": message, "line": None, "column": None,
            "sequence": None, "event_id": None}


def _dump(value):
    return jr.canonical_text(value).encode("utf-8") + b"\n"


def _operation_from_run(msg):
    """A-RUN-1 names the member `op`; accept it either as the operation
    object of O-JSON-1 ({"op":"replay","until":2}) or as a bare name with the
    arguments next to it."""
    op = msg.get("op")
    if type(op) is dict:
        return op
    if type(op) is str:
        obj = {"op": op}
        for name in ("until", "at", "branch_id", "ops"):
            if name in msg:
                obj[name] = msg[name]
        return obj
    raise jr.OperationError("run: `op` must be an operation object or name")


def handle_run(msg):
    rid = msg.get("id")
    try:
        op = _operation_from_run(msg)
        name = op.get("op")
        profile = msg.get("profile", "core")
        if name not in OPERATIONS or profile not in jr.PROFILES:
            return {"id": rid, "unsupported": True}                   # A-SKIP-1
        b64 = msg.get("input_base64")
        if type(b64) is not str:
            raise jr.OperationError("run: input_base64 must be a string")
        try:
            data = base64.b64decode(b64.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
            raise jr.OperationError("run: input_base64 is not valid base64: %s" % exc)
        kind, value = _run(op, data, profile)
    except jr.OperationError as exc:
        return {"id": rid, "error": _error("invalid_operation", str(exc))}
    return {"id": rid, kind: value}


def _run(op, data, profile):
    if op.get("op") in tr.OPERATIONS:
        return tr.run_operation(op, data, profile)
    return jr.run_operation(op, data, profile)


def handle_line(raw):
    """Answer one protocol line; returns (reply or None, stop?)."""
    try:
        msg = jr.parse_text(raw, REQUEST_MAX_DEPTH)
    except jr.JournalError as exc:
        return {"id": None, "error": _error("invalid_request",
                                            "request is not JSON: " + exc.message)}, False
    if type(msg) is not dict:
        return {"id": None, "error": _error("invalid_request", "request is not an object")}, False
    cmd = msg.get("cmd")
    if cmd == "start":                                                 # A-START-1
        return HANDSHAKE, False
    if cmd == "stop":                                                  # A-STOP-1
        return None, True
    if cmd == "run":                                                   # A-RUN-1
        return handle_run(msg), False
    return {"id": msg.get("id"), "error": _error("invalid_request", "unknown cmd %r" % (cmd,))}, False


def _request_id(raw):
    m = re.search(rb'"id"\s*:\s*([0-9]+)', raw)
    return int(m.group(1)) if m else None


def persistent():
    inp = sys.stdin.buffer
    out = sys.stdout.buffer
    while True:
        raw = inp.readline()
        if not raw:
            return 0                       # runner closed stdin
        if not raw.strip():
            continue
        try:
            reply, stop = handle_line(raw.rstrip(b"\r\n"))
            line = _dump(reply) if reply is not None else b""
        except Exception as exc:           # a bug in this code: report, keep serving
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            stop = False
            line = _dump({"id": _request_id(raw),
                          "error": _error("internal_error", "%s: %s" % (type(exc).__name__, exc))})
        if line:
            out.write(line)
            out.flush()
        if stop:
            return 0


USAGE = ("usage: adapter.py                 (persistent protocol 1 on stdin/stdout)\n"
         "       adapter.py OP [--until N] [--at N] [--branch-id ID] [--ops JSON] [--profile P] < INPUT\n")
_INT = re.compile(r"-?[0-9]+")


def oneshot(argv):
    if argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    name = argv[0]
    op = {"op": name}
    profile = "core"
    i = 1
    while i < len(argv):
        arg = argv[i]
        if "=" in arg and arg.startswith("--"):
            flag, value = arg.split("=", 1)
            i += 1
        else:
            flag = arg
            if i + 1 >= len(argv):
                sys.stderr.write("adapter.py: %s needs a value\n%s" % (flag, USAGE))
                return 2
            value = argv[i + 1]
            i += 2
        if flag in ("--until", "--at"):
            if not _INT.fullmatch(value):
                sys.stderr.write("adapter.py: %s needs an integer, got %r\n" % (flag, value))
                return 2
            op[flag[2:]] = int(value)
        elif flag == "--branch-id":
            op["branch_id"] = value
        elif flag == "--ops":                                          # A-ONESHOT-1
            try:
                op["ops"] = jr.parse_text(os.fsencode(value), REQUEST_MAX_DEPTH)
            except jr.JournalError as exc:
                sys.stderr.write("adapter.py: --ops is not JSON: %s\n" % exc.message)
                return 2
        elif flag == "--profile":
            profile = value
        else:
            sys.stderr.write("adapter.py: unknown option %r\n%s" % (flag, USAGE))
            return 2
    if name not in OPERATIONS or profile not in jr.PROFILES:
        sys.stderr.write("adapter.py: unsupported operation or profile: %s %s\n" % (name, profile))
        return 3
    data = sys.stdin.buffer.read()
    try:
        kind, value = _run(op, data, profile)
    except jr.OperationError as exc:
        sys.stderr.write("adapter.py: %s\n" % exc)
        return 2
    sys.stdout.buffer.write(_dump(value))
    sys.stdout.buffer.flush()
    return 0 if kind == "result" else 1


def main(argv):
    try:
        if argv:
            return oneshot(argv)
        return persistent()
    except KeyboardInterrupt:
        return 2
    except Exception:
        traceback.print_exc(file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
