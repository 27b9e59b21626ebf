//! The kit's tree operations (`tree_inspect`, `tree_apply`; SPEC.md 15.3 and 15.4) run
//! on the REAL yoagent 0.26 `Session`: every accept, reject, id, head, path and saved
//! byte below comes from yoagent's own API (`from_jsonl`, `append`, `seek`,
//! `checkpoint`, `seek_checkpoint`, `append_new`, `path_ids`, `branch_tips`,
//! `children`, `to_jsonl`). This thin layer only turns bytes into `&str`, maps
//! `SessionError` to the kit's error codes, locates errors yoagent reports without a
//! line (by asking `from_jsonl` about prefixes of the file), and makes step timestamps
//! deterministic by re-serialising the entry through yoagent's `SessionEntry` serde
//! (SPEC.md T-YO-TS-1).
//!
//! The adapter binary (`src/main.rs`) serves it over protocol 1; the vector tool
//! (`conformance/tools/yoagent-vectors`) uses it to compute the dialect's expectations.

use serde::Deserialize;
use serde_json::{json, Map, Value};
use yoagent::{AgentMessage, CustomMessage, Session, SessionEntry, SessionError};

/// The tree dialect this crate implements.
pub const PROFILE: &str = "yoagent-0.26";

/// The deepest request this adapter reads (A-RUN-1 asks for at least 256: a
/// `tree_apply` step's message starts at depth 5 of the request).
pub const MAX_REQUEST_DEPTH: usize = 512;

/// The nesting depth of a JSON text (brackets outside strings), to bound the recursion
/// of a parse without serde_json's own 128-level limit.
fn depth_of(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A request line as a `Value`, nested up to [`MAX_REQUEST_DEPTH`] levels (serde_json
/// alone stops at 128, too few for a deep message in a step).
pub fn read_request(line: &str) -> Result<Value, String> {
    if depth_of(line) > MAX_REQUEST_DEPTH {
        return Err(format!("nested deeper than {MAX_REQUEST_DEPTH} levels"));
    }
    let mut de = serde_json::Deserializer::from_str(line);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

/// An operation-level failure, in the kit's error shape (O-ERR-1).
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: String,
    pub line: Option<u64>,
    pub message: String,
}

impl Failure {
    fn new(code: &str, line: Option<u64>, message: impl Into<String>) -> Failure {
        Failure {
            code: code.to_owned(),
            line,
            message: message.into(),
        }
    }

    /// `{"code","line","message"}` as the protocol's ERROR object.
    pub fn to_json(&self) -> Value {
        json!({"code": self.code, "line": self.line, "message": self.message})
    }
}

/// The kit's code for a `SessionError` (SPEC.md 15.4).
pub fn code_of(e: &SessionError) -> &'static str {
    match e {
        SessionError::UnknownEntry(_) => "unknown_entry",
        SessionError::UnknownCheckpoint(_) => "unknown_checkpoint",
        SessionError::Parse { .. } => "malformed_entry",
        SessionError::Empty => "empty_session",
        SessionError::DuplicateId(_) => "duplicate_entry_id",
        SessionError::UnknownParent { .. } => "unknown_parent",
        SessionError::HistoryDiverged { .. } => "history_diverged",
        _ => "internal_error",
    }
}

/// The text of the first `k` lines (`\n`-separated, as `str::lines` counts them).
fn prefix_lines(text: &str, k: usize) -> &str {
    match text.match_indices('\n').nth(k.saturating_sub(1)) {
        Some((i, _)) if k > 0 => &text[..i],
        _ if k == 0 => "",
        _ => text,
    }
}

/// The line of a load error yoagent reports without one: the smallest `k` such that
/// `from_jsonl` rejects the first `k` lines (rejection is monotone in `k`, because
/// `from_jsonl` stops at the first bad line).
fn locate(text: &str) -> Option<u64> {
    let total = text.split('\n').count();
    let (mut lo, mut hi) = (1usize, total);
    if Session::from_jsonl(prefix_lines(text, hi)).is_ok() {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if Session::from_jsonl(prefix_lines(text, mid)).is_err() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo as u64)
}

/// Load a tree file with `Session::from_jsonl`. Input that is not UTF-8 cannot reach
/// yoagent (it takes `&str`): `invalid_utf8` at the line of the first bad byte.
pub fn load(input: &[u8]) -> Result<Session, Failure> {
    let text = std::str::from_utf8(input).map_err(|e| {
        let line = input[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        Failure::new("invalid_utf8", Some(line), "the input is not UTF-8")
    })?;
    Session::from_jsonl(text).map_err(|e| {
        let line = match &e {
            SessionError::Parse { line, .. } => Some(*line as u64),
            _ => locate(text),
        };
        Failure::new(code_of(&e), line, e.to_string())
    })
}

/// The id yoagent's next `append` would give (asked of a clone).
pub fn next_id(session: &Session) -> String {
    let mut probe = session.clone();
    probe.append(AgentMessage::Custom(CustomMessage::new(
        "probe",
        Value::Null,
    )))
}

/// The `tree_inspect` view (SPEC.md T-OPS-1) of a yoagent session.
///
/// `children` is yoagent's `Session::children` for every entry, built in one pass over
/// `entries()` (see [`children_map`]): calling `children` once per entry is a scan of all
/// entries per call, quadratic on every shape, and that would be this adapter's cost,
/// not yoagent's (`journal-conformance scale` times the adapter; issue 24 expects
/// yoagent's own path walk to be flagged on a chain and nothing on a fan).
pub fn inspect(session: &Session) -> Value {
    let children = children_map(session);
    let mut labels = Map::new();
    for e in session.entries() {
        if let Some(l) = &e.label {
            if !labels.contains_key(l) {
                let mut s = session.clone();
                s.seek_checkpoint(l).expect("a label that exists");
                labels.insert(l.clone(), Value::from(s.head().unwrap()));
            }
        }
    }
    json!({
        "head": session.head(),
        "path_ids": session.path_ids(),
        "branch_tips": session.branch_tips(),
        "children": children,
        "entry_count": session.entries().len(),
        "labels": labels,
        "next_id": next_id(session),
    })
}

/// `{id: [child ids]}` for every entry: what `session.children(id)` returns, in the same
/// order (entries in insertion order whose `parent_id` is `id`), in one pass. The keys are
/// the entries' ids, so a `parent_id` that names no entry adds nothing, as `children`
/// of it would not be asked. `children_map_is_children_per_entry` checks it against
/// yoagent's own `children`.
pub fn children_map(session: &Session) -> Map<String, Value> {
    let mut children = Map::new();
    for e in session.entries() {
        children.insert(e.id.clone(), Value::Array(Vec::new()));
    }
    for e in session.entries() {
        if let Some(Value::Array(kids)) = e.parent_id.as_ref().and_then(|p| children.get_mut(p)) {
            kids.push(Value::from(e.id.as_str()));
        }
    }
    children
}

/// A session plus the timestamps the steps gave to the entries they appended
/// (yoagent's `append` stamps `now_ms()`; SPEC.md T-YO-TS-1).
struct Stamped {
    session: Session,
    stamps: Vec<Option<u64>>,
}

impl Stamped {
    fn push_stamps(&mut self, ts: u64) {
        let n = self.session.entries().len();
        while self.stamps.len() < n {
            self.stamps.push(Some(ts));
        }
    }

    /// `to_jsonl`, with each appended entry re-serialised through `SessionEntry`'s serde
    /// with its given timestamp, checked to reload byte-identically.
    fn save(&self) -> Result<String, Failure> {
        let text = self.session.to_jsonl();
        if self.stamps.iter().all(Option::is_none) {
            return Ok(text);
        }
        let mut lines = Vec::with_capacity(self.stamps.len());
        for (i, line) in text.split('\n').enumerate() {
            match self.stamps[i] {
                None => lines.push(line.to_owned()),
                Some(ts) => {
                    let mut e: SessionEntry = self.session.entries()[i].clone();
                    e.timestamp = ts;
                    let out = serde_json::to_string(&e).map_err(internal)?;
                    // The check: the re-stamped line reloads byte-identically whenever
                    // yoagent's own line does (a line too deep for serde_json reloads
                    // neither way; save_load reports that as yoagent does).
                    match serde_json::from_str::<SessionEntry>(&out) {
                        Ok(back) => {
                            if serde_json::to_string(&back).map_err(internal)? != out {
                                return Err(internal(
                                    "a re-stamped entry does not reload identically",
                                ));
                            }
                        }
                        Err(e) => {
                            if serde_json::from_str::<SessionEntry>(line).is_ok() {
                                return Err(internal(format!(
                                    "a re-stamped entry does not reload: {e}"
                                )));
                            }
                        }
                    }
                    lines.push(out);
                }
            }
        }
        Ok(lines.join("\n"))
    }
}

fn internal(e: impl std::fmt::Display) -> Failure {
    Failure::new("internal_error", None, e.to_string())
}

fn bad_request(msg: impl Into<String>) -> Failure {
    Failure::new("invalid_request", None, msg)
}

fn step_error(e: &SessionError) -> Value {
    let mut err = json!({"code": code_of(e)});
    if let SessionError::HistoryDiverged { index } = e {
        err["index"] = json!(index);
    }
    json!({ "error": err })
}

fn timestamp(step: &Value) -> Result<u64, Failure> {
    step.get("timestamp")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad_request("a step needs an integer `timestamp` in 0..=2^64-1"))
}

fn message(v: &Value) -> Result<AgentMessage, Failure> {
    serde_json::from_value(v.clone())
        .map_err(|e| bad_request(format!("not a yoagent AgentMessage: {e}")))
}

fn string<'a>(step: &'a Value, k: &str) -> Result<&'a str, Failure> {
    step.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| bad_request(format!("a step needs a string `{k}`")))
}

/// `tree_apply` (SPEC.md T-OPS-1): load, apply every step (a failing step's result is
/// `{"error":{"code":CODE}}`, yoagent leaving the session unchanged, and the steps go
/// on), save.
pub fn apply(input: &[u8], steps: &[Value]) -> Result<Value, Failure> {
    let session = load(input)?;
    let mut st = Stamped {
        stamps: vec![None; session.entries().len()],
        session,
    };
    let mut results = Vec::with_capacity(steps.len());
    for step in steps {
        let name = step.get("step").and_then(Value::as_str).unwrap_or("");
        let r = match name {
            "append" => {
                let m = message(step.get("message").unwrap_or(&Value::Null))?;
                let ts = timestamp(step)?;
                let id = st.session.append(m);
                st.push_stamps(ts);
                Value::from(id)
            }
            "seek" => match st.session.seek(string(step, "id")?) {
                Ok(()) => Value::Null,
                Err(e) => step_error(&e),
            },
            "checkpoint" => match st.session.checkpoint(string(step, "label")?) {
                Ok(()) => Value::Null,
                Err(e) => step_error(&e),
            },
            "seek_checkpoint" => match st.session.seek_checkpoint(string(step, "label")?) {
                Ok(()) => Value::Null,
                Err(e) => step_error(&e),
            },
            "append_new" => {
                let history = step
                    .get("history")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad_request("append_new needs an array `history`"))?
                    .iter()
                    .map(message)
                    .collect::<Result<Vec<_>, _>>()?;
                let ts = timestamp(step)?;
                match st.session.append_new(&history) {
                    Ok(n) => {
                        st.push_stamps(ts);
                        Value::from(n)
                    }
                    Err(e) => step_error(&e),
                }
            }
            "save_load" => {
                let text = st.save()?;
                match Session::from_jsonl(&text) {
                    Ok(s) => {
                        st.stamps = vec![None; s.entries().len()];
                        st.session = s;
                        Value::Null
                    }
                    Err(e) => step_error(&e),
                }
            }
            other => return Err(bad_request(format!("unknown step {other:?}"))),
        };
        results.push(r);
    }
    Ok(json!({"results": results, "tree": st.save()?}))
}

/// Run one protocol operation (`{"op":"tree_inspect"}` or `{"op":"tree_apply","ops":[..]}`);
/// `None` when the operation is not one this crate offers.
pub fn run(op: &Value, input: &[u8]) -> Option<Result<Value, Failure>> {
    match op.get("op").and_then(Value::as_str)? {
        "tree_inspect" => Some(load(input).map(|s| inspect(&s))),
        "tree_apply" => Some(match op.get("ops").and_then(Value::as_array) {
            Some(steps) => apply(input, steps),
            None => Err(bad_request("tree_apply needs an array `ops`")),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yoagent::Message;

    /// The one-pass map is yoagent's `children` of every entry, in order: on a chain, a
    /// fan, a forest, and a tree with seeks back to old entries (children out of id order).
    #[test]
    fn children_map_is_children_per_entry() {
        let mut s = Session::new();
        let mut ids: Vec<String> = Vec::new();
        for i in 0..60usize {
            if i % 7 == 3 {
                s.seek(&ids[i / 3]).unwrap();
            }
            if i % 11 == 5 {
                s.seek(&ids[0]).unwrap();
            }
            ids.push(s.append(Message::user(format!("m{i}")).into()));
        }
        for session in [s, chain_like(40, 1), chain_like(40, 40), chain_like(40, 4)] {
            let map = children_map(&session);
            assert_eq!(map.len(), session.entries().len());
            for e in session.entries() {
                let want: Vec<Value> = session
                    .children(&e.id)
                    .iter()
                    .map(|c| Value::from(c.id.as_str()))
                    .collect();
                assert_eq!(map[&e.id], Value::Array(want), "children of {}", e.id);
            }
        }
    }

    /// `n` entries in `roots` chains, loaded from a file: 1 root is a chain, `n` roots are
    /// `n` lone entries, 4 a forest.
    fn chain_like(n: usize, roots: usize) -> Session {
        let text: String = (1..=n)
            .map(|i| {
                let parent = if i > roots {
                    format!("\"e{}\"", i - roots)
                } else {
                    "null".to_owned()
                };
                format!(
                    "{{\"id\":\"e{i}\",\"parent_id\":{parent},\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"m{i}\"}}],\"timestamp\":{i}}},\"timestamp\":{i}}}\n"
                )
            })
            .collect();
        Session::from_jsonl(&text).unwrap()
    }
}
