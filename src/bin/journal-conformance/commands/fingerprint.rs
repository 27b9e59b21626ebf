//! `journal-conformance fingerprint FILE [--until N]`: print the fingerprint of events
//! `0..=N` (SPEC.md section 7, rules `F-FP-1`, `F-FP-2`; `O-RANGE-1` for `--until`) as the
//! bare lowercase hex digest (`X-JSON-1`).
//!
//! FILE may be `-` (`X-STDIN-1`); the computation is [`journal_conformance::fast::fingerprint`], and
//! `--max-line-bytes` is the limit of SPEC.md 16.5.

use std::path::PathBuf;

use crate::io::{display_name, open_input, report, LineLimit, EXIT_OK};
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;

/// Arguments of `fingerprint`.
#[derive(clap::Args, Debug)]
pub struct FingerprintArgs {
    pub file: PathBuf,
    #[arg(long, allow_negative_numbers = true)]
    pub until: Option<i64>,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `fingerprint`; returns the exit status.
pub fn run(args: FingerprintArgs) -> i32 {
    let FingerprintArgs {
        file,
        until,
        profile,
        limit,
    } = args;
    let name = display_name(&file);
    match open_input(&file).map_err(ReadError::Io).and_then(|r| {
        journal_conformance::fast::fingerprint(
            r,
            &journal_conformance::fast::Options::new(profile).with_max_line_bytes(limit.get()),
            until,
        )
    }) {
        Ok(fp) => {
            println!("{fp}");
            EXIT_OK
        }
        Err(e) => report(&name, e),
    }
}
