#!/usr/bin/env python3
"""A port of the seed's Python, to check SPEC.md Appendix A.1's `departs-from-seed` tags.

`python3 conformance/tools/seed_port.py` runs every journal and `canonical` vector of the
corpus (every group, `core` profile) through what the seed's code does, and compares its
answer with the vector's. It exits 1 when a vector tagged `departs-from-seed` agrees with
the seed (the tag is wrong) or an untagged one disagrees (an undocumented departure).

What is ported (re-typed from the behaviour of the seed's repository, vpromise/
inside-coding-agents; none of its code is copied here):

- the reader, its repository's JSONL reading loop (scripts/validate_registry.py,
  `validate_trace`): the whole file read as text (`Path.read_text(encoding="utf-8")`:
  UTF-8 decoded at once, universal newlines), `str.splitlines()`, lines for which
  `line.strip()` is empty skipped, `json.loads` on each other line; any exception there
  is its one "invalid JSONL path:N" error, i.e. `invalid_json` at that splitlines line;
  a decoding error is `invalid_utf8` for the whole file, with no line;
- `SessionJournal` (curriculum/harness/session.py, the chapter's class): the empty check;
  `[e.get("sequence") ...] != list(range(n))`; one set of `session_id`s and one of
  `provenance.run_id`s (`e.get("provenance", {}).get("run_id")`), a single error for
  either (read as `mixed_session` when there is more than one session id, else
  `mixed_run`); `replay`'s range check and `str()` coercions; `branch`'s
  `branch_id.strip()` check; anything else the class raises (KeyError, TypeError,
  AttributeError, UnicodeEncodeError from the fingerprint) is a crash, `internal_error`;
- `canonical`: the seed's serialisation, `json.dumps(json.loads(text), ensure_ascii=False,
  sort_keys=True, separators=(",", ":"))` of the file read as above (a JSONDecodeError is
  `invalid_json` at its `lineno`; any other exception a crash).

The same translation is what an adapter over the real code does; conformance/README.md
says how the port was checked against the real code and with what result. The seed's
separate trace validator (parents, duplicate ids, its (session, run) grouping) and schema
checker are NOT ported: `trace-0.1` cases are not judged, and the appendix describes the
validator in prose only. Where the seed reports no line (every SessionJournal error), only
codes are compared; where it does (its reader), lines are compared too.
"""
import base64
import glob
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOURNAL_OPS = ("validate", "replay", "fingerprint", "branch")


class SeedError(Exception):
    def __init__(self, code, line=None, sequence=None):
        Exception.__init__(self, code)
        self.code, self.line, self.sequence = code, line, sequence


def read_text(data):
    """Path.read_text(encoding="utf-8"): strict UTF-8 for the whole file, universal newlines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SeedError("invalid_utf8")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read(data):
    events = []
    for n, line in enumerate(read_text(data).splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except Exception:  # validate_trace: one error for every line json.loads refuses
            raise SeedError("invalid_json", n)
    return events


class Journal:
    """SessionJournal's behaviour."""

    def __init__(self, events):
        if not events:
            raise SeedError("empty_journal")
        self.events = list(events)
        if [e.get("sequence") for e in self.events] != list(range(len(self.events))):
            raise SeedError("sequence_gap")
        sessions = {e.get("session_id") for e in self.events}
        runs = {e.get("provenance", {}).get("run_id") for e in self.events}
        if len(sessions) != 1 or len(runs) != 1:
            raise SeedError("mixed_session" if len(sessions) != 1 else "mixed_run")

    def replay(self, until=None):
        if until is not None and not 0 <= until < len(self.events):
            raise SeedError("sequence_out_of_range", sequence=until)
        selected = self.events[: len(self.events) if until is None else until + 1]
        users, assistants, tools, stop = [], [], [], None
        for e in selected:
            kind, p = e["type"], e.get("payload", {})
            if kind == "user.message":
                users.append(str(p.get("content", "")))
            elif kind == "model.response":
                if "content" in p:
                    assistants.append(str(p["content"]))
                elif p.get("final") is True:
                    assistants.append(str(p.get("accumulated", "")))
            elif kind == "tool.result":
                tools.append(dict(p))
            elif kind == "session.stop":
                stop = str(p.get("reason", "unknown"))
        wire = json.dumps(selected, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return {"session_id": str(selected[0]["session_id"]), "run_id": str(selected[0]["provenance"]["run_id"]),
                "applied_sequences": [e["sequence"] for e in selected], "user_messages": users,
                "assistant_messages": assistants, "tool_results": tools, "stop_reason": stop,
                "fingerprint": hashlib.sha256(wire.encode("utf-8")).hexdigest()}

    def branch(self, at, branch_id):
        if not branch_id.strip():
            raise SeedError("invalid_branch_id")
        parent = self.replay(at)
        return {"branch_id": branch_id, "parent_session_id": parent["session_id"], "parent_run_id": parent["run_id"],
                "fork_sequence": at, "inherited_event_ids": [str(e["event_id"]) for e in self.events[: at + 1]],
                "parent_fingerprint": parent["fingerprint"]}


def canonical(data):
    text = read_text(data)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise SeedError("invalid_json", e.lineno)
    except Exception:
        raise SeedError("internal_error")
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def run(op, data):
    """The seed's answer to one check: ("result", VALUE) or ("error", CODE, LINE, SEQUENCE);
    None for an operation the seed does not have."""
    name = op["op"]
    try:
        if name == "canonical":
            return ("result", canonical(data))
        if name not in JOURNAL_OPS:
            return None
        j = Journal(read(data))
        if name == "validate":
            return ("result", {"event_count": len(j.events)})
        if name == "replay":
            return ("result", j.replay(op.get("until")))
        if name == "fingerprint":
            return ("result", j.replay(op.get("until"))["fingerprint"])
        return ("result", j.branch(op["at"], op["branch_id"]))
    except SeedError as e:
        return ("error", e.code, e.line, e.sequence)
    except Exception:  # the seed crashes
        return ("error", "internal_error", None, None)


def same_json(a, b):
    """Equal as JSON values (integers and floats distinct); a value that is not JSON at all
    (NaN, infinity, a lone surrogate: what the seed can produce) equals nothing."""
    try:
        texts = [json.dumps(v, sort_keys=True, allow_nan=False, ensure_ascii=False) for v in (a, b)]
        for t in texts:
            t.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return False
    return texts[0] == texts[1]


def agrees(got, expect):
    if got is None:
        return True
    if "result" in expect:
        return got[0] == "result" and same_json(got[1], expect["result"])
    want = expect["error"]
    codes = want["code"] if isinstance(want["code"], list) else [want["code"]]
    if got[0] != "error" or got[1] not in codes:
        return False
    for member, have in (("line", got[2]), ("sequence", got[3])):
        if member in want and have is not None and have != want[member]:
            return False
    return True


def cases():
    """(id, case) for every vector of the corpus the port judges."""
    for path in sorted(glob.glob(os.path.join(ROOT, "**", "*.json"), recursive=True)):
        rel = os.path.relpath(path, ROOT)
        if rel.split(os.sep)[0] == "tools":
            continue
        group = rel[:-5].replace(os.sep, "/")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for c in doc["cases"]:
            if c.get("profile", "core") != "core":
                continue
            if not any(ch["op"]["op"] in JOURNAL_OPS + ("canonical",) for ch in c["checks"]):
                continue
            yield group + "/" + c["name"], c, os.path.dirname(path)


def input_of(c, base):
    if "input" in c:
        return c["input"].encode("utf-8")
    if "input_base64" in c:
        return base64.b64decode(c["input_base64"])
    with open(os.path.join(base, c["input_file"]), "rb") as f:
        return f.read()


def departs(c, base):
    data = input_of(c, base)
    return any(not agrees(run(ch["op"], data), ch["expect"]) for ch in c["checks"])


def main():
    tagged_but_agrees, untagged_but_differs, judged, tagged = [], [], 0, 0
    for cid, c, base in cases():
        differs = departs(c, base)
        is_tagged = "departs-from-seed" in c.get("tags", [])
        tagged += is_tagged
        if is_tagged and not differs:
            tagged_but_agrees.append(cid)
        elif differs and not is_tagged:
            untagged_but_differs.append(cid)
        judged += 1
    print("seed port: %d vectors judged, %d tagged departs-from-seed" % (judged, tagged))
    for cid in tagged_but_agrees:
        print("tagged departs-from-seed, but the seed agrees:", cid)
    for cid in untagged_but_differs:
        print("the seed disagrees, but no departs-from-seed tag:", cid)
    return 1 if tagged_but_agrees or untagged_but_differs else 0


if __name__ == "__main__":
    sys.exit(main())
