//! The verdict on one answer (SPEC.md 13.3, rules `V-EXPECT-1`, `A-FAULT-1`): what a
//! check expects ([`Expect`]), what an implementation answered ([`Answer`]), and the one
//! comparator, [`judge`], that decides whether they match and, when they do not, why
//! ([`Mismatch`]: a [`Cause`], the JSON Pointer of the first difference, the two values
//! there, and the sentence that says it).
//!
//! The fixed vectors, the explanations and the differential phase all call [`judge`], so
//! a decision and its words cannot drift apart (rust-lang/regex's `regex-test`, whose one
//! failure-kind enum both decides and renders, is the model). [`differences`] lists every
//! place two JSON values differ, in the order [`judge`] reports the first.

use std::fmt;

use crate::canonical;
use crate::error::shorten;
use crate::json::Value;

/// What a check expects (`V-EXPECT-1`).
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Result {
        value: Value,
        sha256: Option<String>,
    },
    Error {
        codes: Vec<String>,
        line: Option<u64>,
        sequence: Option<i64>,
        index: Option<u64>,
    },
}

impl Expect {
    /// The expectation an answer of the reference makes (the differential phase's, a
    /// campaign's, the in-language harnesses' oracle): its result, or its error's code and
    /// location fields (the message is never compared).
    pub fn of_answer(a: &Answer) -> Expect {
        match a {
            Answer::Result(value) => Expect::Result {
                value: value.clone(),
                sha256: None,
            },
            Answer::Error {
                code,
                line,
                sequence,
                index,
                ..
            } => Expect::Error {
                codes: vec![code.clone()],
                line: *line,
                sequence: *sequence,
                index: *index,
            },
        }
    }

    /// The expectation as a vector file spells it (`{"result":...}`, `{"error":{...}}`).
    pub fn to_json(&self) -> Value {
        match self {
            Expect::Result { value, sha256 } => {
                let mut m = vec![("result".to_owned(), value.clone())];
                if let Some(h) = sha256 {
                    m.push(("sha256".into(), Value::from(h.as_str())));
                }
                Value::Object(m)
            }
            Expect::Error {
                codes,
                line,
                sequence,
                index,
            } => {
                let code = if codes.len() == 1 {
                    Value::from(codes[0].as_str())
                } else {
                    Value::Array(codes.iter().map(|c| Value::from(c.as_str())).collect())
                };
                let mut e = vec![("code".to_owned(), code)];
                if let Some(l) = line {
                    e.push(("line".into(), Value::from_u64(*l)));
                }
                if let Some(s) = sequence {
                    e.push(("sequence".into(), Value::from_i64(*s)));
                }
                if let Some(i) = index {
                    e.push(("index".into(), Value::from_u64(*i)));
                }
                Value::object([("error", Value::Object(e))])
            }
        }
    }
}

/// An answer from an implementation to one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Result(Value),
    Error {
        code: String,
        line: Option<u64>,
        sequence: Option<i64>,
        index: Option<u64>,
        message: String,
    },
}

impl Answer {
    /// The answer as reports record it (`{"result":...}`, `{"error":{...}}`).
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Result(v) => Value::object([("result", v.clone())]),
            e => e.clone().into_json(),
        }
    }

    /// [`Answer::to_json`] without copying the result.
    pub fn into_json(self) -> Value {
        match self {
            Answer::Result(v) => Value::object([("result", v)]),
            Answer::Error {
                code,
                line,
                sequence,
                index,
                message,
            } => {
                let mut e = vec![
                    ("code".to_owned(), Value::from(code.as_str())),
                    ("line".to_owned(), line.map_or(Value::Null, Value::from_u64)),
                    (
                        "sequence".to_owned(),
                        sequence.map_or(Value::Null, Value::from_i64),
                    ),
                    ("message".to_owned(), Value::from(message.as_str())),
                ];
                if let Some(i) = index {
                    e.push(("index".into(), Value::from_u64(i)));
                }
                Value::object([("error", Value::Object(e))])
            }
        }
    }
}

/// Why a check failed (SPEC.md 13.3). The names are stable: reports and JUnit carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// Both sides are results and the values differ.
    WrongResult,
    /// Both sides are errors and the codes differ.
    WrongErrorCode,
    /// Same error code; `line`, `sequence` or `index` differs or is missing.
    WrongLocation,
    /// The vector expects an error and the implementation gave a result.
    ResultInsteadOfError,
    /// The vector expects a result and the implementation gave an error.
    ErrorInsteadOfResult,
    /// The adapter crashed, timed out or broke the protocol (the check is errored).
    AdapterFault,
    /// The case is on the skip list but passes.
    UnexpectedPass,
    /// A `scale` shape's time grows faster than the reference's (SPEC.md 17, Q-SCALE-3).
    Superlinear,
}

impl Cause {
    pub const ALL: [Cause; 8] = [
        Cause::WrongResult,
        Cause::WrongErrorCode,
        Cause::WrongLocation,
        Cause::ResultInsteadOfError,
        Cause::ErrorInsteadOfResult,
        Cause::AdapterFault,
        Cause::UnexpectedPass,
        Cause::Superlinear,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::WrongResult => "wrong_result",
            Cause::WrongErrorCode => "wrong_error_code",
            Cause::WrongLocation => "wrong_location",
            Cause::ResultInsteadOfError => "result_instead_of_error",
            Cause::ErrorInsteadOfResult => "error_instead_of_result",
            Cause::AdapterFault => "adapter_fault",
            Cause::UnexpectedPass => "unexpected_pass",
            Cause::Superlinear => "superlinear",
        }
    }

    pub fn parse(s: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which location field of an error differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Line,
    Sequence,
    Index,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Line => "line",
            Field::Sequence => "sequence",
            Field::Index => "index",
        }
    }
}

/// What differs, with what the sentence needs.
#[derive(Clone, Debug, PartialEq)]
enum What {
    /// The first place where two results differ.
    Value(Difference),
    /// A canonical text's digest (`sha256` of the vector) differs.
    Digest { expected: String, actual: String },
    /// A result was due; an error came.
    ErrorInstead {
        code: String,
        line: Option<u64>,
        message: String,
    },
    /// An error was due; a result came.
    ResultInstead { codes: Vec<String>, actual: Value },
    /// Another error code.
    Code { codes: Vec<String>, actual: String },
    /// Same code, another location (`expected` is the vector's value).
    Location {
        code: String,
        field: Field,
        expected: i128,
        actual: Option<i128>,
    },
}

/// A failed check: why, where, and what stands on each side there.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub cause: Cause,
    /// The JSON Pointer (RFC 6901) of the first difference into the check's `expected`
    /// and `actual` documents: `/result/...` for results, `/error/code`, `/error/line`,
    /// `/error/sequence` or `/error/index` for errors, `None` when one side is a result
    /// and the other an error.
    pub pointer: Option<String>,
    /// The expectation's value at the pointer (`None`: nothing there).
    pub expected: Option<Value>,
    /// The answer's value at the pointer (`None`: nothing there).
    pub actual: Option<Value>,
    what: What,
}

impl Mismatch {
    /// The location field that differs, for a `wrong_location`.
    pub fn field(&self) -> Option<Field> {
        match &self.what {
            What::Location { field, .. } => Some(*field),
            _ => None,
        }
    }
}

/// The sentence a report and an explanation give for the mismatch.
impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.what {
            What::Value(d) => write!(f, "{d}"),
            What::Digest { expected, actual } => {
                write!(f, "sha256 of the result: expected {expected}, got {actual}")
            }
            What::ErrorInstead {
                code,
                line,
                message,
            } => write!(
                f,
                "expected a result, got error `{code}` (line {}): {message}",
                line.map_or("-".into(), |l| l.to_string())
            ),
            What::ResultInstead { codes, actual } => write!(
                f,
                "expected error `{}`, got a result: {}",
                codes.join("` or `"),
                show(actual)
            ),
            What::Code { codes, actual } => write!(
                f,
                "expected error `{}`, got `{actual}`",
                codes.join("` or `")
            ),
            What::Location {
                code,
                field,
                expected,
                actual,
            } => {
                let name = field.as_str();
                let got = actual.map_or(format!("no {name}"), |a| format!("{name} {a}"));
                match field {
                    Field::Line => write!(
                        f,
                        "error `{code}`: expected at line {expected}, reported at {got}"
                    ),
                    _ => write!(
                        f,
                        "error `{code}`: expected {name} {expected}, reported {got}"
                    ),
                }
            }
        }
    }
}

fn show(v: &Value) -> String {
    shorten(canonical::to_string(v).as_bytes(), 200)
}

/// Whether `answer` meets `expect`, and if not, why: the one comparator of the kit.
///
/// Results are compared as JSON (member order ignored, integers and floats distinct,
/// strings exact) and, for a canonical text, by the vector's `sha256` too; errors by
/// code (one of the acceptable codes) and by `line`, `sequence` and `index` where the
/// vector gives them. Messages and columns are never compared.
pub fn judge(expect: &Expect, answer: &Answer) -> Option<Mismatch> {
    match (expect, answer) {
        (Expect::Result { value, sha256 }, Answer::Result(got)) => {
            judge_result(value, sha256.as_deref(), got)
        }
        (
            Expect::Result { value, .. },
            Answer::Error {
                code,
                line,
                message,
                ..
            },
        ) => Some(Mismatch {
            cause: Cause::ErrorInsteadOfResult,
            pointer: None,
            expected: Some(value.clone()),
            actual: None,
            what: What::ErrorInstead {
                code: code.clone(),
                line: *line,
                message: message.clone(),
            },
        }),
        (Expect::Error { codes, .. }, Answer::Result(got)) => Some(Mismatch {
            cause: Cause::ResultInsteadOfError,
            pointer: None,
            expected: None,
            actual: Some(got.clone()),
            what: What::ResultInstead {
                codes: codes.clone(),
                actual: got.clone(),
            },
        }),
        (Expect::Error { .. }, Answer::Error { .. }) => judge_error(expect, answer),
    }
}

/// Two results: the first difference as JSON, then the canonical text's digest.
fn judge_result(value: &Value, sha256: Option<&str>, got: &Value) -> Option<Mismatch> {
    if let Some(d) = differences(value, got, 1).into_iter().next() {
        return Some(Mismatch {
            cause: Cause::WrongResult,
            pointer: Some(format!("/result{}", d.pointer)),
            expected: d.expected.clone(),
            actual: d.actual.clone(),
            what: What::Value(d),
        });
    }
    let (Some(h), Value::String(text)) = (sha256, got) else {
        return None;
    };
    let got_h = crate::fingerprint::sha256_hex(text.as_bytes());
    (h != got_h).then(|| Mismatch {
        cause: Cause::WrongResult,
        pointer: Some("/result".into()),
        expected: Some(value.clone()),
        actual: Some(got.clone()),
        what: What::Digest {
            expected: h.to_owned(),
            actual: got_h,
        },
    })
}

/// Two errors: the code (one of the acceptable ones), then `line`, `sequence` and
/// `index` where the vector gives them, in that order.
fn judge_error(expect: &Expect, answer: &Answer) -> Option<Mismatch> {
    let (
        Expect::Error {
            codes,
            line,
            sequence,
            index,
        },
        Answer::Error {
            code,
            line: got_line,
            sequence: got_seq,
            index: got_index,
            ..
        },
    ) = (expect, answer)
    else {
        return None;
    };
    if !codes.contains(code) {
        let want = if codes.len() == 1 {
            Value::from(codes[0].as_str())
        } else {
            Value::Array(codes.iter().map(|c| Value::from(c.as_str())).collect())
        };
        return Some(Mismatch {
            cause: Cause::WrongErrorCode,
            pointer: Some("/error/code".into()),
            expected: Some(want),
            actual: Some(Value::from(code.as_str())),
            what: What::Code {
                codes: codes.clone(),
                actual: code.clone(),
            },
        });
    }
    let wide = |x: Option<u64>| x.map(i128::from);
    let number =
        |n: i128| i64::try_from(n).map_or_else(|_| Value::from_u64(n as u64), Value::from_i64);
    [
        (Field::Line, wide(*line), wide(*got_line)),
        (
            Field::Sequence,
            sequence.map(i128::from),
            got_seq.map(i128::from),
        ),
        (Field::Index, wide(*index), wide(*got_index)),
    ]
    .into_iter()
    .find_map(|(field, want, got)| {
        let want = want?;
        (Some(want) != got).then(|| Mismatch {
            cause: Cause::WrongLocation,
            pointer: Some(format!("/error/{}", field.as_str())),
            expected: Some(number(want)),
            actual: got.map(number),
            what: What::Location {
                code: code.clone(),
                field,
                expected: want,
                actual: got,
            },
        })
    })
}

/// One place where two JSON values differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The JSON Pointer (RFC 6901; `""` is the whole value).
    pub pointer: String,
    /// The expected value there (`None`: an unexpected member).
    pub expected: Option<Value>,
    /// The actual value there (`None`: a missing member).
    pub actual: Option<Value>,
    /// What differs, in words: `missing (expected 1)`, `expected 3 elements, got 2`.
    pub what: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let here = if self.pointer.is_empty() {
            "/"
        } else {
            self.pointer.as_str()
        };
        write!(f, "{here}: {}", self.what)
    }
}

/// Every place (at most `limit`) where `got` differs from `want`, depth first: the
/// members of `want` in its order (missing, or differing inside), then the members only
/// `got` has; the elements both arrays have, then a difference in length.
pub fn differences(want: &Value, got: &Value, limit: usize) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(want, got, String::new(), limit, &mut out);
    out
}

fn walk(want: &Value, got: &Value, ptr: String, limit: usize, out: &mut Vec<Difference>) {
    if out.len() >= limit {
        return;
    }
    let member = |k: &str| format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
    let push = |out: &mut Vec<Difference>, d: Difference| {
        if out.len() < limit {
            out.push(d);
        }
    };
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match got.get(k) {
                    None => push(
                        out,
                        Difference {
                            pointer: member(k),
                            expected: Some(v.clone()),
                            actual: None,
                            what: format!("missing (expected {})", show(v)),
                        },
                    ),
                    Some(w) => walk(v, w, member(k), limit, out),
                }
            }
            for (k, w) in b {
                if want.get(k).is_none() {
                    push(
                        out,
                        Difference {
                            pointer: member(k),
                            expected: None,
                            actual: Some(w.clone()),
                            what: format!("unexpected member (got {})", show(w)),
                        },
                    );
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                walk(x, y, format!("{ptr}/{i}"), limit, out);
            }
            if a.len() != b.len() {
                push(
                    out,
                    Difference {
                        pointer: ptr,
                        expected: Some(want.clone()),
                        actual: Some(got.clone()),
                        what: format!("expected {} elements, got {}", a.len(), b.len()),
                    },
                );
            }
        }
        _ if want.same(got) => {}
        _ => push(
            out,
            Difference {
                pointer: ptr,
                expected: Some(want.clone()),
                actual: Some(got.clone()),
                what: format!("expected {}, got {}", show(want), show(got)),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn err(code: &str, line: Option<u64>, sequence: Option<i64>, index: Option<u64>) -> Answer {
        Answer::Error {
            code: code.into(),
            line,
            sequence,
            index,
            message: "m".into(),
        }
    }

    fn parse(t: &str) -> Value {
        crate::json::parse(t).unwrap()
    }

    #[test]
    fn causes_pointers_and_sentences() {
        let want = Expect::Result {
            value: parse(r#"{"stop_reason":"max","a/b":[1,2]}"#),
            sha256: None,
        };
        let got = |t: &str| Answer::Result(parse(t));
        let d = judge(&want, &got(r#"{"stop_reason":"x","a/b":[1,2]}"#)).unwrap();
        assert_eq!(d.cause, Cause::WrongResult);
        assert_eq!(d.pointer.as_deref(), Some("/result/stop_reason"));
        assert_eq!(
            (d.expected.clone(), d.actual.clone()),
            (Some(Value::from("max")), Some(Value::from("x")))
        );
        assert_eq!(d.to_string(), r#"/stop_reason: expected "max", got "x""#);
        let d = judge(&want, &got(r#"{"stop_reason":"max","a/b":[1,3]}"#)).unwrap();
        assert_eq!(d.pointer.as_deref(), Some("/result/a~1b/1"));
        assert_eq!(
            judge(&want, &got(r#"{"a/b":[1,2],"stop_reason":"max"}"#)),
            None
        );
        let d = judge(&want, &got(r#"{"a/b":[1,2]}"#)).unwrap();
        assert_eq!(d.to_string(), r#"/stop_reason: missing (expected "max")"#);
        let d = judge(&want, &got("[]")).unwrap();
        assert_eq!(d.pointer.as_deref(), Some("/result"));
        assert!(d.to_string().starts_with("/: expected {"), "{d}");
        let d = judge(&want, &err("x", None, None, None)).unwrap();
        assert_eq!(d.cause, Cause::ErrorInsteadOfResult);
        assert_eq!(
            d.to_string(),
            "expected a result, got error `x` (line -): m"
        );
        let gap = Expect::Error {
            codes: vec!["sequence_gap".into()],
            line: Some(3),
            sequence: Some(3),
            index: None,
        };
        let d = judge(&gap, &got("{}")).unwrap();
        assert_eq!(d.cause, Cause::ResultInsteadOfError);
        assert_eq!(
            d.to_string(),
            "expected error `sequence_gap`, got a result: {}"
        );
        let d = judge(&gap, &err("other", Some(3), Some(3), None)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref()),
            (Cause::WrongErrorCode, Some("/error/code"))
        );
        assert_eq!(d.to_string(), "expected error `sequence_gap`, got `other`");
        let d = judge(&gap, &err("sequence_gap", None, Some(3), None)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref(), d.field()),
            (Cause::WrongLocation, Some("/error/line"), Some(Field::Line))
        );
        assert_eq!(
            d.to_string(),
            "error `sequence_gap`: expected at line 3, reported at no line"
        );
        let d = judge(&gap, &err("sequence_gap", Some(3), Some(4), None)).unwrap();
        assert_eq!(d.pointer.as_deref(), Some("/error/sequence"));
        assert_eq!(
            d.to_string(),
            "error `sequence_gap`: expected sequence 3, reported sequence 4"
        );
        assert_eq!(
            judge(&gap, &err("sequence_gap", Some(3), Some(3), Some(9))),
            None
        );
        // A canonical text whose sha256 does not match is a wrong result at its root.
        let canon = Expect::Result {
            value: Value::from("{}"),
            sha256: Some("00".into()),
        };
        let d = judge(&canon, &got(r#""{}""#)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref()),
            (Cause::WrongResult, Some("/result"))
        );
        assert!(d
            .to_string()
            .starts_with("sha256 of the result: expected 00, got 44136fa3"));
    }

    #[test]
    fn cause_names_round_trip() {
        for c in Cause::ALL {
            assert_eq!(Cause::parse(c.as_str()), Some(c));
        }
        assert_eq!(Cause::parse("wrong"), None);
    }

    #[test]
    fn differences_come_in_order_with_escaped_pointers() {
        let a = parse(r#"{"tool_results":[1],"stop_reason":"x","k":1}"#);
        let b = parse(r#"{"tool_results":[],"stop_reason":"y","a/b~":2}"#);
        let all = differences(&a, &b, 32);
        let ptrs: Vec<&str> = all.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/tool_results", "/stop_reason", "/k", "/a~1b~0"]);
        assert_eq!(
            all[0].to_string(),
            "/tool_results: expected 1 elements, got 0"
        );
        assert_eq!(differences(&a, &b, 2).len(), 2);
        assert!(differences(&a, &a, 32).is_empty());
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0i64..3).prop_map(Value::from_i64),
            prop_oneof![Just("a"), Just("b")].prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec((prop_oneof![Just("k"), Just("l")], inner), 0..3).prop_map(
                    |m| {
                        let mut o: Vec<(String, Value)> = Vec::new();
                        for (k, v) in m {
                            if !o.iter().any(|(x, _)| x == k) {
                                o.push((k.to_owned(), v));
                            }
                        }
                        Value::Object(o)
                    }
                ),
            ]
        })
    }

    fn code() -> impl Strategy<Value = String> {
        prop_oneof![Just("x"), Just("y"), Just("z")].prop_map(str::to_owned)
    }

    fn expect() -> impl Strategy<Value = Expect> {
        prop_oneof![
            value().prop_map(|value| Expect::Result {
                value,
                sha256: None
            }),
            (
                prop::collection::vec(code(), 1..3),
                prop::option::of(1u64..3),
                prop::option::of(-1i64..2),
                prop::option::of(0u64..2)
            )
                .prop_map(|(codes, line, sequence, index)| Expect::Error {
                    codes,
                    line,
                    sequence,
                    index
                }),
        ]
    }

    fn answer() -> impl Strategy<Value = Answer> {
        prop_oneof![
            value().prop_map(Answer::Result),
            (
                code(),
                prop::option::of(1u64..3),
                prop::option::of(-1i64..2),
                prop::option::of(0u64..2)
            )
                .prop_map(|(c, l, s, i)| err(&c, l, s, i)),
        ]
    }

    /// Resolve an RFC 6901 pointer.
    fn resolve<'v>(v: &'v Value, pointer: &str) -> Option<&'v Value> {
        if pointer.is_empty() {
            return Some(v);
        }
        let mut cur = v;
        for tok in pointer.strip_prefix('/')?.split('/') {
            let tok = tok.replace("~1", "/").replace("~0", "~");
            cur = match cur {
                Value::Object(_) => cur.get(&tok)?,
                Value::Array(a) => a.get(tok.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    proptest! {
        /// The cause fits the two sides, and the pointer names a place where they differ,
        /// holding the mismatch's `expected` and `actual`.
        #[test]
        fn a_mismatch_fits_both_sides(e in expect(), a in answer()) {
            let Some(d) = judge(&e, &a) else {
                // A match: equal results (as JSON), or an acceptable code at the locations given.
                match (&e, &a) {
                    (Expect::Result { value, .. }, Answer::Result(v)) => prop_assert!(value.same(v) || differences(value, v, 1).is_empty()),
                    (Expect::Error { codes, .. }, Answer::Error { code, .. }) => prop_assert!(codes.contains(code)),
                    _ => prop_assert!(false, "a result and an error matched"),
                }
                return Ok(());
            };
            let both_results = matches!((&e, &a), (Expect::Result { .. }, Answer::Result(_)));
            let both_errors = matches!((&e, &a), (Expect::Error { .. }, Answer::Error { .. }));
            let answer_is_result = matches!(a, Answer::Result(_));
            match d.cause {
                Cause::WrongResult => prop_assert!(both_results),
                Cause::WrongErrorCode | Cause::WrongLocation => prop_assert!(both_errors),
                Cause::ResultInsteadOfError => {
                    prop_assert!(answer_is_result && !both_results)
                }
                Cause::ErrorInsteadOfResult => {
                    prop_assert!(!answer_is_result && !both_errors)
                }
                Cause::AdapterFault | Cause::UnexpectedPass | Cause::Superlinear => prop_assert!(false),
            }
            if let (Expect::Error { codes, .. }, Answer::Error { code, .. }) = (&e, &a) {
                prop_assert_eq!(d.cause == Cause::WrongErrorCode, !codes.contains(code));
            }
            if let Some(p) = &d.pointer {
                let (want, got) = (e.to_json(), a.to_json());
                let (w, g) = (resolve(&want, p), resolve(&got, p));
                prop_assert!(w.is_some() || g.is_some(), "{} resolves nowhere", p);
                if d.cause == Cause::WrongResult {
                    prop_assert!(
                        !matches!((w, g), (Some(x), Some(y)) if x.same(y)),
                        "{} is the same on both sides", p
                    );
                    prop_assert_eq!(w.cloned(), d.expected.clone());
                    prop_assert_eq!(g.cloned(), d.actual.clone());
                } else {
                    prop_assert!(w.is_some(), "{} is not in the expectation", p);
                }
            } else {
                prop_assert!(!both_results && !both_errors);
            }
        }
    }
}
