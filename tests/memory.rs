//! Memory within the limits (issue 20 item 4, SPEC.md 16.5): under an address-space limit
//! of 1 GiB (`ulimit -v 1048576`), no input and no adapter reply aborts the kit ("memory
//! allocation failed", signal 6). Each ends with a clean error or a verdict, exit 1 or 2.
//!
//! Each command runs as `sh -c 'ulimit -v 1048576; exec "$0" "$@"' BIN ARGS...`. The
//! tests honour `JC_TEST_BIN` (support::bin), so they can be run against an older build
//! to see them fail.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::{bin, report_lines, root, scratch};

const LIMIT_KIB: u64 = 1 << 20;

/// The kit with `args` under the 1 GiB address-space limit, stdin from `stdin` (a file)
/// or nothing.
fn limited(args: &[&str], stdin: Option<&Path>) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.stdin(match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    });
    c.output().expect("sh runs")
}

/// Exit 1 or 2 (an error or a verdict), never a signal; returns stderr.
fn assert_clean(out: &Output, what: &str, codes: &[i32]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "{what}: want exit {codes:?}, got {:?} (a signal is an abort); stderr: {}",
        out.status,
        support::text(out).2.chars().take(2000).collect::<String>()
    );
    assert!(
        !stderr.contains("memory allocation"),
        "{what}: an allocation failed: {stderr}"
    );
    stderr
}

fn big_reply(mode: &str, mib: u32) -> String {
    format!(
        "python3 {} {mode} {mib}",
        root().join("tests/fakes/big_reply.py").display()
    )
}

/// A report header naming a partition of 4294967295 shards is refused without
/// allocating for them (exit 2, naming the file and the numbers).
#[test]
fn summary_of_a_huge_partition_count_allocates_nothing() {
    let dir = scratch("mem-partition");
    let r = dir.path().join("r.jsonl");
    let run = limited(
        &[
            "test",
            "branch/at-0",
            "--exact",
            "--properties",
            "0",
            "--partition",
            "1/2",
            "--report",
            r.to_str().unwrap(),
        ],
        None,
    );
    assert_clean(&run, "test", &[0, 1]);
    let text = std::fs::read_to_string(&r).unwrap();
    assert!(text.contains(r#""partition":"count:1/2""#), "{text}");
    let huge = dir.path().join("huge.jsonl");
    std::fs::write(
        &huge,
        text.replacen(
            r#""partition":"count:1/2""#,
            r#""partition":"count:1/4294967295""#,
            1,
        ),
    )
    .unwrap();
    let out = limited(&["summary", huge.to_str().unwrap()], None);
    let err = assert_clean(&out, "summary", &[2]);
    assert!(err.contains("huge.jsonl"), "{err}");
    assert!(err.contains("every K from 1 to 4294967295"), "{err}");
}

/// A persistent adapter answering every check with a valid 60 MiB result: each is
/// judged whole, and the records keep only a bounded summary (`omitted`: size, sha256 of
/// the canonical text, a preview), so memory does not grow with the cases (SPEC.md 13.5).
#[test]
fn large_persistent_replies_are_not_kept_whole() {
    let dir = scratch("mem-replies");
    let r = dir.path().join("r.jsonl");
    let adapter = big_reply("string", 60);
    let out = limited(
        &[
            "test",
            "branch/at-",
            "--properties",
            "0",
            "--timeout",
            "60",
            "--report",
            r.to_str().unwrap(),
            "--adapter",
            &adapter,
        ],
        None,
    );
    assert_clean(&out, "test with 60 MiB replies", &[1]);
    let lines = report_lines(&r);
    let cases: Vec<_> = lines
        .iter()
        .filter(|l| l.get("type").and_then(|t| t.as_str()) == Some("case"))
        .collect();
    assert!(cases.len() >= 10, "{} cases", cases.len());
    // The digest is of the canonical text of {"result":"xxx..."}: computed here from
    // its definition, not by the kit.
    let text = format!("{{\"result\":\"{}\"}}", "x".repeat((60 << 20) - 2));
    let want = format!(
        "sha256:{}",
        journal_conformance::fingerprint::sha256_hex(text.as_bytes())
    );
    for c in cases {
        assert_eq!(c.get("outcome").unwrap().as_str(), Some("failed"), "{c:?}");
        for check in c.get("checks").unwrap().as_array().unwrap() {
            let omitted = check
                .get("actual")
                .and_then(|a| a.get("omitted"))
                .unwrap_or_else(|| panic!("the actual is kept whole: {check:?}"));
            assert_eq!(
                omitted.get("bytes").unwrap().as_i64(),
                Some(text.len() as i64)
            );
            assert_eq!(omitted.get("sha256").unwrap().as_str(), Some(&*want));
            let preview = omitted.get("preview").unwrap().as_str().unwrap();
            assert!(preview.starts_with("{\"result\":\"xxx"), "{preview}");
            assert!(preview.len() < 2048, "{}", preview.len());
        }
    }
}

/// `yes` as a one-shot adapter at `-j 24`: each of the 24 adapters' output is cut off at
/// its share of the run's 256 MiB budget (SPEC.md A-LIMIT-1: 268435456 / 24 = 11184810
/// bytes), not at 64 MiB each (24 x 64 MiB aborted the kit).
#[test]
fn one_shot_floods_share_one_budget_across_jobs() {
    let dir = scratch("mem-flood");
    let r = dir.path().join("r.jsonl");
    let adapter = format!(
        "bash {}",
        root().join("tests/fakes/oneshot_flood.sh").display()
    );
    let out = limited(
        &[
            "test",
            "branch/",
            "--one-shot",
            "--jobs",
            "24",
            "--properties",
            "0",
            "--timeout",
            "60",
            "--report",
            r.to_str().unwrap(),
            "--adapter",
            &adapter,
        ],
        None,
    );
    assert_clean(&out, "one-shot yes at -j 24", &[1]);
    let lines = report_lines(&r);
    let cases: Vec<_> = lines
        .iter()
        .filter(|l| l.get("type").and_then(|t| t.as_str()) == Some("case"))
        .collect();
    assert!(cases.len() >= 24, "{} cases", cases.len());
    for c in cases {
        assert_eq!(c.get("outcome").unwrap().as_str(), Some("errored"), "{c:?}");
        let m = c.get("message").unwrap().as_str().unwrap();
        assert!(m.contains("11184810"), "{m}");
    }
}

/// A 60 MB line `[0,0,...]` (30 million values): 4 GB as a value tree. Every reader stops
/// at the value budget (`json::MAX_VALUES`, SPEC.md 16.5) with a located error naming the
/// code `too_many_values` at the column of the first value past it, before allocating it.
#[test]
fn a_60_mb_line_of_zeros_never_aborts() {
    use journal_conformance::json::MAX_VALUES;
    let dir = scratch("mem-zeros");
    let zeros = dir.path().join("zeros.json");
    let mut text = Vec::with_capacity(60_000_010);
    text.push(b'[');
    for _ in 0..30_000_000 - 1 {
        text.extend_from_slice(b"0,");
    }
    text.extend_from_slice(b"0]\n");
    std::fs::write(&zeros, &text).unwrap();
    drop(text);
    let z = zeros.to_str().unwrap();
    // `[` is column 1, element i (1-based) column 2i: the value past the budget is the
    // array's element MAX_VALUES.
    let column = 2 * MAX_VALUES;
    let located = format!(
        "{z}: line 1, column {column}: too_many_values: more than {MAX_VALUES} values in one JSON text"
    );
    for args in [
        &["validate", z][..],
        &["validate", "--json", z],
        &["replay", z],
        &["fingerprint", z],
        &["branch", z, "--at", "0", "--id", "b"],
        &["canonical", z],
        &["tree", "inspect", z],
        &["tree", "validate", "--json", z],
    ] {
        let what = args.join(" ");
        let out = limited(args, None);
        let err = assert_clean(&out, &what, &[2]);
        assert!(err.contains(&located), "{what}: {err}");
    }
    // `append`'s input: nothing is appended, exit 2.
    let journal = dir.path().join("j.jsonl");
    let out = limited(&["append", journal.to_str().unwrap(), "-"], Some(&zeros));
    let err = assert_clean(&out, "append", &[2]);
    assert!(
        err.contains("<stdin>: line 1: too_many_values: more than"),
        "append: {err}"
    );
    assert_eq!(std::fs::metadata(&journal).map_or(0, |m| m.len()), 0);
    // A serve request: invalid_request, and serve goes on to the next request.
    let mut req = std::fs::read(&zeros).unwrap();
    req.extend_from_slice(b"{\"cmd\":\"stop\"}\n");
    let reqs = dir.path().join("requests");
    std::fs::write(&reqs, &req).unwrap();
    drop(req);
    let out = limited(&["serve"], Some(&reqs));
    assert_clean(&out, "serve", &[0]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(r#"{"error":{"code":"invalid_request","message":"too_many_values: more than 1048576 values"#),
        "{stdout}"
    );
    // A report file for summary.
    let out = limited(&["summary", z], None);
    let err = assert_clean(&out, "summary", &[2]);
    assert!(err.contains("too_many_values"), "summary: {err}");
    // A persistent adapter's reply: each check errored (A-FAULT-1), a verdict, exit 1.
    let r = dir.path().join("r.jsonl");
    let adapter = big_reply("zeros", 60);
    let out = limited(
        &[
            "test",
            "branch/at-1",
            "--exact",
            "--properties",
            "0",
            "--timeout",
            "60",
            "--report",
            r.to_str().unwrap(),
            "--adapter",
            &adapter,
        ],
        None,
    );
    assert_clean(&out, "test with [0,0,...] replies", &[1]);
    let lines = report_lines(&r);
    assert_eq!(lines[1].get("outcome").unwrap().as_str(), Some("errored"));
    let m = lines[1].get("message").unwrap().as_str().unwrap();
    assert!(m.contains("too_many_values"), "{m}");
}

/// Sixteen persistent adapters replying `[0,0,...]` of 14 MiB (under their 16 MiB line
/// cap) at once: each reply stops at its job's share of the run's value budget (SPEC.md
/// A-LIMIT-1: 4194304 / 16 = 262144 values), not at 1,048,576 each (16 value trees of a
/// million values aborted the kit).
#[test]
fn parallel_replies_share_one_value_budget() {
    let dir = scratch("mem-jobs");
    let r = dir.path().join("r.jsonl");
    let adapter = big_reply("zeros", 14);
    let out = limited(
        &[
            "test",
            "branch/",
            "--jobs",
            "16",
            "--properties",
            "0",
            "--timeout",
            "120",
            "--report",
            r.to_str().unwrap(),
            "--adapter",
            &adapter,
        ],
        None,
    );
    assert_clean(&out, "[0,0,...] replies at -j 16", &[1]);
    let lines = report_lines(&r);
    let cases: Vec<_> = lines
        .iter()
        .filter(|l| l.get("type").and_then(|t| t.as_str()) == Some("case"))
        .collect();
    assert!(cases.len() >= 16, "{} cases", cases.len());
    for c in cases {
        assert_eq!(c.get("outcome").unwrap().as_str(), Some("errored"), "{c:?}");
        let m = c.get("message").unwrap().as_str().unwrap();
        assert!(m.contains("more than 262144 values"), "{m}");
    }
}
