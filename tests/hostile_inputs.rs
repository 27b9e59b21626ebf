//! Hostile inputs under an address-space limit (issue 16, SPEC.md 16.5): every read is
//! bounded, so each of these ends with a clean exit 2 and a message naming the place,
//! never an allocation failure (signal 6), a kill by the kernel or a hang.
//!
//! Each command runs as `sh -c 'ulimit -v 1048576; exec BIN ...'` (RLIMIT_AS 1 GiB: the
//! 64 MiB line limit plus the buffer's growth fits; reading without a bound does not).

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");
const LIMIT_KIB: u64 = 1 << 20;

fn limited(args: &[&str]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Wait at most `secs`; a hang is a failure (and the child is killed).
fn wait(mut child: Child, secs: u64, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s (unbounded read or a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn assert_exit_2(out: &Output, what: &str, message: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: want exit 2, got {:?} (a signal is an abort or a kill); stderr: {stderr}",
        out.status
    );
    assert!(
        stderr.contains(message),
        "{what}: stderr lacks {message:?}: {stderr}"
    );
}

const TOO_LONG: &str = "line 1 is longer than 67108864 bytes; --max-line-bytes raises the limit";
const TOO_LONG_2: &str = "line 2 is longer than 67108864 bytes; --max-line-bytes raises the limit";
const EVENT: &[u8] = br#"{"event_id":"e0","session_id":"s","sequence":0,"type":"session.start","payload":{},"provenance":{"run_id":"r"}}"#;

#[test]
fn dev_zero_as_a_journal_or_a_document() {
    for cmd in [
        &["validate", "/dev/zero"][..],
        &["fingerprint", "/dev/zero"],
        &["replay", "/dev/zero"],
        &["branch", "/dev/zero", "--at", "0", "--id", "b"],
        &["canonical", "/dev/zero"],
        &["tree", "inspect", "/dev/zero"],
        &["tree", "validate", "/dev/zero"],
        &["tree", "show", "/dev/zero"],
        &["tree", "apply", "/dev/zero", "/dev/null"],
        &["tree", "inspect", "--profile", "yoagent-0.26", "/dev/zero"],
        &["tree", "show", "--profile", "yoagent-0.26", "/dev/zero"],
        &[
            "tree",
            "apply",
            "--profile",
            "yoagent-0.26",
            "/dev/zero",
            "/dev/null",
        ],
    ] {
        let what = cmd.join(" ");
        let out = wait(limited(cmd).spawn().unwrap(), 120, &what);
        assert_exit_2(&out, &what, &format!("/dev/zero: {TOO_LONG}"));
    }
}

/// A line that never ends, on a pipe: the reader stops at the limit (here raised to
/// show the flag, and lowered to show the number in the message).
#[test]
fn an_endless_line_on_stdin() {
    for (args, message) in [
        (&["validate", "-"][..], format!("<stdin>: {TOO_LONG_2}")),
        (
            &["validate", "--max-line-bytes", "1000", "-"],
            "<stdin>: line 2 is longer than 1000 bytes".to_owned(),
        ),
        (&["canonical", "-"], format!("<stdin>: {TOO_LONG_2}")),
        (
            &["append", "JOURNAL", "-"],
            format!("<stdin>: {TOO_LONG_2}"),
        ),
    ] {
        let dir = scratch("endless");
        let journal = dir.join("j.jsonl");
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == "JOURNAL" {
                    journal.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let what = args.join(" ");
        let mut child = limited(&args).stdin(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(EVENT);
            let _ = stdin.write_all(b"\n");
            let chunk = [b'x'; 1 << 16];
            // Until the reader gives up (EPIPE): an endless line.
            while stdin.write_all(&chunk).is_ok() {}
        });
        let out = wait(child, 120, &what);
        writer.join().unwrap();
        assert_exit_2(&out, &what, &message);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn scratch(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("jc-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The store refuses journals that are not regular files, before reading them (S-FILE-1):
/// `/dev/full` (appending used to grow memory until the kernel killed it), a FIFO
/// (reading it used to block forever), a directory, `/dev/zero`.
#[test]
fn the_store_refuses_journals_that_are_not_regular_files() {
    let dir = scratch("special");
    let fifo = dir.join("fifo.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let fifo = fifo.to_str().unwrap().to_owned();
    let d = dir.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["append", "/dev/full"], "character device"),
        (vec!["append", &fifo], "FIFO"),
        (vec!["append", &d], "directory"),
        (vec!["recover", &fifo], "FIFO"),
        (vec!["recover", "--apply", "/dev/zero"], "character device"),
        (vec!["recover", &d], "directory"),
        (vec!["checkpoint", &fifo, "--out", "/dev/null"], "FIFO"),
        (
            vec!["checkpoint", "/dev/zero", "--out", "/dev/null"],
            "character device",
        ),
    ];
    for (args, kind) in cases {
        let what = args.join(" ");
        let mut child = limited(&args).stdin(Stdio::piped()).spawn().unwrap();
        // Events on stdin for append: the refusal must come first anyway.
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"event_id\":\"a\"}\n");
        let out = wait(child, 30, &what);
        assert_exit_2(&out, &what, &format!("not a regular file but a {kind}"));
    }
    // A symlink to a regular file is fine (it is the target that counts).
    let target = dir.join("real.jsonl");
    let link = dir.join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = wait(
        limited(&["recover", link.to_str().unwrap()])
            .spawn()
            .unwrap(),
        30,
        "recover link",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

const TREE: &str = concat!(
    r#"{"id":"e1","parent_id":null,"message":{"role":"user","content":"hi"},"timestamp":1}"#,
    "\n",
    r#"{"id":"e2","parent_id":"e1","message":{"role":"assistant","content":"a longer reply, to be the longest line of the file"},"timestamp":2}"#,
    "\n",
);
const YO_TREE: &str = concat!(
    r#"{"id":"e1","parent_id":null,"message":{"content":[{"text":"hi","type":"text"}],"role":"user","timestamp":1},"timestamp":1}"#,
    "\n",
    r#"{"id":"e2","parent_id":"e1","message":{"content":[{"text":"a longer message, the longest line","type":"text"}],"role":"user","timestamp":2},"timestamp":2}"#,
    "\n",
);

/// `--max-line-bytes` on every `tree` command, both dialects (SPEC.md 16.5): a limit
/// below the longest entry is exit 2 naming that line (and reading stops there); the
/// OPS document of `tree apply` is bounded by the same flag; at the longest entry's
/// length, nothing changes.
#[test]
fn tree_commands_take_max_line_bytes() {
    let dir = scratch("tree-limit");
    for (profile, text) in [("core", TREE), ("yoagent-0.26", YO_TREE)] {
        let tree = dir.join(format!("{profile}.jsonl"));
        std::fs::write(&tree, text).unwrap();
        let ops = dir.join("ops.json");
        std::fs::write(&ops, "[{\"step\":\"seek\",\"id\":\"e1\"}]").unwrap();
        // An OPS document whose line 2 is padded with spaces to be longer than any entry.
        let long_ops = dir.join("long-ops.json");
        let ops_text = format!("[\n{{\"step\":\"seek\",{:300}\"id\":\"e1\"}}\n]\n", "");
        std::fs::write(&long_ops, &ops_text).unwrap();
        let longest = text.lines().map(str::len).max().unwrap();
        let line2 = text.lines().nth(1).unwrap().len();
        assert_eq!(
            longest, line2,
            "the test's tree has its longest entry on line 2"
        );
        let t = tree.to_str().unwrap();
        let o = ops.to_str().unwrap();
        let below = (longest - 1).to_string();
        let at = longest.to_string();
        for cmd in ["inspect", "validate", "show", "apply"] {
            let mut args = vec!["tree", cmd, "--profile", profile, t];
            if cmd == "apply" {
                args.push(o);
            }
            let what = format!("{} (profile {profile})", args.join(" "));
            let run = |extra: &[&str]| {
                let mut a = args.clone();
                a.splice(2..2, extra.iter().copied());
                wait(limited(&a).spawn().unwrap(), 30, &what)
            };
            let out = run(&["--max-line-bytes", &below]);
            assert_exit_2(
                &out,
                &what,
                &format!(
                    "{t}: line 2 is longer than {below} bytes; --max-line-bytes raises the limit"
                ),
            );
            let out = run(&["--max-line-bytes", &at]);
            assert_eq!(out.status.code(), Some(0), "{what} at the limit: {out:?}");
            assert_eq!(
                out.stdout,
                run(&[]).stdout,
                "{what}: the limit changed the output"
            );
        }
        // The OPS document is bounded by the same flag (its line 2 is the longest).
        let ops_len = ops_text.lines().nth(1).unwrap().len();
        assert!(ops_len > longest);
        let short = (ops_len - 1).to_string();
        let o = long_ops.to_str().unwrap();
        let args = [
            "tree",
            "apply",
            "--profile",
            profile,
            "--max-line-bytes",
            &short,
            t,
            o,
        ];
        let out = wait(limited(&args).spawn().unwrap(), 30, "apply ops");
        assert_exit_2(
            &out,
            "tree apply with long ops",
            &format!("{o}: line 2 is longer than {short} bytes"),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
