//! Property-based differential testing of an implementation against the reference.
//!
//! This module owns the runner's second phase (`journal-conformance test --properties
//! N`): generated journals, valid and malformed (from [`crate::generate`]), each with an
//! operation, are given to the implementation under test and to the reference; the
//! first disagreement is shrunk by proptest to a minimal journal, and that shrunk
//! counterexample is written out as a portable vector file (proptest's own seeds only
//! replay in Rust with the same generator, a vector replays anywhere).

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use crate::adapter::{reference_answer, Implementation, Reply};
use crate::event::Profile;
use crate::generate::{any_malformed_journal, valid_journal, GenConfig};
use crate::ops::Operation;
use crate::vectors::{self, Answer, Case, Check, Expect, InputForm, Level};

/// One generated trial: exact input bytes, an operation, a profile.
#[derive(Clone, Debug)]
pub struct Trial {
    pub input: Vec<u8>,
    pub op: Operation,
    pub profile: Profile,
    /// What the generator built (for the counterexample's description).
    pub origin: String,
}

/// Valid journals with an operation chosen among validate, replay (whole or a prefix),
/// fingerprint and branch; and malformed journals with their own operation.
pub fn trials(cfg: &GenConfig) -> BoxedStrategy<Trial> {
    let valid = (valid_journal(cfg), any::<u8>(), any::<u16>())
        .prop_map(|(j, which, k)| {
            let n = j.events.len().max(1) as i64;
            let k = i64::from(k) % n;
            let op = match which % 5 {
                0 => Operation::Validate,
                1 => Operation::Replay { until: None },
                2 => Operation::Replay { until: Some(k) },
                3 => Operation::Fingerprint { until: Some(k) },
                _ => Operation::Branch {
                    at: k,
                    branch_id: "branch".into(),
                },
            };
            Trial {
                input: j.bytes(),
                op,
                profile: j.profile,
                origin: format!("a valid journal of {} events", j.events.len()),
            }
        })
        .boxed();
    let malformed = any_malformed_journal(cfg)
        .prop_map(|m| Trial {
            origin: format!(
                "a journal with the defect(s) {}",
                m.planted
                    .iter()
                    .map(|p| p.defect.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            input: m.bytes,
            op: m.op,
            profile: m.profile,
        })
        .boxed();
    prop_oneof![valid, malformed].boxed()
}

/// What the reference expects for a trial.
pub fn expectation(t: &Trial) -> Result<Expect, String> {
    Ok(match reference_answer(&t.op, t.profile, &t.input)? {
        Answer::Result(value) => Expect::Result {
            value,
            sha256: None,
        },
        Answer::Error {
            code,
            line,
            sequence,
            index,
            ..
        } => Expect::Error {
            codes: vec![code],
            line,
            sequence,
            index,
        },
    })
}

/// The result of a differential run.
#[derive(Debug)]
pub struct Outcome {
    pub cases: u32,
    /// The shrunk counterexample, if the implementation disagreed.
    pub counterexample: Option<(Case, String, Option<PathBuf>)>,
}

/// Run `cases` trials against `imp`; on a disagreement shrink it and, when `out_dir`
/// is given, write the counterexample there as a vector file (atomically).
pub fn run(
    imp: &mut dyn Implementation,
    cases: u32,
    seed: u64,
    out_dir: Option<&Path>,
) -> Result<Outcome, String> {
    let cfg = GenConfig {
        events: 1..=12,
        ..GenConfig::default()
    };
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 4096,
            max_shrink_time: 60_000,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let imp = RefCell::new(imp);
    let result = runner.run(&trials(&cfg), |t| {
        let mut imp = imp.borrow_mut();
        if !imp.info().supports(&t.op, t.profile) {
            return Ok(());
        }
        let want = expectation(&t).map_err(TestCaseError::fail)?;
        match imp.run(&t.op, t.profile, &t.input) {
            Reply::Unsupported => Ok(()),
            Reply::Fault(m) => Err(TestCaseError::fail(format!("adapter fault: {m}"))),
            Reply::Answer(a) => match vectors::compare(&want, &a) {
                None => Ok(()),
                Some(diff) => Err(TestCaseError::fail(diff)),
            },
        }
    });
    match result {
        Ok(()) => Ok(Outcome {
            cases,
            counterexample: None,
        }),
        Err(TestError::Abort(why)) => Err(format!("differential run aborted: {why}")),
        Err(TestError::Fail(why, t)) => {
            let case =
                counterexample_case(&t, &why.to_string(), imp.borrow().info().name.as_str())?;
            let path = match out_dir {
                None => None,
                Some(dir) => Some(write_counterexample(dir, &case)?),
            };
            Ok(Outcome {
                cases,
                counterexample: Some((case, why.to_string(), path)),
            })
        }
    }
}

/// The shrunk trial as a vector case (expected value from the reference).
pub fn counterexample_case(t: &Trial, why: &str, implementation: &str) -> Result<Case, String> {
    let expect = expectation(t)?;
    let digest = crate::fingerprint::sha256_hex(&t.input);
    let rule = match &expect {
        Expect::Error { codes, .. } => {
            crate::ErrorCode::from_str_code(&codes[0]).map_or("J-ORDER-1", |c| c.rule())
        }
        Expect::Result { .. } => "R-PROJ-1",
    };
    let name = format!("cx-{}-{}", t.op.name().replace('_', "-"), &digest[..12]);
    let reason = crate::error::shorten(why.as_bytes(), 300);
    Ok(Case {
        id: format!("counterexamples/{name}"),
        group: "counterexamples".into(),
        name,
        description: format!(
            "Shrunk counterexample from differential testing of {implementation} against the reference ({}): {reason}",
            t.origin
        ),
        rules: vec![rule.to_owned()],
        tags: vec!["counterexample".into()],
        level: Level::Must,
        profile: t.profile,
        input: t.input.clone(),
        input_form: InputForm::Text,
        checks: vec![Check { op: t.op.clone(), expect }],
    })
}

/// Write a counterexample as `<dir>/<name>.json` (a vector file of one case).
pub fn write_counterexample(dir: &Path, case: &Case) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.json", case.name));
    let mut text = crate::canonical::to_string(&vectors::to_file_json(std::slice::from_ref(case)));
    text.push('\n');
    crate::fsutil::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
