//! `journal-conformance generate`: write generated journals, valid or with a defect, and
//! their vector sidecars (the vector format of SPEC.md section 12, `V-FILE-1`,
//! `V-CASE-1`, `V-EXPECT-1`; a `mixed` journal is labelled by the precedence rule
//! `J-ORDER-1`). `--kind list` prints the kinds.
//!
//! The arguments ([`GenerateArgs`]) and the generation itself live in
//! [`journal_conformance::generate::cli`], which the kit's tests call directly; this module prints the
//! outcome and maps it to the exit status (`X-EXIT-1`).

use crate::io::{EXIT_OK, EXIT_USAGE};
use journal_conformance::generate::cli::GenerateArgs;

/// Run `generate`; returns the exit status.
pub fn run(args: GenerateArgs) -> i32 {
    if args.kind == "list" {
        for k in journal_conformance::generate::cli::kinds() {
            println!("{k}");
        }
        return EXIT_OK;
    }
    // A progress bar on a terminal only (indicatif draws nothing otherwise).
    let bar = (args.count >= 100 && std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .then(|| indicatif::ProgressBar::new(args.count as u64));
    let mut progress = |_: usize, _: usize| {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let outcome = journal_conformance::generate::cli::run_with_progress(&args, &mut progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    match outcome {
        Ok(summary) => {
            eprintln!(
                "generate: wrote {} journals with sidecars to {}",
                summary.files.len(),
                args.out
                    .as_ref()
                    .map_or(String::new(), |o| o.display().to_string())
            );
            EXIT_OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}
