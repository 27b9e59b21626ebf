//! `journal-conformance summary`: several reports side by side as a markdown (or JSON)
//! table, the shards of one `--partition` run merged into the verdict of the unsharded
//! run (`X-VERDICT-1`).

use std::collections::BTreeMap;

use super::{status, PropertiesSummary, Report, Status};
use crate::canonical;
use crate::json::Value;
use crate::record::{Counts, Outcome};

/// One implementation's results, from one report or the merged shards of one run.
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

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{0}: no footer line (the run did not finish?)")]
    NoFooter(String),
    #[error("report of {implementation}: {why}")]
    Partition { implementation: String, why: String },
    #[error("{implementation}: shards {kind}:K/{n} given for K = {ks:?}; every K from 1 to {n} is needed exactly once")]
    Shards {
        implementation: String,
        kind: String,
        n: u32,
        ks: Vec<u32>,
    },
    #[error("{implementation}: case {id} is in two shards")]
    Twice { implementation: String, id: String },
}

impl ReportSummary {
    pub fn status(&self) -> Status {
        status(self.overall, self.properties.as_ref())
    }

    /// The summary of one report file.
    pub fn of(report: &Report) -> Result<ReportSummary, MergeError> {
        let footer = report
            .footer
            .as_ref()
            .ok_or_else(|| MergeError::NoFooter(report.path.clone()))?;
        let mut s = ReportSummary {
            implementation: report.path.clone(),
            groups: BTreeMap::new(),
            overall: Counts::default(),
            properties: footer.properties.clone(),
            partition: None,
            ids: Vec::new(),
        };
        if let Some(h) = &report.header {
            if !h.implementation.name.is_empty() {
                s.implementation.clone_from(&h.implementation.name);
            }
            s.partition.clone_from(&h.partition);
        }
        for c in &report.cases {
            s.ids.push((c.id.clone(), c.group.clone(), c.outcome));
            s.groups.entry(c.group.clone()).or_default().add(c.outcome);
            s.overall.add(c.outcome);
        }
        Ok(s)
    }
}

/// Merge the shards of one run (same implementation, `--partition K/N` for every K)
/// into the summary of the whole run; reports that are not shards pass through.
pub fn merge_shards(reports: Vec<ReportSummary>) -> Result<Vec<ReportSummary>, MergeError> {
    let mut out: Vec<ReportSummary> = Vec::new();
    let mut shards: BTreeMap<(String, String, u32), Vec<(u32, ReportSummary)>> = BTreeMap::new();
    for r in reports {
        let Some(p) = r.partition.clone() else {
            out.push(r);
            continue;
        };
        let part = crate::partition::Partition::parse(&p).map_err(|why| MergeError::Partition {
            implementation: r.implementation.clone(),
            why,
        })?;
        let (k, n) = part.k_n();
        let kind = p.split(':').next().unwrap_or("count").to_owned();
        shards
            .entry((r.implementation.clone(), kind, n))
            .or_default()
            .push((k, r));
    }
    for ((name, kind, n), parts) in shards {
        out.push(merge_one(name, kind, n, parts)?);
    }
    Ok(out)
}

fn merge_one(
    name: String,
    kind: String,
    n: u32,
    mut parts: Vec<(u32, ReportSummary)>,
) -> Result<ReportSummary, MergeError> {
    parts.sort_by_key(|(k, _)| *k);
    let ks: Vec<u32> = parts.iter().map(|(k, _)| *k).collect();
    if ks != (1..=n).collect::<Vec<_>>() {
        return Err(MergeError::Shards {
            implementation: name,
            kind,
            n,
            ks,
        });
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
                Some(seen) if crate::record::is_differential_id(&id) => {
                    if severity(o) > severity(seen.1) {
                        seen.1 = o;
                    }
                }
                Some(_) => {
                    return Err(MergeError::Twice {
                        implementation: name,
                        id,
                    })
                }
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
        out.push_str(&format!(" **{}** |", r.status().word));
    }
    out.push_str("\n\nCells are passed/failed/errored/skipped cases.\n");
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
                ])
            })
            .collect(),
    );
    canonical::to_string(&v) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
        ReportSummary::of(&super::super::read(&path).unwrap()).unwrap()
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
        let e = merge_shards(vec![a, c]).unwrap_err().to_string();
        assert!(e.contains("journal/gap is in two shards"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
