//! The verdict of a run and the files that carry it (SPEC.md 13.3 and 13.5): the
//! JSON-lines report (a [`Header`], one [`CaseRecord`] per case, a [`Footer`]), the
//! closing line, [`junit`] XML, and [`summary`] (several reports side by side, the shards
//! of one run merged). All of them count the same records, and [`status`] is the one
//! place the exit status of a run is decided (`X-EXIT-1`).
//!
//! The writer, `summary` and the results page share these types: a report is read back
//! with [`read`] into the records it was written from.

pub mod junit;
pub mod summary;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::adapter::ImplInfo;
use crate::canonical;
use crate::json::{self, Value};
use crate::record::{CaseRecord, Counts, Outcome, RecordError};

/// What the properties phase did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PropertiesSummary {
    /// Generated cases asked for.
    pub cases: u64,
    /// Generated cases actually compared with the reference.
    pub compared: u64,
    /// Disagreements found (each a failed case), and known ones (skip list rules).
    pub disagreeing: u64,
    pub kinds: u64,
    pub known: u64,
    /// Why the phase compared nothing, when it did not.
    pub skipped: Option<String>,
}

impl PropertiesSummary {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("cases", Value::from_u64(self.cases)),
            ("compared", Value::from_u64(self.compared)),
            ("disagreeing", Value::from_u64(self.disagreeing)),
            ("kinds", Value::from_u64(self.kinds)),
            ("known", Value::from_u64(self.known)),
            (
                "skipped",
                self.skipped.as_deref().map_or(Value::Null, Value::from),
            ),
        ])
    }

    pub fn from_json(v: &Value) -> Option<PropertiesSummary> {
        let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0).max(0) as u64;
        v.as_object()?;
        Some(PropertiesSummary {
            cases: n("cases"),
            compared: n("compared"),
            disagreeing: n("disagreeing"),
            kinds: n("kinds"),
            known: n("known"),
            skipped: v.get("skipped").and_then(Value::as_str).map(str::to_owned),
        })
    }

    /// Add another shard's phase to this one.
    pub fn merge(&mut self, o: &PropertiesSummary) {
        self.cases += o.cases;
        self.compared += o.compared;
        self.disagreeing += o.disagreeing;
        self.kinds += o.kinds;
        self.known += o.known;
        if self.skipped.is_none() {
            self.skipped.clone_from(&o.skipped);
        }
    }
}

/// A run's exit status (X-EXIT-1) and its one-word name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    pub code: i32,
    pub word: &'static str,
}

/// The verdict of a run:
/// - 2 `EMPTY`: the selection holds no case (and no properties phase);
/// - 1 `FAILED`: a case failed or errored (a differential disagreement is a case);
/// - 1 `NOTHING CHECKED`: no case passed and no generated case was compared;
/// - 0 `ok` otherwise.
pub fn status(counts: Counts, properties: Option<&PropertiesSummary>) -> Status {
    let compared = properties.map_or(0, |p| p.compared);
    let (code, word) = if counts.total() == 0 && properties.is_none() {
        (2, "EMPTY")
    } else if counts.failed + counts.errored > 0 {
        (1, "FAILED")
    } else if counts.passed == 0 && compared == 0 {
        (1, "NOTHING CHECKED")
    } else {
        (0, "ok")
    };
    Status { code, word }
}

/// Why skipped cases were skipped, aggregated: `"563 operations not offered: replay,
/// tree_apply; 39 skip list"`.
pub fn skip_reasons<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> String {
    let mut ops: Vec<String> = Vec::new();
    let mut by: BTreeMap<&str, u64> = BTreeMap::new();
    for r in records
        .into_iter()
        .filter(|r| r.outcome == Outcome::Skipped)
    {
        let kind = if r.message.starts_with("skip list") {
            "skip list"
        } else if r.message.starts_with("implementation-defined") {
            "implementation-defined"
        } else if r
            .checks
            .iter()
            .any(|c| c.message.starts_with("operation not offered"))
        {
            for c in &r.checks {
                if let Some(op) = c.message.strip_prefix("operation not offered: ") {
                    if !ops.iter().any(|o| o == op) {
                        ops.push(op.to_owned());
                    }
                }
            }
            "operations not offered"
        } else if r
            .checks
            .iter()
            .any(|c| c.message.starts_with("profile not offered"))
        {
            "profile not offered"
        } else if r.message.starts_with("known disagreement") {
            "known disagreements"
        } else {
            "the adapter answered unsupported"
        };
        *by.entry(kind).or_default() += 1;
    }
    ops.sort();
    by.iter()
        .map(|(k, n)| {
            if *k == "operations not offered" {
                format!("{n} operations not offered: {}", ops.join(", "))
            } else {
                format!("{n} {k}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The closing line: the verdict and honest coverage.
/// With `errors` the run has no verdict: the word is INCOMPLETE and the line says how
/// many things could not be done.
///
/// The fixed cases and the differential phase are counted apart, so that the first
/// number is the opening line's "N cases selected": `checked C of N cases selected: P
/// passed, F failed, E errored; S skipped (...)`, then the phase's generated cases
/// (how many were compared, how many of them disagreed: occurrences) and the kinds those
/// disagreements were grouped into (each a case `properties/<op>/<hash>`: failed, or
/// known from the skip list).
pub fn closing_line(
    implementation: &str,
    records: &[CaseRecord],
    properties: Option<&PropertiesSummary>,
    elapsed: Duration,
    errors: &[String],
) -> String {
    let all = Counts::of(records);
    let word = if errors.is_empty() {
        status(all, properties).word
    } else {
        "INCOMPLETE"
    };
    let (generated, fixed): (Vec<&CaseRecord>, Vec<&CaseRecord>) =
        records.iter().partition(|r| r.is_differential());
    let (shapes, fixed): (Vec<&CaseRecord>, Vec<&CaseRecord>) =
        fixed.into_iter().partition(|r| r.is_scale());
    let c = Counts::of(fixed.iter().copied());
    let checked = c.passed + c.failed + c.errored;
    let mut s = format!(
        "conformance {word} for {implementation}: checked {checked} of {} cases selected: {} passed, {} failed, {} errored",
        c.total(),
        c.passed,
        c.failed,
        c.errored
    );
    if c.skipped > 0 {
        s.push_str(&format!(
            "; {} skipped ({})",
            c.skipped,
            skip_reasons(fixed.iter().copied())
        ));
    }
    let kinds = generated
        .iter()
        .filter(|r| r.differential_op().is_some())
        .count();
    let faults = generated.len() - kinds;
    let kind_counts = Counts::of(
        generated
            .iter()
            .copied()
            .filter(|r| r.differential_op().is_some()),
    );
    match properties {
        Some(p) => match &p.skipped {
            Some(why) => s.push_str(&format!("; properties skipped: {why}")),
            None => s.push_str(&format!(
                "; properties: {} generated cases compared, {} of them disagreed, in {kinds} kind(s) ({} failed, {} known)",
                p.compared,
                p.disagreeing,
                kind_counts.failed + kind_counts.errored,
                kind_counts.skipped
            )),
        },
        // Records without a phase summary (a merged or older report).
        None if kinds > 0 => s.push_str(&format!(
            "; properties: {kinds} kind(s) ({} failed, {} known)",
            kind_counts.failed + kind_counts.errored,
            kind_counts.skipped
        )),
        None => {}
    }
    if faults > 0 {
        s.push_str(&format!(
            "; {faults} case of adapter faults in the properties phase"
        ));
    }
    if !shapes.is_empty() {
        let sc = Counts::of(shapes.iter().copied());
        s.push_str(&format!(
            "; scale: {} shape(s), {} measured, {} finding(s)",
            sc.total(),
            sc.passed + sc.failed,
            sc.failed
        ));
    }
    if !errors.is_empty() {
        s.push_str(&format!(
            "; {} error(s), no verdict: {}",
            errors.len(),
            errors.join("; ")
        ));
    }
    s.push_str(&format!(" ({:.2} s)", elapsed.as_secs_f64()));
    s
}

/// What makes the shards of one run one run: `summary` merges shards only when all of
/// these agree (SPEC.md 13.5, X-VERDICT-1).
#[derive(Clone, Debug, PartialEq)]
pub struct RunIdentity {
    /// `sha256:` of the loaded corpus (every case, golden traces included).
    pub corpus: String,
    /// Cases in the loaded corpus (before selection).
    pub corpus_cases: u64,
    /// FILTERs, `--exact`, `--skip`, `--rule`, `--tag`, `--level`.
    pub selection: Value,
    /// `sha256:` of the skip list's entries, `None` without one.
    pub skip_list: Option<String>,
    /// Generated cases asked for (`--properties`) and the seed.
    pub properties: u64,
    pub seed: u64,
}

/// The report's first line: what ran, against what.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// `journal-conformance 0.1.0`.
    pub kit: String,
    pub implementation: ImplInfo,
    /// Cases selected (in this shard).
    pub cases: u64,
    /// `count:K/N` or `hash:K/N` for one shard.
    pub partition: Option<String>,
    pub run: RunIdentity,
}

impl Header {
    /// The header of a run of this kit.
    pub fn new(
        implementation: ImplInfo,
        cases: usize,
        partition: Option<String>,
        run: RunIdentity,
    ) -> Header {
        Header {
            kit: concat!("journal-conformance ", env!("CARGO_PKG_VERSION")).into(),
            implementation,
            cases: cases as u64,
            partition,
            run,
        }
    }

    pub fn to_json(&self) -> Value {
        let r = &self.run;
        Value::object([
            ("type", Value::from("header")),
            ("kit", Value::from(self.kit.as_str())),
            ("implementation", self.implementation.to_json()),
            ("cases", Value::from_u64(self.cases)),
            (
                "partition",
                self.partition.as_deref().map_or(Value::Null, Value::from),
            ),
            (
                "corpus",
                Value::object([
                    ("digest", Value::from(r.corpus.as_str())),
                    ("cases", Value::from_u64(r.corpus_cases)),
                ]),
            ),
            ("selection", r.selection.clone()),
            (
                "skip_list",
                r.skip_list.as_deref().map_or(Value::Null, Value::from),
            ),
            (
                "properties",
                Value::object([
                    ("cases", Value::from_u64(r.properties)),
                    ("seed", Value::from_u64(r.seed)),
                ]),
            ),
        ])
    }

    /// A header read back; what is missing reads as empty.
    pub fn from_json(v: &Value) -> Header {
        let s = |v: Option<&Value>, k: &str| {
            v.and_then(|v| v.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let n = |v: Option<&Value>, k: &str| {
            v.and_then(|v| v.get(k))
                .and_then(Value::as_i64)
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(0)
        };
        let imp = v.get("implementation");
        let list = |k: &str| {
            imp.and_then(|i| i.get(k))
                .and_then(Value::as_array)
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        let (corpus, props) = (v.get("corpus"), v.get("properties"));
        Header {
            kit: s(Some(v), "kit"),
            implementation: ImplInfo {
                name: s(imp, "name"),
                version: s(imp, "version"),
                language: s(imp, "language"),
                operations: list("operations"),
                profiles: list("profiles"),
            },
            cases: n(Some(v), "cases"),
            partition: v
                .get("partition")
                .and_then(Value::as_str)
                .map(str::to_owned),
            run: RunIdentity {
                corpus: s(corpus, "digest"),
                corpus_cases: n(corpus, "cases"),
                selection: v.get("selection").cloned().unwrap_or(Value::Null),
                skip_list: v
                    .get("skip_list")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                properties: n(props, "cases"),
                seed: n(props, "seed"),
            },
        }
    }
}

/// The report's last line: the counts, the verdict, and a digest of the case lines.
#[derive(Clone, Debug, PartialEq)]
pub struct Footer {
    pub counts: Counts,
    pub duration: Duration,
    pub properties: Option<PropertiesSummary>,
    /// The exit status of the run: [`status`] of the records, 2 when `errors` is not empty.
    pub status: i32,
    /// The closing line.
    pub summary: String,
    /// `sha256:` of the case lines as written (each line's text and `\n`, in order).
    pub digest: String,
    /// What the run could not do (writing a counterexample, the JUnit file, the skip
    /// list): a run with errors has no verdict (exit 2).
    pub errors: Vec<String>,
    /// The decisions explaining the failures ([`crate::decisions`], X-DECIDE-1), as
    /// written: an array of `{"rule","title","cause","fixed_cases","generated_kinds",
    /// "example","why"}`.
    pub decisions: Value,
}

/// The incremental digest of a report's case lines ([`Footer::digest`]).
#[derive(Clone, Default)]
pub struct LinesDigest(sha2::Sha256);

impl LinesDigest {
    pub fn line(&mut self, text: &str) {
        use sha2::Digest;
        self.0.update(text.as_bytes());
        self.0.update(b"\n");
    }

    pub fn hex(self) -> String {
        use sha2::Digest;
        let d = self.0.finalize();
        let mut s = String::from("sha256:");
        for b in d {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

impl Footer {
    /// The footer of these records.
    pub fn new(
        records: &[CaseRecord],
        properties: Option<&PropertiesSummary>,
        elapsed: Duration,
        summary: &str,
        errors: &[String],
    ) -> Footer {
        let counts = Counts::of(records);
        let mut digest = LinesDigest::default();
        for r in records {
            digest.line(&canonical::to_string(&r.to_json()));
        }
        Footer {
            counts,
            duration: elapsed,
            properties: properties.cloned(),
            status: if errors.is_empty() {
                status(counts, properties).code
            } else {
                2
            },
            summary: summary.to_owned(),
            digest: digest.hex(),
            errors: errors.to_vec(),
            decisions: crate::decisions::to_json(&crate::decisions::decide(records)),
        }
    }

    pub fn to_json(&self) -> Value {
        let c = &self.counts;
        Value::object([
            ("type", Value::from("footer")),
            ("passed", Value::from_u64(c.passed)),
            ("failed", Value::from_u64(c.failed)),
            ("errored", Value::from_u64(c.errored)),
            ("skipped", Value::from_u64(c.skipped)),
            (
                "duration_ms",
                Value::from_u64(self.duration.as_millis() as u64),
            ),
            (
                "properties",
                self.properties
                    .as_ref()
                    .map_or(Value::Null, PropertiesSummary::to_json),
            ),
            ("status", Value::from_i64(i64::from(self.status))),
            ("summary", Value::from(self.summary.as_str())),
            ("digest", Value::from(self.digest.as_str())),
            ("decisions", self.decisions.clone()),
            (
                "errors",
                Value::Array(
                    self.errors
                        .iter()
                        .map(|e| Value::from(e.as_str()))
                        .collect(),
                ),
            ),
        ])
    }

    /// A footer read back; what is missing reads as zero or empty.
    pub fn from_json(v: &Value) -> Footer {
        let n = |k: &str| {
            v.get(k)
                .and_then(Value::as_i64)
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(0)
        };
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        Footer {
            counts: Counts {
                passed: n("passed"),
                failed: n("failed"),
                errored: n("errored"),
                skipped: n("skipped"),
            },
            duration: Duration::from_millis(n("duration_ms")),
            properties: v.get("properties").and_then(PropertiesSummary::from_json),
            status: v
                .get("status")
                .and_then(Value::as_i64)
                .and_then(|s| i32::try_from(s).ok())
                .unwrap_or(-1),
            summary: text("summary"),
            digest: text("digest"),
            errors: v
                .get("errors")
                .and_then(Value::as_array)
                .unwrap_or(&[])
                .iter()
                .map(|e| {
                    e.as_str()
                        .map_or_else(|| canonical::to_string(e), str::to_owned)
                })
                .collect(),
            decisions: v
                .get("decisions")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        }
    }
}

/// One report file, read back: its lines in order, each kind where it must stand.
#[derive(Clone, Debug)]
pub struct Report {
    /// The file's path as given.
    pub path: String,
    pub header: Header,
    pub cases: Vec<CaseRecord>,
    pub footer: Footer,
    /// [`LinesDigest`] of the case lines as they stand in the file.
    pub lines_digest: String,
}

/// A report that cannot be read, or is not what a run writes: the file (and line), and why.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {why}")]
    Line {
        path: String,
        line: usize,
        why: String,
    },
    #[error("{path}: {why}")]
    File { path: String, why: String },
}

/// How deep a report line may nest: expected and actual values sit a few levels below
/// the case object.
pub const MAX_LINE_DEPTH: usize = 4 * json::MAX_DEPTH;

/// Read a report written by `test --report` (SPEC.md 13.5): exactly one header, first;
/// case lines; exactly one footer, last. A line that is not JSON, is not one of those,
/// stands elsewhere, or a case line without an id or a valid outcome is an error naming
/// the file and line; a file without a footer is truncated.
pub fn read(path: &Path) -> Result<Report, ReportError> {
    let shown = path.display().to_string();
    let file = crate::fsutil::open_regular(path).map_err(|source| ReportError::Io {
        path: shown.clone(),
        source,
    })?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::BufReader::new(file), &mut text).map_err(
        |source| ReportError::Io {
            path: shown.clone(),
            source,
        },
    )?;
    let mut header = None;
    let mut footer = None;
    let mut cases = Vec::new();
    let mut digest = LinesDigest::default();
    for (n, line) in text.lines().enumerate() {
        let at = |why: String| ReportError::Line {
            path: shown.clone(),
            line: n + 1,
            why,
        };
        if footer.is_some() {
            return Err(at("a line after the footer".into()));
        }
        let v = json::parse_with_max_depth(line, MAX_LINE_DEPTH).map_err(|e| at(e.to_string()))?;
        match (v.get("type").and_then(Value::as_str), n) {
            (Some("header"), 0) => header = Some(Header::from_json(&v)),
            (Some("header"), _) => return Err(at("a second header".into())),
            (_, 0) => return Err(at("the first line is not a header".into())),
            (Some("case"), _) => {
                cases.push(CaseRecord::from_json(&v).map_err(|e: RecordError| at(e.to_string()))?);
                digest.line(line);
            }
            (Some("footer"), _) => footer = Some(Footer::from_json(&v)),
            _ => return Err(at("not a report line".into())),
        }
    }
    let file_error = |why: &str| ReportError::File {
        path: shown.clone(),
        why: why.into(),
    };
    let header = header.ok_or_else(|| file_error("empty: no header line"))?;
    let footer = footer.ok_or_else(|| {
        file_error("no footer line: the report is truncated (the run did not finish?)")
    })?;
    Ok(Report {
        path: shown,
        header,
        cases,
        footer,
        lines_digest: digest.hex(),
    })
}

impl Report {
    /// What a run writes must hold of the file: its footer's digest is that of its case
    /// lines, its counts and status are those of its records, and no case id is there
    /// twice. The error names the file and the field.
    pub fn check(&self) -> Result<(), ReportError> {
        let bad = |why: String| {
            Err(ReportError::File {
                path: self.path.clone(),
                why,
            })
        };
        let f = &self.footer;
        if f.digest != self.lines_digest {
            return bad(format!(
                "footer field `digest` is {:?}, not the digest of its case lines ({}): the file was edited or pieced together",
                f.digest, self.lines_digest
            ));
        }
        let c = Counts::of(&self.cases);
        for (field, said, counted) in [
            ("passed", f.counts.passed, c.passed),
            ("failed", f.counts.failed, c.failed),
            ("errored", f.counts.errored, c.errored),
            ("skipped", f.counts.skipped, c.skipped),
        ] {
            if said != counted {
                return bad(format!(
                    "footer field `{field}` says {said}, its case lines count {counted}"
                ));
            }
        }
        let due = if f.errors.is_empty() {
            status(c, f.properties.as_ref()).code
        } else {
            2
        };
        if f.status != due {
            return bad(format!(
                "footer field `status` says {}, its records give {due}",
                f.status
            ));
        }
        let mut ids: Vec<&str> = self.cases.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return bad(format!("case {} is in the report twice", w[0]));
        }
        Ok(())
    }
}

/// Write the JSON-lines report atomically.
pub fn write(
    path: &Path,
    header: &Header,
    records: &[CaseRecord],
    footer: &Footer,
) -> std::io::Result<()> {
    let mut out = String::new();
    let mut line = |v: Value| {
        out.push_str(&canonical::to_string(&v));
        out.push('\n');
    };
    line(header.to_json());
    for r in records {
        line(r.to_json());
    }
    line(footer.to_json());
    crate::fsutil::write_atomic(path, out.as_bytes())
}
