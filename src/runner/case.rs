//! Running one case against an implementation: every check asked, every answer judged
//! ([`crate::verdict::judge`]), the case's record made.

use std::time::Instant;

use crate::adapter::{Implementation, Reply};
use crate::canonical;
use crate::json::Value;
use crate::preview::Preview;
use crate::record::{bounded_message, case_cause, kept_answer, CaseRecord, CheckRecord, Outcome};
use crate::vectors::Case;
use crate::verdict::{judge, Cause};

/// Run every check of `case` on `imp` and judge it.
pub fn run_case(imp: &mut dyn Implementation, case: &Case) -> CaseRecord {
    let start = Instant::now();
    let mut checks = Vec::new();
    let mut stderr = String::new();
    for check in &case.checks {
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
    CaseRecord {
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
    }
}
