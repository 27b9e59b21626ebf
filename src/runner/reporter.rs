//! What a run shows as it goes: the [`Reporter`] the runner calls into (bowtie's reporter
//! is the model), and the kit's three printers, chosen by `--format`:
//!
//! - pretty: one line per case (a case whose operation or profile the implementation
//!   does not offer is not listed: one line per such reason gives the count), then the failures explained, a table by group, the
//!   failures-by-rule table and the closing line;
//! - terse: one character per case (`.` passed, `F` failed, `E` errored, `s` skipped),
//!   then the same closing text;
//! - json: JSON lines only on stdout (the report's header, a line per case, its footer);
//!   human text goes to stderr.
//!
//! The runner returns the run as data ([`super::RunOutcome`]); printers only print.

use std::collections::BTreeMap;
use std::io::Write;

use super::RunOutcome;
use crate::canonical;
use crate::record::{CaseRecord, Counts, Outcome};
use crate::report::Header;
use crate::verdict::Cause;

/// Receives a run's events, in this order: [`start`](Reporter::start), a
/// [`case`](Reporter::case) per fixed case in corpus order, [`corpus_done`](Reporter::corpus_done),
/// then, when the properties phase runs, [`properties_start`](Reporter::properties_start),
/// a `case` per differential kind and [`properties_done`](Reporter::properties_done);
/// last, once the run's files are written, [`finish`](Reporter::finish).
pub trait Reporter {
    /// The implementation answered its handshake and `cases` cases will run.
    fn start(&mut self, header: &Header, note: &str);
    /// One case's settled record.
    fn case(&mut self, record: &CaseRecord);
    /// Every fixed case has been reported.
    fn corpus_done(&mut self) {}
    /// The properties phase compares `cases` generated cases.
    fn properties_start(&mut self, _cases: u32) {}
    /// The properties phase is over (`error`: it could not complete; the outcome's
    /// errors say so too).
    fn properties_done(&mut self, _error: Option<&str>) {}
    /// The run is over and its files are written ([`super::write_outputs`]): called by
    /// whoever ran it, so that what is printed says what the files say.
    fn finish(&mut self, outcome: &RunOutcome);
}

/// Output formats of `test` (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// One line per case, then the failures, the groups and the closing line.
    #[default]
    Pretty,
    /// One character per case (`.` passed, `F` failed, `E` errored, `s` skipped).
    Terse,
    /// JSON lines only: the report's header, one line per case, its footer.
    Json,
}

/// The kit's printer for one [`Format`], on stdout (and stderr for human text).
#[derive(Debug)]
pub struct Printer {
    format: Format,
    terse_col: usize,
    /// Pretty: cases skipped because an operation or profile is not offered, counted
    /// by reason and printed as one line per reason when the corpus is done.
    not_offered: Vec<(String, u64)>,
    /// `--by-rule`: print the failures-by-rule table too.
    by_rule: bool,
}

impl Printer {
    pub fn new(format: Format) -> Printer {
        Printer {
            format,
            terse_col: 0,
            not_offered: Vec::new(),
            by_rule: false,
        }
    }

    /// Print the failures-by-rule table before the decisions (`--by-rule`).
    pub fn with_by_rule(mut self, by_rule: bool) -> Printer {
        self.by_rule = by_rule;
        self
    }

    fn out(&self, text: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
    }
}

/// `ok`/`.`, `FAILED`/`F`, ...
fn mark(o: Outcome) -> (&'static str, char) {
    match o {
        Outcome::Passed => ("ok", '.'),
        Outcome::Failed => ("FAILED", 'F'),
        Outcome::Errored => ("ERRORED", 'E'),
        Outcome::Skipped => ("skipped", 's'),
    }
}

impl Reporter for Printer {
    fn start(&mut self, header: &Header, note: &str) {
        eprintln!("{note}");
        if self.format == Format::Json {
            self.out(&(canonical::to_string(&header.to_json()) + "\n"));
        }
    }

    fn case(&mut self, r: &CaseRecord) {
        match self.format {
            Format::Pretty => {
                if let Some(why) = r.not_offered() {
                    match self.not_offered.iter_mut().find(|(w, _)| *w == why) {
                        Some((_, n)) => *n += 1,
                        None => self.not_offered.push((why, 1)),
                    }
                    return;
                }
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

    fn corpus_done(&mut self) {
        for (why, n) in std::mem::take(&mut self.not_offered) {
            self.out(&format!("skipped {n} cases ({why})\n"));
        }
        if self.format == Format::Terse && !self.terse_col.is_multiple_of(88) {
            self.out("\n");
        }
    }

    fn finish(&mut self, o: &RunOutcome) {
        let closing = o.closing_with_notes();
        if self.format == Format::Json {
            self.out(&(canonical::to_string(&o.footer().to_json()) + "\n"));
            eprintln!("{closing}");
        } else {
            let mut text = failures_text(&o.records);
            text.push_str(&groups_table(&o.header.implementation.name, &o.records));
            if self.by_rule {
                text.push_str(&rules_table(&o.records));
            }
            text.push_str(&crate::decisions::table(&crate::decisions::decide(
                &o.records,
            )));
            text.push('\n');
            self.out(&text);
            println!("{closing}");
        }
    }
}

/// Every failed or errored case, explained.
pub fn failures_text(records: &[CaseRecord]) -> String {
    let mut s = String::new();
    for r in records.iter().filter(|r| r.outcome.is_bad()) {
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
pub fn rules_table(records: &[CaseRecord]) -> String {
    let failed = records
        .iter()
        .filter(|r| r.outcome.is_bad())
        .filter_map(|r| Some((&r.rules[..], r.cause?)));
    crate::explain::failures_by_rule(failed).unwrap_or_default()
}

/// Outcomes by group.
pub fn groups_table(implementation: &str, records: &[CaseRecord]) -> String {
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
