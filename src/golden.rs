//! Golden traces (SPEC.md section "Golden traces", rule `G-1`).
//!
//! This module owns the real Trace 0.1 journals of the seed's curriculum, shipped in
//! `golden/` and embedded in the binary, with their expected outputs
//! (`*.expect.json`, computed by the seed's own Python semantics, not by this crate),
//! and [`verify`], which runs every expected operation through [`crate::ops::execute`].

use crate::canonical;
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

/// Verify one trace's journal bytes against its expectation document.
pub fn verify_one(name: &str, journal: &[u8], expect: &str) -> Result<Vec<CheckResult>, String> {
    let doc = json::parse(expect).map_err(|e| format!("{name}: expectation file: {e}"))?;
    let profile = doc
        .get("profile")
        .and_then(Value::as_str)
        .map(|p| Profile::parse(p).ok_or(format!("{name}: unknown profile {p:?}")))
        .transpose()?
        .unwrap_or_default();
    let checks = doc
        .get("checks")
        .and_then(Value::as_array)
        .ok_or(format!("{name}: expectation file has no `checks` array"))?;
    let mut out = Vec::new();
    for check in checks {
        let op = Operation::from_json(check.get("op").unwrap_or(&Value::Null))
            .map_err(|e| format!("{name}: {e}"))?;
        let want = check
            .get("expect")
            .ok_or(format!("{name}: check without `expect`"))?;
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
pub fn verify() -> Result<Vec<CheckResult>, String> {
    let mut all = Vec::new();
    for g in GOLDEN {
        all.extend(verify_one(g.name, g.journal, g.expect)?);
    }
    Ok(all)
}
