//! Branch records (SPEC.md section "Branch", rules `B-*`).
//!
//! This module owns the seed's `SessionBranch`: lineage that names the parent session
//! and run, the fork sequence, the inherited event ids `0..=at`, and the fingerprint
//! of that prefix. A branch never touches the parent journal; it only reads it.

use std::io::BufRead;

use crate::error::{Error, ErrorCode, ReadError};
use crate::event::JournalProfile;
use crate::journal;
use crate::json::Value;
use crate::replay::{check_range, Reducer};

/// The branch record, field for field the seed's `SessionBranch`.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionBranch {
    pub branch_id: String,
    pub parent_session_id: String,
    pub parent_run_id: String,
    pub fork_sequence: u64,
    pub inherited_event_ids: Vec<String>,
    pub parent_fingerprint: String,
}

impl SessionBranch {
    /// The JSON object of SPEC.md `B-OUT-1`.
    pub fn to_json(&self) -> Value {
        Value::object([
            ("branch_id", Value::from(self.branch_id.as_str())),
            (
                "parent_session_id",
                Value::from(self.parent_session_id.as_str()),
            ),
            ("parent_run_id", Value::from(self.parent_run_id.as_str())),
            ("fork_sequence", Value::from_u64(self.fork_sequence)),
            (
                "inherited_event_ids",
                Value::Array(
                    self.inherited_event_ids
                        .iter()
                        .map(|s| Value::from(s.as_str()))
                        .collect(),
                ),
            ),
            (
                "parent_fingerprint",
                Value::from(self.parent_fingerprint.as_str()),
            ),
        ])
    }
}

/// `B-ID-2`: the characters Python's `str.strip()` removes (`str.isspace()`), pinned.
pub const BLANK_CHARS: &[char] = &[
    '\u{9}', '\u{a}', '\u{b}', '\u{c}', '\u{d}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', '\u{20}',
    '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}',
    '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200a}', '\u{2028}', '\u{2029}',
    '\u{202f}', '\u{205f}', '\u{3000}',
];

/// `B-ID-1`: a branch id is invalid when it is empty or made only of [`BLANK_CHARS`].
pub fn check_branch_id(id: &str) -> Result<(), Error> {
    if id.chars().all(|c| BLANK_CHARS.contains(&c)) {
        Err(Error::new(
            ErrorCode::InvalidBranchId,
            format!("branch id {id:?} is empty or only whitespace"),
        ))
    } else {
        Ok(())
    }
}

/// Validate the whole journal and record a branch at `at` named `branch_id`. Errors
/// in precedence order (`O-ORDER-1`): journal errors, `invalid_branch_id`,
/// `sequence_out_of_range`.
pub fn branch<R: BufRead>(
    source: R,
    profile: JournalProfile,
    at: i64,
    branch_id: &str,
) -> Result<SessionBranch, ReadError> {
    branch_bounded(
        source,
        profile,
        at,
        branch_id,
        crate::wire::DEFAULT_MAX_LINE_BYTES,
    )
}

/// [`branch`] with lines of at most `max_line_bytes`.
pub fn branch_bounded<R: BufRead>(
    source: R,
    profile: JournalProfile,
    at: i64,
    branch_id: &str,
    max_line_bytes: usize,
) -> Result<SessionBranch, ReadError> {
    let mut reducer = Reducer::new();
    let mut inherited = Vec::new();
    let count = journal::read_bounded(source, profile, max_line_bytes, |ev| {
        if (reducer.applied() as i64) <= at {
            reducer.apply(ev);
            inherited.push(ev.event_id.clone());
        }
    })?;
    check_branch_id(branch_id)?;
    let at = check_range(at, count, "fork sequence")?;
    let parent = reducer.into_state();
    Ok(SessionBranch {
        branch_id: branch_id.to_owned(),
        parent_session_id: parent.session_id,
        parent_run_id: parent.run_id,
        fork_sequence: at,
        inherited_event_ids: inherited,
        parent_fingerprint: parent.fingerprint,
    })
}
