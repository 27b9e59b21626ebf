//! `journal-conformance recover FILE [--apply]`: report what opening the store would do
//! with a torn tail (SPEC.md 16.2: `S-TORN-1`, `S-RECOVER-2`), or do it with `--apply`
//! (`S-RECOVER-1`: the torn bytes are moved aside to `FILE.torn-<k>`, never deleted).
//!
//! The report is one line of canonical JSON (`X-JSON-1`); a journal that is not a
//! regular file is refused (`S-FILE-1`), and `--max-line-bytes` is the limit of SPEC.md
//! 16.5.

use std::path::PathBuf;

use crate::io::{display_name, print_json, report, LineLimit};
use journal_conformance::event::JournalProfile;

/// Arguments of `recover`.
#[derive(clap::Args, Debug)]
pub struct RecoverArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub apply: bool,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `recover`; returns the exit status.
pub fn run(args: RecoverArgs) -> i32 {
    let RecoverArgs {
        file,
        apply,
        profile,
        limit,
    } = args;
    let name = display_name(&file);
    let result = if apply {
        journal_conformance::store::Store::open_bounded(&file, profile, limit.get()).map(|(_, r)| r)
    } else {
        journal_conformance::store::inspect_recovery_bounded(&file, profile, limit.get())
    };
    match result {
        Ok(r) => print_json(&r.to_json()),
        Err(e) => report(&name, e),
    }
}
