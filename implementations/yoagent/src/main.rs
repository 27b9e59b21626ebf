//! `yoagent-adapter`: the journal-conformance adapter (protocol 1, persistent mode;
//! SPEC.md section 13.1) over the real yoagent 0.26 `Session`. It offers `tree_inspect`
//! and `tree_apply` in the `yoagent-0.26` tree dialect and answers `unsupported` to
//! everything else.
//!
//! Run the kit against it:
//! `journal-conformance test --adapter "PATH/TO/yoagent-adapter" tree-yoagent/`

use std::io::{BufRead, Write};

use base64::Engine;
use serde_json::{json, Value};

fn reply(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_string(v).expect("a reply serialises");
    line.push('\n');
    out.write_all(line.as_bytes())?;
    out.flush()
}

fn invalid(id: Value, msg: impl Into<String>) -> Value {
    json!({"id": id, "error": {"code": "invalid_request", "message": msg.into()}})
}

fn answer(msg: &Value) -> Value {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let Some(op) = msg.get("op") else {
        return invalid(id, "a run request needs `op`");
    };
    if msg.get("profile").and_then(Value::as_str) != Some(yoagent_adapter::PROFILE) {
        return json!({"id": id, "unsupported": true});
    }
    let input = match msg
        .get("input_base64")
        .and_then(Value::as_str)
        .map(|b| base64::engine::general_purpose::STANDARD.decode(b))
    {
        Some(Ok(b)) => b,
        _ => return invalid(id, "`input_base64` must be standard base64"),
    };
    // yoagent panics nowhere on these paths that we know of; if it ever does, the
    // check fails as an internal error instead of killing the session.
    let run = std::panic::catch_unwind(|| yoagent_adapter::run(op, &input));
    match run {
        Ok(None) => json!({"id": id, "unsupported": true}),
        Ok(Some(Ok(result))) => json!({"id": id, "result": result}),
        Ok(Some(Err(f))) => json!({"id": id, "error": f.to_json()}),
        Err(_) => {
            json!({"id": id, "error": {"code": "internal_error", "message": "yoagent panicked"}})
        }
    }
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let msg: Value = match yoagent_adapter::read_request(&line) {
            Ok(v) => v,
            Err(e) => {
                reply(&mut out, &invalid(Value::Null, format!("not JSON: {e}")))?;
                continue;
            }
        };
        match msg.get("cmd").and_then(Value::as_str) {
            Some("start") => reply(
                &mut out,
                &json!({
                    "protocol": 1,
                    "implementation": {
                        "name": "yoagent Session (yoagent-adapter)",
                        "version": "0.26.6",
                        "language": "rust",
                        "homepage": "https://crates.io/crates/yoagent"
                    },
                    "operations": ["tree_inspect", "tree_apply"],
                    "profiles": [yoagent_adapter::PROFILE]
                }),
            )?,
            Some("stop") => return Ok(()),
            Some("run") => reply(&mut out, &answer(&msg))?,
            _ => reply(
                &mut out,
                &invalid(
                    msg.get("id").cloned().unwrap_or(Value::Null),
                    "unknown `cmd`",
                ),
            )?,
        }
    }
    Ok(())
}
