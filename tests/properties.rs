//! Properties of the reference, proven with the kit's own generators.
//!
//! Each property draws journals from `journal_conformance::generate` and checks the
//! reference (`replay`, `journal::validate`, `branch`, `ops::execute`) against the
//! generator's expectation, which the generator computes from what it put in.

use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::generate::{
    self, any_malformed_journal, combined_malformed_journal, malformed_journal, valid_journal,
    Defect, GenConfig, GeneratedJournal, MalformedJournal, ParentShape, Richness, TypeWeights,
    WriteStyle,
};
use journal_conformance::journal;
use journal_conformance::json::Value;
use journal_conformance::replay::{self, ReplayState};
use journal_conformance::{branch, canonical, ops, ErrorCode};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

/// Projections compare as canonical JSON: tool results keep the key order of the
/// bytes they were read from, which the write style varies.
fn same_state(a: &ReplayState, b: &ReplayState) -> bool {
    canonical::to_string(&a.to_json()) == canonical::to_string(&b.to_json())
}

fn show(s: &ReplayState) -> String {
    canonical::to_string(&s.to_json())
}

/// `cases` cases (times `JC_PROPERTY_SCALE`, default 1; CI runs a release pass with
/// 5) with the fast XorShift generator (ChaCha dominates debug builds).
fn config(cases: u32) -> ProptestConfig {
    let scale: u32 = std::env::var("JC_PROPERTY_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases * scale.max(1),
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    }
}

fn core() -> GenConfig {
    GenConfig::default()
}

fn trace() -> GenConfig {
    GenConfig::with_profile(JournalProfile::Trace01)
}

/// Core or trace-0.1, every parent shape, hard payloads, varied styles.
fn valid_any() -> impl Strategy<Value = GeneratedJournal> {
    prop_oneof![valid_journal(&core()), valid_journal(&trace())]
}

fn lines_prefix(bytes: &[u8], k: usize) -> Vec<u8> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .take(k + 1)
        .flatten()
        .copied()
        .collect()
}

fn check_malformed(m: &MalformedJournal) -> Result<(), TestCaseError> {
    match ops::execute(&m.op, &m.bytes, m.profile.into()) {
        Err(ReadError::Invalid(e)) => {
            prop_assert!(
                m.expected.matches(&e),
                "{}\nexpected {:?}\n     got {:?} (line {:?}, sequence {:?}): {}\nbytes: {:?}",
                m.describe(),
                m.expected,
                e.code,
                e.line,
                e.sequence,
                e.message,
                String::from_utf8_lossy(&m.bytes)
            );
            prop_assert!(m.expected.codes.contains(&m.expected.code));
            // The label's rule: a number out of range is C-NUM-3 when its line holds an
            // integer literal of more than 4300 digits, C-NUM-6 (a float overflowing)
            // otherwise (the generator's floats are short); other codes their own rule.
            let want_rule = if e.code == ErrorCode::NumberOutOfRange {
                let line = m
                    .bytes
                    .split(|&b| b == b'\n')
                    .nth(e.line.unwrap() as usize - 1);
                let long = line
                    .unwrap()
                    .split(|b| !b.is_ascii_digit())
                    .any(|run| run.len() > 4300);
                if long {
                    "C-NUM-3"
                } else {
                    "C-NUM-6"
                }
            } else {
                e.code.rule()
            };
            prop_assert_eq!(m.expected.rule, want_rule, "{}", m.describe());
        }
        other => prop_assert!(
            false,
            "{}: expected {:?}, got {:?}",
            m.describe(),
            m.expected,
            other.map(|v| canonical::to_string(&v))
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(400))]

    /// Valid journals are accepted and replay to the generator's projection.
    #[test]
    fn valid_journals_replay_to_the_expected_projection(j in valid_any()) {
        let bytes = j.bytes();
        let n = journal::validate(&bytes[..], j.profile);
        prop_assert_eq!(n.ok(), Some(j.len() as u64));
        let got = replay::replay(&bytes[..], j.profile, None).unwrap();
        let want = j.expected();
        prop_assert!(same_state(&got, &want), "\n got {}\nwant {}", show(&got), show(&want));
        prop_assert_eq!(got.fingerprint, j.expected_fingerprint(None));
    }

    /// Same bytes, same projection and fingerprint; the fingerprint ignores key
    /// order, whitespace, equivalent escapes and number spellings.
    #[test]
    fn replay_is_deterministic_and_spelling_blind(
        j in valid_any(),
        other in generate::strategies::write_style(true),
    ) {
        let bytes = j.bytes();
        let a = replay::replay(&bytes[..], j.profile, None).unwrap();
        let b = replay::replay(&bytes.clone()[..], j.profile, None).unwrap();
        prop_assert_eq!(&a, &b);
        let respelled = j.bytes_with(&other);
        let c = replay::replay(&respelled[..], j.profile, None).unwrap();
        prop_assert!(same_state(&a, &c));
        let canon = j.canonical_bytes();
        let d = replay::fingerprint(&canon[..], j.profile, None).unwrap();
        prop_assert_eq!(&a.fingerprint, &d);
        prop_assert_eq!(&c.fingerprint, &d);
    }

    /// `replay(until = k)` equals the replay of the first k + 1 lines on their own.
    #[test]
    fn replay_until_is_the_replay_of_the_prefix(j in valid_any(), pick in any::<usize>()) {
        let bytes = j.bytes();
        let k = pick % j.len();
        let partial = replay::replay(&bytes[..], j.profile, Some(k as i64)).unwrap();
        let prefix = lines_prefix(&bytes, k);
        let alone = replay::replay(&prefix[..], j.profile, None).unwrap();
        prop_assert_eq!(&partial, &alone);
        prop_assert!(same_state(&partial, &j.expected_until(k)));
        let fp = replay::fingerprint(&bytes[..], j.profile, Some(k as i64)).unwrap();
        prop_assert_eq!(fp, alone.fingerprint);
    }

    /// Seed exercise D: two branches at one sequence share the parent fingerprint
    /// and inherited ids and differ only in branch id; branching never alters the
    /// parent (bytes and replay unchanged).
    #[test]
    fn branches_share_lineage_and_leave_the_parent_alone(
        j in valid_any(),
        pick in any::<usize>(),
        ids in (0usize..6, 0usize..6).prop_filter("distinct", |(a, b)| a != b),
    ) {
        const IDS: [&str; 6] = ["b1", "b2", "\u{200b}", " x ", "分支", "\u{feff}"];
        let bytes = j.bytes();
        let before = bytes.clone();
        let replay_before = replay::replay(&bytes[..], j.profile, None).unwrap();
        let k = pick % j.len();
        let b1 = branch::branch(&bytes[..], j.profile, k as i64, IDS[ids.0]).unwrap();
        let b2 = branch::branch(&bytes[..], j.profile, k as i64, IDS[ids.1]).unwrap();
        prop_assert_eq!(&b1.parent_fingerprint, &b2.parent_fingerprint);
        prop_assert_eq!(&b1.inherited_event_ids, &b2.inherited_event_ids);
        prop_assert_eq!(b1.fork_sequence, b2.fork_sequence);
        prop_assert_ne!(&b1.branch_id, &b2.branch_id);
        let want = j.expected_branch(k, IDS[ids.0]);
        prop_assert_eq!(&b1, &want);
        prop_assert_eq!(&bytes, &before);
        let replay_after = replay::replay(&bytes[..], j.profile, None).unwrap();
        prop_assert_eq!(replay_before, replay_after);
    }

    /// R-STREAM-1: N deltas and one final give exactly one assistant message, equal
    /// to the final event's `accumulated`.
    #[test]
    fn streams_give_one_message_each(j in valid_journal(&GenConfig {
        weights: TypeWeights {
            stream: 4,
            user_message: 1,
            model_request: 1,
            tool_result: 1,
            unknown: 1,
            ..TypeWeights::none()
        },
        max_deltas: 12,
        events: 1..=24,
        ..GenConfig::default()
    })) {
        let got = replay::replay(&j.bytes()[..], j.profile, None).unwrap();
        let finals: Vec<&Value> = j
            .events
            .iter()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("model.response"))
            .filter(|e| e.get("payload").and_then(|p| p.get("final")) == Some(&Value::Bool(true)))
            .collect();
        prop_assert_eq!(finals.len(), j.streams.len());
        let want: Vec<String> = finals
            .iter()
            .map(|e| {
                e.get("payload")
                    .and_then(|p| p.get("accumulated"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect();
        prop_assert_eq!(&got.assistant_messages, &want);
        let from_generator: Vec<String> = j.streams.iter().map(|s| s.accumulated.clone()).collect();
        prop_assert_eq!(&got.assistant_messages, &from_generator);
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Every malformed class is rejected with its labelled code, line and sequence.
    #[test]
    fn malformed_journals_fail_as_labelled(
        m in prop_oneof![any_malformed_journal(&core()), any_malformed_journal(&trace())]
    ) {
        prop_assert_eq!(m.planted.len(), 1, "{}", m.describe());
        prop_assert_eq!(m.expected.codes.len(), 1);
        prop_assert_eq!(m.planted[0].defect.code(), m.expected.code);
        check_malformed(&m)?;
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Several defects: the reference reports the one the precedence rule picks.
    #[test]
    fn combined_defects_follow_precedence(
        m in prop_oneof![
            combined_malformed_journal(&core(), 4),
            combined_malformed_journal(&trace(), 4),
        ]
    ) {
        check_malformed(&m)?;
    }
}

proptest! {
    #![proptest_config(config(600))]

    /// Several defects aimed at the same event: the within-event order decides.
    #[test]
    fn defects_on_one_event_follow_the_within_event_order(
        r in prop_oneof![
            generate::strategies::combined_recipe(&core(), 4),
            generate::strategies::combined_recipe(&trace(), 4),
        ]
    ) {
        let mut r = r;
        let p = r.defects[0].position;
        for d in &mut r.defects {
            d.position = p;
        }
        check_malformed(&generate::malformed::build(&r))?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Journals built by the `arbitrary` impls obey the same labels.
    #[test]
    fn arbitrary_journals_obey_their_labels(data in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let mut u = arbitrary::Unstructured::new(&data);
        if let Ok(j) = <GeneratedJournal as arbitrary::Arbitrary>::arbitrary(&mut u) {
            let got = replay::replay(&j.bytes()[..], j.profile, None).unwrap();
            prop_assert!(same_state(&got, &j.expected()));
        }
        let mut u = arbitrary::Unstructured::new(&data);
        if let Ok(m) = <MalformedJournal as arbitrary::Arbitrary>::arbitrary(&mut u) {
            check_malformed(&m)?;
        }
    }
}

/// Every class on its own, a fixed number of cases each (so a rare class cannot hide
/// in the mixed property above).
#[test]
fn every_defect_class_is_rejected_as_labelled() {
    for &d in Defect::all() {
        for cfg in [core(), trace()] {
            let mut runner = TestRunner::new_with_rng(
                Config {
                    cases: 24,
                    failure_persistence: None,
                    ..Config::default()
                },
                TestRng::deterministic_rng(RngAlgorithm::XorShift),
            );
            let result = runner.run(&malformed_journal(d, &cfg), |m| {
                prop_assert_eq!(m.planted[0].defect, d);
                check_malformed(&m)
            });
            if let Err(e) = result {
                panic!("{d} ({}): {e}", cfg.profile.as_str());
            }
        }
    }
}

/// Shrinking keeps the defect: a property that fails on every journal of a class
/// shrinks to a two-event base that still carries that defect and its label.
#[test]
fn shrinking_keeps_the_defect() {
    for &d in Defect::all() {
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: 1,
                max_shrink_iters: 100_000,
                failure_persistence: None,
                ..Config::default()
            },
            TestRng::deterministic_rng(RngAlgorithm::XorShift),
        );
        match runner.run(&malformed_journal(d, &core()), |m| {
            prop_assert!(m.bytes.len() > usize::MAX / 2, "always fails");
            Ok(())
        }) {
            Err(TestError::Fail(_, m)) => {
                assert_eq!(m.planted[0].defect, d, "{}", m.describe());
                assert_eq!(m.expected.code, d.code());
                assert_eq!(m.base_events, 2, "{d}: base not shrunk: {}", m.describe());
                check_malformed(&m).unwrap_or_else(|e| panic!("{d}: {e}"));
            }
            other => panic!("{d}: {other:?}"),
        }
    }
}

#[test]
fn defect_classes_cover_every_error_code() {
    for &c in ErrorCode::ALL.iter().filter(|c| c.is_journal()) {
        assert!(
            Defect::all().iter().any(|d| d.code() == c),
            "no defect produces {c}"
        );
    }
    for &d in Defect::all() {
        assert_eq!(Defect::from_name(d.name()), Some(d));
    }
}

#[test]
fn parent_shapes_and_styles_are_all_reachable() {
    // Smoke check of the configuration knobs: each shape and the plain style build
    // journals the reference accepts.
    for shape in ParentShape::ALL {
        for richness in [Richness::Minimal, Richness::Typical, Richness::Hard] {
            let cfg = GenConfig {
                parents: Some(shape),
                richness,
                vary_style: false,
                ..GenConfig::default()
            };
            let mut runner = TestRunner::new_with_rng(
                Config {
                    cases: 8,
                    failure_persistence: None,
                    ..Config::default()
                },
                TestRng::deterministic_rng(RngAlgorithm::XorShift),
            );
            runner
                .run(&valid_journal(&cfg), |j| {
                    prop_assert_eq!(&j.style, &WriteStyle::plain());
                    let got = replay::replay(&j.bytes()[..], j.profile, None).unwrap();
                    prop_assert!(same_state(&got, &j.expected()));
                    Ok(())
                })
                .unwrap();
        }
    }
}

// ---------------------------------------------------------------------------------
// A deliberately broken reducer is caught, with a small counterexample.

#[derive(Clone, Copy, Debug)]
enum Bug {
    /// Ignores `final`: every content-less `model.response` (every streaming delta)
    /// adds its `accumulated` text.
    IgnoresFinal,
    /// Appends every streaming delta's `delta` text as a message of its own.
    AppendsDeltas,
}

/// The reference rules with one bug.
fn broken_replay(bytes: &[u8], profile: JournalProfile, bug: Bug) -> ReplayState {
    let mut users = Vec::new();
    let mut assistants = Vec::new();
    let mut tools = Vec::new();
    let mut stop = None;
    let mut values = Vec::new();
    let mut first: Option<(String, String)> = None;
    journal::read(bytes, profile, |ev| {
        first.get_or_insert_with(|| (ev.session_id.clone(), ev.run_id.clone()));
        let field = |k: &str| ev.value.get("payload").and_then(|p| p.get(k));
        let text = |k: &str, d: &str| field(k).and_then(Value::as_str).unwrap_or(d).to_owned();
        match ev.event_type.as_str() {
            "user.message" => users.push(text("content", "")),
            "model.response" => {
                if field("content").is_some() {
                    assistants.push(text("content", ""));
                } else {
                    match bug {
                        Bug::IgnoresFinal => assistants.push(text("accumulated", "")),
                        Bug::AppendsDeltas => {
                            if let Some(d) = field("delta").and_then(Value::as_str) {
                                assistants.push(d.to_owned());
                            }
                            if field("final") == Some(&Value::Bool(true)) {
                                assistants.push(text("accumulated", ""));
                            }
                        }
                    }
                }
            }
            "tool.result" => tools.push(ev.value.get("payload").cloned().unwrap_or(Value::Null)),
            "session.stop" => stop = Some(text("reason", "unknown")),
            _ => {}
        }
        values.push(ev.value.clone());
    })
    .unwrap();
    let (session_id, run_id) = first.unwrap_or_default();
    ReplayState {
        session_id,
        run_id,
        applied_sequences: (0..values.len() as u64).collect(),
        user_messages: users,
        assistant_messages: assistants,
        tool_results: tools,
        stop_reason: stop,
        fingerprint: journal_conformance::fingerprint::of_values(&values),
    }
}

#[test]
fn a_broken_reducer_is_caught_with_a_small_counterexample() {
    for bug in [Bug::IgnoresFinal, Bug::AppendsDeltas] {
        catch(bug);
    }
}

fn catch(bug: Bug) {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 500,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::XorShift),
    );
    let result = runner.run(&valid_journal(&GenConfig::default()), |j| {
        let got = broken_replay(&j.bytes(), j.profile, bug);
        prop_assert!(same_state(&got, &j.expected()));
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, minimal)) => {
            eprintln!(
                "broken reducer {bug:?}: minimal counterexample has {} events:\n{}",
                minimal.len(),
                String::from_utf8_lossy(&minimal.bytes())
            );
            assert!(
                minimal.len() <= 4,
                "shrunk counterexample too large: {} events",
                minimal.len()
            );
            assert!(!minimal.streams.is_empty());
        }
        Err(e) => panic!("unexpected runner error: {e}"),
        Ok(()) => panic!("the broken reducer {bug:?} passed the property"),
    }
}
