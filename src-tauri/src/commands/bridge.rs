//! The app's bridge: every Ready server's tools as one MCP server on
//! 127.0.0.1 with the install's token, off until the person turns it on (the
//! choice and port are kept in the settings file, so it comes back on at the
//! next start). Calls no standing rule allows are asked in the window (the
//! Bridge panel lists them); every call shows in the traffic view under
//! `bridge ← CLIENT`. Snippets for other clients come from the exporters.

use std::sync::Mutex;

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_agent::Approval;
use workbench_app::ErrorInfo;
use workbench_app::bridge::{self, ApproveMode, Bridge, BridgeOptions, CallerInfo, Policy};
use workbench_core::config::dialects::{self, Dialect};

use crate::state::AppState;

/// The bridge while it runs.
#[derive(Default)]
pub struct Running(Mutex<Option<(Bridge, bridge::Listening)>>);

/// A ready-made entry for another client.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Snippet {
    /// The client's name as people know it.
    pub client: String,
    /// `http` (this bridge, with the token) or `stdio` (`mcpwb serve`).
    pub kind: String,
    pub text: String,
    /// What the export could not say, one sentence each.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct BridgeStatus {
    pub on: bool,
    pub port: u16,
    pub url: Option<String>,
    pub token: Option<String>,
    pub callers: Vec<CallerInfo>,
    /// Bridge calls waiting for a decision here (decide with `decide_call`).
    pub pending: Vec<Approval>,
    pub snippets: Vec<Snippet>,
}

/// The `mcpwb` beside the app (a dev build), else the one on PATH (the .deb).
fn mcpwb_path() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("mcpwb")))
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "mcpwb".into())
}

fn snippets(url: &str, token: &str) -> Vec<Snippet> {
    let http = serde_json::json!({
        "type": "http",
        "url": url,
        "headers": { "Authorization": format!("Bearer {token}") }
    });
    let stdio = serde_json::json!({ "command": mcpwb_path(), "args": ["serve"] });
    let mut out = Vec::new();
    for (client, dialect) in [
        ("Claude Code", Dialect::ClaudeCode),
        ("Cursor", Dialect::Cursor),
        ("VS Code", Dialect::Vscode),
    ] {
        for (kind, entry) in [("http", &http), ("stdio", &stdio)] {
            let map = entry.as_object().cloned().unwrap_or_default();
            if let Ok(e) = dialects::export(dialect, &[("workbench".into(), map)], &[]) {
                out.push(Snippet {
                    client: client.into(),
                    kind: kind.into(),
                    text: e.text,
                    notes: e.notes,
                });
            }
        }
    }
    out
}

fn status(state: &AppState) -> BridgeStatus {
    let saved = bridge::settings();
    let running = state.bridge.0.lock().unwrap_or_else(|e| e.into_inner());
    match running.as_ref() {
        Some((bridge, listening)) => {
            // Read from the keychain only while on (the room polls).
            let token = bridge::token_if_made().ok().flatten();
            let url = listening.url();
            BridgeStatus {
                on: true,
                port: listening.addr.port(),
                snippets: token
                    .as_deref()
                    .map(|t| snippets(&url, t))
                    .unwrap_or_default(),
                url: Some(url),
                token,
                callers: bridge.callers().list(),
                pending: state
                    .agent
                    .pending_approvals(workbench_bridge::policy::SESSION),
            }
        }
        None => BridgeStatus {
            on: false,
            port: saved.port,
            url: None,
            token: None,
            callers: Vec::new(),
            pending: Vec::new(),
            snippets: Vec::new(),
        },
    }
}

/// Start the bridge on `port` (the workbench's servers, the agent's policies).
pub async fn start(state: &AppState, port: u16) -> Result<(), ErrorInfo> {
    let token = bridge::token()?;
    // The rules are read live by the one call path: a tool denied in
    // Settings while the bridge runs is refused at once.
    let served = Bridge::new(
        state.calls.clone(),
        BridgeOptions {
            policy: Policy {
                mode: ApproveMode::Ask,
                ask: true,
            },
            ..BridgeOptions::default()
        },
    );
    let listening = bridge::listen(served.clone(), port, Some(token)).await?;
    let old = state
        .bridge
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .replace((served, listening));
    if let Some((_, l)) = old {
        l.stop.cancel();
    }
    Ok(())
}

fn stop(state: &AppState) {
    if let Some((_, l)) = state
        .bridge
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        l.stop.cancel();
    }
}

/// The bridge: on or off, where, its token, who is connected, what waits.
#[tauri::command]
#[specta::specta]
pub async fn bridge_status<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<BridgeStatus, ErrorInfo> {
    Ok(status(&state))
}

/// Turn the bridge on (on `port`) or off; kept for the next start.
#[tauri::command]
#[specta::specta]
pub async fn bridge_set<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    on: bool,
    port: u16,
) -> Result<BridgeStatus, ErrorInfo> {
    if on {
        start(&state, port).await?;
    } else {
        stop(&state);
    }
    bridge::keep(on, port)?;
    Ok(status(&state))
}

/// A new token: clients with the old one are refused from now on.
#[tauri::command]
#[specta::specta]
pub async fn bridge_new_token<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<BridgeStatus, ErrorInfo> {
    bridge::new_token()?;
    let running = state
        .bridge
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|(_, l)| l.addr.port());
    if let Some(port) = running {
        stop(&state);
        start(&state, port).await?;
    }
    Ok(status(&state))
}
