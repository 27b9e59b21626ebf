//! The checked fast path for `validate`, `fingerprint`, `replay` and `branch` (and, in
//! `yoagent.rs` with `vouch.rs`, for the `yoagent-0.26` dialect's `tree inspect` and
//! `tree validate`, whose own doc comment says how it is fast and why it is right): the same
//! rules as the oracle (`wire`, `json`, `canonical`, `event`, `journal`, `replay`,
//! `branch`, which are what SPEC.md describes), implemented for speed. The CLI and
//! `serve` use it; `tests/fast_oracle.rs` and the `fast_oracle` fuzz target compare it
//! with the oracle on every input, valid and malformed.
//!
//! How it is fast:
//! * each line is parsed into a reusable, borrowed token tape (`tape.rs`): no
//!   allocation per key or string, strings without escapes are slices of the input;
//!   canonical bytes are written straight from the tape, or, when the parse found the
//!   line already canonical (`Tape::canonical`), are the line's own bytes;
//! * the event ids live in a compact set (`ids.rs`): one arena, a table of offsets,
//!   exact comparison;
//! * the input is cut into blocks of whole lines; one thread per core reads a block in
//!   turn and parses, checks and canonicalises it, in parallel (everything about one
//!   line that does not depend on earlier lines: `W-*`, `C-*`, `E-*`, `P-TRACE-*`,
//!   `R-TYPE-1`); the calling thread, one of them, takes the blocks in order and runs
//!   the journal checks (`J-*`), the hash and the projection, and parses a block itself
//!   only when the next one in order is not ready. Memory: a fixed number of blocks in
//!   flight plus the id set (and, for replay, the projection as canonical bytes).
//!
//! Why it is right: the fast line path either accepts a line with exactly the
//! oracle's outcome or DECLINES it, and a declined line is run through the oracle
//! (`wire::parse_line`, `event::from_value`, `event::check_payload`), which gives
//! its exact error, or its event. Errors are reported in line order, first one wins,
//! so the result is the sequential oracle's: same value, code, location and message.
//!
//! What it shares with the oracle rather than copies: the payload rules are the
//! oracle's own functions over a payload view (`event::PayloadView`, implemented by
//! the tape: `R-TYPE-1` is `event::ill_typed_field`, the projection
//! `replay::contribution`); a journal error the ordered checks find is a
//! `journal::Violation`, worded by the oracle's constructor from the oracle's reading
//! of its one line; `J-EMPTY-1` is `journal::empty_journal`. What is its own: the tape
//! parser and canonical writer (`tape.rs`), the id set (`ids.rs`), the pipeline. The
//! comparison with the oracle is [`differences`] (in `differential.rs`).

mod differential;
mod ids;
mod tape;
pub mod vouch;
pub mod yoagent;

pub use differential::{canonical_lines, differences, differences_sampled, not_taken};

use std::io::{self, BufRead};
use std::ops::Range;

use crate::branch::{check_branch_id, SessionBranch};
use crate::canonical;
use crate::error::{Error, ReadError};
use crate::event::{ill_typed_field, Event, JournalProfile, ReducedType};
use crate::fingerprint::hex;
use crate::journal::{self, Expected, Violation};
use crate::json::Value;
use crate::profile::Passed;
use crate::replay::{check_range, contribution, Contribution};
use crate::wire;

use ids::IdSet;
use tape::{Tape, TapePayload, Tok};

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
    pub profile: JournalProfile,
    /// A longer line is an I/O error naming the line, raised before more is buffered.
    pub max_line_bytes: usize,
    /// Parsing threads, the calling thread among them; 0 runs everything on the calling
    /// thread in turn (1 does too, through the parallel pipeline).
    pub threads: usize,
    /// Bytes of input per block (a block always holds whole lines).
    pub block_bytes: usize,
    /// The id set's limit (SPEC.md 16.5): an event is taken while the ids before it, each
    /// after its length, fill at most this many bytes; past it, an I/O error naming the
    /// line. 4,294,967,295 (`u32::MAX`, the most the set's offsets can name; a larger
    /// value means the same), lowered only to test the limit.
    pub max_id_bytes: usize,
}

impl Options {
    /// `profile`, the default line limit, one parsing thread per available core (the
    /// calling thread alone on a single core), 64 KiB blocks.
    pub fn new(profile: JournalProfile) -> Options {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Options {
            profile,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            threads: if cores > 1 { cores } else { 0 },
            block_bytes: 64 << 10,
            max_id_bytes: ids::MAX_START,
        }
    }

    /// The same options with `threads` parsing threads (0: the calling thread alone).
    pub fn with_threads(mut self, threads: usize) -> Options {
        self.threads = threads;
        self
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

/// What the projection takes from one event: a canonical JSON string (a text) or
/// object (a tool result's payload).
#[derive(Clone, Debug)]
enum Proj {
    None,
    User(Held),
    Assistant(Held),
    Stop(Held),
    Tool(Held),
}

/// Where a projected value's canonical bytes are in their block.
#[derive(Clone, Debug)]
enum Held {
    /// In `out`, inside the event's canonical text (recorded while writing it).
    Out(Range<usize>),
    /// In `aux`, written on their own.
    Aux(Range<usize>),
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
    /// A block whose input and canonical bytes fit its buffers from the start: a block
    /// holds `block_bytes`, the last read's at most 4 KiB past them, and the partial
    /// line carried over (a few hundred bytes on most journals; a longer one grows the
    /// buffer). Buffers that grew by doubling took up to twice that, and the copies
    /// they left behind stayed in the heap (fingerprint's peak RSS: 0.25 MiB more,
    /// benches/RESULTS.md).
    fn with_capacity(block_bytes: usize) -> Block {
        let room = block_bytes.saturating_add(8 << 10);
        let mut b = Block::default();
        // A size the allocator refuses (a huge `Options::block_bytes`) is left to grow.
        let _ = b.data.try_reserve_exact(room);
        let _ = b.out.try_reserve_exact(room);
        b
    }

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

/// The index of the first `\n` in `s` (`memchr`'s SIMD search).
#[inline]
fn find_newline(s: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', s)
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
        // The carry is copied, not swapped in: each block keeps its own buffer.
        b.data.extend_from_slice(&self.carry);
        self.carry.clear();
        // `line_start`: start of the line being read; `lines`: complete lines so far.
        let mut line_start = 0;
        let mut lines = 0u64;
        let mut scanned = 0;
        loop {
            // Complete lines in the new bytes. None is over the bound: a read takes at
            // most `max + 1` bytes of the line it starts in (below), so a line over the
            // bound is always seen as the partial line, after this loop.
            while let Some(p) = find_newline(&b.data[scanned..]) {
                let nl = scanned + p;
                debug_assert!(nl - line_start <= self.max, "reads stop at the line bound");
                lines += 1;
                line_start = nl + 1;
                scanned = nl + 1;
            }
            scanned = b.data.len();
            if b.data.len() - line_start > self.max {
                return self.fail(b, line_start, too_long(b.first_line + lines, self.max));
            }
            if b.data.len() >= self.block_bytes && lines > 0 {
                break;
            }
            let partial = b.data.len() - line_start;
            // Read up to the block's size (at least 4 KiB, so a long line is read in few
            // steps), never more than the line bound allows: at most `max + 1` bytes of
            // the partial line, so its bound is the one test above; and a block's
            // buffers stay near `block_bytes`, which bounds the memory of the blocks in
            // flight.
            let room = self.block_bytes.saturating_sub(b.data.len()).max(4 << 10);
            let want = room.min(64 << 10).min(self.max + 1 - partial).max(1);
            let buf = match self.source.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return self.fail(b, line_start, e),
            };
            if buf.is_empty() {
                b.last = true;
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

    fn fail(&mut self, b: &mut Block, line_start: usize, e: io::Error) {
        b.data.truncate(line_start);
        b.io_error = Some(e);
        b.last = true;
    }
}

/// The oracle's reading of one line, as `journal::next_event` does it up to the
/// journal checks: the wire and JSON rules, the envelope, `R-TYPE-1`.
fn oracle_line(number: u64, bytes: &[u8], profile: JournalProfile) -> Result<Event, Error> {
    let located = |e: Error| e.at_line(number).with_excerpt(bytes);
    let ev = crate::journal::parse_event(profile, number, bytes)?;
    crate::event::check_payload(&ev).map_err(|e| {
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

fn push_string(aux: &mut Vec<u8>, s: &str) -> Held {
    let start = aux.len();
    canonical::write_string(s, aux);
    Held::Aux(start..aux.len())
}

fn parse_sequence(text: &[u8]) -> Option<u64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Parses and checks lines on their own, reusing its buffers.
#[derive(Default)]
struct LineWorker {
    tape: Tape,
    /// The `trace-0.1` objects that passed on this worker's earlier lines.
    passed: Passed,
}

impl LineWorker {
    fn process(&mut self, b: &mut Block, mode: Mode, profile: JournalProfile) {
        let mut start = 0;
        let mut number = b.first_line;
        let data = std::mem::take(&mut b.data);
        while start < data.len() {
            let end = find_newline(&data[start..]).map_or(data.len(), |p| start + p);
            let bytes = &data[start..end];
            let range = start..end;
            start = end + 1;
            #[cfg(test)]
            tests::planted_panic(bytes, number);
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
    fn fast(
        &mut self,
        s: &[u8],
        b: &mut Block,
        mode: Mode,
        profile: JournalProfile,
    ) -> Option<LineEvent> {
        if s.starts_with(wire::BOM) {
            return None;
        }
        let line = simdutf8::basic::from_utf8(s).ok()?;
        self.tape.parse(s)?;
        let t = &self.tape;
        // The envelope's members, by their place in `profile::TOP`, from one walk of the
        // event: under trace-0.1 the profile check's, under core a walk that only finds
        // them. Either check failing declines, so their order does not matter here (the
        // oracle orders the errors).
        let top = if profile == JournalProfile::Trace01 {
            trace01(t, line, &mut self.passed)?
        } else {
            top_members(t, line)
        };
        let env = Envelope::read(t, s, |name| {
            top[crate::profile::place(&crate::profile::TOP, name)?]
        })?;
        // R-TYPE-1: the fields the reducer reads are strings when present.
        let payload = TapePayload {
            tape: t,
            input: s,
            object: env.payload,
        };
        let ty = ReducedType::of(t.str_bytes(s, env.ty)?);
        if ill_typed_field(ty, &payload).is_some() {
            return None;
        }

        // Accepted: write what the ordered checks, the hash and the projection need.
        // The projection's value (a text member or the payload) is marked in the event's
        // canonical bytes, which hold it.
        let c = match mode {
            Mode::Replay => contribution(ty, &payload),
            _ => Contribution::Nothing,
        };
        let mark = match &c {
            Contribution::ToolResult => Some(env.payload),
            Contribution::User(x) | Contribution::Assistant(x) | Contribution::Stop(x) => x.member,
            Contribution::Nothing => None,
        };
        let mut canon = 0..0;
        let mut marked = None;
        if mode.canonical() {
            let start = b.out.len();
            b.out.push(b',');
            if t.canonical {
                // Already canonical (`Tape::canonical`): the line's bytes are the event's
                // canonical bytes, and the marked value's are where it sits in the line.
                b.out.extend_from_slice(s);
                marked = mark.map(|m| {
                    let r = t.value_span(m).expect("a marked value's span");
                    start + 1 + r.start..start + 1 + r.end
                });
            } else {
                let mut r = 0..0;
                t.write(s, 0, &mut b.out, mark.unwrap_or(usize::MAX), &mut r);
                marked = mark.map(|_| r);
            }
            canon = start..b.out.len();
        }
        let proj = project(c, &mut b.aux, marked);
        let aux = &mut b.aux;
        Some(LineEvent {
            line: 0,
            bytes: 0..0,
            canon,
            event_id: push_aux(aux, t.str_bytes(s, env.event_id)?),
            session_id: push_aux(aux, t.str_bytes(s, env.session_id)?),
            run_id: push_aux(aux, t.str_bytes(s, env.run_id)?),
            parent: env
                .parent
                .map(|p| push_aux(aux, t.str_bytes(s, p).unwrap())),
            sequence: env.sequence,
            proj,
        })
    }
}

/// The envelope's tokens in a line's tape (`E-*`), read by [`Envelope::read`].
struct Envelope {
    event_id: usize,
    session_id: usize,
    /// The declared sequence, when it is a `u64`.
    sequence: Option<u64>,
    ty: usize,
    payload: usize,
    run_id: usize,
    parent: Option<usize>,
}

impl Envelope {
    /// `E-OBJ-1` .. `E-PARENT-1` on the tape, with `member(name)` the value token of the
    /// event's member `name`; any failure declines (the oracle words it).
    #[inline]
    fn read(t: &Tape, s: &[u8], member: impl Fn(&[u8]) -> Option<usize>) -> Option<Envelope> {
        if !matches!(t.toks[0], Tok::Object { .. }) {
            return None;
        }
        let nonempty = |k: &[u8]| -> Option<usize> {
            let v = member(k)?;
            (!t.str_bytes(s, v)?.is_empty()).then_some(v)
        };
        let event_id = nonempty(b"event_id")?;
        let session_id = nonempty(b"session_id")?;
        let sequence = t.int_text(s, member(b"sequence")?)?;
        let ty = nonempty(b"type")?;
        let payload = member(b"payload")?;
        if !matches!(t.toks[payload], Tok::Object { .. }) {
            return None;
        }
        let prov = member(b"provenance")?;
        let run_id = t.get(s, prov, b"run_id")?;
        if t.str_bytes(s, run_id)?.is_empty() {
            return None;
        }
        let parent = match member(b"parent_event_id") {
            None => None,
            Some(p) => {
                if t.str_bytes(s, p)?.is_empty() {
                    return None;
                }
                Some(p)
            }
        };
        Some(Envelope {
            event_id,
            session_id,
            sequence: parse_sequence(sequence),
            ty,
            payload,
            run_id,
            parent,
        })
    }
}

/// `P-TRACE-*` on the tape, or `None` to decline (the oracle words the violation): the
/// same rule text as the oracle's ([`crate::profile::check`]), read through [`TapeNode`],
/// with no `Value` built. Returns the event's members' tokens by their place in
/// [`crate::profile::TOP`].
fn trace01(
    t: &Tape,
    line: &str,
    passed: &mut Passed,
) -> Option<[Option<usize>; crate::profile::TOP.len()]> {
    let top = crate::profile::check(
        TapeNode {
            tape: t,
            line,
            tok: 0,
        },
        passed,
    )
    .ok()?;
    Some(top.map(|m| m.map(|n| n.tok)))
}

/// The event's (token 0's) members named in [`crate::profile::TOP`], by their place
/// there, from one walk of its keys (the tape declined duplicate keys); none when it is
/// not an object.
fn top_members(t: &Tape, line: &str) -> [Option<usize>; crate::profile::TOP.len()] {
    use crate::profile::Node;
    let mut top = [None; crate::profile::TOP.len()];
    let event = TapeNode {
        tape: t,
        line,
        tok: 0,
    };
    for (name, value) in event.members() {
        if let Some(at) = crate::profile::place(&crate::profile::TOP, name) {
            top[at] = Some(value.tok);
        }
    }
    top
}

/// A token of a line's tape as a [`crate::profile::Node`].
#[derive(Clone, Copy)]
struct TapeNode<'a> {
    tape: &'a Tape,
    /// The line, checked UTF-8 once.
    line: &'a str,
    tok: usize,
}

impl<'a> TapeNode<'a> {
    fn at(self, tok: usize) -> TapeNode<'a> {
        TapeNode { tok, ..self }
    }
    /// A string token as `&str`: a string without escapes is a slice of the line
    /// (between two ASCII quotes, so on character boundaries: no second UTF-8 check);
    /// decoded escapes are checked (they are UTF-8: a lone surrogate declines while
    /// parsing).
    fn text(self, tok: usize) -> Option<&'a str> {
        match self.tape.toks[tok] {
            Tok::Str {
                start,
                end,
                escaped: false,
            } => self.line.get(start..end),
            Tok::Str { .. } => {
                std::str::from_utf8(self.tape.str_bytes(self.line.as_bytes(), tok)?).ok()
            }
            _ => None,
        }
    }
}

impl<'a> crate::profile::Node<'a> for TapeNode<'a> {
    fn kind(self) -> &'static str {
        match self.tape.toks[self.tok] {
            Tok::Null => "null",
            Tok::True | Tok::False => "boolean",
            Tok::Int { .. } => "integer",
            Tok::Float(_) => "float",
            Tok::Str { .. } => "string",
            Tok::Array { .. } => "array",
            Tok::Object { .. } => "object",
        }
    }
    fn as_str(self) -> Option<&'a str> {
        self.text(self.tok)
    }
    fn is_object(self) -> bool {
        matches!(self.tape.toks[self.tok], Tok::Object { .. })
    }
    fn members(self) -> impl Iterator<Item = (&'a [u8], Self)> {
        // An object's tokens are its members in input order: key, value subtree, ...
        // Anything else has none (an end before the start).
        let end = match self.tape.toks[self.tok] {
            Tok::Object { end, .. } => end,
            _ => 0,
        };
        let mut i = self.tok + 1;
        std::iter::from_fn(move || {
            (i < end).then(|| {
                let key = i;
                i = self.tape.next(key + 1);
                let name = self.tape.str_bytes(self.line.as_bytes(), key);
                (name.unwrap_or_default(), self.at(key + 1))
            })
        })
    }
    fn items(self) -> Option<Vec<Self>> {
        let Tok::Array { end } = self.tape.toks[self.tok] else {
            return None;
        };
        let mut out = Vec::new();
        let mut i = self.tok + 1;
        while i < end {
            out.push(self.at(i));
            i = self.tape.next(i);
        }
        Some(out)
    }
    fn int_text(self) -> Option<&'a str> {
        // A slice of the line (an integer literal is ASCII: no second UTF-8 check).
        let range = self.tape.int_range(self.line.as_bytes(), self.tok)?;
        self.line.get(range)
    }
    fn float(self) -> Option<f64> {
        match self.tape.toks[self.tok] {
            Tok::Float(f) => Some(f),
            _ => None,
        }
    }
    fn text(self) -> Option<&'a [u8]> {
        // The tape keeps the span of every object at depth 1 or 2 (the event's members)
        // and of every string with escapes: an equal text is an equal value either way.
        let span = self.tape.span(self.tok)?;
        self.line.as_bytes().get(span)
    }
}

/// The projection's share of an accepted line ([`contribution`]): the canonical bytes
/// of its text member or payload in the block's `out`, which writing the event marked
/// (`marked`), or an absent text's default written in `aux`.
#[inline]
fn project(c: Contribution<usize>, aux: &mut Vec<u8>, marked: Option<Range<usize>>) -> Proj {
    let mut held = |member: Option<usize>, absent: &str| match member {
        Some(_) => Held::Out(marked.clone().expect("a text member is marked")),
        None => push_string(aux, absent),
    };
    match c {
        Contribution::Nothing => Proj::None,
        Contribution::User(t) => Proj::User(held(t.member, t.absent)),
        Contribution::Assistant(t) => Proj::Assistant(held(t.member, t.absent)),
        Contribution::ToolResult => Proj::Tool(Held::Out(marked.expect("the payload is marked"))),
        Contribution::Stop(t) => Proj::Stop(held(t.member, t.absent)),
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
    let proj = if mode == Mode::Replay {
        match contribution(ReducedType::of(ev.event_type.as_bytes()), &ev) {
            Contribution::Nothing => Proj::None,
            Contribution::User(t) => Proj::User(push_string(&mut b.aux, t.as_str())),
            Contribution::Assistant(t) => Proj::Assistant(push_string(&mut b.aux, t.as_str())),
            Contribution::ToolResult => {
                let start = b.aux.len();
                canonical::write(ev.value.get("payload").expect("E-PAYLOAD-1"), &mut b.aux);
                Proj::Tool(Held::Aux(start..b.aux.len()))
            }
            Contribution::Stop(t) => Proj::Stop(push_string(&mut b.aux, t.as_str())),
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
    /// Write the canonical text of the `ReplayState` (`R-OUT-1`), the bytes
    /// `canonical::to_string(&state.to_json())` gives, without a newline. The writes are
    /// small (one per sequence number): `w` should buffer (the CLI's is a `BufWriter`).
    pub fn write_json(&self, w: &mut impl io::Write) -> io::Result<()> {
        w.write_all(b"{\"applied_sequences\":[")?;
        let mut digits = itoa::Buffer::new();
        for i in 0..self.applied {
            if i > 0 {
                w.write_all(b",")?;
            }
            w.write_all(digits.format(i).as_bytes())?;
        }
        w.write_all(b"],\"assistant_messages\":[")?;
        w.write_all(&self.assistants)?;
        w.write_all(b"],\"fingerprint\":\"")?;
        w.write_all(self.fingerprint.as_bytes())?;
        let mut buf = Vec::new();
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
    profile: JournalProfile,
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
    fn new(mode: Mode, profile: JournalProfile, limit: i64, max_id_bytes: usize) -> Consumer {
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
            ids: IdSet::with_max_start(max_id_bytes),
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
            let mut free = None;
            let problem = if ev.sequence != Some(self.count) {
                Some(Violation::SequenceGap)
            } else if self.count > 0 && aux[ev.session_id.clone()] != self.session[..] {
                Some(Violation::MixedSession)
            } else if self.count > 0 && aux[ev.run_id.clone()] != self.run[..] {
                Some(Violation::MixedRun)
            } else if self.ids.is_full() {
                // SPEC.md 16.5: an implementation limit, not a journal error.
                return Err(ReadError::Io(std::io::Error::other(format!(
                    "line {}: the event ids before it fill the fast path's id set ({} bytes)",
                    ev.line,
                    self.ids.max_start + 1
                ))));
            } else {
                // J-ID-1: one lookup; the insertion after J-PARENT-1 reuses its hash.
                free = self.ids.vacant(id);
                if free.is_none() {
                    Some(Violation::DuplicateEventId)
                } else if ev
                    .parent
                    .as_ref()
                    .is_some_and(|p| !self.ids.contains(&aux[p.clone()]))
                {
                    Some(Violation::UnknownParent)
                } else {
                    None
                }
            };
            if let Some(v) = problem {
                return Err(self.journal_error(v, ev.line, &b.data[ev.bytes.clone()]));
            }
            if self.count == 0 {
                self.session = aux[ev.session_id.clone()].to_vec();
                self.run = aux[ev.run_id.clone()].to_vec();
            }
            self.ids.insert_at(free.expect("checked above"), id);
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
                let held = |h: &Held| match h {
                    Held::Out(r) => &b.out[r.clone()],
                    Held::Aux(r) => &aux[r.clone()],
                };
                match (&ev.proj, self.mode) {
                    (Proj::User(h), _) => append_item(&mut self.proj.users, held(h)),
                    (Proj::Assistant(h), _) => append_item(&mut self.proj.assistants, held(h)),
                    (Proj::Tool(h), _) => append_item(&mut self.proj.tools, held(h)),
                    (Proj::Stop(h), _) => self.proj.stop = Some(held(h).to_vec()),
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
            return Err(ReadError::from(e));
        }
        if let Some(e) = b.io_error.take() {
            return Err(ReadError::Io(e));
        }
        Ok(())
    }

    /// The error of a J-* violation, worded by the oracle's constructor
    /// ([`Violation::error`]) from the oracle's reading of its one line.
    fn journal_error(&self, v: Violation, number: u64, bytes: &[u8]) -> ReadError {
        let ev = match oracle_line(number, bytes, self.profile) {
            Ok(ev) => ev,
            Err(e) => return ReadError::from(e),
        };
        let expected = Expected {
            sequence: self.count,
            session_id: &String::from_utf8_lossy(&self.session),
            run_id: &String::from_utf8_lossy(&self.run),
        };
        ReadError::Invalid(v.error(&ev, &expected).at_line(number).with_excerpt(bytes))
    }

    fn finish(mut self) -> Result<Consumer, ReadError> {
        use sha2::Digest;
        if self.count == 0 {
            return Err(ReadError::Invalid(journal::empty_journal()));
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
    let mut consumer = Consumer::new(mode, opts.profile, limit, opts.max_id_bytes);
    let mut reader = Reader::new(source, opts);
    if opts.threads == 0 {
        let mut worker = LineWorker::default();
        let mut b = Block::with_capacity(opts.block_bytes);
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
    reader: Reader<R>,
    mut consumer: Consumer,
    opts: &Options,
    mode: Mode,
) -> Result<Consumer, ReadError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::Mutex;

    // `threads` parsers in all, the calling thread one of them. Each parser owns a few
    // blocks: it fills one from the shared reader (under its lock: a read is a copy,
    // short beside the parse) and processes it. The calling thread also takes the
    // blocks in order for the ordered checks, and hands each back to its owner once
    // consumed; whenever the next block in order is not ready it parses one of its own
    // instead of waiting. So there is one thread per core, no thread between reader and
    // parser, and a thread sleeps only when it has nothing to do; memory is a few blocks
    // a parser. Two, and three for `replay`, whose calling thread also gathers the
    // projection: with two, its worker ran out of blocks while the calling thread was
    // busy, 7% slower (benches/RESULTS.md); elsewhere a third gains nothing and adds a
    // block's buffers to the peak memory `fingerprint` has a goal for.
    let blocks_per_worker = if mode == Mode::Replay { 3 } else { 2 };
    let workers = opts.threads.saturating_sub(1);
    // The owner of the calling thread's blocks.
    let caller = workers;
    let stop = AtomicBool::new(false);
    let profile = opts.profile;
    // The reader, and whether it has handed out the last block.
    let source = Mutex::new((reader, false));
    // Fill `b` from the shared reader and parse it: false once the reader has handed out
    // its last block (or a parser panicked while reading), when `b` is left as it was; a
    // panic of the read or the parse is caught and returned.
    let parse = |parser: &mut LineWorker, b: &mut Block| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let Ok(mut source) = source.lock() else {
                return false;
            };
            let (reader, finished) = &mut *source;
            if *finished || stop.load(Ordering::Relaxed) {
                return false;
            }
            reader.fill(b);
            *finished = b.last;
            drop(source);
            parser.process(b, mode, profile);
            true
        }))
    };
    std::thread::scope(|scope| {
        // A worker that panics sends its panic instead of its block: the calling thread,
        // waiting for that block, would otherwise wait forever (the other workers hold
        // the channel open). It stops the others and re-raises the panic after the joins.
        let (done_tx, done_rx) = channel::<std::thread::Result<(usize, Block)>>();
        let parse = &parse;
        // Every thread is joined explicitly below: the scope's implicit join returns when
        // the closures are done, before the threads have exited and run their thread-local
        // destructors (rust-lang/rust#116179), and LeakSanitizer then saw glibc's TLS
        // destructor list of a thread still exiting as a leak (issue 20).
        let mut threads = Vec::with_capacity(workers);
        let mut give_back = Vec::with_capacity(workers);
        for owner in 0..workers {
            let (free_tx, free_rx) = sync_channel::<Block>(blocks_per_worker);
            for _ in 0..blocks_per_worker {
                free_tx
                    .send(Block::with_capacity(opts.block_bytes))
                    .expect("room for every block");
            }
            give_back.push(free_tx);
            let done_tx = done_tx.clone();
            threads.push(scope.spawn(move || {
                let mut worker = LineWorker::default();
                while let Ok(mut b) = free_rx.recv() {
                    match parse(&mut worker, &mut b) {
                        Ok(true) => {
                            if done_tx.send(Ok((owner, b))).is_err() {
                                break;
                            }
                        }
                        Ok(false) => break,
                        Err(panic) => {
                            let _ = done_tx.send(Err(panic));
                            break;
                        }
                    }
                }
            }));
        }
        drop(done_tx);
        // The calling thread: its own blocks and parser, and the ordered checks.
        let mut own: Vec<Block> = (0..blocks_per_worker)
            .map(|_| Block::with_capacity(opts.block_bytes))
            .collect();
        let mut parser = LineWorker::default();
        let mut pending = std::collections::BTreeMap::<u64, (usize, Block)>::new();
        let mut next = 0u64;
        let mut panic = None;
        let result = 'outer: loop {
            while let Some((owner, mut b)) = pending.remove(&next) {
                next += 1;
                if let Err(e) = consumer.consume(&mut b) {
                    break 'outer Err(e);
                }
                if b.last {
                    break 'outer Ok(());
                }
                if owner == caller {
                    own.push(b);
                } else {
                    let _ = give_back[owner].send(b);
                }
            }
            // The next block is not ready: take one a worker has finished, or else parse
            // one of our own, or else wait for a worker's. (The workers end when the
            // reader has handed out its last block, which may be before the calling
            // thread has consumed it: their channel's end is not the input's.)
            let arrived = match done_rx.try_recv() {
                Ok(arrived) => arrived,
                Err(_) => {
                    if let Some(mut b) = own.pop() {
                        match parse(&mut parser, &mut b) {
                            Ok(true) => {
                                pending.insert(b.index, (caller, b));
                                continue;
                            }
                            Ok(false) => own.push(b),
                            Err(payload) => {
                                panic = Some(payload);
                                break Ok(());
                            }
                        }
                    }
                    match done_rx.recv() {
                        Ok(arrived) => arrived,
                        Err(_) => {
                            break Err(ReadError::Io(io::Error::other("a worker thread stopped")))
                        }
                    }
                }
            };
            match arrived {
                Ok((owner, b)) => {
                    pending.insert(b.index, (owner, b));
                }
                Err(payload) => {
                    panic = Some(payload);
                    break Ok(());
                }
            }
        };
        stop.store(true, Ordering::Relaxed);
        drop(give_back);
        drop(done_rx);
        for t in threads {
            // A join waits for the thread to exit (pthread_join), TLS destructors included.
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
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

#[cfg(test)]
mod tests {
    use super::{trace01, Passed, Tape};
    use crate::golden::GOLDEN;

    /// A line a worker panics on (only in this crate's unit tests).
    const PLANTED_PANIC: &[u8] = b"{\"planted\":\"a worker panics here\"}";

    /// The worker's panic at [`PLANTED_PANIC`] (called only in unit-test builds).
    pub(super) fn planted_panic(line: &[u8], number: u64) {
        if line == PLANTED_PANIC {
            panic!("the planted panic of line {number}");
        }
    }

    /// A worker's panic reaches the caller as a panic, after every thread has stopped:
    /// the caller once waited forever for the block the worker never finished.
    #[test]
    fn a_worker_panic_is_raised_not_waited_for() {
        let mut journal = Vec::new();
        for i in 0..4000 {
            if i == 2500 {
                journal.extend_from_slice(PLANTED_PANIC);
            } else {
                journal.extend_from_slice(
                    format!(
                        r#"{{"event_id":"e{i}","payload":{{}},"provenance":{{"run_id":"r"}},"sequence":{i},"session_id":"s","type":"note"}}"#
                    )
                    .as_bytes(),
                );
            }
            journal.push(b'\n');
        }
        let panicked = validate_panics(std::io::Cursor::new(journal));
        assert!(panicked, "the worker's panic is raised to the caller");
    }

    /// Whether `validate` of `source` with two parsers over 64-byte blocks panics; it must
    /// end within 120 s (a run waiting forever for a block fails here).
    fn validate_panics(source: impl std::io::BufRead + Send + 'static) -> bool {
        let opts = super::Options {
            threads: 2,
            block_bytes: 64,
            ..super::Options::new(crate::event::JournalProfile::Core)
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                super::validate(source, &opts).is_ok()
            }));
            let _ = tx.send(run.is_err());
        });
        rx.recv_timeout(std::time::Duration::from_secs(120))
            .expect("the run ends instead of waiting for a block forever")
    }

    /// A source that panics while a parser reads from it (under the reader's lock) ends
    /// the run with that panic, every thread stopped: the other parser finds the lock
    /// poisoned and stops, and the calling thread is not left waiting for a block.
    #[test]
    fn a_panic_while_reading_is_raised_not_waited_for() {
        /// Gives one `{` (a line not yet ended), then panics on the next read.
        struct Panics(bool);
        impl std::io::Read for Panics {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                unreachable!("the reader reads through fill_buf")
            }
        }
        impl std::io::BufRead for Panics {
            fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
                assert!(!self.0, "the planted panic of a failing source");
                Ok(b"{")
            }
            fn consume(&mut self, _: usize) {
                self.0 = true;
            }
        }
        assert!(
            validate_panics(Panics(false)),
            "the reader's panic is raised to the caller"
        );
    }

    /// The tape's `P-TRACE-*` check accepts exactly the lines the oracle's accepts, and
    /// accepts every line of the golden traces (Trace 0.1 recordings): a check that
    /// declined everything would agree with the oracle and be no fast path.
    #[test]
    fn the_tape_checks_trace01_as_the_oracle_does() {
        let mut tape = Tape::default();
        // One memory of passed objects for every line, as a worker has: the edited
        // objects follow the same objects unedited.
        let mut passed = Passed::default();
        let mut accepted = 0;
        let edits: &[(&str, &str)] = &[
            ("", ""),
            ("\"trace_version\":\"0.1.0\"", "\"trace_version\":\"0.2.0\""),
            ("\"kind\":\"", "\"kind\":\"x"),
            ("\"harness_mode\":\"", "\"harness_mode\":\"x"),
            ("\"status\":\"", "\"status\":\"x"),
            ("\"fields\":[", "\"fields\":[\"a\",\"a\","),
            ("\"fields\":[", "\"fields\":[\"\","),
            ("\"fields\":[", "\"fields\":7,\"x\":["),
            ("\"timestamp\":\"2", "\"timestamp\":\"3"),
            ("\"timestamp\":\"", "\"timestamp\":\"x"),
            ("\"sequence\":", "\"sequence\":-"),
            ("\"type\":\"", "\"type\":\"x"),
            ("\"actor\":{", "\"actor\":{\"extra\":1,"),
            (
                "\"provenance\":{",
                "\"provenance\":{\"agent_id\":\"Not-Stable\",",
            ),
            ("\"provenance\":{", "\"provenance\":{\"model\":3,"),
            ("{", "{\"duration_ms\":-1.5,"),
            ("{", "{\"duration_ms\":\"1\","),
            ("{", "{\"duration_ms\":0,"),
            ("{", "{\"unknown\":0,"),
            ("\"surface\":\"", "\"surface\":\"\\u00e9"),
            ("\"id\":\"", "\"id\":\"\\\""),
            // Objects of the same length as the unedited ones, which passed just before.
            ("\"kind\":\"user\"", "\"kind\":\"User\""),
            ("\"kind\":\"model\"", "\"kind\":\"Model\""),
            ("\"kind\":\"harness\"", "\"kind\":\"Harness\""),
            ("\"agent_id\":\"r", "\"agent_id\":\"R"),
            ("\"harness_mode\":\"fake\"", "\"harness_mode\":\"Fake\""),
            ("\"status\":\"clean\"", "\"status\":\"Clean\""),
        ];
        for g in GOLDEN {
            for line in g.journal.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                let text = std::str::from_utf8(line).unwrap();
                for (from, to) in edits {
                    let edited = text.replacen(from, to, 1);
                    let Ok(value) = crate::json::parse(&edited) else {
                        continue;
                    };
                    let oracle = crate::profile::check_trace01(&value).is_ok();
                    tape.parse(edited.as_bytes())
                        .expect("the tape parses what json does");
                    let fast = trace01(&tape, &edited, &mut passed).is_some();
                    assert_eq!(fast, oracle, "{edited}");
                    accepted += usize::from(fast && from.is_empty());
                }
            }
        }
        let lines: usize = GOLDEN
            .iter()
            .map(|g| {
                g.journal
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .count()
            })
            .sum();
        assert_eq!(accepted, lines, "every golden line is accepted on the tape");
    }
}
