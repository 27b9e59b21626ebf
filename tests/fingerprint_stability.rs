//! Fingerprint stability: the fingerprint of a journal depends on the events' VALUES
//! only, never on how each line spells them. proptest builds small valid core journals,
//! re-serialises every event with a writer that randomises key order, inter-token
//! whitespace, string escapes (`\u00e9` vs `é`, `\/` vs `/`, `\u0041` vs `A`, surrogate
//! pairs vs raw astral characters), float spellings and `-0` for `0`, and checks that
//! `replay::fingerprint` gives the same digest for every spelling.

use journal_conformance::canonical;
use journal_conformance::event::JournalProfile;
use journal_conformance::fingerprint;
use journal_conformance::json::{Number, Value};
use journal_conformance::replay;
use proptest::collection::vec;
use proptest::prelude::*;

/// A tiny deterministic generator for the writer's choices (splitmix64).
struct Choices(u64);

impl Choices {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn flip(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Whitespace between tokens: JSON whitespace except `\n`, which ends a JSONL line.
fn ws(c: &mut Choices, out: &mut String) {
    const WS: &[&str] = &["", "", "", " ", "\t", "\r", "  ", " \t "];
    out.push_str(WS[c.below(WS.len() as u64) as usize]);
}

fn u_escape(unit: u32, upper: bool, out: &mut String) {
    if upper {
        out.push_str(&format!("\\u{unit:04X}"));
    } else {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// A string with each character spelled raw, as `\uXXXX` (a surrogate pair beyond the
/// BMP), or with its short escape (`\/` included), as the choices say.
fn write_string(s: &str, c: &mut Choices, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        let short = match ch {
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
        let must_escape = ch == '"' || ch == '\\' || (ch as u32) < 0x20;
        match (c.below(4), short) {
            (0, Some(s)) => out.push_str(s),
            (0 | 1, _) if !must_escape => out.push(ch),
            (choice, _) => {
                let upper = choice == 3;
                let cp = ch as u32;
                if cp >= 0x10000 {
                    let v = cp - 0x10000;
                    u_escape(0xD800 + (v >> 10), upper, out);
                    u_escape(0xDC00 + (v & 0x3ff), upper, out);
                } else {
                    u_escape(cp, upper, out);
                }
            }
        }
    }
    out.push('"');
}

/// A spelling of the finite double `f` that reads back as exactly `f`.
fn write_float(f: f64, c: &mut Choices, out: &mut String) {
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if neg { "-" } else { "" };
    let s = match c.below(7) {
        0 => sci.clone(),
        1 => format!("{f:E}"),
        2 => {
            let mut s = format!("{f}");
            if !s.contains('.') {
                s.push_str(".0");
            }
            s
        }
        3 => format!("{f:.16e}"),
        4 => format!(
            "{mantissa}{}e{}{:02}",
            if mantissa.contains('.') { "00" } else { ".00" },
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        ),
        5 => format!("{sign}{digits}E{}", exp - (digits.len() as i32 - 1)),
        _ => format!("{sign}0.0{digits}e{}", exp + 2),
    };
    debug_assert_eq!(s.parse::<f64>().map(f64::to_bits), Ok(f.to_bits()), "{s}");
    out.push_str(&s);
}

/// Serialise `v` with randomised (but value-preserving) choices.
fn write(v: &Value, c: &mut Choices, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(Number::Int(s)) => {
            if s == "0" && c.flip() {
                out.push_str("-0");
            } else {
                out.push_str(s);
            }
        }
        Value::Number(Number::Float(f)) => write_float(*f, c, out),
        Value::String(s) => write_string(s, c, out),
        Value::Array(items) => {
            out.push('[');
            ws(c, out);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    ws(c, out);
                }
                write(item, c, out);
                ws(c, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // Fisher-Yates shuffle of the member order.
            let mut order: Vec<usize> = (0..members.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, c.below(i as u64 + 1) as usize);
            }
            out.push('{');
            ws(c, out);
            for (n, &i) in order.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                    ws(c, out);
                }
                let (k, v) = &members[i];
                write_string(k, c, out);
                ws(c, out);
                out.push(':');
                ws(c, out);
                write(v, c, out);
                ws(c, out);
            }
            out.push('}');
        }
    }
}

/// The events of a core journal with these payloads.
fn events(payloads: &[Value]) -> Vec<Value> {
    payloads
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Value::object([
                ("event_id", Value::from(format!("e{i}"))),
                ("session_id", Value::from("s")),
                ("sequence", Value::from_u64(i as u64)),
                ("type", Value::from("x")),
                ("payload", p.clone()),
                ("provenance", Value::object([("run_id", Value::from("r"))])),
            ])
        })
        .collect()
}

/// One JSONL spelling of the events (`\n` or `\r\n` line ends, final newline optional).
fn journal(events: &[Value], seed: u64) -> Vec<u8> {
    let mut c = Choices(seed);
    let crlf = c.flip();
    let mut out = String::new();
    for (i, ev) in events.iter().enumerate() {
        if i > 0 {
            out.push_str(if crlf { "\r\n" } else { "\n" });
        }
        ws(&mut c, &mut out);
        write(ev, &mut c, &mut out);
        ws(&mut c, &mut out);
    }
    if c.flip() {
        out.push('\n');
    }
    out.into_bytes()
}

fn fingerprint_of(bytes: &[u8]) -> String {
    replay::fingerprint(bytes, JournalProfile::Core, None)
        .unwrap_or_else(|e| panic!("journal rejected: {e}\n{}", String::from_utf8_lossy(bytes)))
}

// ---------------------------------------------------------------------------
// Value generators
// ---------------------------------------------------------------------------

/// Characters whose spelling the writer varies: ASCII (incl. `A`, `/`, `"`, `\`),
/// controls, `é`, U+2028, U+FEFF, any BMP scalar, astral.
fn text_char() -> impl Strategy<Value = char> {
    const SPECIAL: &[char] = &[
        'A', '/', '"', '\\', 'é', '\u{7f}', '\u{2028}', '\u{feff}', '\u{e000}', '😀', '𝄞',
    ];
    (0u32..100, any::<u32>()).prop_map(|(w, r)| {
        let cp = match w {
            0..=39 => 0x20 + r % 95,
            40..=49 => r % 0x20,
            50..=69 => return SPECIAL[r as usize % SPECIAL.len()],
            70..=84 => {
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

fn text(max: usize) -> impl Strategy<Value = String> {
    vec(text_char(), 0..max).prop_map(String::from_iter)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from_i64),
        Just(Value::from_i64(0)),
        (1u128.., any::<u64>())
            .prop_map(|(a, b)| Value::Number(Number::Int(format!("{a}{b:020}")))),
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Value::Number(Number::Float(f))),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-5,
            1e16,
            5e-324,
            1000000000000000.2
        ])
        .prop_map(|f| Value::Number(Number::Float(f))),
        text(10).prop_map(Value::String),
    ]
}

fn payload() -> impl Strategy<Value = Value> {
    let value = leaf().prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            vec((text(6), inner), 0..5).prop_map(object),
        ]
    });
    vec((text(6), value), 0..6).prop_map(object)
}

/// An object with the first of each duplicate key kept.
fn object(members: Vec<(String, Value)>) -> Value {
    let mut seen = std::collections::HashSet::new();
    Value::Object(
        members
            .into_iter()
            .filter(|(k, _)| seen.insert(k.clone()))
            .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn fingerprint_ignores_spelling(
        payloads in vec(payload(), 1..5),
        seed_a in any::<u64>(),
        seed_b in any::<u64>(),
    ) {
        let evs = events(&payloads);
        // The reference spelling: one canonical line per event.
        let canonical_journal: String = evs
            .iter()
            .map(|e| canonical::to_string(e) + "\n")
            .collect();
        let want = fingerprint_of(canonical_journal.as_bytes());
        prop_assert_eq!(&want, &fingerprint::of_values(&evs));
        for seed in [seed_a, seed_b] {
            let bytes = journal(&evs, seed);
            prop_assert_eq!(
                &fingerprint_of(&bytes),
                &want,
                "spelling changed the fingerprint:\n{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
}

/// The escaping pairs of the brief, spelled out: same values, same fingerprint.
#[test]
fn escape_choices_do_not_change_the_fingerprint() {
    let line = |payload: &str, order_envelope: bool| {
        if order_envelope {
            format!(
                "{{\"event_id\":\"e0\",\"session_id\":\"s\",\"sequence\":0,\"type\":\"x\",\
                 \"payload\":{payload},\"provenance\":{{\"run_id\":\"r\"}}}}\n"
            )
        } else {
            format!(
                " {{ \"provenance\" : {{ \"run_id\" : \"r\" }} , \"payload\" : {payload} , \
                 \"type\":\"\\u0078\", \"sequence\" : 0 ,\"session_id\":\"s\",\
                 \"\\u0065vent_id\":\"e\\u0030\"}}\t\n"
            )
        }
    };
    let pairs = [
        (r#"{"s":"é"}"#, r#"{"s":"\u00e9"}"#),
        (r#"{"s":"é"}"#, r#"{"s":"\u00E9"}"#),
        (r#"{"s":"a/b"}"#, r#"{"s":"a\/b"}"#),
        (r#"{"s":"A"}"#, r#"{"s":"\u0041"}"#),
        (r#"{"s":"😀"}"#, r#"{"s":"\ud83d\ude00"}"#),
        (r#"{"s":"😀"}"#, r#"{"s":"\uD83D\uDE00"}"#),
        (r#"{"s":"\n"}"#, r#"{"s":"\u000a"}"#),
        (
            r#"{"b":1,"a":[1.0,0]}"#,
            r#"{ "a" : [ 1e0 , -0 ] , "b" : 1 }"#,
        ),
        (r#"{"f":1e-05}"#, r#"{"f":0.00001}"#),
    ];
    for (a, b) in pairs {
        let fa = fingerprint_of(line(a, true).as_bytes());
        for order in [true, false] {
            let fb = fingerprint_of(line(b, order).as_bytes());
            assert_eq!(fa, fb, "{a} vs {b}");
        }
    }
    // Values that differ must give different fingerprints.
    let f1 = fingerprint_of(line(r#"{"n":1}"#, true).as_bytes());
    let f2 = fingerprint_of(line(r#"{"n":1.0}"#, true).as_bytes());
    let f3 = fingerprint_of(line(r#"{"s":"é"}"#, true).as_bytes());
    let f4 = fingerprint_of(line("{\"s\":\"e\u{301}\"}", true).as_bytes());
    assert_ne!(f1, f2, "1 and 1.0 are different values");
    assert_ne!(f3, f4, "NFC and NFD strings are different values");
}
