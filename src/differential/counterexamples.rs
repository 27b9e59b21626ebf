//! A kind's counterexample as a portable vector (SPEC.md 13.6): its id
//! `properties/<op>/<8 hex>`, its description, and the vector files
//! `<dir>/properties/<op>.json` that `--counterexamples DIR` writes, and the kinds every
//! run keeps ([`kept_dir`], [`keep_kinds`], [`find_kept`]) so that every id a run prints
//! can be shown (`journal-conformance show properties/<op>/<8 hex>`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::attribute::is_known;
use super::{DiffOptions, Found, Kind};
use crate::ops::Operation;
use crate::rules::{id, Rule};
use crate::vectors::{self, Case, Check, InputForm, Level};

fn short_id(op: &Operation, input: &[u8]) -> String {
    let mut bytes = crate::canonical::to_string(&op.to_json()).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(input);
    crate::fingerprint::sha256_hex(&bytes)[..8].to_owned()
}

/// The fallback rule of a vector whose disagreement names none: the operation's.
pub(crate) fn op_rule(op: &Operation) -> Rule {
    match op {
        Operation::Canonical => id::O_CANON_1,
        Operation::TreeInspect | Operation::TreeApply { .. } => id::T_OPS_1,
        Operation::StoreApply { .. } => id::S_OPS_1,
        _ => id::O_JSON_1,
    }
}

/// The kind of a disagreement found (and maybe shrunk), with its counterexample.
pub fn make_kind(implementation: &str, opts: &DiffOptions, f: Found, shrunk: bool) -> Kind {
    let t = &f.trial;
    let d = &f.found;
    let op = t.op.name().to_owned();
    let hex = short_id(&t.op, &t.input);
    // A disagreement that names no rule is the operation's (D-ATTR-1), so that a skip
    // list can always record it and `--write-skip-file` always makes the next run pass.
    let rule = d.rule.unwrap_or_else(|| op_rule(&t.op));
    let known = is_known(opts.known_rules, &op, rule);
    let description = format!(
        "Found by {} against {implementation} ({} {}, seed {}{}), from {}: {} ({}): {}",
        opts.found_by,
        if opts.found_by.contains("fuzz") {
            "execution"
        } else {
            "generated case"
        },
        f.first_case,
        opts.seed,
        if shrunk { ", shrunk" } else { ", not shrunk" },
        t.origin,
        d.cause.as_str(),
        rule,
        crate::error::shorten(d.message.as_bytes(), 300)
    );
    let counterexample = Case {
        id: format!("properties/{op}/{hex}"),
        group: format!("properties/{op}"),
        name: hex.clone(),
        description,
        rules: vec![rule.id().to_owned()],
        tags: vec!["counterexample".into(), "properties".into()],
        level: Level::Must,
        profile: t.profile,
        input: t.input.clone(),
        input_form: InputForm::Text,
        checks: vec![Check {
            op: t.op.clone(),
            expect: f.want.clone(),
        }],
    };
    let explanation = format!(
        "{op}: {} ({}{}) in {} of the generated cases, first case {} (seed {}); {} input of {} bytes: {}",
        d.cause.as_str(),
        rule,
        if known { ", known: on the skip list" } else { "" },
        f.occurrences,
        f.first_case,
        opts.seed,
        if shrunk { "shrunk" } else { "unshrunk" },
        t.input.len(),
        d.message
    );
    Kind {
        id: counterexample.id.clone(),
        op,
        cause: d.cause,
        detail: d.detail.clone(),
        rule,
        known,
        occurrences: f.occurrences,
        first_case: f.first_case,
        seed: opts.seed,
        counterexample,
        path: None,
        explanation,
        shrunk,
        key: d.key(t.op.name()),
        consequences: Vec::new(),
    }
}

/// Two kinds cannot share an id (they could only if the implementation answered the
/// same check differently twice): the later gets a suffix.
pub fn dedupe_ids(kinds: &mut [Kind]) {
    let mut seen = BTreeSet::new();
    for k in kinds.iter_mut() {
        let mut n = 1;
        let base = k.counterexample.name.clone();
        while !seen.insert(k.counterexample.name.clone()) {
            n += 1;
            k.counterexample.name = format!("{base}-{n}");
        }
        k.counterexample.id = format!("{}/{}", k.counterexample.group, k.counterexample.name);
        k.id = k.counterexample.id.clone();
    }
}

/// Write the kinds as vector files `<dir>/properties/<op>.json` (one file per
/// operation, so a case's id in the file is its kind id): cases already in the file
/// are kept unless a kind has the same name. Written atomically.
pub fn write_kinds(dir: &Path, kinds: &mut [Kind]) -> Result<(), String> {
    let mut ops: Vec<String> = kinds.iter().map(|k| k.op.clone()).collect();
    ops.sort();
    ops.dedup();
    for op in ops {
        let sub = dir.join("properties");
        std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
        let path = sub.join(format!("{op}.json"));
        let group = format!("properties/{op}");
        let mut cases = match std::fs::read_to_string(&path) {
            Ok(text) => vectors::parse_file(&text, &group, &|f: &str| {
                Err(format!(
                    "{f}: counterexample files hold their inputs inline"
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        for k in kinds.iter_mut().filter(|k| k.op == op) {
            cases.retain(|c| c.name != k.counterexample.name);
            cases.push(k.counterexample.clone());
            k.path = Some(path.clone());
        }
        let mut text = crate::canonical::to_string(&vectors::to_file_json(&cases));
        text.push('\n');
        crate::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The environment variable naming the directory every run keeps its kinds in.
pub const KEPT_ENV: &str = "JOURNAL_CONFORMANCE_COUNTEREXAMPLES";

/// Where every run keeps the counterexample of each kind it reports (SPEC.md 13.6,
/// D-KEEP-1): `$JOURNAL_CONFORMANCE_COUNTEREXAMPLES`, else
/// `<temp dir>/journal-conformance-counterexamples`.
pub fn kept_dir() -> PathBuf {
    match std::env::var_os(KEPT_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => std::env::temp_dir().join("journal-conformance-counterexamples"),
    }
}

/// The file a kind is kept in: `<dir>/properties/<op>/<name>.json`, a vector file of
/// that one case. One file per kind, written atomically: a kind's id is a hash of its
/// operation and shrunk input, so runs at the same time write the same bytes to the same
/// file and never lose each other's kinds.
fn kept_file(dir: &Path, op: &str, name: &str) -> Option<PathBuf> {
    let safe = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    (safe(op) && safe(name)).then(|| dir.join("properties").join(op).join(format!("{name}.json")))
}

/// Keep every kind's counterexample in `dir` ([`kept_dir`]).
pub fn keep_kinds(dir: &Path, kinds: &[Kind]) -> Result<(), String> {
    for k in kinds {
        let Some(path) = kept_file(dir, &k.op, &k.counterexample.name) else {
            continue;
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let mut text = crate::canonical::to_string(&vectors::to_file_json(std::slice::from_ref(
            &k.counterexample,
        )));
        text.push('\n');
        crate::fsutil::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The kept counterexample of `id` (`properties/<op>/<name>`) in `dir`, if a run kept it.
pub fn find_kept(dir: &Path, id: &str) -> Result<Option<Case>, String> {
    let Some((op, name)) = id
        .strip_prefix("properties/")
        .and_then(|rest| rest.split_once('/'))
    else {
        return Ok(None);
    };
    let Some(path) = kept_file(dir, op, name) else {
        return Ok(None);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let cases = vectors::parse_file(&text, &format!("properties/{op}"), &|f: &str| {
        Err(format!(
            "{f}: counterexample files hold their inputs inline"
        ))
    })
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(cases.into_iter().find(|c| c.id == id))
}
