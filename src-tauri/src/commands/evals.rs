//! Evals in the window: a suite's prompt cases run with its models (each
//! run's end on a `Channel`), the runs kept for a suite, and a chat's turn
//! offered as a prompt case (Save to suite) and added to a suite file.

use std::path::PathBuf;
use std::sync::Arc;

use tauri::ipc::Channel;
use tauri::{Runtime, State};
use workbench_app::evals::{self};

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
    on_progress: Channel<crate::wire::EvalProgress>,
) -> Result<crate::wire::EvalReport, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let progress = Arc::new(move |p: workbench_app::evals::EvalProgress| {
                let _ = on_progress.send(p.into());
            });
            evals::run(&state.agent, &PathBuf::from(&path), models, runs, progress).await
        }
        .await,
    )
}

/// The kept runs of the suite at `path`, newest first.
#[tauri::command]
#[specta::specta]
pub async fn eval_runs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
) -> Result<Vec<crate::wire::EvalReport>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { evals::runs(&state.agent, &path) }.await)
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
) -> Result<crate::wire::TurnCase, crate::wire::ErrorInfo> {
    crate::wire::out(async move { evals::turn_case(&state.agent, &id, seq) }.await)
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
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { evals::save_prompt_case(&PathBuf::from(path), entry, &models) }.await,
    )
}
