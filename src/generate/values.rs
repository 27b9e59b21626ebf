//! JSON values for payloads: the hard canonical cases and the builder that turns a
//! [`JsonRecipe`] into a [`Value`] the spec admits (finite floats, at most
//! [`MAX_INT_DIGITS`] digits, nesting within [`MAX_DEPTH`], unique keys).

use crate::json::{Number, Value, MAX_DEPTH, MAX_INT_DIGITS};

use super::recipe::JsonRecipe;

/// Strings with this prefix are reserved for the malformed builder's raw-text
/// placeholders; [`clean`] rewrites any generated string that starts with it.
pub(crate) const RAW_PREFIX: &str = "\u{0}\u{0}jc-raw:";

/// Integer literals that canonical writers get wrong (exact, at any size).
pub const HARD_INTS: &[&str] = &[
    "0",
    "-1",
    "1",
    "9007199254740993",
    "-9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551616",
    "-18446744073709551617",
    "100000000000000000000000000000000000000000",
];

/// Floats whose Python spelling is easy to get wrong (`1e+16`, `1e-05`, `-0.0`, ...).
pub const HARD_FLOATS: &[f64] = &[
    1e16,
    1e15,
    1e-5,
    1e-7,
    0.0001,
    -0.0,
    0.0,
    5e-324,
    -5e-324,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    2.2250738585072014e-308,
    0.1,
    1.0 / 3.0,
    123.456,
    9007199254740992.0,
    1.2345678901234568e16,
    1.5e-5,
    -1.0,
    1.0,
    1e22,
    1e21,
    1e100,
    2.5,
    100.0,
];

/// Total number of hard numbers: the integers, the floats, and the two integers of
/// exactly [`MAX_INT_DIGITS`] digits (positive and negative).
pub const HARD_NUMBERS: usize = HARD_INTS.len() + HARD_FLOATS.len() + 2;

/// Strings and keys that canonical writers and parsers get wrong.
pub const HARD_STRINGS: &[&str] = &[
    "",
    " ",
    "\u{0}",
    "\u{1}\u{1f}",
    "\n\r\t\u{8}\u{c}",
    "\"\\/",
    "\u{7f}",
    "\u{80}\u{9f}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}\u{2029}",
    "\u{feff}",
    "😀",
    "𝄞 clef",
    "e\u{301}",
    "é",
    "\u{e000}",
    "\u{ffff}",
    "\u{10ffff}",
    "｡",
    "中文",
    "עברית",
    "\u{200b}",
    "null",
    "true",
    "1e16",
    "</script>",
    "\\u0041",
    "a\"b\\c",
];

/// Event types the reducer must ignore although they look like the ones it reads.
pub const TRICKY_TYPES: &[&str] = &[
    "User.Message",
    "user.message ",
    " user.message",
    "user_message",
    "user.messages",
    "model.response.delta",
    "model.responses",
    "MODEL.RESPONSE",
    "tool.results",
    "tool.result\u{0}",
    "session.stop!",
    "session.Stop",
    "approval.request",
    "x",
    "😀",
    "usér.message",
    "custom.event",
];

/// The event types the reducer reads (`R-*`).
pub const REDUCER_TYPES: &[&str] = &[
    "user.message",
    "model.response",
    "tool.result",
    "session.stop",
];

/// Nesting budget for ordinary generated containers (the depth-limit boundary is
/// reached only through [`JsonRecipe::DeepNest`]).
pub const ORDINARY_DEPTH: usize = 12;

/// Values embedded in a projection (tool results) sit this many levels deeper in a
/// vector file than in the event; their nesting is limited accordingly.
pub const PROJECTION_MARGIN: usize = 8;

/// Make a generated string safe to use: never a raw-text placeholder.
pub fn clean(s: &str) -> String {
    if s.starts_with(RAW_PREFIX) {
        format!("x{s}")
    } else {
        s.to_owned()
    }
}

/// A non-empty cleaned string (`fallback` for an empty one).
pub fn nonempty(s: &str, fallback: &str) -> String {
    if s.is_empty() {
        fallback.to_owned()
    } else {
        clean(s)
    }
}

/// The `i`-th hard number.
pub fn hard_number(i: usize) -> Value {
    let i = i % HARD_NUMBERS;
    if i < HARD_INTS.len() {
        return Value::Number(Number::Int(HARD_INTS[i].to_owned()));
    }
    let j = i - HARD_INTS.len();
    if j < HARD_FLOATS.len() {
        return Value::Number(Number::Float(HARD_FLOATS[j]));
    }
    let nines = "9".repeat(MAX_INT_DIGITS);
    Value::Number(Number::Int(if j == HARD_FLOATS.len() {
        nines
    } else {
        format!("-{nines}")
    }))
}

/// The `i`-th hard string.
pub fn hard_string(i: usize) -> String {
    HARD_STRINGS[i % HARD_STRINGS.len()].to_owned()
}

/// A finite float (non-finite recipe values become the largest finite ones, NaN 0).
pub fn finite(f: f64) -> f64 {
    if f.is_nan() {
        0.0
    } else if f.is_infinite() {
        f64::MAX.copysign(f)
    } else {
        f
    }
}

/// The exact integer text of `digits` (non-digits dropped, leading zeros removed, at
/// most [`MAX_INT_DIGITS`] digits).
pub fn big_int(negative: bool, digits: &str) -> Value {
    let d: String = digits
        .chars()
        .filter(char::is_ascii_digit)
        .skip_while(|&c| c == '0')
        .take(MAX_INT_DIGITS)
        .collect();
    Value::Number(Number::Int(if d.is_empty() {
        "0".to_owned()
    } else if negative {
        format!("-{d}")
    } else {
        d
    }))
}

/// Build the value of `r` as a member of a container at depth `parent_depth` (the
/// event object is depth 1, its payload depth 2).
pub fn build(r: &JsonRecipe, parent_depth: usize) -> Value {
    match r {
        JsonRecipe::Null => Value::Null,
        JsonRecipe::Bool(b) => Value::Bool(*b),
        JsonRecipe::Int(i) => Value::from_i64(*i),
        JsonRecipe::Float(f) => Value::Number(Number::Float(finite(*f))),
        JsonRecipe::Str(s) => Value::String(clean(s)),
        JsonRecipe::BigInt { negative, digits } => big_int(*negative, digits),
        JsonRecipe::HardNumber(i) => hard_number(*i as usize),
        JsonRecipe::HardString(i) => Value::String(hard_string(*i as usize)),
        JsonRecipe::Array(items) => {
            if parent_depth >= ORDINARY_DEPTH {
                return Value::Null;
            }
            Value::Array(items.iter().map(|x| build(x, parent_depth + 1)).collect())
        }
        JsonRecipe::Object(members) => {
            if parent_depth >= ORDINARY_DEPTH {
                return Value::Null;
            }
            let mut out: Vec<(String, Value)> = Vec::new();
            for (k, v) in members {
                let k = clean(k);
                if out.iter().all(|(x, _)| *x != k) {
                    out.push((k, build(v, parent_depth + 1)));
                }
            }
            Value::Object(out)
        }
        JsonRecipe::DeepNest(k) => {
            let target = MAX_DEPTH - (*k as usize % 4);
            let levels = target.saturating_sub(parent_depth);
            let mut v = Value::from_i64(0);
            for _ in 0..levels {
                v = Value::Array(vec![v]);
            }
            v
        }
    }
}

/// Add `(key, value)` members to `out`, skipping keys already present and `reserved`.
pub fn extend_members(
    out: &mut Vec<(String, Value)>,
    extra: &[(String, JsonRecipe)],
    reserved: &[&str],
    parent_depth: usize,
) {
    for (k, v) in extra {
        let k = clean(k);
        if reserved.contains(&k.as_str()) || out.iter().any(|(x, _)| *x == k) {
            continue;
        }
        let v = build(v, parent_depth);
        out.push((k, v));
    }
}

/// The deepest nesting of `v` (a scalar is 0, `[]` is 1).
pub fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.iter().map(|(_, x)| depth(x)).max().unwrap_or(0),
        _ => 0,
    }
}
