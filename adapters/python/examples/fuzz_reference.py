#!/usr/bin/env python3
"""A correct implementation through the fuzz harness: every handler forwards to a SECOND
reference process (journal_conformance_adapter.fuzz.forwarding_handlers), so fuzzing it must
find no difference, under atheris or the fallback, whatever the inputs. The kit's CI runs it
to check the harness itself (a harness that reports differences here is wrong):

    JOURNAL_CONFORMANCE=target/release/journal-conformance \\
      python3 adapters/python/examples/fuzz_reference.py -runs=300 -seed=1 golden/
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import atheris
except ImportError:
    atheris = None
if atheris is None or "--no-atheris" in sys.argv:
    import contextlib
    coverage = contextlib.nullcontext()
else:
    coverage = atheris.instrument_imports()  # the harness's own code is all there is to cover
with coverage:
    try:
        from journal_conformance_adapter.fuzz import ReferenceUnavailable, forwarding_handlers, fuzz
    except ImportError:  # a plain clone: the package next to this directory
        sys.path.insert(0, os.path.dirname(HERE))
        from journal_conformance_adapter.fuzz import ReferenceUnavailable, forwarding_handlers, fuzz

if __name__ == "__main__":
    try:
        handlers, second = forwarding_handlers()
    except ReferenceUnavailable as e:
        sys.exit("fuzz: %s" % e)
    fuzz(**handlers, profiles=("core", "trace-0.1"), instrument=False)
