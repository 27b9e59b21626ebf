//! Generated `yoagent-0.26` session files with step sequences (SPEC.md 15.4, rules
//! `T-YO-*`): the dialect's source for the differential phase and `fuzz` campaigns.
//!
//! A case is built like a generic tree case ([`super::operations::build_tree`]), from the
//! same [`TreeRecipe`]: the build steps run on a [`Session`] (so ids, parents, labels and
//! the id counter are the ones yoagent would write), each entry is written as the JSON
//! yoagent saves and then respelled the ways a hand-edited or other-language file
//! differs: member order, spacing, escapes and number spellings (the recipe's
//! [`super::recipe::WriteStyle`]), serde aliases (`cache_read`, `error_message`, ...),
//! unknown members in the entry and in the message, `parent_id` left out of a root,
//! `"label":null`, whitespace around a line and whitespace-only lines (the code points
//! Rust's `str::trim` strips and some it does not). An optional defect makes the file fail
//! to load. Messages are six real `AgentMessage`s of every variant, few enough that
//! `append_new` histories collide.
//!
//! The generator builds INPUTS only: what an implementation must answer comes from the
//! reference in the differential phase (the dialect itself is pinned to the real crate
//! by `conformance/tree-yoagent/`).

use crate::json::Value;
use crate::tree::yoagent::Session;
use crate::tree::Step;

use super::operations::{Resolver, TreeCase, TreeOp, TreeRecipe};
use super::writer;

/// Message number `m` (modulo 6) as a yoagent `AgentMessage` in kit JSON: user,
/// assistant (text, a tool call, thinking, usage, an error message), tool result and
/// custom messages, with non-ASCII text, a float and members out of canonical order.
pub fn message(m: i64) -> Value {
    let text = match m.rem_euclid(6) {
        0 => r#"{"role":"user","content":[{"type":"text","text":"hi é"}],"timestamp":1}"#,
        1 => {
            r#"{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"/","a":1}}],"stopReason":"toolUse","model":"m","provider":"p","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3},"timestamp":2}"#
        }
        2 => {
            r#"{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":3}"#
        }
        3 => r#"{"role":"note","kind":"memo","data":{"b":1,"a":[1.5,"\u2028"]}}"#,
        4 => {
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"}],"stopReason":"error","model":"m","provider":"p","usage":{"input":0,"output":0,"cacheRead":5,"cacheWrite":0,"totalTokens":5},"timestamp":4,"errorMessage":"overloaded"}"#
        }
        _ => {
            r#"{"role":"user","content":[{"type":"text","text":""},{"type":"image","data":"AA==","mimeType":"image/png"}],"timestamp":0}"#
        }
    };
    crate::json::parse(text).expect("a generated message is JSON")
}

/// Resolve `op` against `session` into a concrete step (`timestamp` for appends).
pub fn resolve(op: &TreeOp, session: &Session, timestamp: u64) -> Step {
    Resolver {
        ids: session.entries().iter().map(|e| e.id.as_str()).collect(),
        path: session
            .path_messages()
            .into_iter()
            .map(|m| {
                let text = serde_json::to_string(m).expect("messages serialize");
                crate::json::parse(&text).expect("serde_json writes JSON")
            })
            .collect(),
        message,
        changed: |_, m| changed(m),
        missing: "e0",
    }
    .step(op, timestamp)
}

/// A message that differs from `m` only a little: a timestamp moved by one, or
/// (custom messages) `1` spelled `1.0`, which yoagent's `Value` equality tells apart.
fn changed(m: &Value) -> Value {
    let mut m = m.clone();
    if let Value::Object(members) = &mut m {
        if let Some((_, t)) = members.iter_mut().find(|(k, _)| k == "timestamp") {
            let n = crate::canonical::to_string(t).parse::<u64>().unwrap_or(0);
            *t = Value::from_u64(n.wrapping_add(1));
        } else if let Some((_, d)) = members.iter_mut().find(|(k, _)| k == "data") {
            *d = crate::json::parse(r#"{"b":1.0,"a":[1.5,"\u2028"]}"#).expect("JSON");
        }
    }
    m
}

/// Whitespace around lines and on blank lines: what `str::trim` strips (space, tab, CR,
/// VT, FF, NEL, NBSP, U+2028, U+3000) and what it keeps (U+200B, U+FEFF).
const PADS: [&str; 10] = [
    " ", "\t", "\r", "\u{b}", "\u{c}", "\u{85}", "\u{a0}", "\u{2028}", "\u{3000}", "\u{200b}",
];

/// serde aliases of the dialect's members (T-YO-MSG-1), spelled the other way.
const ALIASES: [(&str, &str); 5] = [
    ("cacheRead", "cache_read"),
    ("cacheWrite", "cache_write"),
    ("totalTokens", "total_tokens"),
    ("errorMessage", "error_message"),
    ("redactedProtocol", "redacted_protocol"),
];

fn rename_aliases(v: &mut Value) {
    match v {
        Value::Object(members) => {
            for (k, x) in members.iter_mut() {
                if let Some((_, alias)) = ALIASES.iter().find(|(name, _)| name == k) {
                    *k = (*alias).to_owned();
                }
                rename_aliases(x);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rename_aliases),
        _ => {}
    }
}

fn set(members: &mut Vec<(String, Value)>, key: &str, value: Option<Value>) {
    let at = members.iter().position(|(k, _)| k == key);
    match (at, value) {
        (Some(i), Some(v)) => members[i].1 = v,
        (Some(i), None) => {
            members.remove(i);
        }
        (None, Some(v)) => members.push((key.to_owned(), v)),
        (None, None) => {}
    }
}

/// Build the session file and resolve the steps.
pub fn build(r: &TreeRecipe) -> TreeCase {
    let mut session = Session::default();
    for (op, ts) in &r.build {
        let _ = session.apply(&resolve(op, &session, *ts));
    }
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (i, e) in session.entries().iter().enumerate() {
        let bits = r.spelling.get(i).copied().unwrap_or(0);
        let text = serde_json::to_string(e).expect("session entries serialize");
        let mut v = crate::json::parse(&text).expect("serde_json writes JSON");
        if let Value::Object(m) = &mut v {
            if e.parent_id.is_none() && bits & 1 != 0 {
                set(m, "parent_id", None);
            }
            if e.label.is_none() && bits & 2 != 0 {
                set(m, "label", Some(Value::Null));
            }
            if bits & 4 != 0 {
                set(m, "x_note", Some(Value::from("ignored")));
            }
            if let Some((_, msg)) = m.iter_mut().find(|(k, _)| k == "message") {
                if bits & 32 != 0 {
                    rename_aliases(msg);
                }
                if let (Value::Object(mm), true) = (msg, bits & 64 != 0) {
                    set(mm, "x_extra", Some(Value::from_u64(u64::from(bits))));
                }
            }
        }
        let pad = PADS[usize::from(bits >> 4) % PADS.len()];
        if bits & 8 != 0 && bits & 16 != 0 {
            lines.push(pad.as_bytes().to_vec());
        }
        let mut line = writer::write_line(&v, &r.style, i as u64, &[]);
        if bits & 128 != 0 {
            line.splice(0..0, pad.bytes());
            line.extend_from_slice(pad.as_bytes());
        }
        lines.push(line);
    }
    let mut origin = format!("a yoagent-0.26 session of {} entries", lines.len());
    if let Some((kind, pos)) = r.defect {
        let n = lines.len();
        let at = if n == 0 { 0 } else { pos % n };
        let entry = |id: &str, parent: &str, message: &str, ts: &str| {
            format!(r#"{{"id":"{id}","parent_id":{parent},"message":{message},"timestamp":{ts}}}"#)
                .into_bytes()
        };
        let user = r#"{"role":"user","content":[],"timestamp":1}"#;
        let (what, line) = match kind {
            0 if n > 0 => {
                let copy = lines[at].clone();
                lines.push(copy);
                ("a duplicate entry id", lines.len())
            }
            1 => {
                lines.insert(at, entry("x1", r#""x1""#, user, "1"));
                ("an entry that is its own parent", at + 1)
            }
            2 => {
                lines.insert(at, entry("x2", r#""ghost""#, user, "1"));
                ("a dangling parent", at + 1)
            }
            3 if n > 0 => {
                let cut = lines[at].len() / 2;
                lines[at].truncate(cut);
                ("a torn line", at + 1)
            }
            4 => {
                lines.insert(at, entry("x4", "null", user, "-1"));
                ("a negative timestamp", at + 1)
            }
            _ => {
                let call = r#"{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":0,"output":0},"timestamp":1}"#;
                lines.insert(at, entry("x5", "null", call, "1"));
                ("a tool call without arguments", at + 1)
            }
        };
        origin.push_str(&format!(" with {what} at line {line}"));
    }
    let bytes = writer::join_lines(&lines, r.style.final_newline);
    let mut sim = Session::load(&bytes).unwrap_or_default();
    let mut steps = Vec::with_capacity(r.steps.len());
    for (op, ts) in &r.steps {
        let step = resolve(op, &sim, *ts);
        let _ = sim.apply(&step);
        steps.push(step);
    }
    TreeCase {
        bytes,
        steps,
        origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_message_is_a_yoagent_message() {
        for m in 0..6 {
            crate::tree::yoagent::message_from_value(&message(m))
                .unwrap_or_else(|e| panic!("message {m}: {e}"));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A case without a defect loads: every respelling is one yoagent reads, except
        /// U+200B around a line, which `str::trim` keeps, and `-0`, which serde_json
        /// reads as a float (so not as a `u64` timestamp).
        #[test]
        fn a_case_without_a_defect_loads(r in super::super::operations::tree_recipe()) {
            let r = TreeRecipe { defect: None, ..r };
            let case = build(&r);
            let s = Session::load(&case.bytes);
            let text = String::from_utf8_lossy(&case.bytes);
            let known = text.contains('\u{200b}') || text.contains("-0");
            prop_assert!(s.is_ok() || known, "{}: {:?}\n{}", case.origin, s.err(),
                String::from_utf8_lossy(&case.bytes));
        }
    }
}
