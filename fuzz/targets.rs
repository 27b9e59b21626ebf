//! The bodies of the fuzz targets, shared by the cargo-fuzz crate
//! (`fuzz/fuzz_targets/*.rs`, nightly) and the regression test
//! `tests/fuzz_regressions.rs` (stable, in CI). Each function takes one raw input,
//! runs the library on it and asserts invariants; any panic is a finding.
//!
//! Every target checks, besides "no panic":
//! - a rejected input yields an `ErrorCode` of `ErrorCode::ALL`, from the set of codes
//!   that layer can produce, located as SPEC.md says (line, column, sequence);
//! - the operations that share a layer agree with each other on the same input.
#![allow(dead_code)]

use jc::error::{Error, ErrorCode, ReadError};
use jc::event::JournalProfile;
use jc::json::{self, Number, Value};
use jc::ops::{self, Operation};
use jc::tree::{Step, Tree};
use jc::{adapter, branch, canonical, replay, vectors, wire};
use journal_conformance as jc;

/// Codes of the wire and JSON layers (W-*, C-*).
const WIRE_CODES: &[ErrorCode] = &[
    ErrorCode::UnexpectedBom,
    ErrorCode::InvalidUtf8,
    ErrorCode::BlankLine,
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateKey,
    ErrorCode::LoneSurrogate,
    ErrorCode::NumberOutOfRange,
    ErrorCode::NestingTooDeep,
];

/// Codes of the JSON layer alone (C-*).
const JSON_CODES: &[ErrorCode] = &[
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateKey,
    ErrorCode::LoneSurrogate,
    ErrorCode::NumberOutOfRange,
    ErrorCode::NestingTooDeep,
];

/// Codes a journal (validate, replay, fingerprint, branch) can report.
static JOURNAL_CODES: std::sync::LazyLock<Vec<ErrorCode>> = std::sync::LazyLock::new(|| {
    ErrorCode::ALL
        .iter()
        .copied()
        .filter(|c| c.is_journal())
        .collect()
});

/// Journal codes that carry no line (J-EMPTY-1, O-RANGE-1, B-ID-1).
const UNLOCATED: &[ErrorCode] = &[
    ErrorCode::EmptyJournal,
    ErrorCode::SequenceOutOfRange,
    ErrorCode::InvalidBranchId,
];

/// Codes loading a tree file can report (T-LINE-2 .. T-PARENT-1).
const TREE_LOAD_CODES: &[ErrorCode] = &[
    ErrorCode::UnexpectedBom,
    ErrorCode::InvalidUtf8,
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateKey,
    ErrorCode::LoneSurrogate,
    ErrorCode::NumberOutOfRange,
    ErrorCode::NestingTooDeep,
    ErrorCode::MalformedEntry,
    ErrorCode::DuplicateEntryId,
    ErrorCode::UnknownParent,
];

/// Codes a tree step can report (T-APPEND-1 .. T-APPENDNEW-1, T-NEXT-1).
const TREE_STEP_CODES: &[ErrorCode] = &[
    ErrorCode::EmptySession,
    ErrorCode::UnknownEntry,
    ErrorCode::UnknownCheckpoint,
    ErrorCode::HistoryDiverged,
    ErrorCode::IdSpaceExhausted,
];

// ---------------------------------------------------------------------------------------
// Helpers

/// The code is one of SPEC.md section 10 (and of the tree codes), and of `allowed`.
fn known_code(e: &Error, allowed: &[ErrorCode], what: &str) {
    assert!(
        ErrorCode::ALL.contains(&e.code),
        "{what}: code {:?} is not in ErrorCode::ALL",
        e.code
    );
    assert_eq!(
        ErrorCode::from_str_code(e.code.as_str()),
        Some(e.code),
        "{what}: code string does not read back"
    );
    assert!(
        allowed.contains(&e.code),
        "{what}: code `{}` cannot come from this layer ({e})",
        e.code
    );
}

/// Physical lines per W-LINE-1/W-LINE-3 (split on `\n`; a final empty remainder is not a line).
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// The bytes of the first `n` physical lines, each with its `\n` when it had one.
fn prefix_lines(data: &[u8], n: u64) -> &[u8] {
    let mut end = 0;
    let mut seen = 0;
    while seen < n && end < data.len() {
        match data[end..].iter().position(|&b| b == b'\n') {
            Some(p) => end += p + 1,
            None => end = data.len(),
        }
        seen += 1;
    }
    &data[..end]
}

fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn invalid<T>(r: Result<T, ReadError>) -> Result<T, Error> {
    match r {
        Ok(v) => Ok(v),
        Err(ReadError::Invalid(e)) => Err(e),
        Err(ReadError::Io(e)) => panic!("reading from a byte slice gave an I/O error: {e}"),
    }
}

/// A located wire/JSON error: column 1..=len+1.
fn check_column(e: &Error, len: usize, what: &str) {
    let c = e
        .column
        .unwrap_or_else(|| panic!("{what}: `{}` without a column", e.code));
    assert!(
        c >= 1 && c <= len as u64 + 1,
        "{what}: column {c} outside 1..={}",
        len + 1
    );
}

/// Canonical text (C-*): one line, parses back to the same value, and is a fixed point;
/// every float is spelled as the shortest round-tripping digits.
fn canonical_roundtrip(v: &Value) {
    let text = canonical::to_string(v);
    assert!(
        !text.contains('\n'),
        "canonical text holds a raw newline: {text:?}"
    );
    let back = json::parse(&text)
        .unwrap_or_else(|e| panic!("canonical text does not parse ({e}): {text:?}"));
    assert!(
        back.same(v),
        "canonical text reads back as another value: {text:?}"
    );
    assert_eq!(
        canonical::to_string(&back),
        text,
        "canonical text is not a fixed point"
    );
    check_floats(v);
}

fn check_floats(v: &Value) {
    match v {
        Value::Number(Number::Float(f)) => check_float(*f),
        Value::Array(items) => items.iter().for_each(check_floats),
        Value::Object(members) => members.iter().for_each(|(_, v)| check_floats(v)),
        _ => {}
    }
}

/// C-NUM-5: the spelling reads back as the same double, has as many significant digits
/// as Rust's shortest round-trip form, and is positional exactly when -4 <= exp < 16.
fn check_float(f: f64) {
    let s = canonical::format_float(f);
    let back: f64 = s
        .parse()
        .unwrap_or_else(|_| panic!("float spelling {s:?} does not parse"));
    assert_eq!(
        back.to_bits(),
        f.to_bits(),
        "float spelling {s:?} reads back as {back:?}, not {f:?}"
    );
    if f == 0.0 {
        return;
    }
    let sig = |m: &str| -> usize {
        let d: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
        d.trim_start_matches('0').trim_end_matches('0').len()
    };
    let rust = format!("{:e}", f.abs());
    let (rm, rexp) = rust.split_once('e').unwrap();
    let ours = s.trim_start_matches('-');
    let ours_mantissa = ours.split_once('e').map_or(ours, |(m, _)| m);
    assert_eq!(
        sig(ours_mantissa),
        sig(rm),
        "float {f:?}: {s:?} is not as short as {rust:?}"
    );
    let exp: i32 = rexp.parse().unwrap();
    assert_eq!(
        !ours.contains('e'),
        (-4..16).contains(&exp),
        "float {f:?}: {s:?} has the wrong notation for exponent {exp}"
    );
}

// ---------------------------------------------------------------------------------------
// wire_json: one line through W-* and C-*

/// Raw bytes as one journal line (`wire::parse_line`) and as one JSON text
/// (`json::parse_bytes`): they agree except for W-BOM-1/W-BLANK-1, errors are located,
/// accepted values survive canonical text, and the parser agrees with serde_json on
/// acceptance wherever the spec does not decide otherwise.
pub fn wire_json(data: &[u8]) {
    let line = wire::parse_line(7, data);
    let plain = json::parse_bytes(data);
    if let Err(e) = &line {
        known_code(e, WIRE_CODES, "parse_line");
        assert_eq!(e.line, Some(7), "parse_line: wrong line");
        check_column(e, data.len(), "parse_line");
        assert!(e.sequence.is_none() && e.event_id.is_none());
    }
    if let Err(e) = &plain {
        let mut allowed = JSON_CODES.to_vec();
        allowed.push(ErrorCode::InvalidUtf8);
        known_code(e, &allowed, "parse_bytes");
        assert!(e.line.is_none(), "parse_bytes: a line for a bare text");
        check_column(e, data.len(), "parse_bytes");
    }
    let blank = data.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
    if data.starts_with(wire::BOM) {
        let e = line.as_ref().expect_err("a BOM line was accepted");
        assert_eq!((e.code, e.column), (ErrorCode::UnexpectedBom, Some(1)));
    } else if blank {
        let e = line.as_ref().expect_err("a blank line was accepted");
        assert_eq!((e.code, e.column), (ErrorCode::BlankLine, Some(1)));
    } else {
        match (&line, &plain) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "parse_line and parse_bytes disagree"),
            (Err(a), Err(b)) => {
                assert_eq!((a.code, a.column), (b.code, b.column));
                assert_eq!(a.message, b.message);
            }
            (a, b) => panic!("parse_line {a:?} but parse_bytes {b:?}"),
        }
    }
    if let Ok(v) = &plain {
        canonical_roundtrip(v);
    }
    serde_differential(data, &plain);
}

/// serde_json accepts exactly the RFC 8259 texts, with three documented departures
/// (SPEC.md C-KEY-2, C-NUM-3/C-NUM-6 and C-DEPTH-1 decide differently from serde_json).
fn serde_differential(data: &[u8], ours: &Result<Value, Error>) {
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match (ours, &theirs) {
        (Ok(_), Ok(_)) => {}
        (Err(e), Err(_)) => {
            let _ = e;
        }
        (Ok(_), Err(s)) => {
            let m = s.to_string();
            // serde_json allows 127 levels (we allow 128) and reads integers beyond
            // u64 as doubles, failing where they overflow.
            assert!(
                m.contains("recursion limit") || m.contains("number out of range"),
                "we accept what serde_json rejects ({m}): {:?}",
                String::from_utf8_lossy(data)
            );
        }
        (Err(e), Ok(_)) => assert!(
            matches!(
                e.code,
                ErrorCode::DuplicateKey | ErrorCode::NumberOutOfRange
            ),
            "we reject ({e}) what serde_json accepts: {:?}",
            String::from_utf8_lossy(data)
        ),
    }
}

// ---------------------------------------------------------------------------------------
// canonical: ops::parse_document and the canonical text

/// One JSON document (O-CANON-1): errors are located by line and column; on success the
/// canonical text parses to a value with the identical canonical text, `same()` as the
/// original, and the `canonical` operation returns exactly that text.
pub fn canonical(data: &[u8]) {
    match ops::parse_document(data) {
        Err(e) => {
            let mut allowed = JSON_CODES.to_vec();
            allowed.extend([ErrorCode::InvalidUtf8, ErrorCode::UnexpectedBom]);
            known_code(&e, &allowed, "parse_document");
            let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
            let line = e.line.expect("parse_document: error without a line");
            assert!(
                (1..=newlines + 1).contains(&line),
                "parse_document: line {line} outside 1..={}",
                newlines + 1
            );
            assert!(e.column.is_some_and(|c| c >= 1));
            if !data.starts_with(wire::BOM) {
                let p = json::parse_bytes(data).expect_err("parse_bytes accepts it");
                assert_eq!(p.code, e.code, "parse_document and parse_bytes disagree");
            }
        }
        Ok(v) => {
            let text = canonical::to_string(&v);
            let again = ops::parse_document(text.as_bytes())
                .unwrap_or_else(|e| panic!("canonical text is not a document ({e}): {text:?}"));
            assert_eq!(
                canonical::to_string(&again),
                text,
                "canonical text changes on a second pass"
            );
            assert!(again.same(&v), "canonical text reads back as another value");
            assert!(v.same(&v));
            canonical_roundtrip(&v);
            let via_op = invalid(ops::execute(
                &Operation::Canonical,
                data,
                ops::Profile::Core,
            ))
            .expect("the canonical operation rejects a parsed document");
            assert_eq!(via_op, Value::from(text), "ops::execute(canonical) differs");
        }
    }
}

// ---------------------------------------------------------------------------------------
// journal: validate, replay, fingerprint, branch

/// Branch ids to try, with whether B-ID-1 accepts them.
const BRANCH_IDS: &[(&str, bool)] = &[
    ("b", true),
    ("", false),
    (" ", false),
    ("\u{3000}", false),
    ("\u{1c}", false),
    ("\u{200b}", true),
    ("fork 1", true),
    (" x ", true),
];

/// A journal under both profiles; `until`, `at` and the branch id come from a hash of
/// the input. The four operations report the same error for an invalid journal; for a
/// valid one `fingerprint == replay().fingerprint`, prefixes replay as journals of their
/// own (R-PROJ-1), branch records match replay (B-*), and CRLF changes nothing (W-CR-1).
/// `trace-0.1` only ever adds `profile_violation` to `core`.
pub fn journal(data: &[u8]) {
    let h = fnv1a(data);
    let core = journal_profile(data, JournalProfile::Core, h);
    let trace = journal_profile(data, JournalProfile::Trace01, h);
    match (&core, &trace) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "core and trace-0.1 disagree on a valid journal"),
        (Ok(_), Err(e)) => assert_eq!(
            e.code,
            ErrorCode::ProfileViolation,
            "trace-0.1 rejects a valid core journal with `{}`",
            e.code
        ),
        (Err(c), Ok(_)) => panic!("core rejects ({c}) a journal trace-0.1 accepts"),
        (Err(c), Err(t)) => match (c.line, t.line) {
            (None, _) => assert_eq!(c, t, "trace-0.1 reports another unlocated error"),
            (Some(_), None) => panic!("trace-0.1 reports {t} but core a located {c}"),
            (Some(cl), Some(tl)) => {
                assert!(tl <= cl, "trace-0.1 fails later ({tl}) than core ({cl})");
                if tl < cl || t.code == ErrorCode::ProfileViolation {
                    assert_eq!(t.code, ErrorCode::ProfileViolation);
                    assert!(
                        !WIRE_CODES.contains(&c.code) && c.code != ErrorCode::MalformedEvent
                            || tl < cl,
                        "a profile rule ran before E-ENV-1 or the wire rules"
                    );
                } else {
                    assert_eq!(c, t, "core and trace-0.1 report different errors");
                }
            }
        },
    }
}

/// SPEC.md 16.5: with a line limit below the longest line, reading fails with the
/// I/O error naming the first over-long line, unless a journal error comes first;
/// with a limit at least the longest line, the answer is the unbounded one.
fn check_line_bound(data: &[u8], profile: JournalProfile, h: u64, unbounded: &Result<u64, Error>) {
    let physical = lines(data);
    let longest = physical.iter().map(|l| l.len()).max().unwrap_or(0);
    let max = 1 + (h >> 40) as usize % (longest + 2);
    let bounded = jc::journal::validate_bounded(data, profile, max);
    match physical.iter().position(|l| l.len() > max) {
        None => assert_eq!(
            invalid(bounded).as_ref(),
            unbounded.as_ref(),
            "a limit of {max} >= every line changed the answer"
        ),
        Some(i) => match bounded {
            Err(ReadError::Io(e)) => {
                assert_eq!(
                    e.to_string(),
                    jc::wire::line_too_long(i as u64 + 1, max).to_string()
                );
                // No journal error before it: every earlier line was accepted.
                if let Err(u) = unbounded {
                    assert!(
                        u.line.is_none_or(|l| l > i as u64),
                        "{u} comes before the over-long line {}",
                        i + 1
                    );
                }
            }
            Err(ReadError::Invalid(e)) => assert!(
                e.line.is_some_and(|l| l <= i as u64),
                "{e}: a journal error after the over-long line {}",
                i + 1
            ),
            Ok(n) => panic!(
                "line {} is over {max} bytes but {n} events were read",
                i + 1
            ),
        },
    }
}

/// Check one profile; returns the event count and fingerprint, or the journal error.
fn journal_profile(data: &[u8], profile: JournalProfile, h: u64) -> Result<(u64, String), Error> {
    let what = profile.as_str();
    let physical = lines(data);
    let n_lines = physical.len() as u64;
    let until = match h % 8 {
        0 => -1,
        1 => i64::MIN,
        2 => i64::MAX,
        _ => ((h >> 8) % (n_lines + 1)) as i64,
    };
    let at = match (h >> 4) % 8 {
        0 => -1,
        1 => i64::MIN,
        _ => ((h >> 16) % (n_lines + 1)) as i64,
    };
    let (branch_id, id_ok) = BRANCH_IDS[((h >> 32) % BRANCH_IDS.len() as u64) as usize];

    let validated = invalid(jc::journal::validate(data, profile));
    check_line_bound(data, profile, h, &validated);
    let full = invalid(replay::replay(data, profile, None));
    let fp = invalid(replay::fingerprint(data, profile, None));
    let replay_u = invalid(replay::replay(data, profile, Some(until)));
    let fp_u = invalid(replay::fingerprint(data, profile, Some(until)));
    let fp_op = invalid(ops::execute(
        &Operation::Fingerprint { until: Some(until) },
        data,
        profile.into(),
    ));
    let br = invalid(branch::branch(data, profile, at, branch_id));

    match validated {
        Err(e) => {
            check_journal_error(&e, &physical, what);
            assert_eq!(full.as_ref().err(), Some(&e), "{what}: replay differs");
            assert_eq!(fp.as_ref().err(), Some(&e), "{what}: fingerprint differs");
            assert_eq!(replay_u.err().as_ref(), Some(&e), "{what}: replay(until)");
            assert_eq!(fp_u.err().as_ref(), Some(&e), "{what}: fingerprint(until)");
            assert_eq!(fp_op.err().as_ref(), Some(&e), "{what}: ops fingerprint");
            assert_eq!(br.err().as_ref(), Some(&e), "{what}: branch differs");
            if let Some(l) = e.line {
                // Streaming (J-ORDER-1): the error depends on lines 1..=l only.
                let upto = invalid(jc::journal::validate(prefix_lines(data, l), profile));
                assert_eq!(upto.err().as_ref(), Some(&e), "{what}: prefix to the error");
                let before = invalid(jc::journal::validate(prefix_lines(data, l - 1), profile));
                if l == 1 {
                    assert_eq!(before.map_err(|e| e.code), Err(ErrorCode::EmptyJournal));
                } else {
                    assert_eq!(before, Ok(l - 1), "{what}: lines before the error");
                }
            } else {
                assert_eq!(e.code, ErrorCode::EmptyJournal, "{what}: unlocated {e}");
                assert_eq!(n_lines, 0, "{what}: empty_journal with lines");
            }
            check_crlf(data, profile, Err(&e));
            Err(e)
        }
        Ok(n) => {
            assert!(n >= 1, "{what}: a valid journal with no event");
            assert_eq!(n, n_lines, "{what}: event count != line count");
            let full = full.unwrap_or_else(|e| panic!("{what}: replay fails ({e})"));
            let fp = fp.unwrap_or_else(|e| panic!("{what}: fingerprint fails ({e})"));
            assert_eq!(full.applied_sequences, (0..n).collect::<Vec<_>>());
            assert_eq!(
                fp, full.fingerprint,
                "{what}: fingerprint != replay().fingerprint"
            );
            assert_eq!(
                invalid(replay::replay(data, profile, Some(n as i64 - 1))).as_ref(),
                Ok(&full),
                "{what}: replay(until = last) != replay()"
            );
            // F-FP-1 from the accepted values, and the event ids for branch.
            let mut values = Vec::new();
            let mut ids = Vec::new();
            let count = invalid(jc::journal::read(data, profile, |ev| {
                values.push(ev.value.clone());
                ids.push(ev.event_id.clone());
            }));
            assert_eq!(count, Ok(n));
            assert_eq!(
                jc::fingerprint::of_values(&values),
                fp,
                "{what}: F-FP-1 over the events"
            );
            // F-FP-2: the journal rewritten as canonical lines (other key order, spacing
            // and escapes) has the same replay and fingerprint.
            let canon: Vec<String> = values.iter().map(canonical::to_string).collect();
            let rewritten = invalid(replay::replay(canon.join("\n").as_bytes(), profile, None))
                .unwrap_or_else(|e| panic!("{what}: F-FP-2 the canonical rewrite fails: {e}"));
            assert_eq!(
                canonical::to_string(&rewritten.to_json()),
                canonical::to_string(&full.to_json()),
                "{what}: F-FP-2 the canonical rewrite replays differently"
            );
            if (0..n as i64).contains(&until) {
                let r = replay_u.unwrap_or_else(|e| panic!("{what}: replay({until}): {e}"));
                let f = fp_u.unwrap_or_else(|e| panic!("{what}: fingerprint({until}): {e}"));
                assert_eq!(r.applied_sequences.len() as i64, until + 1);
                assert_eq!(
                    f, r.fingerprint,
                    "{what}: fingerprint(until) != replay(until)"
                );
                assert_eq!(
                    fp_op,
                    Ok(Value::from(f.as_str())),
                    "{what}: ops fingerprint"
                );
                assert_eq!(
                    f,
                    jc::fingerprint::of_values(&values[..=until as usize]),
                    "{what}: F-FP-1 over the prefix"
                );
                // R-PROJ-1: replay(until=k) is the full replay of the first k+1 lines.
                let prefix = prefix_lines(data, until as u64 + 1);
                assert_eq!(
                    invalid(replay::replay(prefix, profile, None)).as_ref(),
                    Ok(&r),
                    "{what}: R-PROJ-1 prefix consistency"
                );
            } else {
                for e in [replay_u.unwrap_err(), fp_u.unwrap_err(), fp_op.unwrap_err()] {
                    assert_eq!(e.code, ErrorCode::SequenceOutOfRange, "{what}: {e}");
                    assert_eq!(e.sequence, Some(until), "{what}: O-RANGE-1 sequence");
                    assert_eq!(e.line, None, "{what}: O-RANGE-1 has no line");
                }
            }
            match br {
                Err(e) if !id_ok => {
                    assert_eq!(e.code, ErrorCode::InvalidBranchId, "{what}: {e}");
                    assert_eq!(e.line, None);
                }
                Err(e) if !(0..n as i64).contains(&at) => {
                    assert_eq!(e.code, ErrorCode::SequenceOutOfRange, "{what}: {e}");
                    assert_eq!((e.sequence, e.line), (Some(at), None));
                }
                Err(e) => panic!("{what}: branch({at}, {branch_id:?}) fails: {e}"),
                Ok(b) => {
                    assert!(
                        id_ok && (0..n as i64).contains(&at),
                        "{what}: bad branch accepted"
                    );
                    let at_u = at as usize;
                    assert_eq!(b.branch_id, branch_id);
                    assert_eq!(b.fork_sequence, at as u64);
                    assert_eq!(
                        b.inherited_event_ids,
                        ids[..=at_u],
                        "{what}: B inherited ids"
                    );
                    assert_eq!(
                        b.parent_fingerprint,
                        jc::fingerprint::of_values(&values[..=at_u]),
                        "{what}: B parent fingerprint"
                    );
                    assert_eq!(b.parent_session_id, full.session_id);
                    assert_eq!(b.parent_run_id, full.run_id);
                }
            }
            check_crlf(data, profile, Ok(&fp));
            Ok((n, fp))
        }
    }
}

/// J-LOC-1 and the code set for one journal error.
fn check_journal_error(e: &Error, physical: &[&[u8]], what: &str) {
    known_code(e, &JOURNAL_CODES, what);
    if UNLOCATED.contains(&e.code) {
        assert_eq!(e.line, None, "{what}: `{}` with a line", e.code);
        return;
    }
    let l = e
        .line
        .unwrap_or_else(|| panic!("{what}: `{}` without a line", e.code));
    assert!(
        l >= 1 && l <= physical.len() as u64,
        "{what}: line {l} outside 1..={}",
        physical.len()
    );
    let bytes = physical[l as usize - 1];
    if WIRE_CODES.contains(&e.code) {
        check_column(e, bytes.len(), what);
        assert_eq!(
            (e.sequence, e.event_id.as_deref()),
            (None, None),
            "{what}: a wire error names an event"
        );
    } else {
        // J-LOC-1: the event's sequence when an i64, its event_id when a string.
        let v = json::parse_bytes(bytes).expect("an event-level error on a non-JSON line");
        assert_eq!(
            e.sequence,
            v.get("sequence").and_then(Value::as_i64),
            "{what}: J-LOC-1 sequence"
        );
        assert_eq!(
            e.event_id.as_deref(),
            v.get("event_id").and_then(Value::as_str),
            "{what}: J-LOC-1 event_id"
        );
    }
}

/// W-CR-1: CRLF line endings change neither validity, the error, nor the fingerprint.
fn check_crlf(data: &[u8], profile: JournalProfile, want: Result<&String, &Error>) {
    let mut crlf = Vec::with_capacity(data.len() + data.len() / 8);
    for &b in data {
        if b == b'\n' {
            crlf.push(b'\r');
        }
        crlf.push(b);
    }
    let got = invalid(replay::fingerprint(&crlf[..], profile, None));
    match (want, got) {
        (Ok(a), Ok(b)) => assert_eq!(*a, b, "W-CR-1: CRLF changes the fingerprint"),
        (Err(a), Err(b)) => assert_eq!(
            (a.code, a.line),
            (b.code, b.line),
            "W-CR-1: CRLF changes the error"
        ),
        (a, b) => panic!("W-CR-1: LF gives {a:?}, CRLF {b:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// tree: Tree::load, Step::from_json, Tree::apply

/// Input: a tree file, optionally followed by a NUL byte and a JSON array of steps.
/// Load errors are located and streaming; every step keeps the tree consistent and
/// does what T-* says; a failed step changes nothing and the sequence goes on (T-ERR-1);
/// `Tree::load(save)` round-trips (same entries, next id, head at the last entry);
/// `apply_all` agrees.
pub fn tree(data: &[u8]) {
    let (file, steps_src) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let steps: Vec<Step> = match steps_src.map(json::parse_bytes) {
        Some(Ok(Value::Array(items))) => items
            .iter()
            .filter_map(|s| Step::from_json(s).ok())
            .collect(),
        _ => Vec::new(),
    };
    // The yoagent-0.26 dialect's shape-only load (tree inspect, tree validate, serve)
    // against the session load and its view, the file cut into 1 to 3 chunks.
    let oracle = jc::fast::yoagent::inspect_oracle(file);
    for k in 1..=3 {
        assert_eq!(
            jc::fast::yoagent::load_shape_chunked(file, k).map(|s| s.inspect()),
            oracle,
            "fast::yoagent in {k} chunks"
        );
    }
    for s in &steps {
        assert_eq!(
            Step::from_json(&s.to_json()).as_ref(),
            Ok(s),
            "Step JSON does not round-trip"
        );
    }
    let mut t = match Tree::load(file) {
        Err(e) => {
            known_code(&e, TREE_LOAD_CODES, "Tree::load");
            let l = e.line.expect("a tree load error without a line");
            let pieces = file.split(|&b| b == b'\n').count() as u64;
            assert!((1..=pieces).contains(&l), "Tree::load: line {l} > {pieces}");
            // T-ORDER-1: the first failing line in file order; earlier lines load.
            let upto = Tree::load(prefix_lines(file, l)).map(|_| ());
            assert_eq!(upto, Err(e.clone()), "Tree::load: prefix to the error");
            assert!(
                Tree::load(prefix_lines(file, l - 1)).is_ok(),
                "Tree::load: lines before the error fail"
            );
            assert_eq!(jc::tree::apply_all(file, &steps).map(|_| ()), Err(e));
            return;
        }
        Ok(t) => t,
    };
    assert_eq!(
        t.head(),
        t.entries().last().map(|e| e.id.as_str()),
        "T-HEAD-1"
    );
    check_tree(&t);
    // T-ERR-1: a failed step changes nothing, its element of results is its code (and
    // index), and the later steps go on.
    let mut results = Vec::new();
    for step in &steps {
        let before = t.clone();
        match t.apply(step) {
            Ok(r) => {
                check_step(&before, &t, step, &r);
                check_tree(&t);
                results.push(r);
            }
            Err(e) => {
                known_code(&e, TREE_STEP_CODES, "Tree::apply");
                assert_eq!(e.line, None, "a step error with a line");
                assert_eq!(
                    e.index.is_some(),
                    e.code == ErrorCode::HistoryDiverged,
                    "index only for history_diverged"
                );
                assert_eq!(t.save(), before.save(), "a failed step changed the tree");
                assert_eq!(t.head(), before.head(), "a failed step moved the head");
                assert_eq!(t.next_id(), before.next_id(), "a failed step used an id");
                results.push(jc::tree::step_error(&e));
            }
        }
    }
    let all = jc::tree::apply_all(file, &steps);
    assert_eq!(
        all,
        Ok(Value::object([
            ("results", Value::Array(results)),
            ("tree", Value::from(t.save())),
        ])),
        "apply_all differs from stepwise apply"
    );
}

/// Internal consistency and T-ROUND-1.
fn check_tree(t: &Tree) {
    let path = t.path_ids();
    assert_eq!(path.last().copied(), t.head(), "T-PATH-1 ends at the head");
    if let Some(first) = path.first() {
        assert_eq!(
            t.entry(first).unwrap().parent_id,
            None,
            "path starts at a root"
        );
    }
    for w in path.windows(2) {
        assert_eq!(t.entry(w[1]).unwrap().parent_id.as_deref(), Some(w[0]));
    }
    let saved = t.save();
    let back = Tree::load(saved.as_bytes())
        .unwrap_or_else(|e| panic!("T-ROUND-1: a saved tree does not load ({e})"));
    assert!(
        same_entries(back.entries(), t.entries()),
        "T-ROUND-1: entries differ"
    );
    assert_eq!(back.next_id(), t.next_id(), "T-ROUND-1: next id differs");
    assert_eq!(
        back.head(),
        t.entries().last().map(|e| e.id.as_str()),
        "T-ROUND-1: head"
    );
    assert_eq!(back.save(), saved, "T-SAVE-1 is not a fixed point");
    let inspect = t.inspect();
    assert_eq!(
        inspect.get("entry_count").and_then(Value::as_i64),
        Some(t.entries().len() as i64)
    );
}

/// Entries equal field for field (messages are kept as canonical text, so equal text
/// is equal JSON).
fn same_entries(a: &[jc::tree::Entry], b: &[jc::tree::Entry]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            (&x.id, &x.parent_id, x.timestamp, &x.label)
                == (&y.id, &y.parent_id, y.timestamp, &y.label)
                && x.message == y.message
        })
}

/// What each successful step must have done (T-APPEND-1 .. T-APPENDNEW-1).
fn check_step(before: &Tree, after: &Tree, step: &Step, r: &Value) {
    let n = before.entries().len();
    match step {
        Step::Append { message, timestamp } => {
            let id = before.next_id().expect("append succeeded with no id left");
            assert_eq!(
                r.as_str(),
                Some(id.as_str()),
                "append: result is the next id"
            );
            assert_eq!(after.head(), Some(id.as_str()));
            let e = after.entry(&id).unwrap();
            assert_eq!(
                e.parent_id.as_deref(),
                before.head(),
                "append: parent is the head"
            );
            assert!(
                e.message == canonical::to_string(message)
                    && e.timestamp == *timestamp
                    && e.label.is_none()
            );
            assert_eq!(after.entries().len(), n + 1);
        }
        Step::Seek { id } => {
            assert_eq!(after.head(), Some(id.as_str()), "seek: head");
            assert_eq!(after.entries(), before.entries());
            assert_eq!(r, &Value::Null);
        }
        Step::Checkpoint { label } => {
            assert_eq!(after.head(), before.head());
            let h = after.entry(after.head().unwrap()).unwrap();
            assert_eq!(
                h.label.as_deref(),
                Some(label.as_str()),
                "checkpoint: label"
            );
            assert_eq!(after.entries().len(), n);
        }
        Step::SeekCheckpoint { label } => {
            let last = after
                .entries()
                .iter()
                .rev()
                .find(|e| e.label.as_deref() == Some(label.as_str()))
                .expect("seek_checkpoint succeeded without the label");
            assert_eq!(
                after.head(),
                Some(last.id.as_str()),
                "T-SEEKCP-1: latest wins"
            );
            assert_eq!(after.entries(), before.entries());
        }
        Step::AppendNew { history, .. } => {
            let added = history.len() - before.path_ids().len();
            assert_eq!(r.as_i64(), Some(added as i64), "append_new: count");
            assert_eq!(after.entries().len(), n + added);
            let path: Vec<String> = after
                .path_messages()
                .into_iter()
                .map(str::to_owned)
                .collect();
            let want: Vec<String> = history.iter().map(canonical::to_string).collect();
            if added > 0 {
                assert_eq!(path, want, "append_new: the path is the history");
            }
        }
        Step::SaveLoad => {
            assert!(
                same_entries(after.entries(), before.entries()),
                "save_load: entries"
            );
            assert_eq!(after.head(), after.entries().last().map(|e| e.id.as_str()));
        }
    }
}

// ---------------------------------------------------------------------------------------
// vectors: the vector file format

/// A vector file's text, with a reader that fails every `input_file`: no panic; a parsed
/// file written back with `to_file_json` parses to equal cases; the reference answers
/// every check with a known code, and matching never panics.
pub fn vectors(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let no_files = |f: &str| -> Result<Vec<u8>, String> { Err(format!("no file {f:?} (fuzz)")) };
    let Ok(cases) = vectors::parse_file(text, "fuzz/group", &no_files) else {
        return;
    };
    let written = canonical::to_string(&vectors::to_file_json(&cases));
    let again = vectors::parse_file(&written, "fuzz/group", &no_files)
        .unwrap_or_else(|e| panic!("to_file_json output does not parse: {e}\n{written}"));
    assert_eq!(again.len(), cases.len());
    assert_eq!(
        canonical::to_string(&vectors::to_file_json(&again)),
        written,
        "to_file_json is not a fixed point"
    );
    for (a, b) in cases.iter().zip(&again) {
        assert!(
            !matches!(a.input_form, vectors::InputForm::File(_)),
            "an input_file case parsed without its file"
        );
        // Equal cases: the same fields, and JSON values equal as values (V-EXPECT-1:
        // objects are member sets), which canonical text decides.
        assert_eq!(
            (&a.id, &a.name, &a.description, &a.rules, &a.tags),
            (&b.id, &b.name, &b.description, &b.rules, &b.tags),
            "a case's metadata changes when written back"
        );
        assert_eq!((a.level, a.profile), (b.level, b.profile));
        assert_eq!(a.input, b.input, "a case's input changes when written back");
        let checks = |c: &vectors::Case| -> Vec<(String, String)> {
            c.checks
                .iter()
                .map(|ch| {
                    (
                        canonical::to_string(&ch.op.to_json()),
                        canonical::to_string(&ch.expect.to_json()),
                    )
                })
                .collect()
        };
        assert_eq!(
            checks(a),
            checks(b),
            "a case's checks change when written back"
        );
        assert_eq!(a.id, format!("fuzz/group/{}", a.name));
        assert!(!a.rules.is_empty() && !a.checks.is_empty());
        for check in &a.checks {
            if matches!(check.op, Operation::StoreApply { .. }) {
                continue; // scratch files and fsync: not for a fuzz loop
            }
            let op_again = Operation::from_json(&check.op.to_json());
            assert_eq!(
                op_again.as_ref(),
                Ok(&check.op),
                "operation JSON round-trip"
            );
            let answer = adapter::reference::reference_answer(&check.op, a.profile, &a.input)
                .unwrap_or_else(|e| panic!("reference answer failed: {e}"));
            if let jc::verdict::Answer::Error { code, .. } = &answer {
                assert!(
                    ErrorCode::from_str_code(code).is_some(),
                    "reference answered unknown code {code}"
                );
            }
            let _ = jc::verdict::judge(&check.expect, &answer).map(|m| m.to_string());
        }
    }
}

// ---------------------------------------------------------------------------------------
// protocol: adapter::serve

/// A session of request lines through `adapter::serve`: it never fails writing to a
/// Vec, answers every line before the first `stop` with exactly one line that is one
/// JSON object, echoes the request id, and a `run` reply holds exactly one of
/// `result`, `error` or `unsupported` (A-RUN-1).
pub fn protocol(data: &[u8]) {
    let mut requests = Vec::new();
    for req in lines(data) {
        let v = adapter::protocol::parse_request(req).ok();
        if v.as_ref()
            .and_then(|v| v.get("cmd"))
            .and_then(Value::as_str)
            == Some("stop")
        {
            break;
        }
        // store_apply runs on scratch files with fsync: not for a fuzz loop.
        if v.as_ref()
            .and_then(|v| v.get("op"))
            .and_then(|o| o.get("op"))
            .and_then(Value::as_str)
            == Some("store_apply")
        {
            return;
        }
        requests.push(v);
    }
    let mut out = Vec::new();
    adapter::serve(data, &mut out).expect("serve into a Vec failed");
    assert!(
        out.is_empty() || out.ends_with(b"\n"),
        "reply without a newline"
    );
    let replies = lines(&out);
    assert_eq!(
        replies.len(),
        requests.len(),
        "one reply per request line before stop"
    );
    for (reply, req) in replies.iter().zip(&requests) {
        let v = json::parse_bytes(reply)
            .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {reply:?}"));
        assert!(v.as_object().is_some(), "reply is not an object");
        assert_eq!(
            canonical::to_string(&v).as_bytes(),
            *reply,
            "reply is not canonical JSON"
        );
        let Some(req) = req else {
            // A-REQ-1: an unreadable line gets `{"id":null,"error":{"code":"invalid_request"}}`.
            assert_eq!(v.get("id"), Some(&Value::Null), "A-REQ-1: id null");
            assert_eq!(
                v.get("error")
                    .and_then(|e| e.get("code"))
                    .and_then(Value::as_str),
                Some("invalid_request"),
                "A-REQ-1: an unreadable request"
            );
            continue;
        };
        let cmd = req.get("cmd").and_then(Value::as_str);
        if cmd == Some("start") {
            assert_eq!(v.get("protocol").and_then(Value::as_i64), Some(1));
            continue;
        }
        let want_id = req.get("id").cloned().unwrap_or(Value::Null);
        assert!(
            v.get("id").is_some_and(|id| id.same(&want_id)),
            "reply does not echo the id"
        );
        let kinds = ["result", "error", "unsupported"]
            .iter()
            .filter(|k| v.get(k).is_some())
            .count();
        assert_eq!(kinds, 1, "A-RUN-1: exactly one of result/error/unsupported");
        if let Some(e) = v.get("error") {
            let code = e.get("code").and_then(Value::as_str).expect("error code");
            assert!(
                ErrorCode::from_str_code(code).is_some()
                    || code == "invalid_request"
                    || code == "internal_error",
                "unknown error code {code}"
            );
            if cmd != Some("run") {
                assert_eq!(code, "invalid_request", "A-REQ-1: unknown cmd");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// adapter_client: the runner's side of the protocol, on hostile replies

/// A bounded fault message (no adapter output is echoed without a bound).
fn check_client_reply(r: &adapter::Reply) {
    use jc::verdict::{Answer, Expect};
    match r {
        adapter::Reply::Fault(m) => {
            assert!(!m.is_empty(), "an empty fault message");
            assert!(m.len() <= 2048, "fault message of {} bytes", m.len());
        }
        adapter::Reply::Unsupported => {}
        adapter::Reply::Answer(a @ Answer::Error { code, line, .. }) => {
            assert!(line.is_none_or(|l| l >= 1), "line 0 accepted");
            let want = Expect::Error {
                codes: vec![code.clone()],
                line: *line,
                sequence: None,
                index: None,
            };
            assert_eq!(
                jc::verdict::judge(&want, a),
                None,
                "an error differs from itself"
            );
        }
        adapter::Reply::Answer(a @ Answer::Result(v)) => {
            let want = Expect::Result {
                value: v.clone(),
                sha256: None,
            };
            assert_eq!(
                jc::verdict::judge(&want, a),
                None,
                "a result differs from itself"
            );
        }
    }
}

/// Hostile adapter output parsed exactly as the runner parses it. The first byte picks
/// the mode: even, persistent (the first line is the handshake, line N a reply to
/// request id N); odd, one-shot (the second byte is the exit status, 255 meaning killed
/// by a signal; the rest is stdout). Invariants: no panic, bounded fault messages,
/// parsing is deterministic, a reply accepted for id N is a fault for any other id,
/// exit 3 is unsupported and any status but 0, 1, 3 a fault, and whatever is accepted
/// matches itself under the runner's cause classification.
pub fn adapter_client(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    if sel & 1 == 0 {
        let ls = lines(rest);
        if let Some(first) = ls.first() {
            match adapter::protocol::parse_handshake_line(first) {
                Ok(info) => {
                    assert!(info.name.len() <= 1024, "unbounded implementation name");
                    assert_eq!(adapter::protocol::parse_handshake_line(first), Ok(info));
                }
                Err(e) => assert!(!e.is_empty() && e.len() <= 2048),
            }
        }
        for (i, l) in ls.iter().enumerate().skip(1) {
            let id = i as i64;
            let r = adapter::protocol::parse_run_reply(l, id);
            check_client_reply(&r);
            assert_eq!(
                r,
                adapter::protocol::parse_run_reply(l, id),
                "not deterministic"
            );
            if !matches!(r, adapter::Reply::Fault(_)) {
                assert!(
                    matches!(
                        adapter::protocol::parse_run_reply(l, id + 1),
                        adapter::Reply::Fault(_)
                    ),
                    "a reply to id {id} was taken for id {}",
                    id + 1
                );
            }
        }
    } else {
        let Some((&code, out)) = rest.split_first() else {
            return;
        };
        let exit = (code != 255).then_some(i32::from(code));
        let r = adapter::protocol::judge_one_shot(exit, "was killed by signal 9 (SIGKILL)", out);
        check_client_reply(&r);
        match exit {
            Some(3) => assert_eq!(r, adapter::Reply::Unsupported),
            Some(0) => assert!(!matches!(
                r,
                adapter::Reply::Unsupported
                    | adapter::Reply::Answer(jc::verdict::Answer::Error { .. })
            )),
            Some(1) => assert!(!matches!(
                r,
                adapter::Reply::Unsupported
                    | adapter::Reply::Answer(jc::verdict::Answer::Result(_))
            )),
            _ => assert!(
                matches!(r, adapter::Reply::Fault(_)),
                "status {exit:?} accepted"
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------
// journal_structured: generated journals (journal_conformance::generate)

/// The first byte picks valid (even) or malformed (odd) and the profile (bit 1); the
/// rest drives `generate::journal_from_bytes` / `generate::malformed_from_bytes`. A
/// valid journal validates and replays to the projection the generator computed (also
/// for a prefix, the fingerprint and a branch); a malformed one is rejected with its
/// labelled code, line and sequence. Both then go through every invariant of `journal`.
pub fn journal_structured(data: &[u8]) {
    use jc::generate::{self, GenConfig};
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let profile = if sel & 2 == 0 {
        JournalProfile::Core
    } else {
        JournalProfile::Trace01
    };
    let cfg = GenConfig {
        events: 1..=24,
        ..GenConfig::with_profile(profile)
    };
    if sel & 1 == 0 {
        let Ok(j) = generate::journal_from_bytes(&cfg, rest) else {
            return;
        };
        let bytes = j.bytes();
        let n = j.len() as u64;
        assert_eq!(
            invalid(jc::journal::validate(&bytes[..], j.profile)),
            Ok(n),
            "a generated valid journal is rejected"
        );
        let state = invalid(replay::replay(&bytes[..], j.profile, None))
            .unwrap_or_else(|e| panic!("a generated valid journal does not replay: {e}"));
        assert!(
            state.to_json().same(&j.expected().to_json()),
            "replay differs from the generator's projection"
        );
        assert_eq!(
            invalid(replay::fingerprint(&bytes[..], j.profile, None)).as_ref(),
            Ok(&j.expected_fingerprint(None))
        );
        let k = (fnv1a(rest) % n) as usize;
        let part = invalid(replay::replay(&bytes[..], j.profile, Some(k as i64)))
            .unwrap_or_else(|e| panic!("replay(until={k}) fails: {e}"));
        assert!(
            part.to_json().same(&j.expected_until(k).to_json()),
            "replay(until={k}) differs from the generator's projection"
        );
        let b = invalid(branch::branch(&bytes[..], j.profile, k as i64, "fuzz"))
            .unwrap_or_else(|e| panic!("branch(at={k}) fails: {e}"));
        assert_eq!(b, j.expected_branch(k, "fuzz"), "branch record differs");
        assert_eq!(
            invalid(replay::fingerprint(
                &j.canonical_bytes()[..],
                j.profile,
                None
            ))
            .as_ref(),
            Ok(&j.expected_fingerprint(None)),
            "F-FP-2: canonical spelling changes the fingerprint"
        );
        journal_sampled(&bytes, rest);
    } else {
        let Ok(m) = generate::malformed_from_bytes(&cfg, 4, rest) else {
            return;
        };
        match invalid(ops::execute(&m.op, &m.bytes, m.profile.into())) {
            Ok(v) => panic!(
                "a malformed journal was accepted: {} gave {}",
                m.describe(),
                canonical::to_string(&v)
            ),
            Err(e) => {
                known_code(&e, &JOURNAL_CODES, "journal_structured");
                assert!(
                    m.expected.matches(&e),
                    "expected {:?}, got {e:?} for {}",
                    m.expected,
                    m.describe()
                );
            }
        }
        journal_sampled(&m.bytes, rest);
    }
}

/// The checked fast path (`jc::fast`, what the CLI and `serve` run) against the oracle
/// on the same bytes, under both profiles: validate, fingerprint, replay and branch
/// give byte-identical results and equal errors (code, message, line, column,
/// sequence, event id), sequentially and with worker threads over tiny blocks.
pub fn fast_oracle(data: &[u8]) {
    // One `until` and one branch point per input (by a hash of it): the full set is
    // about 56 calls, half of them starting worker threads, and ran at 96 exec/s.
    // tests/fast_oracle.rs runs the full set on the corpus and generated journals.
    let pick = fnv1a(data);
    for profile in [JournalProfile::Core, JournalProfile::Trace01] {
        let d = jc::fast::differences_sampled(data, profile, pick);
        assert!(
            d.is_empty(),
            "fast path and oracle disagree ({}):\n{}",
            profile.as_str(),
            d.join("\n")
        );
    }
    // The canonical-line fast path (`Tape::canonical`) takes only lines already in
    // canonical form, which random inputs seldom are: every other input is also checked
    // with each of its lines that is JSON rewritten canonically.
    if pick.is_multiple_of(2) {
        let canonical = jc::fast::canonical_lines(data, 1);
        if canonical != data {
            for profile in [JournalProfile::Core, JournalProfile::Trace01] {
                let d = jc::fast::differences_sampled(&canonical, profile, pick);
                assert!(
                    d.is_empty(),
                    "fast path and oracle disagree on canonical lines ({}):\n{}",
                    profile.as_str(),
                    d.join("\n")
                );
            }
        }
    }
}

/// The `journal` target's invariants on one generated journal in four (chosen by a hash
/// of the input, so deterministic): they re-read the journal some twenty times (both
/// profiles, prefixes, CRLF) and were 60% of this target's time (`perf`, 770 exec/s);
/// the generator's own checks above still run on every input.
fn journal_sampled(bytes: &[u8], rest: &[u8]) {
    if fnv1a(rest).is_multiple_of(4) {
        journal(bytes);
    }
}

// ---------------------------------------------------------------------------------------
// store_apply: the durable store on scratch files

/// Codes a store step can report (the journal codes plus the store's own).
static STORE_CODES: std::sync::LazyLock<Vec<ErrorCode>> = std::sync::LazyLock::new(|| {
    let mut v = JOURNAL_CODES.clone();
    v.extend([ErrorCode::ConflictingDuplicate, ErrorCode::Locked]);
    v
});

/// Scratch journals go to tmpfs where there is one (fsync there costs nothing), so the
/// target runs at fuzzing speed and never wears a disk.
fn scratch_on_tmpfs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("TMPDIR").is_none() && std::path::Path::new("/dev/shm").is_dir() {
            // SAFETY (edition 2021: not unsafe): set once, before any scratch file, from
            // the fuzzing thread.
            std::env::set_var("TMPDIR", "/dev/shm");
        }
    });
}

/// `JOURNAL \0 STEPS` (or only `STEPS`, on an empty journal): STEPS is a JSON array of
/// `store_apply` steps (S-OPS-1). `store::apply_steps` runs them on a scratch file
/// twice: the two runs give the same result (deterministic: no clock, no path, no
/// randomness in what it reports). A refused start journal is a located journal error;
/// an I/O error on a scratch file is a finding. On success: one result per step;
/// every ack's sequence is the next one (or an earlier one for a duplicate); a refused
/// line carries a store or journal code; the journal left behind is valid (or empty)
/// and holds the start journal's events plus exactly the fresh acks; a `replay` step
/// equals replaying the journal's first events.
pub fn store_apply(data: &[u8]) {
    use jc::store::{self, StoreStep};
    scratch_on_tmpfs();
    let (start, steps_text) = match data.iter().position(|&b| b == 0) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (&b""[..], data),
    };
    let Ok(v) = json::parse_bytes(steps_text) else {
        return;
    };
    let Some(arr) = v.as_array() else {
        return;
    };
    // Each step may sync: bound the work per input (the fuzzer's timeout is 1 s).
    if arr.len() > 32 {
        return;
    }
    let Ok(steps) = arr
        .iter()
        .map(StoreStep::from_json)
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    let first = store::apply_steps(start, &steps, JournalProfile::Core);
    let second = store::apply_steps(start, &steps, JournalProfile::Core);
    let out = match (first, second) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                canonical::to_string(&a),
                canonical::to_string(&b),
                "store_apply is not deterministic"
            );
            a
        }
        (Err(ReadError::Invalid(a)), Err(ReadError::Invalid(b))) => {
            assert_eq!(a, b, "store_apply refused the start journal differently");
            known_code(&a, &STORE_CODES, "store_apply start");
            assert!(
                a.line.is_some(),
                "a refused start journal names no line: {a}"
            );
            return;
        }
        (Err(ReadError::Io(e)), _) | (_, Err(ReadError::Io(e))) => {
            panic!("I/O error on a scratch journal: {e}")
        }
        (a, b) => panic!("store_apply is not deterministic: {a:?} vs {b:?}"),
    };
    let results = out
        .get("results")
        .and_then(Value::as_array)
        .expect("results");
    assert_eq!(results.len(), steps.len(), "one result per step");
    let journal = out.get("journal").and_then(Value::as_str).expect("journal");
    // The start journal's events, as S-TORN-1 says: all of it when it validates and ends
    // with a newline, else all but its last line (the torn tail moved aside).
    let valid_count = |b: &[u8]| {
        if b.is_empty() {
            Some(0)
        } else {
            invalid(jc::journal::validate(b, JournalProfile::Core)).ok()
        }
    };
    let mut count = match valid_count(start) {
        Some(n) if start.is_empty() || start.ends_with(b"\n") => n,
        _ => {
            let body = start.strip_suffix(b"\n").unwrap_or(start);
            let cut = body.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            valid_count(&start[..cut]).expect("apply_steps accepted the start journal")
        }
    };
    let start_count = count;
    let mut fresh = 0u64;
    let mut ack = |a: &Value, count: &mut u64| {
        if let Some(e) = a.get("error") {
            let code = e.get("code").and_then(Value::as_str).expect("error code");
            let code = ErrorCode::from_str_code(code).expect("a known code");
            assert!(STORE_CODES.contains(&code), "store step code {code}");
            return;
        }
        let seq = a.get("sequence").and_then(Value::as_i64).expect("sequence") as u64;
        if a.get("duplicate") == Some(&Value::Bool(true)) {
            assert!(seq < *count, "a duplicate names a later sequence");
        } else {
            assert_eq!(seq, *count, "a fresh ack is not the next sequence");
            *count += 1;
            fresh += 1;
        }
    };
    for (step, r) in steps.iter().zip(results) {
        match step {
            StoreStep::Append { .. } => ack(r, &mut count),
            StoreStep::AppendBatch { lines } => {
                let items = r.as_array().expect("append_batch gives an array");
                assert!(items.len() <= lines.len(), "more acks than lines");
                for (i, a) in items.iter().enumerate() {
                    assert!(
                        a.get("error").is_none() || i + 1 == items.len(),
                        "a batch goes on after a refused line"
                    );
                    ack(a, &mut count);
                }
            }
            StoreStep::Replay => {
                if let Some(e) = r.get("error") {
                    assert_eq!(count, 0, "replay of a non-empty journal failed: {e:?}");
                } else {
                    let seqs = r
                        .get("applied_sequences")
                        .and_then(Value::as_array)
                        .expect("a replay state");
                    assert_eq!(seqs.len() as u64, count, "replay sees every acked event");
                }
            }
            _ => {}
        }
    }
    let final_count = if journal.is_empty() {
        0
    } else {
        invalid(jc::journal::validate(
            journal.as_bytes(),
            JournalProfile::Core,
        ))
        .unwrap_or_else(|e| panic!("the store left an invalid journal: {e}"))
    };
    assert_eq!(
        final_count,
        start_count + fresh,
        "the journal holds the start events plus the fresh acks"
    );
}
