//! Sessions: the connections hosts made through `mcpwb tap` (kept in the
//! shared store by the tap's process; the window reads them as they grow).

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_app::hosts::{self};
use workbench_app::sessions::{self as sessions};
use workbench_app::{ErrorCode, ErrorInfo};

use super::history::{failed, store};
use crate::state::AppState;

/// The sessions kept, newest first (at most `limit`).
#[tauri::command]
#[specta::specta]
pub async fn list_sessions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    limit: u32,
) -> Result<Vec<crate::wire::TapRow>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            blocking(move || sessions::list(&store, limit)).await
        }
        .await,
    )
}

/// `work` on a blocking thread (the store is SQLite).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorInfo> + Send + 'static,
) -> Result<T, ErrorInfo> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| failed(e.to_string()))?
}

/// Forget session `id` and its messages (its calls stay in the History).
#[tauri::command]
#[specta::specta]
pub async fn delete_session<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            blocking(move || sessions::delete(&store, id)).await
        }
        .await,
    )
}

/// One session's messages in order.
#[tauri::command]
#[specta::specta]
pub async fn session_messages<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<crate::wire::TapMessage>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            blocking(move || sessions::messages(&store, id)).await
        }
        .await,
    )
}

/// What a host did, from one session (its fingerprint).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct HostFingerprint {
    pub host: Option<String>,
    pub version: Option<String>,
    pub protocol_versions: Vec<String>,
    pub extensions: Vec<String>,
    /// In the order first called.
    pub methods: Vec<String>,
    /// The capabilities it declared, as JSON text.
    pub capabilities: String,
    pub read_app_resource: bool,
    /// Each kind of list_changed it was told, and whether it listed again.
    pub listed_again: Vec<ListedAgain>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ListedAgain {
    pub kind: String,
    pub again: bool,
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|l| {
            l.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The host's fingerprint in session `id`.
#[tauri::command]
#[specta::specta]
pub async fn session_fingerprint<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<HostFingerprint, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            let f = blocking(move || sessions::fingerprint(&store, id)).await?;
            let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
            Ok(HostFingerprint {
                host: text(&f["host"]),
                version: text(&f["version"]),
                protocol_versions: strings(&f["protocolVersions"]),
                extensions: strings(&f["extensions"]),
                methods: strings(&f["methods"]),
                capabilities: serde_json::to_string_pretty(&f["capabilities"]).unwrap_or_default(),
                read_app_resource: f["readAppResource"] == true,
                listed_again: f["listedAgainAfterListChanged"]
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| ListedAgain {
                                kind: k.clone(),
                                again: *v == true,
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        }
        .await,
    )
}

/// What the host of session `b` does differently from the host of `a`.
#[tauri::command]
#[specta::specta]
pub async fn compare_sessions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    a: i64,
    b: i64,
) -> Result<Vec<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            blocking(move || {
                let (fa, fb) = (
                    sessions::fingerprint(&store, a)?,
                    sessions::fingerprint(&store, b)?,
                );
                Ok(sessions::compare(&fa, &fb))
            })
            .await
        }
        .await,
    )
}

/// Save session `id` as a file (JSON Lines, or HAR for `har`), its
/// credentials masked; the path written, None when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_session<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
    har: bool,
) -> Result<Option<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            let format = if har {
                sessions::Format::Har
            } else {
                sessions::Format::Jsonl
            };
            let (name, text) =
                blocking(move || sessions::export(&store, id, format, false)).await?;
            super::files::save_as(&app, &name, text.as_bytes()).await
        }
        .await,
    )
}

/// Open a session file (JSON Lines) the person picks and keep it: its new
/// id, None when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn import_session<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<i64>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let Some(path) = super::files::pick_file(&app).await else {
                return Ok(None);
            };
            let store = store(&state)?;
            blocking(move || sessions::import(&store, &path).map(Some)).await
        }
        .await,
    )
}

/// Which server of the config a session was with (the entry of its name,
/// URL or command line), for Save as suite's default; None: the person says.
#[tauri::command]
#[specta::specta]
pub async fn session_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<Option<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            let entries = state.load().map(|c| c.servers).unwrap_or_default();
            blocking(move || Ok(sessions::server_of(&sessions::open(&store, id)?, &entries))).await
        }
        .await,
    )
}

/// Session `id`'s tool calls as a new suite `name` for `server` in the
/// suites folder (the project's when one is open), held to what the host
/// saw; not trusted until the person trusts it in its review.
#[tauri::command]
#[specta::specta]
pub async fn session_to_suite<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
    name: String,
    server: Option<String>,
) -> Result<crate::wire::SuiteMade, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let store = store(&state)?;
            let entries = state.load().map(|c| c.servers).unwrap_or_default();
            let dir = workbench_app::history::suite_folder(state.project_dir.as_deref())?;
            blocking(move || {
                let request = sessions::SaveAsSuite {
                    session: id,
                    name: Some(name),
                    server,
                    dir,
                };
                sessions::save_as_suite(&store, &entries, request)
            })
            .await
        }
        .await,
    )
}

/// The hosts' config files found here, each entry with whether it runs
/// through the tap.
#[tauri::command]
#[specta::specta]
pub async fn host_files<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::HostFile>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from) else {
                return Ok(Vec::new());
            };
            let place = state.place();
            blocking(move || Ok(hosts::files(&place, &home))).await
        }
        .await,
    )
}

/// Route entry `name` of the host's file `path` through `mcpwb tap`
/// (`on`), or put it back (`!on`): what was done, in a sentence.
#[tauri::command]
#[specta::specta]
pub async fn tap_host_entry<R: Runtime>(
    _app: tauri::AppHandle<R>,
    path: String,
    name: String,
    on: bool,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(async move {
    let mcpwb = mcpwb_path().ok_or_else(|| ErrorInfo {
        code: ErrorCode::NotFound,
        message: "mcpwb, the workbench's command line, is not installed next to the app or on PATH: install it to tap a host".into(),
    })?;
    blocking(move || hosts::tap(std::path::Path::new(&path), &name, &mcpwb, on)).await
}.await)
}

/// `mcpwb`: beside the app's binary (an install, a build), else on PATH.
fn mcpwb_path() -> Option<std::path::PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("mcpwb")))
        .filter(|p| p.is_file());
    beside.or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("mcpwb"))
                .find(|p| p.is_file())
        })
    })
}

crate::wire::as_is!(HostFingerprint);
