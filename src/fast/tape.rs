//! The fast path's JSON layer: one line into a reusable, borrowed token tape, and
//! canonical bytes written straight from it.
//!
//! The parser accepts exactly the texts `json::parse` accepts, or DECLINES (returns
//! `None`): every error of the oracle is a decline here, and so is anything this parser
//! does not want to handle. A declined line goes to the oracle, which gives the error
//! (or, if this parser was too cautious, the value). So only acceptance must be exact:
//! when this parser accepts, the canonical bytes it writes are those of
//! `canonical::write(json::parse(line))`.
//!
//! Strings without escapes are ranges of the input; strings with escapes are decoded
//! once into [`Tape::decoded`]. Each object's keys are sorted when it closes (by their
//! decoded UTF-8 bytes, which is code-point order, `C-KEY-1`), which also finds
//! duplicate keys (`C-KEY-2`: a decline). Numbers reuse the oracle's leaf rules: the
//! `C-NUM-3` digit limit and `canonical::write_float` (Python's `repr`).
//!
//! The canonical-line fast path (issue 25): while parsing, the tape notes whether the
//! text is already its own canonical form ([`Tape::canonical`]): no insignificant
//! whitespace, every object's keys already in `C-KEY-1` order, every number and string
//! spelled as `canonical::write` spells it (`C-NUM-*`, `C-STR-*`: an escape only where
//! the writer escapes, in the writer's form). Then the line's bytes ARE its canonical
//! bytes and are used as they are, instead of being written from the tape.
//! `canonical_flag_is_write_identity` (below) checks the flag against the writer: true
//! exactly when writing the tape gives back the input.

use crate::canonical;
use crate::event::PayloadView;
use crate::json::{plain_len, MAX_DEPTH, MAX_INT_DIGITS, MAX_VALUES};

/// Objects of at most this many members are searched by a scan of their keys' words
/// ([`Tape::get`]); larger ones by binary search.
const SCAN_MEMBERS: usize = 16;

/// One token. Containers know where they end, so a subtree can be skipped.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tok {
    Null,
    True,
    False,
    /// An integer literal, `input[start..end]` (`-0` is written as `0`).
    Int {
        start: usize,
        end: usize,
    },
    /// A finite double.
    Float(f64),
    /// A string: `input[start..end]` when `escaped` is false, else `decoded[start..end]`.
    Str {
        start: usize,
        end: usize,
        escaped: bool,
    },
    /// An array; `end` is the index of the first token after it.
    Array {
        end: usize,
    },
    /// An object; its key tokens in sorted order are `order[order..order + members]`,
    /// each followed by its value token.
    Object {
        end: usize,
        order: usize,
        members: usize,
    },
}

/// One key of an object, as sorted: its first 8 bytes as a big-endian word ([`word`]),
/// its token, and its member's index in [`Tape::members`].
#[derive(Clone, Copy, Debug)]
struct Key {
    word: u64,
    tok: u32,
    member: u32,
}

/// One object member's text, `input[start..end]` (from the key's opening quote to the
/// value's last byte); `canonical` when it is what [`Tape::write`] writes for it.
#[derive(Clone, Copy, Debug)]
struct Member {
    start: usize,
    end: usize,
    canonical: bool,
}

/// A reusable tape: parse line after line into the same buffers.
#[derive(Default)]
pub(crate) struct Tape {
    pub toks: Vec<Tok>,
    pub decoded: Vec<u8>,
    /// Sorted keys of every object.
    order: Vec<Key>,
    keys: Vec<Key>,
    /// Every object member, in input order: where its text (`"key":value`) is and
    /// whether that text is its own canonical form, so [`Tape::write`] copies it whole.
    members: Vec<Member>,
    /// Whether the text parsed is its own canonical form (set by [`Tape::parse`]).
    pub canonical: bool,
    /// The input span of every object at depth 1 or 2 (the event and its members) and of
    /// every string with escapes (kept decoded), as (token, start, end): where a
    /// canonical line's payload and texts are ([`Tape::value_span`]).
    spans: Vec<(usize, usize, usize)>,
    /// Scratch for a float's canonical spelling.
    float_buf: Vec<u8>,
}

fn skip_ws(s: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = s.get(p) {
        p += 1;
    }
    p
}

/// Whether an escape `\uXXXX` (its four hex digits `digits`, value `v`) is the one
/// `canonical::write_string` writes: controls without a short escape, as lowercase
/// `\u00xx`.
fn canonical_u_escape(digits: &[u8], v: u32) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    v < 0x20
        && !matches!(v, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)
        && digits == [b'0', b'0', HEX[(v >> 4) as usize], HEX[(v & 0xf) as usize]]
}

/// The first 8 bytes of `k` as a big-endian word, zero-padded: a word order that
/// differs decides the byte order of two keys; equal words (which a short key padded
/// with zeros can give against a key with zero bytes) leave it to the bytes.
#[inline]
fn word(k: &[u8]) -> u64 {
    // One load for a key of 8 bytes or more; a short key byte by byte (a copy of a
    // variable length is a call to memcpy, once per key and lookup).
    if let Some(w) = k.first_chunk::<8>() {
        return u64::from_be_bytes(*w);
    }
    let mut w = 0u64;
    for (i, &b) in k.iter().enumerate() {
        w |= u64::from(b) << (56 - 8 * i);
    }
    w
}

/// [`word`] of the key `s[start..end]`, with one load of the 8 bytes at `start` when
/// the input has them (the bytes after the key masked off); a key near the input's end
/// byte by byte.
#[inline]
fn word_in(s: &[u8], start: usize, end: usize) -> u64 {
    match s.get(start..).and_then(|r| r.first_chunk::<8>()) {
        Some(w) => {
            let w = u64::from_be_bytes(*w);
            let len = end - start;
            if len >= 8 {
                w
            } else {
                w & !(u64::MAX >> (8 * len))
            }
        }
        None => word(&s[start..end]),
    }
}

/// The byte order of keys `a` and `b` whose words ([`word`]) are `wa` and `wb`: the
/// words first; on equal words the first 8 bytes agree (a shorter key is padded with
/// zeros), so the rest decides, compared inline (keys are short; memcmp's call costs
/// more than the bytes).
#[inline]
fn key_cmp(wa: u64, a: &[u8], wb: u64, b: &[u8]) -> std::cmp::Ordering {
    wa.cmp(&wb).then_with(|| match (a.len() > 8, b.len() > 8) {
        (false, false) => a.len().cmp(&b.len()),
        (true, true) => short_cmp(&a[8..], &b[8..]),
        _ => short_cmp(a, b),
    })
}

/// `a.cmp(b)` as a plain loop (for the few bytes of a key's tail).
#[inline]
fn short_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

fn hex4(s: &[u8], p: usize) -> Option<u32> {
    let digits = s.get(p..p + 4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

impl Tape {
    /// Parse one JSON text (`s` must be valid UTF-8); `None` declines.
    pub fn parse(&mut self, s: &[u8]) -> Option<()> {
        self.toks.clear();
        self.decoded.clear();
        self.order.clear();
        self.keys.clear();
        self.members.clear();
        self.spans.clear();
        self.canonical = true;
        let p = self.ws(s, 0);
        let p = self.value(s, p, 0)?;
        (self.ws(s, p) == s.len()).then_some(())
    }

    /// [`skip_ws`], noting that whitespace makes the text not canonical. A canonical
    /// text has no whitespace, so the usual case (no whitespace byte at `p`) is one
    /// test, without touching the flag.
    #[inline(always)]
    fn ws(&mut self, s: &[u8], p: usize) -> usize {
        match s.get(p) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => self.ws_skip(s, p),
            _ => p,
        }
    }

    /// [`Tape::ws`] at a whitespace byte: skip the run, and the text is not canonical.
    #[cold]
    #[inline(never)]
    fn ws_skip(&mut self, s: &[u8], p: usize) -> usize {
        self.canonical = false;
        skip_ws(s, p)
    }

    /// The input span of token `t`, an object at depth 1 or 2 or a string with escapes
    /// (see [`Tape::spans`]).
    pub fn span(&self, t: usize) -> Option<std::ops::Range<usize>> {
        self.spans
            .iter()
            .find(|&&(tok, _, _)| tok == t)
            .map(|&(_, start, end)| start..end)
    }

    /// The input span of token `t` when it is a string (with its quotes) or an object at
    /// depth 1 or 2: where a marked value is ([`Tape::write`]).
    pub fn value_span(&self, t: usize) -> Option<std::ops::Range<usize>> {
        match self.toks[t] {
            Tok::Str {
                start,
                end,
                escaped: false,
            } => Some(start - 1..end + 1),
            _ => self.span(t),
        }
    }

    /// The bytes of string token `t` (decoded).
    pub fn str_bytes<'a>(&'a self, s: &'a [u8], t: usize) -> Option<&'a [u8]> {
        match self.toks[t] {
            Tok::Str {
                start,
                end,
                escaped: false,
            } => Some(&s[start..end]),
            Tok::Str {
                start,
                end,
                escaped: true,
            } => Some(&self.decoded[start..end]),
            _ => None,
        }
    }

    fn key_bytes<'a>(toks: &[Tok], decoded: &'a [u8], s: &'a [u8], t: usize) -> &'a [u8] {
        match toks[t] {
            Tok::Str {
                start,
                end,
                escaped,
            } => {
                if escaped {
                    &decoded[start..end]
                } else {
                    &s[start..end]
                }
            }
            _ => unreachable!("keys are strings"),
        }
    }

    /// The value token of member `key` of object token `obj` (binary search over the
    /// sorted keys).
    pub fn get(&self, s: &[u8], obj: usize, key: &[u8]) -> Option<usize> {
        let Tok::Object { order, members, .. } = self.toks[obj] else {
            return None;
        };
        let keys = &self.order[order..order + members];
        let w = word(key);
        let bytes = |k: u32| Self::key_bytes(&self.toks, &self.decoded, s, k as usize);
        if members <= SCAN_MEMBERS {
            // A small object (an event's envelope, its actor, provenance, redaction):
            // scan the words, then the few keys with the same word (they are adjacent:
            // keys are sorted by word first) for the one whose bytes are `key`.
            let first = keys.iter().position(|k| k.word == w)?;
            return keys[first..]
                .iter()
                .take_while(|k| k.word == w)
                .find(|k| key_cmp(k.word, bytes(k.tok), w, key).is_eq())
                .map(|k| k.tok as usize + 1);
        }
        // The words decide most steps; a key's bytes are looked up only on a tie.
        keys.binary_search_by(|k| {
            k.word
                .cmp(&w)
                .then_with(|| key_cmp(k.word, bytes(k.tok), w, key))
        })
        .ok()
        .map(|i| keys[i].tok as usize + 1)
    }

    fn value(&mut self, s: &[u8], p: usize, depth: usize) -> Option<usize> {
        // Tokens are values and keys: at the budget of values (json::MAX_VALUES) or
        // before, decline, so the oracle gives the error at its place.
        if self.toks.len() >= MAX_VALUES {
            return None;
        }
        match *s.get(p)? {
            b'{' => self.object(s, p, depth + 1),
            b'[' => self.array(s, p, depth + 1),
            b'"' => self.string(s, p),
            b't' => self.literal(s, p, b"true", Tok::True),
            b'f' => self.literal(s, p, b"false", Tok::False),
            b'n' => self.literal(s, p, b"null", Tok::Null),
            b'-' | b'0'..=b'9' => self.number(s, p),
            _ => None,
        }
    }

    fn literal(&mut self, s: &[u8], p: usize, word: &[u8], t: Tok) -> Option<usize> {
        if s[p..].starts_with(word) {
            self.toks.push(t);
            Some(p + word.len())
        } else {
            None
        }
    }

    fn array(&mut self, s: &[u8], p: usize, depth: usize) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        let at = self.toks.len();
        self.toks.push(Tok::Array { end: 0 });
        let mut p = self.ws(s, p + 1);
        if s.get(p) == Some(&b']') {
            p += 1;
        } else {
            loop {
                p = self.ws(s, p);
                p = self.value(s, p, depth)?;
                p = self.ws(s, p);
                match s.get(p)? {
                    b',' => p += 1,
                    b']' => {
                        p += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let end = self.toks.len();
        self.toks[at] = Tok::Array { end };
        Some(p)
    }

    fn object(&mut self, s: &[u8], p: usize, depth: usize) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = p;
        let at = self.toks.len();
        self.toks.push(Tok::Null);
        let base = self.keys.len();
        let mut p = self.ws(s, p + 1);
        if s.get(p) == Some(&b'}') {
            p += 1;
        } else {
            loop {
                p = self.ws(s, p);
                if s.get(p) != Some(&b'"') {
                    return None;
                }
                // The member's own canonical flag: the object's is the AND of its
                // members' and its own (whitespace between members, key order).
                let outer = std::mem::replace(&mut self.canonical, true);
                // The member's slot is taken before its value's members are pushed.
                let member = self.members.len();
                self.members.push(Member {
                    start: p,
                    end: p,
                    canonical: false,
                });
                let k = self.toks.len();
                p = self.string(s, p)?;
                // The key's bytes are `s[start..end]`, or `decoded[start..end]` when
                // escaped (the last string decoded, so word_in reads it byte by byte).
                let w = match self.toks[k] {
                    Tok::Str {
                        start,
                        end,
                        escaped,
                    } => word_in(if escaped { &self.decoded } else { s }, start, end),
                    _ => unreachable!("a key is a string"),
                };
                self.keys.push(Key {
                    word: w,
                    tok: k as u32,
                    member: member as u32,
                });
                p = self.ws(s, p);
                if s.get(p) != Some(&b':') {
                    return None;
                }
                p = self.ws(s, p + 1);
                p = self.value(s, p, depth)?;
                let m = &mut self.members[member];
                m.end = p;
                m.canonical = self.canonical;
                self.canonical &= outer;
                p = self.ws(s, p);
                match s.get(p)? {
                    b',' => p += 1,
                    b'}' => {
                        p += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        // Sort this object's keys (C-KEY-1); equal neighbours are duplicates (C-KEY-2).
        let (toks, decoded) = (&self.toks, &self.decoded);
        let keys = &mut self.keys[base..];
        let key = |t: u32| Self::key_bytes(toks, decoded, s, t as usize);
        let cmp = |a: &Key, b: &Key| a.word.cmp(&b.word).then_with(|| key(a.tok).cmp(key(b.tok)));
        if keys.len() <= SCAN_MEMBERS {
            // An insertion sort: each key stops after the last key not above it, so a key
            // equal to an earlier one stops right after it (sorted, equal keys are
            // neighbours): a duplicate is found where it is inserted.
            for i in 1..keys.len() {
                let x = keys[i];
                let mut j = i;
                while j > 0 {
                    match cmp(&keys[j - 1], &x) {
                        std::cmp::Ordering::Greater => {
                            keys[j] = keys[j - 1];
                            j -= 1;
                        }
                        std::cmp::Ordering::Equal => return None,
                        std::cmp::Ordering::Less => break,
                    }
                }
                if j < i {
                    keys[j] = x;
                    self.canonical = false;
                }
            }
        } else if !keys.is_sorted_by(|a, b| cmp(a, b).is_lt()) {
            self.canonical = false;
            keys.sort_unstable_by(cmp);
            if keys.windows(2).any(|w| cmp(&w[0], &w[1]).is_eq()) {
                return None;
            }
        }
        let order = self.order.len();
        let members = keys.len();
        self.order.extend_from_slice(keys);
        self.keys.truncate(base);
        let end = self.toks.len();
        self.toks[at] = Tok::Object {
            end,
            order,
            members,
        };
        if depth <= 2 {
            self.spans.push((at, start, p));
        }
        Some(p)
    }

    /// The string at `p` (its opening quote). Most strings have no escape: their end is
    /// found inline; one with an escape (or a control, or no end) is read by
    /// [`Tape::escaped`].
    #[inline(always)]
    fn string(&mut self, s: &[u8], p: usize) -> Option<usize> {
        let start = p + 1;
        let i = start + plain_len(&s[start..]);
        if s.get(i) == Some(&b'"') {
            self.toks.push(Tok::Str {
                start,
                end: i,
                escaped: false,
            });
            return Some(i + 1);
        }
        self.escaped(s, start, i)
    }

    /// The rest of a string whose plain text `s[start..i]` ends at something other
    /// than its closing quote: an escape, decoded with the whole string once; anything
    /// else declines.
    #[inline(never)]
    fn escaped(&mut self, s: &[u8], start: usize, mut i: usize) -> Option<usize> {
        if s.get(i) != Some(&b'\\') {
            return None;
        }
        let dstart = self.decoded.len();
        self.decoded.extend_from_slice(&s[start..i]);
        loop {
            match *s.get(i)? {
                b'"' => {
                    self.spans.push((self.toks.len(), start - 1, i + 1));
                    self.toks.push(Tok::Str {
                        start: dstart,
                        end: self.decoded.len(),
                        escaped: true,
                    });
                    return Some(i + 1);
                }
                b'\\' => {
                    let c = match *s.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => {
                            self.canonical = false;
                            '/'
                        }
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = hex4(s, i + 2)?;
                            if !canonical_u_escape(&s[i + 2..i + 6], hi) {
                                self.canonical = false;
                            }
                            if (0xD800..0xDC00).contains(&hi) {
                                if s.get(i + 6..i + 8) != Some(b"\\u") {
                                    return None;
                                }
                                let lo = hex4(s, i + 8)?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                i += 10;
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                            } else {
                                i += 4;
                                char::from_u32(hi)?
                            }
                        }
                        _ => return None,
                    };
                    i += 2;
                    let mut buf = [0u8; 4];
                    self.decoded
                        .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => return None,
            }
            let n = plain_len(&s[i..]);
            self.decoded.extend_from_slice(&s[i..i + n]);
            i += n;
        }
    }

    fn number(&mut self, s: &[u8], p: usize) -> Option<usize> {
        let start = p;
        let mut p = p;
        if s[p] == b'-' {
            p += 1;
        }
        let digits = |mut p: usize| {
            while let Some(b'0'..=b'9') = s.get(p) {
                p += 1;
            }
            p
        };
        let int_start = p;
        match *s.get(p)? {
            b'0' => {
                p += 1;
                if let Some(b'0'..=b'9') = s.get(p) {
                    return None;
                }
            }
            b'1'..=b'9' => p = digits(p),
            _ => return None,
        }
        let int_end = p;
        let mut float = false;
        if s.get(p) == Some(&b'.') {
            let q = digits(p + 1);
            if q == p + 1 {
                return None;
            }
            p = q;
            float = true;
        }
        if let Some(b'e' | b'E') = s.get(p) {
            p += 1;
            if let Some(b'+' | b'-') = s.get(p) {
                p += 1;
            }
            let q = digits(p);
            if q == p {
                return None;
            }
            p = q;
            float = true;
        }
        if float {
            // ASCII by construction.
            let lit = std::str::from_utf8(&s[start..p]).ok()?;
            let f: f64 = lit.parse().ok()?;
            if !f.is_finite() {
                return None;
            }
            if self.canonical {
                self.float_buf.clear();
                canonical::write_float(f, &mut self.float_buf);
                self.canonical = self.float_buf == lit.as_bytes();
            }
            self.toks.push(Tok::Float(f));
        } else {
            if int_end - int_start > MAX_INT_DIGITS {
                return None;
            }
            self.canonical &= &s[start..p] != b"-0";
            self.toks.push(Tok::Int { start, end: p });
        }
        Some(p)
    }

    /// The integer literal of token `t` as the oracle keeps it (`-0` is `0`).
    pub fn int_text<'a>(&self, s: &'a [u8], t: usize) -> Option<&'a [u8]> {
        Some(&s[self.int_range(s, t)?])
    }

    /// Where [`Tape::int_text`]'s literal is in the input.
    pub fn int_range(&self, s: &[u8], t: usize) -> Option<std::ops::Range<usize>> {
        match self.toks[t] {
            Tok::Int { start, end } => Some(if &s[start..end] == b"-0" {
                start + 1..end
            } else {
                start..end
            }),
            _ => None,
        }
    }

    /// Append the canonical bytes of token `t` (and its subtree); returns the index of
    /// the token after it. `mark` names one token whose output range is recorded: a
    /// string, or an object at depth 1 or 2 ([`Tape::value_span`]).
    pub fn write(
        &self,
        s: &[u8],
        t: usize,
        out: &mut Vec<u8>,
        mark: usize,
        marked: &mut std::ops::Range<usize>,
    ) -> usize {
        let begin = out.len();
        let next = match self.toks[t] {
            Tok::Null => {
                out.extend_from_slice(b"null");
                t + 1
            }
            Tok::True => {
                out.extend_from_slice(b"true");
                t + 1
            }
            Tok::False => {
                out.extend_from_slice(b"false");
                t + 1
            }
            Tok::Int { .. } => {
                out.extend_from_slice(self.int_text(s, t).expect("an integer token"));
                t + 1
            }
            Tok::Float(f) => {
                canonical::write_float(f, out);
                t + 1
            }
            Tok::Str {
                start,
                end,
                escaped: false,
            } => {
                // No `"`, `\` or control character: the raw bytes are canonical.
                out.push(b'"');
                out.extend_from_slice(&s[start..end]);
                out.push(b'"');
                t + 1
            }
            Tok::Str {
                start,
                end,
                escaped: true,
            } => {
                let text = simdutf8::basic::from_utf8(&self.decoded[start..end])
                    .expect("decoded from UTF-8 and escapes");
                canonical::write_string(text, out);
                t + 1
            }
            Tok::Array { end } => {
                out.push(b'[');
                let mut i = t + 1;
                while i < end {
                    if i > t + 1 {
                        out.push(b',');
                    }
                    i = self.write(s, i, out, mark, marked);
                }
                out.push(b']');
                end
            }
            Tok::Object {
                end,
                order,
                members,
            } => {
                out.push(b'{');
                for (n, key) in self.order[order..order + members].iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    let k = key.tok as usize;
                    let m = self.members[key.member as usize];
                    if m.canonical {
                        // Already canonical: copy it, and find the marked token in it by
                        // its span in the input.
                        let at = out.len();
                        out.extend_from_slice(&s[m.start..m.end]);
                        if (k..self.next(k + 1)).contains(&mark) {
                            let v = self.value_span(mark).expect("a marked value's span");
                            *marked = at + (v.start - m.start)..at + (v.end - m.start);
                        }
                        continue;
                    }
                    self.write(s, k, out, mark, marked);
                    out.push(b':');
                    self.write(s, k + 1, out, mark, marked);
                }
                out.push(b'}');
                end
            }
        };
        if t == mark {
            *marked = begin..out.len();
        }
        next
    }

    /// The index of the token after token `t`'s subtree.
    pub fn next(&self, t: usize) -> usize {
        match self.toks[t] {
            Tok::Array { end } | Tok::Object { end, .. } => end,
            _ => t + 1,
        }
    }
}

/// One object of a parsed line seen as an event's payload: the fast path's
/// [`PayloadView`], so the payload rules (`R-TYPE-1`, the projection) read the tape
/// through the same code as the oracle's events.
#[derive(Clone, Copy)]
pub(crate) struct TapePayload<'a> {
    pub tape: &'a Tape,
    /// The line the tape was parsed from.
    pub input: &'a [u8],
    /// The payload's object token.
    pub object: usize,
}

impl PayloadView for TapePayload<'_> {
    type Member = usize;

    #[inline]
    fn member(&self, key: &str) -> Option<usize> {
        self.tape.get(self.input, self.object, key.as_bytes())
    }

    #[inline]
    fn is_string(&self, member: usize) -> bool {
        matches!(self.tape.toks[member], Tok::Str { .. })
    }

    #[inline]
    fn is_true(&self, member: usize) -> bool {
        matches!(self.tape.toks[member], Tok::True)
    }
}

#[cfg(test)]
mod tests {
    use super::{key_cmp, word, word_in, Tape};
    use crate::generate::recipe::Richness;
    use crate::generate::{strategies, values, writer};
    use proptest::prelude::*;

    /// What writing the whole tape gives (the canonical bytes of the parsed text).
    fn written(tape: &Tape, s: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        tape.write(s, 0, &mut out, usize::MAX, &mut (0..0));
        out
    }

    /// The members whose canonical flag is wrong: set when the member's text is not its
    /// canonical form, or clear when it is. The oracle decides: `{MEMBER}` (a one-member
    /// object, so key order plays no part) is canonical when `canonical::to_string` of
    /// the strict parser's value gives it back. Empty when every flag is exact.
    fn wrong_member_flags(tape: &Tape, s: &[u8]) -> Vec<String> {
        let mut wrong = Vec::new();
        for m in &tape.members {
            let text = format!("{{{}}}", String::from_utf8_lossy(&s[m.start..m.end]));
            let v = crate::json::parse(&text).expect("a member of a text the oracle reads");
            if m.canonical != (crate::canonical::to_string(&v) == text) {
                wrong.push(text);
            }
        }
        wrong
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn canonical_flag_is_write_identity(
            recipe in strategies::json(Richness::Hard),
            style in strategies::write_style(true),
            plain in any::<bool>(),
            line in any::<u64>(),
        ) {
            // The canonical-line fast path uses a line's own bytes when the flag is set:
            // it must be set exactly when they are what the writer would write.
            let v = values::build(&recipe, 0);
            let mut text = if plain {
                crate::canonical::to_string(&v).into_bytes()
            } else {
                writer::write_line(&v, &style, line, &[])
            };
            if text.last() == Some(&b'\r') {
                text.pop();
            }
            let mut tape = Tape::default();
            prop_assert!(tape.parse(&text).is_some());
            let out = written(&tape, &text);
            prop_assert_eq!(tape.canonical, out == text, "{}", String::from_utf8_lossy(&text));
            // The written bytes (members copied where flagged) are the oracle's.
            let parsed = crate::json::parse_bytes(&text).expect("the oracle reads it");
            prop_assert_eq!(
                String::from_utf8_lossy(&out),
                crate::canonical::to_string(&parsed)
            );
            let wrong = wrong_member_flags(&tape, &text);
            prop_assert!(wrong.is_empty(), "{:?} in {}", wrong, String::from_utf8_lossy(&text));
            if plain {
                prop_assert!(tape.canonical);
            }
            if tape.canonical && matches!(tape.toks[0], super::Tok::Object { .. }) {
                prop_assert_eq!(tape.span(0), Some(0..text.len()));
            }
        }
    }

    #[test]
    fn canonical_flag_on_the_spellings_the_writer_does_not_use() {
        let cases: &[(&str, bool)] = &[
            (r#"{"a":1,"b":[true,false,null],"c":"x"}"#, true),
            (r#"{"b":1,"a":2}"#, false),
            (r#"{"a": 1}"#, false),
            (r#" {"a":1}"#, false),
            (r#"{"a":1} "#, false),
            (r#"[1,-0]"#, false),
            (r#"[0,-1]"#, true),
            (r#"[1.5,0.1,1e+16,1e-05,-0.0]"#, true),
            (r#"[1e16]"#, false),
            (r#"[1.50]"#, false),
            (r#"[1E+16]"#, false),
            (r#"["\"\\\n\r\t\b\f"]"#, true),
            (r#"["\/"]"#, false),
            (r#"["\u001f\u0000\u007f"]"#, false),
            (r#"["\u001f\u0000"]"#, true),
            (r#"["\u001F"]"#, false),
            (r#"["\u000a"]"#, false),
            (r#"["\u00e9"]"#, false),
            (r#"["\ud83d\ude00"]"#, false),
            ("[\"\u{7f}\u{e9}\u{1f600}\"]", true),
            (r#"{"":{},"a":[]}"#, true),
            (r#"{"a":{ }}"#, false),
            (r#"{"a":[ ]}"#, false),
        ];
        let mut tape = Tape::default();
        for &(text, canonical) in cases {
            tape.parse(text.as_bytes()).expect(text);
            assert_eq!(tape.canonical, canonical, "{text}");
            assert_eq!(
                wrong_member_flags(&tape, text.as_bytes()),
                Vec::<String>::new()
            );
            assert_eq!(
                written(&tape, text.as_bytes()) == text.as_bytes(),
                canonical,
                "{text}"
            );
        }
    }

    fn key_text() -> impl Strategy<Value = String> {
        // Keys that share their first 8 bytes (the word), or differ only past it, or
        // by zero bytes (which the word pads with), escaped and not.
        let tail = proptest::collection::vec(
            prop_oneof![Just('\0'), Just('a'), Just('b'), Just('é'), Just('"')],
            0..12,
        )
        .prop_map(String::from_iter);
        (any::<bool>(), tail)
            .prop_map(|(shared, t)| if shared { format!("abcdefgh{t}") } else { t })
    }

    proptest! {
        #[test]
        fn get_finds_exactly_the_members(
            keys in proptest::collection::btree_set(key_text(), 0..40),
            probes in proptest::collection::vec(key_text(), 0..12),
        ) {
            // Both searches of `Tape::get`: the scan of small objects (at most
            // SCAN_MEMBERS) and the binary search of larger ones.
            let keys: Vec<String> = keys.into_iter().rev().collect();
            let mut text = String::from("{");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                let mut quoted = Vec::new();
                crate::canonical::write_string(k, &mut quoted);
                text.push_str(std::str::from_utf8(&quoted).unwrap());
                text.push_str(&format!(":{i}"));
            }
            text.push('}');
            let mut tape = Tape::default();
            prop_assert!(tape.parse(text.as_bytes()).is_some());
            let s = text.as_bytes();
            for (i, k) in keys.iter().enumerate() {
                let v = tape.get(s, 0, k.as_bytes());
                prop_assert!(v.is_some(), "{k:?} in {text}");
                let n = i.to_string();
                prop_assert_eq!(tape.int_text(s, v.unwrap()), Some(n.as_bytes()));
            }
            for p in probes.iter().filter(|p| !keys.contains(p)) {
                prop_assert_eq!(tape.get(s, 0, p.as_bytes()), None, "{:?} in {}", p, text);
            }
        }
    }

    proptest! {
        #[test]
        fn key_cmp_is_byte_order(
            a in proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..12),
            b in proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..12),
        ) {
            // What `get`'s binary search compares with: the same order as the bytes.
            prop_assert_eq!(key_cmp(word(&a), &a, word(&b), &b), a.cmp(&b));
        }
    }

    proptest! {
        #[test]
        fn objects_sort_their_keys_and_decline_duplicates(
            keys in proptest::collection::vec(
                prop_oneof![Just("a".to_string()), Just("ab".to_string()), key_text()],
                0..40,
            ),
        ) {
            // Both sorts (insertion up to SCAN_MEMBERS members, the library's above): the
            // order is the keys' byte order, and a repeated key declines the text.
            let mut text = vec![b'{'];
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    text.push(b',');
                }
                crate::canonical::write_string(k, &mut text);
                text.extend_from_slice(format!(":{i}").as_bytes());
            }
            text.push(b'}');
            let shown = String::from_utf8_lossy(&text).into_owned();
            let mut tape = Tape::default();
            let unique: std::collections::BTreeSet<&String> = keys.iter().collect();
            let parsed = tape.parse(&text);
            prop_assert_eq!(parsed.is_some(), unique.len() == keys.len(), "{}", shown);
            if parsed.is_some() {
                let sorted: Vec<&[u8]> = tape
                    .order
                    .iter()
                    .map(|k| tape.str_bytes(&text, k.tok as usize).unwrap())
                    .collect();
                let expected: Vec<&[u8]> = unique.iter().map(|k| k.as_bytes()).collect();
                prop_assert_eq!(sorted, expected, "{}", shown);
                // Keys written by the writer: canonical exactly when already in order.
                prop_assert_eq!(tape.canonical, keys.windows(2).all(|w| w[0] < w[1]), "{}", shown);
            }
        }

        #[test]
        fn word_in_is_the_word_of_the_key(
            input in proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..20),
            start in 0usize..20,
            len in 0usize..12,
        ) {
            // Every key, at every place in an input, near its end included.
            let start = start.min(input.len());
            let end = (start + len).min(input.len());
            prop_assert_eq!(word_in(&input, start, end), word(&input[start..end]));
        }

        #[test]
        fn key_order_is_byte_order(
            a in proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..12),
            b in proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..12),
        ) {
            // How objects sort their keys: the word first, the bytes on a tie.
            prop_assert_eq!(word(&a).cmp(&word(&b)).then_with(|| a.cmp(&b)), a.cmp(&b));
        }
    }
}
