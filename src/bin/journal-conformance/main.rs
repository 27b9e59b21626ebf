//! The `journal-conformance` command: [`cli`] parses the arguments and dispatches to one
//! module per subcommand ([`commands`], as cargo's `src/bin/cargo/commands/`), which share
//! [`io`]. Everything the commands do lives in the library; this crate only parses, prints
//! and maps outcomes to exit statuses.

mod cli;
mod commands;
mod io;

fn main() {
    journal_conformance::fast::tune_allocator();
    // The command line's only children are adapters: it may take every orphan it inherits
    // for an adapter's (a library user's process may have other children, so the runner
    // does not do this on its own).
    journal_conformance::adapter::process::supervise();
    // A panic, on this thread or raised here from a worker's (`fast`), is a bug of the
    // kit: the default hook prints it, and the exit status is 2, an internal error (the
    // README's statuses), not Rust's 101.
    std::process::exit(std::panic::catch_unwind(cli::main).unwrap_or(2));
}
