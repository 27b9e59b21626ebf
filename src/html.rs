//! The results page (`journal-conformance summary --html OUT.html REPORT...`).
//!
//! This module owns reading `test --report` files on its own terms (JSON lines: a header,
//! one line per case, a footer; members it does not know are ignored and optional ones may be
//! missing, so older reports without `cause`, `rules` or `input` still render) and writing
//! one self-contained HTML page: no external assets, no script needed, works from `file://`.
//! Reports of the same implementation (shards of one run) are merged into one column.
//! Every coloured cell also says what it means in text, so colour is never the only signal.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::canonical;
use crate::json::{self, Value};

/// One check of a case, as the report gives it.
#[derive(Clone, Debug, Default)]
pub struct CheckLine {
    pub op: String,
    pub outcome: String,
    pub expected: String,
    pub actual: String,
    pub message: String,
    pub cause: Option<String>,
    pub pointer: Option<String>,
}

/// One case line of a report.
#[derive(Clone, Debug, Default)]
pub struct CaseLine {
    pub id: String,
    pub group: String,
    pub outcome: String,
    pub message: String,
    pub cause: Option<String>,
    pub rules: Vec<String>,
    pub description: String,
    pub input_preview: Option<String>,
    pub input_size: Option<u64>,
    pub checks: Vec<CheckLine>,
}

/// One implementation's results, merged over its reports.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// `name version` from the header (the file name when the header has none).
    pub implementation: String,
    pub language: String,
    pub files: Vec<String>,
    pub partitions: Vec<String>,
    pub cases: BTreeMap<String, CaseLine>,
}

/// Outcome counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: u64,
    pub failed: u64,
    pub errored: u64,
    pub skipped: u64,
}

impl Tally {
    fn add(&mut self, outcome: &str) {
        match outcome {
            "passed" => self.passed += 1,
            "failed" => self.failed += 1,
            "errored" => self.errored += 1,
            _ => self.skipped += 1,
        }
    }
    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.errored + self.skipped
    }
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn opt_s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

fn json_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(v) => canonical::to_string(v),
    }
}

fn case_line(v: &Value) -> Result<CaseLine, String> {
    let id = opt_s(v, "id").ok_or("case line without a string `id`")?;
    let outcome = opt_s(v, "outcome").ok_or("case line without a string `outcome`")?;
    if !["passed", "failed", "errored", "skipped"].contains(&outcome.as_str()) {
        return Err(format!("case {id}: unknown outcome {outcome:?}"));
    }
    let group =
        opt_s(v, "group").unwrap_or_else(|| id.rsplit_once('/').map_or("", |(g, _)| g).to_owned());
    let mut rules: Vec<String> = v
        .get("rules")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if let Some(r) = opt_s(v, "rule") {
        if !rules.contains(&r) {
            rules.push(r);
        }
    }
    let input = v.get("input");
    let checks = v
        .get("checks")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|c| CheckLine {
            op: json_text(c.get("op")),
            outcome: s(c, "outcome"),
            expected: json_text(c.get("expected")),
            actual: json_text(c.get("actual")),
            message: s(c, "message"),
            cause: opt_s(c, "cause"),
            pointer: opt_s(c, "pointer"),
        })
        .collect();
    Ok(CaseLine {
        id,
        group,
        outcome,
        message: s(v, "message"),
        cause: opt_s(v, "cause"),
        rules,
        description: s(v, "description"),
        input_preview: input.and_then(|i| opt_s(i, "preview")),
        input_size: input
            .and_then(|i| i.get("size"))
            .and_then(Value::as_i64)
            .and_then(|n| u64::try_from(n).ok()),
        checks,
    })
}

/// Read report files; reports of the same implementation (name and version) are merged.
pub fn read_reports(paths: &[impl AsRef<Path>]) -> Result<Vec<Results>, String> {
    let mut out: Vec<Results> = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let mut r = Results {
            implementation: p.display().to_string(),
            files: vec![p.display().to_string()],
            ..Results::default()
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = |e: String| format!("{}:{}: {e}", p.display(), n + 1);
            // Expected and actual values sit a few levels below the case object.
            let v = json::parse_with_max_depth(line, 4 * json::MAX_DEPTH)
                .map_err(|e| at(e.to_string()))?;
            match v.get("type").and_then(Value::as_str) {
                Some("header") => {
                    if let Some(i) = v.get("implementation") {
                        let name = s(i, "name");
                        if !name.is_empty() {
                            let version = s(i, "version");
                            r.implementation = if version.is_empty() {
                                name
                            } else {
                                format!("{name} {version}")
                            };
                        }
                        r.language = s(i, "language");
                    }
                    if let Some(part) = opt_s(&v, "partition") {
                        r.partitions.push(part);
                    }
                }
                Some("case") => {
                    let c = case_line(&v).map_err(at)?;
                    r.cases.insert(c.id.clone(), c);
                }
                Some("footer") => {}
                Some(_) => {} // a newer kind of line: ignored
                None => return Err(at("not a report line (no `type`)".into())),
            }
        }
        match out
            .iter_mut()
            .find(|x| x.implementation == r.implementation)
        {
            Some(x) => {
                x.files.extend(r.files);
                x.partitions.extend(r.partitions);
                x.cases.extend(r.cases);
            }
            None => out.push(r),
        }
    }
    Ok(out)
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
fn verdict(t: &Tally) -> (&'static str, String) {
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

fn cell(t: &Tally) -> String {
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
pub fn render(results: &[Results]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>journal-conformance results</title><style>{STYLE}</style></head><body>\n<h1>journal-conformance results</h1>\n"
    );
    h.push_str("<p class=\"legend\">Each cell: a verdict, then the counts. <span class=\"pass-l\" style=\"background:#d7f5d7\">✓ all pass</span><span style=\"background:#f8d0d0\">✗ failed</span><span style=\"background:#fde2b8\">✗ errored (adapter fault)</span><span style=\"background:#e6e6e6\">– all skipped</span></p>\n");
    // Overall.
    h.push_str("<h2 id=\"overall\">Overall</h2>\n<table id=\"overall-table\"><tr><th>implementation</th><th>language</th><th>result</th><th>reports</th></tr>\n");
    for r in results {
        let mut t = Tally::default();
        for c in r.cases.values() {
            t.add(&c.outcome);
        }
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
    let header = |h: &mut String, first: &str| {
        let _ = write!(h, "<tr><th>{first}</th>");
        for r in results {
            let _ = write!(h, "<th>{}</th>", escape(&r.implementation));
        }
        h.push_str("</tr>\n");
    };
    // By group.
    let groups: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| r.cases.values().map(|c| c.group.as_str()))
        .collect();
    h.push_str("<h2 id=\"groups\">By group</h2>\n<table id=\"groups-table\">");
    header(&mut h, "group");
    for g in &groups {
        let _ = write!(h, "<tr><th>{}</th>", escape(g));
        for r in results {
            let mut t = Tally::default();
            for c in r.cases.values().filter(|c| c.group == *g) {
                t.add(&c.outcome);
            }
            h.push_str(&cell(&t));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    // By rule.
    let rules: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| {
            r.cases
                .values()
                .flat_map(|c| c.rules.iter().map(String::as_str))
        })
        .collect();
    h.push_str("<h2 id=\"rules\">By rule</h2>\n");
    if rules.is_empty() {
        h.push_str("<p>These reports name no rules (reports of older kits lack the <code>rules</code> member).</p>\n");
    } else {
        h.push_str("<table id=\"rules-table\">");
        header(&mut h, "rule");
        for rule in &rules {
            let _ = write!(h, "<tr><th id=\"rule-{0}\">{0}</th>", escape(rule));
            for r in results {
                let mut t = Tally::default();
                for c in r
                    .cases
                    .values()
                    .filter(|c| c.rules.iter().any(|x| x == rule))
                {
                    t.add(&c.outcome);
                }
                h.push_str(&cell(&t));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    // Failures by rule.
    h.push_str("<h2 id=\"failures-by-rule\">Failures by rule</h2>\n");
    let mut by_rule: BTreeMap<String, Vec<(usize, &CaseLine)>> = BTreeMap::new();
    for (i, r) in results.iter().enumerate() {
        for c in r.cases.values().filter(|c| is_bad(c)) {
            if c.rules.is_empty() {
                by_rule.entry("(no rule)".into()).or_default().push((i, c));
            }
            for rule in &c.rules {
                by_rule.entry(rule.clone()).or_default().push((i, c));
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
                        escape(&c.outcome)
                    )
                })
                .collect();
            h.push_str(&links.join("; "));
            h.push_str("</td></tr>\n");
        }
        h.push_str("</table>\n");
    }
    // Details.
    h.push_str("<h2 id=\"details\">Failing cases</h2>\n");
    for (i, r) in results.iter().enumerate() {
        let bad: Vec<&CaseLine> = r.cases.values().filter(|c| is_bad(c)).collect();
        let _ = writeln!(
            h,
            "<h3>{} ({} failing or errored)</h3>",
            escape(&r.implementation),
            bad.len()
        );
        for c in bad {
            details(&mut h, i, c);
        }
    }
    h.push_str("</body></html>\n");
    h
}

fn is_bad(c: &CaseLine) -> bool {
    c.outcome == "failed" || c.outcome == "errored"
}

fn details(h: &mut String, imp: usize, c: &CaseLine) {
    let _ = writeln!(
        h,
        "<details id=\"{}\" class=\"case\"><summary><code>{}</code>: {}{}</summary>",
        anchor(imp, &c.id),
        escape(&c.id),
        escape(&c.outcome),
        c.cause
            .as_ref()
            .map_or(String::new(), |x| format!(" ({})", escape(x)))
    );
    if !c.description.is_empty() {
        let _ = writeln!(h, "<p>{}</p>", escape(&c.description));
    }
    let _ = writeln!(
        h,
        "<p>rules: {}</p>",
        if c.rules.is_empty() {
            "(not in the report)".to_owned()
        } else {
            c.rules
                .iter()
                .map(|r| format!("<a href=\"#rule-{0}\">{0}</a>", escape(r)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    match (&c.input_preview, c.input_size) {
        (Some(p), size) => {
            let _ = writeln!(
                h,
                "<p>input{}:</p><pre class=\"input\">{}</pre>",
                size.map_or(String::new(), |n| format!(" ({n} bytes)")),
                escape(p)
            );
        }
        (None, _) => h.push_str("<p>input: (not in the report)</p>\n"),
    }
    if !c.message.is_empty() {
        let _ = writeln!(h, "<pre class=\"message\">{}</pre>", escape(&c.message));
    }
    h.push_str("<table><tr><th>operation</th><th>outcome</th><th>expected</th><th>actual</th><th>why</th></tr>\n");
    for k in &c.checks {
        let why = match (&k.cause, &k.pointer) {
            (Some(cause), Some(p)) => format!("{cause} at {p}: {}", k.message),
            (Some(cause), None) => format!("{cause}: {}", k.message),
            _ => k.message.clone(),
        };
        let _ = writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td><pre>{}</pre></td><td><pre>{}</pre></td><td>{}</td></tr>",
            escape(&k.op),
            escape(&k.outcome),
            escape(&k.expected),
            escape(&k.actual),
            escape(&why)
        );
    }
    h.push_str("</table></details>\n");
}

/// `summary --html OUT REPORT...`: read, render, write atomically.
pub fn write_page(out: &Path, reports: &[impl AsRef<Path>]) -> Result<(), String> {
    let results = read_reports(reports)?;
    crate::fsutil::write_atomic(out, render(&results).as_bytes())
        .map_err(|e| format!("{}: {e}", out.display()))
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
    fn verdict_is_never_colour_alone() {
        let t = Tally {
            passed: 3,
            failed: 1,
            errored: 2,
            skipped: 0,
        };
        assert_eq!(verdict(&t), ("fail", "✗ 1 failed, 2 errored".into()));
        assert_eq!(verdict(&Tally::default()).1, "no cases");
        let c = cell(&t);
        assert!(
            c.contains("3 passed · 1 failed · 2 errored · 0 skipped"),
            "{c}"
        );
    }
}
