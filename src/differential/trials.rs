//! The generated trials of the differential phase: journals (valid and malformed, from
//! [`crate::generate`]), session trees with step sequences, JSON texts and store step
//! sequences ([`crate::generate::operations`]), for the operations a handshake offers;
//! and what the reference expects of each.

use proptest::prelude::*;
use proptest::strategy::Union;

use crate::error::ErrorCode;
use crate::event::JournalProfile;
use crate::generate::operations::{canonical_input, store_case, tree_case, tree_recipe, TreeCase};
use crate::generate::yoagent;
use crate::generate::{
    any_malformed_journal, journal_from_bytes, malformed_from_bytes, valid_journal, GenConfig,
    GeneratedJournal, MalformedJournal,
};
use crate::ops::Profile;
use crate::ops::{OpKind, Operation};
use crate::rules::Rule;
use crate::verdict::Expect;

/// One generated trial: exact input bytes, an operation, a profile, and the
/// generator's labels.
#[derive(Clone, Debug)]
pub struct Trial {
    pub input: Vec<u8>,
    pub op: Operation,
    pub profile: Profile,
    /// What the generator built (for the counterexample's description).
    pub origin: String,
    /// Every planted defect's code and line (malformed journals only).
    pub planted: Vec<(ErrorCode, Option<u64>)>,
    /// The code the generator's label says the reference reports.
    pub label: Option<ErrorCode>,
    /// The rule the label's violation breaks as planted (`C-NUM-3` or `C-NUM-6` for
    /// the one code they share); `None` for the code's own rule.
    pub label_rule: Option<Rule>,
}

impl Trial {
    pub fn plain(input: Vec<u8>, op: Operation, profile: Profile, origin: String) -> Trial {
        Trial {
            input,
            op,
            profile,
            origin,
            planted: vec![],
            label: None,
            label_rule: None,
        }
    }
}

/// A valid journal's trial: one of the offered journal operations `ops` (chosen by
/// `which`), on the whole journal or up to / at sequence `k` modulo its length.
fn valid_trial(j: GeneratedJournal, ops: &[OpKind], which: u8, k: u16) -> Trial {
    let n = j.events.len().max(1) as i64;
    let k = i64::from(k) % n;
    let kind = ops[usize::from(which) % ops.len()];
    let whole = (which / 4).is_multiple_of(2);
    let until = if whole { None } else { Some(k) };
    let op = match kind {
        OpKind::Validate => Operation::Validate,
        OpKind::Replay => Operation::Replay { until },
        OpKind::Fingerprint => Operation::Fingerprint { until },
        _ => Operation::Branch {
            at: k,
            branch_id: "branch".into(),
        },
    };
    Trial::plain(
        j.bytes(),
        op,
        j.profile.into(),
        format!("a valid journal of {} events", j.events.len()),
    )
}

/// A malformed journal's trial: its own operation, planted defects and label.
fn malformed_trial(m: MalformedJournal) -> Trial {
    Trial {
        origin: format!("a journal with {}", m.describe()),
        planted: m
            .planted
            .iter()
            .map(|p| (p.defect.code(), p.line))
            .collect(),
        label: Some(m.expected.code),
        label_rule: Rule::parse(m.expected.rule),
        input: m.bytes,
        op: m.op,
        profile: m.profile.into(),
    }
}

/// A journal trial built from unstructured bytes through the `arbitrary` impls (the
/// fuzz targets' recipes, [`crate::generate::journal_from_bytes`] and
/// [`crate::generate::malformed_from_bytes`]): a campaign's third source beside the
/// proptest strategies and the mutators (SPEC FZ-CAMP-1). The first byte chooses valid
/// or malformed (at most 4 defects) and the next three the operation and `k`, as
/// [`trials`] does. `None` when `offered` has no journal operation or the bytes build no
/// recipe; the origin says `(arbitrary)` so a finding names its source.
pub fn arbitrary_trial(cfg: &GenConfig, offered: &[String], data: &[u8]) -> Option<Trial> {
    let ops: Vec<OpKind> = OpKind::ALL
        .into_iter()
        .filter(|k| k.is_journal() && offered.iter().any(|o| o == k.as_str()))
        .collect();
    let (&[head, which, k0, k1], rest) = data.split_first_chunk::<4>()?;
    if ops.is_empty() {
        return None;
    }
    let mut t = if head.is_multiple_of(2) {
        valid_trial(
            journal_from_bytes(cfg, rest).ok()?,
            &ops,
            which,
            u16::from_le_bytes([k0, k1]),
        )
    } else {
        malformed_trial(malformed_from_bytes(cfg, 4, rest).ok()?)
    };
    t.origin.push_str(" (arbitrary)");
    Some(t)
}

/// The trials for the operations in `offered` (`None` when none can be generated).
/// Weights: journals 6 (half valid, half malformed), `tree_apply` 2, `canonical` 2,
/// `tree_inspect` 1, `store_apply` 1; the same journal weights again for Trace 0.1
/// journals when `profiles` (the handshake's) offers `trace-0.1`, and the same tree
/// weights again for `yoagent-0.26` session files ([`crate::generate::yoagent`]) when it
/// offers that dialect.
pub fn trials(
    cfg: &GenConfig,
    offered: &[String],
    profiles: &[String],
) -> Option<BoxedStrategy<Trial>> {
    let has = |op: OpKind| offered.iter().any(|o| o == op.as_str());
    let mut arms: Vec<(u32, BoxedStrategy<Trial>)> = Vec::new();
    let journal_ops: Vec<OpKind> = OpKind::ALL
        .into_iter()
        .filter(|k| k.is_journal() && has(*k))
        .collect();
    if !journal_ops.is_empty() {
        // Core journals always; Trace 0.1 journals (the seed's recorder's profile,
        // P-TRACE-*) drawn a second time when the handshake offers that profile.
        let mut configs = vec![cfg.clone()];
        if profiles.iter().any(|p| p == Profile::Trace01.as_str()) {
            configs.push(GenConfig {
                profile: JournalProfile::Trace01,
                ..cfg.clone()
            });
        }
        for cfg in &configs {
            let ops = journal_ops.clone();
            let valid = (valid_journal(cfg), any::<u8>(), any::<u16>())
                .prop_map(move |(j, which, k)| valid_trial(j, &ops, which, k))
                .boxed();
            // A malformed journal's defect can choose its operation (`until` out of
            // range is a replay's or a fingerprint's) and its profile (a P-TRACE-*
            // defect is planted in a Trace 0.1 journal): only offered ones are drawn.
            let offered_ops = journal_ops.clone();
            let offered_profiles = profiles.to_vec();
            let malformed = any_malformed_journal(cfg)
                .prop_filter("an operation and profile the handshake offers", move |m| {
                    let profile = Profile::from(m.profile);
                    offered_ops.contains(&m.op.kind())
                        && offered_profiles.iter().any(|p| p == profile.as_str())
                })
                .prop_map(malformed_trial)
                .boxed();
            arms.push((3, valid));
            arms.push((3, malformed));
        }
    }
    if has(OpKind::TreeInspect) || has(OpKind::TreeApply) {
        let (inspect, apply) = (has(OpKind::TreeInspect), has(OpKind::TreeApply));
        let weight = u32::from(inspect) + 2 * u32::from(apply);
        let tree_trial = move |c: TreeCase, w: u32, profile: Profile| {
            let op = if !apply || (inspect && w == 0) {
                Operation::TreeInspect
            } else {
                Operation::TreeApply { steps: c.steps }
            };
            Trial::plain(c.bytes, op, profile, c.origin)
        };
        let s = (tree_case(), 0..weight)
            .prop_map(move |(c, w)| tree_trial(c, w, Profile::Core))
            .boxed();
        arms.push((weight, s));
        if profiles.iter().any(|p| p == Profile::Yoagent026.as_str()) {
            let s = (tree_recipe(), 0..weight)
                .prop_map(move |(r, w)| tree_trial(yoagent::build(&r), w, Profile::Yoagent026))
                .boxed();
            arms.push((weight, s));
        }
    }
    if has(OpKind::Canonical) {
        let s = canonical_input()
            .prop_map(|(bytes, origin)| {
                Trial::plain(bytes, Operation::Canonical, Profile::Core, origin)
            })
            .boxed();
        arms.push((2, s));
    }
    if has(OpKind::StoreApply) {
        let small = GenConfig {
            events: 1..=6,
            ..cfg.clone()
        };
        let s = store_case(&small)
            .prop_map(|c| {
                Trial::plain(
                    c.initial,
                    Operation::StoreApply { steps: c.steps },
                    c.profile.into(),
                    c.origin,
                )
            })
            .boxed();
        arms.push((1, s));
    }
    if arms.is_empty() {
        None
    } else {
        Some(Union::new_weighted(arms).boxed())
    }
}

/// What the reference expects for a trial.
pub fn expectation(t: &Trial) -> Result<Expect, String> {
    crate::adapter::reference::reference_answer(&t.op, t.profile, &t.input)
        .map(|a| Expect::of_answer(&a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::{RngAlgorithm, TestRng};

    /// Random bytes through the `arbitrary` recipes: both kinds, every journal operation,
    /// valid ones answered with a result and malformed ones with their label's code (the
    /// reference decides, as in a campaign); nothing when no journal operation is offered.
    #[test]
    fn arbitrary_trials_are_journals_the_reference_answers_as_labelled() {
        let cfg = GenConfig {
            events: 1..=12,
            ..GenConfig::default()
        };
        let offered: Vec<String> = OpKind::ALL.iter().map(|k| k.as_str().to_owned()).collect();
        let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let (mut valid, mut malformed) = (0, 0);
        let mut ops = std::collections::BTreeSet::new();
        for i in 0..600 {
            let mut data = vec![0u8; 4 + i % 700];
            rng.fill_bytes(&mut data);
            let Some(t) = arbitrary_trial(&cfg, &offered, &data) else {
                continue;
            };
            assert!(t.origin.ends_with("(arbitrary)"), "{}", t.origin);
            assert!(t.op.kind().is_journal());
            ops.insert(t.op.name());
            match (t.label, expectation(&t).unwrap()) {
                (None, Expect::Result { .. }) => valid += 1,
                (Some(code), Expect::Error { codes, .. }) => {
                    assert!(codes.iter().any(|c| c == code.as_str()), "{t:?}: {codes:?}");
                    malformed += 1;
                }
                (label, e) => panic!("{label:?} but the reference: {e:?}, {t:?}"),
            }
        }
        assert!(
            valid > 200 && malformed > 200,
            "{valid} valid, {malformed} malformed"
        );
        assert_eq!(ops.len(), 4, "{ops:?}");
        let trees = vec!["tree_inspect".to_owned(), "tree_apply".to_owned()];
        assert!(arbitrary_trial(&cfg, &trees, &[0; 64]).is_none());
        assert!(arbitrary_trial(&cfg, &offered, &[0; 3]).is_none());
    }
}
