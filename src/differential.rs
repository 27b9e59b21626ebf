//! The differential phase: generated cases compared with the reference (SPEC.md 13.6).
//!
//! This module owns the runner's second phase (`journal-conformance test --properties
//! N`). It generates N cases for every operation the adapter's handshake offers
//! (valid and malformed journals from [`crate::generate`]; session trees with step
//! sequences, JSON texts and store step sequences from [`crate::generate::operations`]),
//! gives each to the implementation and to the reference, and keeps going after a
//! disagreement: each one is classified (operation, cause, the first differing JSON
//! Pointer or the two error codes, and the rule it is attributed to), disagreements
//! are grouped into distinct [`Kind`]s, and ONE representative per kind is shrunk by
//! proptest while keeping its kind, then written as a portable vector (proptest's
//! seeds only replay in Rust with the same generator, a vector replays anywhere).
//!
//! Attribution is written once, here, from two sources: the generator's own labels (a
//! planted defect names its error code, hence its rule: [`crate::ErrorCode::rule`])
//! and what differs in a result (the member tables below, derived from SPEC.md
//! sections 3.2, 6, 8, 15 and 16). Errored checks (adapter faults) are counted, never
//! classified, never shrunk; a few in a row stop the phase.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use crate::adapter::{reference_answer, Implementation, Reply};
use crate::error::ErrorCode;
use crate::explain::{self, Cause};
use crate::generate::operations::{canonical_input, store_case, tree_case};
use crate::generate::{any_malformed_journal, valid_journal, GenConfig};
use crate::json::{self, Value};
use crate::ops::{Operation, Profile};
use crate::store::StoreStep;
use crate::tree::Step;
use crate::vectors::{self, Answer, Case, Check, Expect, InputForm, Level};

/// Adapter faults in a row after which the phase stops (the adapter is dead).
pub const MAX_CONSECUTIVE_FAULTS: u32 = 3;
/// Shrink steps per kind, the time a kind may take to shrink, and the time all
/// kinds together may take (kinds found after it is spent are reported unshrunk).
const SHRINK_ITERS: u32 = 2048;
const SHRINK_MS: u64 = 5_000;
const SHRINK_BUDGET_MS: u64 = 20_000;

/// How to run the phase.
pub struct DiffOptions<'a> {
    pub cases: u32,
    pub seed: u64,
    pub fail_fast: bool,
    /// `(K, N)`, 1-based K: generated case `i` runs iff `i % N == K - 1`.
    pub partition: Option<(u32, u32)>,
    /// Rule ids on the skip list: kinds attributed to them are known, not failed.
    pub known_rules: &'a BTreeSet<String>,
    pub counterexamples: Option<&'a Path>,
    /// Cap on kinds shrunk (the others are reported with their first, unshrunk case).
    pub max_shrunk_kinds: usize,
}

/// What the phase found.
#[derive(Debug, Default)]
pub struct DiffReport {
    /// Cases generated in this run (this shard's share of `cases`).
    pub generated: u32,
    /// Cases answered by the implementation and compared with the reference.
    pub compared: u32,
    /// Compared cases whose answer differs from the reference's.
    pub disagreeing: u32,
    /// Checks the adapter did not answer (A-FAULT-1), shrinking included.
    pub errored: u32,
    /// (operation, why it was not compared); `"*"` when the whole phase stopped.
    pub skipped_ops: Vec<(String, String)>,
    pub kinds: Vec<Kind>,
}

/// One distinct kind of disagreement (same operation, cause, rule and pointer or
/// codes), with its shrunk representative.
#[derive(Clone, Debug)]
pub struct Kind {
    /// `properties/<op>/<8 hex of sha256 of the op's JSON and the input>`.
    pub id: String,
    pub op: String,
    /// One of SPEC.md 13.3's causes, as [`explain::diagnose`] decides it.
    pub cause: Cause,
    /// The JSON Pointer of the first difference, or "expected X, got Y".
    pub detail: String,
    pub rule: Option<String>,
    /// The rule is on the skip list.
    pub known: bool,
    pub occurrences: u32,
    /// The generated case number where it first appeared, and the run's seed.
    pub first_case: u32,
    pub seed: u64,
    pub counterexample: Case,
    pub path: Option<PathBuf>,
    pub explanation: String,
}

/// One generated trial: exact input bytes, an operation, a profile, and the
/// generator's labels.
#[derive(Clone, Debug)]
pub struct Trial {
    pub input: Vec<u8>,
    pub op: Operation,
    pub profile: Profile,
    /// What the generator built (for the counterexample's description).
    pub origin: String,
    /// Every planted defect's code and line (malformed journals only).
    pub planted: Vec<(ErrorCode, Option<u64>)>,
    /// The code the generator's label says the reference reports.
    pub label: Option<ErrorCode>,
}

impl Trial {
    fn plain(input: Vec<u8>, op: Operation, profile: Profile, origin: String) -> Trial {
        Trial {
            input,
            op,
            profile,
            origin,
            planted: vec![],
            label: None,
        }
    }
}

/// Every operation of protocol 1.
const ALL_OPS: [&str; 8] = crate::ops::OPERATIONS;

fn note(report: &mut DiffReport, op: &str, why: String) {
    if !report.skipped_ops.iter().any(|(o, _)| o == op) {
        report.skipped_ops.push((op.to_owned(), why));
    }
}

const JOURNAL_OPS: [&str; 4] = ["validate", "replay", "fingerprint", "branch"];

/// The trials for the operations in `offered` (`None` when none can be generated).
/// Weights: journals 6 (half valid, half malformed), `tree_apply` 2, `canonical` 2,
/// `tree_inspect` 1, `store_apply` 1.
pub fn trials(cfg: &GenConfig, offered: &[String]) -> Option<BoxedStrategy<Trial>> {
    let has = |op: &str| offered.iter().any(|o| o == op);
    let mut arms: Vec<(u32, BoxedStrategy<Trial>)> = Vec::new();
    let journal_ops: Vec<&str> = JOURNAL_OPS.iter().copied().filter(|o| has(o)).collect();
    if !journal_ops.is_empty() {
        let valid = (valid_journal(cfg), any::<u8>(), any::<u16>())
            .prop_map(move |(j, which, k)| {
                let n = j.events.len().max(1) as i64;
                let k = i64::from(k) % n;
                let name = journal_ops[usize::from(which) % journal_ops.len()];
                let whole = which / 4 % 2 == 0;
                let until = if whole { None } else { Some(k) };
                let op = match name {
                    "validate" => Operation::Validate,
                    "replay" => Operation::Replay { until },
                    "fingerprint" => Operation::Fingerprint { until },
                    _ => Operation::Branch {
                        at: k,
                        branch_id: "branch".into(),
                    },
                };
                Trial::plain(
                    j.bytes(),
                    op,
                    j.profile.into(),
                    format!("a valid journal of {} events", j.events.len()),
                )
            })
            .boxed();
        let malformed = any_malformed_journal(cfg)
            .prop_map(|m| Trial {
                origin: format!("a journal with {}", m.describe()),
                planted: m
                    .planted
                    .iter()
                    .map(|p| (p.defect.code(), p.line))
                    .collect(),
                label: Some(m.expected.code),
                input: m.bytes,
                op: m.op,
                profile: m.profile.into(),
            })
            .boxed();
        arms.push((3, valid));
        arms.push((3, malformed));
    }
    if has("tree_inspect") || has("tree_apply") {
        let (inspect, apply) = (has("tree_inspect"), has("tree_apply"));
        let weight = u32::from(inspect) + 2 * u32::from(apply);
        let s = (tree_case(), 0..weight)
            .prop_map(move |(c, w)| {
                let op = if !apply || (inspect && w == 0) {
                    Operation::TreeInspect
                } else {
                    Operation::TreeApply { steps: c.steps }
                };
                Trial::plain(c.bytes, op, Profile::Core, c.origin)
            })
            .boxed();
        arms.push((weight, s));
    }
    if has("canonical") {
        let s = canonical_input()
            .prop_map(|(bytes, origin)| {
                Trial::plain(bytes, Operation::Canonical, Profile::Core, origin)
            })
            .boxed();
        arms.push((2, s));
    }
    if has("store_apply") {
        let small = GenConfig {
            events: 1..=6,
            ..cfg.clone()
        };
        let s = store_case(&small)
            .prop_map(|c| {
                Trial::plain(
                    c.initial,
                    Operation::StoreApply { steps: c.steps },
                    c.profile.into(),
                    c.origin,
                )
            })
            .boxed();
        arms.push((1, s));
    }
    if arms.is_empty() {
        None
    } else {
        Some(Union::new_weighted(arms).boxed())
    }
}

/// What the reference expects for a trial.
pub fn expectation(t: &Trial) -> Result<Expect, String> {
    Ok(match reference_answer(&t.op, t.profile, &t.input)? {
        Answer::Result(value) => Expect::Result {
            value,
            sha256: None,
        },
        Answer::Error {
            code,
            line,
            sequence,
            index,
            ..
        } => Expect::Error {
            codes: vec![code],
            line,
            sequence,
            index,
        },
    })
}

/// A classified disagreement.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    pub cause: Cause,
    pub rule: Option<String>,
    /// What identifies the kind besides op, cause and rule (a normalised pointer,
    /// the codes, the location field).
    pub group: String,
    pub detail: String,
    /// The whole difference, for humans.
    pub message: String,
}

impl Disagreement {
    fn key(&self, op: &str) -> (String, &'static str, Option<String>, String) {
        (
            op.to_owned(),
            self.cause.as_str(),
            self.rule.clone(),
            self.group.clone(),
        )
    }
}

/// Whether a disagreement of `op` on `rule` is known (D-KNOWN-1): `known` holds skip
/// list rules (`RULE`, for every operation) and differential-only entries (`OP/RULE`).
pub fn is_known(known: &BTreeSet<String>, op: &str, rule: &str) -> bool {
    known.contains(rule) || known.contains(&format!("{op}/{rule}"))
}

/// Classify `got` against `want` for trial `t`; `None` when they agree. The cause is
/// [`explain::diagnose`]'s, the one the fixed vectors get; this adds the rule and the
/// kind's grouping. A rule on `known` never hides another: of all the places a result
/// differs, the first one attributed to a rule NOT on the list names the kind.
pub fn classify(
    t: &Trial,
    want: &Expect,
    got: &Answer,
    known: &BTreeSet<String>,
) -> Option<Disagreement> {
    let message = vectors::compare(want, got)?;
    let mismatch = explain::diagnose(want, got);
    let cause = mismatch.as_ref().map_or(Cause::WrongResult, |m| m.cause);
    let code_rule = |c: &str| code_rule(&t.op, c);
    Some(match (want, got) {
        (Expect::Result { value, .. }, Answer::Result(v)) => {
            let diffs = differences(value, v);
            let attributed: Vec<(Option<String>, &(String, String))> = diffs
                .iter()
                .map(|d| (result_rule(&t.op, &d.0, value, v), d))
                .collect();
            let chosen = attributed
                .iter()
                .find(|(r, _)| r.as_ref().is_none_or(|r| !is_known(known, t.op.name(), r)))
                .or(attributed.first());
            match chosen {
                Some((rule, (ptr, msg))) => Disagreement {
                    cause,
                    rule: rule.clone(),
                    group: group_pointer(&t.op, ptr),
                    detail: if ptr.is_empty() {
                        "/".into()
                    } else {
                        ptr.clone()
                    },
                    message: msg.clone(),
                },
                None => Disagreement {
                    cause,
                    rule: None,
                    group: String::new(),
                    detail: "/".into(),
                    message,
                },
            }
        }
        (Expect::Result { .. }, Answer::Error { code, .. }) => Disagreement {
            cause,
            rule: code_rule(code),
            group: format!("got {code}"),
            detail: format!("expected a result, got {code}"),
            message,
        },
        (Expect::Error { codes, .. }, Answer::Result(_)) => Disagreement {
            cause,
            rule: t
                .label
                .map(|c| c.rule().to_owned())
                .or_else(|| code_rule(&codes[0])),
            group: format!("expected {}", codes[0]),
            detail: format!("expected {}, got a result", codes[0]),
            message,
        },
        (
            Expect::Error {
                codes,
                line,
                sequence,
                index,
            },
            Answer::Error {
                code,
                line: got_line,
                sequence: got_seq,
                index: got_index,
                ..
            },
        ) => {
            if cause == Cause::WrongErrorCode {
                Disagreement {
                    cause,
                    rule: Some(order_rule(t, &codes[0], *line, code)),
                    group: format!("expected {}, got {code}", codes[0]),
                    detail: format!("expected {}, got {code}", codes[0]),
                    message,
                }
            } else {
                let show = |v: Option<String>| v.unwrap_or_else(|| "none".into());
                let at = mismatch.as_ref().and_then(|m| m.pointer.as_deref());
                let (field, w, g) = if at == Some("/error/line") {
                    (
                        "line",
                        show(line.map(|l| l.to_string())),
                        show(got_line.map(|l| l.to_string())),
                    )
                } else if at == Some("/error/sequence") {
                    (
                        "sequence",
                        show(sequence.map(|s| s.to_string())),
                        show(got_seq.map(|s| s.to_string())),
                    )
                } else {
                    (
                        "index",
                        show(index.map(|i| i.to_string())),
                        show(got_index.map(|i| i.to_string())),
                    )
                };
                Disagreement {
                    cause,
                    rule: Some(location_rule(&t.op, code).to_owned()),
                    group: format!("{code} {field}"),
                    detail: format!("{code}: expected {field} {w}, got {g}"),
                    message,
                }
            }
        }
    })
}

/// The rule of an error code for an operation: tree files have their own rules for
/// the codes they share with journals (T-PARENT-1, T-LINE-2), otherwise
/// [`ErrorCode::rule`].
pub fn code_rule(op: &Operation, code: &str) -> Option<String> {
    let c = ErrorCode::from_str_code(code)?;
    let tree = matches!(op, Operation::TreeInspect | Operation::TreeApply { .. });
    let wire_or_json = c.rule().starts_with("W-") || c.rule().starts_with("C-");
    Some(
        match c {
            ErrorCode::UnknownParent if tree => "T-PARENT-1",
            _ if tree && wire_or_json => "T-LINE-2",
            _ => c.rule(),
        }
        .to_owned(),
    )
}

/// The rule a wrong error code is attributed to: precedence (J-ORDER-1 within a
/// line, O-ORDER-1 between journal and operation errors) when the adapter reported
/// another defect the generator planted where the precedence rule decides between
/// them; otherwise the rule of the code that was due.
fn order_rule(t: &Trial, want: &str, want_line: Option<u64>, got: &str) -> String {
    let want_code = t.label.or_else(|| ErrorCode::from_str_code(want));
    let op_code = |c: ErrorCode| {
        matches!(
            c,
            ErrorCode::SequenceOutOfRange | ErrorCode::InvalidBranchId
        )
    };
    if let (Some(w), Some(g)) = (want_code, ErrorCode::from_str_code(got)) {
        if let Some((_, got_line)) = t.planted.iter().find(|(c, _)| *c == g) {
            if op_code(w) || op_code(g) {
                return "O-ORDER-1".into();
            }
            if *got_line == want_line {
                return "J-ORDER-1".into();
            }
        }
        return code_rule(&t.op, w.as_str()).unwrap_or_else(|| w.rule().to_owned());
    }
    code_rule(&t.op, want).unwrap_or_else(|| "O-ERR-1".into())
}

/// The rule a wrong location is attributed to.
fn location_rule(op: &Operation, code: &str) -> &'static str {
    match op {
        Operation::Canonical => "O-CANON-1",
        Operation::TreeInspect | Operation::TreeApply { .. } => "T-ERR-1",
        _ if code == ErrorCode::SequenceOutOfRange.as_str() => "O-RANGE-1",
        _ => "J-LOC-1",
    }
}

/// Members of a ReplayState and the rules that define them (SPEC.md section 6).
const REPLAY_RULES: &[(&str, &str)] = &[
    ("session_id", "J-SESSION-1"),
    ("run_id", "J-RUN-1"),
    ("applied_sequences", "R-SEL-1"),
    ("user_messages", "R-USER-1"),
    ("assistant_messages", "R-STREAM-1"),
    ("tool_results", "R-TOOL-1"),
    ("stop_reason", "R-STOP-1"),
    ("fingerprint", "F-FP-1"),
];
/// Members of a SessionBranch (SPEC.md section 8).
const BRANCH_RULES: &[(&str, &str)] = &[
    ("branch_id", "B-ID-1"),
    ("parent_session_id", "J-SESSION-1"),
    ("parent_run_id", "J-RUN-1"),
    ("fork_sequence", "B-RANGE-1"),
    ("inherited_event_ids", "B-RANGE-1"),
    ("parent_fingerprint", "F-FP-1"),
];
/// Members of `tree_inspect`'s result (SPEC.md 15.3, T-OPS-1).
const INSPECT_RULES: &[(&str, &str)] = &[
    ("head", "T-HEAD-1"),
    ("path_ids", "T-PATH-1"),
    ("branch_tips", "T-TIPS-1"),
    ("children", "T-TIPS-1"),
    ("entry_count", "T-ENTRY-1"),
    ("labels", "T-SEEKCP-1"),
    ("next_id", "T-NEXT-1"),
];

fn lookup(table: &[(&str, &'static str)], member: Option<&String>) -> Option<String> {
    let m = member?;
    table
        .iter()
        .find(|(k, _)| k == m)
        .map(|(_, r)| (*r).to_owned())
}

fn segments(ptr: &str) -> Vec<String> {
    ptr.split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn element<'a>(v: &'a Value, seg: &[String]) -> Option<&'a Value> {
    let mut cur = v;
    for s in seg {
        cur = match cur {
            Value::Array(a) => a.get(s.parse::<usize>().ok()?)?,
            Value::Object(_) => cur.get(s)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn step_error_code(op: &Operation, v: Option<&Value>) -> Option<String> {
    code_rule(op, v?.get("error")?.get("code")?.as_str()?)
}

/// The rule a difference at `ptr` in a result is attributed to.
pub fn result_rule(op: &Operation, ptr: &str, want: &Value, got: &Value) -> Option<String> {
    let seg = segments(ptr);
    let first = seg.first();
    match op {
        Operation::Validate => Some("O-JSON-1".into()),
        Operation::Fingerprint { .. } => Some("F-FP-1".into()),
        Operation::Replay { .. } => lookup(REPLAY_RULES, first),
        Operation::Branch { .. } => lookup(BRANCH_RULES, first),
        Operation::TreeInspect => lookup(INSPECT_RULES, first),
        Operation::Canonical => Some(canonical_rule(want, got).to_owned()),
        Operation::TreeApply { steps } => match first.map(String::as_str) {
            Some("tree") => Some("T-SAVE-1".into()),
            Some("results") => {
                let i = seg.get(1).and_then(|s| s.parse::<usize>().ok());
                let expected = element(want, &seg[..seg.len().min(2)]);
                if let Some(r) = step_error_code(op, expected) {
                    return Some(r);
                }
                Some(
                    match i.and_then(|i| steps.get(i)) {
                        Some(Step::Append { .. }) => "T-NEXT-1",
                        Some(Step::Seek { .. }) => "T-SEEK-1",
                        Some(Step::Checkpoint { .. }) => "T-CHECKPOINT-1",
                        Some(Step::SeekCheckpoint { .. }) => "T-SEEKCP-1",
                        Some(Step::AppendNew { .. }) => "T-APPENDNEW-1",
                        Some(Step::SaveLoad) => "T-ROUND-1",
                        None => "T-OPS-1",
                    }
                    .into(),
                )
            }
            _ => Some("T-OPS-1".into()),
        },
        Operation::StoreApply { steps } => match first.map(String::as_str) {
            Some("recovered") => Some("S-RECOVER-1".into()),
            Some("journal") => Some("S-VALID-1".into()),
            Some("results") => {
                let i = seg.get(1).and_then(|s| s.parse::<usize>().ok());
                let at = &seg[..seg.len().min(2)];
                let (w, g) = (element(want, at), element(got, at));
                let dup = |v: Option<&Value>| {
                    v.is_some_and(|v| {
                        let text = crate::canonical::to_string(v);
                        text.contains("\"duplicate\":true")
                            || text.contains("conflicting_duplicate")
                    })
                };
                Some(match i.and_then(|i| steps.get(i)) {
                    Some(StoreStep::Append { .. }) if dup(w) || dup(g) => "S-DUP-1".into(),
                    Some(StoreStep::Append { .. }) => match step_error_code(op, w) {
                        Some(r) => r,
                        None if w.and_then(|w| w.get("event_id")).is_some()
                            && g.and_then(|g| g.get("event_id")).is_some() =>
                        {
                            "S-ACK-2".into()
                        }
                        None => "S-VALID-1".into(),
                    },
                    Some(StoreStep::AppendBatch { .. }) if dup(w) || dup(g) => "S-DUP-1".into(),
                    Some(StoreStep::AppendBatch { .. }) => "S-BATCH-1".into(),
                    Some(StoreStep::Restart) => "S-RECOVER-1".into(),
                    Some(StoreStep::Checkpoint) => "K-RECORD-1".into(),
                    Some(StoreStep::Replay) => step_error_code(op, w)
                        .or_else(|| lookup(REPLAY_RULES, seg.get(2)))
                        .unwrap_or_else(|| "R-PROJ-1".into()),
                    Some(StoreStep::ReplayFromCheckpoint) => "K-REPLAY-1".into(),
                    None => "S-OPS-1".into(),
                })
            }
            _ => Some("S-OPS-1".into()),
        },
    }
}

/// The canonical-text rule (SPEC.md 3.2) a wrong `canonical` result breaks, from
/// what differs: members out of order (C-KEY-1), else the token of the expected text
/// at the first differing byte: whitespace where none is due (C-WS-1), an escape
/// (C-STR-1) or a raw character (C-STR-2) in a string, an integer (C-NUM-1) or a
/// float (C-NUM-5), a literal (C-LIT-1).
pub fn canonical_rule(want: &Value, got: &Value) -> &'static str {
    let (Some(w), Some(g)) = (want.as_str(), got.as_str()) else {
        return "O-CANON-1";
    };
    if let Ok(v) = json::parse(g) {
        if unsorted_keys(&v) {
            return "C-KEY-1";
        }
    }
    let (wb, gb) = (w.as_bytes(), g.as_bytes());
    let d = wb
        .iter()
        .zip(gb)
        .position(|(a, b)| a != b)
        .unwrap_or(wb.len().min(gb.len()));
    if gb.get(d).is_some_and(|b| b" \t\r\n".contains(b)) {
        return "C-WS-1";
    }
    // Scan the expected (canonical, so compact) text up to `d`.
    let d = d.min(wb.len().saturating_sub(1));
    let mut i = 0;
    while i < wb.len() {
        let start = i;
        match wb[i] {
            b'"' => {
                i += 1;
                while i < wb.len() && wb[i] != b'"' {
                    if wb[i] == b'\\' {
                        let len = if wb.get(i + 1) == Some(&b'u') { 6 } else { 2 };
                        if (i..i + len).contains(&d) {
                            return "C-STR-1";
                        }
                        i += len;
                    } else {
                        i += 1;
                    }
                }
                i += 1;
                if (start..i).contains(&d) {
                    return "C-STR-2";
                }
            }
            b'-' | b'0'..=b'9' => {
                while i < wb.len()
                    && matches!(wb[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                if (start..i).contains(&d) {
                    let float = wb[start..i].iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
                    return if float { "C-NUM-5" } else { "C-NUM-1" };
                }
            }
            b't' | b'f' | b'n' => {
                while i < wb.len() && wb[i].is_ascii_lowercase() {
                    i += 1;
                }
                if (start..i).contains(&d) {
                    return "C-LIT-1";
                }
            }
            _ => {
                i += 1;
                if start == d {
                    return "C-WS-1";
                }
            }
        }
    }
    "C-WS-1"
}

fn unsorted_keys(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(unsorted_keys),
        Value::Object(m) => {
            m.windows(2).any(|p| p[0].0 > p[1].0) || m.iter().any(|(_, v)| unsorted_keys(v))
        }
        _ => false,
    }
}

/// Every place two JSON values differ (at most 32), in the order and the words of
/// [`vectors::first_difference`] (whose answer is always the first element).
pub fn differences(want: &Value, got: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    diff_into(want, got, String::new(), &mut out);
    out
}

fn diff_into(want: &Value, got: &Value, ptr: String, out: &mut Vec<(String, String)>) {
    if out.len() >= 32 {
        return;
    }
    let here = |p: &str| {
        if p.is_empty() {
            "/".to_owned()
        } else {
            p.to_owned()
        }
    };
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
                match got.get(k) {
                    None => {
                        let shown =
                            crate::error::shorten(crate::canonical::to_string(v).as_bytes(), 200);
                        out.push((p.clone(), format!("{p}: missing (expected {shown})")));
                    }
                    Some(w) => diff_into(v, w, p, out),
                }
            }
            for (k, w) in b {
                if want.get(k).is_none() {
                    let shown =
                        crate::error::shorten(crate::canonical::to_string(w).as_bytes(), 200);
                    out.push((
                        format!("{ptr}/{k}"),
                        format!("{ptr}/{k}: unexpected member (got {shown})"),
                    ));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_into(x, y, format!("{ptr}/{i}"), out);
            }
            if a.len() != b.len() {
                out.push((
                    ptr.clone(),
                    format!(
                        "{}: expected {} elements, got {}",
                        here(&ptr),
                        a.len(),
                        b.len()
                    ),
                ));
            }
        }
        _ => {
            if let Some(m) = vectors::first_difference(want, got, ptr.clone()) {
                out.push((ptr, m));
            }
        }
    }
}

/// The pointer part of a kind: array indices become `*`, and only the segments that
/// decide the rule are kept (one for journals and `tree_inspect`, two for the
/// results of `tree_apply` and `store_apply`, none for `canonical`).
fn group_pointer(op: &Operation, ptr: &str) -> String {
    let keep = match op {
        Operation::Canonical | Operation::Fingerprint { .. } => 0,
        Operation::TreeApply { .. } | Operation::StoreApply { .. } => 2,
        _ => 1,
    };
    segments(ptr)
        .iter()
        .take(keep)
        .map(|s| {
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                "/*".to_owned()
            } else {
                format!("/{s}")
            }
        })
        .collect()
}

fn case_rng(seed: u64, case: u32) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&case.to_le_bytes());
    bytes[12..16].copy_from_slice(b"jcdp");
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

type TrialTree = Box<dyn ValueTree<Value = Trial>>;

struct Found {
    first_case: u32,
    occurrences: u32,
    trial: Trial,
    want: Expect,
    found: Disagreement,
    tree: Option<TrialTree>,
}

/// Run the phase against `imp` (see the module documentation and SPEC.md 13.6).
pub fn run(imp: &mut dyn Implementation, opts: &DiffOptions) -> Result<DiffReport, String> {
    let cfg = GenConfig {
        events: 1..=12,
        ..GenConfig::default()
    };
    if let Some((k, n)) = opts.partition {
        if n == 0 || k == 0 || k > n {
            return Err(format!("partition {k}/{n}: need 1 <= K <= N"));
        }
    }
    let mut report = DiffReport::default();
    let info = imp.info().clone();
    for op in ALL_OPS {
        if !info.operations.iter().any(|o| o == op) {
            note(
                &mut report,
                op,
                "not offered by the adapter's handshake".into(),
            );
        }
    }
    let Some(strategy) = trials(&cfg, &info.operations) else {
        return Ok(report);
    };
    let mut runner = TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        case_rng(opts.seed, 0),
    );
    let mut found: BTreeMap<(String, &'static str, Option<String>, String), Found> =
        BTreeMap::new();
    let mut order: Vec<(String, &'static str, Option<String>, String)> = Vec::new();
    let mut faults_in_a_row = 0;
    for i in 0..opts.cases {
        if let Some((k, n)) = opts.partition {
            if i % n != k - 1 {
                continue;
            }
        }
        report.generated += 1;
        *runner.rng() = case_rng(opts.seed, i);
        let tree = strategy
            .new_tree(&mut runner)
            .map_err(|e| format!("generated case {i}: {e}"))?;
        let t = tree.current();
        let name = t.op.name();
        if !info.supports(&t.op, t.profile) {
            if !info.profiles.iter().any(|p| p == t.profile.as_str()) {
                note(
                    &mut report,
                    &format!("{name} ({})", t.profile.as_str()),
                    format!(
                        "profile {} not offered by the adapter's handshake",
                        t.profile.as_str()
                    ),
                );
            }
            continue;
        }
        let want = match expectation(&t) {
            Ok(w) => w,
            Err(e) => {
                note(
                    &mut report,
                    name,
                    format!("the reference could not run it: {e}"),
                );
                continue;
            }
        };
        let got = match imp.run(&t.op, t.profile, &t.input) {
            Reply::Unsupported => {
                note(
                    &mut report,
                    name,
                    "the adapter answered `unsupported`".into(),
                );
                continue;
            }
            Reply::Fault(m) => {
                report.errored += 1;
                faults_in_a_row += 1;
                if faults_in_a_row >= MAX_CONSECUTIVE_FAULTS {
                    report.skipped_ops.push((
                        "*".into(),
                        format!(
                            "the differential phase stopped at generated case {i} after {faults_in_a_row} adapter faults in a row (errored, not compared); last: {}",
                            crate::error::shorten(m.as_bytes(), 300)
                        ),
                    ));
                    break;
                }
                continue;
            }
            Reply::Answer(a) => a,
        };
        faults_in_a_row = 0;
        report.compared += 1;
        let Some(d) = classify(&t, &want, &got, opts.known_rules) else {
            continue;
        };
        report.disagreeing += 1;
        let key = d.key(name);
        match found.get_mut(&key) {
            Some(f) => f.occurrences += 1,
            None => {
                let shrink = order.len() < opts.max_shrunk_kinds;
                order.push(key.clone());
                found.insert(
                    key,
                    Found {
                        first_case: i,
                        occurrences: 1,
                        trial: t,
                        want,
                        found: d,
                        tree: shrink.then_some(tree),
                    },
                );
            }
        }
        if opts.fail_fast {
            break;
        }
    }
    let mut kinds = Vec::new();
    let shrinking = std::time::Instant::now();
    for key in order {
        let mut f = found.remove(&key).expect("every kind was recorded");
        let mut shrunk = false;
        let left = SHRINK_BUDGET_MS.saturating_sub(shrinking.elapsed().as_millis() as u64);
        if let Some(tree) = f.tree.take().filter(|_| left > 0) {
            let ms = left.min(SHRINK_MS) as u32;
            if let Some((t, want, d)) = shrink(imp, tree, &key, opts, ms, &mut report.errored) {
                f.trial = t;
                f.want = want;
                f.found = d;
                shrunk = true;
            }
        }
        kinds.push(make_kind(&info.name, opts, f, shrunk));
    }
    dedupe_ids(&mut kinds);
    if let Some(dir) = opts.counterexamples {
        write_kinds(dir, &mut kinds)?;
    }
    report.kinds = kinds;
    Ok(report)
}

/// Shrink one representative, keeping its kind: a shrink step whose answer is
/// another kind (or no disagreement, or an adapter fault) counts as passing, so
/// proptest rejects it. `None` when nothing smaller keeps the kind.
fn shrink(
    imp: &mut dyn Implementation,
    tree: TrialTree,
    key: &(String, &'static str, Option<String>, String),
    opts: &DiffOptions,
    max_ms: u32,
    errored: &mut u32,
) -> Option<(Trial, Expect, Disagreement)> {
    let imp = RefCell::new(imp);
    let faults = Cell::new(0u32);
    let in_a_row = Cell::new(0u32);
    let mut runner = TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            max_shrink_iters: SHRINK_ITERS,
            max_shrink_time: max_ms,
            ..Config::default()
        },
        case_rng(opts.seed, u32::MAX),
    );
    let same_kind = |t: &Trial| -> Option<(Expect, Disagreement)> {
        if in_a_row.get() >= MAX_CONSECUTIVE_FAULTS {
            return None;
        }
        let mut imp = imp.borrow_mut();
        if !imp.info().supports(&t.op, t.profile) {
            return None;
        }
        let want = expectation(t).ok()?;
        match imp.run(&t.op, t.profile, &t.input) {
            Reply::Answer(a) => {
                in_a_row.set(0);
                let d = classify(t, &want, &a, opts.known_rules)?;
                (d.key(t.op.name()) == *key).then_some((want, d))
            }
            Reply::Fault(_) => {
                faults.set(faults.get() + 1);
                in_a_row.set(in_a_row.get() + 1);
                None
            }
            Reply::Unsupported => None,
        }
    };
    let result = runner.run_one(tree, |t| match same_kind(&t) {
        Some(_) => Err(TestCaseError::fail("same kind")),
        None => Ok(()),
    });
    let shrunk = match result {
        // Its expectation and classification once more, for the record (a
        // deterministic implementation gives the same answer again).
        Err(TestError::Fail(_, t)) => same_kind(&t).map(|(want, d)| (t, want, d)),
        _ => None,
    };
    *errored += faults.get();
    shrunk
}

fn short_id(op: &Operation, input: &[u8]) -> String {
    let mut bytes = crate::canonical::to_string(&op.to_json()).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(input);
    crate::fingerprint::sha256_hex(&bytes)[..8].to_owned()
}

/// The fallback rule of a vector whose disagreement names none: the operation's.
fn op_rule(op: &Operation) -> &'static str {
    match op {
        Operation::Canonical => "O-CANON-1",
        Operation::TreeInspect | Operation::TreeApply { .. } => "T-OPS-1",
        Operation::StoreApply { .. } => "S-OPS-1",
        _ => "O-JSON-1",
    }
}

fn make_kind(implementation: &str, opts: &DiffOptions, f: Found, shrunk: bool) -> Kind {
    let t = &f.trial;
    let d = &f.found;
    let op = t.op.name().to_owned();
    let hex = short_id(&t.op, &t.input);
    // A disagreement that names no rule is the operation's (D-ATTR-1), so that a skip
    // list can always record it and `--write-skip-file` always makes the next run pass.
    let rule = Some(d.rule.clone().unwrap_or_else(|| op_rule(&t.op).to_owned()));
    let known = rule
        .as_ref()
        .is_some_and(|r| is_known(opts.known_rules, &op, r));
    let description = format!(
        "Found by the differential phase against {implementation} (generated case {}, seed {}{}), from {}: {} ({}): {}",
        f.first_case,
        opts.seed,
        if shrunk { ", shrunk" } else { ", not shrunk" },
        t.origin,
        d.cause.as_str(),
        rule.as_deref().unwrap_or("no rule"),
        crate::error::shorten(d.message.as_bytes(), 300)
    );
    let counterexample = Case {
        id: format!("properties/{op}/{hex}"),
        group: format!("properties/{op}"),
        name: hex.clone(),
        description,
        rules: vec![rule.clone().unwrap_or_else(|| op_rule(&t.op).to_owned())],
        tags: vec!["counterexample".into(), "properties".into()],
        level: Level::Must,
        profile: t.profile,
        input: t.input.clone(),
        input_form: InputForm::Text,
        checks: vec![Check {
            op: t.op.clone(),
            expect: f.want.clone(),
        }],
    };
    let explanation = format!(
        "{op}: {} ({}{}) in {} of the generated cases, first case {} (seed {}); {} input of {} bytes: {}",
        d.cause.as_str(),
        rule.as_deref().unwrap_or("no rule"),
        if known { ", known: on the skip list" } else { "" },
        f.occurrences,
        f.first_case,
        opts.seed,
        if shrunk { "shrunk" } else { "unshrunk" },
        t.input.len(),
        d.message
    );
    Kind {
        id: counterexample.id.clone(),
        op,
        cause: d.cause,
        detail: d.detail.clone(),
        rule,
        known,
        occurrences: f.occurrences,
        first_case: f.first_case,
        seed: opts.seed,
        counterexample,
        path: None,
        explanation,
    }
}

/// Two kinds cannot share an id (they could only if the implementation answered the
/// same check differently twice): the later gets a suffix.
fn dedupe_ids(kinds: &mut [Kind]) {
    let mut seen = BTreeSet::new();
    for k in kinds.iter_mut() {
        let mut n = 1;
        let base = k.counterexample.name.clone();
        while !seen.insert(k.counterexample.name.clone()) {
            n += 1;
            k.counterexample.name = format!("{base}-{n}");
        }
        k.counterexample.id = format!("{}/{}", k.counterexample.group, k.counterexample.name);
        k.id = k.counterexample.id.clone();
    }
}

/// Write the kinds as vector files `<dir>/properties/<op>.json` (one file per
/// operation, so a case's id in the file is its kind id): cases already in the file
/// are kept unless a kind has the same name. Written atomically.
fn write_kinds(dir: &Path, kinds: &mut [Kind]) -> Result<(), String> {
    let mut ops: Vec<String> = kinds.iter().map(|k| k.op.clone()).collect();
    ops.sort();
    ops.dedup();
    for op in ops {
        let sub = dir.join("properties");
        std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
        let path = sub.join(format!("{op}.json"));
        let group = format!("properties/{op}");
        let mut cases = match std::fs::read_to_string(&path) {
            Ok(text) => vectors::parse_file(&text, &group, &|f: &str| {
                Err(format!(
                    "{f}: counterexample files hold their inputs inline"
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        for k in kinds.iter_mut().filter(|k| k.op == op) {
            cases.retain(|c| c.name != k.counterexample.name);
            cases.push(k.counterexample.clone());
            k.path = Some(path.clone());
        }
        let mut text = crate::canonical::to_string(&vectors::to_file_json(&cases));
        text.push('\n');
        crate::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::from(text)
    }

    #[test]
    fn the_first_of_the_differences_is_first_difference() {
        let pairs = [
            (r#"{"a":[1,2],"b":{"c":3}}"#, r#"{"a":[1,5],"b":{"c":4}}"#),
            (r#"{"a":[1,2]}"#, r#"{"a":[1]}"#),
            (r#"{"a":1}"#, r#"{"a":1,"z":2}"#),
            (r#"{"a":1,"b":2}"#, r#"{"b":2}"#),
            (r#"[{"x":"a/b~"}]"#, r#"[{"x":"c"}]"#),
            (r#""abc""#, r#""abd""#),
        ];
        for (a, b) in pairs {
            let (a, b) = (json::parse(a).unwrap(), json::parse(b).unwrap());
            let all = differences(&a, &b);
            assert_eq!(
                all.first().map(|d| d.1.clone()),
                vectors::first_difference(&a, &b, String::new()),
                "{a:?} {b:?}"
            );
        }
        let a = json::parse(r#"{"tool_results":[1],"stop_reason":"x"}"#).unwrap();
        let b = json::parse(r#"{"tool_results":[],"stop_reason":"y"}"#).unwrap();
        let ptrs: Vec<String> = differences(&a, &b).into_iter().map(|d| d.0).collect();
        assert_eq!(ptrs, ["/tool_results", "/stop_reason"]);
    }

    #[test]
    fn canonical_differences_name_the_rule_they_break() {
        // Expected texts are Python's json.dumps(..., ensure_ascii=False, sort_keys=True,
        // separators=(",", ":")); the wrong ones are what common mistakes produce.
        let cases = [
            (r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#, "C-KEY-1"),
            (r#"{"a":1,"b":2}"#, r#"{"a": 1,"b":2}"#, "C-WS-1"),
            (r#"["é"]"#, r#"["\u00e9"]"#, "C-STR-2"),
            (r#"{"é":1}"#, r#"{"\u00e9":1}"#, "C-STR-2"),
            (r#"["\u001f"]"#, r#"["\u001F"]"#, "C-STR-1"),
            (r#"["a\nb"]"#, "[\"a\\u000ab\"]", "C-STR-1"),
            ("[1e+16]", "[1e16]", "C-NUM-5"),
            ("[10000000000000000000000]", "[1e22]", "C-NUM-1"),
            ("[true]", "[True]", "C-LIT-1"),
        ];
        for (want, got, rule) in cases {
            assert_eq!(canonical_rule(&s(want), &s(got)), rule, "{want} vs {got}");
        }
    }

    #[test]
    fn result_differences_are_attributed_by_member() {
        let replay = Operation::Replay { until: None };
        let v = Value::Null;
        assert_eq!(
            result_rule(&replay, "/stop_reason", &v, &v).as_deref(),
            Some("R-STOP-1")
        );
        assert_eq!(
            result_rule(&replay, "/tool_results/0/x", &v, &v).as_deref(),
            Some("R-TOOL-1")
        );
        assert_eq!(result_rule(&replay, "/x_extra", &v, &v), None);
        assert_eq!(group_pointer(&replay, "/tool_results/3/x"), "/tool_results");
        let tree = Operation::TreeApply {
            steps: vec![Step::SaveLoad, Step::Seek { id: "a".into() }],
        };
        assert_eq!(
            result_rule(&tree, "/results/1", &v, &v).as_deref(),
            Some("T-SEEK-1")
        );
        assert_eq!(
            result_rule(&tree, "/tree", &v, &v).as_deref(),
            Some("T-SAVE-1")
        );
        assert_eq!(group_pointer(&tree, "/results/1"), "/results/*");
    }

    #[test]
    fn a_known_rule_does_not_hide_another_difference() {
        let t = Trial::plain(
            vec![],
            Operation::Replay { until: None },
            Profile::Core,
            String::new(),
        );
        let want = Expect::Result {
            value: json::parse(r#"{"tool_results":[1],"stop_reason":"x"}"#).unwrap(),
            sha256: None,
        };
        let got = Answer::Result(json::parse(r#"{"tool_results":[],"stop_reason":"y"}"#).unwrap());
        let none = BTreeSet::new();
        assert_eq!(
            classify(&t, &want, &got, &none).unwrap().rule.as_deref(),
            Some("R-TOOL-1")
        );
        let known: BTreeSet<String> = ["R-TOOL-1".to_owned()].into();
        let d = classify(&t, &want, &got, &known).unwrap();
        assert_eq!(d.rule.as_deref(), Some("R-STOP-1"));
        assert_eq!(d.detail, "/stop_reason");
    }

    #[test]
    fn precedence_mistakes_are_attributed_to_the_order_rules() {
        let mut t = Trial::plain(vec![], Operation::Validate, Profile::Core, String::new());
        t.planted = vec![
            (ErrorCode::SequenceGap, Some(2)),
            (ErrorCode::MixedSession, Some(2)),
        ];
        t.label = Some(ErrorCode::SequenceGap);
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "mixed_session"),
            "J-ORDER-1"
        );
        t.planted[1].1 = Some(4);
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "mixed_session"),
            "J-SEQ-1"
        );
        t.planted.push((ErrorCode::InvalidBranchId, None));
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "invalid_branch_id"),
            "O-ORDER-1"
        );
        // A code nobody planted: the rule of the code that was due.
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "unknown_parent"),
            "J-SEQ-1"
        );
    }
}
