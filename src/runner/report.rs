//! The verdict of a run and everything that reports it: the closing line, the
//! JSON-lines report (SPEC.md 13.5), JUnit XML, and `summary` (several reports side
//! by side; shards of one run merged). All of them count the same records, and
//! [`verdict`] is the one place the exit status is decided (SPEC.md 13.3).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::record::{CaseRecord, Counts, Outcome};
use crate::canonical;
use crate::json::Value;

/// What the properties phase did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PropertiesSummary {
    /// Generated cases asked for.
    pub cases: u64,
    /// Generated cases actually compared with the reference.
    pub compared: u64,
    /// Disagreements found (each a failed case), and known ones (skip list rules).
    pub disagreeing: u64,
    pub kinds: u64,
    pub known: u64,
    /// Why the phase compared nothing, when it did not.
    pub skipped: Option<String>,
}

impl PropertiesSummary {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("cases", Value::from_u64(self.cases)),
            ("compared", Value::from_u64(self.compared)),
            ("disagreeing", Value::from_u64(self.disagreeing)),
            ("kinds", Value::from_u64(self.kinds)),
            ("known", Value::from_u64(self.known)),
            (
                "skipped",
                self.skipped.as_deref().map_or(Value::Null, Value::from),
            ),
        ])
    }

    fn from_json(v: &Value) -> Option<PropertiesSummary> {
        let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0).max(0) as u64;
        v.as_object()?;
        Some(PropertiesSummary {
            cases: n("cases"),
            compared: n("compared"),
            disagreeing: n("disagreeing"),
            kinds: n("kinds"),
            known: n("known"),
            skipped: v.get("skipped").and_then(Value::as_str).map(str::to_owned),
        })
    }

    fn merge(&mut self, o: &PropertiesSummary) {
        self.cases += o.cases;
        self.compared += o.compared;
        self.disagreeing += o.disagreeing;
        self.kinds += o.kinds;
        self.known += o.known;
        if self.skipped.is_none() {
            self.skipped.clone_from(&o.skipped);
        }
    }
}

/// The verdict: exit status (X-EXIT-1) and its one-word name.
/// - 2 `EMPTY`: the selection holds no case (and no properties phase);
/// - 1 `FAILED`: a case failed or errored (a differential disagreement is a case);
/// - 1 `NOTHING CHECKED`: no case passed and no generated case was compared;
/// - 0 `ok` otherwise.
pub fn verdict(counts: Counts, properties: Option<&PropertiesSummary>) -> (i32, &'static str) {
    let compared = properties.map_or(0, |p| p.compared);
    if counts.total() == 0 && properties.is_none() {
        (2, "EMPTY")
    } else if counts.failed + counts.errored > 0 {
        (1, "FAILED")
    } else if counts.passed == 0 && compared == 0 {
        (1, "NOTHING CHECKED")
    } else {
        (0, "ok")
    }
}

/// Why skipped cases were skipped, aggregated: `"563 operations not offered: replay,
/// tree_apply; 39 skip list"`.
pub fn skip_reasons(records: &[CaseRecord]) -> String {
    let mut ops: Vec<String> = Vec::new();
    let mut by: BTreeMap<&str, u64> = BTreeMap::new();
    for r in records.iter().filter(|r| r.outcome == Outcome::Skipped) {
        let kind = if r.message.starts_with("skip list") {
            "skip list"
        } else if r.message.starts_with("implementation-defined") {
            "implementation-defined"
        } else if r
            .checks
            .iter()
            .any(|c| c.message.starts_with("operation not offered"))
        {
            for c in &r.checks {
                if let Some(op) = c.message.strip_prefix("operation not offered: ") {
                    if !ops.iter().any(|o| o == op) {
                        ops.push(op.to_owned());
                    }
                }
            }
            "operations not offered"
        } else if r
            .checks
            .iter()
            .any(|c| c.message.starts_with("profile not offered"))
        {
            "profile not offered"
        } else if r.message.starts_with("known disagreement") {
            "known disagreements"
        } else {
            "the adapter answered unsupported"
        };
        *by.entry(kind).or_default() += 1;
    }
    ops.sort();
    by.iter()
        .map(|(k, n)| {
            if *k == "operations not offered" {
                format!("{n} operations not offered: {}", ops.join(", "))
            } else {
                format!("{n} {k}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The closing line: the verdict and honest coverage.
pub fn closing_line(
    implementation: &str,
    records: &[CaseRecord],
    properties: Option<&PropertiesSummary>,
    elapsed: Duration,
) -> String {
    let c = Counts::of(records);
    let (_, word) = verdict(c, properties);
    let checked = c.passed + c.failed + c.errored;
    let mut s = format!(
        "conformance {word} for {implementation}: checked {checked} of {} cases: {} passed, {} failed, {} errored",
        c.total(),
        c.passed,
        c.failed,
        c.errored
    );
    if c.skipped > 0 {
        s.push_str(&format!(
            "; {} skipped ({})",
            c.skipped,
            skip_reasons(records)
        ));
    }
    if let Some(p) = properties {
        match &p.skipped {
            Some(why) => s.push_str(&format!("; properties skipped: {why}")),
            None => s.push_str(&format!(
                "; properties: {} generated cases compared, {} disagreement(s)",
                p.compared, p.disagreeing
            )),
        }
    }
    s.push_str(&format!(" ({:.2} s)", elapsed.as_secs_f64()));
    s
}

/// The report's header line.
pub fn header_json(info: &Value, cases: usize, partition: Option<&str>) -> Value {
    Value::object([
        ("type", Value::from("header")),
        (
            "kit",
            Value::from(concat!("journal-conformance ", env!("CARGO_PKG_VERSION"))),
        ),
        ("implementation", info.clone()),
        ("cases", Value::from_u64(cases as u64)),
        ("partition", partition.map_or(Value::Null, Value::from)),
    ])
}

/// The report's footer line (with the verdict: `status` and `summary`).
pub fn footer_json(
    records: &[CaseRecord],
    properties: Option<&PropertiesSummary>,
    elapsed: Duration,
    summary: &str,
) -> Value {
    let c = Counts::of(records);
    Value::object([
        ("type", Value::from("footer")),
        ("passed", Value::from_u64(c.passed)),
        ("failed", Value::from_u64(c.failed)),
        ("errored", Value::from_u64(c.errored)),
        ("skipped", Value::from_u64(c.skipped)),
        ("duration_ms", Value::from_u64(elapsed.as_millis() as u64)),
        (
            "properties",
            properties.map_or(Value::Null, PropertiesSummary::to_json),
        ),
        (
            "status",
            Value::from_i64(i64::from(verdict(c, properties).0)),
        ),
        ("summary", Value::from(summary)),
    ])
}

/// Write the JSON-lines report atomically.
pub fn write_report(path: &Path, lines: &[Value]) -> std::io::Result<()> {
    let mut out = String::new();
    for v in lines {
        out.push_str(&canonical::to_string(v));
        out.push('\n');
    }
    crate::fsutil::write_atomic(path, out.as_bytes())
}

/// Write JUnit XML: one testsuite per group (classname = group, name = case id), a
/// failure's type is its cause and its body the full explanation, the adapter's stderr
/// tail is `system-err`, skipped cases carry their reason, the properties phase has
/// its own suite, and suite names name the implementation.
pub fn write_junit(
    path: &Path,
    implementation: &str,
    records: &[CaseRecord],
    properties: Option<&PropertiesSummary>,
) -> Result<(), String> {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!("journal-conformance: {implementation}"));
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for r in records {
        let status = match r.outcome {
            Outcome::Passed => TestCaseStatus::success(),
            Outcome::Skipped => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(r.message.clone());
                s
            }
            Outcome::Failed | Outcome::Errored => {
                let kind = if r.outcome == Outcome::Failed {
                    NonSuccessKind::Failure
                } else {
                    NonSuccessKind::Error
                };
                let mut s = TestCaseStatus::non_success(kind);
                s.set_message(r.message.lines().next().unwrap_or("").to_owned());
                s.set_type(
                    r.cause
                        .map_or("wrong_result", crate::explain::Cause::as_str),
                );
                let body = crate::explain::explain_record(r);
                s.set_description(body);
                s
            }
        };
        let mut tc = TestCase::new(r.id.clone(), status);
        tc.set_classname(r.group.clone());
        tc.set_time(r.duration);
        if !r.stderr.is_empty() {
            tc.set_system_err(r.stderr.clone());
        }
        suites
            .entry(r.group.as_str())
            .or_insert_with(|| {
                let mut s = TestSuite::new(format!("{} [{implementation}]", r.group));
                s.add_property(Property::new("implementation", implementation));
                s
            })
            .add_test_case(tc);
    }
    report.add_test_suites(suites.into_values());
    if let Some(p) = properties {
        // The phase's own suite: its disagreements are the `properties/<op>` suites'
        // cases above; this one says what was compared.
        let mut s = TestSuite::new(format!("properties [{implementation}]"));
        s.add_property(Property::new("implementation", implementation));
        s.add_property(Property::new("generated", p.cases.to_string()));
        s.add_property(Property::new("compared", p.compared.to_string()));
        s.add_property(Property::new("disagreeing", p.disagreeing.to_string()));
        s.set_system_out(match &p.skipped {
            Some(why) => format!("properties skipped: {why}"),
            None => format!(
                "{} generated cases compared with the reference; {} disagreement(s)",
                p.compared, p.disagreeing
            ),
        });
        report.add_test_suite(s);
    }
    let xml = report.to_string().map_err(|e| e.to_string())?;
    crate::fsutil::write_atomic(path, xml.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// One implementation's results read back from one or more report files.
#[derive(Clone, Debug)]
pub struct ReportSummary {
    pub implementation: String,
    pub groups: BTreeMap<String, Counts>,
    pub overall: Counts,
    pub properties: Option<PropertiesSummary>,
    /// `"count:K/N"` for one shard; `None` for a whole run (or merged shards).
    pub partition: Option<String>,
    /// Every case line: id, group, outcome (shard merging checks that the fixed cases
    /// are disjoint, and counts a differential kind two shards found once).
    pub ids: Vec<(String, String, Outcome)>,
}

impl ReportSummary {
    pub fn verdict(&self) -> (i32, &'static str) {
        verdict(self.overall, self.properties.as_ref())
    }
}

/// Read a report written by `test --report`.
pub fn read_report(path: &Path) -> Result<ReportSummary, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut s = ReportSummary {
        implementation: path.display().to_string(),
        groups: BTreeMap::new(),
        overall: Counts::default(),
        properties: None,
        partition: None,
        ids: Vec::new(),
    };
    let mut footer = false;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        let v = crate::json::parse_with_max_depth(line, crate::vectors::VECTOR_FILE_MAX_DEPTH)
            .map_err(|e| format!("{}: {e}", at()))?;
        match v.get("type").and_then(Value::as_str) {
            Some("header") => {
                if let Some(name) = v
                    .get("implementation")
                    .and_then(|i| i.get("name"))
                    .and_then(Value::as_str)
                {
                    s.implementation = name.to_owned();
                }
                s.partition = v
                    .get("partition")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Some("case") => {
                let o = v
                    .get("outcome")
                    .and_then(Value::as_str)
                    .and_then(Outcome::parse)
                    .ok_or(format!("{}: case without a valid outcome", at()))?;
                let group = v
                    .get("group")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                s.ids.push((
                    v.get("id")
                        .and_then(Value::as_str)
                        .ok_or(format!("{}: case without an id", at()))?
                        .to_owned(),
                    group.clone(),
                    o,
                ));
                s.groups.entry(group).or_default().add(o);
                s.overall.add(o);
            }
            Some("footer") => {
                footer = true;
                s.properties = v.get("properties").and_then(PropertiesSummary::from_json);
            }
            _ => return Err(format!("{}: not a report line", at())),
        }
    }
    if !footer {
        return Err(format!(
            "{}: no footer line (the run did not finish?)",
            path.display()
        ));
    }
    Ok(s)
}

/// Merge the shards of one run (same implementation, `--partition K/N` for every K)
/// into the summary of the whole run; reports that are not shards pass through.
pub fn merge_shards(reports: Vec<ReportSummary>) -> Result<Vec<ReportSummary>, String> {
    let mut out: Vec<ReportSummary> = Vec::new();
    let mut shards: BTreeMap<(String, String, u32), Vec<(u32, ReportSummary)>> = BTreeMap::new();
    for r in reports {
        let Some(p) = r.partition.clone() else {
            out.push(r);
            continue;
        };
        let part = super::select::Partition::parse(&p)
            .map_err(|e| format!("report of {}: {e}", r.implementation))?;
        let (k, n) = part.k_n();
        let kind = p.split(':').next().unwrap_or("count").to_owned();
        shards
            .entry((r.implementation.clone(), kind, n))
            .or_default()
            .push((k, r));
    }
    for ((name, kind, n), mut parts) in shards {
        parts.sort_by_key(|(k, _)| *k);
        let ks: Vec<u32> = parts.iter().map(|(k, _)| *k).collect();
        if ks != (1..=n).collect::<Vec<_>>() {
            return Err(format!(
                "{name}: shards {kind}:K/{n} given for K = {ks:?}; every K from 1 to {n} is needed exactly once"
            ));
        }
        let mut merged = ReportSummary {
            implementation: name.clone(),
            groups: BTreeMap::new(),
            overall: Counts::default(),
            properties: None,
            partition: None,
            ids: Vec::new(),
        };
        // One entry per case id. A fixed case in two shards is an error (the shards are
        // not one run's); a differential kind `properties/<op>/<hash>` that two shards
        // both found (the same shrunk counterexample) is one case, with the worse outcome.
        let mut cases: BTreeMap<String, (String, Outcome)> = BTreeMap::new();
        for (_, r) in parts {
            for (id, group, o) in r.ids {
                match cases.get_mut(&id) {
                    None => {
                        cases.insert(id, (group, o));
                    }
                    Some(seen) if id.starts_with("properties/") => {
                        if severity(o) > severity(seen.1) {
                            seen.1 = o;
                        }
                    }
                    Some(_) => return Err(format!("{name}: case {id} is in two shards")),
                }
            }
            if let Some(p) = r.properties {
                match &mut merged.properties {
                    Some(m) => m.merge(&p),
                    None => merged.properties = Some(p),
                }
            }
        }
        for (id, (group, o)) in cases {
            merged.groups.entry(group.clone()).or_default().add(o);
            merged.overall.add(o);
            merged.ids.push((id, group, o));
        }
        out.push(merged);
    }
    Ok(out)
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

/// `journal-conformance summary`: a markdown table (or JSON) of several reports, with
/// each implementation's verdict.
pub fn summary(reports: &[ReportSummary], json: bool) -> String {
    let mut groups: Vec<&String> = reports.iter().flat_map(|r| r.groups.keys()).collect();
    groups.sort();
    groups.dedup();
    let cell = |c: Option<&Counts>| match c {
        None => "-".to_owned(),
        Some(c) => format!("{}/{}/{}/{}", c.passed, c.failed, c.errored, c.skipped),
    };
    if json {
        let counts = |c: &Counts| {
            Value::object([
                ("passed", Value::from_u64(c.passed)),
                ("failed", Value::from_u64(c.failed)),
                ("errored", Value::from_u64(c.errored)),
                ("skipped", Value::from_u64(c.skipped)),
            ])
        };
        let v = Value::Array(
            reports
                .iter()
                .map(|r| {
                    let (status, word) = r.verdict();
                    Value::object([
                        ("implementation", Value::from(r.implementation.as_str())),
                        ("overall", counts(&r.overall)),
                        (
                            "groups",
                            Value::Object(
                                r.groups
                                    .iter()
                                    .map(|(g, c)| (g.clone(), counts(c)))
                                    .collect(),
                            ),
                        ),
                        (
                            "properties",
                            r.properties
                                .as_ref()
                                .map_or(Value::Null, PropertiesSummary::to_json),
                        ),
                        ("status", Value::from_i64(i64::from(status))),
                        ("verdict", Value::from(word)),
                    ])
                })
                .collect(),
        );
        return canonical::to_string(&v) + "\n";
    }
    let mut out = String::from("| group |");
    for r in reports {
        out.push_str(&format!(" {} |", r.implementation.replace('|', "\\|")));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(reports.len()));
    out.push('\n');
    for g in &groups {
        out.push_str(&format!("| {g} |"));
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
        out.push_str(&format!(" **{}** |", r.verdict().1));
    }
    out.push_str("\n\nCells are passed/failed/errored/skipped cases.\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(dir: &Path, k: u32, cases: &[(&str, &str)]) -> ReportSummary {
        let mut text = format!(
            "{{\"type\":\"header\",\"implementation\":{{\"name\":\"x\"}},\"partition\":\"count:{k}/2\"}}\n"
        );
        for (id, outcome) in cases {
            let group = id.rsplit_once('/').map_or("", |(g, _)| g);
            text.push_str(&format!(
                "{{\"type\":\"case\",\"id\":\"{id}\",\"group\":\"{group}\",\"outcome\":\"{outcome}\"}}\n"
            ));
        }
        text.push_str("{\"type\":\"footer\"}\n");
        let path = dir.join(format!("r{k}.jsonl"));
        std::fs::write(&path, text).unwrap();
        read_report(&path).unwrap()
    }

    /// Two shards that both found one differential kind (the same shrunk counterexample,
    /// so the same `properties/<op>/<hash>` id) count it once, with the worse outcome;
    /// a fixed case in two shards is still an error. (CI's two-shard run of the naive
    /// TypeScript port hit the first case once its differential phase was turned on.)
    #[test]
    fn a_kind_found_by_two_shards_counts_once() {
        let dir = std::env::temp_dir().join(format!("jc-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = shard(
            &dir,
            1,
            &[
                ("journal/gap", "passed"),
                ("properties/canonical/e8bf0716", "skipped"),
            ],
        );
        let b = shard(
            &dir,
            2,
            &[
                ("journal/dup", "failed"),
                ("properties/canonical/e8bf0716", "failed"),
            ],
        );
        let m = merge_shards(vec![a.clone(), b]).unwrap();
        assert_eq!(m.len(), 1);
        let m = &m[0];
        assert_eq!(
            (m.overall.passed, m.overall.failed, m.overall.skipped),
            (1, 2, 0),
            "the kind once, failed (one shard saw it fail)"
        );
        assert_eq!(m.groups["properties/canonical"].failed, 1);
        assert_eq!(m.ids.len(), 3);
        let c = shard(&dir, 2, &[("journal/gap", "passed")]);
        let e = merge_shards(vec![a, c]).unwrap_err();
        assert!(e.contains("journal/gap is in two shards"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
