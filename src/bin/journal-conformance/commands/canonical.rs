//! `journal-conformance canonical FILE [--sha256]`: print the canonical JSON text of one
//! JSON value (SPEC.md section 3: parsing per 3.1, canonical text per 3.2; the input is
//! one JSON text per `O-CANON-1`), or the SHA-256 of that text with `--sha256`.
//!
//! FILE may be `-` (`X-STDIN-1`). The document is read streaming by
//! [`journal_conformance::ops::read_document`] (SPEC.md 16.5, "`canonical` streams"), bounded by
//! `--max-line-bytes`.

use std::path::PathBuf;

use crate::io::{display_name, open_input, report, LineLimit, EXIT_OK};
use journal_conformance::error::ReadError;
use journal_conformance::{canonical, fingerprint, ops};

/// Arguments of `canonical`.
#[derive(clap::Args, Debug)]
pub struct CanonicalArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub sha256: bool,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `canonical`; returns the exit status.
pub fn run(args: CanonicalArgs) -> i32 {
    let CanonicalArgs {
        file,
        sha256,
        limit,
    } = args;
    let name = display_name(&file);
    // Streams: memory follows the value; an early error stops buffering.
    match open_input(&file)
        .map_err(ReadError::Io)
        .and_then(|r| ops::read_document(r, limit.get()))
    {
        Ok(v) => {
            let text = canonical::to_string(&v);
            if sha256 {
                println!("{}", fingerprint::sha256_hex(text.as_bytes()));
            } else {
                println!("{text}");
            }
            EXIT_OK
        }
        Err(e) => report(&name, e),
    }
}
