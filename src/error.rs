//! Stable error codes and located errors (SPEC.md section "Error codes", the codes of
//! every rule family).
//!
//! This module owns the closed list of error codes of SPEC.md (each code is a stable
//! snake_case string that implementations in every language must produce), the
//! [`Error`] value that carries a code together with where it happened (physical line,
//! column, event sequence and event id), and [`ReadError`], the outcome of every reader
//! in the kit: an invalid input (exit status 1) or a source that could not be read
//! (exit status 2). It is the bottom layer: it imports nothing of the crate (the JSON
//! spelling of an error, `O-ERR-1`, is [`crate::json`]'s).

use std::fmt;

/// A stable error code. The string form ([`ErrorCode::as_str`]) is the contract; the
/// Rust names are a convenience.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `W-UTF8-1`: a line is not valid UTF-8.
    InvalidUtf8,
    /// `W-BOM-1`: a line starts with the UTF-8 byte order mark.
    UnexpectedBom,
    /// `W-BLANK-1`: an empty line, or one holding only JSON whitespace.
    BlankLine,
    /// `C-SYNTAX-1`: the text is not one JSON value (RFC 8259), NaN/Infinity included.
    InvalidJson,
    /// `C-KEY-2`: an object has the same key twice.
    DuplicateKey,
    /// `C-STR-3`: a `\u` escape names a lone UTF-16 surrogate.
    LoneSurrogate,
    /// `C-NUM-3`/`C-NUM-6`: an integer longer than 4300 digits or a float that overflows.
    NumberOutOfRange,
    /// `C-DEPTH-1`: containers nested deeper than the limit.
    NestingTooDeep,
    /// `E-*`: an event is not an object or a required envelope field is missing or ill-typed.
    MalformedEvent,
    /// `P-TRACE-*`: the event breaks the `trace-0.1` profile (only with that profile).
    ProfileViolation,
    /// `R-TYPE-1`: a payload field the reducer reads has the wrong JSON type.
    InvalidPayload,
    /// `J-EMPTY-1`: the journal holds no event.
    EmptyJournal,
    /// `J-SEQ-1`: an event's sequence is not its 0-based position.
    SequenceGap,
    /// `J-SESSION-1`: an event's session_id differs from the first event's.
    MixedSession,
    /// `J-RUN-1`: an event's provenance.run_id differs from the first event's.
    MixedRun,
    /// `J-ID-1`: an event id was already used by an earlier event.
    DuplicateEventId,
    /// `J-PARENT-1`: parent_event_id does not name an earlier event.
    UnknownParent,
    /// `O-RANGE-1`: `until` or `at` is not the sequence of an event of the journal.
    SequenceOutOfRange,
    /// `B-ID-1`: a branch id is empty or only whitespace.
    InvalidBranchId,
    /// `T-ENTRY-1`: a tree line is not an entry.
    MalformedEntry,
    /// `T-ID-1`: a tree entry id is used twice.
    DuplicateEntryId,
    /// `T-CHECKPOINT-1`: the tree has no head to label.
    EmptySession,
    /// `T-SEEK-1`: no tree entry has that id.
    UnknownEntry,
    /// `T-SEEKCP-1`: no tree entry carries that label.
    UnknownCheckpoint,
    /// `T-APPENDNEW-1`: a history does not extend the head's path.
    HistoryDiverged,
    /// `T-NEXT-1`: the id counter cannot grow.
    IdSpaceExhausted,
    /// `S-DUP-1`: an event id arrives again with different content.
    ConflictingDuplicate,
    /// `S-WRITER-1`: another writer holds the journal.
    Locked,
    /// Not a conformance code (not in [`ErrorCode::ALL`], not in SPEC.md section 10): a
    /// JSON text holds more than [`crate::json::MAX_VALUES`] values, an implementation
    /// limit of this kit (SPEC.md 16.5). Readers turn it into an I/O-class error
    /// ([`ReadError::Io`], exit status 2) by `ReadError::from`.
    TooManyValues,
}

impl ErrorCode {
    /// Every code, in the order SPEC.md lists them.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidUtf8,
        ErrorCode::UnexpectedBom,
        ErrorCode::BlankLine,
        ErrorCode::InvalidJson,
        ErrorCode::DuplicateKey,
        ErrorCode::LoneSurrogate,
        ErrorCode::NumberOutOfRange,
        ErrorCode::NestingTooDeep,
        ErrorCode::MalformedEvent,
        ErrorCode::ProfileViolation,
        ErrorCode::InvalidPayload,
        ErrorCode::EmptyJournal,
        ErrorCode::SequenceGap,
        ErrorCode::MixedSession,
        ErrorCode::MixedRun,
        ErrorCode::DuplicateEventId,
        ErrorCode::UnknownParent,
        ErrorCode::SequenceOutOfRange,
        ErrorCode::InvalidBranchId,
        ErrorCode::MalformedEntry,
        ErrorCode::DuplicateEntryId,
        ErrorCode::EmptySession,
        ErrorCode::UnknownEntry,
        ErrorCode::UnknownCheckpoint,
        ErrorCode::HistoryDiverged,
        ErrorCode::IdSpaceExhausted,
        ErrorCode::ConflictingDuplicate,
        ErrorCode::Locked,
    ];

    /// The stable string of SPEC.md.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidUtf8 => "invalid_utf8",
            ErrorCode::UnexpectedBom => "unexpected_bom",
            ErrorCode::BlankLine => "blank_line",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::DuplicateKey => "duplicate_key",
            ErrorCode::LoneSurrogate => "lone_surrogate",
            ErrorCode::NumberOutOfRange => "number_out_of_range",
            ErrorCode::NestingTooDeep => "nesting_too_deep",
            ErrorCode::MalformedEvent => "malformed_event",
            ErrorCode::ProfileViolation => "profile_violation",
            ErrorCode::InvalidPayload => "invalid_payload",
            ErrorCode::EmptyJournal => "empty_journal",
            ErrorCode::SequenceGap => "sequence_gap",
            ErrorCode::MixedSession => "mixed_session",
            ErrorCode::MixedRun => "mixed_run",
            ErrorCode::DuplicateEventId => "duplicate_event_id",
            ErrorCode::UnknownParent => "unknown_parent",
            ErrorCode::SequenceOutOfRange => "sequence_out_of_range",
            ErrorCode::InvalidBranchId => "invalid_branch_id",
            ErrorCode::MalformedEntry => "malformed_entry",
            ErrorCode::DuplicateEntryId => "duplicate_entry_id",
            ErrorCode::EmptySession => "empty_session",
            ErrorCode::UnknownEntry => "unknown_entry",
            ErrorCode::UnknownCheckpoint => "unknown_checkpoint",
            ErrorCode::HistoryDiverged => "history_diverged",
            ErrorCode::IdSpaceExhausted => "id_space_exhausted",
            ErrorCode::ConflictingDuplicate => "conflicting_duplicate",
            ErrorCode::Locked => "locked",
            ErrorCode::TooManyValues => "too_many_values",
        }
    }

    /// The SPEC.md rule that defines the code (the first, where several share it).
    pub fn rule(self) -> &'static str {
        match self {
            ErrorCode::InvalidUtf8 => "W-UTF8-1",
            ErrorCode::UnexpectedBom => "W-BOM-1",
            ErrorCode::BlankLine => "W-BLANK-1",
            ErrorCode::InvalidJson => "C-SYNTAX-1",
            ErrorCode::DuplicateKey => "C-KEY-2",
            ErrorCode::LoneSurrogate => "C-STR-3",
            ErrorCode::NumberOutOfRange => "C-NUM-3",
            ErrorCode::NestingTooDeep => "C-DEPTH-1",
            ErrorCode::MalformedEvent => "E-ENV-1",
            ErrorCode::ProfileViolation => "P-TRACE-1",
            ErrorCode::InvalidPayload => "R-TYPE-1",
            ErrorCode::EmptyJournal => "J-EMPTY-1",
            ErrorCode::SequenceGap => "J-SEQ-1",
            ErrorCode::MixedSession => "J-SESSION-1",
            ErrorCode::MixedRun => "J-RUN-1",
            ErrorCode::DuplicateEventId => "J-ID-1",
            ErrorCode::UnknownParent => "J-PARENT-1",
            ErrorCode::SequenceOutOfRange => "O-RANGE-1",
            ErrorCode::InvalidBranchId => "B-ID-1",
            ErrorCode::MalformedEntry => "T-ENTRY-1",
            ErrorCode::DuplicateEntryId => "T-ID-1",
            ErrorCode::EmptySession => "T-CHECKPOINT-1",
            ErrorCode::UnknownEntry => "T-SEEK-1",
            ErrorCode::UnknownCheckpoint => "T-SEEKCP-1",
            ErrorCode::HistoryDiverged => "T-APPENDNEW-1",
            ErrorCode::IdSpaceExhausted => "T-NEXT-1",
            ErrorCode::ConflictingDuplicate => "S-DUP-1",
            ErrorCode::Locked => "S-WRITER-1",
            // A limit, not a rule: attributed to the JSON text rules it stops.
            ErrorCode::TooManyValues => "C-SYNTAX-1",
        }
    }

    /// Whether journal operations (validate, replay, fingerprint, branch) can report
    /// this code: every code but those of session trees (`T-*`) and stores (`S-*`).
    pub fn is_journal(self) -> bool {
        let r = self.rule();
        !r.starts_with("T-") && !r.starts_with("S-")
    }

    /// Parse a stable string back into a code.
    pub fn from_str_code(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A conformance error: a stable code, a human message, and where it happened.
///
/// `line` is the 1-based physical line, `column` the 1-based byte offset within it,
/// `sequence` the event's declared sequence when it is an integer that fits in `i64`
/// (or the requested sequence, for `sequence_out_of_range`), `event_id` the event's id
/// when it could be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub sequence: Option<i64>,
    pub event_id: Option<String>,
    /// `T-ERR-1`: the divergence index of `history_diverged`.
    pub index: Option<u64>,
    /// The offending line, shortened for display (never part of the contract).
    pub excerpt: Option<String>,
}

impl Error {
    /// A new error with a code and message and no location yet.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            line: None,
            column: None,
            sequence: None,
            event_id: None,
            index: None,
            excerpt: None,
        }
    }

    pub fn at_line(mut self, line: u64) -> Error {
        self.line = Some(line);
        self
    }

    pub fn at_column(mut self, column: u64) -> Error {
        self.column = Some(column);
        self
    }

    pub fn with_sequence(mut self, sequence: Option<i64>) -> Error {
        self.sequence = sequence;
        self
    }

    pub fn with_event_id(mut self, event_id: Option<&str>) -> Error {
        self.event_id = event_id.map(str::to_owned);
        self
    }

    pub fn with_excerpt(mut self, line: &[u8]) -> Error {
        self.excerpt = Some(shorten(line, 120));
        self
    }
}

/// Reading a journal (or a tree, a document, a store) failed: either the input is
/// invalid (a located conformance error, exit status 1) or the source could not be read
/// (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Invalid(Error),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// An invalid input, except an implementation limit ([`ErrorCode::TooManyValues`]),
/// which is an I/O-class error naming the place and the code (SPEC.md 16.5).
impl From<Error> for ReadError {
    fn from(e: Error) -> ReadError {
        if e.code != ErrorCode::TooManyValues {
            return ReadError::Invalid(e);
        }
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            limit_text(&e),
        ))
    }
}

/// The text of a [`ErrorCode::TooManyValues`] error: `line L, column C: CODE: MESSAGE`
/// (what of the location is known).
pub fn limit_text(e: &Error) -> String {
    let mut place = Vec::new();
    if let Some(l) = e.line {
        place.push(format!("line {l}"));
    }
    if let Some(c) = e.column {
        place.push(format!("column {c}"));
    }
    let place = if place.is_empty() {
        String::new()
    } else {
        format!("{}: ", place.join(", "))
    };
    format!("{place}{}: {}", e.code, e.message)
}

/// Shorten raw line bytes for a diagnostic: lossy UTF-8, at most `max` characters,
/// control characters shown as escapes.
pub fn shorten(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (n, ch) in text.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        if (ch as u32) < 0x20 || ch == '\u{7f}' {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}
