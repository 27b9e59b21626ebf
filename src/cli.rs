//! The command-line interface (SPEC.md section "Command line", rules `X-*`).
//!
//! This module owns argument parsing (clap), reading FILE or `-` (stdin), printing
//! results as JSON with SPEC.md's field names, human diagnostics, and the exit
//! status contract: 0 ok, 1 invalid input or non-conformant, 2 usage or internal
//! error. The body of each subcommand (and its arguments, where they are its own) lives
//! in [`crate::commands`], one module per subcommand; [`run`] only dispatches to them.

use std::io::{self, BufRead, BufReader, Write};

use clap::{Parser, Subcommand};

use crate::canonical;
use crate::error::{Error, ReadError};
use crate::json::Value;

pub use crate::commands::golden::GoldenAction;
pub use crate::commands::tree::TreeAction;

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
    Validate(crate::commands::validate::ValidateArgs),
    /// Print the replay projection (ReplayState) of events 0..=N as JSON.
    Replay(crate::commands::replay::ReplayArgs),
    /// Append events (JSONL from EVENTS or stdin) durably; one acknowledgement line per
    /// event on stdout, printed only once the event is on disk.
    Append(crate::commands::append::AppendArgs),
    /// Report what opening the store would do with a torn tail; --apply does it.
    Recover(crate::commands::recover::RecoverArgs),
    /// Write a checkpoint of the journal (default FILE.checkpoint.json).
    Checkpoint(crate::commands::checkpoint::CheckpointArgs),
    /// Print the fingerprint (lowercase hex SHA-256) of events 0..=N.
    Fingerprint(crate::commands::fingerprint::FingerprintArgs),
    /// Print the branch record (SessionBranch) forking after sequence N.
    Branch(crate::commands::branch::BranchArgs),
    /// Print the canonical JSON text of one JSON value (or its SHA-256 with --sha256).
    Canonical(crate::commands::canonical::CanonicalArgs),
    /// Run the conformance corpus against the reference (default) or an adapter.
    ///
    /// Exit 0 when every selected case passed or was skipped and something was checked,
    /// 1 when a case failed or errored or nothing was checked, 2 on usage errors
    /// (an empty selection included). `test --help` explains filters, groups, rules,
    /// skip lists, exit codes and report formats.
    Test(Box<crate::commands::test::TestArgs>),
    /// Speak adapter protocol 1 on stdin/stdout with the reference implementation.
    Serve,
    /// Print a markdown (or --json) table of several `test --report` files side by side;
    /// the shards of one `--partition` run are merged. Exits with the worst verdict.
    Summary(crate::commands::summary::SummaryArgs),
    /// Session trees (SPEC.md section 15): inspect, validate, show, apply operations.
    Tree {
        #[command(subcommand)]
        action: TreeAction,
    },
    /// Write generated journals (valid or with a defect) and their vector sidecars.
    Generate(crate::generate::cli::GenerateArgs),
    /// Print one conformance case: description, rules, tags, escaped input, checks.
    Show(crate::commands::show::ShowArgs),
    /// The golden traces shipped with the kit.
    Golden {
        #[command(subcommand)]
        action: GoldenAction,
    },
}

/// `--max-line-bytes N` (SPEC.md 16.5): the longest line a command reads.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LineLimit {
    /// Longest line accepted, in bytes (an implementation limit, SPEC.md 16.5); a longer
    /// line is an I/O error (exit 2) naming the file and line.
    #[arg(long = "max-line-bytes", value_name = "N",
          default_value_t = crate::wire::DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_line_bytes: u64,
}

impl LineLimit {
    pub fn get(self) -> usize {
        usize::try_from(self.max_line_bytes).unwrap_or(usize::MAX)
    }
}

/// Open FILE, or stdin for `-`.
pub fn open_input(path: &std::path::Path) -> io::Result<Box<dyn BufRead + Send>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(BufReader::with_capacity(1 << 16, io::stdin())))
    } else {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path)?,
        )))
    }
}

pub(crate) fn display_name(path: &std::path::Path) -> String {
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

pub(crate) fn print_json(v: &Value) -> i32 {
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

/// Stream the replay projection's canonical JSON and a newline (as `print_json` would).
pub(crate) fn print_projection(p: &crate::fast::Projection) -> i32 {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match p
        .write_json(&mut out)
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush())
    {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            EXIT_USAGE
        }
    }
}

/// Report a failed read: a located diagnostic (exit 1) or an I/O error (exit 2).
pub(crate) fn report(file: &str, e: ReadError) -> i32 {
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
        Command::Validate(args) => crate::commands::validate::run(args),
        Command::Replay(args) => crate::commands::replay::run(args),
        Command::Append(args) => crate::commands::append::run(args),
        Command::Recover(args) => crate::commands::recover::run(args),
        Command::Checkpoint(args) => crate::commands::checkpoint::run(args),
        Command::Fingerprint(args) => crate::commands::fingerprint::run(args),
        Command::Branch(args) => crate::commands::branch::run(args),
        Command::Canonical(args) => crate::commands::canonical::run(args),
        Command::Test(t) => crate::commands::test::run(*t),
        Command::Serve => crate::commands::serve::run(),
        Command::Summary(args) => crate::commands::summary::run(args),
        Command::Tree { action } => crate::commands::tree::run(action),
        Command::Generate(args) => crate::commands::generate::run(args),
        Command::Show(args) => crate::commands::show::run(args),
        Command::Golden { action } => crate::commands::golden::run(action),
    }
}
