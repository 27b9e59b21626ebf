//! The bytes behind a failed fingerprint or canonical check (SPEC.md 13.3, issue 22
//! item 5): which event an implementation serialises differently, and how.
//!
//! A fingerprint is a hash: two digests say nothing about which value was written
//! differently. But the fingerprint of a prefix is defined (`until`, R-SEL-1, F-FP-1), so
//! [`fingerprint`] asks the implementation for the fingerprints of prefixes, by binary
//! search over `until` (at most `ceil(log2(n)) + 1` requests), and compares each with
//! the reference's: the first `until` k whose fingerprint differs names the event of
//! sequence k. That event's line then goes to the implementation's `canonical`, when it
//! offers it (one request more), and the two texts are compared byte by byte; equal
//! texts mean the difference is in how the fingerprint frames, hashes or selects the
//! events. Every request goes through the same adapter path and timeout as a check; a
//! fault, an error or `unsupported` only ends the search, with a note. A wrong
//! canonical text needs no request: [`canonical()`] compares the two texts.
//!
//! [`Probes`] bounds the cost per run: only the first [`PROBED_PER_RUN`] wrong-value
//! fingerprint failures, in corpus order, are looked into. Nothing here changes a
//! verdict: it only adds the case line's `bytes` member ([`crate::record::Bytes`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::adapter::{Implementation, Reply};
use crate::canonical;
use crate::event::JournalProfile;
use crate::fingerprint::Fingerprinter;
use crate::journal::{next_event, Checker};
use crate::json::Value;
use crate::ops::{OpKind, Operation, Profile};
use crate::record::{Bytes, CaseRecord, Excerpt};
use crate::verdict::Answer;
use crate::wire::LineReader;

/// How many wrong-value fingerprint failures of a run are looked into.
pub const PROBED_PER_RUN: usize = 20;

/// How many bytes before and after the first difference a text's window keeps.
pub const BEFORE: usize = 32;
pub const AFTER: usize = 48;

/// How many bytes of the reference's text are kept when there is nothing to compare it
/// with (the preview's length).
pub const ALONE: usize = crate::preview::PREVIEW_BYTES;

/// The budget of one run's probes, shared by its workers.
///
/// Workers probe while the budget is open (`Probes::take`); the run's collector, which
/// sees the records in corpus order, admits them ([`Probes::admit`]): the first
/// [`PROBED_PER_RUN`] fingerprint failures keep what was found, later ones get a note,
/// and once the last admitted one is seen the budget closes. So what a run shows does
/// not depend on `--jobs` (a hard cap of twice the budget bounds the requests when
/// workers run far ahead of the collector).
#[derive(Debug)]
pub struct Probes {
    limit: usize,
    closed: AtomicBool,
    started: AtomicUsize,
    seen: AtomicUsize,
}

impl Default for Probes {
    fn default() -> Self {
        Probes::new(PROBED_PER_RUN)
    }
}

impl Probes {
    pub fn new(limit: usize) -> Probes {
        Probes {
            limit,
            closed: AtomicBool::new(false),
            started: AtomicUsize::new(0),
            seen: AtomicUsize::new(0),
        }
    }

    /// May a worker probe one more failure?
    fn take(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
            && self.started.fetch_add(1, Ordering::SeqCst) < 2 * self.limit
    }

    /// The collector's turn, in corpus order: count a fingerprint failure, and replace
    /// what was found for those past the budget by a note.
    /// A record that did not fail (a skip list settled it) keeps nothing.
    pub fn admit(&self, rec: &mut CaseRecord) {
        let Some(b) = rec.bytes() else { return };
        if !rec.outcome.is_bad() {
            rec.set_bytes(None);
            return;
        }
        if b.op != OpKind::Fingerprint.as_str() {
            return;
        }
        let n = self.seen.fetch_add(1, Ordering::SeqCst) + 1;
        if n >= self.limit {
            self.closed.store(true, Ordering::SeqCst);
        }
        if n > self.limit {
            rec.set_bytes(Some(&not_probed(b.check, self.limit)));
        }
    }

    /// How many fingerprint failures were past the budget.
    pub fn over(&self) -> usize {
        self.seen.load(Ordering::SeqCst).saturating_sub(self.limit)
    }

    /// The note for the end of a run whose failures went past the budget.
    pub fn note(&self) -> Option<String> {
        let over = self.over();
        (over > 0).then(|| {
            format!(
                "the first differing event was looked up for the first {} fingerprint failures only ({over} more not looked into)",
                self.limit
            )
        })
    }
}

fn not_probed(check: usize, limit: usize) -> Bytes {
    Bytes {
        check,
        op: OpKind::Fingerprint.as_str().into(),
        note: Some(format!(
            "not looked into: only the first {limit} fingerprint failures of a run are"
        )),
        ..Bytes::default()
    }
}

/// The expected and the actual canonical text of a failed `canonical` check, compared.
pub fn canonical(check: usize, expected: &str, actual: &str) -> Option<Bytes> {
    let at = crate::preview::first_difference(expected.as_bytes(), actual.as_bytes())?;
    Some(Bytes {
        check,
        op: OpKind::Canonical.as_str().into(),
        reference: Some(Excerpt::around(expected, at, BEFORE, AFTER)),
        actual: Some(Excerpt::around(actual, at, BEFORE, AFTER)),
        offset: Some(at),
        ..Bytes::default()
    })
}

/// One event of the reference's reading of a journal prefix.
struct RefEvent {
    /// The fingerprint of events `0..=sequence`.
    fingerprint: String,
    line: u64,
    /// The line's bytes, as in the journal.
    raw: Vec<u8>,
    /// The event's canonical text.
    text: String,
}

/// The reference's reading of events `0..=k` of `input` (the events after `k` are not
/// read), or, with `k` `None`, the number of events.
fn reference(
    input: &[u8],
    profile: JournalProfile,
    k: Option<u64>,
) -> Result<(u64, Option<RefEvent>), String> {
    let mut lines = LineReader::new(input);
    let mut checker = Checker::new();
    let mut fp = Fingerprinter::new();
    while let Some((number, bytes, _)) = lines.next_line().map_err(|e| e.to_string())? {
        let ev = next_event(&mut checker, profile, number, bytes).map_err(|e| e.to_string())?;
        let text = canonical::to_string(&ev.value);
        fp.push_canonical(text.as_bytes());
        if Some(fp.count() - 1) == k {
            return Ok((
                fp.count(),
                Some(RefEvent {
                    fingerprint: fp.hex(),
                    line: number,
                    raw: bytes.to_vec(),
                    text,
                }),
            ));
        }
    }
    Ok((fp.count(), None))
}

/// What the implementation's fingerprint of events `0..=k` is next to the reference's.
enum Prefix {
    Same,
    Differs,
}

fn ask_prefix(
    imp: &mut dyn Implementation,
    profile: Profile,
    input: &[u8],
    k: u64,
    reference: &str,
) -> Result<Prefix, String> {
    let op = Operation::Fingerprint {
        until: Some(k as i64),
    };
    match imp.run(&op, profile, input) {
        Reply::Answer(Answer::Result(Value::String(h))) if h == reference => Ok(Prefix::Same),
        Reply::Answer(Answer::Result(_)) => Ok(Prefix::Differs),
        Reply::Answer(Answer::Error { code, .. }) => Err(format!(
            "the adapter answered error `{code}` to {}",
            canonical::to_string(&op.to_json())
        )),
        Reply::Unsupported => Err(format!(
            "the adapter answered unsupported to {}",
            canonical::to_string(&op.to_json())
        )),
        Reply::Fault(m) => Err(format!(
            "the adapter failed on {}: {}",
            canonical::to_string(&op.to_json()),
            crate::error::shorten(m.as_bytes(), 200)
        )),
    }
}

/// Look into the `check`-th check (1-based), a fingerprint with `until` that the
/// implementation answered with a wrong value: find the first event it hashes
/// differently and compare that event's canonical texts. With the budget spent, a note
/// says it was not looked into.
pub fn fingerprint(
    imp: &mut dyn Implementation,
    profile: Profile,
    input: &[u8],
    check: usize,
    until: Option<i64>,
    probes: &Probes,
) -> Bytes {
    let mut out = Bytes {
        check,
        op: OpKind::Fingerprint.as_str().into(),
        ..Bytes::default()
    };
    if !probes.take() {
        return not_probed(check, probes.limit);
    }
    if let Err(e) = search(imp, profile, input, until, &mut out) {
        out.note = Some(format!("the first differing event was not found: {e}"));
    }
    out
}

fn search(
    imp: &mut dyn Implementation,
    profile: Profile,
    input: &[u8],
    until: Option<i64>,
    out: &mut Bytes,
) -> Result<(), String> {
    let journal = profile.journal();
    let at = |k: u64| -> Result<RefEvent, String> {
        reference(input, journal, Some(k))?
            .1
            .ok_or_else(|| format!("the journal has no event of sequence {k}"))
    };
    // The last selected sequence: its prefix is known to differ when `until` was given;
    // without `until`, the whole journal's fingerprint differed, and asking with `until`
    // the last sequence tells whether `until` itself is what goes wrong.
    let last = match until {
        Some(u) => u64::try_from(u).map_err(|_| format!("`until` {u} is negative"))?,
        None => {
            let (count, _) = reference(input, journal, None)?;
            let last = count
                .checked_sub(1)
                .ok_or_else(|| "the journal has no event".to_owned())?;
            if let Prefix::Same = ask_prefix(imp, profile, input, last, &at(last)?.fingerprint)? {
                out.note = Some(format!(
                    "the adapter's fingerprint with `until` {last} (the last sequence) is right: \
                     it hashes the whole journal differently from its last prefix"
                ));
                return Ok(());
            }
            last
        }
    };
    let (mut lo, mut hi) = (0u64, last);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match ask_prefix(imp, profile, input, mid, &at(mid)?.fingerprint)? {
            Prefix::Differs => hi = mid,
            Prefix::Same => lo = mid + 1,
        }
    }
    let ev = at(hi)?;
    out.event = Some((hi as i64, ev.line));
    compare_event(imp, profile, &ev, out);
    Ok(())
}

/// The event's canonical text as the implementation writes it, next to the reference's.
fn compare_event(imp: &mut dyn Implementation, profile: Profile, ev: &RefEvent, out: &mut Bytes) {
    let alone = |out: &mut Bytes, note: String| {
        out.reference = Some(Excerpt::around(&ev.text, 0, 0, ALONE));
        out.note = Some(note);
    };
    // `canonical` reads any profile; prefer `core`, as the canonical vectors do.
    let offered = [Profile::Core, profile]
        .into_iter()
        .find(|p| imp.info().supports(&Operation::Canonical, *p));
    let Some(canon_profile) = offered else {
        return alone(out, "the adapter does not offer `canonical`".into());
    };
    match imp.run(&Operation::Canonical, canon_profile, &ev.raw) {
        Reply::Answer(Answer::Result(Value::String(t))) => {
            match crate::preview::first_difference(ev.text.as_bytes(), t.as_bytes()) {
                Some(at) => {
                    out.reference = Some(Excerpt::around(&ev.text, at, BEFORE, AFTER));
                    out.actual = Some(Excerpt::around(&t, at, BEFORE, AFTER));
                    out.offset = Some(at);
                }
                None => {
                    out.reference = Some(Excerpt::around(&ev.text, 0, 0, ALONE));
                    out.actual = out.reference.clone();
                }
            }
        }
        Reply::Answer(Answer::Result(v)) => alone(
            out,
            format!(
                "the adapter's `canonical` of the line is not a string: {}",
                crate::error::shorten(canonical::to_string(&v).as_bytes(), 200)
            ),
        ),
        Reply::Answer(Answer::Error { code, .. }) => alone(
            out,
            format!("the adapter's `canonical` of the line answered error `{code}`"),
        ),
        Reply::Unsupported => alone(
            out,
            "the adapter answered unsupported to `canonical` of the line".into(),
        ),
        Reply::Fault(m) => alone(
            out,
            format!(
                "the adapter failed on `canonical` of the line: {}",
                crate::error::shorten(m.as_bytes(), 200)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_reads_a_prefix() {
        let j = b"{\"event_id\":\"e0\",\"session_id\":\"s\",\"sequence\":0,\"type\":\"x\",\"payload\":{},\"provenance\":{\"run_id\":\"r\"}}\n\
{\"event_id\":\"e1\",\"session_id\":\"s\",\"sequence\":1,\"type\":\"x\",\"payload\":{\"a\":1.0},\"provenance\":{\"run_id\":\"r\"}}\n";
        let (count, none) = reference(j, JournalProfile::Core, None).unwrap();
        assert_eq!((count, none.is_none()), (2, true));
        let (_, ev) = reference(j, JournalProfile::Core, Some(1)).unwrap();
        let ev = ev.unwrap();
        assert_eq!(ev.line, 2);
        assert_eq!(
            ev.text,
            r#"{"event_id":"e1","payload":{"a":1.0},"provenance":{"run_id":"r"},"sequence":1,"session_id":"s","type":"x"}"#
        );
        assert_eq!(
            ev.fingerprint,
            crate::replay::fingerprint(&j[..], JournalProfile::Core, Some(1)).unwrap()
        );
    }

    #[test]
    fn the_budget_admits_in_order() {
        let probes = Probes::new(2);
        let rec = |op: &str| {
            let mut r = crate::runner::run_case(
                &mut crate::adapter::Reference::default(),
                &crate::vectors::load_embedded().unwrap()[0],
            );
            r.set_bytes(Some(&Bytes {
                check: 1,
                op: op.into(),
                offset: Some(3),
                ..Bytes::default()
            }));
            r
        };
        let mut skipped = rec("fingerprint");
        skipped.outcome = crate::record::Outcome::Skipped;
        probes.admit(&mut skipped);
        assert_eq!(skipped.bytes(), None, "a settled record keeps nothing");
        let mut seen = Vec::new();
        for op in ["fingerprint", "canonical", "fingerprint", "fingerprint"] {
            let mut r = rec(op);
            r.outcome = crate::record::Outcome::Failed;
            probes.admit(&mut r);
            seen.push(r.bytes().unwrap().offset);
        }
        assert_eq!(seen, [Some(3), Some(3), Some(3), None]);
        assert!(
            !probes.take(),
            "the budget closes at its last admitted failure"
        );
        assert_eq!(probes.over(), 1);
        assert!(probes
            .note()
            .unwrap()
            .contains("first 2 fingerprint failures"));
    }
}
