//! Golden traces (SPEC.md section "Golden traces", rule `G-1`).
//!
//! This module owns the real Trace 0.1 journals of the seed's curriculum, shipped in
//! `golden/` and embedded in the binary, with their expected outputs
//! (`*.expect.json`, computed by the seed's own Python semantics, not by this crate),
//! and [`verify`], which runs every expected operation through [`crate::ops::execute`].

use crate::canonical;
use crate::error::Error;
use crate::json::{self, Value};
use crate::ops::{self, Operation, Profile};

/// One golden trace: its name, journal bytes and expectation document.
pub struct Golden {
    pub name: &'static str,
    pub journal: &'static [u8],
    pub expect: &'static str,
}

/// The golden traces embedded in the binary.
pub const GOLDEN: &[Golden] = &[
    Golden {
        name: "s07-session-replay",
        journal: include_bytes!("../golden/s07-session-replay.golden.jsonl"),
        expect: include_str!("../golden/s07-session-replay.expect.json"),
    },
    Golden {
        name: "s02-events-streaming",
        journal: include_bytes!("../golden/s02-events-streaming.golden.jsonl"),
        expect: include_str!("../golden/s02-events-streaming.expect.json"),
    },
];

/// The outcome of one golden check.
#[derive(Debug)]
pub struct CheckResult {
    pub trace: String,
    pub op: Operation,
    pub ok: bool,
    pub detail: String,
}

/// An expectation document that cannot be read: the golden traces themselves are
/// broken (exit status 2), which is not a failed check.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GoldenError {
    #[error("{trace}: expectation file: {error}")]
    NotJson { trace: String, error: Error },
    #[error("{trace}: unknown profile {profile:?}")]
    UnknownProfile { trace: String, profile: String },
    #[error("{trace}: expectation file has no `checks` array")]
    NoChecks { trace: String },
    /// A check's `op` is not an operation (the operation reader's message).
    #[error("{trace}: {error}")]
    BadOperation { trace: String, error: String },
    #[error("{trace}: check without `expect`")]
    NoExpect { trace: String },
}

/// Verify one trace's journal bytes against its expectation document.
pub fn verify_one(
    name: &str,
    journal: &[u8],
    expect: &str,
) -> Result<Vec<CheckResult>, GoldenError> {
    let trace = || name.to_owned();
    let doc = json::parse(expect).map_err(|error| GoldenError::NotJson {
        trace: trace(),
        error,
    })?;
    let profile = doc
        .get("profile")
        .and_then(Value::as_str)
        .map(|p| {
            Profile::parse(p).ok_or_else(|| GoldenError::UnknownProfile {
                trace: trace(),
                profile: p.to_owned(),
            })
        })
        .transpose()?
        .unwrap_or_default();
    let checks = doc
        .get("checks")
        .and_then(Value::as_array)
        .ok_or_else(|| GoldenError::NoChecks { trace: trace() })?;
    let mut out = Vec::new();
    for check in checks {
        let op =
            Operation::from_json(check.get("op").unwrap_or(&Value::Null)).map_err(|error| {
                GoldenError::BadOperation {
                    trace: trace(),
                    error,
                }
            })?;
        let want = check
            .get("expect")
            .ok_or_else(|| GoldenError::NoExpect { trace: trace() })?;
        let (ok, detail) = match ops::execute(&op, journal, profile) {
            Ok(got) if got.same(want) => (true, String::new()),
            Ok(got) => (
                false,
                format!(
                    "expected {}\n     got {}",
                    canonical::to_string(want),
                    canonical::to_string(&got)
                ),
            ),
            Err(e) => (
                false,
                format!("expected {}, got error {e}", canonical::to_string(want)),
            ),
        };
        out.push(CheckResult {
            trace: name.to_owned(),
            op,
            ok,
            detail,
        });
    }
    Ok(out)
}

/// Verify every embedded golden trace.
pub fn verify() -> Result<Vec<CheckResult>, GoldenError> {
    let mut all = Vec::new();
    for g in GOLDEN {
        all.extend(verify_one(g.name, g.journal, g.expect)?);
    }
    Ok(all)
}
