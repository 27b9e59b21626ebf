//! Running one case against an implementation: every check asked, every answer judged
//! ([`crate::verdict::judge`]), the case's record made.

use std::time::Instant;

use super::probe::{self, Probes};
use crate::adapter::{Implementation, Reply};
use crate::canonical;
use crate::json::Value;
use crate::ops::Operation;
use crate::preview::Preview;
use crate::record::{bounded_message, case_cause, kept_answer, CaseRecord, CheckRecord, Outcome};
use crate::vectors::Case;
use crate::verdict::{judge, Answer, Cause};

/// Run every check of `case` on `imp` and judge it (with a budget of its own for
/// looking into a fingerprint failure, [`run_case_with`]).
pub fn run_case(imp: &mut dyn Implementation, case: &Case) -> CaseRecord {
    run_case_with(imp, case, &Probes::default())
}

/// What a failed check shows in bytes, once the checks are judged.
enum Look {
    Found(crate::record::Bytes),
    Fingerprint { check: usize, until: Option<i64> },
}

/// [`run_case`] within a run's budget of probes: the first failed fingerprint or
/// canonical check with a wrong value is looked into ([`probe`]) after every check was
/// judged; what is found goes to the record's `bytes` member, and changes no verdict.
pub fn run_case_with(imp: &mut dyn Implementation, case: &Case, probes: &Probes) -> CaseRecord {
    let start = Instant::now();
    let mut checks = Vec::new();
    let mut stderr = String::new();
    let mut look: Option<Look> = None;
    for (n, check) in case.checks.iter().enumerate() {
        let op = check.op.to_json();
        let expected = check.expect.to_json();
        let mut rec = CheckRecord {
            op,
            expected,
            actual: Value::Null,
            outcome: Outcome::Skipped,
            message: String::new(),
            cause: None,
            pointer: None,
        };
        if !imp.info().supports(&check.op, case.profile) {
            rec.message = if imp.info().operations.iter().any(|o| o == check.op.name()) {
                format!("profile not offered: {}", case.profile.as_str())
            } else {
                format!("operation not offered: {}", check.op.name())
            };
            checks.push(rec);
            continue;
        }
        match imp.run(&check.op, case.profile, &case.input) {
            Reply::Answer(a) => {
                // Judged whole first; the record then keeps a bounded form of it.
                match judge(&check.expect, &a) {
                    None => rec.outcome = Outcome::Passed,
                    Some(m) => {
                        if look.is_none() && m.cause == Cause::WrongResult {
                            look = looked_into(n + 1, &check.op, &check.expect, &a);
                        }
                        rec.outcome = Outcome::Failed;
                        rec.message = bounded_message(m.to_string());
                        rec.cause = Some(m.cause);
                        rec.pointer = m.pointer;
                    }
                }
                rec.actual = kept_answer(a.into_json());
            }
            Reply::Unsupported => {
                rec.message = format!("the adapter answered unsupported: {}", check.op.name());
            }
            Reply::Fault(m) => {
                rec.outcome = Outcome::Errored;
                rec.message = bounded_message(m);
                rec.cause = Some(Cause::AdapterFault);
            }
        }
        let t = imp.stderr_tail();
        if !t.is_empty() {
            stderr = t;
        }
        checks.push(rec);
    }
    let bytes = look.map(|l| match l {
        Look::Found(b) => b,
        Look::Fingerprint { check, until } => {
            probe::fingerprint(imp, case.profile, &case.input, check, until, probes)
        }
    });
    // The case takes its worst check: errored > failed > passed > skipped.
    let outcome = [Outcome::Errored, Outcome::Failed, Outcome::Passed]
        .into_iter()
        .find(|o| checks.iter().any(|c| c.outcome == *o))
        .unwrap_or(Outcome::Skipped);
    let worst: Vec<&CheckRecord> = checks.iter().filter(|c| c.outcome == outcome).collect();
    let message = if outcome == Outcome::Passed {
        String::new()
    } else {
        worst
            .iter()
            .filter(|c| !c.message.is_empty())
            .map(|c| format!("{}: {}", canonical::to_string(&c.op), c.message))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let preview = Preview::of(&case.input);
    let mut rec = CaseRecord {
        cause: case_cause(outcome, &checks),
        id: case.id.clone(),
        group: case.group.clone(),
        level: case.level,
        outcome,
        message,
        rules: case.rules.clone(),
        tags: case.tags.clone(),
        description: case.description.clone(),
        input: Some(preview),
        checks,
        duration: start.elapsed(),
        stderr,
        extra: Vec::new(),
    };
    rec.set_bytes(bytes.as_ref());
    rec
}

/// Whether a wrong result of check `check` (1-based) shows in bytes: a canonical text
/// that differs (compared now), or a fingerprint (looked into once every check ran).
fn looked_into(
    check: usize,
    op: &Operation,
    expect: &crate::verdict::Expect,
    answer: &Answer,
) -> Option<Look> {
    let crate::verdict::Expect::Result {
        value: Value::String(want),
        ..
    } = expect
    else {
        return None;
    };
    match (op, answer) {
        (Operation::Canonical, Answer::Result(Value::String(got))) => {
            probe::canonical(check, want, got).map(Look::Found)
        }
        // A digest that is not the reference's (an answer of another kind is no
        // serialisation to look into).
        (Operation::Fingerprint { until }, Answer::Result(Value::String(_))) => {
            Some(Look::Fingerprint {
                check,
                until: *until,
            })
        }
        _ => None,
    }
}
