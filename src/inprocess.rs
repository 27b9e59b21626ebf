//! Running the whole corpus against a Rust implementation from its own `cargo test`,
//! in process: no adapter program, no subprocess, no protocol.
//!
//! Implement [`crate::adapter::Implementation`] for a small wrapper around your own types
//! (its `run` gets the operation, the profile and the input bytes, and answers with
//! [`crate::verdict::Answer`]), then call [`run_corpus`]:
//!
//! ```no_run
//! use journal_conformance::adapter::{ImplInfo, Implementation, Reply};
//! use journal_conformance::ops::Profile;
//! use journal_conformance::ops::Operation;
//! use journal_conformance::verdict::Answer;
//! use journal_conformance::json::Value;
//!
//! struct Mine { info: ImplInfo }
//!
//! impl Implementation for Mine {
//!     fn info(&self) -> &ImplInfo { &self.info }
//!     fn run(&mut self, op: &Operation, _profile: Profile, input: &[u8]) -> Reply {
//!         match op {
//!             // Call your own code here; this one only counts lines.
//!             Operation::Validate => Reply::Answer(Answer::Result(Value::object([(
//!                 "event_count",
//!                 Value::from_u64(input.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count() as u64),
//!             )]))),
//!             _ => Reply::Unsupported,
//!         }
//!     }
//! }
//!
//! let mut mine = Mine { info: ImplInfo {
//!     name: "mine".into(), version: "1".into(), language: "rust".into(),
//!     operations: vec!["validate".into()], profiles: vec!["core".into()],
//! }};
//! let outcome = journal_conformance::inprocess::run_corpus(&mut mine).unwrap();
//! outcome.assert_conformant(&["json/duplicate-key"]); // panics listing each failing case
//! ```
//!
//! Only the operations and profiles `info()` lists are asked; the rest are skipped, as with
//! an adapter (A-SKIP-1). Cases of level `must` decide conformance; `should` and
//! implementation-defined cases are reported but never fail [`Outcome::assert_conformant`].
//! See `examples/inprocess.rs` (`cargo run --example inprocess`).

use crate::adapter::Implementation;
use crate::vectors::{self, Level};

/// One case that did not pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub id: String,
    /// `failed` or `errored`.
    pub outcome: String,
    pub level: Level,
    pub message: String,
}

/// What running the corpus gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    /// Every failed or errored case, in corpus order.
    pub failures: Vec<Failure>,
}

impl Outcome {
    /// The failures of `must` cases not listed in `known` (case ids).
    pub fn unexpected<'a>(&'a self, known: &'a [&str]) -> impl Iterator<Item = &'a Failure> {
        self.failures
            .iter()
            .filter(move |f| f.level == Level::Must && !known.contains(&f.id.as_str()))
    }

    /// Panic, listing each case, if a `must` case outside `known` failed, or a case in
    /// `known` now passes (so the list only shrinks).
    pub fn assert_conformant(&self, known: &[&str]) {
        let mut problems: Vec<String> = self
            .unexpected(known)
            .map(|f| format!("{} ({}): {}", f.id, f.outcome, f.message))
            .collect();
        for k in known {
            if !self.failures.iter().any(|f| f.id == *k) {
                problems.push(format!(
                    "{k} is listed as a known failure but did not fail: remove it from the list"
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "{} conformance problem(s):\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "conformance: {} passed, {} failed, {} errored, {} skipped",
            self.passed, self.failed, self.errored, self.skipped
        )
    }
}

/// Run every case of the embedded corpus against `imp`.
pub fn run_corpus(imp: &mut dyn Implementation) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    for case in vectors::load_embedded()? {
        let rec = crate::runner::run_case(imp, &case);
        match rec.outcome.as_str() {
            "passed" => out.passed += 1,
            "skipped" => out.skipped += 1,
            other => {
                if other == "failed" {
                    out.failed += 1;
                } else {
                    out.errored += 1;
                }
                out.failures.push(Failure {
                    id: case.id.clone(),
                    outcome: other.to_owned(),
                    level: case.level,
                    message: rec.message,
                });
            }
        }
    }
    Ok(out)
}
