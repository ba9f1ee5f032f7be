//! MCP Apps: open a tool's App (its resource read and resolved, served on
//! its own origin), and what an App may ask of the window — a call to a
//! tool of its own server visible to apps (decided by the rules the agent
//! follows, made through the one call path as `Origin::App`), a read of its
//! server's resources, a link opened once the person saw it — each message
//! kept in the traffic log as App traffic.

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_app::apps::{self as app_layer};
use workbench_app::{ErrorCode, ErrorInfo};

use crate::apps::{Apps, OpenApp, SCHEME};
use crate::state::AppState;

/// An App opened for a tool.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppOpened {
    pub id: String,
    /// The sandbox proxy's address (the App's own origin).
    pub url: String,
    pub uri: String,
    /// The content's `_meta` as the server sent it.
    pub meta: serde_json::Value,
    pub policy: crate::wire::AppPolicy,
    pub prefers_border: Option<bool>,
    /// The HTML's size in bytes.
    pub size: u32,
}

/// Open the App of `server`'s tool `tool` (its `_meta.ui.resourceUri`).
#[tauri::command]
#[specta::specta]
pub async fn open_app<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    server: String,
    tool: String,
) -> Result<AppOpened, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let (_, uri) = app_layer::of_tool(&state.workbench, &server, &tool)?;
            let resource = match apps.cached(&server, &uri) {
                Some(cached) => cached,
                None => {
                    let read = app_layer::read(&state.workbench, &server, &uri).await?;
                    apps.keep(&read);
                    read
                }
            };
            let opened = AppOpened {
                id: String::new(),
                url: String::new(),
                uri,
                meta: resource.meta.clone(),
                policy: resource.policy.clone().into(),
                prefers_border: resource.prefers_border,
                size: u32::try_from(resource.html.len()).unwrap_or(u32::MAX),
            };
            let id = apps.open(OpenApp {
                server,
                tool,
                resource,
            });
            Ok(AppOpened {
                url: format!("{SCHEME}://{id}/"),
                id,
                ..opened
            })
        }
        .await,
    )
}

/// Read the App of `server`'s tool ahead of its first result (kept until
/// the server restarts or its resources change); false when it has none.
#[tauri::command]
#[specta::specta]
pub async fn prefetch_app<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    server: String,
    tool: String,
) -> Result<bool, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let Some(uri) = app_layer::uri_of(&state.workbench, &server, &tool) else {
                return Ok(false);
            };
            if apps.cached(&server, &uri).is_none() {
                let read = app_layer::read(&state.workbench, &server, &uri).await?;
                apps.keep(&read);
            }
            Ok(true)
        }
        .await,
    )
}

/// Close an App (after its teardown); false when it was not open.
#[tauri::command]
#[specta::specta]
pub async fn close_app<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
) -> Result<bool, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(workbench_app::apps::close(&state.calls, &apps, &app)) }.await)
}

/// An App's `tools/call` (see [`workbench_app::apps::call`]).
#[tauri::command]
#[specta::specta]
pub async fn app_call_tool<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
    name: String,
    args: serde_json::Value,
) -> Result<serde_json::Value, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::apps::call(&state.calls, &apps, &app, &name, args).await }
            .await,
    )
}

/// The App's calls waiting for the person's decision.
#[tauri::command]
#[specta::specta]
pub async fn app_approvals<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    app: String,
) -> Result<Vec<crate::wire::Approval>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            Ok(app_layer::pending(
                &state.calls,
                &workbench_app::apps::session(&app),
            ))
        }
        .await,
    )
}

/// An App's `resources/read` (its own server's resources).
#[tauri::command]
#[specta::specta]
pub async fn app_read_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
    uri: String,
) -> Result<serde_json::Value, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let open = apps.find(&app)?;
            // Its own server's resources only (`open.server`).
            workbench_app::offers::read_resource(
                &state.workbench,
                &open.server,
                &uri,
                Default::default(),
            )
            .await
        }
        .await,
    )
}

/// Open an App's link in the system browser, once the person saw the whole
/// address and agreed: http and https only.
#[tauri::command]
#[specta::specta]
pub async fn app_open_link<R: Runtime>(
    _app: tauri::AppHandle<R>,
    url: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let ok = (url.starts_with("https://") || url.starts_with("http://"))
                && !url.chars().any(|c| c.is_whitespace() || c.is_control());
            if !ok {
                return Err(ErrorInfo::refused(format!(
                    "{url:?} is not an http(s) address: not opened"
                )));
            }
            open::that_detached(&url).map_err(|e| ErrorInfo {
                code: ErrorCode::Internal,
                message: format!("the browser did not open {url}: {e}"),
            })
        }
        .await,
    )
}

/// Keep one message of an App's bridge in the traffic log (App traffic,
/// under its server).
#[tauri::command]
#[specta::specta]
pub async fn app_traffic<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
    to_app: bool,
    message: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let open = apps.find(&app)?;
            app_layer::keep_traffic(&state.workbench, &open.server, to_app, &message);
            Ok(())
        }
        .await,
    )
}

crate::wire::as_is!(AppOpened);
