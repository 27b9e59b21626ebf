//! `journal-conformance replay FILE [--until N | --from-checkpoint CK]`: print the replay
//! projection (SPEC.md section 6, the ReplayState; rules `R-SEL-1`, `R-PROJ-1`, with
//! `O-RANGE-1` for `--until`) as one line of canonical JSON (`X-JSON-1`).
//!
//! Without `--from-checkpoint` the journal is read from FILE or `-` (`X-STDIN-1`) by
//! [`journal_conformance::fast::replay`]; with it, replay restores the checkpoint and reads only the
//! tail (SPEC.md 16.3, `K-REPLAY-1`), or ignores a checkpoint that does not fit and says
//! why on stderr (`K-IGNORE-1`). `--max-line-bytes` is the limit of SPEC.md 16.5.

use std::path::PathBuf;

use crate::io::{display_name, open_input, print_json, print_projection, report, LineLimit};
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;

/// Arguments of `replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    pub file: PathBuf,
    #[arg(
        long,
        allow_negative_numbers = true,
        conflicts_with = "from_checkpoint"
    )]
    pub until: Option<i64>,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    /// Start from this checkpoint and read only the tail (ignored, with a note on
    /// stderr, when it does not fit the journal).
    #[arg(long)]
    pub from_checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `replay`; returns the exit status.
pub fn run(args: ReplayArgs) -> i32 {
    let ReplayArgs {
        file,
        until,
        profile,
        from_checkpoint,
        limit,
    } = args;
    match from_checkpoint {
        Some(ck) => {
            match journal_conformance::store::replay_from_checkpoint_bounded(
                &file,
                &ck,
                profile,
                limit.get(),
            ) {
                Ok((state, used)) => {
                    match used {
                        journal_conformance::store::CheckpointUse::Used { tail_events } => {
                            eprintln!("checkpoint used: {tail_events} tail events replayed")
                        }
                        journal_conformance::store::CheckpointUse::Ignored(why) => {
                            eprintln!("checkpoint ignored ({why}); replayed from event zero")
                        }
                    }
                    print_json(&state.to_json())
                }
                Err(e) => report(&display_name(&file), e),
            }
        }
        None => {
            let name = display_name(&file);
            match open_input(&file).map_err(ReadError::Io).and_then(|r| {
                journal_conformance::fast::replay(
                    r,
                    &journal_conformance::fast::Options::new(profile)
                        .with_max_line_bytes(limit.get()),
                    until,
                )
            }) {
                Ok(projection) => print_projection(&projection),
                Err(e) => report(&name, e),
            }
        }
    }
}
