//! Skip lists (`--skip-file`, `--write-skip-file`; SPEC.md `V-SKIP-1`, `D-KNOWN-1`): which
//! cases and rules are known deviations, what a record counts as once the list applies
//! ([`settle`]), and the list that makes the next run pass ([`written`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::record::{CaseRecord, Outcome};
use crate::vectors::{Case, Level};
use crate::verdict::Cause;

/// Is `s` shaped like a rule id (`J-SEQ-1`, `C-NUM-5`)?
pub fn is_rule_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
        && parts[0].chars().all(|c| c.is_ascii_uppercase())
}

/// A skip list: `CASE-ID reason`, `RULE-ID reason` or `properties/OP/RULE-ID reason`
/// per line (V-SKIP-1).
#[derive(Clone, Debug, Default)]
pub struct SkipList {
    pub cases: BTreeMap<String, String>,
    pub rules: BTreeMap<String, String>,
    /// Differential-only entries, keyed `OP/RULE-ID`: disagreements of operation OP on
    /// that rule are known; the fixed vectors of the rule still count.
    pub properties: BTreeMap<String, String>,
}

/// One entry's id and reason: `ID reason`, or `"ID" reason` when the id is written as a
/// JSON string (ids holding white space, controls or a leading `"` or `#`, V-SKIP-1).
fn split_entry(line: &str) -> Result<(String, &str), String> {
    if !line.starts_with('"') {
        let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        return Ok((id.to_owned(), reason));
    }
    // The string token ends at the first `"` not escaped by a backslash.
    let bytes = line.as_bytes();
    let mut i = 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    let token = line.get(..=i).ok_or("an unterminated quoted id")?;
    match crate::json::parse(token) {
        Ok(crate::json::Value::String(id)) => Ok((id, &line[token.len()..])),
        _ => Err(format!("{token} is not a JSON string")),
    }
}

/// An id as a skip list writes it: as it is, or, when it would not read back as itself
/// (white space, controls or invisible characters, a leading `"` or `#`, empty), as a JSON
/// string with every such character escaped.
pub fn entry_id(id: &str) -> String {
    let plain = !id.is_empty()
        && !id.starts_with(['"', '#'])
        && id
            .chars()
            .all(|c| c != ' ' && crate::preview::shown_as_is(c));
    if plain {
        return id.to_owned();
    }
    let mut out = String::from("\"");
    for c in id.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c != ' ' && !crate::preview::shown_as_is(c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A reason as a skip list writes it: one line, every invisible or control character
/// written `\u{HEX}` (so an entry never looks like another, and the line reads back).
pub fn entry_reason(why: &str) -> String {
    crate::preview::escape(why.as_bytes(), usize::MAX)
        .0
        .replace('\n', " | ")
}

/// `properties/OP/RULE-ID` → `OP/RULE-ID`, when the entry has that shape.
fn properties_entry(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("properties/")?;
    let (op, rule) = rest.split_once('/')?;
    (!op.is_empty() && is_rule_id(rule)).then_some(rest)
}

impl SkipList {
    /// Read a skip list; `#` comments and blank lines are ignored; a reason is required.
    pub fn read(path: &Path) -> Result<SkipList, String> {
        // A regular file only: a FIFO is refused at once, not waited on.
        let text = crate::fsutil::open_regular(path)
            .and_then(|f| {
                crate::wire::read_bounded(
                    std::io::BufReader::new(f),
                    crate::wire::DEFAULT_MAX_LINE_BYTES,
                )
            })
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| format!("{}: not UTF-8", path.display()))
            })?;
        let mut out = SkipList::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, reason) =
                split_entry(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            let (id, reason) = (id.as_str(), reason);
            if reason.trim().is_empty() {
                return Err(format!(
                    "{}:{}: skip entry {id:?} needs a reason",
                    path.display(),
                    n + 1
                ));
            }
            let (map, key) = if is_rule_id(id) {
                (&mut out.rules, id)
            } else if let Some(key) = properties_entry(id) {
                (&mut out.properties, key)
            } else {
                (&mut out.cases, id)
            };
            map.insert(key.to_owned(), reason.trim().to_owned());
        }
        Ok(out)
    }

    /// `sha256:` of the entries and their reasons (the report's header: shards of one run
    /// use one list); `None` for no list.
    pub fn digest(&self) -> Option<String> {
        if self.cases.is_empty() && self.rules.is_empty() && self.properties.is_empty() {
            return None;
        }
        let mut d = crate::report::LinesDigest::default();
        for (kind, map) in [
            ("case", &self.cases),
            ("rule", &self.rules),
            ("properties", &self.properties),
        ] {
            for (k, why) in map {
                d.line(&format!("{kind}\t{k}\t{why}"));
            }
        }
        Some(d.hex())
    }

    /// Every entry must name a case of the corpus or a rule some case exercises.
    pub fn check(&self, corpus: &[Case]) -> Result<(), String> {
        if let Some(id) = self
            .cases
            .keys()
            .find(|id| !corpus.iter().any(|c| &c.id == *id))
        {
            return Err(format!("skip list names unknown case {id:?}"));
        }
        if let Some(r) = self
            .rules
            .keys()
            .find(|r| !corpus.iter().any(|c| c.rules.contains(r)))
        {
            return Err(format!(
                "skip list names rule {r:?}, which no case exercises"
            ));
        }
        for key in self.properties.keys() {
            let (op, rule) = key.split_once('/').unwrap_or((key, ""));
            if crate::ops::OpKind::parse(op).is_none() {
                return Err(format!(
                    "skip list entry \"properties/{key}\" names no operation (one of {})",
                    crate::ops::OpKind::names()
                ));
            }
            if crate::rules::title(rule).is_none() {
                return Err(format!(
                    "skip list entry \"properties/{key}\" names rule {rule:?}, which SPEC.md does not define"
                ));
            }
        }
        Ok(())
    }

    /// The entry that makes a differential disagreement of `op` on `rule` known: the
    /// rule itself, or `properties/OP/RULE` (D-KNOWN-1).
    pub fn known_disagreement(&self, op: &str, rule: &str) -> Option<(String, String)> {
        if let Some(why) = self.rules.get(rule) {
            return Some((rule.to_owned(), why.clone()));
        }
        let key = format!("{op}/{rule}");
        self.properties
            .get(&key)
            .map(|why| (format!("properties/{key}"), why.clone()))
    }

    /// What the differential phase treats as known: every rule entry, and `OP/RULE` for
    /// every `properties/OP/RULE` entry (see [`crate::differential::is_known`]).
    pub fn known_set(&self) -> std::collections::BTreeSet<String> {
        self.rules
            .keys()
            .chain(self.properties.keys())
            .cloned()
            .collect()
    }

    /// Why this case is on the list: `(by_case_id, reason)`.
    pub fn reason(&self, id: &str, rules: &[String]) -> Option<(bool, String)> {
        if let Some(r) = self.cases.get(id) {
            return Some((true, r.clone()));
        }
        rules.iter().find_map(|r| {
            self.rules
                .get(r)
                .map(|why| (false, format!("rule {r}: {why}")))
        })
    }
}

/// What a fresh record counts as once the skip list and the case's level apply
/// (V-SKIP-1, V-LEVEL-1): a listed case that passes fails with `unexpected_pass` (so the
/// list only shrinks), a listed failure is skipped with its reason, and an
/// implementation-defined case answered differently is skipped, never failed.
pub fn settle(mut rec: CaseRecord, case: &Case, skips: &SkipList) -> CaseRecord {
    if let Some((by_id, reason)) = skips.reason(&case.id, &case.rules) {
        match rec.outcome {
            Outcome::Passed if by_id => {
                rec.outcome = Outcome::Failed;
                rec.cause = Some(Cause::UnexpectedPass);
                rec.message =
                    "this case is on the skip list but now passes: remove it from the list".into();
            }
            Outcome::Passed => {
                rec.outcome = Outcome::Skipped;
                rec.message = format!("skip list ({reason}); this case passes");
            }
            Outcome::Skipped => {}
            o => {
                rec.message = format!(
                    "skip list: {reason}\n(it {}: {})",
                    o.as_str(),
                    rec.message.lines().next().unwrap_or("")
                );
                rec.outcome = Outcome::Skipped;
            }
        }
        return rec;
    }
    if case.level == Level::ImplementationDefined
        && matches!(rec.outcome, Outcome::Failed | Outcome::Errored)
    {
        rec.message = format!(
            "implementation-defined: answered differently from the reference's choice (never fails the run): {}",
            rec.message
        );
        rec.outcome = Outcome::Skipped;
    }
    rec
}

fn one_line(s: &str) -> String {
    crate::error::shorten(s.replace('\n', " | ").as_bytes(), 200)
}

/// The skip list that makes the next run pass: entries still in effect, plus the
/// current failures (by case id, or by rule with `by_rule`).
pub fn written(records: &[CaseRecord], old: &SkipList, by_rule: bool) -> String {
    let mut lines: BTreeMap<String, String> = BTreeMap::new();
    for r in records {
        let on_list = old.reason(&r.id, &r.rules);
        let failing = matches!(r.outcome, Outcome::Failed | Outcome::Errored)
            && r.cause != Some(Cause::UnexpectedPass);
        // A known differential kind: the entry that made it known stays.
        if let (Some(op), Some(rule), Outcome::Skipped) =
            (r.differential_op(), r.rules.first(), r.outcome)
        {
            if let Some((entry, why)) = old.known_disagreement(op, rule) {
                lines.insert(entry, why);
            }
        }
        if let (Some((by_id, _)), Outcome::Skipped) = (&on_list, r.outcome) {
            if *by_id {
                lines.insert(r.id.clone(), old.cases[&r.id].clone());
            } else {
                for rule in r.rules.iter().filter(|x| old.rules.contains_key(*x)) {
                    lines.insert(rule.clone(), old.rules[rule].clone());
                }
            }
        }
        if !failing {
            continue;
        }
        let reason = format!(
            "{}: {}",
            r.cause.map_or("failed", Cause::as_str),
            one_line(&r.message)
        );
        if by_rule {
            for rule in &r.rules {
                lines
                    .entry(rule.clone())
                    .or_insert_with(|| format!("fails {} ({reason})", r.id));
            }
        } else if let Some(op) = r.differential_op() {
            // A differential kind: known by operation and rule (its id is a hash of one
            // counterexample); the fixed vectors of the rule keep counting.
            for rule in &r.rules {
                lines
                    .entry(format!("properties/{op}/{rule}"))
                    .or_insert_with(|| format!("fails {} ({reason})", r.id));
            }
        } else {
            lines.insert(r.id.clone(), reason);
        }
    }
    let mut s = String::from(
        "# written by `journal-conformance test --write-skip-file`: the failures of this run\n",
    );
    for (id, why) in lines {
        s.push_str(&format!("{} {}\n", entry_id(&id), entry_reason(&why)));
    }
    s
}

/// What `--write-skip-file` says it wrote: the path and its entries by kind, e.g.
/// `wrote 3 skip-list entries to known.txt (2 case ids, 1 properties/OP/RULE-ID)`.
pub fn written_note(path: &Path, text: &str) -> String {
    let (mut cases, mut rules, mut props) = (0, 0, 0);
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        match split_entry(line) {
            Ok((id, _)) if is_rule_id(&id) => rules += 1,
            Ok((id, _)) if properties_entry(&id).is_some() => props += 1,
            _ => cases += 1,
        }
    }
    let mut parts = Vec::new();
    for (n, what) in [
        (cases, "case id(s)"),
        (rules, "rule id(s)"),
        (props, "properties/OP/RULE-ID"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    let total = cases + rules + props;
    format!(
        "wrote {total} skip-list entr{} to {}{}",
        if total == 1 { "y" } else { "ies" },
        path.display(),
        if parts.is_empty() {
            " (nothing failed)".to_owned()
        } else {
            format!(" ({})", parts.join(", "))
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole file `written` gives reads back: one entry per line, reasons without a
    /// raw invisible character (U+0085 made an entry look like `"branch_id":""`), and
    /// the note counts what is there.
    #[test]
    fn a_written_list_reads_back_entry_for_entry() {
        let rec = |id: &str, msg: &str| CaseRecord {
            id: id.into(),
            group: id.rsplit_once('/').map_or("", |(g, _)| g).into(),
            level: Level::Must,
            outcome: Outcome::Failed,
            message: msg.into(),
            cause: Some(Cause::WrongResult),
            rules: vec!["B-ID-1".into()],
            tags: vec![],
            description: String::new(),
            input: None,
            checks: vec![],
            duration: std::time::Duration::ZERO,
            stderr: String::new(),
            extra: vec![],
        };
        let nasty = "{\"branch_id\":\"\u{85}\"} got\u{2028}\u{200b}\u{feff}\t\r\u{0}x\nsecond line";
        let records = [
            rec("branch/blank-id-nel", nasty),
            rec("a b/c\u{85}", "plain"),
        ];
        let text = written(&records, &SkipList::default(), false);
        for line in text.lines() {
            assert!(
                line.chars()
                    .all(|c| c == ' ' || crate::preview::shown_as_is(c)),
                "a raw invisible character in {line:?}"
            );
        }
        let dir = std::env::temp_dir().join(format!("jc-written-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("w.txt");
        std::fs::write(&f, &text).unwrap();
        let back = SkipList::read(&f).unwrap();
        let ids: Vec<&str> = back.cases.keys().map(String::as_str).collect();
        assert_eq!(ids, ["a b/c\u{85}", "branch/blank-id-nel"]);
        let why = &back.cases["branch/blank-id-nel"];
        assert!(
            why.contains("\\u{85}") && why.contains(" | second line"),
            "{why}"
        );
        assert_eq!(
            written(&records, &back, false),
            text,
            "written again from what it read, the list is the same"
        );
        assert_eq!(
            written_note(&f, &text),
            format!(
                "wrote 2 skip-list entries to {} (2 case id(s))",
                f.display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every id (they come from directory names) reads back from the line the writer
    /// gives it, and a reason never spans lines or hides a character.
    #[test]
    fn entries_round_trip() {
        for id in [
            "journal/gap",
            "a b/c",
            "a\tb",
            "a\nb",
            "\"quoted\"",
            "#hash",
            "back\\slash",
            "nel\u{85}x",
            "zw\u{200b}j",
            "astral\u{e0001}",
            "é/ü",
        ] {
            let line = format!("{} {}", entry_id(id), entry_reason("why\u{85} \"x\"\nnext"));
            assert!(!line.contains('\n'), "{line:?}");
            let (back, reason) = split_entry(&line).unwrap();
            assert_eq!(back, id, "{line:?}");
            assert_eq!(reason.trim(), "why\\u{85} \"x\" | next");
        }
        assert_eq!(entry_id("journal/gap"), "journal/gap");
        assert!(split_entry("\"unterminated reason").is_err());
    }

    #[test]
    fn rule_ids() {
        assert!(is_rule_id("J-SEQ-1") && is_rule_id("G-1") && is_rule_id("P-TRACE-2"));
        assert!(!is_rule_id("journal/gap") && !is_rule_id("j-seq-1"));
    }

    #[test]
    fn differential_only_entries() {
        assert_eq!(
            properties_entry("properties/replay/R-STOP-1"),
            Some("replay/R-STOP-1")
        );
        assert_eq!(properties_entry("properties/replay/0fb44885"), None);
        assert_eq!(properties_entry("properties/R-STOP-1"), None);
        assert_eq!(properties_entry("replay/R-STOP-1"), None);
        let dir = std::env::temp_dir().join(format!("jc-skip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.txt");
        std::fs::write(&f, "properties/replay/R-STOP-1 stop reason\nJ-ID-1 dup\n").unwrap();
        let l = SkipList::read(&f).unwrap();
        assert!(l.cases.is_empty());
        assert_eq!(
            l.known_disagreement("replay", "R-STOP-1").unwrap().0,
            "properties/replay/R-STOP-1"
        );
        assert_eq!(l.known_disagreement("validate", "R-STOP-1"), None);
        assert_eq!(
            l.known_disagreement("validate", "J-ID-1").unwrap().0,
            "J-ID-1"
        );
        assert!(
            l.check(&[]).is_err(),
            "J-ID-1 is exercised by no case of an empty corpus"
        );
        let mut only = l.clone();
        only.rules.clear();
        assert!(only.check(&[]).is_ok());
        only.properties.insert("nope/R-STOP-1".into(), "x".into());
        assert!(only.check(&[]).unwrap_err().contains("names no operation"));
        only.properties.clear();
        only.properties.insert("replay/R-NOPE-9".into(), "x".into());
        assert!(only.check(&[]).unwrap_err().contains("does not define"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
