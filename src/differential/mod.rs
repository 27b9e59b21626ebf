//! The differential phase: generated cases compared with the reference (SPEC.md 13.6).
//!
//! This package owns the runner's second phase (`journal-conformance test --properties
//! N`). It generates N cases for every operation the adapter's handshake offers
//! ([`mod@trials`]), gives each to the implementation and to the reference, and keeps going
//! after a disagreement: each one is judged by [`crate::verdict::judge`] and classified
//! ([`attribute`]: operation, cause, the first differing JSON Pointer or the two error
//! codes, and the rule it is attributed to), disagreements are grouped into distinct
//! [`Kind`]s, and ONE representative per kind is shrunk by proptest while keeping its
//! kind ([`shrink`]), then written as a portable vector ([`counterexamples`]; proptest's
//! seeds only replay in Rust with the same generator, a vector replays anywhere).
//! Errored checks (adapter faults) are counted, never classified, never shrunk; a few in
//! a row stop the phase.

pub mod attribute;
pub mod consequences;
pub mod counterexamples;
pub mod minimize;
pub mod shrink;
pub mod trials;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proptest::strategy::{BoxedStrategy, Strategy};
use proptest::test_runner::{Config, TestRunner};

use crate::adapter::{ImplInfo, Implementation, Reply};
use crate::generate::GenConfig;
use crate::rules::Rule;
use crate::vectors::Case;
use crate::verdict::{Cause, Expect};

pub use attribute::{classify, is_known, Disagreement, KindKey};
pub use trials::{arbitrary_trial, expectation, trials, Trial};

use attribute::classify as classify_trial;
use shrink::{case_rng, TrialTree};

/// Adapter faults in a row after which the phase stops (the adapter is dead).
pub const MAX_CONSECUTIVE_FAULTS: u32 = 3;
/// Shrink steps per kind, the time a kind may take to shrink, and the time all
/// kinds together may take (kinds found after it is spent are reported unshrunk).
pub(crate) const SHRINK_ITERS: u32 = 2048;
const SHRINK_MS: u64 = 5_000;
const SHRINK_BUDGET_MS: u64 = 20_000;

/// How to run the phase.
pub struct DiffOptions<'a> {
    pub cases: u32,
    pub seed: u64,
    pub fail_fast: bool,
    /// `(K, N)`, 1-based K: generated case `i` runs iff `i % N == K - 1`.
    pub partition: Option<(u32, u32)>,
    /// Rule ids on the skip list: kinds attributed to them are known, not failed.
    pub known_rules: &'a BTreeSet<String>,
    pub counterexamples: Option<&'a Path>,
    /// Cap on kinds shrunk (the others are reported with their first, unshrunk case).
    pub max_shrunk_kinds: usize,
    /// What found the kinds, for their counterexamples' descriptions: "the differential
    /// phase" or "a fuzz campaign".
    pub found_by: &'a str,
}

/// What the phase found.
#[derive(Debug, Default)]
pub struct DiffReport {
    /// Cases generated in this run (this shard's share of `cases`).
    pub generated: u32,
    /// Cases answered by the implementation and compared with the reference.
    pub compared: u32,
    /// Compared cases whose answer differs from the reference's.
    pub disagreeing: u32,
    /// Checks the adapter did not answer (A-FAULT-1), shrinking included.
    pub errored: u32,
    /// (operation, why it was not compared); `"*"` when the whole phase stopped.
    pub skipped_ops: Vec<(String, String)>,
    pub kinds: Vec<Kind>,
    /// What the phase could not do (writing counterexamples): the run is incomplete.
    pub errors: Vec<String>,
    /// Where the kinds were kept ([`counterexamples::kept_dir`]), or why they could not
    /// be (not an error: `--counterexamples DIR` is the way to make keeping them a must).
    pub kept: Option<Result<PathBuf, String>>,
}

/// One distinct kind of disagreement (same operation, cause, rule and pointer or
/// codes), with its shrunk representative.
#[derive(Clone, Debug)]
pub struct Kind {
    /// `properties/<op>/<8 hex of sha256 of the op's JSON and the input>`.
    pub id: String,
    pub op: String,
    /// One of SPEC.md 13.3's causes, as [`crate::verdict::judge`] decides it.
    pub cause: Cause,
    /// The JSON Pointer of the first difference, or "expected X, got Y".
    pub detail: String,
    /// The rule it breaks (its operation's when nothing narrower applies, D-ATTR-1).
    pub rule: Rule,
    /// The rule is on the skip list.
    pub known: bool,
    pub occurrences: u32,
    /// The generated case number where it first appeared, and the run's seed.
    pub first_case: u32,
    pub seed: u64,
    pub counterexample: Case,
    pub path: Option<PathBuf>,
    pub explanation: String,
    /// Whether the counterexample was shrunk (D-SHRINK-1's budgets may leave it as found).
    pub shrunk: bool,
    /// Its identity (operation, cause, rule, grouping): what the phase grouped on.
    pub key: KindKey,
    /// The kinds of later operations folded into this one because their shrunk input
    /// already disagrees here ([`consequences`], D-CONSEQ-1): `replay properties/replay/
    /// 1a2b3c4d`, one entry each.
    pub consequences: Vec<String>,
}

/// The first disagreement of a kind (and how often the kind occurred).
pub struct Found {
    pub first_case: u32,
    pub occurrences: u32,
    pub trial: Trial,
    pub want: Expect,
    pub found: Disagreement,
    pub(crate) tree: Option<TrialTree>,
}

fn note(report: &mut DiffReport, op: &str, why: String) {
    if !report.skipped_ops.iter().any(|(o, _)| o == op) {
        report.skipped_ops.push((op.to_owned(), why));
    }
}

/// The kinds found so far, in the order they were first seen.
#[derive(Default)]
struct Search {
    found: BTreeMap<KindKey, Found>,
    order: Vec<KindKey>,
}

/// Run the phase against `imp` (see the package documentation and SPEC.md 13.6).
pub fn run(imp: &mut dyn Implementation, opts: &DiffOptions) -> Result<DiffReport, String> {
    let cfg = GenConfig {
        events: 1..=12,
        ..GenConfig::default()
    };
    if let Some((k, n)) = opts.partition {
        if n == 0 || k == 0 || k > n {
            return Err(format!("partition {k}/{n}: need 1 <= K <= N"));
        }
    }
    let mut report = DiffReport::default();
    let info = imp.info().clone();
    for op in crate::ops::OpKind::ALL {
        if !info.offers(op) {
            note(
                &mut report,
                op.as_str(),
                "not offered by the adapter's handshake".into(),
            );
        }
    }
    let Some(strategy) = trials(&cfg, &info.operations, &info.profiles) else {
        return Ok(report);
    };
    let search = compare(imp, &info, &strategy, opts, &mut report)?;
    let kinds = shrink_kinds(imp, search, opts, &info.name, &mut report.errored);
    let kinds = consequences::fold(imp, &info, kinds, opts, &mut report.errored);
    let mut kinds = consequences::merge_same_input(kinds);
    counterexamples::dedupe_ids(&mut kinds);
    if let Some(dir) = opts.counterexamples {
        // A kind whose counterexample cannot be written is still a kind: the write
        // failure makes the run incomplete, it does not lose the disagreements.
        if let Err(e) = counterexamples::write_kinds(dir, &mut kinds) {
            report.errors.push(format!(
                "writing the counterexamples to {}: {e}",
                dir.display()
            ));
        }
    }
    if !kinds.is_empty() {
        let dir = counterexamples::kept_dir();
        report.kept = Some(match counterexamples::keep_kinds(&dir, &kinds) {
            Ok(()) => Ok(dir),
            Err(e) => Err(format!(
                "keeping the counterexamples in {}: {e}",
                dir.display()
            )),
        });
    }
    report.kinds = kinds;
    Ok(report)
}

/// Generated case `i` of this shard, or `None` when it is another shard's.
fn mine(opts: &DiffOptions, i: u32) -> bool {
    opts.partition.is_none_or(|(k, n)| i % n == k - 1)
}

/// Ask every generated case of this shard and group the disagreements into kinds.
fn compare(
    imp: &mut dyn Implementation,
    info: &ImplInfo,
    strategy: &BoxedStrategy<Trial>,
    opts: &DiffOptions,
    report: &mut DiffReport,
) -> Result<Search, String> {
    let mut runner = TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        case_rng(opts.seed, 0),
    );
    let mut search = Search::default();
    let mut faults_in_a_row = 0;
    for i in (0..opts.cases).filter(|i| mine(opts, *i)) {
        report.generated += 1;
        *runner.rng() = case_rng(opts.seed, i);
        let tree = strategy
            .new_tree(&mut runner)
            .map_err(|e| format!("generated case {i}: {e}"))?;
        let t = tree.current();
        let Some(want) = comparable(info, &t, report) else {
            continue;
        };
        let got = match imp.run(&t.op, t.profile, &t.input) {
            Reply::Unsupported => {
                note(
                    report,
                    t.op.name(),
                    "the adapter answered `unsupported`".into(),
                );
                continue;
            }
            Reply::Fault(m) => {
                report.errored += 1;
                faults_in_a_row += 1;
                if faults_in_a_row >= MAX_CONSECUTIVE_FAULTS {
                    report.skipped_ops.push((
                        "*".into(),
                        format!(
                            "the differential phase stopped at generated case {i} after {faults_in_a_row} adapter faults in a row (errored, not compared); last: {}",
                            crate::error::shorten(m.as_bytes(), 300)
                        ),
                    ));
                    break;
                }
                continue;
            }
            Reply::Answer(a) => a,
        };
        faults_in_a_row = 0;
        report.compared += 1;
        let Some(d) = classify_trial(&t, &want, &got, opts.known_rules) else {
            continue;
        };
        report.disagreeing += 1;
        let key = d.key(t.op.name());
        match search.found.get_mut(&key) {
            Some(f) => f.occurrences += 1,
            None => {
                let keep_tree = search.order.len() < opts.max_shrunk_kinds;
                search.order.push(key.clone());
                let f = Found {
                    first_case: i,
                    occurrences: 1,
                    trial: t,
                    want,
                    found: d,
                    tree: keep_tree.then_some(tree),
                };
                search.found.insert(key, f);
            }
        }
        if opts.fail_fast {
            break;
        }
    }
    Ok(search)
}

/// What the reference expects of a trial the implementation offers; `None` (noted)
/// when it does not offer the trial's operation or profile, or the reference cannot run it.
fn comparable(info: &ImplInfo, t: &Trial, report: &mut DiffReport) -> Option<Expect> {
    let name = t.op.name();
    if !info.supports(&t.op, t.profile) {
        if !info.profiles.iter().any(|p| p == t.profile.as_str()) {
            note(
                report,
                &format!("{name} ({})", t.profile.as_str()),
                format!(
                    "profile {} not offered by the adapter's handshake",
                    t.profile.as_str()
                ),
            );
        }
        return None;
    }
    match expectation(t) {
        Ok(w) => Some(w),
        Err(e) => {
            note(report, name, format!("the reference could not run it: {e}"));
            None
        }
    }
}

/// Calls the canonical minimizer may make per kind after proptest (D-SHRINK-1).
pub(crate) const MINIMIZE_CALLS: u32 = 400;

/// Whether `t` still disagrees as kind `key` (a fault counts as not: D-FAULT-1). The
/// differential phase's minimizer and a campaign's shrinking ask it.
pub(crate) fn same_kind(
    imp: &mut dyn Implementation,
    t: &Trial,
    key: &KindKey,
    opts: &DiffOptions,
    errored: &mut u32,
) -> Option<(Expect, Disagreement)> {
    if !imp.info().supports(&t.op, t.profile) {
        return None;
    }
    let want = expectation(t).ok()?;
    match imp.run(&t.op, t.profile, &t.input) {
        Reply::Answer(a) => {
            let d = classify_trial(t, &want, &a, opts.known_rules)?;
            (d.key(t.op.name()) == *key).then_some((want, d))
        }
        Reply::Fault(_) => {
            *errored += 1;
            None
        }
        Reply::Unsupported => None,
    }
}

/// Shrink one representative per kind (within the budgets), in the order found.
fn shrink_kinds(
    imp: &mut dyn Implementation,
    mut search: Search,
    opts: &DiffOptions,
    implementation: &str,
    errored: &mut u32,
) -> Vec<Kind> {
    let mut kinds = Vec::new();
    let shrinking = std::time::Instant::now();
    for key in search.order {
        let mut f = search.found.remove(&key).expect("every kind was recorded");
        let mut shrunk = false;
        let left = SHRINK_BUDGET_MS.saturating_sub(shrinking.elapsed().as_millis() as u64);
        if let Some(tree) = f.tree.take().filter(|_| left > 0) {
            let ms = left.min(SHRINK_MS) as u32;
            if let Some((t, want, d)) = shrink::shrink(imp, tree, &key, opts, ms, errored) {
                f.trial = t;
                f.want = want;
                f.found = d;
                shrunk = true;
            }
            // Then toward one canonical minimal input (lines, bytes, canonical spelling,
            // small arguments), so that one decision found from two generated cases
            // tends to shrink to one input.
            let left = SHRINK_BUDGET_MS.saturating_sub(shrinking.elapsed().as_millis() as u64);
            if left > 0 {
                let budget = minimize::Budget {
                    calls: MINIMIZE_CALLS,
                    time: std::time::Duration::from_millis(left.min(SHRINK_MS)),
                };
                let before = (f.trial.input.len(), f.trial.op.clone());
                let (t, _) = minimize::minimize(
                    &f.trial,
                    &mut |c| same_kind(imp, c, &key, opts, errored).is_some(),
                    budget,
                );
                if (t.input.len(), &t.op) != (before.0, &before.1) {
                    if let Some((want, d)) = same_kind(imp, &t, &key, opts, errored) {
                        f.trial = t;
                        f.want = want;
                        f.found = d;
                        shrunk = true;
                    }
                }
            }
        }
        kinds.push(counterexamples::make_kind(implementation, opts, f, shrunk));
    }
    kinds
}
