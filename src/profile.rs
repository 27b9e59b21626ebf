//! The `trace-0.1` profile (SPEC.md section "Profiles", rules `P-TRACE-*`).
//!
//! This module owns the hand-written check of the curriculum's Trace 0.1 JSON Schema
//! (`golden/trace-event.schema.json`): required and closed fields, enums, the
//! `stableId` pattern, the RFC 3339 `date-time` format. Every failure is
//! `profile_violation` with a message naming the JSON Pointer of the field. One text of
//! the rules, read through `Node`, decides for the oracle's value and the fast path's
//! tape; `Passed` lets the tape skip an object whose exact text passed before.

use crate::error::{Error, ErrorCode};
use crate::json::{Number, Value};

/// The Trace 0.1 `type` enum.
pub const TRACE_TYPES: &[&str] = &[
    "session.start",
    "session.stop",
    "session.replay",
    "session.branch",
    "user.message",
    "model.request",
    "model.response",
    "tool.request",
    "tool.result",
    "approval.request",
    "approval.decision",
    "sandbox.configure",
    "network.decision",
    "trust.decision",
    "instruction.accept",
    "instruction.quarantine",
    "checkpoint.create",
    "checkpoint.diff",
    "checkpoint.rollback",
    "file.patch",
    "context.prune",
    "context.compact",
    "memory.read",
    "memory.write",
    "skill.load",
    "agent.spawn",
    "agent.message",
    "agent.stop",
    "metric.sample",
    "error",
];

/// The Trace 0.1 top-level members, in the order [`check`] returns them.
pub(crate) const TOP: [&str; 12] = [
    "trace_version",
    "event_id",
    "session_id",
    "sequence",
    "timestamp",
    "type",
    "actor",
    "payload",
    "provenance",
    "redaction",
    "duration_ms",
    "parent_event_id",
];
const TOP_REQUIRED: usize = 10;
/// The Trace 0.1 `actor.kind` enum.
pub const ACTOR_KINDS: &[&str] = &[
    "user",
    "model",
    "agent",
    "tool",
    "harness",
    "policy",
    "environment",
];
/// The Trace 0.1 `provenance.harness_mode` enum.
pub const HARNESS_MODES: &[&str] = &["fake", "native", "controlled", "adversarial"];
/// The Trace 0.1 `redaction.status` enum.
pub const REDACTION_STATUS: &[&str] = &["clean", "redacted", "restricted"];

fn violation(pointer: &str, msg: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::ProfileViolation, format!("{pointer}: {msg}"))
}

/// What the Trace 0.1 check reads of a JSON value. The oracle's [`Value`] answers it, and
/// so does the fast path's token tape (`crate::fast`), so ONE text of the `P-TRACE-*`
/// rules decides both: the fast path checks a valid line without building a `Value`.
pub(crate) trait Node<'a>: Copy {
    /// The kind's name, as [`Value::kind`] gives it (for messages).
    fn kind(self) -> &'static str;
    fn as_str(self) -> Option<&'a str>;
    fn is_object(self) -> bool;
    /// An object's members (names as UTF-8 bytes, and values) in input order (none for
    /// anything else).
    fn members(self) -> impl Iterator<Item = (&'a [u8], Self)>;
    /// An array's items (`None` for anything else).
    fn items(self) -> Option<Vec<Self>>;
    /// An integer's literal as the oracle keeps it (`-0` is `0`).
    fn int_text(self) -> Option<&'a str>;
    /// A float's value.
    fn float(self) -> Option<f64>;
    /// The exact input text of an object, where the reader keeps it (the fast path's
    /// tape, for the event's members); `None` where it does not (the oracle's value).
    fn text(self) -> Option<&'a [u8]>;
}

impl<'a> Node<'a> for &'a Value {
    fn kind(self) -> &'static str {
        Value::kind(self)
    }
    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }
    fn is_object(self) -> bool {
        matches!(self, Value::Object(_))
    }
    fn members(self) -> impl Iterator<Item = (&'a [u8], Self)> {
        self.as_object()
            .unwrap_or(&[])
            .iter()
            .map(|(k, v)| (k.as_bytes(), v))
    }
    fn items(self) -> Option<Vec<Self>> {
        self.as_array().map(|a| a.iter().collect())
    }
    fn int_text(self) -> Option<&'a str> {
        match self {
            Value::Number(Number::Int(s)) => Some(s),
            _ => None,
        }
    }
    fn float(self) -> Option<f64> {
        match self {
            Value::Number(Number::Float(f)) => Some(*f),
            _ => None,
        }
    }
    fn text(self) -> Option<&'a [u8]> {
        None
    }
}

/// How many passed texts [`Passed`] keeps of each member, and the longest it keeps.
const PASSED_KEEP: usize = 4;
const PASSED_MAX_BYTES: usize = 512;

/// The texts of the `actor`, `provenance` and `redaction` objects that passed their rule
/// (`P-TRACE-6` to `8`) on earlier lines. Each rule reads its object and nothing else,
/// and an equal text is an equal value, so an object whose text is one of them passes
/// again without being read: a journal repeats a few actors and one provenance and
/// redaction per run. Where the reader has no text ([`Node::text`]), every object is
/// read. Bounded: the last [`PASSED_KEEP`] texts of each member, of at most
/// [`PASSED_MAX_BYTES`] bytes.
#[derive(Default)]
pub(crate) struct Passed {
    actor: Texts,
    provenance: Texts,
    redaction: Texts,
}

/// One member's passed texts, replaced in turn (an empty text is no text: an object's
/// text is never empty).
#[derive(Default)]
struct Texts {
    kept: [Vec<u8>; PASSED_KEEP],
    next: usize,
}

impl Texts {
    /// `rule(v)`, unless `v`'s text passed it before.
    fn check<'a, N: Node<'a>>(
        &mut self,
        v: N,
        rule: impl Fn(N) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Some(text) = v.text().filter(|t| t.len() <= PASSED_MAX_BYTES) else {
            return rule(v);
        };
        if self.kept.iter().any(|k| k.as_slice() == text) {
            return Ok(());
        }
        rule(v)?;
        let slot = &mut self.kept[self.next];
        slot.clear();
        slot.extend_from_slice(text);
        self.next = (self.next + 1) % PASSED_KEEP;
        Ok(())
    }
}

/// The members of `obj` named in `allowed`, by their place in `allowed`. Every member must
/// be named there, and the first `required` names must be present: the first missing one
/// (in `allowed`'s order) is reported before the first member not allowed (in input
/// order). One pass over the members, which answers every later lookup too: an object's
/// names are unique (C-KEY-2).
fn closed<'a, N: Node<'a>, const K: usize>(
    obj: N,
    ptr: &str,
    allowed: &[&str; K],
    required: usize,
) -> Result<[Option<N>; K], Error> {
    let mut found = [None; K];
    let mut stranger = None;
    for (k, v) in obj.members() {
        match place(allowed, k) {
            Some(i) => found[i] = Some(v),
            None => stranger = stranger.or(Some(k)),
        }
    }
    if let Some(i) = found[..required].iter().position(Option::is_none) {
        return Err(violation(
            &format!("{ptr}/{}", allowed[i]),
            "required field is missing",
        ));
    }
    match stranger {
        Some(k) => Err(violation(
            &format!("{ptr}/{}", String::from_utf8_lossy(k)),
            "field is not allowed by trace-0.1",
        )),
        None => Ok(found),
    }
}

/// The place of `name` in `allowed`: where [`closed`] returns that member (a constant
/// `name` folds). The fast path finds the envelope by it under `core`.
#[inline(always)]
pub(crate) fn place<const K: usize>(allowed: &[&str; K], name: &[u8]) -> Option<usize> {
    allowed.iter().position(|a| a.as_bytes() == name)
}

/// A required member [`closed`] returned (it checked that it is there).
fn present<T>(member: Option<T>) -> T {
    member.expect("closed() checks the required members")
}

#[inline(always)]
fn string<'a, N: Node<'a>>(v: N, ptr: &str, nonempty: bool) -> Result<&'a str, Error> {
    match v.as_str() {
        Some(s) if nonempty && s.is_empty() => Err(violation(ptr, "must not be empty")),
        Some(s) => Ok(s),
        None => Err(violation(
            ptr,
            format!("must be a string, found {}", v.kind()),
        )),
    }
}

#[inline(always)]
fn one_of<'a, N: Node<'a>>(v: N, ptr: &str, options: &[&str]) -> Result<(), Error> {
    let s = string(v, ptr, false)?;
    if options.contains(&s) {
        Ok(())
    } else {
        Err(violation(ptr, format!("{s:?} is not one of {options:?}")))
    }
}

fn object<'a, N: Node<'a>>(v: N, ptr: &str) -> Result<N, Error> {
    if v.is_object() {
        Ok(v)
    } else {
        Err(violation(
            ptr,
            format!("must be an object, found {}", v.kind()),
        ))
    }
}

/// `^[a-z0-9]+(?:-[a-z0-9]+)*$`
pub fn is_stable_id(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// RFC 3339 `date-time`: `YYYY-MM-DD` `T` `hh:mm:ss[.frac]` then `Z` or `±hh:mm`
/// (`T`/`Z` in either case), with real calendar dates and `ss` up to 60.
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            Some(part.iter().fold(0, |a, d| a * 10 + (d - b'0') as u32))
        } else {
            None
        }
    };
    let (Some(year), Some(month), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !matches!(b.get(10), Some(b'T' | b't'))
    {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let dim = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > dim {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (num(11..13), num(14..16), num(17..19)) else {
        return false;
    };
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') || h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let (Some(oh), Some(om)) = (num(i + 1..i + 3), num(i + 4..i + 6)) else {
                return false;
            };
            b.get(i + 3) == Some(&b':') && oh <= 23 && om <= 59 && i + 6 == b.len()
        }
        _ => false,
    }
}

/// Check an event object (already past the `core` rules) against Trace 0.1.
pub fn check_trace01(ev: &Value) -> Result<(), Error> {
    check(ev, &mut Passed::default()).map(|_| ())
}

/// [`check_trace01`] on any [`Node`]: the oracle's value or the fast path's tape, with
/// the objects that passed on earlier lines (`passed`). Returns the event's members by
/// their place in [`TOP`] (the fast path reads the envelope from them).
pub(crate) fn check<'a, N: Node<'a>>(
    ev: N,
    passed: &mut Passed,
) -> Result<[Option<N>; TOP.len()], Error> {
    // P-TRACE-1: required and closed top-level fields.
    let top = closed(ev, "", &TOP, TOP_REQUIRED)?;
    let [trace_version, _, _, sequence, timestamp, kind, actor, _, provenance, redaction, duration, _] =
        top;
    // P-TRACE-2: trace_version.
    let tv = string(present(trace_version), "/trace_version", false)?;
    if tv != "0.1.0" {
        return Err(violation(
            "/trace_version",
            format!("must be \"0.1.0\", found {tv:?}"),
        ));
    }
    // P-TRACE-3: sequence minimum 0.
    if let Some(s) = sequence.and_then(|v| v.int_text()) {
        if s.starts_with('-') {
            return Err(violation("/sequence", "must be >= 0"));
        }
    }
    // P-TRACE-4: timestamp is an RFC 3339 date-time.
    let ts = string(present(timestamp), "/timestamp", false)?;
    if !is_rfc3339(ts) {
        return Err(violation(
            "/timestamp",
            format!("{ts:?} is not an RFC 3339 date-time"),
        ));
    }
    // P-TRACE-5: type enum.
    one_of(present(kind), "/type", TRACE_TYPES)?;
    // P-TRACE-6: actor.
    passed.actor.check(present(actor), check_actor)?;
    // P-TRACE-7: provenance.
    passed
        .provenance
        .check(present(provenance), check_provenance)?;
    // P-TRACE-8: redaction.
    passed
        .redaction
        .check(present(redaction), check_redaction)?;
    // P-TRACE-9: duration_ms is a number >= 0.
    check_duration(duration)?;
    Ok(top)
}

/// `P-TRACE-6`: `actor`, a closed object with a `kind` of the enum and a non-empty `id`.
fn check_actor<'a, N: Node<'a>>(actor: N) -> Result<(), Error> {
    let actor = object(actor, "/actor")?;
    let [kind, id, parent] = closed(actor, "/actor", &["kind", "id", "parent_id"], 2)?;
    one_of(present(kind), "/actor/kind", ACTOR_KINDS)?;
    string(present(id), "/actor/id", true)?;
    if let Some(p) = parent {
        string(p, "/actor/parent_id", true)?;
    }
    Ok(())
}

/// `P-TRACE-7`: `provenance`, a closed object: stable agent and experiment ids, a
/// snapshot, a surface, a harness mode of the enum, optional model and provider.
fn check_provenance<'a, N: Node<'a>>(prov: N) -> Result<(), Error> {
    let [agent, snapshot, surface, mode, _run, experiment, model, provider] = closed(
        prov,
        "/provenance",
        &[
            "agent_id",
            "snapshot_id",
            "surface",
            "harness_mode",
            "run_id",
            "experiment_id",
            "model",
            "provider",
        ],
        5,
    )?;
    for (v, ptr) in [
        (agent, "/provenance/agent_id"),
        (experiment, "/provenance/experiment_id"),
    ] {
        if let Some(v) = v {
            let s = string(v, ptr, false)?;
            if !is_stable_id(s) {
                return Err(violation(
                    ptr,
                    format!("{s:?} does not match ^[a-z0-9]+(?:-[a-z0-9]+)*$"),
                ));
            }
        }
    }
    string(present(snapshot), "/provenance/snapshot_id", true)?;
    string(present(surface), "/provenance/surface", true)?;
    one_of(present(mode), "/provenance/harness_mode", HARNESS_MODES)?;
    for (v, ptr) in [
        (model, "/provenance/model"),
        (provider, "/provenance/provider"),
    ] {
        if let Some(v) = v {
            string(v, ptr, false)?;
        }
    }
    Ok(())
}

/// `P-TRACE-8`: `redaction`, a closed object: a status of the enum, unique non-empty
/// field names, optional notes.
fn check_redaction<'a, N: Node<'a>>(red: N) -> Result<(), Error> {
    let red = object(red, "/redaction")?;
    let [status, fields, notes] = closed(red, "/redaction", &["status", "fields", "notes"], 2)?;
    one_of(present(status), "/redaction/status", REDACTION_STATUS)?;
    let fields = present(fields);
    let items = fields.items().ok_or_else(|| {
        violation(
            "/redaction/fields",
            format!("must be an array, found {}", fields.kind()),
        )
    })?;
    for (i, item) in items.iter().enumerate() {
        let s = string(*item, &format!("/redaction/fields/{i}"), true)?;
        if items[..i].iter().any(|x| x.as_str() == Some(s)) {
            return Err(violation(
                &format!("/redaction/fields/{i}"),
                "items must be unique",
            ));
        }
    }
    if let Some(n) = notes {
        string(n, "/redaction/notes", false)?;
    }
    Ok(())
}

/// `P-TRACE-9`: `duration_ms`, when present, is a number >= 0.
fn check_duration<'a, N: Node<'a>>(duration: Option<N>) -> Result<(), Error> {
    if let Some(d) = duration {
        let negative = match (d.int_text(), d.float()) {
            (Some(s), _) => s.starts_with('-'),
            (None, Some(f)) => f < 0.0,
            (None, None) => {
                return Err(violation(
                    "/duration_ms",
                    format!("must be a number, found {}", d.kind()),
                ))
            }
        };
        if negative {
            return Err(violation("/duration_ms", "must be >= 0"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Error, Node, Texts, Value, PASSED_KEEP, PASSED_MAX_BYTES};
    use crate::error::ErrorCode;
    use std::cell::Cell;

    /// A value with a text, as the tape gives one of the event's members.
    #[derive(Clone, Copy)]
    struct Texted<'a>(&'a Value, &'a [u8]);

    impl<'a> Node<'a> for Texted<'a> {
        fn kind(self) -> &'static str {
            self.0.kind()
        }
        fn as_str(self) -> Option<&'a str> {
            self.0.as_str()
        }
        fn is_object(self) -> bool {
            self.0.is_object()
        }
        fn members(self) -> impl Iterator<Item = (&'a [u8], Self)> {
            Node::members(self.0).map(|(k, v)| (k, Texted(v, b"")))
        }
        fn items(self) -> Option<Vec<Self>> {
            Node::items(self.0).map(|i| i.into_iter().map(|v| Texted(v, b"")).collect())
        }
        fn int_text(self) -> Option<&'a str> {
            self.0.int_text()
        }
        fn float(self) -> Option<f64> {
            self.0.float()
        }
        fn text(self) -> Option<&'a [u8]> {
            Some(self.1)
        }
    }

    /// A passed text passes again without its rule being run; any other text, a text
    /// that failed, one pushed out by `PASSED_KEEP` later ones, and one longer than
    /// `PASSED_MAX_BYTES` are read again.
    #[test]
    fn only_a_kept_passed_text_passes_unread() {
        let v = Value::Null;
        let runs = Cell::new(0);
        let rule = |ok: bool| {
            let runs = &runs;
            move |_: Texted| {
                runs.set(runs.get() + 1);
                if ok {
                    Ok(())
                } else {
                    Err(Error::new(ErrorCode::ProfileViolation, "no"))
                }
            }
        };
        let mut texts = Texts::default();
        let a: &[u8] = br#"{"a":1}"#;
        assert!(texts.check(Texted(&v, a), rule(true)).is_ok());
        assert_eq!(runs.get(), 1);
        assert!(texts.check(Texted(&v, a), rule(false)).is_ok(), "kept");
        assert_eq!(runs.get(), 1, "a kept text is not read again");
        let b: &[u8] = br#"{"a":2}"#;
        assert!(texts.check(Texted(&v, b), rule(false)).is_err());
        assert!(texts.check(Texted(&v, b), rule(false)).is_err(), "not kept");
        assert_eq!(runs.get(), 3);
        let later: Vec<Vec<u8>> = (0..PASSED_KEEP)
            .map(|i| format!("{{\"b\":{i}}}").into_bytes())
            .collect();
        for t in &later {
            assert!(texts.check(Texted(&v, t), rule(true)).is_ok());
        }
        assert!(texts.check(Texted(&v, &later[0]), rule(false)).is_ok());
        assert!(
            texts.check(Texted(&v, a), rule(false)).is_err(),
            "pushed out"
        );
        let long = vec![b' '; PASSED_MAX_BYTES + 1];
        assert!(texts.check(Texted(&v, &long), rule(true)).is_ok());
        assert!(
            texts.check(Texted(&v, &long), rule(false)).is_err(),
            "too long"
        );
        let edge = vec![b' '; PASSED_MAX_BYTES];
        assert!(texts.check(Texted(&v, &edge), rule(true)).is_ok());
        assert!(texts.check(Texted(&v, &edge), rule(false)).is_ok(), "kept");
    }
}
