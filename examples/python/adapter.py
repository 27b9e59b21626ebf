#!/usr/bin/env python3
"""Adapter for journal_ref (SPEC.md section 13).

Persistent mode (protocol 1, section 13.1), the default:

    python3 adapter.py            # JSON lines on stdin -> JSON lines on stdout

One-shot mode (section 13.2), when the first argument is an operation name:

    python3 adapter.py replay --until 2 < journal.jsonl
    python3 adapter.py OP [--until N] [--at N] [--branch-id ID] [--ops JSON] [--steps JSON] [--profile P]
    python3 adapter.py tree_apply --ops '[{"step":"append","message":"hi","timestamp":1}]' < tree.jsonl
    python3 adapter.py store_apply --steps '[{"step":"append","line":"..."}]' < journal.jsonl

One-shot exit status: 0 result on stdout, 1 the input was rejected (the
O-ERR-1 object on stdout), 3 operation or profile unsupported, 2 usage or
internal error.

The protocol loop is the journal_conformance_adapter package (adapters/python);
this file only dispatches each check to journal_ref, tree_ref and store_ref.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import journal_ref as jr  # noqa: E402
import tree_ref as tr  # noqa: E402
import store_ref as sr  # noqa: E402

try:
    # pip install ./adapters/python (what CI does)
    import journal_conformance_adapter as jca  # noqa: E402
except ImportError:  # a plain clone: use the package from the repository
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "adapters", "python"))
    import journal_conformance_adapter as jca  # noqa: E402

if hasattr(sys, "set_int_max_str_digits"):
    # C-NUM-3 admits integers of up to 4300 digits; make sure a lowered
    # PYTHONINTMAXSTRDIGITS cannot make int()/str() refuse them.
    if 0 < sys.get_int_max_str_digits() < jr.MAX_INT_DIGITS:
        sys.set_int_max_str_digits(jr.MAX_INT_DIGITS)

VERSION = "0.3.0"
OPERATIONS = jr.OPERATIONS + tr.OPERATIONS + sr.OPERATIONS


def _run(op, data, profile):
    if op.get("op") in tr.OPERATIONS:
        return tr.run_operation(op, data, profile)
    if op.get("op") in sr.OPERATIONS:
        return sr.run_operation(op, data, profile)
    return jr.run_operation(op, data, profile)


def handle(data, req):
    """One check: the protocol (framing, base64, replies, invalid_request, one-shot mode,
    stdout hygiene) is journal_conformance_adapter's; this is only the dispatch."""
    try:
        kind, value = _run(req.op, data, req.profile)
    except jr.OperationError as exc:
        # A request outside O-JSON-1 / T-OPS-1 / S-OPS-1 that the package let through.
        raise jca.InvalidRequest(str(exc))
    if kind == "error":
        return jca.Rejected.from_object(value)
    return value


def main(argv=None):
    return jca.serve(**{op: handle for op in OPERATIONS}, name="journal-ref-python",
                     version=VERSION, language="python", profiles=list(jr.PROFILES), argv=argv)


if __name__ == "__main__":
    main()
