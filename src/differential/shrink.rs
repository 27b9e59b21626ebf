//! Shrinking one representative of a kind (SPEC.md 13.6, `D-SHRINK-1`) with proptest,
//! keeping its kind: a shrink step whose answer is another kind, no disagreement or an
//! adapter fault counts as passing, so proptest rejects it.

use std::cell::{Cell, RefCell};

use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use super::attribute::{classify, Disagreement, KindKey};
use super::trials::{expectation, Trial};
use super::{DiffOptions, MAX_CONSECUTIVE_FAULTS, SHRINK_ITERS};
use crate::adapter::{Implementation, Reply};
use crate::verdict::Expect;

/// The generator of generated case `case` of a run seeded `seed`.
pub fn case_rng(seed: u64, case: u32) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&case.to_le_bytes());
    bytes[12..16].copy_from_slice(b"jcdp");
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// A generated case's value tree (what proptest shrinks).
pub type TrialTree = Box<dyn ValueTree<Value = Trial>>;

/// Shrink one representative, keeping its kind: a shrink step whose answer is
/// another kind (or no disagreement, or an adapter fault) counts as passing, so
/// proptest rejects it. `None` when nothing smaller keeps the kind.
pub fn shrink(
    imp: &mut dyn Implementation,
    tree: TrialTree,
    key: &KindKey,
    opts: &DiffOptions,
    max_ms: u32,
    errored: &mut u32,
) -> Option<(Trial, Expect, Disagreement)> {
    let imp = RefCell::new(imp);
    let faults = Cell::new(0u32);
    let in_a_row = Cell::new(0u32);
    let mut runner = TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            max_shrink_iters: SHRINK_ITERS,
            max_shrink_time: max_ms,
            ..Config::default()
        },
        case_rng(opts.seed, u32::MAX),
    );
    let same_kind = |t: &Trial| -> Option<(Expect, Disagreement)> {
        if in_a_row.get() >= MAX_CONSECUTIVE_FAULTS {
            return None;
        }
        let mut imp = imp.borrow_mut();
        if !imp.info().supports(&t.op, t.profile) {
            return None;
        }
        let want = expectation(t).ok()?;
        match imp.run(&t.op, t.profile, &t.input) {
            Reply::Answer(a) => {
                in_a_row.set(0);
                let d = classify(t, &want, &a, opts.known_rules)?;
                (d.key(t.op.name()) == *key).then_some((want, d))
            }
            Reply::Fault(_) => {
                faults.set(faults.get() + 1);
                in_a_row.set(in_a_row.get() + 1);
                None
            }
            Reply::Unsupported => None,
        }
    };
    let result = runner.run_one(tree, |t| match same_kind(&t) {
        Some(_) => Err(TestCaseError::fail("same kind")),
        None => Ok(()),
    });
    let shrunk = match result {
        // Its expectation and classification once more, for the record (a
        // deterministic implementation gives the same answer again).
        Err(TestError::Fail(_, t)) => same_kind(&t).map(|(want, d)| (t, want, d)),
        _ => None,
    };
    *errored += faults.get();
    shrunk
}
