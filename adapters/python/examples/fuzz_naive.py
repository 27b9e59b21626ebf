#!/usr/bin/env python3
"""Fuzz naive_journal.py against the kit's reference: the harness of
journal_conformance_adapter.fuzz, wired as examples/adapter.py wires serve().

    python3 adapters/python/examples/fuzz_naive.py -runs=2000 -seed=1 golden/   # stdlib fallback
    pip install "./adapters/python[fuzz]"                                       # atheris
    python3 adapters/python/examples/fuzz_naive.py -runs=20000 -dict=fuzz/dicts/json.dict golden/

The reference is $JOURNAL_CONFORMANCE (a path to the binary), else `journal-conformance` on
PATH. naive_journal.py has known deviations (its docstring lists them), so the harness finds
a difference: it prints both answers and exits 1 (the fallback) or writes a crash-* file
(atheris, libFuzzer's exit status).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    from journal_conformance_adapter import Rejected
    from journal_conformance_adapter.fuzz import fuzz, instrument_imports
except ImportError:  # a plain clone: the package next to this directory
    sys.path.insert(0, os.path.dirname(HERE))
    from journal_conformance_adapter import Rejected
    from journal_conformance_adapter.fuzz import fuzz, instrument_imports

with instrument_imports():  # coverage of naive_journal.py (with atheris), not of the harness
    import naive_journal as naive  # noqa: E402


def guarded(f):
    """A JournalError becomes the O-ERR-1 answer; anything else it raises is a finding."""
    def handler(data, req):
        try:
            return f(data, req.op)
        except naive.JournalError as e:
            return Rejected(e.code, e.message, line=e.line, sequence=e.sequence, event_id=e.event_id)
    return handler


HANDLERS = dict(
    validate=guarded(lambda data, op: {"event_count": len(naive.read_journal(data))}),
    replay=guarded(lambda data, op: naive.replay(naive.read_journal(data), op.get("until"))),
    fingerprint=guarded(lambda data, op: naive.replay(naive.read_journal(data), op.get("until"))["fingerprint"]),
    branch=guarded(lambda data, op: naive.branch(naive.read_journal(data), op["at"], op["branch_id"])),
    canonical=guarded(lambda data, op: naive.canonical(data)),
)

if __name__ == "__main__":
    fuzz(**HANDLERS)
