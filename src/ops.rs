//! Operations as data (SPEC.md section "Operations", rules `O-*`).
//!
//! This module owns the kit's vocabulary of operations on a journal (`validate`,
//! `replay`, `fingerprint`, `branch`, `canonical`), their JSON spelling, and their
//! reference execution on exact input bytes. The golden traces, the conformance
//! vectors, the adapter protocol and the CLI all go through [`execute`] (or
//! [`execute_fast`], the same with the journal operations on the checked fast path), so
//! every surface of the kit agrees on what an operation returns.
//!
//! It also owns the `profile` a vector or a request names ([`Profile`]), which is a
//! journal profile for the journal operations and a tree dialect for the tree ones:
//! [`Profile::journal`] and [`Profile::dialect`] are where that is decided, once.

use crate::branch;
use crate::error::{Error, ErrorCode, ReadError};
use crate::event::JournalProfile;
use crate::journal;
use crate::json::{self, Value};
use crate::replay;
use crate::tree::Dialect;
use crate::{canonical, fast, wire};
use std::io::BufRead;

/// The `profile` a conformance case or an adapter request names (SPEC.md 12, 13): a
/// journal profile for the journal operations, a tree dialect for the tree operations.
/// [`Profile::journal`] and [`Profile::dialect`] say what each operation reads it as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    #[default]
    Core,
    Trace01,
    Yoagent026,
}

impl Profile {
    /// Every profile a vector or a request may name, in the order of the handshake's
    /// `profiles` (A-START-1).
    pub const ALL: [Profile; 3] = [Profile::Core, Profile::Trace01, Profile::Yoagent026];

    /// The profile's name (`core`, `trace-0.1`, `yoagent-0.26`).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Core => JournalProfile::Core.as_str(),
            Profile::Trace01 => JournalProfile::Trace01.as_str(),
            Profile::Yoagent026 => Dialect::Yoagent026.as_str(),
        }
    }

    /// The profile named `s`, if any.
    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The journal profile the journal operations (and `store_apply`) read under: `core`
    /// for `yoagent-0.26`, which names no journal profile (SPEC.md 9: `core` unless
    /// stated).
    pub fn journal(self) -> JournalProfile {
        match self {
            Profile::Core | Profile::Yoagent026 => JournalProfile::Core,
            Profile::Trace01 => JournalProfile::Trace01,
        }
    }

    /// The tree dialect the tree operations read (`T-OPS-1`): `yoagent-0.26` is
    /// section 15.4, any other profile the generic format.
    pub fn dialect(self) -> Dialect {
        match self {
            Profile::Yoagent026 => Dialect::Yoagent026,
            Profile::Core | Profile::Trace01 => Dialect::Generic,
        }
    }
}

impl From<JournalProfile> for Profile {
    fn from(p: JournalProfile) -> Profile {
        match p {
            JournalProfile::Core => Profile::Core,
            JournalProfile::Trace01 => Profile::Trace01,
        }
    }
}

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

/// Which operation, without its arguments: the names of protocol 1 (O-JSON-1), parsed
/// once wherever a name is read (handshakes, skip lists, `--require`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    Validate,
    Replay,
    Fingerprint,
    Branch,
    Canonical,
    TreeInspect,
    TreeApply,
    StoreApply,
}

impl OpKind {
    /// Every operation of protocol 1, in the order of section 9.
    pub const ALL: [OpKind; 8] = [
        OpKind::Validate,
        OpKind::Replay,
        OpKind::Fingerprint,
        OpKind::Branch,
        OpKind::Canonical,
        OpKind::TreeInspect,
        OpKind::TreeApply,
        OpKind::StoreApply,
    ];

    /// The name as vectors and the protocol spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Validate => "validate",
            OpKind::Replay => "replay",
            OpKind::Fingerprint => "fingerprint",
            OpKind::Branch => "branch",
            OpKind::Canonical => "canonical",
            OpKind::TreeInspect => "tree_inspect",
            OpKind::TreeApply => "tree_apply",
            OpKind::StoreApply => "store_apply",
        }
    }

    pub fn parse(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The operations that read a journal (validate, replay, fingerprint, branch).
    pub fn is_journal(self) -> bool {
        matches!(
            self,
            OpKind::Validate | OpKind::Replay | OpKind::Fingerprint | OpKind::Branch
        )
    }

    /// The operations of a `--ops` list (`validate,replay`), each name checked.
    pub fn parse_list(names: &[String]) -> Result<Vec<OpKind>, String> {
        names
            .iter()
            .map(|o| {
                OpKind::parse(o)
                    .ok_or_else(|| format!("--ops {o:?}: not an operation ({})", OpKind::names()))
            })
            .collect()
    }

    /// Every name, joined by `, ` (for messages).
    pub fn names() -> String {
        OpKind::ALL.map(OpKind::as_str).join(", ")
    }
}

impl Operation {
    /// Which operation this is.
    pub fn kind(&self) -> OpKind {
        match self {
            Operation::Validate => OpKind::Validate,
            Operation::Replay { .. } => OpKind::Replay,
            Operation::Fingerprint { .. } => OpKind::Fingerprint,
            Operation::Branch { .. } => OpKind::Branch,
            Operation::Canonical => OpKind::Canonical,
            Operation::TreeInspect => OpKind::TreeInspect,
            Operation::TreeApply { .. } => OpKind::TreeApply,
            Operation::StoreApply { .. } => OpKind::StoreApply,
        }
    }

    /// The operation's name as spelled in vectors and the protocol.
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
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
    parse_document_with_max_depth(bytes, json::MAX_DEPTH)
}

/// [`parse_document`] with another nesting limit (`tree apply`'s OPS: steps carry
/// messages as deep as an entry's, one array and one object further down).
fn parse_document_with_max_depth(bytes: &[u8], max_depth: usize) -> Result<Value, Error> {
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
    json::parse_with_max_depth(text, max_depth).map_err(|e| locate_in_document(e, bytes))
}

/// Read and parse one JSON document from a stream, as [`parse_document`] would parse
/// all of it, in memory that follows the document, not the input (`canonical`):
///
/// - every line (bytes between `\n`s) is bounded by `max_line_bytes` (SPEC.md 16.5;
///   an I/O error, exit status 2, [`wire::line_too_long`]), so an endless line such as
///   `/dev/zero` ends;
/// - an invalid UTF-8 byte stops reading at once (W-UTF8-1 is decided by the bytes
///   before it);
/// - a JSON error that the rest cannot change (found by parsing the bytes read so far
///   at doubling sizes, [`json::settled_error`]) stops BUFFERING: O-CANON-1 puts
///   W-UTF8-1 over the whole input before section 3.1, so the rest is still read, in
///   constant memory, for an invalid UTF-8 byte that would win (and the line bound).
pub fn read_document<R: BufRead>(r: R, max_line_bytes: usize) -> Result<Value, ReadError> {
    read_document_checking(r, max_line_bytes, FIRST_SETTLE_CHECK, json::MAX_DEPTH)
}

/// How many bytes (64 KiB) the streaming reader holds before it first looks for a
/// settled JSON error (then at each doubling): a look costs a parse of what is held, so
/// the looks together cost at most twice the last, and a small document is parsed once.
const FIRST_SETTLE_CHECK: usize = 65_536;

/// [`read_document`] with containers nested up to `max_depth` (C-DEPTH-1 is
/// `json::MAX_DEPTH`): `tree apply`'s OPS document, whose steps carry messages that
/// T-APPEND-1, not the reader, decides about.
pub fn read_document_with_max_depth<R: BufRead>(
    r: R,
    max_line_bytes: usize,
    max_depth: usize,
) -> Result<Value, ReadError> {
    read_document_checking(r, max_line_bytes, FIRST_SETTLE_CHECK, max_depth)
}

/// [`read_document`], first looking for a settled error after `first_check` bytes.
fn read_document_checking<R: BufRead>(
    mut r: R,
    max_line_bytes: usize,
    first_check: usize,
    max_depth: usize,
) -> Result<Value, ReadError> {
    let mut buf: Vec<u8> = Vec::new();
    let mut json_error: Option<Error> = None;
    let mut next_check = first_check;
    // Bytes read before this chunk, the current line's number and start offset.
    let (mut offset, mut line, mut line_start) = (0u64, 1u64, 0u64);
    // The bytes of a UTF-8 sequence cut by a chunk boundary (never a `\n`).
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        // W-UTF8-1, incrementally: the first bad byte decides, whatever follows.
        let base = offset - carry.len() as u64;
        carry.extend_from_slice(chunk);
        match std::str::from_utf8(&carry) {
            Ok(_) => carry.clear(),
            Err(e) if e.error_len().is_none() => {
                carry.drain(..e.valid_up_to());
            }
            Err(e) => {
                if json_error.is_none() {
                    buf.extend_from_slice(chunk);
                    return Err(parse_document_with_max_depth(&buf, max_depth)
                        .expect_err("invalid UTF-8")
                        .into());
                }
                let bad = base + e.valid_up_to() as u64;
                let upto = &chunk[..bad.saturating_sub(offset) as usize];
                return Err(bad_utf8(bad, upto, offset, line, line_start).into());
            }
        }
        // The line bound, before the chunk is kept.
        let mut at = 0;
        while at < n {
            let (end, newline) = match chunk[at..].iter().position(|&b| b == b'\n') {
                Some(p) => (at + p, true),
                None => (n, false),
            };
            if offset + end as u64 - line_start > max_line_bytes as u64 {
                return Err(wire::line_too_long(line, max_line_bytes).into());
            }
            if newline {
                line += 1;
                line_start = offset + end as u64 + 1;
            }
            at = end + 1;
        }
        if json_error.is_none() {
            buf.extend_from_slice(chunk);
        }
        offset += n as u64;
        r.consume(n);
        if json_error.is_none() && buf.len() >= next_check {
            next_check = buf.len() * 2;
            if let Some(e) = settled_error(&buf, max_depth) {
                json_error = Some(e);
                buf = Vec::new();
            }
        }
    }
    match json_error {
        // Input ended inside a UTF-8 sequence: W-UTF8-1 wins over the JSON error.
        Some(_) if !carry.is_empty() => {
            let bad = offset - carry.len() as u64;
            Err(bad_utf8(bad, &[], offset, line, line_start).into())
        }
        Some(e) => Err(e.into()),
        None => parse_document_with_max_depth(&buf, max_depth).map_err(ReadError::from),
    }
}

/// `invalid_utf8` at absolute byte `bad`, as [`parse_document`] locates it: `upto` is
/// the part of the current chunk (which starts at `offset`, on line `line` that began at
/// `line_start`) before `bad`.
fn bad_utf8(bad: u64, upto: &[u8], offset: u64, line: u64, line_start: u64) -> Error {
    let newlines = upto.iter().filter(|&&b| b == b'\n').count() as u64;
    let start = upto
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(line_start, |p| offset + p as u64 + 1);
    Error::new(
        ErrorCode::InvalidUtf8,
        format!("invalid UTF-8 at byte {}", bad + 1),
    )
    .at_line(line + newlines)
    .at_column(bad - start + 1)
}

/// The JSON error of a document that starts with `prefix`, if the bytes after `prefix`
/// cannot change it ([`json::settled_error`]), located in the document.
fn settled_error(prefix: &[u8], max_depth: usize) -> Option<Error> {
    let text = match std::str::from_utf8(prefix) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&prefix[..e.valid_up_to()]).ok()?,
    };
    if prefix.starts_with(wire::BOM) {
        return None; // parse_document reports it; decided at the end
    }
    json::settled_error(text, max_depth).map(|e| locate_in_document(e, prefix))
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
    let journal_profile = profile.journal();
    Ok(match op {
        Operation::Validate => {
            let n = journal::validate(input, journal_profile)?;
            Value::object([("event_count", Value::from_u64(n))])
        }
        Operation::Replay { until } => replay::replay(input, journal_profile, *until)?.to_json(),
        // The library's own fingerprint function (no projection), so the corpus pins it too
        // (issue 19: the mutation gate found nothing else reaching it).
        Operation::Fingerprint { until } => {
            Value::from(replay::fingerprint(input, journal_profile, *until)?)
        }
        Operation::Branch { at, branch_id } => {
            branch::branch(input, journal_profile, *at, branch_id)?.to_json()
        }
        Operation::Canonical => Value::from(canonical::to_string(&parse_document(input)?)),
        Operation::TreeInspect if profile.dialect() == Dialect::Yoagent026 => {
            crate::tree::yoagent::Session::load(input)?.inspect()
        }
        Operation::TreeApply { steps } if profile.dialect() == Dialect::Yoagent026 => {
            crate::tree::yoagent::apply_all(input, steps)?
        }
        Operation::TreeInspect => crate::tree::Tree::load_shape(input)?.inspect(),
        Operation::TreeApply { steps } => crate::tree::apply_all(input, steps)?,
        Operation::StoreApply { steps } => {
            crate::store::apply_steps(input, steps, journal_profile)?
        }
    })
}

/// [`execute`] with the journal operations and the `yoagent-0.26` dialect's
/// `tree_inspect` on the checked fast path ([`fast`], on the calling thread): what
/// `serve` answers, so a run against `serve` exercises it. The other operations are
/// [`execute`]'s.
pub fn execute_fast(op: &Operation, input: &[u8], profile: Profile) -> Result<Value, ReadError> {
    if matches!(op, Operation::TreeInspect) && profile.dialect() == Dialect::Yoagent026 {
        return Ok(fast::yoagent::load_shape(input, 0)?.inspect());
    }
    let opts = fast::Options::new(profile.journal()).with_threads(0);
    Ok(match op {
        Operation::Validate => Value::object([(
            "event_count",
            Value::from_u64(fast::validate(input, &opts)?),
        )]),
        Operation::Replay { until } => fast::replay(input, &opts, *until)?.to_value(),
        Operation::Fingerprint { until } => Value::from(fast::fingerprint(input, &opts, *until)?),
        Operation::Branch { at, branch_id } => {
            fast::branch(input, &opts, *at, branch_id)?.to_json()
        }
        other => return execute(other, input, profile),
    })
}

#[cfg(test)]
mod stream_tests {
    use super::*;

    fn streamed(bytes: &[u8], cap: usize, first_check: usize) -> Result<Value, Error> {
        let r = std::io::BufReader::with_capacity(cap, bytes);
        match read_document_checking(r, usize::MAX >> 1, first_check, json::MAX_DEPTH) {
            Ok(v) => Ok(v),
            Err(ReadError::Invalid(e)) => Err(e),
            Err(ReadError::Io(e)) => panic!("I/O error from a slice: {e}"),
        }
    }

    /// Streaming gives exactly `parse_document`'s answer, whatever the chunking and
    /// however early it looks for a settled error (expected values: the whole-input
    /// parser, which `tests/canonical_python.rs` checks against Python).
    #[test]
    fn streaming_agrees_with_the_whole_input_parser() {
        let docs: &[&[u8]] = &[
            b"{\"a\": [1, 2.5, \"x\"]}\n",
            b" [1,\n 2,\n x]\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
            b"[1] [2]                                            ",
            b"[\"unterminated                                       ",
            b"[\"\\ud800\", 1]                                           ",
            b"[\"\\ud800\\udc00\"]",
            b"[1, 2, x]            \xff                     ",
            b"[1, 2, x]          \n  \n  \xe2\x82",
            b"[1, 2, x]          \n  \n  \xe2\x82\xac \n \xc3",
            b"\xef\xbb\xbf[1]",
            b"[1, \n\xe2\x82\xac, \xe2\x28\xa1]",
            b"{\"a\":1,\"a\":2}                                          ",
            b"123456789012345678901234567890123456789012345678901234567890.5",
            b"",
            b"   \n  ",
            b"[Infinity, NaN]                                          ",
        ];
        let mut big = b"[".to_vec();
        big.extend(std::iter::repeat_n(b'1', 5000));
        big.extend(b".5]");
        let mut all: Vec<Vec<u8>> = docs.iter().map(|d| d.to_vec()).collect();
        all.push(big);
        for d in &all {
            let want = parse_document(d);
            for cap in [1, 2, 3, 7, 64, 1 << 16] {
                for first in [1, 5, 1 << 16] {
                    assert_eq!(
                        streamed(d, cap, first),
                        want,
                        "cap {cap}, first check {first}: {:?}",
                        String::from_utf8_lossy(d)
                    );
                }
            }
        }
    }

    /// An early error stops buffering: the rest is read without being kept, and an
    /// invalid UTF-8 byte later still wins (O-CANON-1).
    #[test]
    fn an_early_error_stops_buffering_but_utf8_later_wins() {
        let mut d = b"[1, x, ".to_vec();
        d.extend(std::iter::repeat_n(b' ', 1 << 20));
        let e = streamed(&d, 4096, 64).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert_eq!((e.line, e.column), (Some(1), Some(5)));
        d.extend(b"\n \xff");
        let e = streamed(&d, 4096, 64).unwrap_err();
        assert_eq!(e, parse_document(&d).unwrap_err());
        assert_eq!(
            (e.code, e.line, e.column),
            (ErrorCode::InvalidUtf8, Some(2), Some(2))
        );
    }

    #[test]
    fn a_line_of_a_document_is_bounded() {
        let r = std::io::BufReader::with_capacity(8, &b"[1,\n 2222222222]"[..]);
        match read_document(r, 8) {
            Err(ReadError::Io(e)) => assert!(e.to_string().starts_with("line 2 is longer")),
            other => panic!("{other:?}"),
        }
        let r = std::io::BufReader::with_capacity(8, &b"[1,\n 222222]"[..]);
        assert!(read_document(r, 8).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::OpKind;

    #[test]
    fn operation_names_round_trip() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(OpKind::parse("nope"), None);
        assert_eq!(
            OpKind::ALL.iter().filter(|k| k.is_journal()).count(),
            4,
            "validate, replay, fingerprint, branch"
        );
    }
}
