//! MCP Apps: open a tool's App (its resource read and resolved, served on
//! its own origin), and what an App may ask of the window — a call to a
//! tool of its own server visible to apps (decided by the rules the agent
//! follows, made through the one call path as `Origin::App`), a read of its
//! server's resources, a link opened once the person saw it — each message
//! kept in the traffic log as App traffic.

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_calls::ApproveMode;
use workbench_calls::{Asking, Call, Link, Origin, Remember, Undecided};
use workbench_core::apps::{AppPolicy, resource_uri, visible_to_app};
use workbench_core::{CallOptions, ErrorCode, ErrorInfo};

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
    pub policy: AppPolicy,
    pub prefers_border: Option<bool>,
    /// The HTML's size in bytes.
    pub size: u32,
}

fn refused(message: String) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::Refused,
        message,
    }
}

fn app_of(apps: &Apps, id: &str) -> Result<OpenApp, ErrorInfo> {
    apps.get(id).ok_or_else(|| ErrorInfo {
        code: ErrorCode::NotFound,
        message: format!("App {id} is not open"),
    })
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
) -> Result<AppOpened, ErrorInfo> {
    let definition = state
        .workbench
        .catalog()
        .tool(&server, &tool)
        .ok_or_else(|| refused(format!("{server} has no tool {tool}")))?;
    let uri = resource_uri(&definition)
        .ok_or_else(|| {
            refused(format!(
                "{server}/{tool} names no App (_meta.ui.resourceUri)"
            ))
        })?
        .to_string();
    let resource = match apps.cached(&server, &uri) {
        Some(cached) => cached,
        None => {
            let read = state.workbench.app_resource(&server, &uri).await?;
            apps.keep(&read);
            read
        }
    };
    let opened = AppOpened {
        id: String::new(),
        url: String::new(),
        uri,
        meta: resource.meta.clone(),
        policy: resource.policy.clone(),
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
) -> Result<bool, ErrorInfo> {
    let Some(uri) = state
        .workbench
        .catalog()
        .tool(&server, &tool)
        .and_then(|t| resource_uri(&t).map(str::to_string))
    else {
        return Ok(false);
    };
    if apps.cached(&server, &uri).is_none() {
        let read = state.workbench.app_resource(&server, &uri).await?;
        apps.keep(&read);
    }
    Ok(true)
}

/// Close an App (after its teardown); false when it was not open.
#[tauri::command]
#[specta::specta]
pub async fn close_app<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
) -> Result<bool, ErrorInfo> {
    state.calls.approvals().forget_session(&session(&app));
    Ok(apps.close(&app))
}

fn session(app: &str) -> String {
    format!("app:{app}")
}

/// An App's `tools/call`: only a tool of its own server that apps may call,
/// decided by the rules (asking the person through the App's approvals),
/// made as `Origin::App`. The result as the server sent it.
#[tauri::command]
#[specta::specta]
pub async fn app_call_tool<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    apps: State<'_, Apps>,
    app: String,
    name: String,
    args: serde_json::Value,
) -> Result<serde_json::Value, ErrorInfo> {
    let open = app_of(&apps, &app)?;
    let server = open.server.as_str();
    let definition = state
        .workbench
        .catalog()
        .tool(server, &name)
        .ok_or_else(|| {
            refused(format!(
                "{server} has no tool {name} (an App calls only its own server's tools)"
            ))
        })?;
    if !visible_to_app(&definition) {
        return Err(refused(format!(
            "{server}/{name} is not visible to apps (its _meta.ui.visibility leaves out \"app\")"
        )));
    }
    let arguments = if args.is_null() {
        serde_json::json!({})
    } else {
        args
    };
    let asking = Asking {
        server,
        tool: &name,
        definition: &definition,
        mode: ApproveMode::Ask,
        chat_allowed: None,
    };
    let qualified = format!("{server}/{name}");
    let link = || Link {
        call_id: app.clone(),
        ..Link::default()
    };
    // One ask per tool and App: a call made while an earlier one of the
    // same tool waits for the person waits behind it (a polling App does
    // not pile up cards), then goes by what the person decided.
    let turn = apps.asking(&app, &name);
    let decided_in_turn = turn.lock().await;
    // Nobody answered: the App closed while its call waited (kept as
    // cancelled, not as denied).
    let abandoned = || {
        let why = "nobody answered: the App was closed while its call waited";
        state
            .calls
            .abandoned(Origin::App, server, &name, &arguments, link(), why);
        ErrorInfo {
            code: ErrorCode::Cancelled,
            message: why.into(),
        }
    };
    if apps.get(&app).is_none() {
        return Err(abandoned());
    }
    // Allowed by the person for this App while it is open: no ask (a Deny
    // set since still wins).
    let while_open = apps.allowed_while_open(&app, &name)
        && state.calls.rules().policy(server, &name) != workbench_calls::ToolPolicy::Deny;
    let edited = if while_open {
        None
    } else {
        match state
            .calls
            .decide_with(&asking, &session(&app), "app", &qualified, &arguments, true)
            .await
        {
            Ok(decided) => {
                if decided.remember == Remember::Chat {
                    apps.allow_while_open(&app, &name);
                }
                decided.arguments
            }
            Err(Undecided::Dropped) => return Err(abandoned()),
            Err(Undecided::Refused(why)) => {
                state
                    .calls
                    .refused(Origin::App, server, &name, &arguments, link(), &why);
                return Err(refused(why));
            }
        }
    };
    // Decided: the next call of the tool may be decided while this runs.
    drop(decided_in_turn);
    let ran = state
        .calls
        .run(Call {
            origin: Origin::App,
            server,
            tool: &name,
            arguments: edited.unwrap_or(arguments),
            definition: Some(&definition),
            link: Link {
                call_id: app.clone(),
                ..Link::default()
            },
            options: CallOptions::default(),
        })
        .await;
    Ok(ran.outcome?.result)
}

/// The App's calls waiting for the person's decision.
#[tauri::command]
#[specta::specta]
pub async fn app_approvals<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    app: String,
) -> Result<Vec<workbench_agent::Approval>, ErrorInfo> {
    Ok(state.calls.approvals().pending(&session(&app)))
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
) -> Result<serde_json::Value, ErrorInfo> {
    let open = app_of(&apps, &app)?;
    let out = state
        .workbench
        .request(
            &open.server,
            "resources/read",
            serde_json::json!({ "uri": uri }),
            CallOptions::default(),
        )
        .await?;
    Ok(out.result)
}

/// Open an App's link in the system browser, once the person saw the whole
/// address and agreed: http and https only.
#[tauri::command]
#[specta::specta]
pub async fn app_open_link<R: Runtime>(
    _app: tauri::AppHandle<R>,
    url: String,
) -> Result<(), ErrorInfo> {
    let ok = (url.starts_with("https://") || url.starts_with("http://"))
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if !ok {
        return Err(refused(format!(
            "{url:?} is not an http(s) address: not opened"
        )));
    }
    open::that_detached(&url).map_err(|e| ErrorInfo {
        code: ErrorCode::Internal,
        message: format!("the browser did not open {url}: {e}"),
    })
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
) -> Result<(), ErrorInfo> {
    let open = app_of(&apps, &app)?;
    state
        .workbench
        .traffic()
        .record_app(&open.server, to_app, &message);
    Ok(())
}
