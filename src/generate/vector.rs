//! Generated journals as conformance vectors (vector format v1): one case per
//! journal, its checks carrying the generator's expected result or error.

use crate::json::Value;
use crate::ops::Operation;

use super::malformed::{rule_of, MalformedJournal};
use super::valid::GeneratedJournal;

fn check(op: &Operation, expect: Value) -> Value {
    Value::object([("op", op.to_json()), ("expect", expect)])
}

fn result(v: Value) -> Value {
    Value::object([("result", v)])
}

fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Array(items.into_iter().map(Value::from).collect())
}

/// The vector case of a valid journal stored as `input_file`. `pick` chooses the
/// prefix and fork sequence of the partial checks.
pub fn valid_case(name: &str, j: &GeneratedJournal, input_file: &str, pick: u64) -> Value {
    let n = j.len();
    let k = (pick % n as u64) as usize;
    let branch_id = format!("branch-{k}");
    let checks = vec![
        check(
            &Operation::Validate,
            result(Value::object([("event_count", Value::from_u64(n as u64))])),
        ),
        check(
            &Operation::Replay { until: None },
            result(j.expected().to_json()),
        ),
        check(
            &Operation::Replay {
                until: Some(k as i64),
            },
            result(j.expected_until(k).to_json()),
        ),
        check(
            &Operation::Fingerprint { until: None },
            result(Value::String(j.expected_fingerprint(None))),
        ),
        check(
            &Operation::Fingerprint {
                until: Some(k as i64),
            },
            result(Value::String(j.expected_fingerprint(Some(k)))),
        ),
        check(
            &Operation::Branch {
                at: k as i64,
                branch_id: branch_id.clone(),
            },
            result(j.expected_branch(k, &branch_id).to_json()),
        ),
    ];
    let mut rules = vec!["J-SEQ-1", "R-PROJ-1", "F-FP-1"];
    if !j.streams.is_empty() {
        rules.push("R-STREAM-1");
    }
    let description = format!(
        "generated valid journal: {n} events, {} streamed responses; expectations from the generator",
        j.streams.len()
    );
    Value::object([
        ("name", Value::from(name)),
        ("description", Value::from(description)),
        ("rules", strings(rules)),
        ("tags", strings(["generated", "valid"])),
        ("level", Value::from("must")),
        ("profile", Value::from(j.profile.as_str())),
        ("input_file", Value::from(input_file)),
        ("checks", Value::Array(checks)),
    ])
}

/// The vector case of a malformed journal stored as `input_file`.
pub fn malformed_case(name: &str, m: &MalformedJournal, input_file: &str) -> Value {
    let e = &m.expected;
    let mut err = vec![("code".to_owned(), Value::from(e.code.as_str()))];
    if let Some(l) = e.line {
        err.push(("line".into(), Value::from_u64(l)));
    }
    if let Some(s) = e.sequence {
        err.push(("sequence".into(), Value::from_i64(s)));
    }
    let expect = Value::object([("error", Value::Object(err))]);
    let mut rules: Vec<&str> = vec![rule_of(e.code)];
    for c in &e.codes {
        let r = rule_of(*c);
        if !rules.contains(&r) {
            rules.push(r);
        }
    }
    let mut tags: Vec<&str> = vec!["generated", "malformed"];
    if e.codes.len() > 1 || m.planted.len() > 1 {
        tags.push("precedence");
        if !rules.contains(&"O-ORDER-1") {
            rules.push("O-ORDER-1");
        }
    }
    for p in &m.planted {
        let n = p.defect.name();
        if !tags.contains(&n) {
            tags.push(n);
        }
    }
    let planted: Vec<&str> = e.codes.iter().map(|c| c.as_str()).collect();
    let description = format!(
        "generated: {} (planted codes: {})",
        m.describe(),
        planted.join(", ")
    );
    Value::object([
        ("name", Value::from(name)),
        ("description", Value::from(description)),
        ("rules", strings(rules)),
        ("tags", strings(tags)),
        ("level", Value::from("must")),
        ("profile", Value::from(m.profile.as_str())),
        ("input_file", Value::from(input_file)),
        ("checks", Value::Array(vec![check(&m.op, expect)])),
    ])
}

/// A vector document: `{"cases": [...]}`.
pub fn document(cases: Vec<Value>) -> Value {
    Value::object([("cases", Value::Array(cases))])
}
