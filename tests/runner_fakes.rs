//! The runner against deliberately broken adapters (tests/fakes/fake_adapter.py and the
//! scripts beside it): each misbehaviour is reported precisely, the run goes on, no
//! process is left behind (checked by pid), and the verdict is the same everywhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

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
    // One directory and marker per call: tests run in parallel in this process, and two
    // of them may use the same mode (they once shared a directory, and one removed it
    // under the other).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!("{}-{mode}-{call}", std::process::id());
    let dir = std::env::temp_dir().join(format!("jc-fakes-{id}"));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.jsonl");
    let marker = format!("jc-marker-{id}-end");
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
        .args(["--properties", "0"])
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
    // A9: no child process is left behind (a zombie awaiting init is ended; SIGKILL
    // may take a moment to be delivered).
    // (`pgrep -f MARKER` by hand: /proc, so the test needs no procps.)
    let live = || -> Vec<u32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker.as_str()))
            })
            .filter(|&p| alive(p))
            .collect()
    };
    let end = Instant::now() + Duration::from_secs(3);
    while !live().is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        live().is_empty(),
        "{mode}: processes left behind: {:?}",
        live()
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
    // The timeout bounds the handshake too: leave a loaded machine time to start Python.
    let r = run_test("hang", &["journal/mixed-"], &["--timeout", "3"]);
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
    // Every selected case skipped: nothing was checked, which is not a pass.
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("conformance NOTHING CHECKED")
            && r.stdout.contains("operations not offered: canonical"),
        "{}",
        r.stdout
    );
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
    // The filter `properties` selects the properties phase alone.
    let out = Command::new(BIN)
        .args(["test", "properties", "--properties", "400", "--seed", "7"])
        .arg("--adapter")
        .arg(fake("wrong-code", &marker))
        .arg("--counterexamples")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("conformance FAILED"), "{stdout}");
    assert!(stdout.contains("test properties/"), "{stdout}");
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
            journal_conformance::record::Outcome::Passed
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
    assert!(
        xml.contains("<testsuite name=\"journal [fake-wrong-code]\""),
        "{xml}"
    );
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
        table.contains("| group | journal-conformance (reference) 0.1.0 | fake-wrong-code 0.1.0 |"),
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

// ---- issue 11 / 16: a gate that cannot go green by mistake, supervision ----

fn jc(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jc-gate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Is `pid` a live process (a zombie awaiting its parent counts as ended)?
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
    }
}

fn pids(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn assert_all_ended(pidfile: &Path) {
    let p = pids(pidfile);
    assert!(!p.is_empty(), "no pid recorded in {}", pidfile.display());
    // The runner has exited; give the kernel a moment to deliver SIGKILL.
    let end = Instant::now() + Duration::from_secs(3);
    while p.iter().any(|&x| alive(x)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<_> = p.iter().filter(|&&x| alive(x)).collect();
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

fn report_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            json::parse_with_max_depth(l, journal_conformance::vectors::VECTOR_FILE_MAX_DEPTH)
                .unwrap()
        })
        .collect()
}

fn fake_script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fakes")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn a_hung_grandchild_is_ended_with_its_whole_group() {
    for mode in ["hang", "ignore-term"] {
        let d = scratch(&format!("grandchild-{mode}"));
        let pidfile = d.join("pids");
        let adapter = format!("bash {} {}", fake_script("wrap.sh"), fake(mode, "gc"));
        let o = jc(
            &[
                "test",
                "journal/gap",
                "--exact",
                "--properties",
                "0",
                "--timeout",
                "3",
                "--adapter",
                &adapter,
            ],
            &[("FAKE_PIDFILE", &pidfile)],
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains("timeout"), "{out}");
        // The Python fake (the grandchild) and its `serve` child, every start of them.
        assert!(pids(&pidfile).len() >= 2, "{:?}", pids(&pidfile));
        assert_all_ended(&pidfile);
    }
}

#[test]
fn the_timeout_bounds_the_handshake() {
    let start = Instant::now();
    let o = jc(
        &[
            "test",
            "--timeout",
            "2",
            "--adapter",
            &fake("silent-hang", "hs"),
        ],
        &[],
    );
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("handshake failed: no answer within 2.0 s"),
        "{err}"
    );
    // The old runner waited at least 10 s whatever --timeout said.
    assert!(took < Duration::from_secs(8), "{took:?}");
}

#[test]
fn an_empty_handshake_checks_nothing_and_fails() {
    let d = scratch("empty-hs");
    let report = d.join("r.jsonl");
    let o = jc(
        &[
            "test",
            "--properties",
            "16",
            "--report",
            report.to_str().unwrap(),
            "--adapter",
            &fake("no-operations", "eh"),
        ],
        &[],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("conformance NOTHING CHECKED"), "{out}");
    assert!(out.contains("checked 0 of"), "{out}");
    assert!(
        out.contains("properties skipped: the adapter offers none"),
        "{out}"
    );
    assert!(!out.contains("agree"), "{out}");
    let footer = report_lines(&report).pop().unwrap();
    assert_eq!(footer.get("status").unwrap().as_i64(), Some(1));
}

#[test]
fn an_empty_selection_is_a_usage_error() {
    let o = jc(&["test", "zz-nothing"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no case matches the selection"));
    let o = jc(&["test", "--rule", "NO-SUCH-RULE-9"], &[]);
    assert_eq!(o.status.code(), Some(2));
    // libtest's flags are gone: `--ignored` is an error, not a silent empty run.
    assert_eq!(jc(&["test", "--ignored"], &[]).status.code(), Some(2));
}

#[test]
fn a_disagreement_under_a_covering_skip_list_is_counted_everywhere() {
    let d = scratch("cover");
    let skip = d.join("skip.txt");
    let (report, junit) = (d.join("r.jsonl"), d.join("r.xml"));
    let adapter = fake("wrong-code", "cover");
    // 1. Write the skip list of the vectors this adapter fails ...
    let o = jc(
        &[
            "test",
            "--properties",
            "0",
            "--adapter",
            &adapter,
            "--write-skip-file",
            skip.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let listed = std::fs::read_to_string(&skip).unwrap();
    assert!(
        listed.contains("journal/forward-parent wrong_error_code:"),
        "{listed}"
    );
    // ... 2. with it, the vectors pass ...
    let o = jc(
        &[
            "test",
            "--properties",
            "0",
            "--adapter",
            &adapter,
            "--skip-file",
            skip.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // ... 3. and the differential disagreement still fails the run, counted in the
    // closing line, the footer and JUnit.
    let o = jc(
        &[
            "test",
            "--properties",
            "400",
            "--seed",
            "7",
            "--adapter",
            &adapter,
            "--skip-file",
            skip.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &[],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("conformance FAILED"), "{out}");
    // Every failure is a distinct kind of disagreement (the skip list covers every
    // failing vector), counted the same in the closing line, the footer and JUnit.
    let lines = report_lines(&report);
    let failed: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("outcome").and_then(Value::as_str) == Some("failed"))
        .collect();
    let n = failed.len();
    assert!(n >= 1, "{out}");
    // The fixed cases and the kinds are counted apart (the first count is the opening
    // line's); the footer counts both.
    assert!(out.contains(" 0 failed, 0 errored"), "{out}");
    assert!(
        out.contains(&format!(" disagreed, in {n} kind(s) ({n} failed, 0 known)")),
        "{out}"
    );
    let footer = lines.last().unwrap();
    assert_eq!(footer.get("failed").unwrap().as_i64(), Some(n as i64));
    assert_eq!(footer.get("status").unwrap().as_i64(), Some(1));
    let p = footer.get("properties").unwrap();
    assert!(p.get("disagreeing").unwrap().as_i64().unwrap() >= n as i64);
    assert_eq!(p.get("kinds").unwrap().as_i64(), Some(n as i64));
    for case in &failed {
        let id = case.get("id").unwrap().as_str().unwrap();
        assert!(id.starts_with("properties/"), "{id}");
        assert_eq!(id.rsplit('/').next().unwrap().len(), 8, "{id}");
        assert_eq!(
            case.get("cause").unwrap().as_str(),
            Some("wrong_error_code")
        );
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<failure").count(), n, "{xml}");
    assert!(xml.contains(&format!("failures=\"{n}\"")), "{xml}");
}

#[test]
fn format_json_is_json_lines_only() {
    let o = jc(
        &[
            "test",
            "journal/",
            "--format",
            "json",
            "--properties",
            "0",
            "--adapter",
            &fake("wrong-code", "json"),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| json::parse(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}")))
        .collect();
    let ty = |v: &Value| v.get("type").unwrap().as_str().unwrap().to_owned();
    assert_eq!(ty(&lines[0]), "header");
    assert_eq!(ty(lines.last().unwrap()), "footer");
    let cases = &lines[1..lines.len() - 1];
    assert!(cases.iter().all(|c| ty(c) == "case"));
    let footer = lines.last().unwrap();
    let n = |k: &str| footer.get(k).unwrap().as_i64().unwrap();
    assert_eq!(
        n("passed") + n("failed") + n("errored") + n("skipped"),
        cases.len() as i64
    );
    assert!(n("failed") >= 3);
    for c in cases
        .iter()
        .filter(|c| c.get("outcome").unwrap().as_str() == Some("failed"))
    {
        assert_eq!(c.get("cause").unwrap().as_str(), Some("wrong_error_code"));
        assert!(c.get("input").unwrap().get("preview").is_some());
        assert!(!c.get("rules").unwrap().as_array().unwrap().is_empty());
    }
}

/// Reports without what depends on time.
fn untimed(path: &Path) -> Vec<String> {
    report_lines(path)
        .into_iter()
        .map(|v| {
            let Value::Object(m) = v else { panic!() };
            let m: Vec<(String, Value)> = m
                .into_iter()
                // The footer's digest covers the case lines, durations included.
                .filter(|(k, _)| k != "duration_ms" && k != "summary" && k != "digest")
                .collect();
            journal_conformance::canonical::to_string(&Value::Object(m))
        })
        .collect()
}

#[test]
fn jobs_do_not_change_the_report() {
    let d = scratch("jobs");
    for mode in ["persistent", "one-shot"] {
        let mut reports = Vec::new();
        for jobs in ["1", "4"] {
            let r = d.join(format!("{mode}-{jobs}.jsonl"));
            let mut args = vec![
                "test",
                "journal/",
                "replay/",
                "--properties",
                "0",
                "--jobs",
                jobs,
                "--report",
                r.to_str().unwrap(),
            ];
            let one_shot = format!(
                "python3 {}",
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("examples/python/adapter.py")
                    .display()
            );
            let persistent = fake("wrong-code", "jobs");
            if mode == "one-shot" {
                args.extend([
                    "--one-shot",
                    "--adapter",
                    &one_shot,
                    "--exact",
                    "journal/gap",
                ]);
                args.extend([
                    "journal/forward-parent",
                    "replay/stop-reason",
                    "journal/duplicate-id-far",
                ]);
                args.retain(|a| *a != "journal/" && *a != "replay/");
                let o = jc(&args, &[]);
                assert!(o.status.code().is_some());
            } else {
                args.extend(["--adapter", &persistent]);
                assert_eq!(jc(&args, &[]).status.code(), Some(1));
            }
            reports.push(untimed(&r));
        }
        assert!(reports[0].len() > 3, "{mode}: {:?}", reports[0]);
        assert_eq!(reports[0], reports[1], "{mode}");
    }
}

#[test]
fn merged_shards_give_the_unsharded_verdict() {
    let d = scratch("shards");
    let adapter = fake("wrong-code", "shards");
    let run = |name: &str, extra: &[&str]| {
        let r = d.join(format!("{name}.jsonl"));
        let mut args = vec![
            "test",
            "journal/",
            "replay/",
            "precedence/",
            "--properties",
            "0",
            "--adapter",
            &adapter,
            "--report",
            r.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = jc(&args, &[]);
        (r, o.status.code())
    };
    let (whole, whole_status) = run("whole", &[]);
    assert_eq!(whole_status, Some(1));
    let summary = |files: &[PathBuf]| {
        let mut args = vec!["summary".to_owned(), "--json".into()];
        args.extend(files.iter().map(|f| f.display().to_string()));
        let o = Command::new(BIN).args(&args).output().unwrap();
        let text = std::str::from_utf8(&o.stdout).unwrap();
        let v = if text.is_empty() {
            Value::Null
        } else {
            json::parse(text).unwrap()
        };
        (v, o.status.code())
    };
    let (want, want_status) = summary(std::slice::from_ref(&whole));
    assert_eq!(want_status, Some(1));
    for kind in ["count", "hash"] {
        let shards: Vec<PathBuf> = (1..=3)
            .map(|k| {
                let p = format!("{kind}:{k}/3");
                run(&format!("{kind}-{k}"), &["--partition", &p]).0
            })
            .collect();
        let (got, status) = summary(&shards);
        assert_eq!(got, want, "{kind}");
        assert_eq!(status, want_status);
        // A missing shard is an error, not a smaller verdict.
        assert_eq!(summary(&shards[..2]).1, Some(2));
    }
}

#[test]
fn junit_reads_back_with_a_real_junit_reader() {
    let d = scratch("junit");
    let junit = d.join("j.xml");
    let report = d.join("r.jsonl");
    let skip = d.join("skip.txt");
    std::fs::write(
        &skip,
        "journal/gap believed broken\njournal/dangling-parent known issue 12\n",
    )
    .unwrap();
    let o = jc(
        &[
            "test",
            "journal/",
            "--properties",
            "0",
            "--adapter",
            &fake("wrong-code", "junit"),
            "--skip-file",
            skip.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let footer = report_lines(&report).pop().unwrap();
    let n = |k: &str| footer.get(k).unwrap().as_i64().unwrap() as usize;
    let want = [n("passed"), n("failed"), n("errored"), n("skipped")];
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(read_junit(&xml), Ok(want), "{xml}");
    // The reader is strict enough to notice a wrong file: a dropped failure, a wrong
    // cause, a lost reason, a count that disagrees, a broken document.
    let first_failure = xml.find("<failure ").unwrap();
    for (what, broken) in [
        ("failure dropped", {
            let end = first_failure + xml[first_failure..].find("</failure>").unwrap();
            format!(
                "{}{}",
                &xml[..first_failure],
                &xml[end + "</failure>".len()..]
            )
        }),
        (
            "cause",
            xml.replacen("type=\"wrong_error_code\"", "type=\"wrong_result\"", 1),
        ),
        ("reason", xml.replace("known issue 12", "known issue")),
        (
            "suite name",
            xml.replace("fake-wrong-code", "fake-right-code"),
        ),
        ("document", xml.replacen("</testsuite>", "", 1)),
    ] {
        assert_ne!(
            read_junit(&broken),
            Ok(want),
            "{what}: still read as {want:?}"
        );
    }
}

/// Reads a JUnit file as a JUnit consumer does (testsuites > testsuite > testcase, a
/// result element per non-passing case), checks what the runner promises of each
/// element, and counts [passed, failed, errored, skipped].
fn read_junit(xml: &str) -> Result<[usize; 4], String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let root = doc.root_element();
    let suites: Vec<_> = match root.tag_name().name() {
        "testsuites" => root
            .children()
            .filter(|c| c.has_tag_name("testsuite"))
            .collect(),
        "testsuite" => vec![root],
        other => return Err(format!("root element <{other}>")),
    };
    let attr = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap_or("").to_string();
    let count = |n: roxmltree::Node, a: &str| -> Result<usize, String> {
        attr(n, a)
            .parse()
            .map_err(|_| format!("{a}={:?}", attr(n, a)))
    };
    let mut got = [0usize; 4];
    for suite in suites {
        let name = attr(suite, "name");
        if !name.contains("fake-wrong-code") {
            return Err(format!("suite {name}"));
        }
        let mut in_suite = [0usize; 4];
        for case in suite.children().filter(|c| c.has_tag_name("testcase")) {
            let (class, id) = (attr(case, "classname"), attr(case, "name"));
            if class != name.split(" [").next().unwrap() || !id.starts_with(&format!("{class}/")) {
                return Err(format!("case {class:?} {id:?} in suite {name:?}"));
            }
            let text = |n: roxmltree::Node| n.text().unwrap_or("").to_string();
            let system_err = case
                .children()
                .find(|c| c.has_tag_name("system-err"))
                .map(text)
                .unwrap_or_default();
            let results: Vec<_> = case
                .children()
                .filter(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
                .collect();
            if results.is_empty() {
                in_suite[0] += 1;
            }
            for r in results {
                match r.tag_name().name() {
                    "failure" => {
                        in_suite[1] += 1;
                        let (ty, body) = (attr(r, "type"), text(r));
                        let ok = if id == "journal/gap" {
                            ty == "unexpected_pass"
                        } else {
                            ty == "wrong_error_code"
                                && body.contains(
                                    "expected error `unknown_parent`, got `malformed_event`",
                                )
                                && body.contains("input (")
                                && system_err.contains("fake wrong-code handling request")
                        };
                        if !ok {
                            return Err(format!("failure of {id}: type {ty:?}: {body}"));
                        }
                    }
                    "skipped" => {
                        in_suite[3] += 1;
                        if !attr(r, "message").contains("known issue 12") {
                            return Err(format!("skipped {id}: {:?}", attr(r, "message")));
                        }
                    }
                    _ => in_suite[2] += 1,
                }
            }
        }
        // The suite's own counts agree with its cases.
        let total: usize = in_suite.iter().sum();
        let declared = [
            count(suite, "tests")?,
            count(suite, "failures")?,
            count(suite, "errors")?,
            // quick-junit names the skipped count `disabled`, others `skipped`.
            count(
                suite,
                if suite.has_attribute("skipped") {
                    "skipped"
                } else {
                    "disabled"
                },
            )?,
        ];
        if declared != [total, in_suite[1], in_suite[2], in_suite[3]] {
            return Err(format!(
                "suite {name}: declares {declared:?}, has {in_suite:?}"
            ));
        }
        for (g, s) in got.iter_mut().zip(in_suite) {
            *g += s;
        }
    }
    Ok(got)
}

#[test]
fn adapter_commands_are_split_like_a_shell_with_env_assignments() {
    let o = jc(
        &[
            "test",
            "journal/gap",
            "--exact",
            "--properties",
            "0",
            "--adapter",
            &format!("FOO=1 {}", fake("need-env", "env")),
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn crashes_name_the_exit_status_or_signal() {
    let r = run_test("crash", &["journal/gap"], &["--exact"]);
    assert!(outcome(&r, "journal/gap")
        .1
        .contains("exited with status 70"));
    let r = run_test("segv", &["journal/gap"], &["--exact"]);
    let m = outcome(&r, "journal/gap").1;
    assert!(m.contains("killed by signal 11 (SIGSEGV)"), "{m}");
}

#[test]
fn an_adapter_failing_every_restart_is_declared_dead() {
    let d = scratch("dead");
    let start = Instant::now();
    let r = run_test("dead-after-crash", &["journal/"], &["--timeout", "3"]);
    let took = start.elapsed();
    assert_eq!(r.status, 1);
    let errored = r
        .cases
        .iter()
        .filter(|c| c.get("outcome").unwrap().as_str() == Some("errored"))
        .count();
    assert_eq!(errored, r.cases.len());
    let dead = r
        .cases
        .iter()
        .filter(|c| {
            c.get("message")
                .unwrap()
                .as_str()
                .unwrap()
                .contains("the adapter is dead (3 restarts in a row failed")
        })
        .count();
    assert!(dead >= r.cases.len() - 4, "{dead} of {}", r.cases.len());
    // Each of the 27 cases waiting for a handshake would take 81 s at least; dead after
    // 3 restarts (9 s), the rest are errored at once.
    assert!(took < Duration::from_secs(40), "{took:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn floods_are_cut_off_and_the_timeout_fires_whatever_is_printed() {
    let d = scratch("flood");
    // Under an address-space limit an unbounded reader would abort the runner.
    let limited = |args: &[&str]| {
        let mut cmd = format!("ulimit -v 2000000; exec {BIN}");
        for a in args {
            cmd.push_str(&format!(" '{a}'"));
        }
        Command::new("bash").args(["-c", &cmd]).output().unwrap()
    };
    let r = d.join("r.jsonl");
    let rs = r.to_str().unwrap();
    for (adapter, one_shot, needle) in [
        (
            format!("bash {}", fake_script("oneshot_flood.sh")),
            true,
            "bytes to stdout (cut off)",
        ),
        (
            format!("bash {}", fake_script("oneshot_trickle.sh")),
            true,
            "timeout",
        ),
        (fake("flood-line", "flood"), false, "longer than"),
        (fake("flood-stderr", "flood"), false, "timeout"),
    ] {
        let mut args = vec!["test", "journal/gap", "--exact", "--properties", "0"];
        args.extend(["--timeout", "3", "--report", rs, "--adapter", &adapter]);
        if one_shot {
            args.push("--one-shot");
        }
        let o = limited(&args);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{adapter}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let lines = report_lines(&r);
        let m = lines[1].get("message").unwrap().as_str().unwrap();
        assert!(m.contains(needle), "{adapter}: {m}");
    }
    // Flooding stdout during the stop grace is not buffered.
    let o = limited(&[
        "test",
        "journal/gap",
        "--exact",
        "--properties",
        "0",
        "--adapter",
        &fake("flood-at-stop", "flood"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_one_shot_adapter_is_judged_by_its_exit_not_a_background_helper() {
    let d = scratch("bg");
    let pidfile = d.join("pids");
    let o = jc(
        &[
            "test",
            "journal/gap",
            "--exact",
            "--properties",
            "0",
            "--one-shot",
            "--timeout",
            "5",
            "--adapter",
            &format!("bash {}", fake_script("oneshot_background.sh")),
        ],
        &[("FAKE_PIDFILE", &pidfile)],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("timeout"), "{out}");
    assert_all_ended(&pidfile);
}

#[test]
fn sigterm_to_the_runner_ends_every_adapter() {
    let d = scratch("sigterm");
    let pidfile = d.join("pids");
    let mut child = Command::new(BIN)
        .args(["test", "--timeout", "60", "--properties", "0", "--adapter"])
        .arg(fake("hang", "sigterm"))
        .env("FAKE_PIDFILE", &pidfile)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    while pids(&pidfile).len() < 2 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: signalling our own child.
    unsafe { libc_kill(child.id() as i32, 15) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2));
    assert_all_ended(&pidfile);
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn a_late_reply_is_never_taken_for_a_later_check() {
    let r = run_test(
        "slow-first",
        &["journal/gap", "journal/forward-parent"],
        &["--exact", "--timeout", "3"],
    );
    assert_eq!(outcome(&r, "journal/forward-parent").0, "errored");
    assert_eq!(outcome(&r, "journal/gap").0, "passed");
}

#[test]
fn help_and_list_are_the_runners_own() {
    let o = jc(&["test", "--help"], &[]);
    let h = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0));
    for needle in [
        "Usage: journal-conformance test [OPTIONS] [FILTERS]...",
        "SKIP LISTS",
        "EXIT STATUS",
        "--format json",
        "--partition",
        "canonical/keys",
    ] {
        assert!(h.contains(needle), "{needle}: {h}");
    }
    for gone in ["--bench", "--nocapture", "--test-threads", "--ignored"] {
        assert!(!h.contains(gone), "{gone}");
    }
    let o = jc(
        &["test", "--list", "--format", "json", "--rule", "J-PARENT-*"],
        &[],
    );
    let lines: Vec<Value> = std::str::from_utf8(&o.stdout)
        .unwrap()
        .lines()
        .map(|l| json::parse(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(l
            .get("rules")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().starts_with("J-PARENT-")));
    }
}

#[test]
fn require_demands_operations() {
    let o = jc(
        &[
            "test",
            "--require",
            "validate,canonical",
            "--adapter",
            &fake("no-canonical", "req"),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("does not offer what --require demands: canonical"));
    assert_eq!(
        jc(&["test", "--require", "teleport"], &[]).status.code(),
        Some(2)
    );
}

#[test]
fn skip_lists_by_rule_and_written_by_rule() {
    let d = scratch("by-rule");
    let skip = d.join("skip.txt");
    let report = d.join("r.jsonl");
    let adapter = fake("wrong-code", "by-rule");
    let o = jc(
        &[
            "test",
            "journal/",
            "--properties",
            "0",
            "--adapter",
            &adapter,
            "--write-skip-file",
            skip.to_str().unwrap(),
            "--by-rule",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let listed = std::fs::read_to_string(&skip).unwrap();
    assert!(
        listed.lines().any(|l| l.starts_with("J-PARENT-1 ")),
        "{listed}"
    );
    assert!(!listed.contains("journal/forward-parent "), "{listed}");
    let o = jc(
        &[
            "test",
            "journal/",
            "--properties",
            "0",
            "--adapter",
            &adapter,
            "--skip-file",
            skip.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let lines = report_lines(&report);
    let fp = lines
        .iter()
        .find(|l| l.get("id").and_then(Value::as_str) == Some("journal/forward-parent"))
        .unwrap();
    assert_eq!(fp.get("outcome").unwrap().as_str(), Some("skipped"));
    assert!(fp
        .get("message")
        .unwrap()
        .as_str()
        .unwrap()
        .contains("rule J-PARENT-1"));
    // An unknown rule on the list is a usage error, as an unknown case is.
    std::fs::write(&skip, "Z-NOPE-1 no such rule\n").unwrap();
    let o = jc(&["test", "--skip-file", skip.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn fail_fast_stops_and_says_so() {
    let o = jc(
        &[
            "test",
            "journal/",
            "--fail-fast",
            "--properties",
            "0",
            "--adapter",
            &fake("wrong-code", "ff"),
        ],
        &[],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("stopped at the first failure (--fail-fast)"),
        "{out}"
    );
    assert!(out.contains(" 1 failed"), "{out}");
}

/// The adoption path end to end, differential phase included: `--write-skip-file` after a
/// failing run makes the next run pass (every differential kind is recorded by its rule),
/// and a NEW fault of another rule still fails it: the list hides only what it names.
#[test]
fn a_written_skip_list_passes_the_next_run_and_a_new_fault_still_fails() {
    let d = scratch("adopt");
    let skip = d.join("known.txt");
    let run = |mode: &str, extra: &[&str]| {
        let adapter = fake(mode, "adopt");
        let mut args = vec!["test", "--properties", "200", "--seed", "3", "--adapter"];
        args.push(&adapter);
        args.extend_from_slice(extra);
        let o = jc(&args, &[]);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let skip_s = skip.to_str().unwrap();
    let (code, out) = run("wrong-stop+accept-gaps", &["--write-skip-file", skip_s]);
    assert_eq!(code, Some(1), "{out}");
    let listed = std::fs::read_to_string(&skip).unwrap();
    // Differential kinds are listed by operation and rule, never as a bare rule (which
    // would skip the rule's fixed vectors too).
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("properties/replay/R-STOP-1 ")),
        "{listed}"
    );
    assert!(
        !listed.lines().filter(|l| !l.starts_with('#')).any(|l| l
            .split_whitespace()
            .next()
            .is_some_and(|id| !id.contains('/'))),
        "a bare rule entry without --by-rule:\n{listed}"
    );
    let (code, out) = run("wrong-stop+accept-gaps", &["--skip-file", skip_s]);
    assert_eq!(
        code,
        Some(0),
        "the written list must make the next run pass:\n{out}"
    );
    assert!(out.contains("known disagreement"), "{out}");
    let (code, out) = run(
        // A new fault of another rule (errors without their line: J-LOC-1).
        "wrong-stop+accept-gaps+no-line",
        &["--skip-file", skip_s],
    );
    assert_eq!(code, Some(1), "a new fault hidden by the list:\n{out}");
    assert!(out.contains("(FAILED, wrong_location)"), "{out}");
    // The differential entries alone do not hide the rule's fixed vectors: without the
    // fixed cases' own lines, the run fails on them.
    let only_properties: String = listed
        .lines()
        .filter(|l| l.starts_with('#') || l.starts_with("properties/"))
        .map(|l| format!("{l}\n"))
        .collect();
    let partial = d.join("properties-only.txt");
    std::fs::write(&partial, &only_properties).unwrap();
    let (code, out) = run(
        "wrong-stop+accept-gaps",
        &["--skip-file", partial.to_str().unwrap()],
    );
    assert_eq!(
        code,
        Some(1),
        "properties/ entries hid fixed vectors:\n{out}"
    );
    assert!(!out.contains(" 0 failed"), "{out}");
}

/// Issue 22 item 4 (SPEC.md D-KEEP-1): every `see it:` hint a run prints works as
/// printed, `properties/...` kinds included (they are kept without
/// `--counterexamples`), and an id no run kept says where it looked and which flag
/// finds it.
#[test]
fn every_printed_hint_works_as_printed() {
    let d = scratch("kept");
    let kept = d.join("kept");
    let env = journal_conformance::differential::counterexamples::KEPT_ENV;
    let o = Command::new(BIN)
        .args(["test", "--properties", "400", "--seed", "7", "--adapter"])
        .arg(fake("wrong-code", "kept"))
        .args(["journal/forward-parent", "properties"])
        .env(env, &kept)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{out}");
    let hints: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("see it: journal-conformance "))
        .map(|l| l.split(" (").next().unwrap())
        .collect();
    assert!(
        hints.iter().any(|h| h.starts_with("show properties/")),
        "no differential kind was printed: {out}"
    );
    assert!(hints.contains(&"show journal/forward-parent"), "{out}");
    assert!(
        out.contains(&format!("is kept in {}", kept.display())),
        "the closing notes name where the kinds are: {out}"
    );
    for h in &hints {
        let args: Vec<&str> = h.split(' ').collect();
        let shown = Command::new(BIN)
            .args(&args)
            .env(env, &kept)
            .output()
            .unwrap();
        assert_eq!(
            shown.status.code(),
            Some(0),
            "{h}: {}",
            String::from_utf8_lossy(&shown.stderr)
        );
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.starts_with(args[1]), "{h}: {text}");
        // Its exact input too.
        let input = Command::new(BIN)
            .args(&args)
            .arg("--input")
            .env(env, &kept)
            .output()
            .unwrap();
        assert_eq!(input.status.code(), Some(0), "{h} --input");
    }
    let o = Command::new(BIN)
        .args(["show", "properties/replay/00000000"])
        .env(env, &kept)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&kept.display().to_string()) && err.contains("--counterexamples DIR"),
        "{err}"
    );
}
