//! The checked fast path for `validate`, `fingerprint`, `replay` and `branch`: the same
//! rules as the oracle (`wire`, `json`, `canonical`, `event`, `journal`, `replay`,
//! `branch`, which are what SPEC.md describes), implemented for speed. The CLI and
//! `serve` use it; `tests/fast_oracle.rs` and the `fast_oracle` fuzz target compare it
//! with the oracle on every input, valid and malformed.
//!
//! How it is fast:
//! * each line is parsed into a reusable, borrowed token tape ([`tape`]): no
//!   allocation per key or string, strings without escapes are slices of the input;
//!   canonical bytes are written straight from the tape;
//! * the event ids live in a compact set ([`ids`]): one arena, a table of offsets,
//!   exact comparison;
//! * the input is cut into blocks of whole lines; worker threads parse, check and
//!   canonicalise blocks in parallel (everything about one line that does not depend
//!   on earlier lines: `W-*`, `C-*`, `E-*`, `P-TRACE-*`, `R-TYPE-1`) while the calling
//!   thread takes the blocks in order and runs the journal checks (`J-*`), the hash and
//!   the projection. Memory: a fixed number of blocks in flight plus the id set (and,
//!   for replay, the projection as canonical bytes).
//!
//! Why it is right: the fast line path either accepts a line with exactly the
//! oracle's outcome or DECLINES it, and a declined line is run through the oracle
//! (`wire::parse_line`, `event::from_value`, `replay::check_payload`), which gives
//! its exact error, or its event. Errors are reported in line order, first one wins,
//! so the result is the sequential oracle's: same value, code, location and message.
//! Journal errors found by the ordered checks re-read their one line with the oracle
//! to word the message exactly as `journal::Checker` does.

mod ids;
mod tape;

use std::io::{self, BufRead};
use std::ops::Range;

use crate::branch::{check_branch_id, SessionBranch};
use crate::canonical;
use crate::error::{Error, ErrorCode};
use crate::event::{Event, Profile};
use crate::fingerprint::hex;
use crate::journal::ReadError;
use crate::json::Value;
use crate::replay::check_range;
use crate::wire;

use ids::IdSet;
use tape::{Tape, Tok};

/// Allocator settings for the CLI's long reads (glibc only; a no-op elsewhere): a
/// fixed mmap threshold, so large growing buffers (the id arena, the projection) are
/// mapped and remapped rather than copied inside the heap, where the freed copies stay
/// resident; and one malloc arena for all threads, so a block freed by one thread is
/// reused by the others. Only memory use changes, never a result.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes two integers and is called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// The line bound (SPEC.md 16.5): the same as the reference reader's.
pub use crate::wire::DEFAULT_MAX_LINE_BYTES;

/// How the fast path reads.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub profile: Profile,
    /// A longer line is an I/O error naming the line, raised before more is buffered.
    pub max_line_bytes: usize,
    /// Worker threads; 0 runs everything on the calling thread.
    pub threads: usize,
    /// Bytes of input per block (a block always holds whole lines).
    pub block_bytes: usize,
}

impl Options {
    /// `profile`, the default line limit, one worker per available core (none on a
    /// single core), 32 KiB blocks.
    pub fn new(profile: Profile) -> Options {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Options {
            profile,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            threads: if cores > 1 { cores } else { 0 },
            block_bytes: 32 << 10,
        }
    }

    /// The same options with another line bound (`--max-line-bytes`).
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Options {
        self.max_line_bytes = max_line_bytes;
        self
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Validate,
    Fingerprint,
    Replay,
    Branch,
}

impl Mode {
    fn canonical(self) -> bool {
        self != Mode::Validate
    }
}

/// What the projection takes from one event.
#[derive(Clone, Debug)]
enum Proj {
    None,
    /// A canonical JSON string in the block's `aux`.
    User(Range<usize>),
    Assistant(Range<usize>),
    Stop(Range<usize>),
    /// The canonical payload object, in the block's `out` (it is part of the
    /// event's canonical text there).
    Tool(Range<usize>),
    /// The canonical payload object, in the block's `aux`.
    ToolAux(Range<usize>),
}

/// One accepted line: what the ordered checks and the hash need.
#[derive(Clone, Debug)]
struct LineEvent {
    line: u64,
    /// The line's bytes in the block's `data`.
    bytes: Range<usize>,
    /// `,` + canonical event in the block's `out` (empty for `validate`).
    canon: Range<usize>,
    event_id: Range<usize>,
    session_id: Range<usize>,
    run_id: Range<usize>,
    parent: Option<Range<usize>>,
    /// The declared sequence, when it is a `u64` (anything else is a `J-SEQ-1` error).
    sequence: Option<u64>,
    proj: Proj,
}

/// A block of whole lines and, once processed, what came of them.
#[derive(Default)]
struct Block {
    index: u64,
    first_line: u64,
    data: Vec<u8>,
    last: bool,
    io_error: Option<io::Error>,
    out: Vec<u8>,
    aux: Vec<u8>,
    events: Vec<LineEvent>,
    /// The first error of a line on its own (after `events`).
    error: Option<Error>,
}

impl Block {
    fn reset(&mut self) {
        self.data.clear();
        self.last = false;
        self.io_error = None;
        self.out.clear();
        self.aux.clear();
        self.events.clear();
        self.error = None;
    }
}

/// The index of the first `\n` in `s`, 8 bytes at a time.
fn find_newline(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap()) ^ (ONES * b'\n' as u64);
        let hit = w.wrapping_sub(ONES) & !w & HIGH;
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

fn too_long(line: u64, max: usize) -> io::Error {
    crate::wire::line_too_long(line, max)
}

/// Cuts the source into blocks of whole lines, bounding every line.
struct Reader<R> {
    source: R,
    carry: Vec<u8>,
    next_line: u64,
    next_index: u64,
    done: bool,
    max: usize,
    block_bytes: usize,
}

impl<R: BufRead> Reader<R> {
    fn new(source: R, opts: &Options) -> Self {
        Reader {
            source,
            carry: Vec::new(),
            next_line: 1,
            next_index: 0,
            done: false,
            max: opts.max_line_bytes,
            block_bytes: opts.block_bytes.max(1),
        }
    }

    /// Fill `b` with the next lines; sets `b.last` at the end of input or on an error
    /// (the block then holds the whole lines before it and `io_error`).
    fn fill(&mut self, b: &mut Block) {
        b.reset();
        b.index = self.next_index;
        self.next_index += 1;
        b.first_line = self.next_line;
        std::mem::swap(&mut b.data, &mut self.carry);
        self.carry.clear();
        // `line_start`: start of the line being read; `lines`: complete lines so far.
        let mut line_start = 0;
        let mut lines = 0u64;
        let mut scanned = 0;
        loop {
            // Complete lines in the new bytes, each bounded.
            while let Some(p) = find_newline(&b.data[scanned..]) {
                let nl = scanned + p;
                if nl - line_start > self.max {
                    return self.fail(
                        b,
                        line_start,
                        lines,
                        too_long(b.first_line + lines, self.max),
                    );
                }
                lines += 1;
                line_start = nl + 1;
                scanned = nl + 1;
            }
            scanned = b.data.len();
            if b.data.len() - line_start > self.max {
                return self.fail(
                    b,
                    line_start,
                    lines,
                    too_long(b.first_line + lines, self.max),
                );
            }
            if b.data.len() >= self.block_bytes && lines > 0 {
                break;
            }
            let partial = b.data.len() - line_start;
            let want = (64 << 10).min(self.max + 1 - partial).max(1);
            let buf = match self.source.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return self.fail(b, line_start, lines, e),
            };
            if buf.is_empty() {
                self.done = true;
                b.last = true;
                self.next_line += lines + 1;
                return;
            }
            let n = buf.len().min(want);
            b.data.extend_from_slice(&buf[..n]);
            self.source.consume(n);
        }
        self.carry.extend_from_slice(&b.data[line_start..]);
        b.data.truncate(line_start);
        self.next_line += lines;
    }

    fn fail(&mut self, b: &mut Block, line_start: usize, _lines: u64, e: io::Error) {
        b.data.truncate(line_start);
        b.io_error = Some(e);
        b.last = true;
        self.done = true;
    }
}

/// The oracle's reading of one line, as `journal::next_event` does it up to the
/// journal checks: the wire and JSON rules, the envelope, `R-TYPE-1`.
fn oracle_line(number: u64, bytes: &[u8], profile: Profile) -> Result<Event, Error> {
    let located = |e: Error| e.at_line(number).with_excerpt(bytes);
    let ev = crate::journal::parse_event(profile, number, bytes)?;
    crate::replay::check_payload(&ev).map_err(|e| {
        located(
            e.with_sequence(ev.sequence_i64())
                .with_event_id(Some(&ev.event_id)),
        )
    })?;
    Ok(ev)
}

fn push_aux(aux: &mut Vec<u8>, bytes: &[u8]) -> Range<usize> {
    let start = aux.len();
    aux.extend_from_slice(bytes);
    start..aux.len()
}

fn push_string(aux: &mut Vec<u8>, s: &str) -> Range<usize> {
    let start = aux.len();
    canonical::write_string(s, aux);
    start..aux.len()
}

fn parse_sequence(text: &[u8]) -> Option<u64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Parses and checks lines on their own, reusing its buffers.
#[derive(Default)]
struct LineWorker {
    tape: Tape,
}

impl LineWorker {
    fn process(&mut self, b: &mut Block, mode: Mode, profile: Profile) {
        let mut start = 0;
        let mut number = b.first_line;
        let data = std::mem::take(&mut b.data);
        while start < data.len() {
            let end = find_newline(&data[start..]).map_or(data.len(), |p| start + p);
            let bytes = &data[start..end];
            let range = start..end;
            start = end + 1;
            let outcome = match self.fast(bytes, b, mode, profile) {
                Some(ev) => Ok(ev),
                None => oracle_line(number, bytes, profile).map(|ev| slow(&ev, b, mode)),
            };
            match outcome {
                Ok(mut ev) => {
                    ev.line = number;
                    ev.bytes = range;
                    b.events.push(ev);
                }
                Err(e) => {
                    b.error = Some(e);
                    break;
                }
            }
            number += 1;
        }
        b.data = data;
    }

    /// The fast reading of one line, or `None` to decline it.
    fn fast(&mut self, s: &[u8], b: &mut Block, mode: Mode, profile: Profile) -> Option<LineEvent> {
        if s.starts_with(wire::BOM) || simdutf8::basic::from_utf8(s).is_err() {
            return None;
        }
        self.tape.parse(s)?;
        let t = &self.tape;
        if !matches!(t.toks[0], Tok::Object { .. }) {
            return None;
        }
        // E-*: the envelope (any failure declines; the oracle words it).
        let nonempty = |k: &[u8]| -> Option<usize> {
            let v = t.get(s, 0, k)?;
            (!t.str_bytes(s, v)?.is_empty()).then_some(v)
        };
        let event_id = nonempty(b"event_id")?;
        let session_id = nonempty(b"session_id")?;
        let sequence = t.int_text(s, t.get(s, 0, b"sequence")?)?;
        let ty = nonempty(b"type")?;
        let payload = t.get(s, 0, b"payload")?;
        if !matches!(t.toks[payload], Tok::Object { .. }) {
            return None;
        }
        let prov = t.get(s, 0, b"provenance")?;
        let run_id = t.get(s, prov, b"run_id")?;
        if t.str_bytes(s, run_id)?.is_empty() {
            return None;
        }
        let parent = match t.get(s, 0, b"parent_event_id") {
            None => None,
            Some(p) => {
                if t.str_bytes(s, p)?.is_empty() {
                    return None;
                }
                Some(p)
            }
        };
        if profile == Profile::Trace01 {
            // P-TRACE-*: the profile check reads everything but the payload; give it
            // the event with an empty payload.
            let members = t
                .members_in_input_order(0)
                .into_iter()
                .map(|k| {
                    let key = String::from_utf8(t.str_bytes(s, k).unwrap().to_vec()).unwrap();
                    let v = if k + 1 == payload {
                        Value::Object(Vec::new())
                    } else {
                        t.to_value(s, k + 1)
                    };
                    (key, v)
                })
                .collect();
            crate::profile::check_trace01(&Value::Object(members)).ok()?;
        }
        // R-TYPE-1: the fields the reducer reads are strings when present.
        let ty_bytes = t.str_bytes(s, ty)?;
        let field = |k: &[u8]| t.get(s, payload, k);
        let is_str = |v: usize| matches!(t.toks[v], Tok::Str { .. });
        let read: &[&[u8]] = match ty_bytes {
            b"user.message" => &[b"content"],
            b"model.response" => &[b"content", b"accumulated"],
            b"session.stop" => &[b"reason"],
            _ => &[],
        };
        if read.iter().any(|k| field(k).is_some_and(|v| !is_str(v))) {
            return None;
        }

        // Accepted: write what the ordered checks, the hash and the projection need.
        let mut canon = 0..0;
        let mut tool = 0..0;
        if mode.canonical() {
            let start = b.out.len();
            b.out.push(b',');
            t.write(s, 0, &mut b.out, payload, &mut tool);
            canon = start..b.out.len();
        }
        let proj = if mode == Mode::Replay {
            let string = |aux: &mut Vec<u8>, v: Option<usize>, default: &str| {
                let start = aux.len();
                match v {
                    Some(v) => {
                        t.write(s, v, aux, usize::MAX, &mut (0..0));
                    }
                    None => canonical::write_string(default, aux),
                }
                start..aux.len()
            };
            match ty_bytes {
                b"user.message" => Proj::User(string(&mut b.aux, field(b"content"), "")),
                b"model.response" => {
                    // R-STREAM-1
                    if let Some(c) = field(b"content") {
                        Proj::Assistant(string(&mut b.aux, Some(c), ""))
                    } else if field(b"final").is_some_and(|f| matches!(t.toks[f], Tok::True)) {
                        Proj::Assistant(string(&mut b.aux, field(b"accumulated"), ""))
                    } else {
                        Proj::None
                    }
                }
                b"tool.result" => Proj::Tool(tool),
                b"session.stop" => Proj::Stop(string(&mut b.aux, field(b"reason"), "unknown")),
                _ => Proj::None,
            }
        } else {
            Proj::None
        };
        let aux = &mut b.aux;
        Some(LineEvent {
            line: 0,
            bytes: 0..0,
            canon,
            event_id: push_aux(aux, t.str_bytes(s, event_id)?),
            session_id: push_aux(aux, t.str_bytes(s, session_id)?),
            run_id: push_aux(aux, t.str_bytes(s, run_id)?),
            parent: parent.map(|p| push_aux(aux, t.str_bytes(s, p).unwrap())),
            sequence: parse_sequence(sequence),
            proj,
        })
    }
}

/// A line the fast path declined but the oracle accepted, in the fast path's terms.
fn slow(ev: &Event, b: &mut Block, mode: Mode) -> LineEvent {
    let mut canon = 0..0;
    if mode.canonical() {
        let start = b.out.len();
        b.out.push(b',');
        canonical::write(&ev.value, &mut b.out);
        canon = start..b.out.len();
    }
    let payload = |k: &str| {
        ev.payload()
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
    };
    let text =
        |k: &str, default: &'static str| payload(k).and_then(Value::as_str).unwrap_or(default);
    let proj = if mode == Mode::Replay {
        match ev.event_type.as_str() {
            "user.message" => Proj::User(push_string(&mut b.aux, text("content", ""))),
            "model.response" => {
                if payload("content").is_some() {
                    Proj::Assistant(push_string(&mut b.aux, text("content", "")))
                } else if payload("final") == Some(&Value::Bool(true)) {
                    Proj::Assistant(push_string(&mut b.aux, text("accumulated", "")))
                } else {
                    Proj::None
                }
            }
            "tool.result" => {
                let start = b.aux.len();
                canonical::write(ev.value.get("payload").expect("E-PAYLOAD-1"), &mut b.aux);
                Proj::ToolAux(start..b.aux.len())
            }
            "session.stop" => Proj::Stop(push_string(&mut b.aux, text("reason", "unknown"))),
            _ => Proj::None,
        }
    } else {
        Proj::None
    };
    let aux = &mut b.aux;
    LineEvent {
        line: 0,
        bytes: 0..0,
        canon,
        event_id: push_aux(aux, ev.event_id.as_bytes()),
        session_id: push_aux(aux, ev.session_id.as_bytes()),
        run_id: push_aux(aux, ev.run_id.as_bytes()),
        parent: ev
            .parent_event_id
            .as_ref()
            .map(|p| push_aux(aux, p.as_bytes())),
        sequence: parse_sequence(ev.sequence.as_bytes()),
        proj,
    }
}

/// The replay projection as canonical JSON bytes, ready to print.
#[derive(Default, Debug)]
pub struct Projection {
    /// Comma-separated canonical strings / objects.
    users: Vec<u8>,
    assistants: Vec<u8>,
    tools: Vec<u8>,
    stop: Option<Vec<u8>>,
    session_id: String,
    run_id: String,
    applied: u64,
    fingerprint: String,
}

fn append_item(list: &mut Vec<u8>, item: &[u8]) {
    if !list.is_empty() {
        list.push(b',');
    }
    list.extend_from_slice(item);
}

impl Projection {
    /// The fingerprint of the applied events.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Write the canonical text of the `ReplayState` (`R-OUT-1`), the bytes
    /// `canonical::to_string(&state.to_json())` gives, without a newline.
    pub fn write_json(&self, w: &mut impl io::Write) -> io::Result<()> {
        w.write_all(b"{\"applied_sequences\":[")?;
        let mut buf = Vec::with_capacity(1 << 16);
        for i in 0..self.applied {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(i.to_string().as_bytes());
            if buf.len() > 60_000 {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
        w.write_all(&buf)?;
        w.write_all(b"],\"assistant_messages\":[")?;
        w.write_all(&self.assistants)?;
        w.write_all(b"],\"fingerprint\":\"")?;
        w.write_all(self.fingerprint.as_bytes())?;
        buf.clear();
        buf.extend_from_slice(b"\",\"run_id\":");
        canonical::write_string(&self.run_id, &mut buf);
        buf.extend_from_slice(b",\"session_id\":");
        canonical::write_string(&self.session_id, &mut buf);
        buf.extend_from_slice(b",\"stop_reason\":");
        match &self.stop {
            Some(s) => buf.extend_from_slice(s),
            None => buf.extend_from_slice(b"null"),
        }
        buf.extend_from_slice(b",\"tool_results\":[");
        w.write_all(&buf)?;
        w.write_all(&self.tools)?;
        w.write_all(b"],\"user_messages\":[")?;
        w.write_all(&self.users)?;
        w.write_all(b"]}")
    }

    /// The projection as the oracle's JSON value (for `serve` and tests).
    pub fn to_value(&self) -> Value {
        let mut text = Vec::new();
        self.write_json(&mut text).expect("writing to memory");
        crate::json::parse_bytes(&text).expect("the projection is canonical JSON")
    }
}

/// The ordered part: journal checks, hash, projection.
struct Consumer {
    mode: Mode,
    profile: Profile,
    limit: i64,
    count: u64,
    session: Vec<u8>,
    run: Vec<u8>,
    ids: IdSet,
    hasher: sha2::Sha256,
    hashed: u64,
    proj: Projection,
    inherited: Vec<String>,
}

impl Consumer {
    fn new(mode: Mode, profile: Profile, limit: i64) -> Consumer {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        hasher.update(b"[");
        Consumer {
            mode,
            profile,
            limit,
            count: 0,
            session: Vec::new(),
            run: Vec::new(),
            ids: IdSet::default(),
            hasher,
            hashed: 0,
            proj: Projection::default(),
            inherited: Vec::new(),
        }
    }

    fn consume(&mut self, b: &mut Block) -> Result<(), ReadError> {
        use sha2::Digest;
        let mut hash_from = None;
        let mut hash_to = 0;
        for ev in &b.events {
            let aux = &b.aux;
            let id = &aux[ev.event_id.clone()];
            let mut slot = None;
            let problem = if ev.sequence != Some(self.count) {
                Some(ErrorCode::SequenceGap)
            } else if self.count > 0 && aux[ev.session_id.clone()] != self.session[..] {
                Some(ErrorCode::MixedSession)
            } else if self.count > 0 && aux[ev.run_id.clone()] != self.run[..] {
                Some(ErrorCode::MixedRun)
            } else if self.ids.is_full() {
                // SPEC.md 16.5: an implementation limit, not a journal error.
                return Err(ReadError::Io(std::io::Error::other(format!(
                    "line {}: more than {} events, the most the fast path's id set holds",
                    ev.line,
                    ids::MAX_IDS
                ))));
            } else {
                // One probe sequence for J-ID-1 and the insertion after J-PARENT-1.
                self.ids.reserve_one();
                slot = self.ids.vacant(id);
                if slot.is_none() {
                    Some(ErrorCode::DuplicateEventId)
                } else if ev
                    .parent
                    .as_ref()
                    .is_some_and(|p| !self.ids.contains(&aux[p.clone()]))
                {
                    Some(ErrorCode::UnknownParent)
                } else {
                    None
                }
            };
            if let Some(code) = problem {
                return Err(self.journal_error(code, ev.line, &b.data[ev.bytes.clone()]));
            }
            if self.count == 0 {
                self.session = aux[ev.session_id.clone()].to_vec();
                self.run = aux[ev.run_id.clone()].to_vec();
            }
            self.ids.insert_at(slot.expect("checked above"), id);
            if (self.count as i64) <= self.limit {
                if self.mode.canonical() {
                    let mut canon = ev.canon.clone();
                    if self.hashed == 0 {
                        canon.start += 1;
                    }
                    hash_from.get_or_insert(canon.start);
                    hash_to = canon.end;
                    self.hashed += 1;
                }
                match (&ev.proj, self.mode) {
                    (Proj::User(r), _) => append_item(&mut self.proj.users, &aux[r.clone()]),
                    (Proj::Assistant(r), _) => {
                        append_item(&mut self.proj.assistants, &aux[r.clone()])
                    }
                    (Proj::Tool(r), _) => append_item(&mut self.proj.tools, &b.out[r.clone()]),
                    (Proj::ToolAux(r), _) => append_item(&mut self.proj.tools, &aux[r.clone()]),
                    (Proj::Stop(r), _) => self.proj.stop = Some(aux[r.clone()].to_vec()),
                    (Proj::None, Mode::Branch) => self
                        .inherited
                        .push(String::from_utf8(id.to_vec()).expect("UTF-8")),
                    (Proj::None, _) => {}
                }
                self.proj.applied += 1;
            }
            self.count += 1;
        }
        if let Some(from) = hash_from {
            self.hasher.update(&b.out[from..hash_to]);
        }
        if let Some(e) = b.error.take() {
            return Err(ReadError::Invalid(e));
        }
        if let Some(e) = b.io_error.take() {
            return Err(ReadError::Io(e));
        }
        Ok(())
    }

    /// Word a journal error exactly as `journal::Checker::verify` does.
    fn journal_error(&self, code: ErrorCode, number: u64, bytes: &[u8]) -> ReadError {
        let ev = match oracle_line(number, bytes, self.profile) {
            Ok(ev) => ev,
            Err(e) => return ReadError::Invalid(e),
        };
        let message = match code {
            ErrorCode::SequenceGap => format!(
                "expected sequence {}, found {}",
                self.count,
                crate::error::shorten(ev.sequence.as_bytes(), 40)
            ),
            ErrorCode::MixedSession => format!(
                "session_id {:?} differs from the journal's {:?}",
                ev.session_id,
                String::from_utf8_lossy(&self.session)
            ),
            ErrorCode::MixedRun => format!(
                "provenance.run_id {:?} differs from the journal's {:?}",
                ev.run_id,
                String::from_utf8_lossy(&self.run)
            ),
            ErrorCode::DuplicateEventId => {
                format!("event_id {:?} was used by an earlier event", ev.event_id)
            }
            _ => {
                let parent = ev.parent_event_id.as_deref().unwrap_or_default();
                let why = if parent == ev.event_id {
                    "names the event itself"
                } else {
                    "names no earlier event"
                };
                format!("parent_event_id {parent:?} {why}")
            }
        };
        ReadError::Invalid(
            Error::new(code, message)
                .with_sequence(ev.sequence_i64())
                .with_event_id(Some(&ev.event_id))
                .at_line(number)
                .with_excerpt(bytes),
        )
    }

    fn finish(mut self) -> Result<Consumer, ReadError> {
        use sha2::Digest;
        if self.count == 0 {
            return Err(ReadError::Invalid(Error::new(
                ErrorCode::EmptyJournal,
                "the journal holds no event",
            )));
        }
        let mut h = self.hasher.clone();
        h.update(b"]");
        self.proj.fingerprint = hex(&h.finalize());
        Ok(self)
    }
}

/// Run the whole pipeline over `source`.
fn run<R: BufRead + Send>(
    source: R,
    opts: &Options,
    mode: Mode,
    limit: i64,
) -> Result<Consumer, ReadError> {
    let mut consumer = Consumer::new(mode, opts.profile, limit);
    let mut reader = Reader::new(source, opts);
    if opts.threads == 0 {
        let mut worker = LineWorker::default();
        let mut b = Block::default();
        loop {
            reader.fill(&mut b);
            worker.process(&mut b, mode, opts.profile);
            consumer.consume(&mut b)?;
            if b.last {
                break;
            }
        }
        return consumer.finish();
    }
    parallel(reader, consumer, opts, mode)
}

fn parallel<R: BufRead + Send>(
    mut reader: Reader<R>,
    mut consumer: Consumer,
    opts: &Options,
    mode: Mode,
) -> Result<Consumer, ReadError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::{Arc, Mutex};

    let in_flight = opts.threads + 2;
    let stop = AtomicBool::new(false);
    let profile = opts.profile;
    std::thread::scope(|scope| {
        let (free_tx, free_rx) = sync_channel::<Block>(in_flight);
        let (work_tx, work_rx) = sync_channel::<Block>(in_flight);
        let (done_tx, done_rx) = channel::<Block>();
        for _ in 0..in_flight {
            free_tx
                .send(Block::default())
                .expect("room for every block");
        }
        let stop = &stop;
        // Every thread is joined explicitly below: the scope's implicit join returns when
        // the closures are done, before the threads have exited and run their thread-local
        // destructors (rust-lang/rust#116179), and LeakSanitizer then saw glibc's TLS
        // destructor list of a thread still exiting as a leak (issue 20).
        let mut threads = Vec::with_capacity(opts.threads + 1);
        threads.push(scope.spawn(move || {
            while let Ok(mut b) = free_rx.recv() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                reader.fill(&mut b);
                let last = b.last;
                if work_tx.send(b).is_err() || last {
                    break;
                }
            }
        }));
        let work_rx = Arc::new(Mutex::new(work_rx));
        for _ in 0..opts.threads {
            let work_rx = Arc::clone(&work_rx);
            let done_tx = done_tx.clone();
            threads.push(scope.spawn(move || {
                let mut worker = LineWorker::default();
                loop {
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok(mut b)) = next else { break };
                    worker.process(&mut b, mode, profile);
                    if done_tx.send(b).is_err() {
                        break;
                    }
                }
            }));
        }
        drop(done_tx);
        drop(work_rx);
        // The ordered checks, here on the calling thread.
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0u64;
        let result = 'outer: loop {
            let Ok(b) = done_rx.recv() else {
                break Err(ReadError::Io(io::Error::other("a worker thread stopped")));
            };
            pending.insert(b.index, b);
            while let Some(mut b) = pending.remove(&next) {
                next += 1;
                if let Err(e) = consumer.consume(&mut b) {
                    break 'outer Err(e);
                }
                if b.last {
                    break 'outer Ok(());
                }
                let _ = free_tx.send(b);
            }
        };
        stop.store(true, Ordering::Relaxed);
        drop(free_tx);
        drop(done_rx);
        for t in threads {
            // A join waits for the thread to exit (pthread_join), TLS destructors included.
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
        result
    })?;
    consumer.finish()
}

/// `validate`: the number of events.
pub fn validate<R: BufRead + Send>(source: R, opts: &Options) -> Result<u64, ReadError> {
    Ok(run(source, opts, Mode::Validate, -1)?.count)
}

/// `fingerprint` of events `0..=until` (all when `None`).
pub fn fingerprint<R: BufRead + Send>(
    source: R,
    opts: &Options,
    until: Option<i64>,
) -> Result<String, ReadError> {
    let c = run(source, opts, Mode::Fingerprint, until.unwrap_or(i64::MAX))?;
    if let Some(u) = until {
        check_range(u, c.count, "until")?;
    }
    Ok(c.proj.fingerprint)
}

/// `replay` of events `0..=until` (all when `None`), as canonical bytes.
pub fn replay<R: BufRead + Send>(
    source: R,
    opts: &Options,
    until: Option<i64>,
) -> Result<Projection, ReadError> {
    let c = run(source, opts, Mode::Replay, until.unwrap_or(i64::MAX))?;
    if let Some(u) = until {
        check_range(u, c.count, "until")?;
    }
    let mut proj = c.proj;
    proj.session_id = String::from_utf8(c.session).expect("UTF-8");
    proj.run_id = String::from_utf8(c.run).expect("UTF-8");
    Ok(proj)
}

/// `branch` at `at` named `branch_id` (`B-*`, errors in `O-ORDER-1` order).
pub fn branch<R: BufRead + Send>(
    source: R,
    opts: &Options,
    at: i64,
    branch_id: &str,
) -> Result<SessionBranch, ReadError> {
    let c = run(source, opts, Mode::Branch, at)?;
    check_branch_id(branch_id)?;
    let fork = check_range(at, c.count, "fork sequence")?;
    Ok(SessionBranch {
        branch_id: branch_id.to_owned(),
        parent_session_id: String::from_utf8(c.session).expect("UTF-8"),
        parent_run_id: String::from_utf8(c.run).expect("UTF-8"),
        fork_sequence: fork,
        inherited_event_ids: c.inherited,
        parent_fingerprint: c.proj.fingerprint,
    })
}

/// `ops::execute` with the journal operations on the fast path (what `serve` runs).
pub fn execute(
    op: &crate::ops::Operation,
    input: &[u8],
    profile: Profile,
) -> Result<Value, ReadError> {
    use crate::ops::Operation;
    let opts = Options {
        threads: 0,
        ..Options::new(profile)
    };
    Ok(match op {
        Operation::Validate => {
            Value::object([("event_count", Value::from_u64(validate(input, &opts)?))])
        }
        Operation::Replay { until } => replay(input, &opts, *until)?.to_value(),
        Operation::Fingerprint { until } => Value::from(fingerprint(input, &opts, *until)?),
        Operation::Branch { at, branch_id } => branch(input, &opts, *at, branch_id)?.to_json(),
        other => return crate::ops::execute(other, input, profile),
    })
}

/// Compare the fast path with the oracle on one input, for every operation it serves
/// (validate; fingerprint, replay and branch at the end, in the middle and out of
/// range), sequentially and with worker threads over tiny blocks. Returns one line per
/// difference (empty when they agree): results must be byte-identical, errors equal
/// in code, message, line, column, sequence, event id and excerpt.
///
/// Used by `tests/fast_oracle.rs`; the `fast_oracle` fuzz target uses
/// [`differences_sampled`].
pub fn differences(input: &[u8], profile: Profile) -> Vec<String> {
    differences_in(input, profile, None)
}

/// [`differences`] with one of its `until` values and one of its branch points per
/// mode, chosen by `pick` (the fuzz target passes a hash of the input, so a run is
/// deterministic): a fifth of the calls, each of which starts worker threads in the
/// parallel mode, so the fuzz target runs about five times faster. Validate runs in
/// both modes every time.
pub fn differences_sampled(input: &[u8], profile: Profile, pick: u64) -> Vec<String> {
    differences_in(input, profile, Some(pick))
}

/// All of `items`, or only the one at index `i`.
fn sample<T>(items: &[T], i: Option<u64>) -> &[T] {
    match i {
        None => items,
        Some(i) => std::slice::from_ref(&items[i as usize]),
    }
}

fn differences_in(input: &[u8], profile: Profile, pick: Option<u64>) -> Vec<String> {
    fn outcome<T>(r: Result<T, ReadError>, show: impl Fn(T) -> String) -> Result<String, String> {
        match r {
            Ok(v) => Ok(show(v)),
            Err(ReadError::Invalid(e)) => Err(format!("{e:?}")),
            Err(ReadError::Io(e)) => Err(format!("io: {e}")),
        }
    }
    let lines = input.split(|&b| b == b'\n').count() as i64;
    let sequential = Options {
        threads: 0,
        ..Options::new(profile)
    };
    let parallel = Options {
        threads: 2,
        block_bytes: 1 + (input.len() as u64 % 97) as usize,
        ..Options::new(profile)
    };
    let mut diffs = Vec::new();
    let mut compare =
        |what: String, oracle: Result<String, String>, fast: Result<String, String>| {
            if oracle != fast {
                diffs.push(format!("{what}:\n  oracle {oracle:?}\n  fast   {fast:?}"));
            }
        };
    for (name, opts) in [("sequential", &sequential), ("parallel", &parallel)] {
        compare(
            format!("validate ({name})"),
            outcome(crate::journal::validate(input, profile), |n| n.to_string()),
            outcome(validate(input, opts), |n| n.to_string()),
        );
        let untils = [None, Some(0), Some(lines / 2), Some(lines + 1), Some(-1)];
        let untils = sample(&untils, pick.map(|p| p % 5));
        for &until in untils {
            compare(
                format!("fingerprint until {until:?} ({name})"),
                outcome(crate::replay::fingerprint(input, profile, until), |f| f),
                outcome(fingerprint(input, opts, until), |f| f),
            );
            compare(
                format!("replay until {until:?} ({name})"),
                outcome(crate::replay::replay(input, profile, until), |s| {
                    canonical::to_string(&s.to_json())
                }),
                outcome(replay(input, opts, until), |p| {
                    let mut text = Vec::new();
                    p.write_json(&mut text).expect("writing to memory");
                    String::from_utf8(text).expect("UTF-8")
                }),
            );
        }
        let points = [(lines / 2, "b1"), (0, " "), (lines + 1, "b2")];
        let points = sample(&points, pick.map(|p| p / 5 % 3));
        for &(at, id) in points {
            compare(
                format!("branch at {at} {id:?} ({name})"),
                outcome(crate::branch::branch(input, profile, at, id), |b| {
                    canonical::to_string(&b.to_json())
                }),
                outcome(branch(input, opts, at, id), |b| {
                    canonical::to_string(&b.to_json())
                }),
            );
        }
    }
    diffs
}
