//! The command line: exit statuses (X-EXIT-1), stdin (X-STDIN-1), JSON shapes
//! (X-JSON-1), and that nothing is written where it should not be.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use journal_conformance::json::{self, Value};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");
const S07: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/golden/s07-session-replay.golden.jsonl"
);

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(data) = stdin {
        // A command that fails on its arguments exits without reading its input: the
        // write then meets a closed pipe, when the child was quicker (CI saw it once).
        if let Err(e) = input.write_all(data) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout_json(o: &Output) -> Value {
    json::parse(std::str::from_utf8(&o.stdout).unwrap()).expect("stdout is one JSON value")
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    k.sort();
    k
}

#[test]
fn validate_ok_and_invalid() {
    let o = run(&["validate", S07, "--profile", "trace-0.1"], None);
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["validate", "--json", "-"], Some(b"{\"a\":1}\n"));
    assert_eq!(o.status.code(), Some(1));
    let v = stdout_json(&o);
    assert_eq!(v.get("ok"), Some(&Value::Bool(false)));
    let e = v.get("error").unwrap();
    assert_eq!(
        keys(e),
        ["code", "column", "event_id", "line", "message", "sequence"]
    );
    assert_eq!(e.get("code").unwrap().as_str(), Some("malformed_event"));
    assert_eq!(e.get("line").unwrap().as_i64(), Some(1));
    let o = run(&["validate", "--json", S07], None);
    assert_eq!(
        stdout_json(&o).get("event_count").unwrap().as_i64(),
        Some(7)
    );
}

#[test]
fn human_diagnostic_names_file_line_code() {
    let dir = std::env::temp_dir().join(format!("jc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.jsonl");
    let original = b"{\"event_id\":\"e0\",\"session_id\":\"s\",\"sequence\":3,\"type\":\"t\",\"payload\":{},\"provenance\":{\"run_id\":\"r\"}}\n";
    std::fs::write(&f, original).unwrap();
    let o = run(&["validate", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("bad.jsonl:1: error[sequence_gap]"), "{err}");
    assert!(err.contains("sequence 3"), "{err}");
    assert!(err.contains("  | {\"event_id\""), "{err}");
    // The kit never rewrites the user's journal.
    assert_eq!(std::fs::read(&f).unwrap(), original);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_fingerprint_branch_shapes() {
    let o = run(&["replay", S07, "--until", "4"], None);
    assert_eq!(o.status.code(), Some(0));
    let v = stdout_json(&o);
    assert_eq!(
        keys(&v),
        [
            "applied_sequences",
            "assistant_messages",
            "fingerprint",
            "run_id",
            "session_id",
            "stop_reason",
            "tool_results",
            "user_messages"
        ]
    );
    assert_eq!(
        v.get("fingerprint").unwrap().as_str(),
        Some("1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e")
    );
    let o = run(
        &["fingerprint", "-", "--until", "2"],
        Some(&std::fs::read(S07).unwrap()),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb\n"
    );
    let o = run(&["branch", S07, "--at", "2", "--id", "b1"], None);
    let v = stdout_json(&o);
    assert_eq!(
        keys(&v),
        [
            "branch_id",
            "fork_sequence",
            "inherited_event_ids",
            "parent_fingerprint",
            "parent_run_id",
            "parent_session_id"
        ]
    );
    assert_eq!(v.get("fork_sequence").unwrap().as_i64(), Some(2));
}

#[test]
fn exit_statuses() {
    // 1: invalid input or arguments outside the journal.
    assert_eq!(
        run(&["replay", S07, "--until", "-1"], None).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&["branch", S07, "--at", "1", "--id", " "], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(run(&["validate", "-"], Some(b"")).status.code(), Some(1));
    assert_eq!(
        run(&["canonical", "-"], Some(b"{\"a\":1,\"a\":2}"))
            .status
            .code(),
        Some(1)
    );
    // 2: usage and I/O errors.
    assert_eq!(run(&["replay"], None).status.code(), Some(2));
    assert_eq!(run(&["no-such-command"], None).status.code(), Some(2));
    assert_eq!(
        run(&["validate", "/nonexistent/journal.jsonl"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["validate", S07, "--profile", "nope"], None)
            .status
            .code(),
        Some(2)
    );
    // 0: help and version.
    assert_eq!(run(&["--help"], None).status.code(), Some(0));
    assert_eq!(run(&["--version"], None).status.code(), Some(0));
}

#[test]
fn canonical_command() {
    let o = run(
        &["canonical", "-"],
        Some(b" {\"b\":1e16,\"a\":[-0,1.0,\"\\u00e9\\/\"]} \n"),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "{\"a\":[0,1.0,\"é/\"],\"b\":1e+16}\n"
    );
    let o = run(&["canonical", "--sha256", "-"], Some(b"[]"));
    // sha256("[]"), from Python: hashlib.sha256(b"[]").hexdigest()
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945\n"
    );
}

#[test]
fn golden_verify() {
    let o = run(&["golden", "verify"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("golden: 10 passed, 0 failed"));
}

#[test]
fn test_command_runs_the_corpus_with_a_summary() {
    let o = run(&["test", "--format", "terse"], None);
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("conformance ok for "), "{out}");
    assert!(out.contains(" 0 failed, 0 errored"), "{out}");
    // The table by group is aligned, `canonical-input` and `canonical/structure` too,
    // and uses the same group names as reports and JUnit (`canonical/keys`).
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("conformance by group"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(table.len() > 10, "{out}");
    assert!(
        table.iter().all(|l| l.len() == table[0].len()),
        "{table:#?}"
    );
    assert!(table
        .iter()
        .any(|l| l.trim_start().starts_with("canonical-input ")));
    assert!(table
        .iter()
        .any(|l| l.trim_start().starts_with("canonical/keys ")));
    let o = run(&["test", "--list"], None);
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("golden/s07-session-replay: "));
}

/// `tree apply` (T-ERR-1): a failing step is named by its 0-based STEP index (not as a
/// journal "sequence"), changes nothing, the later steps run, the tree is still written,
/// and the exit status is 1.
#[test]
fn tree_apply_names_failed_steps_and_goes_on() {
    let dir = std::env::temp_dir().join(format!("jc-cli-tree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ops = dir.join("ops.json");
    std::fs::write(
        &ops,
        r#"[{"step":"append","message":"a","timestamp":1},{"step":"seek","id":"nope"},{"step":"append","message":"b","timestamp":2}]"#,
    )
    .unwrap();
    let o = run(&["tree", "apply", "-", ops.to_str().unwrap()], Some(b""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("step 1 (seek): error[unknown_entry]"), "{err}");
    assert!(!err.contains("sequence"), "a step is not a sequence: {err}");
    assert!(
        err.contains(r#"results: ["e1",{"error":{"code":"unknown_entry"}},"e2"]"#),
        "{err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        concat!(
            r#"{"id":"e1","parent_id":null,"message":"a","timestamp":1}"#,
            "\n",
            r#"{"id":"e2","parent_id":"e1","message":"b","timestamp":2}"#
        )
    );
    // Without a failing step: exit 0.
    std::fs::write(&ops, r#"[{"step":"append","message":"a","timestamp":1}]"#).unwrap();
    let o = run(&["tree", "apply", "-", ops.to_str().unwrap()], Some(b""));
    assert_eq!(o.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tree apply`'s OPS nests deeper than C-DEPTH-1 (SPEC.md 16.5, "Nesting of documents
/// that carry data"): a step's message may be 127 levels deep (its entry line is then
/// 128, T-APPEND-1), one array and one step object below the top, so the reader must not
/// refuse it; a 128-deep message is the step's failure (`nesting_too_deep`, T-ERR-1),
/// not the document's. Expected trees written by hand from T-SAVE-1.
#[test]
fn tree_apply_takes_steps_with_messages_as_deep_as_an_entry_allows() {
    let dir = tempfile::tempdir().unwrap();
    let ops = dir.path().join("ops.json");
    let nest = |k: usize| format!("{}0{}", "[".repeat(k), "]".repeat(k));
    std::fs::write(
        &ops,
        format!(
            r#"[{{"step":"append","message":{},"timestamp":1}},{{"step":"append","message":{},"timestamp":2}}]"#,
            nest(127),
            nest(128)
        ),
    )
    .unwrap();
    let o = run(&["tree", "apply", "-", ops.to_str().unwrap()], Some(b""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(r#"results: ["e1",{"error":{"code":"nesting_too_deep"}}]"#),
        "{err}"
    );
    assert!(
        err.contains("step 1 (append): error[nesting_too_deep]"),
        "{err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            r#"{{"id":"e1","parent_id":null,"message":{},"timestamp":1}}"#,
            nest(127)
        )
    );
    // The document's own limit is twice C-DEPTH-1: deeper still is the reader's error.
    std::fs::write(&ops, nest(257)).unwrap();
    let o = run(&["tree", "apply", "-", ops.to_str().unwrap()], Some(b""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[nesting_too_deep]"), "{err}");
}

/// A journal command takes only the journal profiles (E-PROFILE-1): `yoagent-0.26` is a
/// tree dialect, so it is a usage error (exit 2) naming the journal profiles, and the
/// command writes nothing. A tree command takes only the dialects (`core` for the generic
/// format, `yoagent-0.26`), so `trace-0.1` is a usage error there.
#[test]
fn journal_commands_take_journal_profiles_and_tree_commands_dialects() {
    let dir = std::env::temp_dir().join(format!("jc-cli-profiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("store.jsonl");
    let out = dir.join("generated");
    let (store, out) = (store.to_str().unwrap(), out.to_str().unwrap());
    let journal_commands: &[&[&str]] = &[
        &["validate", S07],
        &["replay", S07],
        &["fingerprint", S07],
        &["branch", S07, "--at", "0", "--id", "b"],
        &["append", store, "-"],
        &["recover", store],
        &["checkpoint", store],
        &["generate", "--count", "1", "--out", out],
    ];
    for args in journal_commands {
        let o = run(
            &[args, &["--profile", "yoagent-0.26"][..]].concat(),
            Some(b""),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("unknown journal profile \"yoagent-0.26\"")
                && err.contains("core, trace-0.1"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "a rejected command wrote nothing"
    );
    // The journal profiles themselves are taken.
    for profile in ["core", "trace-0.1"] {
        let o = run(&["validate", S07, "--profile", profile], None);
        assert_eq!(o.status.code(), Some(0), "{profile}");
    }
    let tree = br#"{"id":"e1","parent_id":null,"message":"a","timestamp":1}"#;
    for action in ["inspect", "validate", "show"] {
        let o = run(&["tree", action, "-", "--profile", "trace-0.1"], Some(tree));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "tree {action}: {err}");
        assert!(
            err.contains("unknown tree dialect \"trace-0.1\"")
                && err.contains("core, yoagent-0.26"),
            "tree {action}: {err}"
        );
        let o = run(&["tree", action, "-", "--profile", "core"], Some(tree));
        assert_eq!(o.status.code(), Some(0), "tree {action} --profile core");
        let o = run(
            &["tree", action, "-", "--profile", "yoagent-0.26"],
            Some(tree),
        );
        assert_ne!(o.status.code(), Some(2), "tree {action} takes yoagent-0.26");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// K-RECORD-1: a journal with no event has nothing to checkpoint, and the request fails
/// with `empty_journal`; that is the input's fault, so `checkpoint` exits 1 (X-EXIT-1) and
/// writes no checkpoint or index file. (The reference once answered it as an I/O error,
/// exit 2.)
#[test]
fn checkpoint_of_an_empty_journal_is_empty_journal_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("empty.jsonl");
    std::fs::write(&journal, b"").unwrap();
    let ck = dir.path().join("empty.ck.json");
    let o = run(
        &[
            "checkpoint",
            journal.to_str().unwrap(),
            "--out",
            ck.to_str().unwrap(),
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[empty_journal]"), "{err}");
    assert!(o.stdout.is_empty());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        left.len(),
        1,
        "no checkpoint or index file written: {left:?}"
    );
}
