//! The MCP Registry room: search, a server's versions, one shown with the
//! entry it becomes, added (`workbench_app::registry`). The watch on
//! mcp.json starts what was added.

use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::registry::{
    self, Pick, Query, RegistryAdd, RegistryAdded, RegistryPage, RegistryShown,
};

use crate::state::AppState;

/// A page of servers whose name or description holds `search`.
#[tauri::command]
#[specta::specta]
pub async fn registry_search<R: Runtime>(
    _app: tauri::AppHandle<R>,
    search: Option<String>,
    cursor: Option<String>,
    all_versions: bool,
    refresh: bool,
) -> Result<RegistryPage, ErrorInfo> {
    let reg = registry::open(None, refresh)?;
    registry::search(
        &reg,
        &Query {
            search,
            cursor,
            limit: Some(30),
            all_versions,
        },
    )
    .await
}

/// Every version of a server, newest first.
#[tauri::command]
#[specta::specta]
pub async fn registry_versions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    name: String,
) -> Result<RegistryPage, ErrorInfo> {
    registry::versions(&registry::open(None, false)?, &name).await
}

/// A version (the latest when none) with the entry it becomes run from
/// package `from_package` or remote `from_remote` (from 0; neither: the
/// first way it offers).
#[tauri::command]
#[specta::specta]
pub async fn registry_show<R: Runtime>(
    _app: tauri::AppHandle<R>,
    name: String,
    version: Option<String>,
    from_package: Option<u32>,
    from_remote: Option<u32>,
) -> Result<RegistryShown, ErrorInfo> {
    let pick = match (from_package, from_remote) {
        (Some(n), _) => Pick::Package(n as usize),
        (_, Some(n)) => Pick::Remote(n as usize),
        _ => Pick::First,
    };
    registry::show(
        &registry::open(None, false)?,
        &name,
        version.as_deref(),
        pick,
    )
    .await
}

/// Add it to the person's file, trusted as written.
#[tauri::command]
#[specta::specta]
pub async fn registry_add<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    add: RegistryAdd,
) -> Result<RegistryAdded, ErrorInfo> {
    registry::add(&state.place(), &registry::open(None, false)?, add.request()).await
}
