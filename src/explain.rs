//! Failures that explain themselves (SPEC.md 13.3, "Causes"; rules `V-EXPECT-1`, `A-FAULT-1`).
//!
//! This module owns how the runner and `show` present a case and its failure:
//!
//! - [`escape`] and [`Preview`]: input bytes made printable, so that invisible,
//!   control, format and invalid bytes can be seen (a raw U+0085 or U+2028, a BOM, a
//!   `\r`, a NUL, a byte that is not UTF-8);
//! - [`title`]: each rule's one-line title, taken from the SPEC.md compiled into the
//!   binary;
//! - [`Cause`], [`diagnose`] and [`classify`]: why a check failed, with the JSON Pointer
//!   of the first difference, consistent with [`vectors::compare`];
//! - [`explain`]: the full text printed for a failed case;
//! - [`failures_by_rule`]: the closing table that groups failing cases by rule.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use crate::canonical;
use crate::json::Value;
use crate::runner::{CaseRecord, CheckRecord, Outcome};
use crate::vectors::{self, Answer, Case, Expect};

/// How many input bytes a preview shows (the total size is always given).
pub const PREVIEW_BYTES: usize = 300;

/// Whether `c` is shown as itself. Everything that would print as nothing or as
/// blank space other than U+0020 is escaped: controls (Cc: C0, DEL, C1 such as U+0085),
/// format characters (Cf: U+FEFF, bidi controls, zero-width joiners, soft hyphen),
/// line and paragraph separators (U+2028, U+2029), spaces other than U+0020 (U+00A0,
/// U+3000, ...), private-use and unassigned code points.
fn shown_as_is(c: char) -> bool {
    c == ' '
        || !matches!(
            c.general_category(),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::SpaceSeparator
                | GeneralCategory::PrivateUse
                | GeneralCategory::Unassigned
                | GeneralCategory::Surrogate
        )
}

/// Escape at most about `max` bytes of `bytes` for display; returns the text and how
/// many bytes it covers (a character cut by `max` is shown whole).
///
/// `\n` stays a line break. Every other invisible character is written `\u{HEX}`
/// (Rust's notation: `\u{d}` for a raw `\r`, `\u{9}` for a tab, `\u{0}` for NUL,
/// `\u{85}`, `\u{2028}`, `\u{feff}`), and a byte that is not part of well-formed UTF-8
/// is written `\xHH`. Neither notation is a JSON escape (JSON writes `\r`, `\u000d`),
/// so a raw character never looks like an escaped one. Printable characters, non-ASCII
/// letters included, are shown as they are.
pub fn escape(bytes: &[u8], max: usize) -> (String, usize) {
    let mut out = String::new();
    let mut used = 0;
    'chunks: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if used >= max {
                break 'chunks;
            }
            used += c.len_utf8();
            if c == '\n' || shown_as_is(c) {
                out.push(c);
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        }
        for b in chunk.invalid() {
            if used >= max {
                break 'chunks;
            }
            used += 1;
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    (out, used)
}

/// A case's input as shown in explanations and reports: its size and an escaped
/// preview of its first [`PREVIEW_BYTES`] bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Preview {
    /// The total size in bytes.
    pub size: usize,
    /// How many bytes `text` shows.
    pub shown: usize,
    /// [`escape`]d text; ends with `…` when the input is longer than what it shows.
    pub text: String,
    /// Whether the input's last byte is `\n`.
    pub final_newline: bool,
}

impl Preview {
    pub fn of(bytes: &[u8]) -> Preview {
        Preview::with_limit(bytes, PREVIEW_BYTES)
    }

    /// A preview of about `max` bytes.
    pub fn with_limit(bytes: &[u8], max: usize) -> Preview {
        let (mut text, shown) = escape(bytes, max);
        if shown < bytes.len() {
            text.push('…');
        }
        Preview {
            size: bytes.len(),
            shown,
            text,
            final_newline: bytes.last() == Some(&b'\n'),
        }
    }

    /// The report's `input` member: `{"size":N,"preview":TEXT}`.
    pub fn to_json(&self) -> Value {
        Value::object([
            ("size", Value::from_u64(self.size as u64)),
            ("preview", Value::from(self.text.as_str())),
        ])
    }

    /// One line saying what the preview shows: size, how much is shown, the ending.
    pub fn summary(&self) -> String {
        if self.size == 0 {
            return "0 bytes: empty".into();
        }
        let mut s = format!("{} bytes", self.size);
        if self.shown < self.size {
            s.push_str(&format!(", the first {} shown", self.shown));
        }
        s.push_str(if self.final_newline {
            ", ends with a newline"
        } else {
            ", NO final newline"
        });
        s
    }

    /// The preview as indented lines, each starting with `| ` so that leading and
    /// trailing spaces can be seen.
    pub fn render(&self, indent: &str) -> String {
        let mut out = format!("{indent}input ({}):\n", self.summary());
        let body = self.text.strip_suffix('\n').unwrap_or(&self.text);
        if self.size > 0 {
            for line in body.split('\n') {
                out.push_str(&format!("{indent}  | {line}\n"));
            }
        }
        out
    }
}

/// SPEC.md as compiled into the binary (the source of rule titles).
pub const SPEC: &str = include_str!("../SPEC.md");

/// The longest title, in characters, before it is cut with `…`.
pub const TITLE_CHARS: usize = 100;

/// The one-line title of rule `id`: the first sentence of its definition in SPEC.md
/// (`- **[ID]** Title...`), or, for a rule only named inside another paragraph, the
/// sentence that names it. A first sentence of fewer than four words (`Precedence.`)
/// is followed by the next one. `None` for an id SPEC.md does not define.
pub fn title(id: &str) -> Option<&'static str> {
    static TITLES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    TITLES
        .get_or_init(|| parse_titles(SPEC))
        .get(id)
        .map(String::as_str)
}

/// Every rule id SPEC.md defines, with its title.
pub fn titles(spec: &str) -> BTreeMap<String, String> {
    parse_titles(spec)
}

fn parse_titles(spec: &str) -> BTreeMap<String, String> {
    // Blocks: paragraphs, with each top-level list item starting a block of its own.
    let mut blocks: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut fence = false;
    for line in spec.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let starts = t.is_empty() || line.starts_with("- ") || line.starts_with('#');
        if starts && !current.is_empty() {
            blocks.push(std::mem::take(&mut current));
        }
        if t.is_empty() || t.starts_with('|') || line.starts_with('#') {
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(t);
        // A line ending in a colon introduces a list or a block: the sentence ends.
        if t.ends_with(':') {
            current.push_str(" \u{0}");
        }
    }
    blocks.push(current);
    let mut defined = BTreeMap::new();
    let mut mentioned: BTreeMap<String, String> = BTreeMap::new();
    for block in &blocks {
        let item = block.strip_prefix("- ");
        let sentences = sentences(item.unwrap_or(block));
        for (i, s) in sentences.iter().enumerate() {
            for (pos, id) in rule_marks(s) {
                let leading = item.is_some() && i == 0 && pos == 0;
                if leading {
                    let mut t = strip_marks(s);
                    if t.split_whitespace().count() < 4 {
                        if let Some(next) = sentences.get(1) {
                            t = format!("{t} {}", strip_marks(next));
                        }
                    }
                    defined.entry(id).or_insert_with(|| shorten(&t));
                } else {
                    mentioned
                        .entry(id)
                        .or_insert_with(|| shorten(&strip_marks(s)));
                }
            }
        }
    }
    for (id, t) in mentioned {
        defined.entry(id).or_insert(t);
    }
    defined
}

/// Split a block into sentences: a `.` followed by a space or the end, outside
/// backquotes and not in `e.g.` or `i.e.`; or a line-ending colon (marked `\0`).
fn sentences(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut code = false;
    let mut chars = block.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{0}' {
            out.push(
                std::mem::take(&mut cur)
                    .trim()
                    .trim_end_matches(':')
                    .to_owned(),
            );
            continue;
        }
        cur.push(c);
        if c == '`' {
            code = !code;
        }
        let end = chars.peek().is_none_or(|n| *n == ' ');
        if c == '.' && !code && end && !cur.ends_with("e.g.") && !cur.ends_with("i.e.") {
            out.push(std::mem::take(&mut cur).trim().to_owned());
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_owned());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The `**[ID]**` marks in a sentence with their byte positions.
fn rule_marks(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s[from..].find("**[") {
        let start = from + i;
        let rest = &s[start + 3..];
        match rest.find("]**") {
            Some(j) if is_rule_id(&rest[..j]) => {
                out.push((start, rest[..j].to_owned()));
                from = start + 3 + j + 3;
            }
            _ => from = start + 3,
        }
    }
    out
}

/// `X-NAME-N`: upper-case letters, digits and dashes, ending in `-` and digits.
pub fn is_rule_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() >= 2
        && parts[0].chars().all(|c| c.is_ascii_uppercase())
        && !parts[0].is_empty()
        && parts[1..].iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
        && parts.last().unwrap().chars().all(|c| c.is_ascii_digit())
}

/// Remove rule marks (and the parentheses around a mark alone in them) and bold.
fn strip_marks(s: &str) -> String {
    let mut t = s.to_owned();
    for (_, id) in rule_marks(s) {
        t = t
            .replace(&format!(" (**[{id}]**)"), "")
            .replace(&format!("(**[{id}]**)"), "")
            .replace(&format!("**[{id}]**"), "");
    }
    let t = t.replace("**", "");
    let t = t.replace(" :", ":").replace(" .", ".");
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(t: &str) -> String {
    if t.chars().count() <= TITLE_CHARS {
        return t.to_owned();
    }
    let cut: String = t.chars().take(TITLE_CHARS - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > TITLE_CHARS / 2 => &cut[..i],
        _ => &cut[..],
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// Why a check failed (SPEC.md 13.3). The names are stable: reports and JUnit carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// Both sides are results and the values differ.
    WrongResult,
    /// Both sides are errors and the codes differ.
    WrongErrorCode,
    /// Same error code; `line`, `sequence` or `index` differs or is missing.
    WrongLocation,
    /// The vector expects an error and the implementation gave a result.
    ResultInsteadOfError,
    /// The vector expects a result and the implementation gave an error.
    ErrorInsteadOfResult,
    /// The adapter crashed, timed out or broke the protocol (the check is errored).
    AdapterFault,
    /// The case is on the skip list but passes.
    UnexpectedPass,
}

impl Cause {
    pub const ALL: [Cause; 7] = [
        Cause::WrongResult,
        Cause::WrongErrorCode,
        Cause::WrongLocation,
        Cause::ResultInsteadOfError,
        Cause::ErrorInsteadOfResult,
        Cause::AdapterFault,
        Cause::UnexpectedPass,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::WrongResult => "wrong_result",
            Cause::WrongErrorCode => "wrong_error_code",
            Cause::WrongLocation => "wrong_location",
            Cause::ResultInsteadOfError => "result_instead_of_error",
            Cause::ErrorInsteadOfResult => "error_instead_of_result",
            Cause::AdapterFault => "adapter_fault",
            Cause::UnexpectedPass => "unexpected_pass",
        }
    }

    pub fn parse(s: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed check's cause and the JSON Pointer (RFC 6901) of the first difference,
/// into the check's `expected` and `actual` documents: `/result/...` for results,
/// `/error/code`, `/error/line`, `/error/sequence` or `/error/index` for errors, and
/// `None` when one side is a result and the other an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cause: Cause,
    pub pointer: Option<String>,
}

/// Why `answer` does not meet `expect`; `None` exactly when [`vectors::compare`]
/// finds that it matches.
pub fn diagnose(expect: &Expect, answer: &Answer) -> Option<Mismatch> {
    let m = |cause, pointer: &str| {
        Some(Mismatch {
            cause,
            pointer: Some(pointer.to_owned()),
        })
    };
    match (expect, answer) {
        (Expect::Result { value, .. }, Answer::Result(got)) => {
            match vectors::first_difference_pointer(value, got) {
                Some(p) => m(Cause::WrongResult, &format!("/result{p}")),
                // Same value; only the `sha256` of a canonical text can still differ.
                None => {
                    vectors::compare(expect, answer).and_then(|_| m(Cause::WrongResult, "/result"))
                }
            }
        }
        (Expect::Result { .. }, Answer::Error { .. }) => Some(Mismatch {
            cause: Cause::ErrorInsteadOfResult,
            pointer: None,
        }),
        (Expect::Error { .. }, Answer::Result(_)) => Some(Mismatch {
            cause: Cause::ResultInsteadOfError,
            pointer: None,
        }),
        (
            Expect::Error {
                codes,
                line,
                sequence,
                index,
            },
            Answer::Error {
                code,
                line: got_line,
                sequence: got_seq,
                index: got_index,
                ..
            },
        ) => {
            if !codes.contains(code) {
                return m(Cause::WrongErrorCode, "/error/code");
            }
            let differs = |want: Option<i128>, got: Option<i128>| want.is_some() && want != got;
            let wide = |x: Option<u64>| x.map(i128::from);
            if differs(wide(*line), wide(*got_line)) {
                m(Cause::WrongLocation, "/error/line")
            } else if differs(sequence.map(i128::from), got_seq.map(i128::from)) {
                m(Cause::WrongLocation, "/error/sequence")
            } else if differs(wide(*index), wide(*got_index)) {
                m(Cause::WrongLocation, "/error/index")
            } else {
                None
            }
        }
    }
}

/// The cause alone (see [`diagnose`]).
pub fn classify(expect: &Expect, answer: &Answer) -> Option<Cause> {
    diagnose(expect, answer).map(|m| m.cause)
}

/// A case's cause, from its outcome and checks: `adapter_fault` for an errored case;
/// for a failed one, the cause of its first failed check that is not `wrong_location`,
/// else `wrong_location` (a case is location-only when all its failures are).
pub fn case_cause(outcome: Outcome, checks: &[CheckRecord]) -> Option<Cause> {
    match outcome {
        Outcome::Errored => Some(Cause::AdapterFault),
        Outcome::Failed => {
            let failed = || {
                checks
                    .iter()
                    .filter(|c| c.outcome == Outcome::Failed)
                    .filter_map(|c| c.cause)
            };
            failed()
                .find(|c| *c != Cause::WrongLocation)
                .or_else(|| failed().next())
        }
        Outcome::Passed | Outcome::Skipped => None,
    }
}

fn show_value(v: &Value) -> String {
    escape(canonical::to_string(v).as_bytes(), 400).0
}

/// The full explanation of a failed (or errored) case: its id, rules with titles,
/// description, each failing check (operation, cause, pointer, expected, actual, why),
/// and the escaped input with its size.
pub fn explain(case: &Case, checks: &[CheckRecord]) -> String {
    explain_parts(
        &case.id,
        &case.description,
        &case.rules,
        &Preview::of(&case.input),
        checks,
    )
}

/// [`explain`] for a case's record (the runner's failures, JUnit bodies), with the
/// record's message (which says what went wrong beyond the checks: a stale skip list,
/// a dead adapter, a differential kind) first.
pub fn explain_record(r: &CaseRecord) -> String {
    let mut s = String::new();
    let explained_by_checks = r
        .checks
        .iter()
        .any(|c| matches!(c.outcome, Outcome::Failed | Outcome::Errored));
    if !r.message.is_empty() && (!explained_by_checks || r.group.starts_with("properties")) {
        s.push_str(&r.message);
        s.push('\n');
    }
    s.push_str(&explain_parts(
        &r.id,
        &r.description,
        &r.rules,
        &r.input,
        &r.checks,
    ));
    if !r.stderr.is_empty() {
        s.push_str("\n  adapter stderr (tail):\n");
        for line in r.stderr.lines() {
            s.push_str(&format!("    {line}\n"));
        }
    }
    s
}

fn explain_parts(
    id: &str,
    description: &str,
    rules: &[String],
    input: &Preview,
    checks: &[CheckRecord],
) -> String {
    let mut s = format!("{id}\n");
    s.push_str(&format!("  description: {}\n", description));
    for r in rules {
        s.push_str(&format!(
            "  rule {r}: {}\n",
            title(r).unwrap_or("(not a rule of this SPEC.md)")
        ));
    }
    let total = checks.len();
    for (n, c) in checks.iter().enumerate() {
        if !matches!(c.outcome, Outcome::Failed | Outcome::Errored) {
            continue;
        }
        s.push_str(&format!(
            "  check {} of {total}: {}\n",
            n + 1,
            canonical::to_string(&c.op)
        ));
        let cause = c.cause.map_or("-", Cause::as_str);
        match &c.pointer {
            Some(p) => s.push_str(&format!("    cause:    {cause} at {p}\n")),
            None => s.push_str(&format!("    cause:    {cause}\n")),
        }
        s.push_str(&format!("    expected: {}\n", show_value(&c.expected)));
        if c.outcome == Outcome::Failed {
            s.push_str(&format!("    actual:   {}\n", show_value(&c.actual)));
        }
        let why = escape(c.message.as_bytes(), 2000).0;
        s.push_str(&format!(
            "    why:      {}\n",
            why.replace('\n', "\n              ")
        ));
    }
    s.push_str(&input.render("  "));
    s.push_str(&format!(
        "  see it: journal-conformance show {id} (--input for its exact bytes)"
    ));
    s
}

/// One row of the failures-by-rule table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    pub rule: String,
    pub cases: usize,
    pub causes: BTreeMap<Cause, usize>,
}

/// Group failing cases by rule: `(rows for wrong answers, rows for location-only
/// mismatches)`, each ordered by the number of cases (most first), then rule id. A case
/// counts once under EACH of its rules (a case that exercises two rules is evidence
/// against both); its cause is [`case_cause`]'s, so a case is in the location-only
/// rows when its only failures are `wrong_location`.
pub fn by_rule<'a>(
    failed: impl IntoIterator<Item = (&'a [String], Cause)>,
) -> (Vec<RuleRow>, Vec<RuleRow>) {
    let mut answers: BTreeMap<&str, RuleRow> = BTreeMap::new();
    let mut locations: BTreeMap<&str, RuleRow> = BTreeMap::new();
    for (rules, cause) in failed {
        let table = if cause == Cause::WrongLocation {
            &mut locations
        } else {
            &mut answers
        };
        for r in rules {
            let row = table.entry(r).or_insert_with(|| RuleRow {
                rule: r.clone(),
                cases: 0,
                causes: BTreeMap::new(),
            });
            row.cases += 1;
            *row.causes.entry(cause).or_default() += 1;
        }
    }
    let order = |t: BTreeMap<&str, RuleRow>| {
        let mut v: Vec<RuleRow> = t.into_values().collect();
        v.sort_by(|a, b| b.cases.cmp(&a.cases).then_with(|| a.rule.cmp(&b.rule)));
        v
    };
    (order(answers), order(locations))
}

/// The closing "failures by rule" table, or `None` when nothing failed.
pub fn failures_by_rule<'a>(
    failed: impl IntoIterator<Item = (&'a [String], Cause)>,
) -> Option<String> {
    let (answers, locations) = by_rule(failed);
    if answers.is_empty() && locations.is_empty() {
        return None;
    }
    let causes = |r: &RuleRow| {
        let mut c: Vec<(&Cause, &usize)> = r.causes.iter().collect();
        c.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        c.iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Titles are cut shorter here so that a row fits a terminal line more often.
    let short = |t: &str| match t.char_indices().nth(64) {
        Some((i, _)) => format!("{}…", t[..i].trim_end()),
        None => t.to_owned(),
    };
    let width = answers
        .iter()
        .chain(&locations)
        .map(|r| causes(r).len())
        .max()
        .unwrap_or(0)
        .max(6);
    let rows = |out: &mut String, rows: &[RuleRow]| {
        out.push_str(&format!(
            "  {:<14} {:>5}  {:<width$}  title\n",
            "rule", "cases", "causes"
        ));
        for r in rows {
            out.push_str(&format!(
                "  {:<14} {:>5}  {:<width$}  {}\n",
                r.rule,
                r.cases,
                causes(r),
                short(title(&r.rule).unwrap_or("-"))
            ));
        }
    };
    let mut out = String::from(
        "\nfailures by rule (a case counts under each of its rules; \
         `journal-conformance show CASE-ID` shows one):\n",
    );
    if !answers.is_empty() {
        out.push_str("wrong answers:\n");
        rows(&mut out, &answers);
    }
    if !locations.is_empty() {
        out.push_str(
            "location only (right error code; line, sequence or index differ or are missing):\n",
        );
        rows(&mut out, &locations);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn esc(b: &[u8]) -> String {
        escape(b, 10_000).0
    }

    #[test]
    fn invisible_characters_are_escaped() {
        for (raw, shown) in [
            ("a\u{85}b", "a\\u{85}b"),
            ("a\u{2028}b", "a\\u{2028}b"),
            ("a\u{2029}b", "a\\u{2029}b"),
            ("\u{feff}{}", "\\u{feff}{}"),
            ("{}\r\n", "{}\\u{d}\n"),
            ("a\tb", "a\\u{9}b"),
            ("a\0b", "a\\u{0}b"),
            ("\u{1}\u{1b}\u{1f}\u{7f}", "\\u{1}\\u{1b}\\u{1f}\\u{7f}"),
            ("\u{80}\u{9f}", "\\u{80}\\u{9f}"),
            // Bidi and other format characters (Cf).
            ("\u{202e}abc\u{202c}", "\\u{202e}abc\\u{202c}"),
            (
                "\u{200b}\u{200d}\u{2066}\u{ad}",
                "\\u{200b}\\u{200d}\\u{2066}\\u{ad}",
            ),
            // Spaces other than U+0020 look like one.
            ("a\u{a0}b\u{3000}c", "a\\u{a0}b\\u{3000}c"),
            ("\u{e000}", "\\u{e000}"),
        ] {
            assert_eq!(esc(raw.as_bytes()), shown, "{raw:?}");
        }
    }

    #[test]
    fn invalid_utf8_bytes_are_shown_as_hex() {
        assert_eq!(esc(b"a\xffb"), "a\\xffb");
        assert_eq!(esc(b"\xc3"), "\\xc3"); // truncated sequence
        assert_eq!(esc(b"\xed\xa0\x80"), "\\xed\\xa0\\x80"); // encoded surrogate
        assert_eq!(esc(b"\xc0\xaf"), "\\xc0\\xaf"); // overlong
    }

    #[test]
    fn printable_text_stays_as_is() {
        for s in [
            "{\"a\":\"b c\"}",
            "héllo wörld",
            "日本語",
            "Ελληνικά",
            "emoji 🎉",
            "\\u0085 is a JSON escape",
            "\\r\\n",
        ] {
            assert_eq!(esc(s.as_bytes()), s);
        }
        assert_eq!(esc(b"a\nb\n"), "a\nb\n");
    }

    #[test]
    fn a_raw_nel_does_not_look_like_a_valid_line() {
        let line = "{\"content\":\"a\u{85}b\"}\n";
        let p = Preview::of(line.as_bytes());
        assert!(p.text.contains("\\u{85}"), "{}", p.text);
        assert_ne!(p.text, line);
        assert!(p.render("").contains("| {\"content\":\"a\\u{85}b\"}"));
    }

    #[test]
    fn previews_give_size_shown_bytes_and_ending() {
        let big = "x".repeat(1000);
        let p = Preview::of(big.as_bytes());
        assert_eq!((p.size, p.shown), (1000, PREVIEW_BYTES));
        assert!(p.text.ends_with('…'));
        assert_eq!(
            p.summary(),
            "1000 bytes, the first 300 shown, NO final newline"
        );
        assert_eq!(
            Preview::of(b"{}\n").summary(),
            "3 bytes, ends with a newline"
        );
        assert_eq!(Preview::of(b"").summary(), "0 bytes: empty");
        // A multi-byte character at the cut is shown whole, not as invalid bytes.
        let s = format!("{}é", "x".repeat(PREVIEW_BYTES - 1));
        let p = Preview::of(s.as_bytes());
        assert!(p.text.ends_with('é'), "{}", p.text);
        assert_eq!(
            p.to_json(),
            Value::object([
                ("size", Value::from_u64(PREVIEW_BYTES as u64 + 1)),
                ("preview", Value::from(p.text.as_str()))
            ])
        );
    }

    #[test]
    fn every_rule_used_by_a_vector_has_a_title() {
        let cases = vectors::load_embedded().unwrap();
        let mut missing = Vec::new();
        for c in &cases {
            for r in &c.rules {
                if title(r).is_none() && !missing.contains(r) {
                    missing.push(r.clone());
                }
            }
        }
        assert!(missing.is_empty(), "rules without a title: {missing:?}");
        for (id, t) in titles(SPEC) {
            assert!(is_rule_id(&id), "{id}");
            assert!(
                !t.is_empty() && t.chars().count() <= TITLE_CHARS,
                "{id}: {t}"
            );
            assert!(!t.contains("**") && !t.contains('\n'), "{id}: {t}");
        }
    }

    #[test]
    fn titles_are_the_first_sentence_of_spec_md() {
        // Checked by hand against SPEC.md.
        assert_eq!(
            title("W-LINE-1"),
            Some("The journal is split into lines on the byte `0x0A` (`\\n`) only.")
        );
        assert_eq!(
            title("C-NUM-2"),
            Some("The integer `-0` is the integer `0`.")
        );
        assert_eq!(
            title("P-TRACE-2"),
            Some("`trace_version` is the string `\"0.1.0\"`.")
        );
        // A backquoted `.` does not end the sentence; the first definition wins over
        // the "(output)" one.
        assert!(title("C-NUM-1")
            .unwrap()
            .starts_with("A number literal without `.`, `e` or `E` is an integer"));
        // A short first sentence is followed by the next.
        assert!(title("J-ORDER-1")
            .unwrap()
            .starts_with("Precedence. Errors are found in one pass"));
        assert_eq!(title("R-STREAM-1"), Some("The streaming final-event rule."));
        // A rule only named inside another rule's paragraph: the sentence naming it.
        assert_eq!(
            title("T-BLANK-1"),
            Some("A line that is then empty is skipped.")
        );
        // A line ending in a colon ends the title.
        assert_eq!(title("V-CASE-1"), Some("A case has the members"));
        assert_eq!(title("NO-SUCH-1"), None);
    }

    #[test]
    fn title_parsing_on_a_small_spec() {
        let spec = "# Heading [X-NO-1]\n\n- **[A-ONE-1]** First sentence, e.g. this one, goes\n  on. Second.\n- **[A-TWO-1]** Go. Then this.\n\nText naming **[A-THREE-1]** inline. More.\n\n```\n- **[A-FENCE-1]** in code\n```\n";
        let t = titles(spec);
        assert_eq!(t["A-ONE-1"], "First sentence, e.g. this one, goes on.");
        assert_eq!(t["A-TWO-1"], "Go. Then this.");
        assert_eq!(t["A-THREE-1"], "Text naming inline.");
        assert_eq!(t.len(), 3, "{t:?}");
        let long = format!("- **[L-ONG-1]** {}.\n", "word ".repeat(40));
        let t = titles(&long);
        assert!(t["L-ONG-1"].ends_with('…') && t["L-ONG-1"].chars().count() <= TITLE_CHARS);
    }

    fn err(code: &str, line: Option<u64>, sequence: Option<i64>, index: Option<u64>) -> Answer {
        Answer::Error {
            code: code.into(),
            line,
            sequence,
            index,
            message: "m".into(),
        }
    }

    #[test]
    fn causes_and_pointers() {
        let want = Expect::Result {
            value: crate::json::parse(r#"{"stop_reason":"max","a/b":[1,2]}"#).unwrap(),
            sha256: None,
        };
        let got = |t: &str| Answer::Result(crate::json::parse(t).unwrap());
        let d = diagnose(&want, &got(r#"{"stop_reason":"x","a/b":[1,2]}"#)).unwrap();
        assert_eq!(d.cause, Cause::WrongResult);
        assert_eq!(d.pointer.as_deref(), Some("/result/stop_reason"));
        let d = diagnose(&want, &got(r#"{"stop_reason":"max","a/b":[1,3]}"#)).unwrap();
        assert_eq!(d.pointer.as_deref(), Some("/result/a~1b/1"));
        assert_eq!(
            diagnose(&want, &got(r#"{"a/b":[1,2],"stop_reason":"max"}"#)),
            None
        );
        assert_eq!(
            classify(&want, &err("x", None, None, None)),
            Some(Cause::ErrorInsteadOfResult)
        );
        let gap = Expect::Error {
            codes: vec!["sequence_gap".into()],
            line: Some(3),
            sequence: Some(3),
            index: None,
        };
        assert_eq!(
            classify(&gap, &got("{}")),
            Some(Cause::ResultInsteadOfError)
        );
        let d = diagnose(&gap, &err("other", Some(3), Some(3), None)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref()),
            (Cause::WrongErrorCode, Some("/error/code"))
        );
        let d = diagnose(&gap, &err("sequence_gap", None, Some(3), None)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref()),
            (Cause::WrongLocation, Some("/error/line"))
        );
        let d = diagnose(&gap, &err("sequence_gap", Some(3), Some(4), None)).unwrap();
        assert_eq!(d.pointer.as_deref(), Some("/error/sequence"));
        assert_eq!(
            diagnose(&gap, &err("sequence_gap", Some(3), Some(3), Some(9))),
            None
        );
        // A canonical text whose sha256 does not match is a wrong result at its root.
        let canon = Expect::Result {
            value: Value::from("{}"),
            sha256: Some("00".into()),
        };
        let d = diagnose(&canon, &got(r#""{}""#)).unwrap();
        assert_eq!(
            (d.cause, d.pointer.as_deref()),
            (Cause::WrongResult, Some("/result"))
        );
    }

    #[test]
    fn cause_names_round_trip() {
        for c in Cause::ALL {
            assert_eq!(Cause::parse(c.as_str()), Some(c));
        }
        assert_eq!(Cause::parse("wrong"), None);
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0i64..3).prop_map(Value::from_i64),
            prop_oneof![Just("a"), Just("b")].prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec((prop_oneof![Just("k"), Just("l")], inner), 0..3).prop_map(
                    |m| {
                        let mut o: Vec<(String, Value)> = Vec::new();
                        for (k, v) in m {
                            if !o.iter().any(|(x, _)| x == k) {
                                o.push((k.to_owned(), v));
                            }
                        }
                        Value::Object(o)
                    }
                ),
            ]
        })
    }

    fn code() -> impl Strategy<Value = String> {
        prop_oneof![Just("x"), Just("y"), Just("z")].prop_map(str::to_owned)
    }

    fn expect() -> impl Strategy<Value = Expect> {
        prop_oneof![
            value().prop_map(|value| Expect::Result {
                value,
                sha256: None
            }),
            (
                prop::collection::vec(code(), 1..3),
                prop::option::of(1u64..3),
                prop::option::of(-1i64..2),
                prop::option::of(0u64..2)
            )
                .prop_map(|(codes, line, sequence, index)| Expect::Error {
                    codes,
                    line,
                    sequence,
                    index
                }),
        ]
    }

    fn answer() -> impl Strategy<Value = Answer> {
        prop_oneof![
            value().prop_map(Answer::Result),
            (
                code(),
                prop::option::of(1u64..3),
                prop::option::of(-1i64..2),
                prop::option::of(0u64..2)
            )
                .prop_map(|(c, l, s, i)| err(&c, l, s, i)),
        ]
    }

    /// Resolve an RFC 6901 pointer.
    fn resolve<'v>(v: &'v Value, pointer: &str) -> Option<&'v Value> {
        if pointer.is_empty() {
            return Some(v);
        }
        let mut cur = v;
        for tok in pointer.strip_prefix('/')?.split('/') {
            let tok = tok.replace("~1", "/").replace("~0", "~");
            cur = match cur {
                Value::Object(_) => cur.get(&tok)?,
                Value::Array(a) => a.get(tok.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    proptest! {
        #[test]
        fn classify_agrees_with_compare(e in expect(), a in answer()) {
            let d = diagnose(&e, &a);
            prop_assert_eq!(d.is_none(), vectors::compare(&e, &a).is_none());
            let Some(d) = d else { return Ok(()) };
            let both_results = matches!((&e, &a), (Expect::Result { .. }, Answer::Result(_)));
            let both_errors = matches!((&e, &a), (Expect::Error { .. }, Answer::Error { .. }));
            let answer_is_result = matches!(a, Answer::Result(_));
            match d.cause {
                Cause::WrongResult => prop_assert!(both_results),
                Cause::WrongErrorCode | Cause::WrongLocation => prop_assert!(both_errors),
                Cause::ResultInsteadOfError => {
                    prop_assert!(answer_is_result && !both_results)
                }
                Cause::ErrorInsteadOfResult => {
                    prop_assert!(!answer_is_result && !both_errors)
                }
                Cause::AdapterFault | Cause::UnexpectedPass => prop_assert!(false),
            }
            if let (Expect::Error { codes, .. }, Answer::Error { code, .. }) = (&e, &a) {
                prop_assert_eq!(d.cause == Cause::WrongErrorCode, !codes.contains(code));
            }
            // The pointer names a place where expected and actual differ.
            if let Some(p) = &d.pointer {
                let (want, got) = (e.to_json(), a.to_json());
                let (w, g) = (resolve(&want, p), resolve(&got, p));
                prop_assert!(w.is_some() || g.is_some(), "{} resolves nowhere", p);
                if d.cause == Cause::WrongResult {
                    prop_assert!(
                        !matches!((w, g), (Some(x), Some(y)) if x.same(y)),
                        "{} is the same on both sides", p
                    );
                } else {
                    prop_assert!(w.is_some(), "{} is not in the expectation", p);
                }
            } else {
                prop_assert!(!both_results && !both_errors);
            }
        }
    }

    #[test]
    fn the_table_groups_by_rule_and_separates_locations() {
        let r = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (stop, seq, both) = (
            r(&["R-STOP-1"]),
            r(&["J-SEQ-1"]),
            r(&["J-SEQ-1", "J-LOC-1"]),
        );
        let failed: Vec<(&[String], Cause)> = vec![
            (&stop, Cause::WrongResult),
            (&seq, Cause::ResultInsteadOfError),
            (&stop, Cause::WrongResult),
            (&both, Cause::WrongLocation),
            (&stop, Cause::AdapterFault),
            (&seq, Cause::ResultInsteadOfError),
            (&seq, Cause::WrongResult),
        ];
        let (answers, locations) = by_rule(failed.clone());
        let rows: Vec<(&str, usize)> = answers.iter().map(|r| (r.rule.as_str(), r.cases)).collect();
        assert_eq!(rows, [("J-SEQ-1", 3), ("R-STOP-1", 3)]);
        assert_eq!(answers[1].causes[&Cause::WrongResult], 2);
        assert_eq!(answers[1].causes[&Cause::AdapterFault], 1);
        let rows: Vec<(&str, usize)> = locations
            .iter()
            .map(|r| (r.rule.as_str(), r.cases))
            .collect();
        assert_eq!(rows, [("J-LOC-1", 1), ("J-SEQ-1", 1)]);
        let text = failures_by_rule(failed).unwrap();
        let (a, l) = text.split_once("location only").unwrap();
        assert!(
            a.contains("J-SEQ-1") && a.contains("result_instead_of_error 2, wrong_result 1"),
            "{text}"
        );
        assert!(
            !a.contains("wrong_location") && l.contains("wrong_location 1"),
            "{text}"
        );
        assert!(l.contains(&title("J-LOC-1").unwrap()[..40]), "{text}");
        assert_eq!(failures_by_rule(Vec::<(&[String], Cause)>::new()), None);
    }
}
