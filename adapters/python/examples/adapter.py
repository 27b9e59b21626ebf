#!/usr/bin/env python3
"""The adapter for naive_journal.py: five handlers and serve(). Run the kit against it with

    journal-conformance test --adapter "python3 adapters/python/examples/adapter.py"

It imports the SDK by its name, as your adapter does (after `pip install ./adapters/python`;
from a plain clone it falls back to the package in this repository).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    from journal_conformance_adapter import Rejected, serve
except ImportError:  # a plain clone: the package next to this directory
    sys.path.insert(0, os.path.dirname(HERE))
    from journal_conformance_adapter import Rejected, serve

import naive_journal as naive  # noqa: E402


def guarded(f):
    """A JournalError becomes the O-ERR-1 reply; anything else the SDK answers as internal_error."""
    def handler(data, req):
        try:
            return f(data, req.op)
        except naive.JournalError as e:
            return Rejected(e.code, e.message, line=e.line, sequence=e.sequence, event_id=e.event_id)
    return handler


serve(
    validate=guarded(lambda data, op: {"event_count": len(naive.read_journal(data))}),
    replay=guarded(lambda data, op: naive.replay(naive.read_journal(data), op.get("until"))),
    fingerprint=guarded(lambda data, op: naive.replay(naive.read_journal(data), op.get("until"))["fingerprint"]),
    branch=guarded(lambda data, op: naive.branch(naive.read_journal(data), op["at"], op["branch_id"])),
    canonical=guarded(lambda data, op: naive.canonical(data)),
    name="naive-journal-python", version="0.1.0", language="python",
)
