//! `journal-conformance summary`: several reports side by side (a markdown or JSON table,
//! and the results page), the shards of one `--partition` run merged into the verdict of
//! the unsharded run (`X-VERDICT-1`, SPEC.md 13.5).
//!
//! A report is evidence: [`merge`] takes only reports that are what a run writes
//! ([`Report::check`]), and merges shards only when they are one run: the same kit,
//! corpus, selection, skip list, properties and implementation, one partition scheme,
//! every K from 1 to N once, no fixed case in two shards. Anything else is refused with
//! the file and the field. A report whose run had errors makes the verdict incomplete.

use std::collections::BTreeMap;

use super::{status, Header, PropertiesSummary, Report, ReportError, Status};
use crate::canonical;
use crate::json::Value;
use crate::partition::Partition;
use crate::record::{is_differential_id, CaseRecord, Counts, Outcome};

/// One implementation's results: one report, or the merged shards of one run.
#[derive(Clone, Debug)]
pub struct ReportSummary {
    /// `name version` from the header.
    pub implementation: String,
    pub language: String,
    /// The report files it comes from, and their partitions.
    pub files: Vec<String>,
    pub partitions: Vec<String>,
    /// Every case, once, in id order.
    pub cases: Vec<CaseRecord>,
    pub groups: BTreeMap<String, Counts>,
    pub overall: Counts,
    pub properties: Option<PropertiesSummary>,
    /// What the run could not do (its reports' footers' `errors`): no verdict.
    pub errors: Vec<String>,
}

impl ReportSummary {
    /// The verdict: the records' ([`status`]), `INCOMPLETE` (2) when the run had errors.
    pub fn status(&self) -> Status {
        if self.errors.is_empty() {
            status(self.overall, self.properties.as_ref())
        } else {
            Status {
                code: 2,
                word: "INCOMPLETE",
            }
        }
    }

    fn new(implementation: String, header: &Header) -> ReportSummary {
        ReportSummary {
            implementation,
            language: header.implementation.language.clone(),
            files: Vec::new(),
            partitions: Vec::new(),
            cases: Vec::new(),
            groups: BTreeMap::new(),
            overall: Counts::default(),
            properties: None,
            errors: Vec::new(),
        }
    }

    fn add_properties(&mut self, p: &Option<PropertiesSummary>) {
        if let Some(p) = p {
            match &mut self.properties {
                Some(m) => m.merge(p),
                None => self.properties = Some(p.clone()),
            }
        }
    }

    fn count(&mut self) {
        self.cases.sort_by(|a, b| a.id.cmp(&b.id));
        for c in &self.cases {
            self.groups
                .entry(c.group.clone())
                .or_default()
                .add(c.outcome);
            self.overall.add(c.outcome);
        }
    }
}

/// The column name of an implementation: `name version`.
fn label(h: &Header, path: &str) -> String {
    let i = &h.implementation;
    match (i.name.is_empty(), i.version.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => i.name.clone(),
        (false, false) => format!("{} {}", i.name, i.version),
    }
}

fn refuse(path: &str, why: String) -> ReportError {
    ReportError::File {
        path: path.to_owned(),
        why,
    }
}

/// Merge reports: each is checked ([`Report::check`]); the shards of one run (same
/// implementation, a `--partition`) become one summary; every other report is its own.
pub fn merge(reports: Vec<Report>) -> Result<Vec<ReportSummary>, ReportError> {
    // In the order the reports are given: a run's column stands where its first shard is.
    enum Slot {
        Single(Box<Report>),
        Run(String),
    }
    let mut slots: Vec<Slot> = Vec::new();
    let mut runs: BTreeMap<String, Vec<(Partition, Report)>> = BTreeMap::new();
    for r in reports {
        r.check()?;
        let name = label(&r.header, &r.path);
        match r.header.partition.clone() {
            None => slots.push(Slot::Single(Box::new(r))),
            Some(p) => {
                let part = Partition::parse(&p)
                    .map_err(|why| refuse(&r.path, format!("header field `partition`: {why}")))?;
                if !runs.contains_key(&name) {
                    slots.push(Slot::Run(name.clone()));
                }
                runs.entry(name).or_default().push((part, r));
            }
        }
    }
    let mut out = Vec::new();
    for slot in slots {
        out.push(match slot {
            Slot::Single(r) => single(label(&r.header, &r.path), *r),
            Slot::Run(name) => {
                let shards = runs.remove(&name).expect("recorded");
                merge_shards(name, shards)?
            }
        });
    }
    Ok(out)
}

fn single(name: String, r: Report) -> ReportSummary {
    let mut s = ReportSummary::new(name, &r.header);
    s.files.push(r.path);
    s.add_properties(&r.footer.properties);
    s.errors = r.footer.errors;
    s.cases = r.cases;
    s.count();
    s
}

/// The header fields that shards of one run share, by name.
fn identity(h: &Header) -> [(&'static str, Value); 7] {
    let r = &h.run;
    [
        ("kit", Value::from(h.kit.as_str())),
        ("implementation", h.implementation.to_json()),
        ("corpus", Value::from(r.corpus.as_str())),
        ("selection", r.selection.clone()),
        (
            "skip_list",
            r.skip_list.as_deref().map_or(Value::Null, Value::from),
        ),
        ("properties", Value::from_u64(r.properties)),
        ("seed", Value::from_u64(r.seed)),
    ]
}

fn merge_shards(
    name: String,
    mut shards: Vec<(Partition, Report)>,
) -> Result<ReportSummary, ReportError> {
    shards.sort_by_key(|(p, _)| p.k_n().0);
    let (first_part, first) = (shards[0].0, &shards[0].1);
    let want = identity(&first.header);
    let (_, n) = first_part.k_n();
    let scheme = |p: Partition| p.label().split(':').next().unwrap_or("").to_owned();
    for (p, r) in &shards {
        for ((field, a), (_, b)) in want.iter().zip(identity(&r.header)) {
            if *a != b {
                return Err(refuse(
                    &r.path,
                    format!(
                        "header field `{field}` differs from {}'s: these are not shards of one run ({} vs {})",
                        first.path,
                        canonical::to_string(&b),
                        canonical::to_string(a)
                    ),
                ));
            }
        }
        if scheme(*p) != scheme(first_part) || p.k_n().1 != n {
            return Err(refuse(
                &r.path,
                format!(
                    "header field `partition` is {}, {}'s is {}: these are not shards of one run",
                    p.label(),
                    first.path,
                    first_part.label()
                ),
            ));
        }
    }
    let ks: Vec<u32> = shards.iter().map(|(p, _)| p.k_n().0).collect();
    // Validated against the count of shards given, never allocated by N.
    if ks.len() != n as usize || ks.iter().enumerate().any(|(i, k)| *k as usize != i + 1) {
        return Err(refuse(
            &shards[0].1.path,
            format!(
                "{name}: shards {}:K/{n} given for K = {ks:?}; every K from 1 to {n} is needed exactly once",
                scheme(first_part)
            ),
        ));
    }
    let mut merged = ReportSummary::new(name.clone(), &first.header);
    // One entry per case id. A fixed case in two shards is an error (the shards are
    // not one run's); a differential kind `properties/<op>/<hash>` that two shards
    // both found (the same shrunk counterexample) is one case, with the worse outcome.
    let mut cases: BTreeMap<String, CaseRecord> = BTreeMap::new();
    for (p, r) in shards {
        merged.files.push(r.path.clone());
        merged.partitions.push(p.label());
        merged.add_properties(&r.footer.properties);
        merged.errors.extend(r.footer.errors.iter().cloned());
        for c in r.cases {
            match cases.get_mut(&c.id) {
                None => {
                    cases.insert(c.id.clone(), c);
                }
                Some(seen) if is_differential_id(&c.id) => {
                    if severity(c.outcome) > severity(seen.outcome) {
                        *seen = c;
                    }
                }
                Some(_) => {
                    return Err(refuse(
                        &r.path,
                        format!("{name}: case {} is in two shards", c.id),
                    ))
                }
            }
        }
    }
    merged.cases = cases.into_values().collect();
    merged.count();
    Ok(merged)
}

/// Which outcome of one case wins when two shards report it: failed over errored over
/// passed over skipped (a shard that saw it fail decides).
fn severity(o: Outcome) -> u8 {
    match o {
        Outcome::Failed => 3,
        Outcome::Errored => 2,
        Outcome::Passed => 1,
        Outcome::Skipped => 0,
    }
}

/// Text from a report (an implementation's name, a group) made safe for a markdown
/// table cell that GitHub renders as HTML: one line (controls written `\u{HEX}`), no `|`,
/// no HTML.
pub fn markdown_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// The table (markdown, or JSON with `json`) of several reports, with each
/// implementation's verdict.
pub fn table(reports: &[ReportSummary], json: bool) -> String {
    if json {
        return json_table(reports);
    }
    let mut groups: Vec<&String> = reports.iter().flat_map(|r| r.groups.keys()).collect();
    groups.sort();
    groups.dedup();
    let cell = |c: Option<&Counts>| match c {
        None => "-".to_owned(),
        Some(c) => format!("{}/{}/{}/{}", c.passed, c.failed, c.errored, c.skipped),
    };
    let mut out = String::from("| group |");
    for r in reports {
        out.push_str(&format!(" {} |", markdown_cell(&r.implementation)));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(reports.len()));
    out.push('\n');
    for g in &groups {
        out.push_str(&format!("| {} |", markdown_cell(g)));
        for r in reports {
            out.push_str(&format!(" {} |", cell(r.groups.get(*g))));
        }
        out.push('\n');
    }
    out.push_str("| **overall** |");
    for r in reports {
        out.push_str(&format!(" **{}** |", cell(Some(&r.overall))));
    }
    out.push_str("\n| **verdict** |");
    for r in reports {
        out.push_str(&format!(" **{}** |", r.status().word));
    }
    out.push_str("\n\nCells are passed/failed/errored/skipped cases.\n");
    for r in reports {
        for e in &r.errors {
            out.push_str(&format!(
                "\n**{} is incomplete**: {}\n",
                markdown_cell(&r.implementation),
                markdown_cell(e)
            ));
        }
    }
    out
}

fn json_table(reports: &[ReportSummary]) -> String {
    let v = Value::Array(
        reports
            .iter()
            .map(|r| {
                let s = r.status();
                Value::object([
                    ("implementation", Value::from(r.implementation.as_str())),
                    ("overall", r.overall.to_json()),
                    (
                        "groups",
                        Value::Object(
                            r.groups
                                .iter()
                                .map(|(g, c)| (g.clone(), c.to_json()))
                                .collect(),
                        ),
                    ),
                    (
                        "properties",
                        r.properties
                            .as_ref()
                            .map_or(Value::Null, PropertiesSummary::to_json),
                    ),
                    ("status", Value::from_i64(i64::from(s.code))),
                    ("verdict", Value::from(s.word)),
                    (
                        "errors",
                        Value::Array(r.errors.iter().map(|e| Value::from(e.as_str())).collect()),
                    ),
                ])
            })
            .collect(),
    );
    canonical::to_string(&v) + "\n"
}

/// The worst exit status over implementations (2 when there are none).
pub fn worst_status(reports: &[ReportSummary]) -> i32 {
    reports.iter().map(|r| r.status().code).max().unwrap_or(2)
}
