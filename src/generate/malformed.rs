//! Malformed journals: one [`Defect`] class per error the spec names, each applied
//! to a valid base journal at a position chosen by the recipe, and labelled with the
//! [`Expected`] error (code, line, sequence).
//!
//! A [`MalformedRecipe`] is a valid [`JournalRecipe`] plus defect choices (defect,
//! position selector, variant selector). The builder re-applies the defects to
//! whatever base the recipe builds, so shrinking the base or the selectors keeps every
//! defect (a shrunk gap is still a gap). Several defects combine: each is planted at
//! its own event (or compatibly on the same event), and the label names every planted
//! code plus the one the precedence rule picks: the first violation in journal
//! order, and within one event wire, JSON, envelope, profile, payload, sequence,
//! session, run, duplicate id, parent; then `empty_journal`; then the operation's
//! `invalid_branch_id` and `sequence_out_of_range`.

use arbitrary::Arbitrary;

use crate::branch::BLANK_CHARS;
use crate::error::ErrorCode;
use crate::event::JournalProfile;
use crate::json::{Number, Value, MAX_DEPTH, MAX_INT_DIGITS};
use crate::ops::Operation;

use super::recipe::{JournalRecipe, UnitKind, UnitRecipe, WriteStyle};
use super::valid::{self, GeneratedJournal};
use super::values::RAW_PREFIX;
use super::writer::{self, Mix};

/// A class of defect; each produces one error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Arbitrary)]
pub enum Defect {
    /// An event's sequence jumps (or falls back, or leaves `i64`): `sequence_gap`.
    SequenceGap,
    /// The first event's sequence is not 0: `sequence_gap` at line 1.
    SequenceNotZero,
    /// An event repeats the previous sequence: `sequence_gap`.
    SequenceDuplicated,
    /// Two adjacent lines are swapped: `sequence_gap` at the first of them.
    SequenceReordered,
    /// A later event has another `session_id`: `mixed_session`.
    MixedSession,
    /// A later event has another `provenance.run_id`: `mixed_run`.
    MixedRun,
    /// `parent_event_id` names a later event: `unknown_parent`.
    ForwardParent,
    /// `parent_event_id` names no event: `unknown_parent`.
    DanglingParent,
    /// `parent_event_id` names the event itself: `unknown_parent`.
    SelfParent,
    /// An event reuses an earlier event's id: `duplicate_event_id`.
    DuplicateEventId,
    /// A required envelope field is missing: `malformed_event`.
    MissingField,
    /// An envelope field has the wrong type, or the event is not an object:
    /// `malformed_event`.
    IllTypedField,
    /// A line is not JSON (NaN, trailing comma, single quotes, garbage, ...):
    /// `invalid_json`.
    InvalidJson,
    /// The last line is cut mid-object and has no final newline: `invalid_json`.
    TornLastLine,
    /// An object has the same key twice: `duplicate_key`.
    DuplicateKey,
    /// A `\u` escape names a lone surrogate: `lone_surrogate`.
    LoneSurrogate,
    /// A number overflows a double or has more than 4300 digits: `number_out_of_range`.
    NumberOutOfRange,
    /// Containers nest deeper than 128: `nesting_too_deep`.
    NestingTooDeep,
    /// A line holds bytes that are not UTF-8: `invalid_utf8`.
    InvalidUtf8,
    /// A line starts with a UTF-8 byte order mark: `unexpected_bom`.
    Bom,
    /// An empty or whitespace-only line: `blank_line`.
    BlankLine,
    /// No event at all: `empty_journal`.
    EmptyJournal,
    /// `replay`/`fingerprint` with an `until` outside the journal: `sequence_out_of_range`.
    UntilOutOfRange,
    /// `branch` with an `at` outside the journal: `sequence_out_of_range`.
    AtOutOfRange,
    /// `branch` with an empty or whitespace-only id: `invalid_branch_id`.
    BlankBranchId,
    /// A payload field the reducer reads is not a string: `invalid_payload`.
    InvalidPayload,
    /// A `trace-0.1` schema violation (the base is forced to `trace-0.1`):
    /// `profile_violation`.
    ProfileViolation,
}

/// Where in the processing of one event a check happens (lower wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Bom,
    Utf8,
    Blank,
    Json,
    Envelope,
    Profile,
    Payload,
    Sequence,
    Session,
    Run,
    DuplicateId,
    Parent,
    Empty,
    BranchId,
    Range,
}

impl Defect {
    /// Every defect class.
    pub fn all() -> &'static [Defect] {
        use Defect::*;
        &[
            SequenceGap,
            SequenceNotZero,
            SequenceDuplicated,
            SequenceReordered,
            MixedSession,
            MixedRun,
            ForwardParent,
            DanglingParent,
            SelfParent,
            DuplicateEventId,
            MissingField,
            IllTypedField,
            InvalidJson,
            TornLastLine,
            DuplicateKey,
            LoneSurrogate,
            NumberOutOfRange,
            NestingTooDeep,
            InvalidUtf8,
            Bom,
            BlankLine,
            EmptyJournal,
            UntilOutOfRange,
            AtOutOfRange,
            BlankBranchId,
            InvalidPayload,
            ProfileViolation,
        ]
    }

    /// The error code the defect produces on its own.
    pub fn code(self) -> ErrorCode {
        use Defect::*;
        match self {
            SequenceGap | SequenceNotZero | SequenceDuplicated | SequenceReordered => {
                ErrorCode::SequenceGap
            }
            MixedSession => ErrorCode::MixedSession,
            MixedRun => ErrorCode::MixedRun,
            ForwardParent | DanglingParent | SelfParent => ErrorCode::UnknownParent,
            DuplicateEventId => ErrorCode::DuplicateEventId,
            MissingField | IllTypedField => ErrorCode::MalformedEvent,
            InvalidJson | TornLastLine => ErrorCode::InvalidJson,
            DuplicateKey => ErrorCode::DuplicateKey,
            LoneSurrogate => ErrorCode::LoneSurrogate,
            NumberOutOfRange => ErrorCode::NumberOutOfRange,
            NestingTooDeep => ErrorCode::NestingTooDeep,
            InvalidUtf8 => ErrorCode::InvalidUtf8,
            Bom => ErrorCode::UnexpectedBom,
            BlankLine => ErrorCode::BlankLine,
            EmptyJournal => ErrorCode::EmptyJournal,
            UntilOutOfRange | AtOutOfRange => ErrorCode::SequenceOutOfRange,
            BlankBranchId => ErrorCode::InvalidBranchId,
            InvalidPayload => ErrorCode::InvalidPayload,
            ProfileViolation => ErrorCode::ProfileViolation,
        }
    }

    /// The kebab-case name (CLI `--kind`, file names).
    pub fn name(self) -> &'static str {
        use Defect::*;
        match self {
            SequenceGap => "sequence-gap",
            SequenceNotZero => "sequence-not-zero",
            SequenceDuplicated => "sequence-duplicated",
            SequenceReordered => "sequence-reordered",
            MixedSession => "mixed-session",
            MixedRun => "mixed-run",
            ForwardParent => "forward-parent",
            DanglingParent => "dangling-parent",
            SelfParent => "self-parent",
            DuplicateEventId => "duplicate-event-id",
            MissingField => "missing-field",
            IllTypedField => "ill-typed-field",
            InvalidJson => "invalid-json",
            TornLastLine => "torn-last-line",
            DuplicateKey => "duplicate-key",
            LoneSurrogate => "lone-surrogate",
            NumberOutOfRange => "number-out-of-range",
            NestingTooDeep => "nesting-too-deep",
            InvalidUtf8 => "invalid-utf8",
            Bom => "bom",
            BlankLine => "blank-line",
            EmptyJournal => "empty-journal",
            UntilOutOfRange => "until-out-of-range",
            AtOutOfRange => "at-out-of-range",
            BlankBranchId => "blank-branch-id",
            InvalidPayload => "invalid-payload",
            ProfileViolation => "profile-violation",
        }
    }

    /// The defect named `name` (see [`Defect::name`]).
    pub fn from_name(name: &str) -> Option<Defect> {
        Defect::all().iter().copied().find(|d| d.name() == name)
    }

    /// The SPEC.md rule the defect breaks (the first, where its code has several).
    pub fn rule(self) -> &'static str {
        rule_of(self.code())
    }

    /// The SPEC.md rule the defect breaks when planted as `variant`: a number out of
    /// range is an integer literal of more than 4300 digits (`C-NUM-3`) or a float
    /// whose value overflows (`C-NUM-6`), as `out_of_range_number` writes it.
    pub fn variant_rule(self, variant: u32) -> &'static str {
        match self {
            Defect::NumberOutOfRange => {
                let t = out_of_range_number(variant);
                if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                    "C-NUM-3"
                } else {
                    "C-NUM-6"
                }
            }
            _ => self.rule(),
        }
    }

    fn stage(self) -> Stage {
        use Defect::*;
        match self {
            Bom => Stage::Bom,
            InvalidUtf8 => Stage::Utf8,
            BlankLine => Stage::Blank,
            InvalidJson | TornLastLine | DuplicateKey | LoneSurrogate | NumberOutOfRange
            | NestingTooDeep => Stage::Json,
            MissingField | IllTypedField => Stage::Envelope,
            ProfileViolation => Stage::Profile,
            InvalidPayload => Stage::Payload,
            SequenceGap | SequenceNotZero | SequenceDuplicated | SequenceReordered => {
                Stage::Sequence
            }
            MixedSession => Stage::Session,
            MixedRun => Stage::Run,
            DuplicateEventId => Stage::DuplicateId,
            ForwardParent | DanglingParent | SelfParent => Stage::Parent,
            EmptyJournal => Stage::Empty,
            BlankBranchId => Stage::BranchId,
            UntilOutOfRange | AtOutOfRange => Stage::Range,
        }
    }

    /// Whether the defect is about the operation rather than the journal bytes.
    pub fn is_operation(self) -> bool {
        matches!(
            self,
            Defect::UntilOutOfRange | Defect::AtOutOfRange | Defect::BlankBranchId
        )
    }

    /// The JSON-text defects (at most one per line).
    fn is_json_text(self) -> bool {
        self.stage() == Stage::Json && self != Defect::TornLastLine
    }
}

/// The SPEC.md rule id of an error code (see [`ErrorCode::rule`]).
pub fn rule_of(code: ErrorCode) -> &'static str {
    code.rule()
}

impl std::fmt::Display for Defect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One defect choice: the class, where (a selector reduced modulo the positions the
/// class admits) and how (a selector among the class's variants).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Arbitrary)]
pub struct DefectRecipe {
    pub defect: Defect,
    pub position: u32,
    pub variant: u32,
}

/// A valid base plus one or more defects, and which operation to run.
#[derive(Clone, Debug, PartialEq, Arbitrary)]
pub struct MalformedRecipe {
    pub base: JournalRecipe,
    pub defects: Vec<DefectRecipe>,
    /// Picks the operation when no defect dictates one: validate, replay,
    /// fingerprint or branch (with in-range arguments).
    pub op: u32,
}

/// The label of a malformed journal: every code its planted defects produce, the
/// one the precedence rule picks, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The codes of every planted defect, in precedence order, without repeats.
    pub codes: Vec<ErrorCode>,
    /// The code the reference must report.
    pub code: ErrorCode,
    /// The SPEC.md rule of that violation as planted ([`Defect::variant_rule`]): the
    /// code's own rule, except that a number out of range is `C-NUM-3` (an integer over
    /// 4300 digits) or `C-NUM-6` (a float overflowing), which share the code.
    pub rule: &'static str,
    /// The 1-based physical line (`None` for `empty_journal` and operation errors).
    pub line: Option<u64>,
    /// The event's declared sequence when it fits `i64`, or the requested sequence of
    /// `sequence_out_of_range`; `None` for wire and JSON errors.
    pub sequence: Option<i64>,
}

impl Expected {
    /// Whether `e` is exactly the labelled error.
    pub fn matches(&self, e: &crate::error::Error) -> bool {
        e.code == self.code && e.line == self.line && e.sequence == self.sequence
    }
}

/// One defect as planted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    pub defect: Defect,
    /// The line of the violation (`None` for journal-wide and operation defects).
    pub line: Option<u64>,
    /// What exactly was done.
    pub detail: String,
}

/// A generated malformed journal with its operation and label.
#[derive(Clone, Debug, PartialEq)]
pub struct MalformedJournal {
    pub bytes: Vec<u8>,
    pub profile: JournalProfile,
    /// The operation to run (its arguments may be the defect).
    pub op: Operation,
    /// The defects actually planted (a defect that found no compatible place is
    /// dropped; at least one is always planted).
    pub planted: Vec<Planted>,
    pub expected: Expected,
    /// Number of events of the valid base.
    pub base_events: usize,
}

impl MalformedJournal {
    /// A one-line human summary.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .planted
            .iter()
            .map(|p| match p.line {
                Some(l) => format!("{} at line {l} ({})", p.defect, p.detail),
                None => format!("{} ({})", p.defect, p.detail),
            })
            .collect();
        format!(
            "{}; expect {}{}{}",
            parts.join("; "),
            self.expected.code,
            self.expected
                .line
                .map_or(String::new(), |l| format!(" at line {l}")),
            self.expected
                .sequence
                .map_or(String::new(), |s| format!(", sequence {s}")),
        )
    }
}

// ---------------------------------------------------------------------------------
// Planning

struct Plan {
    n: usize,
    /// Per event slot: defects planted there (value-level and text-level).
    on: Vec<Vec<(Defect, u32)>>,
    exclusive: Vec<bool>,
    reorder: Option<usize>,
    torn: Option<u32>,
    /// (insert before event p, variant)
    blanks: Vec<(usize, u32)>,
    empty: bool,
    ops: Vec<(Defect, u32)>,
    order: Vec<Defect>,
}

impl Plan {
    fn new(n: usize) -> Plan {
        Plan {
            n,
            on: vec![Vec::new(); n],
            exclusive: vec![false; n],
            reorder: None,
            torn: None,
            blanks: Vec::new(),
            empty: false,
            ops: Vec::new(),
            order: Vec::new(),
        }
    }

    fn any_journal(&self) -> bool {
        self.reorder.is_some()
            || self.torn.is_some()
            || !self.blanks.is_empty()
            || self.on.iter().any(|v| !v.is_empty())
    }

    fn positions(&self, d: Defect) -> std::ops::Range<usize> {
        let n = self.n;
        match d {
            Defect::SequenceNotZero => 0..1,
            Defect::SequenceDuplicated
            | Defect::MixedSession
            | Defect::MixedRun
            | Defect::DuplicateEventId => 1..n,
            Defect::SequenceReordered | Defect::ForwardParent => 0..n - 1,
            Defect::TornLastLine => n - 1..n,
            Defect::BlankLine => 0..n + 1,
            _ => 0..n,
        }
    }

    fn free(&self, p: usize) -> bool {
        !self.exclusive[p] && self.on[p].is_empty()
    }

    fn fits(&self, d: Defect, p: usize) -> bool {
        match d {
            Defect::SequenceReordered => self.reorder.is_none() && self.free(p) && self.free(p + 1),
            Defect::TornLastLine => self.free(p) && !self.blanks.iter().any(|&(b, _)| b == self.n),
            Defect::BlankLine => !(p == self.n && self.torn.is_some()),
            _ if d.is_json_text() => {
                !self.exclusive[p] && !self.on[p].iter().any(|(x, _)| x.is_json_text())
            }
            _ => !self.exclusive[p],
        }
    }

    fn add(&mut self, r: &DefectRecipe) -> bool {
        let d = r.defect;
        if d == Defect::EmptyJournal {
            if self.empty || self.any_journal() {
                return false;
            }
            self.empty = true;
            self.order.push(d);
            return true;
        }
        if d.is_operation() {
            let branchy = |x: Defect| x != Defect::UntilOutOfRange;
            let clash = self.ops.iter().any(|&(x, _)| {
                x == d
                    || branchy(x) != branchy(d)
                    || (x.code() == d.code() && x.code() == ErrorCode::SequenceOutOfRange)
            });
            if clash {
                return false;
            }
            self.ops.push((d, r.variant));
            self.order.push(d);
            return true;
        }
        if self.empty {
            return false;
        }
        let range = self.positions(d);
        if range.is_empty() {
            return false;
        }
        let len = range.len();
        let start = r.position as usize % len;
        for k in 0..len {
            let p = range.start + (start + k) % len;
            if !self.fits(d, p) {
                continue;
            }
            match d {
                Defect::SequenceReordered => {
                    self.reorder = Some(p);
                    self.exclusive[p] = true;
                    self.exclusive[p + 1] = true;
                    self.on[p].push((d, r.variant));
                }
                Defect::TornLastLine => {
                    self.torn = Some(r.variant);
                    self.exclusive[p] = true;
                    self.on[p].push((d, r.variant));
                }
                Defect::BlankLine => self.blanks.push((p, r.variant)),
                _ => self.on[p].push((d, r.variant)),
            }
            self.order.push(d);
            return true;
        }
        false
    }
}

// ---------------------------------------------------------------------------------
// Building

/// Build a malformed journal from a recipe (always at least one planted defect).
pub fn build(recipe: &MalformedRecipe) -> MalformedJournal {
    let mut base_recipe = recipe.base.clone();
    let mut defects = recipe.defects.clone();
    if defects.is_empty() {
        defects.push(DefectRecipe {
            defect: Defect::SequenceGap,
            position: 0,
            variant: 0,
        });
    }
    if defects.iter().any(|d| d.defect == Defect::ProfileViolation) {
        base_recipe.trace01 = true;
    }
    // Every class needs at least two events (a later event, an earlier id, ...).
    base_recipe.max_events = base_recipe.max_events.max(2);
    let mut k = 0;
    while base_recipe.units.len() < 2 {
        base_recipe.units.push(UnitRecipe {
            kind: UnitKind::ModelRequest,
            parent: k,
            flavor: k,
            extra: Vec::new(),
        });
        k += 1;
    }
    let mut base = valid::build(&base_recipe);
    if base.len() < 2 {
        // A stream unit can fill the cap alone; rebuild with room for two events.
        base_recipe.units.truncate(1);
        base_recipe.units[0].kind = UnitKind::ModelRequest;
        base_recipe.units.push(UnitRecipe {
            kind: UnitKind::ModelRequest,
            parent: 1,
            flavor: 1,
            extra: Vec::new(),
        });
        base = valid::build(&base_recipe);
    }
    let n = base.len();
    let mut plan = Plan::new(n);
    for d in &defects {
        plan.add(d);
    }
    if plan.order.is_empty() {
        // Only possible for an unplaceable first defect: fall back to a gap.
        plan.add(&DefectRecipe {
            defect: Defect::SequenceGap,
            position: 0,
            variant: 0,
        });
    }
    apply(&base, &plan, recipe.op)
}

/// A journal-level violation planted at slot `slot` (lines counted after blank lines
/// are inserted).
struct Violation {
    line: u64,
    stage: Stage,
    code: ErrorCode,
    rule: &'static str,
    sequence: Option<i64>,
}

fn apply(base: &GeneratedJournal, plan: &Plan, op_sel: u32) -> MalformedJournal {
    let mut planted: Vec<Planted> = Vec::new();
    // The operation.
    let op = choose_op(base, plan, op_sel, &mut planted);
    if plan.empty {
        return empty_journal(base, plan, op, planted);
    }
    // Slots: events in order (after an optional swap).
    let mut values: Vec<Value> = base.events.clone();
    if let Some(p) = plan.reorder {
        values.swap(p, p + 1);
    }
    let mut details = plant_value_defects(base, plan, &mut values);
    let text = plant_text_defects(plan, &mut values, &mut details);
    let written = write_lines(base, plan, &values, &text);
    let expected = label(plan, &values, &written, &op);
    for (p, d, detail) in details {
        let detail = if d == Defect::TornLastLine {
            written.torn_detail.clone()
        } else {
            detail
        };
        planted.push(Planted {
            defect: d,
            line: Some(written.event_line[p]),
            detail,
        });
    }
    for &(line, v) in &written.blank_lines {
        planted.push(Planted {
            defect: Defect::BlankLine,
            line: Some(line),
            detail: format!("line is {:?}", BLANKS[v as usize % BLANKS.len()]),
        });
    }
    MalformedJournal {
        bytes: written.bytes,
        profile: base.profile,
        op,
        planted: sort_planted(planted),
        expected,
        base_events: base.len(),
    }
}

/// `apply` for a plan of no events at all (`J-EMPTY-1`, with any operation defect).
fn empty_journal(
    base: &GeneratedJournal,
    plan: &Plan,
    op: Operation,
    mut planted: Vec<Planted>,
) -> MalformedJournal {
    planted.insert(
        0,
        Planted {
            defect: Defect::EmptyJournal,
            line: None,
            detail: "no bytes at all".into(),
        },
    );
    let mut codes = vec![ErrorCode::EmptyJournal];
    for &(d, _) in &plan.ops {
        push_unique(&mut codes, d.code());
    }
    MalformedJournal {
        bytes: Vec::new(),
        profile: base.profile,
        op,
        expected: Expected {
            codes,
            code: ErrorCode::EmptyJournal,
            rule: Defect::EmptyJournal.rule(),
            line: None,
            sequence: None,
        },
        planted: sort_planted(planted),
        base_events: base.len(),
    }
}

/// What each planted defect did: `(slot, defect, detail)`.
type Details = Vec<(usize, Defect, String)>;

/// The value-level defects (envelope stage and later), latest stage first, so that an
/// earlier-stage defect on the same event is applied last and stays realized.
fn plant_value_defects(base: &GeneratedJournal, plan: &Plan, values: &mut [Value]) -> Details {
    let mut value_level: Vec<(Defect, usize, u32)> = Vec::new();
    for (p, list) in plan.on.iter().enumerate() {
        for &(d, v) in list {
            if d.stage() >= Stage::Envelope && d != Defect::SequenceReordered {
                value_level.push((d, p, v));
            }
        }
    }
    value_level.sort_by(|a, b| b.0.stage().cmp(&a.0.stage()).then(a.1.cmp(&b.1)));
    let mut details: Details = Vec::new();
    if let Some(p) = plan.reorder {
        details.push((
            p,
            Defect::SequenceReordered,
            format!("lines of sequences {p} and {} swapped", p + 1),
        ));
    }
    for &(d, p, v) in &value_level {
        let detail = apply_value(d, p, v, values, base);
        details.push((p, d, detail));
    }
    details
}

/// The text-level defects of each slot: raw placeholders for the writer, a BOM, text
/// around the object, or a whole replacement line.
struct TextDefects {
    raws: Vec<Vec<(String, Vec<u8>)>>,
    bom: Vec<bool>,
    line_junk: Vec<Option<(Vec<u8>, Vec<u8>)>>,
    whole_line: Vec<Option<Vec<u8>>>,
}

/// The text-level defects: placeholders now, raw bytes at write time.
fn plant_text_defects(plan: &Plan, values: &mut [Value], details: &mut Details) -> TextDefects {
    let n = values.len();
    let mut text = TextDefects {
        raws: vec![Vec::new(); n],
        bom: vec![false; n],
        line_junk: vec![None; n],
        whole_line: vec![None; n],
    };
    for (p, list) in plan.on.iter().enumerate() {
        for &(d, v) in list {
            if let Some(detail) = text_defect(d, v, list, p, values, &mut text) {
                details.push((p, d, detail));
            }
        }
    }
    text
}

/// Plant text-level defect `d` (variant `v`) on slot `p`, whose defects are `list`;
/// `None` for a defect that is not text-level.
fn text_defect(
    d: Defect,
    v: u32,
    list: &[(Defect, u32)],
    p: usize,
    values: &mut [Value],
    text: &mut TextDefects,
) -> Option<String> {
    Some(match d {
        Defect::Bom => {
            text.bom[p] = true;
            "line starts with EF BB BF".to_owned()
        }
        Defect::InvalidUtf8 => {
            let bad = BAD_UTF8[v as usize % BAD_UTF8.len()];
            let mut raw = b"\"a".to_vec();
            raw.extend_from_slice(bad);
            raw.extend_from_slice(b"b\"");
            inject(&mut values[p], &mut text.raws[p], raw, v);
            format!("bytes {bad:02x?} inside a string")
        }
        Defect::InvalidJson => {
            // A whole-line replacement would erase other defects of the line;
            // use it only when the line has no other defect but a BOM.
            let alone = list.iter().all(|&(x, _)| x == d || x == Defect::Bom);
            let kinds =
                INVALID_TOKENS.len() + LINE_JUNK.len() + if alone { WHOLE_LINES.len() } else { 0 };
            let k = v as usize % kinds;
            if k < INVALID_TOKENS.len() {
                let t = INVALID_TOKENS[k];
                inject(
                    &mut values[p],
                    &mut text.raws[p],
                    t.as_bytes().to_vec(),
                    v / 7,
                );
                format!("value {}", crate::error::shorten(t.as_bytes(), 30))
            } else if k < INVALID_TOKENS.len() + LINE_JUNK.len() {
                let (pre, post) = LINE_JUNK[k - INVALID_TOKENS.len()];
                text.line_junk[p] = Some((pre.as_bytes().to_vec(), post.as_bytes().to_vec()));
                format!("text {pre:?} before and {post:?} after the object")
            } else {
                let w = WHOLE_LINES[k - INVALID_TOKENS.len() - LINE_JUNK.len()];
                text.whole_line[p] = Some(w.as_bytes().to_vec());
                format!("line is {w:?}")
            }
        }
        Defect::DuplicateKey => duplicate_key(&mut values[p], &mut text.raws[p], v),
        Defect::LoneSurrogate => {
            let t = LONE[v as usize % LONE.len()];
            if (v / 8) % 2 == 1 {
                inject_key(&mut values[p], &mut text.raws[p], t.as_bytes().to_vec());
                format!("key {t}")
            } else {
                inject(
                    &mut values[p],
                    &mut text.raws[p],
                    t.as_bytes().to_vec(),
                    v / 16,
                );
                format!("string {t}")
            }
        }
        Defect::NumberOutOfRange => {
            let t = out_of_range_number(v);
            let short = crate::error::shorten(t.as_bytes(), 24);
            inject(&mut values[p], &mut text.raws[p], t.into_bytes(), v / 8);
            format!("number {short}")
        }
        Defect::NestingTooDeep => {
            let extra = (v % 3) as usize;
            // Injected as a member of the event object (depth 1) or of a
            // wrapping array (depth 1): k containers reach depth 1 + k.
            let k = MAX_DEPTH + extra;
            let objects = (v / 3) % 2 == 1;
            let mut t = String::new();
            for _ in 0..k {
                t.push_str(if objects { "{\"a\":" } else { "[" });
            }
            t.push('0');
            for _ in 0..k {
                t.push(if objects { '}' } else { ']' });
            }
            inject(&mut values[p], &mut text.raws[p], t.into_bytes(), 0);
            format!(
                "{} nested {}",
                k,
                if objects { "objects" } else { "arrays" }
            )
        }
        Defect::TornLastLine => "last line cut mid-object, no final newline".to_owned(),
        _ => return None,
    })
}

/// The journal as written: its bytes and where each event and blank line landed.
struct Written {
    bytes: Vec<u8>,
    /// The 1-based line of each slot's event.
    event_line: Vec<u64>,
    /// `(line, variant)` of each blank line.
    blank_lines: Vec<(u64, u32)>,
    torn_detail: String,
}

/// Write the lines: blank lines where planned, each event in the base's style with its
/// text-level defects, the last one torn if planned.
fn write_lines(
    base: &GeneratedJournal,
    plan: &Plan,
    values: &[Value],
    text: &TextDefects,
) -> Written {
    let n = values.len();
    let TextDefects {
        raws,
        bom,
        line_junk,
        whole_line,
    } = text;
    let style = &base.style;
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(n + plan.blanks.len());
    let mut event_line: Vec<u64> = vec![0; n];
    let mut blank_lines: Vec<(u64, u32)> = Vec::new();
    let mut blanks = plan.blanks.clone();
    blanks.sort_by_key(|&(p, _)| p);
    let mut bi = 0;
    let mut torn_detail = String::new();
    for p in 0..=n {
        while bi < blanks.len() && blanks[bi].0 == p {
            let v = blanks[bi].1;
            lines.push(BLANKS[v as usize % BLANKS.len()].as_bytes().to_vec());
            blank_lines.push((lines.len() as u64, v));
            bi += 1;
        }
        if p == n {
            break;
        }
        let mut line = if let Some(w) = &whole_line[p] {
            w.clone()
        } else if plan.torn.is_some() && p == n - 1 {
            // Minimal escapes: no surrogate-pair escape can be cut in half.
            let torn_style = WriteStyle {
                escapes: super::recipe::Escaping::Minimal,
                ..style.clone()
            };
            let full = writer::write_line(&values[p], &torn_style, p as u64, &raws[p]);
            let (cut, d) = tear(&full, plan.torn.unwrap_or(0));
            torn_detail = d;
            cut
        } else {
            writer::write_line(&values[p], style, p as u64, &raws[p])
        };
        if let Some((pre, post)) = &line_junk[p] {
            let mut l = pre.clone();
            l.extend_from_slice(&line);
            l.extend_from_slice(post);
            line = l;
        }
        if bom[p] {
            let mut l = crate::wire::BOM.to_vec();
            l.extend_from_slice(&line);
            line = l;
        }
        lines.push(line);
        event_line[p] = lines.len() as u64;
    }
    let torn = plan.torn.is_some();
    let mut bytes = Vec::new();
    let last = lines.len() - 1;
    for (i, l) in lines.iter().enumerate() {
        bytes.extend_from_slice(l);
        let is_blank_line = blank_lines.iter().any(|&(b, _)| b == i as u64 + 1);
        let newline = if i < last {
            true
        } else if torn {
            false
        } else {
            style.final_newline || (is_blank_line && l.is_empty())
        };
        if newline {
            bytes.push(b'\n');
        }
    }

    Written {
        bytes,
        event_line,
        blank_lines,
        torn_detail,
    }
}

/// The label: the first violation by line, then stage (`J-ORDER-1`), else the first
/// operation defect (`O-ORDER-1`); every code the journal may report.
fn label(plan: &Plan, values: &[Value], written: &Written, op: &Operation) -> Expected {
    let event_line = &written.event_line;
    let mut violations: Vec<Violation> = Vec::new();
    for (p, list) in plan.on.iter().enumerate() {
        for &(d, variant) in list {
            let stage = d.stage();
            let sequence = if stage >= Stage::Envelope {
                values[p].get("sequence").and_then(Value::as_i64)
            } else {
                None
            };
            violations.push(Violation {
                line: event_line[p],
                stage,
                code: d.code(),
                rule: d.variant_rule(variant),
                sequence,
            });
        }
    }
    for &(line, _) in &written.blank_lines {
        violations.push(Violation {
            line,
            stage: Stage::Blank,
            code: ErrorCode::BlankLine,
            rule: Defect::BlankLine.rule(),
            sequence: None,
        });
    }
    violations.sort_by(|a, b| a.line.cmp(&b.line).then(a.stage.cmp(&b.stage)));
    let mut codes: Vec<ErrorCode> = Vec::new();
    for v in &violations {
        push_unique(&mut codes, v.code);
    }
    let mut op_defects: Vec<Defect> = plan.ops.iter().map(|&(d, _)| d).collect();
    op_defects.sort_by_key(|d| d.stage());
    for d in &op_defects {
        push_unique(&mut codes, d.code());
    }
    if let Some(v) = violations.first() {
        Expected {
            codes,
            code: v.code,
            rule: v.rule,
            line: Some(v.line),
            sequence: v.sequence,
        }
    } else {
        let d = op_defects[0];
        let sequence = match (op, d) {
            (Operation::Replay { until }, Defect::UntilOutOfRange)
            | (Operation::Fingerprint { until }, Defect::UntilOutOfRange) => *until,
            (Operation::Branch { at, .. }, Defect::AtOutOfRange) => Some(*at),
            _ => None,
        };
        Expected {
            codes,
            code: d.code(),
            rule: d.rule(),
            line: None,
            sequence,
        }
    }
}

fn sort_planted(mut p: Vec<Planted>) -> Vec<Planted> {
    p.sort_by(|a, b| {
        a.line
            .unwrap_or(u64::MAX)
            .cmp(&b.line.unwrap_or(u64::MAX))
            .then(a.defect.stage().cmp(&b.defect.stage()))
    });
    p
}

fn push_unique(codes: &mut Vec<ErrorCode>, c: ErrorCode) {
    if !codes.contains(&c) {
        codes.push(c);
    }
}

fn choose_op(
    base: &GeneratedJournal,
    plan: &Plan,
    sel: u32,
    planted: &mut Vec<Planted>,
) -> Operation {
    let n = base.len() as i64;
    let range_value = |v: u32| -> i64 {
        let x = (v / 8) as i64 % 1000;
        match v % 6 {
            0 => n,
            1 => n + 1 + x,
            2 => -1,
            3 => -1 - x,
            4 => i64::MAX,
            _ => i64::MIN,
        }
    };
    let until_bad = plan
        .ops
        .iter()
        .find(|(d, _)| *d == Defect::UntilOutOfRange)
        .map(|&(_, v)| v);
    let at_bad = plan
        .ops
        .iter()
        .find(|(d, _)| *d == Defect::AtOutOfRange)
        .map(|&(_, v)| v);
    let id_bad = plan
        .ops
        .iter()
        .find(|(d, _)| *d == Defect::BlankBranchId)
        .map(|&(_, v)| v);
    let in_range = (sel / 4) as i64 % n;
    if let Some(v) = until_bad {
        let until = range_value(v);
        planted.push(Planted {
            defect: Defect::UntilOutOfRange,
            line: None,
            detail: format!("until {until} with {n} events"),
        });
        return if v / 6 % 2 == 0 {
            Operation::Replay { until: Some(until) }
        } else {
            Operation::Fingerprint { until: Some(until) }
        };
    }
    if at_bad.is_some() || id_bad.is_some() {
        let at = match at_bad {
            Some(v) => {
                let at = range_value(v);
                planted.push(Planted {
                    defect: Defect::AtOutOfRange,
                    line: None,
                    detail: format!("at {at} with {n} events"),
                });
                at
            }
            None => in_range,
        };
        let branch_id = match id_bad {
            Some(v) => {
                let id = blank_id(v);
                planted.push(Planted {
                    defect: Defect::BlankBranchId,
                    line: None,
                    detail: format!("branch id {id:?}"),
                });
                id
            }
            None => "branch-b".to_owned(),
        };
        return Operation::Branch { at, branch_id };
    }
    match sel % 4 {
        0 => Operation::Validate,
        1 => Operation::Replay {
            until: if sel % 8 == 1 { None } else { Some(in_range) },
        },
        2 => Operation::Fingerprint {
            until: if sel % 8 == 2 { None } else { Some(in_range) },
        },
        _ => Operation::Branch {
            at: in_range,
            branch_id: "branch-b".to_owned(),
        },
    }
}

/// An id made only of Python `str.isspace()` characters (or empty).
pub fn blank_id(v: u32) -> String {
    let len = v as usize % 4;
    let mut x = Mix::new(v as u64);
    (0..len)
        .map(|_| BLANK_CHARS[x.below(BLANK_CHARS.len() as u64) as usize])
        .collect()
}

// ---------------------------------------------------------------------------------
// Value-level defects

fn set(v: &mut Value, key: &str, new: Value) {
    if let Value::Object(m) = v {
        if let Some(slot) = m.iter_mut().find(|(k, _)| k == key) {
            slot.1 = new;
        } else {
            m.push((key.to_owned(), new));
        }
    }
}

fn remove(v: &mut Value, key: &str) {
    if let Value::Object(m) = v {
        m.retain(|(k, _)| k != key);
    }
}

fn member_mut<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match v {
        Value::Object(m) => m.iter_mut().find(|(k, _)| k == key).map(|(_, x)| x),
        _ => None,
    }
}

/// A value of the wrong type for a string field (`""` included: it must be non-empty).
fn bad_string_value(v: u32) -> Value {
    match v % 7 {
        0 => Value::from(""),
        1 => Value::Null,
        2 => Value::from_u64(0),
        3 => Value::Bool(true),
        4 => Value::Array(vec![]),
        5 => Value::object([("id", Value::from("x"))]),
        _ => Value::Array(vec![Value::from("x")]),
    }
}

/// A different text that is easy to confuse with `s`.
fn other_text(s: &str, v: u32) -> String {
    match v % 6 {
        0 => format!("{s}-other"),
        1 => s.to_uppercase().to_string() + if s.to_uppercase() == s { "X" } else { "" },
        2 => format!("{s} "),
        3 => format!("\u{200b}{s}"),
        4 => format!("{s}\u{301}"),
        _ => "x".to_owned() + s,
    }
}

/// Plant value-level defect `d` (variant `v`) on the event in slot `p`; returns what
/// was done.
fn apply_value(
    d: Defect,
    p: usize,
    v: u32,
    values: &mut [Value],
    base: &GeneratedJournal,
) -> String {
    let trace = base.profile == JournalProfile::Trace01;
    match d {
        Defect::SequenceGap => {
            let (seq, text) = gap_value(p, v, trace);
            set(&mut values[p], "sequence", Value::Number(Number::Int(seq)));
            format!("sequence {text} at position {p}")
        }
        Defect::SequenceNotZero => {
            let s = 1 + (v % 5) as u64;
            set(&mut values[p], "sequence", Value::from_u64(s));
            format!("first sequence is {s}")
        }
        Defect::SequenceDuplicated => {
            set(&mut values[p], "sequence", Value::from_u64(p as u64 - 1));
            format!("sequence {} repeated", p - 1)
        }
        Defect::MixedSession
        | Defect::MixedRun
        | Defect::ForwardParent
        | Defect::DanglingParent
        | Defect::SelfParent
        | Defect::DuplicateEventId => identity_defect(d, p, v, values, base),
        Defect::InvalidPayload => invalid_payload(p, v, values),
        Defect::MissingField => missing_field(p, v, values),
        Defect::IllTypedField => ill_typed_envelope_field(p, v, values),
        Defect::ProfileViolation => profile_violation(&mut values[p], v).to_owned(),
        other => format!("{other}"),
    }
}

/// The event id of the event in slot `q` (empty when it has none).
fn event_id_at(values: &[Value], q: usize) -> String {
    values[q]
        .get("event_id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// `J-SESSION-1`, `J-RUN-1`, `J-PARENT-1` and `J-ID-1` defects: another session or run
/// id, a parent that names a later event, no event or the event itself, a reused id.
fn identity_defect(
    d: Defect,
    p: usize,
    v: u32,
    values: &mut [Value],
    base: &GeneratedJournal,
) -> String {
    let (session, run) = (base.session_id.as_str(), base.run_id.as_str());
    match d {
        Defect::MixedSession => {
            let s = other_text(session, v);
            set(&mut values[p], "session_id", Value::String(s.clone()));
            format!("session_id {s:?} instead of {session:?}")
        }
        Defect::MixedRun => {
            let r = other_text(run, v);
            if let Some(prov) = member_mut(&mut values[p], "provenance") {
                set(prov, "run_id", Value::String(r.clone()));
            }
            format!("run_id {r:?} instead of {run:?}")
        }
        Defect::ForwardParent => {
            let later = p + 1 + (v as usize % (values.len() - p - 1));
            let target = event_id_at(values, later);
            set(
                &mut values[p],
                "parent_event_id",
                Value::String(target.clone()),
            );
            format!("parent {target:?} is the event at position {later}")
        }
        Defect::DanglingParent => {
            let ghost = format!("ghost-{}", v % 1000);
            set(
                &mut values[p],
                "parent_event_id",
                Value::String(ghost.clone()),
            );
            format!("parent {ghost:?} names no event")
        }
        Defect::SelfParent => {
            let own = event_id_at(values, p);
            set(
                &mut values[p],
                "parent_event_id",
                Value::String(own.clone()),
            );
            format!("parent {own:?} is the event itself")
        }
        Defect::DuplicateEventId => {
            let q = v as usize % p;
            let id = event_id_at(values, q);
            set(&mut values[p], "event_id", Value::String(id.clone()));
            format!("event_id {id:?} of position {q} reused")
        }
        other => unreachable!("{other} is not an identity defect"),
    }
}

/// `R-TYPE-1`: a payload field the reducer reads holds a non-string.
fn invalid_payload(p: usize, v: u32, values: &mut [Value]) -> String {
    let (ty, field) = [
        ("user.message", "content"),
        ("model.response", "content"),
        ("model.response", "accumulated"),
        ("session.stop", "reason"),
    ][v as usize % 4];
    let bad = match (v / 4) % 7 {
        0 => Value::Null,
        1 => Value::from_u64(0),
        2 => Value::Number(Number::Float(1.5)),
        3 => Value::Bool(true),
        4 => Value::Array(vec![]),
        5 => Value::object([("text", Value::from("hi"))]),
        _ => Value::Array(vec![Value::from("hi")]),
    };
    let kind = bad.kind();
    set(&mut values[p], "type", Value::from(ty));
    if let Some(payload) = member_mut(&mut values[p], "payload") {
        if field == "accumulated" {
            // The final-event shape: no content, final true.
            remove(payload, "content");
            set(payload, "final", Value::Bool(true));
        }
        set(payload, field, bad);
    }
    format!("payload.{field} of a {ty} is {kind}")
}

/// `E-ENV-1`: a required envelope field is missing.
fn missing_field(p: usize, v: u32, values: &mut [Value]) -> String {
    let field = [
        "event_id",
        "session_id",
        "sequence",
        "type",
        "payload",
        "provenance",
        "provenance.run_id",
    ][v as usize % 7];
    if field == "provenance.run_id" {
        if let Some(prov) = member_mut(&mut values[p], "provenance") {
            remove(prov, "run_id");
        }
    } else {
        remove(&mut values[p], field);
    }
    format!("no `{field}`")
}

/// `E-*`: an envelope field (or the event itself) has the wrong JSON type.
fn ill_typed_envelope_field(p: usize, v: u32, values: &mut [Value]) -> String {
    let field = [
        "event_id",
        "session_id",
        "sequence",
        "type",
        "payload",
        "provenance",
        "provenance.run_id",
        "parent_event_id",
        "(event)",
    ][v as usize % 9];
    let w = v / 9;
    let bad = match field {
        "sequence" => match w % 6 {
            0 => Value::String(p.to_string()),
            1 => Value::Number(Number::Float(p as f64)),
            2 => Value::Null,
            3 => Value::Bool(false),
            4 => Value::Array(vec![Value::from_u64(p as u64)]),
            _ => Value::Number(Number::Float(p as f64 + 0.5)),
        },
        "payload" | "provenance" => match w % 5 {
            0 => Value::Null,
            1 => Value::Array(vec![]),
            2 => Value::from("{}"),
            3 => Value::from_u64(1),
            _ => Value::Bool(true),
        },
        _ => bad_string_value(w),
    };
    let kind = bad.kind();
    match field {
        "(event)" => {
            let old = std::mem::replace(&mut values[p], Value::Null);
            // Wrapping adds a level: not for an event already at the limit.
            let wrap = super::values::depth(&old) < MAX_DEPTH;
            values[p] = match w % 5 {
                0 if wrap => Value::Array(vec![old]),
                0 => Value::from("event"),
                1 => Value::from("event"),
                2 => Value::from_u64(p as u64),
                3 => Value::Null,
                _ => Value::Bool(true),
            };
            return format!("the event is {}", values[p].kind());
        }
        "provenance.run_id" => {
            if let Some(prov) = member_mut(&mut values[p], "provenance") {
                set(prov, "run_id", bad);
            }
        }
        f => set(&mut values[p], f, bad),
    }
    format!("`{field}` is {kind}")
}

/// `P-TRACE-*`: the event breaks the Trace 0.1 schema in one of 14 ways.
fn profile_violation(ev: &mut Value, v: u32) -> &'static str {
    let k = v as usize % 14;
    let what = match k {
        0 => {
            set(ev, "trace_version", Value::from("0.2.0"));
            "trace_version 0.2.0"
        }
        1 => {
            remove(ev, "timestamp");
            "no timestamp"
        }
        2 => {
            set(ev, "timestamp", Value::from("2026-02-30T00:00:00Z"));
            "timestamp on February 30"
        }
        3 => {
            set(ev, "timestamp", Value::from("2026-08-10 00:00:00Z"));
            "timestamp without T"
        }
        4 => {
            set(ev, "type", Value::from("custom.event"));
            "type outside the enum"
        }
        5 => {
            if let Some(a) = member_mut(ev, "actor") {
                set(a, "kind", Value::from("robot"));
            }
            "actor.kind robot"
        }
        6 => {
            set(ev, "x-extra", Value::from_u64(1));
            "extra top-level field"
        }
        7 => {
            if let Some(pr) = member_mut(ev, "provenance") {
                set(pr, "agent_id", Value::from("Bad_ID"));
            }
            "provenance.agent_id not a stable id"
        }
        8 => {
            if let Some(pr) = member_mut(ev, "provenance") {
                remove(pr, "snapshot_id");
            }
            "no provenance.snapshot_id"
        }
        9 => {
            if let Some(pr) = member_mut(ev, "provenance") {
                set(pr, "harness_mode", Value::from("live"));
            }
            "provenance.harness_mode live"
        }
        10 => {
            if let Some(r) = member_mut(ev, "redaction") {
                set(
                    r,
                    "fields",
                    Value::Array(vec![Value::from("a"), Value::from("a")]),
                );
            }
            "redaction.fields repeats an item"
        }
        11 => {
            set(ev, "duration_ms", Value::Number(Number::Float(-0.5)));
            "duration_ms negative"
        }
        12 => {
            set(ev, "duration_ms", Value::from("5"));
            "duration_ms a string"
        }
        _ => {
            // P-TRACE-3 comes before J-SEQ-1.
            set(ev, "sequence", Value::from_i64(-1));
            "sequence -1"
        }
    };
    what
}

/// A sequence that is not `p`: `(literal, description)`.
fn gap_value(p: usize, v: u32, trace: bool) -> (String, String) {
    let p = p as i64;
    let choice = v % 6;
    let s = match choice {
        0 => (p + 1 + (v / 6 % 3) as i64).to_string(),
        1 => (p + 1000).to_string(),
        2 if p > 1 => (p - 2).to_string(),
        3 if !trace => "-1".to_owned(),
        4 => "99999999999999999999".to_owned(),
        5 => i64::MAX.to_string(),
        _ => (p + 2).to_string(),
    };
    (s.clone(), s)
}

// ---------------------------------------------------------------------------------
// Text-level defects

const BAD_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xe2\x82",
    b"\xf4\x90\x80\x80",
    b"\x80",
    b"\xfe\xfe",
];

const INVALID_TOKENS: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "01",
    "1.",
    ".5",
    "+1",
    "'x'",
    "tru",
    "nul",
    "[1,]",
    "{\"a\":1,}",
    "\"a\u{1}b\"",
    "\"tab\there\"",
    "\"\\x41\"",
    "\"\\u12g4\"",
    "[1 2]",
    "{\"a\" 1}",
    "{a:1}",
    "-",
    "1e",
    "0x10",
];

const LINE_JUNK: &[(&str, &str)] = &[
    ("", " x"),
    ("", "}"),
    ("", ","),
    ("", "{}"),
    (",", ""),
    ("x", ""),
];

const WHOLE_LINES: &[&str] = &["\u{c}", "\u{b}", "\u{a0}", "{", "}", "{\"event_id\":"];

const LONE: &[&str] = &[
    "\"\\ud800\"",
    "\"\\udfff\"",
    "\"x\\ud83d\"",
    "\"\\ud83dx\"",
    "\"\\ud83d\\u0041\"",
    "\"\\ude00\\ud83d\"",
    "\"\\uDBFF\"",
    "\"\\ud83d\\ud83d\"",
];

const BLANKS: &[&str] = &["", " ", "\t", "\r", " \t \r", "   "];

fn out_of_range_number(v: u32) -> String {
    match v % 6 {
        0 => "1e400".to_owned(),
        1 => "-1e400".to_owned(),
        2 => "1.8e308".to_owned(),
        3 => "1".to_owned() + &"0".repeat(MAX_INT_DIGITS),
        4 => "-".to_owned() + &"9".repeat(MAX_INT_DIGITS + 1 + (v / 6 % 3) as usize),
        _ => "1e999999".to_owned(),
    }
}

fn placeholder(raws: &[(String, Vec<u8>)]) -> String {
    format!("{RAW_PREFIX}{}", raws.len())
}

/// Put raw value text `raw` into `v`: a new member of the event object (at a position
/// picked by `at`), or an element of an array; a scalar is wrapped in an array.
fn inject(v: &mut Value, raws: &mut Vec<(String, Vec<u8>)>, raw: Vec<u8>, at: u32) {
    let ph = placeholder(raws);
    raws.push((ph.clone(), raw));
    match v {
        Value::Object(m) => {
            let mut key = "x-injected".to_owned();
            while m.iter().any(|(k, _)| *k == key) {
                key.push('_');
            }
            let pos = at as usize % (m.len() + 1);
            m.insert(pos, (key, Value::String(ph)));
        }
        Value::Array(a) => {
            let pos = at as usize % (a.len() + 1);
            a.insert(pos, Value::String(ph));
        }
        other => {
            let old = std::mem::replace(other, Value::Null);
            *other = Value::Array(vec![Value::String(ph), old]);
        }
    }
}

/// Put raw key text `raw` (a JSON string token) into the event object.
fn inject_key(v: &mut Value, raws: &mut Vec<(String, Vec<u8>)>, raw: Vec<u8>) {
    let ph = placeholder(raws);
    raws.push((ph.clone(), raw));
    match v {
        Value::Object(m) => m.insert(0, (ph, Value::from_u64(1))),
        other => {
            let old = std::mem::replace(other, Value::Null);
            *other = Value::Array(vec![Value::Object(vec![(ph, Value::from_u64(1))]), old]);
        }
    }
}

/// Make the line hold an object with a repeated key.
fn duplicate_key(v: &mut Value, raws: &mut Vec<(String, Vec<u8>)>, w: u32) -> String {
    match (w % 4, &mut *v) {
        (0, Value::Object(m)) if !m.is_empty() => {
            let i = (w / 4) as usize % m.len();
            let (k, old) = m[i].clone();
            let new = if (w / 4).is_multiple_of(2) {
                old
            } else {
                Value::Null
            };
            m.push((k.clone(), new));
            format!("top-level key {k:?} twice")
        }
        (1, Value::Object(m)) => {
            let Some((_, Value::Object(pm))) = m.iter_mut().find(|(k, _)| k == "payload") else {
                return duplicate_key_raw(v, raws, w);
            };
            if pm.is_empty() {
                pm.push(("k".into(), Value::from_u64(1)));
                pm.push(("k".into(), Value::from_u64(2)));
                return "payload key \"k\" twice".to_owned();
            }
            let i = (w / 4) as usize % pm.len();
            let (k, old) = pm[i].clone();
            pm.insert(0, (k.clone(), old));
            format!("payload key {k:?} twice")
        }
        _ => duplicate_key_raw(v, raws, w),
    }
}

fn duplicate_key_raw(v: &mut Value, raws: &mut Vec<(String, Vec<u8>)>, w: u32) -> String {
    let t = [
        "{\"a\":1,\"a\":2}",
        "{\"a\":1,\"\\u0061\":1}",
        "{\"\u{e9}\":1,\"\\u00e9\":2}",
        "{\"\u{1F600}\":1,\"\\ud83d\\ude00\":2}",
        "[{\"x\":{\"y\":1,\"y\":1}}]",
        "{\"\":0,\"\":0}",
    ][(w / 4) as usize % 6];
    inject(v, raws, t.as_bytes().to_vec(), w / 24);
    format!("object {t}")
}

/// Cut a written line strictly inside its object: after the first `{` and before the
/// last `}`, on a character boundary. Returns the prefix and a description.
fn tear(line: &[u8], v: u32) -> (Vec<u8>, String) {
    let open = line.iter().position(|&b| b == b'{').unwrap_or(0);
    let close = line.iter().rposition(|&b| b == b'}').unwrap_or(line.len());
    let lo = open + 1;
    let hi = close.max(lo); // the prefix may end anywhere in lo..=close (excl. '}')
    let mut cut = lo + v as usize % (hi - lo + 1);
    while cut > lo && (line[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    (
        line[..cut].to_vec(),
        format!(
            "last line cut after {cut} of {} bytes, no final newline",
            line.len()
        ),
    )
}
