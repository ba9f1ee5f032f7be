#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
/// One assertion that did not hold.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, specta::Type)]
pub struct Failure {
    /// Which: `isError`, `text.contains`, `json /sum equals`, `snapshot`, ...
    pub assertion: String,
    pub message: String,
    /// Expected against actual, line by line (`-` expected, `+` actual).
    pub diff: Option<String>,
}
/// One call the model asked for in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SeenCall {
    /// `server/tool`, or the name the model used when it matched no tool.
    pub tool: String,
    #[specta(type = serde_json::Value)]
    pub arguments: Value,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CaseOutcome {
    Passed,
    Failed,
    /// `skip` in the file, filtered out, or not run after `--bail`.
    Skipped,
    /// Its server was not ready (the run exits 4).
    NotReady,
}
#[derive(Debug, Clone, Serialize, specta::Type)]
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
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SuiteResult {
    pub name: String,
    pub path: String,
    pub cases: Vec<CaseResult>,
    pub duration_ms: f64,
}
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Report {
    pub suites: Vec<SuiteResult>,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub not_ready: u32,
    pub duration_ms: f64,
}
/// What a suite would do, shown before the person trusts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Review {
    pub path: String,
    /// Of the file's bytes as read now: trusting passes it back, so a file
    /// changed between the look and the click is not trusted.
    pub fingerprint: String,
    /// Every `server/tool` its cases call (surface checks call nothing).
    pub calls: Vec<String>,
    /// Every environment variable its cases read (`${env:VAR}`).
    pub env: Vec<String>,
    /// Its prompt cases: the models its prompts go to (`PROVIDER:MODEL`,
    /// each a paid request)...
    pub models: Vec<String>,
    /// ...and the servers whose tools those models may call (under the
    /// person's rules: a tool that may change things only under a rule).
    pub eval_servers: Vec<String>,
    pub trusted: bool,
    /// In the person's own suites folder (trusted by where it is).
    pub own: bool,
    /// Made from recorded data (a host's session: its arguments were
    /// written by the host or its model): trusted only once looked at.
    pub made_from: Option<String>,
}
crate::wire::to_wire!(workbench_calls::suite::Report => Report);
impl From<workbench_calls::suite::Report> for Report {
    fn from(v: workbench_calls::suite::Report) -> Self {
        let workbench_calls::suite::Report {
            suites,
            passed,
            failed,
            skipped,
            not_ready,
            duration_ms,
        } = v;
        Self {
            suites: suites.into_iter().map(|v| v.into()).collect(),
            passed,
            failed,
            skipped,
            not_ready,
            duration_ms,
        }
    }
}
crate::wire::to_wire!(workbench_calls::suite::prompt::SeenCall => SeenCall);
impl From<workbench_calls::suite::prompt::SeenCall> for SeenCall {
    fn from(v: workbench_calls::suite::prompt::SeenCall) -> Self {
        let workbench_calls::suite::prompt::SeenCall { tool, arguments } = v;
        Self { tool, arguments }
    }
}
crate::wire::to_wire!(workbench_calls::suite::SuiteResult => SuiteResult);
impl From<workbench_calls::suite::SuiteResult> for SuiteResult {
    fn from(v: workbench_calls::suite::SuiteResult) -> Self {
        let workbench_calls::suite::SuiteResult {
            name,
            path,
            cases,
            duration_ms,
        } = v;
        Self {
            name,
            path,
            cases: cases.into_iter().map(|v| v.into()).collect(),
            duration_ms,
        }
    }
}
crate::wire::to_wire!(workbench_calls::suite::trust::Review => Review);
impl From<workbench_calls::suite::trust::Review> for Review {
    fn from(v: workbench_calls::suite::trust::Review) -> Self {
        let workbench_calls::suite::trust::Review {
            path,
            fingerprint,
            calls,
            env,
            models,
            eval_servers,
            trusted,
            own,
            made_from,
        } = v;
        Self {
            path,
            fingerprint,
            calls,
            env,
            models,
            eval_servers,
            trusted,
            own,
            made_from,
        }
    }
}
crate::wire::to_wire!(workbench_calls::suite::CaseOutcome => CaseOutcome);
impl From<workbench_calls::suite::CaseOutcome> for CaseOutcome {
    fn from(v: workbench_calls::suite::CaseOutcome) -> Self {
        match v {
            workbench_calls::suite::CaseOutcome::Passed => Self::Passed,
            workbench_calls::suite::CaseOutcome::Failed => Self::Failed,
            workbench_calls::suite::CaseOutcome::Skipped => Self::Skipped,
            workbench_calls::suite::CaseOutcome::NotReady => Self::NotReady,
        }
    }
}
crate::wire::to_wire!(workbench_calls::suite::CaseResult => CaseResult);
impl From<workbench_calls::suite::CaseResult> for CaseResult {
    fn from(v: workbench_calls::suite::CaseResult) -> Self {
        let workbench_calls::suite::CaseResult {
            name,
            server,
            tool,
            outcome,
            failures,
            note,
            duration_ms,
            history_key,
            arguments,
        } = v;
        Self {
            name,
            server,
            tool,
            outcome: outcome.into(),
            failures: failures.into_iter().map(|v| v.into()).collect(),
            note,
            duration_ms,
            history_key,
            arguments,
        }
    }
}
crate::wire::to_wire!(workbench_calls::suite::Failure => Failure);
impl From<workbench_calls::suite::Failure> for Failure {
    fn from(v: workbench_calls::suite::Failure) -> Self {
        let workbench_calls::suite::Failure {
            assertion,
            message,
            diff,
        } = v;
        Self {
            assertion,
            message,
            diff,
        }
    }
}
