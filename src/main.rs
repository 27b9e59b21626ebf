//! The `journal-conformance` command; all logic lives in the library's `cli` module.

fn main() {
    std::process::exit(journal_conformance::cli::main());
}
