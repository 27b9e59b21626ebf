//! The campaign's mutations (SPEC.md 13.7, `FZ-MUT-1`): a kept input becomes a new one
//! by structure-aware edits of its lines and tokens (drop, repeat, swap and renumber
//! lines; change ids and parents; put in a line of a defect class; splice two inputs;
//! respell numbers, strings and whitespace; change a value's type; move `until`/`at`
//! to a boundary) and by libFuzzer-style byte edits. Every edit is a pure function of
//! the input and the generator, so a campaign is deterministic for its seed.

use proptest::prelude::Rng as _;
use proptest::test_runner::TestRng;

use crate::differential::Trial;
use crate::ops::Operation;

/// Lines of a defect class a naive reader gets wrong: whitespace that `trim()`,
/// `strip()`, `splitlines()` or `\s` treat specially, JSON that is not an object, a
/// BOM, a truncated object, a line break inside a line.
const ODD_LINES: &[&[u8]] = &[
    b"",
    b" ",
    b"\t",
    b"\r",
    b"\x0c",
    b"\x0b",
    b"\xc2\xa0",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xe2\x80\x8b",
    b"\xef\xbb\xbf",
    b"\x1c",
    b"null",
    b"[]",
    b"{}",
    b"1",
    b"\"x\"",
    b"{\"type\":",
    b"{\"a\":1}{\"b\":2}",
    b"\x00",
];

/// Respellings of a number token: the same value written otherwise, a value at a
/// boundary, or not a JSON number at all.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "1.0",
    "1e0",
    "10E-1",
    "01",
    "1.",
    "-1",
    "2",
    "9007199254740992",
    "9007199254740993",
    "18446744073709551616",
    "-9223372036854775809",
    "1e400",
    "1e-400",
    "1e21",
    "0.1",
    "5e-324",
    "NaN",
    "Infinity",
];

/// Values a member's value becomes when its type changes.
const VALUES: &[&str] = &[
    "null",
    "true",
    "0",
    "\"\"",
    "[]",
    "{}",
    "\"x\"",
    "-1",
    "{\"a\":1}",
    "[1]",
];

/// Token-level insertions of the byte edits.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\\u0000",
    b"\\ud800",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\r\n",
    b"\n",
    b" ",
    b"\t",
    b"\xc2\xa0",
    b"\\/",
    b"\\u00e9",
];

/// Whitespace put between tokens or at a line's ends.
const SPACES: &[&[u8]] = &[
    b" ",
    b"\t",
    b"\r",
    b"\x0c",
    b"\x0b",
    b"\xc2\xa0",
    b"\xe2\x80\x8b",
];

/// Member names whose string values are ids a journal or tree refers to.
const ID_KEYS: &[&[u8]] = &[
    b"\"id\":",
    b"\"parent_id\":",
    b"\"parent\":",
    b"\"session_id\":",
    b"\"run_id\":",
    b"\"message_id\":",
    b"\"call_id\":",
    b"\"label\":",
];

/// The edits, by name (the campaign's report counts executions by the last edit).
pub const EDITS: &[&str] = &[
    "drop-line",
    "repeat-line",
    "swap-lines",
    "renumber",
    "respell-id",
    "odd-line",
    "splice",
    "respell-number",
    "respell-string",
    "whitespace",
    "retype-value",
    "reorder-members",
    "move-argument",
    "stream-shape",
    "flip-byte",
    "insert-token",
    "delete-bytes",
    "repeat-bytes",
    "shuffle-bytes",
    "change-ascii-integer",
    "copy-part",
    "cross-over",
];

fn below(rng: &mut TestRng, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (rng.next_u64() % n as u64) as usize
    }
}

fn coin(rng: &mut TestRng) -> bool {
    rng.next_u32() & 1 == 1
}

/// An object's members in input order.
type Members = Vec<(String, crate::json::Value)>;

/// A line that is one JSON object: its members in input order and its line break.
fn object_line(line: &[u8]) -> Option<(Members, &'static [u8])> {
    let (body, brk): (&[u8], &'static [u8]) = match line.strip_suffix(b"\n") {
        Some(b) => (b, b"\n"),
        None => (line, b""),
    };
    match crate::json::parse_bytes(body) {
        Ok(crate::json::Value::Object(m)) => Some((m, brk)),
        _ => None,
    }
}

/// The text of an object with `members` in this order (each value canonical), and `brk`.
fn write_object(members: &[(String, crate::json::Value)], brk: &[u8]) -> Vec<u8> {
    let text: Vec<String> = members
        .iter()
        .map(|(k, v)| {
            let key = crate::canonical::to_string(&crate::json::Value::String(k.clone()));
            format!("{key}:{}", crate::canonical::to_string(v))
        })
        .collect();
    [format!("{{{}}}", text.join(",")).as_bytes(), brk].concat()
}

/// Set member `key` of `members` (in place when present, appended otherwise), or remove
/// it when `v` is `None`.
fn set_member(
    members: &mut Vec<(String, crate::json::Value)>,
    key: &str,
    v: Option<crate::json::Value>,
) {
    let at = members.iter().position(|(k, _)| k == key);
    match (at, v) {
        (Some(i), Some(v)) => members[i].1 = v,
        (None, Some(v)) => members.push((key.to_owned(), v)),
        (Some(i), None) => {
            members.remove(i);
        }
        (None, None) => {}
    }
}

/// The lines of `input`, each with its line break (the last may have none).
fn lines(input: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = input
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    if out.is_empty() {
        out.push(Vec::new());
    }
    out
}

fn ensure_break(line: &mut Vec<u8>) {
    if line.last() != Some(&b'\n') {
        line.push(b'\n');
    }
}

/// Every start of a number token (a `-` or digit not inside a word or string-ish run).
fn number_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        if c == b'-' || c.is_ascii_digit() {
            let s = i;
            i += 1;
            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                i += 1;
            }
            out.push((s, i));
            continue;
        }
        i += 1;
    }
    out
}

/// The spans of string tokens' contents (between the quotes).
fn string_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let s = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push((s, i.min(b.len())));
        }
        i += 1;
    }
    out
}

/// Places where a value starts after a `:` (for retyping).
fn value_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, _) in b.iter().enumerate().filter(|(_, &c)| c == b':') {
        let s = i + 1;
        let mut e = s;
        match b.get(s) {
            Some(b'"') => {
                e += 1;
                while e < b.len() && b[e] != b'"' {
                    if b[e] == b'\\' {
                        e += 1;
                    }
                    e += 1;
                }
                e = (e + 1).min(b.len());
            }
            Some(b'{' | b'[') => continue,
            Some(_) => {
                while e < b.len() && !matches!(b[e], b',' | b'}' | b']') {
                    e += 1;
                }
            }
            None => continue,
        }
        out.push((s, e));
    }
    out
}

fn splice_at(b: &mut Vec<u8>, (s, e): (usize, usize), with: &[u8]) {
    b.splice(s..e, with.iter().copied());
}

/// The ids of `input` (string values of [`ID_KEYS`]), for respelling one as another.
fn ids(b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for key in ID_KEYS {
        let mut from = 0;
        while let Some(p) = find(&b[from..], key) {
            let s = from + p + key.len();
            if b.get(s) == Some(&b'"') {
                if let Some(len) = b[s + 1..].iter().position(|&c| c == b'"') {
                    out.push(b[s + 1..s + 1 + len].to_vec());
                }
            }
            from = s;
        }
    }
    out.sort();
    out.dedup();
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// One edit of `t` (its name from [`EDITS`]); `other` is a second kept input for
/// `splice`. The result may be the same as `t` (an edit with nothing to act on).
pub fn mutate(t: &Trial, other: &Trial, rng: &mut TestRng) -> (Trial, &'static str) {
    let which = below(rng, EDITS.len());
    let mut out = t.clone();
    out.planted.clear();
    out.label = None;
    let name = EDITS[which];
    let input = &mut out.input;
    match name {
        "drop-line" => {
            let mut ls = lines(input);
            if ls.len() > 1 {
                ls.remove(below(rng, ls.len()));
            }
            *input = ls.concat();
        }
        "repeat-line" => {
            let mut ls = lines(input);
            let i = below(rng, ls.len());
            let mut l = ls[i].clone();
            ensure_break(&mut l);
            ensure_break(&mut ls[i]);
            ls.insert(i + 1, l);
            *input = ls.concat();
        }
        "swap-lines" => {
            let mut ls = lines(input);
            if ls.len() > 1 {
                let (i, j) = (below(rng, ls.len()), below(rng, ls.len()));
                for k in [i, j] {
                    ensure_break(&mut ls[k]);
                }
                ls.swap(i, j);
            }
            *input = ls.concat();
        }
        "renumber" => {
            let key = b"\"sequence\":";
            let spots: Vec<usize> = input
                .windows(key.len())
                .enumerate()
                .filter(|(_, w)| *w == key)
                .map(|(i, _)| i + key.len())
                .collect();
            if !spots.is_empty() {
                let s = spots[below(rng, spots.len())];
                let e = s + input[s..]
                    .iter()
                    .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'.' | b'e' | b'E' | b'+'))
                    .unwrap_or(input.len() - s);
                let old: i64 = std::str::from_utf8(&input[s..e])
                    .ok()
                    .and_then(|x| x.parse().ok())
                    .unwrap_or(0);
                let new = match below(rng, 5) {
                    0 => old + 1,
                    1 => old - 1,
                    2 => 0,
                    3 => old + 2,
                    _ => i64::from(rng.next_u32() as u8),
                };
                splice_at(input, (s, e), new.to_string().as_bytes());
            }
        }
        "respell-id" => {
            let all = ids(input);
            let others = ids(&other.input);
            if let Some(old) = all.get(below(rng, all.len())).cloned() {
                let pool: Vec<Vec<u8>> = all.iter().chain(&others).cloned().collect();
                let new: Vec<u8> = match below(rng, 4) {
                    0 => Vec::new(),
                    1 => [old.as_slice(), b" "].concat(),
                    _ => pool[below(rng, pool.len())].clone(),
                };
                let needle = [b"\"", old.as_slice(), b"\""].concat();
                let hits: Vec<usize> = input
                    .windows(needle.len())
                    .enumerate()
                    .filter(|(_, w)| *w == needle.as_slice())
                    .map(|(i, _)| i)
                    .collect();
                if let Some(&p) = hits.get(below(rng, hits.len())) {
                    let with = [b"\"", new.as_slice(), b"\""].concat();
                    splice_at(input, (p, p + needle.len()), &with);
                }
            }
        }
        "odd-line" => {
            let mut ls = lines(input);
            let i = below(rng, ls.len() + 1);
            let mut l = ODD_LINES[below(rng, ODD_LINES.len())].to_vec();
            l.push(b'\n');
            if i > 0 {
                ensure_break(&mut ls[i - 1]);
            }
            ls.insert(i, l);
            *input = ls.concat();
        }
        "splice" => {
            let a = lines(input);
            let b = lines(&other.input);
            let cut_a = below(rng, a.len() + 1);
            let cut_b = below(rng, b.len() + 1);
            let mut head = a[..cut_a].concat();
            if !head.is_empty() {
                ensure_break(&mut head);
            }
            head.extend(b[cut_b..].concat());
            *input = head;
        }
        "respell-number" => {
            let spans = number_spans(input);
            if let Some(&sp) = spans.get(below(rng, spans.len())) {
                let n = NUMBERS[below(rng, NUMBERS.len())];
                splice_at(input, sp, n.as_bytes());
            }
        }
        "respell-string" => {
            let spans: Vec<(usize, usize)> = string_spans(input)
                .into_iter()
                .filter(|(s, e)| e > s)
                .collect();
            if let Some(&(s, e)) = spans.get(below(rng, spans.len())) {
                let i = s + below(rng, e - s);
                let c = input[i];
                if c.is_ascii_alphanumeric() {
                    let with = match below(rng, 3) {
                        0 => format!("\\u{:04x}", c).into_bytes(),
                        1 => format!("\\u{:04X}", c).into_bytes(),
                        _ => [&[c][..], "\u{301}".as_bytes()].concat(),
                    };
                    splice_at(input, (i, i + 1), &with);
                } else {
                    splice_at(input, (i, i), b"\\/");
                }
            }
        }
        "whitespace" => {
            let sp = SPACES[below(rng, SPACES.len())];
            let places: Vec<usize> = input
                .iter()
                .enumerate()
                .filter(|(_, &c)| matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b':' | b'\n'))
                .map(|(i, _)| i)
                .collect();
            let at = match places.get(below(rng, places.len())) {
                Some(&p) if coin(rng) => p,
                Some(&p) => p + 1,
                None => 0,
            };
            splice_at(input, (at, at), sp);
        }
        "retype-value" => {
            let spans = value_spans(input);
            if let Some(&sp) = spans.get(below(rng, spans.len())) {
                let v = VALUES[below(rng, VALUES.len())];
                splice_at(input, sp, v.as_bytes());
            }
        }
        "reorder-members" => {
            // A line that is one JSON object, its members rotated (values in canonical
            // text): member order must never matter, but a port that keys on position does.
            let mut ls = lines(input);
            let objects: Vec<usize> = (0..ls.len())
                .filter(|&i| ls[i].trim_ascii_start().first() == Some(&b'{'))
                .collect();
            if let Some(&i) = objects.get(below(rng, objects.len())) {
                if let Some((mut m, brk)) = object_line(&ls[i]) {
                    if m.len() > 1 {
                        let k = 1 + below(rng, m.len() - 1);
                        m.rotate_left(k);
                        ls[i] = write_object(&m, brk);
                        *input = ls.concat();
                    }
                }
            }
        }
        "stream-shape" => {
            // R-STREAM-1's shapes on one `model.response` line: a final that is not
            // `true` (or a delta made final mid-stream), an absent or empty
            // `accumulated`, an empty or absent `delta`, a `content` response in the
            // middle of a stream, or content taken away; or a line that becomes a
            // delta of the stream.
            use crate::json::{Number, Value};
            let mut ls = lines(input);
            let responses: Vec<usize> = (0..ls.len())
                .filter(|&i| {
                    object_line(&ls[i]).is_some_and(|(m, _)| {
                        m.iter()
                            .any(|(k, v)| k == "type" && v.as_str() == Some("model.response"))
                    })
                })
                .collect();
            let objects: Vec<usize> = (0..ls.len())
                .filter(|&i| object_line(&ls[i]).is_some())
                .collect();
            let pick = if responses.is_empty() || below(rng, 8) == 0 {
                objects.get(below(rng, objects.len())).copied()
            } else {
                responses.get(below(rng, responses.len())).copied()
            };
            if let Some(i) = pick {
                let (mut m, brk) = object_line(&ls[i]).expect("an object line");
                let mut payload = match m.iter().find(|(k, _)| k == "payload") {
                    Some((_, Value::Object(p))) => p.clone(),
                    _ => Vec::new(),
                };
                let text = |rng: &mut TestRng| Value::String(["", "x", "é"][below(rng, 3)].into());
                match below(rng, 7) {
                    0 => {
                        let finals = [
                            Some(Value::Bool(true)),
                            Some(Value::Bool(false)),
                            Some(Value::String("true".into())),
                            Some(Value::Number(Number::Int("1".into()))),
                            Some(Value::Null),
                            None,
                        ];
                        let f = finals[below(rng, finals.len())].clone();
                        set_member(&mut payload, "final", f);
                    }
                    1 => {
                        let v = coin(rng).then(|| text(rng));
                        set_member(&mut payload, "accumulated", v);
                    }
                    2 => {
                        let v = coin(rng).then(|| text(rng));
                        set_member(&mut payload, "delta", v);
                    }
                    3 => {
                        let v = if coin(rng) { text(rng) } else { Value::Null };
                        set_member(&mut payload, "content", Some(v));
                    }
                    4 => set_member(&mut payload, "content", None),
                    5 => {
                        // Another message of the stream (interleaved message ids).
                        let v = Value::String(["m1", "m2", ""][below(rng, 3)].into());
                        set_member(&mut payload, "message_id", Some(v));
                    }
                    _ => {
                        // The line becomes a streamed delta.
                        set_member(&mut m, "type", Some(Value::String("model.response".into())));
                        payload = vec![
                            ("delta".into(), text(rng)),
                            ("final".into(), Value::Bool(false)),
                        ];
                    }
                }
                set_member(&mut m, "payload", Some(Value::Object(payload)));
                ls[i] = write_object(&m, brk);
                *input = ls.concat();
            }
        }
        "move-argument" => {
            let events = input.iter().filter(|&&c| c == b'\n').count() as i64;
            let pick = |rng: &mut TestRng| match below(rng, 6) {
                0 => 0,
                1 => -1,
                2 => events,
                3 => events + 1,
                4 => i64::MAX,
                _ => 1,
            };
            match &mut out.op {
                Operation::Replay { until } | Operation::Fingerprint { until } => {
                    *until = if coin(rng) { None } else { Some(pick(rng)) };
                }
                Operation::Branch { at, branch_id } => {
                    if coin(rng) {
                        *at = pick(rng);
                    } else {
                        *branch_id = ["", " ", "b\u{0}", "é", "main"][below(rng, 5)].into();
                    }
                }
                _ => {}
            }
        }
        "flip-byte" => {
            if !input.is_empty() {
                let i = below(rng, input.len());
                input[i] ^= 1 << below(rng, 8);
            }
        }
        "insert-token" => {
            let at = below(rng, input.len() + 1);
            let tok = TOKENS[below(rng, TOKENS.len())];
            splice_at(input, (at, at), tok);
        }
        "delete-bytes" => {
            if !input.is_empty() {
                let s = below(rng, input.len());
                let e = (s + 1 + below(rng, 16)).min(input.len());
                input.drain(s..e);
            }
        }
        // libFuzzer's byte-level mutators (MutationDispatcher): shuffle a short run,
        // change an ASCII integer, copy a part over or into another place, cross over with
        // the second input.
        "shuffle-bytes" => {
            if input.len() > 1 {
                let s = below(rng, input.len() - 1);
                let e = (s + 2 + below(rng, 7)).min(input.len());
                for i in (s + 1..e).rev() {
                    let j = s + below(rng, i - s + 1);
                    input.swap(i, j);
                }
            }
        }
        "change-ascii-integer" => {
            let runs: Vec<(usize, usize)> = number_spans(input)
                .into_iter()
                .filter(|&(a, b)| input[a..b].iter().all(|c| c.is_ascii_digit() || *c == b'-'))
                .collect();
            if let Some(&(a, b)) = runs.get(below(rng, runs.len())) {
                let text = String::from_utf8_lossy(&input[a..b]).into_owned();
                let v: i128 = text.parse().unwrap_or(0);
                let w = match below(rng, 5) {
                    0 => v + 1,
                    1 => v - 1,
                    2 => v / 2,
                    3 => v.saturating_mul(2),
                    _ => i128::from(rng.next_u64()),
                };
                splice_at(input, (a, b), w.to_string().as_bytes());
            }
        }
        "copy-part" => {
            if !input.is_empty() {
                let s = below(rng, input.len());
                let e = (s + 1 + below(rng, 64)).min(input.len());
                let part = input[s..e].to_vec();
                let at = below(rng, input.len() + 1);
                if coin(rng) {
                    splice_at(input, (at, at), &part);
                } else {
                    let end = (at + part.len()).min(input.len());
                    splice_at(input, (at, end), &part);
                }
            }
        }
        "cross-over" => {
            // Byte-level, where `splice` cuts at lines: a run of the second input's bytes
            // at a byte offset of this one.
            let o = &other.input;
            if !o.is_empty() {
                let s = below(rng, o.len());
                let e = (s + 1 + below(rng, 128)).min(o.len());
                let at = below(rng, input.len() + 1);
                let end = (at + below(rng, e - s + 1)).min(input.len());
                splice_at(input, (at, end), &o[s..e]);
            }
        }
        _ => {
            // repeat-bytes
            if !input.is_empty() {
                let s = below(rng, input.len());
                let e = (s + 1 + below(rng, 32)).min(input.len());
                let chunk = input[s..e].to_vec();
                splice_at(input, (e, e), &chunk);
            }
        }
    }
    out.origin = format!("{} ({name})", short_origin(&t.origin));
    (out, name)
}

/// An origin without the chain of edits that led to it (kept to one edit's name).
fn short_origin(origin: &str) -> &str {
    origin.split(" (").next().unwrap_or(origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Profile;
    use proptest::test_runner::RngAlgorithm;

    fn trial(input: &[u8]) -> Trial {
        Trial::plain(
            input.to_vec(),
            Operation::Validate,
            Profile::Core,
            "t".into(),
        )
    }

    #[test]
    fn every_edit_is_reached_and_is_deterministic() {
        let t = trial(
            b"{\"sequence\":1,\"id\":\"a\",\"n\":2}\n{\"sequence\":2,\"parent_id\":\"a\"}\n\
              {\"type\":\"model.response\",\"payload\":{\"delta\":\"d\",\"final\":false}}\n",
        );
        let mut seen = std::collections::BTreeSet::new();
        let run = |seed: u8| {
            let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
            (0..400)
                .map(|_| {
                    let (m, name) = mutate(&t, &t, &mut rng);
                    (m.input, name)
                })
                .collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7), "the same generator gives the same edits");
        let mut changed = 0;
        for (m, name) in &a {
            seen.insert(*name);
            changed += usize::from(m != &t.input);
        }
        assert_eq!(seen.len(), EDITS.len(), "every edit is drawn: {seen:?}");
        // A rotation of members keeps every member: the same value, another order.
        let sorted = |b: &[u8]| -> Vec<crate::json::Value> {
            b.split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| crate::json::parse_bytes(l).unwrap())
                .collect()
        };
        let rotated: Vec<&Vec<u8>> = a
            .iter()
            .filter(|(m, n)| *n == "reorder-members" && m != &t.input)
            .map(|(m, _)| m)
            .collect();
        assert!(!rotated.is_empty());
        for m in rotated {
            let (x, y) = (sorted(m), sorted(&t.input));
            let canon = |v: &[crate::json::Value]| {
                v.iter()
                    .map(crate::canonical::to_string)
                    .collect::<Vec<_>>()
            };
            assert_eq!(canon(&x), canon(&y), "{}", String::from_utf8_lossy(m));
        }
        assert!(
            changed > 300,
            "most edits change the input: {changed} of 400"
        );
    }

    /// `stream-shape` reaches R-STREAM-1's shapes: the edited lines stay JSON objects, and
    /// the reference's `assistant_messages` of the edited journals take several values
    /// (a content mid-stream, a final that is no longer `true`, an accumulated dropped).
    #[test]
    fn stream_shapes_change_what_the_reducer_sees() {
        let journal = crate::golden::GOLDEN
            .iter()
            .find(|g| g.name == "s02-events-streaming")
            .expect("the streaming golden trace")
            .journal;
        let t = trial(journal);
        let messages = |input: &[u8]| {
            crate::replay::replay(input, crate::event::JournalProfile::Core, None)
                .ok()
                .map(|s| format!("{:?}", s.assistant_messages))
        };
        let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[3; 32]);
        let mut seen = std::collections::BTreeSet::new();
        let mut shaped = 0;
        for _ in 0..3000 {
            let (m, name) = mutate(&t, &t, &mut rng);
            if name != "stream-shape" {
                continue;
            }
            shaped += 1;
            for line in m.input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                assert!(
                    object_line(line).is_some(),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
            seen.insert(messages(&m.input));
        }
        assert!(shaped > 50, "{shaped}");
        assert!(seen.len() >= 5, "only {} outcomes: {seen:?}", seen.len());
    }

    #[test]
    fn number_and_string_spans_see_tokens_not_strings() {
        let b = br#"{"a":"1 2","b":-3.5e2,"c":[4]}"#;
        let nums: Vec<&[u8]> = number_spans(b).iter().map(|&(s, e)| &b[s..e]).collect();
        assert_eq!(nums, vec![&b"-3.5e2"[..], b"4"]);
        let strs: Vec<&[u8]> = string_spans(b).iter().map(|&(s, e)| &b[s..e]).collect();
        assert_eq!(strs, vec![&b"a"[..], b"1 2", b"b", b"c"]);
        assert_eq!(
            ids(br#"{"id":"e1","parent_id":"e0"}"#),
            vec![b"e0".to_vec(), b"e1".to_vec()]
        );
    }
}
