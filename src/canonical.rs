//! Canonical JSON text (SPEC.md section "Canonical JSON", rules `C-*`).
//!
//! This module owns the exact bytes the fingerprint hashes: the text Python 3's
//! `json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))` produces
//! for every value the spec admits. Numbers and strings are spelled by this module's
//! own code, never by serde_json (whose output changes with versions and features).

use crate::json::{self, Number, Value};

/// The canonical text of `v`.
pub fn to_string(v: &Value) -> String {
    let mut out = Vec::new();
    write(v, &mut out);
    String::from_utf8(out).expect("canonical output is UTF-8")
}

/// Append the canonical bytes of `v` to `out`.
pub fn write(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(Number::Int(s)) => out.extend_from_slice(s.as_bytes()),
        Value::Number(Number::Float(f)) => write_float(*f, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            // C-KEY-1: keys by code point, which is the byte order of their UTF-8.
            let mut sorted: Vec<&(String, Value)> = members.iter().collect();
            sorted.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push(b'{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(k, out);
                out.push(b':');
                write(v, out);
            }
            out.push(b'}');
        }
    }
}

/// `C-STR-1`/`C-STR-2`: escape `"` and `\`, the five short control escapes, other
/// characters below U+0020 as lowercase `\u00xx`; everything else as raw UTF-8.
pub fn write_string(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let mut rest = s.as_bytes();
    loop {
        // Copy the run of bytes that need no escape in one go.
        let n = json::plain_len(rest);
        out.extend_from_slice(&rest[..n]);
        let Some(&b) = rest.get(n) else { break };
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => unreachable!("plain_len stops only at `\"`, `\\` and controls"),
        };
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xf) as usize]);
        } else {
            out.extend_from_slice(esc);
        }
        rest = &rest[n + 1..];
    }
    out.push(b'"');
}

/// `C-NUM-4`/`C-NUM-5`: Python's `repr(float)`: the shortest digits that round-trip,
/// positional when the decimal exponent is in -4..16 (with at least one fraction
/// digit), otherwise `d[.ddd]e±XX` with at least two exponent digits.
pub fn write_float(f: f64, out: &mut Vec<u8>) {
    out.extend_from_slice(format_float(f).as_bytes());
}

/// The Python `repr` spelling of a finite double (see [`write_float`]).
pub fn format_float(f: f64) -> String {
    debug_assert!(f.is_finite());
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    // Rust's `{:e}` prints the shortest round-trip digits as `d.ddde[-]X`.
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let mut digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    round_tie_to_even(f, &mut digits, exp);
    let mut s = String::with_capacity(digits.len() + 8);
    if neg {
        s.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                s.push_str(&digits);
                s.extend(std::iter::repeat_n('0', int_len - digits.len()));
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        } else {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            s.push_str(&digits);
        }
    } else {
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if exp.is_negative() { '-' } else { '+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            s.push('0');
        }
        s.push_str(&a.to_string());
    }
    s
}

/// Python's `repr` (David Gay's shortest mode) breaks an exact tie between the two
/// shortest candidates towards the even last digit; Rust's shortest formatting rounds
/// the tie up (`1000000000000000.25` is `...0.2` in Python, `...0.3` in Rust). When `f`
/// is exactly halfway between two candidates of `digits.len()` digits with decimal
/// exponent `exp`, replace `digits` by the even candidate if it reads back as `f`.
///
/// A tie needs the exact decimal expansion of `f` to be one digit longer than the
/// shortest digits (at most 18 significant digits, ending in 5), which only happens
/// for `f = m * 2^q` with odd `m` and `-25 <= q < 0`; such expansions fit in `u128`.
fn round_tie_to_even(f: f64, digits: &mut String, exp: i32) {
    let Some((exact, exact_exp)) = short_exact_decimal(f) else {
        return;
    };
    let n = digits.len();
    if exact_exp != exp || exact.len() != n + 1 || !exact.ends_with('5') {
        return;
    }
    let lower = &exact[..n];
    // When the lower candidate is odd, the upper one is even, and it is the one Rust
    // chose (a tie rounds up): `digits` stands. The vectors float-tie-1e15-three-quarters
    // and float-tie-eighth-odd (Python's digits) pin that.
    if !matches!(lower.as_bytes()[n - 1], b'0' | b'2' | b'4' | b'6' | b'8') || lower == digits {
        return;
    }
    let candidate = format!("{}.{}e{}", &lower[..1], &lower[1..], exp);
    if candidate.parse::<f64>() == Ok(f.abs()) {
        *digits = lower.trim_end_matches('0').to_owned();
        if digits.is_empty() {
            digits.push('0');
        }
    }
}

/// The exact decimal digits of `|f|` (no trailing zeros) and its decimal exponent,
/// when `f = m * 2^q` (odd `m`) has `-25 <= q < 0`: the only doubles whose shortest
/// spelling can be an exact tie. `None` otherwise.
fn short_exact_decimal(f: f64) -> Option<(String, i32)> {
    let bits = f.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    // Zero and the subnormals (q = -1074 plus at most 51 trailing zeros) are never ties.
    if biased == 0 {
        return None;
    }
    // The implicit bit above the 52 stored ones.
    let mut m = (bits & ((1u64 << 52) - 1)) + (1u64 << 52);
    let mut q = biased - 1075;
    let tz = m.trailing_zeros();
    m >>= tz;
    q += tz as i32;
    if !(-25..0).contains(&q) {
        return None;
    }
    // |f| = m * 5^p / 10^p with p = -q; m < 2^53 and 5^25 < 2^59, so this fits.
    let p = -q;
    let n = m as u128 * 5u128.pow(p as u32);
    let s = n.to_string();
    let exp = s.len() as i32 - 1 - p;
    Some((s.trim_end_matches('0').to_owned(), exp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-at-a-time writer `write_string` had before it scanned runs with
    /// `json::plain_len`; kept as the oracle.
    fn write_string_bytewise(s: &str, out: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        out.push(b'"');
        let bytes = s.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0x00..=0x1f => b"",
                _ => continue,
            };
            out.extend_from_slice(&bytes[start..i]);
            if esc.is_empty() {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
            } else {
                out.extend_from_slice(esc);
            }
            start = i + 1;
        }
        out.extend_from_slice(&bytes[start..]);
        out.push(b'"');
    }

    fn same_as_bytewise(s: &str) {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        write_string(s, &mut fast);
        write_string_bytewise(s, &mut slow);
        assert_eq!(fast, slow, "{s:?}");
    }

    #[test]
    fn write_string_every_control_and_special_at_every_offset() {
        let specials: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for c in specials {
            for len in 0..20 {
                for at in 0..=len {
                    let mut s: String = "abcdefghijklmnopqrst"[..len].to_owned();
                    s.insert(at, c);
                    same_as_bytewise(&s);
                    s.push('é');
                    same_as_bytewise(&s);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn write_string_matches_bytewise(s in "[\\x00-\\x22\\\\a-z\\x7f\\u{80}-\\u{7ff}\\u{2028}\\u{1f600}]{0,80}") {
            same_as_bytewise(&s);
        }

        #[test]
        fn write_string_matches_bytewise_any(s in any::<String>()) {
            same_as_bytewise(&s);
        }
    }

    // Expected spellings are Python 3's repr(float), taken from SPEC.md's table.
    // The tie literals are the doubles' exact values, spelled out to show the tie.
    #[allow(clippy::excessive_precision)]
    #[test]
    fn python_float_spelling() {
        for (f, want) in [
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-7, "1e-07"),
            (0.00001, "1e-05"),
            (0.0001, "0.0001"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-0.0, "-0.0"),
            (123.456, "123.456"),
            (1.5e-5, "1.5e-05"),
            (9007199254740992.0, "9007199254740992.0"),
            (1.2345678901234567e16, "1.2345678901234568e+16"),
            // Exact ties between two shortest candidates go to the even digit, as in
            // Python's repr (Rust's shortest formatting rounds them up).
            (1000000000000000.25, "1000000000000000.2"),
            (1000000000000001.25, "1000000000000001.2"),
            (1000000000000000.75, "1000000000000000.8"),
            (-989925179521306.25, "-989925179521306.2"),
            (1166471051748867.75, "1166471051748867.8"),
            (197550063265347.125, "197550063265347.12"),
            (272410162204752.875, "272410162204752.88"),
            (9226008541291.8125, "9226008541291.812"),
            (16345396569027.9375, "16345396569027.938"),
            (1946351401608.65625, "1946351401608.6562"),
            (638342542734.21875, "638342542734.2188"),
            (115329372978.015625, "115329372978.01562"),
            (28017157355.4140625, "28017157355.414062"),
            (2401673305.57421875, "2401673305.5742188"),
        ] {
            assert_eq!(format_float(f), want, "{f:e}");
        }
    }
}
