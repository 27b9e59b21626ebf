//! Failures read as decisions (issue 22; SPEC.md 13.3, rule `X-DECIDE-1`): the few things
//! an implementer must change, each explaining many failing cases.
//!
//! Every failed or errored case (fixed vectors and differential kinds alike) has a
//! **cause signature**, read from its first failed check ([`crate::record::CheckRecord`],
//! judged by [`crate::verdict::judge`]): what went wrong,
//!
//! - a missing error (`wrong_error_code`, `result_instead_of_error`): the code that was
//!   due, `misses `duplicate_key`` (whatever came instead: in the precedence tables the
//!   same missed code comes with many other codes);
//! - an error where a result was due: `rejects with `invalid_branch_id``; so too, in a
//!   journal, an error reported before the expected one (an earlier line, or an earlier
//!   check of J-ORDER-1 on its line): that check fired on something valid;
//! - a wrong value (`wrong value`; the rule, attributed by member, tells which);
//! - a wrong location: `location of `invalid_json`: line`;
//! - `adapter fault`, and `unexpected pass` (a stale skip-list entry).
//!
//! and where: the operation's class (`journal` for validate, replay, fingerprint and
//! branch; `canonical`; `tree`; `store`) and, for a wrong value, the JSON Pointer of the
//! first difference with array indices written `*`, cut to its first member. Where is
//! shown, not grouped on: one JSON reader that accepts duplicate keys fails `canonical`
//! and the journal operations alike, and is one thing to change.
//!
//! A candidate decision is a rule and what went wrong. A case can be explained by the
//! decision of any rule it lists with its signature; its **primary rule** is the first it
//! lists (the rule the vector was written to test, conformance/README.md). The smallest
//! set of decisions covering every failure is approximated greedily: the candidate
//! explaining the most uncovered failures first, ties going to a rule already chosen, then
//! to the rule that defines the code, then to the one that is the primary rule of more of
//! them, then to the rule id; the chosen candidates of one rule are one decision. So a precedence vector (primary J-ORDER-1)
//! that fails only because `number_out_of_range` is never reported is explained by the
//! C-NUM-6 decision that also explains the plain C-NUM-6 vectors.

use std::collections::{BTreeMap, BTreeSet};

use crate::json::Value;
use crate::record::{CaseRecord, Outcome};
use crate::verdict::Cause;

/// One decision: what to change, and what it explains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The rule id, and its title in SPEC.md.
    pub rule: String,
    pub title: String,
    /// What went wrong and where, `misses `duplicate_key` (journal, canonical)`.
    pub cause: String,
    /// Fixed cases and generated kinds (`properties/...`) it explains.
    pub fixed: usize,
    pub kinds: usize,
    /// One case it explains (a fixed case when there is one), and that case's one-line
    /// why.
    pub example: String,
    pub why: String,
    /// Every case it explains, in record order.
    pub cases: Vec<String>,
}

impl Decision {
    /// The decision as the report's footer and `--format json` give it.
    pub fn to_json(&self) -> Value {
        Value::object([
            ("rule", Value::from(self.rule.as_str())),
            ("title", Value::from(self.title.as_str())),
            ("cause", Value::from(self.cause.as_str())),
            ("fixed_cases", Value::from_u64(self.fixed as u64)),
            ("generated_kinds", Value::from_u64(self.kinds as u64)),
            ("example", Value::from(self.example.as_str())),
            ("why", Value::from(self.why.as_str())),
        ])
    }
}

/// The class of an operation name.
fn class(op: &str) -> &'static str {
    match op {
        "canonical" => "canonical",
        "store_apply" => "store",
        o if o.starts_with("tree") => "tree",
        _ => "journal",
    }
}

/// An error code in an expectation or answer (`{"error":{"code":...}}`; a list of
/// acceptable codes gives its first).
fn code(v: &Value) -> Option<String> {
    let c = v.get("error")?.get("code")?;
    match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a.first().and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Where J-ORDER-1 places a journal code's check within one line (1 the wire checks
/// ... 5 the journal invariants, in their order); `None` for the codes of no line
/// (`empty_journal`, the operation's own checks).
fn stage(code: &str) -> Option<u8> {
    Some(match code {
        "unexpected_bom" => 0,
        "invalid_utf8" => 1,
        "blank_line" => 2,
        // The JSON rules: the first problem in text order, one stage.
        "invalid_json"
        | "duplicate_key"
        | "lone_surrogate"
        | "number_out_of_range"
        | "nesting_too_deep" => 3,
        "malformed_event" => 4,
        "profile_violation" => 5,
        "invalid_payload" => 6,
        "sequence_gap" => 7,
        "mixed_session" => 8,
        "mixed_run" => 9,
        "duplicate_event_id" => 10,
        "unknown_parent" => 11,
        _ => return None,
    })
}

/// Whether an error came from a check that fired where it must not: the expected error
/// is the FIRST of the journal (J-ORDER-1), so one reported on an earlier line, or on
/// its line by a check J-ORDER-1 runs before it, is a check firing on what is valid
/// (a line of `\f` called blank), not the expected check missing. Checks in the wrong
/// order, or a missing check, report LATER (`misses`). Unknown without both lines.
fn fired_early(expected: &Value, actual: &Value) -> bool {
    let at = |v: &Value| {
        let e = v.get("error")?;
        Some((e.get("line")?.as_i64()?, stage(e.get("code")?.as_str()?)?))
    };
    matches!((at(expected), at(actual)), (Some(e), Some(a)) if a < e)
}

/// `/result/tool_results/3/x` → `/result/tool_results`.
fn pointer_shape(p: &str) -> String {
    let parts: Vec<&str> = p
        .split('/')
        .skip(1)
        .map(|s| {
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                s
            }
        })
        .collect();
    let keep = if parts.first() == Some(&"result") {
        2
    } else {
        1
    };
    let cut: Vec<&str> = parts.into_iter().take(keep).collect();
    format!("/{}", cut.join("/"))
}

/// A failed case's cause signature (see the module's text): `(class, what, pointer
/// shape)`, the pointer shape only for a wrong value.
pub fn signature(r: &CaseRecord) -> (String, String, Option<String>) {
    let check = r
        .checks
        .iter()
        .find(|c| c.outcome.is_bad() && c.cause == r.cause)
        .or_else(|| r.checks.iter().find(|c| c.outcome.is_bad()));
    let op = r
        .differential_op()
        .map(str::to_owned)
        .or_else(|| check.and_then(|c| c.op.get("op").and_then(Value::as_str).map(str::to_owned)))
        .unwrap_or_default();
    let mut shape = None;
    let what = match (r.cause, check) {
        (Some(Cause::UnexpectedPass), _) => "unexpected pass (a stale skip-list entry)".into(),
        (Some(Cause::AdapterFault), _) | (None, _) => "adapter fault".into(),
        (Some(Cause::Superlinear), _) => "time grows faster than the reference's".into(),
        (Some(Cause::WrongErrorCode), Some(c))
            if class(&op) == "journal" && fired_early(&c.expected, &c.actual) =>
        {
            format!("rejects with `{}`", code(&c.actual).unwrap_or_default())
        }
        (Some(Cause::WrongErrorCode | Cause::ResultInsteadOfError), Some(c)) => {
            format!("misses `{}`", code(&c.expected).unwrap_or_default())
        }
        (Some(Cause::ErrorInsteadOfResult), Some(c)) => {
            format!("rejects with `{}`", code(&c.actual).unwrap_or_default())
        }
        (Some(Cause::WrongResult), Some(c)) => {
            shape = Some(pointer_shape(c.pointer.as_deref().unwrap_or("/result")));
            "wrong value".into()
        }
        (Some(Cause::WrongLocation), Some(c)) => format!(
            "location of `{}`: {}",
            code(&c.expected).unwrap_or_default(),
            c.pointer
                .as_deref()
                .and_then(|p| p.rsplit('/').next())
                .unwrap_or("?")
        ),
        (Some(c), None) => c.as_str().into(),
    };
    let class = if op.is_empty() { "-" } else { class(&op) };
    (class.to_owned(), what, shape)
}

/// `misses `duplicate_key` (journal, canonical)`, `wrong value at /result/fingerprint,
/// /result (journal)`: what, then where, from the signatures of the cases explained.
fn cause_text(what: &str, sigs: &[&(String, String, Option<String>)]) -> String {
    let mut classes: Vec<&str> = Vec::new();
    let mut shapes: Vec<&str> = Vec::new();
    for (c, _, p) in sigs {
        if !classes.contains(&c.as_str()) {
            classes.push(c);
        }
        if let Some(p) = p {
            if !shapes.contains(&p.as_str()) {
                shapes.push(p);
            }
        }
    }
    let at = if shapes.is_empty() {
        String::new()
    } else {
        format!(" at {}", shapes.join(", "))
    };
    format!("{what}{at} ({})", classes.join(", "))
}

/// The rule that defines the code a signature names (`misses `X``, `rejects with `X``,
/// `location of `X``), SPEC.md section 10.
fn code_rule(sig: &str) -> Option<&'static str> {
    let code = sig.split('`').nth(1)?;
    crate::error::ErrorCode::from_str_code(code).map(crate::error::ErrorCode::rule)
}

/// The one-line why of a case: its first failed check's message (or the case's).
fn why(r: &CaseRecord) -> String {
    let m = r
        .checks
        .iter()
        .find(|c| c.outcome.is_bad())
        .map_or(r.message.as_str(), |c| c.message.as_str());
    crate::error::shorten(m.lines().next().unwrap_or("").as_bytes(), 160)
}

/// The decisions explaining every failed or errored record: a greedy set cover (see the
/// module's text), largest first.
pub fn decide(records: &[CaseRecord]) -> Vec<Decision> {
    let failed: Vec<&CaseRecord> = records.iter().filter(|r| r.outcome.is_bad()).collect();
    let sigs: Vec<(String, String, Option<String>)> = failed.iter().map(|r| signature(r)).collect();
    // Candidate (rule, signature) → the failures it explains, and of how many it is the
    // primary rule.
    let mut cands: BTreeMap<(String, String), (BTreeSet<usize>, usize, bool)> = BTreeMap::new();
    for (i, r) in failed.iter().enumerate() {
        let mut rules: Vec<&str> = if r.rules.is_empty() {
            vec!["-"]
        } else {
            r.rules.iter().map(String::as_str).collect()
        };
        // A generated kind is filed under the rule of the code the reference expects
        // (D-ATTR-1), so one that rejects with `invalid_utf8` where a dozen rules' errors
        // are due would be a dozen rows: the rule that defines the code it rejects with is
        // a candidate too (one thing to change: its UTF-8 check). Not for `misses X` (two
        // rules define `number_out_of_range`), nor for fixed cases, whose rules are
        // curated (their primary rule decides the expected value).
        let early = r.is_differential() && sigs[i].1.starts_with("rejects with");
        if let Some(cr) = code_rule(&sigs[i].1).filter(|_| early) {
            if !rules.contains(&cr) {
                rules.push(cr);
            }
        }
        for (n, rule) in rules.iter().enumerate() {
            let e = cands
                .entry(((*rule).to_owned(), sigs[i].1.clone()))
                .or_default();
            e.2 = code_rule(&sigs[i].1) == Some(*rule);
            if e.0.insert(i) && n == 0 {
                e.1 += 1;
            }
        }
    }
    let mut left: BTreeSet<usize> = (0..failed.len()).collect();
    let mut out = Vec::new();
    while !left.is_empty() {
        let chosen: BTreeSet<&str> = out.iter().map(|d: &Decision| d.rule.as_str()).collect();
        let best = cands
            .iter()
            .map(|(k, (set, primary, defines))| {
                let n = set.intersection(&left).count();
                (n, chosen.contains(k.0.as_str()), *defines, *primary, k)
            })
            .filter(|(n, _, _, _, _)| *n > 0)
            // Most failures, then a rule already decided (fewer things to change), then
            // the rule that defines the code, then most primary, then the smallest rule
            // id and signature.
            .max_by(|a, b| {
                a.0.cmp(&b.0)
                    .then(a.1.cmp(&b.1))
                    .then(a.2.cmp(&b.2))
                    .then(a.3.cmp(&b.3))
                    .then(b.4.cmp(a.4))
            });
        let Some((_, _, _, _, key)) = best else { break };
        let key = key.clone();
        let covered: Vec<usize> = cands[&key].0.intersection(&left).copied().collect();
        for i in &covered {
            left.remove(i);
        }
        let explained: Vec<&CaseRecord> = covered.iter().map(|&i| failed[i]).collect();
        let their_sigs: Vec<&(String, String, Option<String>)> =
            covered.iter().map(|&i| &sigs[i]).collect();
        let kinds = explained.iter().filter(|r| r.is_differential()).count();
        let example = explained
            .iter()
            .find(|r| !r.is_differential())
            .unwrap_or(&explained[0]);
        out.push(Decision {
            title: crate::rules::title(&key.0).unwrap_or("").to_owned(),
            cause: cause_text(&key.1, &their_sigs),
            rule: key.0,
            fixed: explained.len() - kinds,
            kinds,
            example: example.id.clone(),
            why: why(example),
            cases: explained.iter().map(|r| r.id.clone()).collect(),
        });
    }
    let mut out = merge_by_rule(out);
    out.sort_by(|a, b| {
        (b.fixed + b.kinds)
            .cmp(&(a.fixed + a.kinds))
            .then(a.rule.cmp(&b.rule))
            .then(a.cause.cmp(&b.cause))
    });
    out
}

/// One row per rule: the cover's decisions of one rule (`misses `invalid_branch_id``
/// and `rejects with `invalid_branch_id`` of a branch-id check that trims the wrong
/// characters) are one thing to change, so their causes are joined, largest first.
fn merge_by_rule(decisions: Vec<Decision>) -> Vec<Decision> {
    let mut out: Vec<Decision> = Vec::new();
    for d in decisions {
        match out.iter_mut().find(|o| o.rule == d.rule) {
            Some(o) => {
                o.cause = format!("{}; {}", o.cause, d.cause);
                if o.fixed == 0 && d.fixed > 0 {
                    o.example = d.example;
                    o.why = d.why;
                }
                o.fixed += d.fixed;
                o.kinds += d.kinds;
                o.cases.extend(d.cases);
            }
            None => out.push(d),
        }
    }
    out
}

/// The decisions as the footer's `decisions` member.
pub fn to_json(decisions: &[Decision]) -> Value {
    Value::Array(decisions.iter().map(Decision::to_json).collect())
}

/// The closing summary's table: `N decisions explain M failures (...)`, then one row per
/// decision; empty when nothing failed.
pub fn table(decisions: &[Decision]) -> String {
    if decisions.is_empty() {
        return String::new();
    }
    let fixed: usize = decisions.iter().map(|d| d.fixed).sum();
    let kinds: usize = decisions.iter().map(|d| d.kinds).sum();
    let n = decisions.len();
    let mut s = format!(
        "\n{n} decision{} explain{} {} failure{} ({fixed} fixed case{}, {kinds} generated kind{}); \
         each row is one thing to change (`--by-rule` prints the failures by rule):\n",
        if n == 1 { "" } else { "s" },
        if n == 1 { "s" } else { "" },
        fixed + kinds,
        if fixed + kinds == 1 { "" } else { "s" },
        if fixed == 1 { "" } else { "s" },
        if kinds == 1 { "" } else { "s" },
    );
    for (i, d) in decisions.iter().enumerate() {
        s.push_str(&format!(
            "  {:>2}. {} {}\n      {}: {} fixed case{}, {} generated kind{}\n      e.g. {}: {}\n",
            i + 1,
            d.rule,
            crate::error::shorten(d.title.as_bytes(), 90),
            d.cause,
            d.fixed,
            if d.fixed == 1 { "" } else { "s" },
            d.kinds,
            if d.kinds == 1 { "" } else { "s" },
            d.example,
            d.why
        ));
    }
    s
}

/// Records that are failures, for tests: how many `decide` must explain.
pub fn failures(records: &[CaseRecord]) -> usize {
    records
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::Errored))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CheckRecord;

    fn rec(id: &str, rules: &[&str], cause: Cause, expected: &str, actual: &str) -> CaseRecord {
        let op = if id.starts_with("canonical") {
            "canonical"
        } else {
            "validate"
        };
        CaseRecord {
            id: id.into(),
            group: id.rsplit_once('/').map_or("", |(g, _)| g).into(),
            level: crate::vectors::Level::Must,
            outcome: Outcome::Failed,
            message: "m".into(),
            cause: Some(cause),
            rules: rules.iter().map(|s| (*s).to_owned()).collect(),
            tags: vec![],
            description: String::new(),
            input: None,
            checks: vec![CheckRecord {
                op: Value::object([("op", Value::from(op))]),
                expected: crate::json::parse(expected).unwrap(),
                actual: crate::json::parse(actual).unwrap(),
                outcome: Outcome::Failed,
                message: format!("{id} why"),
                cause: Some(cause),
                pointer: None,
            }],
            duration: std::time::Duration::ZERO,
            stderr: String::new(),
            extra: vec![],
        }
    }

    /// Generated kinds that reject with one code where the errors of several rules are due
    /// are one decision, under the rule that defines the code they reject with; fixed
    /// cases keep their own rules (their primary rule decides the expected value).
    #[test]
    fn kinds_rejecting_with_one_code_are_one_decision() {
        let e = |c: &str, l: u32| format!(r#"{{"error":{{"code":"{c}","line":{l}}}}}"#);
        let kind = |id: &str, rule: &str, code: &str| {
            rec(
                id,
                &[rule],
                Cause::WrongErrorCode,
                &e(code, 3),
                &e("invalid_utf8", 2),
            )
        };
        let recs = vec![
            kind("properties/validate/a1", "J-SEQ-1", "sequence_gap"),
            kind("properties/validate/a2", "J-RUN-1", "mixed_run"),
            kind("properties/validate/a3", "J-ID-1", "duplicate_event_id"),
        ];
        let d = decide(&recs);
        assert_eq!(d.len(), 1, "{}", table(&d));
        assert_eq!(d[0].rule, "W-UTF8-1");
        assert_eq!((d[0].fixed, d[0].kinds), (0, 3));
        let fixed: Vec<CaseRecord> = recs
            .into_iter()
            .map(|mut r| {
                r.id = r.id.replace("properties/validate", "tables/order");
                r
            })
            .collect();
        assert_eq!(decide(&fixed).len(), 3, "fixed cases keep their rules");
    }

    /// A precedence vector whose only fault is a missed code joins the decision of that
    /// code's rule; two different missed codes are two decisions; a wrong result is its
    /// own. Where two rules explain as many, the one defining the missed code wins; one
    /// missed code in two operation classes is one decision.
    #[test]
    fn a_greedy_cover_by_rule_and_signature() {
        let err = |c: &str| format!(r#"{{"error":{{"code":"{c}"}}}}"#);
        let recs = vec![
            rec(
                "journal/big",
                &["C-NUM-6"],
                Cause::ResultInsteadOfError,
                &err("number_out_of_range"),
                r#"{"result":{}}"#,
            ),
            rec(
                "journal/big2",
                &["C-NUM-6"],
                Cause::WrongErrorCode,
                &err("number_out_of_range"),
                &err("invalid_json"),
            ),
            rec(
                "tables/order/a",
                &["J-ORDER-1", "C-NUM-6", "J-SEQ-1"],
                Cause::WrongErrorCode,
                &err("number_out_of_range"),
                &err("sequence_gap"),
            ),
            rec(
                "tables/order/b",
                &["J-ORDER-1", "C-KEY-2"],
                Cause::WrongErrorCode,
                &err("duplicate_key"),
                &err("sequence_gap"),
            ),
            rec(
                "canonical/dup",
                &["C-KEY-2"],
                Cause::ResultInsteadOfError,
                &err("duplicate_key"),
                r#"{"result":"{}"}"#,
            ),
            rec(
                "canonical/x",
                &["C-NUM-5"],
                Cause::WrongResult,
                r#"{"result":"1.0"}"#,
                r#"{"result":"1"}"#,
            ),
        ];
        let d = decide(&recs);
        let rows: Vec<(&str, &str, usize)> = d
            .iter()
            .map(|d| (d.rule.as_str(), d.cause.as_str(), d.fixed))
            .collect();
        assert_eq!(
            rows,
            [
                ("C-NUM-6", "misses `number_out_of_range` (journal)", 3),
                ("C-KEY-2", "misses `duplicate_key` (journal, canonical)", 2),
                ("C-NUM-5", "wrong value at /result (canonical)", 1),
            ]
        );
        assert_eq!(d[0].example, "journal/big");
        assert_eq!(d[0].why, "journal/big why");
        assert_eq!(
            d.iter().map(|d| d.fixed + d.kinds).sum::<usize>(),
            failures(&recs)
        );
        assert!(table(&d)
            .starts_with("\n3 decisions explain 6 failures (6 fixed cases, 0 generated kinds)"));
        assert_eq!(
            pointer_shape("/result/tool_results/3/x"),
            "/result/tool_results"
        );
        assert_eq!(pointer_shape("/error/line"), "/error");
    }

    /// An error reported before the expected one (J-ORDER-1) is a check firing on what is
    /// valid, `rejects with`; one reported after it, or at the same place by a JSON rule
    /// of the same stage, is the expected check missing. So a blank test that calls a
    /// line of `\f` blank is its own decision, not the JSON parser's.
    #[test]
    fn an_error_before_the_expected_one_is_a_check_that_fired() {
        let err = |c: &str, line: u32| format!(r#"{{"error":{{"code":"{c}","line":{line}}}}}"#);
        let sig = |rules: &[&str], expected: &str, actual: &str| {
            signature(&rec(
                "journal/x",
                rules,
                Cause::WrongErrorCode,
                expected,
                actual,
            ))
            .1
        };
        let blank = ["W-BLANK-1", "W-LINE-1", "C-SYNTAX-1"];
        assert_eq!(
            sig(&blank, &err("invalid_json", 2), &err("blank_line", 2)),
            "rejects with `blank_line`"
        );
        assert_eq!(
            sig(&blank, &err("invalid_json", 2), &err("malformed_event", 1)),
            "rejects with `malformed_event`"
        );
        let order = ["J-ORDER-1", "C-NUM-6", "W-BLANK-1"];
        assert_eq!(
            sig(
                &order,
                &err("number_out_of_range", 1),
                &err("blank_line", 2)
            ),
            "misses `number_out_of_range`"
        );
        assert_eq!(
            sig(&order, &err("invalid_payload", 1), &err("sequence_gap", 1)),
            "misses `invalid_payload`"
        );
        assert_eq!(
            sig(
                &["C-STR-3"],
                &err("lone_surrogate", 1),
                &err("invalid_json", 1)
            ),
            "misses `lone_surrogate`"
        );
        // Without both lines, nothing is known about where it fired.
        assert_eq!(
            sig(
                &blank,
                r#"{"error":{"code":"invalid_json"}}"#,
                &err("blank_line", 2)
            ),
            "misses `invalid_json`"
        );
        // The cover: the NaN parser and the blank test are two decisions.
        let recs = vec![
            rec(
                "journal/nan",
                &["C-SYNTAX-1"],
                Cause::ResultInsteadOfError,
                &err("invalid_json", 1),
                r#"{"result":{"event_count":1}}"#,
            ),
            rec(
                "journal/ff",
                &blank,
                Cause::WrongErrorCode,
                &err("invalid_json", 2),
                &err("blank_line", 2),
            ),
            rec(
                "journal/vt",
                &blank,
                Cause::WrongErrorCode,
                &err("invalid_json", 2),
                &err("blank_line", 2),
            ),
        ];
        let rows: Vec<(String, String)> = decide(&recs)
            .into_iter()
            .map(|d| (d.rule, d.cause))
            .collect();
        assert_eq!(
            rows,
            [
                (
                    "W-BLANK-1".to_owned(),
                    "rejects with `blank_line` (journal)".to_owned()
                ),
                (
                    "C-SYNTAX-1".to_owned(),
                    "misses `invalid_json` (journal)".to_owned()
                ),
            ]
        );
    }
}
