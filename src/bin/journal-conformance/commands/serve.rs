//! `journal-conformance serve`: the reference implementation speaking adapter protocol 1
//! on stdin/stdout (SPEC.md 13.1, rules `A-START-1`, `A-RUN-1`, `A-REQ-1`, `A-STOP-1`).
//!
//! The protocol itself is [`journal_conformance::adapter::serve`]; this module only wires it to the
//! process's standard streams and maps its failure to exit status 2 (`X-EXIT-1`).

use std::io;

use crate::io::{EXIT_OK, EXIT_USAGE};

/// Run `serve`; returns the exit status.
pub fn run() -> i32 {
    let stdin = io::stdin();
    match journal_conformance::adapter::serve::serve(stdin.lock(), io::stdout().lock()) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}
