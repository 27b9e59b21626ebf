#!/usr/bin/env python3
"""Build the durable-store vectors (conformance/store.json): `python3 conformance/tools/build_store.py`.

Each case is a `store_apply` operation (SPEC.md S-OPS-1): an initial journal file and a list
of steps. Expected results come from a small model of the store written here from SPEC.md
section 16 (the exercise E duplicate table, torn-tail recovery, checkpoint equivalence),
with oracle.py (the seed's projection and json.dumps) for replay states and fingerprints.
Lines meant to be rejected carry their hand-derived error code in the builder (`bad(...)`),
the model never decides validity by itself. Deterministic.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = []


def canon(v):
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def ev(i, type_="model.request", payload=None, event_id=None, parent="prev", session="sess-1", run="run-1"):
    e = {"event_id": event_id or "e%d" % i, "session_id": session, "sequence": i, "type": type_,
         "payload": payload or {}, "provenance": {"run_id": run}}
    if parent == "prev" and i > 0:
        e["parent_event_id"] = "e%d" % (i - 1)
    elif parent not in ("prev", None):
        e["parent_event_id"] = parent
    return e


def line(e, **kw):
    return json.dumps(e, ensure_ascii=False, separators=(",", ":"), **kw)


class Bad:
    """A line the store must reject, with the hand-derived code and journal line."""

    def __init__(self, text, code, line_no):
        self.text, self.code, self.line = text, code, line_no


class Model:
    def __init__(self, initial):
        self.recovered = []
        self.lines = []  # accepted raw lines (without \n)
        self.canon = {}  # event_id -> (sequence, canonical text)
        self.checkpoint = None
        self.open(initial)

    def open(self, data):
        text = data.decode("utf-8")
        if text and not text.endswith("\n"):
            cut = text.rfind("\n") + 1
            self.recovered.append({"offset": len(text[:cut].encode()), "torn": text[cut:]})
            text = text[:cut]
        self.lines = [l for l in text.split("\n")[:-1]] if text else []
        self.canon = {}
        for i, l in enumerate(self.lines):
            v = json.loads(l)
            self.canon[v["event_id"]] = (i, canon(v))

    def file(self):
        return "".join(l + "\n" for l in self.lines)

    def events(self):
        return [json.loads(l) for l in self.lines]

    def append(self, item):
        if isinstance(item, Bad):
            return {"error": {"code": item.code, "line": item.line}}
        v = json.loads(item)
        if v["event_id"] in self.canon:
            seq, c = self.canon[v["event_id"]]
            if c == canon(v):
                return {"event_id": v["event_id"], "sequence": seq, "duplicate": True}
            return {"error": {"code": "conflicting_duplicate", "line": len(self.lines) + 1}}
        assert v["sequence"] == len(self.lines), "builder error: a valid line must carry the next sequence"
        self.canon[v["event_id"]] = (len(self.lines), canon(v))
        self.lines.append(item)
        return {"event_id": v["event_id"], "sequence": len(self.lines) - 1, "duplicate": False}


def text_of(item):
    return item.text if isinstance(item, Bad) else item


def case(name, description, rules, initial, steps, tags=None):
    m = Model(initial)
    results, json_steps = [], []
    for st in steps:
        kind = st[0]
        if kind == "append":
            json_steps.append({"step": "append", "line": text_of(st[1])})
            results.append(m.append(st[1]))
        elif kind == "batch":
            json_steps.append({"step": "append_batch", "lines": [text_of(x) for x in st[1]]})
            out = []
            for item in st[1]:
                r = m.append(item)
                out.append(r)
                if "error" in r:
                    break
            results.append(out)
        elif kind == "restart":
            json_steps.append({"step": "restart"})
            m.open(m.file().encode())
            results.append(None)
        elif kind == "checkpoint":
            json_steps.append({"step": "checkpoint"})
            evs = m.events()
            m.checkpoint = len(evs)
            results.append({"event_count": len(evs), "source_fingerprint": oracle.fingerprint(evs)})
        elif kind in ("replay", "replay_from_checkpoint"):
            json_steps.append({"step": kind})
            results.append(oracle.replay(m.events()))
        else:
            raise ValueError(kind)
    c = {"name": name, "description": description, "rules": rules}
    if tags:
        c["tags"] = tags
    c["input"] = initial.decode("utf-8")
    c["checks"] = [{"op": {"op": "store_apply", "steps": json_steps},
                    "expect": {"result": {"recovered": m.recovered, "results": results, "journal": m.file()}}}]
    CASES.append(c)


def error_case(name, description, rules, initial, steps, code, line_no):
    CASES.append({"name": name, "description": description, "rules": rules, "input": initial.decode("utf-8"),
                  "checks": [{"op": {"op": "store_apply", "steps": [{"step": s} if isinstance(s, str) else s for s in steps]},
                              "expect": {"error": {"code": code, "line": line_no}}}]})


E = [ev(0, "session.start"), ev(1, "user.message", {"content": "hi"}), ev(2, "model.request"),
     ev(3, "model.response", {"content": "hello"}), ev(4, "session.stop", {"reason": "completed"})]
L = [line(e) for e in E]
empty = b""

# --- exercise E: the duplicate-delivery table -------------------------------------------
case("append-fresh", "Appending to an empty journal acknowledges each event with its sequence.", ["S-ACK-2", "S-VALID-1", "S-OPS-1"],
     empty, [("append", l) for l in L] + [("replay",)])
case("retry-identical", "An identical retry is ignored and returns the original acknowledgement.", ["S-DUP-1"],
     empty, [("append", L[0]), ("append", L[1]), ("append", L[1]), ("append", L[0]), ("append", L[2])])
case("retry-respelled", "A retry with other key order, whitespace and escapes is still identical (canonical text).", ["S-DUP-1", "F-FP-2"],
     empty, [("append", L[0]), ("append", L[1]),
             ("append", json.dumps(dict(reversed(list(E[1].items()))), ensure_ascii=True, indent=None, separators=(", ", " : ")))])
case("retry-conflicting", "A retry with the same id and different content is refused and writes nothing.", ["S-DUP-1"],
     empty, [("append", L[0]), ("append", L[1]),
             ("append", line(dict(E[1], payload={"content": "HI"}))), ("append", L[2])])
case("retry-conflicting-and-ill-typed", "A changed retry that also breaks R-TYPE-1 is rejected for its payload (checked before the duplicate lookup).", ["S-DUP-1", "R-TYPE-1"],
     empty, [("append", L[0]), ("append", L[1]), ("append", Bad(line(dict(E[1], payload={"content": 5})), "invalid_payload", 3))])
case("retry-int-vs-float", "1 and 1.0 differ: a retry that changes an integer to a float conflicts.", ["S-DUP-1", "C-NUM-1"],
     empty, [("append", line(ev(0, payload={"n": 1}))), ("append", line(ev(0, payload={"n": 1.0})))])
case("retry-after-restart", "Duplicate detection survives a restart (the index is rebuilt on open).", ["S-DUP-1", "S-RECOVER-1"],
     empty, [("append", L[0]), ("append", L[1]), ("restart",), ("append", L[1]), ("append", line(dict(E[1], type="user.note"))), ("append", L[2])])
case("retry-old-event-late", "Retrying event 0 after many others still returns its original sequence.", ["S-DUP-1"],
     b"".join(l.encode() + b"\n" for l in L[:4]), [("append", L[0]), ("append", L[4]), ("append", L[0])])
case("invalid-append-writes-nothing", "Rejected lines (gap, mixed session, malformed) write nothing; the next valid line goes on.", ["S-VALID-1"],
     empty, [("append", L[0]),
             ("append", Bad(line(ev(2)), "sequence_gap", 2)),
             ("append", Bad(line(ev(1, session="sess-2")), "mixed_session", 2)),
             ("append", Bad('{"event_id":"e1"}', "malformed_event", 2)),
             ("append", Bad('{"event_id":', "invalid_json", 2)),
             ("append", Bad(line(ev(1, parent="e9")), "unknown_parent", 2)),
             ("append", L[1])])
case("newline-in-line", "An appended line must not contain a newline.", ["S-VALID-1"],
     empty, [("append", Bad(L[0] + "\n" + L[1], "invalid_json", 1)), ("append", L[0])])
# The newline at either end: to a JSON parser it is whitespace, so a store that checks only
# the parse (or only a newline between two bytes) writes a blank line into the journal.
case("newline-first-in-line", "An appended line must not begin with a newline.", ["S-VALID-1"],
     empty, [("append", Bad("\n" + L[0], "invalid_json", 1)), ("append", L[0])])
case("newline-last-in-line", "An appended line must not end with a newline.", ["S-VALID-1"],
     empty, [("append", Bad(L[0] + "\n", "invalid_json", 1)), ("append", L[0])])
case("append-keeps-bytes", "The store writes the line exactly as given (spacing and escapes kept).", ["S-VALID-1"],
     empty, [("append", '{ "event_id" : "e0", "session_id":"s\\u0031", "sequence":0, "type":"t", "payload":{"k":"\\u00e9"}, "provenance":{"run_id":"r"} }')])

# --- group commit --------------------------------------------------------------------------
case("batch", "A batch acknowledges every line after one sync.", ["S-BATCH-1"], empty, [("batch", L), ("replay",)])
case("batch-with-duplicate", "A duplicate inside a batch returns its original acknowledgement.", ["S-BATCH-1", "S-DUP-1"],
     empty, [("batch", [L[0], L[1], L[0], L[2]])])
case("batch-stops-at-error", "The first rejected line stops the batch; earlier lines are kept.", ["S-BATCH-1", "J-SEQ-1"],
     empty, [("batch", [L[0], L[1], Bad(line(ev(3)), "sequence_gap", 3), L[2]]), ("append", L[2])])

# A batch on an EMPTY journal: the batch's own earlier lines fix the session and run and
# hold the ids its later lines name (J-SESSION-1, J-RUN-1, J-PARENT-1, J-ID-1); a store
# that checks a batch only against the journal on disk accepts each of these.
for name, bad, code, rule in [
    ("batch-on-empty-mixed-session", line(ev(1, session="sess-2")), "mixed_session", "J-SESSION-1"),
    ("batch-on-empty-mixed-run", line(ev(1, run="run-2")), "mixed_run", "J-RUN-1"),
    ("batch-on-empty-unknown-parent", line(ev(1, parent="e9")), "unknown_parent", "J-PARENT-1"),
]:
    case(name, "On an empty journal, a batch whose second line breaks %s against its first line stops there; the first line is kept." % rule,
         ["S-BATCH-1", rule], empty, [("batch", [L[0], Bad(bad, code, 2), L[1]]), ("replay",)])

# --- recovery ------------------------------------------------------------------------------
good = b"".join(l.encode() + b"\n" for l in L[:3])
case("torn-tail-moved-aside", "An unterminated last line is moved aside on open and never acknowledged.", ["S-TORN-1", "S-RECOVER-1"],
     good + L[3][:20].encode(), [("append", L[3]), ("replay",)], tags=["torn"])
case("torn-tail-complete-json", "A complete event without its final newline is still torn (it was never acknowledged).", ["S-TORN-1"],
     good + L[3].encode(), [("append", L[3])], tags=["torn"])
case("torn-then-restart", "Recovery happens once; a restart of a clean journal recovers nothing.", ["S-RECOVER-1"],
     good + b'{"ev', [("restart",), ("append", L[3])], tags=["torn"])
CASES.append({"name": "torn-terminated-garbage", "description": "A last line that ends in a newline but does not parse is torn and moved aside.",
              "rules": ["S-TORN-1", "S-RECOVER-1"], "tags": ["torn"], "input": (good + b'{"event_id":"e3",\n').decode(),
              "checks": [{"op": {"op": "store_apply", "steps": [{"step": "append", "line": L[3]}]},
                          "expect": {"result": {"recovered": [{"offset": len(good), "torn": '{"event_id":"e3",\n'}],
                                                "results": [{"event_id": "e3", "sequence": 3, "duplicate": False}],
                                                "journal": (good + L[3].encode() + b"\n").decode()}}}]})
error_case("bad-line-in-middle", "A bad line in the middle makes the open fail: acknowledged data is never truncated.", ["S-RECOVER-1", "C-SYNTAX-1"],
           L[0].encode() + b"\n{oops\n" + L[1].encode() + b"\n", ["replay"], "invalid_json", 2)
error_case("complete-last-line-breaks-rule", "A complete last line that parses but breaks a rule is not torn: the open fails.", ["S-RECOVER-1", "S-TORN-1", "J-SEQ-1"],
           good + line(ev(7)).encode() + b"\n", ["replay"], "sequence_gap", 4)

# An existing journal that breaks a journal rule in the middle: the open fails at that line
# with that rule's code (S-RECOVER-1: only a torn LAST line is recovered), for each rule of
# J-ORDER-1's step 5 (a port that checks only the lines it appends passes none of these).
for name, bad, code, rule in [
    ("open-duplicate-id-in-middle", ev(1, event_id="e0", parent="e0"), "duplicate_event_id", "J-ID-1"),
    ("open-unknown-parent-in-middle", ev(1, parent="e9"), "unknown_parent", "J-PARENT-1"),
    ("open-mixed-session-in-middle", ev(1, session="sess-2"), "mixed_session", "J-SESSION-1"),
    ("open-mixed-run-in-middle", ev(1, run="run-2"), "mixed_run", "J-RUN-1"),
]:
    error_case(name, "A journal whose line 2 breaks %s (line 3 is fine): the open fails there." % rule,
               ["S-RECOVER-1", rule], (line(ev(0)) + "\n" + line(bad) + "\n" + line(ev(2)) + "\n").encode(),
               ["replay"], code, 2)

# --- checkpoints (exercise F) --------------------------------------------------------------
case("checkpoint-equivalence", "Replay from a checkpoint plus the tail equals replay from event zero.", ["K-REPLAY-1", "K-RECORD-1"],
     empty, [("batch", L[:3]), ("checkpoint",), ("batch", L[3:]), ("replay_from_checkpoint",), ("replay",)])
case("checkpoint-at-end", "A checkpoint of the whole journal replays with an empty tail.", ["K-REPLAY-1"],
     empty, [("batch", L), ("checkpoint",), ("replay_from_checkpoint",)])
case("checkpoint-then-restart", "A checkpoint stays valid across a restart; the tail is checked against the prefix's ids.", ["K-REPLAY-1", "K-WRITE-1"],
     empty, [("batch", L[:2]), ("checkpoint",), ("restart",), ("append", L[1]), ("batch", L[2:]), ("replay_from_checkpoint",)])
case("checkpoint-three-times", "Three checkpoints at 1, 3 and 5 events (each result names its own count and prefix fingerprint); "
     "a retry of the first event is its original acknowledgement; replay from the latest checkpoint equals replay from zero.", ["K-REPLAY-1", "K-RECORD-1", "S-DUP-1"],
     empty, [("append", L[0]), ("checkpoint",), ("batch", L[1:3]), ("checkpoint",), ("batch", L[3:5]), ("checkpoint",),
             ("append", L[0]), ("replay_from_checkpoint",), ("replay",)], tags=["multiplicity"])
case("checkpoint-streaming-and-tools", "Checkpoint equivalence with streaming deltas and tool results on both sides.", ["K-REPLAY-1", "R-STREAM-1"],
     empty, [("batch", [line(ev(0, "model.response", {"delta": "a", "accumulated": "a", "final": False})),
                        line(ev(1, "tool.result", {"ok": True, "n": 1e16}))]),
             ("checkpoint",),
             ("batch", [line(ev(2, "model.response", {"delta": "b", "accumulated": "ab", "final": True})),
                        line(ev(3, "session.stop", {}))]),
             ("replay_from_checkpoint",), ("replay",)], tags=["streaming"])
case("checkpoint-unicode-state", "The hash state carried in a checkpoint covers multi-byte text split across blocks.", ["K-RECORD-1", "K-REPLAY-1"],
     empty, [("append", line(ev(0, "user.message", {"content": "é😀" * 40}))), ("checkpoint",),
             ("append", line(ev(1, "user.message", {"content": "after"}))), ("replay_from_checkpoint",)], tags=["unicode"])
# A payload at C-DEPTH-1's limit (event object depth 1, payload 2, 126 arrays: 128) sits two
# levels deeper in a checkpoint (checkpoint, projection, tool_results: 130), the nesting
# limit K-IGNORE-1 reads checkpoints with; the checkpoint must be read, not ignored.
deepest = 0
for _ in range(126):
    deepest = [deepest]
case("checkpoint-deepest-payload", "A tool result at C-DEPTH-1's limit (128) nests 130 deep in a checkpoint, the limit checkpoints are "
     "read with: replay from it uses it and gives the replay from event zero.", ["K-REPLAY-1", "C-DEPTH-1"],
     empty, [("batch", [line(ev(0, "session.start")), line(ev(1, "tool.result", {"ok": True, "deep": deepest}))]),
             ("checkpoint",), ("append", line(ev(2, "session.stop", {}))), ("replay_from_checkpoint",), ("replay",)])
case("checkpoint-none-written", "replay_from_checkpoint with no checkpoint written: the missing checkpoint is ignored (K-IGNORE-1) "
     "and the replay done from event zero.", ["K-REPLAY-1"],
     empty, [("batch", L[:3]), ("replay_from_checkpoint",)])
CASES.append({"name": "checkpoint-empty-journal", "description": "An empty journal has nothing to checkpoint.", "rules": ["K-RECORD-1"],
              "input": "", "checks": [{"op": {"op": "store_apply", "steps": [{"step": "checkpoint"}]},
                                       "expect": {"result": {"recovered": [], "results": [{"error": {"code": "empty_journal", "line": None}}], "journal": ""}}}]})


def write():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    path = os.path.join(ROOT, "store.json")
    with open(path + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps({"cases": CASES}, indent=1, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)
    print("store.json %d cases" % len(CASES))


write()
