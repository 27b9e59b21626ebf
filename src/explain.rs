//! Failures that explain themselves (SPEC.md 13.3, "Causes"): the full text printed for
//! a failed case ([`explain`], [`explain_record`]: its id, its rules with their titles,
//! each failing check with its cause, pointer, expected and actual values and why, the
//! escaped input, the adapter's stderr) and the closing "failures by rule" table
//! ([`failures_by_rule`]). What failed and why is decided by [`crate::verdict::judge`];
//! this module only renders it.

use std::collections::BTreeMap;

use crate::canonical;
use crate::json::Value;
use crate::preview::{escape, Preview};
use crate::record::{Bytes, CaseRecord, CheckRecord, Excerpt, Outcome};
use crate::rules::title;
use crate::vectors::Case;
use crate::verdict::Cause;

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
        None,
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
    if !r.message.is_empty() && (!explained_by_checks || r.is_differential()) {
        s.push_str(&escape(r.message.as_bytes(), usize::MAX).0);
        s.push('\n');
    }
    s.push_str(&explain_parts(
        &r.id,
        &r.description,
        &r.rules,
        &r.input.clone().unwrap_or_default(),
        &r.checks,
        r.bytes().as_ref(),
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
    bytes: Option<&Bytes>,
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
        if let Some(b) = bytes.filter(|b| b.check == n + 1) {
            s.push_str(&render_bytes(id, b));
        }
    }
    s.push_str(&input.render("  "));
    s.push_str(&format!(
        "  see it: journal-conformance show {id} (--input for its exact bytes)"
    ));
    s
}

/// An excerpt on one line: escaped ([`escape`], a raw line break too), `…` where it is
/// cut; and the column, in characters, of byte `at` of the whole text.
fn excerpt_line(e: &Excerpt, at: Option<usize>) -> (String, usize) {
    let one_line = |b: &[u8]| escape(b, usize::MAX).0.replace('\n', "\\u{a}");
    let mut line = String::new();
    if e.start > 0 {
        line.push('…');
    }
    let mut col = line.chars().count();
    if let Some(at) = at {
        let upto = at.saturating_sub(e.start).min(e.text.len());
        let upto = (0..=upto)
            .rev()
            .find(|i| e.text.is_char_boundary(*i))
            .unwrap_or(0);
        col += one_line(&e.text.as_bytes()[..upto]).chars().count();
    }
    line.push_str(&one_line(e.text.as_bytes()));
    if e.start + e.text.len() < e.size {
        line.push('…');
    }
    (line, col)
}

/// The bytes behind a failed fingerprint or canonical check ([`crate::runner::probe`]):
/// the first event whose canonical text differs, both texts around their first
/// differing byte, a caret under it.
pub(crate) fn render_bytes(id: &str, b: &Bytes) -> String {
    let canonical = b.op == "canonical";
    let note = b.note.as_deref().map(|n| escape(n.as_bytes(), 2000).0);
    let mut s = String::from("    bytes:    ");
    match b.event {
        _ if canonical => s.push_str("the canonical texts differ"),
        Some((seq, line)) => s.push_str(&format!(
            "the first event the adapter hashes differently is sequence {seq} (line {line}; {})",
            if seq == 0 {
                "the fingerprint with `until` 0 differs".to_owned()
            } else {
                format!(
                    "the fingerprint with `until` {} agrees, with `until` {seq} it differs",
                    seq - 1
                )
            }
        )),
        None => {
            s.push_str(
                note.as_deref()
                    .unwrap_or("the first differing event is not known"),
            );
            s.push('\n');
            return s;
        }
    }
    if let (Some(at), Some(r), Some(a)) = (b.offset, &b.reference, &b.actual) {
        let (names, what) = if canonical {
            (["expected:", "actual:"], "")
        } else {
            s.push_str("\n              its canonical text differs");
            (["reference:", "adapter:"], " of the event's canonical text")
        };
        s.push_str(&format!(
            " at byte {at} ({}: {} bytes, {}: {} bytes):\n",
            names[0].trim_end_matches(':'),
            r.size,
            names[1].trim_end_matches(':'),
            a.size
        ));
        let (rl, _) = excerpt_line(r, Some(at));
        let (al, col) = excerpt_line(a, Some(at));
        s.push_str(&format!("      {:<11}{rl}\n", names[0]));
        s.push_str(&format!("      {:<11}{al}\n", names[1]));
        s.push_str(&format!(
            "      {:<11}{}^ byte {at}{what}\n",
            "",
            " ".repeat(col)
        ));
    } else {
        s.push_str(":\n");
        if let Some(r) = &b.reference {
            s.push_str(&format!(
                "      {:<11}{}\n",
                "reference:",
                excerpt_line(r, None).0
            ));
        }
        if b.actual.is_some() {
            s.push_str(
                "      the adapter's `canonical` of that line is the same text: the difference is in \
                 how its fingerprint frames, hashes or selects the events (F-FP-1: SHA-256 of `[` + \
                 canon(e0) + `,` + canon(e1) + ... + `]`; R-SEL-1)\n",
            );
        }
    }
    if let Some(n) = &note {
        s.push_str(&format!("      ({n})\n"));
    }
    if let (Some((_, line)), None) = (b.event, &b.actual) {
        s.push_str(&format!(
            "      (to compare with your implementation's canonical text of that line: \
             `journal-conformance show {id} --input | sed -n {line}p | journal-conformance canonical -` \
             prints the reference's)\n"
        ));
    }
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
/// against both); its cause is [`crate::record::case_cause`]'s, so a case is in the location-only
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
