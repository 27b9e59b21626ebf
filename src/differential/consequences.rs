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
//!
//! After the fold, kinds of different operations whose shrunk inputs are the same bytes
//! in the same profile are one decision too ([`merge_same_input`], `D-CONSEQ-2`): a
//! reducer decision that shows in `replay` and in `branch` on the same minimal journal
//! is one kind, the first operation's.

use super::attribute::classify;
use super::counterexamples::make_kind;
use super::trials::{expectation, Trial};
use super::{DiffOptions, Found, Kind};
use crate::adapter::{ImplInfo, Implementation, Reply};
use crate::ops::{OpKind, Operation};
use std::collections::BTreeMap;

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
            label_rule: None,
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

/// Merge every kind whose shrunk input (bytes and profile) is a kind's of an operation
/// earlier in [`OpKind::ALL`]'s order (D-CONSEQ-2) into that kind: its occurrences are
/// added, its id listed as a consequence. Kinds keep their order otherwise. Kinds of one
/// operation never share a shrunk input: the same input and answer classify as one kind.
pub fn merge_same_input(kinds: Vec<Kind>) -> Vec<Kind> {
    let rank = |k: &Kind| {
        OpKind::ALL
            .iter()
            .position(|o| o.as_str() == k.op)
            .unwrap_or(OpKind::ALL.len())
    };
    // The kind each input goes to: the one of the earliest operation, first found.
    let mut target: BTreeMap<(&[u8], &str), usize> = BTreeMap::new();
    for (i, k) in kinds.iter().enumerate() {
        let key = (
            k.counterexample.input.as_slice(),
            k.counterexample.profile.as_str(),
        );
        let e = target.entry(key).or_insert(i);
        if rank(k) < rank(&kinds[*e]) {
            *e = i;
        }
    }
    let goes_to: Vec<usize> = kinds
        .iter()
        .map(|k| {
            target[&(
                k.counterexample.input.as_slice(),
                k.counterexample.profile.as_str(),
            )]
        })
        .collect();
    let mut slots: Vec<Option<Kind>> = kinds.into_iter().map(Some).collect();
    for (i, &t) in goes_to.iter().enumerate() {
        if t == i {
            continue;
        }
        let k = slots[i].take().expect("a kind is merged once");
        let e = slots[t].as_mut().expect("a target is never merged");
        let entry = format!("{} {}", k.op, k.id);
        e.occurrences += k.occurrences;
        e.explanation.push_str(&format!(
            "\nalso explains {entry}: the same decision, its shrunk input is this kind's"
        ));
        e.consequences.push(entry);
        e.consequences.extend(k.consequences);
    }
    slots.into_iter().flatten().collect()
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
