//! The properties phase as the runner reports it: which generated operations the
//! implementation offers, and a differential disagreement turned into a failed case
//! record (`properties/<op>/<8 hex>`) counted like any other case.

use super::record::{run_case, CaseRecord, Outcome};
use super::report::PropertiesSummary;
use super::select::SkipList;
use crate::adapter::{ImplInfo, Implementation};
use crate::json::Value;

/// The operations the differential generator exercises.
pub const GENERATED_OPS: &[&str] = &["validate", "replay", "fingerprint", "branch"];

/// Why the phase cannot compare anything with this implementation, if so.
pub fn not_comparable(info: &ImplInfo) -> Option<String> {
    let offered: Vec<&str> = GENERATED_OPS
        .iter()
        .copied()
        .filter(|o| info.operations.iter().any(|x| x == o))
        .collect();
    if offered.is_empty() {
        return Some(format!(
            "the adapter offers none of the generated operations ({})",
            GENERATED_OPS.join(", ")
        ));
    }
    if !info
        .profiles
        .iter()
        .any(|p| p == "core" || p == "trace-0.1")
    {
        return Some("the adapter offers neither profile core nor trace-0.1".into());
    }
    None
}

/// The stable id of a disagreement: `properties/<op>/<8 hex of sha256(input + op)>`.
pub fn disagreement_id(op: &crate::ops::Operation, input: &[u8]) -> String {
    let mut bytes = input.to_vec();
    bytes.extend_from_slice(crate::canonical::to_string(&op.to_json()).as_bytes());
    let d = crate::fingerprint::sha256_hex(&bytes);
    format!("properties/{}/{}", op.name(), &d[..8])
}

/// Turn the current `differential::run` result into case records and the phase's
/// summary. The shrunk counterexample is asked again of the implementation, so the
/// record has the actual answer, the cause and the pointer; a kind whose rule is on
/// the skip list is known (skipped, naming the rule). One place to switch to
/// `DiffReport` kinds.
pub fn convert(
    imp: &mut dyn Implementation,
    out: crate::differential::Outcome,
    seed: u64,
    skips: &SkipList,
) -> (Vec<CaseRecord>, PropertiesSummary) {
    let mut summary = PropertiesSummary {
        cases: u64::from(out.cases),
        compared: u64::from(out.cases),
        ..PropertiesSummary::default()
    };
    let Some((case, why, path)) = out.counterexample else {
        return (Vec::new(), summary);
    };
    let op = &case.checks[0].op;
    let id = disagreement_id(op, &case.input);
    let mut rec = run_case(imp, &case);
    rec.id = id;
    rec.group = format!("properties/{}", op.name());
    let rule = case.rules.first().cloned();
    let known = rule
        .as_ref()
        .and_then(|r| skips.rules.get(r).map(|why| (r, why)));
    if rec.outcome == Outcome::Passed || rec.outcome == Outcome::Skipped {
        // Disagreed during the phase, agrees when asked again: still a disagreement.
        rec.outcome = Outcome::Failed;
        rec.cause = Some("wrong_result".into());
        rec.message = format!("disagreed during the properties phase: {why}");
    }
    let mut detail = format!(
        "{}\ngenerated case (seed {seed}) shrunk to {} bytes",
        rec.message,
        case.input.len()
    );
    match &path {
        Some(p) => detail.push_str(&format!(
            "; written as a vector: {} (run it with --corpus)",
            p.display()
        )),
        None => detail.push_str("; pass --counterexamples DIR to keep it as a vector file"),
    }
    rec.message = detail;
    summary.disagreeing = 1;
    summary.kinds = 1;
    if let Some((r, why)) = known {
        summary.known = 1;
        rec.outcome = Outcome::Skipped;
        rec.message = format!(
            "known disagreement, skip list rule {r}: {why}\n{}",
            rec.message
        );
    }
    rec.extra = vec![
        (
            "rule".into(),
            rule.as_deref().map_or(Value::Null, Value::from),
        ),
        ("first_case".into(), Value::Null),
        ("seed".into(), Value::from_u64(seed)),
        ("occurrences".into(), Value::from_u64(1)),
        ("known".into(), Value::Bool(known.is_some())),
    ];
    (vec![rec], summary)
}
