//! The records of a run (SPEC.md 13.3 and 13.5): each check's and each case's outcome,
//! cause and evidence, and their counts. One type per line kind, shared by everything
//! that writes or reads a report: the runner writes [`CaseRecord::to_json`], and
//! `summary`, the results page and shard merging read the same records back with
//! [`CaseRecord::from_json`].

use std::time::Duration;

use crate::json::Value;
use crate::preview::Preview;
use crate::vectors::Level;
use crate::verdict::Cause;

/// The outcome of one check or case (SPEC.md 13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Passed,
    Failed,
    Errored,
    Skipped,
}

impl Outcome {
    pub const ALL: [Outcome; 4] = [
        Outcome::Passed,
        Outcome::Failed,
        Outcome::Errored,
        Outcome::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
            Outcome::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Failed or errored: what makes a run fail.
    pub fn is_bad(self) -> bool {
        matches!(self, Outcome::Failed | Outcome::Errored)
    }
}

/// The longest answer a check's record keeps whole: 64 KiB of canonical text. A larger
/// answer is judged whole and then kept as [`kept_answer`]'s bounded summary (SPEC.md
/// 13.5): a valid 60 MiB reply per check must not stay in memory for the run.
pub const MAX_KEPT_ANSWER_BYTES: usize = 64 << 10;

/// How many bytes of a large answer's canonical text its summary previews.
pub const OMITTED_PREVIEW_BYTES: usize = 1024;

/// What a check's record keeps of an answer, `{"result":...}` or `{"error":...}`: the
/// answer itself when its canonical text is at most [`MAX_KEPT_ANSWER_BYTES`], else
/// `{"omitted":{"bytes":N,"sha256":"sha256:HEX","preview":TEXT}}`: its size, the SHA-256
/// of its canonical text, and the escaped ([`crate::preview::escape`]) beginning of it.
/// Called after the answer was judged, so the verdict saw all of it.
pub fn kept_answer(answer: Value) -> Value {
    let mut text = Vec::new();
    crate::canonical::write(&answer, &mut text);
    if text.len() <= MAX_KEPT_ANSWER_BYTES {
        return answer;
    }
    drop(answer);
    let (mut preview, shown) = crate::preview::escape(&text, OMITTED_PREVIEW_BYTES);
    if shown < text.len() {
        preview.push('…');
    }
    let digest = format!("sha256:{}", crate::fingerprint::sha256_hex(&text));
    Value::object([(
        "omitted",
        Value::object([
            ("bytes", Value::from_u64(text.len() as u64)),
            ("sha256", Value::from(digest)),
            ("preview", Value::from(preview)),
        ]),
    )])
}

/// The longest message a check's record keeps (an adapter's error message is part of
/// it): 4 KiB, cut on a character boundary and ended with `…`.
pub const MAX_MESSAGE_BYTES: usize = 4 << 10;

/// `message` cut to at most [`MAX_MESSAGE_BYTES`] (plus the `…`).
pub fn bounded_message(mut message: String) -> String {
    if message.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}

/// The case line's member giving the bytes behind its failed fingerprint or canonical
/// check ([`Bytes`]); read back, it is one of [`CaseRecord::extra`]'s.
pub const BYTES_MEMBER: &str = "bytes";

/// A stretch of a text: its bytes from `start` (cut on character boundaries) of a text
/// of `size` bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Excerpt {
    pub start: usize,
    pub text: String,
    pub size: usize,
}

impl Excerpt {
    /// The stretch of `text` around byte `at` ([`crate::preview::window`]).
    pub fn around(text: &str, at: usize, before: usize, after: usize) -> Excerpt {
        let (start, w) = crate::preview::window(text, at, before, after);
        Excerpt {
            start,
            text: w.to_owned(),
            size: text.len(),
        }
    }

    fn to_json(&self) -> Value {
        Value::object([
            ("start", Value::from_u64(self.start as u64)),
            ("text", Value::from(self.text.as_str())),
            ("size", Value::from_u64(self.size as u64)),
        ])
    }

    fn from_json(v: &Value) -> Option<Excerpt> {
        let n = |k: &str| {
            v.get(k)
                .and_then(Value::as_i64)
                .and_then(|n| usize::try_from(n).ok())
        };
        Some(Excerpt {
            start: n("start")?,
            text: v.get("text")?.as_str()?.to_owned(),
            size: n("size")?,
        })
    }
}

/// What a failed fingerprint or canonical check looks like in bytes (SPEC.md 13.3): for a
/// fingerprint, the first event whose prefix the implementation hashes differently and
/// that event's canonical text as the reference writes it and, when the implementation
/// offers `canonical`, as it does; for a canonical text, the expected and the actual
/// text. Both texts are cut to a window around their first differing byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes {
    /// The check (1-based, as explanations number them).
    pub check: usize,
    /// The check's operation: `fingerprint` or `canonical`.
    pub op: String,
    /// The first event whose prefix fingerprint differs: its sequence and line.
    pub event: Option<(i64, u64)>,
    /// The reference's text: the event's canonical text, or the expected canonical text.
    pub reference: Option<Excerpt>,
    /// The implementation's text of the same value: its `canonical` of the event's line,
    /// or its answer.
    pub actual: Option<Excerpt>,
    /// The byte offset of the first difference between the two texts.
    pub offset: Option<usize>,
    /// What else there is to say: why the implementation's text is missing, why the
    /// event could not be found.
    pub note: Option<String>,
}

impl Bytes {
    pub fn to_json(&self) -> Value {
        let opt = |e: &Option<Excerpt>| e.as_ref().map_or(Value::Null, Excerpt::to_json);
        Value::object([
            ("check", Value::from_u64(self.check as u64)),
            ("op", Value::from(self.op.as_str())),
            (
                "sequence",
                self.event.map_or(Value::Null, |(s, _)| Value::from_i64(s)),
            ),
            (
                "line",
                self.event.map_or(Value::Null, |(_, l)| Value::from_u64(l)),
            ),
            ("reference", opt(&self.reference)),
            ("actual", opt(&self.actual)),
            (
                "offset",
                self.offset
                    .map_or(Value::Null, |o| Value::from_u64(o as u64)),
            ),
            (
                "note",
                self.note.as_deref().map_or(Value::Null, Value::from),
            ),
        ])
    }

    /// Read back; `None` when `check` or `op` is missing.
    pub fn from_json(v: &Value) -> Option<Bytes> {
        let n = |k: &str| v.get(k).and_then(Value::as_i64);
        let excerpt = |k: &str| v.get(k).and_then(Excerpt::from_json);
        Some(Bytes {
            check: usize::try_from(n("check")?).ok()?,
            op: v.get("op")?.as_str()?.to_owned(),
            event: n("sequence").zip(n("line").and_then(|l| u64::try_from(l).ok())),
            reference: excerpt("reference"),
            actual: excerpt("actual"),
            offset: n("offset").and_then(|o| usize::try_from(o).ok()),
            note: v.get("note").and_then(Value::as_str).map(str::to_owned),
        })
    }
}

/// One check's record in a report.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRecord {
    pub op: Value,
    pub expected: Value,
    pub actual: Value,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<Cause>,
    pub pointer: Option<String>,
}

/// One case's record.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseRecord {
    pub id: String,
    pub group: String,
    pub level: Level,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<Cause>,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub description: String,
    /// The input's size and escaped preview (the report's `input`); `None` only for a
    /// report line that gives none (older kits' reports).
    pub input: Option<Preview>,
    pub checks: Vec<CheckRecord>,
    pub duration: Duration,
    /// The adapter's stderr tail for this case (JUnit `system-err`; not in the report).
    pub stderr: String,
    /// Extra members of a properties case (`rule`, `first_case`, `seed`, ...), and, read
    /// back, every member this kit does not know.
    pub extra: Vec<(String, Value)>,
}

/// The members [`CaseRecord::to_json`] writes before its `extra` ones.
const CASE_MEMBERS: [&str; 13] = [
    "type",
    "id",
    "group",
    "level",
    "outcome",
    "message",
    "cause",
    "rules",
    "tags",
    "description",
    "duration_ms",
    "input",
    "checks",
];

/// A case line that cannot be read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("case line without a string `id`")]
    NoId,
    #[error("case {id}: no valid `outcome`")]
    NoOutcome { id: String },
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect())
}

fn cause_json(c: Option<Cause>) -> Value {
    c.map_or(Value::Null, |c| Value::from(c.as_str()))
}

fn text(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn cause_of(v: &Value) -> Option<Cause> {
    v.get("cause")
        .and_then(Value::as_str)
        .and_then(Cause::parse)
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

impl CheckRecord {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("op", self.op.clone()),
            ("outcome", Value::from(self.outcome.as_str())),
            ("expected", self.expected.clone()),
            ("actual", self.actual.clone()),
            ("message", Value::from(self.message.as_str())),
            ("cause", cause_json(self.cause)),
            (
                "pointer",
                self.pointer.as_deref().map_or(Value::Null, Value::from),
            ),
        ])
    }

    /// A check read back; what is missing reads as null, empty or skipped.
    pub fn from_json(v: &Value) -> CheckRecord {
        let value = |k: &str| v.get(k).cloned().unwrap_or(Value::Null);
        CheckRecord {
            op: value("op"),
            expected: value("expected"),
            actual: value("actual"),
            outcome: v
                .get("outcome")
                .and_then(Value::as_str)
                .and_then(Outcome::parse)
                .unwrap_or(Outcome::Skipped),
            message: text(v, "message"),
            cause: cause_of(v),
            pointer: v.get("pointer").and_then(Value::as_str).map(str::to_owned),
        }
    }
}

/// The group of the differential phase's cases (SPEC.md 13.6): a kind is the case
/// `properties/<op>/<8 hex>` of group `properties/<op>`, its adapter faults the case
/// `properties/adapter-faults`.
pub const PROPERTIES: &str = "properties";

/// Whether a case id is one of the differential phase's (`properties/...`).
pub fn is_differential_id(id: &str) -> bool {
    id.strip_prefix(PROPERTIES)
        .is_some_and(|rest| rest.starts_with('/'))
}

impl CaseRecord {
    /// The operation of a differential kind's record (group `properties/<op>`).
    pub fn differential_op(&self) -> Option<&str> {
        self.group.strip_prefix(PROPERTIES)?.strip_prefix('/')
    }

    /// Whether the record is one of the differential phase's.
    pub fn is_differential(&self) -> bool {
        is_differential_id(&self.id)
    }

    /// Whether the record is a shape of the scale phase (`scale/...`, Q-SCALE-3).
    pub fn is_scale(&self) -> bool {
        self.id.starts_with("scale/") && self.tags.iter().any(|t| t == "scale")
    }

    /// Why a skipped case was not asked at all, when it is because the implementation
    /// does not offer its operations or profile: `"operation not offered: canonical"`
    /// (the distinct reasons of its checks, joined by `; `). `None` for every other case
    /// (one skipped by the skip list, answered `unsupported`, or checked).
    pub fn not_offered(&self) -> Option<String> {
        if self.outcome != Outcome::Skipped || self.checks.is_empty() {
            return None;
        }
        let mut why: Vec<&str> = Vec::new();
        for c in &self.checks {
            let offered = c.outcome != Outcome::Skipped
                || !(c.message.starts_with("operation not offered: ")
                    || c.message.starts_with("profile not offered: "));
            if offered {
                return None;
            }
            if !why.contains(&c.message.as_str()) {
                why.push(&c.message);
            }
        }
        Some(why.join("; "))
    }

    /// The bytes behind its failed fingerprint or canonical check, if the run found them
    /// ([`BYTES_MEMBER`]).
    pub fn bytes(&self) -> Option<Bytes> {
        self.extra
            .iter()
            .find(|(k, _)| k == BYTES_MEMBER)
            .and_then(|(_, v)| Bytes::from_json(v))
    }

    /// Set (or replace) [`CaseRecord::bytes`].
    pub fn set_bytes(&mut self, bytes: Option<&Bytes>) {
        self.extra.retain(|(k, _)| k != BYTES_MEMBER);
        if let Some(b) = bytes {
            self.extra.push((BYTES_MEMBER.into(), b.to_json()));
        }
    }

    /// Did any check of this case run (answer compared, or an adapter fault)?
    pub fn checked(&self) -> bool {
        self.checks.iter().any(|c| c.outcome != Outcome::Skipped)
    }

    /// The record as a report line (SPEC.md 13.5).
    pub fn to_json(&self) -> Value {
        let mut m: Vec<(String, Value)> = [
            ("type", Value::from("case")),
            ("id", Value::from(self.id.as_str())),
            ("group", Value::from(self.group.as_str())),
            ("level", Value::from(self.level.as_str())),
            ("outcome", Value::from(self.outcome.as_str())),
            ("message", Value::from(self.message.as_str())),
            ("cause", cause_json(self.cause)),
            ("rules", strings(&self.rules)),
            ("tags", strings(&self.tags)),
            ("description", Value::from(self.description.as_str())),
            (
                "duration_ms",
                Value::from_u64(self.duration.as_millis() as u64),
            ),
            (
                "checks",
                Value::Array(self.checks.iter().map(CheckRecord::to_json).collect()),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        if let Some(p) = &self.input {
            // Where the kit has always written it: after `duration_ms`.
            let at = m.len() - 1;
            m.insert(at, ("input".into(), p.to_json()));
        }
        m.extend(self.extra.iter().cloned());
        Value::Object(m)
    }

    /// A case line read back. `id` and `outcome` are required; every other member may
    /// be missing (reports of older kits lack `cause`, `rules` or `input`): the group is
    /// then the id's, and members this kit does not know are kept in `extra`.
    pub fn from_json(v: &Value) -> Result<CaseRecord, RecordError> {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or(RecordError::NoId)?
            .to_owned();
        let outcome = v
            .get("outcome")
            .and_then(Value::as_str)
            .and_then(Outcome::parse)
            .ok_or_else(|| RecordError::NoOutcome { id: id.clone() })?;
        let group = v
            .get("group")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| id.rsplit_once('/').map_or("", |(g, _)| g).to_owned());
        let input = v.get("input");
        let preview = input.and_then(|i| i.get("preview")).and_then(Value::as_str);
        let size = input
            .and_then(|i| i.get("size"))
            .and_then(Value::as_i64)
            .and_then(|n| usize::try_from(n).ok());
        Ok(CaseRecord {
            group,
            level: v
                .get("level")
                .and_then(Value::as_str)
                .and_then(Level::parse)
                .unwrap_or(Level::Must),
            outcome,
            message: text(v, "message"),
            cause: cause_of(v),
            rules: string_list(v.get("rules")),
            tags: string_list(v.get("tags")),
            description: text(v, "description"),
            input: preview.map(|text| Preview {
                size: size.unwrap_or(0),
                shown: text.len(),
                text: text.to_owned(),
                final_newline: false,
            }),
            checks: v
                .get("checks")
                .and_then(Value::as_array)
                .unwrap_or(&[])
                .iter()
                .map(CheckRecord::from_json)
                .collect(),
            duration: Duration::from_millis(
                v.get("duration_ms")
                    .and_then(Value::as_i64)
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0),
            ),
            stderr: String::new(),
            extra: v
                .as_object()
                .unwrap_or(&[])
                .iter()
                .filter(|(k, _)| !CASE_MEMBERS.contains(&k.as_str()))
                .cloned()
                .collect(),
            id,
        })
    }
}

/// A case's cause, from its outcome and checks: `adapter_fault` for an errored case;
/// for a failed one, the cause of its first failed check that is not `wrong_location`,
/// else `wrong_location` (a case is location-only when all its failures are).
pub fn case_cause(outcome: Outcome, checks: &[CheckRecord]) -> Option<Cause> {
    match outcome {
        Outcome::Errored => Some(Cause::AdapterFault),
        Outcome::Failed => {
            let failed = || {
                checks
                    .iter()
                    .filter(|c| c.outcome == Outcome::Failed)
                    .filter_map(|c| c.cause)
            };
            failed()
                .find(|c| *c != Cause::WrongLocation)
                .or_else(|| failed().next())
        }
        Outcome::Passed | Outcome::Skipped => None,
    }
}

/// Counts of case outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub errored: u64,
    pub skipped: u64,
}

impl Counts {
    pub fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Errored => self.errored += 1,
            Outcome::Skipped => self.skipped += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.errored + self.skipped
    }

    pub fn of<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> Counts {
        let mut c = Counts::default();
        for r in records {
            c.add(r.outcome);
        }
        c
    }

    /// The counts as reports write them.
    pub fn to_json(&self) -> Value {
        Value::object([
            ("passed", Value::from_u64(self.passed)),
            ("failed", Value::from_u64(self.failed)),
            ("errored", Value::from_u64(self.errored)),
            ("skipped", Value::from_u64(self.skipped)),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_line_reads_back_as_written() {
        let rec = CaseRecord {
            id: "journal/gap".into(),
            group: "journal".into(),
            level: Level::Must,
            outcome: Outcome::Failed,
            message: "m".into(),
            cause: Some(Cause::WrongLocation),
            rules: vec!["J-SEQ-1".into()],
            tags: vec!["t".into()],
            description: "d".into(),
            input: Some(Preview::of(b"{}\n")),
            checks: vec![CheckRecord {
                op: Value::object([("op", Value::from("validate"))]),
                expected: Value::Null,
                actual: Value::from_i64(1),
                outcome: Outcome::Failed,
                message: "why".into(),
                cause: Some(Cause::WrongLocation),
                pointer: Some("/error/line".into()),
            }],
            duration: Duration::from_millis(3),
            stderr: String::new(),
            extra: vec![("rule".into(), Value::from("J-SEQ-1"))],
        };
        let back = CaseRecord::from_json(&rec.to_json()).unwrap();
        assert_eq!(back.to_json(), rec.to_json());
        assert_eq!(back.extra, rec.extra);
        // The bytes behind a failed fingerprint read back as written, and replace.
        let mut rec = rec;
        let bytes = Bytes {
            check: 2,
            op: "fingerprint".into(),
            event: Some((3, 4)),
            reference: Some(Excerpt::around("{\"a\":1.0}", 6, 2, 2)),
            actual: Some(Excerpt::around("{\"a\":1}", 6, 2, 2)),
            offset: Some(6),
            note: None,
        };
        assert_eq!(
            bytes
                .reference
                .as_ref()
                .map(|e| (e.start, e.text.as_str(), e.size)),
            Some((4, ":1.0", 9))
        );
        rec.set_bytes(Some(&bytes));
        rec.set_bytes(Some(&bytes));
        let back = CaseRecord::from_json(&rec.to_json()).unwrap();
        assert_eq!(back.bytes(), Some(bytes));
        assert_eq!(
            back.extra.iter().filter(|(k, _)| k == BYTES_MEMBER).count(),
            1
        );
        rec.set_bytes(None);
        assert_eq!(rec.bytes(), None);
        let bare = crate::json::parse(r#"{"type":"case","id":"a/b","outcome":"passed"}"#).unwrap();
        let b = CaseRecord::from_json(&bare).unwrap();
        assert_eq!((b.group.as_str(), b.outcome), ("a", Outcome::Passed));
        assert_eq!(b.input, None);
        let no_outcome = crate::json::parse(r#"{"id":"a/b","outcome":"fine"}"#).unwrap();
        assert_eq!(
            CaseRecord::from_json(&no_outcome),
            Err(RecordError::NoOutcome { id: "a/b".into() })
        );
    }
}
