//! Failures that explain themselves (issue 12 items 1-2, SPEC.md 13.3): fake adapters
//! with planted faults (tests/fakes/fake_adapter.py) run against a small corpus of
//! chosen vectors; each failure names its rules, cause, pointer and escaped input, the
//! report carries the same, and the closing table groups failures by rule with
//! location-only mismatches apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use journal_conformance::json::{self, Value};
use journal_conformance::vectors::{self, Case};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

/// Write the embedded cases `ids` as a corpus directory (same groups, same ids).
fn corpus(dir: &Path, ids: &[&str]) {
    let all = vectors::load_embedded().unwrap();
    let mut groups: std::collections::BTreeMap<&str, Vec<Case>> = Default::default();
    for id in ids {
        let c = all
            .iter()
            .find(|c| c.id == *id)
            .unwrap_or_else(|| panic!("{id}"));
        groups.entry(&c.group).or_default().push(c.clone());
    }
    for (g, cases) in groups {
        let p = dir.join(format!("{g}.json"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let text = journal_conformance::canonical::to_string(&vectors::to_file_json(&cases));
        std::fs::write(p, text).unwrap();
    }
}

struct Run {
    status: i32,
    stdout: String,
    cases: Vec<Value>,
    junit: String,
}

impl Run {
    fn case(&self, id: &str) -> &Value {
        self.cases
            .iter()
            .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
            .unwrap_or_else(|| panic!("no case {id} in the report:\n{}", self.stdout))
    }

    /// The failures-by-rule table's rows: `(section, rule, cases, causes)`.
    fn rows(&self) -> Vec<(String, String, u64, String)> {
        let table = self
            .stdout
            .split("failures by rule")
            .nth(1)
            .unwrap_or_else(|| panic!("no failures-by-rule table:\n{}", self.stdout));
        let mut section = String::new();
        let mut rows = Vec::new();
        for line in table.lines().skip(1) {
            if !line.starts_with(' ') {
                if line.is_empty() || line.starts_with("conformance") {
                    break;
                }
                section = line.split([' ', ':']).next().unwrap().to_owned();
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            if f[0] == "rule" {
                continue;
            }
            let after_rule = line.trim_start()[f[0].len()..].trim_start();
            let causes = after_rule[f[1].len()..]
                .trim()
                .split("  ")
                .next()
                .unwrap()
                .to_owned();
            rows.push((
                section.clone(),
                f[0].to_owned(),
                f[1].parse().unwrap(),
                causes,
            ));
        }
        rows
    }
}

fn run(tag: &str, mode: &str, ids: &[&str], extra: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!("jc-explain-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let c = dir.join("corpus");
    corpus(&c, ids);
    let (report, junit) = (dir.join("report.jsonl"), dir.join("junit.xml"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/fake_adapter.py");
    let mut cmd = Command::new(BIN);
    cmd.arg("test")
        .arg("--corpus")
        .arg(&c)
        .arg("--report")
        .arg(&report);
    cmd.arg("--junit").arg(&junit);
    if mode != "reference" {
        cmd.arg("--adapter")
            .arg(format!("python3 {} {mode} {BIN}", script.display()));
    }
    let out = cmd
        // The failures-by-rule table these tests read is printed with --by-rule (the
        // decisions lead the summary by default, X-DECIDE-1).
        .args(["--properties", "0", "--skip", "golden/", "--by-rule"])
        .args(extra)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let cases = text
        .lines()
        .map(|l| json::parse(l).unwrap())
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("case"))
        .collect();
    let junit = std::fs::read_to_string(&junit).unwrap_or_default();
    std::fs::remove_dir_all(&dir).unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        cases,
        junit,
    }
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn strings(v: &Value, k: &str) -> Vec<String> {
    v.get(k)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no array {k}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

const STOPS: &[&str] = &[
    "replay/stop-reason",
    "replay/stop-empty-reason",
    "replay/stop-twice-last-wins",
];
const GAPS: &[&str] = &["journal/gap", "journal/exercise-a"];

#[test]
fn a_wrong_stop_reason_is_a_wrong_result_attributed_to_r_stop_1() {
    let r = run("stop", "wrong-stop-reason", STOPS, &[]);
    assert_eq!(r.status, 1, "{}", r.stdout);
    let c = r.case("replay/stop-reason");
    assert_eq!(s(c, "outcome"), Some("failed"));
    assert_eq!(s(c, "cause"), Some("wrong_result"));
    assert_eq!(strings(c, "rules"), ["R-STOP-1"]);
    assert_eq!(
        s(c, "description"),
        Some("session.stop sets the stop reason.")
    );
    let input = c.get("input").unwrap();
    let preview = s(input, "preview").unwrap();
    assert!(preview.contains("\"reason\":\"max_turns\""), "{preview}");
    assert_eq!(
        input.get("size").unwrap().as_i64(),
        Some(preview.len() as i64)
    );
    let checks = c.get("checks").unwrap().as_array().unwrap();
    // validate passes (no cause, no pointer); replay fails at /result/stop_reason.
    assert_eq!(checks[0].get("cause"), Some(&Value::Null));
    assert_eq!(checks[0].get("pointer"), Some(&Value::Null));
    assert_eq!(s(&checks[1], "cause"), Some("wrong_result"));
    assert_eq!(s(&checks[1], "pointer"), Some("/result/stop_reason"));
    // The printed explanation: rule with its title, cause, pointer, input, size.
    for needle in [
        "replay/stop-reason\n  description: session.stop sets the stop reason.",
        "  rule R-STOP-1: A `session.stop` event sets `stop_reason` to `payload.reason`",
        "  check 2 of 2: {\"op\":\"replay\"}\n    cause:    wrong_result at /result/stop_reason",
        "\"stop_reason\":\"max_turns\"",
        "\"stop_reason\":\"stopped\"",
        "    why:      /stop_reason: expected \"max_turns\", got \"stopped\"",
        "  input (140 bytes, ends with a newline):\n    | {\"event_id\":\"e0\"",
        "journal-conformance show replay/stop-reason",
    ] {
        assert!(r.stdout.contains(needle), "{needle:?} not in\n{}", r.stdout);
    }
    assert_eq!(
        r.rows(),
        [(
            "wrong".to_owned(),
            "R-STOP-1".to_owned(),
            3,
            "wrong_result 3".to_owned()
        )]
    );
    assert_eq!(
        r.junit.matches("type=\"wrong_result\"").count(),
        3,
        "{}",
        r.junit
    );
}

#[test]
fn accepted_gaps_are_results_instead_of_errors() {
    let r = run("gaps", "accept-gaps", GAPS, &[]);
    assert_eq!(r.status, 1);
    for id in GAPS {
        let c = r.case(id);
        assert_eq!(s(c, "cause"), Some("result_instead_of_error"), "{id}");
        let checks = c.get("checks").unwrap().as_array().unwrap();
        assert_eq!(s(&checks[0], "cause"), Some("result_instead_of_error"));
        assert_eq!(checks[0].get("pointer"), Some(&Value::Null));
    }
    assert_eq!(
        r.rows(),
        [(
            "wrong".to_owned(),
            "J-SEQ-1".to_owned(),
            2,
            "result_instead_of_error 2".to_owned()
        )]
    );
}

#[test]
fn a_location_only_mismatch_is_shown_apart_from_wrong_answers() {
    let r = run("noline", "no-line", GAPS, &[]);
    assert_eq!(r.status, 1);
    let c = r.case("journal/gap");
    assert_eq!(s(c, "cause"), Some("wrong_location"));
    let checks = c.get("checks").unwrap().as_array().unwrap();
    assert_eq!(s(&checks[0], "pointer"), Some("/error/line"));
    assert!(r.stdout.contains("cause:    wrong_location at /error/line"));
    assert!(!r.stdout.contains("wrong answers:"), "{}", r.stdout);
    assert_eq!(
        r.rows(),
        [(
            "location".to_owned(),
            "J-SEQ-1".to_owned(),
            2,
            "wrong_location 2".to_owned()
        )]
    );
}

#[test]
fn two_independent_faults_give_two_rows() {
    let ids: Vec<&str> = STOPS.iter().chain(GAPS).copied().collect();
    let r = run("two", "wrong-stop-reason+accept-gaps", &ids, &[]);
    assert_eq!(r.status, 1);
    let rows = r.rows();
    assert_eq!(
        rows,
        [
            (
                "wrong".to_owned(),
                "R-STOP-1".to_owned(),
                3,
                "wrong_result 3".to_owned()
            ),
            (
                "wrong".to_owned(),
                "J-SEQ-1".to_owned(),
                2,
                "result_instead_of_error 2".to_owned()
            ),
        ],
        "{}",
        r.stdout
    );
}

#[test]
fn adapter_faults_and_stale_skips_have_their_causes() {
    let r = run("crash", "crash", &["journal/gap"], &[]);
    let c = r.case("journal/gap");
    assert_eq!(s(c, "outcome"), Some("errored"));
    assert_eq!(s(c, "cause"), Some("adapter_fault"));
    let checks = c.get("checks").unwrap().as_array().unwrap();
    assert_eq!(s(&checks[0], "cause"), Some("adapter_fault"));
    assert!(
        r.stdout
            .contains("---- journal/gap (ERRORED, adapter_fault) ----\njournal/gap\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("fake: simulated crash"), "{}", r.stdout);
    assert_eq!(r.rows()[0].3, "adapter_fault 1");

    let skip = std::env::temp_dir().join(format!("jc-explain-skip-{}", std::process::id()));
    std::fs::write(&skip, "journal/gap believed broken\n").unwrap();
    let r = run(
        "stale",
        "reference",
        &["journal/gap"],
        &["--skip-file", skip.to_str().unwrap()],
    );
    std::fs::remove_file(&skip).unwrap();
    let c = r.case("journal/gap");
    assert_eq!(s(c, "outcome"), Some("failed"));
    assert_eq!(s(c, "cause"), Some("unexpected_pass"));
    assert_eq!(r.rows()[0].3, "unexpected_pass 1");
}

#[test]
fn passing_cases_carry_rules_tags_and_an_escaped_input() {
    let r = run(
        "pass",
        "reference",
        &["wire/u0085-in-string", "precedence/bom-before-utf8"],
        &[],
    );
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("failures by rule"));
    let c = r.case("wire/u0085-in-string");
    assert_eq!(c.get("cause"), Some(&Value::Null));
    assert_eq!(strings(c, "rules"), ["W-LINE-1"]);
    let preview = s(c.get("input").unwrap(), "preview").unwrap();
    assert!(
        preview.contains("\\u{85}") && !preview.contains('\u{85}'),
        "{preview}"
    );
    let c = r.case("precedence/bom-before-utf8");
    let input = c.get("input").unwrap();
    assert_eq!(s(input, "preview"), Some("\\u{feff}{\\xff}\n"));
    assert_eq!(input.get("size").unwrap().as_i64(), Some(7));
    assert!(c.get("tags").unwrap().as_array().is_some());
}
