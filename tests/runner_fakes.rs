//! The runner against deliberately broken adapters (tests/fakes/fake_adapter.py): each
//! misbehaviour is reported precisely, the run goes on, and no process is left behind.

use std::path::PathBuf;
use std::process::Command;

use journal_conformance::json::{self, Value};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn fake(mode: &str, marker: &str) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_adapter.py");
    format!("python3 {} {mode} {BIN} {marker}", script.display())
}

struct Run {
    status: i32,
    stdout: String,
    cases: Vec<Value>,
}

fn run_test(mode: &str, filter: &[&str], extra: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!("jc-fakes-{}-{mode}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.jsonl");
    let marker = format!("jc-marker-{}-{mode}-end", std::process::id());
    let mut cmd = Command::new(BIN);
    cmd.arg("test")
        .arg("--adapter")
        .arg(fake(mode, &marker))
        .arg("--report")
        .arg(&report)
        .args(if extra.contains(&"--timeout") {
            &[][..]
        } else {
            &["--timeout", "5"][..]
        })
        .args(["--test-threads", "1", "--properties", "0"])
        .args(extra)
        .args(filter)
        .env("FAKE_STATE", dir.join("state"));
    let out = cmd.output().unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let cases = text
        .lines()
        .map(|l| json::parse(l).unwrap())
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("case"))
        .collect();
    // A9: no child process is left behind.
    let left = Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "{mode}: processes left behind: {}",
        String::from_utf8_lossy(&left.stdout)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        cases,
    }
}

fn outcome<'a>(run: &'a Run, id: &str) -> (&'a str, &'a str) {
    let c = run
        .cases
        .iter()
        .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
        .unwrap_or_else(|| panic!("no case {id} in the report:\n{}", run.stdout));
    (
        c.get("outcome").unwrap().as_str().unwrap(),
        c.get("message").unwrap().as_str().unwrap(),
    )
}

#[test]
fn wrong_error_code_is_a_failure_naming_both_codes() {
    let r = run_test("wrong-code", &["journal/"], &[]);
    assert_eq!(r.status, 1);
    let (o, m) = outcome(&r, "journal/forward-parent");
    assert_eq!(o, "failed");
    assert!(
        m.contains("expected error `unknown_parent`, got `malformed_event`"),
        "{m}"
    );
    assert_eq!(outcome(&r, "journal/gap").0, "passed");
}

#[test]
fn missing_error_location_is_a_failure() {
    let r = run_test("no-line", &["journal/gap"], &["--exact"]);
    let (o, m) = outcome(&r, "journal/gap");
    assert_eq!(o, "failed");
    assert!(m.contains("expected at line 3, reported at no line"), "{m}");
}

#[test]
fn a_differing_result_names_the_json_pointer() {
    let r = run_test("extra-member", &["replay/stop-reason"], &["--exact"]);
    let (o, m) = outcome(&r, "replay/stop-reason");
    assert_eq!(o, "failed");
    assert!(m.contains("/x_extra: unexpected member"), "{m}");
    let r = run_test(
        "ensure-ascii-strings",
        &["replay/user-unicode"],
        &["--exact"],
    );
    let (o, m) = outcome(&r, "replay/user-unicode");
    assert_eq!(o, "failed");
    assert!(m.contains("/user_messages/0: expected"), "{m}");
}

#[test]
fn accepting_invalid_input_is_a_failure() {
    let r = run_test("accept-everything", &["journal/mixed-"], &[]);
    for id in ["journal/mixed-run", "journal/mixed-session"] {
        let (o, m) = outcome(&r, id);
        assert_eq!(o, "failed");
        assert!(m.contains("got a result"), "{m}");
    }
}

#[test]
fn crashing_adapter_is_errored_with_stderr_and_restarted() {
    let r = run_test("crash", &["journal/mixed-"], &[]);
    assert_eq!(r.status, 1);
    for id in ["journal/mixed-run", "journal/mixed-session"] {
        let (o, m) = outcome(&r, id);
        assert_eq!(o, "errored", "{id}");
        assert!(
            m.contains("fake: simulated crash"),
            "stderr tail missing: {m}"
        );
    }
}

#[test]
fn adapter_crashing_once_recovers_for_the_next_case() {
    let r = run_test("crash-once", &["journal/mixed-"], &[]);
    let errored: Vec<_> = r
        .cases
        .iter()
        .filter(|c| c.get("outcome").unwrap().as_str() == Some("errored"))
        .collect();
    assert_eq!(errored.len(), 1, "{}", r.stdout);
    let passed = r
        .cases
        .iter()
        .filter(|c| c.get("outcome").unwrap().as_str() == Some("passed"))
        .count();
    assert_eq!(passed, r.cases.len() - 1);
}

#[test]
fn hanging_adapter_times_out_and_is_killed() {
    let r = run_test("hang", &["journal/mixed-"], &["--timeout", "0.5"]);
    for id in ["journal/mixed-run", "journal/mixed-session"] {
        let (o, m) = outcome(&r, id);
        assert_eq!(o, "errored");
        assert!(m.contains("timeout"), "{m}");
    }
}

#[test]
fn protocol_violations_are_errors() {
    for (mode, needle) in [
        ("garbage", "not JSON"),
        ("wrong-id", "to request id"),
        ("babble", "not JSON"),
        ("no-error-id", "answer for id (none)"),
    ] {
        let r = run_test(mode, &["journal/gap"], &["--exact"]);
        assert_eq!(r.status, 1, "{mode}");
        let (o, m) = outcome(&r, "journal/gap");
        assert_eq!(o, "errored", "{mode}");
        assert!(m.contains(needle), "{mode}: {m}");
    }
}

#[test]
fn silent_adapter_fails_the_handshake_with_usage_status() {
    let r = run_test("silent", &["journal/gap"], &[]);
    assert_eq!(r.status, 2);
    assert!(r.cases.is_empty());
}

#[test]
fn unsupported_operations_are_skipped_not_failed() {
    let r = run_test("no-canonical", &["canonical-input/"], &[]);
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert!(!r.cases.is_empty());
    for c in &r.cases {
        assert_eq!(c.get("outcome").unwrap().as_str(), Some("skipped"));
    }
}

#[test]
fn skip_list_marks_skipped_and_reports_cases_that_now_pass() {
    let dir = std::env::temp_dir().join(format!("jc-skip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let skip = dir.join("skip.txt");
    std::fs::write(&skip, "# known failures\njournal/forward-parent wrong code, issue 12\njournal/gap believed broken\n").unwrap();
    let r = run_test(
        "wrong-code",
        &["journal/"],
        &[
            "--skip-file",
            skip.to_str().unwrap(),
            "--skip",
            "journal/mixed",
            "--skip",
            "journal/dup",
        ],
    );
    let (o, m) = outcome(&r, "journal/forward-parent");
    assert_eq!(o, "skipped");
    assert!(m.contains("wrong code, issue 12"));
    let (o, m) = outcome(&r, "journal/gap");
    assert_eq!(o, "failed");
    assert!(m.contains("now passes"), "{m}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn differential_testing_shrinks_a_disagreement_into_a_vector() {
    let dir = std::env::temp_dir().join(format!("jc-cx-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let marker = format!("jc-marker-{}-cx-end", std::process::id());
    // No vector matches the filter: only the generated cases run.
    let out = Command::new(BIN)
        .args([
            "test",
            "--exact",
            "no-such-case",
            "--properties",
            "400",
            "--seed",
            "7",
        ])
        .arg("--adapter")
        .arg(fake("wrong-code", &marker))
        .arg("--counterexamples")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("DISAGREEMENT"), "{stdout}");
    // The written vectors are valid vector files whose cases fail the fake and pass
    // the reference, on shrunk journals of only a few lines: one per distinct kind
    // (the wrong code is one fault, seen by each journal and tree operation).
    let cases = journal_conformance::vectors::load_dir(&dir).unwrap();
    assert!(!cases.is_empty() && cases.len() <= 8, "{stdout}");
    let mut reference = journal_conformance::adapter::Reference::default();
    for case in &cases {
        assert!(case.id.starts_with("properties/"), "{}", case.id);
        assert!(
            case.input
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count()
                <= 3,
            "not shrunk: {:?}",
            String::from_utf8_lossy(&case.input)
        );
        assert_eq!(
            journal_conformance::runner::run_case(&mut reference, case).outcome,
            journal_conformance::runner::Outcome::Passed
        );
    }
    let r = Command::new(BIN)
        .args(["test", "--corpus"])
        .arg(&dir)
        .arg("--adapter")
        .arg(fake("wrong-code", &marker))
        .args(["--properties", "0"])
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(1),
        "the counterexample must fail the fake"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reports_junit_and_the_side_by_side_summary() {
    let dir = std::env::temp_dir().join(format!("jc-reports-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let marker = format!("jc-marker-{}-reports-end", std::process::id());
    let (ours, fake_r, junit) = (
        dir.join("ref.jsonl"),
        dir.join("fake.jsonl"),
        dir.join("fake.xml"),
    );
    let ok = Command::new(BIN)
        .args(["test", "journal/", "--report"])
        .arg(&ours)
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let bad = Command::new(BIN)
        .args(["test", "journal/", "--properties", "0", "--adapter"])
        .arg(fake("wrong-code", &marker))
        .arg("--report")
        .arg(&fake_r)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    // The report: a header, one line per case, a footer with the counts.
    let lines: Vec<Value> = std::fs::read_to_string(&fake_r)
        .unwrap()
        .lines()
        .map(|l| json::parse(l).unwrap())
        .collect();
    assert_eq!(lines[0].get("type").unwrap().as_str(), Some("header"));
    let footer = lines.last().unwrap();
    let failed = footer.get("failed").unwrap().as_i64().unwrap();
    assert!(failed >= 3, "{failed}"); // the unknown_parent cases
    assert_eq!(
        lines.len() as i64 - 2,
        footer.get("passed").unwrap().as_i64().unwrap() + failed
    );
    // JUnit: one testcase per case, failures marked.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testsuite name=\"journal\""), "{xml}");
    assert_eq!(
        xml.matches("<testcase ").count() as i64,
        lines.len() as i64 - 2
    );
    assert_eq!(xml.matches("<failure").count() as i64, failed);
    // The summary table: both implementations side by side.
    let s = Command::new(BIN)
        .arg("summary")
        .arg(&ours)
        .arg(&fake_r)
        .output()
        .unwrap();
    let table = String::from_utf8(s.stdout).unwrap();
    assert!(
        table.contains("| group | journal-conformance (reference) | fake-wrong-code |"),
        "{table}"
    );
    assert!(table.contains(&format!("/{failed}/0/0 |")), "{table}");
    let j = Command::new(BIN)
        .args(["summary", "--json"])
        .arg(&ours)
        .arg(&fake_r)
        .output()
        .unwrap();
    let v = json::parse(std::str::from_utf8(&j.stdout).unwrap()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
