//! The event envelope (SPEC.md section "Event envelope", rules `E-*`, with
//! `P-TRACE-*` in [`crate::profile`]) and the payload rules every reader shares
//! (`R-TYPE-1`).
//!
//! This module owns what makes one JSON value an event: the journal profiles
//! ([`JournalProfile`], `E-PROFILE-1`), the `core` profile's fields (the ones the
//! invariants and the projection read) and, through [`crate::profile`], the `trace-0.1`
//! profile (the full Trace 0.1 envelope of the curriculum's JSON Schema). An [`Event`]
//! keeps the whole parsed value, unknown fields included, because the fingerprint
//! covers it.
//!
//! It also owns the payload's side of the seam between the oracle and the fast path:
//! [`ReducedType`], the event types the reducer reads with their `R-TYPE-1` field table,
//! and [`PayloadView`], a read-only view of a payload that the oracle's [`Event`] and
//! the fast path's token tape both implement, so that `R-TYPE-1` ([`ill_typed_field`])
//! and the projection (`replay::contribution`, `R-USER-1` .. `R-STOP-1`) are written
//! once for both representations (serde_json's `Read` trait, one grammar over slices
//! and readers, is the model).

use crate::error::{Error, ErrorCode};
use crate::json::{Number, Value};

/// A journal profile: which envelope rules apply to a journal's events
/// (`E-PROFILE-1`). Every reader of journals (journal, fingerprint, replay, branch,
/// store, fast) takes one. The tree dialects are a layer above (`tree::Dialect`), and
/// the `profile` a vector or an adapter request names, which may be either, is the
/// operations' (`ops::Profile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum JournalProfile {
    /// Only the fields the invariants and the projection read; anything else is free.
    #[default]
    Core,
    /// `core` plus the Trace 0.1 JSON Schema (closed objects, enums, formats).
    Trace01,
}

impl JournalProfile {
    /// Every journal profile, in the order SPEC.md 4 lists them.
    pub const ALL: [JournalProfile; 2] = [JournalProfile::Core, JournalProfile::Trace01];

    /// The profile's name (`core`, `trace-0.1`).
    pub fn as_str(self) -> &'static str {
        match self {
            JournalProfile::Core => "core",
            JournalProfile::Trace01 => "trace-0.1",
        }
    }

    /// The profile named `s`; `None` for any other name (a tree dialect included).
    pub fn parse(s: &str) -> Option<JournalProfile> {
        JournalProfile::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// A `--profile` of a journal command that names no journal profile (a usage error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown journal profile {0:?} (the journal profiles: core, trace-0.1)")]
pub struct UnknownJournalProfile(pub String);

impl std::str::FromStr for JournalProfile {
    type Err = UnknownJournalProfile;
    fn from_str(s: &str) -> Result<Self, UnknownJournalProfile> {
        JournalProfile::parse(s).ok_or_else(|| UnknownJournalProfile(s.to_owned()))
    }
}

/// One event: the whole JSON object plus the envelope fields read from it.
#[derive(Clone, Debug)]
pub struct Event {
    /// The complete event as parsed (what the fingerprint hashes).
    pub value: Value,
    pub event_id: String,
    pub session_id: String,
    /// The declared sequence, exact (`E-SEQ-1` admits any integer).
    pub sequence: String,
    pub event_type: String,
    pub run_id: String,
    pub parent_event_id: Option<String>,
}

impl Event {
    /// The declared sequence as `i64`, when it fits.
    pub fn sequence_i64(&self) -> Option<i64> {
        self.sequence.parse().ok()
    }

    /// The event's payload object (guaranteed by `E-PAYLOAD-1`).
    pub fn payload(&self) -> &[(String, Value)] {
        self.value
            .get("payload")
            .and_then(Value::as_object)
            .unwrap_or(&[])
    }
}

/// The event types the reducer reads (SPEC.md 6); every other type changes nothing but
/// the applied sequences and the fingerprint (`R-OTHER-1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducedType {
    /// `user.message` (`R-USER-1`).
    UserMessage,
    /// `model.response` (`R-STREAM-1`).
    ModelResponse,
    /// `tool.result` (`R-TOOL-1`).
    ToolResult,
    /// `session.stop` (`R-STOP-1`).
    SessionStop,
}

impl ReducedType {
    /// The reduced type named by an event's `type`, or `None` (`R-OTHER-1`). (Always
    /// inlined: the fast path calls it once per line.)
    #[inline(always)]
    pub fn of(event_type: &[u8]) -> Option<ReducedType> {
        match event_type {
            b"user.message" => Some(ReducedType::UserMessage),
            b"model.response" => Some(ReducedType::ModelResponse),
            b"tool.result" => Some(ReducedType::ToolResult),
            b"session.stop" => Some(ReducedType::SessionStop),
            _ => None,
        }
    }

    /// `R-TYPE-1`'s table: the payload members the reducer reads as strings, which must
    /// be strings when present.
    #[inline]
    pub fn string_fields(self) -> &'static [&'static str] {
        match self {
            ReducedType::UserMessage => &["content"],
            ReducedType::ModelResponse => &["content", "accumulated"],
            ReducedType::SessionStop => &["reason"],
            ReducedType::ToolResult => &[],
        }
    }
}

/// A read-only view of one event's payload object, whatever holds it: the oracle's
/// [`Event`] (members are `&Value`) or the fast path's token tape (members are token
/// indices). The payload rules are written once over it.
pub trait PayloadView {
    /// A handle to one member's value.
    type Member: Copy;
    /// The payload's member named `key`, if it has one.
    fn member(&self, key: &str) -> Option<Self::Member>;
    /// Whether the member's value is a JSON string.
    fn is_string(&self, member: Self::Member) -> bool;
    /// Whether the member's value is the JSON literal `true`.
    fn is_true(&self, member: Self::Member) -> bool;
}

impl<'a> PayloadView for &'a Event {
    type Member = &'a Value;

    fn member(&self, key: &str) -> Option<&'a Value> {
        self.payload()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    fn is_string(&self, member: &'a Value) -> bool {
        member.as_str().is_some()
    }

    fn is_true(&self, member: &'a Value) -> bool {
        *member == Value::Bool(true)
    }
}

/// `R-TYPE-1`: the first member of [`ReducedType::string_fields`] that the payload has
/// and that is not a string, with its value; `None` when the payload passes.
#[inline]
pub fn ill_typed_field<P: PayloadView>(
    ty: Option<ReducedType>,
    payload: &P,
) -> Option<(&'static str, P::Member)> {
    let fields = ty.map_or(&[][..], ReducedType::string_fields);
    fields.iter().find_map(|&field| {
        payload
            .member(field)
            .filter(|&m| !payload.is_string(m))
            .map(|m| (field, m))
    })
}

/// `R-TYPE-1` for a parsed event: `invalid_payload` naming the member, the event type
/// and what the member holds. The error has no location; the caller adds it.
pub fn check_payload(ev: &Event) -> Result<(), Error> {
    match ill_typed_field(ReducedType::of(ev.event_type.as_bytes()), &ev) {
        None => Ok(()),
        Some((field, value)) => Err(Error::new(
            ErrorCode::InvalidPayload,
            format!(
                "payload.{field} of a {} event must be a string, found {}",
                ev.event_type,
                value.kind()
            ),
        )),
    }
}

fn malformed(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::MalformedEvent, msg)
}

fn nonempty_string<'a>(v: Option<&'a Value>, field: &str) -> Result<&'a str, Error> {
    match v {
        None => Err(malformed(format!("missing required field `{field}`"))),
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) => Err(malformed(format!("`{field}` is an empty string"))),
        Some(other) => Err(malformed(format!(
            "`{field}` must be a non-empty string, found {}",
            other.kind()
        ))),
    }
}

/// Read the envelope of `value` under `profile`, checking `E-OBJ-1` .. `E-PARENT-1`
/// in SPEC order and then, for `trace-0.1`, `P-TRACE-1` .. `P-TRACE-8`. The error has
/// no location; the caller adds line, sequence and event id.
pub fn from_value(value: Value, profile: JournalProfile) -> Result<Event, Error> {
    let obj = match &value {
        Value::Object(_) => &value,
        other => {
            return Err(malformed(format!(
                "an event must be a JSON object, found {}",
                other.kind()
            )))
        }
    };
    let event_id = nonempty_string(obj.get("event_id"), "event_id")?.to_owned();
    let session_id = nonempty_string(obj.get("session_id"), "session_id")?.to_owned();
    let sequence = match obj.get("sequence") {
        None => return Err(malformed("missing required field `sequence`")),
        Some(Value::Number(Number::Int(s))) => s.clone(),
        Some(other) => {
            return Err(malformed(format!(
                "`sequence` must be an integer, found {}",
                other.kind()
            )))
        }
    };
    let event_type = nonempty_string(obj.get("type"), "type")?.to_owned();
    match obj.get("payload") {
        None => return Err(malformed("missing required field `payload`")),
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(malformed(format!(
                "`payload` must be an object, found {}",
                other.kind()
            )))
        }
    }
    let run_id = match obj.get("provenance") {
        None => return Err(malformed("missing required field `provenance`")),
        Some(p @ Value::Object(_)) => nonempty_string(p.get("run_id"), "provenance.run_id")?,
        Some(other) => {
            return Err(malformed(format!(
                "`provenance` must be an object, found {}",
                other.kind()
            )))
        }
    }
    .to_owned();
    let parent_event_id = match obj.get("parent_event_id") {
        None => None,
        some => Some(nonempty_string(some, "parent_event_id")?.to_owned()),
    };
    if profile == JournalProfile::Trace01 {
        crate::profile::check_trace01(obj)?;
    }
    Ok(Event {
        value,
        event_id,
        session_id,
        sequence,
        event_type,
        run_id,
        parent_event_id,
    })
}
