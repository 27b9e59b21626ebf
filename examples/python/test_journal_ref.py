"""Tests for journal_ref and adapter.py.

Run:  python3 -m unittest discover -s examples/python

Expected codes, lines and sequences below were derived by hand from SPEC.md
(the rule ids name the rule each case relies on).  Python's json module is
used only to BUILD inputs and as the seed's own oracle where SPEC.md defines
a result as "what Python's json.dumps produces" (C-*, F-FP-1).
"""

import base64
import hashlib
import json
import math
import os
import random
import struct
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(ROOT, "golden")
sys.path.insert(0, HERE)

import journal_ref as jr  # noqa: E402

BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------- helpers

def ev(seq, eid=None, sid="s1", run="r1", type="session.start", payload=None, **extra):
    """One core-profile event line (bytes, no newline)."""
    e = {"event_id": "e%d" % seq if eid is None else eid, "session_id": sid,
         "sequence": seq, "type": type, "payload": {} if payload is None else payload,
         "provenance": {"run_id": run}}
    e.update(extra)
    return json.dumps(e, ensure_ascii=False).encode("utf-8")


def journal(*lines):
    return b"".join(line + b"\n" for line in lines)


def raw_event(text):
    """A line with a placeholder "@@" replaced by raw bytes: raw_event(b'...')."""
    return text


def run(op, data, profile="core"):
    return jr.run_operation(op, data, profile)


def canon(value):
    return jr.canonical_text(value)


def load_golden(name):
    with open(os.path.join(GOLDEN, name + ".golden.jsonl"), "rb") as f:
        data = f.read()
    with open(os.path.join(GOLDEN, name + ".expect.json"), "rb") as f:
        expect = jr.parse_text(f.read())
    return data, expect


def golden_events(name):
    data, _ = load_golden(name)
    return [json.loads(line) for line in data.split(b"\n") if line]


def trace_journal(*events):
    return journal(*[json.dumps(e, ensure_ascii=False).encode("utf-8") for e in events])


def s07_first():
    return golden_events("s07-session-replay")[0]


class Base(unittest.TestCase):

    def assertResult(self, op, data, expected, profile="core"):
        kind, value = run(op, data, profile)
        self.assertEqual(kind, "result", value)
        # canonical text compares kinds too (1 vs 1.0, -0.0 vs 0.0)
        self.assertEqual(canon(value), canon(expected))
        return value

    def assertError(self, op, data, code, line="any", sequence="any", profile="core",
                    event_id="any"):
        kind, value = run(op, data, profile)
        self.assertEqual(kind, "error", "expected %s, got result %r" % (code, value))
        self.assertEqual(set(value), {"code", "message", "line", "column", "sequence", "event_id"})
        self.assertIsInstance(value["message"], str)
        self.assertEqual(value["code"], code, value)
        if line != "any":
            self.assertEqual(value["line"], line, value)
        if sequence != "any":
            self.assertEqual(value["sequence"], sequence, value)
        if event_id != "any":
            self.assertEqual(value["event_id"], event_id, value)
        return value


V = {"op": "validate"}
CANON = {"op": "canonical"}


# ---------------------------------------------------------------- golden traces (G-1)

class GoldenTest(Base):

    def run_expect_file(self, name):
        data, expect = load_golden(name)
        self.assertEqual(expect["trace"], name + ".golden.jsonl")
        for i, check in enumerate(expect["checks"]):
            with self.subTest(trace=name, check=i, op=check["op"]):
                self.assertResult(check["op"], data, check["expect"], expect["profile"])

    def test_s07_expect_file(self):
        self.run_expect_file("s07-session-replay")

    def test_s02_expect_file(self):
        self.run_expect_file("s02-events-streaming")

    def test_g1_statements(self):
        data, _ = load_golden("s07-session-replay")
        state = jr.op_replay(data, "trace-0.1", until=4)
        self.assertEqual(state["fingerprint"],
                         "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e")
        self.assertEqual(len(state["applied_sequences"]), 5)
        self.assertEqual(state["stop_reason"], "completed")
        br = jr.op_branch(data, "trace-0.1", at=2, branch_id="x")
        self.assertEqual(br["inherited_event_ids"], ["evt-000", "evt-001", "evt-002"])
        self.assertEqual(br["parent_fingerprint"],
                         "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb")
        data, _ = load_golden("s02-events-streaming")
        self.assertEqual(jr.op_replay(data, "trace-0.1")["assistant_messages"],
                         ["Observe events, not hidden state."])

    def test_golden_valid_under_core_too(self):
        for name in ("s07-session-replay", "s02-events-streaming"):
            data, _ = load_golden(name)
            self.assertEqual(jr.op_validate(data, "core"), {"event_count": 7})

    def test_fingerprint_is_the_seed_formula(self):
        # F-FP-1: sha256(json.dumps(events, ensure_ascii=False, sort_keys=True, separators))
        for name in ("s07-session-replay", "s02-events-streaming"):
            data, _ = load_golden(name)
            events = [json.loads(line) for line in data.split(b"\n") if line]
            for k in range(len(events)):
                seed = hashlib.sha256(json.dumps(events[:k + 1], ensure_ascii=False, sort_keys=True,
                                                 separators=(",", ":")).encode("utf-8")).hexdigest()
                self.assertEqual(jr.op_fingerprint(data, "trace-0.1", until=k), seed)

    def test_prefix_consistency(self):
        # R-PROJ-1: replay(until=k) == full replay of the first k+1 lines
        for name in ("s07-session-replay", "s02-events-streaming"):
            data, _ = load_golden(name)
            lines = data.split(b"\n")
            for k in range(7):
                prefix = b"\n".join(lines[:k + 1])
                self.assertEqual(jr.op_replay(data, "trace-0.1", until=k),
                                 jr.op_replay(prefix, "trace-0.1"))

    def test_branch_does_not_change_parent(self):
        # B-PARENT-1
        data, _ = load_golden("s07-session-replay")
        before = (bytes(data), jr.op_replay(data), jr.op_fingerprint(data))
        a = jr.op_branch(data, at=3, branch_id="a")
        b = jr.op_branch(data, at=3, branch_id="b")
        self.assertEqual((bytes(data), jr.op_replay(data), jr.op_fingerprint(data)), before)
        self.assertEqual(a["parent_fingerprint"], b["parent_fingerprint"])
        self.assertEqual(a["inherited_event_ids"], b["inherited_event_ids"])
        self.assertEqual(a["parent_fingerprint"], jr.op_replay(data, until=3)["fingerprint"])


# ---------------------------------------------------------------- wire (section 2)

class WireTest(Base):

    def test_line_splitting(self):
        # W-LINE-3
        self.assertEqual(list(jr.iter_lines(b"")), [])
        self.assertEqual(list(jr.iter_lines(b"A\nB\n")), [(1, b"A"), (2, b"B")])
        self.assertEqual(list(jr.iter_lines(b"A\nB")), [(1, b"A"), (2, b"B")])
        self.assertEqual(list(jr.iter_lines(b"\n")), [(1, b"")])
        # W-CR-1 and W-LINE-1: only 0x0A splits
        self.assertEqual(list(jr.iter_lines(b"A\r\nB\rC\x0bD\x0cE\x1eF\xc2\x85G\xe2\x80\xa8H\n")),
                         [(1, b"A\r"), (2, b"B\rC\x0bD\x0cE\x1eF\xc2\x85G\xe2\x80\xa8H")])

    def test_only_lf_ends_a_line(self):
        # W-LINE-1: these separators between two events do NOT split them, so the
        # single line holds two JSON values (or a non-whitespace byte): invalid_json, line 1.
        for sep in (b"\r", b"\x0b", b"\x0c", b"\x1e", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"):
            with self.subTest(sep=sep):
                self.assertError(V, ev(0) + sep + ev(1) + b"\n", "invalid_json", line=1)

    def test_separators_inside_strings_are_content(self):
        for ch in ("\u2028", "\u2029", "\x85", "\ufeff"):
            data = journal(ev(0, payload={"x": "a" + ch + "b"}))
            self.assertResult(V, data, {"event_count": 1})

    def test_final_newline_optional(self):
        a = journal(ev(0), ev(1))
        b = a[:-1]
        self.assertEqual(jr.op_validate(a), jr.op_validate(b))
        self.assertEqual(jr.op_fingerprint(a), jr.op_fingerprint(b))

    def test_crlf(self):
        # W-CR-1, F-FP-2
        lf = journal(ev(0), ev(1), ev(2))
        crlf = lf.replace(b"\n", b"\r\n")
        self.assertResult(V, crlf, {"event_count": 3})
        self.assertEqual(jr.op_fingerprint(crlf), jr.op_fingerprint(lf))
        self.assertEqual(jr.op_replay(crlf), jr.op_replay(lf))

    def test_bom(self):
        # W-BOM-1 on any line, column 1, before W-UTF8-1 and W-BLANK-1
        e = self.assertError(V, BOM + journal(ev(0)), "unexpected_bom", line=1, sequence=None)
        self.assertEqual(e["column"], 1)
        self.assertError(V, journal(ev(0), BOM + ev(1)), "unexpected_bom", line=2, sequence=None)
        self.assertError(V, journal(ev(0), BOM + b"\xff"), "unexpected_bom", line=2)
        self.assertError(V, journal(ev(0), BOM), "unexpected_bom", line=2)
        self.assertError(V, journal(ev(0), BOM + b"  "), "unexpected_bom", line=2)
        # a truncated BOM is invalid UTF-8
        self.assertError(V, journal(ev(0), b"\xef\xbb"), "invalid_utf8", line=2)

    def test_invalid_utf8(self):
        # W-UTF8-1: RFC 3629 strictness
        cases = [
            (b"\xff", 7), (b"\xc0\xaf", 7), (b"\xed\xa0\x80", 7),
            (b"\xf4\x90\x80\x80", 7), (b"\xe2\x82", 7), (b"\x80", 7), (b"\xf8\x88\x80\x80\x80", 7),
        ]
        for bad, col in cases:
            with self.subTest(bad=bad):
                line = b'{"x":"' + bad + b'"}'
                e = self.assertError(V, journal(ev(0), line), "invalid_utf8", line=2, sequence=None)
                self.assertEqual(e["column"], col)
        # before W-BLANK-1
        self.assertError(V, journal(ev(0), b" \xff "), "invalid_utf8", line=2)
        # valid edge code points pass
        ok = journal(ev(0, payload={"x": "\U0010ffff\ud7ff\ue000\x7f"}))
        self.assertResult(V, ok, {"event_count": 1})

    def test_blank_lines(self):
        # W-BLANK-1: not skipped
        e = self.assertError(V, journal(ev(0), b"", ev(1)), "blank_line", line=2, sequence=None)
        self.assertEqual(e["column"], 1)
        self.assertError(V, journal(ev(0), b" \t\r", ev(1)), "blank_line", line=2)
        self.assertError(V, b"\n", "blank_line", line=1)
        self.assertError(V, journal(ev(0), ev(1)) + b"\n", "blank_line", line=3)
        self.assertError(V, (ev(0) + b"\r\n\r\n"), "blank_line", line=2)
        # form feed / vertical tab are not blank and not JSON whitespace
        self.assertError(V, journal(ev(0), b"\x0c"), "invalid_json", line=2)
        self.assertError(V, journal(ev(0), b"\x0b"), "invalid_json", line=2)

    def test_torn_last_line(self):
        full = journal(ev(0), ev(1))
        self.assertError(V, full[:-10], "invalid_json", line=2, sequence=None)


# ---------------------------------------------------------------- JSON parsing (3.1)

class ParseTest(Base):

    def canon_ok(self, text, expected):
        kind, value = run(CANON, text.encode("utf-8") if isinstance(text, str) else text)
        self.assertEqual(kind, "result", value)
        self.assertEqual(value, expected)

    def test_invalid_json(self):
        # C-SYNTAX-1
        bad = [
            b"", b"   ", b"\n", b"NaN", b"Infinity", b"-Infinity", b"[NaN]", b"nan",
            b"True", b"FALSE", b"Null", b"nul", b"tru", b"[1,]", b'{"a":1,}', b"[,1]",
            b"01", b"-01", b"00", b".5", b"1.", b"-", b"+1", b"1e", b"1e+", b"1.e3",
            b"0x10", b"-.5", b"'a'", b"// c\n1", b"/* c */ 1", b"1 2", b"[1] [2]",
            b'{"a" 1}', b'{"a":}', b'{a:1}', b'{"a",1}', b"[1 2]", b'"abc', b"[",
            b'{"a":1', b'"\\x"', b'"\\u12G4"', b'"\\u12"', b'"\\U0041"', b'"\\\'"',
            b'"a\tb"', b'"a\nb"', b'"\x00"', b'"\x1f"', b"\xc2\xa01", b"[1,\xef\xbb\xbf2]",
            b"\x0c1", b"1\x0b", b"{}}", b"[]]", b"\"\\", b"[\"a\"", b"1]",
        ]
        for text in bad:
            with self.subTest(text=text):
                e = self.assertError(CANON, text, "invalid_json", line="any")
                self.assertIsInstance(e["column"], int)

    def test_error_line_in_canonical_input(self):
        # O-CANON-1: line and column within the input
        e = self.assertError(CANON, b"[1,\n2,\n]", "invalid_json", line=3)
        self.assertEqual(e["column"], 1)
        e = self.assertError(CANON, b'[1,\n"\xff"]', "invalid_utf8", line=2)
        self.assertEqual(e["column"], 2)
        self.assertError(CANON, BOM + b"1", "unexpected_bom", line=1)
        self.assertError(CANON, b"\n\n1x", "invalid_json", line=3)

    def test_whitespace(self):
        self.canon_ok(b" \t\r\n{ \"a\" :\r\n[ 1 ,\t2 ] } \n", '{"a":[1,2]}')

    def test_literals(self):
        # C-LIT-1
        self.canon_ok(b"[true,false,null]", "[true,false,null]")

    def test_duplicate_key(self):
        # C-KEY-2
        self.assertError(CANON, b'{"a":1,"\\u0061":2}', "duplicate_key")
        self.assertError(CANON, b'{"a":1,"a":1}', "duplicate_key")
        self.assertError(CANON, b'[{"x":{"b":1,"c":2,"b":3}}]', "duplicate_key")
        self.assertError(CANON, b'{"\\/":1,"/":2}', "duplicate_key")
        e = self.assertError(CANON, b'{"a":1,\n "a":2}', "duplicate_key", line=2)
        self.assertEqual(e["column"], 2)  # the second occurrence
        # not duplicates: different objects, NFC vs NFD, case
        self.canon_ok('{"a":{"a":1}}', '{"a":{"a":1}}')
        self.canon_ok('{"\u00e9":1,"e\u0301":2,"A":3,"a":4}',
                      '{"A":3,"a":4,"e\u0301":2,"\u00e9":1}')
        # in a journal, at the second occurrence's line
        line = ev(1)[:-1] + b',"sequence":1}'
        self.assertError(V, journal(ev(0), line), "duplicate_key", line=2, sequence=None)
        # first problem in text order
        self.assertError(CANON, b'{"a":1,"a":1e400}', "duplicate_key")
        self.assertError(CANON, b'{"a":1e400,"a":1}', "number_out_of_range")

    def test_surrogates(self):
        # C-STR-3
        for text in (b'"\\ud800"', b'"\\udc00"', b'"\\uDBFF\\u0041"', b'"\\ud800x"',
                     b'"\\ud800\\n"', b'"\\udc00\\ud800"', b'"\\ud800\\ud800"', b'"a\\uDFFFb"',
                     b'["\\ud83d"]', b'{"\\ud83d":1}'):
            with self.subTest(text=text):
                self.assertError(CANON, text, "lone_surrogate")
        # SPEC ambiguity (see README): a high surrogate followed by a MALFORMED
        # \u escape.  Literal reading of C-STR-3 + "first problem in text
        # order": the high escape is not followed by a DC00..DFFF escape, and it
        # comes first -> lone_surrogate.  (The reference says invalid_json.)
        for text in (b'"\\ud800\\u12"', b'"\\ud800\\uzzzz"', b'"\\ud800'):
            with self.subTest(text=text):
                self.assertError(CANON, text, "lone_surrogate")
        self.canon_ok(b'"\\ud83d\\ude00"', '"\U0001f600"')
        self.canon_ok(b'"\\uD83D\\uDE00"', '"\U0001f600"')
        self.canon_ok(b'"\\udbff\\udfff"', '"\U0010ffff"')
        self.canon_ok(b'"\\u00E9\\u00e9"', '"\u00e9\u00e9"')
        data = journal(ev(0), ev(1), b'{"event_id":"e2","x":"\\udead"}')
        self.assertError(V, data, "lone_surrogate", line=3, sequence=None)

    def test_numbers_out_of_range(self):
        # C-NUM-3, C-NUM-6
        self.assertError(CANON, b"1" * 4301, "number_out_of_range")
        self.assertError(CANON, b"-" + b"9" * 4301, "number_out_of_range")
        self.canon_ok(b"1" * 4300, "1" * 4300)
        self.canon_ok(b"-" + b"9" * 4300, "-" + "9" * 4300)
        for text in (b"1e400", b"-1E309", b"1.8e308", b"[0,1e309]",
                     b"17976931348623159" + b"0" * 292 + b".0",
                     b"1" + b"0" * 400 + b".0"):
            with self.subTest(text=text[:20]):
                self.assertError(CANON, text, "number_out_of_range")
        # rounds to the largest finite double rather than overflowing
        self.canon_ok(b"1.7976931348623158e308", "1.7976931348623157e+308")
        # a huge integer in the envelope fails in the JSON layer
        data = journal(b'{"sequence":' + b"1" * 4301 + b"}")
        self.assertError(V, data, "number_out_of_range", line=1, sequence=None)

    def test_float_reading(self):
        # C-NUM-4: nearest double from all digits; underflow keeps the sign
        self.canon_ok(b"1e-400", "0.0")
        self.canon_ok(b"-1e-400", "-0.0")
        self.canon_ok(b"0." + b"0" * 500 + b"1", "0.0")
        self.canon_ok(b"0.1000000000000000055511151231257827", "0.1")
        self.canon_ok(b"9007199254740993.0", "9007199254740992.0")     # tie -> even
        self.canon_ok(b"9007199254740993.000000000000000000001", "9007199254740994.0")
        self.canon_ok(b"2.4703282292062328e-324", "5e-324")            # above half of min subnormal
        self.canon_ok(b"2.4703282292062327e-324", "0.0")               # below it
        self.canon_ok(b"4.9e-324", "5e-324")
        self.canon_ok(b"17976931348623158" + b"0" * 292 + b".0", "1.7976931348623157e+308")

    def test_nesting_depth(self):
        # C-DEPTH-1
        self.canon_ok(b"[" * 128 + b"]" * 128, "[" * 128 + "]" * 128)
        self.assertError(CANON, b"[" * 129 + b"]" * 129, "nesting_too_deep")
        self.assertError(CANON, b'{"a":' * 129 + b"1" + b"}" * 129, "nesting_too_deep")
        e = self.assertError(CANON, b"[" * 100000, "nesting_too_deep")
        self.assertEqual(e["column"], 129)
        self.assertError(CANON, b'[{"a":' * 50000, "nesting_too_deep")
        self.assertError(CANON, b"[{" * 50000, "invalid_json")   # `[` is not a key
        # event depth 1, payload depth 2: 126 arrays inside payload reach 128
        ok = ev(0, payload={"x": "@@"}).replace(b'"@@"', b"[" * 126 + b"]" * 126)
        self.assertResult(V, journal(ok), {"event_count": 1})
        bad = ev(0, payload={"x": "@@"}).replace(b'"@@"', b"[" * 127 + b"]" * 127)
        self.assertError(V, journal(bad), "nesting_too_deep", line=1, sequence=None)

    def test_deep_canonical_values_do_not_recurse_badly(self):
        value = jr.parse_text(b"[" * 128 + b"]" * 128)
        self.assertEqual(canon(value), "[" * 128 + "]" * 128)


# ---------------------------------------------------------------- canonical text (3.2)

FLOAT_EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 2 / 3, 10.0, 100.0, 123.456,
    1e15, 1e16, 1e17, 9999999999999998.0, 1234567890123456.7, 12345678901234567.0,
    1e-4, 1e-5, 0.0001, 0.00012, 0.00001, 1.5e-5, 1e-7, 5e-324, 1e-323,
    2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
    float(2 ** 53), float(2 ** 53 + 2), float(2 ** 63), float(2 ** 64), 1e21, 1e22, 1e23,
    math.pi, math.e, 1.5, 0.5, 0.25, 299792458.0, 6.02214076e23, 1.602176634e-19,
    4.35, 0.3000000000000001, 2.675, 1e100, 1.7e308, 9.999999999999999e15,
    9.999999999999999e-5, 0.000999, 0.0009999999999999998,
]


class CanonicalTest(Base):

    def test_float_spelling_vs_repr_edges(self):
        # C-NUM-5 spelled out == Python repr
        values = list(FLOAT_EDGES)
        values += [10.0 ** k for k in range(-323, 309)]
        values += [2.0 ** k for k in range(-1074, 1024)]
        values += [math.nextafter(x, math.inf) for x in values[:60]] if hasattr(math, "nextafter") else []
        for x in values:
            if math.isinf(x):
                continue
            for y in (x, -x):
                self.assertEqual(jr.format_float(y), repr(y), y)

    def test_float_spelling_vs_repr_random(self):
        rng = random.Random(20240810)
        checked = 0
        while checked < 50000:
            bits = rng.getrandbits(64)
            x = struct.unpack("<d", struct.pack("<Q", bits))[0]
            if math.isnan(x) or math.isinf(x):
                continue
            self.assertEqual(jr.format_float(x), repr(x), bits)
            checked += 1
        for _ in range(5000):   # short decimals: the ones people write
            x = float("%d.%de%d" % (rng.randint(0, 9999), rng.randint(0, 999), rng.randint(-30, 30)))
            self.assertEqual(jr.format_float(x), repr(x))

    def test_fast_and_exact_shortest_agree(self):
        rng = random.Random(99)
        for _ in range(3000):
            x = abs(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
            if math.isnan(x) or math.isinf(x) or x == 0:
                continue
            self.assertEqual(jr._shortest_decimal(x), jr._shortest_decimal_exact(x), x)

    def test_number_spelling_from_text(self):
        # C-NUM-1, C-NUM-2, C-NUM-5 from source text
        cases = {
            "0": "0", "-0": "0", "1": "1", "-1": "-1", "1.0": "1.0", "-0.0": "-0.0", "0.0": "0.0",
            "0e0": "0.0", "-0e-5": "-0.0", "1e2": "100.0", "1E+2": "100.0", "10e-1": "1.0",
            "1e15": "1000000000000000.0", "1e16": "1e+16", "1.5e16": "1.5e+16",
            "0.0001": "0.0001", "0.00001": "1e-05", "1.5e-5": "1.5e-05", "1e-7": "1e-07",
            "123.456": "123.456", "5e-324": "5e-324", "1e308": "1e+308",
            "123456789012345678901234567890": "123456789012345678901234567890",
            "-123456789012345678901234567890": "-123456789012345678901234567890",
            "9007199254740993": "9007199254740993", "18446744073709551616": "18446744073709551616",
            "1e21": "1e+21", "100000000000000000000.0": "1e+20", "12345678.9": "12345678.9",
            # exactly halfway between the two shortest round-tripping strings
            # ...56.7 and ...56.8: C-NUM-5 does not say; repr takes the even digit
            "1234567890123456.75": "1234567890123456.8",
            "1234567890123456.25": "1234567890123456.2",
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertEqual(jr.op_canonical(text.encode()), expected)
        self.assertEqual(type(jr.parse_text(b"-0")), int)
        self.assertEqual(type(jr.parse_text(b"1e2")), float)

    def test_key_order_code_points(self):
        # C-KEY-1: code point order, not UTF-16
        text = '{"\U0001f600":1,"\uff61":2,"\ue000":3,"a":4,"A":5,"\u00e9":6,"":7,"aa":8,"b":9}'
        expected = '{"":7,"A":5,"a":4,"aa":8,"b":9,"\u00e9":6,"\ue000":3,"\uff61":2,"\U0001f600":1}'
        self.assertEqual(jr.op_canonical(text.encode("utf-8")), expected)

    def test_string_escapes(self):
        # C-STR-1, C-STR-2
        text = b'"\\u0000\\u001f\\u0001\\b\\f\\n\\r\\t\\"\\\\\\/\\u007f\\u0080\\u009f\\u2028\\u2029\\ufeff\\u00e9"'
        expected = '"\\u0000\\u001f\\u0001\\b\\f\\n\\r\\t\\"\\\\/\x7f\x80\x9f\u2028\u2029\ufeff\u00e9"'
        self.assertEqual(jr.op_canonical(text), expected)
        self.assertEqual(jr.op_canonical('"\U0001f600"'.encode()), '"\U0001f600"')

    def test_matches_python_json_dumps(self):
        # section 3.2's definition, on inputs json.loads reads the same way
        samples = [
            b'{"b":[1,2.5,{"z":null,"y":true}],"a":"x\\u0001y","\\u00e9":-0.0}',
            b'[1e16,1e15,1e-5,0.0001,123456789012345678901234567890,-0,1E-400,1234567890123456.75]',
            '{"\U0001f600":"\u2028\u2029\x7f","\uff61":{"\ue000":[]},"k":"\\/\\"\\\\"}'.encode(),
            b'[0.1,0.2,0.30000000000000004,5e-324,1.7976931348623157e308,-1e-7]',
            b'{"nested":{"deeper":{"deepest":[[[[{"a":1}]]]]}}}',
            b'"\\b\\f\\n\\r\\t\\u000b\\u001e"',
        ]
        for text in samples:
            with self.subTest(text=text):
                expected = json.dumps(json.loads(text.decode("utf-8")), ensure_ascii=False,
                                      sort_keys=True, separators=(",", ":"))
                self.assertEqual(jr.op_canonical(text), expected)

    def test_random_values_match_json_dumps(self):
        rng = random.Random(7)
        alphabet = ["a", "b", "\u00e9", "\x00", "\x1f", '"', "\\", "/", "\u2028", "\U0001f600",
                    "\uff61", "\ue000", "\x7f", "\t"]

        def gen(depth):
            r = rng.random()
            if depth > 4 or r < 0.3:
                choice = rng.randrange(6)
                if choice == 0:
                    return rng.randint(-10 ** 30, 10 ** 30)
                if choice == 1:
                    return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(62)))[0]
                if choice == 2:
                    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(5)))
                return [True, False, None][choice - 3]
            if r < 0.65:
                return [gen(depth + 1) for _ in range(rng.randrange(4))]
            return {"".join(rng.choice(alphabet) for _ in range(rng.randrange(4))): gen(depth + 1)
                    for _ in range(rng.randrange(4))}

        for _ in range(500):
            v = gen(0)
            expected = json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            self.assertEqual(canon(v), expected)
            # and our parser reads it back to the same value
            self.assertEqual(jr.op_canonical(expected.encode("utf-8")), expected)


# ---------------------------------------------------------------- envelope (E-ENV-1)

class EnvelopeTest(Base):

    def test_malformed_event(self):
        base = json.loads(ev(0))
        cases = []

        def case(name, mutate, seq="any", eid="any"):
            e = json.loads(json.dumps(base))
            mutate(e)
            cases.append((name, json.dumps(e).encode(), seq, eid))

        case("no event_id", lambda e: e.pop("event_id"), 0, None)
        case("empty event_id", lambda e: e.update(event_id=""), 0, "")
        case("int event_id", lambda e: e.update(event_id=5), 0, None)
        case("no session_id", lambda e: e.pop("session_id"), 0, "e0")
        case("null session_id", lambda e: e.update(session_id=None), 0, "e0")
        case("string sequence", lambda e: e.update(sequence="0"), None, "e0")
        case("float sequence", lambda e: e.update(sequence=0.0), None, "e0")
        case("bool sequence", lambda e: e.update(sequence=False), None, "e0")
        case("no sequence", lambda e: e.pop("sequence"), None, "e0")
        case("no type", lambda e: e.pop("type"), 0, "e0")
        case("empty type", lambda e: e.update(type=""), 0, "e0")
        case("array payload", lambda e: e.update(payload=[]), 0, "e0")
        case("null payload", lambda e: e.update(payload=None), 0, "e0")
        case("no payload", lambda e: e.pop("payload"), 0, "e0")
        case("no provenance", lambda e: e.pop("provenance"), 0, "e0")
        case("string provenance", lambda e: e.update(provenance="r1"), 0, "e0")
        case("no run_id", lambda e: e.update(provenance={}), 0, "e0")
        case("empty run_id", lambda e: e.update(provenance={"run_id": ""}), 0, "e0")
        case("int run_id", lambda e: e.update(provenance={"run_id": 1}), 0, "e0")
        case("null parent", lambda e: e.update(parent_event_id=None), 0, "e0")
        case("empty parent", lambda e: e.update(parent_event_id=""), 0, "e0")
        case("int parent", lambda e: e.update(parent_event_id=0), 0, "e0")
        case("huge sequence, no type", lambda e: (e.update(sequence=2 ** 70), e.pop("type")), None, "e0")
        for name, line, seq, eid in cases:
            with self.subTest(name):
                self.assertError(V, journal(line), "malformed_event", line=1, sequence=seq, event_id=eid)
        for text in (b"[]", b'"event"', b"1", b"null", b"true", b"[{}]"):
            with self.subTest(text=text):
                e = self.assertError(V, journal(ev(0), text), "malformed_event", line=2,
                                     sequence=None, event_id=None)
                self.assertIsNone(e["column"])

    def test_unknown_fields_kept_and_fingerprinted(self):
        # E-ENV-2
        a = journal(ev(0, extra_top={"z": [1, 2.0]}, payload={"u": 1}))
        b = journal(ev(0, extra_top={"z": [1, 2]}, payload={"u": 1}))
        self.assertResult(V, a, {"event_count": 1})
        self.assertNotEqual(jr.op_fingerprint(a), jr.op_fingerprint(b))
        self.assertResult(V, journal(ev(0, type="no.such.type")), {"event_count": 1})
        # any integer sequence passes the envelope; J-SEQ-1 judges it
        self.assertError(V, journal(ev(-5)), "sequence_gap", line=1, sequence=-5)


# ---------------------------------------------------------------- trace-0.1 (P-TRACE-*)

class TraceProfileTest(Base):

    def check(self, mutate, code="profile_violation"):
        e = s07_first()
        mutate(e)
        data = trace_journal(e)
        if code is None:
            self.assertResult(V, data, {"event_count": 1}, profile="trace-0.1")
        else:
            self.assertError(V, data, code, line=1, profile="trace-0.1")
        return data

    def test_golden_event_is_valid(self):
        self.check(lambda e: None, None)

    def test_p_trace_1_members(self):
        for name in ("trace_version", "timestamp", "actor", "redaction"):
            with self.subTest(missing=name):
                self.check(lambda e: e.pop(name))
        data = self.check(lambda e: e.update(extra=1))
        self.assertResult(V, data, {"event_count": 1})   # fine under core (E-PROFILE-1)
        self.check(lambda e: e.update(duration_ms=5), None)

    def test_envelope_before_profile(self):
        # J-ORDER-1 step 2 before step 3
        self.check(lambda e: e.pop("event_id"), "malformed_event")
        self.check(lambda e: (e.pop("trace_version"), e.update(payload=[])), "malformed_event")

    def test_p_trace_2_3(self):
        self.check(lambda e: e.update(trace_version="0.1"))
        self.check(lambda e: e.update(trace_version=0.1))
        e = s07_first()
        e["sequence"] = -1
        self.assertError(V, trace_journal(e), "profile_violation", line=1, sequence=-1, profile="trace-0.1")
        self.assertError(V, trace_journal(e), "sequence_gap", line=1, sequence=-1)

    def test_p_trace_4_timestamp(self):
        bad = ["2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
               "2026-00-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-08-00T00:00:00Z",
               "2026-08-10 00:00:00Z", "2026-08-10T24:00:00Z", "2026-08-10T00:60:00Z",
               "2026-08-10T00:00:61Z", "2026-08-10T00:00:00", "2026-08-10T00:00:00+24:00",
               "2026-08-10T00:00:00+05:60", "2026-08-10T00:00:00.Z", "2026-8-10T00:00:00Z",
               "\uff12026-08-10T00:00:00Z", "2026-08-10T00:00:00Z\n", "2026-08-10T00:00:00+0500",
               "2026-08-10", "", "2026-08-10T00:00Z", "20260-08-10T00:00:00Z"]
        for ts in bad:
            with self.subTest(ts=ts):
                self.check(lambda e: e.update(timestamp=ts))
        self.check(lambda e: e.update(timestamp=1786320000))
        good = ["2024-02-29T00:00:00Z", "2000-02-29t23:59:60.123456z", "2026-08-10T00:00:00+23:59",
                "2026-08-10T00:00:00-00:00", "2026-12-31T23:59:59.0Z", "0000-01-01T00:00:00Z"]
        for ts in good:
            with self.subTest(ts=ts):
                self.check(lambda e: e.update(timestamp=ts), None)

    def test_p_trace_5_type(self):
        self.check(lambda e: e.update(type="made.up"))
        self.check(lambda e: e.update(type="error"), None)
        self.assertEqual(len(jr.TRACE_TYPES), 30)
        with open(os.path.join(GOLDEN, "trace-event.schema.json"), "rb") as f:
            schema = json.loads(f.read())
        self.assertEqual(set(schema["properties"]["type"]["enum"]), set(jr.TRACE_TYPES))

    def test_p_trace_6_actor(self):
        self.check(lambda e: e.update(actor="user"))
        self.check(lambda e: e.update(actor={"kind": "robot", "id": "x"}))
        self.check(lambda e: e.update(actor={"kind": "user"}))
        self.check(lambda e: e.update(actor={"id": "x"}))
        self.check(lambda e: e.update(actor={"kind": "user", "id": ""}))
        self.check(lambda e: e.update(actor={"kind": "user", "id": "x", "name": "y"}))
        self.check(lambda e: e.update(actor={"kind": "user", "id": "x", "parent_id": ""}))
        self.check(lambda e: e.update(actor={"kind": "tool", "id": "x", "parent_id": "p"}), None)

    def test_p_trace_7_provenance(self):
        def prov(**kw):
            def mutate(e):
                e["provenance"].update(kw)
                for k, v in list(e["provenance"].items()):
                    if v is ...:
                        del e["provenance"][k]
            return mutate
        for bad in ({"agent_id": "Reference-Agent"}, {"agent_id": "a--b"}, {"agent_id": "-a"},
                    {"agent_id": "a-"}, {"agent_id": ""}, {"experiment_id": "x_y"},
                    {"experiment_id": ""}, {"snapshot_id": ""}, {"surface": 1},
                    {"harness_mode": "real"}, {"model": 5}, {"provider": None},
                    {"host": "x"}, {"snapshot_id": ...}, {"agent_id": ...}, {"harness_mode": ...},
                    {"agent_id": "a\n"}):
            with self.subTest(bad=bad):
                self.check(prov(**bad))
        for good in ({"model": ""}, {"experiment_id": ...}, {"model": ...}, {"provider": ...},
                     {"agent_id": "a1-b2-c3"}, {"harness_mode": "adversarial"}):
            with self.subTest(good=good):
                self.check(prov(**good), None)

    def test_p_trace_8_redaction(self):
        for bad in ({"status": "dirty", "fields": []}, {"fields": []}, {"status": "clean"},
                    {"status": "clean", "fields": ["a", "a"]}, {"status": "clean", "fields": [""]},
                    {"status": "clean", "fields": "a"}, {"status": "clean", "fields": [1]},
                    {"status": "clean", "fields": [], "notes": 5},
                    {"status": "clean", "fields": [], "extra": 1}, "clean"):
            with self.subTest(bad=bad):
                self.check(lambda e: e.update(redaction=bad))
        self.check(lambda e: e.update(redaction={"status": "redacted", "fields": ["a", "b"],
                                                 "notes": ""}), None)

    def test_p_trace_9_duration(self):
        for bad in (-1, -0.5, "5", True, None, [1]):
            with self.subTest(bad=bad):
                self.check(lambda e: e.update(duration_ms=bad))
        for good in (0, 0.0, 1.5, 10 ** 30):
            with self.subTest(good=good):
                self.check(lambda e: e.update(duration_ms=good), None)
        data = trace_journal(s07_first()).replace(b'"redaction"', b'"duration_ms":-0.0,"redaction"')
        self.assertResult(V, data, {"event_count": 1}, profile="trace-0.1")

    def test_profile_before_payload_types(self):
        e = s07_first()
        e["type"] = "user.message"
        e["payload"] = {"content": 5}
        self.assertError(V, trace_journal(e), "invalid_payload", line=1, profile="trace-0.1")
        e["extra"] = 1
        self.assertError(V, trace_journal(e), "profile_violation", line=1, profile="trace-0.1")


# ---------------------------------------------------------------- payload types (R-TYPE-1)

class PayloadTypeTest(Base):

    def test_invalid_payload(self):
        cases = [
            ("user.message", {"content": None}), ("user.message", {"content": 5}),
            ("user.message", {"content": ["a"]}), ("model.response", {"content": {}}),
            ("model.response", {"final": True, "accumulated": 5}),
            ("model.response", {"content": "x", "accumulated": None}),
            ("model.response", {"accumulated": False}),
            ("session.stop", {"reason": None}), ("session.stop", {"reason": 0}),
        ]
        for t, payload in cases:
            with self.subTest(type=t, payload=payload):
                data = journal(ev(0), ev(1, type=t, payload=payload), ev(2))
                self.assertError(V, data, "invalid_payload", line=2, sequence=1, event_id="e1")
                # R-SEL-1: validated whatever until is
                self.assertError({"op": "replay", "until": 0}, data, "invalid_payload", line=2)
                self.assertError({"op": "fingerprint", "until": 0}, data, "invalid_payload", line=2)

    def test_unread_fields_are_free(self):
        data = journal(ev(0, type="tool.result", payload={"content": 5}),
                       ev(1, type="model.response", payload={"final": "yes", "delta": 5, "reason": 1}),
                       ev(2, type="session.stop", payload={"content": None}),
                       ev(3, type="model.request", payload={"content": None}))
        self.assertResult(V, data, {"event_count": 4})

    def test_payload_before_sequence(self):
        data = journal(ev(0), ev(5, type="session.stop", payload={"reason": 1}))
        self.assertError(V, data, "invalid_payload", line=2, sequence=5)


# ---------------------------------------------------------------- invariants (section 5)

class InvariantTest(Base):

    def test_empty(self):
        for op in (V, {"op": "replay"}, {"op": "fingerprint"}, {"op": "replay", "until": 0},
                   {"op": "branch", "at": 0, "branch_id": "b"}, {"op": "branch", "at": 0, "branch_id": ""}):
            with self.subTest(op=op):
                e = self.assertError(op, b"", "empty_journal", line=None, sequence=None)
                self.assertIsNone(e["event_id"])

    def test_sequence_gap(self):
        self.assertError(V, journal(ev(1)), "sequence_gap", line=1, sequence=1, event_id="e1")
        self.assertError(V, journal(ev(0), ev(2)), "sequence_gap", line=2, sequence=2)
        self.assertError(V, journal(ev(0), ev(0, eid="x")), "sequence_gap", line=2, sequence=0)
        self.assertError(V, journal(ev(0), ev(2), ev(1)), "sequence_gap", line=2, sequence=2)
        self.assertError(V, journal(ev(0), ev(1), ev(1, eid="x")), "sequence_gap", line=3, sequence=1)
        # J-LOC-1: sequence only when it fits in i64
        self.assertError(V, journal(ev(2 ** 63, eid="big")), "sequence_gap", line=1, sequence=None,
                         event_id="big")
        self.assertError(V, journal(ev(2 ** 63 - 1)), "sequence_gap", line=1, sequence=2 ** 63 - 1)
        self.assertError(V, journal(ev(-2 ** 63)), "sequence_gap", line=1, sequence=-2 ** 63)
        self.assertError(V, journal(ev(-2 ** 63 - 1)), "sequence_gap", line=1, sequence=None)

    def test_mixed_session_and_run(self):
        self.assertError(V, journal(ev(0), ev(1), ev(2, sid="s2")), "mixed_session", line=3, sequence=2,
                         event_id="e2")
        self.assertError(V, journal(ev(0), ev(1, run="r2")), "mixed_run", line=2, sequence=1)
        # order inside step 5
        self.assertError(V, journal(ev(0), ev(2, sid="s2")), "sequence_gap", line=2)
        self.assertError(V, journal(ev(0), ev(1, sid="s2", run="r2")), "mixed_session", line=2)
        self.assertError(V, journal(ev(0), ev(1, run="r2", eid="e0")), "mixed_run", line=2)

    def test_duplicate_event_id(self):
        self.assertError(V, journal(ev(0), ev(1), ev(2, eid="e0")), "duplicate_event_id", line=3,
                         sequence=2, event_id="e0")
        self.assertError(V, journal(ev(0), ev(1, eid="e0", parent_event_id="zz")),
                         "duplicate_event_id", line=2)

    def test_unknown_parent(self):
        self.assertError(V, journal(ev(0, parent_event_id="e1"), ev(1)), "unknown_parent", line=1,
                         sequence=0, event_id="e0")
        self.assertError(V, journal(ev(0), ev(1, parent_event_id="nope")), "unknown_parent", line=2)
        self.assertError(V, journal(ev(0), ev(1, parent_event_id="e1")), "unknown_parent", line=2)
        self.assertError(V, journal(ev(0), ev(1), ev(2, parent_event_id="e3"), ev(3)),
                         "unknown_parent", line=3)
        ok = journal(ev(0), ev(1, parent_event_id="e0"), ev(2, parent_event_id="e0"),
                     ev(3, parent_event_id="e1"))
        self.assertResult(V, ok, {"event_count": 4})

    def test_first_failing_line_wins(self):
        # J-ORDER-1: the earliest event that breaks anything
        data = journal(ev(0), b"[]", b"not json", ev(7, sid="other"))
        self.assertError(V, data, "malformed_event", line=2)
        data = journal(ev(0), ev(1, sid="other"), b"")
        self.assertError(V, data, "mixed_session", line=2)


# ---------------------------------------------------------------- replay (section 6)

class ReplayTest(Base):

    def test_streaming_rule(self):
        # R-STREAM-1
        data = journal(
            ev(0),
            ev(1, type="user.message", payload={"content": "hi"}),
            ev(2, type="model.response", payload={"delta": "a", "accumulated": "a"}),
            ev(3, type="model.response", payload={"delta": "b", "accumulated": "ab", "final": False}),
            ev(4, type="model.response", payload={"accumulated": "x", "final": 1}),
            ev(5, type="model.response", payload={"accumulated": "x", "final": "true"}),
            ev(6, type="model.response", payload={"accumulated": "x", "final": None}),
            ev(7, type="model.response", payload={"accumulated": "x", "final": 1.0}),
            ev(8, type="model.response", payload={"delta": "c", "accumulated": "abc", "final": True}),
        )
        state = jr.op_replay(data)
        self.assertEqual(state["assistant_messages"], ["abc"])
        self.assertEqual(state["user_messages"], ["hi"])
        self.assertEqual(jr.op_replay(data, until=7)["assistant_messages"], [])

    def test_content_wins_and_defaults(self):
        data = journal(
            ev(0, type="model.response", payload={"content": "c", "final": True, "accumulated": "acc"}),
            ev(1, type="model.response", payload={"content": "d", "final": False}),
            ev(2, type="model.response", payload={"final": True}),
            ev(3, type="model.response", payload={"content": ""}),
            ev(4, type="user.message", payload={}),
            ev(5, type="user.message", payload={"text": "ignored"}),
        )
        state = jr.op_replay(data)
        self.assertEqual(state["assistant_messages"], ["c", "d", "", ""])
        self.assertEqual(state["user_messages"], ["", ""])

    def test_stop_reason(self):
        # R-STOP-1
        data = journal(ev(0), ev(1, type="session.stop", payload={}),
                       ev(2, type="session.stop", payload={"reason": "max_turns"}), ev(3))
        self.assertIsNone(jr.op_replay(data, until=0)["stop_reason"])
        self.assertEqual(jr.op_replay(data, until=1)["stop_reason"], "unknown")
        self.assertEqual(jr.op_replay(data)["stop_reason"], "max_turns")

    def test_tool_results_unchanged(self):
        # R-TOOL-1
        payload = {"tool": "x", "output": [1, 1.0, -0.0, {"z": None}], "extra": "\u2028"}
        data = journal(ev(0, type="tool.result", payload=payload))
        self.assertResult({"op": "replay"}, data, {
            "session_id": "s1", "run_id": "r1", "applied_sequences": [0], "user_messages": [],
            "assistant_messages": [], "tool_results": [payload], "stop_reason": None,
            "fingerprint": jr.op_fingerprint(data)})
        state = jr.op_replay(data)
        self.assertIs(type(state["tool_results"][0]["output"][1]), float)

    def test_other_types(self):
        # R-OTHER-1
        data = journal(*[ev(i, type=t, payload={"content": "no", "reason": "no"})
                         for i, t in enumerate(["session.start", "model.request", "tool.request",
                                                "session.replay", "session.branch", "x.y"])])
        state = jr.op_replay(data)
        self.assertEqual(state["applied_sequences"], [0, 1, 2, 3, 4, 5])
        self.assertEqual((state["user_messages"], state["assistant_messages"], state["tool_results"],
                          state["stop_reason"]), ([], [], [], None))

    def test_whole_journal_validated(self):
        # R-SEL-1
        data = journal(ev(0), ev(1), ev(3))
        self.assertError({"op": "replay", "until": 0}, data, "sequence_gap", line=3)

    def test_session_and_run_come_from_first_event(self):
        data = journal(ev(0, sid="S", run="R"), ev(1, sid="S", run="R"))
        state = jr.op_replay(data, until=1)
        self.assertEqual((state["session_id"], state["run_id"]), ("S", "R"))


# ---------------------------------------------------------------- fingerprint (section 7)

class FingerprintTest(Base):

    def test_value_not_bytes(self):
        # F-FP-2
        a = journal(b'{"event_id":"e0","session_id":"s","sequence":0,"type":"t","payload":'
                    b'{"x":"\xc3\xa9/\xf0\x9f\x98\x80"},"provenance":{"run_id":"r"}}')
        b = journal(b' { "provenance" : { "run_id" : "r" } , "payload":{"x":"\\u00e9\\/\\ud83d\\ude00"},'
                    b'"type":"t","sequence":0,"session_id":"s","event_id":"e0"}\t')
        self.assertEqual(jr.op_fingerprint(a), jr.op_fingerprint(b))
        c = a.replace(b'"sequence":0', b'"sequence":0,"n":1')
        d = a.replace(b'"sequence":0', b'"sequence":0,"n":1.0')
        self.assertNotEqual(jr.op_fingerprint(c), jr.op_fingerprint(d))
        e = a.replace(b'"sequence":0', b'"sequence":-0')
        self.assertEqual(jr.op_fingerprint(a), jr.op_fingerprint(e))

    def test_hex_and_until(self):
        data = journal(ev(0), ev(1), ev(2))
        fp = jr.op_fingerprint(data)
        self.assertRegex(fp, r"^[0-9a-f]{64}$")
        self.assertEqual(fp, jr.op_fingerprint(data, until=2))
        one = hashlib.sha256(b"[" + jr.op_canonical(ev(0)).encode() + b"]").hexdigest()
        self.assertEqual(jr.op_fingerprint(data, until=0), one)
        self.assertEqual(jr.op_replay(data, until=1)["fingerprint"], jr.op_fingerprint(data, until=1))


# ---------------------------------------------------------------- operations (8, 9)

class OperationTest(Base):

    DATA = journal(ev(0), ev(1), ev(2))

    def test_out_of_range(self):
        # O-RANGE-1: sequence = N when it fits in 64 bits, no line
        for op in ({"op": "replay", "until": 3}, {"op": "fingerprint", "until": 3},
                   {"op": "branch", "at": 3, "branch_id": "b"}):
            with self.subTest(op=op):
                e = self.assertError(op, self.DATA, "sequence_out_of_range", line=None, sequence=3)
                self.assertIsNone(e["event_id"])
        self.assertError({"op": "replay", "until": -1}, self.DATA, "sequence_out_of_range", sequence=-1)
        self.assertError({"op": "branch", "at": -1, "branch_id": "b"}, self.DATA,
                         "sequence_out_of_range", sequence=-1)
        self.assertError({"op": "replay", "until": 2 ** 63 - 1}, self.DATA, "sequence_out_of_range",
                         sequence=2 ** 63 - 1)
        self.assertError({"op": "replay", "until": 2 ** 63}, self.DATA, "sequence_out_of_range",
                         sequence=None)
        self.assertError({"op": "replay", "until": -2 ** 63}, self.DATA, "sequence_out_of_range",
                         sequence=-2 ** 63)
        self.assertError({"op": "replay", "until": 10 ** 40}, self.DATA, "sequence_out_of_range",
                         sequence=None)

    def test_journal_errors_first(self):
        # O-ORDER-1
        bad = journal(ev(0), ev(2))
        self.assertError({"op": "replay", "until": 99}, bad, "sequence_gap", line=2)
        self.assertError({"op": "branch", "at": 99, "branch_id": " "}, bad, "sequence_gap", line=2)
        self.assertError({"op": "branch", "at": 99, "branch_id": ""}, self.DATA, "invalid_branch_id",
                         line=None, sequence=None)

    def test_branch_ids(self):
        # B-ID-1, B-ID-2
        for bid in ("", " ", "\t\n\r\x0b\x0c", "\u3000", "\x1c\x1d\x1e\x1f", "\x85", "\xa0",
                    "\u2028\u2029", "\u1680\u2000\u200a\u202f\u205f"):
            with self.subTest(bid=bid):
                self.assertError({"op": "branch", "at": 0, "branch_id": bid}, self.DATA,
                                 "invalid_branch_id")
        for bid in (" x ", "\u200b", "\ufeff", "\x00", "-", "\u180e"):
            with self.subTest(bid=bid):
                r = jr.op_branch(self.DATA, at=1, branch_id=bid)
                self.assertEqual(r["branch_id"], bid)

    def test_branch_whitespace_is_isspace(self):
        # B-ID-2 says: exactly Python's str.isspace()
        for cp in range(0x110000):
            ch = chr(cp)
            self.assertEqual(ch in jr._BRANCH_SPACE, ch.isspace(), hex(cp))

    def test_branch_record(self):
        r = self.assertResult({"op": "branch", "at": 1, "branch_id": "b"}, self.DATA, {
            "branch_id": "b", "parent_session_id": "s1", "parent_run_id": "r1", "fork_sequence": 1,
            "inherited_event_ids": ["e0", "e1"],
            "parent_fingerprint": jr.op_fingerprint(self.DATA, until=1)})
        self.assertEqual(r["parent_fingerprint"], jr.op_replay(self.DATA, until=1)["fingerprint"])

    def test_validate_and_canonical(self):
        self.assertResult(V, self.DATA, {"event_count": 3})
        self.assertResult(CANON, b' {"b" : 1 , "a" : [ ] } \n', '{"a":[],"b":1}')
        # canonical input is ONE JSON text, not JSONL
        self.assertError(CANON, journal(ev(0), ev(1)), "invalid_json", line=2)

    def test_malformed_operations(self):
        for op in ({"op": "replay", "until": 1.0}, {"op": "replay", "until": "1"},
                   {"op": "replay", "until": True}, {"op": "replay", "until": None},
                   {"op": "branch", "at": 0}, {"op": "branch", "branch_id": "b"},
                   {"op": "branch", "at": 0, "branch_id": 5}, {"op": "validate", "until": 0},
                   {"op": "nope"}, {}, ["validate"]):
            with self.subTest(op=op):
                with self.assertRaises(jr.OperationError):
                    run(op, self.DATA)
        with self.assertRaises(jr.OperationError):
            run(V, self.DATA, profile="trace-0.2")

    def test_streaming_from_file_object(self):
        import io
        self.assertEqual(jr.op_validate(io.BytesIO(self.DATA)), {"event_count": 3})


# ---------------------------------------------------------------- adapter (section 13)

ADAPTER = [sys.executable, os.path.join(HERE, "adapter.py")]


class AdapterTest(unittest.TestCase):

    def talk(self, messages):
        text = b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n"
                        for m in messages)
        proc = subprocess.run(ADAPTER, input=text, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return [json.loads(line) for line in proc.stdout.split(b"\n") if line], proc

    def test_persistent_protocol(self):
        data, expect = load_golden("s07-session-replay")
        b64 = base64.b64encode(data).decode()
        msgs = [{"cmd": "start", "protocol": 1}]
        for i, check in enumerate(expect["checks"], 1):
            msgs.append({"cmd": "run", "id": i, "op": check["op"], "profile": "trace-0.1",
                         "input_base64": b64})
        msgs += [
            {"cmd": "run", "id": 100, "op": {"op": "validate"}, "profile": "core",
             "input_base64": base64.b64encode(b"\xef\xbb\xbf{}\n").decode()},
            {"cmd": "run", "id": 101, "op": {"op": "teleport"}, "profile": "core", "input_base64": ""},
            {"cmd": "run", "id": 102, "op": {"op": "validate"}, "profile": "trace-9", "input_base64": ""},
            {"cmd": "run", "id": 103, "op": {"op": "validate"}, "profile": "core", "input_base64": "%%"},
            b"this is not json",
            {"cmd": "run", "id": 104, "op": {"op": "replay", "until": 1}, "profile": "core",
             "input_base64": base64.b64encode(journal(ev(0), ev(1))).decode()},
            {"cmd": "run", "id": 105, "op": {"op": "canonical"}, "profile": "core",
             "input_base64": base64.b64encode(b"[1e16, -0, 1.0]").decode()},
            {"cmd": "stop"},
            {"cmd": "run", "id": 999, "op": {"op": "validate"}, "input_base64": ""},
        ]
        replies, _ = self.talk(msgs)
        hello = replies[0]
        self.assertEqual(hello["protocol"], 1)
        self.assertEqual(hello["implementation"]["name"], "journal-ref-python")
        self.assertEqual(hello["implementation"]["language"], "python")
        self.assertEqual(hello["operations"], ["validate", "replay", "fingerprint", "branch", "canonical",
                                              "tree_inspect", "tree_apply", "store_apply"])
        self.assertEqual(hello["profiles"], ["core", "trace-0.1"])
        by_id = {r.get("id"): r for r in replies[1:]}
        for i, check in enumerate(expect["checks"], 1):
            self.assertEqual(jr.canonical_text(by_id[i]["result"]), jr.canonical_text(check["expect"]))
        self.assertEqual(by_id[100]["error"]["code"], "unexpected_bom")
        self.assertEqual(by_id[100]["error"]["line"], 1)
        self.assertEqual(by_id[101], {"id": 101, "unsupported": True})
        self.assertEqual(by_id[102], {"id": 102, "unsupported": True})
        self.assertIn("error", by_id[103])
        self.assertIn("error", by_id[None])
        self.assertEqual(by_id[104]["result"]["applied_sequences"], [0, 1])
        self.assertEqual(by_id[105]["result"], "[1e+16,0,1.0]")
        self.assertNotIn(999, by_id)   # stopped before it
        self.assertEqual(len(replies), 1 + len(expect["checks"]) + 7)

    def test_persistent_eof_exits_cleanly(self):
        replies, _ = self.talk([{"cmd": "start", "protocol": 1}])
        self.assertEqual(len(replies), 1)

    def oneshot(self, args, data):
        return subprocess.run(ADAPTER + args, input=data, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=60)

    def test_oneshot(self):
        data, _ = load_golden("s07-session-replay")
        p = self.oneshot(["replay", "--until", "4"], data)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["fingerprint"],
                         "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e")
        p = self.oneshot(["branch", "--at", "2", "--branch-id", "b", "--profile", "trace-0.1"], data)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["inherited_event_ids"], ["evt-000", "evt-001", "evt-002"])
        p = self.oneshot(["fingerprint"], data)
        self.assertEqual(json.loads(p.stdout), jr.op_fingerprint(data))
        p = self.oneshot(["validate"], b"\n")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(json.loads(p.stdout)["code"], "blank_line")
        p = self.oneshot(["replay", "--until", "-7"], data)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(json.loads(p.stdout)["sequence"], -7)
        p = self.oneshot(["canonical"], b'{"b":1,"a":2}')
        self.assertEqual((p.returncode, json.loads(p.stdout)), (0, '{"a":2,"b":1}'))
        self.assertEqual(self.oneshot(["teleport"], b"").returncode, 3)
        self.assertEqual(self.oneshot(["validate", "--profile", "trace-9"], b"").returncode, 3)
        self.assertEqual(self.oneshot(["replay", "--until", "x"], data).returncode, 2)
        self.assertEqual(self.oneshot(["branch", "--at", "1"], data).returncode, 2)


if __name__ == "__main__":
    unittest.main()
