//! The adapter protocol (SPEC.md section 13, rules `A-*`): how the kit talks to an
//! implementation under test.
//!
//! - this file: the [`Implementation`] trait every implementation is asked through, what
//!   its handshake says ([`ImplInfo`]) and what one check gives back ([`Reply`]);
//! - [`protocol`]: protocol 1's messages, typed, for both sides: the requests the runner
//!   sends and `serve` reads, the replies `serve` writes and the runner judges (pure
//!   parsers, fuzzed), and the one-shot encoding;
//! - [`process`]: supervision of adapter processes (SPEC.md 13.4): process groups,
//!   descendants and orphans (the kit as subreaper; `proc_table` reads /proc), signals,
//!   bounded readers, the stderr tail;
//! - [`persistent`], [`oneshot`]: the two kinds of adapter process;
//! - [`mod@reference`]: the built-in reference, in process;
//! - [`mod@serve`]: the reference speaking the protocol out of process.

pub mod oneshot;
pub mod persistent;
mod proc_table;
pub mod process;
pub mod protocol;
pub mod reference;
pub mod serve;

pub use oneshot::OneShot;
pub use persistent::Persistent;
pub use process::Limits;
pub use reference::Reference;
pub use serve::serve;

use crate::json::Value;
use crate::ops::Operation;
use crate::ops::Profile;
use crate::verdict::Answer;

/// What the handshake said about the implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct ImplInfo {
    pub name: String,
    pub version: String,
    pub language: String,
    pub operations: Vec<String>,
    pub profiles: Vec<String>,
}

impl ImplInfo {
    pub fn to_json(&self) -> Value {
        let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        Value::object([
            ("name", Value::from(self.name.as_str())),
            ("version", Value::from(self.version.as_str())),
            ("language", Value::from(self.language.as_str())),
            ("operations", strs(&self.operations)),
            ("profiles", strs(&self.profiles)),
        ])
    }

    /// Whether the handshake lists this operation.
    pub fn offers(&self, op: crate::ops::OpKind) -> bool {
        self.operations.iter().any(|o| o == op.as_str())
    }

    pub fn supports(&self, op: &Operation, profile: Profile) -> bool {
        self.operations.iter().any(|o| o == op.name())
            && self.profiles.iter().any(|p| p == profile.as_str())
    }
}

/// The outcome of asking an implementation one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Answer(Answer),
    Unsupported,
    /// The adapter misbehaved (A-FAULT-1): crash, hang, garbage, wrong id.
    Fault(String),
}

/// An implementation under test.
pub trait Implementation: Send {
    fn info(&self) -> &ImplInfo;
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply;
    /// The adapter's stderr written during the last check (its tail), if any.
    fn stderr_tail(&self) -> String {
        String::new()
    }
    /// The peak resident memory in bytes of the process that answered the last request,
    /// when it is known: a one-shot adapter's process, which exits after each request.
    fn peak_memory(&self) -> Option<u64> {
        None
    }
    /// The peak resident memory in bytes of the adapter's process so far: a persistent
    /// adapter's since it (re)started, a one-shot adapter's last request's
    /// ([`Implementation::peak_memory`]). What a fuzz campaign bounds (`--max-memory`).
    fn process_peak_memory(&self) -> Option<u64> {
        self.peak_memory()
    }
}

fn all_ops() -> Vec<String> {
    crate::ops::OpKind::ALL
        .map(|k| k.as_str().to_owned())
        .to_vec()
}
