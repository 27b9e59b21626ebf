//! `journal-conformance branch FILE --at N --id ID`: print the branch record
//! (SessionBranch, SPEC.md section 8: rules `B-ID-1`, `B-ID-2`, `B-RANGE-1`,
//! `B-PARENT-1`, checked in the order of `O-ORDER-1`) as one line of canonical JSON
//! (`X-JSON-1`).
//!
//! FILE may be `-` (`X-STDIN-1`); the record is built by [`journal_conformance::fast::branch`], and
//! `--max-line-bytes` is the limit of SPEC.md 16.5.

use std::path::PathBuf;

use crate::io::{display_name, open_input, print_json, report, LineLimit};
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;

/// Arguments of `branch`.
#[derive(clap::Args, Debug)]
pub struct BranchArgs {
    pub file: PathBuf,
    #[arg(long, allow_negative_numbers = true)]
    pub at: i64,
    /// The branch id (`--branch-id` is accepted too, as in one-shot adapters).
    #[arg(long, visible_alias = "branch-id")]
    pub id: String,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `branch`; returns the exit status.
pub fn run(args: BranchArgs) -> i32 {
    let BranchArgs {
        file,
        at,
        id,
        profile,
        limit,
    } = args;
    let name = display_name(&file);
    match open_input(&file).map_err(ReadError::Io).and_then(|r| {
        journal_conformance::fast::branch(
            r,
            &journal_conformance::fast::Options::new(profile).with_max_line_bytes(limit.get()),
            at,
            &id,
        )
    }) {
        Ok(b) => print_json(&b.to_json()),
        Err(e) => report(&name, e),
    }
}
