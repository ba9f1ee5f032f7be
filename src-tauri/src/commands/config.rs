//! Editing mcp.json from the window: the raw text (saved only if it loads
//! and the file did not change meanwhile), edits of one server that keep
//! everything else byte for byte, and a trial connection before saving.
//! The file watch applies every save to the running servers.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use tauri::{Runtime, State};
use workbench_core::config::document::Document;
use workbench_core::config::edit::EditOp;
use workbench_core::config::vars::NeededInput;
use workbench_core::config::{ConfigFile, Scope, parse_entry};
use workbench_core::connect::resolve::resolve_command;
use workbench_core::workbench::Trial;
use workbench_core::{Error, ErrorInfo, Workbench, WorkbenchOptions};

use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ConfigText {
    pub path: String,
    pub exists: bool,
    pub text: String,
}

#[tauri::command]
#[specta::specta]
pub async fn read_config<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    scope: Option<Scope>,
) -> Result<ConfigText, ErrorInfo> {
    let path = state.file_for(scope.unwrap_or_default())?;
    let doc = Document::open(&path)?;
    Ok(ConfigText {
        path: path.display().to_string(),
        exists: path.exists(),
        text: doc.text,
    })
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
    scope: Option<Scope>,
) -> Result<(), ErrorInfo> {
    let path = state.file_for(scope.unwrap_or_default())?;
    let mut doc = Document::open(&path)?;
    if doc.text != base {
        return Err(workbench_core::config::Error::ConfigConflict { path }.into());
    }
    doc.replace(text)?;
    super::trust::save_own(&state, &mut doc, &base)?;
    Ok(())
}

/// Edit one server in the file it lives in; a new server goes to `scope`
/// (the user's file unless the project's is asked for).
#[tauri::command]
#[specta::specta]
pub async fn edit_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    edit: EditOp,
    scope: Option<Scope>,
) -> Result<(), ErrorInfo> {
    let new_in = scope.unwrap_or_default();
    let path = match &edit {
        EditOp::Upsert { name, .. }
        | EditOp::Remove { name }
        | EditOp::SetDisabled { name, .. } => state.file_of(name, new_in)?,
        EditOp::Rename { from, .. } => state.file_of(from, new_in)?,
        _ => state.file_for(new_in)?,
    };
    let mut doc = Document::open(&path)?;
    super::trust::save_own_edit(&state, &mut doc, &edit)?;
    Ok(())
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
) -> Result<Trial, ErrorInfo> {
    let entry = parse_entry(&name, &Value::Object(fields)).map_err(|p| {
        workbench_core::config::Error::ConfigInvalid {
            path: state.config_path.clone(),
            pointer: format!("/mcpServers/{name}{}", p.pointer),
            message: p.message,
        }
    })?;
    let mut options = WorkbenchOptions::default();
    options.supervisor.vars = workbench_core::config::vars::Vars::from_process(None);
    let config = ConfigFile::empty(&state.config_path);
    Ok(Workbench::trial(&config, entry, options, Duration::from_secs(20)).await?)
}

/// A server's entry as written in the file (references unexpanded).
#[tauri::command]
#[specta::specta]
pub async fn server_entry<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<Value, ErrorInfo> {
    let path = state.file_of(&name, Scope::User)?;
    let doc = Document::open(&path)?;
    workbench_core::config::raw_entries(&path, &doc.text)?
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, entry)| Value::Object(entry))
        .ok_or_else(|| Error::UnknownServer(name).into())
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
    scope: Option<Scope>,
) -> Result<String, ErrorInfo> {
    use workbench_core::config::secrets::{Keychain, reference, secret_id_for};
    // Under the entry's own prefix: the only secrets it may read.
    let scope = scope.unwrap_or_default();
    let folder = state.file_for(scope)?.parent().map(Path::to_path_buf);
    let id = secret_id_for(scope, folder.as_deref(), &server, &field, &key);
    Keychain::app().set(&id, &value)?;
    Ok(reference(&id))
}

fn project_dir(state: &AppState) -> Option<std::path::PathBuf> {
    state
        .project_dir
        .clone()
        .or_else(|| state.config_path.parent().map(std::path::Path::to_path_buf))
}

/// The other clients' configs that exist here (their documented places).
#[tauri::command]
#[specta::specta]
pub async fn discover_configs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<workbench_core::config::dialects::Found>, ErrorInfo> {
    let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from) else {
        return Ok(Vec::new());
    };
    let mut found =
        workbench_core::config::dialects::discover(&home, project_dir(&state).as_deref());
    found.retain(|f| !state.is_own(std::path::Path::new(&f.path)));
    Ok(found)
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
) -> Result<workbench_core::config::dialects::Merged, ErrorInfo> {
    use workbench_core::config::dialects::{self, Dialect};
    let dialect = Dialect::from_id(&dialect).ok_or_else(|| {
        workbench_core::config::Error::Dialect(format!("unknown dialect \"{dialect}\""))
    })?;
    let text = std::fs::read_to_string(&path).map_err(|source| {
        workbench_core::config::Error::ConfigUnreadable {
            path: path.clone().into(),
            source,
        }
    })?;
    let imported = dialects::import(dialect, &text)?;
    // A file from inside the project folder is the project's: its servers
    // go to the project's .mcp.json.
    let inside_project = state.project_dir.as_ref().and_then(|dir| {
        let dir = std::fs::canonicalize(dir).ok()?;
        let file = std::fs::canonicalize(&path).ok()?;
        file.starts_with(&dir).then(|| dir.join(".mcp.json"))
    });
    let target = inside_project.unwrap_or_else(|| state.config_path.clone());
    let mut doc = Document::open(&target)?;
    let merged = dialects::merge_into(&mut doc, &imported, &only, replace)?;
    if !merged.added.is_empty() {
        doc.save()?;
    }
    Ok(merged)
}

/// The inputs the config's servers refer to that the keychain lacks.
#[tauri::command]
#[specta::specta]
pub async fn needed_inputs<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<NeededInput>, ErrorInfo> {
    let Ok(config) = state.load() else {
        return Ok(Vec::new());
    };
    let keychain = workbench_core::config::secrets::Keychain::app();
    Ok(config.missing_inputs(state.project_dir.as_deref(), |id| {
        keychain.get(id).ok().flatten().is_some()
    }))
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
) -> Result<(), ErrorInfo> {
    use workbench_core::config::secrets::Keychain;
    let config = state.load()?;
    let keychain = Keychain::app();
    let keys = config.input_keys(state.project_dir.as_deref(), &id);
    for (_, key) in keys.iter().filter(|(s, _)| servers.contains(s)) {
        keychain.set(key, &value)?;
    }
    for name in servers {
        if let Ok(server) = state.workbench.server(&name) {
            // One turned off or not trusted takes the value when it starts.
            let _ = server.restart().await;
        }
    }
    Ok(())
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
    resolve_command("mcp-demo-server", Path::new("."), &Default::default()).ok()
}

/// Add a working example server to the user's file (a first start): the
/// demo server shipped with the app, else the reference "everything"
/// server through npx. Returns the name it got.
#[tauri::command]
#[specta::specta]
pub async fn add_example_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<String, ErrorInfo> {
    let taken: Vec<String> = state
        .load()
        .map(|c| c.servers.into_iter().map(|s| s.name).collect())
        .unwrap_or_default();
    let name = std::iter::once("example".to_string())
        .chain((2..).map(|n| format!("example-{n}")))
        .find(|n| !taken.contains(n))
        .unwrap_or_default();
    let entry = match example_command() {
        Some(path) => serde_json::json!({
            "command": path.display().to_string(),
            "args": ["--name", name],
            "description": "The MCP Workbench demo server: every MCP feature to try"
        }),
        None if resolve_command("npx", Path::new("."), &Default::default()).is_ok() => {
            serde_json::json!({
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-everything"],
                "description": "The MCP reference server with every feature (fetched by npx)"
            })
        }
        None => {
            return Err(Error::Refused(
                "no example server here: the demo server is not installed beside the app and npx is not on PATH; add a server with Add server".into(),
            )
            .into());
        }
    };
    let Value::Object(fields) = entry else {
        return Err(Error::Internal("the example entry is an object".into()).into());
    };
    let mut doc = Document::open(&state.config_path)?;
    super::trust::save_own_edit(
        &state,
        &mut doc,
        &EditOp::Upsert {
            name: name.clone(),
            fields,
        },
    )?;
    Ok(name)
}
