//! Journal checks (SPEC.md section "Journal invariants", rules `J-*`).
//!
//! This module owns what makes a sequence of events one journal: non-empty, sequences
//! `0, 1, 2, ...`, one session id, one run id, unique event ids, parents that name
//! earlier events. [`Checker`] applies them one event at a time in O(1) expected time
//! per event with memory proportional to the set of event ids; [`read`] streams a
//! JSONL source through the wire, envelope and journal rules in SPEC order
//! (`J-ORDER-1`) and hands each accepted event to a callback.
//!
//! The J-* errors are worded here only: [`Violation`] names the rule an event breaks
//! and [`Violation::error`] words it (with `J-LOC-1`'s sequence and event id), and
//! [`empty_journal`] is `J-EMPTY-1`; the fast path decides the same violations on its
//! own data and calls the same constructors.

use std::collections::HashMap;
use std::io::BufRead;

use crate::error::{Error, ErrorCode, ReadError};
use crate::event::{self, Event, JournalProfile};
use crate::wire::{self, LineReader};

/// Looks ids up among events that are not in the checker's memory (the prefix covered
/// by a checkpoint, `K-REPLAY-1`).
pub trait PrefixIds: std::fmt::Debug {
    fn contains(&self, id: &str) -> bool;
}

/// Incremental journal checker: feed events in journal order.
#[derive(Debug, Default)]
pub struct Checker {
    count: u64,
    session_id: Option<String>,
    run_id: Option<String>,
    /// Every accepted event id, with its sequence.
    ids: HashMap<String, u64>,
    /// Ids of earlier events kept outside memory, when resuming after a checkpoint.
    prefix: Option<Box<dyn PrefixIds>>,
}

impl Checker {
    pub fn new() -> Checker {
        Checker::default()
    }

    /// How many events were accepted so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The sequence of the accepted event `id`.
    pub fn sequence_of(&self, id: &str) -> Option<u64> {
        self.ids.get(id).copied()
    }

    /// A checker that continues after `count` events of a journal whose session and
    /// run are given and whose earlier ids are looked up in `prefix` (replay from a
    /// checkpoint: the prefix's ids live on disk, not in memory).
    pub fn resume(
        count: u64,
        session_id: String,
        run_id: String,
        prefix: Box<dyn PrefixIds>,
    ) -> Checker {
        Checker {
            count,
            session_id: Some(session_id),
            run_id: Some(run_id),
            ids: HashMap::new(),
            prefix: Some(prefix),
        }
    }

    fn known(&self, id: &str) -> bool {
        self.ids.contains_key(id) || self.prefix.as_ref().is_some_and(|p| p.contains(id))
    }

    /// Every accepted id (in memory), for writing a checkpoint's id index.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ids.keys().map(String::as_str)
    }

    /// Check the next event against `R-TYPE-1` and `J-SEQ-1` .. `J-PARENT-1`, in that
    /// order. On success the event is accepted (its id recorded). Errors carry the
    /// event's sequence and id; the caller adds the line.
    pub fn check(&mut self, ev: &Event) -> Result<(), Error> {
        self.verify(ev)?;
        self.record(ev);
        Ok(())
    }

    /// Accept an event that [`Checker::verify`] passed.
    pub fn record(&mut self, ev: &Event) {
        // The first event fixes both (a resumed checker has them already).
        if self.session_id.is_none() {
            self.session_id = Some(ev.session_id.clone());
            self.run_id = Some(ev.run_id.clone());
        }
        self.ids.insert(ev.event_id.clone(), self.count);
        self.count += 1;
    }

    /// [`Checker::check`] without accepting the event.
    pub fn verify(&self, ev: &Event) -> Result<(), Error> {
        event::check_payload(ev).map_err(|e| {
            e.with_sequence(ev.sequence_i64())
                .with_event_id(Some(&ev.event_id))
        })?;
        match self.violation(ev) {
            None => Ok(()),
            Some(v) => Err(v.error(ev, &self.expected())),
        }
    }

    /// The first J-* rule `ev` breaks as the next event, in J-ORDER-1's order.
    fn violation(&self, ev: &Event) -> Option<Violation> {
        // J-SESSION-1, J-RUN-1: the first event fixes both.
        let differs =
            |fixed: &Option<String>, found: &str| fixed.as_ref().is_some_and(|f| f != found);
        if ev.sequence != self.count.to_string() {
            Some(Violation::SequenceGap)
        } else if differs(&self.session_id, &ev.session_id) {
            Some(Violation::MixedSession)
        } else if differs(&self.run_id, &ev.run_id) {
            Some(Violation::MixedRun)
        } else if self.known(&ev.event_id) {
            Some(Violation::DuplicateEventId)
        } else if ev.parent_event_id.as_ref().is_some_and(|p| !self.known(p)) {
            // J-PARENT-1: the parent must be an EARLIER event (not itself, not later).
            Some(Violation::UnknownParent)
        } else {
            None
        }
    }

    /// What the journal read so far fixes for the next event.
    fn expected(&self) -> Expected<'_> {
        Expected {
            sequence: self.count,
            session_id: self.session_id.as_deref().unwrap_or_default(),
            run_id: self.run_id.as_deref().unwrap_or_default(),
        }
    }

    /// End of journal: `J-EMPTY-1`. Returns the number of events.
    pub fn finish(&self) -> Result<u64, Error> {
        if self.count == 0 {
            return Err(empty_journal());
        }
        Ok(self.count)
    }
}

/// A J-* rule one event breaks (`J-SEQ-1` .. `J-PARENT-1`): what the oracle's
/// [`Checker`] and the fast path's ordered checks both decide, worded here once
/// ([`Violation::error`]), so the two paths cannot word an error differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// `J-SEQ-1`: the sequence is not the event's 0-based position.
    SequenceGap,
    /// `J-SESSION-1`: another session id than the first event's.
    MixedSession,
    /// `J-RUN-1`: another `provenance.run_id` than the first event's.
    MixedRun,
    /// `J-ID-1`: an event id an earlier event used.
    DuplicateEventId,
    /// `J-PARENT-1`: a parent that names no earlier event.
    UnknownParent,
}

/// What the journal read so far fixes for its next event, as the J-* messages name it.
#[derive(Clone, Copy, Debug)]
pub struct Expected<'a> {
    /// The next sequence: the number of events so far.
    pub sequence: u64,
    /// The first event's session id (empty before it).
    pub session_id: &'a str,
    /// The first event's run id (empty before it).
    pub run_id: &'a str,
}

impl Violation {
    /// The stable code of the rule.
    pub fn code(self) -> ErrorCode {
        match self {
            Violation::SequenceGap => ErrorCode::SequenceGap,
            Violation::MixedSession => ErrorCode::MixedSession,
            Violation::MixedRun => ErrorCode::MixedRun,
            Violation::DuplicateEventId => ErrorCode::DuplicateEventId,
            Violation::UnknownParent => ErrorCode::UnknownParent,
        }
    }

    /// The error `ev` gets, with its sequence and event id (`J-LOC-1`; the caller adds
    /// the line).
    pub fn error(self, ev: &Event, expected: &Expected<'_>) -> Error {
        let message = match self {
            Violation::SequenceGap => format!(
                "expected sequence {}, found {}",
                expected.sequence,
                crate::error::shorten(ev.sequence.as_bytes(), 40)
            ),
            Violation::MixedSession => format!(
                "session_id {:?} differs from the journal's {:?}",
                ev.session_id, expected.session_id
            ),
            Violation::MixedRun => format!(
                "provenance.run_id {:?} differs from the journal's {:?}",
                ev.run_id, expected.run_id
            ),
            Violation::DuplicateEventId => {
                format!("event_id {:?} was used by an earlier event", ev.event_id)
            }
            Violation::UnknownParent => {
                // The event's own id beside it shows a parent that names itself.
                let parent = ev.parent_event_id.as_deref().unwrap_or_default();
                format!(
                    "parent_event_id {parent:?} of event {:?} names no earlier event",
                    ev.event_id
                )
            }
        };
        Error::new(self.code(), message)
            .with_sequence(ev.sequence_i64())
            .with_event_id(Some(&ev.event_id))
    }
}

/// `J-EMPTY-1`: the journal holds no event.
pub fn empty_journal() -> Error {
    Error::new(ErrorCode::EmptyJournal, "the journal holds no event")
}

/// Parse and check one line as the next event of `checker`'s journal.
pub fn next_event(
    checker: &mut Checker,
    profile: JournalProfile,
    number: u64,
    bytes: &[u8],
) -> Result<Event, Error> {
    let ev = parse_event(profile, number, bytes)?;
    checker
        .check(&ev)
        .map_err(|e| e.at_line(number).with_excerpt(bytes))?;
    Ok(ev)
}

/// One line read as an event, before the journal checks: the wire and JSON rules and
/// the envelope, with errors located at the line (the fast path's oracle too).
pub fn parse_event(profile: JournalProfile, number: u64, bytes: &[u8]) -> Result<Event, Error> {
    let located = |e: Error| e.at_line(number).with_excerpt(bytes);
    let value = wire::parse_line(number, bytes)?;
    // Where the envelope is broken, still name the event by whatever id it has.
    let id_hint = value
        .get("event_id")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let seq_hint = value.get("sequence").and_then(|v| v.as_i64());
    event::from_value(value, profile)
        .map_err(|e| located(e.with_sequence(seq_hint).with_event_id(id_hint.as_deref())))
}

/// Stream a JSONL journal: every line through the wire, envelope and journal rules,
/// each accepted event to `visit` in order. Returns the number of events; the first
/// violation ends the read. Memory: one line plus the id set.
pub fn read<R: BufRead>(
    source: R,
    profile: JournalProfile,
    visit: impl FnMut(&Event),
) -> Result<u64, ReadError> {
    read_bounded(source, profile, wire::DEFAULT_MAX_LINE_BYTES, visit)
}

/// [`read`] with lines of at most `max_line_bytes` (`--max-line-bytes`; a longer line
/// is an I/O error, [`wire::line_too_long`]).
pub fn read_bounded<R: BufRead>(
    source: R,
    profile: JournalProfile,
    max_line_bytes: usize,
    mut visit: impl FnMut(&Event),
) -> Result<u64, ReadError> {
    let mut lines = LineReader::with_max_line_bytes(source, max_line_bytes);
    let mut checker = Checker::new();
    while let Some((number, bytes, _terminated)) = lines.next_line()? {
        let ev = next_event(&mut checker, profile, number, bytes)?;
        visit(&ev);
    }
    Ok(checker.finish()?)
}

/// Validate a whole journal; `Ok(n)` with its event count.
pub fn validate<R: BufRead>(source: R, profile: JournalProfile) -> Result<u64, ReadError> {
    validate_bounded(source, profile, wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`validate`] with lines of at most `max_line_bytes`.
pub fn validate_bounded<R: BufRead>(
    source: R,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> Result<u64, ReadError> {
    read_bounded(source, profile, max_line_bytes, |_| {})
}
