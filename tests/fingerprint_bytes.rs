//! Fingerprint and canonical failures show the bytes (issue 22 item 5, SPEC.md 13.3): an
//! adapter that writes one kind of value differently (tests/fakes/canon_variant.py) is
//! run on a journal of six events; the explanation names the first event it hashes
//! differently, shows the reference's canonical text of it and the adapter's, and marks
//! the first differing byte. Every expected text, offset and digest below was computed
//! by hand from the input and checked with Python's `json.dumps(..., sort_keys=True,
//! ensure_ascii=False, separators=(",", ":"))` and `hashlib.sha256`, not by the kit.

mod support;

use std::path::Path;
use std::process::Command;

use journal_conformance::json::Value;
use support::{bin, report_lines, root, scratch};

/// Six events; the first float with an integral value is at sequence 3 (line 4), a
/// non-integral one follows, then another integral one.
const JOURNAL: &str = concat!(
    r#"{"event_id":"e0","session_id":"s","sequence":0,"type":"note","payload":{},"provenance":{"run_id":"r"}}"#,
    "\n",
    r#"{"event_id":"e1","session_id":"s","sequence":1,"type":"note","payload":{"n":1},"provenance":{"run_id":"r"}}"#,
    "\n",
    r#"{"event_id":"e2","session_id":"s","sequence":2,"type":"note","payload":{"n":2},"provenance":{"run_id":"r"}}"#,
    "\n",
    r#"{"event_id":"e3","session_id":"s","sequence":3,"type":"note","payload":{"n":3,"w":1.0},"provenance":{"run_id":"r"}}"#,
    "\n",
    r#"{"event_id":"e4","session_id":"s","sequence":4,"type":"note","payload":{"w":2.5},"provenance":{"run_id":"r"}}"#,
    "\n",
    r#"{"event_id":"e5","session_id":"s","sequence":5,"type":"note","payload":{"w":4.0},"provenance":{"run_id":"r"}}"#,
    "\n",
);

/// `sha256("[" + ",".join(canon(e) for e in events) + "]")` of all six events, and of
/// the first five (Python's hashlib).
const FP_ALL: &str = "5de88b9c4b3ef09f7bf4ba088df9dc6c101f7c3c802912c504987ceb1e0e83fc";
const FP_UNTIL_4: &str = "fbcded6c914e272c9f25912de34faf16f8f352241d26ed61dadd8c477fdc08ae";

/// The canonical text of the event at sequence 3: keys sorted, no spaces, `1.0` kept.
const EVENT_3: &str = r#"{"event_id":"e3","payload":{"n":3,"w":1.0},"provenance":{"run_id":"r"},"sequence":3,"session_id":"s","type":"note"}"#;
/// Where the adapter's `{"n":3,"w":1}` departs from it: `{"event_id":"e3","payload":{"n":3,"w":1`
/// is 39 bytes (1 + 10 + 1 + 4 + 1 + 9 + 1 + 1 + 3 + 1 + 1 + 1 + 3 + 1 + 1), then `.` against `}`.
const EVENT_3_OFFSET: usize = 39;
/// The canonical text of `{"b":[1.0,2],"a":"x"}`, and where `{"a":"x","b":[1,2]}`
/// departs from it: `{"a":"x","b":[1` is 15 bytes.
const CANON: &str = r#"{"a":"x","b":[1.0,2]}"#;
const CANON_OFFSET: usize = 15;

fn vector_file(fingerprint_cases: usize) -> String {
    let fp = |name: String| {
        Value::object([
            ("name", Value::from(name)),
            ("description", Value::from("a journal with floats")),
            ("rules", Value::Array(vec![Value::from("F-FP-1")])),
            ("input", Value::from(JOURNAL)),
            (
                "checks",
                Value::Array(vec![
                    Value::object([
                        ("op", Value::object([("op", Value::from("fingerprint"))])),
                        ("expect", Value::object([("result", Value::from(FP_ALL))])),
                    ]),
                    Value::object([
                        (
                            "op",
                            Value::object([
                                ("op", Value::from("fingerprint")),
                                ("until", Value::from_i64(4)),
                            ]),
                        ),
                        (
                            "expect",
                            Value::object([("result", Value::from(FP_UNTIL_4))]),
                        ),
                    ]),
                ]),
            ),
        ])
    };
    let mut cases: Vec<Value> = (0..fingerprint_cases)
        .map(|i| fp(format!("floats-{i:02}")))
        .collect();
    cases.push(Value::object([
        ("name", Value::from("canon")),
        ("description", Value::from("a float in an array")),
        ("rules", Value::Array(vec![Value::from("C-NUM-5")])),
        ("input", Value::from(r#"{"b":[1.0,2],"a":"x"}"#)),
        (
            "checks",
            Value::Array(vec![Value::object([
                ("op", Value::object([("op", Value::from("canonical"))])),
                ("expect", Value::object([("result", Value::from(CANON))])),
            ])]),
        ),
    ]));
    journal_conformance::canonical::to_string(&Value::object([("cases", Value::Array(cases))]))
}

struct Run {
    status: i32,
    stdout: String,
    cases: Vec<Value>,
    footer: Value,
    /// The requests the adapter saw, one line each (the operation, a tab and the input
    /// for `canonical`).
    log: Vec<String>,
}

impl Run {
    fn case(&self, id: &str) -> &Value {
        self.cases
            .iter()
            .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
            .unwrap_or_else(|| panic!("no case {id} in the report:\n{}", self.stdout))
    }

    /// The explanation of one case in the closing output.
    fn explanation(&self, id: &str) -> &str {
        let start = self
            .stdout
            .find(&format!("---- {id} "))
            .unwrap_or_else(|| panic!("no explanation of {id}:\n{}", self.stdout));
        let rest = &self.stdout[start..];
        let end = rest
            .find("see it:")
            .expect("an explanation ends with `see it`");
        &rest[..end]
    }
}

fn run(dir: &Path, mode: &str, cases: usize, jobs: &str) -> Run {
    let corpus = dir.join("corpus");
    support::corpus(&corpus, &[("fp/x.json", &vector_file(cases))]);
    let report = dir.join(format!("{mode}.jsonl"));
    let log = dir.join(format!("{mode}.log"));
    let adapter = format!(
        "python3 {} {mode} {}",
        root().join("tests/fakes/canon_variant.py").display(),
        bin()
    );
    let out = Command::new(bin())
        .args(["test", "fp/", "--corpus"])
        .arg(&corpus)
        .args(["--adapter", &adapter, "--jobs", jobs, "--report"])
        .arg(&report)
        .env("FAKE_LOG", &log)
        .output()
        .expect("the kit runs");
    let lines = report_lines(&report);
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        cases: lines
            .iter()
            .filter(|l| l.get("type").and_then(Value::as_str) == Some("case"))
            .cloned()
            .collect(),
        footer: lines.last().cloned().expect("a footer"),
        log: std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect(),
    }
}

fn int(v: &Value, k: &str) -> Option<i64> {
    v.get(k).and_then(Value::as_i64)
}

/// The line of `text` that starts with `prefix` (after the indentation).
fn line_of<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{text}"))
}

/// The column (in characters) of the caret under the two excerpt lines.
fn caret_column(text: &str) -> usize {
    let l = text
        .lines()
        .find(|l| l.trim_start().starts_with("^ byte"))
        .unwrap_or_else(|| panic!("no caret line in:\n{text}"));
    l.find('^').unwrap()
}

/// The column (in characters) of byte `pat_at` of the first occurrence of `pat` in `line`.
fn column_in(line: &str, pat: &str, pat_at: usize) -> usize {
    let i = line
        .find(pat)
        .unwrap_or_else(|| panic!("{pat:?} not in {line:?}"));
    line[..i].chars().count() + pat_at
}

#[test]
fn a_float_written_as_an_integer_is_found_and_its_byte_marked() {
    let dir = scratch("fpbytes");
    let r = run(dir.path(), "int-floats", 1, "1");
    assert_eq!(r.status, 1, "{}", r.stdout);
    // The verdict is the checks': both cases failed, nothing else.
    assert_eq!(
        (int(&r.footer, "failed"), int(&r.footer, "passed")),
        (Some(2), Some(0)),
        "{}",
        r.stdout
    );

    let e = r.explanation("fp/x/floats-00");
    assert!(
        e.contains("the first event the adapter hashes differently is sequence 3 (line 4;"),
        "{e}"
    );
    assert!(
        e.contains("the fingerprint with `until` 2 agrees, with `until` 3 it differs"),
        "{e}"
    );
    let reference = line_of(e, "reference:");
    let adapter = line_of(e, "adapter:");
    assert!(
        reference.contains(r#""payload":{"n":3,"w":1.0},"provenance""#),
        "{e}"
    );
    assert!(
        adapter.contains(r#""payload":{"n":3,"w":1},"provenance""#),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "^ byte {EVENT_3_OFFSET} of the event's canonical text"
        )),
        "{e}"
    );
    // The caret stands under the `.` of `1.0` and the `}` after the adapter's `1`.
    let col = caret_column(e);
    assert_eq!(col, column_in(reference, r#""w":1.0"#, 5), "{e}");
    assert_eq!(col, column_in(adapter, r#""w":1}"#, 5), "{e}");
    // Only the first fingerprint check is looked into.
    assert_eq!(e.matches("bytes:").count(), 1, "{e}");

    // The report carries it.
    let b = r
        .case("fp/x/floats-00")
        .get("bytes")
        .expect("a bytes member");
    assert_eq!(int(b, "check"), Some(1));
    assert_eq!(int(b, "sequence"), Some(3));
    assert_eq!(int(b, "line"), Some(4));
    assert_eq!(int(b, "offset"), Some(EVENT_3_OFFSET as i64));
    let excerpt = |k: &str| {
        let x = b.get(k).unwrap_or_else(|| panic!("no {k}"));
        let start = int(x, "start").unwrap() as usize;
        (
            start,
            x.get("text").and_then(Value::as_str).unwrap().to_owned(),
        )
    };
    let (start, text) = excerpt("reference");
    assert_eq!(text, EVENT_3[start..start + text.len()]);
    assert_eq!(
        int(b.get("reference").unwrap(), "size"),
        Some(EVENT_3.len() as i64)
    );
    assert!(start <= EVENT_3_OFFSET && EVENT_3_OFFSET < start + text.len());
    let (_, text) = excerpt("actual");
    assert!(text.contains(r#""w":1},"#), "{text}");

    // The adapter was asked at most ceil(log2(6)) + 2 = 5 more requests than the two
    // fingerprint checks, and its `canonical` got line 4 exactly as the journal has it.
    let fingerprints = r
        .log
        .iter()
        .filter(|l| l.contains(r#""fingerprint""#))
        .count();
    let canonicals: Vec<&String> = r
        .log
        .iter()
        .filter(|l| l.contains(r#""canonical""#))
        .collect();
    assert!(
        fingerprints - 2 + canonicals.len() - 1 <= 5,
        "{fingerprints} fingerprint and {} canonical requests:\n{}",
        canonicals.len(),
        r.log.join("\n")
    );
    let line_4 = JOURNAL.lines().nth(3).unwrap();
    assert!(
        canonicals
            .iter()
            .any(|l| l.ends_with(&format!("\t{line_4}"))),
        "{:?}",
        canonicals
    );

    // A wrong canonical text: the first differing byte of expected and actual.
    let e = r.explanation("fp/x/canon");
    assert!(
        e.contains(&format!(
            "the canonical texts differ at byte {CANON_OFFSET}"
        )),
        "{e}"
    );
    let expected = line_of(e, "expected:  ");
    let actual = line_of(e, "actual:    ");
    assert!(expected.ends_with(CANON), "{e}");
    assert!(actual.ends_with(r#"{"a":"x","b":[1,2]}"#), "{e}");
    assert_eq!(
        caret_column(e),
        column_in(expected, CANON, CANON_OFFSET),
        "{e}"
    );
    let b = r.case("fp/x/canon").get("bytes").expect("a bytes member");
    assert_eq!(
        (int(b, "offset"), b.get("op").and_then(Value::as_str)),
        (Some(CANON_OFFSET as i64), Some("canonical"))
    );
}

#[test]
fn without_canonical_the_reference_text_is_shown_alone() {
    let dir = scratch("fpbytes");
    let r = run(dir.path(), "int-floats-no-canonical", 1, "1");
    assert_eq!(r.status, 1, "{}", r.stdout);
    let e = r.explanation("fp/x/floats-00");
    assert!(e.contains("is sequence 3 (line 4;"), "{e}");
    assert_eq!(
        line_of(e, "reference:").trim_start(),
        format!("reference: {EVENT_3}"),
        "{e}"
    );
    assert!(!e.contains("adapter:") && !e.contains("^ byte"), "{e}");
    assert!(e.contains("the adapter does not offer `canonical`"), "{e}");
    assert!(
        e.contains("journal-conformance show fp/x/floats-00 --input | sed -n 4p | journal-conformance canonical -"),
        "{e}"
    );
    assert!(
        !r.log.iter().any(|l| l.contains(r#""canonical""#)),
        "{:?}",
        r.log
    );
    let b = r
        .case("fp/x/floats-00")
        .get("bytes")
        .expect("a bytes member");
    assert_eq!((int(b, "sequence"), int(b, "line")), (Some(3), Some(4)));
    assert_eq!(b.get("actual"), Some(&Value::Null));
}

#[test]
fn equal_canonical_texts_point_at_the_framing() {
    // Events joined with `\n`: one event hashes right, two do not; every text is right.
    let dir = scratch("fpbytes");
    let r = run(dir.path(), "newline-framing", 1, "1");
    assert_eq!(r.status, 1, "{}", r.stdout);
    let e = r.explanation("fp/x/floats-00");
    assert!(
        e.contains("is sequence 1 (line 2; the fingerprint with `until` 0 agrees, with `until` 1 it differs)"),
        "{e}"
    );
    assert!(
        line_of(e, "reference:").ends_with(
            r#"{"event_id":"e1","payload":{"n":1},"provenance":{"run_id":"r"},"sequence":1,"session_id":"s","type":"note"}"#
        ),
        "{e}"
    );
    assert!(
        e.contains("the adapter's `canonical` of that line is the same text"),
        "{e}"
    );
    assert!(e.contains("F-FP-1"), "{e}");
    assert!(!e.contains("^ byte"), "{e}");
    // The canonical case passes: this adapter's canonical text is right.
    let canon = r.case("fp/x/canon");
    assert_eq!(canon.get("outcome").and_then(Value::as_str), Some("passed"));
    assert_eq!(canon.get("bytes"), None);
}

#[test]
fn a_probe_the_adapter_cannot_answer_leaves_a_note() {
    let dir = scratch("fpbytes");
    let r = run(dir.path(), "int-floats-no-until", 1, "1");
    assert_eq!(r.status, 1, "{}", r.stdout);
    let e = r.explanation("fp/x/floats-00");
    assert!(
        e.contains(r#"the first differing event was not found: the adapter answered unsupported to {"op":"fingerprint","until":5}"#),
        "{e}"
    );
    assert!(!e.contains("reference:"), "{e}");
    let rec = r.case("fp/x/floats-00");
    assert_eq!(rec.get("outcome").and_then(Value::as_str), Some("failed"));
    assert_eq!(int(rec.get("bytes").unwrap(), "sequence"), None);
}

#[test]
fn only_the_first_twenty_fingerprint_failures_are_looked_into() {
    // 22 failing fingerprint cases on two jobs: the first 20 in corpus order are looked
    // into, whatever job ran them; the last two and the run's closing say so.
    let dir = scratch("fpbytes");
    let r = run(dir.path(), "int-floats", 22, "2");
    assert_eq!(r.status, 1, "{}", r.stdout);
    for i in 0..22 {
        let id = format!("fp/x/floats-{i:02}");
        let b = r.case(&id).get("bytes").expect("a bytes member");
        if i < 20 {
            assert_eq!(int(b, "sequence"), Some(3), "{id}");
        } else {
            assert_eq!(int(b, "sequence"), None, "{id}");
            assert!(
                r.explanation(&id).contains(
                    "not looked into: only the first 20 fingerprint failures of a run are"
                ),
                "{}",
                r.explanation(&id)
            );
        }
    }
    assert!(
        r.stdout.contains(
            "the first differing event was looked up for the first 20 fingerprint failures only (2 more not looked into)"
        ),
        "{}",
        r.stdout
    );
    assert_eq!(int(&r.footer, "failed"), Some(23), "{}", r.stdout);
}
