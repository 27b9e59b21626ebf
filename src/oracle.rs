//! The reference as the oracle of YOUR fuzz target (issue 24): [`check`] asks an
//! [`Implementation`] and the in-process reference the same operations on the same bytes
//! and returns a [`Mismatch`] holding both answers when they differ.
//!
//! ```no_run
//! use journal_conformance::adapter::{Implementation, Reference};
//! # fn mine() -> Reference { Reference::default() }
//! let mut imp = mine(); // your Implementation (see `inprocess` and fuzz/template/)
//! // in a libFuzzer target: fuzz_target!(|data: &[u8]| { ... });
//! let data = b"{\"a\":1}\n";
//! if let Err(m) = journal_conformance::oracle::check(&mut imp, data) {
//!     panic!("{m}");
//! }
//! ```
//!
//! The operations asked are derived from the input alone ([`operations_for`]; the Python and
//! TypeScript harnesses derive the same ones), under each journal profile the
//! implementation's `info()` lists (`core`, `trace-0.1`). The answers are judged as the
//! differential phase judges them (SPEC.md 13.3, 13.6): the reference's answer is the
//! expectation and [`crate::verdict::judge`] decides, so results are equal JSON values
//! (member order ignored, integers and floats distinct) and errors have the same `code`,
//! and the same `line`, `sequence` and `index` wherever the reference gives them; messages
//! and columns are never compared. `Reply::Unsupported` skips the check; a
//! `Reply::Fault` is a mismatch. [`smoke`] runs the check over deterministic mutations of
//! seed inputs, for a stable-Rust `cargo test` next to the fuzz target. The template of a
//! cargo-fuzz target is fuzz/template/ (docs/fuzzing.md).

use std::fmt;

use crate::adapter::reference::reference_answer;
use crate::adapter::{Implementation, Reply};
use crate::ops::{Operation, Profile};
use crate::verdict::{judge, Answer, Expect};

/// FNV-1a, 32 bits: how the arguments are derived from the input.
pub fn fnv1a32(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

/// The operations asked for one input, in order: validate, replay, replay up to N,
/// fingerprint, fingerprint up to N, branch at N, canonical, tree_inspect, where
/// N = h % 6 - 1 (so -1, out of range, and 0..4) and the branch id is `fuzz` but for
/// (h >> 8) % 8 == 0 (`""`) and == 1 (`" \t"`), h = [`fnv1a32`] of the input.
/// `tree_apply` and `store_apply` take step lists, which bytes do not give: they are
/// fuzzed by `journal-conformance test --properties N`.
pub fn operations_for(data: &[u8]) -> Vec<Operation> {
    let h = fnv1a32(data);
    let n = i64::from(h % 6) - 1;
    let branch_id = match (h >> 8) % 8 {
        0 => "",
        1 => " \t",
        _ => "fuzz",
    };
    vec![
        Operation::Validate,
        Operation::Replay { until: None },
        Operation::Replay { until: Some(n) },
        Operation::Fingerprint { until: None },
        Operation::Fingerprint { until: Some(n) },
        Operation::Branch {
            at: n,
            branch_id: branch_id.to_owned(),
        },
        Operation::Canonical,
        Operation::TreeInspect,
    ]
}

/// One operation the implementation answered differently from the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub op: Operation,
    pub profile: Profile,
    pub input: Vec<u8>,
    /// The reference's answer.
    pub expected: Answer,
    /// The implementation's.
    pub actual: Reply,
    /// Why they differ ([`crate::verdict::Mismatch`]'s sentence, or the fault).
    pub why: String,
}

fn show_answer(a: &Answer) -> String {
    crate::error::shorten(crate::canonical::to_string(&a.to_json()).as_bytes(), 2000)
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = self.input.len().min(600);
        let more = if self.input.len() > cut {
            format!("... ({} bytes)", self.input.len())
        } else {
            String::new()
        };
        let actual = match &self.actual {
            Reply::Answer(a) => show_answer(a),
            Reply::Unsupported => "unsupported".into(),
            Reply::Fault(e) => format!("fault: {e}"),
        };
        write!(
            f,
            "{} (profile {}): {}\n  input:     \"{}\"{more}\n  reference: {}\n  yours:     {actual}",
            crate::canonical::to_string(&self.op.to_json()),
            self.profile.as_str(),
            self.why,
            self.input[..cut].escape_ascii(),
            show_answer(&self.expected),
        )
    }
}

impl std::error::Error for Mismatch {}

/// What [`check`] compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub compared: usize,
    pub skipped: usize,
}

/// Compare `imp` with the reference on every operation of [`operations_for`]`(data)` that
/// `imp` offers, under each journal profile it lists; the first difference is the error.
pub fn check(imp: &mut dyn Implementation, data: &[u8]) -> Result<Checked, Box<Mismatch>> {
    let info = imp.info().clone();
    let mut done = Checked::default();
    for profile in [Profile::Core, Profile::Trace01] {
        if !info.profiles.iter().any(|p| p == profile.as_str()) {
            continue;
        }
        for op in operations_for(data) {
            if !info.offers(op.kind()) {
                continue;
            }
            let expected = reference_answer(&op, profile, data)
                .unwrap_or_else(|e| panic!("the reference could not answer {}: {e}", op.name()));
            let actual = imp.run(&op, profile, data);
            let why = match &actual {
                Reply::Unsupported => {
                    done.skipped += 1;
                    continue;
                }
                Reply::Fault(e) => Some(format!("the implementation faulted: {e}")),
                Reply::Answer(a) => judge(&Expect::of_answer(&expected), a).map(|m| m.to_string()),
            };
            done.compared += 1;
            if let Some(why) = why {
                return Err(Box::new(Mismatch {
                    op,
                    profile,
                    input: data.to_vec(),
                    expected,
                    actual,
                    why,
                }));
            }
        }
    }
    Ok(done)
}

/// SplitMix64: the deterministic generator of [`mutations`].
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Tokens the mutations insert: JSON and wire corner cases of SPEC.md 2 and 3.
pub const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\n",
    b"\r",
    b"\t",
    b" ",
    b"\x0c",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\\u0000",
    b"\\ud800",
    b"NaN",
    b"Infinity",
    b"1e400",
    b"1.0",
    b"-0",
    b"null",
    b"true",
    b"\"a\":1,\"a\":2",
    b"\"sequence\":",
    b"\"event_id\":",
    b"[[[[[[[[[[[[[[[[",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"9007199254740993",
];

/// One to four stacked mutations of `data` (bit flips, inserted and deleted bytes, tokens,
/// duplicated, dropped and swapped lines).
fn mutate(data: &[u8], rng: &mut Rng, max_len: usize) -> Vec<u8> {
    let mut b = data.to_vec();
    for _ in 0..1 + rng.below(4) {
        let pos = rng.below(b.len() + 1);
        match rng.below(7) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 => b.insert(pos, rng.next() as u8),
            2 if !b.is_empty() => {
                let end = (pos + 1 + rng.below(16)).min(b.len());
                b.drain(pos.min(end)..end);
            }
            3 | 4 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                b.splice(pos..pos, t.iter().copied());
            }
            5 => {
                let mut lines: Vec<Vec<u8>> =
                    b.split(|c| *c == b'\n').map(<[u8]>::to_vec).collect();
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                match rng.below(3) {
                    0 => {
                        let l = lines[i].clone();
                        lines.insert(j, l);
                    }
                    1 if lines.len() > 1 => {
                        lines.remove(i);
                    }
                    _ => lines.swap(i, j),
                }
                b = lines.join(&b'\n');
            }
            _ if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = b"\x00\t\n\r \"\\{}[]:,01-.eE\x7f\x80\xff"[rng.below(22)];
            }
            _ => {}
        }
    }
    b.truncate(max_len);
    b
}

/// `n` inputs drawn deterministically from `seed`: mutations (of inputs of at most
/// `max_len` bytes) of the `seeds`, each chosen at random.
pub fn mutations(seeds: &[Vec<u8>], n: usize, seed: u64, max_len: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    let fallback = [Vec::new()];
    let pool = if seeds.is_empty() {
        &fallback[..]
    } else {
        seeds
    };
    (0..n)
        .map(|_| mutate(&pool[rng.below(pool.len())], &mut rng, max_len))
        .collect()
}

/// [`check`] on every seed, then on `runs` [`mutations`] of them from `seed` (4 KiB at
/// most): what a stable-Rust `cargo test` runs beside the fuzz target. The number of inputs
/// checked, or the first mismatch.
pub fn smoke(
    imp: &mut dyn Implementation,
    seeds: &[Vec<u8>],
    runs: usize,
    seed: u64,
) -> Result<usize, Box<Mismatch>> {
    let mut n = 0;
    for data in seeds
        .iter()
        .cloned()
        .chain(mutations(seeds, runs, seed, 4096))
    {
        check(imp, &data)?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::Reference;

    #[test]
    fn the_derivation_is_the_other_harnesses() {
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(operations_for(b"abc").len(), 8);
        assert_eq!(
            mutations(&[b"x\ny".to_vec()], 20, 5, 64),
            mutations(&[b"x\ny".to_vec()], 20, 5, 64)
        );
    }

    #[test]
    fn the_reference_agrees_with_itself() {
        let mut r = Reference::default();
        let seeds = vec![b"{\"a\":1}".to_vec(), b"\n".to_vec()];
        assert_eq!(smoke(&mut r, &seeds, 50, 1).unwrap(), 52);
    }
}
