#!/usr/bin/env python3
"""examples/python (an independent implementation of SPEC.md) with ONE deliberate fault:
its W-BLANK-1 test ("a line of only space, tab and CR is blank") is replaced by the
blank test of another language's trim, the everyday bug of issue 19.

Usage: blank_variant.py VARIANT   (then it is a persistent adapter, SPEC.md 13.1)

VARIANT is `python-strip` (`not line.strip()`, literally) or the name of a function of
conformance/tools/whitespace.json (`javascript-trim`, `go-unicode-isspace`,
`rust-char-is-whitespace`, `java-string-trim`, ...): a line is blank when every character
is in that function's set. BOM and UTF-8 checks, and everything else, are untouched.
tests/whitespace_variants.rs runs the kit against each variant and requires that it fails
exactly the whitespace-table cases the variant's set predicts.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
import journal_ref as jr  # noqa: E402

variant = sys.argv[1]
if variant == "python-strip":
    def is_blank(text):
        return not text.strip()
else:
    with open(os.path.join(ROOT, "conformance", "tools", "whitespace.json"), encoding="utf-8") as f:
        chars = {chr(int(c[2:], 16)) for c in json.load(f)["functions"][variant]["code_points"]}

    def is_blank(text):
        return all(ch in chars for ch in text)

original = jr._check_wire_line


def check_wire_line(raw, lineno):
    try:
        original(raw, lineno)
    except jr.JournalError as e:
        if e.code != "blank_line":
            raise
    if is_blank(raw.decode("utf-8")):
        raise jr.JournalError("blank_line", "blank line", line=lineno, column=1)


jr._check_wire_line = check_wire_line
import adapter  # noqa: E402  (examples/python/adapter.py, which uses this journal_ref)

adapter.main([])
