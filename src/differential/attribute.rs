//! Attribution (SPEC.md 13.6, `D-ATTR-1`): which rule a disagreement breaks, and what
//! makes two disagreements the same kind. Written once, here, from two sources: the
//! generator's own labels (a planted defect names its error code, hence its rule) and
//! what differs in a result (the member tables below, derived from SPEC.md sections 3.2,
//! 6, 8, 15 and 16).

use std::collections::BTreeSet;

use super::trials::Trial;
use crate::error::ErrorCode;
use crate::json::{self, Value};
use crate::ops::Operation;
use crate::rules::{id, Rule};
use crate::store::StoreStep;
use crate::tree::Step;
use crate::verdict::{differences, judge, Answer, Cause, Difference, Expect, Field};

/// A classified disagreement.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    pub cause: Cause,
    pub rule: Option<Rule>,
    /// What identifies the kind besides op, cause and rule (a normalised pointer,
    /// the codes, the location field).
    pub group: String,
    pub detail: String,
    /// The whole difference, for humans.
    pub message: String,
}

impl Disagreement {
    /// What makes two disagreements of one operation the same kind.
    pub fn key(&self, op: &str) -> KindKey {
        (op.to_owned(), self.cause, self.rule, self.group.clone())
    }
}

/// Operation, cause, rule and grouping: the identity of a kind.
pub type KindKey = (String, Cause, Option<Rule>, String);

/// Whether a disagreement of `op` on `rule` is known (D-KNOWN-1): `known` holds skip
/// list rules (`RULE`, for every operation) and differential-only entries (`OP/RULE`).
pub fn is_known(known: &BTreeSet<String>, op: &str, rule: Rule) -> bool {
    known.contains(rule.id()) || known.contains(&format!("{op}/{rule}"))
}

/// The rule of an error code (SPEC.md section 10).
pub fn error_rule(code: ErrorCode) -> Rule {
    Rule::parse(code.rule()).expect("every error code's rule is a rule of SPEC.md")
}

/// Classify `got` against `want` for trial `t`; `None` when they agree. Whether they
/// agree, the cause and the sentence are [`judge`]'s, as for the fixed vectors; this adds
/// the rule and the kind's grouping. A rule on `known` never hides another: of all the
/// places a result differs, the first one attributed to a rule NOT on the list names the
/// kind.
pub fn classify(
    t: &Trial,
    want: &Expect,
    got: &Answer,
    known: &BTreeSet<String>,
) -> Option<Disagreement> {
    let mismatch = judge(want, got)?;
    let cause = mismatch.cause;
    let message = mismatch.to_string();
    let code_rule = |c: &str| code_rule(&t.op, c);
    Some(match (want, got) {
        (Expect::Result { value, .. }, Answer::Result(v)) => {
            let diffs = differences(value, v, 32);
            let attributed: Vec<(Option<Rule>, &Difference)> = diffs
                .iter()
                .map(|d| (result_rule(&t.op, &d.pointer, value, v), d))
                .collect();
            let chosen = attributed
                .iter()
                .find(|(r, _)| r.is_none_or(|r| !is_known(known, t.op.name(), r)))
                .or(attributed.first());
            match chosen {
                Some((rule, d)) => Disagreement {
                    cause,
                    rule: *rule,
                    group: group_pointer(&t.op, &d.pointer),
                    detail: if d.pointer.is_empty() {
                        "/".into()
                    } else {
                        d.pointer.clone()
                    },
                    message: d.to_string(),
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
                .label_rule
                .or(t.label.map(error_rule))
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
                let (w, g) = match mismatch.field() {
                    Some(Field::Line) => {
                        (line.map(|l| l.to_string()), got_line.map(|l| l.to_string()))
                    }
                    Some(Field::Sequence) => (
                        sequence.map(|s| s.to_string()),
                        got_seq.map(|s| s.to_string()),
                    ),
                    _ => (
                        index.map(|i| i.to_string()),
                        got_index.map(|i| i.to_string()),
                    ),
                };
                let field = mismatch.field().unwrap_or(Field::Index).as_str();
                Disagreement {
                    cause,
                    rule: Some(location_rule(&t.op, code)),
                    group: format!("{code} {field}"),
                    detail: format!("{code}: expected {field} {}, got {}", show(w), show(g)),
                    message,
                }
            }
        }
    })
}

/// The rule of an error code for an operation: tree files have their own rules for
/// the codes they share with journals (T-PARENT-1, T-LINE-2), otherwise
/// [`ErrorCode::rule`].
pub fn code_rule(op: &Operation, code: &str) -> Option<Rule> {
    let c = ErrorCode::from_str_code(code)?;
    let tree = matches!(op, Operation::TreeInspect | Operation::TreeApply { .. });
    let wire_or_json = c.rule().starts_with("W-") || c.rule().starts_with("C-");
    Some(match c {
        ErrorCode::UnknownParent if tree => id::T_PARENT_1,
        _ if tree && wire_or_json => id::T_LINE_2,
        _ => error_rule(c),
    })
}

/// The rule a wrong error code is attributed to: precedence (J-ORDER-1 within a
/// line, O-ORDER-1 between journal and operation errors) when the adapter reported
/// another defect the generator planted where the precedence rule decides between
/// them; otherwise the rule of the code that was due.
fn order_rule(t: &Trial, want: &str, want_line: Option<u64>, got: &str) -> Rule {
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
                return id::O_ORDER_1;
            }
            if *got_line == want_line {
                return id::J_ORDER_1;
            }
        }
        if t.label == Some(w) {
            if let Some(rule) = t.label_rule {
                return rule;
            }
        }
        return code_rule(&t.op, w.as_str()).unwrap_or_else(|| error_rule(w));
    }
    code_rule(&t.op, want).unwrap_or(id::O_ERR_1)
}

/// The rule a wrong location is attributed to.
fn location_rule(op: &Operation, code: &str) -> Rule {
    match op {
        Operation::Canonical => id::O_CANON_1,
        Operation::TreeInspect | Operation::TreeApply { .. } => id::T_ERR_1,
        _ if code == ErrorCode::SequenceOutOfRange.as_str() => id::O_RANGE_1,
        _ => id::J_LOC_1,
    }
}

/// Members of a ReplayState and the rules that define them (SPEC.md section 6).
const REPLAY_RULES: &[(&str, Rule)] = &[
    ("session_id", id::J_SESSION_1),
    ("run_id", id::J_RUN_1),
    ("applied_sequences", id::R_SEL_1),
    ("user_messages", id::R_USER_1),
    ("assistant_messages", id::R_STREAM_1),
    ("tool_results", id::R_TOOL_1),
    ("stop_reason", id::R_STOP_1),
    ("fingerprint", id::F_FP_1),
];
/// Members of a SessionBranch (SPEC.md section 8).
const BRANCH_RULES: &[(&str, Rule)] = &[
    ("branch_id", id::B_ID_1),
    ("parent_session_id", id::J_SESSION_1),
    ("parent_run_id", id::J_RUN_1),
    ("fork_sequence", id::B_RANGE_1),
    ("inherited_event_ids", id::B_RANGE_1),
    ("parent_fingerprint", id::F_FP_1),
];
/// Members of `tree_inspect`'s result (SPEC.md 15.3, T-OPS-1).
const INSPECT_RULES: &[(&str, Rule)] = &[
    ("head", id::T_HEAD_1),
    ("path_ids", id::T_PATH_1),
    ("branch_tips", id::T_TIPS_1),
    ("children", id::T_TIPS_1),
    ("entry_count", id::T_ENTRY_1),
    ("labels", id::T_SEEKCP_1),
    ("next_id", id::T_NEXT_1),
];

fn lookup(table: &[(&str, Rule)], member: Option<&String>) -> Option<Rule> {
    let m = member?;
    table.iter().find(|(k, _)| k == m).map(|(_, r)| *r)
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

fn step_error_code(op: &Operation, v: Option<&Value>) -> Option<Rule> {
    code_rule(op, v?.get("error")?.get("code")?.as_str()?)
}

/// The rule a difference at `ptr` in a result is attributed to.
pub fn result_rule(op: &Operation, ptr: &str, want: &Value, got: &Value) -> Option<Rule> {
    let seg = segments(ptr);
    let first = seg.first();
    match op {
        Operation::Validate => Some(id::O_JSON_1),
        Operation::Fingerprint { .. } => Some(id::F_FP_1),
        Operation::Replay { .. } => lookup(REPLAY_RULES, first),
        Operation::Branch { .. } => lookup(BRANCH_RULES, first),
        Operation::TreeInspect => lookup(INSPECT_RULES, first),
        Operation::Canonical => Some(canonical_rule(want, got)),
        Operation::TreeApply { steps } => match first.map(String::as_str) {
            Some("tree") => Some(id::T_SAVE_1),
            Some("results") => {
                let i = seg.get(1).and_then(|s| s.parse::<usize>().ok());
                let expected = element(want, &seg[..seg.len().min(2)]);
                if let Some(r) = step_error_code(op, expected) {
                    return Some(r);
                }
                Some(match i.and_then(|i| steps.get(i)) {
                    Some(Step::Append { .. }) => id::T_NEXT_1,
                    Some(Step::Seek { .. }) => id::T_SEEK_1,
                    Some(Step::Checkpoint { .. }) => id::T_CHECKPOINT_1,
                    Some(Step::SeekCheckpoint { .. }) => id::T_SEEKCP_1,
                    Some(Step::AppendNew { .. }) => id::T_APPENDNEW_1,
                    Some(Step::SaveLoad) => id::T_ROUND_1,
                    None => id::T_OPS_1,
                })
            }
            _ => Some(id::T_OPS_1),
        },
        Operation::StoreApply { steps } => match first.map(String::as_str) {
            Some("recovered") => Some(id::S_RECOVER_1),
            Some("journal") => Some(id::S_VALID_1),
            Some("results") => {
                let i = seg.get(1).and_then(|s| s.parse::<usize>().ok());
                let at = &seg[..seg.len().min(2)];
                let (w, g) = (element(want, at), element(got, at));
                let dup = |v: Option<&Value>| v.is_some_and(mentions_duplicate);
                Some(match i.and_then(|i| steps.get(i)) {
                    Some(StoreStep::Append { .. }) if dup(w) || dup(g) => id::S_DUP_1,
                    Some(StoreStep::Append { .. }) => match step_error_code(op, w) {
                        Some(r) => r,
                        None if w.and_then(|w| w.get("event_id")).is_some()
                            && g.and_then(|g| g.get("event_id")).is_some() =>
                        {
                            id::S_ACK_2
                        }
                        None => id::S_VALID_1,
                    },
                    Some(StoreStep::AppendBatch { .. }) if dup(w) || dup(g) => id::S_DUP_1,
                    Some(StoreStep::AppendBatch { .. }) => id::S_BATCH_1,
                    Some(StoreStep::Restart) => id::S_RECOVER_1,
                    Some(StoreStep::Checkpoint) => id::K_RECORD_1,
                    Some(StoreStep::Replay) => step_error_code(op, w)
                        .or_else(|| lookup(REPLAY_RULES, seg.get(2)))
                        .unwrap_or(id::R_PROJ_1),
                    Some(StoreStep::ReplayFromCheckpoint) => id::K_REPLAY_1,
                    None => id::S_OPS_1,
                })
            }
            _ => Some(id::S_OPS_1),
        },
    }
}

/// Whether a store step's result speaks of a duplicate (S-DUP-1): an acknowledgement
/// with `"duplicate": true`, or a `conflicting_duplicate` error, anywhere inside it.
fn mentions_duplicate(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(mentions_duplicate),
        Value::Object(m) => m.iter().any(|(k, x)| {
            (k == "duplicate" && *x == Value::Bool(true))
                || (k == "code" && x.as_str() == Some(ErrorCode::ConflictingDuplicate.as_str()))
                || mentions_duplicate(x)
        }),
        _ => false,
    }
}

/// The canonical-text rule (SPEC.md 3.2) a wrong `canonical` result breaks, from
/// what differs: members out of order (C-KEY-1), else the token of the expected text
/// at the first differing byte: whitespace where none is due (C-WS-1), an escape
/// (C-STR-1) or a raw character (C-STR-2) in a string, an integer (C-NUM-1) or a
/// float (C-NUM-5), a literal (C-LIT-1).
pub fn canonical_rule(want: &Value, got: &Value) -> Rule {
    let (Some(w), Some(g)) = (want.as_str(), got.as_str()) else {
        return id::O_CANON_1;
    };
    if let Ok(v) = json::parse(g) {
        if unsorted_keys(&v) {
            return id::C_KEY_1;
        }
    }
    let (wb, gb) = (w.as_bytes(), g.as_bytes());
    let d = wb
        .iter()
        .zip(gb)
        .position(|(a, b)| a != b)
        .unwrap_or(wb.len().min(gb.len()));
    if gb.get(d).is_some_and(|b| b" \t\r\n".contains(b)) {
        return id::C_WS_1;
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
                            return id::C_STR_1;
                        }
                        i += len;
                    } else {
                        i += 1;
                    }
                }
                i += 1;
                if (start..i).contains(&d) {
                    return id::C_STR_2;
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
                    return if float { id::C_NUM_5 } else { id::C_NUM_1 };
                }
            }
            b't' | b'f' | b'n' => {
                while i < wb.len() && wb[i].is_ascii_lowercase() {
                    i += 1;
                }
                if (start..i).contains(&d) {
                    return id::C_LIT_1;
                }
            }
            _ => {
                i += 1;
                if start == d {
                    return id::C_WS_1;
                }
            }
        }
    }
    id::C_WS_1
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Profile;

    fn s(text: &str) -> Value {
        Value::from(text)
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
            assert_eq!(
                canonical_rule(&s(want), &s(got)).id(),
                rule,
                "{want} vs {got}"
            );
        }
    }

    #[test]
    fn result_differences_are_attributed_by_member() {
        let replay = Operation::Replay { until: None };
        let v = Value::Null;
        assert_eq!(
            result_rule(&replay, "/stop_reason", &v, &v).map(Rule::id),
            Some("R-STOP-1")
        );
        assert_eq!(
            result_rule(&replay, "/tool_results/0/x", &v, &v).map(Rule::id),
            Some("R-TOOL-1")
        );
        assert_eq!(result_rule(&replay, "/x_extra", &v, &v), None);
        assert_eq!(group_pointer(&replay, "/tool_results/3/x"), "/tool_results");
        let tree = Operation::TreeApply {
            steps: vec![Step::SaveLoad, Step::Seek { id: "a".into() }],
        };
        assert_eq!(
            result_rule(&tree, "/results/1", &v, &v).map(Rule::id),
            Some("T-SEEK-1")
        );
        assert_eq!(
            result_rule(&tree, "/tree", &v, &v).map(Rule::id),
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
            classify(&t, &want, &got, &none).unwrap().rule.map(Rule::id),
            Some("R-TOOL-1")
        );
        let known: BTreeSet<String> = ["R-TOOL-1".to_owned()].into();
        let d = classify(&t, &want, &got, &known).unwrap();
        assert_eq!(d.rule.map(Rule::id), Some("R-STOP-1"));
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
            order_rule(&t, "sequence_gap", Some(2), "mixed_session").id(),
            "J-ORDER-1"
        );
        t.planted[1].1 = Some(4);
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "mixed_session").id(),
            "J-SEQ-1"
        );
        t.planted.push((ErrorCode::InvalidBranchId, None));
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "invalid_branch_id").id(),
            "O-ORDER-1"
        );
        // A code nobody planted: the rule of the code that was due.
        assert_eq!(
            order_rule(&t, "sequence_gap", Some(2), "unknown_parent").id(),
            "J-SEQ-1"
        );
    }

    #[test]
    fn a_number_out_of_range_is_attributed_to_the_rule_it_breaks() {
        // number_out_of_range is the code of C-NUM-3 (an integer over 4300 digits) and
        // C-NUM-6 (a float overflowing): the planted variant decides, whether the
        // adapter accepts the number or reports another code for it.
        let want = Expect::Error {
            codes: vec!["number_out_of_range".into()],
            line: Some(1),
            sequence: None,
            index: None,
        };
        let accepted = Answer::Result(Value::Null);
        let other_code = Answer::Error {
            code: "invalid_json".into(),
            message: String::new(),
            line: Some(1),
            sequence: None,
            index: None,
        };
        let none = BTreeSet::new();
        for (planted, rule) in [
            (Some("C-NUM-6"), "C-NUM-6"),
            (Some("C-NUM-3"), "C-NUM-3"),
            (None, "C-NUM-3"),
        ] {
            let mut t = Trial::plain(vec![], Operation::Validate, Profile::Core, String::new());
            t.planted = vec![(ErrorCode::NumberOutOfRange, Some(1))];
            t.label = Some(ErrorCode::NumberOutOfRange);
            t.label_rule = planted.and_then(Rule::parse);
            for got in [&accepted, &other_code] {
                let d = classify(&t, &want, got, &none).unwrap();
                assert_eq!(d.rule.map(Rule::id), Some(rule), "{planted:?} {got:?}");
            }
        }
    }
}
