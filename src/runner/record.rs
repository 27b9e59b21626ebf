//! Records of a run: outcomes, causes (SPEC.md 13.3), one check's and one case's
//! record, and running one case against an implementation.

use std::time::{Duration, Instant};

use crate::adapter::{Implementation, Reply};
use crate::canonical;
use crate::explain::{self, Cause};
use crate::json::Value;
use crate::vectors::{self, Case, Level};

/// The outcome of one check or case (SPEC.md 13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Passed,
    Failed,
    Errored,
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
            Outcome::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::Passed,
            Outcome::Failed,
            Outcome::Errored,
            Outcome::Skipped,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }
}

/// One check's record in a report.
#[derive(Clone, Debug)]
pub struct CheckRecord {
    pub op: Value,
    pub expected: Value,
    pub actual: Value,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<Cause>,
    pub pointer: Option<String>,
}

/// One case's record.
#[derive(Clone, Debug)]
pub struct CaseRecord {
    pub id: String,
    pub group: String,
    pub level: Level,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<Cause>,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub description: String,
    /// The input's size and escaped preview (the report's `input`).
    pub input: explain::Preview,
    pub checks: Vec<CheckRecord>,
    pub duration: Duration,
    /// The adapter's stderr tail for this case (JUnit `system-err`).
    pub stderr: String,
    /// Extra members of a properties case (`rule`, `first_case`, `seed`, ...).
    pub extra: Vec<(String, Value)>,
}

impl CaseRecord {
    /// Did any check of this case run (answer compared, or an adapter fault)?
    pub fn checked(&self) -> bool {
        self.checks.iter().any(|c| c.outcome != Outcome::Skipped)
    }

    /// The record as a report line (SPEC.md 13.5).
    pub fn to_json(&self) -> Value {
        let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::from);
        let cause = |c: Option<Cause>| c.map_or(Value::Null, |c| Value::from(c.as_str()));
        let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        let mut m: Vec<(String, Value)> = [
            ("type", Value::from("case")),
            ("id", Value::from(self.id.as_str())),
            ("group", Value::from(self.group.as_str())),
            ("level", Value::from(self.level.as_str())),
            ("outcome", Value::from(self.outcome.as_str())),
            ("message", Value::from(self.message.as_str())),
            ("cause", cause(self.cause)),
            ("rules", strs(&self.rules)),
            ("tags", strs(&self.tags)),
            ("description", Value::from(self.description.as_str())),
            (
                "duration_ms",
                Value::from_u64(self.duration.as_millis() as u64),
            ),
            ("input", self.input.to_json()),
            (
                "checks",
                Value::Array(
                    self.checks
                        .iter()
                        .map(|c| {
                            Value::object([
                                ("op", c.op.clone()),
                                ("outcome", Value::from(c.outcome.as_str())),
                                ("expected", c.expected.clone()),
                                ("actual", c.actual.clone()),
                                ("message", Value::from(c.message.as_str())),
                                ("cause", cause(c.cause)),
                                ("pointer", opt(&c.pointer)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        m.extend(self.extra.iter().cloned());
        Value::Object(m)
    }
}

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
                rec.actual = a.to_json();
                match explain::diagnose(&check.expect, &a) {
                    None => rec.outcome = Outcome::Passed,
                    Some(m) => {
                        rec.outcome = Outcome::Failed;
                        rec.message = vectors::compare(&check.expect, &a).unwrap_or_default();
                        rec.cause = Some(m.cause);
                        rec.pointer = m.pointer;
                    }
                }
            }
            Reply::Unsupported => {
                rec.message = format!("the adapter answered unsupported: {}", check.op.name());
            }
            Reply::Fault(m) => {
                rec.outcome = Outcome::Errored;
                rec.message = m;
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
    let preview = explain::Preview::of(&case.input);
    CaseRecord {
        cause: explain::case_cause(outcome, &checks),
        id: case.id.clone(),
        group: case.group.clone(),
        level: case.level,
        outcome,
        message,
        rules: case.rules.clone(),
        tags: case.tags.clone(),
        description: case.description.clone(),
        input: preview,
        checks,
        duration: start.elapsed(),
        stderr,
        extra: Vec::new(),
    }
}

/// Counts of case outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub errored: u64,
    pub skipped: u64,
}

impl Counts {
    pub fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Errored => self.errored += 1,
            Outcome::Skipped => self.skipped += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.errored + self.skipped
    }

    pub fn of<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> Counts {
        let mut c = Counts::default();
        for r in records {
            c.add(r.outcome);
        }
        c
    }
}
