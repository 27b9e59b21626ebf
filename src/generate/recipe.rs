//! Recipes: small plain-data descriptions of a journal that one deterministic builder
//! turns into events.
//!
//! A recipe says WHAT to generate (which units of conversation, which strings, which
//! JSON values, which write style); the builders in [`super::valid`] and
//! [`super::malformed`] decide HOW, and compute the expected outcome from their own
//! knowledge while doing it. Proptest strategies ([`super::strategies`]) generate
//! recipes within a [`GenConfig`]; `Arbitrary` (derived here) builds recipes from
//! fuzzer bytes. Both paths share the builders, so a shrunk recipe or a fuzzer input
//! always rebuilds the same bytes.

use arbitrary::Arbitrary;

use crate::event::JournalProfile;

/// The shape of `parent_event_id` links across a journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum ParentShape {
    /// Every event after the first names the previous event.
    Linear,
    /// Every event after the first names some earlier event (a tree of branches).
    AnyEarlier,
    /// No event has a parent.
    Absent,
    /// Each event independently: no parent, the previous one, or any earlier one.
    Mixed,
}

impl ParentShape {
    pub const ALL: [ParentShape; 4] = [
        ParentShape::Linear,
        ParentShape::AnyEarlier,
        ParentShape::Absent,
        ParentShape::Mixed,
    ];
}

/// How event ids are spelled (always unique: every style embeds the position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum IdStyle {
    /// `evt-000`, `evt-001`, ... (the seed's style).
    Padded,
    /// `3f2a9c01-7` (hash-like).
    Hex,
    /// Non-ASCII ids such as `事件-3` or `é😀3`.
    Unicode,
    /// Decimal strings `"0"`, `"1"`, ... (ids that look like numbers).
    Numeric,
}

/// How rich payloads are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Arbitrary)]
pub enum Richness {
    /// Only the fields the reducer reads.
    Minimal,
    /// Extra payload members with ordinary values (non-ASCII text included).
    Typical,
    /// Every JSON value kind including the hard canonical cases: integers of up to
    /// 4300 digits, `1e16`, `1e-5`, `-0.0`, `5e-324`, control and astral characters,
    /// non-ASCII and empty keys, nesting up to the depth limit.
    #[default]
    Hard,
}

/// How one JSON line is spelled. Every style writes the same JSON values; they differ
/// only in bytes that must not change the fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub struct WriteStyle {
    pub keys: KeyOrder,
    pub spacing: Spacing,
    pub escapes: Escaping,
    pub numbers: NumberSpelling,
    /// `\r\n` line ends (the `\r` is JSON whitespace inside the line).
    pub crlf: bool,
    pub final_newline: bool,
    /// Seeds the per-token choices of the `Mixed`/`Shuffled` variants.
    pub seed: u64,
}

impl WriteStyle {
    /// Canonical lines: sorted keys, no whitespace, minimal escapes, Python float
    /// spelling, `\n` after every line.
    pub fn canonical() -> WriteStyle {
        WriteStyle {
            keys: KeyOrder::Sorted,
            spacing: Spacing::Compact,
            escapes: Escaping::Minimal,
            numbers: NumberSpelling::Repr,
            crlf: false,
            final_newline: true,
            seed: 0,
        }
    }

    /// Members in the order the generator built them, otherwise like
    /// [`WriteStyle::canonical`].
    pub fn plain() -> WriteStyle {
        WriteStyle {
            keys: KeyOrder::Insertion,
            ..WriteStyle::canonical()
        }
    }
}

impl Default for WriteStyle {
    fn default() -> Self {
        WriteStyle::plain()
    }
}

/// Order of object members in the written text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum KeyOrder {
    Insertion,
    Sorted,
    Reversed,
    Shuffled,
}

/// JSON whitespace between tokens (only space, tab and `\r`: a line never holds `\n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum Spacing {
    Compact,
    /// `{"a": 1, "b": 2}`
    Spaces,
    /// Random runs of space, tab and `\r` around tokens and at both ends of the line.
    Mixed,
}

/// Which equivalent spelling strings use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum Escaping {
    /// What canonical output does: `"` `\` and control characters only.
    Minimal,
    /// Every non-ASCII character as `\uXXXX` (astral ones as surrogate pairs).
    Ascii,
    /// Per character: raw or `\u` escapes (either hex case), `\/`, `\u000a` for `\n`, ...
    Mixed,
}

/// Which equivalent spelling numbers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum NumberSpelling {
    /// Python's `repr` (canonical).
    Repr,
    /// Per number: `1e16`, `1E16`, `1.0e16`, `10000000000000000.0`, trailing fraction
    /// zeros, `-0` for the integer zero, ...
    Mixed,
}

/// A JSON value to put in a payload. The builder clamps what a recipe cannot promise
/// (finite floats, digit counts, nesting depth, unique keys). Its `Arbitrary` impl
/// (in [`super::arbitrary_impls`]) bounds the recursion.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonRecipe {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// An integer of any length up to 4300 digits, from the digits of `digits`.
    BigInt {
        negative: bool,
        digits: String,
    },
    /// One of [`super::values::HARD_NUMBERS`] (by index, modulo its length).
    HardNumber(u8),
    /// One of [`super::values::HARD_STRINGS`].
    HardString(u8),
    Array(Vec<JsonRecipe>),
    Object(Vec<(String, JsonRecipe)>),
    /// Nested arrays reaching exactly the depth limit (`C-DEPTH-1`), minus `0..4`.
    DeepNest(u8),
}

/// How a streamed response's delta events carry `final`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum DeltaFinal {
    /// `"final": false`.
    False,
    /// No `final` member.
    Absent,
    /// A `final` that is not JSON `true`: `"true"`, `1`, `null`, `[true]`, ... (by index).
    NotTrue(u8),
}

/// What the final event of a stream carries as `accumulated`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum Accumulated {
    /// The concatenation of the deltas (the usual case).
    Concat,
    /// No `accumulated` member: the assistant message is `""`.
    Missing,
    /// Some other text (the rule takes `accumulated`, whatever the deltas said).
    Other(String),
}

/// What a plain `model.response` carries besides `content`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum ResponseMarker {
    None,
    /// `"final": true` (content still wins).
    FinalTrue,
    /// `"final": false` (content still counts).
    FinalFalse,
    /// `"final": true` and a different `accumulated` (content still wins).
    FinalWithAccumulated(String),
}

/// The event type of an unknown event.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum UnknownType {
    /// One of [`super::values::TRICKY_TYPES`] (core) or of the `trace-0.1` types the
    /// reducer ignores (trace-0.1).
    Listed(u8),
    /// Any other non-empty name (core only; trace-0.1 maps it to a listed type).
    Custom(String),
}

/// One unit of conversation: one event, or for [`UnitKind::Stream`] several.
#[derive(Clone, Debug, PartialEq, Arbitrary)]
pub enum UnitKind {
    SessionStart,
    /// `session.stop` with `reason` (absent: the projection says `"unknown"`).
    SessionStop {
        reason: Option<String>,
    },
    /// `user.message` with `content` (absent: `""`).
    UserMessage {
        content: Option<String>,
    },
    ModelRequest,
    /// A complete `model.response` with `content`.
    ModelResponse {
        content: String,
        marker: ResponseMarker,
    },
    /// A streamed response: one `model.response` per delta, then one `final: true`.
    Stream {
        deltas: Vec<String>,
        delta_final: DeltaFinal,
        /// Whether deltas also carry the partial `accumulated` text so far.
        partial: bool,
        accumulated: Accumulated,
    },
    ToolRequest {
        tool: String,
        arguments: JsonRecipe,
    },
    /// `tool.result`: the whole payload becomes a projected tool result.
    ToolResult {
        fields: Vec<(String, JsonRecipe)>,
    },
    /// An event type the reducer ignores (with a `content` it must not read).
    Unknown {
        name: UnknownType,
        content: Option<JsonRecipe>,
    },
    /// A `session.replay` observation record (the seed's post-run event).
    ReplayRecord,
    /// A `session.branch` observation record.
    BranchRecord {
        branch_id: String,
        fork: u32,
    },
}

/// The kinds of [`UnitKind`], for weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub enum UnitTag {
    SessionStart,
    SessionStop,
    UserMessage,
    ModelRequest,
    ModelResponse,
    Stream,
    ToolRequest,
    ToolResult,
    Unknown,
    ReplayRecord,
    BranchRecord,
}

impl UnitTag {
    pub const ALL: [UnitTag; 11] = [
        UnitTag::SessionStart,
        UnitTag::SessionStop,
        UnitTag::UserMessage,
        UnitTag::ModelRequest,
        UnitTag::ModelResponse,
        UnitTag::Stream,
        UnitTag::ToolRequest,
        UnitTag::ToolResult,
        UnitTag::Unknown,
        UnitTag::ReplayRecord,
        UnitTag::BranchRecord,
    ];
}

impl UnitKind {
    pub fn tag(&self) -> UnitTag {
        match self {
            UnitKind::SessionStart => UnitTag::SessionStart,
            UnitKind::SessionStop { .. } => UnitTag::SessionStop,
            UnitKind::UserMessage { .. } => UnitTag::UserMessage,
            UnitKind::ModelRequest => UnitTag::ModelRequest,
            UnitKind::ModelResponse { .. } => UnitTag::ModelResponse,
            UnitKind::Stream { .. } => UnitTag::Stream,
            UnitKind::ToolRequest { .. } => UnitTag::ToolRequest,
            UnitKind::ToolResult { .. } => UnitTag::ToolResult,
            UnitKind::Unknown { .. } => UnitTag::Unknown,
            UnitKind::ReplayRecord => UnitTag::ReplayRecord,
            UnitKind::BranchRecord { .. } => UnitTag::BranchRecord,
        }
    }
}

/// One unit plus what varies per event around it.
#[derive(Clone, Debug, PartialEq, Arbitrary)]
pub struct UnitRecipe {
    pub kind: UnitKind,
    /// Picks the parent under [`ParentShape::AnyEarlier`] / [`ParentShape::Mixed`].
    pub parent: u32,
    /// Picks envelope variations (timestamps, actor, redaction, extra fields).
    pub flavor: u32,
    /// Extra payload members (keys the reducer reads are skipped).
    pub extra: Vec<(String, JsonRecipe)>,
}

/// A whole valid journal.
#[derive(Clone, Debug, PartialEq, Arbitrary)]
pub struct JournalRecipe {
    /// Emit full `trace-0.1` envelopes (otherwise `core` with free extras).
    pub trace01: bool,
    pub parents: ParentShape,
    pub ids: IdStyle,
    pub session: String,
    pub run: String,
    /// Journal-wide envelope choices (date, harness mode, ...).
    pub envelope: u32,
    /// At most this many events (streams are cut short to fit); at least 1.
    pub max_events: u16,
    pub units: Vec<UnitRecipe>,
    pub style: WriteStyle,
}

impl JournalRecipe {
    pub fn profile(&self) -> JournalProfile {
        if self.trace01 {
            JournalProfile::Trace01
        } else {
            JournalProfile::Core
        }
    }
}

/// Relative weights of the unit kinds (0 disables a kind; all 0 means all 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub struct TypeWeights {
    pub session_start: u32,
    pub session_stop: u32,
    pub user_message: u32,
    pub model_request: u32,
    pub model_response: u32,
    pub stream: u32,
    pub tool_request: u32,
    pub tool_result: u32,
    pub unknown: u32,
    pub replay_record: u32,
    pub branch_record: u32,
}

impl Default for TypeWeights {
    fn default() -> Self {
        TypeWeights {
            session_start: 1,
            session_stop: 1,
            user_message: 3,
            model_request: 2,
            model_response: 3,
            stream: 3,
            tool_request: 2,
            tool_result: 2,
            unknown: 2,
            replay_record: 1,
            branch_record: 1,
        }
    }
}

impl TypeWeights {
    /// Only `tag` (weight 1), everything else 0.
    pub fn only(tag: UnitTag) -> TypeWeights {
        let mut w = TypeWeights::none();
        *w.get_mut(tag) = 1;
        w
    }

    /// All weights 0 (set some before use).
    pub fn none() -> TypeWeights {
        TypeWeights {
            session_start: 0,
            session_stop: 0,
            user_message: 0,
            model_request: 0,
            model_response: 0,
            stream: 0,
            tool_request: 0,
            tool_result: 0,
            unknown: 0,
            replay_record: 0,
            branch_record: 0,
        }
    }

    pub fn get(&self, tag: UnitTag) -> u32 {
        let mut w = *self;
        *w.get_mut(tag)
    }

    pub fn get_mut(&mut self, tag: UnitTag) -> &mut u32 {
        match tag {
            UnitTag::SessionStart => &mut self.session_start,
            UnitTag::SessionStop => &mut self.session_stop,
            UnitTag::UserMessage => &mut self.user_message,
            UnitTag::ModelRequest => &mut self.model_request,
            UnitTag::ModelResponse => &mut self.model_response,
            UnitTag::Stream => &mut self.stream,
            UnitTag::ToolRequest => &mut self.tool_request,
            UnitTag::ToolResult => &mut self.tool_result,
            UnitTag::Unknown => &mut self.unknown,
            UnitTag::ReplayRecord => &mut self.replay_record,
            UnitTag::BranchRecord => &mut self.branch_record,
        }
    }

    /// The non-zero weights (all kinds at weight 1 when every weight is 0).
    pub fn nonzero(&self) -> Vec<(u32, UnitTag)> {
        let v: Vec<(u32, UnitTag)> = UnitTag::ALL
            .iter()
            .map(|&t| (self.get(t), t))
            .filter(|&(w, _)| w > 0)
            .collect();
        if v.is_empty() {
            UnitTag::ALL.iter().map(|&t| (1, t)).collect()
        } else {
            v
        }
    }
}

/// What to generate: size and shape of valid journals (and of the bases that
/// malformed journals are derived from).
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    /// Number of events, both ends inclusive. The strategy draws this many units;
    /// streams are cut to stay within the maximum.
    pub events: std::ops::RangeInclusive<usize>,
    pub profile: JournalProfile,
    pub weights: TypeWeights,
    /// `None`: every journal picks a shape.
    pub parents: Option<ParentShape>,
    pub richness: Richness,
    /// Vary key order, whitespace, escapes and number spelling (otherwise
    /// [`WriteStyle::plain`]).
    pub vary_style: bool,
    /// Most deltas in one streamed response.
    pub max_deltas: usize,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            events: 1..=16,
            profile: JournalProfile::Core,
            weights: TypeWeights::default(),
            parents: None,
            richness: Richness::Hard,
            vary_style: true,
            max_deltas: 6,
        }
    }
}

impl GenConfig {
    /// The default configuration for `profile`.
    pub fn with_profile(profile: JournalProfile) -> GenConfig {
        GenConfig {
            profile,
            ..GenConfig::default()
        }
    }

    /// The smallest and largest event counts, sanitised (at least 1, min <= max).
    pub fn bounds(&self) -> (usize, usize) {
        let min = (*self.events.start()).max(1);
        let max = (*self.events.end()).max(min);
        (min, max.min(u16::MAX as usize))
    }

    /// Bring a recipe from any source (e.g. fuzzer bytes) within this configuration:
    /// profile, parent shape, richness-independent bounds (event count, unit count).
    /// The builders accept any recipe; this only makes it match the config.
    pub fn conform(&self, mut r: JournalRecipe) -> JournalRecipe {
        let (min, max) = self.bounds();
        r.trace01 = self.profile == JournalProfile::Trace01;
        if let Some(shape) = self.parents {
            r.parents = shape;
        }
        r.max_events = max as u16;
        r.units.truncate(max);
        let mut k = 0u32;
        while r.units.len() < min {
            r.units.push(UnitRecipe {
                kind: UnitKind::ModelRequest,
                parent: k,
                flavor: k,
                extra: Vec::new(),
            });
            k += 1;
        }
        if !self.vary_style {
            r.style = WriteStyle::plain();
        }
        r
    }
}
