//! Generated inputs for the operations that are not journals (SPEC.md sections 3.2, 15
//! and 16): session trees with random step sequences (`tree_inspect`, `tree_apply`),
//! JSON texts for `canonical`, and store step sequences for `store_apply`.
//!
//! The generators build INPUTS only; what they must produce comes from elsewhere (the
//! linear model of `tests/tree_properties.rs`, or the reference in the differential
//! phase). Steps that name entries (`seek`, `append_new`'s history) are resolved
//! against the tree as it is when they run, by simulating the steps on a
//! [`crate::tree::Tree`]: so a generated `seek` usually names an existing entry and an
//! `append_new` usually extends, shortens or diverges from the real path, which is
//! where implementations differ; a step that fails is kept (failed steps are part of
//! what is tested).

use proptest::collection::vec;
use proptest::prelude::*;

use crate::event::JournalProfile;
use crate::json::Value;
use crate::store::StoreStep;
use crate::tree::{Step, Tree};

use super::recipe::{GenConfig, Richness, WriteStyle};
use super::strategies::{json, valid_journal, write_style};
use super::writer;

/// One tree operation, with selectors that are resolved against the current tree
/// (shared by `tests/tree_properties.rs` and the differential phase).
#[derive(Clone, Debug, PartialEq)]
pub enum TreeOp {
    /// Append message number `m` (see [`message`]).
    Append(i64),
    /// Seek the entry at this index modulo the number of entries.
    Seek(usize),
    /// Seek an id no entry has.
    SeekMissing,
    /// Label the head with [`label`]`(n)`.
    Checkpoint(u8),
    /// Seek [`label`]`(n)` (which may be on no entry).
    SeekCheckpoint(u8),
    /// `append_new` with the current path's messages plus these.
    AppendNewExtend(Vec<i64>),
    /// `append_new` with the path's messages, one of them (index modulo the length)
    /// changed.
    AppendNewDiverge(usize),
    /// `append_new` with the path's messages but the last.
    AppendNewShorter,
    /// Save and load again.
    SaveLoad,
}

/// A random tree operation; messages are small integers so histories collide.
pub fn tree_op() -> impl Strategy<Value = TreeOp> {
    prop_oneof![
        4 => (0i64..5).prop_map(TreeOp::Append),
        3 => any::<usize>().prop_map(TreeOp::Seek),
        1 => Just(TreeOp::SeekMissing),
        2 => (0u8..3).prop_map(TreeOp::Checkpoint),
        2 => (0u8..3).prop_map(TreeOp::SeekCheckpoint),
        2 => vec(0i64..5, 0..3).prop_map(TreeOp::AppendNewExtend),
        1 => any::<usize>().prop_map(TreeOp::AppendNewDiverge),
        1 => Just(TreeOp::AppendNewShorter),
        1 => Just(TreeOp::SaveLoad),
    ]
}

/// The checkpoint label number `n` (0..3).
pub fn label(n: u8) -> String {
    ["draft", "review", "final"][n as usize % 3].to_owned()
}

/// Message number `m` as a richer JSON value: strings, objects with members out of
/// canonical order, floats, nested arrays (so history comparisons by canonical text
/// matter).
pub fn message(m: i64) -> Value {
    let text = |s: &str| Value::from(s);
    match m.rem_euclid(6) {
        0 => text("hello"),
        1 => Value::object([("role", text("user")), ("content", text("hi é"))]),
        2 => crate::json::parse("1.0").expect("a float"),
        3 => Value::Array(vec![Value::from_i64(1), text("a"), Value::Null]),
        4 => crate::json::parse(r#"{"b":1,"a":{"d":[],"c":"\u2028"}}"#).expect("an object"),
        _ => Value::from_i64(m),
    }
}

/// Resolve `op` against `tree` into a concrete step (`timestamp` for appends).
pub fn resolve(op: &TreeOp, tree: &Tree, timestamp: u64) -> Step {
    Resolver {
        ids: tree.entries().iter().map(|e| e.id.as_str()).collect(),
        // Entries keep their messages as canonical text, which always parses back.
        path: tree
            .path_messages()
            .into_iter()
            .map(|m| crate::json::parse(m).expect("a stored message is canonical JSON"))
            .collect(),
        message,
        changed: |i, _| Value::from(format!("changed {i}")),
        missing: "nope",
    }
    .step(op, timestamp)
}

/// What resolving a [`TreeOp`] needs of a tree in either format: its entries' ids in
/// file order, the messages on its path (kit JSON), and the format's messages.
pub struct Resolver<'a> {
    pub ids: Vec<&'a str>,
    pub path: Vec<Value>,
    /// Message number `m` ([`message`] or the dialect's).
    pub message: fn(i64) -> Value,
    /// Path message `i` changed a little (for a diverging `append_new`).
    pub changed: fn(usize, &Value) -> Value,
    /// An id no generated entry has.
    pub missing: &'static str,
}

impl Resolver<'_> {
    /// `op` as a concrete step (`timestamp` for appends).
    pub fn step(self, op: &TreeOp, timestamp: u64) -> Step {
        let mut history = self.path;
        match op {
            TreeOp::Append(m) => Step::Append {
                message: (self.message)(*m),
                timestamp,
            },
            TreeOp::Seek(k) => Step::Seek {
                id: match self.ids.len() {
                    0 => "e1".into(),
                    n => self.ids[k % n].to_owned(),
                },
            },
            TreeOp::SeekMissing => Step::Seek {
                id: self.missing.into(),
            },
            TreeOp::Checkpoint(l) => Step::Checkpoint { label: label(*l) },
            TreeOp::SeekCheckpoint(l) => Step::SeekCheckpoint { label: label(*l) },
            TreeOp::AppendNewExtend(tail) => {
                history.extend(tail.iter().map(|&m| (self.message)(m)));
                Step::AppendNew { history, timestamp }
            }
            TreeOp::AppendNewDiverge(k) => {
                if !history.is_empty() {
                    let i = k % history.len();
                    history[i] = (self.changed)(i, &history[i]);
                }
                Step::AppendNew { history, timestamp }
            }
            TreeOp::AppendNewShorter => {
                history.pop();
                Step::AppendNew { history, timestamp }
            }
            TreeOp::SaveLoad => Step::SaveLoad,
        }
    }
}

/// A tree trial: how to build the file, how to spell it, an optional load defect,
/// and the steps to apply.
#[derive(Clone, Debug)]
pub struct TreeRecipe {
    /// Operations that build the initial tree, each with the timestamp it records
    /// (random, so timestamps do not rise with line order).
    pub build: Vec<(TreeOp, u64)>,
    pub style: WriteStyle,
    /// Per line: write `"parent_id":null` for roots, `"label":null` for unlabelled
    /// entries, an unknown member, a blank line before it (bits of the selector).
    pub spelling: Vec<u8>,
    /// `Some((kind, position))`: one defect that makes the file fail to load.
    pub defect: Option<(u8, usize)>,
    pub steps: Vec<(TreeOp, u64)>,
}

/// A generated tree file with the steps to apply to it.
#[derive(Clone, Debug)]
pub struct TreeCase {
    pub bytes: Vec<u8>,
    pub steps: Vec<Step>,
    pub origin: String,
}

fn timestamp() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..2_000_000_000,
        1 => Just(0u64),
        1 => Just(u64::MAX),
        1 => any::<u64>(),
    ]
}

/// The tree trial strategy.
pub fn tree_recipe() -> BoxedStrategy<TreeRecipe> {
    (
        vec((tree_op(), timestamp()), 0..10),
        write_style(true),
        vec(any::<u8>(), 0..12),
        prop_oneof![5 => Just(None), 1 => (0u8..6, any::<usize>()).prop_map(Some)],
        vec((tree_op(), timestamp()), 0..10),
    )
        .prop_map(|(build, style, spelling, defect, steps)| TreeRecipe {
            build,
            style,
            spelling,
            defect,
            steps,
        })
        .boxed()
}

/// Build the file and resolve the steps.
pub fn build_tree(r: &TreeRecipe) -> TreeCase {
    let mut tree = Tree::new();
    for (op, ts) in &r.build {
        let _ = tree.apply(&resolve(op, &tree, *ts));
    }
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (i, e) in tree.entries().iter().enumerate() {
        let bits = r.spelling.get(i).copied().unwrap_or(0);
        let mut m: Vec<(String, Value)> = vec![("id".into(), Value::from(e.id.as_str()))];
        match &e.parent_id {
            Some(p) => m.push(("parent_id".into(), Value::from(p.as_str()))),
            None if bits & 1 != 0 => m.push(("parent_id".into(), Value::Null)),
            None => {}
        }
        m.push((
            "message".into(),
            crate::json::parse(&e.message).expect("a stored message is canonical JSON"),
        ));
        m.push(("timestamp".into(), Value::from_u64(e.timestamp)));
        match &e.label {
            Some(l) => m.push(("label".into(), Value::from(l.as_str()))),
            None if bits & 2 != 0 => m.push(("label".into(), Value::Null)),
            None => {}
        }
        if bits & 4 != 0 {
            m.push(("x_note".into(), Value::from("ignored")));
        }
        if bits & 8 != 0 && bits & 16 != 0 {
            lines.push(b"  ".to_vec());
        }
        lines.push(writer::write_line(
            &Value::Object(m),
            &r.style,
            i as u64,
            &[],
        ));
    }
    let mut origin = format!("a tree of {} entries", lines.len());
    if let Some((kind, pos)) = r.defect {
        let n = lines.len();
        let at = if n == 0 { 0 } else { pos % n };
        let ghost = |parent: &str| {
            format!("{{\"id\":\"x{at}\",\"parent_id\":\"{parent}\",\"message\":0,\"timestamp\":1}}")
                .into_bytes()
        };
        let (what, line) = match kind {
            0 if n > 0 => {
                let copy = lines[at].clone();
                lines.push(copy);
                ("a duplicate entry id", lines.len())
            }
            1 => {
                lines.insert(at, ghost(&format!("x{at}")));
                ("an entry that is its own parent", at + 1)
            }
            2 => {
                lines.insert(at, ghost("ghost"));
                ("a dangling parent", at + 1)
            }
            3 if n > 0 => {
                let cut = lines[at].len() / 2;
                lines[at].truncate(cut);
                ("a torn line", at + 1)
            }
            4 => {
                lines.insert(
                    at,
                    format!("{{\"id\":\"x{at}\",\"message\":0,\"timestamp\":-1}}").into_bytes(),
                );
                ("a negative timestamp", at + 1)
            }
            _ => {
                lines.insert(
                    at,
                    b"\xef\xbb\xbf{\"id\":\"bom\",\"message\":0,\"timestamp\":1}".to_vec(),
                );
                ("a byte order mark", at + 1)
            }
        };
        origin.push_str(&format!(" with {what} at line {line}"));
    }
    let bytes = writer::join_lines(&lines, r.style.final_newline);
    // Resolve the steps against the tree as the reference would see it.
    let mut sim = Tree::load(&bytes).unwrap_or_default();
    let mut steps = Vec::with_capacity(r.steps.len());
    for (op, ts) in &r.steps {
        let step = resolve(op, &sim, *ts);
        let _ = sim.apply(&step);
        steps.push(step);
    }
    TreeCase {
        bytes,
        steps,
        origin,
    }
}

/// Generated tree cases.
pub fn tree_case() -> BoxedStrategy<TreeCase> {
    tree_recipe().prop_map(|r| build_tree(&r)).boxed()
}

/// One JSON text for `canonical`: a generated value (hard numbers and strings
/// included) written in a random equivalent spelling; one in eight is made invalid
/// (a byte order mark, a cut, trailing text) and a few are surrounded by whitespace.
pub fn canonical_input() -> BoxedStrategy<(Vec<u8>, String)> {
    (json(Richness::Hard), write_style(true), any::<u8>())
        .prop_map(|(recipe, style, variant)| {
            let value = super::values::build(&recipe, 0);
            let mut bytes = writer::write_line(&value, &style, 0, &[]);
            let what = match variant % 16 {
                0 => {
                    bytes.splice(0..0, crate::wire::BOM.iter().copied());
                    "a JSON text after a byte order mark"
                }
                1 => {
                    bytes.truncate(bytes.len() / 2);
                    "a JSON text cut in half"
                }
                2 => {
                    bytes.extend_from_slice(b" x");
                    "a JSON text with trailing garbage"
                }
                3 => {
                    bytes.splice(0..0, *b"\n \t");
                    bytes.extend_from_slice(b"\r\n\n");
                    "a JSON text surrounded by whitespace"
                }
                _ => "a generated JSON text",
            };
            (bytes, what.to_owned())
        })
        .boxed()
}

/// One store step to build, resolved against the journal's lines.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreOp {
    /// Append the next line of the journal.
    AppendNext,
    /// Append the line after the next one (a sequence gap: rejected, writes nothing).
    AppendSkipping,
    /// Retry an earlier line (index modulo the lines appended so far): a duplicate.
    Retry(usize),
    /// Retry an earlier line with a changed value: a conflicting duplicate.
    Conflict(usize),
    /// `append_batch` of the next `n` lines (plus, when the flag is set, a retry).
    Batch(u8, bool),
    Restart,
    Checkpoint,
    Replay,
    ReplayFromCheckpoint,
}

fn store_op() -> impl Strategy<Value = StoreOp> {
    prop_oneof![
        5 => Just(StoreOp::AppendNext),
        1 => Just(StoreOp::AppendSkipping),
        2 => any::<usize>().prop_map(StoreOp::Retry),
        1 => any::<usize>().prop_map(StoreOp::Conflict),
        2 => (0u8..4, any::<bool>()).prop_map(|(n, r)| StoreOp::Batch(n, r)),
        1 => Just(StoreOp::Restart),
        2 => Just(StoreOp::Checkpoint),
        1 => Just(StoreOp::Replay),
        2 => Just(StoreOp::ReplayFromCheckpoint),
    ]
}

/// A generated `store_apply` case: the initial file, the steps, the profile.
#[derive(Clone, Debug)]
pub struct StoreCase {
    pub initial: Vec<u8>,
    pub steps: Vec<StoreStep>,
    pub profile: JournalProfile,
    pub origin: String,
}

/// Store cases: a valid journal whose first lines are the initial file (sometimes
/// with a torn tail after them) and whose other lines are appended, retried, batched,
/// skipped or altered by the steps, with restarts, checkpoints and replays between.
pub fn store_case(cfg: &GenConfig) -> BoxedStrategy<StoreCase> {
    (
        valid_journal(cfg),
        any::<u16>(),
        any::<bool>(),
        vec(store_op(), 0..8),
    )
        .prop_map(|(j, k, torn, ops)| {
            let bytes = j.bytes();
            let lines: Vec<String> = bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect();
            let n = lines.len();
            let k = usize::from(k) % (n + 1);
            let mut initial: Vec<u8> = Vec::new();
            for l in &lines[..k] {
                initial.extend_from_slice(l.as_bytes());
                initial.push(b'\n');
            }
            let torn = torn && k < n;
            if torn {
                let l = lines[k].as_bytes();
                initial.extend_from_slice(&l[..l.len() / 2]);
            }
            let mut next = k;
            let mut steps = Vec::new();
            let line = |i: usize| lines.get(i).cloned().unwrap_or_else(|| "{}".to_owned());
            for op in &ops {
                steps.push(match op {
                    StoreOp::AppendNext => {
                        next += 1;
                        StoreStep::Append {
                            line: line(next - 1),
                        }
                    }
                    StoreOp::AppendSkipping => StoreStep::Append {
                        line: line(next + 1),
                    },
                    StoreOp::Retry(i) if next > 0 => StoreStep::Append {
                        line: line(i % next),
                    },
                    StoreOp::Conflict(i) if next > 0 => StoreStep::Append {
                        line: changed(&line(i % next)),
                    },
                    StoreOp::Retry(_) | StoreOp::Conflict(_) => StoreStep::Replay,
                    StoreOp::Batch(c, retry) => {
                        let mut batch: Vec<String> =
                            (next..next + usize::from(*c)).map(line).collect();
                        next += usize::from(*c);
                        if *retry && next > 0 {
                            batch.push(line(0));
                        }
                        StoreStep::AppendBatch { lines: batch }
                    }
                    StoreOp::Restart => StoreStep::Restart,
                    StoreOp::Checkpoint => StoreStep::Checkpoint,
                    StoreOp::Replay => StoreStep::Replay,
                    StoreOp::ReplayFromCheckpoint => StoreStep::ReplayFromCheckpoint,
                });
            }
            StoreCase {
                initial,
                steps,
                profile: j.profile,
                origin: format!(
                    "a store over {k} of {n} lines{}, {} steps",
                    if torn { " and a torn tail" } else { "" },
                    ops.len()
                ),
            }
        })
        .boxed()
}

/// The same event with one more member (same `event_id`, another canonical text).
fn changed(line: &str) -> String {
    match crate::json::parse(line) {
        Ok(Value::Object(mut m)) => {
            m.push(("x_retried".into(), Value::from_i64(2)));
            crate::canonical::to_string(&Value::Object(m))
        }
        _ => line.to_owned(),
    }
}
