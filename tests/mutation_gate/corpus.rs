//! Gate paths 1, 2 and 7: the whole corpus and the golden traces through `test` in
//! process (with a `TMPDIR` left empty) and against `serve`, read from the directory as
//! well as embedded; `serve`'s answer to an operation it does not know; `golden verify`.

use super::*;

/// Gate path 1. The run's temporary directory is a fresh one, which must be empty
/// again when it ends: the scratch files of `store_apply` (the reference runs the steps on
/// a scratch journal) are the kit's, and none may outlive the run.
#[test]
fn the_corpus_and_golden_traces_pass_the_reference_in_process() {
    let Some(_running) = fail_fast() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["test", "--properties", "0", "--format", "terse"])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .output()
        .expect("run the kit");
    assert_passed(&["test", "--properties", "0", "--format", "terse"], &out);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "the run left {left:?} in its TMPDIR");
}

/// The corpus read from its directory (`--corpus`), not the embedded copy: the file
/// reader (`wire::read_bounded`, `vectors::load_dir`) answers for the kit too.
#[test]
fn the_corpus_directory_passes_the_reference() {
    let Some(_running) = fail_fast() else { return };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance");
    let args = [
        "test",
        "--properties",
        "0",
        "--format",
        "terse",
        "--corpus",
        dir,
    ];
    let out = run(&args);
    assert_passed(&args, &out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checked = stdout
        .split("checked ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(
        checked > 4000,
        "only {checked} cases read from {dir}:\n{stdout}"
    );
}

#[test]
fn the_corpus_and_golden_traces_pass_serve() {
    let Some(_running) = fail_fast() else { return };
    let serve = format!("'{BIN}' serve");
    assert_test_run(&[
        "test",
        "--properties",
        "0",
        "--format",
        "terse",
        "--adapter",
        &serve,
    ]);
}

/// Gate path 2's other half: the runner never sends `serve` an operation it does not
/// know, so the corpus cannot; A-SKIP-1 says an adapter should answer such a request
/// `unsupported` (a newer runner may send operations a protocol-1 adapter has never heard
/// of), and the reference does, while a known operation's request is answered.
#[test]
fn serve_answers_an_unknown_operation_unsupported() {
    let Some(_running) = fail_fast() else { return };
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run the kit");
    let requests = [
        r#"{"cmd":"run","id":1,"op":{"op":"frobnicate"},"profile":"core","input_base64":""}"#,
        r#"{"cmd":"run","id":2,"op":{"op":"validate"},"profile":"core","input_base64":""}"#,
        r#"{"cmd":"stop"}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| json::parse(l).ok())
        .collect();
    let reply = |id: i64| {
        replies
            .iter()
            .find(|r| r.get("id").and_then(Value::as_i64) == Some(id))
    };
    assert_eq!(
        reply(1).and_then(|r| r.get("unsupported")),
        Some(&Value::Bool(true)),
        "an unknown operation: {replies:?}"
    );
    assert!(
        reply(2).is_some_and(|r| r.get("unsupported").is_none()
            && r.get("error")
                .and_then(|e| e.get("code"))
                .and_then(Value::as_str)
                == Some("empty_journal")),
        "validate of an empty journal: {replies:?}"
    );
}

/// `golden verify` (the golden traces' own command, `golden::verify`, which compares with
/// `Value::same`) passes on the reference.
#[test]
fn golden_verify_passes() {
    let Some(_running) = fail_fast() else { return };
    let out = run(&["golden", "verify"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "golden verify\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
