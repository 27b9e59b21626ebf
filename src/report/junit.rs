//! JUnit XML of a run (`test --junit`), by the `quick-junit` crate: one testsuite per
//! group, named with the implementation, and a properties suite.

use std::collections::BTreeMap;
use std::path::Path;

use super::PropertiesSummary;
use crate::record::{CaseRecord, Outcome};

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
                        .map_or("wrong_result", crate::verdict::Cause::as_str),
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
