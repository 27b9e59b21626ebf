//! Reading rule definitions out of SPEC.md's text: each rule id (`**[W-LINE-1]**`), its
//! one-line title and the section it stands in.
//!
//! This file is compiled twice: by `build.rs`, which turns SPEC.md into the typed table
//! of [`crate::rules`] at build time, and into the library, where its tests run. It
//! uses `std` only.

use std::collections::BTreeMap;

/// The longest title, in characters, before it is cut with `…`.
pub const TITLE_CHARS: usize = 100;

/// One rule as SPEC.md defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleText {
    pub id: String,
    /// The first sentence of its definition (see [`parse`]).
    pub title: String,
    /// The number of the section it is defined in (`"2"`, `"3.1"`, `"A.1"`).
    pub section: String,
}

/// Every rule SPEC.md defines, ordered by id.
///
/// A rule's title is the first sentence of its definition (`- **[ID]** Title...`), or,
/// for a rule only named inside another paragraph, the sentence that names it. A first
/// sentence of fewer than four words (`Precedence.`) is followed by the next one. Its
/// section is the numbered heading above that sentence.
pub fn parse(spec: &str) -> Vec<RuleText> {
    // Blocks: paragraphs, with each top-level list item starting a block of its own,
    // each with the section it stands in.
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut current = String::new();
    let mut section = String::new();
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
            blocks.push((std::mem::take(&mut current), section.clone()));
        }
        if line.starts_with('#') {
            if let Some(number) = heading_number(line) {
                section = number;
            }
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
    blocks.push((current, section));
    let mut defined: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut mentioned: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (block, section) in &blocks {
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
                    defined
                        .entry(id)
                        .or_insert_with(|| (shorten(&t), section.clone()));
                } else {
                    mentioned
                        .entry(id)
                        .or_insert_with(|| (shorten(&strip_marks(s)), section.clone()));
                }
            }
        }
    }
    for (id, t) in mentioned {
        defined.entry(id).or_insert(t);
    }
    defined
        .into_iter()
        .map(|(id, (title, section))| RuleText { id, title, section })
        .collect()
}

/// `## 3. JSON values` → `3`; `### 3.1 Parsing` → `3.1`; `## Appendix A. ...` → `A`;
/// `### A.1 The seed` → `A.1`.
fn heading_number(line: &str) -> Option<String> {
    let rest = line.trim_start_matches('#').trim();
    let rest = rest.strip_prefix("Appendix ").unwrap_or(rest);
    let word = rest.split_whitespace().next()?;
    let number = word.trim_end_matches('.');
    let ok = !number.is_empty()
        && number.split('.').all(|p| {
            !p.is_empty()
                && (p.chars().all(|c| c.is_ascii_digit())
                    || (p.len() == 1 && p.chars().all(|c| c.is_ascii_uppercase())))
        });
    ok.then(|| number.to_owned())
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

/// The Rust constant name of a rule id: `W-LINE-1` → `W_LINE_1`.
pub fn const_name(id: &str) -> String {
    id.replace('-', "_")
}
