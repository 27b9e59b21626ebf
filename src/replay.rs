//! The replay projection (SPEC.md section "Replay", rules `R-*`).
//!
//! This module owns the reducer that folds a journal prefix into the seed's
//! `ReplayState`: user messages, assistant messages under the streaming final-event
//! rule, tool results, the stop reason, the applied sequences and the fingerprint of
//! the selected prefix. [`Reducer`] is incremental (one event at a time); [`replay`]
//! streams a whole journal, validating every event, and projects events `0..=until`
//! (`R-SEL-1`, `O-RANGE-1` by [`check_range`]).
//!
//! What one event contributes (`R-USER-1`, `R-STREAM-1`, `R-TOOL-1`, `R-STOP-1`,
//! `R-OTHER-1`) is [`contribution`], written once over `event::PayloadView`: the
//! reducer applies it to parsed events, the fast path to its token tape. `R-TYPE-1`,
//! which makes the texts it reads strings, is the envelope layer's
//! (`event::check_payload`), checked while the journal is read.

use std::io::BufRead;

use crate::error::{Error, ErrorCode, ReadError};
use crate::event::{Event, JournalProfile, PayloadView, ReducedType};
use crate::fingerprint::Fingerprinter;
use crate::journal;
use crate::json::Value;

/// The projection, field for field the seed's `ReplayState`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayState {
    pub session_id: String,
    pub run_id: String,
    pub applied_sequences: Vec<u64>,
    pub user_messages: Vec<String>,
    pub assistant_messages: Vec<String>,
    pub tool_results: Vec<Value>,
    /// `None` (JSON `null`) until a `session.stop` is applied.
    pub stop_reason: Option<String>,
    pub fingerprint: String,
}

impl ReplayState {
    /// The JSON object of SPEC.md `R-OUT-1`.
    pub fn to_json(&self) -> Value {
        let strings =
            |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        Value::object([
            ("session_id", Value::from(self.session_id.as_str())),
            ("run_id", Value::from(self.run_id.as_str())),
            (
                "applied_sequences",
                Value::Array(
                    self.applied_sequences
                        .iter()
                        .map(|&n| Value::from_u64(n))
                        .collect(),
                ),
            ),
            ("user_messages", strings(&self.user_messages)),
            ("assistant_messages", strings(&self.assistant_messages)),
            ("tool_results", Value::Array(self.tool_results.clone())),
            (
                "stop_reason",
                self.stop_reason.as_deref().map_or(Value::Null, Value::from),
            ),
            ("fingerprint", Value::from(self.fingerprint.as_str())),
        ])
    }
}

/// A text the projection takes from a payload member: the member's string, or
/// `absent` when the payload has no such member (R-TYPE-1 makes a present one a
/// string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<M> {
    pub member: Option<M>,
    pub absent: &'static str,
}

impl<'a> Text<&'a Value> {
    /// The text, for the oracle's view of a payload.
    pub fn as_str(&self) -> &'a str {
        self.member.and_then(Value::as_str).unwrap_or(self.absent)
    }
}

/// What one event contributes to the projection, in terms of its payload view's
/// members (SPEC.md 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contribution<M> {
    /// Nothing but its sequence and fingerprint: another type (`R-OTHER-1`), or a
    /// streaming delta (`R-STREAM-1`).
    Nothing,
    /// `R-USER-1`: a user message.
    User(Text<M>),
    /// `R-STREAM-1`: an assistant message.
    Assistant(Text<M>),
    /// `R-TOOL-1`: the whole payload object.
    ToolResult,
    /// `R-STOP-1`: the stop reason.
    Stop(Text<M>),
}

/// The projection's rules for one event (`R-USER-1`, `R-STREAM-1`, `R-TOOL-1`,
/// `R-STOP-1`, `R-OTHER-1`), written once over a [`PayloadView`]: the reducer applies
/// it to the oracle's events, the fast path to its token tape.
#[inline]
pub fn contribution<P: PayloadView>(
    ty: Option<ReducedType>,
    payload: &P,
) -> Contribution<P::Member> {
    let text = |key: &str, absent: &'static str| Text {
        member: payload.member(key),
        absent,
    };
    match ty {
        Some(ReducedType::UserMessage) => Contribution::User(text("content", "")),
        Some(ReducedType::ModelResponse) => {
            // R-STREAM-1: a response with `content` is complete; otherwise only the
            // one marked `final: true` contributes its `accumulated` text.
            if let Some(content) = payload.member("content") {
                Contribution::Assistant(Text {
                    member: Some(content),
                    absent: "",
                })
            } else if payload.member("final").is_some_and(|f| payload.is_true(f)) {
                Contribution::Assistant(text("accumulated", ""))
            } else {
                Contribution::Nothing
            }
        }
        Some(ReducedType::ToolResult) => Contribution::ToolResult,
        Some(ReducedType::SessionStop) => Contribution::Stop(text("reason", "unknown")),
        None => Contribution::Nothing,
    }
}

/// The incremental reducer. Feed events `0, 1, 2, ...` of an already checked journal.
#[derive(Clone, Debug, Default)]
pub struct Reducer {
    session_id: String,
    run_id: String,
    /// Applied sequences are always `0..applied` (J-SEQ-1), so only the count is kept.
    applied: u64,
    users: Vec<String>,
    assistants: Vec<String>,
    tools: Vec<Value>,
    stop_reason: Option<String>,
    fingerprint: Fingerprinter,
}

impl Reducer {
    pub fn new() -> Reducer {
        Reducer::default()
    }

    /// Apply one event (`R-USER-1` .. `R-STOP-1`, `R-FP-1`).
    pub fn apply(&mut self, ev: &Event) {
        self.project(ev);
        self.fingerprint.push(&ev.value);
    }

    /// [`Reducer::apply`] with the event's canonical text already at hand.
    pub fn apply_canonical(&mut self, ev: &Event, canonical_text: &[u8]) {
        self.project(ev);
        self.fingerprint.push_canonical(canonical_text);
    }

    /// Everything `apply` does but the fingerprint.
    fn project(&mut self, ev: &Event) {
        if self.applied == 0 {
            self.session_id = ev.session_id.clone();
            self.run_id = ev.run_id.clone();
        }
        match contribution(ReducedType::of(ev.event_type.as_bytes()), &ev) {
            Contribution::User(text) => self.users.push(text.as_str().to_owned()),
            Contribution::Assistant(text) => self.assistants.push(text.as_str().to_owned()),
            Contribution::ToolResult => self.tools.push(Value::Object(ev.payload().to_vec())),
            Contribution::Stop(text) => self.stop_reason = Some(text.as_str().to_owned()),
            Contribution::Nothing => {}
        }
        self.applied += 1;
    }

    /// Number of events applied.
    pub fn applied(&self) -> u64 {
        self.applied
    }

    /// The projection of the events applied so far.
    pub fn state(&self) -> ReplayState {
        ReplayState {
            session_id: self.session_id.clone(),
            run_id: self.run_id.clone(),
            applied_sequences: (0..self.applied).collect(),
            user_messages: self.users.clone(),
            assistant_messages: self.assistants.clone(),
            tool_results: self.tools.clone(),
            stop_reason: self.stop_reason.clone(),
            fingerprint: self.fingerprint.hex(),
        }
    }

    pub fn into_state(self) -> ReplayState {
        let fingerprint = self.fingerprint.hex();
        ReplayState {
            session_id: self.session_id,
            run_id: self.run_id,
            applied_sequences: (0..self.applied).collect(),
            user_messages: self.users,
            assistant_messages: self.assistants,
            tool_results: self.tools,
            stop_reason: self.stop_reason,
            fingerprint,
        }
    }
}

impl Reducer {
    /// The reducer's complete state for a checkpoint (`K-RECORD-1`): the projection
    /// and the resumable hash state of the fingerprint.
    pub fn snapshot(&self) -> (ReplayState, crate::fingerprint::Sha256State) {
        (self.state(), self.fingerprint.state().0.clone())
    }

    /// Rebuild a reducer from a checkpoint's projection (a ReplayState without its
    /// `applied_sequences`), the number of events it covers, and the hash state.
    /// `None` when the projection is not well-formed.
    pub fn restore(
        projection: Value,
        applied: u64,
        hash: crate::fingerprint::Sha256State,
    ) -> Option<Reducer> {
        // Take the members by value: a projection holds every message, so copying it
        // would cost as much as reading it.
        let Value::Object(members) = projection else {
            return None;
        };
        let mut take = std::collections::HashMap::with_capacity(members.len());
        for (k, v) in members {
            take.insert(k, v);
        }
        let mut field = |k: &str| take.remove(k);
        let strings = |v: Option<Value>| -> Option<Vec<String>> {
            match v? {
                Value::Array(items) => items
                    .into_iter()
                    .map(|x| match x {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            }
        };
        let text = |v: Option<Value>| match v? {
            Value::String(s) => Some(s),
            _ => None,
        };
        let stop_reason = match field("stop_reason")? {
            Value::Null => None,
            Value::String(s) => Some(s),
            _ => return None,
        };
        let tools = match field("tool_results")? {
            Value::Array(items) => items,
            _ => return None,
        };
        Some(Reducer {
            session_id: text(field("session_id"))?,
            run_id: text(field("run_id"))?,
            applied,
            users: strings(field("user_messages"))?,
            assistants: strings(field("assistant_messages"))?,
            tools,
            stop_reason,
            fingerprint: Fingerprinter::resume(hash, applied),
        })
    }

    /// The journal's session and run ids (empty before the first event).
    pub fn identity(&self) -> (&str, &str) {
        (&self.session_id, &self.run_id)
    }
}

/// `O-RANGE-1`: `until` must be the sequence of an event of a journal of `count` events.
pub fn check_range(until: i64, count: u64, what: &str) -> Result<u64, Error> {
    if until >= 0 && (until as u64) < count {
        Ok(until as u64)
    } else {
        Err(Error::new(
            ErrorCode::SequenceOutOfRange,
            format!(
                "{what} {until} is outside the journal (sequences 0..={})",
                count.saturating_sub(1)
            ),
        )
        .with_sequence(Some(until)))
    }
}

/// Validate the whole journal and project events `0..=until` (all when `None`).
/// Every event is checked even past `until` (`R-SEL-1`); a journal error wins over a
/// range error (`O-ORDER-1`).
pub fn replay<R: BufRead>(
    source: R,
    profile: JournalProfile,
    until: Option<i64>,
) -> Result<ReplayState, ReadError> {
    replay_bounded(source, profile, until, crate::wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`replay`] with lines of at most `max_line_bytes`.
pub fn replay_bounded<R: BufRead>(
    source: R,
    profile: JournalProfile,
    until: Option<i64>,
    max_line_bytes: usize,
) -> Result<ReplayState, ReadError> {
    let mut reducer = Reducer::new();
    let limit = until.unwrap_or(i64::MAX);
    let count = journal::read_bounded(source, profile, max_line_bytes, |ev| {
        if (reducer.applied() as i64) <= limit {
            reducer.apply(ev);
        }
    })?;
    if let Some(u) = until {
        check_range(u, count, "until")?;
    }
    Ok(reducer.into_state())
}

/// Validate the whole journal and fingerprint events `0..=until` (all when `None`),
/// without building the projection.
pub fn fingerprint<R: BufRead>(
    source: R,
    profile: JournalProfile,
    until: Option<i64>,
) -> Result<String, ReadError> {
    fingerprint_bounded(source, profile, until, crate::wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`fingerprint`] with lines of at most `max_line_bytes`.
pub fn fingerprint_bounded<R: BufRead>(
    source: R,
    profile: JournalProfile,
    until: Option<i64>,
    max_line_bytes: usize,
) -> Result<String, ReadError> {
    let mut fp = Fingerprinter::new();
    let limit = until.unwrap_or(i64::MAX);
    let count = journal::read_bounded(source, profile, max_line_bytes, |ev| {
        if (fp.count() as i64) <= limit {
            fp.push(&ev.value);
        }
    })?;
    if let Some(u) = until {
        check_range(u, count, "until")?;
    }
    Ok(fp.hex())
}
