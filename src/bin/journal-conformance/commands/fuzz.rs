//! `journal-conformance fuzz --adapter CMD`: a time-bounded (or execution-bounded),
//! corpus-growing differential campaign against the reference (SPEC.md 13.7,
//! `FZ-CAMP-1` to `FZ-SHRINK-1`; the library's [`journal_conformance::campaign`]).
//! Findings are shrunk, grouped into decisions and written as vectors; exit 1 on a
//! finding outside the skip list.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::io::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use journal_conformance::adapter::{Implementation, Limits, OneShot, Persistent};
use journal_conformance::campaign::{self, CampaignReport, Event, Options, Stats};
use journal_conformance::json::Value;
use journal_conformance::ops::{OpKind, Profile};
use journal_conformance::runner::SkipList;

/// Arguments of `fuzz`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = "\
A campaign first replays its corpus (the conformance corpus on a new campaign; the corpus \
directory's kept inputs when --corpus names one that a campaign has used), then runs \
executions until --runs or --duration is spent (60 s when neither is given; the first \
reached stops it). Each execution generates a trial or mutates a kept input; the adapter \
and the in-process reference answer it; an input with a new behaviour signature is kept \
(in --corpus DIR as a vector file, so the directory is also a corpus for `test --corpus`). \
A disagreement, crash, hang or protocol error is a finding: shrunk, grouped into decisions, \
written as vectors in --findings DIR. The same --seed, --runs and --jobs give the same \
campaign. Exit 0 without a finding outside the skip list, 1 with one, 2 on usage errors, \
an adapter that does not start, or a corpus that cannot be written.")]
pub struct FuzzArgs {
    /// The adapter command (as `test --adapter`).
    #[arg(long)]
    pub adapter: String,
    /// Start the adapter once per request (as `test --one-shot`).
    #[arg(long)]
    pub one_shot: bool,
    /// Stop after this long (`90s`, `10m`, `1h`).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub duration: Option<Duration>,
    /// Stop after this many executions (after the corpus's replay).
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Keep inputs here and resume from them (a campaign's corpus directory).
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Write findings here as vector files (default: <temp dir>/journal-conformance-fuzz-findings).
    #[arg(long, value_name = "DIR")]
    pub findings: Option<PathBuf>,
    /// Adapters run at once (each with its share of the executions).
    #[arg(long, default_value_t = 1)]
    pub jobs: u32,
    /// The campaign's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only these operations (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ops: Vec<String>,
    /// Only inputs of this profile.
    #[arg(long)]
    pub profile: Option<String>,
    /// Findings attributed to this skip list's rules are known (as `test --skip-file`).
    #[arg(long, value_name = "FILE")]
    pub skip_file: Option<PathBuf>,
    /// Seconds one request may take before it is a hang (the adapter is ended).
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// A memory blow-up is a finding: the adapter's process over this many MiB resident
    /// (a persistent adapter's peak since it started, a one-shot adapter's per request).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub max_memory: u64,
    /// `text` (progress on stderr, the findings and decisions on stdout) or `json`
    /// (JSON lines on stdout: progress, each finding, each kind, the summary).
    #[arg(long, default_value = "text")]
    pub format: String,
}

/// Run `fuzz`.
pub fn run(args: FuzzArgs) -> i32 {
    match try_run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}

fn try_run(args: FuzzArgs) -> Result<i32, String> {
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        f => return Err(format!("--format {f:?}: expected text or json")),
    };
    if !(args.timeout > 0.0 && args.timeout.is_finite() && args.timeout < 1e9) {
        return Err("--timeout must be a positive number of seconds".into());
    }
    if args.jobs == 0 || args.jobs > 64 {
        return Err("--jobs must be between 1 and 64".into());
    }
    if args.duration.is_some_and(|d| d.is_zero()) || args.runs == Some(0) {
        return Err("--duration and --runs must be more than 0".into());
    }
    let ops = OpKind::parse_list(&args.ops)?;
    let profile = args
        .profile
        .as_deref()
        .map(|p| Profile::parse(p).ok_or_else(|| format!("--profile {p:?}: not a profile")))
        .transpose()?;
    let skips = match &args.skip_file {
        Some(p) => SkipList::read(p)?,
        None => SkipList::default(),
    };
    let known = skips.known_set();
    let findings = args
        .findings
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("journal-conformance-fuzz-findings"));
    let duration = match (args.duration, args.runs) {
        (None, None) => Some(Duration::from_secs(60)),
        (d, _) => d,
    };
    let seeds = campaign::corpus::trials_of(&journal_conformance::vectors::load_embedded()?);
    let limits = Limits::with_timeout(Duration::from_secs_f64(args.timeout));
    let (adapter, one_shot) = (args.adapter.clone(), args.one_shot);
    let make = move || -> Result<Box<dyn Implementation>, String> {
        Ok(if one_shot {
            Box::new(OneShot::new(&adapter, limits)?)
        } else {
            Box::new(Persistent::start(&adapter, limits)?)
        })
    };
    // The adapter must start before the campaign says anything about it.
    let name = make()?.info().name.clone();
    let opts = Options {
        seed: args.seed,
        runs: args.runs,
        duration,
        jobs: args.jobs,
        ops: (!ops.is_empty()).then_some(ops),
        profile,
        corpus: args.corpus.as_deref(),
        findings: &findings,
        known_rules: &known,
        seeds,
        max_memory: Some(args.max_memory.saturating_mul(1024 * 1024)),
    };
    let resumed = match &args.corpus {
        Some(d) => campaign::corpus::executions(d)?,
        None => 0,
    };
    if !json {
        let until = match (duration, args.runs) {
            (Some(d), Some(r)) => format!("{r} executions or {}", humantime::format_duration(d)),
            (Some(d), None) => humantime::format_duration(d).to_string(),
            (None, Some(r)) => format!("{r} executions"),
            (None, None) => unreachable!("a default duration is set"),
        };
        println!(
            "fuzz: {name} against the reference, seed {}, {} job(s), until {until}; corpus {}; findings {}",
            args.seed,
            args.jobs,
            match &args.corpus {
                Some(d) if resumed > 0 => format!("{} (resumed after {resumed} executions)", d.display()),
                Some(d) => format!("{} (new)", d.display()),
                None => "in memory (--corpus DIR keeps it and resumes from it)".into(),
            },
            findings.display()
        );
    }
    let terminal = !json && std::io::stderr().is_terminal();
    let spinner = terminal.then(|| {
        let s = indicatif::ProgressBar::new_spinner();
        s.enable_steady_tick(Duration::from_millis(200));
        s
    });
    let mut last_line = Instant::now();
    let mut on_event = |e: Event| match e {
        Event::Progress(st) => {
            if json {
                println!("{}", to_line(progress_json(st)));
            } else if let Some(s) = &spinner {
                s.set_message(progress_text(st));
            } else if last_line.elapsed() >= Duration::from_secs(10) {
                last_line = Instant::now();
                eprintln!("fuzz: {}", progress_text(st));
            }
        }
        Event::Finding(text) => {
            if json {
                println!(
                    "{}",
                    to_line(Value::object([
                        ("type", Value::from("finding")),
                        ("text", Value::from(text)),
                    ]))
                );
            } else {
                let line = format!("new finding: {text}");
                match &spinner {
                    Some(s) => s.println(line),
                    None => eprintln!("{line}"),
                }
            }
        }
    };
    let report = campaign::run(&make, &opts, &mut on_event);
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    finish(&args, &report, &skips, &make, json)
}

fn to_line(v: Value) -> String {
    journal_conformance::canonical::to_string(&v)
}

fn progress_text(st: &Stats) -> String {
    format!(
        "{}: {:.0} s, {} executions ({:.0}/s), corpus {}, signatures {}, kinds {} ({} known), faults {}",
        st.phase,
        st.elapsed.as_secs_f64(),
        st.executions,
        st.per_second(),
        st.corpus,
        st.signatures,
        st.findings,
        st.known,
        st.faults
    )
}

fn progress_json(st: &Stats) -> Value {
    Value::object([
        ("type", Value::from("progress")),
        ("phase", Value::from(st.phase)),
        ("seconds", Value::from_u64(st.elapsed.as_secs())),
        ("executions", Value::from_u64(st.executions)),
        ("per_second", Value::from_u64(st.per_second() as u64)),
        ("corpus", Value::from_u64(st.corpus)),
        ("signatures", Value::from_u64(st.signatures)),
        ("findings", Value::from_u64(st.findings)),
        ("known", Value::from_u64(st.known)),
        ("faults", Value::from_u64(st.faults)),
    ])
}

fn finish(
    args: &FuzzArgs,
    report: &CampaignReport,
    skips: &SkipList,
    make: &(dyn Fn() -> Result<Box<dyn Implementation>, String> + Sync),
    json: bool,
) -> Result<i32, String> {
    let st = &report.stats;
    let new = report.kinds.iter().filter(|k| !k.known).count();
    let failed = new > 0;
    let broken = !report.errors.is_empty();
    let adapter = shell_words::quote(&args.adapter).into_owned();
    let dir = shell_words::quote(&report.findings_dir.to_string_lossy()).into_owned();
    let one_shot = if args.one_shot { " --one-shot" } else { "" };
    let reproduce = format!(
        "journal-conformance test --corpus {dir} --properties 0 --adapter {adapter}{one_shot}"
    );
    // One finding's reproducer: the same run, that case alone.
    let reproduce_one = |id: &str| {
        format!(
            "journal-conformance test {} --exact --corpus {dir} --properties 0 --adapter {adapter}{one_shot}",
            shell_words::quote(id)
        )
    };
    // The decisions: every finding asked once more, as `test` would, then grouped.
    let records = if report.kinds.is_empty() {
        Vec::new()
    } else {
        let mut imp = make()?;
        let diff = journal_conformance::differential::DiffReport {
            kinds: report.kinds.clone(),
            ..Default::default()
        };
        journal_conformance::runner::properties::convert(
            imp.as_mut(),
            diff,
            skips,
            &journal_conformance::runner::probe::Probes::default(),
        )
        .0
    };
    let decisions = journal_conformance::decisions::decide(&records);
    let verdict = if broken {
        "incomplete"
    } else if failed {
        "failed"
    } else {
        "ok"
    };
    if json {
        for k in &report.kinds {
            println!(
                "{}",
                to_line(Value::object([
                    ("type", Value::from("kind")),
                    ("id", Value::from(k.id.as_str())),
                    ("op", Value::from(k.op.as_str())),
                    ("cause", Value::from(k.cause.as_str())),
                    ("rule", Value::from(k.rule.id())),
                    ("known", Value::Bool(k.known)),
                    ("occurrences", Value::from_u64(u64::from(k.occurrences))),
                    ("first_execution", Value::from_u64(u64::from(k.first_case))),
                    ("shrunk", Value::Bool(k.shrunk)),
                    (
                        "input_bytes",
                        Value::from_u64(k.counterexample.input.len() as u64)
                    ),
                    (
                        "path",
                        k.path
                            .as_ref()
                            .map_or(Value::Null, |p| Value::from(p.to_string_lossy().as_ref())),
                    ),
                    ("explanation", Value::from(k.explanation.as_str())),
                    ("reproduce", Value::from(reproduce_one(&k.id).as_str())),
                ]))
            );
        }
        let mut summary = progress_json(st);
        if let Value::Object(m) = &mut summary {
            m[0].1 = Value::from("summary");
            m.push(("verdict".into(), Value::from(verdict)));
            m.push(("resumed_from".into(), Value::from_u64(st.resumed_from)));
            m.push(("replayed".into(), Value::from_u64(st.replayed)));
            m.push((
                "findings_dir".into(),
                Value::from(report.findings_dir.to_string_lossy().as_ref()),
            ));
            m.push(("reproduce".into(), Value::from(reproduce.as_str())));
            m.push((
                "decisions".into(),
                journal_conformance::decisions::to_json(&decisions),
            ));
            m.push((
                "errors".into(),
                Value::Array(
                    report
                        .errors
                        .iter()
                        .map(|e| Value::from(e.as_str()))
                        .collect(),
                ),
            ));
        }
        println!("{}", to_line(summary));
    } else {
        let mut out = std::io::stdout().lock();
        for (op, why) in &report.skipped_ops {
            let _ = writeln!(out, "not fuzzed: {op}: {why}");
        }
        for k in &report.kinds {
            let _ = writeln!(
                out,
                "{} {}{}\n    {}\n    reproduce: {}",
                if k.known { "known" } else { "FINDING" },
                k.id,
                k.path
                    .as_ref()
                    .map_or(String::new(), |p| format!(" (in {})", p.display())),
                k.explanation,
                reproduce_one(&k.id)
            );
        }
        if !decisions.is_empty() {
            let _ = write!(out, "{}", journal_conformance::decisions::table(&decisions));
        }
        for e in &report.errors {
            let _ = writeln!(out, "error: {e}");
        }
        let _ = writeln!(
            out,
            "fuzz {} for {}: {} finding(s) ({} known) in {} executions ({:.0}/s, {:.1} s; {} replayed from the corpus{}), corpus {} inputs",
            match verdict {
                "ok" => "ok",
                "failed" => "FAILED",
                _ => "INCOMPLETE",
            },
            report.implementation,
            report.kinds.len(),
            report.kinds.len() - new,
            st.executions,
            st.per_second(),
            st.elapsed.as_secs_f64(),
            st.replayed,
            if st.resumed_from > 0 {
                format!("; resumed after {} executions", st.resumed_from)
            } else {
                String::new()
            },
            st.corpus
        );
        if !report.kinds.is_empty() {
            let _ = writeln!(out, "reproduce: {reproduce}");
            let _ = writeln!(
                out,
                "show one:  journal-conformance show --corpus {dir} {}",
                report.kinds[0].id
            );
        }
    }
    Ok(if broken {
        EXIT_USAGE
    } else if failed {
        EXIT_INVALID
    } else {
        EXIT_OK
    })
}
