//! # journal-conformance
//!
//! A conformance kit for append-only JSONL session journals of coding agents: the
//! contract (`SPEC.md`), this reference implementation, generators of valid and
//! malformed traces, a data-driven corpus, and a runner that checks any
//! implementation through an adapter program.
//!
//! The modules follow the layers of SPEC.md, bottom up:
//!
//! | module | owns |
//! |---|---|
//! | [`error`] | stable error codes and located errors |
//! | [`json`] | the JSON value model and strict parser |
//! | [`canonical`] | canonical JSON bytes (Python `json.dumps` compatible) |
//! | [`wire`] | JSONL lines: splitting, BOM, UTF-8, blank lines |
//! | [`event`] | the event envelope (`core` profile) |
//! | [`profile`] | the `trace-0.1` profile |
//! | [`journal`] | the journal invariants, streamed |
//! | [`fingerprint`] | incremental SHA-256 over canonical bytes |
//! | [`replay`] | the replay projection and the streaming final-event rule |
//! | [`fast`] | the checked fast path of validate, fingerprint, replay, branch (the CLI's) |
//! | [`branch`] | branch records |
//! | [`ops`] | operations as data and their reference execution |
//! | [`tree`] | session trees (the second seed's format) |
//! | [`store`] | durable appends, recovery, checkpoints |
//! | [`golden`] | the golden traces and their expected outputs |
//! | [`generate`] | generators of valid and malformed journals, strategies, `generate` |
//! | [`vectors`] | the conformance vector format and the embedded corpus |
//! | [`adapter`] | the adapter protocol: reference, persistent and one-shot adapters, `serve` |
//! | [`explain`] | failures that explain themselves: escaped inputs, rule titles, causes, the by-rule table |
//! | [`runner`] | running the corpus against an implementation, reports, summaries |
//! | [`differential`] | property-based differential testing, shrunk counterexamples as vectors |
//! | [`html`] | the results page (`summary --html`) |
//! | [`inprocess`] | running the corpus against a Rust implementation from its own tests |
//! | [`fsutil`] | atomic file writes |
//! | [`cli`] | the command-line interface: clap definitions, dispatch, shared helpers |
//! | [`commands`] | one module per subcommand (`validate`, `replay`, ..., `test`, `show`) |
//!
//! ```
//! use journal_conformance::{event::JournalProfile, replay};
//! let journal = br#"{"event_id":"e0","session_id":"s","sequence":0,"type":"user.message","payload":{"content":"hi"},"provenance":{"run_id":"r"}}
//! "#;
//! let state = replay::replay(&journal[..], JournalProfile::Core, None).unwrap();
//! assert_eq!(state.user_messages, ["hi"]);
//! ```

pub mod adapter;
pub mod branch;
pub mod canonical;
pub mod differential;
pub mod error;
pub mod event;
pub mod explain;
pub mod fast;
pub mod fingerprint;
pub mod fsutil;
pub mod generate;
pub mod golden;
pub mod html;
pub mod inprocess;
pub mod journal;
pub mod json;
pub mod ops;
pub mod partition;
pub mod preview;
pub mod profile;
pub mod record;
pub mod replay;
pub mod report;
pub mod rules;
pub mod runner;
pub mod store;
pub mod tree;
pub mod vectors;
pub mod verdict;
pub mod wire;

pub use error::{Error, ErrorCode};
