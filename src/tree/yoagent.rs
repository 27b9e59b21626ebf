//! The `yoagent-0.26` tree dialect (SPEC.md 15.4, rules `T-YO-*`): yoagent 0.26's own
//! session file format, loaded, operated on and saved exactly as yoagent's `Session`
//! does, with the kit's located errors.
//!
//! The message types below are yoagent 0.26.6's `SessionEntry`, `AgentMessage`,
//! `Message`, `Content`, `StopReason`, `Usage`, `CustomMessage` and `ApiProtocol` with
//! their serde attributes copied field for field (yoagent is MIT licensed,
//! <https://github.com/yologdev/yoagent>), read and written by the same serde_json, so
//! that what loads, what is rejected, member order, dropped members and number
//! spellings are yoagent's. The kit does not depend on yoagent itself (it would bring
//! an HTTP stack into every build); the vectors in `conformance/tree-yoagent/`, built
//! from the real crate, are what proves the copy faithful, and the adapter in
//! `implementations/yoagent/` runs them against the real crate in CI.
//!
//! Unlike yoagent, lookups go through an id index (first occurrence wins, as yoagent's
//! linear `entry()` does), so load, seek, `path_ids` and `branch_tips` are linear.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::canonical;
use crate::error::{Error, ErrorCode};
use crate::json::Value;

/// The dialect's profile name.
pub const PROFILE: &str = "yoagent-0.26";

// ---------------------------------------------------------------------------
// yoagent 0.26.6 types (src/types.rs, src/provider/model.rs, src/session.rs)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiProtocol {
    AnthropicMessages,
    OpenAiCompletions,
    OpenAiResponses,
    AzureOpenAiResponses,
    GoogleGenerativeAi,
    GoogleVertex,
    BedrockConverseStream,
}

fn lenient_protocol<'de, D>(deserializer: D) -> Result<Option<ApiProtocol>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let value = <Option<serde_json::Value> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Content {
    #[serde(rename = "text")]
    Text { text: String },
    #[serde(rename = "image")]
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    #[serde(rename = "thinking")]
    Thinking {
        thinking: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            rename = "redactedProtocol",
            alias = "redacted_protocol",
            deserialize_with = "lenient_protocol"
        )]
        redacted_protocol: Option<ApiProtocol>,
    },
    #[serde(rename = "toolCall")]
    ToolCall {
        id: String,
        name: String,
        arguments: serde_json::Value,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            rename = "providerMetadata",
            alias = "provider_metadata"
        )]
        provider_metadata: Option<serde_json::Value>,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
    Refusal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    #[serde(default, rename = "cacheRead", alias = "cache_read")]
    pub cache_read: u64,
    #[serde(default, rename = "cacheWrite", alias = "cache_write")]
    pub cache_write: u64,
    #[serde(default, rename = "totalTokens", alias = "total_tokens")]
    pub total_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role")]
pub enum Message {
    #[serde(rename = "user")]
    User {
        content: Vec<Content>,
        timestamp: u64,
    },
    #[serde(rename = "assistant")]
    Assistant {
        content: Vec<Content>,
        #[serde(rename = "stopReason")]
        stop_reason: StopReason,
        model: String,
        provider: String,
        usage: Usage,
        timestamp: u64,
        #[serde(
            skip_serializing_if = "Option::is_none",
            rename = "errorMessage",
            alias = "error_message"
        )]
        error_message: Option<String>,
    },
    #[serde(rename = "toolResult")]
    ToolResult {
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        #[serde(rename = "toolName")]
        tool_name: String,
        content: Vec<Content>,
        #[serde(rename = "isError")]
        is_error: bool,
        timestamp: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CustomMessage {
    pub role: String,
    pub kind: String,
    pub data: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentMessage {
    Llm(Message),
    Custom(CustomMessage),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionEntry {
    pub id: String,
    pub parent_id: Option<String>,
    pub message: AgentMessage,
    pub timestamp: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

// ---------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------

/// A yoagent session: entries in file order, the head (an id, as yoagent keeps it) and
/// yoagent's `next_seq` counter, plus an index of first occurrences.
#[derive(Clone, Debug, Default)]
pub struct Session {
    entries: Vec<SessionEntry>,
    /// First occurrence of each id (yoagent's `entry()` is a linear `find`).
    index: HashMap<String, usize>,
    /// Each entry's parent, as the index of the parent id's first occurrence.
    parents: Vec<Option<usize>>,
    head: Option<String>,
    next_seq: u64,
}

/// A step's message (kit JSON) as a yoagent `AgentMessage`, as an adapter over yoagent
/// gets it: the runner sends canonical text, the adapter reads the request into a
/// `serde_json::Value` (with a nesting limit of at least 256, A-RUN-1) and converts the
/// message with `serde_json::from_value`, which has no recursion limit. So scalars are
/// serde_json's reading of their canonical text, and a message deeper than serde_json's
/// 128 levels is still a message (T-YO-NEXT-1).
pub fn message_from_value(v: &Value) -> Result<AgentMessage, Error> {
    let not_a_message = |e: String| {
        Error::new(
            ErrorCode::MalformedEntry,
            format!("the step's message is not a yoagent AgentMessage: {e}"),
        )
    };
    let value = to_serde(v).map_err(|e| not_a_message(e.to_string()))?;
    serde_json::from_value(value).map_err(|e| not_a_message(e.to_string()))
}

/// Kit JSON as the `serde_json::Value` serde_json reads from its canonical text.
fn to_serde(v: &Value) -> Result<serde_json::Value, serde_json::Error> {
    Ok(match v {
        Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(to_serde).collect::<Result<_, _>>()?)
        }
        Value::Object(members) => {
            let mut m = serde_json::Map::new();
            for (k, x) in members {
                m.insert(k.clone(), to_serde(x)?);
            }
            serde_json::Value::Object(m)
        }
        scalar => serde_json::from_str(&canonical::to_string(scalar))?,
    })
}

fn session_error(code: ErrorCode, msg: String) -> Error {
    Error::new(code, msg)
}

/// T-YO-MSG-1: a line serde_json cannot read as yoagent's `SessionEntry`.
pub(crate) fn unreadable_entry(e: &serde_json::Error) -> Error {
    session_error(
        ErrorCode::MalformedEntry,
        format!("yoagent cannot read this entry: {e}"),
    )
}

/// T-YO-TREE-1: an id seen on an earlier line.
pub(crate) fn duplicate_id(id: &str) -> Error {
    session_error(
        ErrorCode::DuplicateEntryId,
        format!("duplicate session entry id: {id}"),
    )
}

/// T-YO-TREE-1: a parent id no earlier line has.
pub(crate) fn unknown_parent(id: &str, parent: &str) -> Error {
    session_error(
        ErrorCode::UnknownParent,
        format!("entry {id} references unknown parent {parent}"),
    )
}

/// The counter an id sets on load (T-YO-NEXT-1): `e<u64>` raises `next_seq` to its number.
pub(crate) fn id_seq(id: &str) -> Option<u64> {
    id.strip_prefix('e').and_then(|n| n.parse::<u64>().ok())
}

/// The input as the `&str` yoagent reads, or `invalid_utf8` at the line of the first
/// bad byte.
pub(crate) fn utf8_text(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        Error::new(
            ErrorCode::InvalidUtf8,
            format!(
                "the input is not UTF-8 (byte {}); yoagent reads a &str",
                e.valid_up_to() + 1
            ),
        )
        .at_line(line)
    })
}

/// The branch tips (T-TIPS-1) of `n` entries in file order: the entries whose id (by
/// first occurrence, `first(i)`) no entry names as its parent (`parents`, by first
/// occurrence, as yoagent's `branch_tips` keys by id). One text for the inspect view
/// and [`Session::branch_tips`].
pub(crate) fn tip_indices(
    n: usize,
    first: impl Fn(usize) -> usize,
    parents: &[Option<usize>],
) -> Vec<usize> {
    let mut has_child = vec![false; n];
    for p in parents.iter().flatten() {
        has_child[*p] = true;
    }
    (0..n).filter(|&i| !has_child[first(i)]).collect()
}

/// The `tree_inspect` view (T-OPS-1) of `n` entries in file order, one text for the
/// session ([`Session::inspect`]) and the shape-only fast load
/// (`fast::yoagent::SessionShape`): `id(i)` is entry `i`'s id, `first(i)` the entry
/// holding that id's first occurrence (what yoagent's linear `entry()` finds), `parents`
/// each entry's parent by first occurrence, `labels` the labelled entries in file
/// order; the head is an id and its entry.
#[allow(clippy::too_many_arguments)]
pub(crate) fn inspect_view<'a>(
    n: usize,
    id: impl Fn(usize) -> &'a str,
    first: impl Fn(usize) -> usize,
    parents: &[Option<usize>],
    labels: impl DoubleEndedIterator<Item = (usize, &'a str)>,
    head: Option<&str>,
    head_index: Option<usize>,
    next_id: String,
) -> Value {
    let ids =
        |v: &mut dyn Iterator<Item = usize>| Value::Array(v.map(|i| Value::from(id(i))).collect());
    // Children in file order, as one table of offsets (no vector per entry).
    let mut start = vec![0usize; n + 1];
    for p in parents.iter().flatten() {
        start[*p + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut kids = vec![0usize; start[n]];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            kids[fill[*p]] = i;
            fill[*p] += 1;
        }
    }
    let firsts: Vec<usize> = (0..n).map(&first).collect();
    let children = (0..n)
        .filter(|&i| firsts[i] == i)
        .map(|i| {
            (
                id(i).to_owned(),
                ids(&mut kids[start[i]..start[i + 1]].iter().copied()),
            )
        })
        .collect();
    let mut path = Vec::new();
    let mut cur = head_index;
    while let Some(i) = cur {
        path.push(i);
        cur = parents[i];
    }
    let tips = ids(&mut tip_indices(n, |i| firsts[i], parents).into_iter());
    let mut seen = std::collections::HashSet::new();
    let mut latest: Vec<(String, Value)> = labels
        .rev()
        .filter(|&(_, l)| seen.insert(l))
        .map(|(i, l)| (l.to_owned(), Value::from(id(i))))
        .collect();
    latest.reverse();
    Value::object([
        ("head", head.map_or(Value::Null, Value::from)),
        ("path_ids", ids(&mut path.into_iter().rev())),
        ("branch_tips", tips),
        ("children", Value::Object(children)),
        ("entry_count", Value::from_u64(n as u64)),
        ("labels", Value::Object(latest)),
        ("next_id", Value::from(next_id)),
    ])
}

impl Session {
    /// `Session::from_jsonl` (T-YO-LOAD-1, T-YO-MSG-1, T-YO-TREE-1), with every error
    /// located at its line. The input must be UTF-8 as a whole (yoagent takes `&str`), so
    /// `invalid_utf8` anywhere comes before any other error.
    pub fn load(bytes: &[u8]) -> Result<Session, Error> {
        let text = utf8_text(bytes)?;
        let mut s = Session::default();
        for (i, raw) in text.split('\n').enumerate() {
            let line = i as u64 + 1;
            let t = raw.trim();
            if t.is_empty() {
                continue;
            }
            let located = |e: Error| e.at_line(line).with_excerpt(raw.as_bytes());
            let entry: SessionEntry =
                serde_json::from_str(t).map_err(|e| located(unreadable_entry(&e)))?;
            if s.index.contains_key(&entry.id) {
                return Err(located(duplicate_id(&entry.id)));
            }
            let parent = match &entry.parent_id {
                None => None,
                Some(p) => Some(
                    *s.index
                        .get(p)
                        .ok_or_else(|| located(unknown_parent(&entry.id, p)))?,
                ),
            };
            if let Some(n) = id_seq(&entry.id) {
                s.next_seq = s.next_seq.max(n);
            }
            s.head = Some(entry.id.clone());
            s.push(entry, parent);
        }
        Ok(s)
    }

    fn push(&mut self, entry: SessionEntry, parent: Option<usize>) {
        let i = self.entries.len();
        self.index.entry(entry.id.clone()).or_insert(i);
        self.entries.push(entry);
        self.parents.push(parent);
    }

    pub fn entries(&self) -> &[SessionEntry] {
        &self.entries
    }

    pub fn head(&self) -> Option<&str> {
        self.head.as_deref()
    }

    /// The id the next append gets: yoagent's `next_seq += 1`, which wraps (T-YO-NEXT-1).
    pub fn next_id(&self) -> String {
        format!("e{}", self.next_seq.wrapping_add(1))
    }

    /// `append` (T-YO-APPEND-1), with the given entry timestamp (T-YO-TS-1).
    pub fn append(&mut self, message: AgentMessage, timestamp: u64) -> String {
        self.next_seq = self.next_seq.wrapping_add(1);
        let id = format!("e{}", self.next_seq);
        let parent = self.head.as_ref().and_then(|h| self.index.get(h).copied());
        self.push(
            SessionEntry {
                id: id.clone(),
                parent_id: self.head.clone(),
                message,
                timestamp,
                label: None,
            },
            parent,
        );
        self.head = Some(id.clone());
        id
    }

    pub fn seek(&mut self, id: &str) -> Result<(), Error> {
        if !self.index.contains_key(id) {
            return Err(Error::new(
                ErrorCode::UnknownEntry,
                format!("unknown session entry: {id}"),
            ));
        }
        self.head = Some(id.to_owned());
        Ok(())
    }

    pub fn checkpoint(&mut self, label: &str) -> Result<(), Error> {
        let head = self
            .head
            .as_ref()
            .ok_or_else(|| Error::new(ErrorCode::EmptySession, "session is empty"))?;
        let i = self.index[head];
        self.entries[i].label = Some(label.to_owned());
        Ok(())
    }

    /// The entry `seek_checkpoint(label)` picks: the latest in file order.
    pub fn checkpoint_entry(&self, label: &str) -> Option<&SessionEntry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.label.as_deref() == Some(label))
    }

    pub fn seek_checkpoint(&mut self, label: &str) -> Result<(), Error> {
        let id = self
            .checkpoint_entry(label)
            .map(|e| e.id.clone())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::UnknownCheckpoint,
                    format!("unknown checkpoint label: {label}"),
                )
            })?;
        self.head = Some(id);
        Ok(())
    }

    fn path_indices(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.head.as_ref().and_then(|h| self.index.get(h).copied());
        while let Some(i) = cur {
            out.push(i);
            cur = self.parents[i];
        }
        out.reverse();
        out
    }

    pub fn path_ids(&self) -> Vec<&str> {
        self.path_indices()
            .into_iter()
            .map(|i| self.entries[i].id.as_str())
            .collect()
    }

    /// The messages on the root-to-head path.
    pub fn path_messages(&self) -> Vec<&AgentMessage> {
        self.path_indices()
            .into_iter()
            .map(|i| &self.entries[i].message)
            .collect()
    }

    /// yoagent's `Session::branch_tips`: the ids of `tip_indices`, the inspect view's
    /// tips.
    pub fn branch_tips(&self) -> Vec<&str> {
        tip_indices(
            self.entries.len(),
            |i| self.index[&self.entries[i].id],
            &self.parents,
        )
        .into_iter()
        .map(|i| self.entries[i].id.as_str())
        .collect()
    }

    /// `append_new` (T-YO-APPENDNEW-1): messages compared as parsed `AgentMessage`s.
    pub fn append_new(&mut self, history: &[AgentMessage], timestamp: u64) -> Result<usize, Error> {
        let path = self.path_indices();
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
            .position(|(&p, h)| self.entries[p].message != *h)
        {
            return Err(diverged(i));
        }
        for m in &history[path.len()..] {
            self.append(m.clone(), timestamp);
        }
        Ok(history.len() - path.len())
    }

    /// `to_jsonl` (T-YO-SAVE-1): serde_json of each entry, joined by `\n`.
    pub fn save(&self) -> String {
        let mut out = String::new();
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&serde_json::to_string(e).expect("session entries serialize"));
        }
        out
    }

    /// The `tree_inspect` view (T-OPS-1).
    pub fn inspect(&self) -> Value {
        inspect_view(
            self.entries.len(),
            |i| self.entries[i].id.as_str(),
            |i| self.index[&self.entries[i].id],
            &self.parents,
            self.entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.label.as_deref().map(|l| (i, l))),
            self.head(),
            self.head.as_ref().and_then(|h| self.index.get(h).copied()),
            self.next_id(),
        )
    }

    /// Apply one step; a failing step is its result element `{"error":{"code":..}}`
    /// and leaves the session unchanged (CONTRACTS: failed steps are observable).
    pub fn apply(&mut self, step: &super::Step) -> Result<Value, Error> {
        use super::Step;
        let r: Result<Value, Error> = match step {
            Step::Append { message, timestamp } => {
                let m = message_from_value(message)?;
                Ok(Value::from(self.append(m, *timestamp)))
            }
            Step::Seek { id } => self.seek(id).map(|()| Value::Null),
            Step::Checkpoint { label } => self.checkpoint(label).map(|()| Value::Null),
            Step::SeekCheckpoint { label } => self.seek_checkpoint(label).map(|()| Value::Null),
            Step::AppendNew { history, timestamp } => {
                let h = history
                    .iter()
                    .map(message_from_value)
                    .collect::<Result<Vec<_>, _>>()?;
                self.append_new(&h, *timestamp)
                    .map(|n| Value::from_u64(n as u64))
            }
            Step::SaveLoad => Session::load(self.save().as_bytes()).map(|s| {
                *self = s;
                Value::Null
            }),
        };
        Ok(r.unwrap_or_else(|e| super::step_error(&e)))
    }
}

/// `tree_apply` in the dialect: load, apply every step, save.
pub fn apply_all(bytes: &[u8], steps: &[super::Step]) -> Result<Value, Error> {
    let mut s = Session::load(bytes)?;
    let mut results = Vec::with_capacity(steps.len());
    for step in steps {
        results.push(s.apply(step)?);
    }
    Ok(Value::object([
        ("results", Value::Array(results)),
        ("tree", Value::from(s.save())),
    ]))
}

impl Session {
    /// The same entries as a generic [`super::Tree`] (messages as the JSON yoagent
    /// writes), for the drawing of `tree show`.
    pub fn to_generic(&self) -> super::Tree {
        let mut t = super::Tree::new();
        for (i, e) in self.entries.iter().enumerate() {
            let text = serde_json::to_string(&e.message).expect("messages serialize");
            let message = crate::json::parse(&text)
                .map(|v| canonical::to_string(&v))
                .unwrap_or(text);
            t.push_loaded(
                super::Entry {
                    id: e.id.clone(),
                    parent_id: e.parent_id.clone(),
                    message,
                    timestamp: e.timestamp,
                    label: e.label.clone(),
                },
                self.parents[i],
            );
        }
        t.set_head(
            self.head.as_ref().and_then(|h| self.index.get(h).copied()),
            self.next_seq,
        );
        t
    }
}
