//! A campaign's guidance (SPEC.md 13.7, `FZ-SIG-1`): a cheap behaviour signature of one
//! execution, the reference's side (operation, profile, which code at which relative
//! line, the shape of the result, the line-count bucket and line-break classes of the input)
//! and, for a journal the reference replays, the reducer branches its events take),
//! paired with the adapter's side (agrees, or the code or result shape it gave
//! instead). An input whose pair is new is kept in the campaign's corpus.

use crate::differential::Trial;
use crate::json::{Number, Value};
use crate::verdict::{Answer, Expect};

/// The log2 bucket of a count: 0, 1, 2-3, 4-7, 8 or more.
fn bucket(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).min(4)
}

/// The shape of a JSON value to `depth`: member names and the shapes of their values,
/// array lengths as `bucket`s, scalars by type.
pub fn shape(v: &Value, depth: u32, out: &mut String) {
    match v {
        Value::Null => out.push('n'),
        Value::Bool(_) => out.push('b'),
        Value::Number(Number::Float(_)) => out.push('f'),
        Value::Number(_) => out.push('i'),
        Value::String(s) if s.is_empty() => out.push_str("s0"),
        Value::String(_) => out.push('s'),
        _ if depth == 0 => out.push('*'),
        Value::Array(a) => {
            out.push_str(&format!("[{}", bucket(a.len())));
            // Each distinct element shape once (a replay's messages of several roles).
            let mut seen: Vec<String> = Vec::new();
            for x in a.iter().take(16) {
                let mut s = String::new();
                shape(x, depth - 1, &mut s);
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            seen.sort();
            out.push_str(&seen.join("|"));
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let mut names: Vec<&(String, Value)> = m.iter().collect();
            names.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, x) in names {
                out.push_str(k);
                out.push(':');
                shape(x, depth - 1, out);
                out.push(',');
            }
            out.push('}');
        }
    }
}

/// Where a line falls in the input: the first, the last, or between.
fn place(line: Option<u64>, lines: usize) -> &'static str {
    match line {
        None => "-",
        Some(1) => "first",
        Some(l) if l as usize >= lines => "last",
        Some(_) => "mid",
    }
}

/// What the input holds, cheaply: its line count's bucket and its line-break,
/// blank-line and non-ASCII classes.
fn input_features(input: &[u8], lines: usize, out: &mut String) {
    out.push_str(&format!("L{}", bucket(lines)));
    if input.contains(&b'\r') {
        out.push_str(",cr");
    }
    if input.windows(2).any(|w| w == b"\n\n") || input.first() == Some(&b'\n') {
        out.push_str(",blank");
    }
    if !input.is_ascii() {
        out.push_str(",utf8");
    }
}

/// The reducer branches (SPEC.md 6) the events of a valid journal take, each once, in
/// a fixed order: `user` (`user-` when its `content` is absent), `content` (a complete
/// response), `final` (`final-` without `accumulated`), `delta`, `tool`, `stop`
/// (`stop-` without `reason`), `other`. Read with the reducer's own rule text
/// ([`crate::replay::contribution`]).
fn reducer_branches(t: &Trial, out: &mut String) {
    use crate::event::{from_value, Event, ReducedType};
    use crate::replay::{contribution, Contribution};
    const ORDER: [&str; 10] = [
        "user", "user-", "content", "final", "final-", "delta", "tool", "stop", "stop-", "other",
    ];
    let mut seen = [false; ORDER.len()];
    let profile = t.profile.journal();
    for line in t.input.split(|&b| b == b'\n') {
        let Ok(v) = crate::json::parse_bytes(line) else {
            continue;
        };
        let Ok(ev) = from_value(v, profile) else {
            continue;
        };
        let ty = ReducedType::of(ev.event_type.as_bytes());
        let ev: &Event = &ev;
        let name = match contribution(ty, &ev) {
            Contribution::User(x) if x.member.is_none() => "user-",
            Contribution::User(_) => "user",
            Contribution::Assistant(_) if ev.payload().iter().any(|(k, _)| k == "content") => {
                "content"
            }
            Contribution::Assistant(x) if x.member.is_none() => "final-",
            Contribution::Assistant(_) => "final",
            Contribution::ToolResult => "tool",
            Contribution::Stop(x) if x.member.is_none() => "stop-",
            Contribution::Stop(_) => "stop",
            Contribution::Nothing if ty == Some(ReducedType::ModelResponse) => "delta",
            Contribution::Nothing => "other",
        };
        seen[ORDER
            .iter()
            .position(|o| *o == name)
            .expect("a branch of ORDER")] = true;
    }
    let names: Vec<&str> = ORDER
        .iter()
        .zip(seen)
        .filter_map(|(n, s)| s.then_some(*n))
        .collect();
    out.push_str(&format!(";B{}", names.join(",")));
}

/// The reference's side of the signature.
pub fn reference(t: &Trial, want: &Expect) -> String {
    let mut s = format!("{}/{}:", t.op.name(), t.profile.as_str());
    let lines = t.input.split(|&b| b == b'\n').count();
    match want {
        Expect::Error {
            codes,
            line,
            sequence,
            index,
        } => {
            s.push_str(&format!(
                "E{}@{}{}{}",
                codes.first().map_or("", String::as_str),
                place(*line, lines),
                if sequence.is_some() { "+seq" } else { "" },
                if index.is_some() { "+idx" } else { "" },
            ));
        }
        Expect::Result { value, .. } => {
            s.push('R');
            shape(value, 2, &mut s);
            if matches!(t.op, crate::ops::Operation::Replay { .. }) {
                reducer_branches(t, &mut s);
            }
        }
    }
    s.push(';');
    input_features(&t.input, lines, &mut s);
    s
}

/// The adapter's side: `agree` when it gave the reference's answer, else what it gave.
pub fn adapter(agrees: bool, got: Option<&Answer>) -> String {
    match got {
        _ if agrees => "agree".into(),
        None => "fault".into(),
        Some(Answer::Error { code, .. }) => format!("E{code}"),
        Some(Answer::Result(v)) => {
            let mut s = String::from("R");
            shape(v, 2, &mut s);
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_bucket_lengths_and_sort_members() {
        let v = crate::json::parse_bytes(br#"{"b":[1,2,3],"a":{"x":"","y":1.5}}"#).unwrap();
        let mut s = String::new();
        shape(&v, 3, &mut s);
        assert_eq!(s, "{a:{x:s0,y:f,},b:[2i],}");
        let long =
            crate::json::parse_bytes(&[b"[", &b"1,".repeat(99)[..], b"1]"].concat()).unwrap();
        let mut l = String::new();
        shape(&long, 1, &mut l);
        assert_eq!(l, "[4i]", "8 elements or more are one bucket");
        let mut d = String::new();
        shape(&v, 1, &mut d);
        assert_eq!(d, "{a:*,b:*,}");
        assert_eq!(
            [
                bucket(0),
                bucket(1),
                bucket(3),
                bucket(4),
                bucket(9),
                bucket(900)
            ],
            [0, 1, 2, 3, 4, 4]
        );
    }

    #[test]
    fn a_replay_signature_names_its_reducer_branches() {
        let j = br#"{"event_id":"a","session_id":"s","sequence":0,"type":"model.response","payload":{"delta":"x"},"provenance":{"run_id":"r"}}
{"event_id":"b","session_id":"s","sequence":1,"type":"model.response","payload":{"final":true},"provenance":{"run_id":"r"}}
{"event_id":"c","session_id":"s","sequence":2,"type":"session.stop","payload":{"reason":"done"},"provenance":{"run_id":"r"}}
"#;
        let t = Trial::plain(
            j.to_vec(),
            crate::ops::Operation::Replay { until: None },
            crate::ops::Profile::Core,
            "t".into(),
        );
        let want = crate::differential::expectation(&t).unwrap();
        let s = reference(&t, &want);
        assert!(s.contains(";Bfinal-,delta,stop;"), "{s}");
        // A content response instead of the final: another branch, another signature.
        let other = Trial {
            input: String::from_utf8(j.to_vec())
                .unwrap()
                .replace(r#"{"final":true}"#, r#"{"content":"hi"}"#)
                .into_bytes(),
            ..t.clone()
        };
        let s2 = reference(&other, &crate::differential::expectation(&other).unwrap());
        assert!(s2.contains(";Bcontent,delta,stop;"), "{s2}");
    }

    #[test]
    fn input_features_name_breaks_and_classes() {
        let mut s = String::new();
        let input = b"{\"type\":\"b\"}\r\n\n{\"type\":\"\xc3\xa9\"}\n{}";
        input_features(input, 4, &mut s);
        assert_eq!(s, "L3,cr,blank,utf8");
    }
}
