//! JUnit XML of a run (`test --junit`), by the `quick-junit` crate: one testsuite per
//! group, named with the implementation, and a properties suite.

use std::collections::BTreeMap;
use std::path::Path;

use super::PropertiesSummary;
use crate::record::{CaseRecord, Outcome};

/// Text made safe for XML 1.0: every character the `Char` production excludes (C0
/// controls other than tab, newline and carriage return, U+FFFE, U+FFFF; surrogates cannot
/// occur in a Rust string) is written `\u{HEX}`, the kit's notation for invisible
/// characters, so any string an adapter or a vector holds gives well-formed JUnit.
pub fn xml_safe(text: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || c >= '\u{10000}'
    };
    if text.chars().all(allowed) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if allowed(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out
}

/// Write JUnit XML: one testsuite per group (classname = group, name = case id), a
/// failure's type is its cause and its body the full explanation, the adapter's stderr
/// tail is `system-err`, skipped cases carry their reason, the properties phase has
/// its own suite, what the run could not do is an errored case of a `run` suite, and
/// suite names name the implementation. Every string is [`xml_safe`].
pub fn write_junit(
    path: &Path,
    implementation: &str,
    records: &[CaseRecord],
    properties: Option<&PropertiesSummary>,
    errors: &[String],
) -> Result<(), String> {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    let x = xml_safe;
    let imp = x(implementation);
    let mut report = Report::new(format!("journal-conformance: {imp}"));
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for r in records {
        let status = match r.outcome {
            Outcome::Passed => TestCaseStatus::success(),
            Outcome::Skipped => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(x(&r.message));
                s
            }
            Outcome::Failed | Outcome::Errored => {
                let kind = if r.outcome == Outcome::Failed {
                    NonSuccessKind::Failure
                } else {
                    NonSuccessKind::Error
                };
                let mut s = TestCaseStatus::non_success(kind);
                s.set_message(x(r.message.lines().next().unwrap_or("")));
                s.set_type(
                    r.cause
                        .map_or("wrong_result", crate::verdict::Cause::as_str),
                );
                s.set_description(x(&crate::explain::explain_record(r)));
                s
            }
        };
        let mut tc = TestCase::new(x(&r.id), status);
        tc.set_classname(x(&r.group));
        tc.set_time(r.duration);
        if !r.stderr.is_empty() {
            tc.set_system_err(x(&r.stderr));
        }
        suites
            .entry(r.group.as_str())
            .or_insert_with(|| {
                let mut s = TestSuite::new(format!("{} [{imp}]", x(&r.group)));
                s.add_property(Property::new("implementation", imp.as_str()));
                s
            })
            .add_test_case(tc);
    }
    report.add_test_suites(suites.into_values());
    if let Some(p) = properties {
        // The phase's own suite: its disagreements are the `properties/<op>` suites'
        // cases above; this one says what was compared.
        let mut s = TestSuite::new(format!("properties [{imp}]"));
        s.add_property(Property::new("implementation", imp.as_str()));
        s.add_property(Property::new("generated", p.cases.to_string()));
        s.add_property(Property::new("compared", p.compared.to_string()));
        s.add_property(Property::new("disagreeing", p.disagreeing.to_string()));
        s.set_system_out(x(&match &p.skipped {
            Some(why) => format!("properties skipped: {why}"),
            None => format!(
                "{} generated cases compared with the reference; {} of them disagreed, in {} kind(s) ({} known)",
                p.compared, p.disagreeing, p.kinds, p.known
            ),
        }));
        report.add_test_suite(s);
    }
    if !errors.is_empty() {
        // The run has no verdict: each thing it could not do is an errored case.
        let mut s = TestSuite::new(format!("run [{imp}]"));
        for (i, e) in errors.iter().enumerate() {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(x(e));
            status.set_type("incomplete");
            let mut tc = TestCase::new(format!("run/error-{}", i + 1), status);
            tc.set_classname("run");
            s.add_test_case(tc);
        }
        report.add_test_suite(s);
    }
    let xml = report.to_string().map_err(|e| e.to_string())?;
    crate::fsutil::write_atomic(path, xml.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}
