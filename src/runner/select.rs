//! Which cases a run counts: FILTERs (`--exact`), `--skip`, `--rule`, `--tag`,
//! `--level`, `--partition`, and skip lists (case ids or rule ids).

use std::collections::BTreeMap;
use std::path::Path;

use crate::vectors::{Case, Level};

/// Which requirement levels are selected (`--level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelSelect {
    /// `must` cases only.
    #[default]
    Must,
    /// `must` and `should` cases: a failing `should` case fails the run.
    Should,
    /// Every case; an `implementation-defined` case is reported and never fails the run.
    All,
}

impl LevelSelect {
    pub fn admits(self, l: Level) -> bool {
        match self {
            LevelSelect::Must => l == Level::Must,
            LevelSelect::Should => l <= Level::Should,
            LevelSelect::All => true,
        }
    }
}

/// `--partition count:K/N | hash:K/N` (plain `K/N` is `count:K/N`), 1-based K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// The i-th selected case (in id order) belongs to shard `i % N + 1`.
    Count { k: u32, n: u32 },
    /// A case belongs to shard `sha256(id) mod N + 1`: stable when cases are added.
    Hash { k: u32, n: u32 },
}

impl Partition {
    pub fn parse(s: &str) -> Result<Partition, String> {
        let (kind, kn) = match s.split_once(':') {
            Some((kind, kn)) => (kind, kn),
            None => ("count", s),
        };
        let bad = || format!("--partition {s:?}: expected count:K/N or hash:K/N with 1 <= K <= N");
        let (k, n) = kn.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        match kind {
            "count" => Ok(Partition::Count { k, n }),
            "hash" => Ok(Partition::Hash { k, n }),
            _ => Err(bad()),
        }
    }

    pub fn k_n(self) -> (u32, u32) {
        match self {
            Partition::Count { k, n } | Partition::Hash { k, n } => (k, n),
        }
    }

    pub fn label(self) -> String {
        match self {
            Partition::Count { k, n } => format!("count:{k}/{n}"),
            Partition::Hash { k, n } => format!("hash:{k}/{n}"),
        }
    }

    /// Does the `index`-th selected case (in id order), of id `id`, belong here?
    pub fn admits(self, index: usize, id: &str) -> bool {
        match self {
            Partition::Count { k, n } => index as u64 % u64::from(n) == u64::from(k - 1),
            Partition::Hash { k, n } => {
                let d = crate::fingerprint::sha256_hex(id.as_bytes());
                let h = u64::from_str_radix(&d[..16], 16).unwrap_or(0);
                h % u64::from(n) == u64::from(k - 1)
            }
        }
    }
}

/// How cases are selected.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub filters: Vec<String>,
    pub exact: bool,
    pub skip: Vec<String>,
    pub rules: Vec<String>,
    pub tags: Vec<String>,
    pub level: LevelSelect,
}

/// `*` matches any run of characters; anything else matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(mut t) = text.strip_prefix(head) else {
                return false;
            };
            loop {
                if glob(rest, t) {
                    return true;
                }
                let mut c = t.chars();
                if c.next().is_none() {
                    return false;
                }
                t = c.as_str();
            }
        }
    }
}

impl Selection {
    fn filter_matches(&self, f: &str, id: &str) -> bool {
        if self.exact {
            f == id
        } else {
            id.contains(f)
        }
    }

    /// Is this case selected (before the level and the partition)?
    pub fn admits_id(&self, case: &Case) -> bool {
        (self.filters.is_empty()
            || self
                .filters
                .iter()
                .any(|f| self.filter_matches(f, &case.id)))
            && !self.skip.iter().any(|s| case.id.contains(s.as_str()))
            && (self.rules.is_empty()
                || self
                    .rules
                    .iter()
                    .any(|p| case.rules.iter().any(|r| glob(p, r))))
            && (self.tags.is_empty() || self.tags.iter().any(|t| case.tags.contains(t)))
    }

    /// Is the properties phase selected? Without FILTERs, `--rule` and `--tag` it is;
    /// otherwise only by a FILTER matching `properties` (`test properties`).
    pub fn admits_properties(&self) -> bool {
        if !self.rules.is_empty() || !self.tags.is_empty() {
            return false;
        }
        if self.skip.iter().any(|s| "properties/".contains(s.as_str())) {
            return false;
        }
        self.filters.is_empty()
            || self.filters.iter().any(|f| {
                if self.exact {
                    f == "properties"
                } else {
                    "properties/".contains(f.as_str()) || f.starts_with("properties/")
                }
            })
    }
}

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

/// `properties/OP/RULE-ID` → `OP/RULE-ID`, when the entry has that shape.
fn properties_entry(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("properties/")?;
    let (op, rule) = rest.split_once('/')?;
    (!op.is_empty() && is_rule_id(rule)).then_some(rest)
}

impl SkipList {
    /// Read a skip list; `#` comments and blank lines are ignored; a reason is required.
    pub fn read(path: &Path) -> Result<SkipList, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut out = SkipList::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
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
            if !crate::ops::OPERATIONS.contains(&op) {
                return Err(format!(
                    "skip list entry \"properties/{key}\" names no operation (one of {})",
                    crate::ops::OPERATIONS.join(", ")
                ));
            }
            if crate::explain::title(rule).is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_like_nextest() {
        assert_eq!(Partition::parse("2/3"), Ok(Partition::Count { k: 2, n: 3 }));
        assert_eq!(
            Partition::parse("hash:1/2"),
            Ok(Partition::Hash { k: 1, n: 2 })
        );
        for bad in ["0/2", "3/2", "x", "count:1", "slice:1/2", "1/0"] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_case_is_in_exactly_one_shard() {
        for p in [
            Partition::Count { k: 1, n: 3 },
            Partition::Hash { k: 1, n: 3 },
        ] {
            for i in 0..50 {
                let id = format!("g/c{i}");
                let owners = (1..=3)
                    .filter(|&k| {
                        let q = match p {
                            Partition::Count { n, .. } => Partition::Count { k, n },
                            Partition::Hash { n, .. } => Partition::Hash { k, n },
                        };
                        q.admits(i, &id)
                    })
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }

    #[test]
    fn globs_and_rule_ids() {
        assert!(glob("J-*", "J-SEQ-1"));
        assert!(glob("*-1", "J-SEQ-1"));
        assert!(!glob("J-*", "C-NUM-1"));
        assert!(glob("J-SEQ-1", "J-SEQ-1"));
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
