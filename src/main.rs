//! The `journal-conformance` command; all logic lives in the library's `cli` module.

fn main() {
    journal_conformance::fast::tune_allocator();
    std::process::exit(journal_conformance::cli::main());
}
