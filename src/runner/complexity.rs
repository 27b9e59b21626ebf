//! The scale phase of a run (`test --scale SECONDS`, SPEC.md 17, `Q-SCALE-3`): after the
//! corpus and the properties phase, [`crate::scale::measure`] grows each input shape
//! through the run's adapter and the reference, and each shape becomes a case record
//! `scale/<op>/<profile>/<shape>` of level `should`, so the report, JUnit, `summary`, the
//! HTML page and the decisions table carry the complexity findings with everything else.

use std::time::Duration;

use crate::adapter::{Implementation, Reference};
use crate::json::{Number, Value};
use crate::record::{CaseRecord, Outcome};
use crate::scale::{self, Plan, Row, Verdict};
use crate::vectors::Level;
use crate::verdict::Cause;

/// The smallest size the phase grows from (then 4n and 16n), and the time one request may
/// take before a shape stops growing.
pub const N: usize = scale::DEFAULT_N;
pub const PER_SIZE: Duration = Duration::from_secs(10);

fn seconds(ts: &[Duration]) -> Value {
    Value::Array(
        ts.iter()
            .map(|t| Value::Number(Number::Float((t.as_secs_f64() * 1e6).round() / 1e6)))
            .collect(),
    )
}

fn rounded(x: f64) -> Value {
    Value::Number(Number::Float((x * 1000.0).round() / 1000.0))
}

/// One shape's record.
pub fn record(row: &Row) -> CaseRecord {
    let (outcome, cause) = match row.verdict {
        Verdict::Superlinear { .. } => (Outcome::Failed, Some(Cause::Superlinear)),
        Verdict::Ok { .. } | Verdict::TooFast => (Outcome::Passed, None),
        Verdict::NotMeasured => (Outcome::Skipped, None),
    };
    let mut extra = vec![
        (
            "sizes".to_owned(),
            Value::Array(
                row.sizes
                    .iter()
                    .map(|&n| Value::from_u64(n as u64))
                    .collect(),
            ),
        ),
        ("adapter_seconds".to_owned(), seconds(&row.adapter)),
        ("reference_seconds".to_owned(), seconds(&row.reference)),
    ];
    if let Verdict::Superlinear { adapter, reference } | Verdict::Ok { adapter, reference } =
        row.verdict
    {
        extra.push(("adapter_exponent".to_owned(), rounded(adapter)));
        extra.push(("reference_exponent".to_owned(), rounded(reference)));
    }
    if !row.memory.is_empty() {
        extra.push((
            "adapter_peak_bytes".to_owned(),
            Value::Array(row.memory.iter().map(|&m| Value::from_u64(m)).collect()),
        ));
    }
    CaseRecord {
        id: format!(
            "scale/{}/{}/{}",
            row.op.as_str(),
            row.profile.as_str(),
            row.shape
        ),
        group: format!("scale/{}", row.op.as_str()),
        level: Level::Should,
        outcome,
        message: row.line(),
        cause,
        rules: vec!["Q-SCALE-2".into()],
        tags: vec!["scale".into()],
        description: format!(
            "complexity: {} ({}) on {} at n, 4n and 16n against the reference (SPEC.md 17)",
            row.op.as_str(),
            row.profile.as_str(),
            row.shape
        ),
        input: Some(crate::preview::Preview::default()),
        checks: Vec::new(),
        duration: row.adapter.iter().sum(),
        stderr: String::new(),
        extra,
    }
}

/// Measure every shape `imp` offers within `budget`, as records.
pub fn run_phase(imp: &mut dyn Implementation, budget: Duration) -> Vec<CaseRecord> {
    let plan = Plan {
        n: N,
        budget,
        per_size: PER_SIZE,
    };
    let mut reference = Reference::default();
    scale::measure(imp, &mut reference, &plan, None, |_| true)
        .iter()
        .map(record)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{OpKind, Profile};

    fn row(verdict: Verdict, memory: Vec<u64>) -> Row {
        let ms = Duration::from_millis;
        Row {
            op: OpKind::TreeInspect,
            profile: Profile::Core,
            shape: "chain",
            sizes: vec![1000, 4000, 16000],
            adapter: vec![ms(10), ms(160), ms(2560)],
            reference: vec![ms(1), ms(4), ms(16)],
            memory,
            stopped: None,
            verdict,
        }
    }

    #[test]
    fn a_finding_is_a_failed_should_case_and_the_others_pass_or_skip() {
        let r = record(&row(
            Verdict::Superlinear {
                adapter: 2.0,
                reference: 1.0,
            },
            vec![20_000_000, 30_000_000, 80_000_000],
        ));
        assert_eq!(r.id, "scale/tree_inspect/core/chain");
        assert_eq!(r.group, "scale/tree_inspect");
        assert_eq!(
            (r.level, r.outcome, r.cause),
            (Level::Should, Outcome::Failed, Some(Cause::Superlinear))
        );
        assert_eq!(r.rules, ["Q-SCALE-2"]);
        assert!(
            r.message
                .starts_with("FINDING tree_inspect (core) on chain grows as n^2.0"),
            "{}",
            r.message
        );
        assert!(
            r.message.contains("peak memory 20.0, 30.0, 80.0 MB"),
            "{}",
            r.message
        );
        let names: Vec<&str> = r.extra.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "sizes",
                "adapter_seconds",
                "reference_seconds",
                "adapter_exponent",
                "reference_exponent",
                "adapter_peak_bytes"
            ]
        );
        // The record reads back as it was written (the report's case line).
        let back = CaseRecord::from_json(&r.to_json()).unwrap();
        assert_eq!(
            (back.outcome, back.cause, back.level),
            (r.outcome, r.cause, r.level)
        );
        let ok = record(&row(Verdict::TooFast, vec![]));
        assert_eq!((ok.outcome, ok.cause), (Outcome::Passed, None));
        assert!(!ok.extra.iter().any(|(k, _)| k == "adapter_peak_bytes"));
        assert_eq!(
            record(&row(Verdict::NotMeasured, vec![])).outcome,
            Outcome::Skipped
        );
    }
}
