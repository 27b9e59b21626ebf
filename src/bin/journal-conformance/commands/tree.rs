//! `journal-conformance tree inspect|validate|show|apply`: the session tree subcommands
//! (SPEC.md section 15).
//!
//! Every action loads FILE or `-` (`X-STDIN-1`) as a tree in the dialect its `--profile`
//! selects: the generic format (15.1: `T-LINE-1`, `T-BLANK-1`, `T-LINE-2`, `T-ENTRY-1`,
//! `T-ID-1`, `T-PARENT-1`, in the order of `T-ORDER-1`; then `T-HEAD-1`, `T-NEXT-1`) or
//! yoagent 0.26's own files (15.4, `T-YO-*`). `inspect` prints the `tree_inspect` view of
//! `T-OPS-1` as canonical JSON (`X-JSON-1`); `validate` prints a located diagnostic, or
//! `{"ok":...}` with `--json`; `show` draws the tree; `apply` runs a JSON array of steps
//! (15.2, 15.3: `T-OPS-1`) where a failed step changes nothing and the others go on
//! (`T-ERR-1`), then writes the saved tree (`T-SAVE-1`) to stdout or atomically to
//! `--out`. `--max-line-bytes` bounds the tree and the OPS document (SPEC.md 16.5).

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Subcommand;

use crate::io::{display_name, open_input, print_json, report, LineLimit};
use crate::io::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use journal_conformance::canonical;
use journal_conformance::error::ReadError;
use journal_conformance::json::Value;
use journal_conformance::tree::Dialect;

#[derive(Subcommand, Debug)]
pub enum TreeAction {
    /// Print head, path_ids, branch_tips, children, entry_count, labels, next_id as JSON.
    Inspect {
        file: PathBuf,
        /// Tree dialect: `core` (the generic format) or `yoagent-0.26` (yoagent 0.26's own
        /// session files, checked exactly as yoagent loads them).
        #[arg(long, default_value = "core")]
        profile: Dialect,
        #[command(flatten)]
        limit: LineLimit,
    },
    /// Check a tree file; exit 1 with a located diagnostic.
    Validate {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// Tree dialect: `core` (the generic format) or `yoagent-0.26` (yoagent 0.26's own
        /// session files, checked exactly as yoagent loads them).
        #[arg(long, default_value = "core")]
        profile: Dialect,
        #[command(flatten)]
        limit: LineLimit,
    },
    /// Draw the tree: one line per entry, branches indented, head and labels marked.
    Show {
        file: PathBuf,
        /// Tree dialect: `core` (the generic format) or `yoagent-0.26` (yoagent 0.26's own
        /// session files, checked exactly as yoagent loads them).
        #[arg(long, default_value = "core")]
        profile: Dialect,
        #[command(flatten)]
        limit: LineLimit,
    },
    /// Apply a JSON array of steps (append, seek, checkpoint, seek_checkpoint,
    /// append_new, save_load) and print the resulting tree file. A step that fails
    /// (T-ERR-1) changes nothing and the others go on: it is named by its 0-based index
    /// on stderr, the tree is still written, and the exit status is 1.
    Apply {
        file: PathBuf,
        ops: PathBuf,
        /// Write the result to this file (atomically) instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Tree dialect: `core` (the generic format) or `yoagent-0.26` (yoagent 0.26's own
        /// session files, checked exactly as yoagent loads them).
        #[arg(long, default_value = "core")]
        profile: Dialect,
        #[command(flatten)]
        limit: LineLimit,
    },
}

/// FILE (or stdin) in the dialect of `profile`, lines bounded by `limit` (SPEC.md 16.5).
fn load(
    file: &std::path::Path,
    profile: Dialect,
    shape_only: bool,
    limit: LineLimit,
) -> Result<journal_conformance::tree::Loaded, ReadError> {
    open_input(file)
        .map_err(ReadError::Io)
        .and_then(|r| journal_conformance::tree::Loaded::read(r, profile, shape_only, limit.get()))
}

/// Run a `tree` action; returns the exit status.
pub fn run(action: TreeAction) -> i32 {
    match action {
        TreeAction::Inspect {
            file,
            profile,
            limit,
        } => match load(&file, profile, true, limit) {
            Ok(t) => print_json(&t.inspect()),
            Err(e) => report(&display_name(&file), e),
        },
        TreeAction::Validate {
            file,
            json,
            profile,
            limit,
        } => {
            let name = display_name(&file);
            let loaded = load(&file, profile, true, limit);
            let loaded = match loaded {
                Ok(t) => Ok(t),
                Err(ReadError::Invalid(e)) => Err(e),
                Err(io) => return report(&name, io),
            };
            match (loaded, json) {
                (Ok(t), false) => {
                    eprintln!("{name}: ok ({} entries)", t.entry_count());
                    EXIT_OK
                }
                (Ok(t), true) => print_json(&Value::object([
                    ("ok", Value::Bool(true)),
                    ("entry_count", Value::from_u64(t.entry_count() as u64)),
                ])),
                (Err(e), true) => {
                    print_json(&Value::object([
                        ("ok", Value::Bool(false)),
                        ("error", e.to_json()),
                    ]));
                    EXIT_INVALID
                }
                (Err(e), false) => report(&name, ReadError::from(e)),
            }
        }
        TreeAction::Show {
            file,
            profile,
            limit,
        } => match load(&file, profile, false, limit) {
            Ok(t) => {
                print!("{}", t.render());
                EXIT_OK
            }
            Err(e) => report(&display_name(&file), e),
        },
        TreeAction::Apply {
            file,
            ops,
            out,
            profile,
            limit,
        } => apply(&file, &ops, out, profile, limit),
    }
}

/// `tree apply FILE OPS [--out F]`: every step in order, a failed step named and the tree
/// unchanged by it (T-ERR-1), then the saved tree to stdout or `--out`. `--out` may not
/// be FILE or OPS: the same file by identity (device and inode), however it is spelled.
fn apply(
    file: &std::path::Path,
    ops: &std::path::Path,
    out: Option<PathBuf>,
    profile: Dialect,
    limit: LineLimit,
) -> i32 {
    use journal_conformance::tree;
    if let Some(o) = &out {
        for (what, input) in [("the input tree", file), ("the OPS document", ops)] {
            if o == input || journal_conformance::fsutil::same_file(o, input) {
                eprintln!(
                    "error: --out {} is {what} ({}): the kit never rewrites its input",
                    o.display(),
                    input.display()
                );
                return EXIT_USAGE;
            }
        }
    }

    let bytes = match open_input(file)
        .and_then(|r| journal_conformance::wire::read_bounded(r, limit.get()))
    {
        Ok(b) => b,
        Err(e) => return report(&display_name(file), ReadError::Io(e)),
    };
    let document = open_input(ops).map_err(ReadError::Io).and_then(|r| {
        // Steps carry messages as deep as an entry's (T-APPEND-1 decides about
        // them), so OPS nests deeper than C-DEPTH-1, as a protocol request does.
        journal_conformance::ops::read_document_with_max_depth(
            r,
            limit.get(),
            journal_conformance::vectors::VECTOR_FILE_MAX_DEPTH,
        )
    });
    let steps = match document {
        Ok(v) => match v
            .as_array()
            .ok_or_else(|| "OPS must be a JSON array of steps".to_owned())
            .and_then(|a| {
                a.iter()
                    .enumerate()
                    .map(|(i, s)| tree::Step::from_json(s).map_err(|e| format!("step {i}: {e}")))
                    .collect::<Result<Vec<_>, _>>()
            }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {}: {e}", display_name(ops));
                return EXIT_USAGE;
            }
        },
        Err(e) => return report(&display_name(ops), e),
    };
    match tree::apply_in_reporting(&bytes, &steps, profile) {
        Ok((v, failed)) => {
            let text = v
                .get("tree")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            eprintln!(
                "results: {}",
                canonical::to_string(v.get("results").unwrap_or(&Value::Null))
            );
            // T-ERR-1: a failed step changed nothing and the others went on; say
            // which step (by its 0-based index in OPS) and exit 1 after writing.
            for (i, e) in &failed {
                let at = e.index.map_or(String::new(), |n| format!(" at index {n}"));
                eprintln!(
                    "{}: step {i} ({}): error[{}]: {}{at}; the tree is unchanged by it",
                    display_name(ops),
                    steps[*i].name(),
                    e.code.as_str(),
                    e.message
                );
            }
            let status = if failed.is_empty() {
                EXIT_OK
            } else {
                EXIT_INVALID
            };
            match out {
                Some(path) => {
                    match journal_conformance::fsutil::write_atomic(&path, text.as_bytes()) {
                        Ok(()) => status,
                        Err(e) => {
                            eprintln!("error: {}: {e}", path.display());
                            EXIT_USAGE
                        }
                    }
                }
                None => {
                    let mut o = io::stdout().lock();
                    let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
                    status
                }
            }
        }
        Err(e) => report(&display_name(file), ReadError::from(e)),
    }
}
