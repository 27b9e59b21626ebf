"""A small, deliberately naive journal implementation: what a harness author writes in an
afternoon from SPEC.md with Python's standard library (json.loads per line, json.dumps for
the canonical text, hashlib). It follows SPEC.md everywhere except where Python's json
module or str.strip() is not the spec's. Its deliberate differences, each with the rule it
breaks (tests/decisions.rs lists the same, and checks the kit finds exactly these):

- C-KEY-2     json.loads keeps the last of two equal keys (no `duplicate_key`)
- C-STR-3     json.loads accepts a lone surrogate escape such as \\ud800 (no `lone_surrogate`)
- C-DEPTH-1   json.loads has no nesting bound but the recursion limit (no `nesting_too_deep`)
- C-NUM-6     json.loads turns 1e400 into inf (no `number_out_of_range`)
- C-NUM-3     Python's 4300-digit limit raises ValueError: read as `invalid_json`
- C-SYNTAX-1  json.loads accepts NaN, Infinity and -Infinity
- W-BLANK-1   a line is blank when line.strip() is empty (\\f, \\v, U+00A0, U+2028 ... too)

A planted fault for testing the kit (tests/campaign.rs): with NAIVE_JOURNAL_PLANT=until-off-by-one
in the environment, `until` selects the events BEFORE sequence N, not up to it (R-SEL-1).
"""

import hashlib
import json
import os

PLANT = os.environ.get("NAIVE_JOURNAL_PLANT", "")


class JournalError(Exception):
    def __init__(self, code, line=None, sequence=None, event_id=None, message=""):
        super().__init__(message or code)
        self.code, self.line, self.sequence, self.event_id = code, line, sequence, event_id
        self.message = message


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _non_empty(v):
    return isinstance(v, str) and v != ""


def parse_json(text, line=None):
    """One JSON text (section 3.1), as json.loads reads it; `line`: the journal line."""
    try:
        return json.loads(text)
    except ValueError as e:  # JSONDecodeError, and the 4300-digit limit
        raise JournalError("invalid_json", line=line or getattr(e, "lineno", None), message=str(e))


def read_journal(data):
    """Split on b"\\n" (W-LINE-1), check each line (J-ORDER-1) and return the events."""
    events, ids = [], set()
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # a final "\n" is optional (W-LINE-3)
    for n, raw in enumerate(lines, 1):
        if raw.startswith(b"\xef\xbb\xbf"):
            raise JournalError("unexpected_bom", line=n)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise JournalError("invalid_utf8", line=n, message=str(e))
        if not text.strip():
            raise JournalError("blank_line", line=n)
        e = parse_json(text, n)
        seq = e.get("sequence") if isinstance(e, dict) else None
        seq = seq if _is_int(seq) and -(2**63) <= seq < 2**63 else None
        eid = e.get("event_id") if isinstance(e, dict) and isinstance(e.get("event_id"), str) else None

        def fail(code, message=""):
            return JournalError(code, line=n, sequence=seq, event_id=eid, message=message)

        if not (isinstance(e, dict) and _non_empty(e.get("event_id")) and _non_empty(e.get("session_id"))
                and _is_int(e.get("sequence")) and _non_empty(e.get("type"))
                and isinstance(e.get("payload"), dict) and isinstance(e.get("provenance"), dict)
                and _non_empty(e["provenance"].get("run_id"))
                and ("parent_event_id" not in e or _non_empty(e["parent_event_id"]))):
            raise fail("malformed_event")
        p, t = e["payload"], e["type"]
        fields = {"user.message": ("content",), "model.response": ("content", "accumulated"),
                  "session.stop": ("reason",)}.get(t, ())
        if any(f in p and not isinstance(p[f], str) for f in fields):
            raise fail("invalid_payload")
        if e["sequence"] != len(events):
            raise fail("sequence_gap", "expected %d, found %d" % (len(events), e["sequence"]))
        if events and e["session_id"] != events[0]["session_id"]:
            raise fail("mixed_session")
        if events and e["provenance"]["run_id"] != events[0]["provenance"]["run_id"]:
            raise fail("mixed_run")
        if e["event_id"] in ids:
            raise fail("duplicate_event_id")
        if "parent_event_id" in e and e["parent_event_id"] not in ids:
            raise fail("unknown_parent")
        ids.add(e["event_id"])
        events.append(e)
    if not events:
        raise JournalError("empty_journal")
    return events


def canonical_text(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical(data):
    """The `canonical` operation (O-CANON-1): one JSON text in, its canonical text out."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise JournalError("unexpected_bom", line=1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JournalError("invalid_utf8", line=data[: e.start].count(b"\n") + 1, message=str(e))
    return canonical_text(parse_json(text))


def fingerprint(events):
    return hashlib.sha256(canonical_text(events).encode("utf-8")).hexdigest()


def _select(events, n):
    if n is None:
        return events
    if not 0 <= n < len(events):
        raise JournalError("sequence_out_of_range", sequence=n if -(2**63) <= n < 2**63 else None)
    if PLANT == "until-off-by-one":
        return events[:n]
    return events[: n + 1]


def replay(events, until=None):
    sel = _select(events, until)
    state = {"session_id": events[0]["session_id"], "run_id": events[0]["provenance"]["run_id"],
             "applied_sequences": [], "user_messages": [], "assistant_messages": [],
             "tool_results": [], "stop_reason": None, "fingerprint": fingerprint(sel)}
    for e in sel:
        state["applied_sequences"].append(e["sequence"])
        t, p = e["type"], e["payload"]
        if t == "user.message":
            state["user_messages"].append(p.get("content", ""))
        elif t == "model.response":
            if "content" in p:
                state["assistant_messages"].append(p["content"])
            elif p.get("final") is True:
                state["assistant_messages"].append(p.get("accumulated", ""))
        elif t == "tool.result":
            state["tool_results"].append(p)
        elif t == "session.stop":
            state["stop_reason"] = p.get("reason", "unknown")
    return state


def branch(events, at, branch_id):
    if not branch_id.strip():
        raise JournalError("invalid_branch_id")
    sel = _select(events, at)
    return {"branch_id": branch_id, "parent_session_id": events[0]["session_id"],
            "parent_run_id": events[0]["provenance"]["run_id"], "fork_sequence": at,
            "inherited_event_ids": [e["event_id"] for e in sel], "parent_fingerprint": fingerprint(sel)}
