//! Planning a run: the corpus loaded (embedded or `--corpus DIR`, plus the golden
//! traces), the skip list read and checked against it, and the cases selected by the
//! FILTERs, `--rule`, `--tag`, `--level` and `--partition`, in id order.

use std::path::Path;

use super::select::Selection;
use super::skiplist::SkipList;
use super::{Options, RunError};
use crate::json::Value;
use crate::vectors::{self, Case, Level};

/// The golden traces (`golden/`) as cases of group `golden` (G-1).
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
                expect: crate::verdict::Expect::Result {
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

/// The corpus of a run: `dir`'s vector files (the embedded corpus without one) and the
/// golden traces.
pub fn load_corpus(dir: Option<&Path>) -> Result<Vec<Case>, String> {
    let mut cases = match dir {
        Some(d) => vectors::load_dir(d)?,
        None => vectors::load_embedded()?,
    };
    cases.extend(golden_cases()?);
    Ok(cases)
}

/// What a run will do.
#[derive(Debug)]
pub struct Plan {
    /// The selected cases of this shard, in id order.
    pub cases: Vec<Case>,
    pub skips: SkipList,
    /// Cases the FILTERs selected but the level did not, by level (ascending).
    pub not_selected_level: Vec<(Level, usize)>,
    /// Whether the properties phase runs.
    pub properties: bool,
    /// `sha256:` of the loaded corpus, and its number of cases (the report's header).
    pub corpus_digest: String,
    pub corpus_cases: u64,
}

/// `sha256:` of a corpus: every case, in id order, as a vector file spells it.
pub fn corpus_digest(cases: &[Case]) -> String {
    let mut sorted: Vec<&Case> = cases.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut d = crate::report::LinesDigest::default();
    for c in sorted {
        d.line(&c.id);
        d.line(&crate::canonical::to_string(&vectors::to_file_json(
            std::slice::from_ref(c),
        )));
    }
    d.hex()
}

/// Load, check and select (see the module documentation). An empty selection is a
/// usage error.
pub fn plan(opts: &Options) -> Result<Plan, RunError> {
    let corpus = load_corpus(opts.corpus.as_deref())
        .map_err(|e| RunError::usage(format!("loading the corpus: {e}")))?;
    let skips = match opts.skip_file.as_deref().map(SkipList::read).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return Err(RunError::usage(e)),
    };
    skips.check(&corpus).map_err(RunError::usage)?;
    let digest = corpus_digest(&corpus);
    let corpus_cases = corpus.len() as u64;
    let (cases, not_selected_level, before) = select(corpus, &opts.selection, opts);
    let properties = opts.properties > 0 && opts.selection.admits_properties();
    if before == 0 && !properties {
        return Err(RunError::usage(format!(
            "no case matches the selection (FILTERs, --exact, --skip, --rule, --tag, --level{}); `test --list` shows the cases",
            if let Some(note) = level_note(&not_selected_level) {
                format!(": {note}")
            } else {
                String::new()
            }
        )));
    }
    Ok(Plan {
        cases,
        skips,
        not_selected_level,
        properties,
        corpus_digest: digest,
        corpus_cases,
    })
}

/// Filters, rules, tags, level; then the partition over what is left. Returns the
/// cases, how many the level left out, and how many there were before the partition.
fn select(
    corpus: Vec<Case>,
    selection: &Selection,
    opts: &Options,
) -> (Vec<Case>, Vec<(Level, usize)>, usize) {
    let mut chosen: Vec<Case> = corpus
        .into_iter()
        .filter(|c| selection.admits_id(c))
        .collect();
    chosen.sort_by(|a, b| a.id.cmp(&b.id));
    let mut left_out: std::collections::BTreeMap<Level, usize> = Default::default();
    chosen.retain(|c| {
        let admitted = selection.level.admits(c.level);
        if !admitted {
            *left_out.entry(c.level).or_default() += 1;
        }
        admitted
    });
    let not_selected_level: Vec<(Level, usize)> = left_out.into_iter().collect();
    let before = chosen.len();
    if let Some(p) = opts.partition {
        chosen = chosen
            .into_iter()
            .enumerate()
            .filter(|(i, c)| p.admits(*i, &c.id))
            .map(|(_, c)| c)
            .collect();
    }
    (chosen, not_selected_level, before)
}

/// The note on cases the level left out (`left_out` by level, ascending), naming the
/// `--level` that selects them: `"2 implementation-defined cases not selected (--level
/// all selects them)"`; `None` when none was left out.
pub fn level_note(left_out: &[(Level, usize)]) -> Option<String> {
    let left: Vec<&(Level, usize)> = left_out.iter().filter(|(_, n)| *n > 0).collect();
    let highest = left.iter().map(|(l, _)| *l).max()?;
    let counts = left
        .iter()
        .map(|(l, n)| format!("{n} {} case{}", l.as_str(), if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" and ");
    let hint = match (highest, left.len()) {
        (Level::ImplementationDefined, 1) => "--level all selects them",
        (Level::ImplementationDefined, _) => {
            "--level should selects the should cases, --level all every case"
        }
        _ => "--level should selects them",
    };
    Some(format!("{counts} not selected ({hint})"))
}

#[cfg(test)]
mod level_tests {
    use super::*;

    /// The note names the level that selects what was left out (issue 22 item 6: it
    /// said `--level should|all` under `--level should` too).
    #[test]
    fn the_level_note_names_the_level_that_selects_the_rest() {
        assert_eq!(level_note(&[]), None);
        assert_eq!(
            level_note(&[(Level::ImplementationDefined, 2)]).unwrap(),
            "2 implementation-defined cases not selected (--level all selects them)"
        );
        assert_eq!(
            level_note(&[(Level::Should, 1)]).unwrap(),
            "1 should case not selected (--level should selects them)"
        );
        assert_eq!(
            level_note(&[(Level::Should, 3), (Level::ImplementationDefined, 1)]).unwrap(),
            "3 should cases and 1 implementation-defined case not selected (--level should selects the should cases, --level all every case)"
        );
    }
}
