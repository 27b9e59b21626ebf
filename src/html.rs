//! The results page (`journal-conformance summary --html OUT.html REPORT...`).
//!
//! This module owns writing one self-contained HTML page from `test --report` files, read
//! back into the records they were written from ([`crate::report::read`]; optional members
//! may be missing, so older reports without `cause`, `rules` or `input` still render): no external assets, no script needed, works from `file://`.
//! Reports of the same implementation (shards of one run) are merged into one column.
//! Every coloured cell also says what it means in text, so colour is never the only signal.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::canonical;
use crate::json::Value;
use crate::record::{CaseRecord, Counts};
use crate::report::summary::ReportSummary;

/// Outcome counts of some records.
fn tally<'a>(cases: impl IntoIterator<Item = &'a CaseRecord>) -> Counts {
    Counts::of(cases)
}

/// A case's rules, with a properties case's `rule` member.
fn rules_of(c: &CaseRecord) -> Vec<String> {
    let mut rules = c.rules.clone();
    if let Some(r) = c
        .extra
        .iter()
        .find(|(k, _)| k == "rule")
        .and_then(|(_, v)| v.as_str())
    {
        if !rules.iter().any(|x| x == r) {
            rules.push(r.to_owned());
        }
    }
    rules
}

fn json_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        v => canonical::to_string(v),
    }
}

/// Escape text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut o = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn anchor(imp: usize, id: &str) -> String {
    let mut a = format!("i{imp}-");
    for c in id.chars() {
        a.push(if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '.'
        });
    }
    a
}

/// The CSS class and the text of a cell with these counts.
fn verdict(t: &Counts) -> (&'static str, String) {
    let total = t.total();
    if total == 0 {
        ("none", "no cases".into())
    } else if t.failed > 0 || t.errored > 0 {
        let mut parts = Vec::new();
        if t.failed > 0 {
            parts.push(format!("{} failed", t.failed));
        }
        if t.errored > 0 {
            parts.push(format!("{} errored", t.errored));
        }
        (
            if t.failed > 0 { "fail" } else { "err" },
            format!("✗ {}", parts.join(", ")),
        )
    } else if t.passed == 0 {
        ("skip", "– all skipped".into())
    } else {
        ("pass", "✓ all pass".into())
    }
}

fn cell(t: &Counts) -> String {
    let (class, text) = verdict(t);
    format!(
        "<td class=\"{class}\"><span class=\"v\">{}</span><br><span class=\"n\">{} passed · {} failed · {} errored · {} skipped</span></td>",
        escape(&text),
        t.passed,
        t.failed,
        t.errored,
        t.skipped
    )
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111}\
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #999;padding:.3em .6em;text-align:left;vertical-align:top}\
th{background:#eee}td.pass{background:#d7f5d7}td.fail{background:#f8d0d0}td.err{background:#fde2b8}\
td.skip{background:#e6e6e6}td.none{background:#fff;color:#777}.n{font-size:12px;color:#333}.v{font-weight:600}\
pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.4em;margin:.2em 0;max-height:20em;overflow:auto}\
details{margin:.3em 0;border:1px solid #ccc;padding:.3em .6em}summary{cursor:pointer}code{background:#f0f0f0}\
.legend span{display:inline-block;padding:.1em .5em;margin-right:.5em;border:1px solid #999}";

/// Render the page for these implementations.
pub fn render(results: &[ReportSummary]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>journal-conformance results</title><style>{STYLE}</style></head><body>\n<h1>journal-conformance results</h1>\n"
    );
    h.push_str("<p class=\"legend\">Each cell: a verdict, then the counts. <span class=\"pass-l\" style=\"background:#d7f5d7\">✓ all pass</span><span style=\"background:#f8d0d0\">✗ failed</span><span style=\"background:#fde2b8\">✗ errored (adapter fault)</span><span style=\"background:#e6e6e6\">– all skipped</span></p>\n");
    decisions(&mut h, results);
    overall(&mut h, results);
    by_group(&mut h, results);
    by_rule(&mut h, results);
    failures_by_rule(&mut h, results);
    failing_cases(&mut h, results);
    h.push_str("</body></html>\n");
    h
}

/// First on the page: each implementation's decisions (X-DECIDE-1), one row per thing
/// to change, with rule titles; then the known deviations its skip list declared, with
/// their reasons.
fn decisions(h: &mut String, results: &[ReportSummary]) {
    h.push_str("<h2 id=\"decisions\">Decisions</h2>\n");
    for r in results {
        let d = crate::decisions::decide(&r.cases);
        let failures: usize = d.iter().map(|d| d.fixed + d.kinds).sum();
        let _ = writeln!(
            h,
            "<h3>{}</h3>\n<p>{} decision(s) explain {failures} failure(s).</p>",
            escape(&r.implementation),
            d.len()
        );
        if !d.is_empty() {
            h.push_str("<table class=\"decisions\"><tr><th>rule</th><th>cause</th><th>fixed cases</th><th>generated kinds</th><th>example</th></tr>\n");
            for x in &d {
                let _ = writeln!(
                    h,
                    "<tr><td><code>{}</code> {}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code><br><span class=\"n\">{}</span></td></tr>",
                    escape(&x.rule),
                    escape(&x.title),
                    escape(&x.cause),
                    x.fixed,
                    x.kinds,
                    escape(&x.example),
                    escape(&x.why)
                );
            }
            h.push_str("</table>\n");
        }
        let known: Vec<&CaseRecord> = r
            .cases
            .iter()
            .filter(|c| {
                c.outcome == crate::record::Outcome::Skipped
                    && (c.message.starts_with("skip list")
                        || c.message.starts_with("known disagreement"))
            })
            .collect();
        if !known.is_empty() {
            let _ = writeln!(
                h,
                "<details><summary>{} known deviation(s) (skip list)</summary><table class=\"known\"><tr><th>case</th><th>reason</th></tr>",
                known.len()
            );
            for c in known {
                let _ = writeln!(
                    h,
                    "<tr><td><code>{}</code></td><td>{}</td></tr>",
                    escape(&c.id),
                    escape(c.message.lines().next().unwrap_or(""))
                );
            }
            h.push_str("</table></details>\n");
        }
    }
}

/// A header row: `first`, then one column per implementation.
fn header(h: &mut String, results: &[ReportSummary], first: &str) {
    let _ = write!(h, "<tr><th>{first}</th>");
    for r in results {
        let _ = write!(h, "<th>{}</th>", escape(&r.implementation));
    }
    h.push_str("</tr>\n");
}

/// The overall table: each implementation's verdict and reports.
fn overall(h: &mut String, results: &[ReportSummary]) {
    h.push_str("<h2 id=\"overall\">Overall</h2>\n<table id=\"overall-table\"><tr><th>implementation</th><th>language</th><th>result</th><th>reports</th></tr>\n");
    for r in results {
        let t = tally(r.cases.iter());
        let files = if r.partitions.is_empty() {
            format!("{} report(s)", r.files.len())
        } else {
            format!(
                "{} report(s), partitions {}",
                r.files.len(),
                r.partitions.join(", ")
            )
        };
        let _ = writeln!(
            h,
            "<tr><th>{}</th><td>{}</td>{}<td>{}</td></tr>",
            escape(&r.implementation),
            escape(&r.language),
            cell(&t),
            escape(&files)
        );
    }
    h.push_str("</table>\n");
}

/// Outcomes by group, implementations side by side.
fn by_group(h: &mut String, results: &[ReportSummary]) {
    let groups: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| r.cases.iter().map(|c| c.group.as_str()))
        .collect();
    h.push_str("<h2 id=\"groups\">By group</h2>\n<table id=\"groups-table\">");
    header(h, results, "group");
    for g in &groups {
        let _ = write!(h, "<tr><th>{}</th>", escape(g));
        for r in results {
            let t = tally(r.cases.iter().filter(|c| c.group == *g));
            h.push_str(&cell(&t));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// Outcomes by rule, implementations side by side.
fn by_rule(h: &mut String, results: &[ReportSummary]) {
    let rules: BTreeSet<String> = results
        .iter()
        .flat_map(|r| r.cases.iter().flat_map(rules_of))
        .collect();
    h.push_str("<h2 id=\"rules\">By rule</h2>\n");
    if rules.is_empty() {
        h.push_str("<p>These reports name no rules (reports of older kits lack the <code>rules</code> member).</p>\n");
    } else {
        h.push_str("<table id=\"rules-table\">");
        header(h, results, "rule");
        for rule in &rules {
            let _ = write!(h, "<tr><th id=\"rule-{0}\">{0}</th>", escape(rule));
            for r in results {
                let t = tally(
                    r.cases
                        .iter()
                        .filter(|c| rules_of(c).iter().any(|x| x == rule)),
                );
                h.push_str(&cell(&t));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
}

/// Each rule with failing cases, linked to their details.
fn failures_by_rule(h: &mut String, results: &[ReportSummary]) {
    h.push_str("<h2 id=\"failures-by-rule\">Failures by rule</h2>\n");
    let mut by_rule: BTreeMap<String, Vec<(usize, &CaseRecord)>> = BTreeMap::new();
    for (i, r) in results.iter().enumerate() {
        for c in r.cases.iter().filter(|c| c.outcome.is_bad()) {
            let rules = rules_of(c);
            if rules.is_empty() {
                by_rule.entry("(no rule)".into()).or_default().push((i, c));
            }
            for rule in rules {
                by_rule.entry(rule).or_default().push((i, c));
            }
        }
    }
    if by_rule.is_empty() {
        h.push_str("<p>No failures.</p>\n");
    } else {
        h.push_str("<table id=\"failures-table\"><tr><th>rule</th><th>failing cases</th></tr>\n");
        for (rule, cases) in &by_rule {
            let _ = write!(
                h,
                "<tr><th>{}</th><td>{} failing: ",
                escape(rule),
                cases.len()
            );
            let links: Vec<String> = cases
                .iter()
                .map(|(i, c)| {
                    format!(
                        "<a href=\"#{}\">{}</a> ({}, {})",
                        anchor(*i, &c.id),
                        escape(&c.id),
                        escape(&results[*i].implementation),
                        c.outcome.as_str()
                    )
                })
                .collect();
            h.push_str(&links.join("; "));
            h.push_str("</td></tr>\n");
        }
        h.push_str("</table>\n");
    }
}

/// The details of every failing or errored case.
fn failing_cases(h: &mut String, results: &[ReportSummary]) {
    h.push_str("<h2 id=\"details\">Failing cases</h2>\n");
    for (i, r) in results.iter().enumerate() {
        let bad: Vec<&CaseRecord> = r.cases.iter().filter(|c| c.outcome.is_bad()).collect();
        let _ = writeln!(
            h,
            "<h3>{} ({} failing or errored)</h3>",
            escape(&r.implementation),
            bad.len()
        );
        for c in bad {
            details(h, i, c);
        }
    }
}

fn details(h: &mut String, imp: usize, c: &CaseRecord) {
    let _ = writeln!(
        h,
        "<details id=\"{}\" class=\"case\"><summary><code>{}</code>: {}{}</summary>",
        anchor(imp, &c.id),
        escape(&c.id),
        c.outcome.as_str(),
        c.cause
            .map_or(String::new(), |x| format!(" ({})", x.as_str()))
    );
    if !c.description.is_empty() {
        let _ = writeln!(h, "<p>{}</p>", escape(&c.description));
    }
    let rules = rules_of(c);
    let _ = writeln!(
        h,
        "<p>rules: {}</p>",
        if rules.is_empty() {
            "(not in the report)".to_owned()
        } else {
            rules
                .iter()
                .map(|r| format!("<a href=\"#rule-{0}\">{0}</a>", escape(r)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    match &c.input {
        Some(p) => {
            let _ = writeln!(
                h,
                "<p>input ({} bytes):</p><pre class=\"input\">{}</pre>",
                p.size,
                escape(&p.text)
            );
        }
        None => h.push_str("<p>input: (not in the report)</p>\n"),
    }
    if !c.message.is_empty() {
        let _ = writeln!(h, "<pre class=\"message\">{}</pre>", escape(&c.message));
    }
    if let Some(b) = c.bytes() {
        // The bytes behind a failed fingerprint or canonical check, as `show` and the
        // explanation print them (13.3, the case line's `bytes` member of 13.5).
        let _ = writeln!(
            h,
            "<pre class=\"bytes\">{}</pre>",
            escape(&crate::explain::render_bytes(&c.id, &b))
        );
    }
    h.push_str("<table><tr><th>operation</th><th>outcome</th><th>expected</th><th>actual</th><th>why</th></tr>\n");
    for k in &c.checks {
        let why = match (k.cause, &k.pointer) {
            (Some(cause), Some(p)) => format!("{cause} at {p}: {}", k.message),
            (Some(cause), None) => format!("{cause}: {}", k.message),
            _ => k.message.clone(),
        };
        let _ = writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td><pre>{}</pre></td><td><pre>{}</pre></td><td>{}</td></tr>",
            escape(&json_text(&k.op)),
            k.outcome.as_str(),
            escape(&json_text(&k.expected)),
            escape(&json_text(&k.actual)),
            escape(&why)
        );
    }
    h.push_str("</table></details>\n");
}

/// The page of a `summary` that could not give a verdict: it says so, and why, and
/// shows no results (a stale or partial page must never look green).
pub fn render_incomplete(why: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>journal-conformance results: incomplete</title><style>{STYLE}</style></head><body>\n<h1>journal-conformance results</h1>\n<h2 id=\"overall\">Overall</h2>\n<p class=\"incomplete\" id=\"incomplete\"><strong>INCOMPLETE</strong>: no verdict (summary exits 2): {}</p>\n</body></html>\n",
        escape(why)
    )
}

/// Why `out` may not be written as the page: it is one of the `inputs` (the same file),
/// or it exists and is not a page this kit writes (a report given where the page goes,
/// as a shell glob after `--html` does).
pub fn refuse_output(out: &Path, inputs: &[impl AsRef<Path>]) -> Option<String> {
    if let Some(i) = inputs
        .iter()
        .find(|i| crate::fsutil::same_file(out, i.as_ref()))
    {
        return Some(format!(
            "--html {}: that is the report {} given as input; refusing to overwrite it",
            out.display(),
            i.as_ref().display()
        ));
    }
    let mut head = [0u8; 15];
    let n = std::fs::File::open(out)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let exists = std::fs::symlink_metadata(out).is_ok();
    if exists && &head[..n] != b"<!DOCTYPE html>" {
        return Some(format!(
            "--html {}: the file exists and is not an HTML page (a report given where the page goes?); refusing to overwrite it",
            out.display()
        ));
    }
    None
}

/// Write the page atomically.
pub fn write_page(out: &Path, page: &str) -> Result<(), String> {
    crate::fsutil::write_atomic(out, page.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_case_shows_the_bytes_behind_its_fingerprint_failure() {
        let mut rec = crate::record::CaseRecord {
            id: "fingerprint/x".into(),
            group: "fingerprint".into(),
            level: crate::vectors::Level::Must,
            outcome: crate::record::Outcome::Failed,
            message: "m".into(),
            cause: Some(crate::verdict::Cause::WrongResult),
            rules: vec!["F-FP-1".into()],
            tags: vec![],
            description: String::new(),
            input: None,
            checks: vec![],
            duration: std::time::Duration::ZERO,
            stderr: String::new(),
            extra: vec![],
        };
        let mut h = String::new();
        details(&mut h, 0, &rec);
        assert!(!h.contains("class=\"bytes\""), "no bytes, no block");
        let text = |t: &str| crate::record::Excerpt {
            start: 0,
            text: t.into(),
            size: t.len(),
        };
        rec.set_bytes(Some(&crate::record::Bytes {
            check: 1,
            op: "fingerprint".into(),
            event: Some((2, 3)),
            reference: Some(text("{\"a\":1.0}")),
            actual: Some(text("{\"a\":1}")),
            offset: Some(6),
            note: None,
        }));
        let mut h = String::new();
        details(&mut h, 0, &rec);
        assert!(h.contains("class=\"bytes\""), "{h}");
        assert!(h.contains("sequence 2 (line 3"), "{h}");
        assert!(h.contains("^ byte 6"), "{h}");
    }

    #[test]
    fn verdict_is_never_colour_alone() {
        let t = Counts {
            passed: 3,
            failed: 1,
            errored: 2,
            skipped: 0,
        };
        assert_eq!(verdict(&t), ("fail", "✗ 1 failed, 2 errored".into()));
        assert_eq!(verdict(&Counts::default()).1, "no cases");
        let c = cell(&t);
        assert!(
            c.contains("3 passed · 1 failed · 2 errored · 0 skipped"),
            "{c}"
        );
    }
}
