//! The built-in reference as an [`Implementation`], in process: the oracle of the fixed
//! vectors' runs without `--adapter`, and of the differential phase.

use super::{all_ops, ImplInfo, Implementation, Reply};
use crate::error::ReadError;
use crate::json::Value;
use crate::ops::Profile;
use crate::ops::{self, Operation};
use crate::verdict::Answer;

/// The built-in reference implementation, in process.
pub struct Reference {
    info: ImplInfo,
}

impl Default for Reference {
    fn default() -> Self {
        Reference {
            info: ImplInfo {
                name: "journal-conformance (reference)".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                language: "rust".into(),
                operations: all_ops(),
                profiles: vec![
                    "core".into(),
                    "trace-0.1".into(),
                    crate::tree::yoagent::PROFILE.into(),
                ],
            },
        }
    }
}

/// The reference's answer to one check.
pub fn reference_answer(op: &Operation, profile: Profile, input: &[u8]) -> Result<Answer, String> {
    to_answer(ops::execute(op, input, profile))
}

/// [`reference_answer`] with the journal operations on the checked fast path
/// (`crate::fast`); what `serve` answers, so a run against `serve` exercises it.
pub fn fast_answer(op: &Operation, profile: Profile, input: &[u8]) -> Result<Answer, String> {
    to_answer(crate::ops::execute_fast(op, input, profile))
}

fn to_answer(outcome: Result<Value, ReadError>) -> Result<Answer, String> {
    match outcome {
        Ok(v) => Ok(Answer::Result(v)),
        Err(ReadError::Invalid(e)) => Ok(Answer::Error {
            code: e.code.as_str().to_owned(),
            line: e.line,
            sequence: e.sequence,
            index: e.index,
            message: e.message,
        }),
        Err(ReadError::Io(e)) => Err(e.to_string()),
    }
}

impl Implementation for Reference {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        match reference_answer(op, profile, input) {
            Ok(a) => Reply::Answer(a),
            Err(e) => Reply::Fault(e),
        }
    }
}
