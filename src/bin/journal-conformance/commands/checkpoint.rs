//! `journal-conformance checkpoint FILE [--out CK]`: write a checkpoint of the journal
//! (default `FILE.checkpoint.json`; SPEC.md 16.3: `K-RECORD-1`, `K-WRITE-1`) and print
//! where it went, its `event_count`, `source_offset` and `source_fingerprint` as one line
//! of canonical JSON (`X-JSON-1`).
//!
//! The journal is never modified (`K-WRITE-1`); one that is not a regular file is refused
//! (`S-FILE-1`), and `--max-line-bytes` is the limit of SPEC.md 16.5. Replaying from the
//! checkpoint is `replay --from-checkpoint` ([`super::replay`]).

use std::path::PathBuf;

use crate::io::{display_name, print_json, report, LineLimit};
use journal_conformance::event::JournalProfile;
use journal_conformance::json::Value;

/// Arguments of `checkpoint`.
#[derive(clap::Args, Debug)]
pub struct CheckpointArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `checkpoint`; returns the exit status.
pub fn run(args: CheckpointArgs) -> i32 {
    let CheckpointArgs {
        file,
        out,
        profile,
        limit,
    } = args;
    let ck = out.unwrap_or_else(|| {
        let mut p = file.clone().into_os_string();
        p.push(".checkpoint.json");
        PathBuf::from(p)
    });
    match journal_conformance::store::checkpoint_file_bounded(&file, &ck, profile, limit.get()) {
        Ok(c) => print_json(&Value::object([
            ("checkpoint", Value::from(ck.display().to_string())),
            ("event_count", Value::from_u64(c.event_count)),
            ("source_offset", Value::from_u64(c.source_offset)),
            ("source_fingerprint", Value::from(c.source_fingerprint)),
        ])),
        Err(e) => report(&display_name(&file), e),
    }
}
