#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// What a run of evals says as it goes.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EvalProgress {
    Started {
        total: u32,
    },
    RunDone {
        model: String,
        case: String,
        run: u32,
        passed: bool,
        done: u32,
        total: u32,
    },
}
/// One run of one case by one model.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct EvalRun {
    /// Its hidden chat (the transcript).
    pub session: String,
    pub passed: bool,
    #[serde(default)]
    pub failures: Vec<crate::wire::calls::Failure>,
    pub steps: u32,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub duration_ms: f64,
    /// The calls the model asked for, in order.
    #[serde(default)]
    pub calls: Vec<crate::wire::calls::SeenCall>,
}
/// A model × case: its runs and what they add up to.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct EvalCell {
    /// `PROVIDER:MODEL` as the suite names it.
    pub model: String,
    pub case: String,
    pub outcome: crate::wire::calls::CaseOutcome,
    /// Why it did not run (no such provider, a server not ready, skipped).
    pub note: Option<String>,
    pub runs: Vec<EvalRun>,
    /// Passed runs over runs (0 when none ran).
    pub pass_rate: f64,
    /// The case's `passRate`.
    pub required: f64,
    pub mean_steps: f64,
    pub mean_ms: f64,
    pub input_tokens: i64,
    pub output_tokens: i64,
}
/// One run of a suite's prompt cases.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct EvalReport {
    /// The suite's name and file.
    pub suite: String,
    pub path: String,
    /// The file's fingerprint when it ran (a changed file shows in a comparison).
    pub fingerprint: String,
    pub started_at: i64,
    pub duration_ms: f64,
    /// Columns: the models, in the suite's order.
    pub models: Vec<String>,
    /// Rows: the prompt cases, in the file's order.
    pub cases: Vec<String>,
    pub cells: Vec<EvalCell>,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub not_ready: u32,
    /// The run as kept in the store (None: not kept).
    pub id: Option<i64>,
}
/// A chat's turn as a prompt case could keep it (Save to suite): the
/// person's message, the servers the chat used, each call the model made,
/// how many steps it took, and the chat's model as `PROVIDER:MODEL`.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct TurnCase {
    pub prompt: String,
    pub servers: Vec<String>,
    pub calls: Vec<crate::wire::calls::SeenCall>,
    pub steps: u32,
    /// The model's last answer.
    pub answer: String,
    pub model: String,
}
crate::wire::to_wire!(workbench_agent::eval::EvalProgress => EvalProgress);
impl From<workbench_agent::eval::EvalProgress> for EvalProgress {
    fn from(v: workbench_agent::eval::EvalProgress) -> Self {
        match v {
            workbench_agent::eval::EvalProgress::Started { total } => Self::Started { total },
            workbench_agent::eval::EvalProgress::RunDone {
                model,
                case,
                run,
                passed,
                done,
                total,
            } => Self::RunDone {
                model,
                case,
                run,
                passed,
                done,
                total,
            },
        }
    }
}
crate::wire::to_wire!(workbench_agent::eval::EvalReport => EvalReport);
impl From<workbench_agent::eval::EvalReport> for EvalReport {
    fn from(v: workbench_agent::eval::EvalReport) -> Self {
        let workbench_agent::eval::EvalReport {
            suite,
            path,
            fingerprint,
            started_at,
            duration_ms,
            models,
            cases,
            cells,
            passed,
            failed,
            skipped,
            not_ready,
            id,
        } = v;
        Self {
            suite,
            path,
            fingerprint,
            started_at,
            duration_ms,
            models,
            cases,
            cells: cells.into_iter().map(|v| v.into()).collect(),
            passed,
            failed,
            skipped,
            not_ready,
            id,
        }
    }
}
crate::wire::to_wire!(workbench_agent::eval::TurnCase => TurnCase);
impl From<workbench_agent::eval::TurnCase> for TurnCase {
    fn from(v: workbench_agent::eval::TurnCase) -> Self {
        let workbench_agent::eval::TurnCase {
            prompt,
            servers,
            calls,
            steps,
            answer,
            model,
        } = v;
        Self {
            prompt,
            servers,
            calls: calls.into_iter().map(|v| v.into()).collect(),
            steps,
            answer,
            model,
        }
    }
}
crate::wire::to_wire!(workbench_agent::eval::EvalCell => EvalCell);
impl From<workbench_agent::eval::EvalCell> for EvalCell {
    fn from(v: workbench_agent::eval::EvalCell) -> Self {
        let workbench_agent::eval::EvalCell {
            model,
            case,
            outcome,
            note,
            runs,
            pass_rate,
            required,
            mean_steps,
            mean_ms,
            input_tokens,
            output_tokens,
        } = v;
        Self {
            model,
            case,
            outcome: outcome.into(),
            note,
            runs: runs.into_iter().map(|v| v.into()).collect(),
            pass_rate,
            required,
            mean_steps,
            mean_ms,
            input_tokens,
            output_tokens,
        }
    }
}
crate::wire::to_wire!(workbench_agent::eval::EvalRun => EvalRun);
impl From<workbench_agent::eval::EvalRun> for EvalRun {
    fn from(v: workbench_agent::eval::EvalRun) -> Self {
        let workbench_agent::eval::EvalRun {
            session,
            passed,
            failures,
            steps,
            input_tokens,
            output_tokens,
            duration_ms,
            calls,
        } = v;
        Self {
            session,
            passed,
            failures: failures.into_iter().map(|v| v.into()).collect(),
            steps,
            input_tokens,
            output_tokens,
            duration_ms,
            calls: calls.into_iter().map(|v| v.into()).collect(),
        }
    }
}
