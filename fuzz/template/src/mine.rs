//! Your implementation as a `journal_conformance` [`Implementation`]: the one file of the
//! template you edit. `run` gets the operation (`validate`, `replay { until }`,
//! `fingerprint { until }`, `branch { at, branch_id }`, `canonical`, `tree_inspect`), the
//! profile and the exact input bytes, and answers `Reply::Answer(Answer::Result(value))`,
//! `Reply::Answer(Answer::Error { code, line, sequence, .. })` (O-ERR-1) or
//! `Reply::Unsupported` (not compared). `info().operations` and `profiles` say what is
//! compared. As shipped, `Mine` forwards to the reference: replace the body of `run` with
//! calls to your own code (see examples/inprocess.rs).
//!
//! The fuzz target (fuzz_targets/against_reference.rs) and the kit's stable test
//! (tests/oracle_template.rs) both use this file.

use journal_conformance::adapter::{ImplInfo, Implementation, Reference, Reply};
use journal_conformance::ops::{Operation, Profile};

pub struct Mine {
    info: ImplInfo,
    inner: Reference,
}

impl Default for Mine {
    fn default() -> Self {
        Mine {
            info: ImplInfo {
                name: "mine".into(),
                version: "0.1.0".into(),
                language: "rust".into(),
                operations: ["validate", "replay", "fingerprint", "branch", "canonical"]
                    .map(String::from)
                    .to_vec(),
                profiles: vec!["core".into()],
            },
            inner: Reference::default(),
        }
    }
}

impl Implementation for Mine {
    fn info(&self) -> &ImplInfo {
        &self.info
    }

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        // Your code goes here, e.g.
        //   Operation::Validate => match my_journal::read(input) {
        //       Ok(events) => Reply::Answer(Answer::Result(Value::object([(
        //           "event_count", Value::from_u64(events.len() as u64))]))),
        //       Err(e) => Reply::Answer(Answer::Error { code: e.code().into(), line: e.line(),
        //           sequence: e.sequence(), index: None, message: e.to_string() }),
        //   },
        self.inner.run(op, profile, input)
    }
}
