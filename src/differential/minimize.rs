//! Shrinking toward one canonical minimal input (SPEC.md 13.6 `D-SHRINK-1`, 13.7
//! `FZ-SHRINK-1`), after proptest's shrinking of a generated trial and for the inputs
//! no proptest value tree produced (a campaign's mutated ones): delta debugging over
//! lines, then over bytes, then toward one canonical spelling (each line that is a JSON text replaced by
//! its canonical text; `until` and `at` moved toward the smallest value), keeping the
//! finding's kind at every step. Deterministic: the same input and kind shrink to the
//! same result, so two findings of one decision tend to meet at one input.

use crate::differential::Trial;
use crate::ops::Operation;

/// How much a shrink may ask of the implementation.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub calls: u32,
    pub time: std::time::Duration,
}

struct Search<'a> {
    keeps: &'a mut dyn FnMut(&Trial) -> bool,
    calls: u32,
    budget: Budget,
    start: std::time::Instant,
}

impl Search<'_> {
    fn spent(&self) -> bool {
        self.calls >= self.budget.calls || self.start.elapsed() >= self.budget.time
    }

    fn try_(&mut self, t: &Trial) -> bool {
        if self.spent() {
            return false;
        }
        self.calls += 1;
        (self.keeps)(t)
    }
}

fn with_input(t: &Trial, input: Vec<u8>) -> Trial {
    let mut out = t.clone();
    out.input = input;
    out
}

/// Remove chunks of `units` (halving the chunk size down to one) while the kind holds.
fn ddmin(s: &mut Search, t: &mut Trial, split: fn(&[u8]) -> Vec<Vec<u8>>) {
    let mut units = split(&t.input);
    let mut size = units.len().div_ceil(2).max(1);
    loop {
        let mut i = 0;
        while i < units.len() && !s.spent() {
            let end = (i + size).min(units.len());
            let candidate: Vec<u8> = units[..i]
                .concat()
                .into_iter()
                .chain(units[end..].concat())
                .collect();
            let c = with_input(t, candidate);
            if c.input.len() < t.input.len() && s.try_(&c) {
                *t = c;
                units.drain(i..end);
            } else {
                i += size;
            }
        }
        if size == 1 || s.spent() {
            return;
        }
        size = size.div_ceil(2);
    }
}

fn split_lines(b: &[u8]) -> Vec<Vec<u8>> {
    b.split_inclusive(|&c| c == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn split_bytes(b: &[u8]) -> Vec<Vec<u8>> {
    b.iter().map(|&c| vec![c]).collect()
}

/// Each line that parses as JSON, in its canonical text (line break kept).
fn canonical_lines(s: &mut Search, t: &mut Trial) {
    let lines = split_lines(&t.input);
    for i in 0..lines.len() {
        let cur = split_lines(&t.input);
        let Some(line) = cur.get(i) else { return };
        let (body, brk) = match line.strip_suffix(b"\n") {
            Some(b) => (b, &b"\n"[..]),
            None => (&line[..], &b""[..]),
        };
        let Ok(v) = crate::json::parse_bytes(body) else {
            continue;
        };
        let canon = crate::canonical::to_string(&v);
        if canon.as_bytes() == body {
            continue;
        }
        let mut next = cur.clone();
        next[i] = [canon.as_bytes(), brk].concat();
        let c = with_input(t, next.concat());
        if s.try_(&c) {
            *t = c;
        }
    }
}

/// `until` and `at` toward the smallest value that keeps the kind.
fn smaller_arguments(s: &mut Search, t: &mut Trial) {
    let tries: Vec<Operation> = match &t.op {
        Operation::Replay { until: Some(u) } => vec![
            Operation::Replay { until: None },
            Operation::Replay { until: Some(0) },
            Operation::Replay { until: Some(u / 2) },
        ],
        Operation::Fingerprint { until: Some(u) } => vec![
            Operation::Fingerprint { until: None },
            Operation::Fingerprint { until: Some(0) },
            Operation::Fingerprint { until: Some(u / 2) },
        ],
        Operation::Branch { at, branch_id } if *at != 0 => vec![
            Operation::Branch {
                at: 0,
                branch_id: branch_id.clone(),
            },
            Operation::Branch {
                at: at / 2,
                branch_id: branch_id.clone(),
            },
        ],
        _ => vec![],
    };
    for op in tries {
        let mut c = t.clone();
        c.op = op;
        if c.op != t.op && s.try_(&c) {
            *t = c;
            return;
        }
    }
}

/// The smallest input found that `keeps` (the kind still holds), within `budget`;
/// `t` itself when nothing smaller keeps it. Also returns the calls made.
pub fn minimize(t: &Trial, keeps: &mut dyn FnMut(&Trial) -> bool, budget: Budget) -> (Trial, u32) {
    let mut s = Search {
        keeps,
        calls: 0,
        budget,
        start: std::time::Instant::now(),
    };
    let mut best = t.clone();
    smaller_arguments(&mut s, &mut best);
    ddmin(&mut s, &mut best, split_lines);
    if best.input.len() <= 4096 {
        ddmin(&mut s, &mut best, split_bytes);
    }
    canonical_lines(&mut s, &mut best);
    (best, s.calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Profile;

    fn budget() -> Budget {
        Budget {
            calls: 10_000,
            time: std::time::Duration::from_secs(60),
        }
    }

    #[test]
    fn shrinks_to_the_one_line_and_byte_that_matter() {
        let t = Trial::plain(
            b"{\"a\": 1}\n{\"b\":2}\n\x0c\n{\"c\":3}\n".to_vec(),
            Operation::Validate,
            Profile::Core,
            "t".into(),
        );
        let (m, calls) = minimize(&t, &mut |c: &Trial| c.input.contains(&0x0c), budget());
        assert_eq!(m.input, b"\x0c");
        assert!(calls > 0);
    }

    #[test]
    fn canonical_spelling_and_small_arguments_when_they_keep_the_kind() {
        let t = Trial::plain(
            b"{ \"b\" : 1 , \"a\":2}\n".to_vec(),
            Operation::Replay { until: Some(9) },
            Profile::Core,
            "t".into(),
        );
        // The kind needs one object with members a and b (any spelling) and any `until`.
        let mut keeps = |c: &Trial| {
            crate::json::parse_bytes(c.input.strip_suffix(b"\n").unwrap_or(&c.input)).is_ok_and(
                |v| {
                    matches!(&v, crate::json::Value::Object(m)
                        if m.iter().any(|(k, _)| k == "a") && m.iter().any(|(k, _)| k == "b"))
                },
            )
        };
        let (m, _) = minimize(&t, &mut keeps, budget());
        assert_eq!(m.op, Operation::Replay { until: None });
        assert_eq!(m.input, b"{\"a\":2,\"b\":1}");
    }

    #[test]
    fn the_budget_bounds_the_calls() {
        let t = Trial::plain(
            vec![b'x'; 500],
            Operation::Canonical,
            Profile::Core,
            "t".into(),
        );
        let b = Budget {
            calls: 7,
            time: std::time::Duration::from_secs(60),
        };
        let (_, calls) = minimize(&t, &mut |_| false, b);
        assert_eq!(calls, 7);
    }
}
