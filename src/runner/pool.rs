//! The worker pool of a run: `--jobs N` implementations (the reference, or N adapter
//! processes), each taking the next case; records are settled by the skip list and
//! handed to the reporter in corpus order, whatever the number of jobs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use super::case::run_case_with;
use super::probe::Probes;
use super::reporter::Reporter;
use super::skiplist::{settle, SkipList};
use super::{Options, RunError};
use crate::adapter::{ImplInfo, Implementation, Limits, OneShot, Persistent, Reference};
use crate::ops::OpKind;
use crate::record::CaseRecord;
use crate::vectors::Case;

/// Start one of `jobs` implementations as the options say (each adapter gets its share
/// of the run's output budget, [`Limits::for_jobs`]).
pub fn start(opts: &Options, jobs: usize) -> Result<Box<dyn Implementation>, String> {
    let limits = Limits::for_jobs(opts.timeout, jobs);
    Ok(match (&opts.adapter, opts.one_shot) {
        (None, _) => Box::new(Reference::default()),
        (Some(cmd), false) => Box::new(Persistent::start(cmd, limits)?),
        (Some(cmd), true) => Box::new(OneShot::new(cmd, limits)?),
    })
}

/// `--require OP,...`: an unknown name is a usage error, a missing one fails the run.
pub fn check_require(require: &[String], info: &ImplInfo) -> Result<(), RunError> {
    let mut missing = Vec::new();
    for r in require {
        if OpKind::parse(r).is_none() && crate::ops::Profile::parse(r).is_none() {
            return Err(RunError::usage(format!(
                "--require {r:?}: not an operation ({}) or a profile ({})",
                OpKind::names(),
                crate::ops::Profile::ALL
                    .map(crate::ops::Profile::as_str)
                    .join(", ")
            )));
        }
        if !info.operations.contains(r) && !info.profiles.contains(r) {
            missing.push(r.as_str());
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(RunError {
        status: 1,
        message: format!(
            "the adapter does not offer what --require demands: {} (it offers operations [{}], profiles [{}])",
            missing.join(", "),
            info.operations.join(", "),
            info.profiles.join(", ")
        ),
    })
}

/// What the pool did.
pub struct Ran {
    /// The settled records of the cases that ran, in corpus order.
    pub records: Vec<CaseRecord>,
    /// Selected cases not run (`--fail-fast` stopped the run).
    pub not_run: usize,
    /// `--fail-fast` saw a failed or errored case.
    pub stopped_early: bool,
    /// The first implementation, still running (the properties phase uses it).
    pub first: Box<dyn Implementation>,
}

/// Run `cases` on `impls` (one worker thread each); with `fail_fast`, stop taking cases
/// after the first failed or errored one. Fingerprint failures are looked into within
/// `probes`, admitted in corpus order.
pub fn run_cases(
    impls: Vec<Box<dyn Implementation>>,
    cases: Vec<Case>,
    skips: &SkipList,
    fail_fast: bool,
    probes: &Arc<Probes>,
    reporter: &mut dyn Reporter,
) -> Result<Ran, RunError> {
    let cases = Arc::new(cases);
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, CaseRecord)>();
    let mut handles = Vec::new();
    for mut imp in impls {
        let (cases, next, stop, tx) = (cases.clone(), next.clone(), stop.clone(), tx.clone());
        let probes = probes.clone();
        handles.push(std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let rec = run_case_with(imp.as_mut(), case, &probes);
                if fail_fast && rec.outcome.is_bad() {
                    stop.store(true, Ordering::SeqCst);
                }
                if tx.send((i, rec)).is_err() {
                    break;
                }
            }
            imp
        }));
    }
    drop(tx);
    let mut slots: Vec<Option<CaseRecord>> = vec![None; cases.len()];
    let mut printed = 0;
    let mut stopped_early = false;
    for (i, rec) in rx {
        let rec = settle(rec, &cases[i], skips);
        if fail_fast && rec.outcome.is_bad() {
            stop.store(true, Ordering::SeqCst);
            stopped_early = true;
        }
        slots[i] = Some(rec);
        while let Some(Some(r)) = slots.get_mut(printed) {
            probes.admit(r);
            reporter.case(r);
            printed += 1;
        }
    }
    let mut handles = handles.into_iter();
    let first = handles
        .next()
        .expect("one job at least")
        .join()
        .map_err(|_| RunError::usage("a runner thread panicked".into()))?;
    for h in handles {
        drop(h.join()); // ends those adapters
    }
    for r in slots[printed..].iter_mut().flatten() {
        probes.admit(r);
        reporter.case(r);
    }
    let not_run = slots.iter().filter(|s| s.is_none()).count();
    Ok(Ran {
        records: slots.into_iter().flatten().collect(),
        not_run,
        stopped_early,
        first,
    })
}
