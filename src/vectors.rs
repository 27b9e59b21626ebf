//! Conformance vectors (SPEC.md section "Conformance vectors", rules `V-*`).
//!
//! This module owns the vector file format, documented field by field in SPEC.md and
//! `conformance/README.md`: loading and strictly checking vector files (unknown fields
//! are errors), resolving each case's exact input bytes, matching an answer against
//! an expectation, and the corpus embedded in the binary so `journal-conformance test`
//! works from any directory.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::json::{self, Value};
use crate::ops::{Operation, Profile};

/// A case's requirement level (`V-LEVEL-1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Must,
    Should,
    ImplementationDefined,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::ImplementationDefined => "implementation-defined",
        }
    }

    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "must" => Some(Level::Must),
            "should" => Some(Level::Should),
            "implementation-defined" => Some(Level::ImplementationDefined),
            _ => None,
        }
    }
}

/// What a check expects (`V-EXPECT-1`).
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Result {
        value: Value,
        sha256: Option<String>,
    },
    Error {
        codes: Vec<String>,
        line: Option<u64>,
        sequence: Option<i64>,
        index: Option<u64>,
    },
}

impl Expect {
    pub fn to_json(&self) -> Value {
        match self {
            Expect::Result { value, sha256 } => {
                let mut m = vec![("result".to_owned(), value.clone())];
                if let Some(h) = sha256 {
                    m.push(("sha256".into(), Value::from(h.as_str())));
                }
                Value::Object(m)
            }
            Expect::Error {
                codes,
                line,
                sequence,
                index,
            } => {
                let code = if codes.len() == 1 {
                    Value::from(codes[0].as_str())
                } else {
                    Value::Array(codes.iter().map(|c| Value::from(c.as_str())).collect())
                };
                let mut e = vec![("code".to_owned(), code)];
                if let Some(l) = line {
                    e.push(("line".into(), Value::from_u64(*l)));
                }
                if let Some(s) = sequence {
                    e.push(("sequence".into(), Value::from_i64(*s)));
                }
                if let Some(i) = index {
                    e.push(("index".into(), Value::from_u64(*i)));
                }
                Value::object([("error", Value::Object(e))])
            }
        }
    }
}

/// One operation and its expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub op: Operation,
    pub expect: Expect,
}

/// How a case gave its input (kept so shrunk cases can be written back the same way).
#[derive(Clone, Debug, PartialEq)]
pub enum InputForm {
    Text,
    Base64,
    File(String),
}

/// One conformance case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `<group>/<name>`, stable forever.
    pub id: String,
    pub group: String,
    pub name: String,
    pub description: String,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub level: Level,
    pub profile: Profile,
    pub input: Vec<u8>,
    pub input_form: InputForm,
    pub checks: Vec<Check>,
}

/// An answer from an implementation to one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Result(Value),
    Error {
        code: String,
        line: Option<u64>,
        sequence: Option<i64>,
        index: Option<u64>,
        message: String,
    },
}

impl Answer {
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Result(v) => Value::object([("result", v.clone())]),
            Answer::Error {
                code,
                line,
                sequence,
                index,
                message,
            } => {
                let mut e = vec![
                    ("code".to_owned(), Value::from(code.as_str())),
                    ("line".to_owned(), line.map_or(Value::Null, Value::from_u64)),
                    (
                        "sequence".to_owned(),
                        sequence.map_or(Value::Null, Value::from_i64),
                    ),
                    ("message".to_owned(), Value::from(message.as_str())),
                ];
                if let Some(i) = index {
                    e.push(("index".into(), Value::from_u64(*i)));
                }
                Value::object([("error", Value::Object(e))])
            }
        }
    }
}

/// Why an answer does not match (`None` from [`compare`] means it matches).
pub fn compare(expect: &Expect, answer: &Answer) -> Option<String> {
    match (expect, answer) {
        (Expect::Result { value, sha256 }, Answer::Result(got)) => {
            if let Some(diff) = first_difference(value, got, String::new()) {
                return Some(diff);
            }
            if let (Some(h), Value::String(text)) = (sha256, got) {
                let got_h = crate::fingerprint::sha256_hex(text.as_bytes());
                if *h != got_h {
                    return Some(format!("sha256 of the result: expected {h}, got {got_h}"));
                }
            }
            None
        }
        (
            Expect::Result { .. },
            Answer::Error {
                code,
                line,
                message,
                ..
            },
        ) => Some(format!(
            "expected a result, got error `{code}` (line {}): {message}",
            line.map_or("-".into(), |l| l.to_string())
        )),
        (Expect::Error { codes, .. }, Answer::Result(got)) => Some(format!(
            "expected error `{}`, got a result: {}",
            codes.join("` or `"),
            crate::error::shorten(crate::canonical::to_string(got).as_bytes(), 200)
        )),
        (
            Expect::Error {
                codes,
                line,
                sequence,
                index,
            },
            Answer::Error {
                code,
                line: got_line,
                sequence: got_seq,
                index: got_index,
                ..
            },
        ) => {
            if !codes.iter().any(|c| c == code) {
                return Some(format!(
                    "expected error `{}`, got `{code}`",
                    codes.join("` or `")
                ));
            }
            if line.is_some() && line != got_line {
                return Some(format!(
                    "error `{code}`: expected at line {}, reported at {}",
                    line.unwrap(),
                    got_line.map_or("no line".into(), |l| format!("line {l}"))
                ));
            }
            if sequence.is_some() && sequence != got_seq {
                return Some(format!(
                    "error `{code}`: expected sequence {}, reported {}",
                    sequence.unwrap(),
                    got_seq.map_or("no sequence".into(), |s| format!("sequence {s}"))
                ));
            }
            if index.is_some() && index != got_index {
                return Some(format!(
                    "error `{code}`: expected index {}, reported {}",
                    index.unwrap(),
                    got_index.map_or("no index".into(), |s| format!("index {s}"))
                ));
            }
            None
        }
    }
}

/// The first place two JSON values differ, as a JSON Pointer with both sides.
pub fn first_difference(want: &Value, got: &Value, ptr: String) -> Option<String> {
    difference_at(want, got, ptr).map(|(p, what)| {
        let here = if p.is_empty() { "/" } else { p.as_str() };
        format!("{here}: {what}")
    })
}

/// The JSON Pointer (RFC 6901; `""` is the whole value) of the first place two JSON
/// values differ, in the order [`first_difference`] reports it.
pub fn first_difference_pointer(want: &Value, got: &Value) -> Option<String> {
    difference_at(want, got, String::new()).map(|(p, _)| p)
}

fn difference_at(want: &Value, got: &Value, ptr: String) -> Option<(String, String)> {
    let show = |v: &Value| crate::error::shorten(crate::canonical::to_string(v).as_bytes(), 200);
    let member = |k: &str| format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
    match (want, got) {
        (Value::Object(a), Value::Object(_)) => {
            for (k, v) in a {
                let p = member(k);
                match got.get(k) {
                    None => return Some((p, format!("missing (expected {})", show(v)))),
                    Some(w) => {
                        if let Some(d) = difference_at(v, w, p) {
                            return Some(d);
                        }
                    }
                }
            }
            for (k, w) in got.as_object().unwrap() {
                if want.get(k).is_none() {
                    return Some((member(k), format!("unexpected member (got {})", show(w))));
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = difference_at(x, y, format!("{ptr}/{i}")) {
                    return Some(d);
                }
            }
            if a.len() != b.len() {
                let what = format!("expected {} elements, got {}", a.len(), b.len());
                return Some((ptr, what));
            }
            None
        }
        _ if want.same(got) => None,
        _ => Some((ptr, format!("expected {}, got {}", show(want), show(got)))),
    }
}

fn err<T>(where_: &str, msg: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("{where_}: {msg}"))
}

fn strings(v: &Value, where_: &str, field: &str) -> Result<Vec<String>, String> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{where_}: `{field}` must be an array of strings"))?;
    arr.iter()
        .map(|x| {
            x.as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{where_}: `{field}` must be an array of strings"))
        })
        .collect()
}

fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

fn parse_expect(v: &Value, where_: &str) -> Result<Expect, String> {
    let members = v
        .as_object()
        .ok_or(format!("{where_}: `expect` must be an object"))?;
    for (k, _) in members {
        if !["result", "error", "sha256"].contains(&k.as_str()) {
            return err(where_, format!("unknown member `expect.{k}`"));
        }
    }
    match (v.get("result"), v.get("error")) {
        (Some(r), None) => Ok(Expect::Result {
            value: r.clone(),
            sha256: match v.get("sha256") {
                None => None,
                Some(h) => Some(
                    h.as_str()
                        .ok_or(format!("{where_}: `sha256` must be a string"))?
                        .to_owned(),
                ),
            },
        }),
        (None, Some(e)) => {
            let em = e
                .as_object()
                .ok_or(format!("{where_}: `expect.error` must be an object"))?;
            for (k, _) in em {
                if !["code", "line", "sequence", "index"].contains(&k.as_str()) {
                    return err(where_, format!("unknown member `expect.error.{k}`"));
                }
            }
            if v.get("sha256").is_some() {
                return err(where_, "`sha256` only goes with `result`");
            }
            let codes = match e.get("code") {
                Some(Value::String(s)) => vec![s.clone()],
                Some(a @ Value::Array(_)) => strings(a, where_, "code")?,
                _ => {
                    return err(
                        where_,
                        "`expect.error.code` must be a string or an array of strings",
                    )
                }
            };
            if codes.is_empty() {
                return err(where_, "`expect.error.code` lists no code");
            }
            let int = |k: &str| {
                e.get(k).map(|x| {
                    x.as_i64()
                        .ok_or(format!("{where_}: `{k}` must be an integer"))
                })
            };
            // `line` and `index` count from 1 and 0: a negative one is an error, not a
            // wrap-around to a huge u64 that to_file_json cannot write back.
            let uint = |k: &str| {
                e.get(k).map(|x| {
                    x.as_i64()
                        .and_then(|i| u64::try_from(i).ok())
                        .ok_or(format!("{where_}: `{k}` must be a non-negative integer"))
                })
            };
            Ok(Expect::Error {
                codes,
                line: uint("line").transpose()?,
                sequence: int("sequence").transpose()?,
                index: uint("index").transpose()?,
            })
        }
        _ => err(where_, "`expect` needs exactly one of `result` and `error`"),
    }
}

const CASE_FIELDS: &[&str] = &[
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
];

/// The nesting limit of a vector file (and of a protocol request, A-RUN-1): twice
/// C-DEPTH-1, enough for any message a vector can carry.
pub const VECTOR_FILE_MAX_DEPTH: usize = 2 * json::MAX_DEPTH;

/// Parse one vector file's text. `group` is its path under the corpus root without
/// `.json`; `dir` resolves `input_file` (`None` for embedded files: then `read_file`
/// supplies the bytes).
pub fn parse_file(
    text: &str,
    group: &str,
    read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Case>, String> {
    // A vector file nests its data up to 8 levels deep (a tree step's message sits in
    // cases/case/checks/check/op/ops/step), so it is read with room above C-DEPTH-1.
    let doc = json::parse_with_max_depth(text, VECTOR_FILE_MAX_DEPTH)
        .map_err(|e| format!("{group}.json: not valid JSON: {e} (line {:?})", e.line))?;
    let members = doc
        .as_object()
        .ok_or(format!("{group}.json: must be a JSON object"))?;
    if members.len() != 1 || members[0].0 != "cases" {
        return err(
            &format!("{group}.json"),
            "must have exactly one member, `cases`",
        );
    }
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .ok_or(format!("{group}.json: `cases` must be an array"))?;
    let mut out: Vec<Case> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let where0 = format!("{group}.json: case #{i}");
        let cm = c
            .as_object()
            .ok_or(format!("{where0}: must be an object"))?;
        for (k, _) in cm {
            if !CASE_FIELDS.contains(&k.as_str()) {
                return err(&where0, format!("unknown member `{k}`"));
            }
        }
        let name = c
            .get("name")
            .and_then(Value::as_str)
            .ok_or(format!("{where0}: `name` is required"))?;
        let where_ = format!("{group}/{name}");
        if !valid_name(name) {
            return err(&where_, "`name` must match [a-z0-9][a-z0-9._-]*");
        }
        if out.iter().any(|x| x.name == name) {
            return err(&where_, "duplicate case name in this file");
        }
        let description = c
            .get("description")
            .and_then(Value::as_str)
            .ok_or(format!("{where_}: `description` is required"))?
            .to_owned();
        let rules = strings(c.get("rules").unwrap_or(&Value::Null), &where_, "rules")?;
        if rules.is_empty() {
            return err(&where_, "`rules` must name at least one rule");
        }
        let tags = match c.get("tags") {
            None => vec![],
            Some(t) => strings(t, &where_, "tags")?,
        };
        let level = match c.get("level") {
            None => Level::Must,
            Some(l) => l.as_str().and_then(Level::parse).ok_or(format!(
                "{where_}: `level` must be must, should or implementation-defined"
            ))?,
        };
        let profile = match c.get("profile") {
            None => Profile::Core,
            Some(p) => p.as_str().and_then(Profile::parse).ok_or(format!(
                "{where_}: `profile` must be core, trace-0.1 or yoagent-0.26"
            ))?,
        };
        let (input, input_form) =
            match (c.get("input"), c.get("input_base64"), c.get("input_file")) {
                (Some(Value::String(s)), None, None) => (s.as_bytes().to_vec(), InputForm::Text),
                (None, Some(Value::String(b)), None) => (
                    base64::engine::general_purpose::STANDARD
                        .decode(b)
                        .map_err(|e| format!("{where_}: `input_base64`: {e}"))?,
                    InputForm::Base64,
                ),
                (None, None, Some(Value::String(f))) => (
                    read_file(f).map_err(|e| format!("{where_}: `input_file` {f:?}: {e}"))?,
                    InputForm::File(f.clone()),
                ),
                _ => return err(
                    &where_,
                    "exactly one of `input`, `input_base64`, `input_file` (a string) is required",
                ),
            };
        let checks_v = c
            .get("checks")
            .and_then(Value::as_array)
            .ok_or(format!("{where_}: `checks` must be an array"))?;
        if checks_v.is_empty() {
            return err(&where_, "`checks` must not be empty");
        }
        let mut checks = Vec::new();
        for (j, ch) in checks_v.iter().enumerate() {
            let wj = format!("{where_}: check #{j}");
            let chm = ch.as_object().ok_or(format!("{wj}: must be an object"))?;
            for (k, _) in chm {
                if k != "op" && k != "expect" {
                    return err(&wj, format!("unknown member `{k}`"));
                }
            }
            let op = Operation::from_json(ch.get("op").unwrap_or(&Value::Null))
                .map_err(|e| format!("{wj}: {e}"))?;
            let expect = parse_expect(ch.get("expect").unwrap_or(&Value::Null), &wj)?;
            checks.push(Check { op, expect });
        }
        out.push(Case {
            id: where_.clone(),
            group: group.to_owned(),
            name: name.to_owned(),
            description,
            rules,
            tags,
            level,
            profile,
            input,
            input_form,
            checks,
        });
    }
    Ok(out)
}

/// The vector corpus embedded at build time: `(path under conformance/, bytes)`.
pub const EMBEDDED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

fn group_of(rel: &str) -> Option<String> {
    rel.strip_suffix(".json").map(str::to_owned)
}

fn is_vector_file(rel: &str) -> bool {
    // Vector files are *.json; sidecar inputs and tool files are not.
    rel.ends_with(".json")
        && !rel
            .split('/')
            .any(|part| part.starts_with('.') || part == "tools")
}

/// Load the embedded corpus.
pub fn load_embedded() -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (rel, bytes) in EMBEDDED {
        if !is_vector_file(rel) {
            continue;
        }
        let group = group_of(rel).unwrap();
        let text = std::str::from_utf8(bytes).map_err(|_| format!("{rel}: not UTF-8"))?;
        let base = Path::new(rel)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let read = |f: &str| -> Result<Vec<u8>, String> {
            let p = normalize(&base.join(f));
            EMBEDDED
                .iter()
                .find(|(r, _)| Path::new(r) == p)
                .map(|(_, b)| b.to_vec())
                .ok_or_else(|| "no such file in the corpus".to_owned())
        };
        cases.extend(parse_file(text, &group, &read)?);
    }
    check_unique(&cases)?;
    Ok(cases)
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn check_unique(cases: &[Case]) -> Result<(), String> {
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("duplicate case id {}", w[0]));
    }
    Ok(())
}

/// Load every vector file under `root` (a directory laid out like `conformance/`).
pub fn load_dir(root: &Path) -> Result<Vec<Case>, String> {
    let mut files = Vec::new();
    walk(root, root, &mut files).map_err(|e| format!("{}: {e}", root.display()))?;
    files.sort();
    let mut cases = Vec::new();
    for rel in files {
        if !is_vector_file(&rel) {
            continue;
        }
        let path = root.join(&rel);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap().to_path_buf();
        let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| e.to_string());
        cases.extend(parse_file(&text, &group_of(&rel).unwrap(), &read)?);
    }
    check_unique(&cases)?;
    Ok(cases)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

/// Serialize cases of one group back to a vector file (used to write shrunk
/// counterexamples). Inputs are written as `input` when they are UTF-8 without a
/// BOM, otherwise as `input_base64`.
pub fn to_file_json(cases: &[Case]) -> Value {
    let arr = cases
        .iter()
        .map(|c| {
            let mut m: Vec<(String, Value)> = vec![
                ("name".into(), Value::from(c.name.as_str())),
                ("description".into(), Value::from(c.description.as_str())),
                (
                    "rules".into(),
                    Value::Array(c.rules.iter().map(|r| Value::from(r.as_str())).collect()),
                ),
            ];
            if !c.tags.is_empty() {
                m.push((
                    "tags".into(),
                    Value::Array(c.tags.iter().map(|r| Value::from(r.as_str())).collect()),
                ));
            }
            if c.level != Level::Must {
                m.push(("level".into(), Value::from(c.level.as_str())));
            }
            if c.profile != Profile::Core {
                m.push(("profile".into(), Value::from(c.profile.as_str())));
            }
            match std::str::from_utf8(&c.input) {
                Ok(s) if !s.starts_with('\u{feff}') => m.push(("input".into(), Value::from(s))),
                _ => m.push((
                    "input_base64".into(),
                    Value::from(base64::engine::general_purpose::STANDARD.encode(&c.input)),
                )),
            }
            m.push((
                "checks".into(),
                Value::Array(
                    c.checks
                        .iter()
                        .map(|ch| {
                            Value::object([
                                ("op", ch.op.to_json()),
                                ("expect", ch.expect.to_json()),
                            ])
                        })
                        .collect(),
                ),
            ));
            Value::Object(m)
        })
        .collect();
    Value::object([("cases", Value::Array(arr))])
}
