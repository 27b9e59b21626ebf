//! Session trees (SPEC.md section "Session trees", rules `T-*`).
//!
//! This module owns the second format of the kit: conversation history as a tree of
//! entries in JSONL, modelled on yoagent's `Session` (seed 004): loading with its
//! checks, the head, the next-id counter, the operations (append, seek, checkpoint,
//! seek_checkpoint, append_new), saving, and the inspect view. yoagent 0.26's own
//! format is the `yoagent-0.26` dialect, in [`yoagent`]; [`Dialect`] names the two,
//! and [`Loaded`] is a tree in either. Malformed steps are [`StepError`]s (`A-REQ-1`).
//!
//! Loading streams line by line (one line in memory at a time; the first error stops
//! reading). An id index keeps lookups O(1), `path_ids` O(depth) and loading O(n).
//! Messages are kept as their canonical text (what saving writes and `append_new`
//! compares), and not at all when only the shape is needed (`tree inspect`,
//! `tree validate`: [`Tree::load_shape`]), so memory follows the entries, not the file.

pub mod yoagent;

use std::collections::{HashMap, HashSet};

use std::io::BufRead;

use crate::canonical;
use crate::error::{Error, ErrorCode, ReadError};
use crate::json::{self, Number, Value};

/// A tree dialect: the format a tree file is read and written in (SPEC.md 15, the
/// `profile` of a tree operation). The tree commands take only these; a journal
/// profile is `event::JournalProfile`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// The generic format (15.1 to 15.3), named `core`.
    #[default]
    Generic,
    /// yoagent 0.26's own session files (15.4), named `yoagent-0.26`.
    Yoagent026,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 2] = [Dialect::Generic, Dialect::Yoagent026];

    /// The dialect's name (`core`, `yoagent-0.26`).
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Generic => "core",
            Dialect::Yoagent026 => yoagent::PROFILE,
        }
    }

    /// The dialect named `s`; `None` for any other name (`trace-0.1` included).
    pub fn parse(s: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// A `--profile` of a tree command that names no tree dialect (a usage error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown tree dialect {0:?} (the tree dialects: core, yoagent-0.26)")]
pub struct UnknownDialect(pub String);

impl std::str::FromStr for Dialect {
    type Err = UnknownDialect;
    fn from_str(s: &str) -> Result<Self, UnknownDialect> {
        Dialect::parse(s).ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// One entry of a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub parent_id: Option<String>,
    /// The message's canonical text (section 3.2); empty in a tree loaded with
    /// [`Tree::load_shape`].
    pub message: String,
    pub timestamp: u64,
    pub label: Option<String>,
}

/// A session tree: entries in file order, an id index, the head and the id counter.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    /// Children of each entry, as indices in file order.
    children: Vec<Vec<usize>>,
    /// Each entry's parent index.
    parents: Vec<Option<usize>>,
    head: Option<usize>,
    counter: u64,
    /// Whether messages were kept (false after [`Tree::load_shape`]).
    shape_only: bool,
}

/// `T-NEXT-1`: the number of a numbered id (`e`, optional `+`, digits, fits u64).
pub fn id_number(id: &str) -> Option<u64> {
    let rest = id.strip_prefix('e')?;
    let digits = rest.strip_prefix('+').unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `T-APPEND-1`: a message must fit in an entry line of at most `MAX_DEPTH` levels.
fn check_message_depth(message: &Value) -> Result<(), Error> {
    if json::depth(message) > json::MAX_DEPTH - 1 {
        return Err(Error::new(
            ErrorCode::NestingTooDeep,
            format!(
                "the message is nested deeper than {} levels; its entry line would not load",
                json::MAX_DEPTH - 1
            ),
        ));
    }
    Ok(())
}

fn malformed(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::MalformedEntry, msg)
}

/// `T-ENTRY-1`: read one entry from a JSON value (the message as its canonical text,
/// or dropped when `keep_message` is false).
pub fn entry_from_value(v: Value) -> Result<Entry, Error> {
    entry_from(v, true)
}

fn entry_from(v: Value, keep_message: bool) -> Result<Entry, Error> {
    let Value::Object(members) = v else {
        return Err(malformed(format!(
            "an entry must be a JSON object, found {}",
            v.kind()
        )));
    };
    // Keys are unique (C-KEY-2), so each slot is filled at most once; moved, not cloned.
    let (mut id, mut parent, mut message, mut ts, mut label) = (None, None, None, None, None);
    for (k, v) in members {
        match k.as_str() {
            "id" => id = Some(v),
            "parent_id" => parent = Some(v),
            "message" => message = Some(v),
            "timestamp" => ts = Some(v),
            "label" => label = Some(v),
            _ => {}
        }
    }
    let id = match id {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(malformed(format!(
                "`id` must be a string, found {}",
                other.kind()
            )))
        }
        None => return Err(malformed("missing required field `id`")),
    };
    let parent_id = match parent {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            return Err(malformed(format!(
                "`parent_id` must be a string or null, found {}",
                other.kind()
            )))
        }
    };
    let message = message.ok_or_else(|| malformed("missing required field `message`"))?;
    let message = if keep_message {
        canonical::to_string(&message)
    } else {
        String::new()
    };
    let timestamp = match ts {
        Some(Value::Number(Number::Int(s))) => s.parse::<u64>().map_err(|_| {
            malformed(format!(
                "`timestamp` {s} is outside 0..=18446744073709551615"
            ))
        })?,
        Some(other) => {
            return Err(malformed(format!(
                "`timestamp` must be an integer, found {}",
                other.kind()
            )))
        }
        None => return Err(malformed("missing required field `timestamp`")),
    };
    let label = match label {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            return Err(malformed(format!(
                "`label` must be a string or null, found {}",
                other.kind()
            )))
        }
    };
    Ok(Entry {
        id,
        parent_id,
        message,
        timestamp,
        label,
    })
}

impl Tree {
    pub fn new() -> Tree {
        Tree::default()
    }

    /// Load a tree file (`T-LINE-1` .. `T-HEAD-1`).
    pub fn load(bytes: &[u8]) -> Result<Tree, Error> {
        Tree::read(bytes, true, crate::wire::DEFAULT_MAX_LINE_BYTES).map_err(|e| match e {
            ReadError::Invalid(e) => e,
            ReadError::Io(e) => unreachable!("reading a byte slice cannot fail: {e}"),
        })
    }

    /// Load a tree file from a reader, line by line (memory follows the entries, and the
    /// first bad line stops reading), with entries of at most `max_line_bytes` bytes
    /// (`--max-line-bytes`, SPEC.md 16.5; a longer line is an I/O error naming it).
    pub fn load_from_bounded(r: impl BufRead, max_line_bytes: usize) -> Result<Tree, ReadError> {
        Tree::read(r, true, max_line_bytes)
    }

    /// Load only the tree's shape (ids, parents, labels, head, counter), every message
    /// checked and dropped: what `tree inspect` and `tree validate` need. [`Tree::inspect`]
    /// gives the same view as after [`Tree::load_from_bounded`]; saving and steps need messages.
    pub fn load_shape(r: impl BufRead) -> Result<Tree, ReadError> {
        Tree::read(r, false, crate::wire::DEFAULT_MAX_LINE_BYTES)
    }

    /// [`Tree::load_shape`] with entries of at most `max_line_bytes` bytes.
    pub fn load_shape_bounded(r: impl BufRead, max_line_bytes: usize) -> Result<Tree, ReadError> {
        Tree::read(r, false, max_line_bytes)
    }

    fn read(
        r: impl BufRead,
        keep_messages: bool,
        max_line_bytes: usize,
    ) -> Result<Tree, ReadError> {
        let mut tree = Tree {
            shape_only: !keep_messages,
            ..Tree::default()
        };
        let mut lines = crate::wire::LineReader::with_max_line_bytes(r, max_line_bytes);
        while let Some((line, raw, _)) = lines.next_line()? {
            let located = |e: Error| e.at_line(line).with_excerpt(raw);
            let text = json::utf8(raw).map_err(located)?;
            let text = text.trim_matches(char::is_whitespace);
            if text.is_empty() {
                continue;
            }
            if text.starts_with('\u{feff}') {
                return Err(located(Error::new(
                    ErrorCode::UnexpectedBom,
                    "entry starts with a byte order mark",
                ))
                .into());
            }
            let value = json::parse(text).map_err(located)?;
            let entry = entry_from(value, keep_messages).map_err(located)?;
            tree.insert(entry).map_err(located)?;
        }
        tree.head = tree.entries.len().checked_sub(1);
        Ok(tree)
    }

    /// Add a loaded entry, checking `T-ID-1` and `T-PARENT-1`.
    fn insert(&mut self, e: Entry) -> Result<(), Error> {
        if self.index.contains_key(&e.id) {
            return Err(Error::new(
                ErrorCode::DuplicateEntryId,
                format!("entry id {:?} is used twice", e.id),
            ));
        }
        let parent = match &e.parent_id {
            None => None,
            Some(p) => match self.index.get(p) {
                Some(&pi) => Some(pi),
                None => {
                    return Err(Error::new(
                        ErrorCode::UnknownParent,
                        format!(
                            "entry {:?} references unknown parent {p:?} (it must appear earlier)",
                            e.id
                        ),
                    ))
                }
            },
        };
        if let Some(n) = id_number(&e.id) {
            self.counter = self.counter.max(n);
        }
        let idx = self.entries.len();
        self.index.insert(e.id.clone(), idx);
        self.entries.push(e);
        self.children.push(Vec::new());
        self.parents.push(parent);
        if let Some(p) = parent {
            self.children[p].push(idx);
        }
        Ok(())
    }

    /// Add a loaded entry whose parent (by first occurrence) is known: the builders of
    /// the dialects' drawings use it.
    pub(crate) fn push_loaded(&mut self, e: Entry, parent: Option<usize>) {
        let i = self.entries.len();
        self.index.entry(e.id.clone()).or_insert(i);
        self.entries.push(e);
        self.children.push(Vec::new());
        self.parents.push(parent);
        if let Some(p) = parent {
            self.children[p].push(i);
        }
    }

    /// Set the head entry and the id counter of a built tree.
    pub(crate) fn set_head(&mut self, head: Option<usize>, counter: u64) {
        self.head = head;
        self.counter = counter;
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.index.get(id).map(|&i| &self.entries[i])
    }

    pub fn head(&self) -> Option<&str> {
        self.head.map(|i| self.entries[i].id.as_str())
    }

    /// The id the next append would get (`T-NEXT-1`); `None` when exhausted.
    pub fn next_id(&self) -> Option<String> {
        self.counter.checked_add(1).map(|n| format!("e{n}"))
    }

    /// `T-APPEND-1`.
    pub fn append(&mut self, message: Value, timestamp: u64) -> Result<String, Error> {
        check_message_depth(&message)?;
        assert!(
            !self.shape_only,
            "steps need a tree loaded with its messages"
        );
        let message = canonical::to_string(&message);
        let n = self.counter.checked_add(1).ok_or_else(|| {
            Error::new(
                ErrorCode::IdSpaceExhausted,
                "the id counter is at 18446744073709551615",
            )
        })?;
        let id = format!("e{n}");
        let parent_id = self.head().map(str::to_owned);
        self.insert(Entry {
            id: id.clone(),
            parent_id,
            message,
            timestamp,
            label: None,
        })?;
        self.counter = n;
        self.head = Some(self.entries.len() - 1);
        Ok(id)
    }

    /// `T-SEEK-1`.
    pub fn seek(&mut self, id: &str) -> Result<(), Error> {
        match self.index.get(id) {
            Some(&i) => {
                self.head = Some(i);
                Ok(())
            }
            None => Err(Error::new(
                ErrorCode::UnknownEntry,
                format!("no entry {id:?}"),
            )),
        }
    }

    /// `T-CHECKPOINT-1`.
    pub fn checkpoint(&mut self, label: &str) -> Result<(), Error> {
        let h = self.head.ok_or_else(|| {
            Error::new(
                ErrorCode::EmptySession,
                "the session is empty: no head to label",
            )
        })?;
        self.entries[h].label = Some(label.to_owned());
        Ok(())
    }

    fn checkpoint_index(&self, label: &str) -> Option<usize> {
        self.entries
            .iter()
            .rposition(|e| e.label.as_deref() == Some(label))
    }

    /// `T-SEEKCP-1`.
    pub fn seek_checkpoint(&mut self, label: &str) -> Result<(), Error> {
        let i = self.checkpoint_index(label).ok_or_else(|| {
            Error::new(
                ErrorCode::UnknownCheckpoint,
                format!("no checkpoint labelled {label:?}"),
            )
        })?;
        self.head = Some(i);
        Ok(())
    }

    fn path_indices(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.head;
        while let Some(i) = cur {
            out.push(i);
            cur = self.parents[i];
        }
        out.reverse();
        out
    }

    /// `T-PATH-1`: root to head, O(depth).
    pub fn path_ids(&self) -> Vec<&str> {
        self.path_indices()
            .into_iter()
            .map(|i| self.entries[i].id.as_str())
            .collect()
    }

    /// The canonical texts of the messages on the path (`T-PATH-1`).
    pub fn path_messages(&self) -> Vec<&str> {
        self.path_indices()
            .into_iter()
            .map(|i| self.entries[i].message.as_str())
            .collect()
    }

    /// `T-TIPS-1`.
    pub fn branch_tips(&self) -> Vec<&str> {
        (0..self.entries.len())
            .filter(|&i| self.children[i].is_empty())
            .map(|i| self.entries[i].id.as_str())
            .collect()
    }

    /// `T-TIPS-1`: `None` for an unknown id.
    pub fn children(&self, id: &str) -> Option<Vec<&str>> {
        let &i = self.index.get(id)?;
        Some(
            self.children[i]
                .iter()
                .map(|&c| self.entries[c].id.as_str())
                .collect(),
        )
    }

    /// `T-APPENDNEW-1`: returns how many messages were appended.
    pub fn append_new(&mut self, history: &[Value], timestamp: u64) -> Result<usize, Error> {
        let path: Vec<&str> = self.path_messages();
        let diverged = |index: usize| {
            let mut e = Error::new(
                ErrorCode::HistoryDiverged,
                format!("history diverged from the session path at index {index}"),
            );
            e.index = Some(index as u64);
            e
        };
        if history.len() < path.len() {
            return Err(diverged(history.len()));
        }
        if let Some(i) = path
            .iter()
            .zip(history)
            .position(|(p, h)| *p != canonical::to_string(h))
        {
            return Err(diverged(i));
        }
        let new = &history[path.len()..];
        for m in new {
            check_message_depth(m)?;
        }
        if self.counter.checked_add(new.len() as u64).is_none() {
            return Err(Error::new(
                ErrorCode::IdSpaceExhausted,
                "not enough ids left for the new entries",
            ));
        }
        for m in new {
            self.append(m.clone(), timestamp)?;
        }
        Ok(new.len())
    }

    /// `T-SAVE-1`.
    pub fn save(&self) -> String {
        let mut out = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(b"{\"id\":");
            canonical::write_string(&e.id, &mut out);
            out.extend_from_slice(b",\"parent_id\":");
            match &e.parent_id {
                Some(p) => canonical::write_string(p, &mut out),
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"message\":");
            assert!(
                !self.shape_only,
                "saving needs a tree loaded with its messages"
            );
            out.extend_from_slice(e.message.as_bytes());
            out.extend_from_slice(format!(",\"timestamp\":{}", e.timestamp).as_bytes());
            if let Some(l) = &e.label {
                out.extend_from_slice(b",\"label\":");
                canonical::write_string(l, &mut out);
            }
            out.push(b'}');
        }
        String::from_utf8(out).expect("canonical output is UTF-8")
    }

    /// The `tree_inspect` view (`T-OPS-1`).
    pub fn inspect(&self) -> Value {
        let strs = |v: Vec<&str>| Value::Array(v.into_iter().map(Value::from).collect());
        let children = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    e.id.clone(),
                    strs(
                        self.children[i]
                            .iter()
                            .map(|&c| self.entries[c].id.as_str())
                            .collect(),
                    ),
                )
            })
            .collect();
        let mut labels: Vec<(String, Value)> = Vec::new();
        let mut seen = HashSet::new();
        for e in self.entries.iter().rev() {
            if let Some(l) = &e.label {
                if seen.insert(l.as_str()) {
                    labels.push((l.clone(), Value::from(e.id.as_str())));
                }
            }
        }
        labels.reverse();
        Value::object([
            ("head", self.head().map_or(Value::Null, Value::from)),
            ("path_ids", strs(self.path_ids())),
            ("branch_tips", strs(self.branch_tips())),
            ("children", Value::Object(children)),
            ("entry_count", Value::from_u64(self.entries.len() as u64)),
            ("labels", Value::Object(labels)),
            ("next_id", self.next_id().map_or(Value::Null, Value::from)),
        ])
    }
}

/// A `tree_apply` step that is not well formed (a malformed request, `A-REQ-1`, never
/// a conformance case).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    #[error("a step must be an object")]
    NotAnObject,
    #[error("a step needs a string `step`")]
    NoName,
    #[error("unknown step {0:?}")]
    Unknown(String),
    #[error("step {step:?} has no field {field:?}")]
    UnknownField { step: String, field: String },
    #[error("step {step:?} needs a string `{field}`")]
    NeedsString { step: String, field: &'static str },
    #[error("`timestamp` must be in 0..=2^64-1")]
    TimestampOutOfRange,
    #[error("step {0:?} needs an integer `timestamp`")]
    NeedsTimestamp(String),
    #[error("append needs a `message`")]
    NeedsMessage,
    #[error("append_new needs an array `history`")]
    NeedsHistory,
}

/// The operations' request reader (`ops::Operation::from_json`) still speaks `String`.
impl From<StepError> for String {
    fn from(e: StepError) -> String {
        e.to_string()
    }
}

/// One step of `tree_apply` (`T-OPS-1`).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Append { message: Value, timestamp: u64 },
    Seek { id: String },
    Checkpoint { label: String },
    SeekCheckpoint { label: String },
    AppendNew { history: Vec<Value>, timestamp: u64 },
    SaveLoad,
}

impl Step {
    /// The step's name as written in `step`.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Append { .. } => "append",
            Step::Seek { .. } => "seek",
            Step::Checkpoint { .. } => "checkpoint",
            Step::SeekCheckpoint { .. } => "seek_checkpoint",
            Step::AppendNew { .. } => "append_new",
            Step::SaveLoad => "save_load",
        }
    }

    /// Read a step's JSON spelling (`T-OPS-1`); unknown members are an error.
    pub fn from_json(v: &Value) -> Result<Step, StepError> {
        let members = v.as_object().ok_or(StepError::NotAnObject)?;
        let step = v
            .get("step")
            .and_then(Value::as_str)
            .ok_or(StepError::NoName)?;
        let allowed: &[&str] = match step {
            "append" => &["step", "message", "timestamp"],
            "seek" => &["step", "id"],
            "checkpoint" | "seek_checkpoint" => &["step", "label"],
            "append_new" => &["step", "history", "timestamp"],
            "save_load" => &["step"],
            other => return Err(StepError::Unknown(other.to_owned())),
        };
        if let Some((k, _)) = members.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(StepError::UnknownField {
                step: step.to_owned(),
                field: k.clone(),
            });
        }
        let s = |field: &'static str| {
            v.get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| StepError::NeedsString {
                    step: step.to_owned(),
                    field,
                })
        };
        let ts = || match v.get("timestamp") {
            Some(Value::Number(Number::Int(t))) => {
                t.parse::<u64>().map_err(|_| StepError::TimestampOutOfRange)
            }
            _ => Err(StepError::NeedsTimestamp(step.to_owned())),
        };
        Ok(match step {
            "append" => Step::Append {
                message: v.get("message").cloned().ok_or(StepError::NeedsMessage)?,
                timestamp: ts()?,
            },
            "seek" => Step::Seek { id: s("id")? },
            "checkpoint" => Step::Checkpoint { label: s("label")? },
            "seek_checkpoint" => Step::SeekCheckpoint { label: s("label")? },
            "append_new" => Step::AppendNew {
                history: v
                    .get("history")
                    .and_then(Value::as_array)
                    .ok_or(StepError::NeedsHistory)?
                    .to_vec(),
                timestamp: ts()?,
            },
            _ => Step::SaveLoad,
        })
    }

    pub fn to_json(&self) -> Value {
        let step = |name: &str, rest: Vec<(&str, Value)>| {
            let mut m = vec![("step".to_owned(), Value::from(name))];
            m.extend(rest.into_iter().map(|(k, v)| (k.to_owned(), v)));
            Value::Object(m)
        };
        match self {
            Step::Append { message, timestamp } => step(
                "append",
                vec![
                    ("message", message.clone()),
                    (
                        "timestamp",
                        Value::Number(Number::Int(timestamp.to_string())),
                    ),
                ],
            ),
            Step::Seek { id } => step("seek", vec![("id", Value::from(id.as_str()))]),
            Step::Checkpoint { label } => {
                step("checkpoint", vec![("label", Value::from(label.as_str()))])
            }
            Step::SeekCheckpoint { label } => step(
                "seek_checkpoint",
                vec![("label", Value::from(label.as_str()))],
            ),
            Step::AppendNew { history, timestamp } => step(
                "append_new",
                vec![
                    ("history", Value::Array(history.clone())),
                    (
                        "timestamp",
                        Value::Number(Number::Int(timestamp.to_string())),
                    ),
                ],
            ),
            Step::SaveLoad => step("save_load", vec![]),
        }
    }
}

impl Tree {
    /// Apply one step; the result element of `tree_apply`.
    pub fn apply(&mut self, step: &Step) -> Result<Value, Error> {
        Ok(match step {
            Step::Append { message, timestamp } => {
                Value::from(self.append(message.clone(), *timestamp)?)
            }
            Step::Seek { id } => {
                self.seek(id)?;
                Value::Null
            }
            Step::Checkpoint { label } => {
                self.checkpoint(label)?;
                Value::Null
            }
            Step::SeekCheckpoint { label } => {
                self.seek_checkpoint(label)?;
                Value::Null
            }
            Step::AppendNew { history, timestamp } => {
                Value::from_u64(self.append_new(history, *timestamp)? as u64)
            }
            Step::SaveLoad => {
                *self = Tree::load(self.save().as_bytes()).expect("a saved tree loads (T-ROUND-1)");
                Value::Null
            }
        })
    }
}

/// `tree_apply`: load, apply every step, save (`T-OPS-1`). A load error fails the
/// operation; a failing step does not: its element of `results` is [`step_error`], the
/// tree is unchanged by it (every step checks before it changes anything), and the
/// remaining steps go on (`T-ERR-1`).
pub fn apply_all(bytes: &[u8], steps: &[Step]) -> Result<Value, Error> {
    apply_all_reporting(bytes, steps).map(|(v, _)| v)
}

/// [`apply_all`], also returning each failed step's index and full error (with its
/// message, for people: `journal-conformance tree apply`).
pub fn apply_all_reporting(
    bytes: &[u8],
    steps: &[Step],
) -> Result<(Value, Vec<(usize, Error)>), Error> {
    let mut tree = Tree::load(bytes)?;
    let mut failed = Vec::new();
    let mut results = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        results.push(tree.apply(step).unwrap_or_else(|e| {
            let v = step_error(&e);
            failed.push((i, e));
            v
        }));
    }
    let v = Value::object([
        ("results", Value::Array(results)),
        ("tree", Value::from(tree.save())),
    ]);
    Ok((v, failed))
}

/// `T-ERR-1`: a failed step's element of `results`: `{"error":{"code":CODE}}`, plus
/// `"index"` for `history_diverged`. Only what vectors compare exactly.
pub fn step_error(e: &Error) -> Value {
    let mut members = vec![("code", Value::from(e.code.as_str()))];
    if let Some(i) = e.index {
        members.push(("index", Value::from_u64(i)));
    }
    Value::object([("error", Value::object(members))])
}

/// A human drawing of the tree (`journal-conformance tree show`): one line per entry
/// in depth-first file order; a chain of only children stays in one column, and a
/// fork indents each branch. The head is marked `(head)`, labels `[label]`.
pub fn render(tree: &Tree) -> String {
    let mut out = String::new();
    let head = tree.head;
    let line = |out: &mut String, prefix: &str, i: usize| {
        let e = &tree.entries[i];
        let msg = crate::error::shorten(e.message.as_bytes(), 60);
        out.push_str(prefix);
        out.push_str(&e.id);
        if let Some(l) = &e.label {
            out.push_str(&format!(" [{l}]"));
        }
        if head == Some(i) {
            out.push_str(" (head)");
        }
        out.push_str("  ");
        out.push_str(&msg);
        out.push('\n');
    };
    // Explicit stack (no recursion: trees may be 100,000 entries deep).
    // Each item: (entry, prefix for its own line, prefix for what follows it).
    let roots: Vec<usize> = (0..tree.entries.len())
        .filter(|&i| tree.parents[i].is_none())
        .collect();
    let mut stack: Vec<(usize, String, String)> = Vec::new();
    for &r in roots.iter().rev() {
        stack.push((r, String::new(), String::new()));
    }
    while let Some((i, own, rest)) = stack.pop() {
        line(&mut out, &own, i);
        let kids = &tree.children[i];
        if kids.len() == 1 {
            stack.push((kids[0], rest.clone(), rest));
        } else {
            for (k, &c) in kids.iter().enumerate().rev() {
                let last = k + 1 == kids.len();
                let own = format!("{rest}{}", if last { "└─ " } else { "├─ " });
                let cont = format!("{rest}{}", if last { "   " } else { "│  " });
                stack.push((c, own, cont));
            }
        }
    }
    out
}

/// A tree loaded in one of the dialects (the generic format, or `yoagent-0.26`): what
/// the `tree` subcommands work on.
pub enum Loaded {
    Generic(Tree),
    Yoagent(yoagent::Session),
    /// A `yoagent-0.26` session's shape, without its messages (the checked fast path
    /// of `tree inspect` and `tree validate`).
    YoagentShape(crate::fast::yoagent::SessionShape),
}

impl Loaded {
    /// Load `bytes` in `dialect`.
    pub fn load(bytes: &[u8], dialect: Dialect) -> Result<Loaded, Error> {
        if dialect == Dialect::Yoagent026 {
            yoagent::Session::load(bytes).map(Loaded::Yoagent)
        } else {
            Tree::load(bytes).map(Loaded::Generic)
        }
    }

    /// Load from a reader in `dialect`. The generic format streams (with
    /// `shape_only`, messages are checked and dropped: enough for inspect and validate);
    /// the `yoagent-0.26` dialect reads the whole input, as yoagent's `from_jsonl` does.
    /// Either way no line longer than `max_line_bytes` is read (SPEC.md 16.5).
    pub fn read(
        r: impl BufRead,
        dialect: Dialect,
        shape_only: bool,
        max_line_bytes: usize,
    ) -> Result<Loaded, ReadError> {
        if dialect == Dialect::Yoagent026 {
            let bytes = crate::wire::read_bounded(r, max_line_bytes)?;
            Ok(if shape_only {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                Loaded::YoagentShape(crate::fast::yoagent::load_shape(&bytes, threads)?)
            } else {
                Loaded::Yoagent(yoagent::Session::load(&bytes)?)
            })
        } else if shape_only {
            Tree::load_shape_bounded(r, max_line_bytes).map(Loaded::Generic)
        } else {
            Tree::load_from_bounded(r, max_line_bytes).map(Loaded::Generic)
        }
    }

    pub fn inspect(&self) -> Value {
        match self {
            Loaded::Generic(t) => t.inspect(),
            Loaded::Yoagent(s) => s.inspect(),
            Loaded::YoagentShape(s) => s.inspect(),
        }
    }

    pub fn entry_count(&self) -> usize {
        match self {
            Loaded::Generic(t) => t.entries().len(),
            Loaded::Yoagent(s) => s.entries().len(),
            Loaded::YoagentShape(s) => s.entry_count(),
        }
    }

    pub fn render(&self) -> String {
        match self {
            Loaded::Generic(t) => render(t),
            Loaded::Yoagent(s) => render(&s.to_generic()),
            Loaded::YoagentShape(s) => render(&s.to_generic()),
        }
    }
}

/// `tree_apply` in `dialect`.
pub fn apply_in(bytes: &[u8], steps: &[Step], dialect: Dialect) -> Result<Value, Error> {
    apply_in_reporting(bytes, steps, dialect).map(|(v, _)| v)
}

/// [`apply_in`], also returning each failed step's index and error (the generic
/// format's with its full message; the dialect's rebuilt from its result element).
pub fn apply_in_reporting(
    bytes: &[u8],
    steps: &[Step],
    dialect: Dialect,
) -> Result<(Value, Vec<(usize, Error)>), Error> {
    if dialect != Dialect::Yoagent026 {
        return apply_all_reporting(bytes, steps);
    }
    let v = yoagent::apply_all(bytes, steps)?;
    let failed = v
        .get("results")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let e = r.get("error")?;
            let code = ErrorCode::from_str_code(e.get("code")?.as_str()?)?;
            let mut err = Error::new(code, "the step failed");
            err.index = e.get("index").and_then(Value::as_i64).map(|n| n as u64);
            Some((i, err))
        })
        .collect();
    Ok((v, failed))
}
