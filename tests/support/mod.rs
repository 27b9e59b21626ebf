//! What the kit's integration tests share (one module, as cargo's and regex's test
//! layouts have): the binary, running it, scratch directories, the fake adapters, and
//! reading reports back. `mod support;` at the top of a test file brings it in.
#![allow(dead_code)] // each test binary uses a part of it

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use journal_conformance::json::{self, Value};

/// The kit's binary, built by cargo for the tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

/// The binary the tests run: [`BIN`], or `JC_TEST_BIN` when set (to show that a test
/// fails against an older build: `JC_TEST_BIN=old/journal-conformance cargo test ...`).
pub fn bin() -> String {
    std::env::var("JC_TEST_BIN").unwrap_or_else(|_| BIN.to_owned())
}

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run the kit with `args` and `stdin`, in `dir` when given.
pub fn jc_in(dir: Option<&Path>, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("the kit starts");
    let mut input = child.stdin.take().expect("piped stdin");
    // A command that does not read its stdin closes it: not an error here.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("the kit runs")
}

/// Run the kit with `args` and `stdin`.
pub fn jc(args: &[&str], stdin: &[u8]) -> Output {
    jc_in(None, args, stdin)
}

/// The exit status, stdout and stderr of a run, as text.
pub fn text(o: &Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fresh scratch directory, removed when dropped.
pub fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("jc-{tag}-"))
        .tempdir()
        .expect("a scratch directory")
}

/// The `--adapter` command of a fake adapter (tests/fakes/fake_adapter.py) in `mode`,
/// proxying to this kit's `serve`.
pub fn fake(mode: &str) -> String {
    let script = root().join("tests/fakes/fake_adapter.py");
    format!("python3 {} {mode} {}", script.display(), bin())
}

/// A report's lines as JSON values.
pub fn report_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("the report exists")
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| json::parse_with_max_depth(l, 256).expect("a report line is JSON"))
        .collect()
}

/// Write a corpus directory with one vector file per `(relative path, text)`.
pub fn corpus(dir: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}
