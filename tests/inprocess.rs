//! The in-process entry point (issue 14 item 6): the reference conforms, and a planted
//! fault is caught and named, through the public API only.

use journal_conformance::adapter::{ImplInfo, Implementation, Reference, Reply};
use journal_conformance::inprocess::run_corpus;
use journal_conformance::json::Value;
use journal_conformance::ops::Operation;
use journal_conformance::ops::Profile;
use journal_conformance::verdict::Answer;

#[test]
fn the_reference_conforms_in_process() {
    let out = run_corpus(&mut Reference::default()).unwrap();
    assert_eq!((out.failed, out.errored), (0, 0), "{:?}", out.failures);
    assert!(out.passed > 700, "{out}");
    out.assert_conformant(&[]);
}

/// Answers validate with an event count one too high, and nothing else.
struct OffByOne(ImplInfo);

impl Implementation for OffByOne {
    fn info(&self) -> &ImplInfo {
        &self.0
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        match Reference::default().run(op, profile, input) {
            Reply::Answer(Answer::Result(v)) => {
                let n = v.get("event_count").and_then(Value::as_i64).unwrap();
                Reply::Answer(Answer::Result(Value::object([(
                    "event_count",
                    Value::from_i64(n + 1),
                )])))
            }
            other => other,
        }
    }
}

fn off_by_one() -> OffByOne {
    OffByOne(ImplInfo {
        name: "off-by-one".into(),
        version: "0".into(),
        language: "rust".into(),
        operations: vec!["validate".into()],
        profiles: vec!["core".into()],
    })
}

#[test]
fn a_planted_fault_is_named_and_unlisted_operations_are_skipped() {
    let out = run_corpus(&mut off_by_one()).unwrap();
    // Every valid journal's validate check must now fail (the count is off by one).
    assert!(out.failed > 0);
    assert_eq!(out.errored, 0);
    assert!(out.skipped > 0, "replay-only cases are skipped, not failed");
    let f = &out.failures[0];
    assert_eq!(f.outcome, "failed");
    assert!(f.message.contains("event_count"), "{}", f.message);
    let panic = std::panic::catch_unwind(|| out.assert_conformant(&[])).unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert!(text.contains(&f.id), "{text}");
    // Listing every failure makes it pass; listing a passing case fails (stale list).
    let all: Vec<&str> = out.unexpected(&[]).map(|f| f.id.as_str()).collect();
    let listed = out.clone();
    std::panic::catch_unwind(move || listed.assert_conformant(&all)).unwrap();
    let stale = out.clone();
    let mut with_stale: Vec<&str> = out.unexpected(&[]).map(|f| f.id.as_str()).collect();
    with_stale.push("wire/bom-first-line");
    let e = std::panic::catch_unwind(move || stale.assert_conformant(&with_stale)).unwrap_err();
    assert!(e
        .downcast_ref::<String>()
        .unwrap()
        .contains("wire/bom-first-line"));
}
