//! The app's bridge: every Ready server's tools as one MCP server on
//! 127.0.0.1 with the install's token, off until the person turns it on (the
//! choice and port are kept in the settings file, so it comes back on at the
//! next start). Calls no standing rule allows are asked in the window (the
//! Bridge panel lists them); every call shows in the traffic view under
//! `bridge ← CLIENT`. Snippets for other clients come from the exporters.

use crate::wire::ToWire;
use std::sync::Mutex;

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::bridge::{self, Bridge};

use crate::state::AppState;

/// The bridge while it runs.
#[derive(Default)]
pub struct Running(Mutex<Option<(Bridge, bridge::Listening)>>);

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct BridgeStatus {
    pub on: bool,
    pub port: u16,
    pub url: Option<String>,
    pub token: Option<String>,
    pub callers: Vec<crate::wire::CallerInfo>,
    /// Bridge calls waiting for a decision here (decide with `decide_call`).
    pub pending: Vec<crate::wire::Approval>,
    pub snippets: Vec<crate::wire::Snippet>,
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
                    .map(|t| bridge::snippets(&url, t).wire())
                    .unwrap_or_default(),
                url: Some(url),
                token,
                callers: bridge.callers().list().wire(),
                pending: bridge::pending(&state.agent).wire(),
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
    let (served, listening) = bridge::windowed(&state.calls, port).await?;
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
) -> Result<BridgeStatus, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(status(&state)) }.await)
}

/// Turn the bridge on (on `port`) or off; kept for the next start.
#[tauri::command]
#[specta::specta]
pub async fn bridge_set<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    on: bool,
    port: u16,
) -> Result<BridgeStatus, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            if on {
                start(&state, port).await?;
            } else {
                stop(&state);
            }
            bridge::keep(on, port)?;
            Ok(status(&state))
        }
        .await,
    )
}

/// A new token: clients with the old one are refused from now on.
#[tauri::command]
#[specta::specta]
pub async fn bridge_new_token<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<BridgeStatus, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
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
        .await,
    )
}

crate::wire::as_is!(BridgeStatus);
