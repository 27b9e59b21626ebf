//! Runs every canonical JSON conformance vector (`conformance/canonical/*.json`, vector
//! format v1) through the reference implementation (`ops::execute` with
//! `Operation::Canonical`) and `fingerprint::sha256_hex`, and fails listing every
//! mismatch. The expected values come from Python (see `conformance/canonical/README.md`),
//! never from this crate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use journal_conformance::event::Profile;
use journal_conformance::fingerprint::sha256_hex;
use journal_conformance::journal::ReadError;
use journal_conformance::json::{self, Value};
use journal_conformance::ops::{self, Operation};

/// The rule ids canonical vectors may cite.
const RULES: &[&str] = &[
    "C-SYNTAX-1",
    "C-KEY-1",
    "C-KEY-2",
    "C-STR-1",
    "C-STR-2",
    "C-STR-3",
    "C-NUM-1",
    "C-NUM-2",
    "C-NUM-3",
    "C-NUM-4",
    "C-NUM-5",
    "C-NUM-6",
    "C-LIT-1",
    "C-WS-1",
    "C-DEPTH-1",
    "W-UTF8-1",
    "W-BOM-1",
];

const MIN_CASES: usize = 200;

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn vector_files() -> Vec<PathBuf> {
    let dir = conformance_dir().join("canonical");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Standard base64 (RFC 4648 alphabet, `=` padding required).
fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return Err("base64 length is not a multiple of 4".into());
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (i, chunk) in b.chunks(4).enumerate() {
        let last = i + 1 == b.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err("misplaced base64 padding".into());
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = n << 6 | val(c).ok_or(format!("invalid base64 character {:?}", c as char))?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Ok(out)
}

fn check_fields(obj: &[(String, Value)], allowed: &[&str], what: &str) -> Result<(), String> {
    for (k, _) in obj {
        if !allowed.contains(&k.as_str()) {
            return Err(format!("{what}: unknown field {k:?}"));
        }
    }
    Ok(())
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z' | '0'..='9'))
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '.' | '_' | '-'))
}

/// One decoded check: the operation and what it must return.
enum Expect {
    Result {
        value: Value,
        sha256: Option<String>,
    },
    Error {
        codes: Vec<String>,
        line: Option<i64>,
        sequence: Option<i64>,
    },
}

struct Case {
    id: String,
    input: Vec<u8>,
    profile: Profile,
    checks: Vec<(Operation, Expect)>,
}

fn read_expect(v: &Value, what: &str) -> Result<Expect, String> {
    let obj = v
        .as_object()
        .ok_or(format!("{what}: `expect` must be an object"))?;
    if let Some(err) = v.get("error") {
        check_fields(obj, &["error"], what)?;
        let eobj = err
            .as_object()
            .ok_or(format!("{what}: `error` must be an object"))?;
        check_fields(eobj, &["code", "line", "sequence"], what)?;
        let codes = match err.get("code") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) if !a.is_empty() => a
                .iter()
                .map(|c| c.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or(format!("{what}: `code` array must hold strings"))?,
            _ => return Err(format!("{what}: `error.code` must be a string or array")),
        };
        let int = |k: &str| -> Result<Option<i64>, String> {
            match err.get(k) {
                None => Ok(None),
                Some(x) => x
                    .as_i64()
                    .map(Some)
                    .ok_or(format!("{what}: `error.{k}` must be an integer")),
            }
        };
        Ok(Expect::Error {
            codes,
            line: int("line")?,
            sequence: int("sequence")?,
        })
    } else {
        check_fields(obj, &["result", "sha256"], what)?;
        let value = v
            .get("result")
            .ok_or(format!("{what}: `expect` needs `result` or `error`"))?
            .clone();
        let sha256 = match v.get("sha256") {
            None => None,
            Some(Value::String(s)) if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Some(s.clone())
            }
            Some(_) => return Err(format!("{what}: `sha256` must be 64 hex digits")),
        };
        Ok(Expect::Result { value, sha256 })
    }
}

fn read_case(group: &str, file: &Path, v: &Value) -> Result<Case, String> {
    let obj = v
        .as_object()
        .ok_or(format!("{group}: a case must be an object"))?;
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .ok_or(format!("{group}: a case needs a string `name`"))?;
    let id = format!("{group}/{name}");
    if !valid_name(name) {
        return Err(format!("{id}: invalid case name"));
    }
    check_fields(
        obj,
        &[
            "name",
            "description",
            "rules",
            "tags",
            "level",
            "profile",
            "input",
            "input_base64",
            "input_file",
            "checks",
        ],
        &id,
    )?;
    match v.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => {}
        _ => return Err(format!("{id}: `description` must be a non-empty string")),
    }
    let rules = v
        .get("rules")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty())
        .ok_or(format!("{id}: `rules` must be a non-empty array"))?;
    for r in rules {
        match r.as_str() {
            Some(r) if RULES.contains(&r) => {}
            _ => return Err(format!("{id}: unknown rule id {r:?}")),
        }
    }
    if let Some(tags) = v.get("tags") {
        if !tags
            .as_array()
            .is_some_and(|t| t.iter().all(|x| x.as_str().is_some()))
        {
            return Err(format!("{id}: `tags` must be an array of strings"));
        }
    }
    match v.get("level").map(Value::as_str) {
        None | Some(Some("must" | "should" | "implementation-defined")) => {}
        Some(_) => return Err(format!("{id}: invalid `level`")),
    }
    let profile = match v.get("profile") {
        None => Profile::Core,
        Some(p) => p
            .as_str()
            .and_then(Profile::parse)
            .ok_or(format!("{id}: invalid `profile`"))?,
    };
    let inputs: Vec<&str> = ["input", "input_base64", "input_file"]
        .into_iter()
        .filter(|k| v.get(k).is_some())
        .collect();
    if inputs.len() != 1 {
        return Err(format!(
            "{id}: exactly one of input, input_base64, input_file is required"
        ));
    }
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .ok_or(format!("{id}: `{k}` must be a string"))
    };
    let input = match inputs[0] {
        "input" => text("input")?.as_bytes().to_vec(),
        "input_base64" => base64_decode(text("input_base64")?).map_err(|e| format!("{id}: {e}"))?,
        _ => {
            let path = file
                .parent()
                .expect("vector file has a directory")
                .join(text("input_file")?);
            std::fs::read(&path).map_err(|e| format!("{id}: {}: {e}", path.display()))?
        }
    };
    let checks = v
        .get("checks")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
        .ok_or(format!("{id}: `checks` must be a non-empty array"))?;
    let mut out = Vec::new();
    for (i, c) in checks.iter().enumerate() {
        let what = format!("{id} check {i}");
        let cobj = c
            .as_object()
            .ok_or(format!("{what}: a check must be an object"))?;
        check_fields(cobj, &["op", "expect"], &what)?;
        let op = Operation::from_json(c.get("op").unwrap_or(&Value::Null))
            .map_err(|e| format!("{what}: {e}"))?;
        let expect = read_expect(
            c.get("expect").ok_or(format!("{what}: missing `expect`"))?,
            &what,
        )?;
        out.push((op, expect));
    }
    Ok(Case {
        id,
        input,
        profile,
        checks: out,
    })
}

fn load_all() -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    let root = conformance_dir();
    for file in vector_files() {
        let group = file
            .strip_prefix(&root)
            .expect("under conformance/")
            .with_extension("")
            .to_string_lossy()
            .replace('\\', "/");
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let doc = match json::parse(&text) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let list = match (doc.as_object(), doc.get("cases").and_then(Value::as_array)) {
            (Some(top), Some(list)) if top.len() == 1 => list,
            _ => {
                problems.push(format!(
                    "{group}: a vector file is exactly {{\"cases\": [...]}}"
                ));
                continue;
            }
        };
        for c in list {
            match read_case(&group, &file, c) {
                Ok(case) => cases.push(case),
                Err(e) => problems.push(e),
            }
        }
    }
    (cases, problems)
}

fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out: String = s.chars().take(120).flat_map(char::escape_debug).collect();
    if s.chars().count() > 120 {
        out.push('…');
    }
    out
}

fn run_case(case: &Case) -> Vec<String> {
    let mut fails = Vec::new();
    for (op, expect) in &case.checks {
        let got = ops::execute(op, &case.input, case.profile);
        let got = match got {
            Ok(v) => Ok(v),
            Err(ReadError::Invalid(e)) => Err(e),
            Err(ReadError::Io(e)) => {
                fails.push(format!("{}: I/O error {e}", case.id));
                continue;
            }
        };
        match (expect, got) {
            (Expect::Result { value, sha256 }, Ok(v)) => {
                if !v.same(value) {
                    fails.push(format!(
                        "{}: input {}\n    expected {}\n    got      {}",
                        case.id,
                        show(&case.input),
                        show(json_text(value).as_bytes()),
                        show(json_text(&v).as_bytes())
                    ));
                }
                if let (Some(want), Some(text)) = (sha256, v.as_str()) {
                    let have = sha256_hex(text.as_bytes());
                    if &have != want {
                        fails.push(format!(
                            "{}: sha256 of the canonical text is {have}, expected {want}",
                            case.id
                        ));
                    }
                }
                if let (Some(want), Some(text)) = (sha256, value.as_str()) {
                    if &sha256_hex(text.as_bytes()) != want {
                        fails.push(format!(
                            "{}: the vector's sha256 does not match its own `result`",
                            case.id
                        ));
                    }
                }
            }
            (
                Expect::Error {
                    codes,
                    line,
                    sequence,
                },
                Err(e),
            ) => {
                if !codes.iter().any(|c| c == e.code.as_str()) {
                    fails.push(format!(
                        "{}: input {}\n    expected error {}\n    got error      {} ({})",
                        case.id,
                        show(&case.input),
                        codes.join(" | "),
                        e.code,
                        e.message
                    ));
                }
                if let Some(l) = line {
                    if e.line.map(|x| x as i64) != Some(*l) {
                        fails.push(format!(
                            "{}: expected error line {l}, got {:?}",
                            case.id, e.line
                        ));
                    }
                }
                if let Some(s) = sequence {
                    if e.sequence != Some(*s) {
                        fails.push(format!(
                            "{}: expected error sequence {s}, got {:?}",
                            case.id, e.sequence
                        ));
                    }
                }
            }
            (Expect::Result { value, .. }, Err(e)) => fails.push(format!(
                "{}: input {}\n    expected {}\n    got error {} ({})",
                case.id,
                show(&case.input),
                show(json_text(value).as_bytes()),
                e.code,
                e.message
            )),
            (Expect::Error { codes, .. }, Ok(v)) => fails.push(format!(
                "{}: input {}\n    expected error {}\n    got {}",
                case.id,
                show(&case.input),
                codes.join(" | "),
                show(json_text(&v).as_bytes())
            )),
        }
    }
    fails
}

/// A value for display: a string result is shown as its text.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => journal_conformance::canonical::to_string(other),
    }
}

#[test]
fn canonical_vectors_pass() {
    let (cases, mut problems) = load_all();
    let mut ids = BTreeSet::new();
    for c in &cases {
        if !ids.insert(c.id.as_str()) {
            problems.push(format!("{}: duplicate case id", c.id));
        }
    }
    if cases.len() < MIN_CASES {
        problems.push(format!(
            "only {} canonical cases; at least {MIN_CASES} are required",
            cases.len()
        ));
    }
    let mut failures = Vec::new();
    for c in &cases {
        failures.extend(run_case(c));
    }
    let mut report = String::new();
    if !problems.is_empty() {
        report.push_str(&format!("{} vector file problem(s):\n", problems.len()));
        for p in &problems {
            report.push_str(&format!("  {p}\n"));
        }
    }
    if !failures.is_empty() {
        report.push_str(&format!(
            "{} of {} cases' checks failed:\n",
            failures.len(),
            cases.len()
        ));
        for f in &failures {
            report.push_str(&format!("  {f}\n"));
        }
    }
    assert!(report.is_empty(), "{report}");
    eprintln!("{} canonical vectors passed", cases.len());
}

#[test]
fn base64_decoder() {
    assert_eq!(base64_decode("").unwrap(), b"");
    assert_eq!(base64_decode("Zg==").unwrap(), b"f");
    assert_eq!(base64_decode("Zm8=").unwrap(), b"fo");
    assert_eq!(base64_decode("Zm9v").unwrap(), b"foo");
    assert_eq!(base64_decode("77u/e30=").unwrap(), b"\xef\xbb\xbf{}");
    assert!(base64_decode("Zm9").is_err());
    assert!(base64_decode("Z===").is_err());
    assert!(base64_decode("Zg==Zm9v").is_err());
    assert!(base64_decode("Zm9*").is_err());
}
