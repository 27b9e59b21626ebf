//! `journal-conformance summary REPORT...`: a markdown (or `--json`) table of several
//! `test --report` files side by side (SPEC.md 13.5), optionally also a self-contained
//! HTML page (`--html`, [`journal_conformance::html`]).
//!
//! The shards of one `--partition` run are merged into the verdict of the unsharded run,
//! and the command exits with the worst verdict over implementations (`X-VERDICT-1`,
//! `X-EXIT-1`). The table is [`journal_conformance::report::summary`]'s.

use std::path::PathBuf;

use crate::io::EXIT_USAGE;
use journal_conformance::canonical;
use journal_conformance::json::Value;
use journal_conformance::report::{
    self,
    summary::{markdown_cell, merge, table, worst_status},
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

/// Run `summary`; returns the exit status: the worst verdict, 2 when the reports are
/// not complete runs (or shards of one), or cannot be read. The markdown and the page say
/// the same: INCOMPLETE and why.
pub fn run(args: SummaryArgs) -> i32 {
    let SummaryArgs {
        reports,
        json,
        html,
    } = args;
    if let Some(out) = &html {
        if let Some(why) = journal_conformance::html::refuse_output(out, &reports) {
            eprintln!("error: {why}");
            return EXIT_USAGE;
        }
    }
    let merged = reports
        .iter()
        .map(|p| report::read(p))
        .collect::<Result<Vec<_>, _>>()
        .and_then(merge);
    let (text, page, status) = match &merged {
        Ok(m) => (
            table(m, json),
            journal_conformance::html::render(m),
            worst_status(m),
        ),
        Err(e) => {
            eprintln!("error: {e}");
            let why = e.to_string();
            let text = if json {
                format!(
                    "{}\n",
                    canonical::to_string(&Value::object([
                        ("status", Value::from_i64(2)),
                        ("verdict", Value::from("INCOMPLETE")),
                        ("error", Value::from(why.as_str())),
                    ]))
                )
            } else {
                format!("**INCOMPLETE**: no verdict: {}\n", markdown_cell(&why))
            };
            (
                text,
                journal_conformance::html::render_incomplete(&why),
                EXIT_USAGE,
            )
        }
    };
    if let Some(out) = &html {
        if let Err(e) = journal_conformance::html::write_page(out, &page) {
            eprintln!("error: {e}");
            print!("{text}");
            return EXIT_USAGE;
        }
    }
    print!("{text}");
    status
}
