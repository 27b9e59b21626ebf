//! Gate path 15: the library's own API where no command calls it, judged against the
//! vector's expectation.

use super::*;

/// A torn tail (offset, bytes) for a message.
fn shown(torn: Option<(u64, Vec<u8>)>) -> String {
    match torn {
        None => "none".into(),
        Some((at, bytes)) => format!("{:?} at {at}", String::from_utf8_lossy(&bytes)),
    }
}

/// The expected inspect view's member `key` as a list of strings.
fn strings(view: &Value, key: &str) -> Option<Vec<String>> {
    view.get(key)?
        .as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Gate path 15, the library's own API: the functions a Rust user calls that no command
/// or operation of the kit calls (each answering path has its own, bounded or shape-only,
/// variant), judged on the corpus against the vector's expectation:
///
/// - `journal::read` (the reader with the default line bound) on every `validate` check:
///   the vector's `event_count` or error;
/// - `tree::Loaded::load` on every `tree_inspect` check in its dialect: the view or the
///   error; then, where there is a view, the `yoagent-0.26` session's `path_ids`,
///   `branch_tips`, `entries` and `path_messages` against the view's `path_ids`,
///   `branch_tips` and `entry_count` (one message per path entry), and the generic
///   tree's `entry` and `children` of every entry id against the view's `children` (and
///   `None` for an id the tree lacks);
/// - the drawing of a shape-only load (`tree::Loaded::read` with `shape_only`, then
///   `render`), which `tree show` never draws: the lines gate path 13 derives, in both
///   dialects (a shape has no messages, so each line ends after the two spaces);
/// - `store::inspect_recovery` and `Store::open` on the initial journal of every
///   `store_apply` check with a result: the first open's torn tail as the vector's
///   `recovered` has it (as in gate path 5), the acknowledged length (`end`) the offset it
///   is cut at or the whole input, and `is_empty` exactly when that is 0 (an open journal
///   has no blank line, W-BLANK-1).
#[test]
fn the_library_api_answers_the_corpus() {
    let Some(_running) = fail_fast() else { return };
    use journal_conformance::store::{inspect_recovery, Store};
    use journal_conformance::tree::Loaded;
    use journal_conformance::wire::DEFAULT_MAX_LINE_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    let mut wrong = Vec::new();
    for case in vectors::load_embedded().unwrap() {
        for check in &case.checks {
            let fault: Option<String> = match &check.op {
                Operation::Validate => {
                    let answer = match journal_conformance::journal::read(
                        &case.input[..],
                        case.profile.journal(),
                        |_| {},
                    ) {
                        Ok(n) => {
                            Answer::Result(Value::object([("event_count", Value::from_u64(n))]))
                        }
                        Err(journal_conformance::error::ReadError::Invalid(e)) => error_answer(e),
                        Err(e) => Answer::Result(Value::from(e.to_string())),
                    };
                    *counts.entry("journal::read").or_default() += 1;
                    judge(&check.expect, &answer).map(|m| format!("journal::read: {m:?}"))
                }
                Operation::TreeInspect => {
                    let dialect = case.profile.dialect();
                    let loaded = Loaded::load(&case.input, dialect);
                    let answer = match &loaded {
                        Ok(l) => Answer::Result(l.inspect()),
                        Err(e) => error_answer(e.clone()),
                    };
                    *counts.entry("Loaded::load").or_default() += 1;
                    let mut fault =
                        judge(&check.expect, &answer).map(|m| format!("Loaded::load: {m:?}"));
                    if let (Ok(l), Expect::Result { value, .. }) = (&loaded, &check.expect) {
                        fault = fault.or_else(|| tree_api(l, value, &mut counts));
                        fault = fault.or_else(|| {
                            let want = expected_drawing(&case.input, value)?;
                            let shape = Loaded::read(
                                &case.input[..],
                                dialect,
                                true,
                                DEFAULT_MAX_LINE_BYTES,
                            )
                            .map_err(|e| format!("shape-only load: {e}"));
                            *counts.entry("shape render").or_default() += 1;
                            let drawing = match shape {
                                Ok(s) => s.render(),
                                Err(e) => return Some(e),
                            };
                            let got: Vec<&str> = drawing.lines().collect();
                            let agrees = got.len() == want.len()
                                && got.iter().zip(&want).all(|(g, w)| g == w);
                            (!agrees).then(|| {
                                format!(
                                    "shape-only render ({dialect:?}): want\n{}\ngot\n{drawing}",
                                    want.join("\n")
                                )
                            })
                        });
                    }
                    fault
                }
                Operation::StoreApply { steps } => {
                    let Expect::Result { value, .. } = &check.expect else {
                        continue;
                    };
                    let Some(first) = first_torn(value, steps) else {
                        continue;
                    };
                    let file = dir.path().join("s.jsonl");
                    let _ = std::fs::remove_file(&file);
                    let _ = std::fs::remove_file(file.with_extension("jsonl.torn-1"));
                    std::fs::write(&file, &case.input).unwrap();
                    let profile = case.profile.journal();
                    *counts.entry("store").or_default() += 1;
                    let end = first.as_ref().map_or(case.input.len() as u64, |f| f.0);
                    let torn = |t: Option<&journal_conformance::store::Torn>| {
                        t.map(|t| (t.offset, t.bytes.clone()))
                    };
                    match (
                        inspect_recovery(&file, profile),
                        Store::open(&file, profile),
                    ) {
                        (Ok(dry), _) if torn(dry.torn.as_ref()) != first => Some(format!(
                            "inspect_recovery: torn {}, want {}",
                            shown(torn(dry.torn.as_ref())),
                            shown(first)
                        )),
                        (Ok(_), Ok((store, rec))) => {
                            if torn(rec.torn.as_ref()) != first {
                                Some(format!(
                                    "Store::open recovered {}, want {}",
                                    shown(torn(rec.torn.as_ref())),
                                    shown(first)
                                ))
                            } else if store.end() != end {
                                Some(format!("Store::end {}, want {end}", store.end()))
                            } else if store.is_empty() != (end == 0) {
                                Some(format!("Store::is_empty {} at end {end}", store.is_empty()))
                            } else {
                                None
                            }
                        }
                        (Err(e), _) => Some(format!("inspect_recovery failed: {e}")),
                        (_, Err(e)) => Some(format!("Store::open failed: {e}")),
                    }
                }
                _ => None,
            };
            if let Some(m) = fault {
                wrong.push(format!("{}: {m}", case.id));
            }
        }
    }
    for (what, at_least) in [
        ("journal::read", 1900),
        ("Loaded::load", 1000),
        ("shape render", 500),
        ("yoagent session", 400),
        ("generic tree", 200),
        ("store", 40),
    ] {
        let n = counts.get(what).copied().unwrap_or(0);
        assert!(
            n >= at_least,
            "only {n} {what} checks (want {at_least}): {counts:?}"
        );
    }
    assert_all_right("library API checks", counts.values().sum(), 0, &wrong);
}

/// The tree API of a loaded tree against its expected inspect `view` (gate path 15).
fn tree_api(
    loaded: &journal_conformance::tree::Loaded,
    view: &Value,
    counts: &mut std::collections::BTreeMap<&'static str, usize>,
) -> Option<String> {
    use journal_conformance::tree::Loaded;
    match loaded {
        Loaded::Yoagent(s) => {
            *counts.entry("yoagent session").or_default() += 1;
            let path = strings(view, "path_ids")?;
            let tips = strings(view, "branch_tips")?;
            let count = view.get("entry_count")?.as_i64()? as usize;
            if s.path_ids() != path {
                Some(format!(
                    "Session::path_ids {:?}, want {path:?}",
                    s.path_ids()
                ))
            } else if s.branch_tips() != tips {
                Some(format!(
                    "Session::branch_tips {:?}, want {tips:?}",
                    s.branch_tips()
                ))
            } else if s.entries().len() != count {
                Some(format!(
                    "Session::entries: {}, want {count}",
                    s.entries().len()
                ))
            } else if s.path_messages().len() != path.len() {
                Some(format!(
                    "Session::path_messages: {}",
                    s.path_messages().len()
                ))
            } else {
                None
            }
        }
        Loaded::Generic(t) => {
            *counts.entry("generic tree").or_default() += 1;
            for (id, kids) in view.get("children")?.as_object()? {
                let kids: Vec<&str> = kids.as_array()?.iter().filter_map(Value::as_str).collect();
                if t.children(id).as_deref() != Some(&kids[..]) {
                    return Some(format!(
                        "Tree::children({id}) {:?}, want {kids:?}",
                        t.children(id)
                    ));
                }
                if t.entry(id).map(|e| e.id.as_str()) != Some(id.as_str()) {
                    return Some(format!("Tree::entry({id}) is not the entry"));
                }
            }
            let stranger = "no entry has this id \u{1}";
            (t.children(stranger).is_some() || t.entry(stranger).is_some())
                .then(|| "Tree::children or entry of an unknown id is not None".to_owned())
        }
        Loaded::YoagentShape(_) => Some("Loaded::load made a shape".into()),
    }
}
