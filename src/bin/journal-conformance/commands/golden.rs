//! `journal-conformance golden verify`: check the reference against every golden trace's
//! expected outputs (SPEC.md section 14, rules `G-1`, `G-2`).
//!
//! The traces and their checking are [`journal_conformance::golden`]; this module prints one line per
//! expected operation and a closing count, and exits 1 when one failed (`X-EXIT-1`).

use clap::Subcommand;

use crate::io::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use journal_conformance::canonical;

#[derive(Subcommand, Debug)]
pub enum GoldenAction {
    /// Check the reference against every golden trace's expected outputs.
    Verify,
}

/// Run a `golden` action; returns the exit status.
pub fn run(action: GoldenAction) -> i32 {
    match action {
        GoldenAction::Verify => match journal_conformance::golden::verify() {
            Ok(results) => {
                let failed = results.iter().filter(|r| !r.ok).count();
                for r in &results {
                    let status = if r.ok { "ok" } else { "FAILED" };
                    println!(
                        "golden {} {} ... {status}",
                        r.trace,
                        canonical::to_string(&r.op.to_json())
                    );
                    if !r.ok {
                        println!("    {}", r.detail);
                    }
                }
                println!(
                    "\ngolden: {} passed, {} failed",
                    results.len() - failed,
                    failed
                );
                if failed == 0 {
                    EXIT_OK
                } else {
                    EXIT_INVALID
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                EXIT_USAGE
            }
        },
    }
}
