//! The properties phase as the runner reports it: which generated operations the
//! implementation offers, and each distinct kind of differential disagreement turned
//! into a case record (`properties/<op>/<8 hex>`) counted like any other case.

use super::case::run_case_with;
use super::probe::Probes;
use super::skiplist::SkipList;
use super::Options;
use crate::adapter::{ImplInfo, Implementation};
use crate::json::Value;
use crate::ops::OpKind;
use crate::record::{CaseRecord, Outcome, PROPERTIES};
use crate::report::PropertiesSummary;
use crate::verdict::Cause;

/// Why the phase cannot compare anything with this implementation, if so (the generator
/// exercises every operation of protocol 1).
pub fn not_comparable(info: &ImplInfo) -> Option<String> {
    if OpKind::ALL.iter().any(|k| info.offers(*k)) {
        return None;
    }
    Some(format!(
        "the adapter offers none of the generated operations ({})",
        OpKind::names()
    ))
}

/// Run the phase on `imp` (SPEC.md 13.6) and give its kinds as records, with its
/// summary; an implementation that offers none of the generated operations gives a
/// summary saying why nothing was compared.
pub fn run_phase(
    imp: &mut dyn Implementation,
    opts: &Options,
    skips: &SkipList,
    probes: &Probes,
) -> Result<Phase, String> {
    if let Some(why) = not_comparable(imp.info()) {
        let summary = PropertiesSummary {
            cases: u64::from(opts.properties),
            skipped: Some(why),
            ..PropertiesSummary::default()
        };
        return Ok(Phase {
            records: Vec::new(),
            summary,
            errors: Vec::new(),
            notes: Vec::new(),
        });
    }
    let out = crate::differential::run(
        imp,
        &crate::differential::DiffOptions {
            cases: opts.properties,
            seed: opts.seed,
            fail_fast: opts.fail_fast,
            partition: opts.partition.map(|p| p.k_n()),
            known_rules: &skips.known_set(),
            counterexamples: opts.counterexamples.as_deref(),
            max_shrunk_kinds: 16,
            found_by: "the differential phase",
        },
    )?;
    let errors = out.errors.clone();
    let kept = out.kept.clone();
    let (records, summary) = convert(imp, out, skips, probes);
    let notes = match kept {
        Some(Ok(dir)) => vec![format!(
            "the counterexample of each properties/... kind is kept in {} (`journal-conformance show ID` shows it)",
            dir.display()
        )],
        Some(Err(e)) => vec![format!("note: {e}; pass --counterexamples DIR to keep them")],
        None => Vec::new(),
    };
    Ok(Phase {
        records,
        summary,
        errors,
        notes,
    })
}

/// What the properties phase gave.
pub struct Phase {
    /// Each kind as a case record (and the adapter faults as one).
    pub records: Vec<CaseRecord>,
    pub summary: PropertiesSummary,
    /// What it could not do (writing counterexamples).
    pub errors: Vec<String>,
    /// Lines for after the closing line: where the kinds are kept.
    pub notes: Vec<String>,
}

/// Turn the differential phase's report into case records and the phase's summary.
/// Each kind is a case `properties/<op>/<8 hex>` (SPEC.md 13.6): failed, or skipped
/// naming the rule when the kind is known (its rule is on the skip list). The shrunk
/// counterexample is asked again of the implementation, so the record has the actual
/// answer, the cause and the pointer. Adapter faults during the phase are one errored
/// case `properties/adapter-faults`, so they count everywhere like any other fault.
pub fn convert(
    imp: &mut dyn Implementation,
    out: crate::differential::DiffReport,
    skips: &SkipList,
    probes: &Probes,
) -> (Vec<CaseRecord>, PropertiesSummary) {
    let mut summary = PropertiesSummary {
        cases: u64::from(out.generated),
        compared: u64::from(out.compared),
        disagreeing: u64::from(out.disagreeing),
        kinds: out.kinds.len() as u64,
        known: out.kinds.iter().filter(|k| k.known).count() as u64,
        skipped: (out.compared == 0).then(|| {
            out.skipped_ops
                .iter()
                .map(|(op, why)| format!("{op}: {why}"))
                .collect::<Vec<_>>()
                .join("; ")
        }),
    };
    if summary.skipped.as_deref() == Some("") {
        summary.skipped = Some("no generated case was compared".into());
    }
    let mut records = Vec::new();
    for k in out.kinds {
        let case = &k.counterexample;
        let mut rec = run_case_with(imp, case, probes);
        rec.id = k.id.clone();
        rec.group = format!("{PROPERTIES}/{}", k.op);
        rec.rules = vec![k.rule.id().to_owned()];
        if rec.outcome == Outcome::Passed || rec.outcome == Outcome::Skipped {
            // Disagreed during the phase, agrees when asked again: still a disagreement.
            rec.outcome = Outcome::Failed;
            rec.cause = Some(k.cause);
        }
        let mut detail = format!(
            "{}\n{} occurrence(s), first at generated case {} (seed {}); shrunk to {} bytes",
            k.explanation,
            k.occurrences,
            k.first_case,
            k.seed,
            case.input.len()
        );
        match &k.path {
            Some(p) => detail.push_str(&format!(
                "; written as a vector: {} (run it with --corpus)",
                p.display()
            )),
            None => detail.push_str(
                "; kept for `journal-conformance show` (--counterexamples DIR writes it as a vector file)",
            ),
        }
        rec.message = detail;
        if k.known {
            let rule = k.rule.id();
            let (entry, why) = skips
                .known_disagreement(&k.op, rule)
                .unwrap_or_else(|| (rule.to_owned(), String::new()));
            rec.outcome = Outcome::Skipped;
            rec.cause = None;
            rec.message = format!(
                "known disagreement, skip list entry {entry}: {why}\n{}",
                rec.message
            );
        }
        let bytes = std::mem::take(&mut rec.extra);
        rec.extra = vec![
            ("rule".into(), Value::from(k.rule.id())),
            (
                "first_case".into(),
                Value::from_u64(u64::from(k.first_case)),
            ),
            ("seed".into(), Value::from_u64(k.seed)),
            (
                "occurrences".into(),
                Value::from_u64(u64::from(k.occurrences)),
            ),
            ("known".into(), Value::Bool(k.known)),
            (
                "consequences".into(),
                Value::Array(
                    k.consequences
                        .iter()
                        .map(|c| Value::from(c.as_str()))
                        .collect(),
                ),
            ),
        ];
        rec.extra.extend(bytes);
        probes.admit(&mut rec);
        records.push(rec);
    }
    if out.errored > 0 {
        records.push(faults_record(imp, out.errored, &out.skipped_ops));
    }
    (records, summary)
}

/// The adapter faults of the phase, as one errored case `properties/adapter-faults`, so
/// they count everywhere like any other fault.
fn faults_record(
    imp: &dyn Implementation,
    errored: u32,
    skipped_ops: &[(String, String)],
) -> CaseRecord {
    let why = skipped_ops
        .iter()
        .find(|(op, _)| op == "*")
        .map_or(String::new(), |(_, w)| format!("; {w}"));
    CaseRecord {
        id: format!("{PROPERTIES}/adapter-faults"),
        group: PROPERTIES.into(),
        level: crate::vectors::Level::Must,
        outcome: Outcome::Errored,
        message: format!(
            "{} generated checks were not answered (crash, timeout or protocol error){why}",
            errored
        ),
        cause: Some(Cause::AdapterFault),
        rules: vec!["A-FAULT-1".into()],
        tags: Vec::new(),
        description: "adapter faults during the properties phase".into(),
        input: Some(crate::preview::Preview::default()),
        checks: Vec::new(),
        duration: std::time::Duration::ZERO,
        stderr: imp.stderr_tail(),
        extra: Vec::new(),
    }
}
