//! Records of a run: outcomes, causes (SPEC.md 13.3), one check's and one case's
//! record, and running one case against an implementation.

use std::time::{Duration, Instant};

use crate::adapter::{Implementation, Reply};
use crate::canonical;
use crate::json::Value;
use crate::vectors::{self, Answer, Case, Expect, Level};

/// The outcome of one check or case (SPEC.md 13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Passed,
    Failed,
    Errored,
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
            Outcome::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::Passed,
            Outcome::Failed,
            Outcome::Errored,
            Outcome::Skipped,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }
}

/// Why a check failed or errored (SPEC.md 13.3); exactly one per failed check.
pub const CAUSES: &[&str] = &[
    "wrong_result",
    "wrong_error_code",
    "wrong_location",
    "result_instead_of_error",
    "error_instead_of_result",
    "adapter_fault",
    "unexpected_pass",
];

/// The cause of a mismatch and, for a wrong result, the JSON Pointer of the first
/// difference. `None`: the answer matches. This is the one place causes are decided.
pub fn cause(expect: &Expect, answer: &Answer) -> Option<(&'static str, Option<String>)> {
    vectors::compare(expect, answer)?;
    Some(match (expect, answer) {
        (Expect::Result { value, .. }, Answer::Result(got)) => {
            // Equal values with a differing sha256 point at the root.
            (
                "wrong_result",
                Some(pointer(value, got).unwrap_or_default()),
            )
        }
        (Expect::Result { .. }, Answer::Error { .. }) => ("error_instead_of_result", None),
        (Expect::Error { .. }, Answer::Result(_)) => ("result_instead_of_error", None),
        (Expect::Error { codes, .. }, Answer::Error { code, .. }) => {
            if codes.iter().any(|c| c == code) {
                ("wrong_location", None)
            } else {
                ("wrong_error_code", None)
            }
        }
    })
}

/// The JSON Pointer (RFC 6901) of the first place two values differ.
pub fn pointer(want: &Value, got: &Value) -> Option<String> {
    fn esc(k: &str) -> String {
        k.replace('~', "~0").replace('/', "~1")
    }
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("/{}", esc(k));
                match got.get(k) {
                    None => return Some(p),
                    Some(w) => {
                        if let Some(d) = pointer(v, w) {
                            return Some(p + &d);
                        }
                    }
                }
            }
            b.iter()
                .find(|(k, _)| want.get(k).is_none())
                .map(|(k, _)| format!("/{}", esc(k)))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = pointer(x, y) {
                    return Some(format!("/{i}{d}"));
                }
            }
            (a.len() != b.len()).then(|| format!("/{}", a.len().min(b.len())))
        }
        _ if want.same(got) => None,
        _ => Some(String::new()),
    }
}

/// A one-line preview of input bytes: printable text as is, everything else escaped
/// visibly (`\n`, `\r`, `\t`, `\x00`, `\u{85}`, `\u{2028}`, `\u{feff}`, a byte of invalid
/// UTF-8 as `\xff`, a backslash as `\\`), at most `max` characters.
pub fn preview(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut push = |s: &str, out: &mut String| {
        out.push_str(s);
        n += 1;
        n < max
    };
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            let s = match ch {
                '\n' => "\\n".to_owned(),
                '\r' => "\\r".to_owned(),
                '\t' => "\\t".to_owned(),
                '\\' => "\\\\".to_owned(),
                c if (c as u32) < 0x20 || c == '\u{7f}' => format!("\\x{:02x}", c as u32),
                c if ('\u{80}'..='\u{9f}').contains(&c)
                    || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}') =>
                {
                    format!("\\u{{{:x}}}", c as u32)
                }
                c => c.to_string(),
            };
            if !push(&s, &mut out) {
                out.push('…');
                return out;
            }
        }
        for b in chunk.invalid() {
            if !push(&format!("\\x{b:02x}"), &mut out) {
                out.push('…');
                return out;
            }
        }
    }
    out
}

/// One check's record in a report.
#[derive(Clone, Debug)]
pub struct CheckRecord {
    pub op: Value,
    pub expected: Value,
    pub actual: Value,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<String>,
    pub pointer: Option<String>,
}

/// One case's record.
#[derive(Clone, Debug)]
pub struct CaseRecord {
    pub id: String,
    pub group: String,
    pub level: Level,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<String>,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub description: String,
    pub input_size: u64,
    pub input_preview: String,
    pub checks: Vec<CheckRecord>,
    pub duration: Duration,
    /// The adapter's stderr tail for this case (JUnit `system-err`).
    pub stderr: String,
    /// Extra members of a properties case (`rule`, `first_case`, `seed`, ...).
    pub extra: Vec<(String, Value)>,
}

impl CaseRecord {
    /// Did any check of this case run (answer compared, or an adapter fault)?
    pub fn checked(&self) -> bool {
        self.checks.iter().any(|c| c.outcome != Outcome::Skipped)
    }

    /// The record as a report line (SPEC.md 13.5).
    pub fn to_json(&self) -> Value {
        let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::from);
        let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        let mut m: Vec<(String, Value)> = [
            ("type", Value::from("case")),
            ("id", Value::from(self.id.as_str())),
            ("group", Value::from(self.group.as_str())),
            ("level", Value::from(self.level.as_str())),
            ("outcome", Value::from(self.outcome.as_str())),
            ("message", Value::from(self.message.as_str())),
            ("cause", opt(&self.cause)),
            ("rules", strs(&self.rules)),
            ("tags", strs(&self.tags)),
            ("description", Value::from(self.description.as_str())),
            (
                "duration_ms",
                Value::from_u64(self.duration.as_millis() as u64),
            ),
            (
                "input",
                Value::object([
                    ("size", Value::from_u64(self.input_size)),
                    ("preview", Value::from(self.input_preview.as_str())),
                ]),
            ),
            (
                "checks",
                Value::Array(
                    self.checks
                        .iter()
                        .map(|c| {
                            Value::object([
                                ("op", c.op.clone()),
                                ("outcome", Value::from(c.outcome.as_str())),
                                ("expected", c.expected.clone()),
                                ("actual", c.actual.clone()),
                                ("message", Value::from(c.message.as_str())),
                                ("cause", opt(&c.cause)),
                                ("pointer", opt(&c.pointer)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        m.extend(self.extra.iter().cloned());
        Value::Object(m)
    }
}

/// Run every check of `case` on `imp` and judge it.
pub fn run_case(imp: &mut dyn Implementation, case: &Case) -> CaseRecord {
    let start = Instant::now();
    let mut checks = Vec::new();
    let mut stderr = String::new();
    for check in &case.checks {
        let op = check.op.to_json();
        let expected = check.expect.to_json();
        let mut rec = CheckRecord {
            op,
            expected,
            actual: Value::Null,
            outcome: Outcome::Skipped,
            message: String::new(),
            cause: None,
            pointer: None,
        };
        if !imp.info().supports(&check.op, case.profile) {
            rec.message = if imp.info().operations.iter().any(|o| o == check.op.name()) {
                format!("profile not offered: {}", case.profile.as_str())
            } else {
                format!("operation not offered: {}", check.op.name())
            };
            checks.push(rec);
            continue;
        }
        match imp.run(&check.op, case.profile, &case.input) {
            Reply::Answer(a) => {
                rec.actual = a.to_json();
                match cause(&check.expect, &a) {
                    None => rec.outcome = Outcome::Passed,
                    Some((c, p)) => {
                        rec.outcome = Outcome::Failed;
                        rec.message = vectors::compare(&check.expect, &a).unwrap_or_default();
                        rec.cause = Some(c.to_owned());
                        rec.pointer = p;
                    }
                }
            }
            Reply::Unsupported => {
                rec.message = format!("the adapter answered unsupported: {}", check.op.name());
            }
            Reply::Fault(m) => {
                rec.outcome = Outcome::Errored;
                rec.message = m;
                rec.cause = Some("adapter_fault".into());
            }
        }
        let t = imp.stderr_tail();
        if !t.is_empty() {
            stderr = t;
        }
        checks.push(rec);
    }
    // The case takes its worst check: errored > failed > passed > skipped.
    let outcome = [Outcome::Errored, Outcome::Failed, Outcome::Passed]
        .into_iter()
        .find(|o| checks.iter().any(|c| c.outcome == *o))
        .unwrap_or(Outcome::Skipped);
    let worst: Vec<&CheckRecord> = checks.iter().filter(|c| c.outcome == outcome).collect();
    let message = if outcome == Outcome::Passed {
        String::new()
    } else {
        worst
            .iter()
            .filter(|c| !c.message.is_empty())
            .map(|c| format!("{}: {}", canonical::to_string(&c.op), c.message))
            .collect::<Vec<_>>()
            .join("\n")
    };
    CaseRecord {
        id: case.id.clone(),
        group: case.group.clone(),
        level: case.level,
        outcome,
        message,
        cause: worst.first().and_then(|c| c.cause.clone()),
        rules: case.rules.clone(),
        tags: case.tags.clone(),
        description: case.description.clone(),
        input_size: case.input.len() as u64,
        input_preview: preview(&case.input, 200),
        checks,
        duration: start.elapsed(),
        stderr,
        extra: Vec::new(),
    }
}

/// Counts of case outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub errored: u64,
    pub skipped: u64,
}

impl Counts {
    pub fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Errored => self.errored += 1,
            Outcome::Skipped => self.skipped += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.errored + self.skipped
    }

    pub fn of<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> Counts {
        let mut c = Counts::default();
        for r in records {
            c.add(r.outcome);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: &str, line: Option<u64>) -> Answer {
        Answer::Error {
            code: code.into(),
            line,
            sequence: None,
            index: None,
            message: String::new(),
        }
    }

    #[test]
    fn causes_are_decided_by_comparing_expectation_and_answer() {
        let want_err = Expect::Error {
            codes: vec!["sequence_gap".into()],
            line: Some(3),
            sequence: None,
            index: None,
        };
        let want_res = Expect::Result {
            value: crate::json::parse(r#"{"a":[1,{"b":2}]}"#).unwrap(),
            sha256: None,
        };
        let got_res = Answer::Result(crate::json::parse(r#"{"a":[1,{"b":3}]}"#).unwrap());
        assert_eq!(cause(&want_err, &err("sequence_gap", Some(3))), None);
        assert_eq!(
            cause(&want_err, &err("blank_line", Some(3))),
            Some(("wrong_error_code", None))
        );
        assert_eq!(
            cause(&want_err, &err("sequence_gap", None)),
            Some(("wrong_location", None))
        );
        assert_eq!(
            cause(&want_err, &got_res),
            Some(("result_instead_of_error", None))
        );
        assert_eq!(
            cause(&want_res, &err("x", None)),
            Some(("error_instead_of_result", None))
        );
        assert_eq!(
            cause(&want_res, &got_res),
            Some(("wrong_result", Some("/a/1/b".into())))
        );
    }

    #[test]
    fn previews_escape_what_is_not_printable() {
        assert_eq!(
            preview("a\u{85}b\r\n\u{2028}\\".as_bytes(), 100),
            "a\\u{85}b\\r\\n\\u{2028}\\\\"
        );
        assert_eq!(preview(b"\x00\xff\xfeok", 100), "\\x00\\xff\\xfeok");
        assert_eq!(preview(b"abcdef", 3), "abc…");
    }
}
