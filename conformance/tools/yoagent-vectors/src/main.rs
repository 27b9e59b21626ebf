//! Builds the `yoagent-0.26` tree dialect's vectors (SPEC.md 15.4) from the REAL yoagent
//! 0.26 crate: every expected value is what yoagent's own `Session` API returns for the
//! case's input and steps (through `yoagent_adapter`, a thin layer that maps
//! `SessionError` to the kit's codes, locates errors by asking `from_jsonl` about
//! prefixes, and stamps step timestamps through `SessionEntry`'s serde).
//!
//! Usage (from the repository root):
//! `cargo run --release --manifest-path implementations/yoagent/Cargo.toml -p yoagent-vectors -- conformance/tree-yoagent`
//! writes `load.json`, `apply.json`, `quirks.json` (hand-written), `categories.json` and
//! `whitespace.json` (src/named.rs) and `generated.json` (src/gen.rs, a fixed seed) in
//! that directory. Deterministic.
//! `yoagent-vectors --differential N --seed S DIR` writes N fresh generated cases from
//! seed S to `DIR/differential.json` (the differential CI runs; conformance/README.md).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

mod gen;
mod jtext;
mod named;

use base64::Engine;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// Message shapes (real yoagent AgentMessage JSON, as yoagent writes them)
// ---------------------------------------------------------------------------

fn user(text: &str, ts: u64) -> Value {
    json!({"role":"user","content":[{"type":"text","text":text}],"timestamp":ts})
}

fn assistant(text: &str, ts: u64) -> Value {
    json!({"role":"assistant","content":[{"type":"text","text":text}],"stopReason":"stop",
           "model":"claude-sonnet-5","provider":"anthropic",
           "usage":{"input":12,"output":34,"cacheRead":0,"cacheWrite":0,"totalTokens":46},
           "timestamp":ts})
}

fn tool_call(id: &str, ts: u64) -> Value {
    json!({"role":"assistant","content":[
              {"type":"thinking","thinking":"I should list the files.","signature":"sig-1"},
              {"type":"toolCall","id":id,"name":"bash","arguments":{"command":"ls -la","timeout":30}}],
           "stopReason":"toolUse","model":"gpt-5","provider":"openai",
           "usage":{"input":100,"output":20,"cacheRead":50,"cacheWrite":0,"totalTokens":170},
           "timestamp":ts})
}

fn tool_result(id: &str, out: &str, ts: u64) -> Value {
    json!({"role":"toolResult","toolCallId":id,"toolName":"bash",
           "content":[{"type":"text","text":out}],"isError":false,"timestamp":ts})
}

fn custom(kind: &str, data: Value) -> Value {
    json!({"role":"extension","kind":kind,"data":data})
}

fn line(id: &str, parent: Option<&str>, msg: &Value, ts: u64) -> String {
    format!(
        "{{\"id\":{},\"parent_id\":{},\"message\":{},\"timestamp\":{ts}}}",
        json!(id),
        json!(parent),
        msg
    )
}

fn labelled(id: &str, parent: Option<&str>, msg: &Value, ts: u64, label: &str) -> String {
    let l = line(id, parent, msg, ts);
    format!("{},\"label\":{}}}", &l[..l.len() - 1], json!(label))
}

/// A chain e1 <- e2 <- ... <- eN of alternating user/assistant messages.
fn chain(n: usize) -> String {
    (1..=n)
        .map(|i| {
            let id = format!("e{i}");
            let parent = (i > 1).then(|| format!("e{}", i - 1));
            let m = if i % 2 == 1 {
                user(&format!("question {i}"), 1000 + i as u64)
            } else {
                assistant(&format!("answer {i}"), 1000 + i as u64)
            };
            line(&id, parent.as_deref(), &m, 5000 + i as u64)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn nested(depth: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..depth {
        v = json!([v]);
    }
    v
}

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

struct Case {
    name: String,
    description: String,
    rules: Vec<&'static str>,
    tags: Vec<&'static str>,
    level: &'static str,
    input: Vec<u8>,
    ops: Vec<Value>,
}

fn case(name: &str, description: &str, rules: &[&'static str], input: impl Into<Vec<u8>>) -> Case {
    Case {
        name: name.into(),
        description: description.into(),
        rules: rules.to_vec(),
        tags: vec![],
        level: "must",
        input: input.into(),
        ops: vec![json!({"op":"tree_inspect"})],
    }
}

impl Case {
    fn tags(mut self, t: &[&'static str]) -> Case {
        self.tags = t.to_vec();
        self
    }
    fn impl_defined(mut self) -> Case {
        self.level = "implementation-defined";
        self
    }
    /// Replace the checks by one `tree_apply` with these steps.
    fn apply(mut self, steps: Vec<Value>) -> Case {
        self.ops = vec![json!({"op":"tree_apply","ops":steps})];
        self
    }
    /// Add a `tree_apply` check after the existing ones.
    fn and_apply(mut self, steps: Vec<Value>) -> Case {
        self.ops.push(json!({"op":"tree_apply","ops":steps}));
        self
    }
}

fn append(m: Value, ts: u64) -> Value {
    json!({"step":"append","message":m,"timestamp":ts})
}
fn seek(id: &str) -> Value {
    json!({"step":"seek","id":id})
}
fn checkpoint(l: &str) -> Value {
    json!({"step":"checkpoint","label":l})
}
fn seek_cp(l: &str) -> Value {
    json!({"step":"seek_checkpoint","label":l})
}
fn append_new(h: Vec<Value>, ts: u64) -> Value {
    json!({"step":"append_new","history":h,"timestamp":ts})
}
fn save_load() -> Value {
    json!({"step":"save_load"})
}

const LOAD: &[&str] = &["T-YO-LOAD-1"];
const MSG: &[&str] = &["T-YO-MSG-1"];

fn load_cases() -> Vec<Case> {
    let seed = [
        line("e1", None, &user("draft a plan", 1000), 1000),
        labelled(
            "e2",
            Some("e1"),
            &assistant("plan A", 1001),
            1001,
            "first-draft",
        ),
        line("e3", Some("e2"), &user("more detail", 1002), 1002),
        line("e4", Some("e2"), &user("make it a library", 1003), 1003),
        line("e5", Some("e4"), &assistant("library plan", 1004), 1004),
    ]
    .join("\n");
    let (m1, m2) = (user("hi", 1), assistant("hello", 2));
    let deepest = deepest_loading_depth();
    let mut v = vec![
        case("seed-flow", "The seed's flow with real yoagent messages: a checkpoint, a fork after it, two tips.",
             &["T-YO-LOAD-1", "T-HEAD-1", "T-PATH-1", "T-TIPS-1", "T-YO-NEXT-1"], seed.clone()),
        case("empty-file", "An empty file is an empty session: no head, next id e1.", &["T-YO-LOAD-1", "T-YO-NEXT-1"], ""),
        case("blank-lines-only", "Lines that trim to nothing are skipped.", LOAD, "\n  \n\t\n"),
        case("crlf", "CRLF line ends: str::lines drops the CR.", LOAD,
             format!("{}\r\n{}\r\n", line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2))).tags(&["crlf"]),
        case("blank-lines-between", "Blank lines between entries are skipped; the last entry is the head.", LOAD,
             format!("\n{}\n\n   \n{}\n\n", line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2))),
        case("unicode-trim", "Each line is trimmed of Unicode White_Space (NBSP, U+3000, U+2028) as str::trim does.", LOAD,
             format!("\u{a0}{}\u{3000}\n\u{2028}{}\u{85}", line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2))).tags(&["unicode"]),
        case("unicode-content", "Non-ASCII text, emoji and escapes in messages, ids and labels.", &["T-YO-LOAD-1", "T-YO-SAVE-1"],
             [labelled("é1", None, &user("héllo wörld \u{1f600} \u{2028} \\ \"q\"", 1), 1, "début"),
              line("日本", Some("é1"), &assistant("こんにちは", 2), 2)].join("\n")).tags(&["unicode"]).and_apply(vec![]),
        case("forest", "Several roots: each is its own tree; tips in file order.", &["T-YO-LOAD-1", "T-TIPS-1"],
             [line("e1", None, &m1, 1), line("e2", None, &m1, 2), line("e3", Some("e1"), &m2, 3),
              line("e4", None, &m2, 4), line("e5", Some("e2"), &m2, 5)].join("\n")).tags(&["forest"]),
        case("chain-200", "A 200-entry chain: the path is the whole chain.", &["T-YO-LOAD-1", "T-PATH-1"], chain(200)).tags(&["chain"]),
        case("fan-100", "One root with 100 children: 100 tips, the path is root and last child.", &["T-YO-LOAD-1", "T-TIPS-1"],
             std::iter::once(line("e1", None, &m1, 1))
                 .chain((2..=101).map(|i| line(&format!("e{i}"), Some("e1"), &assistant(&format!("try {i}"), i), i)))
                 .collect::<Vec<_>>().join("\n")).tags(&["fan"]),
        case("repeated-labels", "Two entries share a label: the latest in file order is the checkpoint.", &["T-YO-LOAD-1", "T-SEEKCP-1"],
             [labelled("e1", None, &m1, 1, "cp"), labelled("e2", Some("e1"), &m2, 2, "cp"), line("e3", Some("e2"), &m1, 3)].join("\n")),
        case("unnumbered-ids", "Ids that are not e<u64> do not move the counter.", &["T-YO-NEXT-1"],
             [line("a", None, &m1, 1), line("E7", Some("a"), &m2, 2), line("e-1", Some("E7"), &m1, 3), line("e7a", Some("e-1"), &m2, 4), line("e", Some("e7a"), &m1, 5)].join("\n")),
        case("numbered-ids-padded-plus", "e007 and e+9 are numbers 7 and 9 (u64::from_str): next id e10.", &["T-YO-NEXT-1"],
             [line("e007", None, &m1, 1), line("e+9", Some("e007"), &m2, 2), line("e3", Some("e+9"), &m1, 3)].join("\n")),
        case("empty-id", "The empty string is an id.", LOAD, [line("", None, &m1, 1), line("e1", Some(""), &m2, 2)].join("\n")),
        case("parent-id-absent", "A missing parent_id is a root (serde: Option defaults to None).", LOAD,
             format!("{{\"id\":\"e1\",\"message\":{m1},\"timestamp\":1}}\n{{\"id\":\"e2\",\"message\":{m2},\"timestamp\":2}}")),
        case("label-null", "\"label\":null is no label.", LOAD,
             format!("{{\"id\":\"e1\",\"parent_id\":null,\"message\":{m1},\"timestamp\":1,\"label\":null}}")).and_apply(vec![]),
        case("unknown-members", "Unknown entry members are ignored (and not written back).", &["T-YO-LOAD-1", "T-YO-SAVE-1"],
             format!("{{\"extra\":[1,2],\"id\":\"e1\",\"parent_id\":null,\"message\":{m1},\"timestamp\":1,\"x\":{{}}}}")).and_apply(vec![]),
        case("members-any-order", "Entry members in any order; saving restores yoagent's struct order.", &["T-YO-LOAD-1", "T-YO-SAVE-1"],
             format!("{{\"timestamp\":1,\"label\":\"l\",\"message\":{m1},\"parent_id\":null,\"id\":\"e1\"}}")).apply(vec![]),
        case("tool-use-turn", "A real tool-use turn: user, assistant with thinking and a tool call, tool result, answer.", MSG,
             [line("e1", None, &user("list the files", 10), 10), line("e2", Some("e1"), &tool_call("call_1", 11), 11),
              line("e3", Some("e2"), &tool_result("call_1", "a.txt\nb.txt", 12), 12), line("e4", Some("e3"), &assistant("Two files.", 13), 13)].join("\n"))
            .and_apply(vec![]),
        case("custom-message", "A custom (extension) message with arbitrary data.", MSG,
             line("e1", None, &custom("note", json!({"z":1,"a":[true,null,"x"]})), 1)).and_apply(vec![]),
        case("image-content", "A user message with an image block.", MSG,
             line("e1", None, &json!({"role":"user","content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"what is this?"}],"timestamp":5}), 5)).and_apply(vec![]),
        case("stop-reasons", "Every stop reason loads: stop, length, toolUse, error (with errorMessage), aborted, refusal.", MSG,
             ["stop", "length", "toolUse", "error", "aborted", "refusal"].iter().enumerate().map(|(i, r)| {
                 let mut m = assistant("x", i as u64);
                 m["stopReason"] = json!(r);
                 if *r == "error" { m["errorMessage"] = json!("overloaded"); }
                 line(&format!("e{}", i + 1), None, &m, i as u64)
             }).collect::<Vec<_>>().join("\n")).and_apply(vec![]),
        case("usage-defaults-and-aliases", "Usage without cache fields defaults them to 0; snake_case aliases load; save writes camelCase.", &["T-YO-MSG-1", "T-YO-SAVE-1"],
             [line("e1", None, &json!({"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":1}), 1),
              line("e2", Some("e1"), &json!({"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2,"cache_read":3,"cache_write":4,"total_tokens":10},"error_message":"e","timestamp":2}), 2)].join("\n")).apply(vec![]),
        case("redacted-thinking-unknown-protocol", "An unknown redactedProtocol loads as None and is not written back.", &["T-YO-MSG-1", "T-YO-SAVE-1"],
             line("e1", None, &json!({"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":"b64","redactedProtocol":"future_api"},{"type":"thinking","thinking":"","redacted":"b64","redacted_protocol":"anthropic_messages"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":0,"output":0},"timestamp":1}), 1)).apply(vec![]),
        case("message-unknown-fields-dropped", "Unknown members inside a message are dropped on save.", &["T-YO-MSG-1", "T-YO-SAVE-1"],
             line("e1", None, &json!({"role":"user","content":[{"type":"text","text":"t","cache":true}],"timestamp":1,"meta":{"a":1}}), 1)).apply(vec![]),
        case("save-member-order", "Saving writes message members in yoagent's struct order (role first), not sorted.", &["T-YO-SAVE-1"],
             r#"{"id":"e1","parent_id":null,"message":{"timestamp":9,"isError":true,"content":[{"text":"boom","type":"text"}],"toolName":"bash","toolCallId":"c","role":"toolResult"},"timestamp":9}"#).apply(vec![]),
        case("save-numbers", "Numbers in tool arguments: u64 and i64 are kept, others become f64 (2^64 is 1.8446744073709552e19), -0.0 stays -0.0.", &["T-YO-SAVE-1"],
             line("e1", None, &custom("n", json!(null)), 1).replace("\"data\":null", "\"data\":[18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809,1.0,-0.0,1e2,0.1,1E300]")).apply(vec![])
            .tags(&["numbers"]),
        case("duplicate-key-in-data", "A duplicate key inside custom data: the last wins (serde_json::Value).", &["T-YO-LOAD-1", "T-YO-SAVE-1"],
             r#"{"id":"e1","parent_id":null,"message":{"role":"extension","kind":"k","data":{"a":1,"a":2}},"timestamp":1}"#).apply(vec![]),
        case("array-form-entry", "serde reads a struct from an array too: [id, parent_id, message, timestamp] is an entry.", LOAD,
             format!("[\"e1\",null,{m1},1]\n[\"e2\",\"e1\",{m2},2,\"lbl\"]")).and_apply(vec![]),
        case(&format!("depth-{deepest}-loads"), "The deepest line serde_json's recursion limit lets through loads.", LOAD,
             line("e1", None, &custom("deep", nested(deepest - 2)), 1)).tags(&["depth"]),
    ];
    // Load errors.
    let errs: Vec<(&str, &str, &[&'static str], String)> = vec![
        ("not-json", "A line that is not JSON.", LOAD, format!("{}\n{{\"id\":", line("e1", None, &m1, 1))),
        ("generic-message-shape", "The generic vectors' message {\"role\":\"user\",\"content\":\"draft a plan\"} is not an AgentMessage.", MSG,
         r#"{"id":"e1","parent_id":null,"message":{"role":"user","content":"draft a plan"},"timestamp":1000}"#.into()),
        ("message-string", "A string message is not an AgentMessage.", MSG, r#"{"id":"e1","parent_id":null,"message":"a","timestamp":1}"#.into()),
        ("message-number", "A number message is not an AgentMessage.", MSG, r#"{"id":"e1","parent_id":null,"message":1,"timestamp":1}"#.into()),
        ("message-null", "A null message is not an AgentMessage.", MSG, r#"{"id":"e1","parent_id":null,"message":null,"timestamp":1}"#.into()),
        ("message-array", "An array message is not an AgentMessage.", MSG, r#"{"id":"e1","parent_id":null,"message":[],"timestamp":1}"#.into()),
        ("system-role", "yoagent has no system message.", MSG,
         r#"{"id":"e1","parent_id":null,"message":{"role":"system","content":[{"type":"text","text":"be brief"}],"timestamp":1}}"#.replace("}}", "},\"timestamp\":1}")),
        ("unknown-stop-reason", "An unknown stopReason is rejected.", MSG,
         line("e1", None, &{ let mut m = assistant("x", 1); m["stopReason"] = json!("end_turn"); m }, 1)),
        ("unknown-content-type", "An unknown content block type is rejected.", MSG,
         line("e1", None, &json!({"role":"user","content":[{"type":"audio","data":"x"}],"timestamp":1}), 1)),
        ("user-without-timestamp", "A user message needs its own timestamp.", MSG,
         line("e1", None, &json!({"role":"user","content":[]}), 1)),
        ("bom", "A byte order mark is not trimmed: the line is not JSON to serde.", LOAD, format!("\u{feff}{}", line("e1", None, &m1, 1))),
        ("missing-id", "An entry without id.", LOAD, format!("{{\"parent_id\":null,\"message\":{m1},\"timestamp\":1}}")),
        ("id-number", "A numeric id is rejected.", LOAD, format!("{{\"id\":1,\"parent_id\":null,\"message\":{m1},\"timestamp\":1}}")),
        ("duplicate-member", "A duplicate entry member is a serde error (`duplicate field`).", LOAD,
         format!("{{\"id\":\"e1\",\"id\":\"e2\",\"parent_id\":null,\"message\":{m1},\"timestamp\":1}}")),
        ("timestamp-missing", "An entry without timestamp.", LOAD, format!("{{\"id\":\"e1\",\"parent_id\":null,\"message\":{m1}}}")),
        ("timestamp-negative-zero", "-0 is read as a float by serde_json and rejected as a u64.", LOAD, line("e1", None, &m1, 0).replace("\"timestamp\":0}", "\"timestamp\":-0}")),
        ("timestamp-float", "1.0 is not a u64.", LOAD, line("e1", None, &m1, 0).replace("\"timestamp\":0}", "\"timestamp\":1.0}")),
        ("timestamp-too-big", "2^64 is not a u64.", LOAD, line("e1", None, &m1, 0).replace("\"timestamp\":0}", "\"timestamp\":18446744073709551616}")),
        ("timestamp-max", "2^64-1 is a u64 (no error: the file loads).", LOAD, line("e1", None, &m1, 0).replace("\"timestamp\":0}", "\"timestamp\":18446744073709551615}")),
        ("huge-integer", "An integer of more than 309 digits is out of f64 range and rejected.", LOAD,
         line("e1", None, &custom("n", json!(null)), 1).replace("\"data\":null", &format!("\"data\":1{}", "0".repeat(309)))),
        ("lone-surrogate", "A lone surrogate escape is rejected by serde_json.", LOAD,
         line("e1", None, &user("x", 1), 1).replace("\"text\":\"x\"", "\"text\":\"\\ud800\"")),
        (&*Box::leak(format!("depth-{}-rejected", deepest + 1).into_boxed_str()), "One level deeper than serde_json's recursion limit allows.", LOAD,
         line("e1", None, &custom("deep", nested(deepest - 1)), 1)),
        ("cr-inside-line", "A lone CR is not a line break: two entries on one line.", LOAD,
         format!("{}\r{}", line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2))),
        ("error-line-counts-blanks", "Blank lines count when numbering the line of an error.", LOAD,
         format!("{}\n\n\n\nnot json", line("e1", None, &m1, 1))),
        ("duplicate-id", "An id used twice: DuplicateId, located at the second entry's line.", &["T-YO-TREE-1"],
         [line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2), line("e1", Some("e2"), &m1, 3)].join("\n")),
        ("unknown-parent", "A parent that appears later: UnknownParent, located.", &["T-YO-TREE-1"],
         [line("e1", None, &m1, 1), "".into(), line("e2", Some("e3"), &m2, 2), line("e3", Some("e1"), &m1, 3)].join("\n")),
        ("self-parent", "An entry that is its own parent.", &["T-YO-TREE-1"], line("e1", Some("e1"), &m1, 1)),
        ("dangling-parent", "A parent that never appears.", &["T-YO-TREE-1"], [line("e1", None, &m1, 1), line("e2", Some("zz"), &m2, 2)].join("\n")),
        ("parse-before-tree-checks", "A parse error on a later line than a duplicate id: the first failing line wins.", &["T-YO-TREE-1", "T-YO-LOAD-1"],
         [line("e1", None, &m1, 1), line("e1", None, &m1, 1), "{".into()].join("\n")),
    ];
    for (name, desc, rules, input) in errs {
        v.push(case(name, desc, rules, input));
    }
    let mut bad = line("e1", None, &m1, 1).into_bytes();
    bad.extend_from_slice(b"\n{\"id\":\"\xff\"}");
    v.push(case("invalid-utf8", "Input that is not UTF-8 cannot reach from_jsonl (it takes &str): invalid_utf8 at its line.", LOAD, bad));
    v
}

fn apply_cases() -> Vec<Case> {
    let (m1, m2, m3) = (user("hi", 1), assistant("hello", 2), user("again", 3));
    let two = [line("e1", None, &m1, 1), line("e2", Some("e1"), &m2, 2)].join("\n");
    let steps_rules: &[&'static str] = &["T-YO-TS-1", "T-YO-SAVE-1"];
    vec![
        case("append-to-empty", "Appends to an empty session number e1, e2; step timestamps are written through SessionEntry's serde.", steps_rules, "")
            .apply(vec![append(m1.clone(), 100), append(m2.clone(), 200)]),
        case("append-after-load", "An append after loading continues the counter and the head.", &["T-YO-NEXT-1", "T-YO-TS-1"], two.clone())
            .apply(vec![append(m3.clone(), 300)]),
        case("seek-then-append-forks", "Seek to the root then append: a second branch.", &["T-SEEK-1", "T-YO-TS-1"], two.clone())
            .apply(vec![seek("e1"), append(m3.clone(), 300)]),
        case("seek-not-persisted", "A seek is not saved: after save_load the head is the last entry again.", &["T-SEEK-1", "T-HEAD-1"], two.clone())
            .apply(vec![seek("e1"), save_load(), append(m3.clone(), 300)]),
        case("seek-unknown", "Seek to an unknown id fails (UnknownEntry); the steps go on.", &["T-SEEK-1", "T-ERR-1"], two.clone())
            .apply(vec![seek("e9"), append(m3.clone(), 300)]),
        case("checkpoint-empty", "A checkpoint on an empty session fails (Empty).", &["T-CHECKPOINT-1", "T-ERR-1"], "")
            .apply(vec![checkpoint("x"), append(m1.clone(), 1), checkpoint("x")]),
        case("relabel", "Labelling the same entry twice keeps the last label.", &["T-CHECKPOINT-1"], two.clone())
            .apply(vec![checkpoint("a"), checkpoint("b"), seek_cp("a"), seek_cp("b")]),
        case("repeated-label-latest-entry-wins", "The same label on two entries: seek_checkpoint picks the latest created, not the latest labelled.", &["T-SEEKCP-1"], two.clone())
            .apply(vec![checkpoint("cp"), seek("e1"), checkpoint("cp"), append(m3.clone(), 3), seek_cp("cp"), append(m3.clone(), 4)]),
        case("seek-checkpoint-unknown", "An unknown label fails (UnknownCheckpoint).", &["T-SEEKCP-1", "T-ERR-1"], two.clone())
            .apply(vec![seek_cp("nope"), seek("e1"), seek_cp("nope")]),
        case("labels-survive-save", "Labels are saved and reload; the head does not.", &["T-CHECKPOINT-1", "T-YO-SAVE-1"], two.clone())
            .apply(vec![seek("e1"), checkpoint("root"), save_load(), seek_cp("root"), append(m3.clone(), 9)]),
        case("append-new-extends", "append_new with the path as prefix appends the rest.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![m1.clone(), m2.clone(), m3.clone(), assistant("ok", 4)], 50)]),
        case("append-new-equal", "append_new with exactly the path appends nothing.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![m1.clone(), m2.clone()], 50)]),
        case("append-new-empty-session", "append_new on an empty session appends the whole history.", &["T-YO-APPENDNEW-1"], "")
            .apply(vec![append_new(vec![m1.clone(), m2.clone()], 7)]),
        case("append-new-shorter", "A history shorter than the path diverges at its length.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![m3.clone()], 1), append_new(vec![], 1)]),
        case("append-new-differs", "A history differing from the path diverges at the first different index.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![m1.clone(), assistant("other", 2), m3.clone()], 1)]),
        case("append-new-message-timestamp-differs", "The messages' own timestamps are compared too.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![user("hi", 999), m2.clone()], 1)]),
        case("append-new-negative-zero", "Messages are compared parsed: -0.0 equals 0.0 in tool arguments.", &["T-YO-APPENDNEW-1"],
             line("e1", None, &custom("n", json!({"x": 0.0})), 1))
            .apply(vec![append_new(vec![custom("n", serde_json::from_str("{\"x\":-0.0}").unwrap()), m3.clone()], 5)]).tags(&["numbers"]),
        case("append-new-unknown-field-ignored", "Messages are compared parsed: an unknown member in the history is ignored.", &["T-YO-APPENDNEW-1"], two.clone())
            .apply(vec![append_new(vec![{ let mut m = m1.clone(); m["meta"] = json!(1); m }, m2.clone(), m3.clone()], 5)]),
        case("append-new-alias-equal", "Messages are compared parsed: error_message equals errorMessage.", &["T-YO-APPENDNEW-1"],
             line("e1", None, &{ let mut m = assistant("x", 1); m["stopReason"] = json!("error"); m["errorMessage"] = json!("boom"); m }, 1))
            .apply(vec![append_new(vec![{ let mut m = assistant("x", 1); m["stopReason"] = json!("error"); m["error_message"] = json!("boom"); m }, m3.clone()], 5)]),
        case("append-new-after-seek", "append_new after a seek compares with the seeked path and forks.", &["T-YO-APPENDNEW-1", "T-SEEK-1"], two.clone())
            .apply(vec![seek("e1"), append_new(vec![m1.clone(), assistant("alternative", 7)], 70)]),
        case("tool-turn-append-new", "A real tool-use turn recorded with append_new.", &["T-YO-APPENDNEW-1", "T-YO-MSG-1"], "")
            .apply(vec![append_new(vec![user("list the files", 10), tool_call("call_1", 11), tool_result("call_1", "a.txt", 12), assistant("One file.", 13)], 1234)]),
        case("save-load-continues", "save_load then append: the counter continues from the saved ids.", &["T-YO-NEXT-1", "T-YO-SAVE-1"], "")
            .apply(vec![append(m1.clone(), 1), append(m2.clone(), 2), save_load(), append(m3.clone(), 3)]),
        case("unicode-steps", "Unicode ids and labels through seek and checkpoints.", &["T-SEEK-1", "T-CHECKPOINT-1"],
             [line("é", None, &m1, 1), line("日本", Some("é"), &m2, 2)].join("\n"))
            .apply(vec![seek("é"), checkpoint("ラベル"), append(m3.clone(), 3), seek_cp("ラベル")]).tags(&["unicode"]),
        case("many-failures-go-on", "Several failing steps in one sequence: each result is its error, the tree unchanged by it.", &["T-ERR-1"], two.clone())
            .apply(vec![seek("x"), seek_cp("y"), append_new(vec![], 1), append(m3.clone(), 3), seek("e1"), append_new(vec![m2.clone()], 1)]),
        case("unnumbered-ids-append", "Appends to a session of unnumbered ids start at e1.", &["T-YO-NEXT-1"],
             [line("root", None, &m1, 1), line("child", Some("root"), &m2, 2)].join("\n"))
            .apply(vec![append(m3.clone(), 3)]),
    ]
}

fn quirk_cases() -> Vec<Case> {
    let m1 = user("hi", 1);
    let max = "e18446744073709551615";
    vec![
        case("counter-wraps", "After e18446744073709551615 yoagent's counter wraps (u64 += 1 in a release build) and the next id is e0; the generic format says id_space_exhausted.", &["T-YO-NEXT-1"],
             line(max, None, &m1, 1)).impl_defined().and_apply(vec![append(m1.clone(), 2)]),
        case("counter-wrap-collides", "With e1 present, two appends after the wrap give e0 and e1 again; the saved file then fails to load (DuplicateId).", &["T-YO-NEXT-1"],
             [line("e1", None, &m1, 1), line(max, Some("e1"), &m1, 2)].join("\n")).impl_defined()
            .apply(vec![append(m1.clone(), 3), append(m1.clone(), 4), save_load()]),
    ]
}

/// The largest nesting depth of an entry line that `from_jsonl` accepts (the entry object
/// is level 1, the message level 2, the outermost array of its `data` level 3).
fn deepest_loading_depth() -> usize {
    (4..400)
        .take_while(|&d| {
            yoagent::Session::from_jsonl(&line("e1", None, &custom("deep", nested(d - 2)), 1))
                .is_ok()
        })
        .last()
        .expect("some depth loads")
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/// The operation as an adapter receives it: the runner sends it as text, and
/// serde_json's default float parser does not always read back the digits serde_json
/// wrote (the shortest digits of a double it parsed are not always parsed to that
/// double again), so a step message's floats are what serde_json reads from its own
/// text, not the `Value` built here.
fn as_sent(op: &Value) -> Value {
    yoagent_adapter::read_request(&op.to_string()).expect("an operation reads back")
}

fn expect(op: &Value, input: &[u8]) -> Value {
    let op = &as_sent(op);
    match yoagent_adapter::run(op, input).expect("a tree operation") {
        Ok(v) => json!({ "result": v }),
        Err(f) => {
            assert_ne!(f.code, "invalid_request", "{op}: {}", f.message);
            assert_ne!(f.code, "internal_error", "{op}: {}", f.message);
            let mut e = json!({"code": f.code});
            if let Some(l) = f.line {
                e["line"] = json!(l);
            }
            json!({ "error": e })
        }
    }
}

/// `expect`, or `None` where the real layer cannot answer it as a conformance case
/// (a step message yoagent's types refuse is a malformed request, A-REQ-1).
fn expect_opt(op: &Value, input: &[u8]) -> Option<Value> {
    match yoagent_adapter::run(&as_sent(op), input)? {
        Ok(v) => Some(json!({ "result": v })),
        Err(f) if f.code == "invalid_request" || f.code == "internal_error" => None,
        Err(f) => {
            let mut e = json!({"code": f.code});
            if let Some(l) = f.line {
                e["line"] = json!(l);
            }
            Some(json!({ "error": e }))
        }
    }
}

// ---------------------------------------------------------------------------
// Generated cases (src/gen.rs): expectations from the real crate, kept by behaviour
// ---------------------------------------------------------------------------

/// The fixed seed of the committed `generated.json`.
const GEN_SEED: u64 = 0x0019_0026_0000_0001;
/// How many behaviour-distinct cases `generated.json` keeps.
const GEN_KEEP: usize = 800;
/// Candidates tried for it at most.
const GEN_BUDGET: usize = 60_000;

/// The real crate's observable answer, coarsened: the load error and its line, or
/// which steps succeeded or failed how, whether the counter is e<entries+1>, and
/// whether saving gave back the loaded lines unchanged.
fn answer_signature(input: &[u8], checks: &[(Value, Value)]) -> String {
    let mut sig = Vec::new();
    for (op, exp) in checks {
        if let Some(e) = exp.get("error") {
            let l = if e["line"] == 1 { "first" } else { "later" };
            sig.push(format!("E:{}:{l}", e["code"].as_str().unwrap_or("")));
            continue;
        }
        let r = &exp["result"];
        if op["op"] == "tree_inspect" {
            let n = r["entry_count"].as_u64().unwrap_or(0);
            let seq = r["next_id"] == json!(format!("e{}", n + 1));
            sig.push(format!(
                "I:n{}:{}",
                n.min(2),
                if seq { "seq" } else { "next" }
            ));
        } else {
            // Which step kinds failed, with which codes, and which succeeded.
            let mut outcomes = BTreeSet::new();
            for (step, res) in op["ops"]
                .as_array()
                .unwrap()
                .iter()
                .zip(r["results"].as_array().unwrap())
            {
                let name = step["step"].as_str().unwrap_or("");
                outcomes.insert(match res.get("error") {
                    Some(e) => format!("{name}={}", e["code"].as_str().unwrap_or("")),
                    None => format!("{name}=ok"),
                });
            }
            let input = String::from_utf8_lossy(input);
            let loaded: Vec<&str> = input
                .split('\n')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let tree = r["tree"].as_str().unwrap_or("");
            let saved: Vec<&str> = tree.split('\n').take(loaded.len()).collect();
            let rt = if saved == loaded { "same" } else { "rewritten" };
            sig.push(format!(
                "A:{}:{rt}",
                outcomes.into_iter().collect::<Vec<_>>().join(",")
            ));
        }
    }
    sig.join("|")
}

/// The SPEC rules a generated case exercises, from its features and answers.
fn generated_rules(features: &[String], checks: &[(Value, Value)]) -> Vec<&'static str> {
    let mut r: BTreeSet<&'static str> = BTreeSet::new();
    r.insert("T-YO-LOAD-1");
    let has = |p: &str| features.iter().any(|f| f.starts_with(p));
    if has("message")
        || has("content")
        || has("usage")
        || has("redacted")
        || has("provider")
        || has("value")
        || has("string")
        || has("unknown-odd")
    {
        r.insert("T-YO-MSG-1");
    }
    if has("entry-id") || has("id-escape") {
        r.insert("T-YO-NEXT-1");
    }
    for (op, exp) in checks {
        match exp.get("error").and_then(|e| e["code"].as_str()) {
            Some("duplicate_entry_id" | "unknown_parent") => {
                r.insert("T-YO-TREE-1");
            }
            Some(_) => {}
            None if op["op"] == "tree_apply" => {
                r.insert("T-YO-SAVE-1");
                for (step, res) in op["ops"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(exp["result"]["results"].as_array().unwrap())
                {
                    let rule = match step["step"].as_str().unwrap_or("") {
                        "append" => "T-YO-TS-1",
                        "append_new" => "T-YO-APPENDNEW-1",
                        "seek" => "T-SEEK-1",
                        "checkpoint" => "T-CHECKPOINT-1",
                        "seek_checkpoint" => "T-SEEKCP-1",
                        _ => "T-YO-SAVE-1",
                    };
                    r.insert(rule);
                    if res.get("error").is_some() {
                        r.insert("T-ERR-1");
                    }
                }
            }
            None => {
                r.insert("T-YO-NEXT-1");
            }
        }
    }
    r.into_iter().collect()
}

/// A candidate as a case, with its checks' expectations; `None` when the real layer
/// cannot answer it as a `must` case (a refused step message, or yoagent's counter
/// wrapping, which is `implementation-defined`).
fn generated_case(
    name: String,
    description: String,
    c: &gen::Candidate,
) -> Option<(Case, Vec<(Value, Value)>)> {
    let input = &c.input[..];
    let inspect = json!({"op":"tree_inspect"});
    let e1 = expect_opt(&inspect, input)?;
    let mut checks = vec![(inspect, e1.clone())];
    if e1.get("result").is_some() {
        if e1["result"]["next_id"] == "e0" {
            return None;
        }
        let apply = json!({"op":"tree_apply","ops":c.steps});
        let e2 = expect_opt(&apply, input)?;
        if e2["result"]["results"]
            .as_array()
            .is_some_and(|rs| rs.iter().any(|r| r == "e0"))
        {
            return None;
        }
        checks.push((apply, e2));
    }
    let rules = generated_rules(&c.features, &checks);
    let mut case = Case {
        name,
        description,
        rules,
        tags: vec!["generated"],
        level: "must",
        input: input.to_vec(),
        ops: checks.iter().map(|(op, _)| op.clone()).collect(),
    };
    if String::from_utf8_lossy(input)
        .contains(['\u{a0}', '\u{2028}', '\u{3000}', '\u{e9}', '\u{65e5}'])
    {
        case.tags.push("unicode");
    }
    Some((case, checks))
}

fn slug(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// `generated.json`: candidates from a fixed seed, each family in turn (plus, every
/// other time, one more random family), kept when their (features, answer) signature is
/// new, until `GEN_KEEP` are kept.
fn generated_cases() -> Vec<Case> {
    let mis = gen::misrounded_literals(6);
    let mut rng = gen::Rng::new(GEN_SEED);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut tried = 0;
    'outer: while tried < GEN_BUDGET {
        for fam in 0..gen::FAMILIES.len() {
            tried += 1;
            let extra = usize::from(rng.one_in(8));
            let c = gen::candidate(&mut rng, &mis, Some(fam), extra);
            if c.features.is_empty() {
                continue;
            }
            let name = format!("g{:04}-{}", out.len() + 1, slug(gen::FAMILIES[fam].0));
            let desc = format!(
                "Generated (seed {GEN_SEED:#x}, candidate {tried}): {}; the answer is the real yoagent crate's.",
                c.features.join(", ")
            );
            let Some((case, checks)) = generated_case(name, desc, &c) else {
                continue;
            };
            let key = format!(
                "{}|{}",
                c.features.join(","),
                answer_signature(&c.input, &checks)
            );
            if seen.insert(key) {
                out.push(case);
                if out.len() == GEN_KEEP {
                    break 'outer;
                }
            }
        }
    }
    eprintln!(
        "generated.json: {} kept of {tried} candidates (seed {GEN_SEED:#x})",
        out.len()
    );
    out
}

/// The differential's cases: `n` fresh candidates from `seed` (one to three random
/// families each), all kept.
fn differential_cases(seed: u64, n: usize) -> Vec<Case> {
    let mis = gen::misrounded_literals(6);
    let mut rng = gen::Rng::new(seed);
    let mut out = Vec::new();
    let mut tried = 0;
    while out.len() < n {
        tried += 1;
        let extra = rng.below(3);
        let fam = rng.below(gen::FAMILIES.len());
        let c = gen::candidate(&mut rng, &mis, Some(fam), extra);
        let name = format!("d{:05}", out.len() + 1);
        let desc = format!(
            "Differential (seed {seed:#x}, candidate {tried}): {}.",
            c.features.join(", ")
        );
        if let Some((case, _)) = generated_case(name, desc, &c) {
            out.push(case);
        }
    }
    out
}

fn indent(v: &Value, pad: &str) -> String {
    serde_json::to_string_pretty(v)
        .unwrap()
        .replace('\n', &format!("\n{pad}"))
}

/// A vector file of `cases`; with `compact`, each check on one line (the generated
/// files: deep messages pretty-printed would take a line per level).
fn write_file(cases: &[Case], compact: bool) -> String {
    let mut out = String::from("{\n  \"cases\": [");
    for (i, c) in cases.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let input = match std::str::from_utf8(&c.input) {
            Ok(s) if !s.starts_with('\u{feff}') => format!("\"input\": {}", json!(s)),
            _ => format!(
                "\"input_base64\": {}",
                json!(base64::engine::general_purpose::STANDARD.encode(&c.input))
            ),
        };
        let checks: Vec<Value> = c
            .ops
            .iter()
            .map(|op| json!({"op": op, "expect": expect(op, &c.input)}))
            .collect();
        write!(
            out,
            "    {{\n      \"name\": {},\n      \"description\": {},\n      \"rules\": {},\n",
            json!(c.name),
            json!(c.description),
            json!(c.rules)
        )
        .unwrap();
        if !c.tags.is_empty() {
            writeln!(out, "      \"tags\": {},", json!(c.tags)).unwrap();
        }
        writeln!(
            out,
            "      \"level\": {},\n      \"profile\": \"yoagent-0.26\",\n      {input},\n      \"checks\": {}\n    }}",
            json!(c.level),
            if compact {
                let lines: Vec<String> = checks.iter().map(|c| format!("\n        {c}")).collect();
                format!("[{}\n      ]", lines.join(","))
            } else {
                indent(&Value::Array(checks), "      ")
            }
        )
        .unwrap();
        out.pop();
    }
    out.push_str("\n  ]\n}\n");
    out
}

fn write_group(dir: &std::path::Path, file: &str, cases: &[Case]) {
    let path = dir.join(file);
    let tmp = dir.join(format!(".{file}.tmp"));
    let compact = !matches!(file, "load.json" | "apply.json" | "quirks.json");
    std::fs::write(&tmp, write_file(cases, compact)).expect("write");
    std::fs::rename(&tmp, &path).expect("rename");
    eprintln!("{}: {} cases", path.display(), cases.len());
}

const USAGE: &str =
    "usage: yoagent-vectors [DIR]\n       yoagent-vectors --differential N --seed S DIR";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--differential") {
        // yoagent-vectors --differential N --seed S DIR: N fresh cases from seed S
        // (decimal, or 0x hex), expectations from the real crate, in DIR/differential.json.
        let (Some(n), Some("--seed"), Some(seed), Some(dir)) = (
            args.get(1).and_then(|n| n.parse::<usize>().ok()),
            args.get(2).map(String::as_str),
            args.get(3).and_then(|s| match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse::<u64>().ok(),
            }),
            args.get(4),
        ) else {
            eprintln!("{USAGE}");
            std::process::exit(2);
        };
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("create the output directory");
        write_group(&dir, "differential.json", &differential_cases(seed, n));
        return;
    }
    if args.len() > 1 || args.first().is_some_and(|a| a.starts_with('-')) {
        eprintln!("{USAGE}");
        std::process::exit(2);
    }
    let dir = PathBuf::from(
        args.first()
            .map_or("conformance/tree-yoagent", String::as_str),
    );
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let mut total = 0;
    for (file, cases) in [
        ("load.json", load_cases()),
        ("apply.json", apply_cases()),
        ("quirks.json", quirk_cases()),
        ("categories.json", named::category_cases()),
        ("whitespace.json", named::whitespace_cases()),
        ("generated.json", generated_cases()),
    ] {
        total += cases.len();
        write_group(&dir, file, &cases);
    }
    eprintln!("{total} cases from yoagent 0.26.6");
}
