//! The exact-bytes writer: one JSON value per line in a [`WriteStyle`].
//!
//! Every style spells the same JSON values; the variations (key order, JSON
//! whitespace, equivalent string escapes, equivalent number spellings, `\r\n` line
//! ends, the final newline) are exactly the ones the fingerprint must not see. The
//! malformed builder also uses the writer's raw-text hook: a string equal to a
//! registered placeholder is written as the given raw bytes (a lone surrogate, a
//! `NaN`, invalid UTF-8, ...), so a defect can sit anywhere in a line.

use crate::canonical;
use crate::json::{Number, Value};

use super::recipe::{Escaping, KeyOrder, NumberSpelling, Spacing, WriteStyle};

/// SplitMix64: a tiny deterministic generator for per-token style choices.
#[derive(Clone, Debug)]
pub(crate) struct Mix(u64);

impl Mix {
    pub(crate) fn new(seed: u64) -> Mix {
        Mix(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `1/n`.
    pub(crate) fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// A stable 64-bit mix of a few numbers (for deriving per-line seeds).
pub(crate) fn mix(parts: &[u64]) -> u64 {
    let mut m = Mix::new(0x6A6F_7572_6E61_6C21);
    let mut acc = 0u64;
    for &p in parts {
        m.0 ^= p;
        acc ^= m.next();
    }
    acc
}

/// Raw-text substitutions: a string (key or value) equal to `.0` is written as `.1`.
pub type RawSubst = [(String, Vec<u8>)];

struct Writer<'a> {
    style: &'a WriteStyle,
    rng: Mix,
    raw: &'a RawSubst,
    out: Vec<u8>,
}

/// Write `v` as one line (no line terminator; a `\r` is appended for `crlf`) in
/// `style`. `line` varies the style's per-token choices from line to line.
pub fn write_line(v: &Value, style: &WriteStyle, line: u64, raw: &RawSubst) -> Vec<u8> {
    let mut w = Writer {
        style,
        rng: Mix::new(mix(&[style.seed, line])),
        raw,
        out: Vec::with_capacity(256),
    };
    w.edge_ws();
    w.value(v);
    w.edge_ws();
    if style.crlf {
        w.out.push(b'\r');
    }
    w.out
}

/// Join lines with `\n`; the last line gets one only when the style asks for it.
pub fn join_lines(lines: &[Vec<u8>], final_newline: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for (i, l) in lines.iter().enumerate() {
        out.extend_from_slice(l);
        if i + 1 < lines.len() || final_newline {
            out.push(b'\n');
        }
    }
    out
}

/// Write a whole journal of `values` in `style`.
pub fn write_journal(values: &[Value], style: &WriteStyle) -> Vec<u8> {
    let lines: Vec<Vec<u8>> = values
        .iter()
        .enumerate()
        .map(|(i, v)| write_line(v, style, i as u64, &[]))
        .collect();
    join_lines(&lines, style.final_newline)
}

impl Writer<'_> {
    fn edge_ws(&mut self) {
        if self.style.spacing == Spacing::Mixed && self.rng.one_in(3) {
            self.run_ws();
        }
    }

    fn run_ws(&mut self) {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            let c = [b' ', b'\t', b'\r'][self.rng.below(3) as usize];
            self.out.push(c);
        }
    }

    /// Whitespace at a token boundary; `spaced` marks where `Spaces` puts one.
    fn ws(&mut self, spaced: bool) {
        match self.style.spacing {
            Spacing::Compact => {}
            Spacing::Spaces => {
                if spaced {
                    self.out.push(b' ');
                }
            }
            Spacing::Mixed => {
                if self.rng.one_in(4) {
                    self.run_ws();
                }
            }
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.out.extend_from_slice(b"null"),
            Value::Bool(true) => self.out.extend_from_slice(b"true"),
            Value::Bool(false) => self.out.extend_from_slice(b"false"),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.ws(false);
                        self.out.push(b',');
                        self.ws(true);
                    } else {
                        self.ws(false);
                    }
                    self.value(item);
                }
                self.ws(false);
                self.out.push(b']');
            }
            Value::Object(members) => {
                let mut order: Vec<&(String, Value)> = members.iter().collect();
                match self.style.keys {
                    KeyOrder::Insertion => {}
                    KeyOrder::Sorted => order.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes())),
                    KeyOrder::Reversed => order.reverse(),
                    KeyOrder::Shuffled => {
                        for i in (1..order.len()).rev() {
                            let j = self.rng.below(i as u64 + 1) as usize;
                            order.swap(i, j);
                        }
                    }
                }
                self.out.push(b'{');
                for (i, (k, v)) in order.into_iter().enumerate() {
                    if i > 0 {
                        self.ws(false);
                        self.out.push(b',');
                        self.ws(true);
                    } else {
                        self.ws(false);
                    }
                    self.string(k);
                    self.ws(false);
                    self.out.push(b':');
                    self.ws(true);
                    self.value(v);
                }
                self.ws(false);
                self.out.push(b'}');
            }
        }
    }

    fn number(&mut self, n: &Number) {
        match n {
            Number::Int(s) => {
                if self.style.numbers == NumberSpelling::Mixed && s == "0" && self.rng.one_in(2) {
                    self.out.extend_from_slice(b"-0");
                } else {
                    self.out.extend_from_slice(s.as_bytes());
                }
            }
            Number::Float(f) => {
                let text = match self.style.numbers {
                    NumberSpelling::Repr => canonical::format_float(*f),
                    NumberSpelling::Mixed => float_spelling(*f, self.rng.below(6)),
                };
                self.out.extend_from_slice(text.as_bytes());
            }
        }
    }

    fn string(&mut self, s: &str) {
        if let Some((_, raw)) = self.raw.iter().find(|(p, _)| p == s) {
            self.out.extend_from_slice(raw);
            return;
        }
        self.out.push(b'"');
        let mut buf = [0u8; 4];
        for c in s.chars() {
            match self.style.escapes {
                Escaping::Minimal => self.minimal_char(c, &mut buf),
                Escaping::Ascii => {
                    if c.is_ascii() {
                        self.minimal_char(c, &mut buf)
                    } else {
                        self.u_escape(c, false)
                    }
                }
                Escaping::Mixed => self.mixed_char(c, &mut buf),
            }
        }
        self.out.push(b'"');
    }

    fn minimal_char(&mut self, c: char, buf: &mut [u8; 4]) {
        match c {
            '"' => self.out.extend_from_slice(b"\\\""),
            '\\' => self.out.extend_from_slice(b"\\\\"),
            '\n' => self.out.extend_from_slice(b"\\n"),
            '\r' => self.out.extend_from_slice(b"\\r"),
            '\t' => self.out.extend_from_slice(b"\\t"),
            '\u{8}' => self.out.extend_from_slice(b"\\b"),
            '\u{c}' => self.out.extend_from_slice(b"\\f"),
            c if (c as u32) < 0x20 => self.u_escape(c, false),
            c => self.out.extend_from_slice(c.encode_utf8(buf).as_bytes()),
        }
    }

    fn mixed_char(&mut self, c: char, buf: &mut [u8; 4]) {
        let must_escape = c == '"' || c == '\\' || (c as u32) < 0x20;
        let pick = self.rng.below(8);
        if pick == 0 {
            // Any character may be a \u escape, in either hex case.
            let upper = self.rng.one_in(2);
            self.u_escape(c, upper);
        } else if c == '/' && pick < 4 {
            self.out.extend_from_slice(b"\\/");
        } else if !must_escape && !c.is_ascii() && pick < 3 {
            let upper = self.rng.one_in(2);
            self.u_escape(c, upper);
        } else {
            self.minimal_char(c, buf);
        }
    }

    fn u_escape(&mut self, c: char, upper: bool) {
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            let text = if upper {
                format!("\\u{:04X}", u)
            } else {
                format!("\\u{:04x}", u)
            };
            self.out.extend_from_slice(text.as_bytes());
        }
    }
}

/// An equivalent spelling of the finite double `f` (all parse back to the same bits).
pub fn float_spelling(f: f64, which: u64) -> String {
    match which % 6 {
        0 => canonical::format_float(f),
        1 => format!("{:e}", f),
        2 => format!("{:E}", f),
        3 => {
            let mut s = format!("{}", f);
            if !s.contains('.') {
                s.push_str(".0");
            }
            s
        }
        4 => {
            let s = format!("{:e}", f);
            let (m, e) = s.split_once('e').expect("LowerExp has an exponent");
            if m.contains('.') {
                format!("{m}e{e}")
            } else {
                format!("{m}.0e{e}")
            }
        }
        _ => {
            let s = canonical::format_float(f);
            match s.split_once('e') {
                Some((m, e)) if m.contains('.') => format!("{m}00e{e}"),
                Some((m, e)) => format!("{m}.00e{e}"),
                None => format!("{s}00"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_spellings_round_trip() {
        for &f in super::super::values::HARD_FLOATS {
            for which in 0..6 {
                let s = float_spelling(f, which);
                let back: f64 = s.parse().unwrap();
                assert_eq!(back.to_bits(), f.to_bits(), "{s}");
                assert!(s.contains(['.', 'e', 'E']), "{s} would read as an integer");
            }
        }
    }
}
