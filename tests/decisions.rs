//! Issue 22's "done means" on the kit's naive TypeScript example
//! (adapters/typescript/examples/naive-journal.mjs), SPEC.md X-DECIDE-1: its deliberate
//! differences from SPEC.md are written down here, from its source, and the decisions of
//! a run are compared with them; a skip list of one entry per decision makes the run
//! pass, and a newly planted fault still fails it.
//!
//! Needs `node` (CI has Node 20); the differential phase is off so the fixed cases alone
//! decide (deterministic).

mod support;

use journal_conformance::json::Value;
use support::{report_lines, root, scratch, text};

/// The example's deliberate differences (read from naive-journal.mjs), each as the
/// decision it must give: (rule, what went wrong).
const DELIBERATE: &[(&str, &str, &str)] = &[
    (
        "C-KEY-2",
        "misses `duplicate_key`",
        "JSON.parse keeps the last of two equal keys",
    ),
    (
        "C-STR-3",
        "misses `lone_surrogate`",
        "JSON.parse accepts a lone \\ud800",
    ),
    (
        "C-DEPTH-1",
        "misses `nesting_too_deep`",
        "JSON.parse has no nesting bound",
    ),
    (
        "C-NUM-6",
        "misses `number_out_of_range`",
        "JSON.parse turns 1e400 into Infinity",
    ),
    (
        "C-NUM-3",
        "misses `number_out_of_range`",
        "no 4300-digit bound on integers",
    ),
    (
        "C-NUM-5",
        "wrong value",
        "JSON.stringify writes 1.0 as 1 and not repr's spelling",
    ),
    (
        "C-NUM-1",
        "wrong value",
        "integers are doubles: exact beyond 2^53 is lost",
    ),
    (
        "C-KEY-1",
        "wrong value",
        "Object.keys().sort() orders by UTF-16 code units",
    ),
    (
        "W-UTF8-1",
        "misses `invalid_utf8`",
        "canonical decodes with U+FFFD replacement",
    ),
    (
        "W-BOM-1",
        "misses `unexpected_bom`",
        "canonical hands a BOM to JSON.parse",
    ),
    (
        "C-SYNTAX-1",
        "location of `invalid_json`: line",
        "canonical reports no line",
    ),
    (
        "B-ID-1",
        "misses `invalid_branch_id`",
        "String.trim's white space is not isspace's (both ways: one row)",
    ),
];

fn run(args: &[&str], corpus: Option<&std::path::Path>) -> (i32, String, Vec<Value>) {
    let d = scratch("decide");
    let report = d.path().join("r.jsonl");
    let adapter = format!(
        "node {}",
        root()
            .join("adapters/typescript/examples/adapter.mjs")
            .display()
    );
    let mut all = vec![
        "test",
        "--properties",
        "0",
        "--adapter",
        &adapter,
        "--report",
        report.to_str().unwrap(),
    ];
    let c;
    if let Some(dir) = corpus {
        c = dir.to_str().unwrap().to_owned();
        all.extend(["--corpus", &c]);
    }
    all.extend(args);
    let o = support::jc(&all, b"");
    let (code, out, err) = text(&o);
    (code, out + &err, report_lines(&report))
}

fn decisions(lines: &[Value]) -> Vec<(String, String)> {
    let footer = lines.last().expect("a footer");
    footer
        .get("decisions")
        .and_then(Value::as_array)
        .expect("the footer carries decisions")
        .iter()
        .map(|d| {
            let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap().to_owned();
            let cause = s("cause");
            // `misses `X` (canonical, journal)` → `misses `X``; `wrong value at ...` →
            // `wrong value`.
            let what = cause
                .split(" (")
                .next()
                .unwrap()
                .split(" at /")
                .next()
                .unwrap()
                .to_owned();
            (s("rule"), what)
        })
        .collect()
}

#[test]
fn the_naive_typescript_example_gives_one_decision_per_difference() {
    let (code, out, lines) = run(&[], None);
    assert_eq!(code, 1, "{out}");
    let mut got = decisions(&lines);
    got.sort();
    let mut want: Vec<(String, String)> = DELIBERATE
        .iter()
        .map(|(r, w, _)| ((*r).to_owned(), (*w).to_owned()))
        .collect();
    want.sort();
    assert_eq!(got, want, "{out}");
    let failed = lines
        .iter()
        .filter(|l| l.get("outcome").and_then(Value::as_str) == Some("failed"))
        .count();
    assert!(
        out.contains(&format!(
            "{} decisions explain {failed} failures",
            want.len()
        )),
        "{out}"
    );

    // A skip list of one entry per decision (its rule) makes the run pass ...
    let d = scratch("decide-skip");
    let skip = d.path().join("skip.txt");
    let list: String = DELIBERATE
        .iter()
        .map(|(r, _, why)| format!("{r} {why}\n"))
        .collect();
    std::fs::write(&skip, list).unwrap();
    let (code, out, _) = run(&["--skip-file", skip.to_str().unwrap()], None);
    assert_eq!(code, 0, "{out}");

    // ... and a new fault still fails: a copy of the corpus with one more vector the
    // example answers differently from its expectation, on a rule not on the list.
    let corpus = d.path().join("corpus");
    copy_dir(&root().join("conformance"), &corpus);
    std::fs::write(
        corpus.join("planted.json"),
        r#"{"cases":[{"name":"stop-reason-planted","description":"A planted fault: the expectation says the stop reason is another.","rules":["R-STOP-1"],"input":"{\"event_id\":\"e0\",\"session_id\":\"s\",\"sequence\":0,\"type\":\"session.stop\",\"payload\":{\"reason\":\"done\"},\"provenance\":{\"run_id\":\"r\"}}\n","checks":[{"op":{"op":"validate"},"expect":{"result":{"event_count":2}}}]}]}"#,
    )
    .unwrap();
    let (code, out, lines) = run(&["--skip-file", skip.to_str().unwrap()], Some(&corpus));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        decisions(&lines),
        [("R-STOP-1".to_owned(), "wrong value".to_owned())],
        "{out}"
    );
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
