//! Differential test of the canonical writer against a live CPython.
//!
//! proptest generates random JSON TEXTS (doubles from raw bits and dyadic values in
//! varied spellings, random decimal literals, huge integers, Unicode strings with raw
//! and escaped characters and surrogate pairs, non-ASCII keys, whitespace, nesting up
//! to and past the depth limit). Each batch goes to ONE `python3` process, which
//! answers for every text with the seed's
//! `json.dumps(json.loads(x), ensure_ascii=False, sort_keys=True, separators=(",", ":"))`
//! or, when the spec rejects the text, with the error code its strict hooks detect
//! (overflow to infinity, more than 4300 integer digits, nesting deeper than 128, and
//! in the fault test duplicate keys, lone surrogates, NaN, BOM, invalid UTF-8).
//! `ops::execute(&Operation::Canonical, ..)` must agree byte for byte, or with the code.
//!
//! python3 is required: without it the tests fail (CI always has it).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use journal_conformance::canonical;
use journal_conformance::error::ReadError;
use journal_conformance::json::Value;
use journal_conformance::ops::Profile;
use journal_conformance::ops::{self, Operation};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Texts per Python process.
const BATCH: usize = 400;
/// Batches per run of the differential test (BATCH * CASES texts are compared).
const CASES: u32 = 12;
/// Batches of single-fault texts.
const FAULT_BATCH: usize = 200;
const FAULT_CASES: u32 = 4;

/// The oracle. Reads `<len>\n<bytes>` records from stdin; writes per record
/// `A<len>\n<canonical bytes>` (accepted), `R<code>\n` (rejected by the spec), or
/// `X<len>\n<message>` (an unexpected Python exception).
const ORACLE: &str = r#"
import sys, json, math
MAX_DEPTH = 128
MAX_DIGITS = 4300
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(MAX_DIGITS)

class Fault(Exception):
    pass

def pairs(ps):
    d = {}
    for k, v in ps:
        if k in d:
            raise Fault("duplicate_key")
        d[k] = v
    return d

def pfloat(s):
    f = float(s)
    if math.isinf(f):
        raise Fault("number_out_of_range")
    return f

def pint(s):
    if len(s) - s.startswith("-") > MAX_DIGITS:
        raise Fault("number_out_of_range")
    return int(s)

def pconst(s):
    raise Fault("invalid_json")

def check(v, depth):
    if isinstance(v, (list, dict)):
        depth += 1
        if depth > MAX_DEPTH:
            raise Fault("nesting_too_deep")
        if isinstance(v, dict):
            for k, x in v.items():
                check(k, depth)
                check(x, depth)
        else:
            for x in v:
                check(x, depth)
    elif isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise Fault("lone_surrogate")

inp = sys.stdin.buffer
out = sys.stdout.buffer
while True:
    header = inp.readline()
    if not header:
        break
    data = inp.read(int(header))
    try:
        if data.startswith(b"\xef\xbb\xbf"):
            raise Fault("unexpected_bom")
        text = data.decode("utf-8")
        check(json.loads(text, object_pairs_hook=pairs, parse_float=pfloat,
                         parse_int=pint, parse_constant=pconst), 0)
        res = json.dumps(json.loads(text), ensure_ascii=False, sort_keys=True,
                         separators=(",", ":")).encode("utf-8")
        out.write(b"A%d\n" % len(res))
        out.write(res)
    except Fault as f:
        out.write(b"R" + f.args[0].encode() + b"\n")
    except UnicodeDecodeError:
        out.write(b"Rinvalid_utf8\n")
    except json.JSONDecodeError:
        out.write(b"Rinvalid_json\n")
    except Exception as e:
        msg = repr(e).encode("utf-8", "backslashreplace")
        out.write(b"X%d\n" % len(msg))
        out.write(msg)
out.flush()
"#;

#[derive(Debug, PartialEq)]
enum Outcome {
    Accepted(Vec<u8>),
    Rejected(String),
    Crashed(String),
}

/// Fail clearly, before any property runs, when python3 is missing; return its version.
fn require_python() -> String {
    match Command::new("python3")
        .args(["-c", "import sys, json; print(sys.version.split()[0])"])
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        Ok(out) => panic!(
            "python3 is on PATH but failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "this test compares the canonical writer with Python's json.dumps and needs \
             `python3` on PATH, but it could not be started: {e}. Install Python 3 \
             (CI always has it); the test never passes without it."
        ),
    }
}

/// Run the oracle once over `inputs`.
fn python_batch(inputs: &[Vec<u8>]) -> Vec<Outcome> {
    let mut child = match Command::new("python3")
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("python3 could not be started: {e}"),
    };
    let mut stdin = child.stdin.take().expect("piped stdin");
    let payload: Vec<u8> = inputs
        .iter()
        .flat_map(|i| {
            let mut rec = format!("{}\n", i.len()).into_bytes();
            rec.extend_from_slice(i);
            rec
        })
        .collect();
    // Write from another thread so a full stdout pipe cannot deadlock us.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&payload);
    });
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut out)
        .expect("read python3 output");
    let mut err = String::new();
    let _ = child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut err);
    writer.join().expect("writer thread");
    let status = child.wait().expect("wait for python3");
    assert!(status.success(), "python3 failed ({status}):\n{err}");

    let mut results = Vec::with_capacity(inputs.len());
    let mut pos = 0;
    let line = |pos: &mut usize| -> String {
        let end = out[*pos..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("oracle record header")
            + *pos;
        let s = String::from_utf8(out[*pos..end].to_vec()).expect("ASCII header");
        *pos = end + 1;
        s
    };
    while pos < out.len() {
        let kind = out[pos];
        pos += 1;
        let head = line(&mut pos);
        match kind {
            b'A' | b'X' => {
                let n: usize = head.parse().expect("record length");
                let body = out[pos..pos + n].to_vec();
                pos += n;
                results.push(if kind == b'A' {
                    Outcome::Accepted(body)
                } else {
                    Outcome::Crashed(String::from_utf8_lossy(&body).into_owned())
                });
            }
            b'R' => results.push(Outcome::Rejected(head)),
            other => panic!("unexpected oracle record kind {other:?}"),
        }
    }
    assert_eq!(results.len(), inputs.len(), "one oracle answer per input");
    results
}

/// What the reference implementation says about `input`.
fn ours(input: &[u8]) -> Outcome {
    match ops::execute(&Operation::Canonical, input, Profile::Core) {
        Ok(Value::String(s)) => Outcome::Accepted(s.into_bytes()),
        Ok(other) => Outcome::Crashed(format!("canonical returned a non-string {other:?}")),
        Err(ReadError::Invalid(e)) => Outcome::Rejected(e.code.as_str().to_owned()),
        Err(ReadError::Io(e)) => Outcome::Crashed(format!("I/O error {e}")),
    }
}

fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out: String = s.chars().take(300).flat_map(char::escape_debug).collect();
    if s.chars().count() > 300 {
        out.push('…');
    }
    out
}

fn show_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Accepted(b) => show(b),
        Outcome::Rejected(code) => format!("error {code}"),
        Outcome::Crashed(m) => format!("crash {m}"),
    }
}

/// Compare every input; `Err` lists the first mismatches (and how to keep them).
fn compare(inputs: &[Vec<u8>], tally: &Tally) -> Result<(), TestCaseError> {
    let oracle = python_batch(inputs);
    let mut report = Vec::new();
    let mut bad = 0;
    for (input, want) in inputs.iter().zip(&oracle) {
        let got = ours(input);
        match want {
            Outcome::Accepted(_) => tally.accepted.fetch_add(1, Ordering::Relaxed),
            _ => tally.rejected.fetch_add(1, Ordering::Relaxed),
        };
        if got != *want || matches!(got, Outcome::Crashed(_)) {
            bad += 1;
            if report.len() < 5 {
                let literal = std::str::from_utf8(input)
                    .map(|s| {
                        let mut v = Vec::new();
                        canonical::write_string(s, &mut v);
                        String::from_utf8(v).expect("UTF-8")
                    })
                    .unwrap_or_else(|_| "<not UTF-8>".into());
                report.push(format!(
                    "input   {}\n  python  {}\n  ours    {}\n  keep it: add `ok(\"numbers\", \"regress-…\", {literal}, \"Found by canonical_python.\", [...])` \
                     (or `bad(...)`) to conformance/canonical/build.py",
                    show(input),
                    show_outcome(want),
                    show_outcome(&got)
                ));
            }
        }
    }
    if bad == 0 {
        Ok(())
    } else {
        Err(TestCaseError::fail(format!(
            "{bad} of {} texts differ from Python:\n{}",
            inputs.len(),
            report.join("\n")
        )))
    }
}

#[derive(Default)]
struct Tally {
    accepted: AtomicUsize,
    rejected: AtomicUsize,
}

// ---------------------------------------------------------------------------
// Generators of JSON texts
// ---------------------------------------------------------------------------

/// How one string character is spelled.
#[derive(Clone, Copy, Debug)]
enum Esc {
    Raw,
    LowerU,
    UpperU,
    Short,
}

fn esc() -> impl Strategy<Value = Esc> {
    (0u8..9).prop_map(|w| match w {
        0..=4 => Esc::Raw,
        5 => Esc::LowerU,
        6 => Esc::UpperU,
        _ => Esc::Short,
    })
}

/// Characters worth testing in strings and keys, by weight: printable ASCII, C0
/// controls, DEL and C1 controls, a list of special characters, any BMP scalar value,
/// astral characters. (Drawn from plain integers: `char` strategies are slow.)
fn text_char() -> impl Strategy<Value = char> {
    const SPECIAL: &[char] = &[
        '"',
        '\\',
        '/',
        '\u{2028}',
        '\u{2029}',
        '\u{feff}',
        '\u{fffe}',
        '\u{ffff}',
        '\u{e000}',
        '\u{ff61}',
        '\u{e9}',
        '\u{301}',
        '\u{7ff}',
        '\u{800}',
        '\u{10000}',
        '\u{10ffff}',
        '😀',
        '𝄞',
    ];
    (0u32..100, any::<u32>()).prop_map(|(w, r)| {
        let cp = match w {
            0..=39 => 0x20 + r % 95,
            40..=49 => r % 0x20,
            50..=54 => 0x7f + r % 0x21,
            55..=64 => return SPECIAL[r as usize % SPECIAL.len()],
            65..=79 => {
                let cp = r % (0x10000 - 0x800);
                if cp >= 0xD800 {
                    cp + 0x800
                } else {
                    cp
                }
            }
            _ => 0x10000 + r % 0x100000,
        };
        char::from_u32(cp).expect("a scalar value")
    })
}

fn push_u(out: &mut String, unit: u32, upper: bool) {
    if upper {
        out.push_str(&format!("\\u{unit:04X}"));
    } else {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// Spell one character inside a JSON string.
fn write_char(c: char, e: Esc, out: &mut String) {
    let short = match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '/' => Some("\\/"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    };
    let must_escape = c == '"' || c == '\\' || (c as u32) < 0x20;
    match (e, short) {
        (Esc::Short, Some(s)) => out.push_str(s),
        (Esc::Raw | Esc::Short, _) if !must_escape => out.push(c),
        (Esc::UpperU, _) => write_u(c, true, out),
        _ => write_u(c, false, out),
    }
}

fn write_u(c: char, upper: bool, out: &mut String) {
    let cp = c as u32;
    if cp >= 0x10000 {
        let v = cp - 0x10000;
        push_u(out, 0xD800 + (v >> 10), upper);
        push_u(out, 0xDC00 + (v & 0x3ff), upper);
    } else {
        push_u(out, cp, upper);
    }
}

fn spell_string(chars: &[(char, Esc)]) -> String {
    let mut s = String::from("\"");
    for &(c, e) in chars {
        write_char(c, e, &mut s);
    }
    s.push('"');
    s
}

/// A JSON string: (decoded value, text).
fn json_string(max: usize) -> impl Strategy<Value = (String, String)> {
    vec((text_char(), esc()), 0..max)
        .prop_map(|v| (v.iter().map(|(c, _)| *c).collect(), spell_string(&v)))
}

fn ws() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just(String::new()),
        1 => vec(proptest::sample::select(vec![' ', '\t', '\n', '\r']), 1..=4)
            .prop_map(String::from_iter),
    ]
}

/// A run of decimal digits (`[1-9]` first when `lead`, then `rest` more digits), drawn
/// from one random seed (a `vec` of digit strategies is slow for hundreds of digits).
fn digits(lead: bool, rest: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = String> {
    (rest, any::<u64>()).prop_map(move |(n, mut seed)| {
        let mut s = String::with_capacity(n + 1);
        let mut next = |modulus: u64| {
            // splitmix64
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % modulus
        };
        if lead {
            s.push(char::from(b'1' + next(9) as u8));
        } else {
            s.push(char::from(b'0' + next(10) as u8));
        }
        for _ in 0..n {
            s.push(char::from(b'0' + next(10) as u8));
        }
        s
    })
}

/// The shortest digits and decimal exponent of a finite nonzero |f|.
fn digits_exp(f: f64) -> (String, i32) {
    let sci = format!("{:e}", f.abs());
    let (m, e) = sci.split_once('e').expect("exponent");
    (m.replace('.', ""), e.parse().expect("integer exponent"))
}

/// A finite double spelled in one of several ways that all denote it (styles 0-3,
/// 5-7) or a nearby decimal (style 4, `prec` digits).
fn spell_float(f: f64, style: u8, prec: usize) -> String {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    match style {
        0 => format!("{f:e}"),
        1 => format!("{f:E}"),
        2 => {
            let sci = format!("{f:e}");
            let (m, e) = sci.split_once('e').expect("exponent");
            let e: i32 = e.parse().expect("exponent");
            format!("{m}e{}{:03}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        3 => {
            let mut s = format!("{f}");
            if !s.contains('.') {
                s.push_str(".0");
            }
            s
        }
        4 => format!("{f:.prec$e}"),
        5 | 7 if f == 0.0 => format!("{sign}0.0e{prec}"),
        5 => {
            let (d, e) = digits_exp(f);
            format!("{sign}{d}e{}", e - (d.len() as i32 - 1))
        }
        6 => {
            let sci = format!("{f:e}");
            let (m, e) = sci.split_once('e').expect("exponent");
            let zeros = "0".repeat(prec % 6 + 1);
            if m.contains('.') {
                format!("{m}{zeros}e{e}")
            } else {
                format!("{m}.{zeros}E{e}")
            }
        }
        _ => {
            let (d, e) = digits_exp(f);
            format!("{sign}0.000{d}e{}", e + 4)
        }
    }
}

/// Float literals; `safe` excludes spellings that overflow to infinity.
fn float_text(safe: bool) -> BoxedStrategy<String> {
    let from_bits = (any::<u64>(), 0u8..8, 0usize..25).prop_filter_map(
        "finite double",
        |(bits, style, prec)| {
            let f = f64::from_bits(bits);
            f.is_finite().then(|| spell_float(f, style, prec))
        },
    );
    // m * 2^q with a large odd-ish m and small q: exact ties between shortest spellings.
    let dyadic = (
        1u64 << 40..1u64 << 53,
        -12i32..=0,
        0u8..8,
        0usize..25,
        any::<bool>(),
    )
        .prop_map(|(m, q, style, prec, neg)| {
            let f = m as f64 * 2f64.powi(q);
            spell_float(if neg { -f } else { f }, style, prec)
        });
    // Decimal literals as a person or another serialiser would write them.
    let exp = prop_oneof![
        3 => Just(None),
        4 => (-25i32..25).prop_map(Some),
        1 => (-400i32..400).prop_map(Some),
    ];
    let decimal = (
        any::<bool>(),
        prop_oneof![Just("0".to_owned()), digits(true, 0..=24)],
        proptest::option::of(digits(false, 0..=23)),
        exp,
        any::<bool>(),
    )
        .prop_filter_map("a float literal", move |(neg, int, frac, exp, upper)| {
            if frac.is_none() && exp.is_none() {
                return None;
            }
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            s.push_str(&int);
            if let Some(f) = frac {
                s.push('.');
                s.push_str(&f);
            }
            if let Some(e) = exp {
                s.push(if upper { 'E' } else { 'e' });
                s.push_str(&e.to_string());
            }
            // Only a filter for `safe` texts; the oracle decides overflow otherwise.
            (!safe || s.parse::<f64>().is_ok_and(f64::is_finite)).then_some(s)
        });
    let special = proptest::sample::select(vec![
        "0.0",
        "-0.0",
        "0e0",
        "-0E-5",
        "1e-4",
        "1e-5",
        "0.0001",
        "0.00001",
        "1e15",
        "1e16",
        "1e17",
        "9999999999999999.0",
        "5e-324",
        "2.4703282292062328e-324",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1e-400",
        "-1e-400",
        "9007199254740993.0",
        "0.30000000000000004",
        "1000000000000000.25",
    ])
    .prop_map(str::to_owned);
    let mut s = prop_oneof![
        4 => from_bits,
        2 => dyadic,
        3 => decimal,
        1 => special,
    ]
    .boxed();
    if !safe {
        let overflow =
            proptest::sample::select(vec!["1e400", "-1E400", "1.7976931348623159e308", "2e308"])
                .prop_map(str::to_owned);
        s = prop_oneof![30 => s, 1 => overflow].boxed();
    }
    s
}

/// Integer literals; `safe` stays below the 4300-digit limit.
fn int_text(safe: bool) -> BoxedStrategy<String> {
    let s = prop_oneof![
        3 => any::<i64>().prop_map(|n| n.to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        1 => proptest::sample::select(vec![
            "0", "-0", "9007199254740993", "9223372036854775808", "-9223372036854775809",
            "18446744073709551616", "1000000000000000000000000000000",
        ])
        .prop_map(str::to_owned),
        2 => (any::<bool>(), digits(true, 20..=300))
            .prop_map(|(neg, d)| if neg { format!("-{d}") } else { d }),
    ];
    if safe {
        return s.boxed();
    }
    let near_limit = (4295usize..=4305, any::<bool>(), 1u8..=9).prop_map(|(n, neg, first)| {
        let mut d = first.to_string();
        d.extend("8736250914".chars().cycle().take(n - 1));
        if neg {
            format!("-{d}")
        } else {
            d
        }
    });
    prop_oneof![60 => s, 1 => near_limit].boxed()
}

fn leaf(safe: bool) -> BoxedStrategy<String> {
    prop_oneof![
        1 => proptest::sample::select(vec!["true", "false", "null"]).prop_map(str::to_owned),
        3 => int_text(safe),
        5 => float_text(safe),
        4 => json_string(12).prop_map(|(_, t)| t),
    ]
    .boxed()
}

fn array_text(items: Vec<(String, String, String)>, empty_ws: String) -> String {
    if items.is_empty() {
        return format!("[{empty_ws}]");
    }
    let inner: Vec<String> = items
        .into_iter()
        .map(|(a, v, b)| format!("{a}{v}{b}"))
        .collect();
    format!("[{}]", inner.join(","))
}

type Member = ((String, String), String, String, String, String, String);

fn object_text(members: Vec<Member>, empty_ws: String) -> String {
    let mut seen = HashSet::new();
    let inner: Vec<String> = members
        .into_iter()
        .filter(|((key, _), ..)| seen.insert(key.clone()))
        .map(|((_, k), a, b, c, v, d)| format!("{a}{k}{b}:{c}{v}{d}"))
        .collect();
    if inner.is_empty() {
        return format!("{{{empty_ws}}}");
    }
    format!("{{{}}}", inner.join(","))
}

/// A JSON value text of small depth; `safe` texts hold no fault at all.
fn value(safe: bool) -> BoxedStrategy<String> {
    leaf(safe)
        .prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                (vec((ws(), inner.clone(), ws()), 0..6), ws())
                    .prop_map(|(items, e)| array_text(items, e)),
                (
                    vec((json_string(6), ws(), ws(), ws(), inner, ws()), 0..6),
                    ws()
                )
                    .prop_map(|(members, e)| object_text(members, e)),
            ]
        })
        .boxed()
}

/// `n` nested containers (arrays or one-member objects) around `core`.
fn nest(kinds: &[bool], core: &str) -> String {
    let mut s = String::new();
    for &obj in kinds {
        s.push_str(if obj { "{\"k\":" } else { "[" });
    }
    s.push_str(core);
    for &obj in kinds.iter().rev() {
        s.push(if obj { '}' } else { ']' });
    }
    s
}

/// One whole document: mostly ordinary values, sometimes nesting around the limit.
fn document() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => (ws(), value(false), ws()).prop_map(|(a, v, b)| format!("{a}{v}{b}")),
        1 => (vec(any::<bool>(), 120..=136), leaf(true)).prop_map(|(k, l)| nest(&k, &l)),
    ]
}

// ---------------------------------------------------------------------------
// Single-fault texts
// ---------------------------------------------------------------------------

/// A text with exactly one fault, and the code the spec gives it.
fn faulty() -> impl Strategy<Value = (Vec<u8>, &'static str)> {
    let dup = (
        vec(text_char(), 0..5),
        vec(esc(), 5),
        vec(esc(), 5),
        value(true),
        value(true),
    )
        .prop_map(|(chars, e1, e2, v1, v2)| {
            let k1: Vec<(char, Esc)> = chars.iter().copied().zip(e1).collect();
            let k2: Vec<(char, Esc)> = chars.iter().copied().zip(e2).collect();
            let text = format!(
                "{{{}:{v1},\"other\":0,{}:{v2}}}",
                spell_string(&k1),
                spell_string(&k2)
            );
            (text, "duplicate_key")
        });
    let surrogate = (
        vec((text_char(), esc()), 0..4),
        0xD800u32..0xE000,
        any::<bool>(),
        vec((text_char(), esc()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(pre, unit, upper, post, as_key)| {
            let mut s = spell_string(&pre);
            s.pop();
            push_u(&mut s, unit, upper);
            s.push_str(&spell_string(&post)[1..]);
            let text = if as_key { format!("{{{s}:1}}") } else { s };
            (text, "lone_surrogate")
        });
    let constant = proptest::sample::select(vec!["NaN", "Infinity", "-Infinity"])
        .prop_map(|c| (c.to_owned(), "invalid_json"));
    let overflow = (
        any::<bool>(),
        1u8..=9,
        digits(false, 0..=7),
        309i32..2000,
        any::<bool>(),
    )
        .prop_map(|(neg, first, frac, e, upper)| {
            let text = format!(
                "{}{first}.{frac}0{}{e}",
                if neg { "-" } else { "" },
                if upper { 'E' } else { 'e' }
            );
            (text, "number_out_of_range")
        });
    let big_int = (4301usize..4400, any::<bool>()).prop_map(|(n, neg)| {
        let mut d = String::from(if neg { "-7" } else { "7" });
        d.extend("0192837465".chars().cycle().take(n - 1));
        (d, "number_out_of_range")
    });
    let deep = (vec(any::<bool>(), 129..=140), leaf(true))
        .prop_map(|(k, l)| (nest(&k, &l), "nesting_too_deep"));
    let fault = prop_oneof![dup, surrogate, constant, overflow, big_int, deep];
    let embedded = (fault, 0u8..4, value(true), value(true)).prop_map(|((f, code), at, a, b)| {
        let text = match at {
            0 => f,
            1 => format!("[{a},{f},{b}]"),
            2 => format!("{{\"a\":{a},\"f\":{f}}}"),
            _ => format!(" [ {f} ] "),
        };
        (text.into_bytes(), code)
    });
    let bom = value(true).prop_map(|v| {
        let mut b = b"\xef\xbb\xbf".to_vec();
        b.extend_from_slice(v.as_bytes());
        (b, "unexpected_bom")
    });
    let bad_utf8 = (
        json_string(6),
        proptest::sample::select(vec![
            &b"\xff"[..],
            b"\xc0\xaf",
            b"\xed\xa0\x80",
            b"\xe6\x97",
            b"\x80",
            b"\xf4\x90\x80\x80",
        ]),
    )
        .prop_map(|((_, s), bad)| {
            let mut b = b"[".to_vec();
            b.extend_from_slice(&s.as_bytes()[..s.len() - 1]);
            b.extend_from_slice(bad);
            b.extend_from_slice(b"\"]");
            (b, "invalid_utf8")
        });
    prop_oneof![8 => embedded, 1 => bom, 1 => bad_utf8]
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        // No shrinking: every step would rerun Python on a whole batch, and the
        // failure message already names each mismatching text.
        max_shrink_iters: 0,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn canonical_text_equals_python_json_dumps() {
    let version = require_python();
    let tally = Tally::default();
    let start = std::time::Instant::now();
    let result = runner(CASES).run(&vec(document(), BATCH), |docs| {
        let inputs: Vec<Vec<u8>> = docs.into_iter().map(String::into_bytes).collect();
        compare(&inputs, &tally)
    });
    if let Err(e) = result {
        panic!("the canonical writer disagrees with Python:\n{e}");
    }
    let accepted = tally.accepted.load(Ordering::Relaxed);
    let rejected = tally.rejected.load(Ordering::Relaxed);
    eprintln!(
        "compared {} texts with Python {version} ({accepted} accepted, {rejected} rejected) in {:.1?}",
        accepted + rejected,
        start.elapsed()
    );
    // Guard against a vacuous run (e.g. a generator that only produces rejected texts).
    assert!(
        accepted >= (BATCH * CASES as usize) * 3 / 4,
        "only {accepted} accepted texts were compared"
    );
}

#[test]
fn single_faults_get_the_spec_error_code() {
    require_python();
    let tally = Tally::default();
    let by_code: RefCell<BTreeMap<&'static str, usize>> = RefCell::default();
    let result = runner(FAULT_CASES).run(&vec(faulty(), FAULT_BATCH), |batch| {
        let inputs: Vec<Vec<u8>> = batch.iter().map(|(b, _)| b.clone()).collect();
        // Python (with the spec's strict hooks) must see the intended fault...
        let oracle = python_batch(&inputs);
        for ((input, code), want) in batch.iter().zip(&oracle) {
            prop_assert_eq!(
                want,
                &Outcome::Rejected((*code).to_owned()),
                "oracle disagrees with the generated fault for {}",
                show(input)
            );
        }
        // ...and the reference must report it with the same code.
        compare(&inputs, &tally)?;
        for (_, code) in &batch {
            *by_code.borrow_mut().entry(code).or_default() += 1;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("single-fault texts:\n{e}");
    }
    eprintln!("single-fault texts per code: {:?}", by_code.borrow());
    assert_eq!(
        tally.rejected.load(Ordering::Relaxed),
        FAULT_BATCH * FAULT_CASES as usize
    );
}

/// The generators' spellings must denote what they claim (checked without Python).
#[test]
fn float_spellings_denote_the_same_double() {
    for f in [
        1.5e-7,
        -0.0,
        0.0,
        5e-324,
        1.7976931348623157e308,
        123.456,
        -1e16,
    ] {
        for style in [0u8, 1, 2, 3, 5, 6, 7] {
            let s = spell_float(f, style, 3);
            let back: f64 = s.parse().unwrap_or_else(|_| panic!("{s}"));
            assert_eq!(back.to_bits(), f.to_bits(), "{f:e} style {style}: {s}");
            assert!(s.contains(['.', 'e', 'E']), "{s} must be a float literal");
        }
    }
}
