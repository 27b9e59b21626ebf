//! The conformance runner (`journal-conformance test`, `summary`).
//!
//! This module owns running the corpus against an implementation: selecting cases
//! (filters, `--level`, skip lists), asking the implementation every check through
//! [`crate::adapter`], judging answers with [`crate::vectors::compare`], presenting
//! results through libtest-mimic (so output and flags feel like `cargo test`), a
//! closing summary, JSON-lines reports, JUnit XML, and side-by-side summaries of
//! several implementations' reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use libtest_mimic::{Failed, Trial};

use crate::adapter::{Implementation, OneShot, Persistent, Reference, Reply};
use crate::canonical;
use crate::json::Value;
use crate::vectors::{self, Case, Level};

/// The outcome of one case (SPEC.md 13.3).
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

/// Which cases count (`--level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelSelect {
    /// `must` cases only.
    #[default]
    Must,
    /// `must` and `should` cases.
    Should,
    /// Every case; `implementation-defined` ones are reported but never fail the run.
    All,
}

impl LevelSelect {
    fn admits(self, l: Level) -> bool {
        match self {
            LevelSelect::Must => l == Level::Must,
            LevelSelect::Should => l <= Level::Should,
            LevelSelect::All => true,
        }
    }
}

/// One check's record in a report.
#[derive(Clone, Debug)]
pub struct CheckRecord {
    pub op: Value,
    pub expected: Value,
    pub actual: Value,
    pub outcome: Outcome,
    pub message: String,
    pub cause: Option<crate::explain::Cause>,
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
    pub checks: Vec<CheckRecord>,
    pub duration: Duration,
    pub cause: Option<crate::explain::Cause>,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub description: String,
    pub input: crate::explain::Preview,
}

/// Everything `journal-conformance test` needs besides libtest's own flags.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub adapter: Option<String>,
    pub one_shot: bool,
    pub corpus: Option<PathBuf>,
    pub skip_file: Option<PathBuf>,
    pub level: LevelSelect,
    pub timeout: Duration,
    pub junit: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// Generated cases for differential testing against the reference (0: none).
    pub properties: u32,
    /// Seed of the generated cases.
    pub seed: u64,
    /// Where shrunk counterexamples are written as vector files.
    pub counterexamples: Option<PathBuf>,
}

/// Read a skip list: one `CASE-ID REASON...` per line; `#` comments and blank lines
/// ignored; a reason is required.
pub fn read_skip_file(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if reason.trim().is_empty() {
            return Err(format!(
                "{}:{}: skip entry {id:?} needs a reason",
                path.display(),
                n + 1
            ));
        }
        out.insert(id.to_owned(), reason.trim().to_owned());
    }
    Ok(out)
}

/// The golden traces as cases (group `golden`), so the suite covers them too.
pub fn golden_cases() -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for g in crate::golden::GOLDEN {
        let doc = crate::json::parse(g.expect).map_err(|e| format!("golden {}: {e}", g.name))?;
        let profile = doc
            .get("profile")
            .and_then(Value::as_str)
            .and_then(crate::event::Profile::parse)
            .unwrap_or_default();
        let mut checks = Vec::new();
        for c in doc.get("checks").and_then(Value::as_array).unwrap_or(&[]) {
            let op = crate::ops::Operation::from_json(c.get("op").unwrap_or(&Value::Null))?;
            let value = c
                .get("expect")
                .cloned()
                .ok_or("golden check without expect")?;
            checks.push(vectors::Check {
                op,
                expect: vectors::Expect::Result {
                    value,
                    sha256: None,
                },
            });
        }
        out.push(Case {
            id: format!("golden/{}", g.name),
            group: "golden".into(),
            name: g.name.into(),
            description: format!("the seed's golden trace {}", g.name),
            rules: vec!["G-1".into()],
            tags: vec!["golden".into()],
            level: Level::Must,
            profile,
            input: g.journal.to_vec(),
            input_form: vectors::InputForm::File(format!("{}.golden.jsonl", g.name)),
            checks,
        });
    }
    Ok(out)
}

/// Load the corpus: `dir` if given, else the embedded one; plus the golden traces.
pub fn load_corpus(dir: Option<&Path>) -> Result<Vec<Case>, String> {
    let mut cases = match dir {
        Some(d) => vectors::load_dir(d)?,
        None => vectors::load_embedded()?,
    };
    cases.extend(golden_cases()?);
    Ok(cases)
}

/// Run every check of `case` on `imp` and judge it.
pub fn run_case(imp: &mut dyn Implementation, case: &Case) -> CaseRecord {
    let start = Instant::now();
    let mut checks = Vec::new();
    for check in &case.checks {
        let op = check.op.to_json();
        let expected = check.expect.to_json();
        if !imp.info().supports(&check.op, case.profile) {
            checks.push(CheckRecord {
                op,
                expected,
                actual: Value::Null,
                outcome: Outcome::Skipped,
                message: format!(
                    "unsupported: operation `{}` or profile `{}`",
                    check.op.name(),
                    case.profile.as_str()
                ),
                cause: None,
                pointer: None,
            });
            continue;
        }
        let mut mismatch = None;
        let (outcome, actual, message) = match imp.run(&check.op, case.profile, &case.input) {
            Reply::Answer(a) => match vectors::compare(&check.expect, &a) {
                None => (Outcome::Passed, a.to_json(), String::new()),
                Some(diff) => {
                    mismatch = crate::explain::diagnose(&check.expect, &a);
                    (Outcome::Failed, a.to_json(), diff)
                }
            },
            Reply::Unsupported => (
                Outcome::Skipped,
                Value::Null,
                "the adapter answered unsupported".into(),
            ),
            Reply::Fault(m) => (Outcome::Errored, Value::Null, m),
        };
        let cause = (outcome == Outcome::Errored)
            .then_some(crate::explain::Cause::AdapterFault)
            .or(mismatch.as_ref().map(|m| m.cause));
        checks.push(CheckRecord {
            op,
            expected,
            actual,
            outcome,
            message,
            cause,
            pointer: mismatch.and_then(|m| m.pointer),
        });
    }
    // The case takes its worst check: errored > failed > skipped > passed.
    let outcome = [Outcome::Errored, Outcome::Failed]
        .into_iter()
        .find(|o| checks.iter().any(|c| c.outcome == *o))
        .unwrap_or(if checks.iter().all(|c| c.outcome == Outcome::Skipped) {
            Outcome::Skipped
        } else {
            Outcome::Passed
        });
    let message = checks
        .iter()
        .filter(|c| c.outcome == outcome && !c.message.is_empty())
        .map(|c| format!("{}: {}", canonical::to_string(&c.op), c.message))
        .collect::<Vec<_>>()
        .join("\n");
    CaseRecord {
        id: case.id.clone(),
        group: case.group.clone(),
        level: case.level,
        outcome,
        message,
        cause: crate::explain::case_cause(outcome, &checks),
        checks,
        duration: start.elapsed(),
        rules: case.rules.clone(),
        tags: case.tags.clone(),
        description: case.description.clone(),
        input: crate::explain::Preview::of(&case.input),
    }
}

fn start_impl(opts: &Options) -> Result<Box<dyn Implementation>, String> {
    let timeout = if opts.timeout.is_zero() {
        Duration::from_secs(10)
    } else {
        opts.timeout
    };
    Ok(match (&opts.adapter, opts.one_shot) {
        (None, _) => Box::new(Reference::default()),
        (Some(cmd), false) => Box::new(Persistent::start(cmd, timeout)?),
        (Some(cmd), true) => Box::new(OneShot::new(cmd, timeout)?),
    })
}

fn cause_json(c: Option<crate::explain::Cause>) -> Value {
    c.map_or(Value::Null, |c| Value::from(c.as_str()))
}

fn strings_json(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect())
}

fn record_json(r: &CaseRecord) -> Value {
    Value::object([
        ("type", Value::from("case")),
        ("id", Value::from(r.id.as_str())),
        ("group", Value::from(r.group.as_str())),
        ("level", Value::from(r.level.as_str())),
        ("outcome", Value::from(r.outcome.as_str())),
        ("message", Value::from(r.message.as_str())),
        ("cause", cause_json(r.cause)),
        ("rules", strings_json(&r.rules)),
        ("tags", strings_json(&r.tags)),
        ("description", Value::from(r.description.as_str())),
        ("input", r.input.to_json()),
        (
            "duration_ms",
            Value::from_u64(r.duration.as_millis() as u64),
        ),
        (
            "checks",
            Value::Array(
                r.checks
                    .iter()
                    .map(|c| {
                        Value::object([
                            ("op", c.op.clone()),
                            ("outcome", Value::from(c.outcome.as_str())),
                            ("expected", c.expected.clone()),
                            ("actual", c.actual.clone()),
                            ("message", Value::from(c.message.as_str())),
                            ("cause", cause_json(c.cause)),
                            (
                                "pointer",
                                c.pointer.as_deref().map_or(Value::Null, Value::from),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// Counts of outcomes.
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
}

fn write_report(
    path: &Path,
    info: &Value,
    records: &[CaseRecord],
    counts: Counts,
    elapsed: Duration,
) -> std::io::Result<()> {
    let mut out = String::new();
    let mut line = |v: Value| {
        out.push_str(&canonical::to_string(&v));
        out.push('\n');
    };
    line(Value::object([
        ("type", Value::from("header")),
        (
            "kit",
            Value::from(concat!("journal-conformance ", env!("CARGO_PKG_VERSION"))),
        ),
        ("implementation", info.clone()),
        ("cases", Value::from_u64(records.len() as u64)),
    ]));
    for r in records {
        line(record_json(r));
    }
    line(Value::object([
        ("type", Value::from("footer")),
        ("passed", Value::from_u64(counts.passed)),
        ("failed", Value::from_u64(counts.failed)),
        ("errored", Value::from_u64(counts.errored)),
        ("skipped", Value::from_u64(counts.skipped)),
        ("duration_ms", Value::from_u64(elapsed.as_millis() as u64)),
    ]));
    crate::fsutil::write_atomic(path, out.as_bytes())
}

fn write_junit(path: &Path, name: &str, records: &[CaseRecord]) -> Result<(), String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("journal-conformance");
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for r in records {
        let status = match r.outcome {
            Outcome::Passed => TestCaseStatus::success(),
            Outcome::Skipped => TestCaseStatus::skipped(),
            Outcome::Failed | Outcome::Errored => {
                let kind = if r.outcome == Outcome::Failed {
                    NonSuccessKind::Failure
                } else {
                    NonSuccessKind::Error
                };
                let mut s = TestCaseStatus::non_success(kind);
                s.set_message(r.message.clone());
                if let Some(c) = r.cause {
                    s.set_type(c.as_str());
                }
                s
            }
        };
        let mut tc = TestCase::new(r.id.clone(), status);
        tc.set_time(r.duration);
        suites
            .entry(r.group.as_str())
            .or_insert_with(|| TestSuite::new(r.group.clone()))
            .add_test_case(tc);
    }
    report.add_test_suites(suites.into_values());
    let _ = name;
    let xml = report.to_string().map_err(|e| e.to_string())?;
    crate::fsutil::write_atomic(path, xml.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `journal-conformance test`: returns the exit status.
pub fn run(opts: Options, harness: libtest_mimic::Arguments) -> i32 {
    let cases = match load_corpus(opts.corpus.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: loading the corpus: {e}");
            return 2;
        }
    };
    let skips = match opts.skip_file.as_deref().map(read_skip_file).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Some(unknown) = skips.keys().find(|id| !cases.iter().any(|c| &c.id == *id)) {
        eprintln!("error: skip list names unknown case {unknown:?}");
        return 2;
    }
    let imp = match start_impl(&opts) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let info = imp.info().to_json();
    let impl_name = imp.info().name.clone();
    if !harness.list {
        eprintln!("implementation: {impl_name}");
    }
    let imp = Arc::new(Mutex::new(imp));
    let records: Arc<Mutex<Vec<CaseRecord>>> = Arc::default();
    let mut trials = Vec::new();
    for case in cases.into_iter().filter(|c| opts.level.admits(c.level)) {
        let imp = imp.clone();
        let records = records.clone();
        let skip = skips.get(&case.id).cloned();
        let kind = case.group.split('/').next().unwrap_or("").to_owned();
        trials.push(
            Trial::test(case.id.clone(), move || {
                let mut rec = {
                    let mut guard = imp.lock().unwrap_or_else(|p| p.into_inner());
                    run_case(guard.as_mut(), &case)
                };
                let verdict: Result<(), Failed> = match (&skip, rec.outcome) {
                    (Some(_), Outcome::Passed) => {
                        rec.outcome = Outcome::Failed;
                        rec.cause = Some(crate::explain::Cause::UnexpectedPass);
                        rec.message =
                            "this case is in the skip list but now passes: remove it from the list"
                                .into();
                        Err(rec.message.clone().into())
                    }
                    (Some(reason), _) => {
                        rec.outcome = Outcome::Skipped;
                        rec.cause = None;
                        rec.message = format!("skip list: {reason}");
                        Ok(())
                    }
                    (None, Outcome::Failed | Outcome::Errored)
                        if case.level == Level::ImplementationDefined =>
                    {
                        Ok(())
                    }
                    (None, Outcome::Failed) => {
                        Err(crate::explain::explain(&case, &rec.checks).into())
                    }
                    (None, Outcome::Errored) => Err(format!(
                        "ERROR (adapter fault)\n{}",
                        crate::explain::explain(&case, &rec.checks)
                    )
                    .into()),
                    (None, _) => Ok(()),
                };
                records.lock().unwrap().push(rec);
                verdict
            })
            .with_kind(kind),
        );
    }
    let start = Instant::now();
    let conclusion = libtest_mimic::run(&harness, trials);
    let elapsed = start.elapsed();
    let mut differential_failed = false;
    if opts.properties > 0 && !harness.list {
        let mut guard = imp.lock().unwrap_or_else(|p| p.into_inner());
        let t = Instant::now();
        let known_rules = std::collections::BTreeSet::new();
        let diff_opts = crate::differential::DiffOptions {
            cases: opts.properties,
            seed: opts.seed,
            fail_fast: false,
            partition: None,
            known_rules: &known_rules,
            counterexamples: opts.counterexamples.as_deref(),
            max_shrunk_kinds: 16,
        };
        match crate::differential::run(guard.as_mut(), &diff_opts) {
            Ok(out) => {
                let failing = out.kinds.iter().filter(|k| !k.known).count();
                println!(
                    "\nproperties: {} generated cases, {} compared, {} disagreeing, {} distinct kinds, {} errored (seed {}, {:.2} s)",
                    out.generated,
                    out.compared,
                    out.disagreeing,
                    out.kinds.len(),
                    out.errored,
                    opts.seed,
                    t.elapsed().as_secs_f64()
                );
                for (op, why) in &out.skipped_ops {
                    println!("  not compared: {op}: {why}");
                }
                for k in &out.kinds {
                    println!(
                        "  {} {}: {}",
                        if k.known { "KNOWN" } else { "DISAGREEMENT" },
                        k.id,
                        k.explanation
                    );
                    println!(
                        "    first at generated case {} (seed {}); input:",
                        k.first_case, k.seed
                    );
                    print!(
                        "{}",
                        crate::explain::Preview::of(&k.counterexample.input).render("    ")
                    );
                    println!(
                        "    op {} expected {}",
                        canonical::to_string(&k.counterexample.checks[0].op.to_json()),
                        canonical::to_string(&k.counterexample.checks[0].expect.to_json())
                    );
                    match &k.path {
                        Some(p) => println!(
                            "    written as a vector: {} (run it with --corpus)",
                            p.display()
                        ),
                        None => {
                            println!("    (pass --counterexamples DIR to keep it as a vector file)")
                        }
                    }
                }
                if failing > 0 || out.errored > 0 {
                    differential_failed = true;
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                differential_failed = true;
            }
        }
    }
    if let Ok(mut i) = imp.lock() {
        // Stop a persistent adapter cleanly (Drop does the work).
        let _ = std::mem::replace(&mut *i, Box::new(Reference::default()));
    }
    if harness.list {
        return 0;
    }
    let mut records = std::mem::take(&mut *records.lock().unwrap());
    records.sort_by(|a, b| a.id.cmp(&b.id));
    let mut counts = Counts::default();
    let mut by_kind: BTreeMap<String, Counts> = BTreeMap::new();
    for r in &records {
        counts.add(r.outcome);
        by_kind
            .entry(r.group.split('/').next().unwrap_or("").to_owned())
            .or_default()
            .add(r.outcome);
    }
    println!("\nconformance summary for {impl_name}:");
    for (k, c) in &by_kind {
        println!(
            "  {k:<12} {:>4} passed {:>4} failed {:>4} errored {:>4} skipped",
            c.passed, c.failed, c.errored, c.skipped
        );
    }
    println!(
        "conformance: {} passed, {} failed, {} errored, {} skipped ({} cases, {:.2} s)",
        counts.passed,
        counts.failed,
        counts.errored,
        counts.skipped,
        counts.total(),
        elapsed.as_secs_f64()
    );
    let failed = records
        .iter()
        .filter_map(|r| Some((&r.rules[..], r.cause?)));
    if let Some(table) = crate::explain::failures_by_rule(failed) {
        print!("{table}");
    }
    let mut status = if conclusion.has_failed() || differential_failed {
        1
    } else {
        0
    };
    if let Some(p) = &opts.report {
        if let Err(e) = write_report(p, &info, &records, counts, elapsed) {
            eprintln!("error: writing report {}: {e}", p.display());
            status = 2;
        }
    }
    if let Some(p) = &opts.junit {
        if let Err(e) = write_junit(p, &impl_name, &records) {
            eprintln!("error: writing JUnit {}: {e}", p.display());
            status = 2;
        }
    }
    status
}

/// One implementation's results read back from a report file.
#[derive(Clone, Debug)]
pub struct ReportSummary {
    pub implementation: String,
    pub groups: BTreeMap<String, Counts>,
    pub overall: Counts,
}

/// Read a report written by `test --report`.
pub fn read_report(path: &Path) -> Result<ReportSummary, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut s = ReportSummary {
        implementation: path.display().to_string(),
        groups: BTreeMap::new(),
        overall: Counts::default(),
    };
    for (n, line) in text.lines().enumerate() {
        let v =
            crate::json::parse(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        match v.get("type").and_then(Value::as_str) {
            Some("header") => {
                if let Some(name) = v
                    .get("implementation")
                    .and_then(|i| i.get("name"))
                    .and_then(Value::as_str)
                {
                    s.implementation = name.to_owned();
                }
            }
            Some("case") => {
                let o = v
                    .get("outcome")
                    .and_then(Value::as_str)
                    .and_then(Outcome::parse)
                    .ok_or(format!(
                        "{}:{}: case without a valid outcome",
                        path.display(),
                        n + 1
                    ))?;
                let group = v
                    .get("group")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                s.groups.entry(group).or_default().add(o);
                s.overall.add(o);
            }
            Some("footer") => {}
            _ => return Err(format!("{}:{}: not a report line", path.display(), n + 1)),
        }
    }
    Ok(s)
}

/// `journal-conformance summary`: a markdown table (or JSON) of several reports.
pub fn summary(reports: &[ReportSummary], json: bool) -> String {
    let mut groups: Vec<&String> = reports.iter().flat_map(|r| r.groups.keys()).collect();
    groups.sort();
    groups.dedup();
    let cell = |c: Option<&Counts>| match c {
        None => "-".to_owned(),
        Some(c) => format!("{}/{}/{}/{}", c.passed, c.failed, c.errored, c.skipped),
    };
    if json {
        let counts = |c: &Counts| {
            Value::object([
                ("passed", Value::from_u64(c.passed)),
                ("failed", Value::from_u64(c.failed)),
                ("errored", Value::from_u64(c.errored)),
                ("skipped", Value::from_u64(c.skipped)),
            ])
        };
        let v = Value::Array(
            reports
                .iter()
                .map(|r| {
                    Value::object([
                        ("implementation", Value::from(r.implementation.as_str())),
                        ("overall", counts(&r.overall)),
                        (
                            "groups",
                            Value::Object(
                                r.groups
                                    .iter()
                                    .map(|(g, c)| (g.clone(), counts(c)))
                                    .collect(),
                            ),
                        ),
                    ])
                })
                .collect(),
        );
        return canonical::to_string(&v) + "\n";
    }
    let mut out = String::from("| group |");
    for r in reports {
        out.push_str(&format!(" {} |", r.implementation.replace('|', "\\|")));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(reports.len()));
    out.push('\n');
    for g in &groups {
        out.push_str(&format!("| {g} |"));
        for r in reports {
            out.push_str(&format!(" {} |", cell(r.groups.get(*g))));
        }
        out.push('\n');
    }
    out.push_str("| **overall** |");
    for r in reports {
        out.push_str(&format!(" **{}** |", cell(Some(&r.overall))));
    }
    out.push_str("\n\nCells are passed/failed/errored/skipped cases.\n");
    out
}
