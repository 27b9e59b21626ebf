//! Fuzz campaigns against any implementation (SPEC.md 13.7, `FZ-CAMP-1` to `FZ-SHRINK-1`;
//! `journal-conformance fuzz`).
//!
//! A campaign runs until its execution count or its time is spent. It first replays its
//! corpus (the conformance corpus on a new campaign, the corpus directory's inputs on a
//! resumed one), then, execution by execution, either generates a new trial (the
//! differential phase's generators, [`crate::differential::trials()`]) or mutates a kept
//! input ([`mutate`]). Every execution is asked of the implementation and of the
//! in-process reference; [`crate::verdict::judge`], through the differential phase's
//! [`classify`], decides whether they agree. An input whose behaviour signature
//! ([`signature`]) is new is kept ([`corpus`]). A disagreement or an adapter fault is a
//! finding: grouped into kinds as the differential phase does, shrunk ([`crate::differential::minimize`];
//! proptest first for generated trials), folded into earlier operations' kinds
//! ([`crate::differential::consequences`]) and written as vectors `test --corpus` and
//! `show` accept. Execution `n` of seed `s` draws from its own generator, so a campaign
//! is deterministic for its seed, its executions and its job count.

pub mod corpus;
pub mod mutate;
pub mod signature;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use proptest::prelude::Rng as _;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::adapter::{Implementation, Reply};
use crate::differential::{
    arbitrary_trial, classify, consequences, counterexamples, expectation, minimize, same_kind,
    shrink, trials, DiffOptions, Disagreement, Found, Kind, KindKey, Trial,
};
use crate::generate::GenConfig;
use crate::ops::{OpKind, Profile};
use crate::rules::id;
use crate::verdict::{Cause, Expect};

/// The largest mutated input a campaign asks (generated ones are smaller).
pub const MAX_INPUT: usize = 1 << 16;

/// Shrinking is bounded by its calls to the implementation (so a campaign's findings
/// are the same on a slow machine), and by time only as a safety net: each job's
/// whole shrinking after the campaign, and one finding (proptest's and the minimizer's
/// share each) (FZ-SHRINK-1).
pub const SHRINK_BUDGET: Duration = Duration::from_secs(20);
pub const SHRINK_EACH: Duration = Duration::from_secs(5);
pub const SHRINK_CALLS: u32 = 600;

/// Makes one implementation (one per job).
pub type Factory<'a> = dyn Fn() -> Result<Box<dyn Implementation>, String> + Sync + 'a;

/// How to run a campaign.
pub struct Options<'a> {
    pub seed: u64,
    /// Executions after the replay of the corpus (`None`: until `duration`).
    pub runs: Option<u64>,
    pub duration: Option<Duration>,
    pub jobs: u32,
    /// Only these operations (`None`: every one the handshake offers).
    pub ops: Option<Vec<OpKind>>,
    pub profile: Option<Profile>,
    /// The corpus directory (kept inputs and the state); `None` keeps them in memory.
    pub corpus: Option<&'a Path>,
    pub findings: &'a Path,
    /// Skip-list rules (`RULE`, `OP/RULE`): findings attributed to them are known.
    pub known_rules: &'a BTreeSet<String>,
    /// The conformance cases a new campaign starts from.
    pub seeds: Vec<Trial>,
    /// Peak resident memory of the adapter's process over which a job reports a memory
    /// blow-up (once per job), in bytes; `None`: not watched.
    pub max_memory: Option<u64>,
}

/// Counters of a campaign so far.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Executions of this run (the corpus's replay included).
    pub executions: u64,
    /// Executions of the campaign before this run (from its state file).
    pub resumed_from: u64,
    pub replayed: u64,
    /// Execution numbers this run consumed (what the state file adds up).
    pub consumed: u64,
    pub corpus: u64,
    pub signatures: u64,
    /// Kinds found so far (known ones included), and how many are known.
    pub findings: u64,
    pub known: u64,
    pub faults: u64,
    pub elapsed: Duration,
    /// What the campaign is doing: `replay`, `fuzzing` or `shrinking`.
    pub phase: &'static str,
}

impl Stats {
    pub fn per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.executions as f64 / s
        } else {
            0.0
        }
    }
}

/// What a campaign reports as it runs.
pub enum Event<'a> {
    Progress(&'a Stats),
    /// A new kind: its operation, cause, rule and the execution it appeared at.
    Finding(&'a str),
}

/// What a campaign found.
#[derive(Debug, Default)]
pub struct CampaignReport {
    pub stats: Stats,
    pub kinds: Vec<Kind>,
    /// Where the findings were written.
    pub findings_dir: PathBuf,
    /// What the campaign could not do (write its corpus, start a job's adapter).
    pub errors: Vec<String>,
    /// Operations (and why) no execution reached.
    pub skipped_ops: Vec<(String, String)>,
    pub implementation: String,
}

/// The generator of execution `n` of job-independent seed `seed`.
fn exec_rng(seed: u64, n: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&n.to_le_bytes());
    bytes[16..20].copy_from_slice(b"jcfz");
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Shared between the jobs and the thread that reports progress.
struct Shared<'a> {
    opts: &'a Options<'a>,
    stats: Mutex<Stats>,
    events: Mutex<Vec<String>>,
    errors: Mutex<Vec<String>>,
    stop: AtomicBool,
    deadline: Option<Instant>,
    start: Instant,
    /// Keys of the kinds found by any job (for the progress count).
    keys: Mutex<BTreeSet<KindKey>>,
}

/// A kind found by one job, before shrinking; `order` sorts the replay's findings
/// (by their place in the corpus) before the executions' (by their number).
struct Pending {
    found: Found,
    order: u64,
}

/// Where an input came from: the corpus's replay (its place) or execution `n`.
#[derive(Clone, Copy)]
enum Source {
    Replay(u64),
    Exec(u64),
}

impl Source {
    fn order(self) -> u64 {
        match self {
            Source::Replay(i) => i,
            Source::Exec(n) => (1 << 48) + n,
        }
    }

    fn number(self) -> u64 {
        match self {
            Source::Replay(i) | Source::Exec(i) => i,
        }
    }
}

/// What one job brings back.
struct JobResult {
    kinds: Vec<(u64, Kind)>,
    name: String,
    skipped: Vec<(String, String)>,
}

/// The disagreement of an adapter fault: the fault's message with its numbers blurred
/// is its grouping, so a crash and a timeout are two kinds.
fn fault_disagreement(m: &str) -> Disagreement {
    let group: String = m
        .chars()
        .take(60)
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    Disagreement {
        cause: Cause::AdapterFault,
        rule: Some(id::A_FAULT_1),
        group,
        detail: crate::error::shorten(m.as_bytes(), 120),
        message: format!(
            "the adapter did not answer (crash, timeout or protocol error): {}",
            crate::error::shorten(m.as_bytes(), 300)
        ),
    }
}

/// A memory blow-up (FZ-FIND-1): the answer may be right, the process's peak is not.
fn memory_disagreement(peak: u64, limit: u64) -> Disagreement {
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    let message = format!(
        "memory blow-up: the adapter's process reached a peak of {:.0} MiB resident, over --max-memory {:.0} MiB (`test` does not watch memory: run the campaign or `scale` on this input to see it again)",
        mb(peak),
        mb(limit)
    );
    Disagreement {
        cause: Cause::AdapterFault,
        rule: Some(id::FZ_FIND_1),
        group: "memory".into(),
        detail: format!("peak {:.0} MiB", mb(peak)),
        message,
    }
}

/// Ask `t` of `imp` and judge it: the reference's expectation, the disagreement (if
/// any) and the adapter's side of the signature. `None` when it cannot be compared.
fn execute(
    imp: &mut dyn Implementation,
    t: &Trial,
    known: &BTreeSet<String>,
) -> Option<(Expect, Option<Disagreement>, String)> {
    if !imp.info().supports(&t.op, t.profile) {
        return None;
    }
    let want = expectation(t).ok()?;
    match imp.run(&t.op, t.profile, &t.input) {
        Reply::Unsupported => None,
        Reply::Fault(m) => Some((want, Some(fault_disagreement(&m)), "fault".into())),
        Reply::Answer(a) => {
            let d = classify(t, &want, &a, known);
            let side = signature::adapter(d.is_none(), Some(&a));
            Some((want, d, side))
        }
    }
}

fn diff_options<'a>(opts: &'a Options<'a>) -> DiffOptions<'a> {
    DiffOptions {
        cases: 0,
        seed: opts.seed,
        fail_fast: false,
        partition: None,
        known_rules: opts.known_rules,
        counterexamples: None,
        max_shrunk_kinds: usize::MAX,
        found_by: "a fuzz campaign",
    }
}

/// Shrink each kind (proptest first when it came from a value tree, then
/// [`minimize`]), within an overall budget.
fn shrink_all(
    imp: &mut dyn Implementation,
    pending: Vec<Pending>,
    opts: &Options,
    name: &str,
) -> Vec<(u64, Kind)> {
    let dopts = diff_options(opts);
    let start = Instant::now();
    let mut errored = 0;
    let mut out = Vec::new();
    for mut p in pending {
        let key = p.found.found.key(p.found.trial.op.name());
        let left = SHRINK_BUDGET.saturating_sub(start.elapsed());
        let mut shrunk = false;
        // A fault's kind is not shrunk: each step could cost a timeout.
        if !left.is_zero() && key.1 != Cause::AdapterFault {
            if let Some(tree) = p.found.tree.take() {
                let ms = left.min(SHRINK_EACH).as_millis() as u32;
                if let Some((t, want, d)) =
                    shrink::shrink(imp, tree, &key, &dopts, ms, &mut errored)
                {
                    p.found.trial = t;
                    p.found.want = want;
                    p.found.found = d;
                    shrunk = true;
                }
            }
            let budget = minimize::Budget {
                calls: SHRINK_CALLS,
                time: left.min(SHRINK_EACH),
            };
            let before = p.found.trial.input.len();
            let (t, _) = minimize::minimize(
                &p.found.trial,
                &mut |c| same_kind(imp, c, &key, &dopts, &mut errored).is_some(),
                budget,
            );
            if let Some((want, d)) = same_kind(imp, &t, &key, &dopts, &mut errored) {
                shrunk |= t.input.len() < before || t.op != p.found.trial.op;
                p.found.trial = t;
                p.found.want = want;
                p.found.found = d;
            }
        }
        out.push((
            p.order,
            counterexamples::make_kind(name, &dopts, p.found, shrunk),
        ));
    }
    out
}

fn note(skipped: &mut Vec<(String, String)>, op: &str, why: &str) {
    if !skipped.iter().any(|(o, _)| o == op) {
        skipped.push((op.to_owned(), why.to_owned()));
    }
}

/// One job: replay its share of the corpus, then its share of the executions.
fn job(shared: &Shared, j: u32, pool: Vec<Trial>, make: &Factory) -> Result<JobResult, String> {
    let opts = shared.opts;
    let mut imp = make()?;
    let info = imp.info().clone();
    let mut skipped = Vec::new();
    let offered: Vec<String> = info
        .operations
        .iter()
        .filter(|o| {
            let keep = opts
                .ops
                .as_ref()
                .is_none_or(|only| OpKind::parse(o).is_some_and(|k| only.contains(&k)));
            if !keep {
                note(&mut skipped, o, "not selected by --ops");
            }
            keep
        })
        .cloned()
        .collect();
    let wanted = |t: &Trial| {
        offered.iter().any(|o| o == t.op.name())
            && opts.profile.is_none_or(|p| p == t.profile)
            && info.supports(&t.op, t.profile)
    };
    let cfg = GenConfig {
        events: 1..=12,
        ..GenConfig::default()
    };
    let strategy = trials(&cfg, &offered, &info.profiles);
    let mut runner = TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        exec_rng(opts.seed, u64::MAX),
    );
    let mut kept: Vec<Trial> = Vec::new();
    let mut sigs: HashSet<(String, String)> = HashSet::new();
    let mut found: BTreeMap<KindKey, Pending> = BTreeMap::new();
    let mut order: Vec<KindKey> = Vec::new();
    let mut faults_in_a_row = 0u32;
    let mut memory_reported = false;
    let jobs = u64::from(opts.jobs.max(1));
    let resumed = shared.stats.lock().unwrap().resumed_from;

    // The replay (this job's share), then the executions n ≡ j (mod jobs).
    let replay: Vec<(usize, Trial)> = pool
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % jobs == u64::from(j))
        .collect();
    let mut replay = replay.into_iter();
    let mut n = resumed + u64::from(j);
    loop {
        if shared.stop.load(Ordering::SeqCst)
            || shared.deadline.is_some_and(|d| Instant::now() >= d)
        {
            break;
        }
        let (trial, tree, source) = if let Some((i, t)) = replay.next() {
            shared.stats.lock().unwrap().phase = "replay";
            if !wanted(&t) {
                continue;
            }
            (t, None, Source::Replay(i as u64))
        } else {
            if opts.runs.is_some_and(|r| n >= resumed + r) {
                break;
            }
            let exec = n;
            n += jobs;
            {
                let mut st = shared.stats.lock().unwrap();
                st.consumed += 1;
                st.phase = "fuzzing";
            }
            let mut rng = exec_rng(opts.seed, exec);
            let fresh = kept.is_empty() || rng.next_u32().is_multiple_of(4);
            // A fifth of the fresh trials come from random bytes through the `arbitrary`
            // recipes when the adapter offers a journal operation (another distribution
            // than proptest's: defaults where the bytes run out, long runs of one choice);
            // otherwise, and when the bytes build nothing wanted, the strategies.
            let from_bytes = (fresh && rng.next_u32().is_multiple_of(5))
                .then(|| {
                    let mut data = vec![0u8; 4 + (rng.next_u32() % 1024) as usize];
                    rng.fill_bytes(&mut data);
                    arbitrary_trial(&cfg, &offered, &data)
                })
                .flatten()
                .filter(&wanted);
            if let Some(t) = from_bytes {
                (t, None, Source::Exec(exec))
            } else if fresh {
                let Some(s) = &strategy else { break };
                *runner.rng() = rng;
                let tree = s
                    .new_tree(&mut runner)
                    .map_err(|e| format!("execution {exec}: {e}"))?;
                let t = tree.current();
                if !wanted(&t) {
                    continue;
                }
                (t, Some(tree), Source::Exec(exec))
            } else {
                let a = (rng.next_u64() % kept.len() as u64) as usize;
                let b = (rng.next_u64() % kept.len() as u64) as usize;
                let mut t = kept[a].clone();
                for _ in 0..1 + rng.next_u32() % 3 {
                    t = mutate::mutate(&t, &kept[b], &mut rng).0;
                }
                if t.input.len() > MAX_INPUT {
                    // Repeats and splices grow inputs: past the bound, an execution of
                    // the parent's bytes would teach nothing new.
                    continue;
                }
                (t, None, Source::Exec(exec))
            }
        };
        let Some((want, mut d, side)) = execute(imp.as_mut(), &trial, opts.known_rules) else {
            continue;
        };
        if let (Some(limit), false, None) = (opts.max_memory, memory_reported, &d) {
            if let Some(peak) = imp.process_peak_memory().filter(|&p| p > limit) {
                memory_reported = true;
                d = Some(memory_disagreement(peak, limit));
            }
        }
        let is_fault = side == "fault";
        {
            let mut st = shared.stats.lock().unwrap();
            st.executions += 1;
            st.replayed += u64::from(matches!(source, Source::Replay(_)));
            st.faults += u64::from(is_fault);
        }
        faults_in_a_row = if is_fault { faults_in_a_row + 1 } else { 0 };
        let sig = (signature::reference(&trial, &want), side);
        if sigs.insert(sig) {
            if let Some(dir) = opts.corpus {
                if let Err(e) = corpus::save(dir, &trial, &want) {
                    shared.errors.lock().unwrap().push(e);
                    shared.stop.store(true, Ordering::SeqCst);
                }
            }
            let mut st = shared.stats.lock().unwrap();
            st.signatures += 1;
            st.corpus += 1;
            drop(st);
            kept.push(trial.clone());
        }
        if let Some(d) = d {
            let key = d.key(trial.op.name());
            match found.get_mut(&key) {
                Some(p) => p.found.occurrences += 1,
                None => {
                    let first = shared.keys.lock().unwrap().insert(key.clone());
                    if first {
                        let known = crate::differential::is_known(
                            opts.known_rules,
                            trial.op.name(),
                            d.rule
                                .unwrap_or_else(|| counterexamples::op_rule(&trial.op)),
                        );
                        let mut st = shared.stats.lock().unwrap();
                        st.findings += 1;
                        st.known += u64::from(known);
                        drop(st);
                        shared.events.lock().unwrap().push(format!(
                            "{}: {} ({}){} at {}, {:.1} s",
                            trial.op.name(),
                            d.cause.as_str(),
                            d.rule.map_or("-", |r| r.id()),
                            if known { ", known" } else { "" },
                            match source {
                                Source::Exec(n) => format!("execution {n}"),
                                Source::Replay(_) => trial.origin.clone(),
                            },
                            shared.start.elapsed().as_secs_f64()
                        ));
                    }
                    order.push(key.clone());
                    found.insert(
                        key,
                        Pending {
                            order: source.order(),
                            found: Found {
                                first_case: u32::try_from(source.number()).unwrap_or(u32::MAX),
                                occurrences: 1,
                                trial,
                                want,
                                found: d,
                                tree,
                            },
                        },
                    );
                }
            }
        }
        if faults_in_a_row >= 20 {
            shared.errors.lock().unwrap().push(format!(
                "job {j}: the adapter faulted 20 times in a row; the campaign stopped (is it dead?)"
            ));
            shared.stop.store(true, Ordering::SeqCst);
        }
    }
    if strategy.is_none() {
        note(
            &mut skipped,
            "*",
            "no operation offered and selected can be generated",
        );
    }
    let pending: Vec<Pending> = order.iter().filter_map(|k| found.remove(k)).collect();
    shared.stats.lock().unwrap().phase = "shrinking";
    let name = info.name.clone();
    let kinds = shrink_all(imp.as_mut(), pending, opts, &name);
    // Consequences: a later operation's kind whose input already disagrees in validate,
    // or whose input is an earlier operation's kind's (D-CONSEQ-1, D-CONSEQ-2).
    let dopts = diff_options(opts);
    let mut errored = 0;
    let (execs, kinds): (Vec<u64>, Vec<Kind>) = kinds.into_iter().unzip();
    let before: Vec<(String, u64)> = kinds.iter().map(|k| k.id.clone()).zip(execs).collect();
    // A fault is no reader decision's consequence: fault kinds are never folded.
    let (faults, kinds): (Vec<Kind>, Vec<Kind>) = kinds
        .into_iter()
        .partition(|k| k.cause == Cause::AdapterFault);
    let kinds = consequences::fold(imp.as_mut(), &info, kinds, &dopts, &mut errored);
    let mut kinds = consequences::merge_same_input(kinds);
    kinds.extend(faults);
    let kinds = kinds
        .into_iter()
        .map(|k| {
            let exec = before
                .iter()
                .find(|(id, _)| *id == k.id)
                .map_or(u64::MAX, |(_, e)| *e);
            (exec, k)
        })
        .collect();
    Ok(JobResult {
        kinds,
        name,
        skipped,
    })
}

/// Run a campaign. `on_event` is called from this thread (progress about once a
/// second, and each new kind).
pub fn run(make: &Factory, opts: &Options, on_event: &mut dyn FnMut(Event)) -> CampaignReport {
    let start = Instant::now();
    let mut report = CampaignReport {
        findings_dir: opts.findings.to_path_buf(),
        ..CampaignReport::default()
    };
    let (resumed_from, pool) = match opts.corpus {
        Some(dir) => match (corpus::executions(dir), corpus::load(dir)) {
            (Ok(n), Ok(kept)) if n > 0 || !kept.is_empty() => (n, kept),
            (Ok(n), Ok(_)) => (n, opts.seeds.clone()),
            (Err(e), _) | (_, Err(e)) => {
                report.errors.push(e);
                return report;
            }
        },
        None => (0, opts.seeds.clone()),
    };
    let shared = Shared {
        opts,
        stats: Mutex::new(Stats {
            resumed_from,
            ..Stats::default()
        }),
        events: Mutex::new(Vec::new()),
        errors: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        deadline: opts.duration.map(|d| start + d),
        start,
        keys: Mutex::new(BTreeSet::new()),
    };
    let jobs = opts.jobs.max(1);
    let results: Vec<Result<JobResult, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                let pool = pool.clone();
                let shared = &shared;
                s.spawn(move || {
                    let r = job(shared, j, pool, make);
                    if r.is_err() {
                        shared.stop.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        let mut last = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            for e in std::mem::take(&mut *shared.events.lock().unwrap()) {
                on_event(Event::Finding(&e));
            }
            if last.elapsed() >= Duration::from_secs(1) {
                last = Instant::now();
                let mut st = shared.stats.lock().unwrap().clone();
                st.elapsed = shared.start.elapsed();
                on_event(Event::Progress(&st));
                if let Some(dir) = opts.corpus {
                    // The state as of now: an interrupted campaign resumes from here.
                    let _ = corpus::record(dir, resumed_from + st.consumed);
                }
            }
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a campaign job panicked".into()))
            })
            .collect()
    });
    for e in std::mem::take(&mut *shared.events.lock().unwrap()) {
        on_event(Event::Finding(&e));
    }
    report.errors.extend(shared.errors.into_inner().unwrap());
    let mut stats = shared.stats.into_inner().unwrap();
    stats.elapsed = start.elapsed();
    // Merge the jobs' kinds: one per key, the earliest execution's representative.
    let mut merged: BTreeMap<KindKey, (u64, Kind)> = BTreeMap::new();
    let mut order: Vec<KindKey> = Vec::new();
    for r in results {
        match r {
            Ok(jr) => {
                report.implementation = jr.name;
                for (op, why) in jr.skipped {
                    note(&mut report.skipped_ops, &op, &why);
                }
                for (exec, k) in jr.kinds {
                    match merged.get_mut(&k.key) {
                        Some((e, m)) => {
                            let occ = m.occurrences + k.occurrences;
                            if exec < *e {
                                *e = exec;
                                *m = k;
                            }
                            m.occurrences = occ;
                        }
                        None => {
                            order.push(k.key.clone());
                            merged.insert(k.key.clone(), (exec, k));
                        }
                    }
                }
            }
            Err(e) => report.errors.push(e),
        }
    }
    let mut kinds: Vec<(u64, Kind)> = order.iter().filter_map(|k| merged.remove(k)).collect();
    kinds.sort_by_key(|(e, _)| *e);
    let mut kinds: Vec<Kind> = kinds.into_iter().map(|(_, k)| k).collect();
    counterexamples::dedupe_ids(&mut kinds);
    if !kinds.is_empty() {
        if let Err(e) = counterexamples::write_kinds(opts.findings, &mut kinds) {
            report.errors.push(format!(
                "writing the findings to {}: {e}",
                opts.findings.display()
            ));
        }
        let _ = counterexamples::keep_kinds(&counterexamples::kept_dir(), &kinds);
    }
    if let Some(dir) = opts.corpus {
        if let Err(e) = corpus::record(dir, resumed_from + stats.consumed) {
            report.errors.push(e);
        }
    }
    stats.findings = kinds.len() as u64;
    stats.known = kinds.iter().filter(|k| k.known).count() as u64;
    report.stats = stats;
    report.kinds = kinds;
    report
}
