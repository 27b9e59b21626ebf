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
