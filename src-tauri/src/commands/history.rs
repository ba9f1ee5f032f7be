//! History and suites: every caller's calls from the store (filtered,
//! searched, one whole), the project's and the user's suites (each with
//! what it would call and whether it is trusted), a suite (or one case)
//! run through the one call path, a call saved as a case.

use std::path::PathBuf;

use tauri::{Runtime, State};
use workbench_app::Store;
use workbench_app::history::HistoryQuery;
use workbench_app::{ErrorCode, ErrorInfo};

use crate::state::AppState;

pub(crate) fn failed(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::Internal,
        message: message.into(),
    }
}

pub(crate) fn store(state: &AppState) -> Result<Store, ErrorInfo> {
    workbench_app::history::of(&state.calls)
}

/// The calls `query` selects, newest first.
#[tauri::command]
#[specta::specta]
pub async fn history<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    query: crate::wire::HistoryQuery,
) -> Result<Vec<crate::wire::CallRow>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let query: HistoryQuery = query.into();
            let store = store(&state)?;
            tokio::task::spawn_blocking(move || workbench_app::history::calls(&store, &query))
                .await
                .map_err(|e| failed(e.to_string()))?
        }
        .await,
    )
}

/// What changes when any process (`mcpwb`, the bridge, a tap) keeps or ends
/// a call: the History room asks it while shown and lists again when it
/// moved.
#[tauri::command]
#[specta::specta]
pub async fn history_version<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            tokio::task::spawn_blocking(move || workbench_app::history::version(&store))
                .await
                .map_err(|e| failed(e.to_string()))?
        }
        .await,
    )
}

/// One call whole, by the key its caller made (None: pruned or never kept).
#[tauri::command]
#[specta::specta]
pub async fn history_call<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    key: String,
) -> Result<Option<crate::wire::CallRow>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::history::call_by_key(&store(&state)?, &key) }.await,
    )
}

/// The suites of the open project and of the user, read afresh.
#[tauri::command]
#[specta::specta]
pub async fn suites<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::SuiteInfo>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let project = state.project_dir.clone();
            tokio::task::spawn_blocking(move || workbench_app::suites::list(project.as_deref()))
                .await
                .map_err(|e| failed(e.to_string()))
        }
        .await,
    )
}

/// Run the suite at `path` (one case when `only` names it), read afresh;
/// refused while the person has not trusted it. `update_snapshots`: the
/// results become the stored snapshots (the person looked at the
/// difference and takes the new result).
#[tauri::command]
#[specta::specta]
pub async fn run_suite<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    only: Option<String>,
    update_snapshots: bool,
) -> Result<crate::wire::Report, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            workbench_app::suites::run_file(
                &state.calls,
                &PathBuf::from(&path),
                only,
                update_snapshots,
            )
            .await
        }
        .await,
    )
}

/// Trust the suite at `path` as the person saw it (`fingerprint` from its
/// review); a file changed since is not trusted.
#[tauri::command]
#[specta::specta]
pub async fn trust_suite<R: Runtime>(
    _app: tauri::AppHandle<R>,
    path: String,
    fingerprint: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::suites::trust(std::path::Path::new(&path), &fingerprint) }
            .await,
    )
}

/// Add a case (`entry`: the JSON a suite file holds) calling `server` to
/// the suite at `path`, made if missing; returns the name the case got.
/// The call it came from (`call`, its history key) is kept from pruning.
/// A new or trusted suite stays trusted (the person wrote this case).
#[tauri::command]
#[specta::specta]
pub async fn save_to_suite<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    server: String,
    entry: serde_json::Value,
    call: Option<String>,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            workbench_app::history::save_as_case(
                &state.calls,
                &PathBuf::from(path),
                &server,
                entry,
                call.as_deref(),
            )
            .await
        }
        .await,
    )
}

/// Where a new suite goes: the project's folder when one is open, else the
/// user's (the rule `mcpwb test` follows too).
#[tauri::command]
#[specta::specta]
pub async fn suite_folder<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            workbench_app::history::suite_folder(state.project_dir.as_deref())
                .map(|d| d.display().to_string())
        }
        .await,
    )
}

/// The history's cap (Settings) and what it holds now.
#[tauri::command]
#[specta::specta]
pub async fn history_usage<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<crate::wire::HistoryUsage, crate::wire::ErrorInfo> {
    crate::wire::out(async move { workbench_app::history::usage(&state.calls) }.await)
}

/// Keep at most `max_mib` MiB of calls (the oldest go first, never saved ones).
#[tauri::command]
#[specta::specta]
pub async fn set_history_cap<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    max_mib: u32,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::history::set_cap_off_thread(&state.calls, max_mib).await }
            .await,
    )
}

/// Where traces go (Settings): the OTLP/HTTP collector, if any.
#[tauri::command]
#[specta::specta]
pub async fn trace_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
) -> Result<crate::wire::TraceSettings, crate::wire::ErrorInfo> {
    crate::wire::out(async move { workbench_app::traces::settings() }.await)
}

/// Send traces to `endpoint` from now on (None: send none), and keep it in
/// the settings file.
#[tauri::command]
#[specta::specta]
pub async fn set_trace_endpoint<R: Runtime>(
    _app: tauri::AppHandle<R>,
    endpoint: Option<String>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::traces::set_endpoint(endpoint, "mcp-workbench") }.await,
    )
}
