//! Gate paths 12, 13 and 14: behaviour the kit documents outside what vectors may
//! compare, on the corpus's inputs: SPEC.md 16.5's line bound, `tree show`'s drawing,
//! and the column of an `invalid_utf8` error (W-UTF8-1).

use super::*;
use crate::command_line::cli_answer_with;

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
    let Some(_running) = fail_fast() else { return };
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
    let Some(_running) = fail_fast() else { return };
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

/// Gate path 13, `tree show` (the drawing for people, which no operation of the protocol
/// answers): on every 4th `tree_inspect` check with a result, in both dialects, each line
/// the command prints begins with the line [`expected_drawing`] derives from the vector's
/// expected `children` and `head` and the input's ids and labels, and there is one line
/// per entry.
#[test]
fn the_tree_show_command_draws_the_corpus() {
    let Some(_running) = fail_fast() else { return };
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
