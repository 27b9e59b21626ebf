//! `journal-conformance summary REPORT...`: a markdown (or `--json`) table of several
//! `test --report` files side by side (SPEC.md 13.5), optionally also a self-contained
//! HTML page (`--html`, [`journal_conformance::html`]).
//!
//! The shards of one `--partition` run are merged into the verdict of the unsharded run,
//! and the command exits with the worst verdict over implementations (`X-VERDICT-1`,
//! `X-EXIT-1`). The table is [`journal_conformance::report::summary`]'s.

use std::path::PathBuf;

use crate::io::EXIT_USAGE;
use journal_conformance::report::{
    self,
    summary::{merge_shards, table, ReportSummary},
};

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
        if let Err(e) = journal_conformance::html::write_page(out, &reports) {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    }
    let mut all = Vec::new();
    for p in &reports {
        match report::read(p)
            .map_err(|e| e.to_string())
            .and_then(|r| ReportSummary::of(&r).map_err(|e| e.to_string()))
        {
            Ok(s) => all.push(s),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let merged = match merge_shards(all) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    print!("{}", table(&merged, json));
    merged
        .iter()
        .map(|r| r.status().code)
        .max()
        .unwrap_or(EXIT_USAGE)
}
