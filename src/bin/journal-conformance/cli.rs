//! The command line's root (SPEC.md section 11, rules `X-*`): the clap definition of every
//! subcommand and the dispatch to [`crate::commands`], one module per subcommand (each
//! owns its arguments, where they are its own, and its `run`).

use clap::{Parser, Subcommand};

use crate::io::{EXIT_OK, EXIT_USAGE};

pub use crate::commands::golden::GoldenAction;
pub use crate::commands::tree::TreeAction;

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
    /// Complexity findings: grow the shapes where implementations go quadratic (a chain, a
    /// fan, one huge line, ...) at n, 4n, 16n through an adapter and the reference, and
    /// report where the adapter's time grows faster (SPEC.md section 17). Exit 1 on a finding.
    Scale(crate::commands::scale::ScaleArgs),
    /// A fuzz campaign against an adapter, the reference as the oracle: the corpus replayed,
    /// then generated and mutated inputs until --runs or --duration; a disagreement, crash or
    /// hang is a finding, shrunk and written as a vector (SPEC.md 13.7). Exit 1 on a finding.
    Fuzz(Box<crate::commands::fuzz::FuzzArgs>),
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
    Generate(journal_conformance::generate::cli::GenerateArgs),
    /// Print one conformance case: description, rules, tags, escaped input, checks.
    Show(crate::commands::show::ShowArgs),
    /// The golden traces shipped with the kit.
    Golden {
        #[command(subcommand)]
        action: GoldenAction,
    },
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
        Command::Scale(args) => crate::commands::scale::run(args),
        Command::Fuzz(args) => crate::commands::fuzz::run(*args),
        Command::Serve => crate::commands::serve::run(),
        Command::Summary(args) => crate::commands::summary::run(args),
        Command::Tree { action } => crate::commands::tree::run(action),
        Command::Generate(args) => crate::commands::generate::run(args),
        Command::Show(args) => crate::commands::show::run(args),
        Command::Golden { action } => crate::commands::golden::run(action),
    }
}
