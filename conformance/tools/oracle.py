"""The seed's projection semantics, as an external oracle for expected RESULTS.

This is the chapter's `SessionJournal.replay`/`branch` (seed 000) re-typed in plain Python,
with the fingerprint computed by Python's own `json.dumps(..., ensure_ascii=False,
sort_keys=True, separators=(",", ":"))`. It is only ever called on journals the builders
construct as VALID, so the seed's `str()` coercions never come into play (SPEC R-TYPE-1
rejects the inputs where they would). Expected ERRORS are never computed here: each invalid
case states its error code and location by hand, derived from SPEC.md.
"""
import hashlib
import json


def fingerprint(events):
    wire = json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(wire.encode("utf-8")).hexdigest()


def parse_journal(data: bytes):
    text = data.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [json.loads(line) for line in lines]


def replay(events, until=None):
    selected = events[: len(events) if until is None else until + 1]
    users, assistants, tools, stop = [], [], [], None
    for e in selected:
        t, p = e["type"], e["payload"]
        if t == "user.message":
            users.append(p.get("content", ""))
        elif t == "model.response":
            if "content" in p:
                assistants.append(p["content"])
            elif p.get("final") is True:
                assistants.append(p.get("accumulated", ""))
        elif t == "tool.result":
            tools.append(dict(p))
        elif t == "session.stop":
            stop = p.get("reason", "unknown")
    return {
        "session_id": selected[0]["session_id"],
        "run_id": selected[0]["provenance"]["run_id"],
        "applied_sequences": [e["sequence"] for e in selected],
        "user_messages": users,
        "assistant_messages": assistants,
        "tool_results": tools,
        "stop_reason": stop,
        "fingerprint": fingerprint(selected),
    }


def branch(events, at, branch_id):
    parent = replay(events, at)
    return {
        "branch_id": branch_id,
        "parent_session_id": parent["session_id"],
        "parent_run_id": parent["run_id"],
        "fork_sequence": at,
        "inherited_event_ids": [e["event_id"] for e in events[: at + 1]],
        "parent_fingerprint": parent["fingerprint"],
    }
