//! `journal-conformance fuzz` (SPEC.md 13.7), as its users run it: against the reference
//! (no finding), against the naive Python port with a planted fault (the fault is found,
//! attributed to its rule, not hidden by the skip list of the port's known decisions,
//! and the vectors it writes fail `test`), resumed from its corpus (goes on, does not
//! start over; the corpus directory is a corpus `test` accepts), and deterministic for
//! its seed and run count.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use journal_conformance::json::{self, Value};
use support::{bin, root, scratch};

fn python_port() -> String {
    format!(
        "python3 {}",
        root().join("adapters/python/examples/adapter.py").display()
    )
}

/// Run the kit with `args` and the environment `env`; exit status and stdout.
fn kit(args: &[&str], env: &[(&str, &str)], kept: &Path) -> (i32, String) {
    let out = Command::new(bin())
        .args(args)
        .envs(env.iter().copied())
        .env("JOURNAL_CONFORMANCE_COUNTEREXAMPLES", kept)
        .stdin(Stdio::null())
        .output()
        .expect("the kit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The JSON lines of a `--format json` run.
fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| json::parse_with_max_depth(l, 256).expect("a JSON line"))
        .collect()
}

fn of_type<'a>(ls: &'a [Value], t: &str) -> Vec<&'a Value> {
    ls.iter()
        .filter(|v| v.get("type").and_then(Value::as_str) == Some(t))
        .collect()
}

fn num(v: &Value, k: &str) -> i64 {
    v.get(k).and_then(Value::as_i64).unwrap_or(-1)
}

#[test]
fn the_reference_has_no_findings() {
    let d = scratch("fuzz-ref");
    let serve = format!("{} serve", bin());
    let findings = d.path().join("findings");
    let (code, out) = kit(
        &[
            "fuzz",
            "--adapter",
            &serve,
            "--runs",
            "1500",
            "--format",
            "json",
            "--findings",
            findings.to_str().unwrap(),
        ],
        &[],
        d.path(),
    );
    let ls = lines(&out);
    let summary = of_type(&ls, "summary")[0];
    assert_eq!(code, 0, "{out}");
    assert_eq!(summary.get("verdict").and_then(Value::as_str), Some("ok"));
    assert_eq!(num(summary, "findings"), 0);
    assert!(num(summary, "executions") >= 1500, "{out}");
    assert!(of_type(&ls, "kind").is_empty());
}

#[test]
fn a_planted_fault_is_found_outside_the_skip_list_and_its_vectors_fail_test() {
    let d = scratch("fuzz-plant");
    let kept = d.path().join("kept");
    let port = python_port();
    // The port's known decisions, by rule, as its author would record them.
    let skip = d.path().join("known.txt");
    let (code, _) = kit(
        &[
            "test",
            "--adapter",
            &port,
            "--by-rule",
            "--format",
            "terse",
            "--write-skip-file",
            skip.to_str().unwrap(),
        ],
        &[],
        &kept,
    );
    assert_eq!(code, 1, "the port has known deviations");
    let known = std::fs::read_to_string(&skip).unwrap();
    assert!(
        !known.contains("R-SEL-1"),
        "the plant is not a known decision:\n{known}"
    );
    let findings = d.path().join("findings");
    let plant = [("NAIVE_JOURNAL_PLANT", "until-off-by-one")];
    let (code, out) = kit(
        &[
            "fuzz",
            "--adapter",
            &port,
            "--runs",
            "2000",
            "--seed",
            "1",
            "--format",
            "json",
            "--skip-file",
            skip.to_str().unwrap(),
            "--findings",
            findings.to_str().unwrap(),
        ],
        &plant,
        &kept,
    );
    assert_eq!(
        code, 1,
        "a finding outside the skip list fails the campaign:\n{out}"
    );
    let ls = lines(&out);
    let kinds = of_type(&ls, "kind");
    let planted: Vec<&&Value> = kinds
        .iter()
        .filter(|k| k.get("rule").and_then(Value::as_str) == Some("R-SEL-1"))
        .collect();
    assert!(
        !planted.is_empty(),
        "the planted R-SEL-1 fault is found:\n{out}"
    );
    assert!(planted
        .iter()
        .all(|k| k.get("known") == Some(&Value::Bool(false))));
    assert!(
        kinds
            .iter()
            .any(|k| k.get("known") == Some(&Value::Bool(true))),
        "the port's known decisions are found too, and known"
    );
    // Every finding is a vector: `test --corpus` on them fails against the faulty port,
    // and `show` finds the planted one.
    let (code, _) = kit(
        &[
            "test",
            "--adapter",
            &port,
            "--properties",
            "0",
            "--format",
            "terse",
            "--corpus",
            findings.to_str().unwrap(),
        ],
        &plant,
        &kept,
    );
    assert_eq!(code, 1);
    let id = planted[0].get("id").and_then(Value::as_str).unwrap();
    // Its one-line reproducer runs that case alone, and fails.
    let line = planted[0].get("reproduce").and_then(Value::as_str).unwrap();
    let words = shell_words::split(line).unwrap();
    assert_eq!(words[0], "journal-conformance");
    assert!(words.contains(&id.to_owned()), "{line}");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let (code, out1) = kit(&args, &plant, &kept);
    assert_eq!(code, 1, "{line}\n{out1}");
    assert!(out1.contains("1 failed"), "{out1}");
    let (code, shown) = kit(
        &["show", "--corpus", findings.to_str().unwrap(), id],
        &[],
        &kept,
    );
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("R-SEL-1"), "{shown}");
    // Without the plant, the planted kind's vector passes: it caught the plant, nothing else.
    let file = planted[0].get("path").and_then(Value::as_str).unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let v = json::parse(&text).unwrap();
    let case = v
        .get("cases")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .find(|c| id.ends_with(c.get("name").and_then(Value::as_str).unwrap()))
        .unwrap()
        .clone();
    let one = d.path().join("one");
    std::fs::create_dir_all(one.join("properties")).unwrap();
    std::fs::write(
        one.join("properties/planted.json"),
        journal_conformance::canonical::to_string(&Value::object([(
            "cases",
            Value::Array(vec![case]),
        )])),
    )
    .unwrap();
    let (code, out) = kit(
        &[
            "test",
            "--adapter",
            &port,
            "--properties",
            "0",
            "--format",
            "terse",
            "--corpus",
            one.to_str().unwrap(),
        ],
        &[],
        &kept,
    );
    assert_eq!(
        code, 0,
        "without the plant the port passes the planted kind's vector:\n{out}"
    );
}

#[test]
fn a_resumed_campaign_goes_on_and_its_corpus_is_a_corpus() {
    let d = scratch("fuzz-resume");
    let serve = format!("{} serve", bin());
    let corpus = d.path().join("corpus");
    let c = corpus.to_str().unwrap();
    let f = d.path().join("findings");
    let args = |runs: &'static str| {
        vec![
            "fuzz".to_owned(),
            "--adapter".into(),
            serve.clone(),
            "--runs".into(),
            runs.into(),
            "--format".into(),
            "json".into(),
            "--corpus".into(),
            c.into(),
            "--findings".into(),
            f.to_str().unwrap().into(),
        ]
    };
    let a: Vec<String> = args("400");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, first) = kit(&a, &[], d.path());
    assert_eq!(code, 0, "{first}");
    let first = lines(&first);
    let s1 = of_type(&first, "summary")[0];
    assert_eq!(num(s1, "resumed_from"), 0);
    let state = std::fs::read_to_string(corpus.join("campaign.state")).unwrap();
    assert_eq!(state.trim(), r#"{"executions":400}"#);
    let kept = num(s1, "corpus");
    assert!(kept > 0);
    // The second run replays what the first kept (not the conformance corpus again) and
    // goes on from execution 400.
    let (code, second) = kit(&a, &[], d.path());
    assert_eq!(code, 0, "{second}");
    let second = lines(&second);
    let s2 = of_type(&second, "summary")[0];
    assert_eq!(num(s2, "resumed_from"), 400);
    let files = count_vector_files(&corpus);
    assert!(
        num(s2, "replayed") as usize <= files && num(s2, "replayed") > 0,
        "replayed {} of {files} kept files",
        num(s2, "replayed")
    );
    assert!(
        num(s2, "replayed") < num(s1, "replayed"),
        "not the whole conformance corpus again"
    );
    let state = std::fs::read_to_string(corpus.join("campaign.state")).unwrap();
    assert_eq!(state.trim(), r#"{"executions":800}"#);
    // The corpus directory is a conformance corpus the reference passes.
    let (code, out) = kit(&["test", "--format", "terse", "--corpus", c], &[], d.path());
    assert_eq!(code, 0, "{out}");
    // Random bytes through the `arbitrary` recipes are one of its sources (FZ-CAMP-1):
    // some kept inputs came from them, and say so.
    let from_bytes = files_containing(&corpus, "(arbitrary)");
    assert!(
        from_bytes > 0,
        "no kept input came from the arbitrary recipes"
    );
}

fn files_containing(dir: &Path, needle: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                files_containing(&p, needle)
            } else {
                usize::from(std::fs::read_to_string(&p).is_ok_and(|t| t.contains(needle)))
            }
        })
        .sum()
}

fn count_vector_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                count_vector_files(&p)
            } else {
                usize::from(p.extension().is_some_and(|e| e == "json"))
            }
        })
        .sum()
}

#[test]
fn the_same_seed_and_runs_give_the_same_campaign() {
    let d = scratch("fuzz-det");
    let port = python_port();
    let plant = [("NAIVE_JOURNAL_PLANT", "until-off-by-one")];
    let run = |tag: &str, seed: &str| {
        let f = d.path().join(tag);
        let (_, out) = kit(
            &[
                "fuzz",
                "--adapter",
                &port,
                "--runs",
                "600",
                "--seed",
                seed,
                "--ops",
                "replay",
                "--format",
                "json",
                "--findings",
                f.to_str().unwrap(),
            ],
            &plant,
            &d.path().join("kept"),
        );
        let ls = lines(&out);
        // What the campaign found as it ran (before shrinking, whose budgets include a
        // time bound as a safety net): kind, rule and execution.
        let found: Vec<String> = of_type(&ls, "finding")
            .iter()
            .map(|k| {
                let t = k.get("text").and_then(Value::as_str).unwrap();
                // Without the time it was found at (`, 1.2 s`): that is the machine's.
                t.rsplit_once(", ").map_or(t, |(what, _)| what).to_owned()
            })
            .collect();
        let s = of_type(&ls, "summary")[0];
        (found, num(s, "corpus"), num(s, "executions"))
    };
    let a = run("a", "7");
    assert!(
        a.0.iter().any(|f| f.contains("R-SEL-1")),
        "the plant is found: {a:?}"
    );
    assert_eq!(
        a,
        run("b", "7"),
        "same seed, same findings, corpus and executions"
    );
    assert_ne!(a.0, run("c", "8").0, "another seed, another campaign");
}

/// A memory blow-up is a finding (FZ-FIND-1): a fake that answers right but holds 200 MB
/// from its 50th request is reported once, under `--max-memory 100`, and not under 1000.
#[test]
fn a_memory_blow_up_is_a_finding() {
    let d = scratch("fuzz-mem");
    let hog = support::fake("memory-hog");
    let run = |limit: &str| {
        let f = d.path().join(format!("findings-{limit}"));
        let (code, out) = kit(
            &[
                "fuzz",
                "--adapter",
                &hog,
                "--runs",
                "300",
                "--ops",
                "validate",
                "--max-memory",
                limit,
                "--format",
                "json",
                "--findings",
                f.to_str().unwrap(),
            ],
            &[],
            &d.path().join("kept"),
        );
        let ls = lines(&out);
        let memory: Vec<String> = of_type(&ls, "kind")
            .iter()
            .filter(|k| k.get("rule").and_then(Value::as_str) == Some("FZ-FIND-1"))
            .map(|k| {
                k.get("explanation")
                    .and_then(Value::as_str)
                    .unwrap()
                    .to_owned()
            })
            .collect();
        (code, memory, out)
    };
    let (code, memory, out) = run("100");
    assert_eq!(code, 1, "{out}");
    assert_eq!(memory.len(), 1, "{out}");
    assert!(memory[0].contains("memory blow-up"), "{}", memory[0]);
    let (code, memory, out) = run("1000");
    assert_eq!((code, memory.len()), (0, 0), "{out}");
}
