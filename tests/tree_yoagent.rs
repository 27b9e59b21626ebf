//! The `yoagent-0.26` tree dialect (SPEC.md 15.4) through the command line, and the
//! shape-only tree loading (`tree inspect`/`validate`) against the full loader.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use journal_conformance::tree::{Loaded, Tree};
use journal_conformance::vectors;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails on its arguments may exit before reading: a closed pipe.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

const USER: &str = r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}"#;

fn entry(id: &str, parent: &str) -> String {
    format!(r#"{{"id":"{id}","parent_id":{parent},"message":{USER},"timestamp":1}}"#)
}

#[test]
fn a_real_yoagent_file_validates_only_in_its_dialect_and_vice_versa() {
    let real = format!("{}\n{}", entry("e1", "null"), entry("e2", "\"e1\""));
    let o = run(
        &["tree", "validate", "--profile", "yoagent-0.26", "-"],
        real.as_bytes(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The seed's example shape is generic, not yoagent's.
    let generic = r#"{"id":"e1","parent_id":null,"message":{"role":"user","content":"draft a plan"},"timestamp":1000}"#;
    let o = run(&["tree", "validate", "-"], generic.as_bytes());
    assert_eq!(o.status.code(), Some(0));
    let o = run(
        &["tree", "validate", "--profile", "yoagent-0.26", "-"],
        generic.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(":1: error[malformed_entry]") && err.contains("AgentMessage"),
        "{err}"
    );
}

#[test]
fn dialect_errors_are_located_where_yoagent_gives_no_line() {
    // yoagent's DuplicateId and UnknownParent carry no line; the kit names it.
    let dup = [entry("e1", "null"), String::new(), entry("e1", "null")].join("\n");
    let o = run(
        &[
            "tree",
            "validate",
            "--json",
            "--profile",
            "yoagent-0.26",
            "-",
        ],
        dup.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(r#""code":"duplicate_entry_id""#) && out.contains(r#""line":3"#),
        "{out}"
    );
    let fwd = [entry("e1", "\"e2\""), entry("e2", "null")].join("\n");
    let o = run(
        &["tree", "inspect", "--profile", "yoagent-0.26", "-"],
        fwd.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains(":1: error[unknown_parent]"));
}

#[test]
fn dialect_inspect_and_save_are_yoagents() {
    // yoagent's counter wraps after u64::MAX (the generic format says null).
    let t = entry("e18446744073709551615", "null");
    let o = run(
        &["tree", "inspect", "--profile", "yoagent-0.26", "-"],
        t.as_bytes(),
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(r#""next_id":"e0""#));
    let o = run(&["tree", "inspect", "-"], t.as_bytes());
    assert!(String::from_utf8_lossy(&o.stdout).contains(r#""next_id":null"#));
    // Saving keeps yoagent's member order (role first), not the canonical order.
    let s = journal_conformance::tree::apply_in(
        t.as_bytes(),
        &[],
        journal_conformance::tree::Dialect::Yoagent026,
    )
    .unwrap();
    assert_eq!(s.get("tree").and_then(|v| v.as_str()), Some(t.as_str()));
}

/// `tree inspect` loads only the shape; it must give exactly the full loader's view
/// (and the same errors) on every tree input of the corpus.
#[test]
fn shape_only_loading_agrees_with_the_full_loader() {
    let cases = vectors::load_embedded().unwrap();
    let mut n = 0;
    for c in cases.iter().filter(|c| c.group.starts_with("tree")) {
        let full = Tree::load(&c.input);
        let shape = Tree::load_shape(&c.input[..]);
        match (full, shape) {
            (Ok(a), Ok(b)) => assert_eq!(a.inspect(), b.inspect(), "{}", c.id),
            (Err(a), Err(journal_conformance::error::ReadError::Invalid(b))) => {
                assert_eq!((a.code, a.line), (b.code, b.line), "{}", c.id)
            }
            (a, b) => panic!("{}: {:?} against {:?}", c.id, a.is_ok(), b.is_ok()),
        }
        let streamed =
            Loaded::read(&c.input[..], c.profile.dialect(), true, usize::MAX).map(|l| l.inspect());
        let whole = Loaded::load(&c.input, c.profile.dialect()).map(|l| l.inspect());
        assert_eq!(streamed.ok(), whole.ok(), "{}", c.id);
        n += 1;
    }
    assert!(n > 150, "only {n} tree cases");
}
