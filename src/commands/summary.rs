//! `journal-conformance summary REPORT...`: a markdown (or `--json`) table of several
//! `test --report` files side by side (SPEC.md 13.5), optionally also a self-contained
//! HTML page (`--html`, [`crate::html`]).
//!
//! The shards of one `--partition` run are merged into the verdict of the unsharded run,
//! and the command exits with the worst verdict over implementations (`X-VERDICT-1`,
//! `X-EXIT-1`). The table is [`crate::runner::summary_command`].

use std::path::PathBuf;

use crate::cli::EXIT_USAGE;

/// Arguments of `summary`.
#[derive(clap::Args, Debug)]
pub struct SummaryArgs {
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML results page here.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
}

/// Run `summary`; returns the exit status.
pub fn run(args: SummaryArgs) -> i32 {
    let SummaryArgs {
        reports,
        json,
        html,
    } = args;
    if let Some(out) = &html {
        if let Err(e) = crate::html::write_page(out, &reports) {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    }
    crate::runner::summary_command(&reports, json)
}
