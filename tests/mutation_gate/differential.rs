//! Gate path 19: the differential phase's generated cases (SPEC.md 13.6, D-CASES-1). The
//! phase gives the reference and the implementation the same trial, so a phase that draws
//! the wrong cases agrees with itself: only what it asks, and the generator's labels, can
//! show it. Expected values: D-CASES-1's text (which operations and profiles are drawn)
//! and the generator's own labels (the defect it planted), never the reference's answer.

use super::*;

use std::collections::BTreeSet;

use journal_conformance::adapter::{reference, ImplInfo, Implementation, Reply};
use journal_conformance::differential::{self, DiffOptions};
use journal_conformance::ops::OpKind;

/// An implementation that answers as the reference does and records what it was asked.
struct Recording {
    info: ImplInfo,
    asked: Vec<(Operation, Profile, Vec<u8>)>,
}

impl Implementation for Recording {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        self.asked.push((op.clone(), profile, input.to_vec()));
        match reference::reference_answer(op, profile, input) {
            Ok(a) => Reply::Answer(a),
            Err(e) => Reply::Fault(e),
        }
    }
}

/// Run the phase (`test --properties cases --seed 1`) against a recording reference
/// whose handshake offers `operations` and `profiles`; what it was asked.
fn asked(operations: &[&str], profiles: &[&str], cases: u32) -> Vec<(Operation, Profile, Vec<u8>)> {
    let mut imp = Recording {
        info: ImplInfo {
            name: "recording".into(),
            version: "0".into(),
            language: "rust".into(),
            operations: operations.iter().map(|s| s.to_string()).collect(),
            profiles: profiles.iter().map(|s| s.to_string()).collect(),
        },
        asked: Vec::new(),
    };
    let known = BTreeSet::new();
    let report = differential::run(
        &mut imp,
        &DiffOptions {
            cases,
            seed: 1,
            fail_fast: false,
            partition: None,
            known_rules: &known,
            counterexamples: None,
            max_shrunk_kinds: 0,
            found_by: "the differential phase",
        },
    )
    .unwrap();
    assert_eq!(
        report.disagreeing, 0,
        "the reference disagrees with itself: {report:?}"
    );
    assert_eq!(
        report.compared, cases,
        "{operations:?} {profiles:?}: every generated case is one the handshake offers, \
         so every one is compared (D-CASES-1): {report:?}"
    );
    imp.asked
}

const JOURNAL_OPS: [&str; 4] = ["validate", "replay", "fingerprint", "branch"];

/// Gate path 19: D-CASES-1, "cases are drawn only for the operations (and profiles) the
/// handshake lists". Offered one operation alone, the phase asks that operation only, and
/// every one of its 40 cases; offered every operation and profile, it asks every
/// operation, each journal operation in both journal profiles (Trace 0.1 journals are
/// drawn when the handshake offers `trace-0.1`), and a valid journal's operation is chosen
/// evenly among the four journal operations (each at least an eighth of them).
#[test]
fn the_differential_phase_asks_what_the_handshake_offers() {
    let Some(_running) = fail_fast() else { return };
    let all_profiles = ["core", "trace-0.1", "yoagent-0.26"];
    for op in OpKind::ALL {
        let got = asked(&[op.as_str()], &all_profiles, 40);
        let other: BTreeSet<&str> = got
            .iter()
            .map(|(o, _, _)| o.name())
            .filter(|n| *n != op.as_str())
            .collect();
        assert!(
            other.is_empty(),
            "offered {} alone, it asked {other:?}",
            op.as_str()
        );
    }
    let ops: Vec<&str> = OpKind::ALL.iter().map(|k| k.as_str()).collect();
    let got = asked(&ops, &all_profiles, 300);
    let seen: BTreeSet<(&str, &str)> = got.iter().map(|(o, p, _)| (o.name(), p.as_str())).collect();
    for op in &ops {
        assert!(
            seen.iter().any(|(o, _)| o == op),
            "{op} never asked: {seen:?}"
        );
    }
    for op in JOURNAL_OPS {
        for p in ["core", "trace-0.1"] {
            assert!(seen.contains(&(op, p)), "{op} never asked in {p}: {seen:?}");
        }
    }
    let core_only = asked(&ops, &["core"], 40);
    assert!(
        core_only.iter().all(|(_, p, _)| *p == Profile::Core),
        "a profile the handshake does not list was asked"
    );
}

/// Gate path 19: the generator's labels against the reference. Every journal trial the
/// phase draws carries the generator's label: none for a valid journal (the reference must
/// answer it with a result), the planted defect's code for a malformed one (the reference
/// must report that code). A trial given the wrong profile or operation breaks it (a Trace
/// 0.1 journal read as core accepts its planted profile violations). A valid journal's
/// operation is chosen evenly among the offered journal operations (D-CASES-1's "valid 3:
/// validate, replay ..., fingerprint, branch"): each gets at least an eighth.
#[test]
fn the_generators_labels_are_the_references_answers() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::differential::{expectation, trials};
    use journal_conformance::generate::GenConfig;
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let ops: Vec<String> = OpKind::ALL.iter().map(|k| k.as_str().to_owned()).collect();
    let profiles: Vec<String> = ["core", "trace-0.1", "yoagent-0.26"]
        .map(String::from)
        .to_vec();
    let cfg = GenConfig {
        events: 1..=12,
        ..GenConfig::default()
    };
    let strategy = trials(&cfg, &ops, &profiles).unwrap();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[19; 32]),
    );
    let (mut labelled, mut valid, mut wrong) = (0, std::collections::BTreeMap::new(), Vec::new());
    let mut profiles_seen = BTreeSet::new();
    for _ in 0..800 {
        let t = strategy.new_tree(&mut runner).unwrap().current();
        let journal = JOURNAL_OPS.contains(&t.op.name());
        if !journal {
            continue;
        }
        profiles_seen.insert(t.profile.as_str());
        let want = expectation(&t).unwrap();
        match (&t.label, &want) {
            (Some(code), Expect::Error { codes, .. })
                if codes.iter().any(|c| c == code.as_str()) =>
            {
                labelled += 1
            }
            (None, Expect::Result { .. }) if t.origin.starts_with("a valid journal") => {
                *valid.entry(t.op.name()).or_insert(0) += 1
            }
            (label, _) => wrong.push(format!(
                "{} ({:?}, label {label:?}): the reference expects {want:?}",
                t.origin, t.profile
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(profiles_seen, BTreeSet::from(["core", "trace-0.1"]));
    let total: u32 = valid.values().sum();
    assert!(
        labelled > 100 && total > 100,
        "{labelled} malformed, {total} valid"
    );
    for op in JOURNAL_OPS {
        let n = valid.get(op).copied().unwrap_or(0);
        assert!(
            n * 8 >= total,
            "{op}: {n} of {total} valid journals: {valid:?}"
        );
    }
}

/// Gate path 19, a fuzz campaign's `--ops` (SPEC.md 13.7, FZ-CAMP-1): a new campaign first
/// replays every check of the conformance corpus, of the operations `--ops` selects, so
/// `--ops validate,replay` against `serve` replays exactly the corpus's `validate` and
/// `replay` checks (counted here from the embedded corpus) and
/// then runs its 20 generated executions; a campaign that selected nothing would replay
/// nothing and still say ok.
#[test]
fn a_fuzz_campaign_replays_the_checks_of_the_operations_it_is_given() {
    let Some(_running) = fail_fast() else { return };
    let cases: Vec<Case> = vectors::load_embedded().unwrap();
    let selected = |op: &Operation| matches!(op.name(), "validate" | "replay");
    let want = cases
        .iter()
        .flat_map(|c| &c.checks)
        .filter(|k| selected(&k.op))
        .count() as i64;
    let dir = tempfile::tempdir().unwrap();
    let findings = dir.path().join("findings");
    let serve = format!("{BIN} serve");
    let out = run(&[
        "fuzz",
        "--adapter",
        &serve,
        "--runs",
        "20",
        "--ops",
        "validate,replay",
        "--findings",
        findings.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = json::parse(stdout.lines().last().unwrap_or("")).unwrap();
    let count = |k: &str| summary.get(k).and_then(Value::as_i64);
    assert_eq!(count("replayed"), Some(want), "{stdout}");
    assert_eq!(count("executions"), Some(want + 20), "{stdout}");
    assert_eq!(summary.get("verdict").and_then(Value::as_str), Some("ok"));
}

/// Gate path 19, the command-line generator (`generate`): the vectors it writes beside
/// its journals carry the generator's own expectations (its model of the journal: the
/// fingerprint of the events it built, the projection, the planted defect's label), and
/// they must be what the reference answers. Valid core and Trace 0.1 journals, journals
/// with several defects (labelled by J-ORDER-1) and profile violations, run with `test
/// --corpus DIR`: every one of the 55 generated cases (and the 2 golden traces) passes.
#[test]
fn generated_vectors_pass_the_reference() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let sub = dir.path().join("t");
    let sub = sub.to_str().unwrap();
    for (args, into) in [
        (vec!["--count", "20", "--seed", "3"], out),
        (
            vec![
                "--kind",
                "mixed",
                "--count",
                "20",
                "--seed",
                "3",
                "--profile",
                "trace-0.1",
            ],
            out,
        ),
        (
            vec!["--kind", "profile-violation", "--count", "5", "--seed", "3"],
            out,
        ),
        (
            vec!["--count", "10", "--seed", "4", "--profile", "trace-0.1"],
            sub,
        ),
    ] {
        let argv: Vec<&str> = ["generate"]
            .into_iter()
            .chain(args)
            .chain(["--out", into])
            .collect();
        let o = run(&argv);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{argv:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let args = ["test", "--corpus", out, "--format", "terse"];
    let o = run(&args);
    assert_passed(&args, &o);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("checked 57 of 57 cases selected"),
        "{stdout}"
    );
}
