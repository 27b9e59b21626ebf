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
//! - reads that fail or are interrupted (X-EXIT-1), through the journal fast path.
//!
//! Every expected value is the corpus's own (SPEC-derived, see conformance/README.md); this
//! file adds none. What it adds are inputs made from the corpus's (a checkpoint of a
//! journal's first half, spoiled checkpoints), whose expectation is SPEC's text: K-REPLAY-1
//! (a restore answers as the replay from event zero does) and K-IGNORE-1 (a checkpoint
//! that does not fit is ignored, with a note, and the replay done from event zero). `conformance/mutants/README.md` records the campaigns.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use journal_conformance::json::{self, Value};
use journal_conformance::ops::{Operation, Profile};
use journal_conformance::vectors::{self, Case, Level};
use journal_conformance::verdict::{judge, Answer, Expect};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

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

/// Gate path 1. The run's temporary directory is a fresh one, which must be empty
/// again when it ends: the scratch files of `store_apply` (the reference runs the steps on
/// a scratch journal) are the kit's, and none may outlive the run.
#[test]
fn the_corpus_and_golden_traces_pass_the_reference_in_process() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["test", "--properties", "0", "--format", "terse"])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .output()
        .expect("run the kit");
    assert_passed(&["test", "--properties", "0", "--format", "terse"], &out);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "the run left {left:?} in its TMPDIR");
}

/// The corpus read from its directory (`--corpus`), not the embedded copy: the file
/// reader (`wire::read_bounded`, `vectors::load_dir`) answers for the kit too.
#[test]
fn the_corpus_directory_passes_the_reference() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance");
    assert_test_run(&[
        "test",
        "--properties",
        "0",
        "--format",
        "terse",
        "--corpus",
        dir,
    ]);
    let out = run(&[
        "test",
        "--properties",
        "0",
        "--format",
        "terse",
        "--corpus",
        dir,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checked = stdout
        .split("checked ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(
        checked > 4000,
        "only {checked} cases read from {dir}:\n{stdout}"
    );
}

#[test]
fn the_corpus_and_golden_traces_pass_serve() {
    let serve = format!("'{BIN}' serve");
    assert_test_run(&[
        "test",
        "--properties",
        "0",
        "--format",
        "terse",
        "--adapter",
        &serve,
    ]);
}

/// Gate path 2's other half: the runner never sends `serve` an operation it does not
/// know, so the corpus cannot; A-SKIP-1 says an adapter should answer such a request
/// `unsupported` (a newer runner may send operations a protocol-1 adapter has never heard
/// of), and the reference does, while a known operation's request is answered.
#[test]
fn serve_answers_an_unknown_operation_unsupported() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run the kit");
    let requests = [
        r#"{"cmd":"run","id":1,"op":{"op":"frobnicate"},"profile":"core","input_base64":""}"#,
        r#"{"cmd":"run","id":2,"op":{"op":"validate"},"profile":"core","input_base64":""}"#,
        r#"{"cmd":"stop"}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| json::parse(l).ok())
        .collect();
    let reply = |id: i64| {
        replies
            .iter()
            .find(|r| r.get("id").and_then(Value::as_i64) == Some(id))
    };
    assert_eq!(
        reply(1).and_then(|r| r.get("unsupported")),
        Some(&Value::Bool(true)),
        "an unknown operation: {replies:?}"
    );
    assert!(
        reply(2).is_some_and(|r| r.get("unsupported").is_none()
            && r.get("error")
                .and_then(|e| e.get("code"))
                .and_then(Value::as_str)
                == Some("empty_journal")),
        "validate of an empty journal: {replies:?}"
    );
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

/// Run one journal check through the command line; `None` when the check is not one.
fn cli_answer(dir: &Path, case: &Case, op: &Operation) -> Option<(Vec<String>, Answer)> {
    cli_answer_with(dir, case, op, &[]).map(|(args, answer, _)| (args, answer))
}

/// [`cli_answer`] with `extra` options (`--max-line-bytes N`) before the file, and the
/// command's output (for its status and stderr, which the answer does not keep).
fn cli_answer_with(
    dir: &Path,
    case: &Case,
    op: &Operation,
    extra: &[String],
) -> Option<(Vec<String>, Answer, Output)> {
    let profile = journal_profile(case.profile)?;
    let file = dir.join("j.jsonl");
    std::fs::write(&file, &case.input).unwrap();
    let f = file.to_str().unwrap().to_owned();
    let mut args: Vec<String> = match op {
        Operation::Validate => vec!["validate".into(), "--json".into()],
        Operation::Replay { until } => {
            let mut a = vec!["replay".to_owned()];
            if let Some(u) = until {
                a.extend(["--until".into(), u.to_string()]);
            }
            a
        }
        Operation::Fingerprint { until } => {
            let mut a = vec!["fingerprint".to_owned()];
            if let Some(u) = until {
                a.extend(["--until".into(), u.to_string()]);
            }
            a
        }
        Operation::Branch { at, branch_id } => vec![
            "branch".into(),
            "--at".into(),
            at.to_string(),
            "--id".into(),
            branch_id.clone(),
        ],
        _ => return None,
    };
    args.extend(["--profile".into(), profile.into()]);
    args.extend_from_slice(extra);
    args.push(f.clone());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&argv);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let answer = match (op, out.status.code()) {
        (Operation::Validate, Some(0 | 1)) => {
            let v = json::parse(stdout.trim_end()).ok()?;
            if v.get("ok") == Some(&Value::Bool(true)) {
                Answer::Result(Value::object([(
                    "event_count",
                    v.get("event_count")?.clone(),
                )]))
            } else {
                let e = v.get("error")?;
                Answer::Error {
                    code: e.get("code")?.as_str()?.to_owned(),
                    line: e.get("line").and_then(|l| l.as_i64()).map(|l| l as u64),
                    sequence: e.get("sequence").and_then(|s| s.as_i64()),
                    index: None,
                    message: String::new(),
                }
            }
        }
        (Operation::Fingerprint { .. }, Some(0)) => {
            Answer::Result(Value::from(stdout.trim_end().to_owned()))
        }
        (_, Some(0)) => Answer::Result(json::parse(stdout.trim_end()).ok()?),
        (_, Some(1)) => diagnostic_answer(&f, &stderr)?,
        _ => Answer::Result(Value::from(format!(
            "exit {:?}: {stderr}",
            out.status.code()
        ))),
    };
    Some((args, answer, out))
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

#[test]
fn the_command_line_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for case in cli_cases() {
        for check in &case.checks {
            let Some((args, answer)) = cli_answer(dir.path(), &case, &check.op) else {
                continue;
            };
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} ({args:?}): {m:?}", case.id));
            }
        }
    }
    assert_all_right("command-line checks", checked, 300, &wrong);
}

/// The longest line of `input` (bytes between `\n`s; a `\r` counts, SPEC.md 16.5) and the
/// number of the first line that long; `None` when every line is empty.
fn longest_line(input: &[u8]) -> Option<(usize, u64)> {
    let body = input.strip_suffix(b"\n").unwrap_or(input);
    let (mut best, mut at) = (0, 0);
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        if line.len() > best {
            (best, at) = (line.len(), i as u64 + 1);
        }
    }
    (best > 0).then_some((best, at))
}

/// Whether a command run with `--max-line-bytes` one below the longest line (`L`, first at
/// line `N`) fails with SPEC.md 16.5's `FILE: line N is longer than L-1 bytes`, exit 2,
/// rather than as the vector says; `None` when SPEC.md does not order the two.
/// - A journal or a tree file in the generic format is read and checked a line at a time,
///   and the bound is "raised once the limit is buffered and never later": the vector's
///   error wins when it is located before line `N`.
/// - The `yoagent-0.26` dialect reads the whole file, through the same bounded reader,
///   before it parses any of it: the bound always wins.
/// - A `canonical` document's W-UTF8-1 is over the whole input (O-CANON-1) and read a
///   chunk at a time: SPEC.md does not order an invalid byte and the bound within one
///   read, so an `invalid_utf8` vector is not run at `L - 1`. Its other errors are
///   found once the document is read: the bound wins.
fn bound_wins(op: &Operation, profile: Profile, expect: &Expect, n: u64) -> Option<bool> {
    match (op, expect) {
        (Operation::Canonical, Expect::Error { codes, .. })
            if codes.iter().any(|c| c == "invalid_utf8") =>
        {
            None
        }
        (Operation::Canonical, _) => Some(true),
        (Operation::TreeInspect, _) if profile == Profile::Yoagent026 => Some(true),
        (_, Expect::Error { line: Some(k), .. }) => Some(*k >= n),
        _ => Some(true),
    }
}

/// Whether `out` is the line bound's failure at line `n` of `f`, for a bound of `max`.
fn is_line_bound(out: &Output, f: &str, n: u64, max: usize) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    out.status.code() == Some(2)
        && stderr.contains(&format!("{f}: line {n} is longer than {max} bytes"))
}

/// Gate path 12, the line bound (SPEC.md 16.5: an implementation limit, which no vector
/// may depend on), checked from the corpus's own bytes: every journal check of the
/// hand-written groups and the golden traces (`validate --json` on the fast path, `branch`
/// on the oracle's line reader), every `canonical` check (the streaming document reader)
/// and every 16th `tree_inspect` check in both dialects, run with `--max-line-bytes` at the
/// input's longest line `L`, answer as the vector says; with `L - 1`, they fail at the
/// first line that long, unless the vector's error comes before it. The expectation is the
/// vector's and SPEC.md 16.5's text, the bound is measured by this test.
#[test]
fn the_line_bound_holds_at_the_longest_line() {
    let dir = tempfile::tempdir().unwrap();
    let (mut checked, mut tree_seen) = (0, 0);
    let mut wrong = Vec::new();
    for case in cli_cases() {
        let Some((longest, first)) = longest_line(&case.input) else {
            continue;
        };
        for check in &case.checks {
            let doc_args: Option<Vec<&str>> = match (&check.op, case.profile) {
                (Operation::Validate | Operation::Branch { .. }, _) => None,
                (Operation::Canonical, _) => Some(vec!["canonical"]),
                (Operation::TreeInspect, p) => match tree_dialect(p) {
                    Some(dialect) => Some(vec!["tree", "inspect", "--profile", dialect]),
                    None => continue,
                },
                _ => continue,
            };
            if check.op == Operation::TreeInspect {
                tree_seen += 1;
                if tree_seen % 16 != 1 {
                    continue;
                }
            }
            // `--max-line-bytes` takes 1 and more.
            let below =
                bound_wins(&check.op, case.profile, &check.expect, first).filter(|_| longest > 1);
            let maxes = match below {
                Some(_) => vec![longest, longest - 1],
                None => vec![longest],
            };
            for max in maxes {
                let extra = ["--max-line-bytes".to_owned(), max.to_string()];
                let at_bound = max < longest;
                let (args, answer, out, f) = match &doc_args {
                    None => {
                        // Not a journal (a `yoagent-0.26` case): no journal command.
                        let Some((args, answer, out)) =
                            cli_answer_with(dir.path(), &case, &check.op, &extra)
                        else {
                            break;
                        };
                        let f = dir.path().join("j.jsonl").to_str().unwrap().to_owned();
                        (args, answer, out, f)
                    }
                    Some(cmd) => {
                        let file = dir.path().join("d.json");
                        std::fs::write(&file, &case.input).unwrap();
                        let f = file.to_str().unwrap().to_owned();
                        let mut argv = cmd.clone();
                        argv.extend(extra.iter().map(String::as_str));
                        argv.push(&f);
                        let out = run(&argv);
                        let answer = command_answer(&out, &f, |stdout| match check.op {
                            Operation::Canonical => Answer::Result(Value::from(
                                stdout.strip_suffix('\n').unwrap_or(stdout).to_owned(),
                            )),
                            _ => json::parse(stdout.trim_end())
                                .map(Answer::Result)
                                .unwrap_or_else(|e| {
                                    Answer::Result(Value::from(format!("not JSON: {e}")))
                                }),
                        });
                        (argv.iter().map(|a| a.to_string()).collect(), answer, out, f)
                    }
                };
                checked += 1;
                if at_bound && below == Some(true) {
                    if !is_line_bound(&out, &f, first, max) {
                        wrong.push(format!(
                            "{} ({args:?}): want the line bound at line {first}, got exit {:?}: {}",
                            case.id,
                            out.status.code(),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                } else if let Some(m) = judge(&check.expect, &answer) {
                    wrong.push(format!("{} ({args:?}): {m:?}", case.id));
                }
            }
        }
    }
    assert_all_right("line-bound checks", checked, 1000, &wrong);
}

/// Where W-UTF8-1 puts an input's first ill-formed UTF-8 sequence: its line (lines count
/// `\n` only) and its column, the 1-based byte offset in that line of the sequence's
/// first byte (for a truncated sequence, its lead byte). From the standard library's
/// decoder, not the kit's; `None` when the input is well-formed.
fn first_bad_utf8(input: &[u8]) -> Option<(u64, u64)> {
    let at = std::str::from_utf8(input).err()?.valid_up_to();
    let before = &input[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    Some((line, (at - start) as u64 + 1))
}

/// Gate path 14, the column of an `invalid_utf8` error, which W-UTF8-1 defines (J-LOC-1
/// makes columns informative, so no vector compares them; this is the kit's own promise):
/// every check of the corpus (`tables/` included) whose expected code is `invalid_utf8`, through
/// `validate --json` (a journal) or `canonical` (a document, O-CANON-1: line and column
/// within the input), reports the line and column [`first_bad_utf8`] finds. A journal's
/// first error may be on an earlier line than the first bad byte (the vector's line says
/// which): only the checks whose expected line is that byte's line are compared.
#[test]
fn invalid_utf8_is_reported_at_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let (mut checked, mut wrong) = (0, Vec::new());
    let cases = vectors::load_embedded().unwrap().into_iter();
    for case in cases.filter(|c| c.level == Level::Must) {
        let Some((line, column)) = first_bad_utf8(&case.input) else {
            continue;
        };
        for check in &case.checks {
            let Expect::Error {
                codes,
                line: want_line,
                ..
            } = &check.expect
            else {
                continue;
            };
            if !codes.iter().any(|c| c == "invalid_utf8") {
                continue;
            }
            let got = match (&check.op, journal_profile(case.profile)) {
                (Operation::Validate, Some(profile)) => {
                    if *want_line != Some(line) {
                        continue;
                    }
                    let file = dir.path().join("j.jsonl");
                    std::fs::write(&file, &case.input).unwrap();
                    let out = run(&[
                        "validate",
                        "--json",
                        "--profile",
                        profile,
                        file.to_str().unwrap(),
                    ]);
                    json::parse(String::from_utf8_lossy(&out.stdout).trim_end())
                        .ok()
                        .and_then(|v| {
                            let e = v.get("error")?;
                            Some((e.get("line")?.as_i64()?, e.get("column")?.as_i64()?))
                        })
                }
                (Operation::Canonical, _) => {
                    let file = dir.path().join("c.json");
                    std::fs::write(&file, &case.input).unwrap();
                    let f = file.to_str().unwrap();
                    let out = run(&["canonical", f]);
                    // `FILE:LINE:COLUMN: error[invalid_utf8]: ...`
                    String::from_utf8_lossy(&out.stderr).lines().find_map(|l| {
                        let place = l.strip_prefix(f)?.strip_prefix(':')?;
                        let (place, _) = place.split_once(": error[invalid_utf8]")?;
                        let (l, c) = place.split_once(':')?;
                        Some((l.parse().ok()?, c.parse().ok()?))
                    })
                }
                _ => continue,
            };
            checked += 1;
            if got != Some((line as i64, column as i64)) {
                wrong.push(format!(
                    "{} ({:?}): want line {line}, column {column}; got {got:?}",
                    case.id, check.op
                ));
            }
        }
    }
    assert_all_right("invalid_utf8 columns", checked, 40, &wrong);
}

/// Gate path 9, the fast path's speed contract (`fast::not_taken`): every journal line of
/// the corpus (every group, `tables/` included) and the golden traces that the oracle reads
/// as an event is taken by the fast line path, not declined to the oracle, and a taken line
/// that is its own canonical text is taken as canonical. Each input runs as written and
/// with every line canonicalised, in its own profile and in `core`. A declined line is
/// still answered right (by the oracle), so without this path a parser that declines too
/// much is invisible to the corpus: it only makes `serve` and the CLI slow.
#[test]
fn the_fast_path_takes_every_line_the_oracle_reads() {
    use journal_conformance::event::JournalProfile;
    use journal_conformance::fast::{canonical_lines, not_taken};
    let mut cases: Vec<Case> = vectors::load_embedded().unwrap();
    cases.extend(journal_conformance::runner::plan::golden_cases().unwrap());
    let mut seen = std::collections::HashSet::new();
    let (mut lines, mut wrong) = (0, Vec::new());
    for case in &cases {
        let Some(profile) = journal_profile(case.profile) else {
            continue;
        };
        if !case.checks.iter().any(|c| cli_kind(&c.op)) {
            continue;
        }
        let profiles: &[JournalProfile] = if profile == "trace-0.1" {
            &[JournalProfile::Trace01, JournalProfile::Core]
        } else {
            &[JournalProfile::Core]
        };
        for input in [case.input.clone(), canonical_lines(&case.input, 1)] {
            if !seen.insert(input.clone()) {
                continue;
            }
            for &p in profiles {
                lines += input.split(|b| *b == b'\n').count();
                for m in not_taken(&input, p) {
                    wrong.push(format!("{} ({p:?}): {m}", case.id));
                }
            }
        }
    }
    assert_all_right("journal lines", lines, 20_000, &wrong);
}

/// Gate path 10, the `yoagent-0.26` fast path's speed contract: every entry line of the
/// dialect's vectors whose message is in one of the plain forms `fast/vouch.rs` documents
/// is read as a `VouchedEntry` (its message not built), not declined to yoagent's own
/// `SessionEntry`. Plainness is decided here, independently of `vouch.rs`, from the strict
/// parser's value and conservatively (no surrounding whitespace, no `-0`, integer literals
/// only, every member once, every required entry member present), so a line that is plain
/// here is plain there. A declined line is still answered right (by yoagent's types):
/// only this path sees a `vouch.rs` that declines too much.
#[test]
fn the_yoagent_fast_path_vouches_for_every_plain_message() {
    use journal_conformance::fast::vouch::VouchedEntry;
    let (mut plain, mut wrong) = (0, Vec::new());
    let mut seen = std::collections::HashSet::new();
    for case in vectors::load_embedded().unwrap() {
        if case.profile != Profile::Yoagent026 || !seen.insert(case.input.clone()) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&case.input) else {
            continue;
        };
        for (i, line) in text.split('\n').enumerate() {
            if !plain_entry(line) {
                continue;
            }
            plain += 1;
            if serde_json::from_str::<VouchedEntry>(line).is_err() {
                wrong.push(format!(
                    "{} line {}: a plain entry not vouched for",
                    case.id,
                    i + 1
                ));
            }
        }
    }
    assert_all_right("plain yoagent entries", plain, 1000, &wrong);
}

/// A session entry in the plain form `fast/vouch.rs` documents: exactly `id` (a string),
/// `parent_id` (a string or null), `message` (plain: [`plain_message`]), `timestamp` (a
/// `u64`) and optionally `label` (a string or null).
fn plain_entry(line: &str) -> bool {
    // `-0` reads as the integer 0 here but as the float -0.0 in serde_json (not a `u64`):
    // a line that holds the text `-0` anywhere is left out.
    if line.is_empty() || line.trim() != line || line.contains("-0") {
        return false;
    }
    let Ok(v) = json::parse(line) else {
        return false;
    };
    let Some(members) = v.as_object() else {
        return false;
    };
    let names = names_of(members);
    let required = ["id", "message", "parent_id", "timestamp"];
    (names == required || names == ["id", "label", "message", "parent_id", "timestamp"])
        && v.get("id").and_then(Value::as_str).is_some()
        && matches!(v.get("parent_id"), Some(Value::Null | Value::String(_)))
        && matches!(v.get("label"), None | Some(Value::Null | Value::String(_)))
        && v.get("timestamp").is_some_and(is_u64)
        && v.get("message").is_some_and(plain_message)
}

/// An object's member names, sorted (the strict parser has refused duplicates).
fn names_of(members: &[(String, Value)]) -> Vec<&str> {
    let mut names: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names
}

/// A non-negative integer literal that fits in `u64`.
fn is_u64(v: &Value) -> bool {
    matches!(v, Value::Number(json::Number::Int(s)) if !s.starts_with('-') && s.parse::<u64>().is_ok())
}

/// The plain message forms of `fast/vouch.rs`'s documentation.
fn plain_message(m: &Value) -> bool {
    let Some(members) = m.as_object() else {
        return false;
    };
    let names = names_of(members);
    let str_at = |k: &str| m.get(k).and_then(Value::as_str).is_some();
    let content = m
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks.iter().all(|b| {
                b.as_object()
                    .is_some_and(|o| names_of(o) == ["text", "type"])
                    && b.get("type").and_then(Value::as_str) == Some("text")
                    && b.get("text").and_then(Value::as_str).is_some()
            })
        });
    let stamped = m.get("timestamp").is_some_and(is_u64);
    let usage = m.get("usage").is_some_and(|u| {
        u.as_object().is_some_and(|o| {
            let n = names_of(o);
            n.contains(&"input")
                && n.contains(&"output")
                && o.iter().all(|(k, v)| {
                    ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]
                        .contains(&k.as_str())
                        && is_u64(v)
                })
        })
    });
    let stop = ["stop", "length", "toolUse", "error", "aborted", "refusal"];
    content
        && stamped
        && match m.get("role").and_then(Value::as_str) {
            Some("user") => names == ["content", "role", "timestamp"],
            Some("assistant") => {
                let base = [
                    "content",
                    "model",
                    "provider",
                    "role",
                    "stopReason",
                    "timestamp",
                    "usage",
                ];
                let with_error = [
                    "content",
                    "errorMessage",
                    "model",
                    "provider",
                    "role",
                    "stopReason",
                    "timestamp",
                    "usage",
                ];
                (names == base || (names == with_error && str_at("errorMessage")))
                    && str_at("model")
                    && str_at("provider")
                    && usage
                    && m.get("stopReason")
                        .and_then(Value::as_str)
                        .is_some_and(|r| stop.contains(&r))
            }
            Some("toolResult") => {
                names
                    == [
                        "content",
                        "isError",
                        "role",
                        "timestamp",
                        "toolCallId",
                        "toolName",
                    ]
                    && str_at("toolCallId")
                    && str_at("toolName")
                    && matches!(m.get("isError"), Some(Value::Bool(_)))
            }
            _ => false,
        }
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

/// Gate path 13, `tree show` (the drawing for people, which no operation of the protocol
/// answers): on every 4th `tree_inspect` check with a result, in both dialects, each line
/// the command prints begins with the line [`expected_drawing`] derives from the vector's
/// expected `children` and `head` and the input's ids and labels, and there is one line
/// per entry.
#[test]
fn the_tree_show_command_draws_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    let f = file.to_str().unwrap().to_owned();
    let (mut seen, mut checked) = (0, 0);
    let mut wrong = Vec::new();
    for case in cli_cases() {
        let Some(profile) = tree_dialect(case.profile) else {
            continue;
        };
        for check in case
            .checks
            .iter()
            .filter(|c| c.op == Operation::TreeInspect)
        {
            let Expect::Result { value, .. } = &check.expect else {
                continue;
            };
            let Some(want) = expected_drawing(&case.input, value) else {
                continue;
            };
            seen += 1;
            if seen % 4 != 1 {
                continue;
            }
            std::fs::write(&file, &case.input).unwrap();
            let out = run(&["tree", "show", "--profile", profile, &f]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let got: Vec<&str> = stdout.lines().collect();
            checked += 1;
            let agrees = out.status.code() == Some(0)
                && got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.starts_with(w.as_str()));
            if !agrees {
                wrong.push(format!(
                    "{} (tree show --profile {profile}): want lines beginning\n{}\ngot (exit {:?})\n{stdout}",
                    case.id,
                    want.join("\n"),
                    out.status.code()
                ));
            }
        }
    }
    assert_all_right("tree show checks", checked, 100, &wrong);
}

/// Gate path 11, the `yoagent-0.26` fast path's parallel load: `tree inspect` reads an
/// input of 1 MiB or more in chunks of whole lines, one reader per core
/// (`fast::yoagent::load_shape`), which no vector is large enough to reach. Here every
/// `tree_inspect` check of the dialect is answered by that load cut into 2, 3 and 4
/// chunks, whatever the input's size, and judged against the vector's expectation.
///
/// The parallel load's speed contract, which the answers cannot show (every cut loads
/// the same session), is checked as its doc states it: `chunk_count` is one below 1 MiB
/// or with fewer than two threads and one per thread from 1 MiB on; and `cut` shares the
/// work: its chunks are the input, each ends just after a line break (the last at the
/// end), and none is longer than `len / n + 1` bytes plus the longest line.
#[test]
fn the_yoagent_chunked_load_answers_the_corpus() {
    use journal_conformance::fast::yoagent::{chunk_count, cut, load_shape_chunked};
    let (mut checked, mut wrong) = (0, Vec::new());
    const MIB: usize = 1 << 20;
    for (len, threads, want) in [
        (MIB - 1, 4, 1),
        (MIB, 4, 4),
        (MIB, 2, 2),
        (MIB << 8, 1, 1),
        (MIB << 8, 0, 1),
        (MIB << 8, 3, 3),
        (0, 8, 1),
    ] {
        let got = chunk_count(len, threads);
        if got != want {
            wrong.push(format!(
                "chunk_count({len}, {threads}) = {got}, want {want}"
            ));
        }
    }
    let mut cuts = 0;
    for case in vectors::load_embedded().unwrap() {
        let Ok(text) = std::str::from_utf8(&case.input) else {
            continue;
        };
        let longest = text.split_inclusive('\n').map(str::len).max().unwrap_or(0);
        for n in 2..=4 {
            let parts = cut(text, n);
            cuts += 1;
            let whole = parts.concat() == text;
            let ends = parts[..parts.len() - 1].iter().all(|p| p.ends_with('\n'));
            let shared = parts
                .iter()
                .all(|p| p.len() <= text.len() / n + 1 + longest);
            if !(whole && ends && shared && parts.len() <= n) {
                wrong.push(format!(
                    "{}: cut into {n}: {:?}",
                    case.id,
                    parts.iter().map(|p| p.len()).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(cuts > 3000, "only {cuts} cuts");
    for case in vectors::load_embedded().unwrap() {
        if case.profile != Profile::Yoagent026 {
            continue;
        }
        for check in case
            .checks
            .iter()
            .filter(|c| c.op == Operation::TreeInspect)
        {
            for chunks in 2..=4 {
                let answer = match load_shape_chunked(&case.input, chunks) {
                    Ok(shape) => Answer::Result(shape.inspect()),
                    Err(e) => error_answer(e),
                };
                checked += 1;
                if let Some(m) = judge(&check.expect, &answer) {
                    wrong.push(format!("{} ({chunks} chunks): {m:?}", case.id));
                }
            }
        }
    }
    assert_all_right("chunked yoagent loads", checked, 1000, &wrong);
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

/// A whole-journal replay check of a journal of at least two lines, with the cut after the
/// first half of its lines: what a checkpoint of the prefix must answer (K-REPLAY-1).
struct Restorable<'a> {
    case: &'a Case,
    expect: &'a Expect,
    profile: &'static str,
    /// The byte length of the prefix (the end of its last line).
    cut: usize,
    /// The end of the prefix's line before its last, when it has two or more.
    before_cut: Option<usize>,
    /// The number of lines after the cut.
    tail_lines: usize,
}

fn restorable(cases: &[Case]) -> Vec<Restorable<'_>> {
    let mut out = Vec::new();
    for case in cases {
        let Some(profile) = journal_profile(case.profile) else {
            continue;
        };
        for check in &case.checks {
            let Operation::Replay { until: None } = &check.op else {
                continue;
            };
            let ends: Vec<usize> = case
                .input
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1)
                .collect();
            if ends.len() < 2 {
                continue;
            }
            let half = ends.len() / 2;
            let cut = ends[half - 1];
            let before_cut = half.checked_sub(2).map(|i| ends[i]);
            let tail_lines = case.input[cut..].split(|b| *b == b'\n').count()
                - usize::from(case.input.ends_with(b"\n"));
            out.push(Restorable {
                case,
                expect: &check.expect,
                profile,
                cut,
                before_cut,
                tail_lines,
            });
        }
    }
    out
}

/// The files of one checkpoint replay: the whole journal, its prefix, the checkpoint.
struct CheckpointFiles {
    full: std::path::PathBuf,
    ck: std::path::PathBuf,
}

impl CheckpointFiles {
    /// Write the journal and its prefix, and `checkpoint` the prefix; `None` when the kit
    /// calls the prefix invalid (a torn stream's rules, say): nothing to restore.
    fn make(dir: &Path, r: &Restorable) -> Option<CheckpointFiles> {
        let full = dir.join("j.jsonl");
        let prefix = dir.join("p.jsonl");
        let ck = dir.join("p.ck.json");
        std::fs::write(&full, &r.case.input).unwrap();
        std::fs::write(&prefix, &r.case.input[..r.cut]).unwrap();
        let _ = std::fs::remove_file(&ck);
        let made = run(&[
            "checkpoint",
            "--profile",
            r.profile,
            "--out",
            ck.to_str().unwrap(),
            prefix.to_str().unwrap(),
        ]);
        (made.status.code() == Some(0)).then_some(CheckpointFiles { full, ck })
    }

    fn replay(&self, profile: &str, ck: &Path) -> Output {
        run(&[
            "replay",
            "--profile",
            profile,
            "--from-checkpoint",
            ck.to_str().unwrap(),
            self.full.to_str().unwrap(),
        ])
    }
}

/// `checkpoint` of the first half of a journal's lines, then `replay --from-checkpoint` of
/// the whole journal, must give the corpus's whole-journal replay (restore, then the tail):
/// its ReplayState, with the note that the checkpoint was used and how many tail events
/// were read (the lines after the cut), or its error (line numbers continue from the
/// prefix; `duplicate_event_id` and `unknown_parent` consult the id index).
#[test]
fn replay_from_a_checkpoint_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cli_cases();
    let (mut checked, mut errors) = (0, 0);
    let mut wrong = Vec::new();
    for r in restorable(&cases) {
        let Some(files) = CheckpointFiles::make(dir.path(), &r) else {
            continue;
        };
        let out = files.replay(r.profile, &files.ck);
        checked += 1;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let full = files.full.to_str().unwrap();
        let ok = match r.expect {
            Expect::Result { .. } => {
                let got = json::parse(String::from_utf8_lossy(&out.stdout).trim_end());
                out.status.code() == Some(0)
                    && stderr.trim_end()
                        == format!("checkpoint used: {} tail events replayed", r.tail_lines)
                    && got
                        .as_ref()
                        .is_ok_and(|v| judge(r.expect, &Answer::Result(v.clone())).is_none())
            }
            _ => {
                errors += 1;
                let answer = command_answer(&out, full, |stdout| {
                    Answer::Result(Value::from(stdout.to_owned()))
                });
                judge(r.expect, &answer).is_none()
            }
        };
        if !ok {
            wrong.push(format!(
                "{}: exit {:?}, stderr {stderr:?}, stdout {:?}",
                r.case.id,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout)
            ));
        }
    }
    assert_all_right("checkpoint replays", checked, 50, &wrong);
    assert!(
        errors > 10,
        "only {errors} checkpoint replays end in an error"
    );
}

/// A copy of `v` with the member at `path` set to `new`, or removed when `new` is `None`.
fn with_member(v: &Value, path: &[&str], new: Option<Value>) -> Value {
    let Value::Object(members) = v else {
        panic!("not an object: {v:?}")
    };
    let mut members = members.clone();
    let (key, rest) = path.split_first().unwrap();
    let at = members.iter().position(|(k, _)| k == key);
    match (rest.is_empty(), at, new) {
        (true, Some(i), Some(n)) => members[i].1 = n,
        (true, Some(i), None) => {
            members.remove(i);
        }
        (true, None, Some(n)) => members.push((key.to_string(), n)),
        (false, Some(i), new) => members[i].1 = with_member(&members[i].1, rest, new),
        (_, at, new) => panic!("{path:?}: at {at:?}, {new:?}"),
    }
    Value::Object(members)
}

/// One way a checkpoint can fail to fit its journal, each of K-IGNORE-1's list.
struct Tamper {
    what: &'static str,
    /// The checkpoint file's new bytes (`None`: no file at all).
    checkpoint: Option<Vec<u8>>,
    /// The id index's new bytes (`None`: no index file at all).
    index: Option<Vec<u8>>,
}

fn sorted_digests<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<u8> {
    use sha2::Digest;
    let mut d: Vec<[u8; 32]> = ids.map(|id| sha2::Sha256::digest(id).into()).collect();
    d.sort_unstable();
    d.concat()
}

/// K-IGNORE-1's list applied to a good checkpoint `ck` of `r`'s prefix with index `index`.
fn tampers(r: &Restorable, ck: &Value, index: &[u8]) -> Vec<Tamper> {
    let text = |v: Value| {
        let mut t = journal_conformance::canonical::to_string(&v);
        t.push('\n');
        Some(t.into_bytes())
    };
    let member = |path: &[&str], new: Option<Value>| text(with_member(ck, path, new));
    let n = ck.get("event_count").and_then(Value::as_i64).unwrap();
    let offset = ck.get("source_offset").and_then(Value::as_i64).unwrap();
    let fp = ck
        .get("source_fingerprint")
        .and_then(Value::as_str)
        .unwrap();
    let other_fp = Value::from(format!("sha256:{}", "0".repeat(64)));
    let h0 = ck.get("hash_state").and_then(|h| h.get("h")).unwrap();
    let mut h = h0.as_array().unwrap().to_vec();
    h[0] = Value::from(if h[0].as_str() == Some("00000000") {
        "00000001"
    } else {
        "00000000"
    });
    let ids: Vec<String> = r.case.input[r.cut..]
        .split(|b| *b == b'\n')
        .filter_map(|l| json::parse(std::str::from_utf8(l).ok()?).ok())
        .filter_map(|v| v.get("event_id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let good_index = Some(index.to_vec());
    let t = |what, checkpoint, index| Tamper {
        what,
        checkpoint,
        index,
    };
    let mut all = vec![
        t("the checkpoint file is missing", None, good_index.clone()),
        t("not UTF-8", Some(b"\xff\n".to_vec()), good_index.clone()),
        t("not JSON", Some(b"{\n".to_vec()), good_index.clone()),
        t("not an object", Some(b"[]\n".to_vec()), good_index.clone()),
        t(
            "a member missing",
            member(&["source_sequence"], None),
            good_index.clone(),
        ),
        t(
            "a member more",
            member(&["extra"], Some(Value::Null)),
            good_index.clone(),
        ),
        t(
            "another checkpoint_version",
            member(&["checkpoint_version"], Some(Value::from_i64(2))),
            good_index.clone(),
        ),
        t(
            "another reducer_version",
            member(&["reducer_version"], Some(Value::from("another/1"))),
            good_index.clone(),
        ),
        t(
            "event_count of the wrong type",
            member(&["event_count"], Some(Value::from(n.to_string()))),
            good_index.clone(),
        ),
        t(
            "source_sequence is not event_count - 1",
            member(&["source_sequence"], Some(Value::from_i64(n))),
            good_index.clone(),
        ),
        t(
            "id_index.count is not event_count",
            member(&["id_index", "count"], Some(Value::from_i64(n + 1))),
            good_index.clone(),
        ),
        t(
            "source_event_id of the wrong type",
            member(&["source_event_id"], Some(Value::from_i64(0))),
            good_index.clone(),
        ),
        t(
            "source_event_id is not the source event's",
            member(
                &["source_event_id"],
                Some(Value::from("not-the-source-event")),
            ),
            good_index.clone(),
        ),
        t(
            "source_offset of the wrong type",
            member(&["source_offset"], Some(Value::from(offset.to_string()))),
            good_index.clone(),
        ),
        t(
            "source_offset past the journal's end",
            member(
                &["source_offset"],
                Some(Value::from_i64(r.case.input.len() as i64 + 1)),
            ),
            good_index.clone(),
        ),
        t(
            "source_offset 0",
            member(&["source_offset"], Some(Value::from_i64(0))),
            good_index.clone(),
        ),
        t(
            "the byte before source_offset is not a newline",
            member(&["source_offset"], Some(Value::from_i64(offset - 1))),
            good_index.clone(),
        ),
        t(
            "source_fingerprint is not the projection's",
            member(&["source_fingerprint"], Some(other_fp.clone())),
            good_index.clone(),
        ),
        t(
            "projection.fingerprint is not source_fingerprint",
            member(&["projection", "fingerprint"], Some(other_fp)),
            good_index.clone(),
        ),
        t(
            "the finished hash_state is not source_fingerprint",
            member(&["hash_state", "h"], Some(Value::Array(h))),
            good_index.clone(),
        ),
        t(
            "hash_state of the wrong type",
            member(&["hash_state"], Some(Value::Null)),
            good_index.clone(),
        ),
        t(
            "the projection carries applied_sequences",
            member(
                &["projection", "applied_sequences"],
                Some(Value::Array((0..n).map(Value::from_i64).collect())),
            ),
            good_index.clone(),
        ),
        t(
            "the projection is not a ReplayState",
            text(with_member(
                ck,
                &["projection"],
                Some(Value::object([("fingerprint", Value::from(fp))])),
            )),
            good_index.clone(),
        ),
        t(
            "the checkpoint nests deeper than 130",
            member(
                &["projection", "tool_results"],
                Some(Value::Array(vec![
                    (0..140).fold(Value::Null, |v, _| Value::Array(vec![v]))
                ])),
            ),
            good_index.clone(),
        ),
        t(
            "the id index is missing",
            Some(text(ck.clone()).unwrap()),
            None,
        ),
        t(
            "id_index.file names no file",
            member(
                &["id_index", "file"],
                Some(Value::from("no-such-index.ids")),
            ),
            good_index.clone(),
        ),
        t(
            "the id index is a digest short",
            text(ck.clone()),
            Some(index[..index.len() - 32].to_vec()),
        ),
    ];
    if let Some(before) = r.before_cut {
        all.push(t(
            "source_offset ends the line before the source event",
            member(&["source_offset"], Some(Value::from_i64(before as i64))),
            good_index.clone(),
        ));
    }
    if let Some(first) = ids.first() {
        // The index claims the first tail event's id for the prefix: the duplicate it
        // implies rests on the index, whose sha256 no longer matches (K-IGNORE-1).
        let claimed: Vec<String> = std::iter::once(first.clone())
            .chain((1..n).map(|i| format!("not-an-id-{i}")))
            .collect();
        all.push(t(
            "the id index does not match its sha256",
            text(ck.clone()),
            Some(sorted_digests(claimed.iter().map(String::as_str))),
        ));
    }
    all
}

/// K-IGNORE-1: a checkpoint that does not fit its journal in any of the listed ways is
/// ignored with a note, and the replay from event zero gives the corpus's ReplayState. On
/// every fourth restorable valid journal (each tamper is one more process).
#[test]
fn a_checkpoint_that_does_not_fit_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cli_cases();
    let mut checked = 0;
    let mut wrong = Vec::new();
    let valid = restorable(&cases)
        .into_iter()
        .filter(|r| matches!(r.expect, Expect::Result { .. }));
    for r in valid.step_by(4) {
        let Some(files) = CheckpointFiles::make(dir.path(), &r) else {
            continue;
        };
        let good = json::parse(&std::fs::read_to_string(&files.ck).unwrap()).unwrap();
        let index_name = good.get("id_index").and_then(|i| i.get("file"));
        let index_file = dir.path().join(index_name.and_then(Value::as_str).unwrap());
        let index = std::fs::read(&index_file).unwrap();
        for tamper in tampers(&r, &good, &index) {
            let ck = dir.path().join("t.ck.json");
            let _ = std::fs::remove_file(&ck);
            if let Some(bytes) = &tamper.checkpoint {
                // The tampered checkpoint names the good one's index file; keep it there.
                std::fs::write(&ck, bytes).unwrap();
            }
            let _ = std::fs::remove_file(&index_file);
            if let Some(bytes) = &tamper.index {
                std::fs::write(&index_file, bytes).unwrap();
            }
            let out = files.replay(r.profile, &ck);
            std::fs::write(&index_file, &index).unwrap();
            checked += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let got = json::parse(String::from_utf8_lossy(&out.stdout).trim_end());
            let ok = out.status.code() == Some(0)
                && stderr.starts_with("checkpoint ignored (")
                && stderr.ends_with("); replayed from event zero\n")
                && stderr.lines().count() == 1
                && got
                    .as_ref()
                    .is_ok_and(|v| judge(r.expect, &Answer::Result(v.clone())).is_none());
            if !ok {
                wrong.push(format!(
                    "{} ({}): exit {:?}, stderr {stderr:?}",
                    r.case.id,
                    tamper.what,
                    out.status.code(),
                ));
            }
        }
    }
    assert_all_right("tampered checkpoints", checked, 200, &wrong);
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

#[test]
fn the_recover_command_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let (mut checked, mut torn_tails) = (0, 0);
    let mut wrong = Vec::new();
    let cases = vectors::load_embedded().unwrap();
    for case in cases.iter().filter(|c| c.level == Level::Must) {
        let Some(profile) = journal_profile(case.profile) else {
            continue;
        };
        for check in &case.checks {
            let Operation::StoreApply { steps } = &check.op else {
                continue;
            };
            let recover = |apply: bool| -> (std::path::PathBuf, Output) {
                let file = dir.path().join(if apply { "a.jsonl" } else { "d.jsonl" });
                let _ = std::fs::remove_file(&file);
                let _ = std::fs::remove_file(file.with_extension("jsonl.torn-1"));
                std::fs::write(&file, &case.input).unwrap();
                let mut args = vec!["recover", "--profile", profile, file.to_str().unwrap()];
                if apply {
                    args.push("--apply");
                }
                let out = Command::new(BIN)
                    .args(&args)
                    .current_dir(elsewhere.path())
                    .stdin(Stdio::null())
                    .output()
                    .expect("run the kit");
                (file, out)
            };
            for apply in [false, true] {
                let (file, out) = recover(apply);
                let name = file.to_str().unwrap();
                let report = json::parse(String::from_utf8_lossy(&out.stdout).trim_end());
                let what = if apply { "recover --apply" } else { "recover" };
                let fault = match &check.expect {
                    Expect::Error { .. } => {
                        let answer = command_answer(&out, name, |stdout| {
                            Answer::Result(Value::from(stdout.to_owned()))
                        });
                        judge(&check.expect, &answer).map(|m| format!("{m:?}"))
                    }
                    Expect::Result { value, .. } => {
                        let Some(first) = first_torn(value, steps) else {
                            continue;
                        };
                        let first = first.as_ref().map(|(at, bytes)| (*at as usize, &bytes[..]));
                        let torn = report.as_ref().ok().and_then(|r| r.get("torn")).cloned();
                        let field = |k: &str| {
                            torn.as_ref()
                                .and_then(|t| t.get(k))
                                .and_then(Value::as_i64)
                                .map(|n| n as usize)
                        };
                        let aside = std::path::PathBuf::from(format!("{name}.torn-1"));
                        let after = std::fs::read(&file).unwrap();
                        match first {
                            _ if out.status.code() != Some(0) => Some(format!(
                                "exit {:?}: {}",
                                out.status.code(),
                                String::from_utf8_lossy(&out.stderr)
                            )),
                            None if torn != Some(Value::Null) => {
                                Some(format!("a torn tail where none is: {torn:?}"))
                            }
                            None if after != case.input || aside.exists() => {
                                Some("the journal was changed".into())
                            }
                            None => None,
                            Some((offset, bytes)) => {
                                torn_tails += 1;
                                if field("offset") != Some(offset)
                                    || field("length") != Some(bytes.len())
                                {
                                    Some(format!("torn tail {torn:?}, not at {offset}"))
                                } else if !apply && (after != case.input || aside.exists()) {
                                    Some("the dry run changed the journal".into())
                                } else if apply
                                    && (after != case.input[..offset]
                                        || std::fs::read(&aside).ok().as_deref() != Some(bytes))
                                {
                                    Some(format!(
                                        "not moved to {}: journal {:?}",
                                        aside.display(),
                                        String::from_utf8_lossy(&after)
                                    ))
                                } else {
                                    None
                                }
                            }
                        }
                    }
                };
                checked += 1;
                if let Some(m) = fault {
                    wrong.push(format!("{} ({what}): {m}", case.id));
                }
            }
        }
    }
    assert_all_right("recover runs", checked, 40, &wrong);
    assert!(torn_tails > 8, "only {torn_tails} torn tails recovered");
}

/// The `tree` subcommands on every 16th `tree_inspect` check of the hand-written groups
/// (about 80; two processes each, and all 1,258 took over 60 s of a mutant's test in a
/// debug build on a loaded machine): `tree inspect`
/// must print the expected view (or fail with the expected code), and `tree validate
/// --json` must agree with it on `entry_count` or the error code. The CLI's tree loading
/// and entry count answer for the kit as `tree_inspect` does.
#[test]
fn the_tree_command_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    let f = file.to_str().unwrap().to_owned();
    let (mut seen, mut checked) = (0, 0);
    let mut wrong = Vec::new();
    for case in cli_cases() {
        let Some(profile) = tree_dialect(case.profile) else {
            continue;
        };
        for check in case
            .checks
            .iter()
            .filter(|c| c.op == Operation::TreeInspect)
        {
            seen += 1;
            if seen % 16 != 1 {
                continue;
            }
            std::fs::write(&file, &case.input).unwrap();
            let out = run(&["tree", "inspect", "--profile", profile, &f]);
            let answer = command_answer(&out, &f, |stdout| {
                json::parse(stdout.trim_end())
                    .map(Answer::Result)
                    .unwrap_or_else(|e| Answer::Result(Value::from(format!("not JSON: {e}"))))
            });
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} (tree inspect): {m:?}", case.id));
            }
            let out = run(&["tree", "validate", "--json", "--profile", profile, &f]);
            let v = json::parse(String::from_utf8_lossy(&out.stdout).trim_end()).ok();
            let got = v.as_ref().map(|v| {
                (
                    v.get("entry_count").cloned(),
                    v.get("error")
                        .and_then(|e| e.get("code"))
                        .and_then(|c| c.as_str())
                        .map(str::to_owned),
                )
            });
            let want = match &check.expect {
                Expect::Result { value, .. } => (value.get("entry_count").cloned(), None),
                Expect::Error { codes, .. } => (None, codes.first().cloned()),
            };
            let agrees = match (&got, &want) {
                (Some((Some(n), None)), (Some(m), None)) => n.same(m),
                (Some((None, Some(c))), (None, Some(_))) => match &check.expect {
                    Expect::Error { codes, .. } => codes.contains(c),
                    _ => false,
                },
                _ => false,
            };
            if !agrees {
                wrong.push(format!(
                    "{} (tree validate --json): got {got:?}, want {want:?}",
                    case.id
                ));
            }
        }
    }
    assert_all_right("tree checks", checked, 60, &wrong);
}

/// `tree apply FILE OPS` on every 8th `tree_apply` check of the hand-written groups: the
/// steps as a JSON array in OPS (the CLI's document reader and step parsing), the tree it
/// prints on stdout and the `results:` line on stderr read back as the operation's result,
/// exit 1 exactly when a step failed, and each failed step named in a diagnostic
/// (`OPS: step I (NAME): error[CODE]: ...`, T-ERR-1, NAME the step's `step` as written in
/// OPS); or, when the file does not load, the diagnostic's code and line.
#[test]
fn the_tree_apply_command_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let (file, ops) = (dir.path().join("t.jsonl"), dir.path().join("ops.json"));
    let (f, o) = (file.to_str().unwrap(), ops.to_str().unwrap());
    let (mut seen, mut checked) = (0, 0);
    let mut wrong = Vec::new();
    for case in cli_cases() {
        let Some(profile) = tree_dialect(case.profile) else {
            continue;
        };
        for check in &case.checks {
            let Operation::TreeApply { steps } = &check.op else {
                continue;
            };
            seen += 1;
            if seen % 8 != 1 {
                continue;
            }
            std::fs::write(&file, &case.input).unwrap();
            let document = Value::Array(steps.iter().map(|s| s.to_json()).collect());
            std::fs::write(&ops, journal_conformance::canonical::to_string(&document)).unwrap();
            let out = run(&["tree", "apply", "--profile", profile, f, o]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let results = stderr
                .lines()
                .find_map(|l| l.strip_prefix("results: "))
                .map(json::parse);
            let answer = match results {
                Some(Ok(results)) => {
                    let failed = results
                        .as_array()
                        .is_some_and(|a| a.iter().any(|r| r.get("error").is_some()));
                    let status = out.status.code();
                    if status != Some(if failed { 1 } else { 0 }) {
                        wrong.push(format!(
                            "{} (tree apply): exit {status:?}, failed {failed}",
                            case.id
                        ));
                    }
                    Answer::Result(Value::object([
                        ("results", results),
                        (
                            "tree",
                            Value::from(String::from_utf8_lossy(&out.stdout).into_owned()),
                        ),
                    ]))
                }
                Some(Err(e)) => Answer::Result(Value::from(format!("results not JSON: {e}"))),
                None => command_answer(&out, f, |stdout| {
                    Answer::Result(Value::from(stdout.to_owned()))
                }),
            };
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} (tree apply): {m:?}", case.id));
            }
            // T-ERR-1: each failed step is named in a diagnostic, by its index in OPS
            // and its `step` as written there, with the expected code.
            let expected = match &check.expect {
                Expect::Result { value, .. } => value.get("results").and_then(Value::as_array),
                _ => None,
            };
            for (i, r) in expected.into_iter().flatten().enumerate() {
                let Some(code) = r.get("error").and_then(|e| e.get("code")) else {
                    continue;
                };
                let step = steps[i].to_json();
                let name = step.get("step").and_then(Value::as_str).unwrap_or("?");
                let said = format!(
                    "{o}: step {i} ({name}): error[{}]: ",
                    code.as_str().unwrap_or("?")
                );
                if !stderr.lines().any(|l| l.starts_with(&said)) {
                    wrong.push(format!(
                        "{} (tree apply): no `{said}` in\n{stderr}",
                        case.id
                    ));
                }
            }
        }
    }
    assert_all_right("tree apply checks", checked, 50, &wrong);
}

/// The `canonical` command (the streaming document reader, `ops::read_document`) on every
/// `canonical` check of the hand-written groups: its text, or its diagnostic's code and
/// line, must be the expected ones.
#[test]
fn the_canonical_command_answers_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    let f = file.to_str().unwrap().to_owned();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for case in cli_cases() {
        for check in case.checks.iter().filter(|c| c.op == Operation::Canonical) {
            std::fs::write(&file, &case.input).unwrap();
            let out = run(&["canonical", &f]);
            let answer = command_answer(&out, &f, |stdout| {
                Answer::Result(Value::from(
                    stdout.strip_suffix('\n').unwrap_or(stdout).to_owned(),
                ))
            });
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} (canonical): {m:?}", case.id));
            }
        }
    }
    assert_all_right("canonical checks", checked, 300, &wrong);
}

/// `golden verify` (the golden traces' own command, `golden::verify`, which compares with
/// `Value::same`) passes on the reference.
#[test]
fn golden_verify_passes() {
    let out = run(&["golden", "verify"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "golden verify\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Values that differ from `v` by SPEC's equality (their canonical texts differ), each
/// by one change: every leaf of the first `limit` replaced (an integer by another and by
/// the float of the same value, a float by half of it or by 1.0, a string extended, a
/// boolean flipped, `null` by `false`), and at every container a member or element
/// dropped or added.
fn wrong_versions(v: &Value, limit: &mut usize, out: &mut Vec<Value>) {
    use journal_conformance::json::Number;
    if *limit == 0 {
        return;
    }
    *limit -= 1;
    match v {
        Value::Null => out.push(Value::Bool(false)),
        Value::Bool(b) => out.push(Value::Bool(!b)),
        Value::Number(Number::Int(s)) => {
            let other = if s == "0" {
                "1".to_owned()
            } else {
                format!("{s}0")
            };
            out.push(Value::Number(Number::Int(other)));
            if let Ok(f) = s.parse::<f64>() {
                out.push(Value::Number(Number::Float(f)));
            }
        }
        Value::Number(Number::Float(f)) => {
            let other = if *f == 0.0 { 1.0 } else { f / 2.0 };
            out.push(Value::Number(Number::Float(other)));
            if f.fract() == 0.0 && f.abs() < 1e15 {
                out.push(Value::Number(Number::Int(format!("{}", *f as i64))));
            }
        }
        Value::String(s) => out.push(Value::String(format!("{s}x"))),
        Value::Array(a) => {
            if !a.is_empty() {
                out.push(Value::Array(a[..a.len() - 1].to_vec()));
            }
            let mut longer = a.clone();
            longer.push(Value::Null);
            out.push(Value::Array(longer));
            for (i, x) in a.iter().enumerate() {
                let mut inner = Vec::new();
                wrong_versions(x, limit, &mut inner);
                out.extend(inner.into_iter().map(|y| {
                    let mut b = a.clone();
                    b[i] = y;
                    Value::Array(b)
                }));
            }
        }
        Value::Object(m) => {
            if !m.is_empty() {
                out.push(Value::Object(m[1..].to_vec()));
            }
            let mut wider = m.clone();
            wider.push(("\u{0}not-a-member".into(), Value::Null));
            out.push(Value::Object(wider));
            for (i, (k, x)) in m.iter().enumerate() {
                let mut inner = Vec::new();
                wrong_versions(x, limit, &mut inner);
                out.extend(inner.into_iter().map(|y| {
                    let mut b = m.clone();
                    b[i] = (k.clone(), y);
                    Value::Object(b)
                }));
            }
        }
    }
}

/// `v` with every object's members in reverse order (C-KEY-1: the same value).
fn reordered(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(reordered).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, x)| (k.clone(), reordered(x)))
                .collect(),
        ),
        x => x.clone(),
    }
}

/// The runner's judgement (`verdict::judge`, which every path above trusts): over every
/// check of the corpus, the expected answer itself, and with its members reordered, is
/// right, and each answer that differs from it in one way a wrong implementation would
/// (a changed leaf, a dropped or added member or element, another error code, line,
/// sequence or index, an error for a result and a result for an error) is wrong. A
/// corpus run against a correct reference cannot see a comparator that accepts too much;
/// this can. Expected values are the corpus's; the wrong ones differ from them by
/// SPEC's equality (section 3.2: two values are equal exactly when their canonical
/// texts are).
#[test]
fn wrong_answers_are_judged_wrong() {
    let mut cases = vectors::load_embedded().unwrap();
    cases.extend(journal_conformance::runner::plan::golden_cases().unwrap());
    let (mut right, mut wrong_checked, mut same_checked) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for case in &cases {
        for check in &case.checks {
            let mut must_fail: Vec<Answer> = Vec::new();
            let mut must_pass: Vec<Answer> = Vec::new();
            match &check.expect {
                Expect::Result { value, .. } => {
                    must_pass.push(Answer::Result(value.clone()));
                    must_pass.push(Answer::Result(reordered(value)));
                    let mut versions = Vec::new();
                    wrong_versions(value, &mut 24, &mut versions);
                    // `golden verify`'s comparison of whole values, `Value::same`, by the
                    // same equality.
                    same_checked += 1 + versions.len();
                    if !value.same(&reordered(value)) {
                        failures.push(format!("{}: Value::same: reordered differs", case.id));
                    }
                    if let Some(v) = versions.iter().find(|v| value.same(v)) {
                        failures.push(format!(
                            "{}: Value::same accepts {}",
                            case.id,
                            journal_conformance::canonical::to_string(v)
                        ));
                    }
                    must_fail.extend(versions.into_iter().map(Answer::Result));
                    must_fail.push(Answer::Error {
                        code: "invalid_json".into(),
                        line: None,
                        sequence: None,
                        index: None,
                        message: String::new(),
                    });
                }
                Expect::Error {
                    codes,
                    line,
                    sequence,
                    index,
                } => {
                    let answer = |code: &str, line, sequence, index| Answer::Error {
                        code: code.to_owned(),
                        line,
                        sequence,
                        index,
                        message: "any wording".into(),
                    };
                    for code in codes {
                        must_pass.push(answer(code, *line, *sequence, *index));
                    }
                    let code = &codes[0];
                    must_fail.push(answer("not_a_code", *line, *sequence, *index));
                    if let Some(l) = line {
                        must_fail.push(answer(code, Some(l + 1), *sequence, *index));
                    }
                    if let Some(s) = sequence {
                        must_fail.push(answer(code, *line, Some(s.wrapping_add(1)), *index));
                    }
                    if let Some(i) = index {
                        must_fail.push(answer(code, *line, *sequence, Some(i + 1)));
                    }
                    must_fail.push(Answer::Result(Value::Null));
                }
            }
            for a in &must_pass {
                right += 1;
                if let Some(m) = judge(&check.expect, a) {
                    failures.push(format!(
                        "{}: the expected answer is judged wrong: {m:?}",
                        case.id
                    ));
                }
            }
            for a in &must_fail {
                wrong_checked += 1;
                if judge(&check.expect, a).is_none() {
                    failures.push(format!(
                        "{}: a wrong answer is judged right: {}",
                        case.id,
                        journal_conformance::canonical::to_string(&a.to_json())
                    ));
                }
            }
        }
    }
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        right > 5_000 && wrong_checked > 50_000 && same_checked > 40_000,
        "{right} right, {wrong_checked} wrong answers judged, {same_checked} compared"
    );
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

/// A torn tail (offset, bytes) for a message.
fn shown(torn: Option<(u64, Vec<u8>)>) -> String {
    match torn {
        None => "none".into(),
        Some((at, bytes)) => format!("{:?} at {at}", String::from_utf8_lossy(&bytes)),
    }
}

/// The expected inspect view's member `key` as a list of strings.
fn strings(view: &Value, key: &str) -> Option<Vec<String>> {
    view.get(key)?
        .as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Gate path 15, the library's own API: the functions a Rust user calls that no command
/// or operation of the kit calls (each answering path has its own, bounded or shape-only,
/// variant), judged on the corpus against the vector's expectation:
///
/// - `journal::read` (the reader with the default line bound) on every `validate` check:
///   the vector's `event_count` or error;
/// - `tree::Loaded::load` on every `tree_inspect` check in its dialect: the view or the
///   error; then, where there is a view, the `yoagent-0.26` session's `path_ids`,
///   `branch_tips`, `entries` and `path_messages` against the view's `path_ids`,
///   `branch_tips` and `entry_count` (one message per path entry), and the generic
///   tree's `entry` and `children` of every entry id against the view's `children` (and
///   `None` for an id the tree lacks);
/// - the drawing of a shape-only load (`tree::Loaded::read` with `shape_only`, then
///   `render`), which `tree show` never draws: the lines gate path 13 derives, in both
///   dialects (a shape has no messages, so each line ends after the two spaces);
/// - `store::inspect_recovery` and `Store::open` on the initial journal of every
///   `store_apply` check with a result: the first open's torn tail as the vector's
///   `recovered` has it (as in gate path 5), the acknowledged length (`end`) the offset it
///   is cut at or the whole input, and `is_empty` exactly when that is 0 (an open journal
///   has no blank line, W-BLANK-1).
#[test]
fn the_library_api_answers_the_corpus() {
    use journal_conformance::store::{inspect_recovery, Store};
    use journal_conformance::tree::Loaded;
    use journal_conformance::wire::DEFAULT_MAX_LINE_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    let mut wrong = Vec::new();
    for case in vectors::load_embedded().unwrap() {
        for check in &case.checks {
            let fault: Option<String> = match &check.op {
                Operation::Validate => {
                    let answer = match journal_conformance::journal::read(
                        &case.input[..],
                        case.profile.journal(),
                        |_| {},
                    ) {
                        Ok(n) => {
                            Answer::Result(Value::object([("event_count", Value::from_u64(n))]))
                        }
                        Err(journal_conformance::error::ReadError::Invalid(e)) => error_answer(e),
                        Err(e) => Answer::Result(Value::from(e.to_string())),
                    };
                    *counts.entry("journal::read").or_default() += 1;
                    judge(&check.expect, &answer).map(|m| format!("journal::read: {m:?}"))
                }
                Operation::TreeInspect => {
                    let dialect = case.profile.dialect();
                    let loaded = Loaded::load(&case.input, dialect);
                    let answer = match &loaded {
                        Ok(l) => Answer::Result(l.inspect()),
                        Err(e) => error_answer(e.clone()),
                    };
                    *counts.entry("Loaded::load").or_default() += 1;
                    let mut fault =
                        judge(&check.expect, &answer).map(|m| format!("Loaded::load: {m:?}"));
                    if let (Ok(l), Expect::Result { value, .. }) = (&loaded, &check.expect) {
                        fault = fault.or_else(|| tree_api(l, value, &mut counts));
                        fault = fault.or_else(|| {
                            let want = expected_drawing(&case.input, value)?;
                            let shape = Loaded::read(
                                &case.input[..],
                                dialect,
                                true,
                                DEFAULT_MAX_LINE_BYTES,
                            )
                            .map_err(|e| format!("shape-only load: {e}"));
                            *counts.entry("shape render").or_default() += 1;
                            let drawing = match shape {
                                Ok(s) => s.render(),
                                Err(e) => return Some(e),
                            };
                            let got: Vec<&str> = drawing.lines().collect();
                            let agrees = got.len() == want.len()
                                && got.iter().zip(&want).all(|(g, w)| g == w);
                            (!agrees).then(|| {
                                format!(
                                    "shape-only render ({dialect:?}): want\n{}\ngot\n{drawing}",
                                    want.join("\n")
                                )
                            })
                        });
                    }
                    fault
                }
                Operation::StoreApply { steps } => {
                    let Expect::Result { value, .. } = &check.expect else {
                        continue;
                    };
                    let Some(first) = first_torn(value, steps) else {
                        continue;
                    };
                    let file = dir.path().join("s.jsonl");
                    let _ = std::fs::remove_file(&file);
                    let _ = std::fs::remove_file(file.with_extension("jsonl.torn-1"));
                    std::fs::write(&file, &case.input).unwrap();
                    let profile = case.profile.journal();
                    *counts.entry("store").or_default() += 1;
                    let end = first.as_ref().map_or(case.input.len() as u64, |f| f.0);
                    let torn = |t: Option<&journal_conformance::store::Torn>| {
                        t.map(|t| (t.offset, t.bytes.clone()))
                    };
                    match (
                        inspect_recovery(&file, profile),
                        Store::open(&file, profile),
                    ) {
                        (Ok(dry), _) if torn(dry.torn.as_ref()) != first => Some(format!(
                            "inspect_recovery: torn {}, want {}",
                            shown(torn(dry.torn.as_ref())),
                            shown(first)
                        )),
                        (Ok(_), Ok((store, rec))) => {
                            if torn(rec.torn.as_ref()) != first {
                                Some(format!(
                                    "Store::open recovered {}, want {}",
                                    shown(torn(rec.torn.as_ref())),
                                    shown(first)
                                ))
                            } else if store.end() != end {
                                Some(format!("Store::end {}, want {end}", store.end()))
                            } else if store.is_empty() != (end == 0) {
                                Some(format!("Store::is_empty {} at end {end}", store.is_empty()))
                            } else {
                                None
                            }
                        }
                        (Err(e), _) => Some(format!("inspect_recovery failed: {e}")),
                        (_, Err(e)) => Some(format!("Store::open failed: {e}")),
                    }
                }
                _ => None,
            };
            if let Some(m) = fault {
                wrong.push(format!("{}: {m}", case.id));
            }
        }
    }
    for (what, at_least) in [
        ("journal::read", 1900),
        ("Loaded::load", 1000),
        ("shape render", 500),
        ("yoagent session", 400),
        ("generic tree", 200),
        ("store", 40),
    ] {
        let n = counts.get(what).copied().unwrap_or(0);
        assert!(
            n >= at_least,
            "only {n} {what} checks (want {at_least}): {counts:?}"
        );
    }
    assert_all_right("library API checks", counts.values().sum(), 0, &wrong);
}

/// The tree API of a loaded tree against its expected inspect `view` (gate path 15).
fn tree_api(
    loaded: &journal_conformance::tree::Loaded,
    view: &Value,
    counts: &mut std::collections::BTreeMap<&'static str, usize>,
) -> Option<String> {
    use journal_conformance::tree::Loaded;
    match loaded {
        Loaded::Yoagent(s) => {
            *counts.entry("yoagent session").or_default() += 1;
            let path = strings(view, "path_ids")?;
            let tips = strings(view, "branch_tips")?;
            let count = view.get("entry_count")?.as_i64()? as usize;
            if s.path_ids() != path {
                Some(format!(
                    "Session::path_ids {:?}, want {path:?}",
                    s.path_ids()
                ))
            } else if s.branch_tips() != tips {
                Some(format!(
                    "Session::branch_tips {:?}, want {tips:?}",
                    s.branch_tips()
                ))
            } else if s.entries().len() != count {
                Some(format!(
                    "Session::entries: {}, want {count}",
                    s.entries().len()
                ))
            } else if s.path_messages().len() != path.len() {
                Some(format!(
                    "Session::path_messages: {}",
                    s.path_messages().len()
                ))
            } else {
                None
            }
        }
        Loaded::Generic(t) => {
            *counts.entry("generic tree").or_default() += 1;
            for (id, kids) in view.get("children")?.as_object()? {
                let kids: Vec<&str> = kids.as_array()?.iter().filter_map(Value::as_str).collect();
                if t.children(id).as_deref() != Some(&kids[..]) {
                    return Some(format!(
                        "Tree::children({id}) {:?}, want {kids:?}",
                        t.children(id)
                    ));
                }
                if t.entry(id).map(|e| e.id.as_str()) != Some(id.as_str()) {
                    return Some(format!("Tree::entry({id}) is not the entry"));
                }
            }
            let stranger = "no entry has this id \u{1}";
            (t.children(stranger).is_some() || t.entry(stranger).is_some())
                .then(|| "Tree::children or entry of an unknown id is not None".to_owned())
        }
        Loaded::YoagentShape(_) => Some("Loaded::load made a shape".into()),
    }
}

/// A journal file that fails on command (gate path 16): after `budget` more bytes a
/// write is cut short (part of the bytes reach the file, then an error), or the next sync
/// fails. It cuts back through the real file's own `truncate`, so that is what it checks.
struct Faulty {
    inner: std::fs::File,
    budget: std::sync::Arc<std::sync::atomic::AtomicU64>,
    fail_sync: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl journal_conformance::store::StoreFile for Faulty {
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        use std::sync::atomic::Ordering::SeqCst;
        let budget = self.budget.load(SeqCst);
        if buf.len() as u64 > budget {
            std::io::Write::write_all(&mut self.inner, &buf[..budget as usize])?;
            self.budget.store(u64::MAX, SeqCst);
            return Err(std::io::Error::other("injected short write"));
        }
        std::io::Write::write_all(&mut self.inner, buf)
    }
    fn sync_data(&mut self) -> std::io::Result<()> {
        if self
            .fail_sync
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            return Err(std::io::Error::other("injected sync failure"));
        }
        self.inner.sync_data()
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        journal_conformance::store::StoreFile::truncate(&mut self.inner, len)
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

/// One valid journal appended to a new store through [`Faulty`] (gate path 16): the whole
/// journal as one group commit whose write is cut short, then line by line with the
/// middle line's write cut short and then its sync failed. Each failure must be an I/O
/// error, acknowledge nothing and leave the file at its acknowledged length (S-FAULT-1,
/// S-BATCH-1); the store must then take every line as if the failures never happened:
/// line `i` acknowledged at sequence `i`, not as a duplicate (S-ACK-2), and the file must
/// end as exactly the journal's bytes.
fn appended_through_faults(
    path: &Path,
    profile: journal_conformance::event::JournalProfile,
    lines: &[&[u8]],
) -> Option<String> {
    use journal_conformance::error::ReadError;
    use journal_conformance::store::Store;
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::sync::Arc;
    let budget = Arc::new(AtomicU64::new(u64::MAX));
    let fail_sync = Arc::new(AtomicBool::new(false));
    let (b, s) = (budget.clone(), fail_sync.clone());
    let opened = Store::open_with(path, profile, move |f| {
        Box::new(Faulty {
            inner: f,
            budget: b,
            fail_sync: s,
        })
    });
    let mut store = match opened {
        Ok((store, _)) => store,
        Err(e) => return Some(format!("Store::open_with: {e}")),
    };
    let len = || std::fs::metadata(path).map(|m| m.len()).unwrap_or(u64::MAX);
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    budget.store(total as u64 / 2, SeqCst);
    match store.append_batch(lines) {
        Err(_) if len() == 0 => {}
        Err(_) => return Some(format!("a failed group commit left {} bytes", len())),
        Ok(_) => return Some("a group commit whose write failed was acknowledged".into()),
    }
    let middle = lines.len() / 2;
    let mut acked = 0u64;
    for (i, line) in lines.iter().enumerate() {
        if i == middle {
            budget.store(line.len() as u64 / 2, SeqCst);
            let short = store.append(line);
            fail_sync.store(true, SeqCst);
            let unsynced = store.append(line);
            for (what, r) in [("short write", short), ("failed sync", unsynced)] {
                match r {
                    Err(ReadError::Io(_)) if len() == acked => {}
                    Err(ReadError::Io(_)) => {
                        return Some(format!(
                            "line {}: after a {what} the file has {} bytes, not the {acked} acknowledged",
                            i + 1,
                            len()
                        ))
                    }
                    other => {
                        return Some(format!("line {}: a {what} answered {other:?}", i + 1))
                    }
                }
            }
        }
        match store.append(line) {
            Ok(ack) if ack.sequence == i as u64 && !ack.duplicate => acked += line.len() as u64 + 1,
            other => {
                return Some(format!(
                    "line {} (after the injected faults): {other:?}, want sequence {i}",
                    i + 1
                ))
            }
        }
    }
    drop(store);
    let mut want = Vec::new();
    for line in lines {
        want.extend_from_slice(line);
        want.push(b'\n');
    }
    (std::fs::read(path).ok().as_deref() != Some(&want[..]))
        .then(|| "the journal's bytes are not the lines acknowledged".into())
}

/// Gate path 16, the store's contract where a vector cannot reach it (a vector's
/// `store_apply` runs on a scratch file the implementation writes, with no second writer,
/// no failing disk, no special file): every expected value is SPEC.md 16's text.
///
/// - S-FAULT-1 and S-BATCH-1, by injection: every other valid journal of the corpus's
///   `validate` checks (in its journal profile) appended through [`Faulty`], as
///   [`appended_through_faults`] says;
/// - S-WRITER-1: while one store holds a journal, a second `Store::open` fails with
///   `locked` (answering within 30 s), and a second open waiting while the first store is
///   dropped 20 ms later opens it (the reference's 250 ms grace, which SPEC.md states);
/// - S-FILE-1 and S-RECOVER-2 through the command: `recover` of a FIFO and of a directory
///   fails with exit 2 naming the path and what it is (without reading the FIFO: the
///   command must answer within 10 s), and `recover` of a journal that does not exist
///   reports nothing to recover and creates nothing;
/// - `store::journal_dir`, as its doc states: a new file's directory, a dangling link's
///   target's directory, `.` for a bare relative name, and the error of a path through a
///   regular file.
#[test]
fn the_store_holds_its_contract_where_vectors_cannot_reach() {
    use journal_conformance::error::{ErrorCode, ReadError};
    use journal_conformance::event::JournalProfile;
    use journal_conformance::store::{journal_dir, Store};
    let dir = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    let mut journals = 0;
    let mut k = 0;
    for case in vectors::load_embedded().unwrap() {
        if journal_profile(case.profile).is_none() {
            continue;
        }
        for check in &case.checks {
            let Operation::Validate = check.op else {
                continue;
            };
            let Some(lines) = valid_lines(&case, &check.expect) else {
                continue;
            };
            k += 1;
            if k % 2 != 0 {
                continue;
            }
            let file = dir.path().join(format!("f{k}.jsonl"));
            if let Some(m) = appended_through_faults(&file, case.profile.journal(), &lines) {
                wrong.push(format!("{}: {m}", case.id));
            }
            let _ = std::fs::remove_file(&file);
            journals += 1;
        }
    }
    assert!(
        journals > 200,
        "only {journals} journals appended through faults"
    );

    // S-WRITER-1: a held journal is `locked` for a second writer.
    let held = dir.path().join("held.jsonl");
    let (first, _) = Store::open(&held, JournalProfile::Core).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let second = held.clone();
    std::thread::spawn(move || {
        let _ = tx.send(match Store::open(&second, JournalProfile::Core) {
            Err(ReadError::Invalid(e)) if e.code == ErrorCode::Locked => None,
            Err(e) => Some(format!("the error {e}")),
            Ok(_) => Some("a second store".into()),
        });
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(None) => {}
        Ok(Some(m)) => wrong.push(format!("a second writer's open answered {m}, not locked")),
        Err(_) => wrong.push("a second writer's open waited over 30 s for a held lock".into()),
    }
    drop(first);
    // ... and a lock released within the grace is taken. A run where the release came
    // too late to tell (a very loaded machine) is tried again.
    let mut decided = false;
    for _ in 0..20 {
        let (opened, ready) = std::sync::mpsc::channel();
        let path = held.clone();
        let release = std::thread::spawn(move || {
            let (first, _) = Store::open(&path, JournalProfile::Core).unwrap();
            opened.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
            drop(first);
            std::time::Instant::now()
        });
        ready.recv().unwrap();
        let start = std::time::Instant::now();
        let second = Store::open(&held, JournalProfile::Core);
        let released = release.join().unwrap().duration_since(start);
        match second {
            Ok(_) => decided = true,
            Err(_) if released > std::time::Duration::from_millis(150) => continue,
            Err(e) => {
                wrong.push(format!(
                    "a lock released after {released:?} was not taken within the 250 ms grace: {e}"
                ));
                decided = true;
            }
        }
        break;
    }
    assert!(
        decided,
        "the lock's grace could not be tried: every release came late"
    );

    // S-FILE-1 and S-RECOVER-2 through `recover`.
    let fifo = dir.path().join("fifo.jsonl");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo failed");
    let folder = dir.path().join("folder.jsonl");
    std::fs::create_dir(&folder).unwrap();
    let missing = dir.path().join("missing.jsonl");
    for (path, what) in [
        (&fifo, Some("a FIFO")),
        (&folder, Some("a directory")),
        (&missing, None),
    ] {
        let mut child = Command::new(BIN)
            .args(["recover", "--profile", "core", path.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the kit");
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(10) {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = path.display().to_string();
        let right = match what {
            Some(kind) => {
                out.status.code() == Some(2) && stderr.contains(&name) && stderr.contains(kind)
            }
            None => {
                out.status.code() == Some(0)
                    && json::parse(stdout.trim_end())
                        .ok()
                        .and_then(|r| r.get("torn").cloned())
                        == Some(Value::Null)
                    && !path.exists()
            }
        };
        if !right {
            wrong.push(format!(
                "recover {name}: exit {:?}\n{stdout}{stderr}",
                out.status.code()
            ));
        }
    }

    // `journal_dir`.
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap();
    let other = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(other.path().join("target.jsonl"), &link).unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"").unwrap();
    let bare = Path::new("no-such-journal-for-the-gate.jsonl");
    assert!(!bare.exists());
    for (path, want) in [
        (dir.path().join("new.jsonl"), Some(canon(dir.path()))),
        (link.clone(), Some(canon(other.path()))),
        (bare.to_owned(), Some(canon(Path::new(".")))),
        (plain.join("x.jsonl"), None),
    ] {
        let got = journal_dir(&path).ok();
        if got != want {
            wrong.push(format!(
                "journal_dir({}) = {got:?}, want {want:?}",
                path.display()
            ));
        }
    }
    assert_all_right("store contract checks", journals + 8, 0, &wrong);
}

/// A reader of `bytes` whose every other `fill_buf` is interrupted (`EINTR`), and which,
/// given `fail_at`, fails once when it reaches that offset and then ends (gate path 17):
/// a reader that took the failure for an interruption, or skipped it, would go on to an
/// answer about part of the input.
struct Flaky<'a> {
    bytes: &'a [u8],
    at: usize,
    interrupt: bool,
    fail_at: Option<usize>,
}

impl std::io::Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::BufRead::fill_buf(self)?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl std::io::BufRead for Flaky<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let end = match self.fail_at {
            Some(f) if self.at == f => {
                self.fail_at = None;
                self.bytes = &self.bytes[..f];
                return Err(std::io::Error::other("injected read failure"));
            }
            Some(f) => f,
            None => self.bytes.len(),
        };
        // At most 7 bytes a call, so reads end inside lines and every line is refilled.
        Ok(&self.bytes[self.at..end.min(self.at + 7)])
    }
    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Gate path 17, reads that fail (SPEC.md X-EXIT-1: a failed read is an I/O error
/// whatever was read before it; a read interrupted by a signal is retried): the journal
/// fast path (`fast::validate`, which `validate` and `serve` answer with), on every
/// `validate` check in a journal profile, reading through [`Flaky`]: interrupted on
/// every other read, it must answer as the vector says; failing halfway through a valid
/// journal, it must fail with an I/O error, not count the events before it.
#[test]
fn a_failing_read_is_an_io_error() {
    use journal_conformance::error::ReadError;
    use journal_conformance::fast::{self, Options};
    let (mut checked, mut failed) = (0, 0);
    let mut wrong = Vec::new();
    for case in vectors::load_embedded().unwrap() {
        if journal_profile(case.profile).is_none() {
            continue;
        }
        let opts = Options::new(case.profile.journal());
        for check in case
            .checks
            .iter()
            .filter(|c| matches!(c.op, Operation::Validate))
        {
            let flaky = |fail_at| Flaky {
                bytes: &case.input,
                at: 0,
                interrupt: false,
                fail_at,
            };
            let answer = match fast::validate(flaky(None), &opts) {
                Ok(n) => Answer::Result(Value::object([("event_count", Value::from_u64(n))])),
                Err(ReadError::Invalid(e)) => error_answer(e),
                Err(e) => Answer::Result(Value::from(e.to_string())),
            };
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} (interrupted reads): {m:?}", case.id));
            }
            if valid_lines(&case, &check.expect).is_some() {
                failed += 1;
                match fast::validate(flaky(Some(case.input.len() / 2)), &opts) {
                    Err(ReadError::Io(_)) => {}
                    other => wrong.push(format!(
                        "{} (a read failing at byte {}): {other:?}, not an I/O error",
                        case.id,
                        case.input.len() / 2
                    )),
                }
            }
        }
    }
    assert!(failed > 400, "only {failed} failing reads");
    assert_all_right("reads through interruptions", checked, 1900, &wrong);
}
