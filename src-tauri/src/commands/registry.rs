//! The MCP Registry room: search, a server's versions, one shown with the
//! entry it becomes, added (`workbench_app::registry`). The watch on
//! mcp.json starts what was added.

use tauri::{Runtime, State};
use workbench_app::registry::{self, Query, RegistryAdd};

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
) -> Result<crate::wire::RegistryPage, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
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
        .await,
    )
}

/// Every version of a server, newest first.
#[tauri::command]
#[specta::specta]
pub async fn registry_versions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    name: String,
) -> Result<crate::wire::RegistryPage, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { registry::versions(&registry::open(None, false)?, &name).await }.await,
    )
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
) -> Result<crate::wire::RegistryShown, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let pick = registry::pick(
                from_package.map(|n| n as usize),
                from_remote.map(|n| n as usize),
            );
            registry::show(
                &registry::open(None, false)?,
                &name,
                version.as_deref(),
                pick,
            )
            .await
        }
        .await,
    )
}

/// Add it to the person's file, trusted as written.
#[tauri::command]
#[specta::specta]
pub async fn registry_add<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    add: crate::wire::RegistryAdd,
) -> Result<crate::wire::RegistryAdded, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let add: RegistryAdd = add.into();
            registry::add(&state.place(), &registry::open(None, false)?, add.request()).await
        }
        .await,
    )
}

/// A bundle the person picked (a file dialog), as it would install.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PickedBundle {
    pub path: String,
    pub shown: crate::wire::BundleShown,
}

/// Say what the `.mcpb` file at `path` is (a bundle dropped on the window):
/// it is only read; installing it is the person's next step.
#[tauri::command]
#[specta::specta]
pub async fn show_bundle<R: Runtime>(
    _app: tauri::AppHandle<R>,
    path: String,
) -> Result<PickedBundle, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let shown = workbench_app::bundle::show(std::path::Path::new(&path))?;
            Ok(PickedBundle {
                path,
                shown: shown.into(),
            })
        }
        .await,
    )
}

/// Ask for a `.mcpb` file and say what it is (None: cancelled).
#[tauri::command]
#[specta::specta]
pub async fn pick_bundle<R: Runtime>(
    app: tauri::AppHandle<R>,
) -> Result<Option<PickedBundle>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let Some(path) = super::files::pick_file(&app).await else {
                return Ok(None);
            };
            let shown = workbench_app::bundle::show(&path)?;
            Ok(Some(PickedBundle {
                path: path.display().to_string(),
                shown: shown.into(),
            }))
        }
        .await,
    )
}

/// Install the bundle at `path` with the person's answers (KEY, value),
/// if it is still the file shown to them (`shown`: its SHA-256 as shown).
#[tauri::command]
#[specta::specta]
pub async fn install_bundle<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    shown: String,
    answers: Vec<(String, String)>,
    as_name: Option<String>,
    scope: crate::wire::Scope,
) -> Result<crate::wire::Installed, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let scope: workbench_app::registry::Scope = scope.into();
            workbench_app::bundle::install(
                &state.place(),
                workbench_app::bundle::Install {
                    path: std::path::Path::new(&path),
                    sha256: None,
                    shown: Some(&shown),
                    as_name: as_name.as_deref(),
                    answers: &answers,
                    scope,
                },
            )
        }
        .await,
    )
}

crate::wire::as_is!(PickedBundle);
