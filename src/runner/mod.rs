//! The conformance runner (`journal-conformance test`, `summary`).
//!
//! This module owns running the corpus against an implementation: selecting cases
//! ([`select`]: FILTERs, `--rule`, `--tag`, `--level`, `--partition`, skip lists),
//! asking every check through [`crate::adapter`] on `--jobs N` adapter processes,
//! judging answers ([`record`]: outcomes and causes, SPEC.md 13.3), the properties
//! phase's disagreements as cases ([`properties`]), and one verdict reported the same
//! way everywhere ([`report`]: closing line, exit status, JSON-lines report, JUnit,
//! `summary` with shard merging). Output formats: pretty, terse, json (JSON lines only).

pub mod properties;
pub mod record;
pub mod report;
pub mod select;

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::adapter::{Implementation, Limits, OneShot, Persistent, Reference};
use crate::canonical;
use crate::explain::Cause;
use crate::json::Value;
use crate::vectors::{self, Case, Level};

pub use record::{run_case, CaseRecord, CheckRecord, Counts, Outcome};
pub use report::{merge_shards, read_report, summary, verdict, PropertiesSummary, ReportSummary};
pub use select::{LevelSelect, Partition, Selection, SkipList};

/// How results are printed on stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per case, then the failures, the groups and the closing line.
    #[default]
    Pretty,
    /// One character per case (`.` passed, `F` failed, `E` errored, `s` skipped).
    Terse,
    /// JSON lines only: the report's header, one line per case, its footer.
    Json,
}

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
    pub list: bool,
    pub format: Format,
    pub fail_fast: bool,
}

pub fn golden_cases() -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for g in crate::golden::GOLDEN {
        let doc = crate::json::parse(g.expect).map_err(|e| format!("golden {}: {e}", g.name))?;
        let profile = doc
            .get("profile")
            .and_then(Value::as_str)
            .and_then(crate::ops::Profile::parse)
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
pub fn load_corpus(dir: Option<&Path>) -> Result<Vec<Case>, String> {
    let mut cases = match dir {
        Some(d) => vectors::load_dir(d)?,
        None => vectors::load_embedded()?,
    };
    cases.extend(golden_cases()?);
    Ok(cases)
}

fn start_impl(opts: &Options) -> Result<Box<dyn Implementation>, String> {
    let limits = Limits::with_timeout(opts.timeout);
    Ok(match (&opts.adapter, opts.one_shot) {
        (None, _) => Box::new(Reference::default()),
        (Some(cmd), false) => Box::new(Persistent::start(cmd, limits)?),
        (Some(cmd), true) => Box::new(OneShot::new(cmd, limits)?),
    })
}

/// Known names for `--require`: operations and profiles.
const PROFILES: &[&str] = &["core", "trace-0.1", "yoagent-0.26"];

fn check_require(opts: &Options, info: &crate::adapter::ImplInfo) -> Result<(), (i32, String)> {
    let ops = crate::ops::OPERATIONS;
    let mut missing = Vec::new();
    for r in &opts.require {
        if !ops.contains(&r.as_str()) && !PROFILES.contains(&r.as_str()) {
            return Err((
                2,
                format!(
                    "--require {r:?}: not an operation ({}) or a profile ({})",
                    ops.join(", "),
                    PROFILES.join(", ")
                ),
            ));
        }
        if !info.operations.contains(r) && !info.profiles.contains(r) {
            missing.push(r.as_str());
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err((
            1,
            format!(
                "the adapter does not offer what --require demands: {} (it offers operations [{}], profiles [{}])",
                missing.join(", "),
                info.operations.join(", "),
                info.profiles.join(", ")
            ),
        ))
    }
}

/// Apply the skip list and the level to a fresh record.
fn judge(mut rec: CaseRecord, case: &Case, skips: &SkipList) -> CaseRecord {
    if let Some((by_id, reason)) = skips.reason(&case.id, &case.rules) {
        match rec.outcome {
            Outcome::Passed if by_id => {
                rec.outcome = Outcome::Failed;
                rec.cause = Some(Cause::UnexpectedPass);
                rec.message =
                    "this case is on the skip list but now passes: remove it from the list".into();
            }
            Outcome::Passed => {
                rec.outcome = Outcome::Skipped;
                rec.message = format!("skip list ({reason}); this case passes");
            }
            Outcome::Skipped => {}
            o => {
                rec.message = format!(
                    "skip list: {reason}\n(it {}: {})",
                    o.as_str(),
                    rec.message.lines().next().unwrap_or("")
                );
                rec.outcome = Outcome::Skipped;
            }
        }
        return rec;
    }
    if case.level == Level::ImplementationDefined
        && matches!(rec.outcome, Outcome::Failed | Outcome::Errored)
    {
        rec.message = format!(
            "implementation-defined: answered differently from the reference's choice (never fails the run): {}",
            rec.message
        );
        rec.outcome = Outcome::Skipped;
    }
    rec
}

fn mark(o: Outcome) -> (&'static str, char) {
    match o {
        Outcome::Passed => ("ok", '.'),
        Outcome::Failed => ("FAILED", 'F'),
        Outcome::Errored => ("ERRORED", 'E'),
        Outcome::Skipped => ("skipped", 's'),
    }
}

/// Prints as records arrive, in corpus order whatever the number of jobs.
struct Printer {
    format: Format,
    bar: Option<indicatif::ProgressBar>,
    terse_col: usize,
}

impl Printer {
    fn out(&self, text: &str) {
        let print = || {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
        };
        match &self.bar {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }

    fn case(&mut self, r: &CaseRecord) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
        match self.format {
            Format::Pretty => {
                let (word, _) = mark(r.outcome);
                let why = if r.outcome == Outcome::Skipped {
                    format!(" ({})", r.message.lines().next().unwrap_or(""))
                } else {
                    String::new()
                };
                self.out(&format!("test {} ... {word}{why}\n", r.id));
            }
            Format::Terse => {
                let (_, c) = mark(r.outcome);
                self.terse_col += 1;
                let nl = if self.terse_col.is_multiple_of(88) {
                    "\n"
                } else {
                    ""
                };
                self.out(&format!("{c}{nl}"));
            }
            Format::Json => self.out(&(canonical::to_string(&r.to_json()) + "\n")),
        }
    }
}

fn failures_text(records: &[CaseRecord]) -> String {
    let mut s = String::new();
    for r in records
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::Errored))
    {
        s.push_str(&format!(
            "\n---- {} ({}, {}) ----\n{}\n",
            r.id,
            mark(r.outcome).0,
            r.cause.map_or("-", Cause::as_str),
            crate::explain::explain_record(r)
        ));
    }
    s
}

/// The closing "failures by rule" table (SPEC.md 13.3), when anything failed.
fn rules_table(records: &[CaseRecord]) -> String {
    let failed = records
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::Errored))
        .filter_map(|r| Some((&r.rules[..], r.cause?)));
    crate::explain::failures_by_rule(failed).unwrap_or_default()
}

fn groups_table(implementation: &str, records: &[CaseRecord]) -> String {
    let mut by: BTreeMap<&str, Counts> = BTreeMap::new();
    for r in records {
        by.entry(r.group.as_str()).or_default().add(r.outcome);
    }
    let w = by.keys().map(|g| g.len()).max().unwrap_or(5).max(5);
    let mut s = format!("\nconformance by group for {implementation}:\n");
    s.push_str(&format!(
        "  {:<w$} {:>6} {:>6} {:>7} {:>7}\n",
        "group", "passed", "failed", "errored", "skipped"
    ));
    for (g, c) in &by {
        s.push_str(&format!(
            "  {g:<w$} {:>6} {:>6} {:>7} {:>7}\n",
            c.passed, c.failed, c.errored, c.skipped
        ));
    }
    s
}

fn one_line(s: &str) -> String {
    crate::error::shorten(s.replace('\n', " | ").as_bytes(), 200)
}

/// The skip list that makes the next run pass: entries still in effect, plus the
/// current failures (by case id, or by rule with `by_rule`).
fn skip_file_text(records: &[CaseRecord], old: &SkipList, by_rule: bool) -> String {
    let mut lines: BTreeMap<String, String> = BTreeMap::new();
    for r in records {
        let on_list = old.reason(&r.id, &r.rules);
        let failing = matches!(r.outcome, Outcome::Failed | Outcome::Errored)
            && r.cause != Some(Cause::UnexpectedPass);
        // A known differential kind: the entry that made it known stays.
        if let (Some(op), Some(rule), Outcome::Skipped) = (
            r.group.strip_prefix("properties/"),
            r.rules.first(),
            r.outcome,
        ) {
            if let Some((entry, why)) = old.known_disagreement(op, rule) {
                lines.insert(entry, why);
            }
        }
        if let (Some((by_id, _)), Outcome::Skipped) = (&on_list, r.outcome) {
            if *by_id {
                lines.insert(r.id.clone(), old.cases[&r.id].clone());
            } else {
                for rule in r.rules.iter().filter(|x| old.rules.contains_key(*x)) {
                    lines.insert(rule.clone(), old.rules[rule].clone());
                }
            }
        }
        if !failing {
            continue;
        }
        let reason = format!(
            "{}: {}",
            r.cause.map_or("failed", Cause::as_str),
            one_line(&r.message)
        );
        if by_rule {
            for rule in &r.rules {
                lines
                    .entry(rule.clone())
                    .or_insert_with(|| format!("fails {} ({reason})", r.id));
            }
        } else if let Some(op) = r.group.strip_prefix("properties/") {
            // A differential kind: known by operation and rule (its id is a hash of one
            // counterexample); the fixed vectors of the rule keep counting.
            for rule in &r.rules {
                lines
                    .entry(format!("properties/{op}/{rule}"))
                    .or_insert_with(|| format!("fails {} ({reason})", r.id));
            }
        } else {
            lines.insert(r.id.clone(), reason);
        }
    }
    let mut s = String::from(
        "# written by `journal-conformance test --write-skip-file`: the failures of this run\n",
    );
    for (id, why) in lines {
        s.push_str(&format!("{id} {why}\n"));
    }
    s
}

/// `journal-conformance test`: returns the exit status.
pub fn run(opts: Options) -> i32 {
    let human = |s: &str| {
        if opts.format == Format::Json {
            eprintln!("{s}");
        } else {
            println!("{s}");
        }
    };
    let corpus = match load_corpus(opts.corpus.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: loading the corpus: {e}");
            return 2;
        }
    };
    let skips = match opts.skip_file.as_deref().map(SkipList::read).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Err(e) = skips.check(&corpus) {
        eprintln!("error: {e}");
        return 2;
    }
    // Selection: filters, rules, tags, level; then the partition over what is left.
    let mut chosen: Vec<Case> = corpus
        .into_iter()
        .filter(|c| opts.selection.admits_id(c))
        .collect();
    chosen.sort_by(|a, b| a.id.cmp(&b.id));
    let by_level = chosen.len();
    chosen.retain(|c| opts.selection.level.admits(c.level));
    let not_selected_level = by_level - chosen.len();
    let before = chosen.len();
    if let Some(p) = opts.partition {
        chosen = chosen
            .into_iter()
            .enumerate()
            .filter(|(i, c)| p.admits(*i, &c.id))
            .map(|(_, c)| c)
            .collect();
    }
    let properties_selected = opts.properties > 0 && opts.selection.admits_properties();
    // Under a partition each shard runs its share of the generated cases (D-CASES-1).
    let properties_here = properties_selected;
    if before == 0 && !properties_selected {
        eprintln!(
            "error: no case matches the selection (FILTERs, --exact, --skip, --rule, --tag, --level{}); `test --list` shows the cases",
            if not_selected_level > 0 {
                format!(": {not_selected_level} cases of other levels")
            } else {
                String::new()
            }
        );
        return 2;
    }
    if opts.list {
        let mut o = std::io::stdout().lock();
        for c in &chosen {
            let line = if opts.format == Format::Json {
                canonical::to_string(&Value::object([
                    ("type", Value::from("case")),
                    ("id", Value::from(c.id.as_str())),
                    ("group", Value::from(c.group.as_str())),
                    ("level", Value::from(c.level.as_str())),
                    (
                        "rules",
                        Value::Array(c.rules.iter().map(|r| Value::from(r.as_str())).collect()),
                    ),
                    (
                        "tags",
                        Value::Array(c.tags.iter().map(|r| Value::from(r.as_str())).collect()),
                    ),
                    ("description", Value::from(c.description.as_str())),
                ]))
            } else {
                format!("{}: {}", c.id, c.description)
            };
            let _ = writeln!(o, "{line}");
        }
        if properties_here {
            let line = if opts.format == Format::Json {
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
            };
            let _ = writeln!(o, "{line}");
        }
        return 0;
    }
    crate::adapter::install_signal_handler();
    let jobs = opts.jobs.max(1).min(chosen.len().max(1));
    let mut impls: Vec<Box<dyn Implementation>> = Vec::new();
    for _ in 0..jobs {
        match start_impl(&opts) {
            Ok(i) => impls.push(i),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    let info = impls[0].info().clone();
    let impl_name = info.name.clone();
    if let Err((code, e)) = check_require(&opts, &info) {
        eprintln!("error: {e}");
        return code;
    }
    eprintln!(
        "implementation: {impl_name}; {} cases selected{}{}",
        chosen.len(),
        opts.partition
            .map_or(String::new(), |p| format!(" (partition {})", p.label())),
        if jobs > 1 {
            format!(", {jobs} jobs")
        } else {
            String::new()
        }
    );
    let header = report::header_json(
        &info.to_json(),
        chosen.len(),
        opts.partition.map(|p| p.label()).as_deref(),
    );
    let bar = (std::io::stderr().is_terminal() && !chosen.is_empty()).then(|| {
        let b = indicatif::ProgressBar::new(chosen.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} cases, {elapsed} elapsed, ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b.set_prefix("corpus");
        b
    });
    let mut printer = Printer {
        format: opts.format,
        bar,
        terse_col: 0,
    };
    if opts.format == Format::Json {
        printer.out(&(canonical::to_string(&header) + "\n"));
    }
    let start = Instant::now();
    // Workers take the next case; records are gathered in corpus order.
    let cases = Arc::new(chosen);
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, CaseRecord)>();
    let mut handles = Vec::new();
    let mut first = None;
    for (w, mut imp) in impls.into_iter().enumerate() {
        let (cases, next, stop, tx) = (cases.clone(), next.clone(), stop.clone(), tx.clone());
        let fail_fast = opts.fail_fast;
        let worker = move || {
            loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let rec = run_case(imp.as_mut(), case);
                if fail_fast && matches!(rec.outcome, Outcome::Failed | Outcome::Errored) {
                    stop.store(true, Ordering::SeqCst);
                }
                if tx.send((i, rec)).is_err() {
                    break;
                }
            }
            imp
        };
        if w == 0 {
            first = Some(worker);
        } else {
            handles.push(std::thread::spawn(worker));
        }
    }
    drop(tx);
    let main_worker = std::thread::spawn(first.expect("one job at least"));
    let mut slots: Vec<Option<CaseRecord>> = vec![None; cases.len()];
    let mut printed = 0;
    let mut stopped_early = false;
    for (i, rec) in rx {
        let rec = judge(rec, &cases[i], &skips);
        if opts.fail_fast && matches!(rec.outcome, Outcome::Failed | Outcome::Errored) {
            stop.store(true, Ordering::SeqCst);
            stopped_early = true;
        }
        slots[i] = Some(rec);
        while printed < slots.len() {
            match &slots[printed] {
                Some(r) => printer.case(r),
                None => break,
            }
            printed += 1;
        }
    }
    let mut imp = match main_worker.join() {
        Ok(i) => i,
        Err(_) => {
            eprintln!("error: a runner thread panicked");
            return 2;
        }
    };
    for h in handles {
        drop(h.join()); // ends those adapters
    }
    for r in slots[printed..].iter().flatten() {
        printer.case(r);
    }
    if let Some(b) = &printer.bar {
        b.finish_and_clear();
    }
    let not_run = slots.iter().filter(|s| s.is_none()).count();
    let mut records: Vec<CaseRecord> = slots.into_iter().flatten().collect();
    if opts.format == Format::Terse && !printer.terse_col.is_multiple_of(88) {
        printer.out("\n");
    }
    // The properties phase.
    let mut props: Option<PropertiesSummary> = None;
    let mut status_override = None;
    if properties_here && !(stopped_early && opts.fail_fast) {
        let spinner = std::io::stderr().is_terminal().then(|| {
            let s = indicatif::ProgressBar::new_spinner();
            s.set_message(format!(
                "properties: comparing {} generated cases with the reference",
                opts.properties
            ));
            s.enable_steady_tick(Duration::from_millis(120));
            s
        });
        match properties::not_comparable(&info) {
            Some(why) => {
                props = Some(PropertiesSummary {
                    cases: u64::from(opts.properties),
                    skipped: Some(why),
                    ..PropertiesSummary::default()
                })
            }
            None => match crate::differential::run(
                imp.as_mut(),
                &crate::differential::DiffOptions {
                    cases: opts.properties,
                    seed: opts.seed,
                    fail_fast: opts.fail_fast,
                    partition: opts.partition.map(|p| p.k_n()),
                    known_rules: &skips.known_set(),
                    counterexamples: opts.counterexamples.as_deref(),
                    max_shrunk_kinds: 16,
                },
            ) {
                Ok(out) => {
                    let (recs, summary) = properties::convert(imp.as_mut(), out, &skips);
                    for r in &recs {
                        printer.case(r);
                    }
                    records.extend(recs);
                    props = Some(summary);
                }
                Err(e) => {
                    eprintln!("error: the properties phase: {e}");
                    status_override = Some(2);
                }
            },
        }
        if let Some(s) = spinner {
            s.finish_and_clear();
        }
    }
    drop(imp); // stops the adapter
    let elapsed = start.elapsed();
    let closing = report::closing_line(&impl_name, &records, props.as_ref(), elapsed);
    let mut closing_full = closing.clone();
    if not_run > 0 {
        closing_full.push_str(&format!(
            "\nstopped at the first failure (--fail-fast): {not_run} selected cases not run"
        ));
    }
    if not_selected_level > 0 {
        closing_full.push_str(&format!(
            "\n{not_selected_level} cases of other levels not selected (--level should|all selects them)"
        ));
    }
    let footer = report::footer_json(&records, props.as_ref(), elapsed, &closing);
    if opts.format == Format::Json {
        printer.out(&(canonical::to_string(&footer) + "\n"));
        eprintln!("{closing_full}");
    } else {
        let mut text = failures_text(&records);
        text.push_str(&groups_table(&impl_name, &records));
        text.push_str(&rules_table(&records));
        text.push('\n');
        printer.out(&text);
        human(&closing_full);
    }
    let (mut status, _) = verdict(Counts::of(&records), props.as_ref());
    if let Some(s) = status_override {
        status = s;
    }
    if let Some(p) = &opts.report {
        let mut lines = vec![header];
        lines.extend(records.iter().map(CaseRecord::to_json));
        lines.push(footer);
        if let Err(e) = report::write_report(p, &lines) {
            eprintln!("error: writing report {}: {e}", p.display());
            status = 2;
        }
    }
    if let Some(p) = &opts.junit {
        if let Err(e) = report::write_junit(p, &impl_name, &records, props.as_ref()) {
            eprintln!("error: writing JUnit {}: {e}", p.display());
            status = 2;
        }
    }
    if let Some(p) = &opts.write_skip_file {
        let text = skip_file_text(&records, &skips, opts.skip_by_rule);
        if let Err(e) = crate::fsutil::write_atomic(p, text.as_bytes()) {
            eprintln!("error: writing {}: {e}", p.display());
            status = 2;
        }
    }
    status
}

/// `journal-conformance summary`: print the table (shards merged) and return the
/// verdict's exit status (the worst over implementations).
pub fn summary_command(paths: &[PathBuf], json: bool) -> i32 {
    let mut all = Vec::new();
    for p in paths {
        match read_report(Path::new(p)) {
            Ok(s) => all.push(s),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    let merged = match merge_shards(all) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    print!("{}", summary(&merged, json));
    merged.iter().map(|r| r.verdict().0).max().unwrap_or(2)
}
