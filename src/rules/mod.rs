//! The rules of SPEC.md as a typed table: every rule id with its one-line title and its
//! section, generated from SPEC.md at build time (`build.rs`, parsing with
//! [`spec_text`]).
//!
//! Code names a rule by its constant (`rules::id::J_ORDER_1`), so a rule id that SPEC.md
//! does not define is a compile error; ids read from data (vectors, skip lists, reports)
//! are looked up with [`Rule::parse`], and a test checks that every id the corpus names is
//! one. Explanations, the by-rule table and the decisions render titles from here.

pub mod spec_text;

use std::fmt;

/// One rule of SPEC.md (an index into the generated table).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule(u16);

/// A rule's row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// `W-LINE-1`.
    pub id: &'static str,
    /// The first sentence of its definition (at most [`spec_text::TITLE_CHARS`]).
    pub title: &'static str,
    /// The section it is defined in: `2`, `3.1`, `A.1`.
    pub section: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/rules.rs"));

impl Rule {
    /// The rule of this id, when SPEC.md defines it.
    pub fn parse(id: &str) -> Option<Rule> {
        TABLE
            .binary_search_by(|r| r.id.cmp(id))
            .ok()
            .map(|i| Rule(i as u16))
    }

    /// Every rule, ordered by id.
    pub fn all() -> impl Iterator<Item = Rule> {
        (0..TABLE.len()).map(|i| Rule(i as u16))
    }

    fn info(self) -> &'static RuleInfo {
        &TABLE[usize::from(self.0)]
    }

    /// `W-LINE-1`.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// Its one-line title.
    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// Its section number.
    pub fn section(self) -> &'static str {
        self.info().section
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The title of rule `id`, `None` for an id SPEC.md does not define.
pub fn title(id: &str) -> Option<&'static str> {
    Rule::parse(id).map(Rule::title)
}

#[cfg(test)]
mod tests {
    use super::spec_text::{is_rule_id, parse, TITLE_CHARS};
    use super::*;

    #[test]
    fn the_table_is_spec_md_parsed() {
        let spec = include_str!("../../SPEC.md");
        let parsed = parse(spec);
        assert_eq!(parsed.len(), TABLE.len());
        for (p, r) in parsed.iter().zip(Rule::all()) {
            assert_eq!(
                (p.id.as_str(), p.title.as_str(), p.section.as_str()),
                (r.id(), r.title(), r.section())
            );
        }
        for r in Rule::all() {
            assert!(is_rule_id(r.id()), "{r}");
            assert_eq!(Rule::parse(r.id()), Some(r));
            let t = r.title();
            assert!(
                !t.is_empty() && t.chars().count() <= TITLE_CHARS,
                "{r}: {t}"
            );
            assert!(!t.contains("**") && !t.contains('\n'), "{r}: {t}");
            assert!(!r.section().is_empty(), "{r} has no section");
        }
        assert_eq!(Rule::parse("NO-SUCH-1"), None);
    }

    /// Rule ids read from data and named by error codes are ids of SPEC.md (those the
    /// code names are constants: a typo does not compile).
    #[test]
    fn every_rule_the_corpus_and_the_error_codes_name_is_defined() {
        let mut missing = Vec::new();
        for c in crate::vectors::load_embedded().unwrap() {
            for r in &c.rules {
                if Rule::parse(r).is_none() && !missing.contains(r) {
                    missing.push(r.clone());
                }
            }
        }
        assert!(
            missing.is_empty(),
            "rules SPEC.md does not define: {missing:?}"
        );
        for code in crate::error::ErrorCode::ALL {
            assert!(
                Rule::parse(code.rule()).is_some(),
                "{code}: {}",
                code.rule()
            );
        }
    }

    #[test]
    fn titles_and_sections_are_those_of_spec_md() {
        // Checked by hand against SPEC.md.
        assert_eq!(
            title("W-LINE-1"),
            Some("The journal is split into lines on the byte `0x0A` (`\\n`) only.")
        );
        assert_eq!(id::W_LINE_1.section(), "2");
        assert_eq!(
            title("C-NUM-2"),
            Some("The integer `-0` is the integer `0`.")
        );
        assert_eq!(id::C_NUM_2.section(), "3.1");
        assert_eq!(
            title("P-TRACE-2"),
            Some("`trace_version` is the string `\"0.1.0\"`.")
        );
        assert_eq!(id::P_TRACE_2.section(), "4.2");
        // A backquoted `.` does not end the sentence; the first definition wins over
        // the "(output)" one.
        assert!(title("C-NUM-1")
            .unwrap()
            .starts_with("A number literal without `.`, `e` or `E` is an integer"));
        // A short first sentence is followed by the next.
        assert!(title("J-ORDER-1")
            .unwrap()
            .starts_with("Precedence. Errors are found in one pass"));
        assert_eq!(id::J_ORDER_1.section(), "5");
        assert_eq!(title("R-STREAM-1"), Some("The streaming final-event rule."));
        // A rule only named inside another rule's paragraph: the sentence naming it.
        assert_eq!(
            title("T-BLANK-1"),
            Some("A line that is then empty is skipped.")
        );
        assert_eq!(id::T_BLANK_1.section(), "15.1");
        // A line ending in a colon ends the title.
        assert_eq!(title("V-CASE-1"), Some("A case has the members"));
        assert_eq!(title("NO-SUCH-1"), None);
    }

    #[test]
    fn parsing_a_small_spec() {
        let spec = "# Heading [X-NO-1]\n\n## 2. Two\n\n- **[A-ONE-1]** First sentence, e.g. this one, goes\n  on. Second.\n- **[A-TWO-1]** Go. Then this.\n\n### 2.1 Sub\n\nText naming **[A-THREE-1]** inline. More.\n\n## Appendix B. Extra\n\n```\n- **[A-FENCE-1]** in code\n```\n- **[B-ONE-1]** In the appendix.\n";
        let t = parse(spec);
        let rows: Vec<(&str, &str, &str)> = t
            .iter()
            .map(|r| (r.id.as_str(), r.title.as_str(), r.section.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("A-ONE-1", "First sentence, e.g. this one, goes on.", "2"),
                ("A-THREE-1", "Text naming inline.", "2.1"),
                ("A-TWO-1", "Go. Then this.", "2"),
                ("B-ONE-1", "In the appendix.", "B"),
            ]
        );
        let long = format!("- **[L-ONG-1]** {}.\n", "word ".repeat(40));
        let t = parse(&long);
        assert!(t[0].title.ends_with('…') && t[0].title.chars().count() <= TITLE_CHARS);
    }
}
