//! `journal-conformance show CASE-ID` (issue 12 item 3): the human view, the exact input
//! bytes with `--input`, the vector with `--json`, and a usage error suggesting close
//! ids for an unknown one.

use std::process::{Command, Output};

use base64::Engine;
use journal_conformance::vectors;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn show(args: &[&str]) -> Output {
    Command::new(BIN).arg("show").args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// A corpus directory holding one vector whose input has every kind of invisible byte.
fn odd_corpus(tag: &str) -> (std::path::PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("jc-show-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input: Vec<u8> =
        b"\xef\xbb\xbf{\"a\":\"x\xc2\x85y\"}\r\n\x00\xff\t\xe2\x80\xa8 \xc3\xa9".to_vec();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&input);
    let vector = format!(
        r#"{{"cases":[{{"name":"odd-bytes","description":"BOM, NEL, CRLF, NUL, 0xFF, tab, U+2028.","rules":["W-BOM-1","W-LINE-1"],"tags":["unicode","bytes"],"level":"should","profile":"trace-0.1","input_base64":"{b64}","checks":[{{"op":{{"op":"validate"}},"expect":{{"error":{{"code":"unexpected_bom","line":1}}}}}}]}}]}}"#
    );
    std::fs::write(dir.join("odd.json"), vector).unwrap();
    (dir, input)
}

#[test]
fn shows_a_case_with_rules_titles_tags_input_and_checks() {
    let o = show(&["replay/stop-reason"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    for needle in [
        "replay/stop-reason\n",
        "  description: session.stop sets the stop reason.\n",
        "    R-STOP-1: A `session.stop` event sets `stop_reason` to `payload.reason`",
        "  tags: -\n  level: must\n  profile: core\n",
        "  input (140 bytes, ends with a newline):\n    | {\"event_id\":\"e0\",\"session_id\":\"sess-1\"",
        "  checks:\n    1. {\"op\":\"validate\"}\n       expect: {\"result\":{\"event_count\":1}}\n",
        "    2. {\"op\":\"replay\"}\n       expect: {\"result\":{\"applied_sequences\":[0]",
    ] {
        assert!(out.contains(needle), "{needle:?} not in\n{out}");
    }
    // The golden traces are cases too.
    let o = show(&["golden/s07-session-replay"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("    G-1: `golden/` holds"));
}

#[test]
fn input_is_byte_exact_and_the_view_escapes_every_invisible_byte() {
    // An embedded case with a BOM and an invalid UTF-8 byte.
    let want = vectors::load_embedded()
        .unwrap()
        .into_iter()
        .find(|c| c.id == "precedence/bom-before-utf8")
        .unwrap()
        .input;
    assert_eq!(want, b"\xef\xbb\xbf{\xff}\n");
    let o = show(&["precedence/bom-before-utf8", "--input"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, want);

    let (dir, input) = odd_corpus("input");
    let d = dir.to_str().unwrap();
    let o = show(&["odd/odd-bytes", "--input", "--corpus", d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(o.stdout, input);
    let o = show(&["odd/odd-bytes", "--corpus", d]);
    let out = text(&o.stdout);
    assert!(
        out.contains(
            "  input (26 bytes, NO final newline):\n    | \\u{feff}{\"a\":\"x\\u{85}y\"}\\u{d}\n    | \\u{0}\\xff\\u{9}\\u{2028} é\n"
        ),
        "{out}"
    );
    for raw in ['\u{feff}', '\u{85}', '\r', '\0', '\t', '\u{2028}'] {
        assert!(!out.contains(raw), "raw {raw:?} in\n{out}");
    }
    assert!(out.contains("  tags: unicode, bytes\n  level: should\n  profile: trace-0.1\n"));
    assert!(out.contains("    W-BOM-1: A line whose first three bytes are `EF BB BF`"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_prints_a_vector_file_that_loads_back_as_the_same_case() {
    let (dir, _) = odd_corpus("json");
    let o = show(&["odd/odd-bytes", "--json", "--corpus", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let original = vectors::load_dir(&dir).unwrap().remove(0);
    let back = dir.join("back");
    std::fs::create_dir_all(&back).unwrap();
    std::fs::write(back.join("odd.json"), &o.stdout).unwrap();
    let loaded = vectors::load_dir(&back).unwrap().remove(0);
    assert_eq!(loaded, original);
    // An embedded case, too.
    let o = show(&["wire/u0085-in-string", "--json"]);
    let cases =
        vectors::parse_file(text(&o.stdout).as_str(), "wire", &|_| Err("no".into())).unwrap();
    let embedded = vectors::load_embedded().unwrap();
    let want = embedded
        .iter()
        .find(|c| c.id == "wire/u0085-in-string")
        .unwrap();
    assert_eq!(&cases[0], want);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_ids_are_usage_errors_with_suggestions() {
    let o = show(&["replay/stop-reasn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(err.contains("no case \"replay/stop-reasn\""), "{err}");
    assert!(err.contains("did you mean: replay/stop-reason"), "{err}");
    // A bare name finds its group.
    let err = text(&show(&["gap"]).stderr);
    assert!(err.contains("did you mean: journal/gap"), "{err}");
    let o = show(&["zzzz-qqqq"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!text(&o.stderr).contains("did you mean"));
    let o = show(&["replay/stop-reason", "--corpus", "/nonexistent/corpus"]);
    assert_eq!(o.status.code(), Some(2));
    let o = show(&["replay/stop-reason", "--input", "--json"]);
    assert_eq!(o.status.code(), Some(2));
}
