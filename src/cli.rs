//! The command-line interface (SPEC.md section "Command line", rules `X-*`).
//!
//! This module owns argument parsing (clap), reading FILE or `-` (stdin), printing
//! results as JSON with SPEC.md's field names, human diagnostics, and the exit
//! status contract: 0 ok, 1 invalid input or non-conformant, 2 usage or internal
//! error.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::Error;
use crate::event::Profile;
use crate::journal::ReadError;
use crate::json::Value;
use crate::{branch, canonical, fingerprint, golden, journal, ops, replay};

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: invalid input or non-conformant implementation.
pub const EXIT_INVALID: i32 = 1;
/// Exit status: usage or internal error.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "journal-conformance",
    version,
    about = "Conformance kit for append-only JSONL session journals",
    long_about = "Validate, replay, fingerprint and branch JSONL session journals exactly as SPEC.md \
                  defines them. Every FILE may be `-` for standard input. Exit status: 0 ok, \
                  1 invalid input or non-conformant, 2 usage or internal error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a journal against every rule of SPEC.md; exit 1 with a located diagnostic.
    Validate {
        file: PathBuf,
        #[arg(long, default_value = "core")]
        profile: Profile,
        /// Print `{"ok":...}` JSON instead of a human diagnostic.
        #[arg(long)]
        json: bool,
    },
    /// Print the replay projection (ReplayState) of events 0..=N as JSON.
    Replay {
        file: PathBuf,
        #[arg(long, allow_negative_numbers = true)]
        until: Option<i64>,
        #[arg(long, default_value = "core")]
        profile: Profile,
    },
    /// Print the fingerprint (lowercase hex SHA-256) of events 0..=N.
    Fingerprint {
        file: PathBuf,
        #[arg(long, allow_negative_numbers = true)]
        until: Option<i64>,
        #[arg(long, default_value = "core")]
        profile: Profile,
    },
    /// Print the branch record (SessionBranch) forking after sequence N.
    Branch {
        file: PathBuf,
        #[arg(long, allow_negative_numbers = true)]
        at: i64,
        #[arg(long)]
        id: String,
        #[arg(long, default_value = "core")]
        profile: Profile,
    },
    /// Print the canonical JSON text of one JSON value (or its SHA-256 with --sha256).
    Canonical {
        file: PathBuf,
        #[arg(long)]
        sha256: bool,
    },
    /// Write generated journals (valid or with a defect) and their vector sidecars.
    Generate(crate::generate::cli::GenerateArgs),
    /// The golden traces shipped with the kit.
    Golden {
        #[command(subcommand)]
        action: GoldenAction,
    },
}

#[derive(Subcommand, Debug)]
pub enum GoldenAction {
    /// Check the reference against every golden trace's expected outputs.
    Verify,
}

/// Open FILE, or stdin for `-`.
pub fn open_input(path: &std::path::Path) -> io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(BufReader::with_capacity(1 << 16, io::stdin())))
    } else {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path)?,
        )))
    }
}

fn display_name(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// A human diagnostic: `FILE:LINE:COL: error[code]: message`, then the line.
pub fn diagnostic(file: &str, e: &Error) -> String {
    let mut place = file.to_owned();
    if let Some(l) = e.line {
        place.push_str(&format!(":{l}"));
        if let Some(c) = e.column {
            place.push_str(&format!(":{c}"));
        }
    }
    let mut s = format!("{place}: error[{}]: {}", e.code, e.message);
    let mut ctx = Vec::new();
    if let Some(seq) = e.sequence {
        ctx.push(format!("sequence {seq}"));
    }
    if let Some(id) = &e.event_id {
        ctx.push(format!("event_id {id:?}"));
    }
    if !ctx.is_empty() {
        s.push_str(&format!(" ({})", ctx.join(", ")));
    }
    if let Some(x) = &e.excerpt {
        s.push_str(&format!("\n  | {x}"));
    }
    s
}

fn print_json(v: &Value) -> i32 {
    let mut out = io::stdout().lock();
    let mut text = canonical::to_string(v);
    text.push('\n');
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            EXIT_USAGE
        }
    }
}

/// Report a failed read: a located diagnostic (exit 1) or an I/O error (exit 2).
fn report(file: &str, e: ReadError) -> i32 {
    match e {
        ReadError::Invalid(e) => {
            eprintln!("{}", diagnostic(file, &e));
            EXIT_INVALID
        }
        ReadError::Io(e) => {
            eprintln!("error: {file}: {e}");
            EXIT_USAGE
        }
    }
}

/// Run the CLI with the process arguments; returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    run(cli)
}

/// Run a parsed command; returns the exit status.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Validate {
            file,
            profile,
            json,
        } => {
            let name = display_name(&file);
            let result = open_input(&file)
                .map_err(ReadError::Io)
                .and_then(|r| journal::validate(r, profile));
            match (result, json) {
                (Ok(n), false) => {
                    eprintln!("{name}: ok ({n} events, profile {})", profile.as_str());
                    EXIT_OK
                }
                (Ok(n), true) => print_json(&Value::object([
                    ("ok", Value::Bool(true)),
                    ("event_count", Value::from_u64(n)),
                ])),
                (Err(ReadError::Invalid(e)), true) => {
                    print_json(&Value::object([
                        ("ok", Value::Bool(false)),
                        ("error", e.to_json()),
                    ]));
                    EXIT_INVALID
                }
                (Err(e), _) => report(&name, e),
            }
        }
        Command::Replay {
            file,
            until,
            profile,
        } => {
            let name = display_name(&file);
            match open_input(&file)
                .map_err(ReadError::Io)
                .and_then(|r| replay::replay(r, profile, until))
            {
                Ok(state) => print_json(&state.to_json()),
                Err(e) => report(&name, e),
            }
        }
        Command::Fingerprint {
            file,
            until,
            profile,
        } => {
            let name = display_name(&file);
            match open_input(&file)
                .map_err(ReadError::Io)
                .and_then(|r| replay::fingerprint(r, profile, until))
            {
                Ok(fp) => {
                    println!("{fp}");
                    EXIT_OK
                }
                Err(e) => report(&name, e),
            }
        }
        Command::Branch {
            file,
            at,
            id,
            profile,
        } => {
            let name = display_name(&file);
            match open_input(&file)
                .map_err(ReadError::Io)
                .and_then(|r| branch::branch(r, profile, at, &id))
            {
                Ok(b) => print_json(&b.to_json()),
                Err(e) => report(&name, e),
            }
        }
        Command::Canonical { file, sha256 } => {
            let name = display_name(&file);
            let mut bytes = Vec::new();
            if let Err(e) = open_input(&file).and_then(|mut r| r.read_to_end(&mut bytes)) {
                return report(&name, ReadError::Io(e));
            }
            match ops::parse_document(&bytes) {
                Ok(v) => {
                    let text = canonical::to_string(&v);
                    if sha256 {
                        println!("{}", fingerprint::sha256_hex(text.as_bytes()));
                    } else {
                        println!("{text}");
                    }
                    EXIT_OK
                }
                Err(e) => report(&name, ReadError::Invalid(e)),
            }
        }
        Command::Generate(args) => match crate::generate::cli::run(&args) {
            Ok(summary) => {
                eprintln!(
                    "generate: wrote {} journals with sidecars to {}",
                    summary.files.len(),
                    args.out.display()
                );
                EXIT_OK
            }
            Err(e) => {
                eprintln!("error: {e}");
                EXIT_USAGE
            }
        },
        Command::Golden {
            action: GoldenAction::Verify,
        } => match golden::verify() {
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
