//! Issue 19's everyday bug, caught by construction: an implementation whose blank-line
//! test is some language's trim (`line.strip()` in Python, `trim()` in JavaScript,
//! `strings.TrimSpace` in Go, ...) treats a line of only `\f`, `\v` or U+00A0 as blank,
//! where SPEC.md W-BLANK-1 says `invalid_json`. The fake (tests/fakes/blank_variant.py)
//! is the independent Python implementation (examples/python) with only that test
//! replaced; the kit must fail it on exactly the whitespace-table cases that the
//! variant's character set predicts (from conformance/tools/whitespace.json), and on
//! nothing else.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use journal_conformance::json::{self, Value};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn whitespace_data() -> Value {
    let text = std::fs::read_to_string(root().join("conformance/tools/whitespace.json")).unwrap();
    json::parse(&text).unwrap()
}

/// Runs the kit against the variant; the ids of the failed cases and the exit status.
fn failed_cases(variant: &str, filter: &[&str]) -> (i32, BTreeSet<String>, usize) {
    let dir = std::env::temp_dir().join(format!("jc-blank-{}-{variant}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.jsonl");
    let script = root().join("tests/fakes/blank_variant.py");
    let out = Command::new(BIN)
        .arg("test")
        .arg("--adapter")
        .arg(format!("python3 {} {variant}", script.display()))
        .args(["--properties", "0", "--format", "terse", "--report"])
        .arg(&report)
        .args(filter)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut failed = BTreeSet::new();
    let mut passed = 0;
    for l in text.lines() {
        let v = json::parse_with_max_depth(l, 1024).unwrap();
        if v.get("type").and_then(Value::as_str) != Some("case") {
            continue;
        }
        let id = v.get("id").and_then(Value::as_str).unwrap().to_owned();
        match v.get("outcome").and_then(Value::as_str).unwrap() {
            "failed" | "errored" => {
                failed.insert(id);
            }
            "passed" => passed += 1,
            _ => {}
        }
    }
    (out.status.code().unwrap_or(-1), failed, passed)
}

/// The whitespace-table cases a blank test over `set` must fail: a whole line (in the
/// middle, or last) of one character that the set calls blank and W-BLANK-1 does not
/// (not space, tab, CR; not LF, which ends the line; not U+FEFF, whose line is a BOM),
/// in journals, and the store's cases of that character's class.
fn predicted(data: &Value, set: &dyn Fn(u32) -> bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut classes = BTreeSet::new();
    for e in data.get("code_points").and_then(Value::as_array).unwrap() {
        let cp = e.get("cp").and_then(Value::as_i64).unwrap() as u32;
        let class = journal_conformance::canonical::to_string(e.get("in").unwrap());
        let representative = classes.insert(class);
        if !set(cp) || [0x20, 0x09, 0x0D, 0x0A, 0xFEFF].contains(&cp) {
            continue;
        }
        for p in ["line", "last"] {
            out.insert(format!("tables/journal-whitespace/{p}-u{cp:04x}"));
        }
        if representative {
            for p in ["append", "open-middle"] {
                out.insert(format!("tables/store-whitespace/{p}-u{cp:04x}"));
            }
        }
    }
    out
}

fn function_set(data: &Value, name: &str) -> BTreeSet<u32> {
    data.get("functions")
        .and_then(|f| f.get(name))
        .and_then(|f| f.get("code_points"))
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no function {name} in whitespace.json"))
        .iter()
        .map(|c| u32::from_str_radix(&c.as_str().unwrap()[2..], 16).unwrap())
        .collect()
}

#[test]
fn a_strip_blank_test_fails_the_fixed_corpus_and_only_the_whitespace_table() {
    // The motivating bug, literally `not line.strip()`, against the whole fixed corpus.
    let data = whitespace_data();
    let (status, failed, passed) = failed_cases("python-strip", &[]);
    assert_eq!(status, 1, "the kit let a strip() blank test pass");
    let want = predicted(&data, &|cp| {
        char::from_u32(cp).is_some_and(|c| {
            // Python's str.isspace() (B-ID-2's list): White_Space plus U+001C..U+001F.
            c.is_whitespace() || (0x1C..=0x1F).contains(&cp)
        })
    });
    assert_eq!(
        failed, want,
        "python-strip failed other cases than the table predicts"
    );
    for id in [
        "tables/journal-whitespace/line-u000c",
        "tables/journal-whitespace/line-u000b",
        "tables/journal-whitespace/line-u00a0",
    ] {
        assert!(failed.contains(id), "{id}");
    }
    assert!(
        passed > 1500,
        "only {passed} cases passed: the variant is broken beyond its blank test"
    );
}

#[test]
fn every_languages_trim_as_a_blank_test_fails_exactly_where_predicted() {
    let data = whitespace_data();
    for variant in [
        "javascript-trim",
        "go-unicode-isspace",
        "rust-char-is-whitespace",
        "rust-is-ascii-whitespace",
        "java-string-trim",
        "java-character-iswhitespace",
        "c-isspace",
        "python-bytes-strip",
    ] {
        let set = function_set(&data, variant);
        let (status, failed, _) = failed_cases(variant, &["whitespace/"]);
        let want = predicted(&data, &|cp| set.contains(&cp));
        assert!(!want.is_empty(), "{variant}: nothing to catch?");
        assert_eq!(status, 1, "{variant}: the kit let it pass");
        assert_eq!(failed, want, "{variant}");
    }
}

#[test]
fn the_spec_blank_set_passes_every_whitespace_case() {
    // The same fake with W-BLANK-1's own set is the unmodified implementation: the
    // tables are not rigged to fail any blank test.
    let (status, failed, passed) = failed_cases("spec-w-blank-1", &["whitespace/"]);
    assert_eq!((status, failed.len()), (0, 0), "{failed:?}");
    assert!(passed > 1000, "{passed}");
}
