//! The differential phase (SPEC.md 13.4) against adapters with planted faults
//! (tests/fakes/fake_adapter.py, and in-process fakes wrapping the reference): it
//! keeps going, tells independent faults apart, attributes each to its rule, does not
//! let a known rule hide another, covers trees, `canonical` and stores, and never
//! shrinks an adapter fault.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use journal_conformance::adapter::{
    ImplInfo, Implementation, Limits, Persistent, Reference, Reply,
};
use journal_conformance::differential::{self, DiffOptions, DiffReport, Kind, Trial};
use journal_conformance::ops::{Operation, Profile};
use journal_conformance::record::Outcome;
use journal_conformance::runner::run_case;
use journal_conformance::vectors;
use journal_conformance::verdict::Answer;
use journal_conformance::verdict::Cause;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn fake(mode: &str) -> Persistent {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_adapter.py");
    let cmd = format!("python3 {} {mode} {BIN}", script.display());
    Persistent::start(&cmd, Limits::with_timeout(Duration::from_secs(10))).expect("the fake starts")
}

fn opts<'a>(cases: u32, seed: u64, known: &'a BTreeSet<String>) -> DiffOptions<'a> {
    DiffOptions {
        cases,
        seed,
        fail_fast: false,
        partition: None,
        known_rules: known,
        counterexamples: None,
        max_shrunk_kinds: 16,
        found_by: "the differential phase",
    }
}

fn kinds_of<'a>(r: &'a DiffReport, rule: &str) -> Vec<&'a Kind> {
    r.kinds.iter().filter(|k| k.rule.id() == rule).collect()
}

fn summary(r: &DiffReport) -> String {
    let mut s = format!(
        "generated {} compared {} disagreeing {} errored {} skipped {:?}\n",
        r.generated, r.compared, r.disagreeing, r.errored, r.skipped_ops
    );
    for k in &r.kinds {
        s.push_str(&format!(
            "  {} {} {:?} {} known={}: {}\n",
            k.id, k.cause, k.rule, k.detail, k.known, k.explanation
        ));
    }
    s
}

#[test]
fn two_independent_faults_give_two_kinds_and_two_counterexamples() {
    let dir = std::env::temp_dir().join(format!("jc-diff-two-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let none = BTreeSet::new();
    let mut imp = fake("wrong-stop+accept-gaps");
    let mut o = opts(200, 11, &none);
    o.counterexamples = Some(&dir);
    let r = differential::run(&mut imp, &o).unwrap();
    let s = summary(&r);
    // It kept going: every generated case was compared, many disagree.
    assert_eq!(r.generated, 200, "{s}");
    assert_eq!(r.compared, 200, "{s}");
    assert_eq!(r.errored, 0, "{s}");
    assert!(r.disagreeing > 10, "{s}");
    let stop = kinds_of(&r, "R-STOP-1");
    let gaps = kinds_of(&r, "J-SEQ-1");
    assert!(!stop.is_empty() && !gaps.is_empty(), "{s}");
    assert!(
        stop.iter().all(|k| k.op == "replay"
            && k.cause == Cause::WrongResult
            && k.detail == "/stop_reason"),
        "{s}"
    );
    assert!(
        gaps.iter().all(|k| k.cause == Cause::ResultInsteadOfError
            && k.detail == "expected sequence_gap, got a result"),
        "{s}"
    );
    // No other rule is blamed.
    assert_eq!(stop.len() + gaps.len(), r.kinds.len(), "{s}");
    let total: u32 = r.kinds.iter().map(|k| k.occurrences).sum();
    assert_eq!(total, r.disagreeing, "{s}");
    // Every kind is written as a vector that passes the reference and fails the fake;
    // the ids in the files are the kind ids.
    let cases = vectors::load_dir(&dir).unwrap();
    assert_eq!(cases.len(), r.kinds.len(), "{s}");
    let mut reference = Reference::default();
    for k in &r.kinds {
        assert!(k.path.as_ref().is_some_and(|p| p.exists()), "{s}");
        assert!(
            k.id.starts_with(&format!("properties/{}/", k.op)),
            "{}",
            k.id
        );
        let case = cases
            .iter()
            .find(|c| c.id == k.id)
            .unwrap_or_else(|| panic!("{} not written", k.id));
        assert_eq!(
            run_case(&mut reference, case).outcome,
            Outcome::Passed,
            "{}",
            k.id
        );
        assert_eq!(
            run_case(&mut imp, case).outcome,
            Outcome::Failed,
            "{}",
            k.id
        );
        // Shrinking kept the kind: the counterexample is classified as its kind.
        let check = &case.checks[0];
        let trial = Trial {
            input: case.input.clone(),
            op: check.op.clone(),
            profile: case.profile,
            origin: String::new(),
            planted: vec![],
            label: None,
            label_rule: None,
        };
        let Reply::Answer(answer) = imp.run(&check.op, case.profile, &case.input) else {
            panic!("no answer")
        };
        let d = differential::classify(&trial, &check.expect, &answer, &none).unwrap();
        assert_eq!((d.cause, d.rule), (k.cause, Some(k.rule)));
        // Shrunk: a stop-reason counterexample is one short journal.
        if k.rule.id() == "R-STOP-1" {
            let lines = case
                .input
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count();
            assert!(
                lines <= 2,
                "not shrunk: {:?}",
                String::from_utf8_lossy(&case.input)
            );
        }
    }
    // The same run again gives the same ids (stable for a given counterexample).
    let again = differential::run(&mut imp, &opts(200, 11, &none)).unwrap();
    let ids = |r: &DiffReport| r.kinds.iter().map(|k| k.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&r));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_known_rule_does_not_hide_a_fault_of_another_rule() {
    let occurrences = |r: &DiffReport, rule: &str| -> u32 {
        kinds_of(r, rule).iter().map(|k| k.occurrences).sum()
    };
    let none = BTreeSet::new();
    let known: BTreeSet<String> = ["R-TOOL-1".to_owned()].into();
    // Dropped tool results alone, on the skip list: known, not failed.
    let r = differential::run(&mut fake("drop-tools"), &opts(150, 5, &known)).unwrap();
    assert!(!r.kinds.is_empty(), "{}", summary(&r));
    assert!(
        r.kinds.iter().all(|k| k.known && k.rule.id() == "R-TOOL-1"),
        "{}",
        summary(&r)
    );
    // Wrong stop reasons (every replay) and accepted gaps, nothing on the list.
    let plain =
        differential::run(&mut fake("wrong-stop+accept-gaps"), &opts(150, 5, &none)).unwrap();
    // The same plus dropped tool results on the list. A replay with a tool result
    // differs FIRST at /tool_results; it must still count against R-STOP-1.
    let r = differential::run(
        &mut fake("drop-tools+wrong-stop+accept-gaps"),
        &opts(150, 5, &known),
    )
    .unwrap();
    let s = summary(&r);
    assert!(occurrences(&plain, "R-STOP-1") > 0, "{}", summary(&plain));
    assert_eq!(
        occurrences(&r, "R-STOP-1"),
        occurrences(&plain, "R-STOP-1"),
        "a known rule hid stop-reason faults:\n{s}\nwithout it:\n{}",
        summary(&plain)
    );
    assert_eq!(
        occurrences(&r, "J-SEQ-1"),
        occurrences(&plain, "J-SEQ-1"),
        "{s}"
    );
    for k in &r.kinds {
        assert_eq!(k.known, k.rule.id() == "R-TOOL-1", "{s}");
    }
}

#[test]
fn tree_canonical_and_store_faults_are_found_by_the_new_generators() {
    let none = BTreeSet::new();
    let mut imp = fake("tree-tips-reversed+tree-save-newline+canonical-ascii+store-dup-false");
    let r = differential::run(&mut imp, &opts(300, 3, &none)).unwrap();
    let s = summary(&r);
    let has = |op: &str, rule: &str, detail: &str| {
        r.kinds
            .iter()
            .any(|k| k.op == op && k.rule.id() == rule && k.detail.starts_with(detail))
    };
    assert!(has("tree_inspect", "T-TIPS-1", "/"), "{s}");
    assert!(has("tree_apply", "T-SAVE-1", "/tree"), "{s}");
    assert!(has("canonical", "C-STR-2", "/"), "{s}");
    // The store fault is its own kind, or (D-CONSEQ-2) merged into another operation's
    // kind whose shrunk input is the same bytes (the empty input, say).
    let merged = r
        .kinds
        .iter()
        .any(|k| k.consequences.iter().any(|c| c.starts_with("store_apply ")));
    assert!(has("store_apply", "S-DUP-1", "/results/") || merged, "{s}");
    assert_eq!(r.kinds.len() + usize::from(merged), 4, "{s}");
    let mut reference = Reference::default();
    for k in &r.kinds {
        assert_eq!(
            run_case(&mut reference, &k.counterexample).outcome,
            Outcome::Passed,
            "{}",
            k.id
        );
        assert_eq!(
            run_case(&mut imp, &k.counterexample).outcome,
            Outcome::Failed,
            "{}",
            k.id
        );
    }
}

#[test]
fn a_crashing_adapter_is_errored_not_shrunk_and_stops_the_phase() {
    let none = BTreeSet::new();
    let mut imp = fake("crash");
    let start = std::time::Instant::now();
    let r = differential::run(&mut imp, &opts(256, 1, &none)).unwrap();
    let s = summary(&r);
    assert_eq!(r.errored, differential::MAX_CONSECUTIVE_FAULTS, "{s}");
    assert_eq!((r.compared, r.disagreeing), (0, 0), "{s}");
    assert!(r.kinds.is_empty(), "an adapter fault is never a kind: {s}");
    assert!(
        r.generated < 256,
        "the phase must stop on a dead adapter: {s}"
    );
    let (op, why) = r.skipped_ops.last().unwrap();
    assert_eq!(op, "*");
    assert!(why.contains("adapter faults in a row"), "{why}");
    // Not a minute of shrinking (a generous bound; the phase takes about a second).
    assert!(start.elapsed() < Duration::from_secs(60), "{s}");
    // One crash is one errored check; the phase goes on after it.
    let dir = std::env::temp_dir().join(format!("jc-diff-crash-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_adapter.py");
    let cmd = format!(
        "env FAKE_STATE={} python3 {} crash-once {BIN}",
        state.display(),
        script.display()
    );
    let mut imp = Persistent::start(&cmd, Limits::with_timeout(Duration::from_secs(10))).unwrap();
    let r = differential::run(&mut imp, &opts(40, 1, &none)).unwrap();
    assert_eq!(
        (r.generated, r.errored, r.compared),
        (40, 1, 39),
        "{}",
        summary(&r)
    );
    assert!(r.kinds.is_empty(), "{}", summary(&r));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn operations_the_handshake_does_not_offer_are_skipped_with_the_reason() {
    let none = BTreeSet::new();
    let mut imp = fake("no-canonical");
    let r = differential::run(&mut imp, &opts(60, 3, &none)).unwrap();
    assert!(
        r.skipped_ops
            .iter()
            .any(|(op, why)| op == "canonical" && why.contains("handshake")),
        "{}",
        summary(&r)
    );
    assert_eq!(
        r.compared, r.generated,
        "nothing generated that cannot be compared"
    );
    assert!(r.kinds.is_empty(), "{}", summary(&r));
}

/// The reference with one planted fault, in process (fast: no adapter process).
struct Faulty {
    inner: Reference,
    info: ImplInfo,
    fault: fn(&Operation, Answer) -> Answer,
}

impl Faulty {
    fn new(fault: fn(&Operation, Answer) -> Answer) -> Faulty {
        let inner = Reference::default();
        let info = inner.info().clone();
        Faulty { inner, info, fault }
    }
}

impl Implementation for Faulty {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        match self.inner.run(op, profile, input) {
            Reply::Answer(a) => Reply::Answer((self.fault)(op, a)),
            other => other,
        }
    }
}

/// Reports every error one line late: a location-only mismatch.
fn late_lines(_: &Operation, a: Answer) -> Answer {
    match a {
        Answer::Error {
            code,
            line,
            sequence,
            index,
            message,
        } => Answer::Error {
            code,
            line: line.map(|l| l + 1),
            sequence,
            index,
            message,
        },
        other => other,
    }
}

#[test]
fn shards_cover_exactly_the_unsharded_run() {
    let none = BTreeSet::new();
    let whole = differential::run(&mut Faulty::new(late_lines), &opts(90, 9, &none)).unwrap();
    assert!(whole.disagreeing > 0, "{}", summary(&whole));
    assert!(
        whole.kinds.iter().all(|k| k.cause == Cause::WrongLocation),
        "{}",
        summary(&whole)
    );
    let (mut generated, mut disagreeing, mut occurrences) = (0, 0, 0);
    for k in 1..=3 {
        let mut o = opts(90, 9, &none);
        o.partition = Some((k, 3));
        let part = differential::run(&mut Faulty::new(late_lines), &o).unwrap();
        assert_eq!(part.generated, 30);
        generated += part.generated;
        disagreeing += part.disagreeing;
        occurrences += part.kinds.iter().map(|k| k.occurrences).sum::<u32>();
    }
    assert_eq!(generated, whole.generated);
    assert_eq!(disagreeing, whole.disagreeing);
    assert_eq!(occurrences, whole.disagreeing);
}

#[test]
fn fail_fast_stops_at_the_first_disagreement_and_the_cap_limits_shrinking() {
    let none = BTreeSet::new();
    let mut o = opts(90, 9, &none);
    o.fail_fast = true;
    let r = differential::run(&mut Faulty::new(late_lines), &o).unwrap();
    assert_eq!(r.disagreeing, 1, "{}", summary(&r));
    assert_eq!(r.kinds.len(), 1);
    assert!(r.generated < 90);
    // With a cap of 0, kinds are reported with their first, unshrunk case.
    let mut o = opts(90, 9, &none);
    o.max_shrunk_kinds = 0;
    let r = differential::run(&mut Faulty::new(late_lines), &o).unwrap();
    assert!(
        r.kinds.iter().all(|k| k.explanation.contains("unshrunk")),
        "{}",
        summary(&r)
    );
}

#[test]
fn an_answer_that_agrees_is_no_kind_whatever_the_value() {
    // The reference against itself: every case compared, none disagreeing.
    let none = BTreeSet::new();
    let r = differential::run(&mut Reference::default(), &opts(120, 4, &none)).unwrap();
    assert_eq!(
        (r.generated, r.compared, r.disagreeing, r.errored),
        (120, 120, 0, 0)
    );
    assert!(r.skipped_ops.is_empty(), "{:?}", r.skipped_ops);
}

/// A reader decision: blank lines are skipped before anything else reads the journal
/// (what `if not line.strip(): continue` does), so validate, replay, fingerprint and
/// branch all see the same other journal.
struct SkipsBlankLines {
    inner: Reference,
    info: ImplInfo,
}

impl Implementation for SkipsBlankLines {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let journal_op = matches!(
            op,
            Operation::Validate
                | Operation::Replay { .. }
                | Operation::Fingerprint { .. }
                | Operation::Branch { .. }
        );
        if !journal_op {
            return self.inner.run(op, profile, input);
        }
        let kept: Vec<u8> = input
            .split_inclusive(|b| *b == b'\n')
            .filter(|l| !l.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')))
            .flatten()
            .copied()
            .collect();
        self.inner.run(op, profile, &kept)
    }
}

/// D-CONSEQ-1: the one reader decision is found in validate, and the replay,
/// fingerprint and branch kinds it causes are folded into validate's kinds (none is a
/// kind of its own); with the rule of validate's kind on the skip list, nothing fails.
#[test]
fn a_reader_decision_is_one_kind_across_the_journal_operations() {
    let none = BTreeSet::new();
    let mut imp = SkipsBlankLines {
        inner: Reference::default(),
        info: Reference::default().info().clone(),
    };
    let r = differential::run(&mut imp, &opts(400, 1, &none)).unwrap();
    let s = summary(&r);
    assert!(!r.kinds.is_empty(), "{s}");
    for k in &r.kinds {
        assert_eq!(
            k.op, "validate",
            "a later operation's kind was not folded:\n{s}"
        );
    }
    let folded: Vec<&String> = r.kinds.iter().flat_map(|k| &k.consequences).collect();
    for op in ["replay", "fingerprint", "branch"] {
        assert!(
            folded
                .iter()
                .any(|c| c.starts_with(&format!("{op} properties/{op}/"))),
            "no {op} kind was folded (the phase found none to fold?):\n{s}"
        );
    }
    for k in r.kinds.iter().filter(|k| !k.consequences.is_empty()) {
        assert!(k.explanation.contains("also explains"), "{s}");
    }
    // The skip list names validate's rules: their consequences are known with them.
    let known: BTreeSet<String> = r.kinds.iter().map(|k| k.rule.id().to_owned()).collect();
    let r = differential::run(&mut imp, &opts(400, 7, &known)).unwrap();
    assert!(r.kinds.iter().all(|k| k.known), "{}", summary(&r));
}

/// A decision of replay and fingerprint alike (not of validate): both read one event
/// fewer than the journal holds when it holds two or more lines (a reader that stops
/// before the last line). Validate, branch and the rest are the reference's.
struct DropsTheLastLine {
    inner: Reference,
    info: ImplInfo,
}

impl Implementation for DropsTheLastLine {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let whole = matches!(
            op,
            Operation::Replay { until: None } | Operation::Fingerprint { until: None }
        );
        let lines: Vec<&[u8]> = input.split_inclusive(|b| *b == b'\n').collect();
        if !whole || lines.len() < 2 {
            return self.inner.run(op, profile, input);
        }
        let kept = lines[..lines.len() - 1].concat();
        self.inner.run(op, profile, &kept)
    }
}

/// D-CONSEQ-2: kinds of two operations whose shrunk inputs are the same bytes are one
/// decision, the earlier operation's (replay before fingerprint), with the other listed
/// as its consequence; and a kind of one operation is never merged into another of it.
#[test]
fn kinds_of_two_operations_with_one_shrunk_input_are_one_decision() {
    let none = BTreeSet::new();
    let mut imp = DropsTheLastLine {
        inner: Reference::default(),
        info: Reference::default().info().clone(),
    };
    let r = differential::run(&mut imp, &opts(300, 5, &none)).unwrap();
    let s = summary(&r);
    assert!(!r.kinds.is_empty(), "{s}");
    let merged: Vec<&Kind> = r
        .kinds
        .iter()
        .filter(|k| k.consequences.iter().any(|c| c.starts_with("fingerprint ")))
        .collect();
    assert!(!merged.is_empty(), "no fingerprint kind merged:\n{s}");
    for k in &merged {
        assert_eq!(k.op, "replay", "{s}");
        assert!(
            k.explanation.contains("its shrunk input is this kind's"),
            "{s}"
        );
    }
    // Whatever is left of fingerprint has an input no replay kind has.
    for f in r.kinds.iter().filter(|k| k.op == "fingerprint") {
        assert!(
            !r.kinds
                .iter()
                .any(|k| k.op == "replay" && k.counterexample.input == f.counterexample.input),
            "{s}"
        );
    }
}

/// A port of yoagent's session that does not know serde's aliases (`cache_read` for
/// `cacheRead`, ...): it reads them as unknown members, so the usage counts default to 0.
struct KnowsNoAliases {
    inner: Reference,
    info: ImplInfo,
}

impl Implementation for KnowsNoAliases {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(input);
        let mut plain = text.into_owned();
        for alias in ["cache_read", "cache_write", "total_tokens", "error_message"] {
            plain = plain.replace(&format!("\"{alias}\""), &format!("\"x_{alias}\""));
        }
        self.inner.run(op, profile, plain.as_bytes())
    }
}

/// The differential phase generates `yoagent-0.26` session files (with aliases, unknown
/// members, odd whitespace and member orders) for an adapter whose handshake offers the
/// dialect, so a port that misses one of the dialect's quirks is found without a vector.
#[test]
fn the_differential_phase_generates_yoagent_sessions_for_the_dialect() {
    let none = BTreeSet::new();
    let mut info = Reference::default().info().clone();
    info.operations = vec!["tree_inspect".into(), "tree_apply".into()];
    info.profiles = vec!["yoagent-0.26".into()];
    let mut imp = KnowsNoAliases {
        inner: Reference::default(),
        info,
    };
    let r = differential::run(&mut imp, &opts(300, 7, &none)).unwrap();
    let s = summary(&r);
    // Half the tree trials are the generic format's (`core`), which it does not offer.
    assert!(r.compared >= 100, "{s}");
    assert!(
        !r.kinds.is_empty(),
        "the missing aliases were not found:\n{s}"
    );
    for k in &r.kinds {
        assert_eq!(k.counterexample.profile, Profile::Yoagent026, "{s}");
        let input = String::from_utf8_lossy(&k.counterexample.input);
        assert!(
            ["cache_read", "cache_write", "total_tokens", "error_message"]
                .iter()
                .any(|a| input.contains(a)),
            "a kind without an alias in its input: {input}\n{s}"
        );
    }
}
