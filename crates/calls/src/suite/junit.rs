//! A run's report as JUnit XML, which CI systems read: one testsuite a
//! suite file, one testcase a case, each failure with its assertion, what
//! was seen and the diff.

use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};

use super::{CaseOutcome, Report};

pub fn xml(report: &Report) -> String {
    let mut junit = Junit::new("mcpwb test");
    for suite in &report.suites {
        let mut ts = TestSuite::new(suite.name.as_str());
        for case in &suite.cases {
            let status = match case.outcome {
                CaseOutcome::Passed => TestCaseStatus::success(),
                CaseOutcome::Skipped => {
                    let mut s = TestCaseStatus::skipped();
                    if let Some(n) = &case.note {
                        s.set_message(n.as_str());
                    }
                    s
                }
                CaseOutcome::NotReady => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                    s.set_message(
                        case.note
                            .clone()
                            .unwrap_or_else(|| "server not ready".into()),
                    );
                    s
                }
                CaseOutcome::Failed => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let first = case.failures.first();
                    s.set_message(
                        first
                            .map(|f| format!("{}: {}", f.assertion, f.message))
                            .unwrap_or_else(|| "failed".into()),
                    );
                    s.set_type(first.map(|f| f.assertion.clone()).unwrap_or_default());
                    let description: Vec<String> = case
                        .failures
                        .iter()
                        .map(|f| match &f.diff {
                            Some(d) => format!("{}: {}\n{d}", f.assertion, f.message),
                            None => format!("{}: {}", f.assertion, f.message),
                        })
                        .collect();
                    s.set_description(description.join("\n"));
                    s
                }
            };
            let mut tc = TestCase::new(case.name.as_str(), status);
            tc.set_classname(format!("{}.{}", suite.name, case.server));
            if let Some(ms) = case.duration_ms {
                tc.set_time(std::time::Duration::from_secs_f64(ms / 1000.0));
            }
            ts.add_test_case(tc);
        }
        junit.add_test_suite(ts);
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- the JUnit report could not be written: {e} -->"))
}
