// A small, deliberately naive journal implementation: the kind a harness author writes in
// an afternoon with plain JSON.parse. It gets the common cases right and is known to deviate
// from SPEC.md where JavaScript's JSON is not the spec's JSON (duplicate keys, lone
// surrogates, big integers, 1 vs 1.0, nesting depth, UTF-16 key order, ...). Those
// deviations are listed in known-deviations.txt: the adoption workflow of the kit.

import { createHash } from "node:crypto";

export class JournalError extends Error {
  constructor(code, { line = null, sequence = null, message = code } = {}) {
    super(message);
    this.code = code;
    this.line = line;
    this.sequence = sequence;
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const nonEmpty = (v) => typeof v === "string" && v.length > 0;

/** Split on "\n" only (W-LINE-1); a final "\n" is optional. */
function splitLines(bytes) {
  const text = Buffer.from(bytes).toString("utf8");
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Parse and check a journal; returns its events. */
export function readJournal(bytes) {
  const events = [];
  const ids = new Set();
  splitLines(bytes).forEach((raw, i) => {
    const line = i + 1;
    if (raw.startsWith("\ufeff")) throw new JournalError("unexpected_bom", { line });
    if (raw.includes("\ufffd")) throw new JournalError("invalid_utf8", { line });
    if (/^[ \t\r]*$/.test(raw)) throw new JournalError("blank_line", { line });
    let e;
    try {
      e = JSON.parse(raw);
    } catch (err) {
      throw new JournalError("invalid_json", { line, message: err.message });
    }
    const seq = Number.isInteger(e?.sequence) ? e.sequence : null;
    const bad = (code) => new JournalError(code, { line, sequence: seq });
    if (!isObject(e) || !nonEmpty(e.event_id) || !nonEmpty(e.session_id) || !Number.isInteger(e.sequence) ||
        !nonEmpty(e.type) || !isObject(e.payload) || !isObject(e.provenance) || !nonEmpty(e.provenance.run_id) ||
        ("parent_event_id" in e && !nonEmpty(e.parent_event_id))) {
      throw bad("malformed_event");
    }
    const str = (v) => v === undefined || typeof v === "string";
    const p = e.payload;
    if ((e.type === "user.message" && !str(p.content)) ||
        (e.type === "model.response" && !(str(p.content) && str(p.accumulated))) ||
        (e.type === "session.stop" && !str(p.reason))) {
      throw bad("invalid_payload");
    }
    if (e.sequence !== events.length) throw bad("sequence_gap");
    if (events.length && e.session_id !== events[0].session_id) throw bad("mixed_session");
    if (events.length && e.provenance.run_id !== events[0].provenance.run_id) throw bad("mixed_run");
    if (ids.has(e.event_id)) throw bad("duplicate_event_id");
    if ("parent_event_id" in e && !ids.has(e.parent_event_id)) throw bad("unknown_parent");
    ids.add(e.event_id);
    events.push(e);
  });
  if (events.length === 0) throw new JournalError("empty_journal");
  return events;
}

/** "Canonical" JSON: sorted keys, JSON.stringify for the rest. */
export function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (isObject(v)) {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

export function fingerprint(events) {
  return createHash("sha256").update(canonical(events)).digest("hex");
}

function select(events, until) {
  if (until === undefined) return events;
  if (typeof until !== "number" || until < 0 || until >= events.length) {
    throw new JournalError("sequence_out_of_range", { sequence: until });
  }
  return events.slice(0, until + 1);
}

export function replay(events, until) {
  const sel = select(events, until);
  const state = {
    session_id: events[0].session_id,
    run_id: events[0].provenance.run_id,
    applied_sequences: [],
    user_messages: [],
    assistant_messages: [],
    tool_results: [],
    stop_reason: null,
    fingerprint: fingerprint(sel),
  };
  for (const e of sel) {
    state.applied_sequences.push(e.sequence);
    const p = e.payload;
    if (e.type === "user.message") state.user_messages.push(p.content ?? "");
    else if (e.type === "model.response") {
      if ("content" in p) state.assistant_messages.push(p.content);
      else if (p.final === true) state.assistant_messages.push(p.accumulated ?? "");
    } else if (e.type === "tool.result") state.tool_results.push(p);
    else if (e.type === "session.stop") state.stop_reason = p.reason ?? "unknown";
  }
  return state;
}

export function branch(events, at, branchId) {
  if (branchId.trim() === "") throw new JournalError("invalid_branch_id");
  const sel = select(events, at);
  return {
    branch_id: branchId,
    parent_session_id: events[0].session_id,
    parent_run_id: events[0].provenance.run_id,
    fork_sequence: at,
    inherited_event_ids: sel.map((e) => e.event_id),
    parent_fingerprint: fingerprint(sel),
  };
}
