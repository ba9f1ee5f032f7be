//! Evals (a suite's prompt cases given to models, their calls judged): a
//! suite's run with its models — read afresh, refused while not trusted —
//! its kept runs, and a chat's turn kept as a prompt case in a suite file.

use std::path::Path;
use std::sync::Arc;

use workbench_agent::Agent;
pub use workbench_agent::eval::{EvalOptions, EvalProgress, EvalReport, Progress, TurnCase};
use workbench_calls::suite::trust::{SuiteTrust, review};
use workbench_calls::suite::{self, PromptCase};
use workbench_core::{ErrorCode, ErrorInfo};

/// Run the prompt cases of the suite at `path` with its models, or
/// `models`; `runs` over each case's. Each run's end goes to `progress`.
/// A broken suite says where; one not trusted is refused. The run is kept.
pub async fn run(
    agent: &Agent,
    path: &Path,
    models: Vec<String>,
    runs: Option<u32>,
    progress: Arc<dyn Fn(EvalProgress) + Send + Sync>,
) -> Result<EvalReport, ErrorInfo> {
    let (loaded, broken) = suite::load(&[path.to_path_buf()]);
    if let Some(b) = broken.first() {
        return Err(ErrorInfo {
            code: ErrorCode::ConfigSyntax,
            message: b.to_string(),
        });
    }
    let Some(s) = loaded.first() else {
        return Err(ErrorInfo::new(
            ErrorCode::NotFound,
            format!("no suite at {}", path.display()),
        ));
    };
    if !review(s, &SuiteTrust::app()).trusted {
        return Err(ErrorInfo::refused(format!(
            "{} is not trusted: look at the models and servers it uses, then trust it",
            path.display()
        )));
    }
    let options = EvalOptions {
        models,
        runs,
        ..EvalOptions::default()
    };
    Ok(agent.run_evals(s, &options, progress).await?)
}

/// The prompt cases of `suite`, read and admitted by the caller (`mcpwb
/// test`: trusted, or `--trust-suites`), run with `options`. The run is kept.
pub async fn run_suite(
    agent: &Agent,
    suite: &suite::Suite,
    options: &EvalOptions,
    progress: Progress,
) -> Result<EvalReport, ErrorInfo> {
    Ok(agent.run_evals(suite, options, progress).await?)
}

/// The kept runs of the suite at `path`, newest first.
pub fn runs(agent: &Agent, path: &str) -> Result<Vec<EvalReport>, ErrorInfo> {
    Ok(agent.eval_runs(path)?)
}

/// The turn that began with the person's message `seq` in chat `id`, as a
/// prompt case could keep it.
pub fn turn_case(agent: &Agent, id: &str, seq: i64) -> Result<TurnCase, ErrorInfo> {
    Ok(agent.turn_case(id, seq)?)
}

/// Add a prompt case (`entry`: the JSON a suite holds) to the suite at
/// `path`, made if missing with `models`; the name it got.
pub fn save_prompt_case(
    path: &Path,
    entry: serde_json::Value,
    models: &[String],
) -> Result<String, ErrorInfo> {
    let case: PromptCase = serde_json::from_value(entry)
        .map_err(|e| crate::invalid(format!("the case is not one a suite holds: {e}")))?;
    suite::append_prompt_case(path, case, models, &SuiteTrust::app())
}
