//! Run the whole conformance corpus against a Rust implementation in process, the way a
//! crate would from its own `cargo test`: `cargo run --example inprocess`.
//!
//! `Mine` stands for your own journal type. Here it delegates to the kit's reference but
//! plants one deviation (it forgets the BOM rule), which `assert_conformant` reports unless
//! it is listed as known.

use journal_conformance::adapter::{ImplInfo, Implementation, Reference, Reply};
use journal_conformance::inprocess;
use journal_conformance::ops::Operation;
use journal_conformance::ops::Profile;

struct Mine {
    info: ImplInfo,
    inner: Reference,
}

impl Implementation for Mine {
    fn info(&self) -> &ImplInfo {
        &self.info
    }

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        // Your code goes here. The planted deviation: a BOM is silently stripped.
        let input = input.strip_prefix(b"\xef\xbb\xbf").unwrap_or(input);
        self.inner.run(op, profile, input)
    }
}

fn main() {
    let mut mine = Mine {
        info: ImplInfo {
            name: "mine".into(),
            version: "0.1.0".into(),
            language: "rust".into(),
            operations: vec!["validate".into(), "replay".into(), "fingerprint".into()],
            profiles: vec!["core".into()],
        },
        inner: Reference::default(),
    };
    let outcome = inprocess::run_corpus(&mut mine).expect("the embedded corpus loads");
    println!("{outcome}");
    let known: Vec<&str> = outcome
        .failures
        .iter()
        .map(|f| f.id.as_str())
        .filter(|id| id.contains("bom"))
        .collect();
    println!("known deviations: {known:?}");
    // In your tests: the list is written out by hand, and a new failure panics.
    outcome.assert_conformant(&known);
}
