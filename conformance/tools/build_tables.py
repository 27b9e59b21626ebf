#!/usr/bin/env python3
"""Build the dimension tables (conformance/tables/**/*.json): `python3 conformance/tools/build_tables.py`.

Where a rule's input is a CLASS, these tables cover the class instead of a hand-picked
sample (issue 19 part 2):

- `tables/{journal,tree,canonical,store}-whitespace`: every code point of
  `whitespace.json` (whitespace.py: what Python, JavaScript, Go, Rust, Java and C trim,
  strip, split or match with \\s, and the near-misses) placed as a whole line, at the end
  of the file, at a line's start and end, between tokens, inside a string (raw and
  escaped) and inside an id, for journals (validate, replay, fingerprint, branch), the
  generic tree format (tree_inspect, tree_apply), `canonical` and `store_apply`;
- `tables/{journal,tree,tree-step}-order`: every ordered pair of the generator's defect
  classes (src/generate/malformed.rs) in one journal, on different lines and on one line
  where both fit; the tree load checks of T-ORDER-1 the same way; every pair of the checks
  inside one tree step (T-APPEND-1, T-APPENDNEW-1);
- `tables/boundaries`: empty strings and boundary numbers wherever SPEC.md accepts a
  string or a number (ids, labels, parents, reasons, deltas, branch ids, until/at at 0 and
  at the last sequence, a one-event journal, timestamps 0 and 2^64-1);
- `tables/streaming`: every streaming shape of R-STREAM-1, alone and in pairs, and the
  named scenarios (empty delta, final without deltas, deltas after a final, interleaved
  message ids, a content response in the middle of a stream, where a message lands),
  each replayed up to every sequence.

Where the expected values come from (never from the Rust code under test):
- errors: the functions `journal_wire_error`, `tree_line_error`, `canonical_error` and
  `first_error` below, which apply SPEC.md's W-*, C-*, T-LINE-*, J-ORDER-1 and T-ORDER-1
  rules by hand (JSON texts are parsed with Python's json module, whose whitespace is
  exactly RFC 8259's), and for each precedence case the planted defects' codes and lines;
- results: oracle.py (the seed's projection, json.dumps as canonical JSON),
  tree_oracle.py, and json.dumps for `canonical`;
- `departs-from-seed` tags: seed_port.py (a port of the seed's reader and SessionJournal)
  decides, for each journal and canonical case, whether the seed answers it differently.

Deterministic: the same script writes the same bytes. Never edit the output by hand.
"""
import base64
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle  # noqa: E402
import seed_port  # noqa: E402
import tree_oracle  # noqa: E402
import whitespace  # noqa: E402

ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "tables")
FILES = {}
SEEN_INPUTS = {}
BOM = "\ufeff"
JSON_WS = " \t\n\r"


def dumps(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def canon(v):
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def err(code, line=None, sequence=None, index=None):
    e = {"code": code}
    if line is not None:
        e["line"] = line
    if sequence is not None:
        e["sequence"] = sequence
    if index is not None:
        e["index"] = index
    return {"error": e}


def add(group, name, description, rules, data, checks, tags=(), profile=None):
    """One case; `data` is bytes. A second case with the same bytes and checks in the same
    group is a duplicate of behaviour and is dropped (dedupe)."""
    key = (group, hashlib.sha256(data + json.dumps(checks, sort_keys=True).encode()).hexdigest())
    if key in SEEN_INPUTS:
        return False
    SEEN_INPUTS[key] = name
    case = {"name": name, "description": description, "rules": list(dict.fromkeys(rules))}
    if tags:
        case["tags"] = list(dict.fromkeys(tags))
    if profile:
        case["profile"] = profile
    try:
        case["input"] = data.decode("utf-8")
    except UnicodeDecodeError:
        case["input_base64"] = base64.b64encode(data).decode("ascii")
    case["checks"] = checks
    assert name not in {c["name"] for c in FILES.get(group, [])}, (group, name)
    FILES.setdefault(group, []).append(case)
    return True


# ---------------------------------------------------------------------------------------
# Spec-derived checkers (SPEC.md sections 2, 3, 5, 15.1), written from the rules
# ---------------------------------------------------------------------------------------
def json_text_ok(text):
    """C-SYNTAX-1 for the inputs of these tables: Python's json.loads admits exactly RFC
    8259's whitespace (space, tab, LF, CR) around tokens and rejects raw U+0000..U+001F in
    strings; the tables plant nothing else it is lenient about (NaN, duplicates, ...)."""
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def journal_wire_error(data):
    """The first W-*/C-* error of a journal (code, line), or None: lines split on 0x0A only
    (W-LINE-1, W-LINE-3); per line W-BOM-1, W-UTF8-1, W-BLANK-1 (only space, tab, CR), then
    one JSON text (W-JSON-1), in line order (J-ORDER-1)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for n, raw in enumerate(lines, 1):
        if raw.startswith(b"\xef\xbb\xbf"):
            return ("unexpected_bom", n)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ("invalid_utf8", n)
        if all(b in b" \t\r" for b in raw):
            return ("blank_line", n)
        if not json_text_ok(text):
            return ("invalid_json", n)
    return None


def tree_line_error(data):
    """The first T-LINE-2 error of a tree file (code, line), or None: lines split on \\n,
    numbered physically (T-LINE-1); trimmed of Unicode White_Space; empty -> skipped
    (T-BLANK-1); U+FEFF first -> unexpected_bom; else one JSON text."""
    ws = "".join(chr(c) for c in sorted(whitespace.WHITE_SPACE))
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ("invalid_utf8", n)
        t = text.strip(ws)
        if not t:
            continue
        if t.startswith(BOM):
            return ("unexpected_bom", n)
        if not json_text_ok(t):
            return ("invalid_json", n)
    return None


def canonical_error(data):
    """O-CANON-1: W-BOM-1 and W-UTF8-1 on the whole input, then one JSON text (newlines
    are whitespace). The line is that of the first byte the parser cannot take: after the
    leading JSON whitespace, the first byte that is not where a JSON text may continue;
    for a text that ends too early (or is only whitespace), the end of the input."""
    if data.startswith(b"\xef\xbb\xbf"):
        return ("unexpected_bom", 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ("invalid_utf8", None)
    try:
        json.loads(text)
        return None
    except json.JSONDecodeError as e:
        # json's own position is where it stopped: the line of that character.
        return ("invalid_json", text.count("\n", 0, e.pos) + 1)


assert tree_oracle.WHITE_SPACE == "".join(chr(c) for c in sorted(whitespace.WHITE_SPACE)), "T-LINE-1's set"


# ---------------------------------------------------------------------------------------
# departs-from-seed: does the seed (seed_port.py) answer a case differently?
# ---------------------------------------------------------------------------------------
def seed_departs(data, checks):
    return any(not seed_port.agrees(seed_port.run(ch["op"], data), ch["expect"]) for ch in checks)


CODE_RULE = {"unexpected_bom": "W-BOM-1", "blank_line": "W-BLANK-1", "invalid_json": "C-SYNTAX-1", "invalid_utf8": "W-UTF8-1",
             "duplicate_key": "C-KEY-2", "lone_surrogate": "C-STR-3", "nesting_too_deep": "C-DEPTH-1",
             "malformed_event": "E-ENV-1", "invalid_payload": "R-TYPE-1", "empty_journal": "J-EMPTY-1",
             "sequence_gap": "J-SEQ-1", "mixed_session": "J-SESSION-1", "mixed_run": "J-RUN-1",
             "duplicate_event_id": "J-ID-1", "unknown_parent": "J-PARENT-1", "sequence_out_of_range": "O-RANGE-1",
             "invalid_branch_id": "B-ID-1", "conflicting_duplicate": "S-DUP-1"}


def journal_case(group, name, description, rules, data, tags=(), until=None, extra_checks=()):
    """A journal case checked by every operation that reads JSONL: validate, replay,
    fingerprint and branch; the error (if any) from journal_wire_error, results from the
    oracle. Returns the checks' expectation kind."""
    e = journal_wire_error(data)
    if e is not None:
        code, line = e
        checks = [{"op": {"op": o}, "expect": err(code, line)} for o in ("validate", "replay", "fingerprint")]
        checks.append({"op": {"op": "branch", "at": 0, "branch_id": "b"}, "expect": err(code, line)})
        rules = list(rules) + [CODE_RULE[code]]
    else:
        events = oracle.parse_journal(data)
        checks = [
            {"op": {"op": "validate"}, "expect": {"result": {"event_count": len(events)}}},
            {"op": {"op": "replay"}, "expect": {"result": oracle.replay(events)}},
            {"op": {"op": "fingerprint"}, "expect": {"result": oracle.fingerprint(events)}},
            {"op": {"op": "branch", "at": 0, "branch_id": "b"}, "expect": {"result": oracle.branch(events, 0, "b")}},
        ]
        if until is not None:
            checks.append({"op": {"op": "replay", "until": until}, "expect": {"result": oracle.replay(events, until)}})
        rules = list(rules) + ["F-FP-1", "B-RANGE-1"]
    checks.extend(extra_checks)
    tags = list(tags) + (["departs-from-seed"] if seed_departs(data, checks) else [])
    add(group, name, description, rules, data, checks, tags)
    return e


# ---------------------------------------------------------------------------------------
# tables/whitespace
# ---------------------------------------------------------------------------------------
CPS = whitespace.load()


def cp_label(e):
    return "u%04x" % e["cp"]


def cp_desc(e):
    funcs = [f for f in e["in"] if not f.startswith(("spec-", "json-", "unicode-"))]
    return "%s %s (%s)" % (e["hex"], e["name"], ("special to " + ", ".join(funcs)) if funcs else "special to no function")


def ev(i, type_="model.request", payload=None, session="sess-1", run="run-1", event_id=None, parent="prev"):
    e = {"event_id": event_id if event_id is not None else "e%d" % i, "session_id": session, "sequence": i,
         "type": type_, "payload": {} if payload is None else payload, "provenance": {"run_id": run}}
    if parent == "prev" and i > 0:
        e["parent_event_id"] = "e%d" % (i - 1)
    elif parent not in ("prev", None):
        e["parent_event_id"] = parent
    return e


def jline(e):
    return dumps(e).encode("utf-8")


W_J = "tables/journal-whitespace"
W_T = "tables/tree-whitespace"
W_C = "tables/canonical-whitespace"
W_S = "tables/store-whitespace"
HOLE = "\u2063HOLE\u2063"  # a marker no placement uses, replaced by the code point's bytes


def with_hole(line_text, raw):
    assert line_text.count(HOLE) == 1
    return line_text.replace(HOLE, raw)


def whitespace_journal():
    e0, e2 = ev(0, "session.start"), ev(2, "model.response", {"content": "ok"})
    e1 = ev(1, "user.message", {"content": "hi"})
    L0, L1, L2 = jline(e0), jline(e1), jline(e2)
    for e in CPS:
        c = chr(e["cp"])
        b = c.encode("utf-8")
        lab, d = cp_label(e), cp_desc(e)
        esc = "\\u%04x" % e["cp"]
        placements = [
            ("line", "a line holding only %s between two events" % d, ["W-BLANK-1", "W-LINE-1"],
             L0 + b"\n" + b + b"\n" + L1 + b"\n" + L2 + b"\n"),
            ("last", "a last line holding only %s, after the final newline (bytes after the last \\n are a line)" % d,
             ["W-BLANK-1", "W-LINE-3"], L0 + b"\n" + L1 + b"\n" + L2 + b"\n" + b),
            ("start", "%s at the start of a line" % d, ["W-JSON-1", "W-LINE-1"], L0 + b"\n" + b + L1 + b"\n" + L2 + b"\n"),
            ("end", "%s at the end of a line, before its \\n" % d, ["W-JSON-1", "W-LINE-1"],
             L0 + b"\n" + L1 + b + b"\n" + L2 + b"\n"),
            ("token", "%s between two tokens of an event" % d, ["C-SYNTAX-1", "W-LINE-1"],
             L0 + b"\n" + L1.replace(b'"session_id":', b'"session_id":' + b, 1) + b"\n" + L2 + b"\n"),
            ("string", "%s raw inside a user message string" % d, ["C-SYNTAX-1", "C-STR-2", "R-USER-1", "W-LINE-1"],
             L0 + b"\n" + with_hole(dumps(ev(1, "user.message", {"content": "a" + HOLE + "b"})), c).encode() + b"\n" + L2 + b"\n"),
            ("string-escaped", "%s written as the escape %s inside a user message string" % (d, esc),
             ["C-STR-1", "C-STR-2", "R-USER-1", "F-FP-2"],
             L0 + b"\n" + with_hole(dumps(ev(1, "user.message", {"content": "a" + HOLE + "b"})), esc).encode() + b"\n" + L2 + b"\n"),
            # Below U+0020 the code point may not stand raw in a string: C-SYNTAX-1 decides.
            ("session-id", "%s at both ends of every event's session_id (ids are compared and reported untrimmed)" % d,
             ["C-SYNTAX-1", "J-SESSION-1", "E-ENV-1", "W-LINE-1"] if e["cp"] < 0x20
             else ["J-SESSION-1", "E-ENV-1", "C-SYNTAX-1", "W-LINE-1"],
             b"".join(dumps(x).replace(HOLE, c).encode() + b"\n"
                      for x in [ev(0, "session.start", session=HOLE + "sess" + HOLE),
                                ev(1, "user.message", {"content": "hi"}, session=HOLE + "sess" + HOLE)])),
        ]
        for pname, what, rules, data in placements:
            journal_case(W_J, "%s-%s" % (pname, lab), "A journal with %s." % what, rules, data, tags=["whitespace"])


def tentry(i, parent, msg, ts, label=None):
    e = {"id": i, "parent_id": parent, "message": msg, "timestamp": ts}
    if label is not None:
        e["label"] = label
    return dumps(e)


TREE_STEPS = [{"step": "append", "message": "x", "timestamp": 9}, {"step": "save_load"}]


def tree_case(group, name, description, rules, data, steps=TREE_STEPS, tags=()):
    e = tree_line_error(data)
    if e is not None:
        code, line = e
        checks = [{"op": {"op": "tree_inspect"}, "expect": err(code, line)},
                  {"op": {"op": "tree_apply", "ops": steps}, "expect": err(code, line)}]
        rules = list(rules) + ["T-LINE-2"]
    else:
        text = data.decode("utf-8")
        checks = [{"op": {"op": "tree_inspect"}, "expect": {"result": tree_oracle.Tree.load(text).inspect()}},
                  {"op": {"op": "tree_apply", "ops": steps}, "expect": {"result": tree_oracle.apply(text, steps)}}]
        rules = list(rules) + ["T-SAVE-1"]
    add(group, name, description, rules, data, checks, tags)
    return e


def whitespace_tree():
    T1 = tentry("e1", None, "root", 1).encode()
    for e in CPS:
        c = chr(e["cp"])
        b = c.encode("utf-8")
        lab, d = cp_label(e), cp_desc(e)
        esc = "\\u%04x" % e["cp"]
        T2 = tentry("e2", "e1", "child", 2).encode()
        placements = [
            ("line", "a line holding only %s between two entries" % d, ["T-BLANK-1", "T-LINE-1"], T1 + b"\n" + b + b"\n" + T2),
            ("last", "a last line holding only %s" % d, ["T-BLANK-1", "T-LINE-1"], T1 + b"\n" + T2 + b"\n" + b),
            ("start", "%s at the start of an entry's line" % d, ["T-LINE-1"], T1 + b"\n" + b + T2),
            ("end", "%s at the end of an entry's line" % d, ["T-LINE-1"], T1 + b"\n" + T2 + b + b"\n"),
            ("token", "%s between two tokens of an entry (not at its ends: never trimmed)" % d, ["T-LINE-1", "T-LINE-2"],
             T1 + b"\n" + T2.replace(b'"parent_id":', b'"parent_id":' + b, 1)),
            ("string", "%s raw inside a message string" % d, ["T-ENTRY-1", "T-LINE-2", "C-STR-2"],
             T1 + b"\n" + tentry("e2", "e1", "a" + HOLE + "b", 2).replace(HOLE, c).encode()),
            ("string-escaped", "%s written as the escape %s inside a message string" % (d, esc), ["T-ENTRY-1", "C-STR-1", "C-STR-2"],
             T1 + b"\n" + tentry("e2", "e1", "a" + HOLE + "b", 2).replace(HOLE, esc).encode()),
            ("id", "%s at both ends of an entry id and of the parent_id naming it (ids are not trimmed)" % d,
             ["T-ENTRY-1", "T-PARENT-1", "T-LINE-2"],
             (tentry(HOLE + "r" + HOLE, None, "root", 1) + "\n" + tentry("e2", HOLE + "r" + HOLE, "child", 2)).replace(HOLE, c).encode()),
        ]
        for pname, what, rules, data in placements:
            tree_case(W_T, "%s-%s" % (pname, lab), "A tree file with %s." % what, rules, data, tags=["whitespace"])


def canonical_case(group, name, description, rules, data, tags=()):
    e = canonical_error(data)
    if e is not None:
        code, line = e
        expect = err(code, line)
        rules = list(rules) + [CODE_RULE[code]]
    else:
        out = canon(json.loads(data.decode("utf-8")))
        expect = {"result": out, "sha256": hashlib.sha256(out.encode("utf-8")).hexdigest()}
    checks = [{"op": {"op": "canonical"}, "expect": expect}]
    tags = list(tags) + (["departs-from-seed"] if seed_departs(data, checks) else [])
    add(group, name, description, rules, data, checks, tags)


def whitespace_canonical():
    D = '{"a":"x' + HOLE + 'y","b":[1,2]}'
    plain = D.replace(HOLE, "")
    for e in CPS:
        c = chr(e["cp"])
        lab, d = cp_label(e), cp_desc(e)
        esc = "\\u%04x" % e["cp"]
        placements = [
            ("only", "only %s (no JSON text at all)" % d, ["O-CANON-1", "C-SYNTAX-1"], c),
            ("before", "%s before the document" % d, ["O-CANON-1", "C-WS-1"], c + plain),
            ("after", "%s after the document" % d, ["O-CANON-1", "C-WS-1"], plain + c),
            ("token", "%s between two tokens" % d, ["O-CANON-1", "C-WS-1"], plain.replace('"b":', '"b":' + c, 1)),
            ("string", "%s raw inside a string" % d, ["O-CANON-1", "C-STR-2", "C-SYNTAX-1"], D.replace(HOLE, c)),
            ("string-escaped", "%s written as the escape %s" % (d, esc), ["O-CANON-1", "C-STR-1", "C-STR-2"], D.replace(HOLE, esc)),
        ]
        for pname, what, rules, text in placements:
            canonical_case(W_C, "%s-%s" % (pname, lab), "A canonical input with %s." % what, rules, text.encode("utf-8"),
                           tags=["whitespace"])


class Store:
    """SPEC.md 16 as a model, for these tables' simple journals: open (S-RECOVER-1: an
    unterminated tail, or a terminated last line breaking section 2 or 3, is torn and moved
    aside; any other bad line fails the open), append (S-VALID-1: a line with \\n is
    invalid_json; then the wire and JSON rules; S-DUP-1 by canonical text; every line here
    carries the next sequence when it is new)."""

    def __init__(self, data):
        self.recovered, self.lines, self.ids = [], [], {}
        parts = data.split(b"\n")
        tail = parts.pop()
        offset = len(data) - len(tail)
        if tail:
            self.recovered.append({"offset": offset, "torn": tail.decode("utf-8")})
        elif parts and journal_wire_error(parts[-1]) is not None:
            last = parts.pop()
            self.recovered.append({"offset": offset - len(last) - 1, "torn": last.decode("utf-8") + "\n"})
        bad = journal_wire_error(b"".join(p + b"\n" for p in parts))
        self.open_error = bad
        for p in parts if bad is None else []:
            self.accept(p)

    def accept(self, raw):
        v = json.loads(raw.decode("utf-8"))
        self.ids[v["event_id"]] = (len(self.lines), canon(v))
        self.lines.append(raw)
        return {"event_id": v["event_id"], "sequence": len(self.lines) - 1, "duplicate": False}

    def append(self, text):
        raw = text.encode("utf-8")
        line = len(self.lines) + 1
        if b"\n" in raw:
            return {"error": {"code": "invalid_json", "line": line}}
        e = journal_wire_error(raw)
        if e is not None:
            return {"error": {"code": e[0], "line": line}}
        v = json.loads(text)
        if v["event_id"] in self.ids:
            seq, c = self.ids[v["event_id"]]
            if c == canon(v):
                return {"event_id": v["event_id"], "sequence": seq, "duplicate": True}
            return {"error": {"code": "conflicting_duplicate", "line": line}}
        assert v["sequence"] == len(self.lines)
        return self.accept(raw)

    def journal(self):
        return b"".join(p + b"\n" for p in self.lines).decode("utf-8")


def store_case(group, name, description, rules, initial, lines, tags=()):
    m = Store(initial)
    steps = [{"step": "append", "line": t} for t in lines] + [{"step": "replay"}]
    if m.open_error is not None:
        code, line = m.open_error
        expect = err(code, line)
        rules = list(rules) + [CODE_RULE[code]]
    else:
        results = [m.append(t) for t in lines]
        results.append(oracle.replay([json.loads(x) for x in m.lines]))
        expect = {"result": {"recovered": m.recovered, "results": results, "journal": m.journal()}}
    add(group, name, description, rules, initial, [{"op": {"op": "store_apply", "steps": steps}, "expect": expect}], tags)


def signature_classes(cps):
    """One code point per behaviour class: code points in exactly the same functions'
    sets behave the same for any implementation built on those functions (the store's
    table, whose cases cost a sync each, takes one of each; the others take all)."""
    seen, out = set(), []
    for e in cps:
        key = tuple(e["in"])
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def whitespace_store():
    L0 = dumps(ev(0, "session.start"))
    L1 = dumps(ev(1, "user.message", {"content": "hi"}))
    for e in signature_classes(CPS):
        c = chr(e["cp"])
        lab, d = cp_label(e), cp_desc(e)
        appended = [c, c + L1, L1 + c, L1.replace('"session_id":', '"session_id":' + c, 1),
                    dumps(ev(1, "user.message", {"content": "a" + HOLE + "b"})).replace(HOLE, c), L1]
        store_case(W_S, "append-" + lab,
                   "A store opened on a journal whose last line holds only %s (torn unless it is a middle line), then lines "
                   "with it appended: alone, at the start, at the end, between tokens, in a string, then the plain line." % d,
                   ["S-RECOVER-1", "S-TORN-1", "S-VALID-1", "S-DUP-1", "W-BLANK-1"],
                   (L0 + "\n" + c + "\n").encode("utf-8"), appended, tags=["whitespace"])
        store_case(W_S, "open-middle-" + lab,
                   "A store opened on a journal with a middle line holding only %s: the open fails (never truncated)." % d,
                   ["S-RECOVER-1", "W-BLANK-1"], (L0 + "\n" + c + "\n" + L1 + "\n").encode("utf-8"), [], tags=["whitespace"])


# ---------------------------------------------------------------------------------------
# tables/journal-order: every ordered pair of the generator's defect classes
# ---------------------------------------------------------------------------------------
# J-ORDER-1's stages, in order (lower wins on one line; the earliest line wins first).
STAGES = ["bom", "utf8", "blank", "json", "envelope", "profile", "payload", "sequence", "session", "run", "id", "parent"]
# The generator's defect classes (src/generate/malformed.rs `Defect`), by their kebab names:
# stage, code, the rule the code is, and the event positions the class admits.
DEFECTS = {
    "bom": ("bom", "unexpected_bom", "W-BOM-1"),
    "invalid-utf8": ("utf8", "invalid_utf8", "W-UTF8-1"),
    "blank-line": ("blank", "blank_line", "W-BLANK-1"),
    "invalid-json": ("json", "invalid_json", "C-SYNTAX-1"),
    "torn-last-line": ("json", "invalid_json", "C-SYNTAX-1"),
    "duplicate-key": ("json", "duplicate_key", "C-KEY-2"),
    "lone-surrogate": ("json", "lone_surrogate", "C-STR-3"),
    "number-out-of-range": ("json", "number_out_of_range", "C-NUM-6"),
    "nesting-too-deep": ("json", "nesting_too_deep", "C-DEPTH-1"),
    "missing-field": ("envelope", "malformed_event", "E-ENV-1"),
    "ill-typed-field": ("envelope", "malformed_event", "E-ENV-1"),
    "profile-violation": ("profile", "profile_violation", "P-TRACE-2"),
    "invalid-payload": ("payload", "invalid_payload", "R-TYPE-1"),
    "sequence-gap": ("sequence", "sequence_gap", "J-SEQ-1"),
    "sequence-not-zero": ("sequence", "sequence_gap", "J-SEQ-1"),
    "sequence-duplicated": ("sequence", "sequence_gap", "J-SEQ-1"),
    "sequence-reordered": ("sequence", "sequence_gap", "J-SEQ-1"),
    "mixed-session": ("session", "mixed_session", "J-SESSION-1"),
    "mixed-run": ("run", "mixed_run", "J-RUN-1"),
    "duplicate-event-id": ("id", "duplicate_event_id", "J-ID-1"),
    "forward-parent": ("parent", "unknown_parent", "J-PARENT-1"),
    "dangling-parent": ("parent", "unknown_parent", "J-PARENT-1"),
    "self-parent": ("parent", "unknown_parent", "J-PARENT-1"),
}
OP_DEFECTS = {
    "empty-journal": ("empty_journal", "J-EMPTY-1"),
    "until-out-of-range": ("sequence_out_of_range", "O-RANGE-1"),
    "at-out-of-range": ("sequence_out_of_range", "O-RANGE-1"),
    "blank-branch-id": ("invalid_branch_id", "B-ID-1"),
}
TEXT_JSON = {"invalid-json": "tru", "duplicate-key": '{"k":1,"k":2}', "lone-surrogate": '"\\ud800"',
             "number-out-of-range": "1e400", "nesting-too-deep": "[" * 128 + "]" * 128}
VALUE_LEVEL = [d for d, (st, _, _) in DEFECTS.items() if STAGES.index(st) >= STAGES.index("envelope")]
# The fields a value-level defect touches (a partner on the same event avoids them).
TOUCHES = {"profile-violation": {"trace_version"}, "invalid-payload": {"type", "payload"},
           "sequence-gap": {"sequence"}, "sequence-not-zero": {"sequence"}, "sequence-duplicated": {"sequence"},
           "sequence-reordered": {"sequence"}, "mixed-session": {"session_id"}, "mixed-run": {"provenance"},
           "duplicate-event-id": {"event_id"}, "forward-parent": {"parent_event_id"},
           "dangling-parent": {"parent_event_id"}, "self-parent": {"parent_event_id", "event_id"}}
ENVELOPE_FIELDS = ["payload", "type", "event_id", "session_id", "provenance", "sequence"]
ILL_TYPED = {"payload": [], "type": 3, "event_id": 7, "session_id": ["s"], "provenance": "run-1", "sequence": "1"}


def first_error(violations):
    """J-ORDER-1: lines in order; on one line the checks in stage order; within the JSON
    stage the first problem in text order. `violations`: (line, stage, text_pos, code, seq)."""
    line, stage, _, code, seq = min(violations, key=lambda v: (v[0], STAGES.index(v[1]), v[2]))
    return code, line, seq


def trace_event(i):
    return {"trace_version": "0.1.0", "event_id": "e%d" % i, "session_id": "sess-1", "sequence": i,
            "timestamp": "2026-08-10T00:00:%02dZ" % i, "type": "model.request", "actor": {"kind": "harness", "id": "h"},
            "payload": {}, "provenance": {"agent_id": "a", "snapshot_id": "s", "surface": "cli", "harness_mode": "fake",
                                          "run_id": "run-1"}, "redaction": {"status": "clean", "fields": []}}


def core_event(i):
    return ev(i, "model.request", parent=None)


class Line:
    def __init__(self, event=None, blank=None):
        self.event, self.blank = event, blank
        self.raw = []          # (name, raw JSON text) members first in the object, in text order
        self.bom = False
        self.bad_utf8 = False  # a string member holding the byte FF, first in the object
        self.torn = False

    def render(self):
        if self.blank is not None:
            body = self.blank
        else:
            members = []
            if self.bad_utf8:
                members.append(b'"x-utf8":"a\xffb"')
            for k, raw in self.raw:
                members.append(dumps(k).encode() + b":" + raw.encode())
            rest = dumps(self.event).encode()
            body = b"{" + b",".join(members) + (b"," if members and rest != b"{}" else b"") + rest[1:]
            if self.torn:
                # Cut inside the object after the planted members: a torn write.
                keep = len(b"{" + b",".join(members)) + 12
                body = body[:keep]
        return (b"\xef\xbb\xbf" if self.bom else b"") + body


def plant_value(d, line, pos, n, partner_fields):
    """Apply value-level defect `d` to the event on `line` (at event position `pos`)."""
    e = line.event
    if d in ("missing-field", "ill-typed-field"):
        field = next(f for f in ENVELOPE_FIELDS if f not in partner_fields)
        if d == "missing-field":
            del e[field]
        else:
            e[field] = ILL_TYPED[field]
        return {field}
    if d == "profile-violation":
        e["trace_version"] = "0.2.0"
    elif d == "invalid-payload":
        e["type"], e["payload"] = "user.message", {"content": 5}
    elif d == "sequence-gap":
        e["sequence"] = pos + 7
    elif d == "sequence-not-zero":
        e["sequence"] = 3
    elif d == "sequence-duplicated":
        e["sequence"] = pos - 1
    elif d == "mixed-session":
        e["session_id"] = "other"
    elif d == "mixed-run":
        e["provenance"] = dict(e["provenance"], run_id="other")
    elif d == "duplicate-event-id":
        e["event_id"] = "e0"
    elif d == "forward-parent":
        e["parent_event_id"] = "e%d" % (n - 1)
    elif d == "dangling-parent":
        e["parent_event_id"] = "ghost"
    elif d == "self-parent":
        own = e.get("event_id")
        e["parent_event_id"] = own if isinstance(own, str) else "e%d" % pos
    return TOUCHES[d]


def sequence_of(event):
    s = event.get("sequence") if isinstance(event, dict) else None
    return s if type(s) is int and -2 ** 63 <= s < 2 ** 63 else None


def build_journal_pair(a, b, same_line):
    """The journal with defect `a` planted before defect `b` (on an earlier line, or on one
    line with a first in text order); None when the pair does not fit. Returns (bytes,
    profile, violations)."""
    trace = "profile-violation" in (a, b)
    n = 5
    events = [trace_event(i) if trace else core_event(i) for i in range(n)]
    lines = [Line(event=e) for e in events]
    # Positions (event index the defect sits on; a blank line is inserted before it).
    if same_line:
        fixed = {"sequence-not-zero": 0, "torn-last-line": n - 1}  # the classes bound to one line
        pos = fixed.get(a, fixed.get(b, 2))
        if a == b:
            return None
        if {a, b} & {"sequence-not-zero"} and {a, b} & {"mixed-session", "mixed-run", "duplicate-event-id"}:
            return None
        if {a, b} in ({"sequence-not-zero", "torn-last-line"}, {"sequence-reordered", "torn-last-line"}):
            return None  # the torn line is the last; these need an event after or before it
        if "blank-line" in (a, b) and not ({a, b} - {"blank-line"}) <= {"bom", "invalid-utf8"}:
            return None
        stages = [DEFECTS[a][0], DEFECTS[b][0]]
        if stages[0] == stages[1] and stages[0] not in ("json", "envelope"):
            return None  # two sequences, two parents: one field, one value
        if b in TEXT_JSON and a == "torn-last-line":
            return None  # b would sit after the cut
        if a == "torn-last-line" and b == "torn-last-line":
            return None
        if "sequence-reordered" in (a, b) and pos >= n - 1:
            pos = 2
        positions = {a: pos, b: pos}
    else:
        if a == "torn-last-line" or (b == "sequence-not-zero" and a != "blank-line"):
            return None
        pa = 0 if a == "sequence-not-zero" else 1
        pb = n - 1 if b == "torn-last-line" else (3 if b != "sequence-not-zero" else 0)
        if b == "sequence-not-zero":
            pa = 0  # the blank line goes before event 0
        if a == "sequence-reordered" and pb <= pa + 1:
            return None
        positions = {a: pa, b: pb}
        if a == b:
            positions = None
    order = [(a, positions[a] if positions else 1), (b, positions[b] if positions else 3)]
    # A swap first: a partner "on the same line" sits on the first of the two swapped lines.
    for d, p in order:
        if d == "sequence-reordered":
            lines[p], lines[p + 1] = lines[p + 1], lines[p]
    # Value-level defects, latest stage first per line, so an earlier-stage one stays realized.
    touched = {}
    value_plan = [(d, p) for d, p in order if d in VALUE_LEVEL and d != "sequence-reordered"]
    value_plan.sort(key=lambda x: -STAGES.index(DEFECTS[x[0]][0]))
    for d, p in value_plan:
        partner = set()
        for dd, q in order:
            if q == p and dd != d:
                partner |= touched.get((q, dd), TOUCHES.get(dd, set()))
        touched[(p, d)] = plant_value(d, lines[p], p, n, partner)
    # Text-level defects.
    blanks = []
    for k, (d, p) in enumerate(order):
        target = lines[p]
        if d == "bom":
            target.bom = True
        elif d == "invalid-utf8":
            target.bad_utf8 = True
        elif d in TEXT_JSON:
            target.raw.append(("x-%d" % k, TEXT_JSON[d]))
        elif d == "torn-last-line":
            target.torn = True
        elif d == "blank-line":
            blanks.append(p)
    # Same-line blank pairs: the blank line itself carries the BOM / the bad byte.
    out_lines = []
    for i, ln in enumerate(lines):
        if i in blanks:
            bl = Line(blank=b" \t")
            if same_line:
                bl.bom, bl.bad_utf8 = lines[i].bom, lines[i].bad_utf8
                lines[i].bom = lines[i].bad_utf8 = False
                if bl.bad_utf8:
                    bl.blank, bl.bad_utf8 = b" \xff\t", False
            out_lines.append(bl)
        out_lines.append(ln)
    data = b"\n".join(l.render() for l in out_lines) + (b"" if out_lines[-1].torn else b"\n")
    # The violations the planted defects make, located.
    violations = []
    line_of = {id(l): i + 1 for i, l in enumerate(out_lines)}
    for k, (d, p) in enumerate(order):
        stage, code, _ = DEFECTS[d]
        if d == "blank-line":
            ln = [l for l in out_lines if l.blank is not None][0 if k == 0 or a != "blank-line" else -1]
            violations.append((line_of[id(ln)], "blank", 0, code, None))
            continue
        target = lines[p]
        if same_line and "blank-line" in (a, b):
            target = [l for l in out_lines if l.blank is not None][0]  # the BOM / bad byte is on the blank line
        if d == "sequence-reordered":
            # After the swap the first of the two lines holds event p+1.
            violations.append((line_of[id(target)], "sequence", 0, code, sequence_of(target.event)))
            continue
        text_pos = [r[0] for r in target.raw].index("x-%d" % k) if d in TEXT_JSON else (99 if d == "torn-last-line" else 0)
        if d == "torn-last-line" and not target.raw:
            text_pos = 0
        seq = sequence_of(target.event) if STAGES.index(stage) >= STAGES.index("envelope") else None
        if same_line and d in VALUE_LEVEL and (target.torn or target.raw or target.bad_utf8 or target.bom):
            seq = sequence_of(target.event)
        violations.append((line_of[id(target)], stage, text_pos, code, seq))
    return data, ("trace-0.1" if trace else None), violations


P_J = "tables/journal-order"


def precedence_journal():
    names = list(DEFECTS)
    for same_line in (False, True):
        for a in names:
            for b in names:
                built = build_journal_pair(a, b, same_line)
                if built is None:
                    continue
                data, profile, violations = built
                code, line, seq = first_error(violations)
                where = "on one line, %s first in the text" % a if same_line else "%s on an earlier line than %s" % (a, b)
                rules = ["J-ORDER-1", DEFECTS[a][2], DEFECTS[b][2], CODE_RULE.get(code, "P-TRACE-2")]
                name = "%s-%s-%s" % ("line" if same_line else "lines", a, b)
                checks = [{"op": {"op": o}, "expect": err(code, line, seq)} for o in ("validate", "replay")]
                tags = ["precedence"] + (["departs-from-seed"] if profile is None and seed_departs(data, checks) else [])
                add(P_J, name, "Defects %s and %s, %s: the first error is %s at line %d (J-ORDER-1)." % (a, b, where, code, line),
                    rules, data, checks, tags, profile=profile)
    # Journal defects against the operation's own (O-ORDER-1), and the operations' order.
    base = b"".join(jline(core_event(i)) + b"\n" for i in range(3))
    ops = {"until-out-of-range": {"op": "replay", "until": 99}, "at-out-of-range": {"op": "branch", "at": 99, "branch_id": "b"},
           "blank-branch-id": {"op": "branch", "at": 0, "branch_id": " "}}
    for d in names:
        for o, op in ops.items():
            data = build_journal_pair_single(d)
            code, line, seq = data[1]
            checks = [{"op": op, "expect": err(code, line, seq)}]
            profile = "trace-0.1" if d == "profile-violation" else None
            tags = ["precedence"] + (["departs-from-seed"] if profile is None and seed_departs(data[0], checks) else [])
            add(P_J, "op-%s-%s" % (d, o), "A journal with %s and an operation with %s: the journal's %s comes first (O-ORDER-1)."
                % (d, o, code), ["O-ORDER-1", "J-ORDER-1", DEFECTS[d][2], OP_DEFECTS[o][1], CODE_RULE.get(code, "P-TRACE-2")],
                data[0], checks, tags, profile=profile)
    for o, op in ops.items():
        checks = [{"op": op, "expect": err("empty_journal")}]
        add(P_J, "op-empty-journal-" + o, "An empty journal and an operation with %s: empty_journal first (O-ORDER-1)." % o,
            ["O-ORDER-1", "J-EMPTY-1", OP_DEFECTS[o][1]], b"", checks, ["precedence"])
    checks = [{"op": {"op": "branch", "at": 99, "branch_id": "\u3000"}, "expect": err("invalid_branch_id")},
              {"op": {"op": "branch", "at": -1, "branch_id": ""}, "expect": err("invalid_branch_id")}]
    add(P_J, "op-blank-branch-id-at-out-of-range", "A blank branch id and an out-of-range fork sequence: invalid_branch_id "
        "first (O-ORDER-1: B-ID-1 before O-RANGE-1).", ["O-ORDER-1", "B-ID-1", "O-RANGE-1"], base, checks, ["precedence"])


def build_journal_pair_single(d):
    trace = d == "profile-violation"
    n = 3
    lines = [Line(event=trace_event(i) if trace else core_event(i)) for i in range(n)]
    p = {"sequence-not-zero": 0, "torn-last-line": n - 1, "forward-parent": 0}.get(d, 1)
    blank_before = None
    if d in VALUE_LEVEL:
        if d == "sequence-reordered":
            lines[p], lines[p + 1] = lines[p + 1], lines[p]
        else:
            plant_value(d, lines[p], p, n, set())
    elif d == "bom":
        lines[p].bom = True
    elif d == "invalid-utf8":
        lines[p].bad_utf8 = True
    elif d in TEXT_JSON:
        lines[p].raw.append(("x-0", TEXT_JSON[d]))
    elif d == "torn-last-line":
        lines[p].torn = True
    elif d == "blank-line":
        blank_before = p
    out = []
    for i, ln in enumerate(lines):
        if i == blank_before:
            out.append(Line(blank=b""))
        out.append(ln)
    data = b"\n".join(l.render() for l in out) + (b"" if out[-1].torn else b"\n")
    stage, code, _ = DEFECTS[d]
    line = p + 1 + (1 if blank_before is not None and d != "blank-line" else 0)
    seq = sequence_of(lines[p].event) if STAGES.index(stage) >= STAGES.index("envelope") else None
    return data, (code, line, seq)


# ---------------------------------------------------------------------------------------
# tables/tree-order: the load checks of T-ORDER-1, every ordered pair
# ---------------------------------------------------------------------------------------
# Per line: T-LINE-2 (not UTF-8, then a leading U+FEFF, then the JSON text, first problem
# in text order), T-ENTRY-1, T-ID-1, T-PARENT-1.
T_STAGES = ["utf8", "bom", "json", "entry", "id", "parent"]
T_DEFECTS = {
    "invalid-utf8": ("utf8", "invalid_utf8", "T-LINE-2"),
    "bom": ("bom", "unexpected_bom", "T-LINE-2"),
    "invalid-json": ("json", "invalid_json", "T-LINE-2"),
    "torn-last-line": ("json", "invalid_json", "T-LINE-2"),
    "duplicate-key": ("json", "duplicate_key", "T-LINE-2"),
    "lone-surrogate": ("json", "lone_surrogate", "T-LINE-2"),
    "number-out-of-range": ("json", "number_out_of_range", "T-LINE-2"),
    "nesting-too-deep": ("json", "nesting_too_deep", "T-LINE-2"),
    "negative-timestamp": ("entry", "malformed_entry", "T-ENTRY-1"),
    "missing-message": ("entry", "malformed_entry", "T-ENTRY-1"),
    "duplicate-entry-id": ("id", "duplicate_entry_id", "T-ID-1"),
    "forward-parent": ("parent", "unknown_parent", "T-PARENT-1"),
    "dangling-parent": ("parent", "unknown_parent", "T-PARENT-1"),
    "self-parent": ("parent", "unknown_parent", "T-PARENT-1"),
}
T_TEXT = dict(TEXT_JSON)
T_TEXT["nesting-too-deep"] = "[" * 128 + "]" * 128


def build_tree_pair(a, b, same_line):
    n = 5
    entries = [{"id": "e%d" % (i + 1), "parent_id": None, "message": "m%d" % (i + 1), "timestamp": i + 1} for i in range(n)]
    lines = [Line(event=e) for e in entries]
    if same_line:
        if a == b or (a == "torn-last-line" and b in T_TEXT) or (T_DEFECTS[a][0] == T_DEFECTS[b][0] == "parent"):
            return None
        pos = {a: n - 1 if "torn-last-line" in (a, b) else 2, b: n - 1 if "torn-last-line" in (a, b) else 2}
    else:
        if a == "torn-last-line":
            return None
        pos = {a: 1, b: n - 1 if b == "torn-last-line" else 3} if a != b else None
    order = [(a, pos[a] if pos else 1), (b, pos[b] if pos else 3)]
    for d, p in sorted(order, key=lambda x: -T_STAGES.index(T_DEFECTS[x[0]][0])):
        e = lines[p].event
        if d == "negative-timestamp":
            e["timestamp"] = -1
        elif d == "missing-message":
            del e["message"]
        elif d == "duplicate-entry-id":
            e["id"] = "e1"
        elif d == "forward-parent":
            e["parent_id"] = "e%d" % n
        elif d == "dangling-parent":
            e["parent_id"] = "ghost"
        elif d == "self-parent":
            e["parent_id"] = e["id"]
    for k, (d, p) in enumerate(order):
        if d == "bom":
            lines[p].bom = True
        elif d == "invalid-utf8":
            lines[p].bad_utf8 = True
        elif d in T_TEXT:
            lines[p].raw.append(("x-%d" % k, T_TEXT[d]))
        elif d == "torn-last-line":
            lines[p].torn = True
    data = b"\n".join(l.render() for l in lines)
    violations = []
    for k, (d, p) in enumerate(order):
        stage, code, _ = T_DEFECTS[d]
        text_pos = [r[0] for r in lines[p].raw].index("x-%d" % k) if d in T_TEXT else (99 if d == "torn-last-line" else 0)
        violations.append((p + 1, T_STAGES.index(stage), text_pos, code))
    line, _, _, code = min(violations)
    return data, code, line


P_T = "tables/tree-order"


def precedence_tree():
    for same_line in (False, True):
        for a in T_DEFECTS:
            for b in T_DEFECTS:
                built = build_tree_pair(a, b, same_line)
                if built is None:
                    continue
                data, code, line = built
                where = "on one line, %s first in the text" % a if same_line else "%s on an earlier line than %s" % (a, b)
                checks = [{"op": {"op": "tree_inspect"}, "expect": err(code, line)},
                          {"op": {"op": "tree_apply", "ops": [{"step": "save_load"}]}, "expect": err(code, line)}]
                add(P_T, "%s-%s-%s" % ("line" if same_line else "lines", a, b),
                    "A tree file with %s and %s, %s: the first error is %s at line %d (T-ORDER-1)." % (a, b, where, code, line),
                    ["T-ORDER-1", T_DEFECTS[a][2], T_DEFECTS[b][2]],
                    data, checks, ["precedence"])


# ---------------------------------------------------------------------------------------
# tables/tree-step-order: two failing checks inside one tree step (T-APPEND-1, T-APPENDNEW-1)
# ---------------------------------------------------------------------------------------
def nest(k):
    v = 0
    for _ in range(k):
        v = [v]
    return v


def precedence_steps():
    group = "tables/tree-step-order"
    path3 = "\n".join(tentry("e%d" % i, None if i == 1 else "e%d" % (i - 1), "m%d" % i, i) for i in (1, 2, 3))
    full = "\n".join([tentry("e18446744073709551614", None, "m1", 1), tentry("x", "e18446744073709551614", "m2", 2)])
    after = {"step": "save_load"}
    deep = nest(128)
    # (name, description, file, the step, the hand-derived error of that step)
    cases = [
        ("append-deep-and-no-id", "append of a message 128 deep when no id is left: the depth is checked first (T-APPEND-1).",
         tentry("e18446744073709551615", None, "m", 1), {"step": "append", "message": deep, "timestamp": 5}, ("nesting_too_deep",)),
        ("append-new-shorter-and-differs", "A history shorter than the path whose first message also differs: the length rule "
         "first, index = its length.", path3, {"step": "append_new", "history": ["X", "m2"], "timestamp": 5}, ("history_diverged", 2)),
        ("append-new-shorter-and-deep", "A shorter history holding a message 128 deep (compared, not new): the length rule first.",
         path3, {"step": "append_new", "history": ["m1", deep], "timestamp": 5}, ("history_diverged", 2)),
        ("append-new-shorter-and-no-id", "A shorter history when no id is left: the length rule first.",
         full, {"step": "append_new", "history": ["m1"], "timestamp": 5}, ("history_diverged", 1)),
        ("append-new-differs-twice", "Two differing messages: the first differing index.", path3,
         {"step": "append_new", "history": ["m1", "X", "Y", "new"], "timestamp": 5}, ("history_diverged", 1)),
        ("append-new-differs-and-deep", "A differing message and a new message 128 deep: the divergence first.", path3,
         {"step": "append_new", "history": ["m1", "X", "m3", deep], "timestamp": 5}, ("history_diverged", 1)),
        ("append-new-differs-and-no-id", "A differing message and more new messages than ids left: the divergence first.", full,
         {"step": "append_new", "history": ["m1", "X", "a", "b"], "timestamp": 5}, ("history_diverged", 1)),
        ("append-new-deep-and-no-id", "A new message 128 deep and more new messages than ids left: the depth first.", full,
         {"step": "append_new", "history": ["m1", "m2", "a", deep], "timestamp": 5}, ("nesting_too_deep",)),
        ("append-new-deep-first-of-new", "The first new message is 128 deep, the second fine: nothing is appended.", path3,
         {"step": "append_new", "history": ["m1", "m2", "m3", deep, "fine"], "timestamp": 5}, ("nesting_too_deep",)),
        ("append-new-all-four", "Shorter-equal length, a difference, a deep new message and no ids: the divergence wins.", full,
         {"step": "append_new", "history": ["X", "m2", deep, "b", "c"], "timestamp": 5}, ("history_diverged", 0)),
        ("append-new-exactly-the-ids-left", "Exactly as many new messages as ids left (one): it appends.", full,
         {"step": "append_new", "history": ["m1", "m2", "last"], "timestamp": 5}, None),
    ]
    for name, desc, text, step, want in cases:
        steps = [step, after]
        result = tree_oracle.apply(text, steps)
        got = result["results"][0]
        if want is None:
            assert not (isinstance(got, dict) and "error" in got), (name, got)
        else:
            assert got == err(want[0], index=want[1] if len(want) > 1 else None), (name, got, want)
        rules = ["T-APPENDNEW-1" if step["step"] == "append_new" else "T-APPEND-1", "T-ERR-1", "T-SAVE-1"]
        if want and want[0] == "nesting_too_deep":
            rules.append("T-APPEND-1")
        if "no-id" in name or "ids" in name:
            rules.append("T-NEXT-1")
        add(group, name, desc + " The saved tree shows nothing appended.", rules, text.encode("utf-8"),
            [{"op": {"op": "tree_apply", "ops": steps}, "expect": {"result": result}}], ["precedence"])


# ---------------------------------------------------------------------------------------
# tables/boundaries: empty strings and boundary numbers wherever SPEC.md accepts them
# ---------------------------------------------------------------------------------------
B = "tables/boundaries"
LONG = "x" * 10000


def replay_checks(events, untils=(), ats=(), bid="b"):
    """validate, replay (whole and per until), fingerprint per until, branch per at: results
    from the oracle for in-range arguments, sequence_out_of_range (O-RANGE-1) otherwise."""
    n = len(events)
    checks = [{"op": {"op": "validate"}, "expect": {"result": {"event_count": n}}},
              {"op": {"op": "replay"}, "expect": {"result": oracle.replay(events)}}]
    for u in untils:
        ok = 0 <= u < n
        checks.append({"op": {"op": "replay", "until": u},
                       "expect": {"result": oracle.replay(events, u)} if ok else err("sequence_out_of_range", None, u)})
        checks.append({"op": {"op": "fingerprint", "until": u},
                       "expect": {"result": oracle.fingerprint(events[: u + 1])} if ok else err("sequence_out_of_range", None, u)})
    for at in ats:
        ok = 0 <= at < n
        checks.append({"op": {"op": "branch", "at": at, "branch_id": bid},
                       "expect": {"result": oracle.branch(events, at, bid)} if ok else err("sequence_out_of_range", None, at)})
    return checks


def lines_of(events):
    return b"".join(jline(e) + b"\n" for e in events)


def boundaries_journal():
    # Envelope strings: "" is malformed (non-empty required); anything else, whitespace
    # included, is a valid value used exactly as given.
    for field in ("event_id", "session_id", "type", "run_id", "parent_event_id"):
        for label, v in (("empty", ""), ("space", " "), ("nbsp", "\u00a0"), ("one-char", "x"), ("long", LONG)):
            events = [ev(0, "session.start", parent=None), ev(1, "user.message", {"content": "hi"}, parent=None)]
            if field == "event_id":
                events[0]["event_id"] = v
            elif field == "session_id":
                for e in events:
                    e["session_id"] = v
            elif field == "type":
                events[0]["type"] = v
            elif field == "run_id":
                for e in events:
                    e["provenance"]["run_id"] = v
            else:
                if v:
                    events[0]["event_id"] = v
                events[1]["parent_event_id"] = v
            data = lines_of(events)
            name = "%s-%s" % (field.replace("_", "-"), label)
            if v == "":
                line = 2 if field == "parent_event_id" else 1
                checks = [{"op": {"op": o}, "expect": err("malformed_event", line, line - 1)} for o in ("validate", "replay")]
                rules = ["E-ENV-1"]
                desc = "`%s` is the empty string: malformed (E-ENV-1 wants a non-empty string)." % field
            else:
                checks = replay_checks(events, untils=(0, 1), ats=(0, 1))
                rules = ["E-ENV-1", "F-FP-1", "B-RANGE-1", "R-SEL-1"] + (["J-PARENT-1"] if field == "parent_event_id" else [])
                desc = "`%s` is %s: a valid value, kept exactly (not trimmed)." % (field, label.replace("-", " "))
            tags = ["boundary"] + (["departs-from-seed"] if seed_departs(data, checks) else [])
            add(B, name, desc, rules, data, checks, tags)
    # Strings the reducer reads: "" and whitespace are values; absent has its default.
    for type_, field, extra, rule in (("user.message", "content", {}, "R-USER-1"), ("model.response", "content", {}, "R-STREAM-1"),
                                      ("model.response", "accumulated", {"final": True}, "R-STREAM-1"),
                                      ("model.response", "delta", {"final": False}, "R-STREAM-1"),
                                      ("session.stop", "reason", {}, "R-STOP-1")):
        for label, v in (("empty", ""), ("space", " "), ("unknown", "unknown"), ("absent", None)):
            payload = dict(extra)
            if v is not None:
                payload[field] = v
            events = [ev(0, "session.start"), ev(1, type_, payload), ev(2, "model.request")]
            data = lines_of(events)
            checks = replay_checks(events, untils=(0, 1, 2))
            tags = ["boundary"] + (["departs-from-seed"] if seed_departs(data, checks) else [])
            add(B, "%s-%s-%s" % (type_.replace(".", "-"), field, label),
                "payload.%s of %s is %s." % (field, type_, "absent" if v is None else repr(v)), [rule, "R-TYPE-1", "R-SEL-1", "F-FP-1"],
                data, checks, tags)
    # until / at at 0, at the last sequence, and just outside, on journals of 1 and 3 events.
    for n in (1, 3):
        events = [ev(i, ["session.start", "user.message", "session.stop"][i], {"content": "u"} if i == 1 else None)
                  for i in range(n)]
        edge = (0, n - 1, n, -1, 2 ** 63 - 1, -2 ** 63)
        data = lines_of(events)
        checks = replay_checks(events, untils=edge, ats=edge)
        tags = ["boundary"] + (["departs-from-seed"] if seed_departs(data, checks) else [])
        add(B, "until-and-at-edges-%d-events" % n, "A %d-event journal: until and at at 0, at the last sequence %d, and just "
            "outside (n, -1, the i64 limits)." % (n, n - 1), ["R-SEL-1", "O-RANGE-1", "B-RANGE-1", "F-FP-1", "J-EMPTY-1"],
            data, checks, tags)
    # Branch ids: empty and only-B-ID-2-whitespace are invalid; anything with one other
    # character is valid and kept exactly.
    events = [ev(0, "session.start"), ev(1, "user.message", {"content": "u"})]
    for label, bid in (("empty", ""), ("space", " "), ("tab", "\t"), ("nbsp", "\u00a0"), ("x", "x"), ("leading-space", " x"),
                       ("trailing-space", "x "), ("zwsp", "\u200b"), ("feff", "\ufeff"), ("long", LONG)):
        blank = all(c.isspace() for c in bid)  # B-ID-2: exactly str.isspace()
        checks = [{"op": {"op": "branch", "at": at, "branch_id": bid},
                   "expect": err("invalid_branch_id") if blank else {"result": oracle.branch(events, at, bid)}} for at in (0, 1)]
        data = lines_of(events)
        tags = ["boundary"] + (["departs-from-seed"] if seed_departs(data, checks) else [])
        add(B, "branch-id-" + label, "Branch id %r at 0 and at the last sequence: %s." % (bid[:8], "invalid (B-ID-1)" if blank else "kept exactly"),
            ["B-ID-1", "B-ID-2", "B-RANGE-1"], data, checks, tags)
    # Every other code point of whitespace.json as a one-character branch id: blank exactly
    # when str.isspace() says so (B-ID-2), so a hand-written set one range too wide or
    # short fails (conformance/tools/py_mutants.py: U+0021 added to the U+001C..U+0020 run).
    for c in CPS:
        if c["cp"] in (0x20, 0x09, 0xA0, 0x200B, 0xFEFF):
            continue  # above, by name
        bid = chr(c["cp"])
        blank = bid.isspace()
        checks = [{"op": {"op": "branch", "at": 0, "branch_id": bid},
                   "expect": err("invalid_branch_id") if blank else {"result": oracle.branch(events, 0, bid)}}]
        data = lines_of(events)
        tags = ["boundary", "whitespace"] + (["departs-from-seed"] if seed_departs(data, checks) else [])
        add(B, "branch-id-u%04x" % c["cp"], "Branch id %s (%s) alone: %s." % (c["hex"], c["name"], "blank, invalid (B-ID-1)" if blank else "not blank, kept exactly"),
            ["B-ID-1", "B-ID-2"], data, checks, tags)


def boundaries_tree():
    group = "tables/boundaries"
    cases = [
        ("tree-empty-id-and-parent", "An entry whose id is the empty string, and a child naming it as parent.",
         "\n".join([tentry("", None, "root", 1), tentry("e1", "", "child", 2)]),
         [{"step": "seek", "id": ""}, {"step": "append", "message": "x", "timestamp": 3}, {"step": "save_load"}],
         ["T-ENTRY-1", "T-PARENT-1", "T-SEEK-1"]),
        ("tree-empty-label", "The empty label: set on load, then again by a checkpoint, and found by seek_checkpoint.",
         "\n".join([tentry("e1", None, "a", 1, ""), tentry("e2", "e1", "b", 2)]),
         [{"step": "seek_checkpoint", "label": ""}, {"step": "append", "message": "c", "timestamp": 3},
          {"step": "checkpoint", "label": ""}, {"step": "seek", "id": "e1"}, {"step": "seek_checkpoint", "label": ""}],
         ["T-ENTRY-1", "T-CHECKPOINT-1", "T-SEEKCP-1"]),
        ("tree-timestamps-0-and-max", "Timestamps 0 and 2^64-1, on load and on appended entries.",
         "\n".join([tentry("e1", None, "a", 0), tentry("e2", "e1", "b", 2 ** 64 - 1)]),
         [{"step": "append", "message": "c", "timestamp": 0}, {"step": "append_new", "history": ["a", "b", "c", "d"],
                                                                  "timestamp": 2 ** 64 - 1}, {"step": "save_load"}],
         ["T-ENTRY-1", "T-APPEND-1", "T-APPENDNEW-1"]),
        ("tree-empty-and-null-messages", "Messages \"\", null, [], {}, 0 and false are messages like any other.", "",
         [{"step": "append", "message": m, "timestamp": 1} for m in ("", None, [], {}, 0, False)] + [{"step": "save_load"}],
         ["T-APPEND-1", "T-ENTRY-1"]),
        ("tree-append-new-empty-on-empty", "append_new with an empty history on an empty tree appends nothing (0).", "",
         [{"step": "append_new", "history": [], "timestamp": 1}, {"step": "append_new", "history": [""], "timestamp": 2}],
         ["T-APPENDNEW-1"]),
        ("tree-one-entry", "A one-entry tree: append_new equal to its path (0), then one more (1).", tentry("e1", None, "a", 1),
         [{"step": "append_new", "history": ["a"], "timestamp": 2}, {"step": "append_new", "history": ["a", "b"], "timestamp": 3}],
         ["T-APPENDNEW-1", "T-PATH-1"]),
        ("tree-seek-empty-id-missing", "seek to the empty id when no entry has it fails (unknown_entry); the head stays.",
         tentry("e1", None, "a", 1), [{"step": "seek", "id": ""}, {"step": "append", "message": "b", "timestamp": 2}],
         ["T-SEEK-1", "T-ERR-1"]),
        ("tree-empty-file", "An empty file: inspect, append_new of nothing, a checkpoint failing, one append.", "",
         [{"step": "checkpoint", "label": "x"}, {"step": "append", "message": "a", "timestamp": 1}], ["T-CHECKPOINT-1", "T-ERR-1"]),
    ]
    for name, desc, text, steps, rules in cases:
        t = tree_oracle.Tree.load(text)
        checks = [{"op": {"op": "tree_inspect"}, "expect": {"result": t.inspect()}},
                  {"op": {"op": "tree_apply", "ops": steps}, "expect": {"result": tree_oracle.apply(text, steps)}}]
        add(group, name, desc, rules + ["T-OPS-1", "T-SAVE-1"], text.encode("utf-8"), checks, ["boundary"])


# ---------------------------------------------------------------------------------------
# tables/streaming: R-STREAM-1's shapes, alone, in pairs, and in the named scenarios
# ---------------------------------------------------------------------------------------
SHAPES = {
    "content": lambda i: {"content": "C%d" % i},
    "content-empty": lambda i: {"content": ""},
    "delta": lambda i: {"delta": "d%d" % i, "accumulated": "A%d" % i, "final": False},
    "delta-empty": lambda i: {"delta": "", "accumulated": "", "final": False},
    "delta-no-final": lambda i: {"delta": "d%d" % i, "accumulated": "A%d" % i},
    "final": lambda i: {"delta": "f%d" % i, "accumulated": "F%d" % i, "final": True},
    "final-empty": lambda i: {"delta": "", "accumulated": "", "final": True},
    "final-no-accumulated": lambda i: {"delta": "f%d" % i, "final": True},
    "final-and-content": lambda i: {"content": "C%d" % i, "accumulated": "F%d" % i, "final": True},
    "final-one": lambda i: {"accumulated": "N%d" % i, "final": 1},
    "final-string": lambda i: {"accumulated": "S%d" % i, "final": "true"},
}


def stream_case(name, desc, payloads, others=None, tags=("streaming",)):
    """model.response events with the given payloads (and, at given positions, other events),
    replayed whole and up to every sequence."""
    events = []
    for i, p in enumerate(payloads):
        if isinstance(p, tuple):
            events.append(ev(i, p[0], p[1]))
        else:
            events.append(ev(i, "model.response", p))
    checks = replay_checks(events, untils=range(len(events)))
    checks = [c for c in checks if c["op"]["op"] != "fingerprint"]
    data = lines_of(events)
    tags = list(tags) + (["departs-from-seed"] if seed_departs(data, checks) else [])
    add("tables/streaming", name, desc, ["R-STREAM-1", "R-SEL-1", "R-PROJ-1"], data, checks, tags)


def streaming():
    names = list(SHAPES)
    for a in names:
        stream_case(a, "One model.response of shape %s, replayed." % a, [SHAPES[a](0)])
    for a in names:
        for b in names:
            stream_case("%s-then-%s" % (a, b), "model.response %s then %s, replayed up to each." % (a, b), [SHAPES[a](0), SHAPES[b](1)])
    mid = lambda i, m: {"delta": "d%d" % i, "accumulated": "A%d" % i, "final": False, "message_id": m}  # noqa: E731
    fin = lambda i, m: {"delta": "f%d" % i, "accumulated": "F%d" % i, "final": True, "message_id": m}  # noqa: E731
    scenarios = [
        ("scenario-deltas-after-final", "Deltas after a final (an unfinished second stream) add nothing.",
         [mid(0, "m1"), fin(1, "m1"), mid(2, "m2"), mid(3, "m2")]),
        ("scenario-final-without-deltas", "A final with no delta before it is a message.", [fin(0, "m1")]),
        ("scenario-interleaved-message-ids", "Two streams interleaved by message id: each final appends its own accumulated, "
         "in the order of the finals (message_id is never read).",
         [mid(0, "m1"), mid(1, "m2"), fin(2, "m2"), mid(3, "m1"), fin(4, "m1")]),
        ("scenario-content-mid-stream", "A content response in the middle of a stream lands before the stream's final.",
         [mid(0, "m1"), {"content": "C1"}, mid(2, "m1"), fin(3, "m1")]),
        ("scenario-message-lands-at-its-final", "A stream that starts before a content response but ends after it lands after it.",
         [mid(0, "m1"), {"content": "C1"}, fin(2, "m1"), {"content": "C3"}]),
        ("scenario-stream-across-user-and-tool", "A stream spanning a user message and a tool result: the arrays are separate, "
         "the assistant message lands at its final.",
         [mid(0, "m1"), ("user.message", {"content": "u1"}), ("tool.result", {"id": "t"}), fin(3, "m1"),
          ("user.message", {"content": "u2"})]),
        ("scenario-empty-deltas-then-final", "Empty deltas, then a final with an empty accumulated: one empty message.",
         [{"delta": "", "accumulated": "", "final": False}, {"delta": "", "final": False}, {"delta": "", "accumulated": "", "final": True}]),
        ("scenario-two-finals-one-message-id", "Two finals with one message id are two messages.", [fin(0, "m1"), fin(1, "m1")]),
        ("scenario-unfinished-stream", "A stream that never finishes gives no message, even replayed whole.",
         [mid(0, "m1"), mid(1, "m1"), mid(2, "m1")]),
        ("scenario-final-then-content-same-event", "content beats final on one event; the next final still counts.",
         [{"content": "C0", "final": True, "accumulated": "F0"}, fin(1, "m1")]),
        ("scenario-stop-mid-stream", "A session.stop inside a stream: the stop reason and the later final both count.",
         [mid(0, "m1"), ("session.stop", {"reason": "paused"}), fin(2, "m1")]),
    ]
    for name, desc, payloads in scenarios:
        stream_case(name, desc, payloads)


def main():
    boundaries_journal()
    boundaries_tree()
    streaming()
    whitespace_journal()
    whitespace_tree()
    whitespace_canonical()
    whitespace_store()
    precedence_journal()
    precedence_tree()
    precedence_steps()
    write()


def write():
    total = 0
    for group, cases in sorted(FILES.items()):
        path = os.path.join(ROOT, group + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n"
        with open(path + ".tmp", "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        total += len(cases)
        print("%-34s %5d cases" % (group + ".json", len(cases)))
    print("total %d cases" % total)


if __name__ == "__main__":
    main()
