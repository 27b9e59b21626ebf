//! Every artifact the kit writes is evidence (issue 20, SPEC.md 13.5, 16.5): `summary`
//! refuses reports that are not one complete run, the page says what the exit status
//! says, a failure to write anything makes the run incomplete, writes never follow a
//! planted link, corpus reads stay inside the corpus, skip lists round-trip every id, and
//! adapter text never reaches a terminal, a table or a page raw. Each test is a
//! reproducer of the issue.

mod support;

use std::path::Path;

use journal_conformance::json::Value;
use support::{corpus, fake, jc, jc_in, report_lines, scratch, text};

fn test_report(dir: &Path, name: &str, args: &[&str]) -> (i32, std::path::PathBuf) {
    let report = dir.join(name);
    let mut a = vec![
        "test",
        "--format",
        "terse",
        "--report",
        report.to_str().unwrap(),
    ];
    a.extend_from_slice(args);
    let o = jc(&a, b"");
    (o.status.code().unwrap(), report)
}

fn summary(args: &[&Path]) -> (i32, String, String) {
    let mut a = vec!["summary"];
    a.extend(args.iter().map(|p| p.to_str().unwrap()));
    text(&jc(&a, b""))
}

fn footer(path: &Path) -> Value {
    report_lines(path).pop().unwrap()
}

/// Two shards of different selections are not one run: exit 2 naming the file and the
/// field, on stdout too (the step summary), never "ok".
#[test]
fn shards_of_different_runs_are_refused() {
    let d = scratch("shards");
    let (_, a) = test_report(d.path(), "a.jsonl", &["journal", "--partition", "1/2"]);
    let (_, b) = test_report(d.path(), "b.jsonl", &["replay", "--partition", "2/2"]);
    let (status, out, err) = summary(&[&a, &b]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(
        err.contains("b.jsonl") && err.contains("`selection`"),
        "{err}"
    );
    assert!(
        out.contains("INCOMPLETE") && !out.contains("**ok**"),
        "{out}"
    );
    // Shard 1/2 of the embedded corpus and shard 2/2 of a three-case corpus.
    let c = d.path().join("corpus");
    let case = |n: &str| {
        format!(
            r#"{{"name":"{n}","description":"d","rules":["J-SEQ-1"],"input":"","checks":[{{"op":{{"op":"validate"}},"expect":{{"error":{{"code":"empty_journal"}}}}}}]}}"#
        )
    };
    corpus(
        &c,
        &[(
            "small.json",
            &format!(r#"{{"cases":[{},{},{}]}}"#, case("a"), case("b"), case("c")),
        )],
    );
    let (_, full) = test_report(d.path(), "full1.jsonl", &["--partition", "1/2"]);
    let (_, small) = test_report(
        d.path(),
        "small2.jsonl",
        &["--partition", "2/2", "--corpus", c.to_str().unwrap()],
    );
    let (status, _, err) = summary(&[&full, &small]);
    assert_eq!(status, 2);
    assert!(err.contains("`corpus`"), "{err}");
    // The two shards of one run merge into its verdict.
    let (_, full2) = test_report(d.path(), "full2.jsonl", &["--partition", "2/2"]);
    let (status, out, err) = summary(&[&full, &full2]);
    assert_eq!(status, 0, "{out}{err}");
    // One shard twice is not every K once.
    assert_eq!(summary(&[&full, &full]).0, 2);
}

/// A footer that disagrees with its records, an edited case line, a truncated report,
/// a case id twice: each is refused, naming the file and the field.
#[test]
fn reports_that_are_not_what_a_run_wrote_are_refused() {
    let d = scratch("tamper");
    let (_, r) = test_report(d.path(), "r.jsonl", &["journal/"]);
    let text_of = std::fs::read_to_string(&r).unwrap();
    let lines: Vec<&str> = text_of.split_inclusive('\n').collect();
    let write = |name: &str, lines: &[String]| {
        let p = d.path().join(name);
        std::fs::write(&p, lines.concat()).unwrap();
        p
    };
    let owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    // The footer says failed 5, status 1.
    let mut bad = owned.clone();
    let last = bad.len() - 1;
    bad[last] = bad[last]
        .replace("\"failed\":0", "\"failed\":5")
        .replace("\"status\":0", "\"status\":1");
    let p = write("footer.jsonl", &bad);
    let (status, _, err) = summary(&[&p]);
    assert_eq!(status, 2);
    assert!(
        err.contains("footer.jsonl") && err.contains("`failed`"),
        "{err}"
    );
    // A passed case turned failed (and the footer's counts made to match).
    let mut edited = owned.clone();
    edited[1] = edited[1].replace("\"outcome\":\"passed\"", "\"outcome\":\"failed\"");
    edited[last] = edited[last]
        .replace("\"failed\":0", "\"failed\":1")
        .replace("\"status\":0", "\"status\":1");
    let p = write("edited.jsonl", &edited);
    let (status, _, err) = summary(&[&p]);
    assert_eq!(status, 2);
    assert!(err.contains("`digest`"), "{err}");
    // Truncated: no footer.
    let p = write("truncated.jsonl", &owned[..last]);
    let (status, out, err) = summary(&[&p]);
    assert_eq!(status, 2);
    assert!(err.contains("truncated"), "{err}");
    assert!(out.contains("INCOMPLETE"), "{out}");
    // A case failed then passed: one id twice.
    let mut twice = owned.clone();
    twice.insert(
        2,
        owned[1].replace("\"outcome\":\"passed\"", "\"outcome\":\"failed\""),
    );
    let p = write("twice.jsonl", &twice);
    assert_eq!(summary(&[&p]).0, 2);
    // A partition of 4294967295 shards is refused without allocating for them.
    let mut huge = owned.clone();
    huge[0] = huge[0].replace("\"partition\":null", "\"partition\":\"count:1/4294967295\"");
    let p = write("huge.jsonl", &huge);
    let (status, _, err) = summary(&[&p]);
    assert_eq!(status, 2);
    assert!(err.contains("every K from 1 to 4294967295"), "{err}");
}

/// `summary --html`: the page comes from the same merge and says what the exit status
/// says; a report in the place of OUT (a glob after --html) or OUT among the inputs is
/// refused and left as it was.
#[test]
fn the_page_says_what_the_exit_status_says_and_never_overwrites_a_report() {
    let d = scratch("page");
    let (_, good) = test_report(d.path(), "good.jsonl", &["journal/"]);
    let (_, failing) = test_report(
        d.path(),
        "failing.jsonl",
        &[
            "--adapter",
            &fake("wrong-code"),
            "--properties",
            "0",
            "journal/",
        ],
    );
    let before = std::fs::read(&failing).unwrap();
    // The glob slip: `summary --html reports/*.jsonl`.
    let o = jc(
        &[
            "summary",
            "--html",
            failing.to_str().unwrap(),
            good.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read(&failing).unwrap(),
        before,
        "the report is intact"
    );
    let o = jc(
        &[
            "summary",
            good.to_str().unwrap(),
            "--html",
            good.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(report_lines(&good).len() > 2, "the report is intact");
    // The page of a failing merge says FAILED; of a truncated report, INCOMPLETE.
    let page = d.path().join("results.html");
    let o = jc(
        &[
            "summary",
            "--html",
            page.to_str().unwrap(),
            good.to_str().unwrap(),
            failing.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("failed"),
        "a failing report's page shows failures"
    );
    let cut = d.path().join("cut.jsonl");
    let t = std::fs::read_to_string(&good).unwrap();
    std::fs::write(&cut, &t[..t.trim_end().rfind('\n').unwrap() + 1]).unwrap();
    let o = jc(
        &[
            "summary",
            "--html",
            page.to_str().unwrap(),
            cut.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("INCOMPLETE") && !html.contains("✓"), "{html}");
}

/// A counterexample that cannot be written is not a green report: the run is errored
/// (exit 2), its footer says status 2 with the error, the failing kinds are still there,
/// and `summary` of it exits 2.
#[test]
fn a_lost_counterexample_makes_the_run_incomplete() {
    let d = scratch("lost");
    let cx = d.path().join("cx");
    std::fs::create_dir_all(cx.join("properties")).unwrap();
    std::fs::write(cx.join("properties/replay.json"), "not json").unwrap();
    let report = d.path().join("r.jsonl");
    let o = jc(
        &[
            "test",
            "--adapter",
            &fake("wrong-stop"),
            "--properties",
            "64",
            "--counterexamples",
            cx.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--format",
            "terse",
            "properties",
        ],
        b"",
    );
    let (status, out, err) = text(&o);
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("replay.json"), "{err}");
    assert!(out.contains("INCOMPLETE"), "{out}");
    let f = footer(&report);
    assert_eq!(f.get("status").and_then(Value::as_i64), Some(2));
    let errors = f.get("errors").and_then(Value::as_array).unwrap();
    assert!(!errors.is_empty(), "{f:?}");
    let kinds = report_lines(&report)
        .into_iter()
        .filter(|l| {
            l.get("id")
                .and_then(Value::as_str)
                .is_some_and(|i| i.starts_with("properties/replay/"))
        })
        .count();
    assert!(kinds > 0, "the disagreements are kept");
    assert_eq!(summary(&[&report]).0, 2);
}

/// Writes never follow a symlink at the target or replace a special file: the target
/// of a link planted at `--report` stays as it was, and `/dev/stdout` is refused.
#[test]
fn writes_never_follow_a_planted_link() {
    let d = scratch("links");
    let victim = d.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let link = d.path().join("report.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = jc(
        &[
            "test",
            "journal/gap",
            "--exact",
            "--report",
            link.to_str().unwrap(),
        ],
        b"",
    );
    let (status, _, err) = text(&o);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let o = jc(
        &["test", "journal/gap", "--exact", "--junit", "/dev/stdout"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(Path::new("/dev/stdout").exists());
}

/// `input_file` must resolve inside the corpus directory to a regular file; a FIFO in
/// the corpus or as a skip file is refused at once, not waited on.
#[test]
fn corpus_reads_are_confined_and_never_wait() {
    let d = scratch("confined");
    let case = |file: &str| {
        format!(
            r#"{{"cases":[{{"name":"a","description":"d","rules":["J-SEQ-1"],"input_file":"{file}","checks":[{{"op":{{"op":"validate"}},"expect":{{"result":{{"event_count":0}}}}}}]}}]}}"#
        )
    };
    for (i, file) in ["../../../../etc/hostname", "/etc/hostname", "/dev/zero"]
        .iter()
        .enumerate()
    {
        let c = d.path().join(format!("c{i}"));
        corpus(&c, &[("g.json", &case(file))]);
        let (status, _, err) = text(&jc(&["test", "--corpus", c.to_str().unwrap()], b""));
        assert_eq!(status, 2, "{file}: {err}");
        assert!(err.contains("g/a") && err.contains("input_file"), "{err}");
    }
    let fifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path we own.
        assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    let c = d.path().join("fifo-corpus");
    std::fs::create_dir_all(&c).unwrap();
    fifo(&c.join("f.json"));
    let start = std::time::Instant::now();
    let (status, _, err) = text(&jc(&["test", "--corpus", c.to_str().unwrap()], b""));
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let skip = d.path().join("skip.fifo");
    fifo(&skip);
    let (status, _, err) = text(&jc(&["test", "--skip-file", skip.to_str().unwrap()], b""));
    assert_eq!(status, 2, "{err}");
    assert!(start.elapsed().as_secs() < 60, "nothing waited on a FIFO");
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

/// `tree apply --out` compares files, not spellings.
#[test]
fn tree_apply_never_overwrites_its_inputs() {
    let d = scratch("tree-out");
    let tree = d.path().join("t.jsonl");
    let ops = d.path().join("ops.json");
    let tree_text =
        "{\"id\":\"e1\",\"parent_id\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    std::fs::write(&tree, tree_text).unwrap();
    std::fs::write(&ops, "[]").unwrap();
    for out in ["./t.jsonl", "ops.json", "./././ops.json"] {
        let o = jc_in(
            Some(d.path()),
            &["tree", "apply", "t.jsonl", "ops.json", "--out", out],
            b"",
        );
        assert_eq!(o.status.code(), Some(2), "{out}");
    }
    assert_eq!(std::fs::read_to_string(&tree).unwrap(), tree_text);
    assert_eq!(std::fs::read_to_string(&ops).unwrap(), "[]");
}

/// Case ids come from directory names: a skip list written for ids holding a space, a
/// tab or a newline makes the next run pass.
#[test]
fn skip_lists_round_trip_every_id() {
    let d = scratch("skip-ids");
    let c = d.path().join("corpus");
    let failing = r#"{"cases":[{"name":"x","description":"d","rules":["J-SEQ-1"],"input":"","checks":[{"op":{"op":"validate"}},"expect":{"result":{"event_count":0}}}]}]}"#
        .replace("}},\"expect\"", "},\"expect\"");
    corpus(
        &c,
        &[
            ("a b/one.json", &failing),
            ("tab\there/one.json", &failing),
            ("new\nline/one.json", &failing),
        ],
    );
    let skip = d.path().join("skip.txt");
    let cs = c.to_str().unwrap();
    let o = jc(
        &[
            "test",
            "--corpus",
            cs,
            "--write-skip-file",
            skip.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).2);
    let o = jc(
        &[
            "test",
            "--corpus",
            cs,
            "--skip-file",
            skip.to_str().unwrap(),
        ],
        b"",
    );
    let (status, out, err) = text(&o);
    // The three are known; the golden traces (in every corpus) pass.
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("3 skipped (3 skip list)"), "{out}{err}");
    assert!(!err.contains("unknown case"), "{err}");
}

/// A reply with both `result` and `error` is a protocol error, not a result.
#[test]
fn a_reply_that_is_both_result_and_error_is_a_fault() {
    let d = scratch("both");
    let (status, r) = test_report(
        d.path(),
        "r.jsonl",
        &[
            "--adapter",
            &fake("result-and-error"),
            "--properties",
            "0",
            "--exact",
            "journal/gap",
        ],
    );
    assert_eq!(status, 1);
    let case = &report_lines(&r)[1];
    assert_eq!(case.get("outcome").and_then(Value::as_str), Some("errored"));
    assert!(
        case.get("message")
            .and_then(Value::as_str)
            .unwrap()
            .contains("both `result` and `error`"),
        "{case:?}"
    );
}

/// A handshake name with a newline, a pipe and HTML stays one escaped cell of the
/// summary table (and of `$GITHUB_STEP_SUMMARY`); escape sequences an adapter writes on
/// stderr reach the terminal escaped.
#[test]
fn adapter_text_is_escaped_everywhere() {
    let d = scratch("hostile");
    let report = d.path().join("r.jsonl");
    let o = jc(
        &[
            "test",
            "--adapter",
            &fake("hostile-name+wrong-code"),
            "--properties",
            "0",
            "--report",
            report.to_str().unwrap(),
            "journal/forward-parent",
            "--exact",
        ],
        b"",
    );
    let (_, out, err) = text(&o);
    let all = out + &err;
    assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{all:?}");
    let (_, table, _) = summary(&[&report]);
    let header = table.lines().next().unwrap();
    assert!(
        header.contains("&lt;b&gt;bold&lt;/b&gt;") && !header.contains("<b>"),
        "{table}"
    );
    assert_eq!(header.matches(" | ").count(), 1, "one name cell: {header}");
    assert!(!table.contains('\u{1b}'), "{table:?}");
}

/// JUnit is well-formed XML whatever a string holds: an expectation with U+FFFF (which
/// XML 1.0 forbids) failed by an adapter reads back in a real XML parser.
#[test]
fn junit_is_well_formed_for_every_string() {
    let d = scratch("junit");
    let junit = d.path().join("j.xml");
    let o = jc(
        &[
            "test",
            "--adapter",
            &fake("canonical-ascii"),
            "--properties",
            "0",
            "--exact",
            "canonical/keys/astral-vs-ffff",
            "--junit",
            junit.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).2);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    let failures = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(failures, 1, "{xml}");
    assert!(
        xml.contains("\\u{ffff}"),
        "the character is shown escaped: {xml}"
    );
}
