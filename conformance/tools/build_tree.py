#!/usr/bin/env python3
"""Build the session-tree vectors (conformance/tree/*.json): `python3 conformance/tools/build_tree.py`.

Expected results come from tree_oracle.py (yoagent's Session semantics in Python, with
json.dumps as the canonical-JSON oracle); expected errors are written by hand from the
SPEC.md rule each case breaks. Deterministic.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tree_oracle as T  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tree")
FILES = {}


def entry(i, parent, msg, ts, label=None, **extra):
    e = {"id": i, "parent_id": parent, "message": msg, "timestamp": ts}
    if label is not None:
        e["label"] = label
    e.update(extra)
    return json.dumps(e, ensure_ascii=False, separators=(",", ":"))


# The rule of each tree error code (SPEC.md 15: T-ENTRY-1 .. T-NEXT-1; the wire and JSON
# codes of a tree line are T-LINE-2's).
CODE_RULE = {"malformed_entry": "T-ENTRY-1", "duplicate_entry_id": "T-ID-1", "unknown_parent": "T-PARENT-1",
             "unknown_entry": "T-SEEK-1", "empty_session": "T-CHECKPOINT-1", "unknown_checkpoint": "T-SEEKCP-1",
             "history_diverged": "T-APPENDNEW-1", "id_space_exhausted": "T-NEXT-1"}


def implied_rules(checks):
    """The rules a check's expectation names by its shape: every tree_apply result holds the
    saved tree (T-SAVE-1); every expected error, of the load or of a step, is its code's rule
    (a step's nesting_too_deep is T-APPEND-1's depth check)."""
    out = []
    for ch in checks:
        e = ch["expect"]
        if "error" in e:
            out.append(CODE_RULE.get(e["error"]["code"], "T-LINE-2"))
        elif ch["op"]["op"] == "tree_apply":
            out.append("T-SAVE-1")
            for r in e["result"]["results"]:
                if isinstance(r, dict) and "error" in r:
                    out.append(CODE_RULE.get(r["error"]["code"], "T-APPEND-1"))
    return out


def add(group, name, desc, rules, text, checks, tags=None):
    rules = list(rules) + [r for r in dict.fromkeys(implied_rules(checks)) if r not in rules]
    case = {"name": name, "description": desc, "rules": rules}
    if tags:
        case["tags"] = tags
    if isinstance(text, bytes):
        try:
            case["input"] = text.decode("utf-8")
        except UnicodeDecodeError:
            import base64
            case["input_base64"] = base64.b64encode(text).decode()
    else:
        case["input"] = text
    case["checks"] = checks
    FILES.setdefault(group, []).append(case)


def inspect_ok(group, name, desc, rules, text, tags=None):
    add(group, name, desc, rules, text, [{"op": {"op": "tree_inspect"}, "expect": {"result": T.Tree.load(text).inspect()}}], tags)


def load_err(name, desc, rules, text, code, line):
    add("tree/load", name, desc, rules, text, [{"op": {"op": "tree_inspect"}, "expect": {"error": {"code": code, "line": line}}}])


def ops_ok(name, desc, rules, text, steps, tags=None):
    add("tree/ops", name, desc, rules, text,
        [{"op": {"op": "tree_apply", "ops": steps}, "expect": {"result": T.apply(text, steps)}}], tags)


def ops_fail(name, desc, rules, text, steps, failures, tags=None):
    """A sequence with failing steps (T-ERR-1). `failures` maps each failing step's index
    to its hand-derived error (`code`, or `(code, index)` for history_diverged); the
    oracle must agree, and every other step must succeed. The expected result (the
    failed steps' elements, the other steps' results and the final tree) is the oracle's."""
    want = {i: ({"code": f} if isinstance(f, str) else {"code": f[0], "index": f[1]}) for i, f in failures.items()}
    result = T.apply(text, steps)
    got = {i: r["error"] for i, r in enumerate(result["results"]) if isinstance(r, dict) and "error" in r}
    assert got == want, (name, got, want)
    assert min(want) < len(steps) - 1, (name, "a failing step must be followed by another step")
    add("tree/ops", name, desc, rules, text, [{"op": {"op": "tree_apply", "ops": steps}, "expect": {"result": result}}], tags)


U = lambda s: {"role": "user", "content": s}  # noqa: E731
A = lambda s: {"role": "assistant", "content": s}  # noqa: E731
forked = "\n".join([
    entry("e1", None, U("draft a plan"), 1000),
    entry("e2", "e1", A("plan A"), 1001, "first-draft"),
    entry("e3", "e2", U("more detail"), 1002),
    entry("e4", "e2", U("make it a library"), 1003),
    entry("e5", "e4", A("library plan"), 1004),
])

# ---- load: valid ----------------------------------------------------------------------
inspect_ok("tree/load", "seed-example", "The seed's flow: a checkpoint, a fork after it, two tips.",
           ["T-HEAD-1", "T-TIPS-1", "T-PATH-1", "T-NEXT-1"], forked)
inspect_ok("tree/load", "empty-file", "An empty file is an empty tree: no head, next id e1.", ["T-ORDER-1", "T-NEXT-1"], "")
inspect_ok("tree/load", "only-blank-lines", "Blank and whitespace-only lines are skipped.", ["T-BLANK-1"], "\n  \n\t\n")
inspect_ok("tree/load", "blank-lines-between", "Blank lines between entries are skipped.", ["T-BLANK-1", "T-LINE-1"],
           entry("e1", None, "a", 1) + "\n\n   \n" + entry("e2", "e1", "b", 2) + "\n")
inspect_ok("tree/load", "crlf", "CRLF line ends are trimmed.", ["T-LINE-1"], forked.replace("\n", "\r\n") + "\r\n", tags=["crlf"])
inspect_ok("tree/load", "unicode-space-trim", "Lines are trimmed of Unicode White_Space (NBSP, ideographic space, U+2028).", ["T-LINE-1"],
           "\u00a0\u3000" + entry("e1", None, "a", 1) + "\u2028\u0085\n", tags=["unicode"])
inspect_ok("tree/load", "final-newline", "A final newline is optional on input.", ["T-LINE-1"], forked + "\n")
inspect_ok("tree/load", "multiple-roots", "Several roots are allowed.", ["T-PARENT-1", "T-TIPS-1"],
           "\n".join([entry("e1", None, "a", 1), entry("e2", None, "b", 2), entry("e3", "e1", "c", 3)]))
inspect_ok("tree/load", "parent-id-missing", "A missing parent_id reads as a root.", ["T-ENTRY-1"],
           '{"id":"e1","message":"m","timestamp":0}\n{"id":"e2","message":"n","timestamp":0}')
inspect_ok("tree/load", "label-null", "label null means no label.", ["T-ENTRY-1"], '{"id":"e1","parent_id":null,"message":1,"timestamp":5,"label":null}')
inspect_ok("tree/load", "extra-fields-ignored", "Unknown members are allowed on load.", ["T-ENTRY-1"],
           entry("e1", None, "m", 1, x_meta={"k": 1}, uuid="abc"))
inspect_ok("tree/load", "message-any-json", "A message may be any JSON value, null included.", ["T-ENTRY-1"],
           "\n".join([entry("e1", None, None, 1), entry("e2", "e1", [1, 2.5, {"x": True}], 2), entry("e3", "e2", "text", 3)]))
inspect_ok("tree/load", "head-by-file-order", "The head is the last line, not the latest timestamp.", ["T-HEAD-1"],
           "\n".join([entry("e1", None, "a", 99999), entry("e2", "e1", "b", 1)]))
inspect_ok("tree/load", "non-numbered-ids", "Ids that are not e<N> (8-hex like pi's) leave the counter at 0.", ["T-NEXT-1"],
           "\n".join([entry("a1b2c3d4", None, "a", 1), entry("E7", "a1b2c3d4", "b", 2), entry("e", "E7", "c", 3),
                      entry("e-1", "e", "d", 4), entry("e7a", "e-1", "e", 5), entry("", "e7a", "empty id", 6)]))
inspect_ok("tree/load", "numbered-id-forms", "e007 and e+7 are number 7; the largest number seeds the counter.", ["T-NEXT-1"],
           "\n".join([entry("e007", None, "a", 1), entry("e+9", "e007", "b", 2), entry("e3", "e+9", "c", 3)]))
inspect_ok("tree/load", "numbered-id-u64-max", "e18446744073709551615 exhausts the id space: next_id is null.", ["T-NEXT-1"],
           entry("e18446744073709551615", None, "a", 1))
inspect_ok("tree/load", "numbered-id-beyond-u64", "e18446744073709551616 is not numbered.", ["T-NEXT-1"],
           entry("e18446744073709551616", None, "a", 1) + "\n" + entry("e4", None, "b", 2))
inspect_ok("tree/load", "labels-latest-wins", "A label on several entries maps to the latest in file order.", ["T-SEEKCP-1", "T-OPS-1"],
           "\n".join([entry("e1", None, "a", 1, "x"), entry("e2", "e1", "b", 2, "x"), entry("e3", "e1", "c", 3, "y")]))
inspect_ok("tree/load", "timestamp-u64-max", "Timestamps span all of u64.", ["T-ENTRY-1"], entry("e1", None, "a", 2 ** 64 - 1))
inspect_ok("tree/load", "siblings-order", "Children are listed in file order.", ["T-TIPS-1"],
           "\n".join([entry("r", None, "r", 1)] + [entry("c%d" % k, "r", k, k) for k in (3, 1, 2)]))
deep = "\n".join([entry("e1", None, 0, 0)] + [entry("e%d" % k, "e%d" % (k - 1), k, k) for k in range(2, 2001)])
inspect_ok("tree/load", "deep-chain", "A 2000-entry chain: path_ids walks it all.", ["T-PATH-1"], deep, tags=["large"])

inspect_ok("tree/load", "vt-ff-trimmed", "U+000B and U+000C are White_Space and are trimmed.", ["T-LINE-1"],
           "\x0b\x0c" + entry("e1", None, "a", 1) + "\x0c\x0b\n\x0b\n")
inspect_ok("tree/load", "id-e-plus-alone", "The id `e+` has no digits: not numbered.", ["T-NEXT-1"], entry("e+", None, "a", 1))
inspect_ok("tree/load", "id-double-plus", "One optional `+` only: e++7 is not numbered (a parser of `+7` as an unsigned integer would make it 7).",
           ["T-NEXT-1"], entry("e++7", None, "a", 1) + "\n" + entry("e2", "e++7", "b", 2))
inspect_ok("tree/load", "id-many-leading-zeros", "e followed by 5000 zeros and 5 is number 5.", ["T-NEXT-1"],
           entry("e" + "0" * 5000 + "5", None, "a", 1))

# ---- load: errors ---------------------------------------------------------------------
load_err("invalid-json", "A line that is not JSON, reported at its physical line.", ["T-LINE-2", "T-LINE-1"],
         entry("e1", None, "a", 1) + "\n\n{not json}\n", "invalid_json", 3)
load_err("torn-last-line", "A torn last line.", ["T-LINE-2"], forked[:-20], "invalid_json", 5)
load_err("bom", "A BOM before the first entry.", ["T-LINE-2"], "\ufeff" + forked, "unexpected_bom", 1)
load_err("bom-after-space", "A BOM after leading whitespace (the line is trimmed first).", ["T-LINE-2", "T-LINE-1"], " \ufeff" + forked, "unexpected_bom", 1)
load_err("control-char-not-trimmed", "U+001F is not White_Space: it is not trimmed and breaks the JSON.", ["T-LINE-1", "T-LINE-2"],
         entry("e1", None, "a", 1) + "\x1f", "invalid_json", 1)
add("tree/load", "invalid-utf8", "A line that is not UTF-8.", ["T-LINE-2"], entry("e1", None, "a", 1).encode() + b"\n\xff\n",
    [{"op": {"op": "tree_inspect"}, "expect": {"error": {"code": "invalid_utf8", "line": 2}}}])
add("tree/load", "raw-nel-byte-line", "A line that is the single byte 0x85 is not UTF-8 (a byte-wise trimmer would skip it).", ["T-LINE-2", "T-LINE-1"],
    entry("e1", None, "a", 1).encode() + b"\n\x85\n", [{"op": {"op": "tree_inspect"}, "expect": {"error": {"code": "invalid_utf8", "line": 2}}}])
add("tree/load", "raw-nbsp-byte-line", "A line that is the single byte 0xA0 is not UTF-8.", ["T-LINE-2"],
    b"\xa0\n" + entry("e1", None, "a", 1).encode(), [{"op": {"op": "tree_inspect"}, "expect": {"error": {"code": "invalid_utf8", "line": 1}}}])
load_err("leading-file-separator", "A leading U+001C is not White_Space: not trimmed, not JSON.", ["T-LINE-1", "T-LINE-2"],
         "\x1c" + entry("e1", None, "a", 1), "invalid_json", 1)
load_err("duplicate-key", "An entry with a duplicate key.", ["T-LINE-2"], '{"id":"e1","id":"e2","message":1,"timestamp":1}', "duplicate_key", 1)
for name, line_text, desc in [
    ("not-object", "[1,2]", "an array"),
    ("id-missing", '{"parent_id":null,"message":1,"timestamp":1}', "no id"),
    ("id-number", '{"id":1,"message":1,"timestamp":1}', "a numeric id"),
    ("id-null", '{"id":null,"message":1,"timestamp":1}', "a null id"),
    ("parent-number", '{"id":"e1","parent_id":0,"message":1,"timestamp":1}', "a numeric parent_id"),
    ("message-missing", '{"id":"e1","timestamp":1}', "no message"),
    ("timestamp-missing", '{"id":"e1","message":1}', "no timestamp"),
    ("timestamp-float", '{"id":"e1","message":1,"timestamp":1.5}', "a float timestamp"),
    ("timestamp-integral-float", '{"id":"e1","message":1,"timestamp":1.0}', "the float 1.0 as timestamp"),
    ("timestamp-negative", '{"id":"e1","message":1,"timestamp":-1}', "a negative timestamp"),
    ("timestamp-too-big", '{"id":"e1","message":1,"timestamp":18446744073709551616}', "a timestamp beyond u64"),
    ("timestamp-string", '{"id":"e1","message":1,"timestamp":"2026-01-01T00:00:00Z"}', "an ISO string timestamp"),
    ("label-number", '{"id":"e1","message":1,"timestamp":1,"label":7}', "a numeric label"),
]:
    load_err("malformed-" + name, "An entry with %s is malformed." % desc, ["T-ENTRY-1"], entry("e0", None, "ok", 0) + "\n" + line_text, "malformed_entry", 2)
load_err("duplicate-id", "The same id twice.", ["T-ID-1"], forked + "\n" + entry("e3", "e1", "again", 5), "duplicate_entry_id", 6)
load_err("forward-parent", "A parent that appears later.", ["T-PARENT-1"],
         "\n".join([entry("e1", None, "a", 1), entry("e2", "e3", "b", 2), entry("e3", "e1", "c", 3)]), "unknown_parent", 2)
load_err("dangling-parent", "A parent that never appears (an orphan).", ["T-PARENT-1"], entry("e1", "e0", "a", 1), "unknown_parent", 1)
load_err("self-parent", "An entry that is its own parent (would hang a path walk).", ["T-PARENT-1"], entry("e1", "e1", "a", 1), "unknown_parent", 1)
load_err("cycle", "A two-entry cycle needs a forward reference.", ["T-PARENT-1"],
         "\n".join([entry("a", "b", 1, 1), entry("b", "a", 2, 2)]), "unknown_parent", 1)
load_err("duplicate-before-parent", "A duplicate id is reported before its unknown parent.", ["T-ORDER-1", "T-ID-1"],
         "\n".join([entry("e1", None, "a", 1), entry("e1", "zz", "b", 2)]), "duplicate_entry_id", 2)
load_err("malformed-before-duplicate", "T-ENTRY-1 comes before T-ID-1.", ["T-ORDER-1", "T-ENTRY-1"],
         "\n".join([entry("e1", None, "a", 1), '{"id":"e1","message":1,"timestamp":-5}']), "malformed_entry", 2)
load_err("first-bad-line-wins", "The first bad line in file order is reported.", ["T-ORDER-1"],
         "\n".join([entry("e1", "nope", "a", 1), "{bad"]), "unknown_parent", 1)

# ---- ops ------------------------------------------------------------------------------
ops_ok("append-empty", "Appending to an empty tree makes root e1 and moves the head.", ["T-APPEND-1", "T-SAVE-1"], "",
       [{"step": "append", "message": U("hello"), "timestamp": 1}, {"step": "append", "message": A("hi"), "timestamp": 2}])
ops_ok("seek-then-append-forks", "Appending after a seek creates a branch; history is never overwritten.", ["T-SEEK-1", "T-APPEND-1"], forked,
       [{"step": "seek", "id": "e1"}, {"step": "append", "message": A("plan B"), "timestamp": 2000}])
ops_ok("seed-flow", "The seed's flow: append, checkpoint, more, seek_checkpoint, append on a new branch.",
       ["T-CHECKPOINT-1", "T-SEEKCP-1", "T-APPEND-1"], "",
       [{"step": "append_new", "history": [U("draft a plan"), A("plan A")], "timestamp": 1},
        {"step": "checkpoint", "label": "first-draft"},
        {"step": "append_new", "history": [U("draft a plan"), A("plan A"), U("more"), A("more plan")], "timestamp": 2},
        {"step": "seek_checkpoint", "label": "first-draft"},
        {"step": "append_new", "history": [U("draft a plan"), A("plan A"), U("actually, make it a library")], "timestamp": 3}])
ops_ok("checkpoint-relabel", "Checkpointing an already labelled head overwrites its label.", ["T-CHECKPOINT-1"], forked,
       [{"step": "seek", "id": "e2"}, {"step": "checkpoint", "label": "second"}])
ops_ok("seek-checkpoint-latest", "With a label on several entries, seek_checkpoint takes the latest in file order.", ["T-SEEKCP-1"],
       "\n".join([entry("e1", None, "a", 1, "x"), entry("e2", "e1", "b", 2), entry("e3", "e1", "c", 3, "x"), entry("e4", "e3", "d", 4)]),
       [{"step": "seek_checkpoint", "label": "x"}, {"step": "append", "message": "after", "timestamp": 5}])
ops_ok("seek-checkpoint-file-order-not-label-order", "Relabelling an earlier entry after a later one: the later ENTRY still wins.", ["T-SEEKCP-1"],
       "\n".join([entry("e1", None, "a", 1), entry("e2", "e1", "b", 2, "x"), entry("e3", "e1", "c", 3)]),
       [{"step": "seek", "id": "e1"}, {"step": "checkpoint", "label": "x"}, {"step": "seek", "id": "e3"},
        {"step": "seek_checkpoint", "label": "x"}, {"step": "append", "message": "after", "timestamp": 4}])
ops_ok("append-new-extends", "append_new appends only the new tail and returns the count.", ["T-APPENDNEW-1"], forked,
       [{"step": "append_new", "history": [U("draft a plan"), A("plan A"), U("make it a library"), A("library plan"), U("next"), A("ok")], "timestamp": 7}])
ops_ok("append-new-equal", "A history equal to the path appends nothing.", ["T-APPENDNEW-1"], forked,
       [{"step": "append_new", "history": [U("draft a plan"), A("plan A"), U("make it a library"), A("library plan")], "timestamp": 7}])
ops_ok("append-new-key-order", "Messages compare by canonical JSON: member order does not matter.", ["T-APPENDNEW-1", "C-KEY-1"], forked,
       [{"step": "append_new", "history": [{"content": "draft a plan", "role": "user"}, A("plan A"), U("make it a library"), A("library plan"), "new"], "timestamp": 7}])
ops_ok("save-load-moves-head", "A seek is not saved: after save_load the head is the last entry.", ["T-ROUND-1", "T-HEAD-1", "T-SEEK-1"], forked,
       [{"step": "seek", "id": "e1"}, {"step": "save_load"}, {"step": "append", "message": "x", "timestamp": 9}])
ops_ok("save-load-keeps-counter", "After save_load, ids continue after the largest numbered id.", ["T-ROUND-1", "T-NEXT-1"],
       entry("e41", None, "a", 1) + "\n" + entry("x", "e41", "b", 2),
       [{"step": "save_load"}, {"step": "append", "message": "c", "timestamp": 3}])
ops_ok("save-format", "The saved text: fixed member order, canonical message, no final newline, extra members dropped.", ["T-SAVE-1", "T-ENTRY-1"],
       '{"timestamp":5,"message":{"b":[1.0,1e16],"a":"é\\/"},"x":1,"id":"e1","label":"L","parent_id":null}\r\n\n',
       [{"step": "save_load"}])
ops_ok("append-after-non-numbered", "Ids that are not e<N> leave the counter: the first append is e1.", ["T-NEXT-1", "T-APPEND-1"],
       entry("root", None, "r", 1), [{"step": "append", "message": "m", "timestamp": 2}])
# ---- multiplicity and order (issue 12 item 7): relabels, labels on several entries,
# append_new appending 0, 1 and several, with distinguishable plain-string messages.
plain = "\n".join([entry("e1", None, "one", 1), entry("e2", "e1", "two", 2), entry("e3", "e1", "three", 3)])
ops_ok("relabel-three-times-plain", "Three checkpoints on one head (plain string messages): only the last label stays; "
       "the replaced ones find nothing.", ["T-CHECKPOINT-1", "T-SEEKCP-1"], plain,
       [{"step": "checkpoint", "label": "a"}, {"step": "checkpoint", "label": "b"}, {"step": "checkpoint", "label": "c"},
        {"step": "seek", "id": "e1"}, {"step": "seek_checkpoint", "label": "c"}, {"step": "seek_checkpoint", "label": "a"},
        {"step": "append", "message": "four", "timestamp": 4}], tags=["multiplicity"])
ops_ok("one-label-three-entries", "The same label set on three entries in the order e3, e1, e2: seek_checkpoint takes e3, the latest in FILE order.",
       ["T-CHECKPOINT-1", "T-SEEKCP-1", "T-OPS-1"], plain,
       [{"step": "checkpoint", "label": "x"}, {"step": "seek", "id": "e1"}, {"step": "checkpoint", "label": "x"},
        {"step": "seek", "id": "e2"}, {"step": "checkpoint", "label": "x"}, {"step": "seek", "id": "e1"},
        {"step": "seek_checkpoint", "label": "x"}, {"step": "append", "message": "four", "timestamp": 4}], tags=["multiplicity"])
inspect_ok("tree/load", "labels-several-each", "Two labels each carried by two entries, and a third by one: each maps to its latest carrier.",
           ["T-SEEKCP-1", "T-OPS-1"],
           "\n".join([entry("e1", None, "one", 1, "p"), entry("e2", "e1", "two", 2, "q"), entry("e3", "e1", "three", 3, "p"),
                       entry("e4", "e2", "four", 4, "q"), entry("e5", "e4", "five", 5, "r")]), tags=["multiplicity"])
ops_ok("relabel-one-of-two-carriers", "Label x on e3 and e1, then e3 relabelled y: x still names e1 (its other carrier), "
       "y names e3.", ["T-CHECKPOINT-1", "T-SEEKCP-1", "T-OPS-1", "T-SAVE-1"], plain,
       [{"step": "checkpoint", "label": "x"}, {"step": "seek", "id": "e1"}, {"step": "checkpoint", "label": "x"},
        {"step": "seek", "id": "e3"}, {"step": "checkpoint", "label": "y"}, {"step": "seek", "id": "e2"},
        {"step": "seek_checkpoint", "label": "x"}, {"step": "append", "message": "four", "timestamp": 4},
        {"step": "seek_checkpoint", "label": "y"}, {"step": "append", "message": "five", "timestamp": 5}], tags=["multiplicity"])
ops_ok("append-new-zero-one-many", "append_new appending 0, then 1, then 3 distinct messages: counts 0, 1, 3, ids in order.",
       ["T-APPENDNEW-1", "T-APPEND-1"], plain,
       [{"step": "append_new", "history": ["one", "three"], "timestamp": 5},
        {"step": "append_new", "history": ["one", "three", "four"], "timestamp": 6},
        {"step": "append_new", "history": ["one", "three", "four", "five", "six", "seven"], "timestamp": 7}], tags=["multiplicity"])
ops_ok("appends-after-two-seeks", "Two forks from the same entry: its children list both, in order.", ["T-SEEK-1", "T-APPEND-1", "T-TIPS-1"], plain,
       [{"step": "seek", "id": "e2"}, {"step": "append", "message": "left", "timestamp": 8},
        {"step": "seek", "id": "e2"}, {"step": "append", "message": "right", "timestamp": 9}], tags=["multiplicity"])

# ---- failing steps (T-ERR-1): the error is the step's element of results, the tree is
# unchanged by it (the saved tree and the next append's id and parent show it), and the
# later steps run.
nxt = lambda msg="after", ts=50: {"step": "append", "message": msg, "timestamp": ts}  # noqa: E731


def nest(n):
    """A message nested n levels deep: [[...[0]...]]."""
    v = 0
    for _ in range(n):
        v = [v]
    return v


ops_fail("seek-unknown", "A seek to an id that does not exist fails; the head stays, so the next append hangs off e5.",
         ["T-SEEK-1", "T-ERR-1"], forked, [{"step": "seek", "id": "e9"}, nxt()], {0: "unknown_entry"})
ops_fail("checkpoint-empty", "A checkpoint on an empty tree fails and labels nothing; a later checkpoint labels the new entry.",
         ["T-CHECKPOINT-1", "T-ERR-1"], "",
         [{"step": "checkpoint", "label": "x"}, nxt(), {"step": "checkpoint", "label": "y"}], {0: "empty_session"})
ops_fail("seek-checkpoint-unknown", "seek_checkpoint to a label nobody carries fails and leaves the head on the new entry.",
         ["T-SEEKCP-1", "T-ERR-1"], forked,
         [{"step": "append", "message": "x", "timestamp": 1}, {"step": "seek_checkpoint", "label": "nope"}, nxt()], {1: "unknown_checkpoint"})
ops_fail("append-new-shorter", "A history shorter than the path diverges at its length; nothing is appended.", ["T-APPENDNEW-1", "T-ERR-1"], forked,
         [{"step": "append_new", "history": [U("draft a plan")], "timestamp": 1}, {"step": "save_load"}], {0: ("history_diverged", 1)})
ops_fail("append-new-differs", "A history that differs diverges at the first differing index; its new tail is NOT appended.",
         ["T-APPENDNEW-1", "T-ERR-1"], forked,
         [{"step": "append_new", "history": [U("draft a plan"), A("plan A (compacted)"), U("make it a library"), A("library plan"), U("new")],
           "timestamp": 1}, nxt()], {0: ("history_diverged", 1)})
ops_fail("append-new-int-vs-float", "1 and 1.0 are different messages.", ["T-APPENDNEW-1", "C-NUM-1"], entry("e1", None, 1, 1),
         [{"step": "append_new", "history": [1.0, 2], "timestamp": 1}, {"step": "append_new", "history": [1, 2], "timestamp": 2}],
         {0: ("history_diverged", 0)})
ops_fail("append-new-length-first", "The length rule comes first: a one-message history against a two-entry path diverges at 1.",
         ["T-APPENDNEW-1"], entry("e1", None, "a", 1) + "\n" + entry("e2", "e1", "b", 2),
         [{"step": "append_new", "history": ["X"], "timestamp": 1}, nxt()], {0: ("history_diverged", 1)})
ops_fail("append-new-empty-history", "An empty history against a non-empty path diverges at 0.", ["T-APPENDNEW-1"], forked,
         [{"step": "append_new", "history": [], "timestamp": 1}, nxt()], {0: ("history_diverged", 0)})
ops_fail("id-space-exhausted", "Appending after e18446744073709551615 fails; the tree keeps its one entry and the next step still runs.",
         ["T-NEXT-1", "T-ERR-1"], entry("e18446744073709551615", None, "a", 1),
         [{"step": "append", "message": "b", "timestamp": 2}, {"step": "checkpoint", "label": "kept"}], {0: "id_space_exhausted"})
ops_fail("append-new-id-space-all-or-nothing", "append_new needing two ids with one left fails and appends NOT EVEN the first; one append still fits.",
         ["T-APPENDNEW-1", "T-NEXT-1", "T-ERR-1"], entry("e18446744073709551614", None, "a", 1),
         [{"step": "append_new", "history": ["a", "b", "c"], "timestamp": 2}, {"step": "append_new", "history": ["a", "b"], "timestamp": 3}],
         {0: "id_space_exhausted"})
ops_fail("append-too-deep", "A message nested 128 levels deep is refused (its entry line would be 129 deep); nothing is appended, "
         "the next append gets e6 and hangs off e5.", ["T-APPEND-1", "C-DEPTH-1", "T-ERR-1"], forked,
         [{"step": "append", "message": nest(128), "timestamp": 1}, nxt()], {0: "nesting_too_deep"}, tags=["deep"])
ops_fail("append-too-deep-before-exhausted", "With no id left, a too-deep message is refused for its depth first (T-APPEND-1 before T-NEXT-1).",
         ["T-APPEND-1", "T-NEXT-1", "T-ERR-1"], entry("e18446744073709551615", None, "a", 1),
         [{"step": "append", "message": nest(128), "timestamp": 1}, {"step": "append", "message": "b", "timestamp": 2}],
         {0: "nesting_too_deep", 1: "id_space_exhausted"}, tags=["deep"])
ops_ok("append-127-deep", "A message nested 127 levels deep fits: its entry line is 128 deep, and it saves and loads back.",
       ["T-APPEND-1", "C-DEPTH-1", "T-ROUND-1", "T-LINE-2"], "", [{"step": "append", "message": nest(127), "timestamp": 1}, {"step": "save_load"}],
       tags=["deep"])
ops_fail("append-new-too-deep", "append_new whose second new message is 128 deep appends nothing, not even the first.",
         ["T-APPENDNEW-1", "T-APPEND-1", "T-ERR-1"], forked,
         [{"step": "append_new", "history": [U("draft a plan"), A("plan A"), U("make it a library"), A("library plan"), "fine", nest(128)],
           "timestamp": 1}, nxt()], {0: "nesting_too_deep"}, tags=["deep"])
def nest_shape(n, container, bottom):
    """n containers deep (`[..]` or `{"a":..}`), `bottom` inside the innermost: the depth
    of a container is 1 + the deepest member (tree_oracle.depth), so an empty innermost
    container counts, and objects count as arrays do."""
    v = bottom
    for _ in range(n):
        v = [v] if container == "array" else {"a": v}
    return v


for name, desc, n, container, bottom in [
    ("append-too-deep-empty-array", "A message of 128 nested arrays, the innermost empty, is 128 deep: refused.", 128, "array", "empty"),
    ("append-too-deep-objects", "A message of 128 nested objects is 128 deep: refused.", 128, "object", 0),
    ("append-too-deep-empty-object", "A message of 128 nested objects, the innermost empty, is 128 deep: refused.", 128, "object", "empty"),
]:
    inner = ([] if container == "array" else {}) if bottom == "empty" else bottom
    msg = nest_shape(n - 1, container, inner) if bottom == "empty" else nest_shape(n, container, inner)
    ops_fail(name, desc + " Nothing is appended; the next append gets e6.", ["T-APPEND-1", "C-DEPTH-1", "T-ERR-1"], forked,
             [{"step": "append", "message": msg, "timestamp": 1}, nxt()], {0: "nesting_too_deep"}, tags=["deep"])
ops_ok("append-127-deep-empty-object", "A message of 127 nested objects, the innermost empty, fits, and saves and loads back.",
       ["T-APPEND-1", "C-DEPTH-1", "T-ROUND-1"], "", [{"step": "append", "message": nest_shape(126, "object", {}), "timestamp": 1}, {"step": "save_load"}],
       tags=["deep"])

ops_fail("failures-do-not-stop-the-sequence", "Every step after a failing one runs; each failure is its step's element of results.",
         ["T-ERR-1", "T-OPS-1"], forked,
         [{"step": "append", "message": "x", "timestamp": 1}, {"step": "seek", "id": "e6"}, {"step": "seek", "id": "missing"},
          {"step": "checkpoint", "label": "kept"}, {"step": "seek_checkpoint", "label": "never"}, {"step": "seek", "id": "e1"},
          {"step": "append_new", "history": ["wrong"], "timestamp": 2}, nxt()],
         {2: "unknown_entry", 4: "unknown_checkpoint", 6: ("history_diverged", 0)})
ops_fail("append-new-diverged-then-save", "T-APPENDNEW-1: after a diverged append_new, the saved tree is byte for byte the loaded one.",
         ["T-APPENDNEW-1", "T-SAVE-1", "T-ERR-1"], forked,
         [{"step": "append_new", "history": [U("draft a plan"), A("plan B"), U("x"), A("y"), U("z")], "timestamp": 9}, {"step": "save_load"}],
         {0: ("history_diverged", 1)})
add("tree/ops", "load-error-wins", "A tree that does not load reports its load error, whatever the steps.", ["T-ERR-1"],
    entry("e1", "e0", "a", 1), [{"op": {"op": "tree_apply", "ops": [{"step": "seek", "id": "x"}]}, "expect": {"error": {"code": "unknown_parent", "line": 1}}}])


# Vectors that sit on a departure from yoagent 0.26's Session (SPEC.md appendix "Departures
# from the seed and from yoagent"); tagged here so a rebuild keeps the tags.
DEPARTS_FROM_YOAGENT = {
    # T-NEXT-1: yoagent's counter wraps to e0 (release) or panics (debug) after e18446744073709551615
    "tree/ops/id-space-exhausted", "tree/ops/append-new-id-space-all-or-nothing", "tree/load/numbered-id-u64-max",
    # T-SAVE-1: yoagent writes the message in its struct's member order, not as canonical JSON
    "tree/ops/save-format",
    # T-APPEND-1: yoagent appends a message too deep to load back, and stamps the clock instead of the given time
    "tree/ops/append-too-deep", "tree/ops/append-new-too-deep", "tree/ops/append-empty",
    # T-LINE-2: serde_json (yoagent's reader) refuses a line 128 deep, which C-DEPTH-1 allows
    "tree/ops/append-127-deep",
    # T-ENTRY-1: a message is any JSON value, not yoagent's typed AgentMessage
    "tree/load/message-any-json",
    # T-ERR-1: yoagent's duplicate and unknown-parent errors carry no line; step errors abort the caller
    "tree/ops/load-error-wins", "tree/ops/failures-do-not-stop-the-sequence",
}


def write():
    os.makedirs(ROOT, exist_ok=True)
    total = 0
    used = set()
    for group, cases in FILES.items():
        for c in cases:
            if group + "/" + c["name"] in DEPARTS_FROM_YOAGENT:
                c["tags"] = c.get("tags", []) + ["departs-from-yoagent"]
                used.add(group + "/" + c["name"])
    assert used == DEPARTS_FROM_YOAGENT, sorted(DEPARTS_FROM_YOAGENT - used)
    for group, cases in sorted(FILES.items()):
        path = os.path.join(os.path.dirname(ROOT), group + ".json")
        assert len({c["name"] for c in cases}) == len(cases), group
        text = json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n"
        with open(path + ".tmp", "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        total += len(cases)
        print("%-22s %4d cases" % (group + ".json", len(cases)))
    print("total %d cases" % total)


write()
