//! The conformance runner (`journal-conformance test`, SPEC.md 13): runs the corpus
//! against an implementation and returns the run as data.
//!
//! - [`plan`]: the corpus loaded, the skip list checked, the cases selected
//!   ([`select`]: FILTERs, `--rule`, `--tag`, `--level`; [`crate::partition`]);
//! - [`pool`]: `--jobs N` implementations asking every check ([`case`]: one case's
//!   checks judged by [`crate::verdict::judge`]), settled by the skip list
//!   ([`skiplist`]);
//! - [`probe`]: the bytes behind a failed fingerprint or canonical check (the first
//!   event an implementation hashes differently, found by binary search over `until`);
//! - [`properties`]: the differential phase's kinds as cases;
//! - [`reporter`]: what is printed as the run goes, through a [`Reporter`];
//! - the verdict and the files that carry it are [`crate::report`]'s.
//!
//! [`run`] returns a [`RunOutcome`] (or a [`RunError`]); `journal-conformance test`
//! writes the outputs ([`write_outputs`]) and maps the outcome to an exit status.

pub mod case;
pub mod complexity;
pub mod plan;
pub mod pool;
pub mod probe;
pub mod properties;
pub mod reporter;
pub mod select;
pub mod skiplist;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::adapter::{ImplInfo, Implementation};
use crate::canonical;
use crate::json::Value;
pub use crate::partition::Partition;
use crate::record::{CaseRecord, Counts};
use crate::report::{self, Footer, Header, PropertiesSummary, RunIdentity, Status};

pub use case::{run_case, run_case_with};
pub use plan::{load_corpus, Plan};
pub use reporter::{Format, Printer, Reporter};
pub use select::{LevelSelect, Selection};
pub use skiplist::SkipList;

/// Everything `journal-conformance test` needs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub adapter: Option<String>,
    pub one_shot: bool,
    pub corpus: Option<PathBuf>,
    pub selection: Selection,
    pub partition: Option<Partition>,
    pub skip_file: Option<PathBuf>,
    pub write_skip_file: Option<PathBuf>,
    pub skip_by_rule: bool,
    pub require: Vec<String>,
    pub jobs: usize,
    pub timeout: Duration,
    pub junit: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// Generated cases for differential testing against the reference (0: none).
    pub properties: u32,
    pub seed: u64,
    pub counterexamples: Option<PathBuf>,
    pub fail_fast: bool,
    /// `--scale SECONDS`: the scale phase's budget (Q-SCALE-3); `None`: no scale phase.
    pub scale: Option<Duration>,
}

/// A run that could not give a verdict: the exit status and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RunError {
    /// 2 for usage and internal errors; 1 when the adapter does not offer what
    /// `--require` demands.
    pub status: i32,
    pub message: String,
}

impl RunError {
    pub fn usage(message: String) -> RunError {
        RunError { status: 2, message }
    }
}

/// A finished run, as data.
#[derive(Debug)]
pub struct RunOutcome {
    /// The report's header: the kit, the implementation, what ran.
    pub header: Header,
    /// Every case's record: the fixed cases in corpus order, then the differential kinds.
    pub records: Vec<CaseRecord>,
    pub properties: Option<PropertiesSummary>,
    pub elapsed: Duration,
    /// Lines printed after the closing line: cases `--fail-fast` left unrun, cases of
    /// other levels.
    pub notes: Vec<String>,
    /// What the run could not do (the properties phase, writing a counterexample, the
    /// JUnit file, the skip list, the report): a run with errors has no verdict (exit 2),
    /// and its report says so.
    pub errors: Vec<String>,
    /// The skip list the run applied.
    pub skips: SkipList,
}

impl RunOutcome {
    /// The verdict of the records ([`report::status`]), INCOMPLETE (2) with errors.
    pub fn status(&self) -> Status {
        if self.errors.is_empty() {
            report::status(Counts::of(&self.records), self.properties.as_ref())
        } else {
            Status {
                code: 2,
                word: "INCOMPLETE",
            }
        }
    }

    /// The closing line (the footer's `summary`).
    pub fn closing(&self) -> String {
        report::closing_line(
            &self.header.implementation.name,
            &self.records,
            self.properties.as_ref(),
            self.elapsed,
            &self.errors,
        )
    }

    /// The closing line and its notes.
    pub fn closing_with_notes(&self) -> String {
        let mut s = self.closing();
        for n in &self.notes {
            s.push('\n');
            s.push_str(n);
        }
        s
    }

    /// The report's footer.
    pub fn footer(&self) -> Footer {
        Footer::new(
            &self.records,
            self.properties.as_ref(),
            self.elapsed,
            &self.closing(),
            &self.errors,
        )
    }

    /// The exit status of the run (X-EXIT-1).
    pub fn exit_status(&self) -> i32 {
        self.status().code
    }
}

/// `test --list`: the selected cases (and the properties phase) as lines.
pub fn list(opts: &Options, json: bool) -> Result<Vec<String>, RunError> {
    let plan = plan::plan(opts)?;
    let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
    let mut out: Vec<String> = plan
        .cases
        .iter()
        .map(|c| {
            if json {
                canonical::to_string(&Value::object([
                    ("type", Value::from("case")),
                    ("id", Value::from(c.id.as_str())),
                    ("group", Value::from(c.group.as_str())),
                    ("level", Value::from(c.level.as_str())),
                    ("rules", strs(&c.rules)),
                    ("tags", strs(&c.tags)),
                    ("description", Value::from(c.description.as_str())),
                ]))
            } else {
                format!("{}: {}", c.id, c.description)
            }
        })
        .collect();
    if plan.properties {
        out.push(if json {
            canonical::to_string(&Value::object([
                ("type", Value::from("properties")),
                ("cases", Value::from_u64(u64::from(opts.properties))),
                ("seed", Value::from_u64(opts.seed)),
            ]))
        } else {
            format!(
                "properties: {} generated cases (seed {})",
                opts.properties, opts.seed
            )
        });
    }
    Ok(out)
}

/// Start the implementations of a run (`--jobs N` of them, at most one per case) and
/// check `--require` against the first one's handshake.
fn start(opts: &Options, cases: usize) -> Result<Vec<Box<dyn Implementation>>, RunError> {
    let jobs = opts.jobs.max(1).min(cases.max(1));
    let mut impls: Vec<Box<dyn Implementation>> = Vec::new();
    for _ in 0..jobs {
        impls.push(pool::start(opts, jobs).map_err(RunError::usage)?);
    }
    pool::check_require(&opts.require, impls[0].info())?;
    Ok(impls)
}

/// The opening line: who, how many cases, which shard, how many jobs.
fn opening(info: &ImplInfo, cases: usize, opts: &Options, jobs: usize) -> String {
    format!(
        "implementation: {}; {cases} cases selected{}{}",
        info.name,
        opts.partition
            .map_or(String::new(), |p| format!(" (partition {})", p.label())),
        if jobs > 1 {
            format!(", {jobs} jobs")
        } else {
            String::new()
        }
    )
}

/// `journal-conformance test`: plan, start, run the fixed cases and the properties phase,
/// and give the verdict, calling `reporter` as it goes.
pub fn run(opts: &Options, reporter: &mut dyn Reporter) -> Result<RunOutcome, RunError> {
    let plan = plan::plan(opts)?;
    let impls = start(opts, plan.cases.len())?;
    let info = impls[0].info().clone();
    let header = Header::new(
        info.clone(),
        plan.cases.len(),
        opts.partition.map(|p| p.label()),
        RunIdentity {
            corpus: plan.corpus_digest.clone(),
            corpus_cases: plan.corpus_cases,
            selection: opts.selection.to_json(),
            skip_list: plan.skips.digest(),
            properties: u64::from(opts.properties),
            seed: opts.seed,
        },
    );
    reporter.start(
        &header,
        &opening(&info, plan.cases.len(), opts, impls.len()),
    );
    let started = Instant::now();
    let probes = std::sync::Arc::new(probe::Probes::default());
    let mut ran = pool::run_cases(
        impls,
        plan.cases,
        &plan.skips,
        opts.fail_fast,
        &probes,
        reporter,
    )?;
    reporter.corpus_done();
    let mut records = std::mem::take(&mut ran.records);
    let mut properties = None;
    let mut errors = Vec::new();
    let mut phase_notes = Vec::new();
    if plan.properties && !ran.stopped_early {
        reporter.properties_start(opts.properties);
        let mut phase_error = None;
        match properties::run_phase(ran.first.as_mut(), opts, &plan.skips, &probes) {
            Ok(phase) => {
                for r in &phase.records {
                    reporter.case(r);
                }
                records.extend(phase.records);
                properties = Some(phase.summary);
                errors.extend(phase.errors);
                phase_notes = phase.notes;
            }
            Err(e) => {
                phase_error = Some(e.clone());
                errors.push(format!("the properties phase: {e}"));
            }
        }
        reporter.properties_done(phase_error.as_deref());
    }
    let first_shard = opts.partition.is_none_or(|p| p.k_n().0 == 1);
    if let (Some(budget), true, false) = (opts.scale, first_shard, ran.stopped_early) {
        for r in complexity::run_phase(ran.first.as_mut(), budget) {
            reporter.case(&r);
            records.push(r);
        }
    }
    drop(ran.first); // stops the adapter
    let elapsed = started.elapsed();
    let mut notes = Vec::new();
    if ran.not_run > 0 {
        notes.push(format!(
            "stopped at the first failure (--fail-fast): {} selected cases not run",
            ran.not_run
        ));
    }
    if let Some(note) = plan::level_note(&plan.not_selected_level) {
        notes.push(note);
    }
    notes.extend(phase_notes);
    notes.extend(probes.note());
    Ok(RunOutcome {
        header,
        records,
        properties,
        elapsed,
        notes,
        errors,
        skips: plan.skips,
    })
}

/// Write the run's files, the report last so that it says what could not be written:
/// `--write-skip-file`, `--junit`, `--report`. Each failure is added to the outcome's
/// errors (and makes its status 2).
pub fn write_outputs(opts: &Options, o: &mut RunOutcome) {
    if let Some(p) = &opts.write_skip_file {
        let text = skiplist::written(&o.records, &o.skips, opts.skip_by_rule);
        match crate::fsutil::write_atomic(p, text.as_bytes()) {
            Ok(()) => o.notes.push(skiplist::written_note(p, &text)),
            Err(e) => o.errors.push(format!("writing {}: {e}", p.display())),
        }
    }
    if let Some(p) = &opts.junit {
        let name = &o.header.implementation.name;
        if let Err(e) =
            report::junit::write_junit(p, name, &o.records, o.properties.as_ref(), &o.errors)
        {
            o.errors.push(format!("writing JUnit {}: {e}", p.display()));
        }
    }
    if let Some(p) = &opts.report {
        if let Err(e) = report::write(p, &o.header, &o.records, &o.footer()) {
            o.errors
                .push(format!("writing report {}: {e}", p.display()));
        }
    }
}
