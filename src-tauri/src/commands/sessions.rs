//! Sessions: the connections hosts made through `mcpwb tap` (kept in the
//! shared store by the tap's process; the window reads them as they grow).

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_core::config::dialects::Dialect;
use workbench_core::config::dialects::tapping::{self, HostEntry};
use workbench_store::{TapMessage, TapRow};
use workbench_tap::session::Session;

use super::history::{failed, store};
use crate::state::AppState;

/// The sessions kept, newest first (at most `limit`).
#[tauri::command]
#[specta::specta]
pub async fn list_sessions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    limit: u32,
) -> Result<Vec<TapRow>, ErrorInfo> {
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || store.taps(limit))
        .await
        .map_err(|e| failed(e.to_string()))?
        .map_err(|e| failed(format!("the sessions: {e}")))
}

/// Forget session `id` and its messages (its calls stay in the History).
#[tauri::command]
#[specta::specta]
pub async fn delete_session<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<(), ErrorInfo> {
    let store = store(&state)?;
    match tokio::task::spawn_blocking(move || store.delete_tap(id))
        .await
        .map_err(|e| failed(e.to_string()))?
    {
        Ok(true) => Ok(()),
        Ok(false) => Err(ErrorInfo::new(
            workbench_core::ErrorCode::NotFound,
            format!("no session {id}"),
        )),
        Err(e) => Err(failed(format!("session {id}: {e}"))),
    }
}

/// One session's messages in order.
#[tauri::command]
#[specta::specta]
pub async fn session_messages<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<TapMessage>, ErrorInfo> {
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || store.tap_messages(id))
        .await
        .map_err(|e| failed(e.to_string()))?
        .map_err(|e| failed(format!("the session's messages: {e}")))
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

fn session(store: &workbench_store::Store, id: i64) -> Result<Session, ErrorInfo> {
    Session::from_store(store, id).map_err(|e| ErrorInfo {
        message: e.to_string(),
        code: match e {
            workbench_tap::session::SessionError::NotFound(_) => {
                workbench_core::ErrorCode::NotFound
            }
            workbench_tap::session::SessionError::Store(_) => workbench_core::ErrorCode::Internal,
        },
    })
}

/// The host's fingerprint in session `id`.
#[tauri::command]
#[specta::specta]
pub async fn session_fingerprint<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<HostFingerprint, ErrorInfo> {
    let store = store(&state)?;
    let f = tokio::task::spawn_blocking(move || {
        session(&store, id).map(|s| workbench_tap::fingerprint::of_session(&s))
    })
    .await
    .map_err(|e| failed(e.to_string()))??;
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

/// What the host of session `b` does differently from the host of `a`.
#[tauri::command]
#[specta::specta]
pub async fn compare_sessions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    a: i64,
    b: i64,
) -> Result<Vec<String>, ErrorInfo> {
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || {
        let fa = workbench_tap::fingerprint::of_session(&session(&store, a)?);
        let fb = workbench_tap::fingerprint::of_session(&session(&store, b)?);
        Ok(workbench_tap::fingerprint::compare(&fa, &fb))
    })
    .await
    .map_err(|e| failed(e.to_string()))?
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
) -> Result<Option<String>, ErrorInfo> {
    let store = store(&state)?;
    let s = tokio::task::spawn_blocking(move || session(&store, id))
        .await
        .map_err(|e| failed(e.to_string()))??
        .masked();
    let (name, bytes) = if har {
        let text = serde_json::to_string_pretty(&workbench_tap::har::to_har(&s))
            .unwrap_or_default()
            + "\n";
        (format!("session-{id}.har"), text.into_bytes())
    } else {
        (format!("session-{id}.jsonl"), s.to_jsonl().into_bytes())
    };
    super::files::save_as(&app, &name, &bytes).await
}

/// Open a session file (JSON Lines) the person picks and keep it: its new
/// id, None when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn import_session<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Option<i64>, ErrorInfo> {
    let Some(path) = super::files::pick_file(&app).await else {
        return Ok(None);
    };
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || {
        let bytes = workbench_core::files::read_no_follow(&path, 512 * 1024 * 1024)
            .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        let s = Session::from_jsonl(&String::from_utf8_lossy(&bytes))
            .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        s.import(&store, &path).map(Some).map_err(failed)
    })
    .await
    .map_err(|e| failed(e.to_string()))?
}

fn invalid(message: String) -> ErrorInfo {
    ErrorInfo {
        code: workbench_core::ErrorCode::Invalid,
        message,
    }
}

/// Which server of the config a session was with (the entry of its name,
/// URL or command line), for Save as suite's default; None: the person says.
#[tauri::command]
#[specta::specta]
pub async fn session_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<Option<String>, ErrorInfo> {
    let store = store(&state)?;
    let entries = state.load().map(|c| c.servers).unwrap_or_default();
    tokio::task::spawn_blocking(move || {
        let s = session(&store, id)?;
        Ok(workbench_app::sessions::server_of(&s, &entries))
    })
    .await
    .map_err(|e| failed(e.to_string()))?
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
) -> Result<workbench_app::sessions::SuiteMade, ErrorInfo> {
    let store = store(&state)?;
    let entries = state.load().map(|c| c.servers).unwrap_or_default();
    let dir = workbench_calls::suite::folders(state.project_dir.as_deref())
        .into_iter()
        .next()
        .map(|(_, d)| d)
        .ok_or_else(|| failed("no folder for suites"))?;
    tokio::task::spawn_blocking(move || {
        use workbench_app::sessions::{SaveAsSuite, save_as_suite};
        let request = SaveAsSuite {
            session: id,
            name: Some(name),
            server,
            dir,
        };
        save_as_suite(&store, &entries, request)
    })
    .await
    .map_err(|e| failed(e.to_string()))?
}

/// A host's config file and its entries, for Tap and Untap.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HostFile {
    pub dialect: Dialect,
    pub path: String,
    pub entries: Vec<HostEntry>,
    /// Why its entries are not listed (unreadable; a dialect not offered).
    pub error: Option<String>,
}

fn records() -> std::path::PathBuf {
    workbench_core::settings::data_dir().join("tapped-hosts.json")
}

/// The hosts' config files found here, each entry with whether it runs
/// through the tap.
#[tauri::command]
#[specta::specta]
pub async fn host_files<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<HostFile>, ErrorInfo> {
    let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from) else {
        return Ok(Vec::new());
    };
    let project = state.project_dir.clone();
    let found = workbench_core::config::dialects::discover(&home, project.as_deref());
    let found: Vec<_> = found
        .into_iter()
        .filter(|f| !state.is_own(std::path::Path::new(&f.path)))
        .collect();
    tokio::task::spawn_blocking(move || {
        found
            .into_iter()
            .map(|f| {
                let json = !matches!(
                    f.dialect,
                    Dialect::Zed | Dialect::Goose | Dialect::Continue | Dialect::Registry
                );
                let listed = if json {
                    tapping::entries(&records(), std::path::Path::new(&f.path))
                        .map_err(|e| e.to_string())
                } else {
                    Err("Tap is offered for the JSON configs with mcpServers or servers; for this one, put `mcpwb tap -- COMMAND` in the entry by hand".into())
                };
                let (entries, error) = match listed {
                    Ok(e) => (e, None),
                    Err(e) => (Vec::new(), Some(e)),
                };
                HostFile {
                    dialect: f.dialect,
                    path: f.path,
                    entries,
                    error,
                }
            })
            .collect()
    })
    .await
    .map_err(|e| failed(e.to_string()))
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
) -> Result<String, ErrorInfo> {
    let mcpwb = mcpwb_path().ok_or_else(|| ErrorInfo {
        code: workbench_core::ErrorCode::NotFound,
        message: "mcpwb, the workbench's command line, is not installed next to the app or on PATH: install it to tap a host".into(),
    })?;
    tokio::task::spawn_blocking(move || {
        let path = std::path::PathBuf::from(path);
        if on {
            tapping::tap(&records(), &path, &name, &mcpwb.display().to_string())
                .map(|()| format!("{name} now runs through the tap: restart the host"))
        } else {
            tapping::untap(&records(), &path, &name).map(|u| u.said(&name, &path))
        }
    })
    .await
    .map_err(|e| failed(e.to_string()))?
    .map_err(|e| workbench_core::Error::from(e).into())
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
