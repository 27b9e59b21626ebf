//! A campaign's corpus directory (SPEC.md 13.7, `FZ-CORPUS-1`): every kept input is a
//! conformance vector of one case, `<dir>/<op>/<8 hex>.json`, with the reference's
//! answer as its expectation (so the directory is also a corpus `test --corpus` runs),
//! written atomically when it is kept; and `<dir>/campaign.state`, the executions done,
//! so a resumed campaign goes on from there instead of starting over.

use std::path::Path;

use crate::differential::Trial;
use crate::json::Value;
use crate::vectors::{self, Case, Check, InputForm, Level};
use crate::verdict::Expect;

/// The state file's name (not a vector file: it does not end in `.json`).
pub const STATE: &str = "campaign.state";

fn hex_of(t: &Trial) -> String {
    let mut bytes = crate::canonical::to_string(&t.op.to_json()).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(t.profile.as_str().as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(&t.input);
    crate::fingerprint::sha256_hex(&bytes)[..8].to_owned()
}

/// The rule a kept input is filed under: its error's, or its operation's.
fn rule_of(t: &Trial, want: &Expect) -> String {
    if let Expect::Error { codes, .. } = want {
        if let Some(r) = codes
            .first()
            .and_then(|c| crate::error::ErrorCode::from_str_code(c))
            .and_then(|c| crate::rules::Rule::parse(c.rule()))
        {
            return r.id().to_owned();
        }
    }
    crate::differential::counterexamples::op_rule(&t.op)
        .id()
        .to_owned()
}

/// Keep `t` in `dir` (a no-op when an entry of the same bytes is there).
pub fn save(dir: &Path, t: &Trial, want: &Expect) -> Result<(), String> {
    let op = t.op.name();
    let hex = hex_of(t);
    let sub = dir.join(op);
    let path = sub.join(format!("{hex}.json"));
    if path.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
    let case = Case {
        id: format!("{op}/{hex}/input"),
        group: format!("{op}/{hex}"),
        name: "input".into(),
        description: format!("kept by a fuzz campaign: {}", t.origin),
        rules: vec![rule_of(t, want)],
        tags: vec!["fuzz-corpus".into()],
        level: Level::Must,
        profile: t.profile,
        input: t.input.clone(),
        input_form: InputForm::Text,
        checks: vec![Check {
            op: t.op.clone(),
            expect: want.clone(),
        }],
    };
    let mut text = crate::canonical::to_string(&vectors::to_file_json(&[case]));
    text.push('\n');
    crate::fsutil::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The trials of a corpus (every check of every case), in the corpus's order.
pub fn trials_of(cases: &[Case]) -> Vec<Trial> {
    let mut out = Vec::new();
    for c in cases {
        for check in &c.checks {
            out.push(Trial::plain(
                c.input.clone(),
                check.op.clone(),
                c.profile,
                format!("corpus case {}", c.id),
            ));
        }
    }
    out
}

/// The inputs kept in `dir` (none when it does not exist yet).
pub fn load(dir: &Path) -> Result<Vec<Trial>, String> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    Ok(trials_of(&vectors::load_dir(dir)?))
}

/// The executions a campaign in `dir` has done (0 for a new one).
pub fn executions(dir: &Path) -> Result<u64, String> {
    let path = dir.join(STATE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let v = crate::json::parse(text.trim_end())
        .map_err(|e| format!("{}: not a campaign state: {e}", path.display()))?;
    v.get("executions")
        .and_then(Value::as_i64)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| format!("{}: no \"executions\" count", path.display()))
}

/// Record that a campaign in `dir` has done `n` executions.
pub fn record(dir: &Path, n: u64) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(STATE);
    let mut text =
        crate::canonical::to_string(&Value::object([("executions", Value::from_u64(n))]));
    text.push('\n');
    crate::fsutil::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}
