//! The mutation gate (issue 19 item 1): the ONLY test target `cargo mutants` runs
//! (`.cargo/mutants.toml`: `--test mutation_gate`), so a mutant of the reference counts as
//! caught only when the conformance corpus or the golden traces, run through one of the
//! paths that answer for the kit, fail a vector. The kit's own unit and integration tests
//! never decide it. The paths:
//!
//! - in process: the binary's `test` against the built-in reference (`Reference`, the
//!   embedded corpus and `golden/`), as `cargo run --release -- test` runs it;
//! - out of process: `test --adapter "<bin> serve"` (protocol 1, the checked fast path
//!   `crate::fast` behind `serve`);
//! - the command line: `validate --json`, `replay`, `fingerprint`, `branch` over every
//!   journal check of the hand-written groups and the golden traces, and `checkpoint` then
//!   `replay --from-checkpoint` (checkpoint restore, which no protocol operation reaches)
//!   over every whole-journal replay of the same cases, valid or not, and, on every fourth
//!   valid one, with the checkpoint spoiled in each way K-IGNORE-1 lists;
//! - `recover` and `recover --apply` on the initial journal of every `store_apply` check;
//! - the `tree` command: `tree inspect` and `tree validate --json` over every 16th
//!   `tree_inspect` check of the same groups, and `canonical` (the streaming document
//!   reader) over every `canonical` check;
//! - `golden verify`, the golden traces' own command;
//! - the judgement every path trusts (`verdict::judge`): over every check, the expected
//!   answer is right and each answer that differs from it in one way is wrong (a
//!   comparator that accepts too much is invisible to a correct reference);
//! - the fast paths' speed contracts, which the answers cannot show: the journal fast path
//!   takes every line the oracle reads (and a canonical line as canonical), and the
//!   `yoagent-0.26` fast path vouches for every entry in a plain form (a declined line is
//!   answered right by the slow path, so a fast path that declines too much is otherwise
//!   invisible).
//!
//! - `tree show`'s drawing, derived from the vector's expected children and head;
//! - the column of an `invalid_utf8` error, as W-UTF8-1 defines it;
//! - the line bound of SPEC.md 16.5 (an implementation limit no vector may depend on),
//!   with `--max-line-bytes` at and one below each input's longest line, measured here;
//! - the library's own API where no command calls it (`journal::read`, `Loaded::load`,
//!   the session and tree lookups, a shape-only load's drawing, `Store::open`'s `end`
//!   and `is_empty`, `inspect_recovery`), judged against the vector's expectation;
//! - the store's rules no vector can reach (SPEC.md 16: injected write and sync faults
//!   while appending the corpus's valid journals, a second writer, the lock's grace, a
//!   FIFO, a directory, a missing journal), each expected value SPEC's text;
//! - reads that fail or are interrupted (X-EXIT-1), through the journal fast path,
//!   which reads nothing after the input's end or failure;
//! - the memory SPEC.md 16.5 promises (`canonical` stops buffering at a settled error;
//!   the journal readers hold blocks, not the file), as the child's peak resident set;
//! - the differential phase's generated cases (D-CASES-1: what the handshake offers, both
//!   journal profiles) and the generator's labels, which the reference must answer;
//!   `fuzz --ops`; and the vectors `generate` writes, which must pass the reference;
//! - what the reference's messages say where SPEC.md or the kit promises it (a wrong
//!   type's message names the type found, a profile violation its JSON Pointer, a
//!   sequence gap both sequences, a usage error the choices), each fragment derived from
//!   the input.
//!
//! Every expected value is the corpus's own (SPEC-derived, see conformance/README.md) or
//! SPEC's text; the gate adds none. What it adds are inputs made from the corpus's (a
//! checkpoint of a journal's first half, spoiled checkpoints, faulty files and readers),
//! whose expectation is SPEC's text: K-REPLAY-1 (a restore answers as the replay from
//! event zero does), K-IGNORE-1 (a checkpoint that does not fit is ignored, with a note,
//! and the replay done from event zero), S-FAULT-1, X-EXIT-1.
//! `conformance/mutants/README.md` numbers the paths and records the campaigns.
//!
//! One target (`scripts/mutants-tree.sh` builds it alone), one module per group of paths
//! in `tests/mutation_gate/`: `corpus` (1, 2, 7), `command_line` (3, 6), `checkpoints`
//! (4), `store` (5, 16), `judge` (8), `fast_paths` (9, 10, 11, 17), `documented` (12, 13,
//! 14), `library_api` (15), `limits` (18), `differential` (19), `messages` (20). This file holds what several of them use.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use journal_conformance::json::{self, Value};
use journal_conformance::ops::{Operation, Profile};
use journal_conformance::vectors::{self, Case, Level};
use journal_conformance::verdict::{judge, Answer, Expect};

#[path = "mutation_gate/checkpoints.rs"]
mod checkpoints;
#[path = "mutation_gate/command_line.rs"]
mod command_line;
#[path = "mutation_gate/corpus.rs"]
mod corpus;
#[path = "mutation_gate/differential.rs"]
mod differential;
#[path = "mutation_gate/documented.rs"]
mod documented;
#[path = "mutation_gate/fast_paths.rs"]
mod fast_paths;
#[path = "mutation_gate/judge.rs"]
mod judge;
#[path = "mutation_gate/library_api.rs"]
mod library_api;
#[path = "mutation_gate/limits.rs"]
mod limits;
#[path = "mutation_gate/messages.rs"]
mod messages;
#[path = "mutation_gate/store.rs"]
mod store;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

/// Whether a gate test has failed in this process (see [`fail_fast`]).
static FAILED: AtomicBool = AtomicBool::new(false);

/// A gate test in progress: dropped while panicking (the test failed), it marks the run as
/// failed.
struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        if std::thread::panicking() {
            FAILED.store(true, Ordering::SeqCst);
        }
    }
}

/// Every gate test starts with `let Some(_running) = fail_fast() else { return };`. In a
/// campaign tree (`scripts/mutants-tree.sh` builds it with `JC_MUTATION_TREE` set) the
/// gate stops at its first failure, as `cargo nextest` would: once one test has failed,
/// the mutant is caught, so the tests not yet started return at once instead of running
/// (a caught mutant's whole run took as long as the unmutated gate's, 30 to 50 s in debug
/// on two cores). Skipping can only follow a failure, so it never turns a run green. In
/// the repository (`cargo test`) every test runs, for the whole diagnosis.
fn fail_fast() -> Option<Running> {
    if option_env!("JC_MUTATION_TREE").is_some() && FAILED.load(Ordering::SeqCst) {
        eprintln!("fail-fast: a gate test has already failed in this campaign tree; skipped");
        return None;
    }
    Some(Running)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the kit")
}

fn assert_test_run(args: &[&str]) {
    assert_passed(args, &run(args));
}

/// A `test` run's output says it passed: exit 0, `conformance ok`, nothing failed.
fn assert_passed(args: &[&str], out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}\n{}\n{}",
        stdout
            .lines()
            .filter(|l| l.contains("FAILED") || l.contains("ERRORED") || l.contains("conformance"))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("conformance ok"), "{stdout}");
    assert!(stdout.contains(" 0 failed, 0 errored"), "{stdout}");
}

/// The journal profiles the command line takes (`--profile`).
fn journal_profile(p: Profile) -> Option<&'static str> {
    match p {
        Profile::Core => Some("core"),
        Profile::Trace01 => Some("trace-0.1"),
        Profile::Yoagent026 => None,
    }
}

/// The `--profile` of a tree check's dialect (`None` for a journal profile).
fn tree_dialect(p: Profile) -> Option<&'static str> {
    match p {
        Profile::Core => Some("core"),
        Profile::Yoagent026 => Some("yoagent-0.26"),
        Profile::Trace01 => None,
    }
}

/// A command's human diagnostic (`FILE:LINE[:COL]: error[CODE]: ... (sequence N, ...)`) read
/// back as an answer; the message is never compared.
fn diagnostic_answer(file: &str, stderr: &str) -> Option<Answer> {
    let first = stderr.lines().find(|l| l.starts_with(file))?;
    let rest = &first[file.len()..];
    let open = rest.find(": error[")?;
    let place = &rest[..open];
    let line = place
        .strip_prefix(':')
        .and_then(|p| p.split(':').next())
        .and_then(|l| l.parse().ok());
    let after = &rest[open + ": error[".len()..];
    let code = after[..after.find(']')?].to_owned();
    let sequence = after.find("(sequence ").and_then(|i| {
        let s = &after[i + "(sequence ".len()..];
        let end = s.find([',', ')']).unwrap_or(s.len());
        s[..end].parse().ok()
    });
    Some(Answer::Error {
        code,
        line,
        sequence,
        index: None,
        message: String::new(),
    })
}

/// The answer of a command that prints its result on stdout and exits 0, or prints a
/// diagnostic about `file` and exits 1; anything else is a result no vector expects.
fn command_answer(out: &Output, file: &str, result: impl FnOnce(&str) -> Answer) -> Answer {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => result(&stdout),
        Some(1) => diagnostic_answer(file, &stderr)
            .unwrap_or_else(|| Answer::Result(Value::from(stderr.to_string()))),
        other => Answer::Result(Value::from(format!("exit {other:?}: {stderr}"))),
    }
}

/// A gate test's verdict: at least `at_least` checks ran and none was answered wrong.
fn assert_all_right(what: &str, checked: usize, at_least: usize, wrong: &[String]) {
    assert!(checked > at_least, "only {checked} {what}");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The cases the command line is run on: the hand-written groups (not the generated
/// `tables/`, which the two corpus runs above already cover on the same fast path) and the
/// golden traces.
fn cli_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = vectors::load_embedded()
        .unwrap()
        .into_iter()
        .filter(|c| c.level == Level::Must && !c.group.starts_with("tables/"))
        .collect();
    cases.extend(journal_conformance::runner::plan::golden_cases().unwrap());
    cases
}

/// The drawing `tree show` prints for a tree (the format `tree::render`'s doc states: one
/// line per entry in depth-first file order; a chain of only children stays in one column,
/// a fork indents each branch with `├─ ` or, for the last, `└─ `, and what follows a branch
/// under a fork goes on below `│  ` or `   `; the head is marked ` (head)`, a label
/// ` [label]`), up to the two spaces before the entry's message, which is not compared.
/// Built from the vector's expected `children` and `head` and the ids and labels of the
/// input's lines; `None` when a line is not a JSON object with a string `id`.
fn expected_drawing(input: &[u8], inspect: &Value) -> Option<Vec<String>> {
    let mut ids = Vec::new();
    let mut labels = std::collections::HashMap::new();
    for line in std::str::from_utf8(input).ok()?.split('\n') {
        if line.trim().is_empty() {
            continue;
        }
        let v = json::parse(line).ok()?;
        let id = v.get("id")?.as_str()?.to_owned();
        if let Some(l) = v.get("label").and_then(Value::as_str) {
            labels.insert(id.clone(), l.to_owned());
        }
        ids.push(id);
    }
    let children = inspect.get("children")?.as_object()?;
    let kids = |id: &str| -> Vec<String> {
        children
            .iter()
            .find(|(k, _)| k == id)
            .and_then(|(_, v)| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let is_child: std::collections::HashSet<String> = ids.iter().flat_map(|id| kids(id)).collect();
    let head = inspect.get("head").and_then(Value::as_str);
    let mut out = Vec::new();
    let mut stack: Vec<(String, String, String)> = ids
        .iter()
        .filter(|id| !is_child.contains(*id))
        .rev()
        .map(|id| (id.clone(), String::new(), String::new()))
        .collect();
    while let Some((id, own, rest)) = stack.pop() {
        let mut line = format!("{own}{id}");
        if let Some(l) = labels.get(&id) {
            line.push_str(&format!(" [{l}]"));
        }
        if head == Some(id.as_str()) {
            line.push_str(" (head)");
        }
        line.push_str("  ");
        out.push(line);
        let k = kids(&id);
        if k.len() == 1 {
            stack.push((k[0].clone(), rest.clone(), rest));
        } else {
            for (n, c) in k.iter().enumerate().rev() {
                let last = n + 1 == k.len();
                let mark = if last { "└─ " } else { "├─ " };
                let cont = if last { "   " } else { "│  " };
                stack.push((c.clone(), format!("{rest}{mark}"), format!("{rest}{cont}")));
            }
        }
    }
    Some(out)
}

/// Whether `op` is one of the journal operations the fast path serves.
fn cli_kind(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Validate
            | Operation::Replay { .. }
            | Operation::Fingerprint { .. }
            | Operation::Branch { .. }
    )
}

/// `recover` (S-RECOVER-2, a dry run) and `recover --apply` (S-RECOVER-1) on the initial
/// journal of every `store_apply` check, in a directory of its own, run from another: the
/// first open's recovery is the vector's. When the operation fails (its open fails), both
/// must fail with its error. When it succeeds, `recovered` is empty exactly when the first
/// open moved nothing (a later open recovers only what an earlier step left torn, so with
/// no `restart` step a non-empty `recovered` is the first open's alone): the dry run must
/// report the same torn tail (offset and length) or none and change nothing, and
/// `--apply` must move exactly those bytes to `FILE.torn-1` beside the journal and cut the
/// journal at the offset.
/// The first open's torn tail as a `store_apply` result's `recovered` gives it (offset,
/// bytes), `Some(None)` when nothing was recovered; `None` when the steps restart the
/// store and something was recovered (which open recovered it is not said).
fn first_torn(
    value: &Value,
    steps: &[journal_conformance::store::StoreStep],
) -> Option<Option<(u64, Vec<u8>)>> {
    use journal_conformance::store::StoreStep;
    let recovered = value.get("recovered").and_then(Value::as_array).unwrap();
    let restarts = steps.iter().any(|s| matches!(s, StoreStep::Restart));
    if restarts && !recovered.is_empty() {
        return None;
    }
    Some(recovered.first().map(|r| {
        (
            r.get("offset").and_then(Value::as_i64).unwrap() as u64,
            r.get("torn")
                .and_then(Value::as_str)
                .unwrap()
                .as_bytes()
                .to_vec(),
        )
    }))
}

/// A library error as an answer.
fn error_answer(e: journal_conformance::error::Error) -> Answer {
    Answer::Error {
        code: e.code.as_str().to_owned(),
        line: e.line,
        sequence: e.sequence,
        index: e.index,
        message: e.message,
    }
}

/// The lines of a journal the corpus says is valid, each without its `\n`; `None` when
/// the check is not a valid journal's, or the input is not `\n`-terminated lines.
fn valid_lines<'a>(case: &'a Case, expect: &Expect) -> Option<Vec<&'a [u8]>> {
    let Expect::Result { value, .. } = expect else {
        return None;
    };
    let n = value.get("event_count")?.as_i64()?;
    let body = case.input.strip_suffix(b"\n")?;
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    (n > 0 && lines.len() as i64 == n).then_some(lines)
}
