//! The corpus itself: it loads strictly, the reference passes every case, every SPEC
//! rule has a vector (V-COVER-1), and vectors only name rules and codes that exist.

use std::collections::BTreeSet;
use std::path::Path;

use journal_conformance::adapter::Reference;
use journal_conformance::runner::{load_corpus, run_case, Outcome};
use journal_conformance::vectors::{self, Expect};
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
/// tests/hostile_inputs.rs; `store_apply` runs on scratch files).
const NOT_VECTOR_RULES: &[&str] = &[
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
    "C-IMPL-1",
    "F-FP-3",
    "J-LOC-1",
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
