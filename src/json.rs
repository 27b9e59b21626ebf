//! The JSON value model and the strict parser (SPEC.md sections "JSON values" and
//! "Canonical JSON", rules `C-*`).
//!
//! This module owns what a JSON text means to the kit: an RFC 8259 parser that keeps
//! integers exact at any admitted size, reads floats as the correctly rounded IEEE-754
//! double, rejects duplicate keys, lone surrogates, NaN/Infinity and nesting beyond
//! [`MAX_DEPTH`], and reports every error with a stable code and a 1-based byte column.
//! It also owns the JSON spelling of an error (`Error::to_json`, `O-ERR-1`).
//! It deliberately does not use serde_json's `Value`, whose number and key handling
//! changes with crate versions and features (see SPEC.md `C-IMPL-1`).

use crate::error::{Error, ErrorCode};

/// The deepest nesting of arrays and objects admitted (`C-DEPTH-1`). A value with
/// `MAX_DEPTH` nested containers is accepted; one more is `nesting_too_deep`.
pub const MAX_DEPTH: usize = 128;

/// The most values one JSON text may hold: 1,048,576 (every scalar, array and object
/// counts one; keys do not). An implementation limit of this kit, not a rule (SPEC.md
/// 16.5): the value tree costs 16 to 64 times the text (a 60 MB line `[0,0,...]` is 30
/// million values, 4 GB), so the parser stops at the first value past the budget, at
/// that value's column, before allocating it: [`ErrorCode::TooManyValues`], which
/// readers report as an I/O-class error (exit status 2). The largest text of the corpus
/// holds under 30,000 values, an event of a journal a few dozen.
pub const MAX_VALUES: usize = 1 << 20;

/// The most digits an integer literal may have (`C-NUM-3`), as in Python 3.11+.
pub const MAX_INT_DIGITS: usize = 4300;

/// A JSON number as the spec admits it. Equality is exact: integers by value, floats
/// by bits (`-0.0` differs from `0.0`, as their canonical texts do), and an integer
/// never equals a float.
#[derive(Clone, Debug)]
pub enum Number {
    /// An integer literal (no `.`, `e` or `E`), exact: optional `-` then decimal digits
    /// without leading zeros; zero is always `"0"` (`-0` reads as `0`).
    Int(String),
    /// A literal with a fraction or exponent: the correctly rounded finite double.
    Float(f64),
}

impl Number {
    /// The integer as `i64`, when it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Int(s) => s.parse().ok(),
            Number::Float(_) => None,
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Float(a), Number::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

/// A JSON value. Objects keep their members in input order; key order never matters
/// to the kit because canonical output sorts them (`C-KEY-1`), and equality
/// (`==`, [`Value::same`]) ignores it: two values are equal exactly when their
/// canonical texts are.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl Value {
    pub fn from_u64(n: u64) -> Value {
        Value::Number(Number::Int(n.to_string()))
    }

    pub fn from_i64(n: i64) -> Value {
        Value::Number(Number::Int(n.to_string()))
    }

    /// An object from `(key, value)` pairs, in the given order.
    pub fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The member `key` of an object (`None` for a non-object or a missing key).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The JSON type name used in diagnostics (`null`, `boolean`, `integer`, `float`,
    /// `string`, `array`, `object`).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(Number::Int(_)) => "integer",
            Value::Number(Number::Float(_)) => "float",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Semantic equality: objects compare as key sets regardless of member order,
    /// numbers compare by kind and value (`1` and `1.0` differ, as in canonical text).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Value::Object(a), Value::Object(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                // Sorted pairwise comparison: linear after sorting, whatever the size.
                let mut x: Vec<&(String, Value)> = a.iter().collect();
                let mut y: Vec<&(String, Value)> = b.iter().collect();
                x.sort_unstable_by(|p, q| p.0.cmp(&q.0));
                y.sort_unstable_by(|p, q| p.0.cmp(&q.0));
                x.iter().zip(&y).all(|(p, q)| p.0 == q.0 && p.1.same(&q.1))
            }
            _ => false,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.same(other)
    }
}

/// The JSON spelling of an error lives here, with the value model, so that `error`
/// needs nothing above it.
impl Error {
    /// The error as the JSON object of SPEC.md `O-ERR-1` (`code`, `message`, `line`,
    /// `column`, `sequence`, `event_id`; absent locations are `null`; `index` only for
    /// `history_diverged`, `T-ERR-1`).
    pub fn to_json(&self) -> Value {
        let opt_u = |v: Option<u64>| v.map_or(Value::Null, Value::from_u64);
        let mut v = Value::object([
            ("code", Value::from(self.code.as_str())),
            ("message", Value::from(self.message.as_str())),
            ("line", opt_u(self.line)),
            ("column", opt_u(self.column)),
            (
                "sequence",
                self.sequence.map_or(Value::Null, Value::from_i64),
            ),
            (
                "event_id",
                self.event_id.as_deref().map_or(Value::Null, Value::from),
            ),
        ]);
        if let (Some(i), Value::Object(m)) = (self.index, &mut v) {
            m.push(("index".into(), Value::from_u64(i)));
        }
        v
    }
}

/// The nesting depth of a value: 0 for a scalar, 1 for a container of scalars
/// (iterative, so deep values cannot overflow the stack).
pub fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                max = max.max(d + 1);
                stack.extend(items.iter().map(|x| (x, d + 1)));
            }
            Value::Object(members) => {
                max = max.max(d + 1);
                stack.extend(members.iter().map(|(_, x)| (x, d + 1)));
            }
            _ => max = max.max(d),
        }
    }
    max
}

/// Parse one complete JSON text (optional surrounding JSON whitespace) into a [`Value`].
///
/// Errors carry the code and a 1-based byte column; the caller adds the line.
pub fn parse(text: &str) -> Result<Value, Error> {
    parse_with_max_depth(text, MAX_DEPTH)
}

/// [`parse`] with another nesting limit (checkpoints are read with `MAX_DEPTH + 2`,
/// SPEC.md K-IGNORE-1).
pub fn parse_with_max_depth(text: &str, max_depth: usize) -> Result<Value, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
        max_depth,
        values: 0,
        max_values: MAX_VALUES,
    };
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err(
            ErrorCode::InvalidJson,
            "unexpected text after the JSON value",
        ));
    }
    Ok(v)
}

/// Bytes past a parser's position that it may have looked at (`Infinity`, `\\uXXXX`):
/// an error detected at `reach` cannot be changed by bytes at or after
/// `reach + DETECTION_LOOKAHEAD`.
const DETECTION_LOOKAHEAD: usize = 16;

/// The error of every document that starts with `prefix`, if the parser detects it
/// early enough in `prefix` that no bytes after it can change it (its detection point
/// more than `DETECTION_LOOKAHEAD` (16) bytes before the end); `None` when `prefix` parses
/// or its error might still change. A streaming reader stops buffering at such an error
/// (`canonical`, [`crate::ops::read_document`]).
pub fn settled_error(prefix: &str, max_depth: usize) -> Option<Error> {
    match parse_with_reach(prefix, max_depth) {
        Err((e, reach)) if reach + DETECTION_LOOKAHEAD < prefix.len() => Some(e),
        _ => None,
    }
}

/// [`parse`], and on failure also the parser's position when it failed (its detection
/// point; see [`DETECTION_LOOKAHEAD`]).
fn parse_with_reach(text: &str, max_depth: usize) -> Result<Value, (Error, usize)> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
        max_depth,
        values: 0,
        max_values: MAX_VALUES,
    };
    p.skip_ws();
    let v = match p.value() {
        Ok(v) => v,
        Err(e) => return Err((e, p.pos)),
    };
    p.skip_ws();
    if p.pos != p.s.len() {
        let e = p.err(
            ErrorCode::InvalidJson,
            "unexpected text after the JSON value",
        );
        return Err((e, p.pos));
    }
    Ok(v)
}

/// Parse raw bytes: invalid UTF-8 is `invalid_utf8` at the first bad byte.
pub fn parse_bytes(bytes: &[u8]) -> Result<Value, Error> {
    parse_bytes_within(bytes, MAX_VALUES)
}

/// [`parse_bytes`] with a smaller value budget than [`MAX_VALUES`] (each of `--jobs N`
/// adapters' replies, SPEC.md 16.5); a larger one is [`MAX_VALUES`].
pub fn parse_bytes_within(bytes: &[u8], max_values: usize) -> Result<Value, Error> {
    parse_bytes_within_depth(bytes, max_values, MAX_DEPTH)
}

/// [`parse_bytes_within`] with another nesting limit than [`MAX_DEPTH`]: a document that
/// carries data a few levels down (an adapter's reply, SPEC.md 16.5).
pub fn parse_bytes_within_depth(
    bytes: &[u8],
    max_values: usize,
    max_depth: usize,
) -> Result<Value, Error> {
    let text = utf8(bytes)?;
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
        max_depth,
        values: 0,
        max_values: max_values.min(MAX_VALUES),
    };
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err(
            ErrorCode::InvalidJson,
            "unexpected text after the JSON value",
        ));
    }
    Ok(v)
}

/// Decode UTF-8 or fail with `invalid_utf8` located at the first bad byte.
pub fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorCode::InvalidUtf8,
            format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1),
        )
        .at_column(e.valid_up_to() as u64 + 1)
    })
}

/// Whether `b` ends a run of plain string bytes: `"`, `\\` or a control character
/// (below U+0020). The parser stops there to unescape or reject; the canonical writer
/// to escape.
#[inline]
pub(crate) fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The length of the longest prefix of `s` without a byte for which [`is_special`]
/// holds: 16 bytes at a time with SSE2 on x86-64 (part of its baseline, so no
/// detection), then 8 at a time, then byte by byte for the last few.
///
/// The SSE2 test flags a byte equal to `"` or `\\`, or one that `min(b, 0x1f)` leaves
/// unchanged (unsigned: below U+0020); the lowest bit of the byte mask is the first
/// special byte.
///
/// The word test is the classic "has a byte less than n", `(w - n*0x01..) & !w &
/// 0x80..` for n <= 0x80: for `< 0x20` directly, for `"` and `\\` on `w` XORed with
/// that byte repeated (a zero byte where it occurs). Its LOWEST set bit is exact: the
/// bytes before the first byte less than n are >= n, so their subtraction neither
/// borrows nor sets a flag; that byte (< n <= 0x80) is flagged; only bytes after it
/// may be flagged spuriously, by a borrow. So in the little-endian word the first
/// special byte is byte `trailing_zeros / 8`.
#[inline]
pub(crate) fn plain_len(s: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * n as u64) & !w & HIGH;
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86-64 baseline, so every x86-64 CPU runs these
        // intrinsics; each load reads the 16 bytes of `chunk`, with no alignment needed.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let control = _mm_set1_epi8(0x1f);
            while let Some(chunk) = s.get(i..i + 16) {
                let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                    _mm_cmpeq_epi8(_mm_min_epu8(v, control), v),
                );
                let mask = _mm_movemask_epi8(hit);
                if mask != 0 {
                    return i + mask.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let hit = below(w, 0x20)
            | below(w ^ (ONES * b'"' as u64), 1)
            | below(w ^ (ONES * b'\\' as u64), 1);
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < s.len() && !is_special(s[i]) {
        i += 1;
    }
    i
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    max_depth: usize,
    /// Values begun so far, and how many may be (see [`MAX_VALUES`]).
    values: usize,
    max_values: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, code: ErrorCode, msg: impl Into<String>) -> Error {
        Error::new(code, msg).at_column(self.pos as u64 + 1)
    }

    fn err_at(&self, pos: usize, code: ErrorCode, msg: impl Into<String>) -> Error {
        Error::new(code, msg).at_column(pos as u64 + 1)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn unexpected(&self) -> Error {
        match self.text[self.pos..].chars().next() {
            None => self.err(ErrorCode::InvalidJson, "unexpected end of input"),
            Some(c) => self.err(
                ErrorCode::InvalidJson,
                format!("unexpected character {:?}", c),
            ),
        }
    }

    fn value(&mut self) -> Result<Value, Error> {
        self.values += 1;
        if self.values > self.max_values {
            return Err(self.err(
                ErrorCode::TooManyValues,
                format!(
                    "more than {} values in one JSON text (an implementation limit, SPEC.md 16.5)",
                    self.max_values
                ),
            ));
        }
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'N') if self.s[self.pos..].starts_with(b"NaN") => {
                Err(self.err(ErrorCode::InvalidJson, "NaN is not JSON"))
            }
            Some(b'I') if self.s[self.pos..].starts_with(b"Infinity") => {
                Err(self.err(ErrorCode::InvalidJson, "Infinity is not JSON"))
            }
            _ => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Error> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.unexpected())
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.err(
                ErrorCode::NestingTooDeep,
                format!("containers nested deeper than {}", self.max_depth),
            ));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Value, Error> {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.unexpected()),
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn object(&mut self) -> Result<Value, Error> {
        self.enter()?;
        self.pos += 1;
        let mut members: Vec<(String, Value)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Object(members));
        }
        let mut seen: Option<std::collections::HashSet<String>> = None;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let key_pos = self.pos;
            let key = self.string()?;
            // Duplicate detection: linear for small objects, a set for large ones.
            let dup = if members.len() < 16 {
                members.iter().any(|(k, _)| *k == key)
            } else {
                let set =
                    seen.get_or_insert_with(|| members.iter().map(|(k, _)| k.clone()).collect());
                !set.insert(key.clone())
            };
            if dup {
                return Err(self.err_at(
                    key_pos,
                    ErrorCode::DuplicateKey,
                    format!("duplicate key {:?}", key),
                ));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected());
            }
            self.pos += 1;
            self.skip_ws();
            let v = self.value()?;
            members.push((key, v));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.unexpected()),
            }
        }
        self.depth -= 1;
        Ok(Value::Object(members))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let start = self.pos;
        let digits = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err(ErrorCode::InvalidJson, "truncated \\u escape"))?;
        let mut v = 0u32;
        for &d in digits {
            let x = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.err_at(start, ErrorCode::InvalidJson, "invalid \\u escape")),
            };
            v = v * 16 + x as u32;
        }
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, Error> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run of plain characters in one go.
            let run_start = self.pos;
            self.pos += plain_len(&self.s[self.pos..]);
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => {
                    return Err(self.err_at(open, ErrorCode::InvalidJson, "unterminated string"))
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc = self.pos;
                    self.pos += 1;
                    let c = self.peek();
                    self.pos += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                if self.s[self.pos..].starts_with(b"\\u") {
                                    let save = self.pos;
                                    self.pos += 2;
                                    // C-STR-3: anything but a complete low-surrogate
                                    // escape (a malformed one included) leaves it lone.
                                    let lo = self.hex4().unwrap_or(0);
                                    if (0xDC00..0xE000).contains(&lo) {
                                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                    } else {
                                        self.pos = save;
                                        return Err(self.err_at(
                                            esc,
                                            ErrorCode::LoneSurrogate,
                                            format!("lone high surrogate \\u{hi:04x}"),
                                        ));
                                    }
                                } else {
                                    return Err(self.err_at(
                                        esc,
                                        ErrorCode::LoneSurrogate,
                                        format!("lone high surrogate \\u{hi:04x}"),
                                    ));
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err_at(
                                    esc,
                                    ErrorCode::LoneSurrogate,
                                    format!("lone low surrogate \\u{hi:04x}"),
                                ));
                            } else {
                                hi
                            };
                            out.push(char::from_u32(cp).expect("valid scalar value"));
                        }
                        _ => {
                            return Err(self.err_at(
                                esc,
                                ErrorCode::InvalidJson,
                                "invalid escape sequence",
                            ))
                        }
                    }
                }
                Some(_) => {
                    return Err(self.err(
                        ErrorCode::InvalidJson,
                        "unescaped control character in string",
                    ))
                }
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.err(ErrorCode::InvalidJson, "leading zero in number"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.unexpected()),
        }
        let int_end = self.pos;
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.unexpected());
            }
            is_float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.unexpected());
            }
            is_float = true;
        }
        let lit = &self.text[start..self.pos];
        if is_float {
            let f: f64 = lit
                .parse()
                .expect("a JSON number literal is a valid Rust float literal");
            if !f.is_finite() {
                return Err(self.err_at(
                    start,
                    ErrorCode::NumberOutOfRange,
                    format!(
                        "number {} overflows a double",
                        crate::error::shorten(lit.as_bytes(), 40)
                    ),
                ));
            }
            Ok(Value::Number(Number::Float(f)))
        } else {
            let digits = &self.text[int_start..int_end];
            if digits.len() > MAX_INT_DIGITS {
                return Err(self.err_at(
                    start,
                    ErrorCode::NumberOutOfRange,
                    format!(
                        "integer has {} digits; at most {MAX_INT_DIGITS} are admitted",
                        digits.len()
                    ),
                ));
            }
            let s = if neg && digits != "0" {
                lit.to_owned()
            } else {
                digits.to_owned()
            };
            Ok(Value::Number(Number::Int(s)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plain_len_bytewise(s: &[u8]) -> usize {
        s.iter().position(|&b| is_special(b)).unwrap_or(s.len())
    }

    #[test]
    fn plain_len_every_byte_at_every_offset() {
        for b in 0..=255u8 {
            // Two 16-byte chunks, an 8-byte word and the bytes after it.
            for len in 0..44 {
                for at in 0..len {
                    let mut s = vec![b'a'; len];
                    s[at] = b;
                    assert_eq!(
                        plain_len(&s),
                        plain_len_bytewise(&s),
                        "{b:#x} at {at} of {len}"
                    );
                    // The same byte after a byte just above each threshold (borrows).
                    if at > 0 {
                        for prev in [0x20, 0x21, 0x23, 0x5b, 0x5d, 0x80, 0xff] {
                            s[at - 1] = prev;
                            assert_eq!(plain_len(&s), plain_len_bytewise(&s));
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn plain_len_matches_bytewise(s in proptest::collection::vec(any::<u8>(), 0..80)) {
            prop_assert_eq!(plain_len(&s), plain_len_bytewise(&s));
        }

        #[test]
        fn plain_len_matches_bytewise_near_specials(
            s in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), 0x00u8..0x22, 0x22u8..0x60, 0x5bu8..0x5e, any::<u8>()],
                0..64,
            )
        ) {
            prop_assert_eq!(plain_len(&s), plain_len_bytewise(&s));
        }
    }
}
