#!/usr/bin/env python3
"""Build the journal-level conformance vectors (conformance/{wire,json,envelope,journal,
precedence,replay,fingerprint,branch,profile,real-world}.json).

Run from anywhere: `python3 conformance/tools/build_journal.py`. Deterministic: the same
script writes the same bytes.

Where expected values come from (never from the Rust code under test):
- invalid cases: the error code, line and sequence are written by hand below, derived
  from the SPEC.md rule each case breaks (`err(...)`);
- valid cases: results come from `oracle.py`, the seed's own projection semantics with
  Python's `json.dumps` as the canonical-JSON oracle.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = {}


def dumps(v):
    """A plain (non-canonical) line writer: insertion order, compact, raw UTF-8."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def ev(i, type_="model.request", payload=None, parent="prev", session="sess-1", run="run-1",
       event_id=None, extra=None):
    e = {
        "event_id": event_id if event_id is not None else "e%d" % i,
        "session_id": session,
        "sequence": i,
        "type": type_,
        "payload": {} if payload is None else payload,
        "provenance": {"run_id": run},
    }
    if parent == "prev":
        if i > 0:
            e["parent_event_id"] = "e%d" % (i - 1)
    elif parent is not None:
        e["parent_event_id"] = parent
    if extra:
        e.update(extra)
    return e


def conversation():
    """A small valid core journal: start, user, request, response, tool round trip, stop."""
    return [
        ev(0, "session.start", {"max_turns": 8}),
        ev(1, "user.message", {"content": "List the files."}),
        ev(2, "model.request", {"turn": 1}),
        ev(3, "tool.request", {"tool": "ls", "arguments": "{\"path\":\".\"}"}),
        ev(4, "tool.result", {"tool": "ls", "output": ["a.txt", "b.txt"], "ok": True}),
        ev(5, "model.response", {"content": "Two files: a.txt and b.txt."}),
        ev(6, "session.stop", {"reason": "completed"}),
    ]


def lines(events, nl="\n", final=True):
    text = nl.join(dumps(e) for e in events)
    return (text + nl if final and events else text).encode("utf-8")


def err(code, line=None, sequence=None):
    e = {"code": code}
    if line is not None:
        e["line"] = line
    if sequence is not None:
        e["sequence"] = sequence
    return {"error": e}


def add(group, name, description, rules, data, checks, tags=None, profile=None, level=None):
    case = {"name": name, "description": description, "rules": rules}
    if tags:
        case["tags"] = tags
    if level:
        case["level"] = level
    if profile:
        case["profile"] = profile
    try:
        text = data.decode("utf-8")
        case["input"] = text
    except UnicodeDecodeError:
        case["input_base64"] = base64.b64encode(data).decode("ascii")
    case["checks"] = checks
    FILES.setdefault(group, []).append(case)


def valid(group, name, description, rules, data, tags=None, profile=None, until=None, more=()):
    """A valid journal: validate, full replay, and optional partial replays, all from the oracle."""
    events = oracle.parse_journal(data)
    checks = [
        {"op": {"op": "validate"}, "expect": {"result": {"event_count": len(events)}}},
        {"op": {"op": "replay"}, "expect": {"result": oracle.replay(events)}},
    ]
    if until is not None:
        checks.append({"op": {"op": "replay", "until": until}, "expect": {"result": oracle.replay(events, until)}})
    checks.extend(more)
    add(group, name, description, rules, data, checks, tags, profile)


def invalid(group, name, description, rules, data, expect, tags=None, profile=None, ops=("validate",)):
    checks = [{"op": {"op": o}, "expect": expect} for o in ops]
    add(group, name, description, rules, data, checks, tags, profile)


# ---------------------------------------------------------------------------------------
# wire: W-*
# ---------------------------------------------------------------------------------------
base = conversation()
valid("wire", "lf-final-newline", "A plain LF journal with a final newline.", ["W-LINE-1", "W-LINE-3"], lines(base))
valid("wire", "no-final-newline", "The final newline is optional.", ["W-LINE-3"], lines(base, final=False))
valid("wire", "crlf", "CRLF line endings: the CR is JSON whitespace; same fingerprint as LF.",
      ["W-CR-1", "F-FP-2"], lines(base, nl="\r\n"), tags=["crlf"])
valid("wire", "crlf-no-final-newline", "CRLF endings and no final newline.", ["W-CR-1", "W-LINE-3"],
      lines(base, nl="\r\n", final=False), tags=["crlf"])
valid("wire", "u2028-in-string", "U+2028 and U+2029 inside a string do not end a line.", ["W-LINE-1"],
      lines([ev(0, "user.message", {"content": "a\u2028b\u2029c"}), ev(1)]), tags=["unicode"])
valid("wire", "u0085-in-string", "U+0085 (NEL) inside a string does not end a line.", ["W-LINE-1"],
      lines([ev(0, "user.message", {"content": "x\u0085y"}), ev(1)]), tags=["unicode"])
valid("wire", "u001e-in-string-escaped", "An escaped U+001E record separator in a string is fine.", ["W-LINE-1", "C-STR-1"],
      b'{"event_id":"e0","session_id":"s","sequence":0,"type":"user.message","payload":{"content":"a\\u001eb"},"provenance":{"run_id":"r"}}\n')
valid("wire", "surrounding-whitespace", "Spaces and tabs around the object are JSON whitespace.", ["W-JSON-1", "C-SYNTAX-1"],
      b"  \t" + lines([ev(0)]).rstrip(b"\n") + b" \t\n")
valid("wire", "cr-inside-line", "A lone CR between tokens is JSON whitespace, not a line break.", ["W-LINE-1", "W-CR-1"],
      b'{"event_id":"e0",\r"session_id":"s","sequence":0,"type":"t","payload":{},"provenance":{"run_id":"r"}}\n')
one = lines([ev(0)])
invalid("wire", "bom-first-line", "A UTF-8 BOM before the first line is rejected.", ["W-BOM-1"],
        b"\xef\xbb\xbf" + lines(base), err("unexpected_bom", 1), tags=["bom"])
invalid("wire", "bom-third-line", "A BOM at the start of a later line (concatenated files) is rejected.", ["W-BOM-1"],
        lines(base[:2]) + b"\xef\xbb\xbf" + lines(base[2:]), err("unexpected_bom", 3), tags=["bom"])
invalid("wire", "bom-only", "A file holding only a BOM has one line, which starts with a BOM.", ["W-BOM-1"],
        b"\xef\xbb\xbf", err("unexpected_bom", 1), tags=["bom"])
for name, bad, desc in [
    ("invalid-utf8-ff", b"\xff", "the byte FF"),
    ("invalid-utf8-overlong", b"\xc0\xaf", "an overlong encoding of '/'"),
    ("invalid-utf8-surrogate", b"\xed\xa0\x80", "an encoded surrogate (CESU-8)"),
    ("invalid-utf8-truncated", b"\xe2\x82", "a truncated 3-byte sequence"),
    ("invalid-utf8-above-max", b"\xf4\x90\x80\x80", "a code point above U+10FFFF"),
    ("invalid-utf8-latin1", b"caf\xe9", "Latin-1 text"),
]:
    data = lines([ev(0)]) + b'{"event_id":"e1","session_id":"sess-1","sequence":1,"type":"user.message","payload":{"content":"' + bad + b'"},"provenance":{"run_id":"run-1"}}\n'
    invalid("wire", name, "A line with %s is not UTF-8." % desc, ["W-UTF8-1"], data, err("invalid_utf8", 2), tags=["utf8"])
invalid("wire", "invalid-utf8-outside-string", "Invalid UTF-8 outside any string.", ["W-UTF8-1"],
        b"\x80" + one, err("invalid_utf8", 1), tags=["utf8"])
invalid("wire", "invalid-utf8-after-bad-line", "Lines are checked in order: a JSON error on line 2 is reported, not the invalid UTF-8 on line 4 "
        "(a reader that decodes the whole file first reports the UTF-8).", ["J-ORDER-1", "C-SYNTAX-1", "W-UTF8-1", "W-LINE-2"],
        lines([ev(0)]) + b"{not json}\n" + lines([ev(2)]) + b"\xff\n", err("invalid_json", 2), tags=["utf8"])
invalid("wire", "blank-line-middle", "An empty line between events is rejected.", ["W-BLANK-1", "W-LINE-2"],
        lines(base[:2]) + b"\n" + lines(base[2:]), err("blank_line", 3))
invalid("wire", "blank-line-end", "A trailing empty line (two final newlines) is rejected.", ["W-BLANK-1", "W-LINE-3"],
        lines(base) + b"\n", err("blank_line", 8))
invalid("wire", "whitespace-line", "A line of spaces and tabs is blank.", ["W-BLANK-1"],
        lines(base[:1]) + b" \t \n" + lines(base[1:]), err("blank_line", 2))
invalid("wire", "cr-only-line", "A line holding only CR (CRLF blank line) is blank.", ["W-BLANK-1", "W-CR-1"],
        lines(base[:1], nl="\r\n") + b"\r\n" + lines(base[1:], nl="\r\n"), err("blank_line", 2), tags=["crlf"])
invalid("wire", "newline-only", "A file holding a single newline has one blank line.", ["W-BLANK-1"],
        b"\n", err("blank_line", 1))
invalid("wire", "empty-file", "A zero-byte file is an empty journal.", ["J-EMPTY-1", "W-LINE-3"], b"", err("empty_journal"),
        ops=("validate", "replay"))
invalid("wire", "torn-last-line", "A last line cut off mid-object (a torn write) is not JSON.", ["W-JSON-1", "C-SYNTAX-1"],
        lines(base[:3]) + lines(base[3:4])[:25], err("invalid_json", 4), tags=["torn"])
invalid("wire", "torn-last-line-in-string", "A last line cut off inside a string.", ["W-JSON-1", "C-SYNTAX-1"],
        lines(base[:1]) + b'{"event_id":"e1","session_id":"sess-1","sequence":1,"type":"user.message","payload":{"content":"Lis', err("invalid_json", 2), tags=["torn"])
invalid("wire", "vertical-tab-not-whitespace", "U+000B is not JSON whitespace and does not split lines.", ["W-LINE-1", "C-SYNTAX-1"],
        b"\x0b" + one, err("invalid_json", 1))
invalid("wire", "form-feed-not-whitespace", "U+000C is not JSON whitespace.", ["W-LINE-1", "C-SYNTAX-1"],
        one.rstrip(b"\n") + b"\x0c\n", err("invalid_json", 1))
invalid("wire", "two-objects-one-line", "Two JSON objects on one line are not one JSON text.", ["W-JSON-1", "C-SYNTAX-1"],
        one.rstrip(b"\n") + lines([ev(1)]), err("invalid_json", 1))
invalid("wire", "raw-u2028-splits-nothing", "A raw U+2028 between two objects does not make two lines.", ["W-LINE-1", "C-SYNTAX-1"],
        one.rstrip(b"\n") + "\u2028".encode() + lines([ev(1)]), err("invalid_json", 1), tags=["unicode"])

# ---------------------------------------------------------------------------------------
# json: C-* inside journal lines
# ---------------------------------------------------------------------------------------
def with_payload_text(ptext, i=0):
    return ('{"event_id":"e%d","session_id":"sess-1","sequence":%d,"type":"x.custom","payload":%s,"provenance":{"run_id":"run-1"}}\n'
            % (i, i, ptext)).encode("utf-8")


prefix = lines([ev(0)])
for name, ptext, code, rules, desc in [
    ("trailing-comma", '{"a":1,}', "invalid_json", ["C-SYNTAX-1"], "a trailing comma"),
    ("single-quotes", "{'a':1}", "invalid_json", ["C-SYNTAX-1"], "single-quoted strings"),
    ("nan", '{"a":NaN}', "invalid_json", ["C-SYNTAX-1"], "NaN"),
    ("infinity", '{"a":Infinity}', "invalid_json", ["C-SYNTAX-1"], "Infinity"),
    ("minus-infinity", '{"a":-Infinity}', "invalid_json", ["C-SYNTAX-1"], "-Infinity"),
    ("comment", '{"a":1/*c*/}', "invalid_json", ["C-SYNTAX-1"], "a comment"),
    ("leading-zero", '{"a":01}', "invalid_json", ["C-SYNTAX-1"], "a leading zero"),
    ("leading-plus", '{"a":+1}', "invalid_json", ["C-SYNTAX-1"], "a leading plus"),
    ("bare-fraction", '{"a":.5}', "invalid_json", ["C-SYNTAX-1"], "a fraction without integer digits"),
    ("empty-fraction", '{"a":5.}', "invalid_json", ["C-SYNTAX-1"], "a dot without fraction digits"),
    ("empty-exponent", '{"a":1e}', "invalid_json", ["C-SYNTAX-1"], "an exponent without digits"),
    ("hex-number", '{"a":0x10}', "invalid_json", ["C-SYNTAX-1"], "a hex number"),
    ("true-capital", '{"a":True}', "invalid_json", ["C-SYNTAX-1", "C-LIT-1"], "a capitalised literal"),
    ("raw-tab-in-string", '{"a":"x\ty"}', "invalid_json", ["C-SYNTAX-1"], "a raw tab inside a string"),
    ("raw-nul-in-string", '{"a":"x\u0000y"}', "invalid_json", ["C-SYNTAX-1"], "a raw NUL inside a string"),
    ("bad-escape", '{"a":"\\x41"}', "invalid_json", ["C-SYNTAX-1", "C-STR-3"], "an unknown escape \\x"),
    ("short-unicode-escape", '{"a":"\\u12"}', "invalid_json", ["C-SYNTAX-1"], "a short \\u escape"),
    ("unquoted-key", '{a:1}', "invalid_json", ["C-SYNTAX-1"], "an unquoted key"),
    ("missing-colon", '{"a" 1}', "invalid_json", ["C-SYNTAX-1"], "a missing colon"),
    ("semicolon-for-colon", '{"a";1}', "invalid_json", ["C-SYNTAX-1"], "a semicolon where the colon goes (a parser that skips one byte there accepts it)"),
    ("equals-for-colon", '{"a"=1}', "invalid_json", ["C-SYNTAX-1"], "an equals sign where the colon goes"),
    ("minus-for-colon", '{"a"-1}', "invalid_json", ["C-SYNTAX-1"], "a minus where the colon goes (what is left after it is a value)"),
    ("duplicate-key-payload", '{"a":1,"b":2,"a":3}', "duplicate_key", ["C-KEY-2"], "a duplicate key in the payload"),
    ("duplicate-key-escaped", '{"a":1,"\\u0061":2}', "duplicate_key", ["C-KEY-2"], "keys equal after escape decoding"),
    ("duplicate-key-nested", '{"x":{"k":1,"k":1}}', "duplicate_key", ["C-KEY-2"], "a duplicate key with the same value, nested"),
    ("lone-high-surrogate", '{"a":"\\ud800"}', "lone_surrogate", ["C-STR-3"], "a lone high surrogate escape"),
    ("lone-low-surrogate", '{"a":"\\udc00"}', "lone_surrogate", ["C-STR-3"], "a lone low surrogate escape"),
    ("high-then-non-low", '{"a":"\\ud800\\u0041"}', "lone_surrogate", ["C-STR-3"], "a high surrogate followed by a non-surrogate escape"),
    ("reversed-pair", '{"a":"\\udc00\\ud800"}', "lone_surrogate", ["C-STR-3"], "a low surrogate before a high one"),
    ("two-low-surrogates", '{"a":"\\udc00\\udc00"}', "lone_surrogate", ["C-STR-3"], "two low surrogate escapes (a parser that takes U+DC00 for a high surrogate pairs them)"),
    ("float-overflow", '{"a":1e400}', "number_out_of_range", ["C-NUM-6"], "a float that overflows to infinity"),
    ("float-overflow-negative", '{"a":-1.8e308}', "number_out_of_range", ["C-NUM-6"], "a negative float beyond the largest double"),
    ("int-4301-digits", '{"a":%s}' % ("9" * 4301), "number_out_of_range", ["C-NUM-3"], "an integer with 4301 digits"),
    ("nesting-129", '{"a":%s%s}' % ("[" * 127, "]" * 127), "nesting_too_deep", ["C-DEPTH-1"], "129 nested containers (event object at depth 1)"),
    ("nesting-100000", '{"a":%s%s}' % ("[" * 100000, "]" * 100000), "nesting_too_deep", ["C-DEPTH-1"], "100000 nested arrays (no stack overflow)"),
    ("nesting-129-objects", '{"a":' * 128 + "1" + "}" * 128, "nesting_too_deep", ["C-DEPTH-1"], "129 nested objects (the event at depth 1, the payload at 2)"),
]:
    invalid("json", name, "A payload with %s is rejected." % desc, rules, prefix + with_payload_text(ptext, 1), err(code, 2))

# A line cut short: every prefix of one event line that ends inside its payload (the payload
# holds one token of every kind, escapes and an empty object and string) is invalid_json
# (C-SYNTAX-1), as Python's json.loads says of each; a parser that reads past the end of
# its input, or takes the end for a colon, a quote or the end of an escape, fails here.
cut_payload = '{"s":"a\\u0041\\n\\\\","k":[1,-2.5e3,true,false,null,{},[]],"o":{"x":"","y":0}}'
json.loads(cut_payload)
cut_line = with_payload_text(cut_payload, 1).decode("ascii").rstrip("\n")
cut_from = cut_line.index(cut_payload)
for k in range(cut_from, len(cut_line)):
    cut = cut_line[:k]
    try:
        json.loads(cut)
        raise AssertionError("a prefix is a JSON text: %r" % cut)
    except json.JSONDecodeError:
        pass
    invalid("json", "cut-at-%d" % k, "A line cut short after %d bytes (%r) is rejected." % (k, cut[-12:]),
            ["C-SYNTAX-1"], prefix + (cut + "\n").encode("ascii"), err("invalid_json", 2))

# Duplicate keys in a wide object, on both sides of the parser's switch from a linear look
# at earlier members to a set (at 16 members): member j repeats member i's key. Python's
# object_pairs_hook says each text holds exactly one duplicate.
# A parser that skips one byte where a colon goes, or takes any byte for a key's opening
# quote, declines a line at its first real colon or quote; on a line where EVERY colon or
# opening quote is wrong, nothing stops it. Each line holds only the envelope (payload {}).
line1 = with_payload_text("{}", 1).decode("utf-8")
invalid("json", "semicolon-for-every-colon", "A line whose every colon is a semicolon is rejected (no correct colon stops a parser that skips one byte there).",
        ["C-SYNTAX-1"], prefix + line1.replace('":', '";').encode("utf-8"), err("invalid_json", 2))
invalid("json", "no-opening-quote-on-every-key", "A line whose every key has an apostrophe for its opening quote is rejected (no correct key stops a parser that takes any byte there).",
        ["C-SYNTAX-1"], prefix + line1.replace('{"', "{'").replace(',"', ",'").encode("utf-8"), err("invalid_json", 2))


def wide_duplicate(i, j, n=24):
    keys = ["k%d" % m for m in range(n)]
    keys[j] = keys[i]
    text = "{" + ",".join('"%s":%d' % (k, m) for m, k in enumerate(keys)) + "}"
    pairs = json.loads(text, object_pairs_hook=lambda ps: ps)
    assert len(pairs) - len(dict(pairs)) == 1
    return text

for i, j in [(0, 15), (0, 16), (15, 16), (16, 17), (16, 23), (17, 18), (0, 23), (22, 23)]:
    invalid("json", "duplicate-key-wide-%d-%d" % (i, j),
            "A payload of 24 members whose member %d repeats the key of member %d is rejected." % (j, i),
            ["C-KEY-2"], prefix + with_payload_text(wide_duplicate(i, j), 1), err("duplicate_key", 2))

for name, ptext, rules, desc, tags in [
    ("int-4300-digits", '{"a":%s}' % ("9" * 4300), ["C-NUM-1", "C-NUM-3"], "an integer of exactly 4300 digits", ["bignum"]),
    ("nesting-128", '{"a":%s%s}' % ("[" * 126, "]" * 126), ["C-DEPTH-1"], "exactly 128 nested containers", []),
    # Objects to the limit (the fast path checks an object's depth apart from an array's).
    ("nesting-128-objects", '{"a":' * 127 + "1" + "}" * 127, ["C-DEPTH-1"], "exactly 128 nested objects, the innermost non-empty", []),
    ("nesting-128-objects-empty", '{"a":' * 126 + "{}" + "}" * 126, ["C-DEPTH-1"], "exactly 128 nested objects, the innermost empty", []),
    ("big-integers", '{"a":18446744073709551616,"b":-9223372036854775809,"c":100000000000000000000000000000}', ["C-NUM-1"], "integers beyond 64 bits, kept exact", ["bignum"]),
    ("float-spellings", '{"a":1E2,"b":1e-7,"c":0.00001,"d":1e16,"e":-0.0,"f":5e-324,"g":9007199254740993.0}', ["C-NUM-4", "C-NUM-5"], "floats in several spellings", ["float"]),
    ("minus-zero-int", '{"a":-0}', ["C-NUM-2"], "the integer -0, which is 0", []),
    ("float-underflow", '{"a":1e-400,"b":-1e-400}', ["C-NUM-4", "C-NUM-5"], "floats that underflow to zero", ["float"]),
    ("surrogate-pair-escape", '{"a":"\\ud83d\\ude00"}', ["C-STR-3", "C-STR-2"], "a valid surrogate pair escape", ["unicode"]),
    ("surrogate-pair-first", '{"a":"\\ud800\\udc00"}', ["C-STR-3", "C-STR-2"], "the first surrogate pair (U+10000)", ["unicode"]),
    ("surrogate-pair-last", '{"a":"\\udbff\\udfff"}', ["C-STR-3", "C-STR-2"], "the last surrogate pair (U+10FFFF)", ["unicode"]),
    ("escape-slash", '{"a":"\\/"}', ["C-STR-2"], "an escaped slash", []),
    ("all-literals", '{"t":true,"f":false,"n":null,"e":[],"o":{}}', ["C-LIT-1"], "true, false, null and empty containers", []),
    # Literals as array elements: an array's writer steps from each element to the next.
    ("literals-in-arrays", '{"a":[false,true,null,false],"b":[[false],[true],[null]]}', ["C-LIT-1"], "true, false and null as array elements", []),
    ("escaped-strings-in-arrays", '{"a":["\\u00e9","x\\ny",["\\"q\\"",1]],"b":["\\/","\\t"]}', ["C-STR-1", "C-STR-2"], "strings with escapes as array elements", []),
    # The same elements in members that are NOT canonical (a space, keys out of order): a
    # canonical member is copied whole, so only these make the writer step through arrays
    # of every kind of element.
    ("every-element-kind-in-spaced-arrays", '{"a":[1.5, 2, -3, true, false, null, "x", "\\u00e9", {"d":1,"c":2}, [], [1.5, 0.25]]}',
     ["C-NUM-4", "C-NUM-5", "C-LIT-1", "C-STR-2", "C-KEY-1"], "an array of every kind of element with spaces between them", ["float"]),
    ("every-element-kind-in-reordered-arrays", '{"z":0,"a":[[1.5,2,-3,true,false,null,"x","\\u00e9",{"d":1,"c":2},[],[0.25]],{"y":[0.5,1],"x":[true]}]}',
     ["C-NUM-4", "C-NUM-5", "C-LIT-1", "C-STR-2", "C-KEY-1"], "arrays of every kind of element in members whose keys are out of order", ["float"]),
]:
    data = prefix + with_payload_text(ptext, 1)
    valid("json", name, "A payload with %s is accepted." % desc, rules + ["F-FP-1"], data, tags=tags,
          more=[{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(oracle.parse_journal(data))}}])

for name, text, desc in [
    ("array-line", "[1,2]", "an array"), ("string-line", '"event"', "a string"), ("number-line", "42", "a number"),
    ("null-line", "null", "null"), ("true-line", "true", "true"),
]:
    invalid("json", name, "A line holding %s, not an object, is not an event." % desc, ["E-ENV-1"],
            prefix + text.encode() + b"\n", err("malformed_event", 2))

# ---------------------------------------------------------------------------------------
# envelope: E-*
# ---------------------------------------------------------------------------------------
def mutate(i, f):
    e = ev(i)
    f(e)
    return e


good = lines([ev(0)])
for field in ["event_id", "session_id", "sequence", "type", "payload", "provenance"]:
    invalid("envelope", "missing-" + field.replace("_", "-"), "An event without `%s`." % field, ["E-ENV-1"],
            good + lines([mutate(1, lambda e, f=field: e.pop(f))]), err("malformed_event", 2))
invalid("envelope", "missing-run-id", "provenance without `run_id`.", ["E-ENV-1"],
        good + lines([mutate(1, lambda e: e.update(provenance={"agent": "x"}))]), err("malformed_event", 2, 1))
for field, bad, label in [
    ("event_id", "", "an empty string"), ("event_id", 7, "a number"), ("event_id", None, "null"),
    ("session_id", "", "an empty string"), ("session_id", ["s"], "an array"),
    ("sequence", "1", "a string"), ("sequence", 1.0, "a float 1.0"), ("sequence", True, "true"), ("sequence", None, "null"),
    ("type", "", "an empty string"), ("type", 3, "a number"),
    ("payload", [], "an array"), ("payload", None, "null"), ("payload", "text", "a string"),
    ("provenance", [], "an array"), ("provenance", "run-1", "a string"),
    ("parent_event_id", None, "null"), ("parent_event_id", "", "an empty string"), ("parent_event_id", 0, "a number"),
]:
    name = "%s-%s" % (field.replace("_", "-"), label.replace(" ", "-").replace(".", ""))
    seq = 1 if field != "sequence" else None
    # A float where an integer is due: C-NUM-1 says 1.0 is not an integer.
    invalid("envelope", name, "`%s` is %s." % (field, label), ["E-ENV-1"] + (["C-NUM-1"] if isinstance(bad, float) else []),
            good + lines([mutate(1, lambda e, f=field, b=bad: e.__setitem__(f, b))]), err("malformed_event", 2, seq))
for bad, label in [("", "an empty string"), (1, "a number"), (None, "null")]:
    invalid("envelope", "run-id-" + label.replace(" ", "-"), "`provenance.run_id` is %s." % label, ["E-ENV-1"],
            good + lines([mutate(1, lambda e, b=bad: e.__setitem__("provenance", {"run_id": b}))]), err("malformed_event", 2, 1))
invalid("envelope", "field-order-event-id-first", "With event_id and payload both broken, the event is malformed either way.",
        ["E-ENV-1", "J-ORDER-1"], good + lines([mutate(1, lambda e: e.update(event_id=1, payload=[]))]), err("malformed_event", 2))
valid("envelope", "unknown-fields-kept", "Unknown fields at every level are allowed and fingerprinted.", ["E-ENV-2", "F-FP-1"],
      lines([ev(0, extra={"x-vendor": {"k": [1, 2.5, None]}, "timestamp": "2026-01-01T00:00:00Z"}),
             ev(1, "user.message", {"content": "hi", "attachments": [{"name": "a"}]}),
             mutate(2, lambda e: e["provenance"].update(model="m", extra={"z": 1}))]))
# Unknown members whose names share their first 8 bytes and their length with the long
# names the envelope and the reducer look up (session_id, provenance, parent_event_id,
# accumulated), one sorting before and one after each name: a member lookup that compares
# a long name's first 8 bytes and its length but not the rest (the fast path's `key_cmp`
# with its tail comparison broken) reads the decoy. `wide`: 12 more members in every event
# and payload, so that each object has over 16 (the fast path then looks members up by
# binary search instead of a scan).
def decoyed(wide):
    pad = {"w%02d" % k: k for k in range(12)} if wide else {}
    def payload(p):
        return dict(p, **pad)
    evs = [ev(0, "session.start", payload({})), ev(1, "user.message", payload({"content": "hi"})),
           ev(2, "model.response", payload({"accumulateA": "decoy-a", "accumulated": "the answer",
                                            "accumulatez": "decoy-z", "final": True})),
           ev(3, "session.stop", payload({"reason": "done"}), parent=None)]
    for e in evs:
        e.update({"session_iA": "decoy-session-a", "session_iz": "decoy-session-z",
                  "provenancA": {"run_id": "decoy-run-a"}, "provenancz": {"run_id": "decoy-run-z"},
                  "parent_event_iA": "nowhere-a", "parent_event_iz": "nowhere-z"}, **pad)
    return lines(evs)
for wide in (False, True):
    data = decoyed(wide)
    valid("envelope", "decoy-names-sharing-8-bytes" + ("-wide" if wide else ""),
          "Every event has unknown members named like session_id, provenance and parent_event_id but for their "
          "last byte (session_iA, session_iz, ...), and the final model.response like accumulated (accumulateA, "
          "accumulatez): they are only fingerprinted; the replay reads the real members"
          + (" (every object over 16 members)." if wide else "."),
          ["E-ENV-1", "E-ENV-2", "R-STREAM-1", "F-FP-1"], data,
          more=[{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(oracle.parse_journal(data))}}])
# The same with the short names (type, payload, run_id, content, final, reason): decoys
# made of the name, NUL bytes up to 8 bytes, then one more byte, so that their first 8
# bytes are the name padded with zeros (the fast path's lookup word of the short name).
def nul_decoy(name):
    return name + "\u0000" * (8 - len(name)) + "x"
# Such a decoy sorts after its name, so a scan of a small object meets the real member
# first; `-wide` (every object over 16 members) makes the lookup a binary search, which
# probes the decoys too.
def nul_decoyed(wide):
    pad = {"w%02d" % k: k for k in range(16)} if wide else {}
    evs = [ev(0, "session.start", dict(pad)),
           ev(1, "user.message", dict({"content": "hi", nul_decoy("content"): "decoy"}, **pad)),
           ev(2, "model.response", dict({"accumulated": "the answer", "final": True, nul_decoy("final"): False}, **pad)),
           ev(3, "session.stop", dict({"reason": "done", nul_decoy("reason"): "decoy"}, **pad))]
    for e in evs:
        e.update({nul_decoy("type"): "user.message", nul_decoy("payload"): {"content": "decoy"}}, **pad)
        e["provenance"][nul_decoy("run_id")] = "decoy-run"
        e["provenance"].update(pad)
    return lines(evs)
for wide in (False, True):
    data = nul_decoyed(wide)
    valid("envelope", "decoy-names-with-nul-bytes" + ("-wide" if wide else ""),
          "Unknown members named like type, payload, run_id, content, final and reason, padded with NUL bytes to 8 "
          "bytes and one byte more (type\\u0000\\u0000\\u0000\\u0000x): they are only fingerprinted; the replay reads "
          "the real members" + (" (every object over 16 members)." if wide else "."),
          ["E-ENV-1", "E-ENV-2", "R-USER-1", "R-STREAM-1", "R-STOP-1", "F-FP-1"], data,
          more=[{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(oracle.parse_journal(data))}}])
valid("envelope", "unknown-type", "An event type the reducer does not know is accepted and only fingerprinted.", ["E-ENV-2", "R-OTHER-1"],
      lines([ev(0, "session.start"), ev(1, "vendor.custom-thing", {"content": "not a user message"}), ev(2, "Model.Response", {"content": "case matters"})]))
valid("envelope", "sequence-minus-zero", "The integer -0 is the integer 0, a valid first sequence.", ["E-ENV-1", "C-NUM-2", "J-SEQ-1"],
      b'{"event_id":"e0","session_id":"s","sequence":-0,"type":"t","payload":{},"provenance":{"run_id":"r"}}\n')
valid("envelope", "no-parents", "parent_event_id is optional on every event.", ["E-ENV-1", "J-PARENT-1"],
      lines([ev(i, parent=None) for i in range(4)]))

# ---------------------------------------------------------------------------------------
# journal: J-*
# ---------------------------------------------------------------------------------------
conv = conversation()


def seqs(seq_list):
    """Events e0, e1, ... (no parents) carrying the given sequence numbers."""
    events = []
    for i, s in enumerate(seq_list):
        e = ev(i, parent=None)
        e["sequence"] = s
        events.append(e)
    return lines(events)


invalid("journal", "gap", "Sequences 0,1,3: a gap (seed exercise A).", ["J-SEQ-1"], seqs([0, 1, 3]), err("sequence_gap", 3, 3),
        ops=("validate", "replay"))
invalid("journal", "exercise-a", "The seed's exercise A: the first three s07 events with the last sequence changed to 4.", ["J-SEQ-1"],
        seqs([0, 1, 4]), err("sequence_gap", 3, 4), ops=("validate", "replay", "fingerprint"))
invalid("journal", "starts-at-one", "Sequences must start at 0.", ["J-SEQ-1"], seqs([1, 2, 3]), err("sequence_gap", 1, 1))
invalid("journal", "repeat", "A repeated sequence.", ["J-SEQ-1"], seqs([0, 1, 1, 2]), err("sequence_gap", 3, 1))
invalid("journal", "reordered", "Swapped sequences.", ["J-SEQ-1"], seqs([0, 2, 1]), err("sequence_gap", 2, 2))
invalid("journal", "negative", "A negative sequence.", ["J-SEQ-1"], seqs([-1]), err("sequence_gap", 1, -1))
invalid("journal", "huge-sequence", "A sequence beyond 64 bits is a gap and reports no sequence.", ["J-SEQ-1", "J-LOC-1", "O-ERR-1"],
        good + b'{"event_id":"e1","session_id":"sess-1","sequence":99999999999999999999,"type":"t","payload":{},"provenance":{"run_id":"run-1"}}\n',
        err("sequence_gap", 2))
invalid("journal", "restart-after-resume", "Ids restarting at 0 after a resume in the same file (Reasonix).", ["J-SEQ-1"],
        lines(conv[:3]) + lines([ev(0, "session.start", parent=None, event_id="e0-resumed")]), err("sequence_gap", 4, 0), tags=["real-world"])
invalid("journal", "mixed-session", "A second session id.", ["J-SESSION-1"],
        lines(conv[:2] + [mutate(2, lambda e: e.update(session_id="sess-2"))]), err("mixed_session", 3, 2))
invalid("journal", "mixed-session-nfd", "Session ids that differ only by Unicode normalisation are different.", ["J-SESSION-1"],
        lines([ev(0, session="caf\u00e9"), ev(1, session="cafe\u0301")]), err("mixed_session", 2, 1), tags=["unicode"])
invalid("journal", "mixed-session-trailing-space", "Session ids are compared exactly (no trimming).", ["J-SESSION-1"],
        lines([ev(0), ev(1, session="sess-1 ")]), err("mixed_session", 2, 1))
invalid("journal", "mixed-run", "A second provenance.run_id.", ["J-RUN-1"],
        lines(conv[:4] + [mutate(4, lambda e: e["provenance"].update(run_id="run-2"))]), err("mixed_run", 5, 4))
invalid("journal", "mixed-run-case", "Run ids are case-sensitive.", ["J-RUN-1"], lines([ev(0), ev(1, run="RUN-1")]), err("mixed_run", 2, 1))
invalid("journal", "concatenated-runs", "Two runs of one session concatenated (sequence restarts first).", ["J-SEQ-1", "J-RUN-1"],
        lines([ev(0), ev(1)]) + lines([ev(0, run="run-2", parent=None)]), err("sequence_gap", 3, 0), tags=["real-world"])
invalid("journal", "concatenated-renumbered", "Two runs concatenated and renumbered: the run id differs.", ["J-RUN-1"],
        lines([ev(0), ev(1), ev(2, run="run-2", parent=None)]), err("mixed_run", 3, 2), tags=["real-world"])
invalid("journal", "duplicate-id-adjacent", "Two events with one id.", ["J-ID-1"],
        lines([ev(0), ev(1), ev(2, event_id="e1", parent="e0")]), err("duplicate_event_id", 3, 2))
invalid("journal", "duplicate-id-far", "An id reused much later.", ["J-ID-1"],
        lines([ev(i) for i in range(9)] + [ev(9, event_id="e0", parent="e8")]), err("duplicate_event_id", 10, 9))
invalid("journal", "duplicate-id-first", "The first id reused by the second event.", ["J-ID-1"],
        lines([ev(0), ev(1, event_id="e0", parent=None)]), err("duplicate_event_id", 2, 1))
invalid("journal", "forward-parent", "A parent that appears later is rejected.", ["J-PARENT-1"],
        lines([ev(0), ev(1, parent="e2"), ev(2)]), err("unknown_parent", 2, 1))
# Journals past the id sets' first sizes (the fast path's table of ids starts with 1,024
# slots and grows at three quarters full: at 768 and 1,152 ids): every id must still be
# found after each growth, for a parent and for a duplicate. Short lines (a session `s`,
# a run `r`, an empty payload) keep each near 200 KB.
def many(n, last=None):
    evs = [ev(0, "session.start", parent=None, session="s", run="r")]
    evs += [ev(i, "t", parent="e%d" % ((i * 7919) % i), session="s", run="r") for i in range(1, n)]
    if last is not None:
        evs.append(last)
    return lines(evs)

data = many(1500)
valid("journal", "many-events", "1,500 events whose parents reach back anywhere.", ["J-ID-1", "J-PARENT-1", "F-FP-1"], data,
      more=[{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(oracle.parse_journal(data))}}])
for name, what, last, code in [
    ("duplicate-id-after-growth-first", "reuses the first id", ev(1500, event_id="e0", parent="e1499", session="s", run="r"), "duplicate_event_id"),
    ("duplicate-id-after-growth-late", "reuses an id added after two growths", ev(1500, event_id="e1300", parent="e1499", session="s", run="r"), "duplicate_event_id"),
    ("duplicate-id-after-growth-middle", "reuses an id added before both growths, neither first nor last", ev(1500, event_id="e500", parent="e1499", session="s", run="r"), "duplicate_event_id"),
    ("dangling-parent-after-growth", "names a parent that never appears", ev(1500, parent="e1501", session="s", run="r"), "unknown_parent"),
]:
    invalid("journal", name, "Event 1500 of a 1,501-event journal %s." % what,
            ["J-ID-1"] if code == "duplicate_event_id" else ["J-PARENT-1"], many(1500, last), err(code, 1501, 1500),
            ops=("validate", "replay", "fingerprint"))

# Long ids: the fast path's id set keeps each id after its length (LEB128: one byte below
# 128, two from 128, three from 16,384) and walks those lengths when its table grows, so
# ids on both sides of each width must be found, before and after a growth.
def long_id(i):
    return ("e%d-" % i).ljust(120 + i % 16, "x")  # 120 to 135 bytes

def long_ids(n, last=None):
    evs = [ev(0, "session.start", parent=None, session="s", run="r", event_id=long_id(0))]
    evs += [ev(i, "t", parent=long_id((i * 7919) % i) if i % 8 == 0 else None, session="s", run="r",
               event_id=long_id(i)) for i in range(1, n)]
    if last is not None:
        evs.append(last)
    return lines(evs)

data = long_ids(800)
valid("journal", "long-ids", "800 events with ids of 120 to 135 bytes (a one- or two-byte length in the fast path's id set), past its first growth.",
      ["J-ID-1", "J-PARENT-1", "F-FP-1"], data,
      more=[{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(oracle.parse_journal(data))}}])
for name, what, last, code in [
    ("duplicate-long-id-after-growth", "reuses the 131-byte id of event 779",
     ev(800, event_id=long_id(779), parent=long_id(799), session="s", run="r"), "duplicate_event_id"),
    ("dangling-long-parent-after-growth", "names as parent a 128-byte id one byte short of event 792's",
     ev(800, event_id=long_id(800), parent=long_id(792)[:-1], session="s", run="r"), "unknown_parent"),
]:
    invalid("journal", name, "Event 800 of an 801-event journal of 120- to 135-byte ids %s." % what,
            ["J-ID-1"] if code == "duplicate_event_id" else ["J-PARENT-1"], long_ids(800, last), err(code, 801, 800))
wide = ["a" * 16383, "a" * 16384, "a" * 16383 + "b", "a" * 16385]
invalid("journal", "duplicate-id-16384-bytes", "Ids of 16,383 to 16,385 bytes (a two- or three-byte length in the fast path's id set); the 16,384-byte one is reused.",
        ["J-ID-1"], lines([ev(0, event_id=wide[0], parent=None)] + [ev(i, event_id=wide[i], parent=wide[i - 1]) for i in range(1, 4)]
                          + [ev(4, event_id=wide[1], parent=wide[3])]), err("duplicate_event_id", 5, 4))

invalid("journal", "dangling-parent", "A parent that never appears.", ["J-PARENT-1"],
        lines([ev(0), ev(1, parent="e-missing")]), err("unknown_parent", 2, 1))
invalid("journal", "self-parent", "An event that is its own parent.", ["J-PARENT-1"],
        lines([ev(0), ev(1, parent="e1")]), err("unknown_parent", 2, 1))
invalid("journal", "self-parent-first", "The first event naming itself as parent.", ["J-PARENT-1"],
        lines([ev(0, parent="e0")]), err("unknown_parent", 1, 0))
invalid("journal", "parent-case-mismatch", "Parent ids are compared exactly.", ["J-PARENT-1"],
        lines([ev(0), ev(1, parent="E0")]), err("unknown_parent", 2, 1))
valid("journal", "parent-any-earlier", "Parents may point at any earlier event, not only the previous one (siblings).", ["J-PARENT-1"],
      lines([ev(0), ev(1), ev(2, parent="e0"), ev(3, parent="e0"), ev(4, parent="e2")]), tags=["siblings"])
valid("journal", "single-event", "A journal of one event.", ["J-EMPTY-1", "J-SEQ-1"], lines([ev(0, "session.start")]))
valid("journal", "ids-any-string", "Event ids are any non-empty strings, Unicode included.", ["E-ENV-1", "J-ID-1"],
      lines([ev(0, event_id="🦀"), ev(1, event_id="🦀 ", parent="🦀"), ev(2, event_id="e\u0301", parent="🦀 "), ev(3, event_id="\u00e9", parent="e\u0301")]),
      tags=["unicode"])
valid("journal", "long-journal", "A 200-event journal.", ["J-SEQ-1"], lines([ev(i, "user.message", {"content": "m%d" % i}) for i in range(200)]),
      until=150)

# ---------------------------------------------------------------------------------------
# precedence: J-ORDER-1, O-ORDER-1
# ---------------------------------------------------------------------------------------
invalid("precedence", "earliest-event-wins", "A mixed session on line 2 is reported before a gap on line 3.", ["J-ORDER-1", "J-SESSION-1"],
        lines([ev(0), ev(1, session="other"), mutate(2, lambda e: e.update(sequence=5))]), err("mixed_session", 2, 1))
invalid("precedence", "gap-before-session", "Within one event, the sequence is checked before the session.", ["J-ORDER-1", "J-SEQ-1"],
        lines([ev(0), mutate(1, lambda e: e.update(sequence=7, session_id="other"))]), err("sequence_gap", 2, 7))
invalid("precedence", "session-before-run", "Within one event, the session is checked before the run.", ["J-ORDER-1", "J-SESSION-1"],
        lines([ev(0), ev(1, session="s2", run="r2")]), err("mixed_session", 2, 1))
invalid("precedence", "run-before-duplicate", "The run is checked before the id.", ["J-ORDER-1", "J-RUN-1"],
        lines([ev(0), ev(1, run="r2", event_id="e0", parent=None)]), err("mixed_run", 2, 1))
invalid("precedence", "duplicate-before-parent", "The id is checked before the parent.", ["J-ORDER-1", "J-ID-1"],
        lines([ev(0), ev(1, event_id="e0", parent="nope")]), err("duplicate_event_id", 2, 1))
invalid("precedence", "payload-before-sequence", "R-TYPE-1 comes before J-SEQ-1.", ["J-ORDER-1", "R-TYPE-1"],
        lines([ev(0), mutate(1, lambda e: e.update(type="user.message", payload={"content": 5}, sequence=9))]), err("invalid_payload", 2, 9))
invalid("precedence", "envelope-before-sequence", "E-ENV-1 comes before J-SEQ-1.", ["J-ORDER-1", "E-ENV-1"],
        lines([ev(0), mutate(1, lambda e: e.update(payload=None, sequence=9))]), err("malformed_event", 2, 9))
invalid("precedence", "json-before-envelope", "A duplicate key is reported even though the envelope is also broken.", ["J-ORDER-1", "C-KEY-2"],
        good + b'{"event_id":"e1","event_id":"e1","sequence":1}\n', err("duplicate_key", 2))
invalid("precedence", "first-json-error-in-text", "Within a line, the first JSON problem in text order is reported.", ["J-ORDER-1", "C-STR-3"],
        good + b'{"a":"\\ud800","a":1}\n', err("lone_surrogate", 2))
invalid("precedence", "first-json-error-dup-first", "A duplicate key before a lone surrogate.", ["J-ORDER-1", "C-KEY-2"],
        good + b'{"a":1,"a":"\\ud800"}\n', err("duplicate_key", 2))
invalid("precedence", "utf8-before-json", "Invalid UTF-8 is reported before a JSON syntax error on the same line.", ["J-ORDER-1", "W-UTF8-1"],
        good + b'{"a":\xff,,}\n', err("invalid_utf8", 2))
invalid("precedence", "bom-before-utf8", "A BOM is reported before invalid UTF-8 later in the line.", ["J-ORDER-1", "W-BOM-1"],
        b"\xef\xbb\xbf{\xff}\n", err("unexpected_bom", 1))
invalid("precedence", "error-after-until", "A journal error after `until` still fails replay (the whole journal is validated).",
        ["R-SEL-1", "O-ORDER-1", "J-SEQ-1"], lines([ev(0), ev(1), ev(3)]), err("sequence_gap", 3, 3), ops=())
FILES["precedence"][-1]["checks"] = [
    {"op": {"op": "replay", "until": 0}, "expect": err("sequence_gap", 3, 3)},
    {"op": {"op": "fingerprint", "until": 1}, "expect": err("sequence_gap", 3, 3)},
    {"op": {"op": "branch", "at": 0, "branch_id": "b"}, "expect": err("sequence_gap", 3, 3)},
]
invalid("precedence", "journal-error-before-range", "An invalid journal reports its error, not the bad until.", ["O-ORDER-1", "J-SESSION-1"],
        lines([ev(0), ev(1, session="x")]), err("mixed_session", 2, 1), ops=())
FILES["precedence"][-1]["checks"] = [
    {"op": {"op": "replay", "until": 99}, "expect": err("mixed_session", 2, 1)},
    {"op": {"op": "branch", "at": -1, "branch_id": ""}, "expect": err("mixed_session", 2, 1)},
]
invalid("precedence", "branch-id-before-range", "A blank branch id is reported before an out-of-range fork sequence.", ["O-ORDER-1", "B-ID-1"],
        lines(conv), err("invalid_branch_id"), ops=())
FILES["precedence"][-1]["checks"] = [{"op": {"op": "branch", "at": 99, "branch_id": " "}, "expect": err("invalid_branch_id")}]
invalid("precedence", "empty-journal-before-range", "An empty journal is reported before the range of until.", ["O-ORDER-1", "J-EMPTY-1"],
        b"", err("empty_journal"), ops=())
FILES["precedence"][-1]["checks"] = [{"op": {"op": "replay", "until": 0}, "expect": err("empty_journal")},
                                     {"op": {"op": "branch", "at": 0, "branch_id": "b"}, "expect": err("empty_journal")}]

# ---------------------------------------------------------------------------------------
# replay: R-*
# ---------------------------------------------------------------------------------------
def rv(name, desc, rules, events, until=None, tags=None):
    valid("replay", name, desc, rules, lines(events), until=until, tags=tags)


rv("exercise-b-partial", "Seed exercise B: replay through 2 has the user message, no assistant message, no stop reason, three sequences.",
   ["R-SEL-1", "R-USER-1", "R-STOP-1"], conv, until=2)
rv("conversation", "A tool round trip: user, tool result, response, stop.", ["R-USER-1", "R-TOOL-1", "R-STREAM-1", "R-STOP-1"], conv, until=4)
rv("user-without-content", "A user.message without content contributes the empty string.", ["R-USER-1"],
   [ev(0, "user.message", {"attachments": []})])
rv("user-empty-content", "An empty content is kept as an empty message.", ["R-USER-1"], [ev(0, "user.message", {"content": ""})])
rv("user-unicode", "User messages keep every character (a raw U+2028 does not end the line).", ["R-USER-1", "C-STR-2", "W-LINE-1"],
   [ev(0, "user.message", {"content": "naïve 😀 \u2028 \u007f \u0000 tab\t"})], tags=["unicode"])
rv("streaming-three-deltas", "Seed exercise C in small: three deltas, one final: one assistant message.", ["R-STREAM-1"],
   [ev(0, "model.response", {"delta": "a", "accumulated": "a", "final": False}),
    ev(1, "model.response", {"delta": "b", "accumulated": "ab", "final": False}),
    ev(2, "model.response", {"delta": "c", "accumulated": "abc", "final": True})], until=1, tags=["streaming"])
rv("final-without-accumulated", "A final delta without accumulated contributes the empty string.", ["R-STREAM-1"],
   [ev(0, "model.response", {"delta": "x", "final": True})], tags=["streaming"])
rv("final-not-literal-true", "Only the JSON literal true is final: 1, \"true\" and null are not.", ["R-STREAM-1"],
   [ev(0, "model.response", {"accumulated": "one", "final": 1}),
    ev(1, "model.response", {"accumulated": "str", "final": "true"}),
    ev(2, "model.response", {"accumulated": "null", "final": None}),
    ev(3, "model.response", {"accumulated": "arr", "final": [True]})], tags=["streaming"])
rv("final-absent", "A delta with no final member contributes nothing.", ["R-STREAM-1"],
   [ev(0, "model.response", {"delta": "x", "accumulated": "x"})], tags=["streaming"])
rv("content-wins-over-final", "A response with content appends content, even when it also says final with accumulated.", ["R-STREAM-1"],
   [ev(0, "model.response", {"content": "C", "accumulated": "A", "final": True})], tags=["streaming"])
rv("empty-content-wins", "An empty content still counts as content.", ["R-STREAM-1"],
   [ev(0, "model.response", {"content": "", "accumulated": "A", "final": True})], tags=["streaming"])
rv("two-finals", "Two final deltas give two assistant messages.", ["R-STREAM-1"],
   [ev(0, "model.response", {"accumulated": "first", "final": True}),
    ev(1, "model.response", {"accumulated": "second", "final": True})], tags=["streaming"])
rv("deltas-interleaved-with-tools", "Streaming around a tool round trip.", ["R-STREAM-1", "R-TOOL-1"],
   [ev(0, "model.response", {"delta": "Let me ", "accumulated": "Let me ", "final": False}),
    ev(1, "model.response", {"delta": "check.", "accumulated": "Let me check.", "final": True, "tool_calls": [{"id": "c1"}]}),
    ev(2, "tool.request", {"id": "c1"}), ev(3, "tool.result", {"id": "c1", "output": "ok"}),
    ev(4, "model.response", {"delta": "Done", "accumulated": "Done", "final": True})], until=3, tags=["streaming"])
rv("delta-field-ignored", "The delta field is never read; accumulated is what counts.", ["R-STREAM-1"],
   [ev(0, "model.response", {"delta": "WRONG", "accumulated": "right", "final": True})], tags=["streaming"])
rv("tool-result-whole-payload", "tool.result appends its whole payload, unknown members and nesting included.",
   ["R-TOOL-1", "E-ENV-2", "C-NUM-1", "C-NUM-5"],
   [ev(0, "tool.result", {"id": "t", "output": {"lines": ["a", "b"], "exit": 0, "ratio": 0.5}, "x-meta": None, "big": 2 ** 70})])
rv("tool-result-empty-payload", "An empty tool.result payload is appended as {}.", ["R-TOOL-1"], [ev(0, "tool.result", {})])
rv("stop-reason", "session.stop sets the stop reason.", ["R-STOP-1"], [ev(0, "session.stop", {"reason": "max_turns"})])
rv("stop-without-reason", "session.stop without reason gives \"unknown\".", ["R-STOP-1"], [ev(0, "session.stop", {"turns": 3})])
rv("stop-empty-reason", "An empty reason is kept, not replaced by unknown.", ["R-STOP-1"], [ev(0, "session.stop", {"reason": ""})])
rv("stop-twice-last-wins", "A later session.stop overwrites the reason.", ["R-STOP-1"],
   [ev(0, "session.stop", {"reason": "first"}), ev(1, "session.stop", {})], until=0)
rv("no-stop-null", "Without session.stop the stop reason is null.", ["R-STOP-1"], [ev(0, "session.start"), ev(1, "user.message", {"content": "x"})])
rv("replay-branch-events-inert", "session.replay and session.branch records only count as applied events.", ["R-OTHER-1"],
   [ev(0, "session.start"), ev(1, "session.replay", {"applied_events": 1, "content": "no"}),
    ev(2, "session.branch", {"branch_id": "b", "reason": "no"})])
rv("other-payload-types-free", "Payload fields of events the reducer does not read may have any type.", ["R-TYPE-1", "R-OTHER-1"],
   [ev(0, "model.request", {"content": 5, "reason": None}), ev(1, "tool.result", {"content": [1], "reason": {}})])
rv("until-zero", "until 0 selects the first event only.", ["R-SEL-1"], conv, until=0)
rv("until-last", "until = last sequence equals the full replay.", ["R-SEL-1", "R-PROJ-1"], conv, until=6)
# Multiplicity and order (issue 12 item 7): every accumulating or last-wins reducer rule
# with two or more occurrences carrying distinguishable values, in an order that a
# reversed, deduplicated or first-wins reducer gets wrong; partial replays cut between them.
rv("user-messages-three-in-order", "Three user messages with distinct contents accumulate in journal order, the one without content as \"\".",
   ["R-USER-1"], [ev(0, "session.start"), ev(1, "user.message", {"content": "first"}), ev(2, "model.request"),
                  ev(3, "user.message", {"content": "second"}), ev(4, "user.message", {"attachments": ["x"]}),
                  ev(5, "user.message", {"content": "first"})], until=3, tags=["multiplicity"])
rv("assistant-contents-two", "Two responses with content give two assistant messages in order.", ["R-STREAM-1"],
   [ev(0, "model.response", {"content": "one"}), ev(1, "user.message", {"content": "more"}), ev(2, "model.response", {"content": "two"})],
   until=1, tags=["multiplicity", "streaming"])
rv("assistant-content-final-content", "Content, then deltas closed by a final, then content again: three messages, the final's accumulated in the middle.",
   ["R-STREAM-1"], [ev(0, "model.response", {"content": "c1"}),
                    ev(1, "model.response", {"delta": "a", "accumulated": "a", "final": False}),
                    ev(2, "model.response", {"delta": "b", "accumulated": "ab", "final": False}),
                    ev(3, "model.response", {"delta": "c", "accumulated": "abc", "final": True}),
                    ev(4, "model.response", {"content": "c2"})], until=2, tags=["multiplicity", "streaming"])
rv("finals-three-in-order", "Three streams, each closed by its final: three assistant messages in order, none of the deltas.",
   ["R-STREAM-1"], [ev(0, "model.response", {"accumulated": "x", "final": False}), ev(1, "model.response", {"accumulated": "xA", "final": True}),
                    ev(2, "model.response", {"accumulated": "y", "final": False}), ev(3, "model.response", {"accumulated": "yB", "final": True}),
                    ev(4, "model.response", {"accumulated": "zC", "final": True})], until=3, tags=["multiplicity", "streaming"])
rv("deltas-only-no-message", "Four deltas with distinct accumulated texts and no final: no assistant message at all.", ["R-STREAM-1"],
   [ev(i, "model.response", {"delta": d, "accumulated": "abcd"[: i + 1], "final": False}) for i, d in enumerate("abcd")],
   until=1, tags=["multiplicity", "streaming"])
rv("tool-results-three-in-order", "Three tool results with distinct payloads, two of them equal to each other, are all kept in order.",
   ["R-TOOL-1"], [ev(0, "tool.result", {"id": "t1", "output": "one"}), ev(1, "tool.request", {"id": "t2"}),
                  ev(2, "tool.result", {"id": "t2", "output": ["two"]}), ev(3, "tool.result", {"id": "t1", "output": "one"}),
                  ev(4, "tool.result", {"id": "t3", "output": {"three": 3}})], until=2, tags=["multiplicity"])
rv("stops-three-last-wins", "Three session.stop events with distinct reasons: the last selected one wins (partial replay: the second).",
   ["R-STOP-1", "R-SEL-1"], [ev(0, "session.stop", {"reason": "first"}), ev(1, "user.message", {"content": "resume"}),
                             ev(2, "session.stop", {"reason": "second"}), ev(3, "session.stop", {"reason": "third"})],
   until=2, tags=["multiplicity"])
rv("stop-then-events", "A stop followed by more events (no stop): the reason stays.", ["R-STOP-1"],
   [ev(0, "session.stop", {"reason": "paused"}), ev(1, "user.message", {"content": "later"}), ev(2, "model.request")],
   tags=["multiplicity"])
rv("stop-reason-then-absent", "A stop with a reason, then one without: \"unknown\" overwrites it.", ["R-STOP-1"],
   [ev(0, "session.stop", {"reason": "completed"}), ev(1, "session.stop", {"turns": 2})], until=0, tags=["multiplicity"])
rv("everything-twice", "Every reducer rule applies twice, with distinct values, interleaved.",
   ["R-USER-1", "R-STREAM-1", "R-TOOL-1", "R-STOP-1", "R-OTHER-1"],
   [ev(0, "session.start"), ev(1, "user.message", {"content": "u1"}), ev(2, "model.request", {"n": 1}),
    ev(3, "model.response", {"accumulated": "p", "final": False}), ev(4, "model.response", {"accumulated": "a1", "final": True}),
    ev(5, "tool.result", {"r": 1}), ev(6, "session.stop", {"reason": "s1"}), ev(7, "user.message", {"content": "u2"}),
    ev(8, "model.response", {"content": "a2"}), ev(9, "tool.result", {"r": 2}), ev(10, "x.unknown", {"content": "ignored"}),
    ev(11, "session.stop", {"reason": "s2"})], until=6, tags=["multiplicity"])
rv("texts-beside-other-members", "Each text is its own member's value, not the member beside it: a user message, "
   "a final response's accumulated text, a complete response and a stop reason, each followed (in key order) by "
   "another member, in lines written without whitespace but with members unsorted, so each member is canonical on "
   "its own and the line is not.", ["R-USER-1", "R-STREAM-1", "R-STOP-1"],
   [ev(0, "session.start", {"max_turns": 8}), ev(1, "user.message", {"content": "hi", "lang": "en"}),
    ev(2, "model.response", {"accumulated": "hello", "final": True}), ev(3, "model.response", {"content": "bye", "model": "m"}),
    ev(4, "session.stop", {"reason": "completed", "turns": 2})], until=2)
for name, payload, t, field, kind in [
    ("user-content-number", {"content": 5}, "user.message", "content", "a number"),
    ("user-content-null", {"content": None}, "user.message", "content", "null"),
    ("user-content-object", {"content": {"text": "hi"}}, "user.message", "content", "an object"),
    ("user-content-array", {"content": [{"type": "text", "text": "hi"}]}, "user.message", "content", "an array (content blocks)"),
    ("response-content-null", {"content": None, "final": True, "accumulated": "x"}, "model.response", "content", "null"),
    ("response-content-bool", {"content": False}, "model.response", "content", "a boolean"),
    ("response-accumulated-number", {"accumulated": 1, "final": True}, "model.response", "accumulated", "a number"),
    ("response-accumulated-nonfinal", {"accumulated": None, "final": False}, "model.response", "accumulated", "null on a non-final delta"),
    ("stop-reason-null", {"reason": None}, "session.stop", "reason", "null"),
    ("stop-reason-number", {"reason": 0}, "session.stop", "reason", "a number"),
]:
    invalid("replay", "invalid-" + name, "payload.%s of %s is %s." % (field, t, kind), ["R-TYPE-1"],
            lines([ev(0), ev(1, t, payload)]), err("invalid_payload", 2, 1), ops=("validate", "replay"))
invalid("replay", "invalid-payload-after-until", "R-TYPE-1 applies to every event, also after until.", ["R-TYPE-1", "R-SEL-1"],
        lines([ev(0), ev(1, "user.message", {"content": 1})]), err("invalid_payload", 2, 1), ops=())
FILES["replay"][-1]["checks"] = [{"op": {"op": "replay", "until": 0}, "expect": err("invalid_payload", 2, 1)}]
invalid("replay", "dangling-parent-after-until", "A dangling parent after `until` still fails replay: J-PARENT-1 is part of validating the whole journal.",
        ["R-SEL-1", "J-PARENT-1"], lines([ev(0), ev(1), ev(2, parent="nowhere")]), err("unknown_parent", 3, 2), ops=())
FILES["replay"][-1]["checks"] = [{"op": {"op": "replay", "until": 0}, "expect": err("unknown_parent", 3, 2)},
                                 {"op": {"op": "fingerprint", "until": 1}, "expect": err("unknown_parent", 3, 2)}]
for n, label in [(-1, "minus-one"), (7, "count"), (1000, "far"), (-9223372036854775808, "i64-min")]:
    invalid("replay", "until-" + label, "until %d is outside a 7-event journal." % n, ["O-RANGE-1"], lines(conv), err("sequence_out_of_range", None, n), ops=())
    FILES["replay"][-1]["checks"] = [{"op": {"op": "replay", "until": n}, "expect": err("sequence_out_of_range", None, n)},
                                     {"op": {"op": "fingerprint", "until": n}, "expect": err("sequence_out_of_range", None, n)}]

# ---------------------------------------------------------------------------------------
# fingerprint: F-*
# ---------------------------------------------------------------------------------------
ref_events = [ev(0, "user.message", {"content": "é/😀", "n": 1, "f": 1.5, "z": [True, None]}), ev(1)]
ref_fp = oracle.fingerprint(ref_events)
variants = {
    "key-order": b'{"type":"user.message","sequence":0,"session_id":"sess-1","event_id":"e0","provenance":{"run_id":"run-1"},"payload":{"z":[true,null],"f":1.5,"n":1,"content":"\xc3\xa9/\xf0\x9f\x98\x80"}}\n',
    "whitespace": b'{ "event_id" : "e0" ,\t"session_id":"sess-1", "sequence": 0, "type":"user.message","payload":{ "content":"\xc3\xa9/\xf0\x9f\x98\x80","n":1,"f":1.5,"z":[ true , null ] },"provenance":{"run_id":"run-1"} }\n',
    "escapes": b'{"event_id":"e0","session_id":"sess-1","sequence":0,"type":"user.message","payload":{"content":"\\u00e9\\/\\ud83d\\ude00","n":1,"f":1.5,"z":[true,null]},"provenance":{"run_id":"\\u0072un-1"}}\n',
    "uppercase-escapes": b'{"event_id":"e0","session_id":"sess-1","sequence":0,"type":"user.message","payload":{"content":"\\u00E9/\\uD83D\\uDE00","n":1,"f":1.5,"z":[true,null]},"provenance":{"run_id":"run-1"}}\n',
    "float-spelling": b'{"event_id":"e0","session_id":"sess-1","sequence":0,"type":"user.message","payload":{"content":"\xc3\xa9/\xf0\x9f\x98\x80","n":1,"f":15e-1,"z":[true,null]},"provenance":{"run_id":"run-1"}}\n',
    "float-spelling-2": b'{"event_id":"e0","session_id":"sess-1","sequence":0,"type":"user.message","payload":{"content":"\xc3\xa9/\xf0\x9f\x98\x80","n":1,"f":1.50000000000000000000001,"z":[true,null]},"provenance":{"run_id":"run-1"}}\n',
}
second = lines([ev(1)])
for name, first in variants.items():
    add("fingerprint", "same-value-" + name, "Spelling the same values differently (%s) keeps the fingerprint." % name, ["F-FP-2", "F-FP-1", "C-NUM-5"],
        first + second, [{"op": {"op": "fingerprint"}, "expect": {"result": ref_fp}},
                         {"op": {"op": "fingerprint", "until": 0}, "expect": {"result": oracle.fingerprint(ref_events[:1])}}])
add("fingerprint", "same-value-crlf", "CRLF line ends keep the fingerprint.", ["F-FP-2", "W-CR-1", "C-NUM-5"], lines(ref_events, nl="\r\n"),
    [{"op": {"op": "fingerprint"}, "expect": {"result": ref_fp}}], tags=["crlf"])
for name, change in [
    ("int-vs-float", lambda e: e["payload"].update(n=1.0)),
    ("extra-field", lambda e: e.update(note="x")),
    ("nfd-key", lambda e: e["payload"].update({"cafe\u0301": 1})),
]:
    evs = [dict(ref_events[0], payload=dict(ref_events[0]["payload"])), ref_events[1]]
    change(evs[0])
    assert oracle.fingerprint(evs) != ref_fp
    add("fingerprint", "changes-with-" + name, "Changing a value (%s) changes the fingerprint." % name,
        # the events hold floats (1.5, and 1.0 for int-vs-float): C-NUM-1 and C-NUM-5 decide their text
        ["F-FP-2", "F-FP-1", "C-NUM-5"] + (["C-NUM-1"] if name == "int-vs-float" else []),
        lines(evs), [{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(evs)}}])
for name, payload, tags in [
    ("canonical-numbers", {"a": 1e16, "b": 1e15, "c": 1e-5, "d": 1e-4, "e": -0.0, "f": 5e-324, "g": 2 ** 64, "h": -(10 ** 30), "i": 0.1, "j": 1.7976931348623157e308}, ["float", "bignum"]),
    ("canonical-strings", {"ctl": "\u0000\u0001\u0008\u0009\u000a\u000b\u000c\u000d\u001f", "del": "\u007f\u0080\u009f", "seps": "\u2028\u2029\ufeff", "q": "\"\\/"}, ["unicode"]),
    ("canonical-key-order", {"😀": 1, "\uff61": 2, "\ue000": 3, "a": 4, "B": 5, "é": 6, "e\u0301": 7, "": 8}, ["unicode"]),
    ("nested-deep", {"a": [[[[[[{"b": [1, {"c": None}]}]]]]]]}, []),
]:
    evs = [ev(0, "x.custom", payload)]
    add("fingerprint", name, "The fingerprint hashes the canonical text (%s)." % name,
        ["F-FP-1", "C-KEY-1", "C-STR-1", "C-STR-2", "C-NUM-5"] + (["C-NUM-1"] if name == "canonical-numbers" else [])
        + (["W-LINE-1"] if "\u2028" in json.dumps(payload, ensure_ascii=False) else []),
        lines(evs), [{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(evs)}}], tags=tags)
add("fingerprint", "prefix-each-until", "The fingerprint of each prefix of a journal.", ["F-FP-1", "R-SEL-1"], lines(conv),
    [{"op": {"op": "fingerprint", "until": k}, "expect": {"result": oracle.fingerprint(conv[: k + 1])}} for k in range(len(conv))]
    + [{"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(conv)}}])

# Journals whose lines are canonical text but for one spelling (a fast path may hash a
# line that is already canonical as it is: every spelling the canonical writer does not
# use must still be rewritten), and one whose lines are all canonical. The lines are
# Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False): the
# canonical text (C-KEY-1, C-WS-1, C-STR-1/2, C-NUM-1/5); expected values from oracle.py.
def canon_line(e):
    return json.dumps(e, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


cl_events = [
    ev(0, "user.message", {"content": "é/😀\n\"q\"\\\u0000"}),
    # line 2 holds no \u escape and one float: a variant that adds or changes one makes
    # it the only one
    ev(1, "x.custom", {"a": "A B", "f": 2.5, "n": 0, "p": "😀", "s": "é", "t": "/", "u": "\n"}),
    # lines 1 and 3 hold one \u escape each, as canonical text writes a control without a
    # short form (line 3's is the only one there: a variant may change it)
    ev(2, "tool.result", {"tool": "grep", "output": "ok\tdone\u001f", "n": 2, "nested": {"b": 1, "a": [1.5, -1]}}),
    ev(3, "model.response", {"content": "done"}),
]
cl_lines = [canon_line(e) for e in cl_events]
assert "\\u" not in cl_lines[1] and '"f":2.5' in cl_lines[1]
assert cl_lines[2].count("\\u") == 1 and '\\u001f"' in cl_lines[2] and "\\u0000" in cl_lines[0]


def spaced(v):
    """Sorted keys, canonical scalars, and a space at every place JSON allows one."""
    if isinstance(v, dict):
        if not v:
            return "{ }"
        return "{ " + " , ".join(" %s : %s " % (json.dumps(k, ensure_ascii=False), spaced(v[k])) for k in sorted(v)) + " }"
    if isinstance(v, list):
        if not v:
            return "[ ]"
        return "[ " + " , ".join(" %s " % spaced(x) for x in v) + " ]"
    return json.dumps(v, ensure_ascii=False)


def cl_journal(index, text):
    ls = list(cl_lines)
    ls[index] = text
    return ("\n".join(ls) + "\n").encode("utf-8")


def cl_checks():
    return [
        {"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(cl_events)}},
        {"op": {"op": "fingerprint", "until": 1}, "expect": {"result": oracle.fingerprint(cl_events[:2])}},
    ]


valid("fingerprint", "canonical-lines", "Every line is already canonical text (canonical escapes \\n, \\t, \\\", \\\\, \\u001f, \\u0000 included): the fingerprint and the replayed tool result are those of the same values.",
      ["F-FP-1", "C-KEY-1", "C-WS-1", "C-STR-1", "C-STR-2", "C-NUM-5", "R-TOOL-1"], cl_journal(1, cl_lines[1]), more=cl_checks())
for name, rules, index, old, new in [
    ("escape-u00e9", ["C-STR-2"], 1, '"s":"é"', '"s":"\\u00e9"'),
    ("escape-solidus", ["C-STR-2"], 1, '"t":"/"', '"t":"\\/"'),
    ("escape-u000a", ["C-STR-1"], 1, '"u":"\\n"', '"u":"\\u000a"'),
    ("escape-space", ["C-STR-2"], 1, '"a":"A B"', '"a":"A\\u0020B"'),
    ("escape-ascii", ["C-STR-2"], 1, '"a":"A B"', '"a":"\\u0041 B"'),
    ("escape-pair", ["C-STR-2", "C-STR-3"], 1, '"p":"😀"', '"p":"\\ud83d\\ude00"'),
    ("escape-upper-hex", ["C-STR-1"], 2, 'done\\u001f"', 'done\\u001F"'),
    ("escape-tab-as-u", ["C-STR-1"], 2, 'ok\\tdone', 'ok\\u0009done'),
    ("minus-zero", ["C-NUM-1", "C-NUM-2"], 1, '"n":0', '"n":-0'),
    ("float-exponent-upper", ["C-NUM-5"], 1, '"f":2.5', '"f":25E-1'),
    ("float-exponent-zero", ["C-NUM-5"], 1, '"f":2.5', '"f":2.5e0'),
    ("float-trailing-zero", ["C-NUM-5"], 1, '"f":2.5', '"f":2.50'),
    ("float-exponent", ["C-NUM-5"], 1, '"f":2.5', '"f":0.25e1'),
    ("space-after-colon", ["C-WS-1"], 1, '"n":0', '"n": 0'),
    ("space-after-comma", ["C-WS-1"], 1, '0,"p"', '0, "p"'),
    ("leading-space", ["C-WS-1"], 1, cl_lines[1], " " + cl_lines[1]),
    ("trailing-space", ["C-WS-1"], 1, cl_lines[1], cl_lines[1] + " "),
    ("trailing-tab", ["C-WS-1"], 1, cl_lines[1], cl_lines[1] + "\t"),
    ("members-swapped", ["C-KEY-1"], 1, '"a":"A B","f":2.5', '"f":2.5,"a":"A B"'),
    ("top-members-swapped", ["C-KEY-1"], 1, '"sequence":1,"session_id":"sess-1"', '"session_id":"sess-1","sequence":1'),
    # whitespace at every place JSON allows it (a flag kept only where whitespace was
    # skipped would take this line as canonical)
    ("spaced-everywhere", ["C-WS-1"], 1, cl_lines[1], " " + spaced(cl_events[1]) + " "),
]:
    assert cl_lines[index].count(old) == 1, name
    text = cl_lines[index].replace(old, new)
    assert text != cl_lines[index] and json.loads(text) == cl_events[index], name
    add("fingerprint", "canonical-but-" + name,
        "Every line is canonical text but line %d, where one spelling is not (%s): the fingerprint is that of the values, as if it were written canonically." % (index + 1, name),
        # the events hold floats (2.5, 1.5): C-NUM-5 decides their text
        ["F-FP-1", "F-FP-2"] + rules + ([] if "C-NUM-5" in rules else ["C-NUM-5"]), cl_journal(index, text), cl_checks())

# ---------------------------------------------------------------------------------------
# branch: B-*
# ---------------------------------------------------------------------------------------
def br(name, desc, rules, events, at, bid, tags=None):
    add("branch", name, desc, rules, lines(events),
        [{"op": {"op": "branch", "at": at, "branch_id": bid}, "expect": {"result": oracle.branch(events, at, bid)}}], tags=tags)


for at in range(len(conv)):
    br("at-%d" % at, "A branch at sequence %d inherits events 0..=%d." % (at, at), ["B-RANGE-1", "B-PARENT-1"], conv, at, "branch-%d" % at)
add("branch", "exercise-d", "Seed exercise D: two branches at one sequence share fingerprint and inherited ids, differ in id.",
    ["B-PARENT-1", "B-ID-1", "O-JSON-1"], lines(conv),
    [{"op": {"op": "branch", "at": 3, "branch_id": bid}, "expect": {"result": oracle.branch(conv, 3, bid)}} for bid in ["left", "right"]]
    + [{"op": {"op": "replay"}, "expect": {"result": oracle.replay(conv)}}])
for name, bid, desc in [
    ("id-kept-untrimmed", " spaced id ", "surrounding spaces are kept"),
    ("id-zero-width-space", "\u200b", "U+200B is not whitespace for str.isspace()"),
    ("id-bom-char", "\ufeff", "U+FEFF is not whitespace for str.isspace()"),
    ("id-unicode", "分支-🌿", "any Unicode"),
    ("id-dot", ".", "one visible character"),
]:
    br(name, "A branch id with %s is valid." % desc, ["B-ID-1", "B-ID-2"], conv, 2, bid, tags=["unicode"])
for name, bid in [("empty", ""), ("space", " "), ("tabs-newlines", "\t\n\r\x0b\x0c"), ("ideographic-space", "\u3000"),
                  ("nbsp", "\u00a0"), ("file-separator", "\u001c\u001d\u001e\u001f"), ("nel", "\u0085"),
                  ("line-separators", "\u2028\u2029"), ("en-spaces", "\u2000\u200a\u202f\u205f\u1680")]:
    add("branch", "blank-id-" + name, "A branch id made only of str.isspace() characters (%s) is invalid." % name, ["B-ID-1", "B-ID-2"],
        lines(conv), [{"op": {"op": "branch", "at": 2, "branch_id": bid}, "expect": err("invalid_branch_id")}])
for at in [-1, 7, 2 ** 62]:
    add("branch", "at-out-of-range-%s" % str(at).replace("-", "minus"), "A fork sequence %d outside the journal." % at, ["B-RANGE-1", "O-RANGE-1"],
        lines(conv), [{"op": {"op": "branch", "at": at, "branch_id": "b"}, "expect": err("sequence_out_of_range", None, at)}])

# ---------------------------------------------------------------------------------------
# profile: P-TRACE-*
# ---------------------------------------------------------------------------------------
def tev(i, type_="model.request", payload=None, **over):
    e = {
        "trace_version": "0.1.0", "event_id": "evt-%03d" % i, "session_id": "session-x", "sequence": i,
        "timestamp": "2026-08-10T00:00:%02dZ" % i, "type": type_, "actor": {"kind": "harness", "id": "agent"},
        "payload": payload if payload is not None else {},
        "provenance": {"agent_id": "reference-agent", "snapshot_id": "snap", "surface": "sdk", "harness_mode": "fake", "run_id": "run-x"},
        "redaction": {"status": "clean", "fields": []},
    }
    if i > 0:
        e["parent_event_id"] = "evt-%03d" % (i - 1)
    e.update(over)
    return e


T = "trace-0.1"
tbase = [tev(0, "session.start"), tev(1, "user.message", {"content": "hi"})]
valid("profile", "valid-minimal", "Schema-valid Trace 0.1 events.", ["P-TRACE-1", "E-PROFILE-1"], lines(tbase), profile=T)
valid("profile", "valid-optional-fields", "All optional Trace 0.1 fields.", ["P-TRACE-1", "P-TRACE-6", "P-TRACE-7", "P-TRACE-8", "P-TRACE-9"],
      lines([tev(0, duration_ms=12.5, actor={"kind": "tool", "id": "t", "parent_id": "p"},
                 provenance={"agent_id": "a-1", "snapshot_id": "s", "surface": "cli", "harness_mode": "native", "run_id": "run-x",
                             "experiment_id": "exp-2", "model": "", "provider": "p"},
                 redaction={"status": "redacted", "fields": ["payload.content"], "notes": "n"})]), profile=T)
# Every string and member name the Trace 0.1 rules read, spelled with a \\u escape (the
# fast path reads escaped strings from its decoded buffer, unescaped ones from the line).
def escaped_trace_line(e):
    text = dumps(e)
    for plain, esc in [('"0.1.0"', '"\\u0030.1.0"'), ('"session.start"', '"session.st\\u0061rt"'),
                       ('"user.message"', '"user.m\\u0065ssage"'), ('"harness"', '"h\\u0061rness"'),
                       ('"agent"', '"\\u0061gent"'), ('"reference-agent"', '"reference-\\u0061gent"'),
                       ('"snap"', '"sn\\u0061p"'), ('"sdk"', '"sd\\u006b"'), ('"fake"', '"f\\u0061ke"'),
                       ('"clean"', '"cle\\u0061n"'), ('"timestamp"', '"\\u0074imestamp"'), ('"actor"', '"\\u0061ctor"'),
                       ('"kind"', '"k\\u0069nd"'), ('"run_id"', '"run\\u005fid"'), ('T00:', 'T\\u0030\\u0030:')]:
        if plain in text:
            ESCAPED.add(plain)
            text = text.replace(plain, esc)
    assert json.loads(text) == e
    return text.encode() + b"\n"
ESCAPED = set()
data = b"".join(escaped_trace_line(e) for e in tbase)
assert len(ESCAPED) == 15, ESCAPED
valid("profile", "escapes-in-checked-strings",
      "Schema-valid Trace 0.1 events whose checked strings and member names (trace_version, timestamp, type, actor, "
      "provenance, redaction) are spelled with \\u escapes.", ["P-TRACE-1", "P-TRACE-2", "P-TRACE-4", "P-TRACE-5",
      "P-TRACE-6", "P-TRACE-7", "P-TRACE-8", "C-STR-1"], data, profile=T)
valid("profile", "duration-ms-integers", "duration_ms as integers: 0, 7 and 2^64 (P-TRACE-9: a number >= 0, integers included).",
      ["P-TRACE-9", "C-NUM-1"], lines([tev(0, "session.start", duration_ms=0), tev(1, duration_ms=7), tev(2, duration_ms=2 ** 64)]),
      profile=T)
valid("profile", "core-accepts-extra", "Under core, a non-Trace field is fine (same event as extra-top-level-field).", ["E-PROFILE-1", "E-ENV-2"],
      lines([tev(0, x_extra=1)]))
for ts in ["2024-02-29T23:59:60Z", "2026-08-10t00:00:00z", "2026-08-10T00:00:00.123456+05:30", "2026-12-31T23:59:59-23:59"]:
    valid("profile", "timestamp-ok-" + ts.replace(":", "").replace(".", "").replace("+", "p").lower(), "RFC 3339 timestamp %s is valid." % ts,
          ["P-TRACE-4"], lines([tev(0, timestamp=ts)]), profile=T)
# The calendar and the time fields, one boundary each (mutation campaign of src/profile.rs):
# leap years by the Gregorian rule (1900 and 2100 are not, 2000 is), month lengths, each
# separator and each field's range alone. Calendar validity is checked against Python's
# datetime.date (the external oracle); the rest is RFC 3339 section 5.6's grammar.
import datetime


def real_date(ts):
    try:
        datetime.date(int(ts[0:4]), int(ts[5:7]), int(ts[8:10]))
        return True
    except ValueError:
        return False


for ts in ["2000-02-29T00:00:00Z", "2026-02-28T00:00:00Z", "2026-04-30T00:00:00Z", "2026-06-30T12:00:00Z",
           "2026-09-30T00:00:00+00:00", "2026-11-30T00:00:00Z", "2026-08-10T00:59:59Z", "2026-08-10T00:00:00+23:00",
           "2026-08-10T00:00:00-00:59"]:
    assert real_date(ts), ts
    valid("profile", "timestamp-ok-" + ts.replace(":", "").replace(".", "").replace("+", "p").lower(),
          "RFC 3339 timestamp %s is valid (a real calendar date, every field in range)." % ts,
          ["P-TRACE-4"], lines([tev(0, timestamp=ts)]), profile=T)
for name, ts, desc in [
    ("timestamp-feb-29-1900", "1900-02-29T00:00:00Z", "February 29 of 1900 (divisible by 100, not by 400)"),
    ("timestamp-feb-29-2100", "2100-02-29T00:00:00Z", "February 29 of 2100 (divisible by 100, not by 400)"),
    ("timestamp-apr-31", "2026-04-31T00:00:00Z", "April 31"),
    ("timestamp-month-13", "2026-13-01T00:00:00Z", "month 13"),
    ("timestamp-day-0", "2026-08-00T00:00:00Z", "day 0"),
    ("timestamp-month-0", "2026-00-10T00:00:00Z", "month 0"),
    ("timestamp-year-dash-only", "2026x08-10T00:00:00Z", "a wrong first date separator"),
    ("timestamp-month-dash-only", "2026-08x10T00:00:00Z", "a wrong second date separator"),
    ("timestamp-hour-colon-only", "2026-08-10T00-00:00Z", "a wrong first time separator"),
    ("timestamp-minute-colon-only", "2026-08-10T00:00-00Z", "a wrong second time separator"),
    ("timestamp-minute-60", "2026-08-10T00:60:00Z", "minute 60"),
    ("timestamp-second-61", "2026-08-10T00:00:61Z", "second 61"),
    ("timestamp-empty-fraction", "2026-08-10T00:00:00.Z", "a fraction without digits"),
    ("timestamp-offset-separator", "2026-08-10T00:00:00+05-30", "an offset without its colon"),
    ("timestamp-offset-hour-24", "2026-08-10T00:00:00+24:00", "offset hour 24"),
    ("timestamp-offset-minute-60", "2026-08-10T00:00:00+00:60", "offset minute 60"),
    ("timestamp-offset-trailing", "2026-08-10T00:00:00+05:30Z", "text after the offset"),
    ("timestamp-z-trailing", "2026-08-10T00:00:00Zz", "text after Z"),
]:
    calendar_only = name in ("timestamp-feb-29-1900", "timestamp-feb-29-2100", "timestamp-apr-31",
                             "timestamp-month-13", "timestamp-day-0", "timestamp-month-0")
    assert not calendar_only or not real_date(ts), ts
    invalid("profile", name, "Under trace-0.1, %s is not an RFC 3339 date-time (%s)." % (desc, ts), ["P-TRACE-4"],
            lines([tev(0, timestamp=ts)]), err("profile_violation", 1, 0), profile=T)
pv = "profile_violation"
for name, event, desc, rule in [
    ("actor-missing-id-with-parent", tev(0, actor={"kind": "tool", "parent_id": "p"}),
     "an actor without id but with the optional parent_id", "P-TRACE-6"),
    ("provenance-missing-agent-with-model", tev(0, provenance={k: v for k, v in dict(tev(0)["provenance"], model="m").items()
                                                              if k != "agent_id"}),
     "a provenance without agent_id but with the optional model", "P-TRACE-7"),
    ("redaction-missing-fields-with-notes", tev(0, redaction={"status": "clean", "notes": "n"}),
     "a redaction without fields but with the optional notes", "P-TRACE-8"),
    ("missing-trace-version", {k: v for k, v in tev(0).items() if k != "trace_version"}, "no trace_version", "P-TRACE-1"),
    ("missing-redaction", {k: v for k, v in tev(0).items() if k != "redaction"}, "no redaction", "P-TRACE-1"),
    ("extra-top-level-field", tev(0, x_extra=1), "an unknown top-level field", "P-TRACE-1"),
    ("wrong-trace-version", tev(0, trace_version="0.2.0"), "trace_version 0.2.0", "P-TRACE-2"),
    ("timestamp-no-offset", tev(0, timestamp="2026-08-10T00:00:00"), "a timestamp without offset", "P-TRACE-4"),
    ("timestamp-feb-29-2023", tev(0, timestamp="2023-02-29T00:00:00Z"), "February 29 of a non-leap year", "P-TRACE-4"),
    ("timestamp-hour-24", tev(0, timestamp="2026-08-10T24:00:00Z"), "hour 24", "P-TRACE-4"),
    ("timestamp-space", tev(0, timestamp="2026-08-10 00:00:00Z"), "a space instead of T", "P-TRACE-4"),
    ("timestamp-number", tev(0, timestamp=1754784000), "a numeric timestamp", "P-TRACE-4"),
    ("type-not-in-enum", tev(0, type="vendor.custom"), "a type outside the enum", "P-TRACE-5"),
    ("actor-bad-kind", tev(0, actor={"kind": "robot", "id": "x"}), "actor.kind robot", "P-TRACE-6"),
    ("actor-extra", tev(0, actor={"kind": "user", "id": "x", "name": "n"}), "an extra actor field", "P-TRACE-6"),
    ("actor-empty-id", tev(0, actor={"kind": "user", "id": ""}), "an empty actor.id", "P-TRACE-6"),
    ("provenance-extra", tev(0, provenance=dict(tev(0)["provenance"], region="eu")), "an extra provenance field", "P-TRACE-7"),
    ("agent-id-pattern", tev(0, provenance=dict(tev(0)["provenance"], agent_id="Reference_Agent")), "an agent_id outside the stableId pattern", "P-TRACE-7"),
    ("agent-id-double-dash", tev(0, provenance=dict(tev(0)["provenance"], agent_id="a--b")), "an agent_id with a double dash", "P-TRACE-7"),
    ("harness-mode", tev(0, provenance=dict(tev(0)["provenance"], harness_mode="live")), "harness_mode live", "P-TRACE-7"),
    ("redaction-status", tev(0, redaction={"status": "dirty", "fields": []}), "redaction.status dirty", "P-TRACE-8"),
    ("redaction-duplicate-fields", tev(0, redaction={"status": "redacted", "fields": ["a", "a"]}), "duplicate redaction fields", "P-TRACE-8"),
    ("redaction-empty-field", tev(0, redaction={"status": "redacted", "fields": [""]}), "an empty redaction field name", "P-TRACE-8"),
    ("duration-negative", tev(0, duration_ms=-1), "a negative duration_ms", "P-TRACE-9"),
    ("duration-string", tev(0, duration_ms="5"), "a string duration_ms", "P-TRACE-9"),
]:
    invalid("profile", name, "Under trace-0.1, %s is a violation." % desc, [rule], lines([event]), err(pv, 1, 0), profile=T)
# Every trace-0.1 member that is not a core envelope field (E-ENV-1 decides those first),
# with values of the wrong type, and the empty string where a non-empty one is required: a
# port that checks one member's type and not another's fails one of them
# (conformance/tools/py_mutants.py found four such checks no vector reached). Hand-derived
# from P-TRACE-2 and P-TRACE-6 to P-TRACE-8: each is profile_violation on line 1.
def with_path(path, value):
    e = tev(0)
    if len(path) == 1:
        e[path[0]] = value
    else:
        e[path[0]] = dict(e[path[0]], **{path[1]: value})
    return e

NOT_STRING, NOT_OBJECT = [None, 1, [], {}], [None, "x", 1, []]
for path, bad, rule in [
    (("trace_version",), [None, 0.1, "0.1", "0.1.0 "], "P-TRACE-2"),
    (("actor",), NOT_OBJECT, "P-TRACE-6"),
    (("actor", "kind"), NOT_STRING + ["", "User"], "P-TRACE-6"),
    (("actor", "id"), NOT_STRING + [""], "P-TRACE-6"),
    (("actor", "parent_id"), NOT_STRING + [""], "P-TRACE-6"),
    (("provenance", "agent_id"), NOT_STRING + [""], "P-TRACE-7"),
    (("provenance", "experiment_id"), NOT_STRING + [""], "P-TRACE-7"),
    (("provenance", "snapshot_id"), NOT_STRING + [""], "P-TRACE-7"),
    (("provenance", "surface"), NOT_STRING + [""], "P-TRACE-7"),
    (("provenance", "harness_mode"), NOT_STRING + [""], "P-TRACE-7"),
    (("provenance", "model"), [None, 1, [], {}], "P-TRACE-7"),
    (("provenance", "provider"), [None, 1, [], {}], "P-TRACE-7"),
    (("redaction",), NOT_OBJECT, "P-TRACE-8"),
    (("redaction", "status"), NOT_STRING + ["", "Clean"], "P-TRACE-8"),
    (("redaction", "fields"), [None, "a", 1, {}], "P-TRACE-8"),
    (("redaction", "notes"), [None, 1, [], {}], "P-TRACE-8"),
]:
    for value in bad:
        spelled = json.dumps(value).replace('"', "'")
        slug = {"null": "null", "1": "number", "0.1": "number", "[]": "array", "{}": "object", "''": "empty"}.get(
            spelled, "string" if isinstance(value, str) else spelled)
        if slug == "string" and value not in ("x", "a"):
            slug = {"0.1": "short", "0.1.0 ": "trailing-space", "User": "capitalised", "Clean": "capitalised"}[value]
        invalid("profile", "type-%s-%s" % ("-".join(p.replace("_", "-") for p in path), slug),
                "Under trace-0.1, %s as %s is a violation." % (".".join(path), spelled), [rule],
                lines([with_path(path, value)]), err(pv, 1, 0), profile=T)
# A violation on line 2, in an object whose valid spelling line 1 had, of the same length:
# an implementation that remembers the objects it has checked (the fast path keeps the
# texts that passed, profile::Passed) must tell them apart by every byte. Hand-derived from
# P-TRACE-6 to P-TRACE-8 (the enums are case-sensitive): profile_violation on line 2.
for name, path, value, rule in [
    ("actor-kind", ("actor", "kind"), "Harness", "P-TRACE-6"),
    ("provenance-harness-mode", ("provenance", "harness_mode"), "Fake", "P-TRACE-7"),
    ("redaction-status", ("redaction", "status"), "Clean", "P-TRACE-8"),
]:
    first, second = tev(0, "session.start"), tev(1, "user.message", {"content": "hi"})
    second[path[0]] = dict(second[path[0]], **{path[1]: value})
    assert len(dumps(second[path[0]])) == len(dumps(first[path[0]])), name
    invalid("profile", "later-line-%s-capitalised" % name,
            "Under trace-0.1, %s %s on line 2 is a violation, though line 1's %s, the same but for its case, passed."
            % (".".join(path), value, path[0]), [rule], lines([first, second]), err(pv, 2, 1), profile=T)
for item, slug in [(None, "null"), (1, "number"), ([], "array")]:
    invalid("profile", "type-redaction-fields-item-%s" % slug, "Under trace-0.1, a redaction field name %s is a violation." % json.dumps(item),
            ["P-TRACE-8"], lines([with_path(("redaction", "fields"), ["a", item])]), err(pv, 1, 0), profile=T)
for path in [("provenance", "model"), ("provenance", "provider"), ("redaction", "notes")]:
    valid("profile", "empty-%s" % path[1], "Under trace-0.1, an empty %s is a string, so it is allowed." % ".".join(path),
          ["P-TRACE-7" if path[0] == "provenance" else "P-TRACE-8"], lines([with_path(path, "")]), profile=T)

# The length of every month (Python's calendar.monthrange, not our code): its last day is
# a date and the day after it is not, in a common year (2023) and in February of a leap
# year (2024).
import calendar
for year, months in [(2023, range(1, 13)), (2024, [2])]:
    for month in months:
        if year == 2023:
            # The first day of every month is a date (a check of `1 <= day` written `2 <=`).
            valid("profile", "month-%d-%02d-first-day" % (year, month), "Under trace-0.1, %d-%02d-01 is a date." % (year, month),
                  ["P-TRACE-4"], lines([tev(0, timestamp="%d-%02d-01T00:00:00Z" % (year, month))]), profile=T)
        last = calendar.monthrange(year, month)[1]
        valid("profile", "month-%d-%02d-last-day" % (year, month), "Under trace-0.1, %d-%02d-%02d is a date." % (year, month, last),
              ["P-TRACE-4"], lines([tev(0, timestamp="%d-%02d-%02dT00:00:00Z" % (year, month, last))]), profile=T)
        invalid("profile", "month-%d-%02d-day-after" % (year, month),
                "Under trace-0.1, %d-%02d-%02d is not a date." % (year, month, last + 1), ["P-TRACE-4"],
                lines([tev(0, timestamp="%d-%02d-%02dT00:00:00Z" % (year, month, last + 1))]), err(pv, 1, 0), profile=T)

invalid("profile", "negative-sequence", "Under trace-0.1, sequence -1 breaks P-TRACE-3 before J-SEQ-1.", ["P-TRACE-3", "J-ORDER-1"],
        lines([tev(0, sequence=-1)]), err(pv, 1, -1), profile=T)
invalid("profile", "core-before-profile", "E-ENV-1 is checked before the profile.", ["J-ORDER-1", "E-ENV-1"],
        lines([{k: v for k, v in tev(0).items() if k not in ("trace_version", "payload")}]), err("malformed_event", 1, 0), profile=T)
valid("profile", "duration-negative-zero", "duration_ms -0.0 is >= 0.", ["P-TRACE-9"], lines([tev(0, duration_ms=-0.0)]), profile=T)

# ---------------------------------------------------------------------------------------
# real-world: edge cases seen in real agents' session files
# ---------------------------------------------------------------------------------------
valid("real-world", "json-in-string-arguments", "Tool-call arguments as a JSON string (Codex) are just a string.", ["E-ENV-2", "R-TOOL-1"],
      lines([ev(0, "tool.request", {"arguments": "{\"cmd\":[\"ls\",\"-la\"],\"n\":1e16}"}),
             ev(1, "tool.result", {"output": "{\"ok\":true}"})]))
valid("real-world", "huge-payload", "A 256 KiB string payload.", ["W-LINE-1", "R-USER-1"],
      lines([ev(0, "user.message", {"content": "x" * (1 << 18)})]), tags=["large"])
valid("real-world", "unicode-everywhere", "Unicode in ids, types, keys and values.", ["C-STR-2", "E-ENV-2"],
      lines([ev(0, "user.message", {"content": "مرحبا 👋🏽 שלום", "ключ": "значение"}, session="سشن", run="运行-1", event_id="イベント-0"),
             ev(1, "tool.result", {"😀": "\U0010ffff"}, session="سشن", run="运行-1", event_id="イベント-1", parent="イベント-0")]), tags=["unicode"])
valid("real-world", "mixed-timestamp-types", "Core does not read timestamps: mixed types are fine.", ["E-ENV-2"],
      lines([ev(0, extra={"timestamp": "2026-01-01T00:00:00Z"}), ev(1, extra={"timestamp": 1767225600}), ev(2, extra={"timestamp": None})]))
invalid("real-world", "several-session-headers", "A fork copied as a new file with the old header (Codex): two session ids.", ["J-SESSION-1"],
        lines([ev(0, "session.start", session="old"), ev(1, "session.start", session="new")]), err("mixed_session", 2, 1))
invalid("real-world", "ordinal-resume-duplicates", "Events copied into a resumed file keep their ids (Claude Code): duplicates.", ["J-SEQ-1"],
        lines(conv[:3]) + lines(conv[:3]), err("sequence_gap", 4, 0))
invalid("real-world", "null-parent-mid-file", "parentId:null mid-file (a second root, pi): null is not absent.", ["E-ENV-1"],
        lines([ev(0), ev(1, parent=None, extra={"parent_event_id": None})]), err("malformed_event", 2, 1))
invalid("real-world", "zero-byte-file", "A zero-byte transcript file.", ["J-EMPTY-1"], b"", err("empty_journal"))
invalid("real-world", "gapped-ids-dropped-deltas", "Sequences with gaps where deltas were dropped (Reasonix).", ["J-SEQ-1"],
        seqs([0, 1, 2, 5, 6]), err("sequence_gap", 4, 5))
valid("real-world", "s07-shape-core", "The golden s07 shape under the core profile with its seed fingerprint inputs.", ["R-PROJ-1", "F-FP-1"],
      lines([tev(0, "session.start"), tev(1, "user.message", {"content": "q"}), tev(2), tev(3, "model.response", {"content": "a", "stop": True}),
             tev(4, "session.stop", {"reason": "completed", "turns": 1})]), until=2)

# ---------------------------------------------------------------------------------------
# canonical-input: O-CANON-1 (how `canonical` reads its one JSON text; the number and
# string spellings themselves are in canonical/, built from json.dumps)
# ---------------------------------------------------------------------------------------
def canon(name, desc, rules, data, expect):
    add("canonical-input", name, desc, rules, data, [{"op": {"op": "canonical"}, "expect": expect}])


doc = {"b": [1, 2.5, "x"], "a": {"z": None, "y": True}}
canon_text = json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
canon("multi-line-document", "A pretty-printed document with newlines and CRLF is one JSON text.", ["O-CANON-1", "C-WS-1", "C-NUM-5"],
      json.dumps(doc, indent=2).replace("\n", "\r\n").encode() + b"\n\n", {"result": canon_text})
canon("error-line-and-column", "A syntax error on the third line of a document is reported at line 3.", ["O-CANON-1", "C-SYNTAX-1", "W-LINE-2"],
      b'{\n  "a": 1,\n  "b": ]\n}\n', err("invalid_json", 3))
canon("bom-document", "A document starting with a BOM is rejected.", ["O-CANON-1", "W-BOM-1"], b"\xef\xbb\xbf{}", err("unexpected_bom", 1))
canon("invalid-utf8-document", "A document that is not UTF-8 is rejected.", ["O-CANON-1", "W-UTF8-1"], b'"\xc3\x28"', err("invalid_utf8"))
canon("two-documents", "Two JSON texts are not one.", ["O-CANON-1", "C-SYNTAX-1"], b"{}\n{}\n", err("invalid_json", 2))
canon("empty-document", "An empty input is not a JSON text.", ["O-CANON-1", "C-SYNTAX-1"], b"", err("invalid_json", 1))
canon("scalar-document", "A bare scalar is a JSON text: an overflowing float is rejected as such.", ["O-CANON-1", "C-NUM-6"], b" 1E400 ", err("number_out_of_range", 1))
canon("string-document", "A bare string document.", ["O-CANON-1", "C-STR-1"], b'"a\\u0000\\/"', {"result": json.dumps("a\u0000/", ensure_ascii=False)})

# Documents longer than one chunk of the command line's streaming reader (SPEC.md 16.5,
# "`canonical` streams": FILE is read 64 KiB at a time, and a JSON error is looked for
# after 64 KiB, then at doubling sizes, so that an early error stops the buffering). The
# answer is O-CANON-1's whatever the chunking: a UTF-8 sequence cut by a chunk boundary is
# one character; an invalid byte anywhere wins over a JSON error found earlier (W-UTF8-1
# applies to the whole input first), at its own line; a JSON error is reported at its line.
# Expected values: the text from json.dumps, lines counted by hand (the \n before the byte).
CHUNK = 1 << 16


def first_bad_utf8_line(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return data[: e.start].count(b"\n") + 1
    raise AssertionError("valid UTF-8")


def padding_lines(n_bytes, width=100):
    """Lines of `width` bytes (the \n included), `n_bytes` in all, rounded up."""
    line = b"x" * (width - 1) + b"\n"
    return line * (-(-n_bytes // width))


for name, ch, before in [("large-utf8-2-byte-across-chunks", "\u00e9", 1), ("large-utf8-3-byte-across-chunks", "\u20ac", 2),
                         ("large-utf8-4-byte-across-chunks", "\U0001d11e", 3)]:
    # JSON whitespace up to the string, so the expected text stays short.
    head = '{"t":[1,\n2],"s":' + " \t\r\n" * 4
    pad = " " * (CHUNK - before - len(head) - 2)
    text = head + pad + '"a' + ch + 'b"}'
    data = text.encode()
    assert data[CHUNK - before: CHUNK - before + len(ch.encode())] == ch.encode()
    canon(name, f"A {len(ch.encode())}-byte character cut by the reader's 64 KiB chunk boundary ({before} byte(s) before it) is one character.",
          ["O-CANON-1", "W-UTF8-1"], data,
          {"result": json.dumps(json.loads(text), ensure_ascii=False, sort_keys=True, separators=(",", ":"))})

settled = b'{"a": ]\n'  # invalid_json on line 1, settled long before 64 KiB
data = settled + padding_lines(CHUNK + 2000) + b"x\xffx\n" + padding_lines(1000)
canon("large-invalid-utf8-after-settled-error", "An invalid byte in the second 64 KiB chunk wins over a JSON error on line 1, at its own line.",
      ["O-CANON-1", "W-UTF8-1", "C-SYNTAX-1"], data, err("invalid_utf8", first_bad_utf8_line(data)))
data = settled + padding_lines(CHUNK + 2000) + b"x\xe2\x82"
canon("large-truncated-utf8-after-settled-error", "Input that ends inside a UTF-8 sequence, after a JSON error on line 1 and 66 KiB: invalid_utf8 at the sequence's line.",
      ["O-CANON-1", "W-UTF8-1", "C-SYNTAX-1"], data, err("invalid_utf8", first_bad_utf8_line(data)))
head = settled + padding_lines(CHUNK - 300)
head += b"y" * (CHUNK - 1 - len(head))
data = head + b"\xe2(" + b"\n" + padding_lines(500)
assert data.index(b"\xe2") == CHUNK - 1
canon("large-invalid-utf8-across-chunks-after-settled-error", "A UTF-8 lead byte at the end of a chunk whose continuation in the next chunk is invalid, after a JSON error on line 1.",
      ["O-CANON-1", "W-UTF8-1", "C-SYNTAX-1"], data, err("invalid_utf8", first_bad_utf8_line(data)))
# A character cut by the chunk boundary (two of its three bytes before it), then an
# invalid byte right before a newline in the next chunk: the invalid byte's line.
head = settled + padding_lines(CHUNK - 300)
head += b"y" * (CHUNK - 2 - len(head))
data = head + "\u20ac".encode() + b"abc\xff\n" + padding_lines(500)
assert data.index(b"\xe2") == CHUNK - 2
canon("large-invalid-utf8-after-a-cut-character", "An invalid byte followed by a newline, in the chunk after one that ends inside a character, after a JSON error on line 1: the invalid byte's line.",
      ["O-CANON-1", "W-UTF8-1", "C-SYNTAX-1"], data, err("invalid_utf8", first_bad_utf8_line(data)))
data = b"[\n1,\n2,\n3,\n4 5,\n" + b"6,\n" * (CHUNK // 3 + 100) + b"7]\n"
canon("large-error-early", "A JSON error on line 5 of a 70 KiB document is reported at line 5.",
      ["O-CANON-1", "C-SYNTAX-1", "W-LINE-2"], data, err("invalid_json", 5))
body = b"[\n" + b"1,\n" * ((CHUNK - 10) // 3)
bad_line = body.count(b"\n") + 1
data = body + b"}\n" + b"2,\n" * 3000 + b"3]\n"
assert CHUNK - 16 <= data.index(b"}") < CHUNK
canon("large-error-at-first-look", "A JSON error in the last bytes before the reader first looks for one (64 KiB): reported at its line.",
      ["O-CANON-1", "C-SYNTAX-1", "W-LINE-2"], data, err("invalid_json", bad_line))
data = b"[\n" + b'"abc",\n' * (CHUNK // 7 + 500) + b'"\xff",\n' + b'"abc",\n' * 10 + b'"z"]\n'
canon("large-invalid-utf8-no-json-error", "An invalid byte in the second 64 KiB chunk of a document with no JSON error before it: invalid_utf8 at its line.",
      ["O-CANON-1", "W-UTF8-1"], data, err("invalid_utf8", first_bad_utf8_line(data)))


# ---------------------------------------------------------------------------------------
# Vectors that sit on a departure from the seed (SPEC.md appendix "Departures from the seed
# and from yoagent"): the seed's Python would answer them differently. Tagged here so a
# rebuild keeps the tags and `test --tag departs-from-seed` finds them.
DEPARTS_FROM_SEED = {
    # W-LINE-1: splitlines() also splits on U+0085, U+2028, ...: the seed cannot read back its own recorder's line
    "wire/u0085-in-string", "wire/u2028-in-string", "wire/raw-u2028-splits-nothing", "wire/cr-inside-line",
    "wire/vertical-tab-not-whitespace", "wire/form-feed-not-whitespace", "replay/user-unicode", "fingerprint/canonical-strings",
    # W-BLANK-1: the seed skips blank lines
    "wire/blank-line-middle", "wire/blank-line-end", "wire/whitespace-line", "wire/newline-only", "wire/cr-only-line",
    # W-BOM-1 / W-UTF8-1: the seed decodes the whole file before splitting it
    "wire/bom-first-line", "wire/bom-third-line", "wire/bom-only", "wire/invalid-utf8-after-bad-line",
    # C-*: what json.loads accepts
    "json/duplicate-key-payload", "json/duplicate-key-escaped", "json/duplicate-key-nested",
    "json/duplicate-key-wide-0-15", "json/duplicate-key-wide-0-16", "json/duplicate-key-wide-15-16",
    "json/duplicate-key-wide-16-17", "json/duplicate-key-wide-16-23", "json/duplicate-key-wide-17-18",
    "json/duplicate-key-wide-0-23", "json/duplicate-key-wide-22-23",
    "json/float-overflow", "json/float-overflow-negative", "json/nesting-129", "json/nesting-129-objects", "json/nesting-100000",
    "json/lone-high-surrogate", "json/lone-low-surrogate", "json/reversed-pair", "json/two-low-surrogates", "json/high-then-non-low",
    "json/nan", "json/infinity", "json/minus-infinity",
    # E-ENV-1: the seed's sequence check is a list comparison (1.0 == 1, True == 1) and it coerces with str();
    # it reads fields with .get() (a missing or empty id, type or parent is fine; a missing session or run
    # id is None, a mixed identity; a missing sequence a gap) and crashes on a line that is not an object
    # or a provenance that is not one
    "envelope/sequence-a-float-10", "envelope/sequence-true", "envelope/event-id-a-number", "envelope/payload-a-string",
    "envelope/event-id-an-empty-string", "envelope/event-id-null", "envelope/field-order-event-id-first",
    "envelope/missing-event-id", "envelope/missing-payload", "envelope/missing-provenance", "envelope/missing-run-id",
    "envelope/missing-sequence", "envelope/missing-session-id", "envelope/missing-type", "envelope/parent-event-id-a-number",
    "envelope/parent-event-id-an-empty-string", "envelope/parent-event-id-null", "envelope/payload-an-array",
    "envelope/payload-null", "envelope/provenance-a-string", "envelope/provenance-an-array", "envelope/run-id-a-number",
    "envelope/run-id-an-empty-string", "envelope/run-id-null", "envelope/sequence-a-string", "envelope/sequence-null",
    "envelope/session-id-an-array", "envelope/session-id-an-empty-string", "envelope/type-a-number",
    "envelope/type-an-empty-string", "real-world/null-parent-mid-file",
    "json/array-line", "json/null-line", "json/number-line", "json/string-line", "json/true-line",
    # J-ID-1, J-PARENT-1: SessionJournal checks neither (the seed leaves them to its repository's validator)
    "journal/dangling-parent", "journal/duplicate-id-adjacent", "journal/duplicate-id-far", "journal/duplicate-id-first",
    "journal/duplicate-id-after-growth-first", "journal/duplicate-id-after-growth-late", "journal/dangling-parent-after-growth",
    "journal/duplicate-id-after-growth-middle",
    "journal/duplicate-long-id-after-growth", "journal/dangling-long-parent-after-growth", "journal/duplicate-id-16384-bytes",
    "journal/forward-parent", "journal/parent-case-mismatch", "journal/self-parent", "journal/self-parent-first",
    # C-NUM-3: the reader reports every line json.loads refuses as one "invalid JSONL" error
    "json/int-4301-digits",
    # R-TYPE-1: str() coercion
    "replay/invalid-user-content-null", "replay/invalid-user-content-number", "replay/invalid-stop-reason-null",
    "replay/invalid-response-content-bool", "replay/invalid-user-content-object", "replay/invalid-user-content-array",
    "replay/invalid-response-content-null", "replay/invalid-response-accumulated-number",
    "replay/invalid-response-accumulated-nonfinal", "replay/invalid-stop-reason-number",
    # R-SEL-1: SessionJournal checks no parents or ids, and the seed's reducer coerces instead of rejecting
    "replay/dangling-parent-after-until", "replay/invalid-payload-after-until",
    # J-ORDER-1: the seed checks every sequence before any session id (and decodes the whole file first);
    # what json.loads accepts (a duplicate key, a lone surrogate) or SessionJournal does not check (the
    # envelope, R-TYPE-1, ids) leaves a later check to report
    "precedence/earliest-event-wins", "precedence/duplicate-before-parent", "precedence/bom-before-utf8",
    "precedence/envelope-before-sequence", "precedence/first-json-error-dup-first", "precedence/first-json-error-in-text",
    "precedence/json-before-envelope", "precedence/payload-before-sequence",
    # canonical (O-CANON-1): the seed's json.loads refuses a leading U+FEFF as invalid JSON and reads 1E400 as inf
    "canonical-input/bom-document", "canonical-input/scalar-document",
    # P-TRACE-4: leap seconds
    "profile/timestamp-ok-2024-02-29t235960z",
}


def write():
    total = 0
    used = set()
    for group, cases in FILES.items():
        for c in cases:
            if group + "/" + c["name"] in DEPARTS_FROM_SEED:
                c["tags"] = c.get("tags", []) + ["departs-from-seed"]
                used.add(group + "/" + c["name"])
    assert used == DEPARTS_FROM_SEED, sorted(DEPARTS_FROM_SEED - used)
    for group, cases in sorted(FILES.items()):
        path = os.path.join(ROOT, group + ".json")
        names = [c["name"] for c in cases]
        assert len(names) == len(set(names)), group
        text = json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n"
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
        total += len(cases)
        print("%-22s %4d cases" % (group + ".json", len(cases)))
    print("total %d cases" % total)


write()
