//! Which cases a run selects: FILTERs (`--exact`), `--skip`, `--rule`, `--tag` and
//! `--level` (`V-LEVEL-1`).

use crate::vectors::{Case, Level};

/// Which requirement levels are selected (`--level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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
    pub fn as_str(self) -> &'static str {
        match self {
            LevelSelect::Must => "must",
            LevelSelect::Should => "should",
            LevelSelect::All => "all",
        }
    }

    pub fn admits(self, l: Level) -> bool {
        match self {
            LevelSelect::Must => l == Level::Must,
            LevelSelect::Should => l <= Level::Should,
            LevelSelect::All => true,
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
    /// The selection as a report's header records it (shards of one run agree on it).
    pub fn to_json(&self) -> crate::json::Value {
        use crate::json::Value;
        let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        Value::object([
            ("filters", strs(&self.filters)),
            ("exact", Value::Bool(self.exact)),
            ("skip", strs(&self.skip)),
            ("rules", strs(&self.rules)),
            ("tags", strs(&self.tags)),
            ("level", Value::from(self.level.as_str())),
        ])
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_rule_ids() {
        assert!(glob("J-*", "J-SEQ-1"));
        assert!(glob("*-1", "J-SEQ-1"));
        assert!(!glob("J-*", "C-NUM-1"));
        assert!(glob("J-SEQ-1", "J-SEQ-1"));
    }
}
