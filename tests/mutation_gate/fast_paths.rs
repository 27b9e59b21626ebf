//! Gate paths 9, 10, 11 and 17: the fast paths' own contracts, which answers cannot show
//! (every line the oracle reads taken; every plain `yoagent-0.26` entry vouched for; the
//! parallel load's chunks), and reads that fail or are interrupted (X-EXIT-1).

use super::*;

/// Gate path 9, the fast path's speed contract (`fast::not_taken`): every journal line of
/// the corpus (every group, `tables/` included) and the golden traces that the oracle reads
/// as an event is taken by the fast line path, not declined to the oracle, and a taken line
/// that is its own canonical text is taken as canonical. Each input runs as written and
/// with every line canonicalised, in its own profile and in `core`. A declined line is
/// still answered right (by the oracle), so without this path a parser that declines too
/// much is invisible to the corpus: it only makes `serve` and the CLI slow.
#[test]
fn the_fast_path_takes_every_line_the_oracle_reads() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::event::JournalProfile;
    use journal_conformance::fast::{canonical_lines, not_taken};
    let mut cases: Vec<Case> = vectors::load_embedded().unwrap();
    cases.extend(journal_conformance::runner::plan::golden_cases().unwrap());
    let mut seen = std::collections::HashSet::new();
    let (mut lines, mut wrong) = (0, Vec::new());
    for case in &cases {
        let Some(profile) = journal_profile(case.profile) else {
            continue;
        };
        if !case.checks.iter().any(|c| cli_kind(&c.op)) {
            continue;
        }
        let profiles: &[JournalProfile] = if profile == "trace-0.1" {
            &[JournalProfile::Trace01, JournalProfile::Core]
        } else {
            &[JournalProfile::Core]
        };
        for input in [case.input.clone(), canonical_lines(&case.input, 1)] {
            if !seen.insert(input.clone()) {
                continue;
            }
            for &p in profiles {
                lines += input.split(|b| *b == b'\n').count();
                for m in not_taken(&input, p) {
                    wrong.push(format!("{} ({p:?}): {m}", case.id));
                }
            }
        }
    }
    assert_all_right("journal lines", lines, 20_000, &wrong);
}

/// Gate path 10, the `yoagent-0.26` fast path's speed contract: every entry line of the
/// dialect's vectors whose message is in one of the plain forms `fast/vouch.rs` documents
/// is read as a `VouchedEntry` (its message not built), not declined to yoagent's own
/// `SessionEntry`. Plainness is decided here, independently of `vouch.rs`, from the strict
/// parser's value and conservatively (no surrounding whitespace, no `-0`, integer literals
/// only, every member once, every required entry member present), so a line that is plain
/// here is plain there. A declined line is still answered right (by yoagent's types):
/// only this path sees a `vouch.rs` that declines too much.
#[test]
fn the_yoagent_fast_path_vouches_for_every_plain_message() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::fast::vouch::VouchedEntry;
    let (mut plain, mut wrong) = (0, Vec::new());
    let mut seen = std::collections::HashSet::new();
    for case in vectors::load_embedded().unwrap() {
        if case.profile != Profile::Yoagent026 || !seen.insert(case.input.clone()) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&case.input) else {
            continue;
        };
        for (i, line) in text.split('\n').enumerate() {
            if !plain_entry(line) {
                continue;
            }
            plain += 1;
            if serde_json::from_str::<VouchedEntry>(line).is_err() {
                wrong.push(format!(
                    "{} line {}: a plain entry not vouched for",
                    case.id,
                    i + 1
                ));
            }
        }
    }
    assert_all_right("plain yoagent entries", plain, 1000, &wrong);
}

/// A session entry in the plain form `fast/vouch.rs` documents: exactly `id` (a string),
/// `parent_id` (a string or null), `message` (plain: [`plain_message`]), `timestamp` (a
/// `u64`) and optionally `label` (a string or null).
fn plain_entry(line: &str) -> bool {
    // `-0` reads as the integer 0 here but as the float -0.0 in serde_json (not a `u64`):
    // a line that holds the text `-0` anywhere is left out.
    if line.is_empty() || line.trim() != line || line.contains("-0") {
        return false;
    }
    let Ok(v) = json::parse(line) else {
        return false;
    };
    let Some(members) = v.as_object() else {
        return false;
    };
    let names = names_of(members);
    let required = ["id", "message", "parent_id", "timestamp"];
    (names == required || names == ["id", "label", "message", "parent_id", "timestamp"])
        && v.get("id").and_then(Value::as_str).is_some()
        && matches!(v.get("parent_id"), Some(Value::Null | Value::String(_)))
        && matches!(v.get("label"), None | Some(Value::Null | Value::String(_)))
        && v.get("timestamp").is_some_and(is_u64)
        && v.get("message").is_some_and(plain_message)
}

/// An object's member names, sorted (the strict parser has refused duplicates).
fn names_of(members: &[(String, Value)]) -> Vec<&str> {
    let mut names: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names
}

/// A non-negative integer literal that fits in `u64`.
fn is_u64(v: &Value) -> bool {
    matches!(v, Value::Number(json::Number::Int(s)) if !s.starts_with('-') && s.parse::<u64>().is_ok())
}

/// The plain message forms of `fast/vouch.rs`'s documentation.
fn plain_message(m: &Value) -> bool {
    let Some(members) = m.as_object() else {
        return false;
    };
    let names = names_of(members);
    let str_at = |k: &str| m.get(k).and_then(Value::as_str).is_some();
    let content = m
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks.iter().all(|b| {
                b.as_object()
                    .is_some_and(|o| names_of(o) == ["text", "type"])
                    && b.get("type").and_then(Value::as_str) == Some("text")
                    && b.get("text").and_then(Value::as_str).is_some()
            })
        });
    let stamped = m.get("timestamp").is_some_and(is_u64);
    let usage = m.get("usage").is_some_and(|u| {
        u.as_object().is_some_and(|o| {
            let n = names_of(o);
            n.contains(&"input")
                && n.contains(&"output")
                && o.iter().all(|(k, v)| {
                    ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]
                        .contains(&k.as_str())
                        && is_u64(v)
                })
        })
    });
    let stop = ["stop", "length", "toolUse", "error", "aborted", "refusal"];
    content
        && stamped
        && match m.get("role").and_then(Value::as_str) {
            Some("user") => names == ["content", "role", "timestamp"],
            Some("assistant") => {
                let base = [
                    "content",
                    "model",
                    "provider",
                    "role",
                    "stopReason",
                    "timestamp",
                    "usage",
                ];
                let with_error = [
                    "content",
                    "errorMessage",
                    "model",
                    "provider",
                    "role",
                    "stopReason",
                    "timestamp",
                    "usage",
                ];
                (names == base || (names == with_error && str_at("errorMessage")))
                    && str_at("model")
                    && str_at("provider")
                    && usage
                    && m.get("stopReason")
                        .and_then(Value::as_str)
                        .is_some_and(|r| stop.contains(&r))
            }
            Some("toolResult") => {
                names
                    == [
                        "content",
                        "isError",
                        "role",
                        "timestamp",
                        "toolCallId",
                        "toolName",
                    ]
                    && str_at("toolCallId")
                    && str_at("toolName")
                    && matches!(m.get("isError"), Some(Value::Bool(_)))
            }
            _ => false,
        }
}

/// Gate path 11, the `yoagent-0.26` fast path's parallel load: `tree inspect` reads an
/// input of 1 MiB or more in chunks of whole lines, one reader per core
/// (`fast::yoagent::load_shape`), which no vector is large enough to reach. Here every
/// `tree_inspect` check of the dialect is answered by that load cut into 2, 3 and 4
/// chunks, whatever the input's size, and judged against the vector's expectation.
///
/// The parallel load's speed contract, which the answers cannot show (every cut loads
/// the same session), is checked as its doc states it: `chunk_count` is one below 1 MiB
/// or with fewer than two threads and one per thread from 1 MiB on; and `cut` shares the
/// work: its chunks are the input, each ends just after a line break (the last at the
/// end), and none is longer than `len / n + 1` bytes plus the longest line.
#[test]
fn the_yoagent_chunked_load_answers_the_corpus() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::fast::yoagent::{chunk_count, cut, load_shape_chunked};
    let (mut checked, mut wrong) = (0, Vec::new());
    const MIB: usize = 1 << 20;
    for (len, threads, want) in [
        (MIB - 1, 4, 1),
        (MIB, 4, 4),
        (MIB, 2, 2),
        (MIB << 8, 1, 1),
        (MIB << 8, 0, 1),
        (MIB << 8, 3, 3),
        (0, 8, 1),
    ] {
        let got = chunk_count(len, threads);
        if got != want {
            wrong.push(format!(
                "chunk_count({len}, {threads}) = {got}, want {want}"
            ));
        }
    }
    let mut cuts = 0;
    for case in vectors::load_embedded().unwrap() {
        let Ok(text) = std::str::from_utf8(&case.input) else {
            continue;
        };
        let longest = text.split_inclusive('\n').map(str::len).max().unwrap_or(0);
        for n in 2..=4 {
            let parts = cut(text, n);
            cuts += 1;
            let whole = parts.concat() == text;
            let ends = parts[..parts.len() - 1].iter().all(|p| p.ends_with('\n'));
            let shared = parts
                .iter()
                .all(|p| p.len() <= text.len() / n + 1 + longest);
            if !(whole && ends && shared && parts.len() <= n) {
                wrong.push(format!(
                    "{}: cut into {n}: {:?}",
                    case.id,
                    parts.iter().map(|p| p.len()).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(cuts > 3000, "only {cuts} cuts");
    for case in vectors::load_embedded().unwrap() {
        if case.profile != Profile::Yoagent026 {
            continue;
        }
        for check in case
            .checks
            .iter()
            .filter(|c| c.op == Operation::TreeInspect)
        {
            for chunks in 2..=4 {
                let answer = match load_shape_chunked(&case.input, chunks) {
                    Ok(shape) => Answer::Result(shape.inspect()),
                    Err(e) => error_answer(e),
                };
                checked += 1;
                if let Some(m) = judge(&check.expect, &answer) {
                    wrong.push(format!("{} ({chunks} chunks): {m:?}", case.id));
                }
            }
        }
    }
    assert_all_right("chunked yoagent loads", checked, 1000, &wrong);
}

/// A reader of `bytes` whose every other `fill_buf` is interrupted (`EINTR`), and which,
/// given `fail_at`, fails once when it reaches that offset and then ends (gate path 17):
/// a reader that took the failure for an interruption, or skipped it, would go on to an
/// answer about part of the input. Once it has ended (an empty read) or failed, another
/// read panics: a terminal's standard input waits for more after its end (`Ctrl-D`), so
/// a kit that read on would hang `validate -` there.
struct Flaky<'a> {
    bytes: &'a [u8],
    at: usize,
    interrupt: bool,
    fail_at: Option<usize>,
    ended: bool,
}

impl std::io::Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::BufRead::fill_buf(self)?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl std::io::BufRead for Flaky<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        assert!(!self.ended, "a read after the input ended or failed");
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let end = match self.fail_at {
            Some(f) if self.at == f => {
                self.ended = true;
                return Err(std::io::Error::other("injected read failure"));
            }
            Some(f) => f,
            None => self.bytes.len(),
        };
        self.ended = self.at == end;
        // At most 7 bytes a call, so reads end inside lines and every line is refilled.
        Ok(&self.bytes[self.at..end.min(self.at + 7)])
    }
    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Gate path 17, reads that fail (SPEC.md X-EXIT-1: a failed read is an I/O error
/// whatever was read before it; a read interrupted by a signal is retried): the journal
/// fast path (`fast::validate`, which `validate` and `serve` answer with), on every
/// `validate` check in a journal profile, reading through [`Flaky`]: interrupted on
/// every other read, it must answer as the vector says; failing halfway through a valid
/// journal, it must fail with an I/O error, not count the events before it.
#[test]
fn a_failing_read_is_an_io_error() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::error::ReadError;
    use journal_conformance::fast::{self, Options};
    let (mut checked, mut failed) = (0, 0);
    let mut wrong = Vec::new();
    for case in vectors::load_embedded().unwrap() {
        if journal_profile(case.profile).is_none() {
            continue;
        }
        let opts = Options::new(case.profile.journal());
        for check in case
            .checks
            .iter()
            .filter(|c| matches!(c.op, Operation::Validate))
        {
            let flaky = |fail_at| Flaky {
                bytes: &case.input,
                at: 0,
                interrupt: false,
                fail_at,
                ended: false,
            };
            let answer = match fast::validate(flaky(None), &opts) {
                Ok(n) => Answer::Result(Value::object([("event_count", Value::from_u64(n))])),
                Err(ReadError::Invalid(e)) => error_answer(e),
                Err(e) => Answer::Result(Value::from(e.to_string())),
            };
            checked += 1;
            if let Some(m) = judge(&check.expect, &answer) {
                wrong.push(format!("{} (interrupted reads): {m:?}", case.id));
            }
            if valid_lines(&case, &check.expect).is_some() {
                failed += 1;
                match fast::validate(flaky(Some(case.input.len() / 2)), &opts) {
                    Err(ReadError::Io(_)) => {}
                    other => wrong.push(format!(
                        "{} (a read failing at byte {}): {other:?}, not an I/O error",
                        case.id,
                        case.input.len() / 2
                    )),
                }
            }
        }
    }
    assert!(failed > 400, "only {failed} failing reads");
    assert_all_right("reads through interruptions", checked, 1900, &wrong);
}
