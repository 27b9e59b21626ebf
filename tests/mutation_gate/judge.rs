//! Gate path 8: the judgement every path trusts (`verdict::judge`, and `Value::same`
//! for `golden verify`) accepts each expected answer and rejects each that differs from
//! it in one way.

use super::*;

/// Values that differ from `v` by SPEC's equality (their canonical texts differ), each
/// by one change: every leaf of the first `limit` replaced (an integer by another and by
/// the float of the same value, a float by half of it or by 1.0, a string extended, a
/// boolean flipped, `null` by `false`), and at every container a member or element
/// dropped or added.
fn wrong_versions(v: &Value, limit: &mut usize, out: &mut Vec<Value>) {
    use journal_conformance::json::Number;
    if *limit == 0 {
        return;
    }
    *limit -= 1;
    match v {
        Value::Null => out.push(Value::Bool(false)),
        Value::Bool(b) => out.push(Value::Bool(!b)),
        Value::Number(Number::Int(s)) => {
            let other = if s == "0" {
                "1".to_owned()
            } else {
                format!("{s}0")
            };
            out.push(Value::Number(Number::Int(other)));
            if let Ok(f) = s.parse::<f64>() {
                out.push(Value::Number(Number::Float(f)));
            }
        }
        Value::Number(Number::Float(f)) => {
            let other = if *f == 0.0 { 1.0 } else { f / 2.0 };
            out.push(Value::Number(Number::Float(other)));
            if f.fract() == 0.0 && f.abs() < 1e15 {
                out.push(Value::Number(Number::Int(format!("{}", *f as i64))));
            }
        }
        Value::String(s) => out.push(Value::String(format!("{s}x"))),
        Value::Array(a) => {
            if !a.is_empty() {
                out.push(Value::Array(a[..a.len() - 1].to_vec()));
            }
            let mut longer = a.clone();
            longer.push(Value::Null);
            out.push(Value::Array(longer));
            for (i, x) in a.iter().enumerate() {
                let mut inner = Vec::new();
                wrong_versions(x, limit, &mut inner);
                out.extend(inner.into_iter().map(|y| {
                    let mut b = a.clone();
                    b[i] = y;
                    Value::Array(b)
                }));
            }
        }
        Value::Object(m) => {
            if !m.is_empty() {
                out.push(Value::Object(m[1..].to_vec()));
            }
            let mut wider = m.clone();
            wider.push(("\u{0}not-a-member".into(), Value::Null));
            out.push(Value::Object(wider));
            for (i, (k, x)) in m.iter().enumerate() {
                let mut inner = Vec::new();
                wrong_versions(x, limit, &mut inner);
                out.extend(inner.into_iter().map(|y| {
                    let mut b = m.clone();
                    b[i] = (k.clone(), y);
                    Value::Object(b)
                }));
            }
        }
    }
}

/// `v` with every object's members in reverse order (C-KEY-1: the same value).
fn reordered(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(reordered).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, x)| (k.clone(), reordered(x)))
                .collect(),
        ),
        x => x.clone(),
    }
}

/// The runner's judgement (`verdict::judge`, which every path above trusts): over every
/// check of the corpus, the expected answer itself, and with its members reordered, is
/// right, and each answer that differs from it in one way a wrong implementation would
/// (a changed leaf, a dropped or added member or element, another error code, line,
/// sequence or index, an error for a result and a result for an error) is wrong. A
/// corpus run against a correct reference cannot see a comparator that accepts too much;
/// this can. Expected values are the corpus's; the wrong ones differ from them by
/// SPEC's equality (section 3.2: two values are equal exactly when their canonical
/// texts are).
#[test]
fn wrong_answers_are_judged_wrong() {
    let Some(_running) = fail_fast() else { return };
    let mut cases = vectors::load_embedded().unwrap();
    cases.extend(journal_conformance::runner::plan::golden_cases().unwrap());
    let (mut right, mut wrong_checked, mut same_checked) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for case in &cases {
        for check in &case.checks {
            let mut must_fail: Vec<Answer> = Vec::new();
            let mut must_pass: Vec<Answer> = Vec::new();
            match &check.expect {
                Expect::Result { value, .. } => {
                    must_pass.push(Answer::Result(value.clone()));
                    must_pass.push(Answer::Result(reordered(value)));
                    let mut versions = Vec::new();
                    wrong_versions(value, &mut 24, &mut versions);
                    // `golden verify`'s comparison of whole values, `Value::same`, by the
                    // same equality.
                    same_checked += 1 + versions.len();
                    if !value.same(&reordered(value)) {
                        failures.push(format!("{}: Value::same: reordered differs", case.id));
                    }
                    if let Some(v) = versions.iter().find(|v| value.same(v)) {
                        failures.push(format!(
                            "{}: Value::same accepts {}",
                            case.id,
                            journal_conformance::canonical::to_string(v)
                        ));
                    }
                    must_fail.extend(versions.into_iter().map(Answer::Result));
                    must_fail.push(Answer::Error {
                        code: "invalid_json".into(),
                        line: None,
                        sequence: None,
                        index: None,
                        message: String::new(),
                    });
                }
                Expect::Error {
                    codes,
                    line,
                    sequence,
                    index,
                } => {
                    let answer = |code: &str, line, sequence, index| Answer::Error {
                        code: code.to_owned(),
                        line,
                        sequence,
                        index,
                        message: "any wording".into(),
                    };
                    for code in codes {
                        must_pass.push(answer(code, *line, *sequence, *index));
                    }
                    let code = &codes[0];
                    must_fail.push(answer("not_a_code", *line, *sequence, *index));
                    if let Some(l) = line {
                        must_fail.push(answer(code, Some(l + 1), *sequence, *index));
                    }
                    if let Some(s) = sequence {
                        must_fail.push(answer(code, *line, Some(s.wrapping_add(1)), *index));
                    }
                    if let Some(i) = index {
                        must_fail.push(answer(code, *line, *sequence, Some(i + 1)));
                    }
                    must_fail.push(Answer::Result(Value::Null));
                }
            }
            for a in &must_pass {
                right += 1;
                if let Some(m) = judge(&check.expect, a) {
                    failures.push(format!(
                        "{}: the expected answer is judged wrong: {m:?}",
                        case.id
                    ));
                }
            }
            for a in &must_fail {
                wrong_checked += 1;
                if judge(&check.expect, a).is_none() {
                    failures.push(format!(
                        "{}: a wrong answer is judged right: {}",
                        case.id,
                        journal_conformance::canonical::to_string(&a.to_json())
                    ));
                }
            }
        }
    }
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        right > 5_000 && wrong_checked > 50_000 && same_checked > 40_000,
        "{right} right, {wrong_checked} wrong answers judged, {same_checked} compared"
    );
}
