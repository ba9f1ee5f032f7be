//! Evals in the window: a suite's prompt cases run with its models (each
//! run's end on a `Channel`), the runs kept for a suite, and a chat's turn
//! offered as a prompt case (Save to suite) and added to a suite file.

use std::path::PathBuf;
use std::sync::Arc;

use tauri::ipc::Channel;
use tauri::{Runtime, State};
use workbench_agent::eval::{EvalOptions, EvalProgress, EvalReport, TurnCase};
use workbench_app::{ErrorCode, ErrorInfo};
use workbench_calls::suite::trust::{SuiteTrust, review};
use workbench_calls::suite::{self, PromptCase};

use crate::commands::history::failed;
use crate::state::AppState;

/// Run the prompt cases of the suite at `path` (read afresh) with its
/// models, or `models`; `runs` over each case's. Refused while the suite is
/// not trusted. The run is kept (see `eval_runs`).
#[tauri::command]
#[specta::specta]
pub async fn run_evals<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    models: Vec<String>,
    runs: Option<u32>,
    on_progress: Channel<EvalProgress>,
) -> Result<EvalReport, ErrorInfo> {
    let (loaded, broken) = suite::load(&[PathBuf::from(&path)]);
    if let Some(b) = broken.first() {
        return Err(ErrorInfo {
            code: ErrorCode::ConfigSyntax,
            message: b.to_string(),
        });
    }
    let Some(s) = loaded.first() else {
        return Err(failed(format!("no suite at {path}")));
    };
    if !review(s, &SuiteTrust::app()).trusted {
        return Err(ErrorInfo {
            code: ErrorCode::Refused,
            message: format!(
                "{path} is not trusted: look at the models and servers it uses, then trust it"
            ),
        });
    }
    let options = EvalOptions {
        models,
        runs,
        ..EvalOptions::default()
    };
    let progress = Arc::new(move |p| {
        let _ = on_progress.send(p);
    });
    Ok(state.agent.run_evals(s, &options, progress).await?)
}

/// The kept runs of the suite at `path`, newest first.
#[tauri::command]
#[specta::specta]
pub async fn eval_runs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
) -> Result<Vec<EvalReport>, ErrorInfo> {
    Ok(state.agent.eval_runs(&path)?)
}

/// The turn that began with the person's message `seq` in chat `id`, as a
/// prompt case could keep it.
#[tauri::command]
#[specta::specta]
pub async fn turn_case<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    seq: i64,
) -> Result<TurnCase, ErrorInfo> {
    Ok(state.agent.turn_case(&id, seq)?)
}

/// Add a prompt case (`entry`: the JSON a suite holds) to the suite at
/// `path`, made if missing with `models`; returns the name it got.
#[tauri::command]
#[specta::specta]
pub async fn save_prompt_case<R: Runtime>(
    _app: tauri::AppHandle<R>,
    path: String,
    entry: serde_json::Value,
    models: Vec<String>,
) -> Result<String, ErrorInfo> {
    let case: PromptCase = serde_json::from_value(entry)
        .map_err(|e| failed(format!("the case is not one a suite holds: {e}")))?;
    suite::append_prompt_case(&PathBuf::from(path), case, &models, &SuiteTrust::app())
        .map_err(failed)
}
