//! Session-tree properties (issue "Session trees", SPEC.md section 15): random
//! operation sequences against an independent model that stores entries in a plain
//! list and scans it linearly, as the seed's library does; malformed files built from
//! valid ones with one defect each, labelled with the code and line they must produce.

use proptest::prelude::*;

use journal_conformance::generate::operations::{label, tree_op as op, TreeOp as Op};
use journal_conformance::json::Value;
use journal_conformance::tree::{Step, Tree};
use journal_conformance::ErrorCode;

/// The model: the seed's design, linear scans everywhere.
#[derive(Clone, Debug, Default)]
struct Model {
    entries: Vec<(String, Option<String>, i64, Option<String>)>,
    head: Option<String>,
    counter: u64,
}

impl Model {
    fn find(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.0 == id)
    }
    fn path(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = self.head.clone();
        while let Some(id) = cur {
            cur = self.entries[self.find(&id).unwrap()].1.clone();
            out.push(id);
        }
        out.reverse();
        out
    }
    fn tips(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| {
                !self
                    .entries
                    .iter()
                    .any(|c| c.1.as_deref() == Some(e.0.as_str()))
            })
            .map(|e| e.0.clone())
            .collect()
    }
    fn append(&mut self, msg: i64) -> String {
        self.counter += 1;
        let id = format!("e{}", self.counter);
        self.entries
            .push((id.clone(), self.head.clone(), msg, None));
        self.head = Some(id.clone());
        id
    }
    fn path_msgs(&self) -> Vec<i64> {
        self.path()
            .iter()
            .map(|id| self.entries[self.find(id).unwrap()].2)
            .collect()
    }
}

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|&n| Value::from_i64(n)).collect()
}

/// Apply `op` to both; compare outcomes. Returns the step for the record.
fn step(tree: &mut Tree, model: &mut Model, op: &Op) -> Result<(), TestCaseError> {
    let before_tips = model.tips();
    match op {
        Op::Append(m) => {
            let got = tree
                .apply(&Step::Append {
                    message: Value::from_i64(*m),
                    timestamp: 7,
                })
                .unwrap();
            prop_assert_eq!(got, Value::from(model.append(*m)));
        }
        Op::Seek(_) if model.entries.is_empty() => {
            prop_assert_eq!(tree.seek("e1").unwrap_err().code, ErrorCode::UnknownEntry);
        }
        Op::Seek(k) => {
            let id = model.entries[k % model.entries.len()].0.clone();
            tree.seek(&id).unwrap();
            model.head = Some(id);
            // A seek never loses a branch.
            prop_assert_eq!(model.tips(), before_tips);
        }
        Op::SeekMissing => {
            prop_assert_eq!(tree.seek("nope").unwrap_err().code, ErrorCode::UnknownEntry);
        }
        Op::Checkpoint(l) => match &model.head {
            None => prop_assert_eq!(
                tree.checkpoint(&label(*l)).unwrap_err().code,
                ErrorCode::EmptySession
            ),
            Some(h) => {
                tree.checkpoint(&label(*l)).unwrap();
                let i = model.find(h).unwrap();
                model.entries[i].3 = Some(label(*l));
            }
        },
        Op::SeekCheckpoint(l) => {
            let want = model
                .entries
                .iter()
                .rev()
                .find(|e| e.3 == Some(label(*l)))
                .map(|e| e.0.clone());
            match want {
                None => prop_assert_eq!(
                    tree.seek_checkpoint(&label(*l)).unwrap_err().code,
                    ErrorCode::UnknownCheckpoint
                ),
                Some(id) => {
                    tree.seek_checkpoint(&label(*l)).unwrap();
                    model.head = Some(id);
                }
            }
        }
        Op::AppendNewExtend(tail) => {
            let mut hist = model.path_msgs();
            hist.extend(tail);
            prop_assert_eq!(tree.append_new(&ints(&hist), 7).unwrap(), tail.len());
            for m in tail {
                model.append(*m);
            }
        }
        Op::AppendNewDiverge(k) => {
            let mut hist = model.path_msgs();
            if hist.is_empty() {
                return Ok(());
            }
            let i = k % hist.len();
            hist[i] += 100;
            let e = tree.append_new(&ints(&hist), 7).unwrap_err();
            prop_assert_eq!(e.code, ErrorCode::HistoryDiverged);
            prop_assert_eq!(e.index, Some(i as u64));
        }
        Op::AppendNewShorter => {
            let hist = model.path_msgs();
            if hist.is_empty() {
                return Ok(());
            }
            let e = tree
                .append_new(&ints(&hist[..hist.len() - 1]), 7)
                .unwrap_err();
            prop_assert_eq!(e.index, Some(hist.len() as u64 - 1));
        }
        Op::SaveLoad => {
            let text = tree.save();
            *tree = Tree::load(text.as_bytes()).unwrap();
            model.head = model.entries.last().map(|e| e.0.clone());
            // load(save(t)) saves to the same text.
            prop_assert_eq!(tree.save(), text);
        }
    }
    Ok(())
}

fn compare(tree: &Tree, model: &Model) -> Result<(), TestCaseError> {
    prop_assert_eq!(tree.head().map(str::to_owned), model.head.clone());
    let path: Vec<String> = tree.path_ids().into_iter().map(str::to_owned).collect();
    prop_assert_eq!(&path, &model.path());
    // Every path ends at a root.
    if let Some(first) = path.first() {
        prop_assert_eq!(&tree.entry(first).unwrap().parent_id, &None);
    }
    let tips: Vec<String> = tree.branch_tips().into_iter().map(str::to_owned).collect();
    prop_assert_eq!(tips, model.tips());
    prop_assert_eq!(tree.next_id(), Some(format!("e{}", model.counter + 1)));
    // Ids never collide.
    let mut ids: Vec<&str> = tree.entries().iter().map(|e| e.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    prop_assert_eq!(ids.len(), tree.entries().len());
    for (e, m) in tree.entries().iter().zip(&model.entries) {
        prop_assert_eq!(&e.id, &m.0);
        prop_assert_eq!(&e.parent_id, &m.1);
        prop_assert_eq!(&e.label, &m.3);
    }
    Ok(())
}

proptest! {
    // 512 cases, times JC_PROPERTY_SCALE (CI runs a release pass with 5).
    #![proptest_config(ProptestConfig {
        cases: 512 * std::env::var("JC_PROPERTY_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1u32).max(1),
        ..ProptestConfig::default()
    })]

    #[test]
    fn operations_agree_with_the_linear_model(ops in prop::collection::vec(op(), 0..40)) {
        let mut tree = Tree::new();
        let mut model = Model::default();
        for op in &ops {
            step(&mut tree, &mut model, op)?;
            compare(&tree, &model)?;
        }
        // Reloading keeps entries and ids; new appends never collide.
        let mut reloaded = Tree::load(tree.save().as_bytes()).unwrap();
        prop_assert_eq!(reloaded.entries(), tree.entries());
        let new_id = reloaded.append(Value::Null, 0).unwrap();
        prop_assert!(tree.entry(&new_id).is_none());
    }

    #[test]
    fn malformed_trees_are_rejected_at_their_line(
        ops in prop::collection::vec(0i64..5, 1..12),
        defect in 0usize..5,
        pos in any::<usize>(),
    ) {
        let mut tree = Tree::new();
        for m in &ops {
            tree.append(Value::from_i64(*m), 1).unwrap();
        }
        let mut lines: Vec<String> = tree.save().split('\n').map(str::to_owned).collect();
        let n = lines.len();
        let at = pos % n;
        let id = |i: usize| format!("e{}", i + 1);
        let (code, line) = match defect {
            0 => {
                // Duplicate id: a copy of an earlier line appended at the end.
                lines.push(lines[at].clone());
                (ErrorCode::DuplicateEntryId, n + 1)
            }
            1 => {
                // Forward parent: entry `at` points at the last entry (or itself if last).
                lines[at] = format!("{{\"id\":\"{}\",\"parent_id\":\"{}\",\"message\":0,\"timestamp\":1}}", id(at), id(n - 1));
                (ErrorCode::UnknownParent, at + 1)
            }
            2 => {
                lines[at] = format!("{{\"id\":\"{}\",\"parent_id\":\"ghost\",\"message\":0,\"timestamp\":1}}", id(at));
                (ErrorCode::UnknownParent, at + 1)
            }
            3 => {
                lines[at] = format!("{{\"id\":\"{0}\",\"parent_id\":\"{0}\",\"message\":0,\"timestamp\":1}}", id(at));
                (ErrorCode::UnknownParent, at + 1)
            }
            _ => {
                let cut = lines[at].len() / 2;
                lines[at].truncate(cut);
                (ErrorCode::InvalidJson, at + 1)
            }
        };
        let e = Tree::load(lines.join("\n").as_bytes()).unwrap_err();
        prop_assert_eq!(e.code, code);
        prop_assert_eq!(e.line, Some(line as u64));
    }
}

fn any_step() -> impl Strategy<Value = Step> {
    let id = (0u8..6).prop_map(|n| format!("e{n}"));
    let lab = (0u8..3).prop_map(label);
    prop_oneof![
        3 => (0i64..3).prop_map(|m| Step::Append { message: Value::from_i64(m), timestamp: 1 }),
        2 => id.prop_map(|id| Step::Seek { id }),
        2 => lab.clone().prop_map(|label| Step::Checkpoint { label }),
        2 => lab.prop_map(|label| Step::SeekCheckpoint { label }),
        2 => prop::collection::vec(0i64..3, 0..4)
            .prop_map(|h| Step::AppendNew { history: ints(&h), timestamp: 2 }),
        1 => Just(Step::SaveLoad),
    ]
}

proptest! {
    /// T-ERR-1: a failed step is a no-op that reports itself. Removing the failed steps
    /// from a sequence gives the same tree and the same results for the others; each
    /// failed step's element is exactly `{"error":{"code"}}` (plus `index` for
    /// history_diverged); the operation itself never fails once the tree loaded.
    #[test]
    fn failed_steps_are_reported_no_ops(
        start in prop::collection::vec(0i64..3, 0..4),
        steps in prop::collection::vec(any_step(), 0..16),
    ) {
        let mut t = Tree::new();
        for m in &start {
            t.append(Value::from_i64(*m), 0).unwrap();
        }
        let file = t.save();
        let all = journal_conformance::tree::apply_all(file.as_bytes(), &steps).unwrap();
        let results = all.get("results").unwrap().as_array().unwrap().to_vec();
        prop_assert_eq!(results.len(), steps.len());
        let failed: Vec<bool> = results
            .iter()
            .map(|r| r.as_object().is_some_and(|m| m.iter().any(|(k, _)| k == "error")))
            .collect();
        for (r, s) in results.iter().zip(&steps).filter(|(r, _)| r.get("error").is_some()) {
            let e = r.get("error").unwrap().as_object().unwrap();
            let keys: Vec<&str> = e.iter().map(|(k, _)| k.as_str()).collect();
            let diverged = r.get("error").unwrap().get("code").and_then(Value::as_str) == Some("history_diverged");
            prop_assert_eq!(keys, if diverged { vec!["code", "index"] } else { vec!["code"] }, "{:?}", s);
        }
        let kept: Vec<Step> = steps.iter().zip(&failed).filter(|(_, f)| !**f).map(|(s, _)| s.clone()).collect();
        let again = journal_conformance::tree::apply_all(file.as_bytes(), &kept).unwrap();
        prop_assert_eq!(again.get("tree"), all.get("tree"));
        let ok: Vec<Value> = results.iter().zip(&failed).filter(|(_, f)| !**f).map(|(r, _)| r.clone()).collect();
        prop_assert_eq!(again.get("results").unwrap().as_array().unwrap(), &ok[..]);
    }
}

#[test]
fn messages_too_deep_to_save_are_refused() {
    fn nested(depth: usize) -> Value {
        let mut v = Value::Null;
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        v
    }
    let mut t = Tree::new();
    t.append(nested(127), 1).unwrap();
    let e = t.append(nested(128), 2).unwrap_err();
    assert_eq!(e.code, ErrorCode::NestingTooDeep);
    assert_eq!(t.entries().len(), 1, "nothing appended");
    let e = t.append_new(&[nested(127), nested(200)], 3).unwrap_err();
    assert_eq!(e.code, ErrorCode::NestingTooDeep);
    assert_eq!(
        t.entries().len(),
        1,
        "append_new appends nothing on failure"
    );
    // What was appended round-trips (T-ROUND-1).
    assert_eq!(
        Tree::load(t.save().as_bytes()).unwrap().entries(),
        t.entries()
    );
}
