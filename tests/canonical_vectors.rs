//! Runs every canonical JSON conformance vector (`conformance/canonical/*.json`)
//! through the reference (`canonical` operation, plus the `sha256` of the canonical
//! text), with the kit's own strict vector loader, and fails listing every mismatch.
//! The expected values come from Python (see `conformance/canonical/README.md`), never
//! from this crate.

use std::collections::BTreeSet;
use std::path::Path;

use journal_conformance::adapter::Reference;
use journal_conformance::ops::Operation;
use journal_conformance::record::Outcome;
use journal_conformance::runner::run_case;
use journal_conformance::vectors;
use journal_conformance::verdict::Expect;

/// The rule ids canonical vectors may cite.
const RULES: &[&str] = &[
    "C-SYNTAX-1",
    "C-KEY-1",
    "C-KEY-2",
    "C-STR-1",
    "C-STR-2",
    "C-STR-3",
    "C-NUM-1",
    "C-NUM-2",
    "C-NUM-3",
    "C-NUM-4",
    "C-NUM-5",
    "C-NUM-6",
    "C-LIT-1",
    "C-WS-1",
    "C-DEPTH-1",
    "W-UTF8-1",
    "W-BOM-1",
];

#[test]
fn canonical_vectors_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/canonical");
    let cases = vectors::load_dir(&dir).unwrap();
    assert!(cases.len() >= 200, "only {} canonical vectors", cases.len());
    let mut reference = Reference::default();
    let mut failures = Vec::new();
    let (mut with_digest, mut rejected) = (0, 0);
    let mut files = BTreeSet::new();
    for case in &cases {
        files.insert(case.group.clone());
        for r in &case.rules {
            assert!(
                RULES.contains(&r.as_str()),
                "{}: rule {r} is not a canonical rule",
                case.id
            );
        }
        for ch in &case.checks {
            assert_eq!(ch.op, Operation::Canonical, "{}", case.id);
            match &ch.expect {
                Expect::Result {
                    sha256: Some(_), ..
                } => with_digest += 1,
                Expect::Result { sha256: None, .. } => {
                    panic!("{}: accepted cases carry the sha256", case.id)
                }
                Expect::Error { .. } => rejected += 1,
            }
        }
        let rec = run_case(&mut reference, case);
        if rec.outcome != Outcome::Passed {
            failures.push(format!("{}: {}", rec.id, rec.message));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} canonical vectors fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        with_digest >= 200 && rejected >= 50,
        "{with_digest} accepted, {rejected} rejected"
    );
    assert!(files.len() >= 5, "{files:?}");
}
