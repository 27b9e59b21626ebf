//! Operations as data (SPEC.md section "Operations", rules `O-*`).
//!
//! This module owns the kit's vocabulary of operations on a journal (`validate`,
//! `replay`, `fingerprint`, `branch`, `canonical`), their JSON spelling, and their
//! reference execution on exact input bytes. The golden traces, the conformance
//! vectors, the adapter protocol and the CLI all go through [`execute`], so every
//! surface of the kit agrees on what an operation returns.

use crate::branch;
use crate::error::{Error, ErrorCode};
use crate::event::Profile;
use crate::journal::{self, ReadError};
use crate::json::{self, Value};
use crate::replay;
use crate::{canonical, wire};

/// One operation with its arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Operation {
    /// `{"op":"validate"}` -> `{"event_count": N}`.
    Validate,
    /// `{"op":"replay","until":N?}` -> the ReplayState object.
    Replay { until: Option<i64> },
    /// `{"op":"fingerprint","until":N?}` -> the hex digest string.
    Fingerprint { until: Option<i64> },
    /// `{"op":"branch","at":N,"branch_id":ID}` -> the SessionBranch object.
    Branch { at: i64, branch_id: String },
    /// `{"op":"canonical"}`: the input is ONE JSON text -> its canonical text (a string).
    Canonical,
    /// `{"op":"tree_inspect"}`: the input is a tree file -> the inspect object.
    TreeInspect,
    /// `{"op":"tree_apply","ops":[STEP...]}` -> `{"results":[...],"tree":TEXT}`.
    TreeApply { steps: Vec<crate::tree::Step> },
    /// `{"op":"store_apply","steps":[STEP...]}` -> `{"recovered","results","journal"}`.
    StoreApply { steps: Vec<crate::store::StoreStep> },
}

impl Operation {
    /// The operation's name as spelled in vectors and the protocol.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Validate => "validate",
            Operation::Replay { .. } => "replay",
            Operation::Fingerprint { .. } => "fingerprint",
            Operation::Branch { .. } => "branch",
            Operation::Canonical => "canonical",
            Operation::TreeInspect => "tree_inspect",
            Operation::TreeApply { .. } => "tree_apply",
            Operation::StoreApply { .. } => "store_apply",
        }
    }

    /// The JSON spelling (`O-JSON-1`).
    pub fn to_json(&self) -> Value {
        let mut m = vec![("op".to_owned(), Value::from(self.name()))];
        match self {
            Operation::Replay { until } | Operation::Fingerprint { until } => {
                if let Some(u) = until {
                    m.push(("until".into(), Value::from_i64(*u)));
                }
            }
            Operation::Branch { at, branch_id } => {
                m.push(("at".into(), Value::from_i64(*at)));
                m.push(("branch_id".into(), Value::from(branch_id.as_str())));
            }
            Operation::TreeApply { steps } => {
                m.push((
                    "ops".into(),
                    Value::Array(steps.iter().map(|s| s.to_json()).collect()),
                ));
            }
            Operation::StoreApply { steps } => {
                m.push((
                    "steps".into(),
                    Value::Array(steps.iter().map(|s| s.to_json()).collect()),
                ));
            }
            // Listed one by one so a new operation cannot be forgotten here.
            Operation::Validate | Operation::Canonical | Operation::TreeInspect => {}
        }
        Value::Object(m)
    }

    /// Read the JSON spelling; unknown members are an error (`O-JSON-1`).
    pub fn from_json(v: &Value) -> Result<Operation, String> {
        let members = v.as_object().ok_or("an operation must be an object")?;
        let op = v
            .get("op")
            .and_then(Value::as_str)
            .ok_or("operation without a string `op`")?;
        let allowed: &[&str] = match op {
            "validate" | "canonical" | "tree_inspect" => &["op"],
            "tree_apply" => &["op", "ops"],
            "store_apply" => &["op", "steps"],
            "replay" | "fingerprint" => &["op", "until"],
            "branch" => &["op", "at", "branch_id"],
            other => return Err(format!("unknown operation {other:?}")),
        };
        if let Some((k, _)) = members.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(format!("operation {op:?} has no field {k:?}"));
        }
        let int = |k: &str| -> Result<Option<i64>, String> {
            match v.get(k) {
                None => Ok(None),
                Some(x) => x
                    .as_i64()
                    .map(Some)
                    .ok_or(format!("`{k}` must be an integer")),
            }
        };
        Ok(match op {
            "validate" => Operation::Validate,
            "canonical" => Operation::Canonical,
            "tree_inspect" => Operation::TreeInspect,
            "store_apply" => Operation::StoreApply {
                steps: v
                    .get("steps")
                    .and_then(Value::as_array)
                    .ok_or("store_apply needs an array `steps`")?
                    .iter()
                    .map(crate::store::StoreStep::from_json)
                    .collect::<Result<_, _>>()?,
            },
            "tree_apply" => Operation::TreeApply {
                steps: v
                    .get("ops")
                    .and_then(Value::as_array)
                    .ok_or("tree_apply needs an array `ops`")?
                    .iter()
                    .map(crate::tree::Step::from_json)
                    .collect::<Result<_, _>>()?,
            },
            "replay" => Operation::Replay {
                until: int("until")?,
            },
            "fingerprint" => Operation::Fingerprint {
                until: int("until")?,
            },
            _ => Operation::Branch {
                at: int("at")?.ok_or("branch needs `at`")?,
                branch_id: v
                    .get("branch_id")
                    .and_then(Value::as_str)
                    .ok_or("branch needs a string `branch_id`")?
                    .to_owned(),
            },
        })
    }
}

/// Parse one whole JSON text the way `canonical` reads it: wire rules for a single
/// value (`W-BOM-1`, `W-UTF8-1`) then `C-*`; surrounding JSON whitespace allowed.
pub fn parse_document(bytes: &[u8]) -> Result<Value, Error> {
    if bytes.starts_with(wire::BOM) {
        return Err(Error::new(
            ErrorCode::UnexpectedBom,
            "input starts with a UTF-8 byte order mark",
        )
        .at_line(1)
        .at_column(1));
    }
    // Errors carry a byte offset as their column; turn it into line and column.
    let text = json::utf8(bytes).map_err(|e| locate_in_document(e, bytes))?;
    json::parse(text).map_err(|e| locate_in_document(e, bytes))
}

fn locate_in_document(mut e: Error, bytes: &[u8]) -> Error {
    if let Some(col) = e.column {
        let offset = (col - 1) as usize;
        let before = &bytes[..offset.min(bytes.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        e.line = Some(line);
        e.column = Some((offset - line_start) as u64 + 1);
    }
    e
}

/// Run `op` on `input` with the reference implementation; the result is the JSON
/// value of SPEC.md `O-RESULT-1`, or the located error.
pub fn execute(op: &Operation, input: &[u8], profile: Profile) -> Result<Value, ReadError> {
    Ok(match op {
        Operation::Validate => {
            let n = journal::validate(input, profile)?;
            Value::object([("event_count", Value::from_u64(n))])
        }
        Operation::Replay { until } => replay::replay(input, profile, *until)?.to_json(),
        Operation::Fingerprint { until } => {
            Value::from(replay::replay(input, profile, *until)?.fingerprint)
        }
        Operation::Branch { at, branch_id } => {
            branch::branch(input, profile, *at, branch_id)?.to_json()
        }
        Operation::Canonical => Value::from(canonical::to_string(&parse_document(input)?)),
        Operation::TreeInspect if profile == Profile::Yoagent026 => {
            crate::tree::yoagent::Session::load(input)?.inspect()
        }
        Operation::TreeApply { steps } if profile == Profile::Yoagent026 => {
            crate::tree::yoagent::apply_all(input, steps)?
        }
        Operation::TreeInspect => crate::tree::Tree::load_shape(input)?.inspect(),
        Operation::TreeApply { steps } => crate::tree::apply_all(input, steps)?,
        Operation::StoreApply { steps } => crate::store::apply_steps(input, steps, profile)?,
    })
}
