//! Editing mcp.json from the window: the raw text (saved only if it loads
//! and the file did not change meanwhile), edits of one server that keep
//! everything else byte for byte, and a trial connection before saving.
//! The file watch applies every save to the running servers. Each is
//! `workbench_app::config`'s operation.

use serde_json::{Map, Value};
use tauri::{Runtime, State};
use workbench_app::config::{EditOp, Scope};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn read_config<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    scope: Option<crate::wire::Scope>,
) -> Result<crate::wire::ConfigText, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let scope: Option<Scope> = scope.map(Into::into);
            state.place().read_text(scope.unwrap_or_default())
        }
        .await,
    )
}

/// Save the whole text. `base` is the text the editor started from: if the
/// file no longer holds it, nothing is written (config_conflict).
#[tauri::command]
#[specta::specta]
pub async fn save_config<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    text: String,
    base: String,
    scope: Option<crate::wire::Scope>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let scope: Option<Scope> = scope.map(Into::into);
            state
                .place()
                .save_text(scope.unwrap_or_default(), text, &base)
        }
        .await,
    )
}

/// Edit one server in the file it lives in; a new server goes to `scope`
/// (the user's file unless the project's is asked for).
#[tauri::command]
#[specta::specta]
pub async fn edit_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    edit: crate::wire::EditOp,
    scope: Option<crate::wire::Scope>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let edit: EditOp = edit.into();
            let scope: Option<Scope> = scope.map(Into::into);
            let edited = state.place().edit(&edit, scope.unwrap_or_default())?;
            for left in edited.secrets_left {
                tracing::warn!("{left}");
            }
            Ok(())
        }
        .await,
    )
}

/// Connect to an entry that is not saved yet and report what it offers or
/// why it failed; the trial connection is closed afterwards.
#[tauri::command]
#[specta::specta]
pub async fn try_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
    fields: Map<String, Value>,
) -> Result<crate::wire::Trial, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::config::trial(&state.place(), &name, fields).await }.await,
    )
}

/// A server's entry as written in the file (references unexpanded).
#[tauri::command]
#[specta::specta]
pub async fn server_entry<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<Value, crate::wire::ErrorInfo> {
    crate::wire::out(async move { state.place().entry(&name).map(Value::Object) }.await)
}

/// Keep a secret env value or header in the OS keychain; returns the
/// `${secret:...}` reference to write in the entry instead.
#[tauri::command]
#[specta::specta]
pub async fn store_secret<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    field: String,
    key: String,
    value: String,
    scope: Option<crate::wire::Scope>,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let scope: Option<Scope> = scope.map(Into::into);
            state
                .place()
                .store_secret(scope.unwrap_or_default(), &server, &field, &key, &value)
        }
        .await,
    )
}

/// The other clients' configs that exist here (their documented places).
#[tauri::command]
#[specta::specta]
pub async fn discover_configs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::Found>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            Ok(match std::env::var_os("HOME") {
                Some(home) => state.place().discover(std::path::Path::new(&home)),
                None => Vec::new(),
            })
        }
        .await,
    )
}

/// Import servers from another client's file into ours (only `only`, when
/// not empty; ours are kept unless `replace`).
#[tauri::command]
#[specta::specta]
pub async fn import_config<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    dialect: String,
    only: Vec<String>,
    replace: bool,
) -> Result<crate::wire::Merged, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let imports =
                state
                    .place()
                    .import(path.as_ref(), Some(&dialect), &only, replace, false)?;
            Ok(imports.merged)
        }
        .await,
    )
}

/// The inputs the config's servers refer to that the keychain lacks.
#[tauri::command]
#[specta::specta]
pub async fn needed_inputs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::NeededInput>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(state.place().needed_inputs()) }.await)
}

/// Remember the value of `${input:id}` in the OS keychain for each of
/// `servers` that uses it (each entry has its own answer), then restart them.
#[tauri::command]
#[specta::specta]
pub async fn provide_input<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    value: String,
    servers: Vec<String>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            if servers.is_empty() {
                return Ok(());
            }
            let kept = state.place().provide_input(&id, &value, &servers)?;
            workbench_app::servers::restart_each(&state.workbench, &kept).await;
            Ok(())
        }
        .await,
    )
}

/// The demo server shipped beside the app (the .deb installs it with the
/// window), or one on PATH.
fn example_command() -> Option<std::path::PathBuf> {
    let beside = std::env::current_exe()
        .ok()?
        .parent()?
        .join("mcp-demo-server");
    if beside.is_file() {
        return Some(beside);
    }
    workbench_app::servers::on_path("mcp-demo-server")
}

/// Add a working example server to the user's file (a first start): the
/// demo server shipped with the app, else the reference "everything"
/// server through npx. Returns the name it got.
#[tauri::command]
#[specta::specta]
pub async fn add_example_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(async move { state.place().add_example(example_command()) }.await)
}
