//! The cargo-fuzz template (fuzz/template/) on stable Rust: its `Mine` (src/mine.rs, as
//! shipped: forwarding to the reference) through `oracle::check`, the function its fuzz
//! target calls, over a few hundred deterministic inputs (mutations of the golden traces,
//! fixed seeds); and a planted fault, which the same inputs must find.

#[path = "../fuzz/template/src/mine.rs"]
mod mine;

use journal_conformance::adapter::{ImplInfo, Implementation, Reply};
use journal_conformance::ops::{Operation, Profile};
use journal_conformance::oracle;
use journal_conformance::verdict::Answer;

fn seeds() -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    [
        "s02-events-streaming.golden.jsonl",
        "s07-session-replay.golden.jsonl",
    ]
    .iter()
    .map(|n| std::fs::read(root.join(n)).unwrap())
    .collect()
}

/// The planted fault: the input is decoded lossily (invalid UTF-8 becomes U+FFFD) before
/// the real work, so `invalid_utf8` (W-UTF8-1) is never reported.
struct Lossy(mine::Mine);

impl Implementation for Lossy {
    fn info(&self) -> &ImplInfo {
        self.0.info()
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(input).into_owned();
        self.0.run(op, profile, text.as_bytes())
    }
}

#[test]
fn the_template_as_shipped_agrees_with_the_reference_on_300_inputs() {
    let mut m = mine::Mine::default();
    let n = oracle::smoke(&mut m, &seeds(), 300, 7).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n, 302);
}

#[test]
fn a_planted_fault_is_found_within_300_inputs() {
    let mut m = Lossy(mine::Mine::default());
    let found =
        oracle::smoke(&mut m, &seeds(), 300, 1).expect_err("the planted fault was not found");
    // it is the planted one: the reference rejects invalid UTF-8, the input has some
    assert!(std::str::from_utf8(&found.input).is_err(), "{found}");
    match &found.expected {
        Answer::Error { code, .. } => assert_eq!(code, "invalid_utf8", "{found}"),
        Answer::Result(_) => panic!("expected the reference to reject: {found}"),
    }
    let text = found.to_string();
    assert!(
        text.contains("reference:") && text.contains("yours:"),
        "{text}"
    );
    // the input reproduces it on its own
    assert!(oracle::check(&mut m, &found.input).is_err());
}

#[test]
fn a_fault_reply_is_a_mismatch_and_unsupported_is_skipped() {
    struct Faulty(mine::Mine, bool);
    impl Implementation for Faulty {
        fn info(&self) -> &ImplInfo {
            self.0.info()
        }
        fn run(&mut self, _: &Operation, _: Profile, _: &[u8]) -> Reply {
            if self.1 {
                Reply::Fault("crashed".into())
            } else {
                Reply::Unsupported
            }
        }
    }
    let e = oracle::check(&mut Faulty(mine::Mine::default(), true), b"{}\n").unwrap_err();
    assert!(e.why.contains("crashed"), "{e}");
    let done = oracle::check(&mut Faulty(mine::Mine::default(), false), b"{}\n").unwrap();
    assert_eq!((done.compared, done.skipped), (0, 7)); // tree_inspect is not offered
}
