//! `summary --html`: the results page from reports with hand-written counts, checked as
//! text and, where Chromium is installed (CI installs it), rendered in a real headless
//! browser: the DOM after layout must hold the counts, and a screenshot is taken.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use journal_conformance::adapter::ImplInfo;
use journal_conformance::json::{self, Value};
use journal_conformance::preview::Preview;
use journal_conformance::record::{CaseRecord, CheckRecord, Outcome};
use journal_conformance::report::{self, Footer, Header, RunIdentity};
use journal_conformance::vectors::Level;
use journal_conformance::verdict::Cause;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

/// A fresh directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("jc-html-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A case record: `rules` empty stands for a report line without `rules`, `cause` and
/// `input` (what older kits wrote).
fn case(id: &str, outcome: Outcome, rules: &[&str]) -> CaseRecord {
    let group = id.rsplit_once('/').unwrap().0;
    let full = !rules.is_empty();
    CaseRecord {
        id: id.into(),
        group: group.into(),
        level: Level::Must,
        outcome,
        message: "m".into(),
        cause: full.then_some(Cause::ErrorInsteadOfResult),
        rules: rules.iter().map(|r| r.to_string()).collect(),
        tags: vec![],
        description: String::new(),
        input: full.then(|| Preview::of(b"<script>alert(1)</script>")),
        checks: vec![CheckRecord {
            op: json::parse(r#"{"op":"validate"}"#).unwrap(),
            outcome,
            expected: json::parse(r#"{"result":{"event_count":2}}"#).unwrap(),
            actual: json::parse(r#"{"error":{"code":"invalid_json","line":1}}"#).unwrap(),
            message: "expected a result".into(),
            cause: None,
            pointer: None,
        }],
        duration: Duration::ZERO,
        stderr: String::new(),
        extra: vec![],
    }
}

/// A report as a run writes it (the library's writer: header, cases, footer with the
/// digest of its case lines).
fn write(path: &Path, name: &str, language: &str, partition: Option<&str>, cases: &[CaseRecord]) {
    let info = ImplInfo {
        name: name.into(),
        version: if name == "alpha" { "1.0" } else { "2" }.into(),
        language: language.into(),
        operations: vec!["validate".into()],
        profiles: vec!["core".into()],
    };
    let identity = RunIdentity {
        corpus: "sha256:00".into(),
        corpus_cases: 5,
        selection: Value::Null,
        skip_list: None,
        properties: 0,
        seed: 1,
    };
    let header = Header::new(info, cases.len(), partition.map(str::to_owned), identity);
    let footer = Footer::new(cases, None, Duration::ZERO, "closing", &[]);
    report::write(path, &header, cases, &footer).unwrap();
}

/// alpha (two shards) and beta (a report whose lines lack rules, cause and input).
fn reports(dir: &Path) -> Vec<PathBuf> {
    use Outcome::*;
    let p = |n: &str| dir.join(n);
    write(
        &p("a1.jsonl"),
        "alpha",
        "js",
        Some("count:1/2"),
        &[
            case("wire/a", Passed, &["W-LINE-1"]),
            case("wire/b", Failed, &["W-LINE-1"]),
            case("json/c", Passed, &["C-KEY-2"]),
        ],
    );
    write(
        &p("a2.jsonl"),
        "alpha",
        "js",
        Some("count:2/2"),
        &[
            case("json/d", Errored, &["C-KEY-2"]),
            case("json/e", Skipped, &["C-KEY-2"]),
        ],
    );
    write(
        &p("b.jsonl"),
        "beta",
        "python",
        None,
        &[
            case("wire/a", Passed, &[]),
            case("wire/b", Passed, &[]),
            case("json/c", Failed, &[]),
        ],
    );
    vec![p("a1.jsonl"), p("a2.jsonl"), p("b.jsonl")]
}

fn page(dir: &Path) -> PathBuf {
    let out = dir.join("results.html");
    let st = Command::new(BIN)
        .arg("summary")
        .args(reports(dir))
        .arg("--html")
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    // `summary` exits with the merged verdict: these reports hold failures.
    assert_eq!(st.code(), Some(1));
    assert!(out.is_file());
    out
}

/// The counts every rendering must show (derived by hand from the reports above).
fn assert_counts(text: &str) {
    // alpha overall: 2 passed, 1 failed, 1 errored, 1 skipped over two shards.
    assert!(
        text.contains("2 passed · 1 failed · 1 errored · 1 skipped"),
        "alpha overall"
    );
    // beta overall: 2 passed, 1 failed.
    assert!(
        text.contains("2 passed · 1 failed · 0 errored · 0 skipped"),
        "beta overall"
    );
    // alpha json group: 1 passed, 1 errored, 1 skipped; beta json group: 1 failed.
    assert!(text.contains("1 passed · 0 failed · 1 errored · 1 skipped"));
    assert!(text.contains("0 passed · 1 failed · 0 errored · 0 skipped"));
    // alpha rule C-KEY-2: cases c (passed), d (errored), e (skipped).
    assert!(text.contains("✗ 1 errored"));
    assert!(text.contains("2 report(s), partitions count:1/2, count:2/2"));
}

#[test]
fn the_page_is_self_contained_escaped_and_counts() {
    let dir = TempDir::new("text");
    let html = std::fs::read_to_string(page(dir.path())).unwrap();
    assert_counts(&html);
    assert!(
        !html.contains("<script"),
        "report text is escaped, never markup"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    for external in ["src=", "href=\"http", "url(", "@import", "<link"] {
        assert!(!html.contains(external), "no external assets: {external}");
    }
    // Shards merge into one column: alpha appears once per table header.
    assert_eq!(
        html.matches("<th>alpha 1.0</th>").count(),
        3,
        "overall row, group and rule headers"
    );
    // Failing cells carry their details: case id, rules, expected and actual.
    assert!(html.contains("id=\"i0-wire.b\""));
    assert!(html.contains("<a href=\"#rule-W-LINE-1\">W-LINE-1</a>"));
    assert!(html.contains("error_instead_of_result"));
    assert!(html.contains("{&quot;result&quot;:{&quot;event_count&quot;:2}}"));
    assert!(
        html.contains("rules: (not in the report)"),
        "beta's lines without rules"
    );
    assert!(html.contains("input: (not in the report)"));
}

/// A report that is not what a run writes gives no verdict: exit 2 naming the file and
/// line, and the page, written all the same, says INCOMPLETE and shows no results.
#[test]
fn a_bad_report_is_a_usage_error_naming_the_line() {
    let dir = TempDir::new("bad");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"type\":\"header\"}\n{\"type\":\"case\",\"id\":\"x/y\"}\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["summary", "--html"])
        .arg(dir.path().join("o.html"))
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl:2:"), "{err}");
    let page = std::fs::read_to_string(dir.path().join("o.html")).unwrap();
    assert!(
        page.contains("INCOMPLETE") && page.contains("bad.jsonl:2:"),
        "{page}"
    );
    assert!(!page.contains("✓") && !page.contains("passed ·"), "{page}");
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("JC_CHROMIUM") {
        return Some(p.into());
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Run Chromium headless with a fresh profile, killed after 120 s.
fn run_chromium(bin: &Path, args: &[String]) -> Vec<u8> {
    let profile = TempDir::new("profile");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).unwrap();
        b
    });
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

#[test]
fn the_page_renders_in_headless_chromium() {
    let Some(bin) = chromium() else {
        if std::env::var_os("JC_REQUIRE_CHROMIUM").is_some() {
            panic!("JC_REQUIRE_CHROMIUM is set but no chromium was found (set JC_CHROMIUM)");
        }
        eprintln!(
            "skipped: no chromium on PATH (.ci/run installs it: apt-get install -y chromium)"
        );
        return;
    };
    let dir = TempDir::new("chromium");
    let html = page(dir.path());
    let url = format!("file://{}", html.display());
    let dom = String::from_utf8(run_chromium(&bin, &["--dump-dom".into(), url.clone()])).unwrap();
    assert!(dom.contains("journal-conformance results"), "{dom:.400}");
    assert_counts(&dom);
    let png = dir.path().join("results.png");
    run_chromium(
        &bin,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,1800".into(),
            url,
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
    if let Some(keep) = std::env::var_os("JC_HTML_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}
