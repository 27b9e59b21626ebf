//! `journal-conformance test`: its arguments (declared with clap like every other
//! command) and their translation into [`journal_conformance::runner::Options`].

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use journal_conformance::record::CaseRecord;
use journal_conformance::report::Header;
use journal_conformance::runner::{
    Format, LevelSelect, Options, Partition, Printer, Reporter, RunError, RunOutcome, Selection,
};

const AFTER_HELP: &str = "\
SELECTING CASES
  A case id is GROUP/NAME; the group is the vector file's path under the corpus without
  `.json` (`journal/gap` is in group `journal`, `canonical/keys/sorted` in `canonical/keys`).
  The same group names are used by the closing table, reports, JUnit and `summary`.
  FILTER...        run cases whose id contains any FILTER (with --exact: equals one)
  --skip PATTERN   leave out cases whose id contains PATTERN
  --rule PATTERN   cases exercising a matching rule id (`*` is a wildcard: `J-*`)
  --tag TAG        cases carrying the tag
  --level          must (default) selects `must` cases; should adds `should` cases (a
                   failing one fails the run); all adds `implementation-defined` cases,
                   which are reported and never fail the run
  --partition      count:K/N (the i-th selected case goes to shard i mod N + 1; plain K/N
                   means count) or hash:K/N (by a hash of the id), K from 1, as nextest.
                   Each shard runs its share of the generated cases. `summary` merges the
                   shards' reports into the verdict of one unsharded run.
  `test properties` runs only the properties phase (FILTERs select it by that name).

SKIP LISTS (--skip-file F)
  One entry per line: `CASE-ID reason`, `RULE-ID reason` or `properties/OP/RULE-ID
  reason` (`#` starts a comment). A listed case still runs: if it passes, it fails with
  cause unexpected_pass, so the list only shrinks. A rule id skips every case whose
  `rules` contain it (a passing one stays skipped) and marks differential disagreements
  on that rule as known; `properties/OP/RULE-ID` marks only the differential
  disagreements of operation OP on that rule as known (the rule's fixed vectors still
  count). --write-skip-file F writes the current failures with one-line reasons (and the
  entries still in effect), so that the next run with --skip-file F passes: cases by id,
  differential kinds as properties/OP/RULE-ID; --by-rule writes rule ids instead.

THE ADAPTER
  --adapter CMD is split into words as a POSIX shell would (quotes, backslashes; by the
  shell-words crate); leading NAME=value words are set in the adapter's environment. No
  other shell syntax is interpreted: use `sh -c '...'` for pipes or variables. The adapter
  runs in its own process group, ended as a whole (TERM, 1 s, KILL) on a timeout, crash,
  protocol error, restart, at the end of the run and on SIGINT/SIGTERM. --timeout bounds
  every wait: handshake, each check, stop. After 3 failed restarts in a row the adapter is
  declared dead and the remaining checks are errored at once.

EXIT STATUS (one verdict: closing line, footer, JUnit and summary count the same cases)
  0  every selected case passed or was skipped, and something was checked
  1  a case failed or errored (a differential disagreement is a failed case
     `properties/<op>/<hash>`), or nothing was checked (every case skipped), or
     --require is not met
  2  usage error: an empty selection, a bad flag or skip list, an adapter that cannot
     start or complete its handshake, an I/O error, or SIGINT/SIGTERM

REPORTS
  --format pretty  one line per case, the failures, a table by group, the decisions
                   (each one thing to change: a rule and a cause signature, the cases
                   and generated kinds it explains, an example), the closing line;
                   --by-rule adds the failures-by-rule table
  --format terse   one character per case (. F E s), the failures, table, closing line
  --format json    JSON lines only on stdout: the report's header, one line per case and
                   its footer (human text goes to stderr)
  --report F       the same JSON lines in a file (SPEC.md 13.5); --junit F: JUnit XML
                   (a suite per group, failure type = cause, body = explanation,
                   system-err = the adapter's stderr tail, skipped with the reason)
  Causes: wrong_result, wrong_error_code, wrong_location, result_instead_of_error,
  error_instead_of_result, adapter_fault, unexpected_pass.";

/// `journal-conformance test`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = AFTER_HELP)]
pub struct TestArgs {
    /// Run only cases whose id contains one of these (see --exact).
    pub filters: Vec<String>,
    /// FILTERs must equal a case id.
    #[arg(long)]
    pub exact: bool,
    /// Leave out cases whose id contains this (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub skip: Vec<String>,
    /// Only cases exercising a rule matching this (`*` wildcard; repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub rule: Vec<String>,
    /// Only cases with this tag (repeatable).
    #[arg(long, value_name = "TAG")]
    pub tag: Vec<String>,
    /// Which requirement levels are selected.
    #[arg(long, value_enum, default_value = "must")]
    pub level: LevelSelect,
    /// Run one shard: count:K/N, hash:K/N, or K/N (= count).
    #[arg(long, value_name = "KIND:K/N", value_parser = Partition::parse)]
    pub partition: Option<Partition>,
    /// List the selected cases instead of running them (with --format json: JSON lines).
    #[arg(long)]
    pub list: bool,
    /// Adapter command (protocol 1, persistent), e.g. 'python3 examples/python/adapter.py'.
    #[arg(long, value_name = "CMD")]
    pub adapter: Option<String>,
    /// Run the adapter once per check (one-shot mode, SPEC.md 13.2).
    #[arg(long, requires = "adapter")]
    pub one_shot: bool,
    /// Run this many adapter processes at once (results and order do not depend on it).
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub jobs: usize,
    /// Operations and profiles the adapter must offer (comma-separated; exit 1 if not).
    #[arg(long, value_delimiter = ',', value_name = "OP")]
    pub require: Vec<String>,
    /// Bound on every wait for the adapter, in seconds (handshake, each check, stop).
    #[arg(long, default_value_t = 10.0, value_name = "S")]
    pub timeout: f64,
    /// Corpus directory (default: the corpus embedded in this binary).
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Skip list: lines `CASE-ID reason` or `RULE-ID reason`.
    #[arg(long, value_name = "F")]
    pub skip_file: Option<PathBuf>,
    /// Write the failures of this run as a skip list that makes the next run pass.
    #[arg(long, value_name = "F")]
    pub write_skip_file: Option<PathBuf>,
    /// Print the failures-by-rule table too; with --write-skip-file, write the failing
    /// cases' rule ids instead of case ids.
    #[arg(long)]
    pub by_rule: bool,
    /// Stop at the first failed or errored case.
    #[arg(long)]
    pub fail_fast: bool,
    /// Output on stdout: pretty, terse, or json (JSON lines only).
    #[arg(long, value_enum, default_value = "pretty")]
    pub format: Format,
    /// Write JUnit XML here.
    #[arg(long, value_name = "F")]
    pub junit: Option<PathBuf>,
    /// Write a JSON-lines report here (header, one line per case, footer).
    #[arg(long, value_name = "F")]
    pub report: Option<PathBuf>,
    /// After the corpus and the properties phase, measure complexity (as `scale`) for up to
    /// this many seconds: each shape is a `should` case `scale/...`; a finding fails the run.
    #[arg(long, value_name = "SECONDS", requires = "adapter")]
    pub scale: Option<f64>,
    /// After the vectors, compare this many generated journals with the reference
    /// (default: 256 with --adapter, 0 without); a disagreement is shrunk.
    #[arg(long, value_name = "N")]
    pub properties: Option<u32>,
    /// Seed for the generated journals (same seed, same journals).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write shrunk counterexamples here as vector files.
    #[arg(long, value_name = "DIR")]
    pub counterexamples: Option<PathBuf>,
}

/// Run `test`; returns the exit status.
pub fn run(t: TestArgs) -> i32 {
    if !(t.timeout > 0.0 && t.timeout.is_finite() && t.timeout < 1e9) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    if t.jobs == 0 {
        eprintln!("error: --jobs must be at least 1");
        return 2;
    }
    if t.scale
        .is_some_and(|b| !(b > 0.0 && b.is_finite() && b < 1e9))
    {
        eprintln!("error: --scale must be a positive number of seconds");
        return 2;
    }
    let default_properties = if t.adapter.is_some() { 256 } else { 0 };
    let (list, format, by_rule) = (t.list, t.format, t.by_rule);
    let opts = Options {
        adapter: t.adapter,
        one_shot: t.one_shot,
        corpus: t.corpus,
        selection: Selection {
            filters: t.filters,
            exact: t.exact,
            skip: t.skip,
            rules: t.rule,
            tags: t.tag,
            level: t.level,
        },
        partition: t.partition,
        skip_file: t.skip_file,
        write_skip_file: t.write_skip_file,
        skip_by_rule: t.by_rule,
        require: t.require,
        jobs: t.jobs,
        timeout: Duration::from_secs_f64(t.timeout),
        junit: t.junit,
        report: t.report,
        properties: t.properties.unwrap_or(default_properties),
        seed: t.seed,
        counterexamples: t.counterexamples,
        fail_fast: t.fail_fast,
        scale: t.scale.map(Duration::from_secs_f64),
    };
    if list {
        return match journal_conformance::runner::list(&opts, format == Format::Json) {
            Ok(lines) => {
                let mut o = std::io::stdout().lock();
                for l in lines {
                    let _ = writeln!(o, "{l}");
                }
                0
            }
            Err(e) => fail(&e),
        };
    }
    let mut reporter = Progress::new(Printer::new(format).with_by_rule(by_rule));
    let mut outcome = match journal_conformance::runner::run(&opts, &mut reporter) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    // The files first (the report says what could not be written), then the closing
    // text, which says the same as the files and the exit status.
    journal_conformance::runner::write_outputs(&opts, &mut outcome);
    reporter.finish(&outcome);
    for e in &outcome.errors {
        eprintln!("error: {e}");
    }
    outcome.exit_status()
}

fn fail(e: &RunError) -> i32 {
    eprintln!("error: {e}");
    e.status
}

/// The printer with progress bars on a terminal: one over the corpus, a spinner over
/// the properties phase (indicatif; printing suspends the bar).
struct Progress {
    inner: Printer,
    bar: Option<indicatif::ProgressBar>,
    spinner: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(inner: Printer) -> Progress {
        Progress {
            inner,
            bar: None,
            spinner: None,
        }
    }

    fn with(&mut self, f: impl FnOnce(&mut Printer)) {
        match &self.bar {
            Some(b) => b.suspend(|| f(&mut self.inner)),
            None => f(&mut self.inner),
        }
    }
}

impl Reporter for Progress {
    fn start(&mut self, header: &Header, note: &str) {
        self.inner.start(header, note);
        let cases = header.cases;
        self.bar = (std::io::stderr().is_terminal() && cases > 0).then(|| {
            let b = indicatif::ProgressBar::new(cases);
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
    }

    fn case(&mut self, r: &CaseRecord) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
        self.with(|p| p.case(r));
    }

    fn corpus_done(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        self.inner.corpus_done();
    }

    fn properties_start(&mut self, cases: u32) {
        self.spinner = std::io::stderr().is_terminal().then(|| {
            let s = indicatif::ProgressBar::new_spinner();
            s.set_message(format!(
                "properties: comparing {cases} generated cases with the reference"
            ));
            s.enable_steady_tick(Duration::from_millis(120));
            s
        });
    }

    fn properties_done(&mut self, error: Option<&str>) {
        if let Some(s) = self.spinner.take() {
            s.finish_and_clear();
        }
        self.inner.properties_done(error);
    }

    fn finish(&mut self, outcome: &RunOutcome) {
        self.inner.finish(outcome);
    }
}
