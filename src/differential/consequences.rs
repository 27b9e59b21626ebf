//! Consequences across operations (issue 22 item 3; SPEC.md 13.6, rule `D-CONSEQ-1`).
//!
//! A journal that an implementation reads differently (a line split where SPEC.md has
//! none, a duplicate key kept) disagrees in `validate` and, through it, in every
//! operation that reads the same journal: `replay`, `fingerprint`, `branch`. A tree file
//! loaded differently disagrees in `tree_inspect` and in every `tree_apply` on it. Those
//! later kinds are not new decisions: once a kind is shrunk, its input is asked of the
//! earlier operation (`validate` for the journal operations, `tree_inspect` for
//! `tree_apply`), and when the implementation already disagrees there, the kind is folded
//! into the earlier operation's kind of that disagreement (the same operation, cause,
//! rule and grouping as a kind the phase found), or becomes that earlier kind when the
//! phase found none. So the one reader decision of a seed-style implementation is one
//! kind per way its `validate` differs, not one per operation it reaches; and a skip-list
//! entry that makes the earlier kind known makes its consequences known with it.
//!
//! The earlier operation is asked only when the implementation offers it for the kind's
//! profile; an adapter fault there leaves the kind as it was (counted as errored).

use super::attribute::classify;
use super::counterexamples::make_kind;
use super::trials::{expectation, Trial};
use super::{DiffOptions, Found, Kind};
use crate::adapter::{ImplInfo, Implementation, Reply};
use crate::ops::Operation;

/// The operation whose disagreement a kind of `op` would be a consequence of.
pub fn earlier(op: &Operation) -> Option<Operation> {
    match op {
        Operation::Replay { .. } | Operation::Fingerprint { .. } | Operation::Branch { .. } => {
            Some(Operation::Validate)
        }
        Operation::TreeApply { .. } => Some(Operation::TreeInspect),
        _ => None,
    }
}

/// Fold every kind whose shrunk input already disagrees in its earlier operation into
/// that operation's kind (see the module's text). Kinds keep their order; a folded kind
/// leaves an entry in the earlier kind's `consequences` and its explanation.
pub fn fold(
    imp: &mut dyn Implementation,
    info: &ImplInfo,
    kinds: Vec<Kind>,
    opts: &DiffOptions,
    errored: &mut u32,
) -> Vec<Kind> {
    let mut out: Vec<Kind> = Vec::with_capacity(kinds.len());
    let mut later: Vec<Kind> = Vec::new();
    for k in kinds {
        match k.counterexample.checks.first().and_then(|c| earlier(&c.op)) {
            Some(_) => later.push(k),
            None => out.push(k),
        }
    }
    for k in later {
        let check = &k.counterexample.checks[0];
        let Some(op) = earlier(&check.op) else {
            out.push(k);
            continue;
        };
        let profile = k.counterexample.profile;
        if !info.supports(&op, profile) {
            out.push(k);
            continue;
        }
        let t = Trial {
            input: k.counterexample.input.clone(),
            op,
            profile,
            origin: format!("the shrunk input of {}", k.id),
            planted: Vec::new(),
            label: None,
        };
        let Ok(want) = expectation(&t) else {
            out.push(k);
            continue;
        };
        let got = match imp.run(&t.op, t.profile, &t.input) {
            Reply::Answer(a) => a,
            Reply::Fault(_) => {
                *errored += 1;
                out.push(k);
                continue;
            }
            Reply::Unsupported => {
                out.push(k);
                continue;
            }
        };
        let Some(d) = classify(&t, &want, &got, opts.known_rules) else {
            out.push(k);
            continue;
        };
        let key = d.key(t.op.name());
        let entry = format!("{} {}", k.op, k.id);
        let why = format!(
            "{}: a consequence, its shrunk input already disagrees in {}",
            entry,
            t.op.name()
        );
        match out.iter_mut().find(|e| e.key == key) {
            Some(e) => {
                e.occurrences += k.occurrences;
                e.consequences.push(entry);
                e.explanation.push_str(&format!("\nalso explains {why}"));
            }
            None => {
                let found = Found {
                    first_case: k.first_case,
                    occurrences: k.occurrences,
                    trial: t,
                    want,
                    found: d,
                    tree: None,
                };
                let mut e = make_kind(&imp.info().name.clone(), opts, found, k.shrunk);
                e.consequences.push(entry);
                e.explanation.push_str(&format!("\nalso explains {why}"));
                out.push(e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_operation_comes_first() {
        assert_eq!(
            earlier(&Operation::Replay { until: None }),
            Some(Operation::Validate)
        );
        assert_eq!(
            earlier(&Operation::Fingerprint { until: Some(1) }),
            Some(Operation::Validate)
        );
        assert_eq!(
            earlier(&Operation::Branch {
                at: 0,
                branch_id: "b".into()
            }),
            Some(Operation::Validate)
        );
        assert_eq!(
            earlier(&Operation::TreeApply { steps: vec![] }),
            Some(Operation::TreeInspect)
        );
        assert_eq!(earlier(&Operation::Validate), None);
        assert_eq!(earlier(&Operation::Canonical), None);
        assert_eq!(earlier(&Operation::TreeInspect), None);
    }
}
