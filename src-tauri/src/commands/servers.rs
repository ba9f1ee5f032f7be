//! Servers: what mcp.json lists.

use std::path::Path;

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_core::config::{ConfigFile, Problem};
use workbench_core::connect::ServerStatus;
use workbench_core::{ErrorCode, ErrorInfo, ServerSummary};

use crate::state::AppState;

/// The servers of the open config file.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ServerList {
    /// The absolute path of the user's mcp.json.
    pub config_path: String,
    /// The project's `.mcp.json` merged in (it may not exist yet), when the
    /// app was opened on a project folder.
    pub project_path: Option<String>,
    /// False when the file does not exist yet (the list is then empty).
    pub exists: bool,
    pub servers: Vec<ServerSummary>,
    /// Entries that could not be understood, with the key at fault.
    pub problems: Vec<Problem>,
}

/// Read the config file (merged with the project's, when there is a project
/// folder) and list its servers. A missing file is an empty list, not an
/// error; a broken file is an error with line:column.
pub fn read_server_list(path: &Path, project_dir: Option<&Path>) -> Result<ServerList, ErrorInfo> {
    let config_path = path.display().to_string();
    let project_path = project_dir.map(|d| d.join(".mcp.json").display().to_string());
    match ConfigFile::load_scoped(path, project_dir) {
        Ok(cfg) => Ok(ServerList {
            config_path,
            project_path,
            exists: true,
            servers: cfg.summaries(),
            problems: cfg.problems,
        }),
        Err(e) if e.code() == ErrorCode::ConfigNotFound => Ok(ServerList {
            config_path,
            project_path,
            exists: false,
            servers: Vec::new(),
            problems: Vec::new(),
        }),
        Err(e) => Err(e.into()),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn list_servers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<ServerList, ErrorInfo> {
    read_server_list(&state.config_path, state.project_dir.as_deref())
}

/// The live state of every server (empty when the config could not be read).
#[tauri::command]
#[specta::specta]
pub async fn server_statuses<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ServerStatus>, ErrorInfo> {
    Ok(state.workbench.statuses())
}

/// A server's life: each change of state with its time, and for a failure
/// its code and reason (kept after it is back), oldest first.
#[tauri::command]
#[specta::specta]
pub async fn server_life<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<workbench_core::connect::life::LifeEvent>, ErrorInfo> {
    Ok(state.workbench.server(&name)?.life())
}

/// Restart a server (a stopped one starts).
#[tauri::command]
#[specta::specta]
pub async fn restart_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), ErrorInfo> {
    state.workbench.server(&name)?.restart().await?;
    Ok(())
}

/// Stop a server; it stays stopped (no automatic restart) until started.
#[tauri::command]
#[specta::specta]
pub async fn stop_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), ErrorInfo> {
    state.workbench.server(&name)?.stop().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_an_empty_list_and_broken_file_an_error_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        let list = read_server_list(&path, None).unwrap();
        assert!(!list.exists);
        assert!(list.servers.is_empty());

        std::fs::write(&path, "{\n \"mcpServers\": {,}\n}").unwrap();
        let err = read_server_list(&path, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::ConfigSyntax);
        assert!(err.message.contains(":2:"), "{}", err.message);
        // Reading never writes: the broken file is untouched.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n \"mcpServers\": {,}\n}"
        );
    }

    #[test]
    fn a_project_folder_adds_its_entries_marked_as_the_projects() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("mcp.json");
        std::fs::write(
            &user,
            r#"{ "mcpServers": { "a": { "command": "x" }, "b": { "command": "y" } } }"#,
        )
        .unwrap();
        let project = dir.path().join("proj");
        std::fs::create_dir(&project).unwrap();
        let list = read_server_list(&user, Some(&project)).unwrap();
        assert_eq!(
            list.servers.len(),
            2,
            "no .mcp.json yet: the user's servers only"
        );
        assert!(list.project_path.unwrap().ends_with("proj/.mcp.json"));
        std::fs::write(
            project.join(".mcp.json"),
            r#"{ "mcpServers": { "b": { "url": "http://127.0.0.1:1/mcp" }, "c": { "command": "z" } } }"#,
        )
        .unwrap();
        let list = read_server_list(&user, Some(&project)).unwrap();
        let scopes: Vec<_> = list
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.scope))
            .collect();
        use workbench_core::config::Scope;
        assert_eq!(
            scopes,
            [
                ("a", Scope::User),
                ("b", Scope::Project),
                ("c", Scope::Project)
            ]
        );
    }
}

/// The window tells how far its start has come: once it has painted the
/// servers may start (one after another); both stages are logged with the
/// time since launch.
#[tauri::command]
#[specta::specta]
pub async fn window_ready<R: Runtime>(
    _app: tauri::AppHandle<R>,
    gate: State<'_, crate::startup::StartGate>,
    state: State<'_, AppState>,
    stage: crate::startup::WindowStage,
    page_ms: u32,
) -> Result<(), ErrorInfo> {
    crate::startup::window_stage(&gate, stage, page_ms, state.workbench.statuses().len());
    Ok(())
}
