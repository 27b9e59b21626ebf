//! Gate paths 3 and 6: the journal commands (`validate --json`, `replay`, `fingerprint`,
//! `branch`), `tree inspect|validate|apply` and `canonical` on the corpus, each answer
//! judged against the vector's expectation.

use super::*;

/// Run one journal check through the command line; `None` when the check is not one.
fn cli_answer(dir: &Path, case: &Case, op: &Operation) -> Option<(Vec<String>, Answer)> {
    cli_answer_with(dir, case, op, &[]).map(|(args, answer, _)| (args, answer))
}

/// [`cli_answer`] with `extra` options (`--max-line-bytes N`) before the file, and the
/// command's output (for its status and stderr, which the answer does not keep).
pub(crate) fn cli_answer_with(
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

#[test]
fn the_command_line_answers_the_corpus() {
    let Some(_running) = fail_fast() else { return };
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

/// The `tree` subcommands on every 16th `tree_inspect` check of the hand-written groups
/// (about 80; two processes each, and all 1,258 took over 60 s of a mutant's test in a
/// debug build on a loaded machine): `tree inspect`
/// must print the expected view (or fail with the expected code), and `tree validate
/// --json` must agree with it on `entry_count` or the error code. The CLI's tree loading
/// and entry count answer for the kit as `tree_inspect` does.
#[test]
fn the_tree_command_answers_the_corpus() {
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
    let Some(_running) = fail_fast() else { return };
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
    let Some(_running) = fail_fast() else { return };
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
