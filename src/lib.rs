//! # journal-conformance
//!
//! A conformance kit for append-only JSONL session journals of coding agents: the
//! contract (`SPEC.md`), this reference implementation, generators of valid and
//! malformed traces, a data-driven corpus, and a runner that checks any
//! implementation through an adapter program.
//!
//! The modules follow the layers of SPEC.md, bottom up; each imports only from the rows
//! above it.
//!
//! **The format** (SPEC.md sections 2 to 10, 15, 16):
//!
//! | module | owns |
//! |---|---|
//! | [`error`] | stable error codes (section 10), located errors, [`error::ReadError`] |
//! | [`json`] | the JSON value model and the strict parser (C-*) |
//! | [`canonical`] | canonical JSON bytes (Python `json.dumps` compatible, C-*) |
//! | [`wire`] | JSONL lines: splitting, BOM, UTF-8, blank lines, the line bound (W-*) |
//! | [`event`] | the event envelope, journal profiles, the payload types the reducer reads (E-*, R-TYPE-1) |
//! | [`profile`] | the `trace-0.1` profile (P-TRACE-*) |
//! | [`journal`] | the journal invariants, streamed, and their errors (J-*) |
//! | [`fingerprint`] | incremental SHA-256 over canonical bytes (F-*) |
//! | [`replay`] | the replay projection and the streaming final-event rule (R-*) |
//! | [`branch`] | branch records (B-*) |
//! | [`tree`] | session trees, generic and the `yoagent-0.26` dialect (T-*) |
//! | [`store`] | durable appends, recovery, checkpoints (S-*, K-*) |
//! | [`fast`] | the checked fast path of validate, fingerprint, replay, branch, and of the yoagent dialect's tree inspect and validate |
//! | [`ops`] | operations as data, profiles, and their reference execution (O-*) |
//! | [`golden`] | the golden traces and their expected outputs (G-*) |
//! | [`generate`] | generators of valid and malformed journals, trees, texts, store steps |
//!
//! **The verdict** (SPEC.md sections 12 and 13):
//!
//! | module | owns |
//! |---|---|
//! | [`rules`] | the rules of SPEC.md as a typed table, generated at build time |
//! | [`preview`] | input bytes made printable |
//! | [`verdict`] | what a check expects, what an implementation answered, and the one comparator, `judge` (V-EXPECT-1) |
//! | [`vectors`] | the conformance vector format and the embedded corpus (V-*) |
//! | [`record`] | each check's and case's record: outcomes, causes, counts |
//! | [`partition`] | shards of one run (D-CASES-1) |
//! | [`decisions`] | failures grouped into decisions: by rule and cause signature, a greedy set cover (X-DECIDE-1) |
//! | [`explain`] | failures rendered: rule titles, causes, pointers, inputs, the by-rule table |
//! | [`adapter`] | the adapter protocol: the trait, typed messages, supervision, persistent and one-shot adapters, the reference, `serve` (A-*) |
//! | [`differential`] | the differential phase: trials, attribution, shrinking, counterexamples (D-*) |
//! | [`campaign`] | fuzz campaigns: corpus replay, generated and mutated inputs, behaviour signatures, kept corpus, findings shrunk and written as vectors (FZ-*) |
//! | [`report`] | the verdict of a run and its files: the JSON-lines report, JUnit, `summary` (X-*) |
//! | [`html`] | the results page (`summary --html`) |
//! | [`runner`] | planning, running and reporting a run (and looking into fingerprint failures, `runner::probe`); returns it as data |
//! | [`scale`] | complexity findings: input shapes grown at n, 4n, 16n through an implementation and the reference, growth exponents compared (Q-SCALE-1, Q-SCALE-2) |
//! | [`inprocess`] | running the corpus against a Rust implementation from its own tests |
//! | [`oracle`] | the reference as the oracle of an implementer's fuzz target: `check` compares an implementation with it on one input (docs/fuzzing.md) |
//! | [`fsutil`] | safe file writes and reads |
//!
//! The command line is the binary crate (`src/bin/journal-conformance/`: `cli`, one module
//! per subcommand in `commands/`, and `io`), behind the default `cli` feature: a Rust user
//! of the library (`default-features = false`) compiles neither clap nor indicatif.
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
pub mod campaign;
pub mod canonical;
pub mod decisions;
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
pub mod oracle;
pub mod partition;
pub mod preview;
pub mod profile;
pub mod record;
pub mod replay;
pub mod report;
pub mod rules;
pub mod runner;
pub mod scale;
pub mod store;
pub mod tree;
pub mod vectors;
pub mod verdict;
pub mod wire;

pub use error::{Error, ErrorCode};
