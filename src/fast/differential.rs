//! The fast path checked against the oracle: [`differences`] runs one input through
//! both (`journal`, `replay`, `branch` against this module's `validate`, `fingerprint`,
//! `replay`, `branch`), sequentially and with worker threads, and lists every
//! difference. `tests/fast_oracle.rs` runs it on the corpus and its mutations, the
//! `fast_oracle` fuzz target ([`differences_sampled`]) on everything it finds.

use super::{branch, fingerprint, replay, validate, Options};
use crate::canonical;
use crate::error::ReadError;
use crate::event::JournalProfile;

/// `data` with every `every`-th line (the first, then each `every` lines on) that is a JSON
/// text rewritten in canonical form by the oracle (`json::parse`, `canonical::to_string`),
/// the others as they are: inputs for the canonical-line fast path (`Tape::canonical`),
/// which takes only lines already in canonical form. Used by `tests/fast_oracle.rs`, the
/// `fast_oracle` fuzz target and the throughput benchmark (`JC_BENCH_CANONICAL`).
pub fn canonical_lines(data: &[u8], every: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for (i, line) in data.split(|b| *b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let value = std::str::from_utf8(line)
            .ok()
            .and_then(|t| crate::json::parse(t).ok());
        match value {
            Some(v) if i % every.max(1) == 0 => {
                out.extend_from_slice(canonical::to_string(&v).as_bytes())
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

/// Compare the fast path with the oracle on one input, for every operation it serves
/// (validate; fingerprint, replay and branch at the end, in the middle and out of
/// range), sequentially and with worker threads over tiny blocks. Returns one line per
/// difference (empty when they agree): results must be byte-identical, errors equal
/// in code, message, line, column, sequence, event id and excerpt.
///
/// Used by `tests/fast_oracle.rs`; the `fast_oracle` fuzz target uses
/// [`differences_sampled`].
pub fn differences(input: &[u8], profile: JournalProfile) -> Vec<String> {
    differences_in(input, profile, None)
}

/// [`differences`] with one of its `until` values and one of its branch points per
/// mode, chosen by `pick` (the fuzz target passes a hash of the input, so a run is
/// deterministic): a fifth of the calls, each of which starts worker threads in the
/// parallel mode, so the fuzz target runs about five times faster. Validate runs in
/// both modes every time.
pub fn differences_sampled(input: &[u8], profile: JournalProfile, pick: u64) -> Vec<String> {
    differences_in(input, profile, Some(pick))
}

/// All of `items`, or only the one at index `i`.
fn sample<T>(items: &[T], i: Option<u64>) -> &[T] {
    match i {
        None => items,
        Some(i) => std::slice::from_ref(&items[i as usize]),
    }
}

fn differences_in(input: &[u8], profile: JournalProfile, pick: Option<u64>) -> Vec<String> {
    fn outcome<T>(r: Result<T, ReadError>, show: impl Fn(T) -> String) -> Result<String, String> {
        match r {
            Ok(v) => Ok(show(v)),
            Err(ReadError::Invalid(e)) => Err(format!("{e:?}")),
            Err(ReadError::Io(e)) => Err(format!("io: {e}")),
        }
    }
    let lines = input.split(|&b| b == b'\n').count() as i64;
    let sequential = Options::new(profile).with_threads(0);
    // Two parsers (the calling thread and a worker) or three, by the input's length.
    let parallel = Options {
        threads: 2 + input.len() % 2,
        block_bytes: 1 + (input.len() as u64 % 97) as usize,
        ..Options::new(profile)
    };
    let mut diffs = Vec::new();
    let mut compare =
        |what: String, oracle: Result<String, String>, fast: Result<String, String>| {
            if oracle != fast {
                diffs.push(format!("{what}:\n  oracle {oracle:?}\n  fast   {fast:?}"));
            }
        };
    for (name, opts) in [("sequential", &sequential), ("parallel", &parallel)] {
        compare(
            format!("validate ({name})"),
            outcome(crate::journal::validate(input, profile), |n| n.to_string()),
            outcome(validate(input, opts), |n| n.to_string()),
        );
        let untils = [None, Some(0), Some(lines / 2), Some(lines + 1), Some(-1)];
        let untils = sample(&untils, pick.map(|p| p % 5));
        for &until in untils {
            compare(
                format!("fingerprint until {until:?} ({name})"),
                outcome(crate::replay::fingerprint(input, profile, until), |f| f),
                outcome(fingerprint(input, opts, until), |f| f),
            );
            compare(
                format!("replay until {until:?} ({name})"),
                outcome(crate::replay::replay(input, profile, until), |s| {
                    canonical::to_string(&s.to_json())
                }),
                outcome(replay(input, opts, until), |p| {
                    let mut text = Vec::new();
                    p.write_json(&mut text).expect("writing to memory");
                    String::from_utf8(text).expect("UTF-8")
                }),
            );
        }
        let points = [(lines / 2, "b1"), (0, " "), (lines + 1, "b2")];
        let points = sample(&points, pick.map(|p| p / 5 % 3));
        for &(at, id) in points {
            compare(
                format!("branch at {at} {id:?} ({name})"),
                outcome(crate::branch::branch(input, profile, at, id), |b| {
                    canonical::to_string(&b.to_json())
                }),
                outcome(branch(input, opts, at, id), |b| {
                    canonical::to_string(&b.to_json())
                }),
            );
        }
    }
    diffs
}

/// The fast path's speed contract, checked without a clock: one message per line (named
/// by its 1-based number) of `input`'s lines that the oracle reads as events (wire, JSON, envelope, profile,
/// `R-TYPE-1`: `oracle_line`) but the fast line path declines, and of those it takes as
/// not canonical although each is its own canonical text (`Tape::canonical` off where
/// `canonical::to_string(json::parse(line))` is the line). A declined line is answered
/// by the oracle, so a fast path that declines too much answers right, only slowly: the
/// corpus alone cannot see it. `tests/mutation_gate.rs` runs this over every journal
/// line of the corpus and the golden traces, each as written and canonicalised, so a
/// change that makes the fast path decline what it should take, or hash a canonical
/// line as if it were not, fails there (conformance/mutants/README.md, "The fast path").
pub fn not_taken(input: &[u8], profile: JournalProfile) -> Vec<String> {
    let mut worker = super::LineWorker::default();
    let mut found = Vec::new();
    for (i, bytes) in input.split(|b| *b == b'\n').enumerate() {
        let number = i as u64 + 1;
        let Ok(event) = super::oracle_line(number, bytes, profile) else {
            continue;
        };
        let mut block = super::Block::default();
        if worker
            .fast(bytes, &mut block, super::Mode::Replay, profile)
            .is_none()
        {
            found.push(format!("line {number}: declined, the oracle reads it"));
            continue;
        }
        if canonical::to_string(&event.value).as_bytes() == bytes && !worker.tape.canonical {
            found.push(format!(
                "line {number}: canonical text not taken as canonical"
            ));
        }
    }
    found
}
