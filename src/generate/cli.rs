//! `journal-conformance generate`: write generated journals and their vector sidecars.
//!
//! Every journal `<kind>-<n>.jsonl` gets a sidecar `<kind>-<n>.json` in vector format
//! v1 with the expected result (valid kinds) or error (defect kinds). Journal `n` is
//! drawn from a ChaCha generator seeded with a SHA-256 of the kit's generator version,
//! the kind, the seed and `n`, so the same arguments give the same bytes (for one
//! version of the kit). Files are written atomically: a temporary file in the same
//! directory, then a rename.

use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use sha2::{Digest, Sha256};

use crate::canonical;
use crate::event::JournalProfile;

use super::malformed::{Defect, MalformedJournal};
use super::recipe::GenConfig;
use super::strategies;
use super::valid::GeneratedJournal;
use super::vector;

/// Arguments of `generate`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct GenerateArgs {
    /// `valid`, a defect name (e.g. `sequence-gap`; `--kind list` prints them all and
    /// needs no `--out`), or `mixed` (several defects, labelled by the precedence rule).
    #[cfg_attr(feature = "cli", arg(long, default_value = "valid"))]
    pub kind: String,
    /// How many journals to write.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10))]
    pub count: usize,
    /// Seed; the same seed gives the same bytes.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0))]
    pub seed: u64,
    /// Events per journal, `MIN..MAX` with both ends inclusive (or one number).
    #[cfg_attr(feature = "cli", arg(long, default_value = "1..20", value_parser = parse_events))]
    pub events: EventRange,
    /// Envelope profile of the generated journals (`profile-violation` forces
    /// `trace-0.1`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "core"))]
    pub profile: JournalProfile,
    /// Output directory (created if missing); required unless `--kind list`.
    #[cfg_attr(feature = "cli", arg(long))]
    pub out: Option<PathBuf>,
}

/// An inclusive range of event counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRange {
    pub min: usize,
    pub max: usize,
}

/// Largest `--count` and `--events` maximum accepted.
pub const MAX_COUNT: usize = 100_000;
pub const MAX_EVENTS: usize = 10_000;

/// A `--events` range that is not one (clap shows the text; a usage error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventRangeError {
    #[error("{0:?} is not a number of events")]
    NotANumber(String),
    #[error("a journal needs at least 1 event (use --kind empty-journal for none)")]
    NoEvents,
    #[error("empty range {0:?}: MIN is larger than MAX")]
    Empty(String),
    #[error("at most {MAX_EVENTS} events per journal")]
    TooMany,
}

/// Why `generate` wrote nothing more (a usage or I/O error, exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("unknown kind {0:?}; expected one of: {kinds}", kinds = kinds().join(", "))]
    UnknownKind(String),
    #[error("at most {MAX_COUNT} journals per run")]
    TooManyJournals,
    #[error("bad --events range {}..{}", .0.min, .0.max)]
    BadRange(EventRange),
    #[error("--out DIR is required (only `--kind list` needs none)")]
    NoOut,
    #[error("creating {}: {error}", .path.display())]
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("writing {}: {error}", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The strategy could not draw a journal (proptest's reason).
    #[error("generator rejected its input: {0}")]
    Rejected(String),
}

/// Parse `MIN..MAX`, `MIN..=MAX` or `N`.
pub fn parse_events(s: &str) -> Result<EventRange, EventRangeError> {
    let num = |t: &str| -> Result<usize, EventRangeError> {
        t.trim()
            .parse::<usize>()
            .map_err(|_| EventRangeError::NotANumber(t.to_owned()))
    };
    let (min, max) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let n = num(s)?;
            (n, n)
        }
    };
    if min == 0 {
        return Err(EventRangeError::NoEvents);
    }
    if min > max {
        return Err(EventRangeError::Empty(s.to_owned()));
    }
    if max > MAX_EVENTS {
        return Err(EventRangeError::TooMany);
    }
    Ok(EventRange { min, max })
}

/// What `generate` wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenerateSummary {
    /// `(journal, sidecar)` paths, in order.
    pub files: Vec<(PathBuf, PathBuf)>,
}

/// Every accepted `--kind`.
pub fn kinds() -> Vec<&'static str> {
    let mut k = vec!["valid"];
    k.extend(Defect::all().iter().map(|d| d.name()));
    k.push("mixed");
    k
}

enum Kind {
    Valid,
    Defect(Defect),
    Mixed,
}

fn parse_kind(s: &str) -> Result<Kind, GenerateError> {
    match s {
        "valid" => Ok(Kind::Valid),
        "mixed" => Ok(Kind::Mixed),
        other => Defect::from_name(other)
            .map(Kind::Defect)
            .ok_or_else(|| GenerateError::UnknownKind(other.to_owned())),
    }
}

/// The generator for journal `n` of `kind` under `seed`.
pub fn rng_for(kind: &str, seed: u64, n: usize) -> TestRng {
    let digest = Sha256::digest(format!("journal-conformance/generate/v1/{kind}/{seed}/{n}"));
    TestRng::from_seed(RngAlgorithm::ChaCha, &digest)
}

fn draw<S: Strategy>(strategy: &S, rng: TestRng) -> Result<S::Value, GenerateError> {
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    strategy
        .new_tree(&mut runner)
        .map(|t| t.current())
        .map_err(|e| GenerateError::Rejected(e.to_string()))
}

/// Write `bytes` to `path` atomically (see [`crate::fsutil::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), GenerateError> {
    crate::fsutil::write_atomic(path, bytes).map_err(|error| GenerateError::Write {
        path: path.to_owned(),
        error,
    })
}

/// Generate `args.count` journals of `args.kind` into `args.out`.
pub fn run(args: &GenerateArgs) -> Result<GenerateSummary, GenerateError> {
    run_with_progress(args, &mut |_, _| {})
}

/// [`run`], calling `progress(n, count)` before journal `n` is drawn.
pub fn run_with_progress(
    args: &GenerateArgs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GenerateSummary, GenerateError> {
    let kind = parse_kind(&args.kind)?;
    if args.count > MAX_COUNT {
        return Err(GenerateError::TooManyJournals);
    }
    let range = args.events;
    if range.min == 0 || range.min > range.max || range.max > MAX_EVENTS {
        return Err(GenerateError::BadRange(range));
    }
    let out = args.out.as_ref().ok_or(GenerateError::NoOut)?;
    std::fs::create_dir_all(out).map_err(|error| GenerateError::CreateDir {
        path: out.clone(),
        error,
    })?;
    let cfg = GenConfig {
        events: range.min..=range.max,
        profile: args.profile,
        ..GenConfig::default()
    };
    let valid = strategies::valid_journal(&cfg);
    let mixed = strategies::combined_malformed_journal(&cfg, 4);
    let single = match kind {
        Kind::Defect(d) => Some(strategies::malformed_journal(d, &cfg)),
        _ => None,
    };
    let mut summary = GenerateSummary::default();
    for n in 0..args.count {
        progress(n, args.count);
        let stem = format!("{}-{n}", args.kind);
        let input_file = format!("{stem}.jsonl");
        let rng = rng_for(&args.kind, args.seed, n);
        let (bytes, case) = match &kind {
            Kind::Valid => {
                let j: GeneratedJournal = draw(&valid, rng)?;
                let pick = u64::from_le_bytes(
                    Sha256::digest(j.bytes())[..8]
                        .try_into()
                        .expect("eight bytes"),
                );
                let case = vector::valid_case(&stem, &j, &input_file, pick);
                (j.bytes(), case)
            }
            Kind::Defect(_) | Kind::Mixed => {
                let strategy = single.as_ref().unwrap_or(&mixed);
                let m: MalformedJournal = draw(strategy, rng)?;
                let case = vector::malformed_case(&stem, &m, &input_file);
                (m.bytes, case)
            }
        };
        let journal_path = out.join(&input_file);
        let sidecar_path = out.join(format!("{stem}.json"));
        write_atomic(&journal_path, &bytes)?;
        let mut doc = canonical::to_string(&vector::document(vec![case]));
        doc.push('\n');
        write_atomic(&sidecar_path, doc.as_bytes())?;
        summary.files.push((journal_path, sidecar_path));
    }
    Ok(summary)
}
