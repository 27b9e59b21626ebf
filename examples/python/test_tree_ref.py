"""Tests for tree_ref (SPEC.md section 15) and its adapter wiring.

Run:  python3 -m unittest discover -s examples/python

Every expected value below was derived by hand from SPEC.md section 15 (the
rule ids name the rule each case relies on); none comes from the Rust
reference or the conformance vectors.
"""

import base64
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import journal_ref as jr  # noqa: E402
import tree_ref as tr  # noqa: E402

U64_MAX = 18446744073709551615
INSPECT = {"op": "tree_inspect"}


def line(**members):
    """One entry line (bytes, no newline), members in the order given."""
    return json.dumps(members, ensure_ascii=False).encode("utf-8")


def tree_file(*lines):
    return b"\n".join(lines) + b"\n"


def apply_op(*steps):
    return {"op": "tree_apply", "ops": list(steps)}


def append(message, timestamp=0):
    return {"step": "append", "message": message, "timestamp": timestamp}


def seek(entry_id):
    return {"step": "seek", "id": entry_id}


def checkpoint(label):
    return {"step": "checkpoint", "label": label}


def seek_cp(label):
    return {"step": "seek_checkpoint", "label": label}


def append_new(history, timestamp=0):
    return {"step": "append_new", "history": history, "timestamp": timestamp}


SAVE_LOAD = {"step": "save_load"}

# A small tree:      a ── b ── c
#                      └─ d
ABCD = tree_file(
    line(id="a", message="m-a", timestamp=10),
    line(id="b", parent_id="a", message="m-b", timestamp=20),
    line(id="c", parent_id="b", message="m-c", timestamp=30, label="cp"),
    line(id="d", parent_id="a", message="m-d", timestamp=40),
)
# ... and its saved text (T-SAVE-1), written by hand
ABCD_SAVED = (
    '{"id":"a","parent_id":null,"message":"m-a","timestamp":10}\n'
    '{"id":"b","parent_id":"a","message":"m-b","timestamp":20}\n'
    '{"id":"c","parent_id":"b","message":"m-c","timestamp":30,"label":"cp"}\n'
    '{"id":"d","parent_id":"a","message":"m-d","timestamp":40}')


class Base(unittest.TestCase):

    def run_op(self, op, data):
        return tr.run_operation(op, data)

    def assertResult(self, op, data, expected):
        kind, value = self.run_op(op, data)
        self.assertEqual(kind, "result", value)
        self.assertEqual(jr.canonical_text(value), jr.canonical_text(expected))
        return value

    def assertError(self, op, data, code, line="any", sequence="any", index="absent"):
        kind, value = self.run_op(op, data)
        self.assertEqual(kind, "error", "expected %s, got result %r" % (code, value))
        self.assertEqual(value["code"], code, value)
        self.assertIsInstance(value["message"], str)
        keys = {"code", "message", "line", "column", "sequence", "event_id"}
        if index == "absent":
            self.assertEqual(set(value), keys, value)
        else:
            self.assertEqual(set(value), keys | {"index"}, value)
            self.assertEqual(value["index"], index, value)
        if line != "any":
            self.assertEqual(value["line"], line, value)
        if sequence != "any":
            self.assertEqual(value["sequence"], sequence, value)
        self.assertIsNone(value["event_id"])
        return value

    def assertStepError(self, op, data, step, code, index=None):
        """T-ERR-1: a failed step is its element of results, {"error":{"code"}} (plus
        "index" for history_diverged); the operation itself succeeds, the tree is
        unchanged by the step, and every other step still runs."""
        kind, value = self.run_op(op, data)
        self.assertEqual(kind, "result", value)
        self.assertEqual(len(value["results"]), len(op["ops"]), value)
        want = {"code": code} if index is None else {"code": code, "index": index}
        self.assertEqual(value["results"][step], {"error": want}, value)
        # the same sequence without the failed step gives the same tree
        others = [s for i, s in enumerate(op["ops"]) if i != step]
        kind2, without = self.run_op(apply_op(*others), data)
        self.assertEqual(kind2, "result", without)
        self.assertEqual(without["tree"], value["tree"])
        return value

    def load_error(self, data, code, line):
        """A load error reports its line and no sequence (T-LINE-2, T-ERR-1)."""
        for op in (INSPECT, apply_op()):
            self.assertError(op, data, code, line=line, sequence=None)

    def inspect(self, data):
        kind, value = self.run_op(INSPECT, data)
        self.assertEqual(kind, "result", value)
        return value


# ---------------------------------------------------------------- 15.1 reading

class LineTest(Base):

    def test_empty_tree(self):
        # T-ORDER-1: no entries is a valid, empty tree; T-HEAD-1 head null;
        # T-NEXT-1 counter 0 so the next id is e1; T-SAVE-1 empty string.
        empty = {"head": None, "path_ids": [], "branch_tips": [], "children": {},
                 "entry_count": 0, "labels": {}, "next_id": "e1"}
        for data in (b"", b"\n", b"\n\n\n", b" \t\r\n\r\n", b"\xc2\xa0\n\xe3\x80\x80"):
            with self.subTest(data=data):
                self.assertResult(INSPECT, data, empty)
                self.assertResult(apply_op(), data, {"results": [], "tree": ""})

    def test_white_space_set_is_the_spec_list(self):
        # T-LINE-1 lists the Unicode White_Space characters explicitly.
        listed = (list(range(0x09, 0x0E)) + [0x20, 0x85, 0xA0, 0x1680]
                  + list(range(0x2000, 0x200B)) + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000])
        self.assertEqual(sorted(ord(c) for c in tr.WHITE_SPACE), listed)
        # ... which is str.isspace() minus U+001C..U+001F (the B-ID-2 set).
        isspace = [cp for cp in range(0x110000) if chr(cp).isspace()]
        self.assertEqual(sorted(set(isspace) - set(listed)), [0x1C, 0x1D, 0x1E, 0x1F])
        self.assertEqual(sorted(set(listed) - set(isspace)), [])

    def test_every_white_space_character_is_trimmed(self):
        entry = line(id="a", message=1, timestamp=0)
        for ch in tr.WHITE_SPACE:
            if ch == "\n":
                continue
            w = ch.encode("utf-8")
            with self.subTest(cp=hex(ord(ch))):
                data = w + w + entry + w + b"\n" + w + b"\n"   # and a line of only w: skipped
                r = self.inspect(data)
                self.assertEqual((r["entry_count"], r["head"]), (1, "a"))

    def test_not_white_space_is_not_trimmed(self):
        # U+001C..U+001F are str.isspace() but not White_Space; U+200B, U+FEFF
        # (not leading), U+180E, U+00AD are not White_Space either: the line
        # keeps them and is not one JSON text.
        entry = line(id="a", message=1, timestamp=0)
        for cp in (0x1C, 0x1D, 0x1E, 0x1F, 0x200B, 0x180E, 0x00AD, 0x2060):
            ch = chr(cp).encode("utf-8")
            with self.subTest(cp=hex(cp)):
                self.load_error(entry + b"\n" + entry.replace(b'"a"', b'"b"') + ch + b"\n",
                                "invalid_json", 2)
                self.load_error(ch + b"\n", "invalid_json", 1)
        self.load_error(entry + b"\xef\xbb\xbf\n", "invalid_json", 1)    # trailing U+FEFF

    def test_split_on_lf_only(self):
        # T-LINE-1: CR, U+0085, U+2028, U+2029, VT, FF do not end a line.  Two
        # entries joined by one of them are ONE line: invalid_json at line 1.
        a = line(id="a", message=1, timestamp=0)
        b = line(id="b", message=2, timestamp=0)
        for sep in (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\x0b", b"\x0c", b"\x1e"):
            with self.subTest(sep=sep):
                self.load_error(a + sep + b, "invalid_json", 1)
        # CR inside the line between tokens is JSON whitespace
        self.assertEqual(self.inspect(b'{"id":"a",\r"message":1,\r"timestamp":0}')["head"], "a")
        # separators inside strings are content
        data = line(id="x\u2028y\r", message="p\x85q", timestamp=0)
        self.assertEqual(self.inspect(data)["head"], "x\u2028y\r")

    def test_crlf_and_final_newline(self):
        a = line(id="a", message=1, timestamp=0)
        b = line(id="b", parent_id="a", message=2, timestamp=0)
        for data in (a + b"\r\n" + b + b"\r\n", a + b"\n" + b, a + b"\r\n" + b):
            with self.subTest(data=data):
                self.assertEqual(self.inspect(data)["path_ids"], ["a", "b"])

    def test_blank_lines_count(self):
        # T-LINE-1 / T-BLANK-1: skipped, but they keep their line numbers.
        data = b"\n  \n\t\r\n" + line(id="a", message=1, timestamp=0) + b"\n\n" + b"[]\n"
        self.load_error(data, "malformed_entry", 6)

    def test_invalid_utf8(self):
        good = line(id="a", message=1, timestamp=0)
        for bad in (b'{"id":"\xff","message":1,"timestamp":0}', b"\xc0\xaf", b"\xed\xa0\x80",
                    b"\xf4\x90\x80\x80", b"\xe2\x28\xa1", b"  \xff  ", b"\xef\xbb\xbf\xff",
                    b'"\xe2\x82"', b"\x85", b"\xa0", b" \xa0 "):
            # (raw 0x85 / 0xA0 bytes are Latin-1 NEL / NBSP, not UTF-8: a
            # byte-level trimmer must not skip these lines)
            with self.subTest(bad=bad):
                # invalid UTF-8 is found before trimming/skipping and before the BOM check
                self.load_error(good + b"\n" + bad + b"\n", "invalid_utf8", 2)

    def test_bom(self):
        entry = line(id="a", message=1, timestamp=0)
        bom = b"\xef\xbb\xbf"
        self.load_error(bom + entry, "unexpected_bom", 1)
        self.load_error(entry + b"\n" + bom + entry, "unexpected_bom", 2)
        self.load_error(b"  \t" + bom + entry, "unexpected_bom", 1)          # after trimming
        self.load_error(b"\xe3\x80\x80" + bom + b"\n", "unexpected_bom", 1)  # only a BOM left
        self.load_error(bom, "unexpected_bom", 1)
        self.load_error(b'{"id":"a","message":1,"timestamp":0,"\xef\xbb\xbf":1}\n' + bom,
                        "unexpected_bom", 2)
        # U+FEFF inside a string is content
        self.assertEqual(self.inspect(line(id="\ufeff", message="\ufeff", timestamp=0))["head"],
                         "\ufeff")

    def test_json_errors(self):
        # T-LINE-2: section 3.1 codes, with the line.
        good = line(id="a", message=1, timestamp=0)
        cases = [
            (b'{"id":"b","message":1,"timestamp":0', "invalid_json"),      # torn
            (b'{"id":"b","message":NaN,"timestamp":0}', "invalid_json"),
            (b'{"id":"b","message":01,"timestamp":0}', "invalid_json"),
            (b'{"id":"b","message":1,"timestamp":0,}', "invalid_json"),
            (b'{"id":"b","message":1,"timestamp":0} {}', "invalid_json"),
            (b'{"id":"b","message":1,"timestamp":0}\xc2\xa0x', "invalid_json"),
            (b'{"id":"b","message":1,"timestamp":0,"id":"c"}', "duplicate_key"),
            (b'{"id":"b","\\u0069d":"c","message":1,"timestamp":0}', "duplicate_key"),
            (b'{"id":"b","message":"\\ud800","timestamp":0}', "lone_surrogate"),
            (b'{"id":"\\udc00","message":1,"timestamp":0}', "lone_surrogate"),
            (b'{"id":"b","message":1e400,"timestamp":0}', "number_out_of_range"),
            (b'{"id":"b","message":1,"timestamp":' + b"1" * 4301 + b"}", "number_out_of_range"),
            (b'{"id":"b","message":' + b"[" * 128 + b"]" * 128 + b',"timestamp":0}',
             "nesting_too_deep"),
        ]
        for bad, code in cases:
            with self.subTest(bad=bad[:60]):
                self.load_error(good + b"\n" + bad + b"\n", code, 2)
        # entry depth 1 + 127 nested arrays = 128: fine (C-DEPTH-1)
        ok = b'{"id":"b","message":' + b"[" * 127 + b"]" * 127 + b',"timestamp":0}'
        self.assertEqual(self.inspect(ok)["entry_count"], 1)
        # JSON literals: only the lower-case ones
        self.load_error(b'{"id":"b","message":True,"timestamp":0}', "invalid_json", 1)


class EntryTest(Base):

    def test_malformed_entry(self):
        # T-ENTRY-1
        bad = [
            b"[]", b'"a"', b"null", b"1", b"true",
            b'{"message":1,"timestamp":0}',                          # id missing
            b'{"id":1,"message":1,"timestamp":0}',                   # id not a string
            b'{"id":null,"message":1,"timestamp":0}',
            b'{"id":"a","parent_id":1,"message":1,"timestamp":0}',
            b'{"id":"a","parent_id":false,"message":1,"timestamp":0}',
            b'{"id":"a","parent_id":["x"],"message":1,"timestamp":0}',
            b'{"id":"a","timestamp":0}',                              # message missing
            b'{"id":"a","message":1}',                                # timestamp missing
            b'{"id":"a","message":1,"timestamp":-1}',
            b'{"id":"a","message":1,"timestamp":18446744073709551616}',
            b'{"id":"a","message":1,"timestamp":1.0}',
            b'{"id":"a","message":1,"timestamp":0.0}',
            b'{"id":"a","message":1,"timestamp":1e3}',
            b'{"id":"a","message":1,"timestamp":"1"}',
            b'{"id":"a","message":1,"timestamp":true}',
            b'{"id":"a","message":1,"timestamp":null}',
            b'{"id":"a","message":1,"timestamp":0,"label":1}',
            b'{"id":"a","message":1,"timestamp":0,"label":false}',
            b'{"id":"a","message":1,"timestamp":0,"label":{}}',
        ]
        for data in bad:
            with self.subTest(data=data):
                self.load_error(data, "malformed_entry", 1)

    def test_valid_entries(self):
        ok = [
            b'{"id":"","message":1,"timestamp":0}',                   # empty id is fine
            b'{"id":"a","parent_id":null,"message":null,"timestamp":0}',
            b'{"id":"a","message":{"x":[1,2.5]},"timestamp":18446744073709551615}',
            b'{"id":"a","message":1,"timestamp":-0}',                 # C-NUM-2: -0 is 0
            b'{"id":"a","message":1,"timestamp":0,"label":null}',
            b'{"id":"a","message":1,"timestamp":0,"label":""}',
            b'{"timestamp":0,"message":1,"id":"a","x":{"y":1},"children":5}',
        ]
        for data in ok:
            with self.subTest(data=data):
                self.assertEqual(self.inspect(data)["entry_count"], 1)
        # label null means no label; label "" is a label
        self.assertEqual(self.inspect(ok[4])["labels"], {})
        self.assertEqual(self.inspect(ok[5])["labels"], {"": "a"})
        # -0 is saved as 0
        self.assertResult(apply_op(), ok[3], {
            "results": [], "tree": '{"id":"a","parent_id":null,"message":1,"timestamp":0}'})

    def test_duplicate_entry_id(self):
        # T-ID-1
        a = line(id="a", message=1, timestamp=0)
        self.load_error(a + b"\n" + line(id="b", message=1, timestamp=0) + b"\n" + a,
                        "duplicate_entry_id", 3)
        self.load_error(line(id="", message=1, timestamp=0) + b"\n"
                        + line(id="", message=2, timestamp=1), "duplicate_entry_id", 2)
        # ids are compared after escape decoding, code point for code point
        self.load_error(b'{"id":"\\u00e9","message":1,"timestamp":0}\n'
                        b'{"id":"\xc3\xa9","message":1,"timestamp":0}', "duplicate_entry_id", 2)
        r = self.inspect(line(id="\u00e9", message=1, timestamp=0) + b"\n"
                         + line(id="e\u0301", message=1, timestamp=0))
        self.assertEqual(r["entry_count"], 2)                      # NFC vs NFD: different

    def test_unknown_parent(self):
        # T-PARENT-1: forward, dangling and self references
        a = line(id="a", message=1, timestamp=0)
        self.load_error(line(id="a", parent_id="b", message=1, timestamp=0) + b"\n"
                        + line(id="b", message=1, timestamp=0), "unknown_parent", 1)
        self.load_error(a + b"\n" + line(id="b", parent_id="zz", message=1, timestamp=0),
                        "unknown_parent", 2)
        self.load_error(a + b"\n" + line(id="b", parent_id="b", message=1, timestamp=0),
                        "unknown_parent", 2)
        self.load_error(a + b"\n" + line(id="b", parent_id="", message=1, timestamp=0),
                        "unknown_parent", 2)
        # the empty id is an id like any other
        r = self.inspect(line(id="", message=1, timestamp=0) + b"\n"
                         + line(id="x", parent_id="", message=1, timestamp=0))
        self.assertEqual(r["path_ids"], ["", "x"])

    def test_order_within_a_line(self):
        # T-ORDER-1: T-LINE-2, T-ENTRY-1, T-ID-1, T-PARENT-1
        a = line(id="a", message=1, timestamp=0)
        # duplicate id AND unknown parent: duplicate_entry_id
        self.load_error(a + b"\n" + line(id="a", parent_id="zz", message=1, timestamp=0),
                        "duplicate_entry_id", 2)
        # duplicate id AND malformed: malformed_entry
        self.load_error(a + b"\n" + line(id="a", message=1, timestamp=-1), "malformed_entry", 2)
        # unknown parent AND malformed: malformed_entry
        self.load_error(a + b"\n" + line(id="b", parent_id="zz", message=1), "malformed_entry", 2)
        # duplicate key AND malformed: duplicate_key
        self.load_error(b'{"id":1,"id":2}', "duplicate_key", 1)
        # a duplicate id whose parent is the earlier entry of that id: still duplicate
        self.load_error(a + b"\n" + line(id="a", parent_id="a", message=1, timestamp=0),
                        "duplicate_entry_id", 2)

    def test_first_failing_line_wins(self):
        a = line(id="a", message=1, timestamp=0)
        data = tree_file(a, line(id="b", parent_id="zz", message=1, timestamp=0),
                         b"not json", a, b"\xff")
        self.load_error(data, "unknown_parent", 2)

    def test_several_roots_and_head(self):
        # T-PARENT-1 several roots; T-HEAD-1 the last entry whatever the timestamps
        data = tree_file(line(id="r1", message=1, timestamp=900),
                         line(id="r2", message=2, timestamp=5),
                         line(id="k", parent_id="r1", message=3, timestamp=1))
        self.assertResult(INSPECT, data, {
            "head": "k", "path_ids": ["r1", "k"], "branch_tips": ["r2", "k"],
            "children": {"r1": ["k"], "r2": [], "k": []}, "entry_count": 3, "labels": {},
            "next_id": "e1"})


class NextIdTest(Base):

    def test_numbered_ids(self):
        # T-NEXT-1
        cases = {
            "e7": 7, "e007": 7, "e+7": 7, "e+007": 7, "e0": 0, "e+0": 0, "e00": 0,
            "e18446744073709551615": U64_MAX, "e+018446744073709551615": U64_MAX,
            "e" + "0" * 5000 + "5": 5,
            "e": None, "e+": None, "e-1": None, "E7": None, "e7a": None, "e++7": None,
            "e 7": None, " e7": None, "e7 ": None, "e7\n": None, "ee7": None, "e1.0": None,
            "e\u0667": None, "e\uff17": None, "e18446744073709551616": None,
            "e99999999999999999999": None, "e" + "9" * 5000: None, "x7": None, "": None,
        }
        for entry_id, n in cases.items():
            with self.subTest(entry_id=entry_id[:30]):
                self.assertEqual(tr.id_number(entry_id), n)

    def test_counter_after_load(self):
        data = tree_file(line(id="e3", message=1, timestamp=0),
                         line(id="x", message=1, timestamp=0),
                         line(id="e+10", message=1, timestamp=0),
                         line(id="e007", message=1, timestamp=0),
                         line(id="e99999999999999999999", message=1, timestamp=0),
                         line(id="E50", message=1, timestamp=0))
        self.assertEqual(self.inspect(data)["next_id"], "e11")
        self.assertResult(apply_op(append("m")), data, {
            "results": ["e11"], "tree":
            '{"id":"e3","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"x","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e+10","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e007","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e99999999999999999999","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"E50","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e11","parent_id":"E50","message":"m","timestamp":0}'})

    def test_plain_decimal_and_no_collision(self):
        # `e+7` is number 7: the next append is e8, never a second "e7"-like id
        data = line(id="e+7", message=1, timestamp=0)
        self.assertResult(apply_op(append("a"), append("b")), data, {
            "results": ["e8", "e9"], "tree":
            '{"id":"e+7","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e8","parent_id":"e+7","message":"a","timestamp":0}\n'
            '{"id":"e9","parent_id":"e8","message":"b","timestamp":0}'})
        self.assertResult(apply_op(append(1), append(2), append(3)), b"",
                          {"results": ["e1", "e2", "e3"], "tree":
                           '{"id":"e1","parent_id":null,"message":1,"timestamp":0}\n'
                           '{"id":"e2","parent_id":"e1","message":2,"timestamp":0}\n'
                           '{"id":"e3","parent_id":"e2","message":3,"timestamp":0}'})

    def test_u64_bound(self):
        near = line(id="e18446744073709551614", message=1, timestamp=0)
        self.assertEqual(self.inspect(near)["next_id"], "e18446744073709551615")
        r = self.assertResult(apply_op(append("x")), near, {
            "results": ["e18446744073709551615"], "tree":
            '{"id":"e18446744073709551614","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e18446744073709551615","parent_id":"e18446744073709551614",'
            '"message":"x","timestamp":0}'})
        full = r["tree"].encode()
        self.assertEqual(self.inspect(full)["next_id"], None)   # no next id exists
        self.assertStepError(apply_op(append("y")), full, 0, "id_space_exhausted")
        self.assertStepError(apply_op(append("x"), append("y")), near, 1, "id_space_exhausted")
        self.assertStepError(apply_op(append_new([1, 2, 3])), near, 0, "id_space_exhausted")
        # append_new that needs no new id does not exhaust anything
        self.assertResult(apply_op(append_new([1])), near, {"results": [0], "tree":
                          '{"id":"e18446744073709551614","parent_id":null,"message":1,"timestamp":0}'})


# ---------------------------------------------------------------- 15.2 operations

class StepTest(Base):

    def test_inspect_abcd(self):
        # T-OPS-1 on the a-b-c / a-d tree
        self.assertResult(INSPECT, ABCD, {
            "head": "d", "path_ids": ["a", "d"], "branch_tips": ["c", "d"],
            "children": {"a": ["b", "d"], "b": ["c"], "c": [], "d": []},
            "entry_count": 4, "labels": {"cp": "c"}, "next_id": "e1"})

    def test_library_queries(self):
        t = tr.load(ABCD)
        self.assertEqual(t.path_ids(), ["a", "d"])
        self.assertEqual(t.path_messages(), ["m-a", "m-d"])
        self.assertEqual(t.branch_tips(), ["c", "d"])
        self.assertEqual(t.children("a"), ["b", "d"])
        self.assertEqual(t.children("nope"), [])
        t.seek("c")
        self.assertEqual(t.path_messages(), ["m-a", "m-b", "m-c"])

    def test_append_after_seek_branches(self):
        # T-APPEND-1 + T-SEEK-1
        r = self.assertResult(apply_op(seek("b"), append({"k": 1}, 7)), ABCD, {
            "results": [None, "e1"],
            "tree": ABCD_SAVED + '\n{"id":"e1","parent_id":"b","message":{"k":1},"timestamp":7}'})
        t = tr.load(r["tree"].encode())
        self.assertEqual(t.children("b"), ["c", "e1"])
        self.assertEqual(t.branch_tips(), ["c", "d", "e1"])

    def test_seek_is_not_saved(self):
        # T-SEEK-1: after save_load the head is the last entry again
        self.assertResult(apply_op(seek("b"), SAVE_LOAD, append("z")), ABCD, {
            "results": [None, None, "e1"],
            "tree": ABCD_SAVED + '\n{"id":"e1","parent_id":"d","message":"z","timestamp":0}'})

    def test_unknown_entry(self):
        self.assertStepError(apply_op(append(1), seek("nope")), ABCD, 1, "unknown_entry")
        self.assertStepError(apply_op(seek("")), ABCD, 0, "unknown_entry")
        self.assertStepError(apply_op(seek("a")), b"", 0, "unknown_entry")
        # an id loaded by the append of an earlier step can be sought
        self.assertResult(apply_op(append(1), seek("a"), seek("e1")), ABCD, {
            "results": ["e1", None, None],
            "tree": ABCD_SAVED + '\n{"id":"e1","parent_id":"d","message":1,"timestamp":0}'})

    def test_checkpoint(self):
        # T-CHECKPOINT-1: the head's label, replacing any; not unique
        kind, r = self.run_op(apply_op(seek("c"), checkpoint("new"), seek("d"),
                                       checkpoint("new")), ABCD)
        self.assertEqual(kind, "result")
        self.assertEqual(r["results"], [None, None, None, None])
        lines = r["tree"].split("\n")
        self.assertEqual(lines[2], '{"id":"c","parent_id":"b","message":"m-c","timestamp":30,"label":"new"}')
        self.assertEqual(lines[3], '{"id":"d","parent_id":"a","message":"m-d","timestamp":40,"label":"new"}')
        self.assertResult(INSPECT, r["tree"].encode(), {
            "head": "d", "path_ids": ["a", "d"], "branch_tips": ["c", "d"],
            "children": {"a": ["b", "d"], "b": ["c"], "c": [], "d": []},
            "entry_count": 4, "labels": {"new": "d"}, "next_id": "e1"})
        # empty_session on an empty tree
        self.assertStepError(apply_op(checkpoint("x")), b"", 0, "empty_session")
        self.assertStepError(apply_op(checkpoint("x")), b"\n \n", 0, "empty_session")
        # the label "" is a label
        kind, r = self.run_op(apply_op(checkpoint(""), seek("a"), seek_cp("")), ABCD)
        self.assertEqual(r["tree"].split("\n")[3],
                         '{"id":"d","parent_id":"a","message":"m-d","timestamp":40,"label":""}')

    def test_seek_checkpoint_latest_in_file_order(self):
        # T-SEEKCP-1
        # label d first, then b: the latest IN FILE ORDER (d) wins, not the
        # one labelled last.
        kind, r = self.run_op(apply_op(checkpoint("x"), seek("b"), checkpoint("x"),
                                       seek("a"), seek_cp("x"), append("after")), ABCD)
        self.assertEqual(kind, "result", r)
        self.assertEqual(r["tree"].split("\n")[-1],
                         '{"id":"e1","parent_id":"d","message":"after","timestamp":0}')
        # relabelling d drops it from "x": then b wins
        kind, r = self.run_op(apply_op(checkpoint("x"), seek("b"), checkpoint("x"),
                                       seek("d"), checkpoint("y"), seek_cp("x"), append("after")),
                              ABCD)
        self.assertEqual(r["tree"].split("\n")[-1],
                         '{"id":"e1","parent_id":"b","message":"after","timestamp":0}')
        self.assertEqual(self.inspect(r["tree"].encode())["labels"],
                         {"x": "b", "y": "d", "cp": "c"})
        # a newly appended entry is the latest in file order
        kind, r = self.run_op(apply_op(append(1), checkpoint("cp"), seek("a"), seek_cp("cp"),
                                       append(2)), ABCD)
        self.assertEqual(r["results"], ["e1", None, None, None, "e2"])
        self.assertEqual(r["tree"].split("\n")[-1],
                         '{"id":"e2","parent_id":"e1","message":2,"timestamp":0}')
        self.assertStepError(apply_op(seek_cp("nope")), ABCD, 0, "unknown_checkpoint")
        self.assertStepError(apply_op(seek_cp("")), ABCD, 0, "unknown_checkpoint")
        self.assertStepError(apply_op(seek_cp("cp")), b"", 0, "unknown_checkpoint")
        # labels loaded from the file count; loaded later lines win
        data = tree_file(line(id="p", message=1, timestamp=0, label="L"),
                         line(id="q", message=1, timestamp=0, label="L"),
                         line(id="r", message=1, timestamp=0))
        self.assertEqual(self.inspect(data)["labels"], {"L": "q"})
        self.assertResult(apply_op(seek_cp("L"), append(5)), data, {
            "results": [None, "e1"], "tree":
            '{"id":"p","parent_id":null,"message":1,"timestamp":0,"label":"L"}\n'
            '{"id":"q","parent_id":null,"message":1,"timestamp":0,"label":"L"}\n'
            '{"id":"r","parent_id":null,"message":1,"timestamp":0}\n'
            '{"id":"e1","parent_id":"q","message":5,"timestamp":0}'})

    def test_append_new(self):
        # T-APPENDNEW-1; the head is d, path messages ["m-a", "m-d"]
        base = ABCD_SAVED
        self.assertEqual(tr.load(ABCD).save(), ABCD_SAVED)
        self.assertResult(apply_op(append_new(["m-a", "m-d", "n1", {"n": 2}], 99)), ABCD, {
            "results": [2], "tree": base
            + '\n{"id":"e1","parent_id":"d","message":"n1","timestamp":99}'
            + '\n{"id":"e2","parent_id":"e1","message":{"n":2},"timestamp":99}'})
        # nothing new: 0, tree unchanged
        self.assertResult(apply_op(append_new(["m-a", "m-d"])), ABCD, {"results": [0], "tree": base})
        # on an empty tree everything is new
        self.assertResult(apply_op(append_new([1, 2])), b"", {"results": [2], "tree":
                          '{"id":"e1","parent_id":null,"message":1,"timestamp":0}\n'
                          '{"id":"e2","parent_id":"e1","message":2,"timestamp":0}'})
        self.assertResult(apply_op(append_new([])), b"", {"results": [0], "tree": ""})

    def test_history_diverged(self):
        # shorter than the path: index = len(history), even if an earlier
        # element also differs (the length rule comes first)
        self.assertStepError(apply_op(append_new([])), ABCD, 0, "history_diverged", index=0)
        self.assertStepError(apply_op(append_new(["m-a"])), ABCD, 0, "history_diverged", index=1)
        self.assertStepError(apply_op(append_new(["WRONG"])), ABCD, 0, "history_diverged", index=1)
        # first differing index
        self.assertStepError(apply_op(append_new(["X", "Y", "z"])), ABCD, 0, "history_diverged", index=0)
        self.assertStepError(apply_op(append(1), append_new(["m-a", "m-d", 1.0, 5])), ABCD, 1, "history_diverged", index=2)     # 1 vs 1.0 differ
        self.assertStepError(apply_op(seek("c"), append_new(["m-a", "m-c", "m-c"])), ABCD, 1, "history_diverged", index=1)

    def test_messages_compare_by_canonical_text(self):
        data = line(id="a", message={"b": [1, "\u00e9"], "a": 1e16}, timestamp=0)
        for same in ({"a": 1e16, "b": [1, "\u00e9"]}, {"b": [1, "\u00e9"], "a": 10000000000000000.0}):
            with self.subTest(same=same):
                self.assertResult(apply_op(append_new([same])), data, {
                    "results": [0], "tree": '{"id":"a","parent_id":null,'
                    '"message":{"a":1e+16,"b":[1,"\u00e9"]},"timestamp":0}'})
        for other in ({"a": 10000000000000000, "b": [1, "\u00e9"]},      # int vs float
                      {"a": 1e16, "b": [1, "e\u0301"]},                   # NFD
                      {"a": 1e16, "b": [1.0, "\u00e9"]},
                      {"a": 1e16, "b": [1, "\u00e9"], "c": None}):
            with self.subTest(other=other):
                self.assertStepError(apply_op(append_new([other])), data, 0, "history_diverged", index=0)
        # raw escapes in the tree file vs the step: same value, same text
        esc = b'{"id":"a","message":"\\u00e9\\/\\ud83d\\ude00","timestamp":0}'
        self.assertResult(apply_op(append_new(["\u00e9/\U0001F600", "n"])), esc, {
            "results": [1], "tree": '{"id":"a","parent_id":null,"message":"\u00e9/\U0001F600","timestamp":0}\n'
            '{"id":"e1","parent_id":"a","message":"n","timestamp":0}'})

    def test_append_new_failure_appends_nothing(self):
        t = tr.load(ABCD)
        with self.assertRaises(tr.TreeError) as cm:
            t.append_new(["m-a", "zz", "new"], 0)
        self.assertEqual((cm.exception.code, cm.exception.index), ("history_diverged", 1))
        self.assertEqual(len(t.entries), 4)
        self.assertEqual(t.next_id(), "e1")

    def test_failed_steps_do_not_stop_the_sequence(self):
        # T-ERR-1: each failed step is its element of results; the others all run
        r = self.assertStepError(apply_op(append(1), append(2), seek_cp("nope"), append(3)), ABCD,
                                 2, "unknown_checkpoint")
        self.assertEqual(r["results"], ["e1", "e2", {"error": {"code": "unknown_checkpoint"}}, "e3"])
        kind, r = self.run_op(apply_op(seek("zz"), checkpoint("L"), append_new(["x"]), seek_cp("L")), ABCD)
        self.assertEqual(kind, "result", r)
        self.assertEqual(r["results"], [{"error": {"code": "unknown_entry"}}, None,
                                        {"error": {"code": "history_diverged", "index": 1}}, None])
        # the checkpoint labelled the head d (the failed seek did not move it)
        self.assertEqual(tr.load(r["tree"].encode()).inspect()["labels"], {"cp": "c", "L": "d"})

    def test_save_load_step(self):
        # T-ROUND-1 via the step: extra members are dropped, labels kept,
        # head moves to the last entry, next id kept
        data = tree_file(b'{"id":"e5","message":{"z":1,"a":[]},"timestamp":3,"extra":1,"label":"L"}',
                         b'{"id":"q","parent_id":"e5","message":"x","timestamp":4,"label":null}')
        self.assertResult(apply_op(seek("e5"), SAVE_LOAD, append("n"), seek_cp("L"), SAVE_LOAD),
                          data, {"results": [None, None, "e6", None, None], "tree":
                                 '{"id":"e5","parent_id":null,"message":{"a":[],"z":1},"timestamp":3,"label":"L"}\n'
                                 '{"id":"q","parent_id":"e5","message":"x","timestamp":4}\n'
                                 '{"id":"e6","parent_id":"q","message":"n","timestamp":0}'})


# ---------------------------------------------------------------- T-SAVE-1 bytes

class SaveTest(Base):

    def test_format(self):
        data = (b'  {"timestamp":18446744073709551615,"label":"L\\"1","message":[1.0,-0,1E2,"\\/"],'
                b'"parent_id":null,"id":"r","other":[1]}\r\n'
                b'{"message":{"b":"\\u0000\\u001f\\b\\f\\n\\r\\t\\u007f\\u2028\\ud83d\\ude00","a":null},'
                b'"id":"c\\\\\\u0001\xe2\x80\xa9","parent_id":"r","timestamp":0}\n')
        expected = (
            '{"id":"r","parent_id":null,"message":[1.0,0,100.0,"/"],"timestamp":18446744073709551615,"label":"L\\"1"}\n'
            '{"id":"c\\\\\\u0001\u2029","parent_id":"r","message":{"a":null,"b":"\\u0000\\u001f\\b\\f\\n\\r\\t\x7f\u2028\U0001F600"},"timestamp":0}')
        self.assertEqual(tr.load(data).save(), expected)
        self.assertResult(apply_op(), data, {"results": [], "tree": expected})
        # exact bytes: UTF-8, no final newline
        self.assertEqual(expected.encode("utf-8")[-1:], b"}")

    def test_one_entry_and_empty(self):
        self.assertEqual(tr.load(b"").save(), "")
        self.assertEqual(tr.load(b'{"id":"","message":"","timestamp":1}').save(),
                         '{"id":"","parent_id":null,"message":"","timestamp":1}')

    def test_append_of_a_too_deep_message(self):
        # T-APPEND-1: a message 128 deep would save as a line 129 deep, which
        # C-DEPTH-1 rejects on load: the append is refused and appends nothing.
        deep = jr.parse_text(b"[" * 128 + b"]" * 128)
        r = self.assertStepError(apply_op(append(deep), append("next")), b"", 0, "nesting_too_deep")
        self.assertEqual(r["results"][1], "e1")
        r = self.assertStepError(apply_op(append_new(["m-a", "m-d", "ok", deep])), ABCD, 0,
                                 "nesting_too_deep")
        self.assertEqual(r["tree"], ABCD_SAVED)
        ok = jr.parse_text(b"[" * 127 + b"]" * 127)
        self.assertResult(apply_op(append(ok), SAVE_LOAD), b"", {"results": ["e1", None], "tree":
                          '{"id":"e1","parent_id":null,"message":' + "[" * 127 + "]" * 127
                          + ',"timestamp":0}'})

    def test_round_trip(self):
        # T-ROUND-1
        t = tr.load(ABCD)
        t.seek("b")
        t.append({"x": [1, 2.5, None]}, 5)
        t.checkpoint("mid")
        t.seek("c")
        t.checkpoint("cp2")
        text = t.save()
        u = tr.load(text.encode("utf-8"))
        self.assertEqual(u.save(), text)
        self.assertEqual([(e.id, e.parent_id, jr.canonical_text(e.message), e.timestamp, e.label)
                          for e in u.entries],
                         [(e.id, e.parent_id, jr.canonical_text(e.message), e.timestamp, e.label)
                          for e in t.entries])
        self.assertEqual(u.next_id(), t.next_id())
        self.assertEqual(u.head.id, u.entries[-1].id)
        self.assertNotEqual(t.head.id, u.head.id)


# ---------------------------------------------------------------- operation objects

class OperationTest(Base):

    def test_malformed_operations(self):
        for op in ({"op": "tree_apply"}, {"op": "tree_apply", "ops": {}},
                   {"op": "tree_inspect", "ops": []}, {"op": "tree_apply", "ops": [], "x": 1},
                   apply_op({"step": "jump"}), apply_op({"id": "a"}), apply_op("seek"),
                   apply_op({"step": "seek"}), apply_op({"step": "seek", "id": 1}),
                   apply_op({"step": "seek", "id": "a", "x": 1}),
                   apply_op({"step": "append", "message": 1}),
                   apply_op(append(1, -1)), apply_op(append(1, U64_MAX + 1)), apply_op(append(1, 1.0)),
                   apply_op(append(1, True)), apply_op(checkpoint(None)), apply_op(seek_cp(3)),
                   apply_op({"step": "append_new", "history": "x", "timestamp": 0}),
                   apply_op({"step": "save_load", "x": 1}), {"op": "validate"}):
            with self.subTest(op=op):
                with self.assertRaises(jr.OperationError):
                    tr.run_operation(op, ABCD)

    def test_error_object(self):
        kind, r = tr.run_operation(apply_op(append_new(["m-a"])), ABCD)
        self.assertEqual((kind, r["results"]), ("result", [{"error": {"code": "history_diverged", "index": 1}}]))
        kind, e = tr.run_operation(INSPECT, b"{}\n\xff")
        self.assertEqual(e, {"code": "malformed_entry", "message": e["message"], "line": 1,
                             "column": None, "sequence": None, "event_id": None})
        kind, e = tr.run_operation(INSPECT, b'\n  {"id":"a","message":1,"timestamp":0}  x')
        self.assertEqual((e["code"], e["line"], e["column"]), ("invalid_json", 2, 41))


# ---------------------------------------------------------------- adapter

ADAPTER = [sys.executable, os.path.join(HERE, "adapter.py")]


class AdapterTreeTest(unittest.TestCase):

    def test_persistent(self):
        b64 = base64.b64encode(ABCD).decode()
        msgs = [
            {"cmd": "start", "protocol": 1},
            {"cmd": "run", "id": 1, "op": INSPECT, "profile": "core", "input_base64": b64},
            {"cmd": "run", "id": 2, "op": apply_op(seek("b"), append("x", 1)), "profile": "core",
             "input_base64": b64},
            {"cmd": "run", "id": 3, "op": apply_op(append(1), append_new(["m-a"])),
             "profile": "core", "input_base64": b64},
            {"cmd": "run", "id": 4, "op": INSPECT, "profile": "core",
             "input_base64": base64.b64encode(b"\n\n{}").decode()},
            {"cmd": "run", "id": 5, "op": apply_op(seek("zz")), "profile": "core",
             "input_base64": b64},
            # a message nested 127 deep inside a step (depth 131 in the request)
            {"cmd": "run", "id": 6, "op": apply_op(append("@@")), "profile": "core",
             "input_base64": ""},
            {"cmd": "stop"},
        ]
        text = b"".join(json.dumps(m).encode() + b"\n" for m in msgs)
        text = text.replace(b'"@@"', b"[" * 127 + b"]" * 127)
        proc = subprocess.run(ADAPTER, input=text, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        replies = [json.loads(x) for x in proc.stdout.split(b"\n") if x]
        self.assertEqual(replies[0]["operations"], ["validate", "replay", "fingerprint", "branch",
                                                    "canonical", "tree_inspect", "tree_apply",
                                                    "store_apply"])
        by_id = {r["id"]: r for r in replies[1:]}
        self.assertEqual(by_id[1]["result"]["labels"], {"cp": "c"})
        self.assertEqual(by_id[2]["result"]["results"], [None, "e1"])
        self.assertEqual(by_id[3]["result"]["results"],
                         ["e1", {"error": {"code": "history_diverged", "index": 1}}])
        self.assertEqual((by_id[4]["error"]["code"], by_id[4]["error"]["line"]), ("malformed_entry", 3))
        self.assertNotIn("index", by_id[4]["error"])
        self.assertEqual(by_id[5]["result"]["results"], [{"error": {"code": "unknown_entry"}}])
        self.assertEqual(by_id[6]["result"]["tree"],
                         '{"id":"e1","parent_id":null,"message":' + "[" * 127 + "]" * 127
                         + ',"timestamp":0}')

    def oneshot(self, args, data):
        return subprocess.run(ADAPTER + args, input=data, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=60)

    def test_oneshot(self):
        p = self.oneshot(["tree_inspect", "--profile", "core"], ABCD)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["branch_tips"], ["c", "d"])
        ops = json.dumps([seek("c"), append("hi", 3)], separators=(",", ":"))
        p = self.oneshot(["tree_apply", "--ops", ops, "--profile", "core"], ABCD)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["results"], [None, "e1"])
        p = self.oneshot(["tree_apply", "--ops", json.dumps([append_new([])])], ABCD)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["results"], [{"error": {"code": "history_diverged", "index": 0}}])
        p = self.oneshot(["tree_apply", "--ops", "[]"], b"\xff")
        self.assertEqual((p.returncode, json.loads(p.stdout)["code"]), (1, "invalid_utf8"))
        self.assertEqual(self.oneshot(["tree_apply", "--ops", "[nope"], ABCD).returncode, 2)
        self.assertEqual(self.oneshot(["tree_apply"], ABCD).returncode, 2)
        self.assertEqual(self.oneshot(["tree_inspect", "--profile", "trace-9"], ABCD).returncode, 3)


if __name__ == "__main__":
    unittest.main()
