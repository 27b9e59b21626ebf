//! Valid journals: the deterministic builder from a [`JournalRecipe`] and the
//! [`GeneratedJournal`] it produces, with the expected projection computed from the
//! builder's own knowledge of what it put in (never by running the reference
//! reducer).

use crate::branch::SessionBranch;
use crate::event::JournalProfile;
use crate::fingerprint;
use crate::json::{Number, Value};
use crate::profile::{ACTOR_KINDS, HARNESS_MODES, REDACTION_STATUS, TRACE_TYPES};
use crate::replay::ReplayState;

use super::recipe::{
    Accumulated, DeltaFinal, IdStyle, JournalRecipe, ParentShape, ResponseMarker, UnitKind,
    UnitRecipe, UnknownType, WriteStyle,
};
use super::values::{self, clean, nonempty, REDUCER_TYPES, TRICKY_TYPES};
use super::writer::{self, mix};

/// What one event contributes to the projection, as the generator intended it.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Nothing (an ignored type, a request, a streaming delta, ...).
    None,
    /// One user message.
    User(String),
    /// One assistant message.
    Assistant(String),
    /// One tool result (the whole payload).
    Tool(Value),
    /// The stop reason becomes this.
    Stop(String),
}

/// A streamed response as the generator laid it out.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamInfo {
    /// Indices of the delta events.
    pub deltas: Vec<usize>,
    /// Index of the one `final: true` event.
    pub final_index: usize,
    /// The assistant message the stream must produce.
    pub accumulated: String,
}

/// A generated valid journal: its events as JSON values, the style that spells them
/// as bytes, and the expected outcome, all from the generator's own knowledge.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedJournal {
    pub profile: JournalProfile,
    pub session_id: String,
    pub run_id: String,
    /// The events, in journal order (sequence `i` at index `i`).
    pub events: Vec<Value>,
    /// `event_id` of each event.
    pub ids: Vec<String>,
    /// What each event contributes to the projection.
    pub effects: Vec<Effect>,
    /// The streamed responses.
    pub streams: Vec<StreamInfo>,
    /// How [`GeneratedJournal::bytes`] spells the events.
    pub style: WriteStyle,
}

impl GeneratedJournal {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there is no event (never true for a built journal).
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The exact JSONL bytes, in the journal's own style.
    pub fn bytes(&self) -> Vec<u8> {
        writer::write_journal(&self.events, &self.style)
    }

    /// The same events spelled in another style.
    pub fn bytes_with(&self, style: &WriteStyle) -> Vec<u8> {
        writer::write_journal(&self.events, style)
    }

    /// The events as canonical lines (sorted keys, no whitespace, minimal escapes).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        self.bytes_with(&WriteStyle::canonical())
    }

    /// The expected fingerprint of events `0..=until` (all when `None`).
    pub fn expected_fingerprint(&self, until: Option<usize>) -> String {
        let end = until.map_or(self.len(), |u| (u + 1).min(self.len()));
        fingerprint::of_values(&self.events[..end])
    }

    /// The expected projection of the whole journal.
    pub fn expected(&self) -> ReplayState {
        self.expected_until(self.len().saturating_sub(1))
    }

    /// The expected projection of events `0..=until`.
    pub fn expected_until(&self, until: usize) -> ReplayState {
        let end = (until + 1).min(self.len());
        let mut s = ReplayState {
            session_id: self.session_id.clone(),
            run_id: self.run_id.clone(),
            applied_sequences: (0..end as u64).collect(),
            user_messages: Vec::new(),
            assistant_messages: Vec::new(),
            tool_results: Vec::new(),
            stop_reason: None,
            fingerprint: self.expected_fingerprint(Some(until)),
        };
        for e in &self.effects[..end] {
            match e {
                Effect::None => {}
                Effect::User(t) => s.user_messages.push(t.clone()),
                Effect::Assistant(t) => s.assistant_messages.push(t.clone()),
                Effect::Tool(v) => s.tool_results.push(v.clone()),
                Effect::Stop(r) => s.stop_reason = Some(r.clone()),
            }
        }
        s
    }

    /// The expected branch record at `at` named `branch_id`.
    pub fn expected_branch(&self, at: usize, branch_id: &str) -> SessionBranch {
        SessionBranch {
            branch_id: branch_id.to_owned(),
            parent_session_id: self.session_id.clone(),
            parent_run_id: self.run_id.clone(),
            fork_sequence: at as u64,
            inherited_event_ids: self.ids[..=at].to_vec(),
            parent_fingerprint: self.expected_fingerprint(Some(at)),
        }
    }

    /// The first `k + 1` events as a journal of their own (same style).
    pub fn prefix(&self, k: usize) -> GeneratedJournal {
        let end = (k + 1).min(self.len());
        GeneratedJournal {
            profile: self.profile,
            session_id: self.session_id.clone(),
            run_id: self.run_id.clone(),
            events: self.events[..end].to_vec(),
            ids: self.ids[..end].to_vec(),
            effects: self.effects[..end].to_vec(),
            streams: self
                .streams
                .iter()
                .filter(|s| s.final_index < end)
                .cloned()
                .collect(),
            style: self.style.clone(),
        }
    }
}

/// Payload keys extras never use (the reducer reads them, or the builder sets them).
const RESERVED: &[&str] = &["content", "accumulated", "reason", "final", "delta"];

/// Build the journal a recipe describes.
pub fn build(recipe: &JournalRecipe) -> GeneratedJournal {
    let mut b = Builder {
        recipe,
        cap: (recipe.max_events as usize).max(1),
        session: nonempty(&recipe.session, "session-1"),
        run: nonempty(&recipe.run, "run-1"),
        j: GeneratedJournal {
            profile: recipe.profile(),
            session_id: String::new(),
            run_id: String::new(),
            events: Vec::new(),
            ids: Vec::new(),
            effects: Vec::new(),
            streams: Vec::new(),
            style: recipe.style.clone(),
        },
        stop: None,
    };
    for unit in &recipe.units {
        if b.room() == 0 {
            break;
        }
        b.unit(unit);
    }
    if b.j.events.is_empty() {
        // A recipe without units still makes a journal: one session.start.
        let unit = UnitRecipe {
            kind: UnitKind::SessionStart,
            parent: 0,
            flavor: 0,
            extra: Vec::new(),
        };
        b.unit(&unit);
    }
    b.j.session_id = b.session.clone();
    b.j.run_id = b.run.clone();
    b.j
}

struct Builder<'r> {
    recipe: &'r JournalRecipe,
    cap: usize,
    session: String,
    run: String,
    j: GeneratedJournal,
    stop: Option<String>,
}

impl Builder<'_> {
    fn room(&self) -> usize {
        self.cap.saturating_sub(self.j.events.len())
    }

    fn id_for(&self, i: usize) -> String {
        match self.recipe.ids {
            IdStyle::Padded => format!("evt-{i:03}"),
            IdStyle::Hex => format!(
                "{:08x}-{i}",
                mix(&[self.recipe.envelope as u64, i as u64]) as u32
            ),
            IdStyle::Unicode => {
                let p = ["事件-", "é😀", "ключ_", "\u{200b}id"][self.recipe.envelope as usize % 4];
                format!("{p}{i}")
            }
            IdStyle::Numeric => i.to_string(),
        }
    }

    fn parent_for(&self, i: usize, sel: u32) -> Option<String> {
        if i == 0 {
            return None;
        }
        let sel = sel as usize;
        let idx = match self.recipe.parents {
            ParentShape::Absent => return None,
            ParentShape::Linear => i - 1,
            ParentShape::AnyEarlier => sel % i,
            ParentShape::Mixed => match sel % 3 {
                0 => return None,
                1 => i - 1,
                _ => (sel / 3) % i,
            },
        };
        Some(self.j.ids[idx].clone())
    }

    fn unit(&mut self, u: &UnitRecipe) {
        let extra = |payload: &mut Vec<(String, Value)>| {
            values::extend_members(payload, &u.extra, RESERVED, 2);
        };
        let i = self.j.events.len();
        match &u.kind {
            UnitKind::SessionStart => {
                let mut p = vec![
                    ("max_turns".to_owned(), Value::from_u64(8)),
                    (
                        "tool_count".to_owned(),
                        Value::from_u64(u.flavor as u64 % 4),
                    ),
                ];
                extra(&mut p);
                self.push(u, 0, "session.start", p, Effect::None);
            }
            UnitKind::SessionStop { reason } => {
                let mut p = Vec::new();
                if let Some(r) = reason {
                    p.push(("reason".to_owned(), Value::String(clean(r))));
                }
                extra(&mut p);
                let r = reason.as_deref().map_or("unknown".to_owned(), clean);
                self.stop = Some(r.clone());
                self.push(u, 0, "session.stop", p, Effect::Stop(r));
            }
            UnitKind::UserMessage { content } => {
                let mut p = Vec::new();
                if let Some(c) = content {
                    p.push(("content".to_owned(), Value::String(clean(c))));
                }
                extra(&mut p);
                let c = content.as_deref().map_or(String::new(), clean);
                self.push(u, 0, "user.message", p, Effect::User(c));
            }
            UnitKind::ModelRequest => {
                let mut p = vec![
                    ("turn".to_owned(), Value::from_u64(1 + i as u64)),
                    (
                        "message_count".to_owned(),
                        Value::from_u64(u.flavor as u64 % 9),
                    ),
                    ("roles".to_owned(), Value::Array(vec![Value::from("user")])),
                    ("tools".to_owned(), Value::Array(Vec::new())),
                ];
                extra(&mut p);
                self.push(u, 0, "model.request", p, Effect::None);
            }
            UnitKind::ModelResponse { content, marker } => {
                let c = clean(content);
                let mut p = vec![("content".to_owned(), Value::String(c.clone()))];
                match marker {
                    ResponseMarker::None => {}
                    ResponseMarker::FinalTrue => p.push(("final".into(), Value::Bool(true))),
                    ResponseMarker::FinalFalse => p.push(("final".into(), Value::Bool(false))),
                    ResponseMarker::FinalWithAccumulated(a) => {
                        p.push(("final".into(), Value::Bool(true)));
                        p.push(("accumulated".into(), Value::String(clean(a))));
                    }
                }
                extra(&mut p);
                self.push(u, 0, "model.response", p, Effect::Assistant(c));
            }
            UnitKind::Stream {
                deltas,
                delta_final,
                partial,
                accumulated,
            } => self.stream(u, deltas, *delta_final, *partial, accumulated),
            UnitKind::ToolRequest { .. } | UnitKind::ToolResult { .. } => self.tool(u),
            UnitKind::Unknown { name, content } => {
                let ty = self.unknown_type(name);
                let mut p = Vec::new();
                if let Some(c) = content {
                    p.push(("content".to_owned(), values::build(c, 2)));
                }
                extra(&mut p);
                self.push(u, 0, &ty, p, Effect::None);
            }
            UnitKind::ReplayRecord | UnitKind::BranchRecord { .. } => self.record(u),
        }
    }

    /// A `tool.request`, or a `tool.result` whose whole payload the projection takes
    /// (`R-TOOL-1`).
    fn tool(&mut self, u: &UnitRecipe) {
        let extra = |payload: &mut Vec<(String, Value)>| {
            values::extend_members(payload, &u.extra, RESERVED, 2);
        };
        let i = self.j.events.len();
        match &u.kind {
            UnitKind::ToolRequest { tool, arguments } => {
                let args = values::build(arguments, 0);
                let mut p = vec![
                    (
                        "tool".to_owned(),
                        Value::String(nonempty(tool, "read_file")),
                    ),
                    ("call_id".to_owned(), Value::String(format!("call-{i}"))),
                    (
                        "arguments".to_owned(),
                        Value::String(crate::canonical::to_string(&args)),
                    ),
                ];
                extra(&mut p);
                self.push(u, 0, "tool.request", p, Effect::None);
            }
            UnitKind::ToolResult { fields } => {
                let margin = 2 + values::PROJECTION_MARGIN;
                let mut p = vec![
                    ("call_id".to_owned(), Value::String(format!("call-{i}"))),
                    ("ok".to_owned(), Value::Bool(!u.flavor.is_multiple_of(5))),
                ];
                values::extend_members(&mut p, fields, &[], margin);
                values::extend_members(&mut p, &u.extra, &[], margin);
                let effect = Effect::Tool(Value::Object(p.clone()));
                self.push(u, 0, "tool.result", p, effect);
            }
            _ => unreachable!("not a tool unit"),
        }
    }

    /// A `session.replay` or `session.branch` observation record (`R-OTHER-1`: only
    /// fingerprinted).
    fn record(&mut self, u: &UnitRecipe) {
        let i = self.j.events.len();
        match &u.kind {
            UnitKind::ReplayRecord => {
                let p = vec![
                    ("applied_events".to_owned(), Value::from_u64(i as u64)),
                    (
                        "stop_reason".to_owned(),
                        self.stop.as_deref().map_or(Value::Null, Value::from),
                    ),
                    (
                        "fingerprint".to_owned(),
                        Value::String(fingerprint::of_values(&self.j.events)),
                    ),
                ];
                self.push(u, 0, "session.replay", p, Effect::None);
            }
            UnitKind::BranchRecord { branch_id, fork } => {
                let fork = *fork as usize % i.max(1);
                let p = vec![
                    (
                        "branch_id".to_owned(),
                        Value::String(nonempty(branch_id, "branch-1")),
                    ),
                    ("parent_run_id".to_owned(), Value::String(self.run.clone())),
                    ("fork_sequence".to_owned(), Value::from_u64(fork as u64)),
                    (
                        "inherited_events".to_owned(),
                        Value::from_u64((fork + 1).min(i) as u64),
                    ),
                ];
                self.push(u, 0, "session.branch", p, Effect::None);
            }
            _ => unreachable!("not a record unit"),
        }
    }

    /// A stream (`R-STREAM-1`): deltas that contribute nothing, then one final
    /// response whose `accumulated` is the assistant message.
    fn stream(
        &mut self,
        u: &UnitRecipe,
        deltas: &[String],
        delta_final: DeltaFinal,
        partial: bool,
        accumulated: &Accumulated,
    ) {
        let extra = |payload: &mut Vec<(String, Value)>| {
            values::extend_members(payload, &u.extra, RESERVED, 2);
        };
        let n = deltas.len().min(self.room() - 1);
        let mut so_far = String::new();
        let mut info = StreamInfo {
            deltas: Vec::new(),
            final_index: 0,
            accumulated: String::new(),
        };
        for (j, d) in deltas[..n].iter().enumerate() {
            let d = clean(d);
            so_far.push_str(&d);
            let mut p = vec![
                ("delta".to_owned(), Value::String(d)),
                ("index".to_owned(), Value::from_u64(j as u64)),
            ];
            match delta_final {
                DeltaFinal::False => p.push(("final".into(), Value::Bool(false))),
                DeltaFinal::Absent => {}
                DeltaFinal::NotTrue(k) => p.push(("final".into(), not_true(k))),
            }
            if partial {
                p.push(("accumulated".into(), Value::String(so_far.clone())));
            }
            extra(&mut p);
            info.deltas.push(self.j.events.len());
            self.push(u, j as u32, "model.response", p, Effect::None);
        }
        let mut p = vec![
            ("index".to_owned(), Value::from_u64(n as u64)),
            ("final".to_owned(), Value::Bool(true)),
        ];
        let acc = match accumulated {
            Accumulated::Concat => Some(so_far),
            Accumulated::Missing => None,
            Accumulated::Other(s) => Some(clean(s)),
        };
        if let Some(a) = &acc {
            p.push(("accumulated".into(), Value::String(a.clone())));
        }
        extra(&mut p);
        let text = acc.unwrap_or_default();
        info.final_index = self.j.events.len();
        info.accumulated = text.clone();
        self.push(u, n as u32, "model.response", p, Effect::Assistant(text));
        self.j.streams.push(info);
    }

    fn unknown_type(&self, name: &UnknownType) -> String {
        if self.recipe.trace01 {
            let allowed: Vec<&str> = TRACE_TYPES
                .iter()
                .copied()
                .filter(|t| !REDUCER_TYPES.contains(t))
                .collect();
            let k = match name {
                UnknownType::Listed(k) => *k as usize,
                UnknownType::Custom(s) => s.len(),
            };
            return allowed[k % allowed.len()].to_owned();
        }
        match name {
            UnknownType::Listed(k) => TRICKY_TYPES[*k as usize % TRICKY_TYPES.len()].to_owned(),
            UnknownType::Custom(s) => {
                let t = nonempty(s, "custom.event");
                if REDUCER_TYPES.contains(&t.as_str()) {
                    format!("{t}!")
                } else {
                    t
                }
            }
        }
    }

    fn push(
        &mut self,
        u: &UnitRecipe,
        sub: u32,
        ty: &str,
        payload: Vec<(String, Value)>,
        effect: Effect,
    ) {
        let i = self.j.events.len();
        let id = self.id_for(i);
        let parent = self.parent_for(i, u.parent.wrapping_add(sub));
        let flavor = u.flavor.wrapping_add(sub.wrapping_mul(7)) as usize;
        let payload = Value::Object(payload);
        let v = if self.recipe.trace01 {
            self.trace_event(i, &id, ty, payload, parent, flavor)
        } else {
            self.core_event(i, &id, ty, payload, parent, flavor)
        };
        self.j.events.push(v);
        self.j.ids.push(id);
        self.j.effects.push(effect);
    }

    fn core_event(
        &self,
        i: usize,
        id: &str,
        ty: &str,
        payload: Value,
        parent: Option<String>,
        flavor: usize,
    ) -> Value {
        let mut prov = vec![("run_id".to_owned(), Value::from(self.run.as_str()))];
        if flavor % 3 == 1 {
            prov.push(("model".into(), Value::from("scripted-model-v1")));
        }
        if flavor % 5 == 2 {
            prov.push(("ключ".into(), Value::from_u64(1)));
        }
        let mut m = vec![
            ("event_id".to_owned(), Value::from(id)),
            ("session_id".to_owned(), Value::from(self.session.as_str())),
            ("sequence".to_owned(), Value::from_u64(i as u64)),
            ("type".to_owned(), Value::from(ty)),
            ("payload".to_owned(), payload),
            ("provenance".to_owned(), Value::Object(prov)),
        ];
        if let Some(p) = parent {
            m.push(("parent_event_id".into(), Value::String(p)));
        }
        let extras = flavor / 4;
        if extras % 2 == 1 {
            m.push(("timestamp".into(), Value::String(self.timestamp(i, flavor))));
        }
        if extras % 3 == 1 {
            m.push(("trace_version".into(), Value::from("0.1.0")));
        }
        if extras % 5 == 3 {
            m.push((
                "x-meta".into(),
                Value::object([
                    ("n", Value::from_u64(i as u64)),
                    ("ünïcode", Value::from("✓")),
                ]),
            ));
        }
        Value::Object(m)
    }

    fn timestamp(&self, i: usize, flavor: usize) -> String {
        let date = ["2026-08-10", "2024-02-29", "1999-12-31", "2000-01-01"]
            [self.recipe.envelope as usize % 4];
        let secs = i % 86_400;
        let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
        let (t, suffix) = match flavor % 8 {
            3 => ('t', "z"),
            4 => ('T', "+00:00"),
            5 => ('T', "-07:30"),
            6 => ('T', ".5Z"),
            7 => ('T', ".123456+05:45"),
            _ => ('T', "Z"),
        };
        format!("{date}{t}{h:02}:{m:02}:{s:02}{suffix}")
    }

    fn trace_event(
        &self,
        i: usize,
        id: &str,
        ty: &str,
        payload: Value,
        parent: Option<String>,
        flavor: usize,
    ) -> Value {
        let env = self.recipe.envelope as usize;
        let kind = match ty {
            "user.message" => "user",
            t if t.starts_with("model.") => "model",
            t if t.starts_with("tool.") => "tool",
            t if t.starts_with("session.") => "harness",
            _ => ACTOR_KINDS[flavor % ACTOR_KINDS.len()],
        };
        let mut actor = vec![
            ("kind".to_owned(), Value::from(kind)),
            (
                "id".to_owned(),
                Value::from(["reference-agent", "learner", "tool-runner", "агент"][flavor / 7 % 4]),
            ),
        ];
        if flavor % 11 == 3 {
            actor.push(("parent_id".into(), Value::from("root-agent")));
        }
        let mut prov = vec![
            (
                "agent_id".to_owned(),
                Value::from(["reference-agent", "a1-b2-c3", "x"][env % 3]),
            ),
            ("snapshot_id".to_owned(), Value::from("snapshot-2026-08-10")),
            (
                "surface".to_owned(),
                Value::from(["sdk", "cli", "ide"][env / 3 % 3]),
            ),
            (
                "harness_mode".to_owned(),
                Value::from(HARNESS_MODES[env / 9 % HARNESS_MODES.len()]),
            ),
            ("run_id".to_owned(), Value::from(self.run.as_str())),
        ];
        if (env / 36).is_multiple_of(2) {
            prov.push(("experiment_id".into(), Value::from("exp-1")));
        }
        if (env / 72).is_multiple_of(2) {
            prov.push(("model".into(), Value::from("scripted-model-v1")));
            prov.push(("provider".into(), Value::from("local-fixture")));
        }
        let fields: Vec<Value> = match flavor / 24 % 4 {
            0 => vec![],
            1 => vec![Value::from("payload.content")],
            2 => vec![Value::from("a"), Value::from("b")],
            _ => vec![Value::from("é")],
        };
        let mut red = vec![
            (
                "status".to_owned(),
                Value::from(REDACTION_STATUS[flavor / 8 % REDACTION_STATUS.len()]),
            ),
            ("fields".to_owned(), Value::Array(fields)),
        ];
        if flavor % 13 == 5 {
            red.push(("notes".into(), Value::from("redacted by policy")));
        }
        let mut m = vec![
            ("trace_version".to_owned(), Value::from("0.1.0")),
            ("event_id".to_owned(), Value::from(id)),
            ("session_id".to_owned(), Value::from(self.session.as_str())),
            ("sequence".to_owned(), Value::from_u64(i as u64)),
            (
                "timestamp".to_owned(),
                Value::String(self.timestamp(i, flavor)),
            ),
            ("type".to_owned(), Value::from(ty)),
            ("actor".to_owned(), Value::Object(actor)),
            ("payload".to_owned(), payload),
            ("provenance".to_owned(), Value::Object(prov)),
            ("redaction".to_owned(), Value::Object(red)),
        ];
        let duration = match flavor / 96 % 8 {
            1 => Some(Value::from_u64(0)),
            2 => Some(Value::from_u64(12)),
            3 => Some(Value::Number(Number::Float(1.5))),
            4 => Some(Value::Number(Number::Float(-0.0))),
            5 => Some(Value::Number(Number::Float(1e16))),
            _ => None,
        };
        if let Some(d) = duration {
            m.push(("duration_ms".into(), d));
        }
        if let Some(p) = parent {
            m.push(("parent_event_id".into(), Value::String(p)));
        }
        Value::Object(m)
    }
}

/// A `final` value that is not JSON `true`.
fn not_true(k: u8) -> Value {
    match k % 8 {
        0 => Value::from("true"),
        1 => Value::from_u64(1),
        2 => Value::Null,
        3 => Value::Array(vec![Value::Bool(true)]),
        4 => Value::object([("value", Value::Bool(true))]),
        5 => Value::from("True"),
        6 => Value::Number(Number::Float(1.0)),
        _ => Value::Bool(false),
    }
}
