//! `journal-conformance validate FILE`: check a journal against every rule of SPEC.md
//! (sections 2 to 6: wire, JSON, envelope, profiles, journal invariants, in the order of
//! `J-ORDER-1`, errors located per `J-LOC-1`).
//!
//! This module owns the command line side of validation (SPEC.md section 11): FILE or
//! `-` (`X-STDIN-1`), a human diagnostic on stderr or, with `--json`,
//! `{"ok":true,"event_count":N}` / `{"ok":false,"error":ERROR}` on stdout (`X-JSON-1`,
//! `O-ERR-1`), and the exit status (`X-EXIT-1`). The checking itself is
//! [`journal_conformance::fast::validate`]; `--max-line-bytes` is the limit of SPEC.md 16.5.

use std::path::PathBuf;

use crate::io::{display_name, open_input, print_json, report, LineLimit};
use crate::io::{EXIT_INVALID, EXIT_OK};
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::json::Value;

/// Arguments of `validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    pub file: PathBuf,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    /// Print `{"ok":...}` JSON instead of a human diagnostic.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `validate`; returns the exit status.
pub fn run(args: ValidateArgs) -> i32 {
    let ValidateArgs {
        file,
        profile,
        json,
        limit,
    } = args;
    let name = display_name(&file);
    let result = open_input(&file).map_err(ReadError::Io).and_then(|r| {
        journal_conformance::fast::validate(
            r,
            &journal_conformance::fast::Options::new(profile).with_max_line_bytes(limit.get()),
        )
    });
    match (result, json) {
        (Ok(n), false) => {
            eprintln!("{name}: ok ({n} events, profile {})", profile.as_str());
            EXIT_OK
        }
        (Ok(n), true) => print_json(&Value::object([
            ("ok", Value::Bool(true)),
            ("event_count", Value::from_u64(n)),
        ])),
        (Err(ReadError::Invalid(e)), true) => {
            print_json(&Value::object([
                ("ok", Value::Bool(false)),
                ("error", e.to_json()),
            ]));
            EXIT_INVALID
        }
        (Err(e), _) => report(&name, e),
    }
}
