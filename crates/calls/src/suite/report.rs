//! What a run of suites reports: each case's outcome with its failures,
//! note, time, history row and arguments; each suite's; the totals. The
//! servers' secrets are masked in it before anyone sees it.

use serde::Serialize;
use serde_json::Value;
use workbench_core::traffic::mask::{mask_json, mask_str};

use super::expect::Failure;
use crate::Calls;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseOutcome {
    Passed,
    Failed,
    /// `skip` in the file, filtered out, or not run after `--bail`.
    Skipped,
    /// Its server was not ready (the run exits 4).
    NotReady,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub name: String,
    pub server: String,
    pub tool: Option<String>,
    pub outcome: CaseOutcome,
    pub failures: Vec<Failure>,
    /// Why it did not run, or a note (a snapshot written).
    pub note: Option<String>,
    pub duration_ms: Option<f64>,
    /// The key of the call's row in the history (made before the call).
    pub history_key: Option<String>,
    /// The arguments it ran with (references resolved).
    pub arguments: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuiteResult {
    pub name: String,
    pub path: String,
    pub cases: Vec<CaseResult>,
    pub duration_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub suites: Vec<SuiteResult>,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub not_ready: u32,
    pub duration_ms: f64,
}

/// Every server's secrets (and the environment values its cases read)
/// masked in what the report says.
pub(super) fn mask_report(calls: &Calls, report: &mut Report) {
    let traffic = calls.workbench().traffic();
    for case in report.suites.iter_mut().flat_map(|s| s.cases.iter_mut()) {
        let secrets = traffic.secrets_of(&case.server);
        if secrets.is_empty() {
            continue;
        }
        if let Some(a) = case.arguments.as_mut() {
            mask_json(a, &secrets);
        }
        if let Some(n) = case.note.as_mut() {
            *n = mask_str(n, &secrets);
        }
        for f in &mut case.failures {
            f.message = mask_str(&f.message, &secrets);
            if let Some(d) = f.diff.as_mut() {
                *d = mask_str(d, &secrets);
            }
        }
    }
}
