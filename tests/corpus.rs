//! The corpus itself: it loads strictly, the reference passes every case, every SPEC
//! rule has a vector (V-COVER-1), and vectors only name rules and codes that exist.

use std::collections::BTreeSet;
use std::path::Path;

use journal_conformance::adapter::Reference;
use journal_conformance::record::Outcome;
use journal_conformance::runner::{load_corpus, run_case};
use journal_conformance::vectors;
use journal_conformance::verdict::Expect;
use journal_conformance::ErrorCode;

fn spec_rule_ids() -> BTreeSet<String> {
    let spec =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("SPEC.md")).unwrap();
    let mut ids = BTreeSet::new();
    let mut rest = spec.as_str();
    while let Some(i) = rest.find("**[") {
        rest = &rest[i + 3..];
        if let Some(j) = rest.find("]**") {
            let id = &rest[..j];
            if id
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
                && id.contains('-')
            {
                ids.insert(id.to_owned());
            }
        }
    }
    ids
}

#[test]
fn spec_defines_rules() {
    let ids = spec_rule_ids();
    assert!(
        ids.len() > 50,
        "found only {} rule ids in SPEC.md",
        ids.len()
    );
    for must in [
        "J-SEQ-1",
        "C-NUM-5",
        "R-STREAM-1",
        "F-FP-1",
        "B-ID-2",
        "A-RUN-1",
        "V-CASE-1",
    ] {
        assert!(ids.contains(must), "{must} missing");
    }
}

#[test]
fn reference_passes_every_case() {
    let cases = load_corpus(None).unwrap();
    assert!(
        cases.len() >= 300,
        "the corpus has only {} cases",
        cases.len()
    );
    let mut reference = Reference::default();
    let mut failures = Vec::new();
    for case in &cases {
        let rec = run_case(&mut reference, case);
        if rec.outcome != Outcome::Passed {
            failures.push(format!("{}: {:?}: {}", rec.id, rec.outcome, rec.message));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn embedded_corpus_equals_the_directory() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let on_disk = vectors::load_dir(&dir).unwrap();
    let embedded = vectors::load_embedded().unwrap();
    assert_eq!(on_disk.len(), embedded.len());
    for (a, b) in on_disk.iter().zip(&embedded) {
        assert_eq!(a, b);
    }
}

/// Rules that are about the runner, the CLI, the protocol or the vector format are
/// exercised by the Rust tests of those parts rather than by vectors; so are the store
/// rules that need a crash, a lock, an injected fault or a corrupted checkpoint
/// (tests/store.rs, tests/store_crash.rs), or a special file (S-FILE-1:
/// tests/hostile_inputs.rs; `store_apply` runs on scratch files); the mutation gate
/// checks those of them it can on the corpus's journals (tests/mutation_gate.rs, paths
/// 4, 16 and 17).
const NOT_VECTOR_RULES: &[&str] = &[
    // Fuzz campaigns (13.7): tests/campaign.rs and the campaign module's unit tests.
    "FZ-CAMP-1",
    "FZ-MUT-1",
    "FZ-SIG-1",
    "FZ-CORPUS-1",
    "FZ-FIND-1",
    "FZ-SHRINK-1",
    "FZ-PROG-1",
    "Q-SCALE-1",
    "Q-SCALE-2",
    // test --scale: runner::complexity's unit test and tests/scale.rs.
    "Q-SCALE-3",
    "K-IGNORE-1",
    "S-FILE-1",
    "S-ACK-1",
    "S-FAULT-1",
    "S-RECOVER-2",
    "S-WRITER-1",
    "X-EXIT-1",
    "A-REQ-1",
    "G-2",
    "X-STDIN-1",
    "X-JSON-1",
    "V-FILE-1",
    "V-CASE-1",
    "V-EXPECT-1",
    "V-LEVEL-1",
    "V-INVALID-1",
    "V-COVER-1",
    "A-START-1",
    "A-RUN-1",
    "A-SKIP-1",
    "A-STOP-1",
    "A-FAULT-1",
    "A-ONESHOT-1",
    "A-GROUP-1",
    "A-LIMIT-1",
    "A-DEAD-1",
    "V-SKIP-1",
    "X-SELECT-1",
    "X-VERDICT-1",
    // Decisions: src/decisions.rs's tests and tests/decisions.rs.
    "X-DECIDE-1",
    // Reports as evidence and their merge: tests/evidence.rs.
    "X-EVIDENCE-1",
    "X-MERGE-1",
    "C-IMPL-1",
    "F-FP-3",
    "J-LOC-1",
    // The differential phase (SPEC.md 13.6): tests/differential.rs, and what it draws
    // (D-CASES-1) in gate path 19, tests/mutation_gate/differential.rs.
    "D-CASES-1",
    "D-KIND-1",
    "D-ATTR-1",
    "D-KNOWN-1",
    "D-SHRINK-1",
    "D-KEEP-1",
    "D-CONSEQ-1",
    "D-CONSEQ-2",
    "D-FAULT-1",
];

#[test]
fn every_rule_has_a_vector_and_vectors_name_real_rules() {
    let spec = spec_rule_ids();
    let cases = load_corpus(None).unwrap();
    let mut used = BTreeSet::new();
    for c in &cases {
        for r in &c.rules {
            assert!(
                spec.contains(r),
                "{} names rule {r}, which SPEC.md does not define",
                c.id
            );
            used.insert(r.clone());
        }
    }
    let missing: Vec<_> = spec
        .iter()
        .filter(|r| !used.contains(*r) && !NOT_VECTOR_RULES.contains(&r.as_str()))
        .collect();
    assert!(missing.is_empty(), "rules without a vector: {missing:?}");
}

#[test]
fn expected_codes_are_known() {
    for c in load_corpus(None).unwrap() {
        for ch in &c.checks {
            if let Expect::Error { codes, .. } = &ch.expect {
                for code in codes {
                    assert!(
                        ErrorCode::from_str_code(code).is_some(),
                        "{}: unknown code {code}",
                        c.id
                    );
                }
            }
        }
    }
}

#[test]
fn vector_files_are_strict() {
    let read = |_: &str| -> Result<Vec<u8>, String> { Err("no files".into()) };
    let ok = r#"{"cases":[{"name":"a","description":"d","rules":["J-SEQ-1"],"input":"","checks":[{"op":{"op":"validate"},"expect":{"error":{"code":"empty_journal"}}}]}]}"#;
    assert_eq!(vectors::parse_file(ok, "g", &read).unwrap().len(), 1);
    for (bad, why) in [
        (ok.replace("\"name\":\"a\"", "\"name\":\"a\",\"colour\":1"), "unknown case member"),
        (ok.replace("{\"cases\":", "{\"version\":1,\"cases\":"), "unknown top-level member"),
        (ok.replace("\"code\":\"empty_journal\"", "\"code\":\"empty_journal\",\"col\":1"), "unknown error member"),
        (ok.replace("{\"op\":\"validate\"}", "{\"op\":\"validate\",\"until\":1}"), "unknown op member"),
        (ok.replace("\"input\":\"\"", "\"input\":\"\",\"input_base64\":\"\""), "two inputs"),
        (ok.replace("\"name\":\"a\"", "\"name\":\"A b\""), "bad name"),
        (ok.replace("[\"J-SEQ-1\"]", "[]"), "no rules"),
        (ok.replace("\"level\"", "x").replace("\"rules\"", "\"level\":\"may\",\"rules\""), "bad level"),
        (ok.replace("\"checks\":[{\"op\":{\"op\":\"validate\"},\"expect\":{\"error\":{\"code\":\"empty_journal\"}}}]", "\"checks\":[]"), "no checks"),
        // Caught by the `vectors` fuzz target's write-back invariant: a negative line wrapped to
        // u64::MAX, which to_file_json wrote back as an integer the loader then refused.
        (ok.replace("\"code\":\"empty_journal\"", "\"code\":\"empty_journal\",\"line\":-1"), "negative line"),
        (ok.replace("\"code\":\"empty_journal\"", "\"code\":\"empty_journal\",\"index\":-2"), "negative index"),
    ] {
        assert!(vectors::parse_file(&bad, "g", &read).is_err(), "accepted: {why}");
    }
}

#[test]
fn operations_round_trip_through_json() {
    for c in load_corpus(None).unwrap() {
        for ch in &c.checks {
            let back = journal_conformance::ops::Operation::from_json(&ch.op.to_json()).unwrap();
            assert_eq!(back, ch.op, "{}", c.id);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Multiplicity and order (issue 12 item 7), derived from the vectors' INPUTS: for every
// rule that accumulates or where the last one wins, the corpus has a replayed selection in
// which it applies zero times, once, and at least twice with pairwise distinct values; and
// each expected ReplayState agrees with what the input says (how many messages, tool
// results, which stop reason), so a vector whose expectation went stale fails here.

use journal_conformance::canonical;
use journal_conformance::json::{self, Value};
use journal_conformance::ops::Operation;
use std::collections::BTreeMap;

/// What each reducer rule contributes for one selected event, by rule (and sub-rule).
fn contributions(events: &[Value]) -> BTreeMap<&'static str, Vec<String>> {
    let mut out: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for k in [
        "R-USER-1",
        "R-STREAM-1/content",
        "R-STREAM-1/final",
        "R-STREAM-1/delta",
        "R-TOOL-1",
        "R-STOP-1",
        "R-OTHER-1",
    ] {
        out.insert(k, Vec::new());
    }
    let s = |v: Option<&Value>, dflt: &str| v.and_then(Value::as_str).unwrap_or(dflt).to_owned();
    for e in events {
        let p = e.get("payload").unwrap();
        let (rule, value) = match e.get("type").and_then(Value::as_str).unwrap() {
            "user.message" => ("R-USER-1", s(p.get("content"), "")),
            "model.response" if p.get("content").is_some() => {
                ("R-STREAM-1/content", s(p.get("content"), ""))
            }
            "model.response" if p.get("final") == Some(&Value::Bool(true)) => {
                ("R-STREAM-1/final", s(p.get("accumulated"), ""))
            }
            "model.response" => (
                "R-STREAM-1/delta",
                canonical::to_string(p.get("accumulated").unwrap_or(&Value::Null)),
            ),
            "tool.result" => ("R-TOOL-1", canonical::to_string(p)),
            "session.stop" => ("R-STOP-1", s(p.get("reason"), "unknown")),
            _ => ("R-OTHER-1", canonical::to_string(e)),
        };
        out.get_mut(rule).unwrap().push(value);
    }
    out
}

fn journal_events(input: &[u8]) -> Vec<Value> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last() == Some(&&b""[..]) {
        lines.pop();
    }
    lines
        .iter()
        .map(|l| json::parse_bytes(l).expect("a replayed vector's line parses"))
        .collect()
}

#[test]
fn reducer_rules_have_zero_one_and_many_distinct_occurrences() {
    // rule -> (seen zero, seen once, seen >= 2 with pairwise distinct values)
    let mut seen: BTreeMap<&'static str, [Option<String>; 3]> = BTreeMap::new();
    let mut checked = 0;
    for c in load_corpus(None).unwrap() {
        for ch in &c.checks {
            let (Operation::Replay { until }, Expect::Result { value, .. }) = (&ch.op, &ch.expect)
            else {
                continue;
            };
            let events = journal_events(&c.input);
            let n = until.map_or(events.len(), |u| u as usize + 1);
            let got = contributions(&events[..n]);
            // The expectation agrees with the input.
            let arr = |k: &str| value.get(k).and_then(Value::as_array).unwrap().len();
            assert_eq!(arr("user_messages"), got["R-USER-1"].len(), "{}", c.id);
            assert_eq!(
                arr("assistant_messages"),
                got["R-STREAM-1/content"].len() + got["R-STREAM-1/final"].len(),
                "{}",
                c.id
            );
            assert_eq!(arr("tool_results"), got["R-TOOL-1"].len(), "{}", c.id);
            assert_eq!(
                value.get("stop_reason").and_then(Value::as_str),
                got["R-STOP-1"].last().map(String::as_str),
                "{}: the last stop wins",
                c.id
            );
            assert_eq!(
                value
                    .get("applied_sequences")
                    .and_then(Value::as_array)
                    .unwrap()
                    .len(),
                n,
                "{}",
                c.id
            );
            checked += 1;
            for (rule, values) in got {
                let slot = seen.entry(rule).or_default();
                let distinct = values.iter().collect::<BTreeSet<_>>().len() == values.len();
                let k = match values.len() {
                    0 => 0,
                    1 => 1,
                    _ if distinct => 2,
                    _ => continue,
                };
                slot[k].get_or_insert_with(|| c.id.clone());
            }
        }
    }
    assert!(checked > 50, "only {checked} replay checks");
    let mut missing = Vec::new();
    for (rule, slots) in &seen {
        for (k, what) in ["zero", "one", "two or more distinct"].iter().enumerate() {
            if slots[k].is_none() {
                missing.push(format!("{rule}: {what}"));
            }
        }
    }
    assert_eq!(seen.len(), 7);
    assert!(missing.is_empty(), "no replayed vector with: {missing:?}");
}

/// The tree steps that can fail, with every code each can fail with (T-ERR-1).
const FAILING_STEPS: &[(&str, &str)] = &[
    ("append", "nesting_too_deep"),
    ("append", "id_space_exhausted"),
    ("seek", "unknown_entry"),
    ("checkpoint", "empty_session"),
    ("seek_checkpoint", "unknown_checkpoint"),
    ("append_new", "history_diverged"),
    ("append_new", "nesting_too_deep"),
    ("append_new", "id_space_exhausted"),
];

/// Issue 12 item 8: for every step that can fail, a tree_apply vector expects that
/// step's failure as its element of `results` AND has a later step (so the vector shows
/// the sequence going on over an unchanged tree). Derived from the steps and the
/// expected results; every failed element has exactly the members of T-ERR-1.
#[test]
fn every_failing_tree_step_has_an_observing_vector() {
    let mut found: BTreeMap<(&str, &str), String> = BTreeMap::new();
    // The generic format's steps (the yoagent-0.26 dialect fails where yoagent does:
    // its own vectors, from the real crate, record that).
    let generic = load_corpus(None)
        .unwrap()
        .into_iter()
        .filter(|c| c.profile != journal_conformance::ops::Profile::Yoagent026);
    for c in generic {
        for ch in &c.checks {
            let (Operation::TreeApply { steps }, Expect::Result { value, .. }) =
                (&ch.op, &ch.expect)
            else {
                continue;
            };
            let results = value.get("results").and_then(Value::as_array).unwrap();
            assert_eq!(results.len(), steps.len(), "{}: one result per step", c.id);
            for (i, (r, s)) in results.iter().zip(steps).enumerate() {
                let Some(e) = r.get("error") else { continue };
                let code = e.get("code").and_then(Value::as_str).unwrap();
                let keys: Vec<&str> = e
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect();
                let want: &[&str] = if code == "history_diverged" {
                    &["code", "index"]
                } else {
                    &["code"]
                };
                assert_eq!(keys, want, "{}: step {i}", c.id);
                let step = s.to_json();
                let name = step.get("step").and_then(Value::as_str).unwrap();
                let key = FAILING_STEPS
                    .iter()
                    .find(|(n, k)| *n == name && *k == code)
                    .unwrap_or_else(|| panic!("{}: {name} cannot fail with {code}", c.id));
                if i + 1 < steps.len() {
                    found.entry(*key).or_insert_with(|| c.id.clone());
                }
            }
        }
    }
    let missing: Vec<_> = FAILING_STEPS
        .iter()
        .filter(|k| !found.contains_key(k))
        .collect();
    assert!(
        missing.is_empty(),
        "failing steps no vector observes: {missing:?}"
    );
}

/// Labels: the corpus relabels one entry several times, and sets one label on several
/// entries, and the expectations say the last label / the latest carrier wins.
#[test]
fn tree_labels_are_exercised_with_several_occurrences() {
    let mut relabel = None;
    let mut shared = None;
    for c in load_corpus(None).unwrap() {
        for ch in &c.checks {
            match (&ch.op, &ch.expect) {
                (Operation::TreeApply { steps }, Expect::Result { value, .. }) => {
                    // Two or more consecutive checkpoints (same head) with distinct labels.
                    let labels: Vec<String> = steps
                        .iter()
                        .map_while(|s| match s {
                            journal_conformance::tree::Step::Checkpoint { label } => {
                                Some(label.clone())
                            }
                            _ => None,
                        })
                        .collect();
                    let tree = value.get("tree").and_then(Value::as_str).unwrap();
                    if labels.len() >= 2
                        && labels.iter().collect::<BTreeSet<_>>().len() == labels.len()
                        && value.get("results").unwrap().as_array().unwrap()[0]
                            .get("error")
                            .is_none()
                    {
                        let last = format!(
                            "\"label\":{}",
                            canonical::to_string(&Value::from(labels.last().unwrap().as_str()))
                        );
                        assert!(tree.contains(&last), "{}: the last label stays", c.id);
                        for l in &labels[..labels.len() - 1] {
                            let old = format!(
                                "\"label\":{}",
                                canonical::to_string(&Value::from(l.as_str()))
                            );
                            assert!(!tree.contains(&old), "{}: a replaced label stays", c.id);
                        }
                        relabel.get_or_insert(c.id.clone());
                    }
                }
                (Operation::TreeInspect, Expect::Result { value, .. }) => {
                    // The same label on two or more entries of the file.
                    let mut carriers: BTreeMap<String, Vec<String>> = BTreeMap::new();
                    for line in c.input.split(|&b| b == b'\n') {
                        let Ok(v) = json::parse_bytes(line) else {
                            continue;
                        };
                        if let (Some(id), Some(l)) = (
                            v.get("id").and_then(Value::as_str),
                            v.get("label").and_then(Value::as_str),
                        ) {
                            carriers
                                .entry(l.to_owned())
                                .or_default()
                                .push(id.to_owned());
                        }
                    }
                    for (l, ids) in carriers.iter().filter(|(_, ids)| ids.len() >= 2) {
                        assert_eq!(
                            value
                                .get("labels")
                                .and_then(|m| m.get(l))
                                .and_then(Value::as_str),
                            ids.last().map(String::as_str),
                            "{}: label {l} maps to its latest carrier",
                            c.id
                        );
                        shared.get_or_insert(c.id.clone());
                    }
                }
                _ => {}
            }
        }
    }
    assert!(relabel.is_some(), "no vector relabels one entry twice");
    assert!(
        shared.is_some(),
        "no vector carries one label on two entries"
    );
}

/// SPEC.md appendix A: every rule listed as a departure from the seed (A.1) or from
/// yoagent (A.2) has at least one vector that names that rule and carries the matching
/// tag (`departs-from-seed` / `departs-from-yoagent`), so `test --tag` finds them; and
/// every tagged vector names a rule the appendix lists for its tag.
#[test]
fn every_departure_has_a_tagged_vector() {
    let spec =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("SPEC.md")).unwrap();
    let appendix = &spec[spec
        .find("## Appendix A. Departures from the seed and from yoagent")
        .expect("SPEC.md has the departures appendix")..];
    let mut listed: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut tag = None;
    for line in appendix.lines() {
        if line.starts_with("### A.1") {
            tag = Some("departs-from-seed");
        } else if line.starts_with("### A.2") {
            tag = Some("departs-from-yoagent");
        } else if let (Some(t), Some(row)) = (tag, line.strip_prefix("| ")) {
            let first = row.split(" |").next().unwrap();
            if first
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
                && first.contains('-')
            {
                listed.entry(t).or_default().insert(first.to_owned());
            }
        }
    }
    let rules = spec_rule_ids();
    for (t, ids) in &listed {
        for id in ids {
            assert!(
                rules.contains(id),
                "appendix lists {id}, not a rule of SPEC.md"
            );
        }
        assert!(ids.len() >= 6, "{t}: only {ids:?}");
    }
    assert_eq!(listed.len(), 2, "both tables parsed");
    let cases = load_corpus(None).unwrap();
    for (t, ids) in &listed {
        for id in ids {
            assert!(
                cases
                    .iter()
                    .any(|c| c.tags.iter().any(|x| x == t) && c.rules.contains(id)),
                "no vector tagged {t} names {id}"
            );
        }
    }
    for c in &cases {
        for t in listed.keys() {
            if c.tags.iter().any(|x| x == t) {
                assert!(
                    c.rules.iter().any(|r| listed[t].contains(r)),
                    "{} is tagged {t} but names no rule of that appendix table",
                    c.id
                );
            }
        }
    }
}

/// V-LEVEL-1: every case of the kit's own generic corpus is `must` (SPEC.md section 12
/// says why); a `should` or `implementation-defined` case needs that text changed first.
/// The yoagent-0.26 dialect records yoagent's bugs at `implementation-defined`
/// (T-YO-NEXT-1), and nothing else below `must`.
#[test]
fn every_embedded_case_is_must() {
    for c in load_corpus(None).unwrap() {
        if c.profile == journal_conformance::ops::Profile::Yoagent026 {
            assert!(
                c.level == journal_conformance::vectors::Level::Must
                    || (c.level == journal_conformance::vectors::Level::ImplementationDefined
                        && c.group == "tree-yoagent/quirks"),
                "{}: a dialect case below must is a quirk of yoagent",
                c.id
            );
            continue;
        }
        assert_eq!(
            c.level,
            journal_conformance::vectors::Level::Must,
            "{}: SPEC.md V-LEVEL-1 says every kit vector is must",
            c.id
        );
    }
}

/// SPEC.md appendix A.1, checked against the seed's own semantics: a naive port of the
/// seed's reader and `SessionJournal` (conformance/tools/seed_port.py, Python) disagrees
/// with every `departs-from-seed` vector and agrees with every other vector it models.
#[test]
fn the_seed_port_departs_exactly_on_the_tagged_vectors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("conformance/tools/seed_port.py"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------------------
// Rules named right (issue 19 part 4): relations between what a vector EXPECTS and the
// rules it must name, derived mechanically from the expectation's shape, so that a skip
// list of a rule id and the by-rule table never miss a case. The rule of each code is
// SPEC.md's (section 10, 15, 16), spelled out here rather than taken from the reference.

/// SPEC.md section 10 / 15.3 / 16.4: the rule of each error code.
fn rule_of_code(code: &str) -> Option<&'static str> {
    Some(match code {
        "unexpected_bom" => "W-BOM-1",
        "invalid_utf8" => "W-UTF8-1",
        "blank_line" => "W-BLANK-1",
        "invalid_json" => "C-SYNTAX-1",
        "duplicate_key" => "C-KEY-2",
        "lone_surrogate" => "C-STR-3",
        "nesting_too_deep" => "C-DEPTH-1",
        "malformed_event" => "E-ENV-1",
        "invalid_payload" => "R-TYPE-1",
        "empty_journal" => "J-EMPTY-1",
        "sequence_gap" => "J-SEQ-1",
        "mixed_session" => "J-SESSION-1",
        "mixed_run" => "J-RUN-1",
        "duplicate_event_id" => "J-ID-1",
        "unknown_parent" => "J-PARENT-1",
        "sequence_out_of_range" => "O-RANGE-1",
        "invalid_branch_id" => "B-ID-1",
        "conflicting_duplicate" => "S-DUP-1",
        _ => return None,
    })
}

/// Tree codes (SPEC.md 15): load and step errors.
fn tree_rule_of_code(code: &str, in_step: bool) -> &'static str {
    match code {
        "malformed_entry" => "T-ENTRY-1",
        "duplicate_entry_id" => "T-ID-1",
        "unknown_parent" => "T-PARENT-1",
        "unknown_entry" => "T-SEEK-1",
        "empty_session" => "T-CHECKPOINT-1",
        "unknown_checkpoint" => "T-SEEKCP-1",
        "history_diverged" => "T-APPENDNEW-1",
        "id_space_exhausted" => "T-NEXT-1",
        // A step's depth check (T-APPEND-1); on load, a line's wire and JSON codes.
        "nesting_too_deep" if in_step => "T-APPEND-1",
        _ => "T-LINE-2",
    }
}

/// Whether `bytes` hold an integer literal of more than 4300 digits (C-NUM-3) rather
/// than only overflowing floats (C-NUM-6).
fn has_long_integer(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let float_part = (start > 0 && matches!(bytes[start - 1], b'.' | b'e' | b'E' | b'+'))
                || (i < bytes.len() && matches!(bytes[i], b'.' | b'e' | b'E'));
            if i - start > 4300 && !float_part {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

/// The rules (any one of which must be named) that an expected journal, canonical or
/// store code implies; `text` is the input the code is about.
fn journal_code_rules(code: &str, text: &[u8]) -> Vec<&'static str> {
    match code {
        "number_out_of_range" if has_long_integer(text) => vec!["C-NUM-3"],
        "number_out_of_range" => vec!["C-NUM-6"],
        "profile_violation" => (1..=9)
            .map(|k| {
                [
                    "P-TRACE-1",
                    "P-TRACE-2",
                    "P-TRACE-3",
                    "P-TRACE-4",
                    "P-TRACE-5",
                    "P-TRACE-6",
                    "P-TRACE-7",
                    "P-TRACE-8",
                    "P-TRACE-9",
                ][k - 1]
            })
            .collect(),
        c => rule_of_code(c).into_iter().collect(),
    }
}

#[test]
fn expectations_name_the_rules_they_imply() {
    use journal_conformance::store::StoreStep;
    let mut problems = Vec::new();
    let mut checked = 0;
    for c in load_corpus(None).unwrap() {
        // The yoagent-0.26 dialect's vectors come from the real crate and name the
        // dialect's rules (T-YO-*): not judged here.
        // The golden traces (G-1) are the seed's own files, named by G-1 alone.
        if c.profile == journal_conformance::ops::Profile::Yoagent026 || c.group == "golden" {
            continue;
        }
        let has = |r: &str| c.rules.iter().any(|x| x == r);
        let mut need = |any_of: Vec<&str>, why: String| {
            checked += 1;
            if !any_of.is_empty() && !any_of.iter().any(|r| has(r)) {
                problems.push(format!(
                    "{}: {why} but names none of {any_of:?} ({:?})",
                    c.id, c.rules
                ));
            }
        };
        for ch in &c.checks {
            let op = &ch.op;
            match (&ch.expect, op) {
                (
                    Expect::Error { codes, .. },
                    Operation::TreeInspect | Operation::TreeApply { .. },
                ) => {
                    for code in codes {
                        need(
                            vec![tree_rule_of_code(code, false)],
                            format!("expects load error {code}"),
                        );
                    }
                }
                (Expect::Error { codes, .. }, _) => {
                    for code in codes {
                        need(
                            journal_code_rules(code, &c.input),
                            format!("expects {code}"),
                        );
                    }
                }
                (Expect::Result { value, .. }, Operation::TreeApply { .. }) => {
                    need(vec!["T-SAVE-1"], "expects a saved tree".into());
                    for (i, r) in value
                        .get("results")
                        .and_then(Value::as_array)
                        .unwrap()
                        .iter()
                        .enumerate()
                    {
                        if let Some(code) = r
                            .get("error")
                            .and_then(|e| e.get("code"))
                            .and_then(Value::as_str)
                        {
                            need(
                                vec![tree_rule_of_code(code, true)],
                                format!("expects step {i} to fail with {code}"),
                            );
                        }
                    }
                }
                (Expect::Result { value, .. }, Operation::TreeInspect)
                    if value.get("next_id") == Some(&Value::Null) =>
                {
                    need(vec!["T-NEXT-1"], "expects next_id null".into());
                }
                (Expect::Result { value, .. }, Operation::StoreApply { steps }) => {
                    if !value
                        .get("recovered")
                        .and_then(Value::as_array)
                        .unwrap()
                        .is_empty()
                    {
                        need(
                            vec!["S-TORN-1", "S-RECOVER-1"],
                            "expects a torn tail moved aside".into(),
                        );
                    }
                    let results = value.get("results").and_then(Value::as_array).unwrap();
                    for (i, (r, s)) in results.iter().zip(steps).enumerate() {
                        let (elements, lines): (Vec<&Value>, Vec<&[u8]>) = match (r, s) {
                            (Value::Array(a), StoreStep::AppendBatch { lines }) => (
                                a.iter().collect(),
                                lines.iter().map(|l| l.as_bytes()).collect(),
                            ),
                            (_, StoreStep::Append { line }) => (vec![r], vec![line.as_bytes()]),
                            _ => (vec![r], vec![&b""[..]]),
                        };
                        for (k, e) in elements.iter().enumerate() {
                            let Some(code) = e
                                .get("error")
                                .and_then(|e| e.get("code"))
                                .and_then(Value::as_str)
                            else {
                                continue;
                            };
                            let text = lines.get(k).copied().unwrap_or(b"");
                            let mut want = journal_code_rules(code, text);
                            want.push("S-VALID-1");
                            if matches!(s, StoreStep::Checkpoint) {
                                want.push("K-RECORD-1");
                            }
                            need(want, format!("expects step {i} to fail with {code}"));
                        }
                    }
                }
                (Expect::Result { .. }, Operation::Fingerprint { .. }) => need(
                    vec!["F-FP-1", "F-FP-2", "F-FP-3"],
                    "checks a fingerprint".into(),
                ),
                (Expect::Result { .. }, Operation::Branch { .. }) => need(
                    vec!["B-ID-1", "B-ID-2", "B-RANGE-1", "B-PARENT-1"],
                    "checks a branch record".into(),
                ),
                _ => {}
            }
        }
    }
    assert!(checked > 500, "only {checked} relations checked");
    assert!(
        problems.is_empty(),
        "{} cases:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn rule_relations_catch_misnamed_cases() {
    // The relations above are not vacuous: the two misattributions issue 19 found.
    assert_eq!(
        journal_code_rules("number_out_of_range", b" 1E400 "),
        ["C-NUM-6"]
    );
    let long = format!("{{\"a\":{}}}", "9".repeat(4301));
    assert_eq!(
        journal_code_rules("number_out_of_range", long.as_bytes()),
        ["C-NUM-3"]
    );
    let fraction = format!("1.{}", "0".repeat(4301));
    assert_eq!(
        journal_code_rules("number_out_of_range", fraction.as_bytes()),
        ["C-NUM-6"]
    );
    assert_eq!(tree_rule_of_code("unknown_parent", false), "T-PARENT-1");
    assert_eq!(tree_rule_of_code("nesting_too_deep", true), "T-APPEND-1");
    assert_eq!(tree_rule_of_code("nesting_too_deep", false), "T-LINE-2");
}

// ---------------------------------------------------------------------------------------
// Primary rules (issue 22 item 1): a case's FIRST rule is the one whose text decides its
// expected value, and the number rules its value depends on are named, so that the
// decisions of a run (SPEC.md X-DECIDE-1) file a failure under the rule an implementer
// must change. Derived from the expectation and the input's bytes alone.

/// The number literals outside strings in `bytes` (a JSON text or JSONL), by kind:
/// (a float literal, an integer beyond 2^53 where a double is no longer exact).
fn number_kinds(bytes: &[u8]) -> (bool, bool) {
    let (mut float, mut big) = (false, false);
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' | b'\n' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
        } else if b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || b"+-.".contains(&bytes[i]))
            {
                i += 1;
            }
            let lit = &bytes[start..i];
            if lit.iter().any(|c| b".eE".contains(c)) {
                float = true;
            } else if lit.len() > 15
                && std::str::from_utf8(lit)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .is_none_or(|n| n > (1u64 << 53))
            {
                big = true;
            }
        } else {
            i += 1;
        }
    }
    (float, big)
}

/// Whether an event's `sequence` is written as a float literal (`"sequence":1.0`).
fn float_sequence(input: &[u8]) -> bool {
    let key = b"\"sequence\":";
    input.windows(key.len()).enumerate().any(|(i, w)| {
        w == key && {
            let rest = &input[i + key.len()..];
            let lit: Vec<u8> = rest
                .iter()
                .copied()
                .take_while(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                .collect();
            lit.first()
                .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
                && lit.iter().any(|b| b".eE".contains(b))
        }
    })
}

/// The same for a value of a vector's expectation.
fn value_number_kinds(v: &Value) -> (bool, bool) {
    use journal_conformance::json::Number;
    match v {
        Value::Number(Number::Float(_)) => (true, false),
        Value::Number(Number::Int(s)) => (
            false,
            s.trim_start_matches('-')
                .parse::<u64>()
                .map_or(true, |n| n > 1u64 << 53),
        ),
        Value::Array(a) => a
            .iter()
            .map(value_number_kinds)
            .fold((false, false), |x, y| (x.0 || y.0, x.1 || y.1)),
        Value::Object(m) => m
            .iter()
            .map(|(_, v)| value_number_kinds(v))
            .fold((false, false), |x, y| (x.0 || y.0, x.1 || y.1)),
        _ => (false, false),
    }
}

/// Rules that decide WHICH error a case expects rather than defining the code: ordering
/// (J-ORDER-1, O-ORDER-1, T-ORDER-1), selection and range (R-SEL-1, B-RANGE-1), and the
/// wire rules that say what a line is (W-JSON-1, W-LINE-1, W-BLANK-1) or what a document
/// is (O-CANON-1). Any of them may be primary for any code; another rule may be primary
/// only for the codes it defines.
const DECIDERS: &[&str] = &[
    "J-ORDER-1",
    "O-ORDER-1",
    "T-ORDER-1",
    "R-SEL-1",
    "B-RANGE-1",
    "W-JSON-1",
    "W-LINE-1",
    "W-BLANK-1",
    "O-CANON-1",
];

#[test]
fn primary_rules_decide_the_expected_value() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for c in load_corpus(None).unwrap() {
        if c.profile == journal_conformance::ops::Profile::Yoagent026 || c.group == "golden" {
            continue;
        }
        let has = |r: &str| c.rules.iter().any(|x| x == r);
        let primary = c.rules[0].as_str();
        let mut need = |ok: bool, why: String| {
            checked += 1;
            if !ok {
                problems.push(format!("{}: {why} ({:?})", c.id, c.rules));
            }
        };
        for ch in &c.checks {
            match (&ch.expect, &ch.op) {
                (Expect::Error { codes, .. }, op)
                    if !matches!(
                        op,
                        Operation::TreeInspect
                            | Operation::TreeApply { .. }
                            | Operation::StoreApply { .. }
                    ) =>
                {
                    let allowed: Vec<&str> = codes
                        .iter()
                        .flat_map(|code| journal_code_rules(code, &c.input))
                        .collect();
                    if codes.iter().any(|c| c == "malformed_event") && float_sequence(&c.input) {
                        need(
                            has("C-NUM-1"),
                            "an event's sequence is a float literal".into(),
                        );
                    }
                    need(
                        DECIDERS.contains(&primary) || allowed.contains(&primary),
                        format!(
                            "expects {codes:?}, decided by {allowed:?} (or an ordering or \
                             wire rule), but its primary rule is {primary}"
                        ),
                    );
                }
                (Expect::Result { value, .. }, Operation::Canonical) => {
                    let (float, big) = number_kinds(value.as_str().unwrap_or("").as_bytes());
                    if float {
                        // C-NUM-4 decides which double, C-NUM-5 how it is written.
                        need(has("C-NUM-5"), "its canonical text holds a float".into());
                    }
                    if big {
                        need(
                            has("C-NUM-1"),
                            "its canonical text holds an integer beyond 2^53".into(),
                        );
                    }
                }
                (Expect::Result { .. }, Operation::Fingerprint { .. }) => {
                    let (float, big) = number_kinds(&c.input);
                    if float {
                        need(
                            has("C-NUM-5"),
                            "the events it fingerprints hold a float".into(),
                        );
                    }
                    if big {
                        need(
                            has("C-NUM-1"),
                            "the events it fingerprints hold an integer beyond 2^53".into(),
                        );
                    }
                }
                (
                    Expect::Result { value, .. },
                    Operation::Replay { .. } | Operation::Branch { .. },
                ) => {
                    let (float, big) = value_number_kinds(value);
                    if float {
                        need(
                            has("C-NUM-1") || has("C-NUM-4") || has("C-NUM-5"),
                            "its expected result holds a float".into(),
                        );
                    }
                    if big {
                        need(
                            has("C-NUM-1"),
                            "its expected result holds an integer beyond 2^53".into(),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    assert!(checked > 2000, "only {checked} relations checked");
    assert!(
        problems.is_empty(),
        "{} cases:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn primary_rule_relations_are_not_vacuous() {
    assert_eq!(number_kinds(br#"{"a":"1.5","b":2}"#), (false, false));
    assert_eq!(number_kinds(br#"[3.0]"#), (true, false));
    assert!(float_sequence(br#"{"sequence":1.0,"x":1}"#));
    assert!(!float_sequence(br#"{"sequence":10,"x":1.5}"#));
    assert_eq!(
        number_kinds(br#"{"big":1180591620717411303424}"#),
        (false, true)
    );
    assert_eq!(number_kinds(b"9007199254740992"), (false, false));
    assert_eq!(number_kinds(b"9007199254740993"), (false, true));
    assert_eq!(
        value_number_kinds(
            &journal_conformance::json::parse(r#"{"x":[1,{"y":-1e400}]}"#).unwrap_or(Value::Null)
        ),
        (false, false),
        "1e400 does not parse"
    );
    assert_eq!(
        value_number_kinds(&journal_conformance::json::parse(r#"{"x":[1,{"y":2.5}]}"#).unwrap()),
        (true, false)
    );
}
