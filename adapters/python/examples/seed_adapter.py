#!/usr/bin/env python3
"""An adapter over the seed chapter's reader and SessionJournal as ported in
conformance/tools/seed_port.py (its functions are imported, not copied): what the kit says
about the seed-style implementation, whose reader splits lines with str.splitlines().

    journal-conformance test --adapter "python3 adapters/python/examples/seed_adapter.py"

With --lf-reader the same port runs with one thing changed, its reader splitting on
"\\n" only (W-LINE-1) instead of universal newlines and str.splitlines(): tests/decisions.rs
compares the two runs to find the rows of that one decision.
"""
import os
import sys

# No __pycache__ in conformance/: build.rs watches that directory (a new file there would
# rebuild the kit).
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "conformance", "tools"))
try:
    from journal_conformance_adapter import Rejected, serve
except ImportError:  # a plain clone: the package next to this directory
    sys.path.insert(0, os.path.dirname(HERE))
    from journal_conformance_adapter import Rejected, serve

import seed_port  # noqa: E402

LF_READER = "--lf-reader" in sys.argv[1:]
if LF_READER:
    sys.argv.remove("--lf-reader")
    class _LfText(str):
        """The decoded text, whose splitlines() splits on "\\n" only."""

        def splitlines(self, keepends=False):
            lines = self.split("\n")
            return lines[:-1] if lines and lines[-1] == "" else lines

    _decode = seed_port.read_text

    def _read_text_lf(data):
        _decode(data)  # the same strict decoding (invalid_utf8 for the whole file)
        return _LfText(data.decode("utf-8"))

    seed_port.read_text = _read_text_lf


def handle(data, req):
    got = seed_port.run(req.op, data)
    if got[0] == "result":
        return got[1]
    _, code, line, sequence = got
    if code == "internal_error":  # the seed crashes: the SDK answers internal_error
        raise RuntimeError("the seed's code raised")
    return Rejected(code, line=line, sequence=sequence)


serve(**{op: handle for op in seed_port.JOURNAL_OPS + ("canonical",)},
      name="seed-port" + ("-lf-reader" if LF_READER else ""),
      version="0.1.0", language="python")
