#!/usr/bin/env python3
"""The whitespace and line-break code points of mainstream languages, as data.

`python3 conformance/tools/whitespace.py` writes `conformance/tools/whitespace.json`: every
code point that some language's trim / strip / isspace / splitlines / `\\s` / TrimSpace /
is_whitespace treats specially, plus the near-misses that some treat specially and others
do not, and for each code point the functions that do. The tables of build_tables.py
place each of them on a journal line, a tree line, a `canonical` document and a store
line; any other tool (the yoagent dialect's generator, in Rust) can read the same JSON.

Each function's set is written below from its documentation (the `source` of each entry),
not from any implementation under test. The Python entries are also checked against the
running interpreter (CPython 3.11, Unicode 14), and the sets that the Unicode database
defines (general category Zs/Zl/Zp) are computed from `unicodedata`, so a typo in a list
fails the build instead of landing in the data. Deterministic; standard library only.
"""
import json
import os
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "whitespace.json")

C0_NAMES = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT (TAB)", "LF", "VT", "FF", "CR",
            "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
            "FS (FILE SEPARATOR)", "GS (GROUP SEPARATOR)", "RS (RECORD SEPARATOR)", "US (UNIT SEPARATOR)"]


def category(*cats):
    return {cp for cp in range(0x110000) if unicodedata.category(chr(cp)) in cats}


ZS = category("Zs")           # U+0020, 00A0, 1680, 2000..200A, 202F, 205F, 3000 (Unicode 14)
ZL_ZP = category("Zl", "Zp")  # U+2028, U+2029

# Unicode PropList.txt, property White_Space (unchanged since Unicode 6.3, when U+180E left it).
WHITE_SPACE = set(range(0x09, 0x0E)) | {0x20, 0x85, 0xA0, 0x1680} | set(range(0x2000, 0x200B)) | {
    0x2028, 0x2029, 0x202F, 0x205F, 0x3000}

FUNCTIONS = {
    # --- what this spec says --------------------------------------------------------
    "spec-w-blank-1": {
        "language": "SPEC.md", "api": "W-BLANK-1 (a journal line of only these is blank_line)",
        "kind": "blank", "set": {0x20, 0x09, 0x0D},
        "source": "SPEC.md W-BLANK-1: empty or only the bytes space, tab and \\r"},
    "json-whitespace": {
        "language": "JSON", "api": "RFC 8259 ws (C-SYNTAX-1)", "kind": "class", "set": {0x20, 0x09, 0x0A, 0x0D},
        "source": "RFC 8259 section 2: ws = space, horizontal tab, line feed, carriage return"},
    "unicode-white-space": {
        "language": "Unicode", "api": "White_Space property (T-LINE-1's trim)", "kind": "class", "set": WHITE_SPACE,
        "source": "Unicode PropList.txt White_Space; SPEC.md T-LINE-1 spells it out"},
    # --- Python ---------------------------------------------------------------------
    "python-str-isspace": {
        "language": "Python", "api": "str.isspace(), str.strip(), str.split(), re \\s on str (B-ID-2)", "kind": "strip",
        "set": WHITE_SPACE | {0x1C, 0x1D, 0x1E, 0x1F},
        "source": "Python 3 docs, str.isspace: general category Zs, or bidirectional class WS, B or S "
                  "(so U+001C..U+001F, which are bidi B/S, but not U+200B or U+FEFF)"},
    "python-str-splitlines": {
        "language": "Python", "api": "str.splitlines()", "kind": "split",
        "set": {0x0A, 0x0D, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029},
        "source": "Python 3 docs, str.splitlines: the table of line boundaries (\\n, \\r, \\r\\n, \\v, \\f, \\x1c, \\x1d, "
                  "\\x1e, \\x85, \\u2028, \\u2029)"},
    "python-bytes-strip": {
        "language": "Python", "api": "bytes.strip(), bytes.isspace(), bytes.split()", "kind": "strip",
        "set": {0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C},
        "source": "Python 3 docs, bytes.isspace: ASCII whitespace is b' \\t\\n\\r\\x0b\\f'"},
    "python-bytes-splitlines": {
        "language": "Python", "api": "bytes.splitlines(), universal newlines (open() in text mode)", "kind": "split",
        "set": {0x0A, 0x0D},
        "source": "Python 3 docs, bytes.splitlines: universal newlines, \\n, \\r and \\r\\n"},
    # --- JavaScript -------------------------------------------------------------------
    "javascript-trim": {
        "language": "JavaScript", "api": "String.prototype.trim(), /\\s/", "kind": "strip",
        "set": {0x09, 0x0B, 0x0C, 0xFEFF} | ZS | {0x0A, 0x0D, 0x2028, 0x2029},
        "source": "ECMA-262, String.prototype.trim and CharacterClassEscape \\s: WhiteSpace (U+0009, U+000B, U+000C, "
                  "U+FEFF, any Zs) and LineTerminator (U+000A, U+000D, U+2028, U+2029); not U+0085, not U+001C..U+001F"},
    # --- Go ---------------------------------------------------------------------------
    "go-unicode-isspace": {
        "language": "Go", "api": "strings.TrimSpace, unicode.IsSpace, strings.Fields", "kind": "strip",
        "set": WHITE_SPACE,
        "source": "Go docs, unicode.IsSpace: '\\t', '\\n', '\\v', '\\f', '\\r', ' ', U+0085 (NEL), U+00A0 (NBSP), and "
                  "beyond Latin-1 the White_Space property; strings.TrimSpace trims by it"},
    "go-bufio-scanlines": {
        "language": "Go", "api": "bufio.ScanLines", "kind": "split", "set": {0x0A},
        "source": "Go docs, bufio.ScanLines: splits on \\n and drops one \\r before it"},
    # --- Rust -------------------------------------------------------------------------
    "rust-char-is-whitespace": {
        "language": "Rust", "api": "char::is_whitespace, str::trim, str::split_whitespace", "kind": "strip",
        "set": WHITE_SPACE, "source": "Rust std docs, char::is_whitespace: the White_Space property"},
    "rust-is-ascii-whitespace": {
        "language": "Rust", "api": "u8::is_ascii_whitespace, [u8]::trim_ascii, str::trim_ascii", "kind": "strip",
        "set": {0x20, 0x09, 0x0A, 0x0C, 0x0D},
        "source": "Rust std docs, u8::is_ascii_whitespace: U+0020, U+0009, U+000A, U+000C, U+000D (the WhatWG "
                  "Infra set; NOT U+000B)"},
    "rust-str-lines": {
        "language": "Rust", "api": "str::lines, BufRead::lines", "kind": "split", "set": {0x0A},
        "source": "Rust std docs, str::lines: a line ends at \\n or \\r\\n (the \\r is removed); a lone \\r does not end one"},
    # --- Java -------------------------------------------------------------------------
    "java-string-trim": {
        "language": "Java", "api": "String.trim()", "kind": "strip", "set": set(range(0x00, 0x21)),
        "source": "Java SE docs, String.trim: removes every character whose code point is <= U+0020 (all C0 controls)"},
    "java-character-iswhitespace": {
        "language": "Java", "api": "String.strip(), String.isBlank(), Character.isWhitespace", "kind": "strip",
        "set": ((ZS | ZL_ZP) - {0xA0, 0x2007, 0x202F}) | set(range(0x09, 0x0E)) | {0x1C, 0x1D, 0x1E, 0x1F},
        "source": "Java SE docs, Character.isWhitespace: Zs/Zl/Zp except the no-break U+00A0, U+2007, U+202F, plus "
                  "U+0009..U+000D and U+001C..U+001F (not U+0085)"},
    "java-string-lines": {
        "language": "Java", "api": "String.lines(), BufferedReader.readLine()", "kind": "split", "set": {0x0A, 0x0D},
        "source": "Java SE docs, String.lines: line terminators \\n, \\r and \\r\\n"},
    # --- C ----------------------------------------------------------------------------
    "c-isspace": {
        "language": "C", "api": "isspace() in the C locale, strtod's leading space", "kind": "strip",
        "set": {0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D},
        "source": "ISO C 7.4.1.10: in the \"C\" locale, space, \\f, \\n, \\r, \\t, \\v"},
}

# Near-misses: treated specially by some of the functions above and not by others, or by
# older versions (listed so that the tables carry them even where no current set does).
NEAR_MISS_NOTES = {
    0x180E: "MONGOLIAN VOWEL SEPARATOR: Zs (so whitespace for JavaScript, Java, Go) until Unicode 6.3 (2013); "
            "format Cf since, whitespace for no current function above",
    0x200B: "ZERO WIDTH SPACE: Zs until Unicode 4.0.1 (old JavaScript engines trim it); Cf since, "
            "whitespace for no function above",
    0xFEFF: "ZERO WIDTH NO-BREAK SPACE (BOM): JavaScript WhiteSpace only; as the first bytes of a journal "
            "line it is W-BOM-1's unexpected_bom",
}

# Range neighbours: the code point just outside a run that ports write as a range (the
# C0 run U+0009..U+000D is bounded by U+0008 and U+000E, already listed as controls). A
# single-fault port of the independent Python implementation wrote range(0x1FFF, 0x200B)
# for U+2000..U+200A, and no vector told (conformance/tools/py_mutants.py).
NEAR_MISS_NOTES.update({
    0x0021: "EXCLAMATION MARK: just after U+001C..U+0020 (Python's str.isspace run): a range "
            "written one too wide takes it; whitespace for no function above",
    0x1FFF: "unassigned, just before U+2000..U+200A (Zs): a range written one too wide takes it; "
            "whitespace for no function above",
    0x2027: "HYPHENATION POINT: just before U+2028..U+2029: a range written one too wide takes it; "
            "whitespace for no function above",
    0x202A: "LEFT-TO-RIGHT EMBEDDING: just after U+2028..U+2029: a range written one too wide takes it; "
            "whitespace for no function above",
})


def name(cp):
    if cp < 0x20:
        return C0_NAMES[cp]
    if cp == 0x85:
        return "NEXT LINE (NEL)"
    return unicodedata.name(chr(cp), "<unassigned>")


def check_against_python():
    """The Python entries, against the interpreter that runs this script."""
    live = {
        "python-str-isspace": {cp for cp in range(0x110000) if chr(cp).isspace()},
        "python-str-splitlines": {cp for cp in range(0x110000) if len(("a" + chr(cp) + "b").splitlines()) == 2},
        "python-bytes-strip": {cp for cp in range(0x80) if bytes([cp]).isspace()},
        "python-bytes-splitlines": {cp for cp in range(0x80) if len((b"a" + bytes([cp]) + b"b").splitlines()) == 2},
    }
    for k, s in live.items():
        assert FUNCTIONS[k]["set"] == s, (k, sorted(FUNCTIONS[k]["set"] ^ s))
    # str.isspace() is White_Space plus U+001C..U+001F (what B-ID-2 and T-LINE-1 say).
    assert live["python-str-isspace"] - WHITE_SPACE == {0x1C, 0x1D, 0x1E, 0x1F}
    assert ZS == {0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000} | set(range(0x2000, 0x200B))


def code_points():
    cps = set()
    for f in FUNCTIONS.values():
        cps |= f["set"]
    cps |= set(NEAR_MISS_NOTES)
    return sorted(cps)


def table():
    check_against_python()
    out = []
    for cp in code_points():
        entry = {"cp": cp, "hex": "U+%04X" % cp, "name": name(cp), "utf8": chr(cp).encode("utf-8").hex(),
                 "in": [k for k, f in FUNCTIONS.items() if cp in f["set"]]}
        if cp in NEAR_MISS_NOTES:
            entry["note"] = NEAR_MISS_NOTES[cp]
        out.append(entry)
    return out


def document():
    return {
        "description": "Code points that mainstream languages' trim/strip/isspace/splitlines/\\s/TrimSpace/is_whitespace "
                       "treat specially, and the near-misses; `in` lists the functions (keys of `functions`) whose set "
                       "holds the code point. Written by conformance/tools/whitespace.py; do not edit.",
        "functions": {k: dict({m: v for m, v in f.items() if m != "set"},
                              code_points=["U+%04X" % c for c in sorted(f["set"])])
                      for k, f in FUNCTIONS.items()},
        "code_points": table(),
    }


def load():
    """The code points, for the table builders: a list of dicts as in whitespace.json."""
    return table()


def main():
    text = json.dumps(document(), indent=1, ensure_ascii=False) + "\n"
    with open(OUT + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(OUT + ".tmp", OUT)
    print("whitespace.json: %d code points, %d functions" % (len(code_points()), len(FUNCTIONS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
