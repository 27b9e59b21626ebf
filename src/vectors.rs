//! Conformance vectors (SPEC.md section "Conformance vectors", rules `V-*`).
//!
//! This module owns the vector file format, documented field by field in SPEC.md and
//! `conformance/README.md`: loading and strictly checking vector files (unknown fields
//! are errors), resolving each case's exact input bytes, writing cases back (shrunk
//! counterexamples), and the corpus embedded in the binary so `journal-conformance test`
//! works from any directory. Whether an answer meets a check's [`Expect`] is
//! [`crate::verdict::judge`]'s.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::json::{self, Value};
use crate::ops::{Operation, Profile};
use crate::verdict::Expect;

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
        let case = parse_case(c, i, group, read_file)?;
        if out.iter().any(|x| x.name == case.name) {
            return err(&case.id, "duplicate case name in this file");
        }
        out.push(case);
    }
    Ok(out)
}

/// Case `#i` of group `group`'s file.
fn parse_case(
    c: &Value,
    i: usize,
    group: &str,
    read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Case, String> {
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
    let (input, input_form) = parse_input(c, &where_, read_file)?;
    let checks = parse_checks(c, &where_)?;
    Ok(Case {
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
    })
}

/// A case's input bytes: exactly one of `input`, `input_base64`, `input_file`.
fn parse_input(
    c: &Value,
    where_: &str,
    read_file: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<(Vec<u8>, InputForm), String> {
    Ok(
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
            _ => {
                return err(
                    where_,
                    "exactly one of `input`, `input_base64`, `input_file` (a string) is required",
                )
            }
        },
    )
}

/// A case's checks: at least one `{"op":...,"expect":...}`.
fn parse_checks(c: &Value, where_: &str) -> Result<Vec<Check>, String> {
    let checks_v = c
        .get("checks")
        .and_then(Value::as_array)
        .ok_or(format!("{where_}: `checks` must be an array"))?;
    if checks_v.is_empty() {
        return err(where_, "`checks` must not be empty");
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
    Ok(checks)
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
        let bytes = read_regular(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", path.display()))?;
        let dir = path.parent().unwrap().to_path_buf();
        let read = |f: &str| read_input_file(root, &dir, f);
        cases.extend(parse_file(&text, &group_of(&rel).unwrap(), &read)?);
    }
    check_unique(&cases)?;
    Ok(cases)
}

/// A corpus file's bytes: a regular file (a FIFO or a device is refused, never waited on
/// or read forever), read through the line bound (SPEC.md 16.5).
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let f = crate::fsutil::open_regular(path)?;
    crate::wire::read_bounded(
        std::io::BufReader::new(f),
        crate::wire::DEFAULT_MAX_LINE_BYTES,
    )
}

/// An `input_file` (V-CASE-1): relative to the vector file's directory, and it must
/// resolve inside the corpus directory `root` (no `..` out of it, no absolute path, no
/// symlink out of it) to a regular file.
fn read_input_file(root: &Path, dir: &Path, f: &str) -> Result<Vec<u8>, String> {
    let inside = |p: &Path| -> std::io::Result<bool> {
        Ok(p.canonicalize()?.starts_with(root.canonicalize()?))
    };
    let path = dir.join(f);
    match inside(&path) {
        Ok(true) => read_regular(&path).map_err(|e| e.to_string()),
        Ok(false) => {
            Err("resolves outside the corpus directory; an input file must be inside it".into())
        }
        Err(e) => Err(e.to_string()),
    }
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
