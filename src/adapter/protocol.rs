//! Protocol 1's messages (SPEC.md 13.1 and 13.2), typed, for both sides: the requests
//! the runner sends (`start`, `run`, `stop`) and `serve` reads, the replies `serve`
//! writes and the runner judges, and the one-shot encoding (arguments in, exit status
//! and stdout out). The parsers of replies are pure and fuzzed.

use base64::Engine;

use super::{ImplInfo, Reply};
use crate::json::{self, Value};
use crate::ops::Operation;
use crate::ops::Profile;
use crate::verdict::Answer;

/// Protocol version spoken by this kit.
pub const PROTOCOL: i64 = 1;

/// A request of protocol 1, as the runner sends it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Request<'a> {
    /// A-START-1: the handshake.
    Start,
    /// A-RUN-1: one check.
    Run {
        id: i64,
        op: &'a Operation,
        profile: Profile,
        input: &'a [u8],
    },
    /// A-STOP-1.
    Stop,
}

impl Request<'_> {
    /// The request object, exactly as the runner sends it.
    pub fn to_json(&self) -> Value {
        match self {
            Request::Start => Value::object([
                ("cmd", Value::from("start")),
                ("protocol", Value::from_i64(PROTOCOL)),
            ]),
            Request::Run {
                id,
                op,
                profile,
                input,
            } => Value::object([
                ("cmd", Value::from("run")),
                ("id", Value::from_i64(*id)),
                ("op", op.to_json()),
                ("profile", Value::from(profile.as_str())),
                (
                    "input_base64",
                    Value::from(base64::engine::general_purpose::STANDARD.encode(input)),
                ),
            ]),
            Request::Stop => Value::object([("cmd", Value::from("stop"))]),
        }
    }

    /// The request as one line (canonical JSON and `\n`).
    pub fn line(&self) -> Vec<u8> {
        let mut line = crate::canonical::to_string(&self.to_json()).into_bytes();
        line.push(b'\n');
        line
    }
}

/// A request line as an adapter (`serve`) reads it (A-REQ-1): what it asks for, or why
/// it cannot be answered. `id` is the request's, `null` when it has none.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    Start {
        id: Value,
    },
    Stop,
    Run {
        id: Value,
        op: Operation,
        profile: Profile,
        input: Vec<u8>,
    },
    /// An operation or profile this kit does not know (A-SKIP-1): `unsupported`.
    Unsupported {
        id: Value,
    },
    /// Not a request of protocol 1: `invalid_request`.
    Invalid {
        id: Value,
        message: String,
    },
}

/// Read one request line (A-RUN-1): with room above C-DEPTH-1, since a request carries
/// its data a few levels down (a tree step's message sits 4 levels deep).
pub fn parse_request(bytes: &[u8]) -> Result<Value, crate::error::Error> {
    json::parse_with_max_depth(json::utf8(bytes)?, crate::vectors::VECTOR_FILE_MAX_DEPTH)
}

/// Decode a request line: strict JSON (a repeated member is invalid), then its `cmd`.
/// A `run` whose operation names no operation of protocol 1, or whose profile is a
/// string naming none, is unsupported; one without a valid operation or input is invalid.
pub fn decode_request(bytes: &[u8]) -> Incoming {
    let msg = match parse_request(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                message: e.to_string(),
            }
        }
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    match msg.get("cmd").and_then(Value::as_str) {
        Some("start") => Incoming::Start { id },
        Some("stop") => Incoming::Stop,
        Some("run") => decode_run(&msg, id),
        _ => Incoming::Invalid {
            id,
            message: "unknown cmd".into(),
        },
    }
}

fn decode_run(msg: &Value, id: Value) -> Incoming {
    let unknown_op = msg
        .get("op")
        .and_then(|o| o.get("op"))
        .and_then(Value::as_str)
        .is_some_and(|name| crate::ops::OpKind::parse(name).is_none());
    if unknown_op {
        return Incoming::Unsupported { id };
    }
    let op = msg.get("op").map(Operation::from_json);
    // A profile that is not a string reads as the default, `core`.
    let profile = msg
        .get("profile")
        .and_then(Value::as_str)
        .map_or(Some(Profile::Core), Profile::parse);
    let input = msg
        .get("input_base64")
        .and_then(Value::as_str)
        .map(|b| base64::engine::general_purpose::STANDARD.decode(b));
    match (op, profile, input) {
        (Some(Ok(op)), Some(profile), Some(Ok(input))) => Incoming::Run {
            id,
            op,
            profile,
            input,
        },
        (Some(Ok(_)), None, _) => Incoming::Unsupported { id },
        _ => Incoming::Invalid {
            id,
            message: "malformed run request".into(),
        },
    }
}

/// An adapter's answer to a `run`, as `serve` writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    Answer(Answer),
    Unsupported,
    /// The adapter could not run the check (`internal_error`) or read the request
    /// (`invalid_request`).
    Failed {
        code: &'static str,
        message: String,
    },
}

impl Response {
    /// The reply object to request `id`.
    pub fn to_json(&self, id: Value) -> Value {
        match self {
            Response::Answer(Answer::Result(v)) => {
                Value::object([("id", id), ("result", v.clone())])
            }
            Response::Answer(a @ Answer::Error { .. }) => {
                let mut m = vec![("id".to_owned(), id)];
                if let Value::Object(e) = a.to_json() {
                    m.extend(e);
                }
                Value::Object(m)
            }
            Response::Unsupported => {
                Value::object([("id", id), ("unsupported", Value::Bool(true))])
            }
            Response::Failed { code, message } => Value::object([
                ("id", id),
                (
                    "error",
                    Value::object([
                        ("code", Value::from(*code)),
                        ("message", Value::from(message.as_str())),
                    ]),
                ),
            ]),
        }
    }
}

/// The handshake reply (A-START-1) describing `info`.
pub fn handshake(info: &ImplInfo) -> Value {
    let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
    Value::object([
        ("protocol", Value::from_i64(PROTOCOL)),
        (
            "implementation",
            Value::object([
                ("name", Value::from(info.name.as_str())),
                ("version", Value::from(info.version.as_str())),
                ("language", Value::from(info.language.as_str())),
            ]),
        ),
        ("operations", strs(&info.operations)),
        ("profiles", strs(&info.profiles)),
    ])
}

/// Parse an error object (O-ERR-1) from an adapter.
fn answer_error(e: &Value) -> Result<Answer, String> {
    let code = e
        .get("code")
        .and_then(Value::as_str)
        .ok_or("error object without a string `code`")?;
    let int = |k: &str| e.get(k).and_then(Value::as_i64);
    Ok(Answer::Error {
        code: code.to_owned(),
        // A negative line or index is no location at all (O-ERR-1: line >= 1, index >= 0).
        line: int("line")
            .and_then(|l| u64::try_from(l).ok())
            .filter(|l| *l >= 1),
        sequence: int("sequence"),
        index: int("index").and_then(|i| u64::try_from(i).ok()),
        message: e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    })
}

/// Parse one reply line as a JSON object.
fn parse_reply_line(line: &[u8], max_values: usize) -> Result<Value, String> {
    // A reply carries an answer two levels down (`{"id":..,"result":..}`), and an answer
    // carries journal data further down (a ReplayState's tool result, a store_apply's
    // results): read with the room of a document that carries data (SPEC.md 16.5).
    let v = json::parse_bytes_within_depth(line, max_values, crate::vectors::VECTOR_FILE_MAX_DEPTH)
        .map_err(|e| {
            format!(
                "adapter wrote a line that is not JSON ({e}): {}",
                crate::error::shorten(line, 120)
            )
        })?;
    if v.as_object().is_none() {
        return Err(format!(
            "adapter wrote a non-object line: {}",
            crate::error::shorten(line, 120)
        ));
    }
    Ok(v)
}

fn parse_handshake(v: &Value) -> Result<ImplInfo, String> {
    let proto = v.get("protocol").and_then(Value::as_i64);
    if proto != Some(PROTOCOL) {
        return Err(format!(
            "adapter speaks protocol {}; this runner speaks {PROTOCOL}",
            proto.map_or("(none)".into(), |p| p.to_string())
        ));
    }
    let imp = v
        .get("implementation")
        .ok_or("handshake without `implementation`")?;
    let s = |k: &str| {
        let t = imp.get(k).and_then(Value::as_str).unwrap_or("");
        crate::error::shorten(t.as_bytes(), 200)
    };
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(ImplInfo {
        name: s("name"),
        version: s("version"),
        language: s("language"),
        operations: list("operations"),
        profiles: list("profiles"),
    })
}

/// Parse a handshake line (A-START-1). Pure: used by the runner and the fuzz target.
pub fn parse_handshake_line(line: &[u8]) -> Result<ImplInfo, String> {
    parse_reply_line(line, json::MAX_VALUES).and_then(|v| parse_handshake(&v))
}

/// Judge one persistent reply line to the request `id` (A-RUN-1, A-FAULT-1). Pure:
/// used by the runner and the fuzz target.
pub fn parse_run_reply(line: &[u8], id: i64) -> Reply {
    parse_run_reply_within(line, id, json::MAX_VALUES)
}

/// [`parse_run_reply`] with the reply's value budget (one job's share, SPEC.md 16.5).
pub fn parse_run_reply_within(line: &[u8], id: i64, max_values: usize) -> Reply {
    let v = match parse_reply_line(line, max_values) {
        Ok(v) => v,
        Err(e) => return Reply::Fault(e),
    };
    if v.get("id").and_then(Value::as_i64) != Some(id) {
        return Reply::Fault(format!(
            "answer for id {} to request id {id}: {}",
            v.get("id")
                .map_or("(none)".into(), |i| crate::error::shorten(
                    crate::canonical::to_string(i).as_bytes(),
                    40
                )),
            crate::error::shorten(line, 120)
        ));
    }
    if v.get("result").is_some() && v.get("error").is_some() {
        // The schema says oneOf: an answer that is both is a protocol error (A-RUN-1).
        Reply::Fault("answer has both `result` and `error`".into())
    } else if let Some(r) = v.get("result") {
        Reply::Answer(Answer::Result(r.clone()))
    } else if let Some(e) = v.get("error") {
        match answer_error(e) {
            Ok(a) => Reply::Answer(a),
            Err(m) => Reply::Fault(m),
        }
    } else if v.get("unsupported") == Some(&Value::Bool(true)) {
        Reply::Unsupported
    } else {
        Reply::Fault("answer has neither `result`, `error` nor `unsupported`".into())
    }
}

/// Judge a one-shot run by its exit (A-ONESHOT-1): `exit` is the exit code (`None`
/// when killed by a signal, described by `how`), `stdout` what it printed. Pure: used
/// by the runner and the fuzz target.
pub fn judge_one_shot(exit: Option<i32>, how: &str, stdout: &[u8]) -> Reply {
    judge_one_shot_within(exit, how, stdout, json::MAX_VALUES)
}

/// [`judge_one_shot`] with the output's value budget (one job's share, SPEC.md 16.5).
pub fn judge_one_shot_within(
    exit: Option<i32>,
    how: &str,
    stdout: &[u8],
    max_values: usize,
) -> Reply {
    let parsed = || {
        json::parse_bytes_within_depth(stdout, max_values, crate::vectors::VECTOR_FILE_MAX_DEPTH)
            .map_err(|e| {
                format!(
                    "stdout is not one JSON value ({e}): {}",
                    crate::error::shorten(stdout, 120)
                )
            })
    };
    match exit {
        Some(0) => match parsed() {
            Ok(v) => Reply::Answer(Answer::Result(v)),
            Err(e) => Reply::Fault(format!("exit 0 but {e}")),
        },
        Some(1) => match parsed().and_then(|v| answer_error(&v)) {
            Ok(a) => Reply::Answer(a),
            Err(e) => Reply::Fault(format!("exit 1 but {e}")),
        },
        Some(3) => Reply::Unsupported,
        _ => Reply::Fault(format!("the adapter {how}")),
    }
}

/// One-shot arguments for an operation.
pub fn oneshot_args(op: &Operation, profile: Profile) -> Vec<String> {
    let mut a = vec![op.name().to_owned()];
    match op {
        Operation::Replay { until: Some(u) } | Operation::Fingerprint { until: Some(u) } => {
            a.extend(["--until".into(), u.to_string()]);
        }
        Operation::TreeApply { steps } => {
            let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
            a.extend(["--ops".into(), crate::canonical::to_string(&ops)]);
        }
        Operation::StoreApply { steps } => {
            let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
            a.extend(["--steps".into(), crate::canonical::to_string(&ops)]);
        }
        Operation::Branch { at, branch_id } => {
            a.extend([
                "--at".into(),
                at.to_string(),
                "--branch-id".into(),
                branch_id.clone(),
            ]);
        }
        _ => {}
    }
    a.extend(["--profile".into(), profile.as_str().into()]);
    a
}
