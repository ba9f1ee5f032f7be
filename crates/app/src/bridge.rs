//! The bridge: every server's tools as one MCP server, over loopback HTTP
//! with the install's token (the window's Bridge room, `mcpwb serve --http`)
//! or stdio (`mcpwb serve`), or `mcpwb serve --attach` relaying to the
//! window's. Where it listens and whether it is on are the person's
//! settings; the token lives in the keychain. The window and `mcpwb serve`
//! adapt these.

use workbench_bridge::settings::{self, BridgeSettings};
use workbench_core::ErrorInfo;
use workbench_core::config::secrets::Keychain;
use workbench_core::settings::{SettingsFile, default_path};

pub use workbench_agent::Approval;
pub use workbench_bridge::http::Listening;
pub use workbench_bridge::own::{Answer, OwnTools};
pub use workbench_bridge::reach::Reach;
pub use workbench_bridge::{Bridge, BridgeOptions, CallerInfo, Policy};
pub use workbench_calls::ApproveMode;

fn file() -> SettingsFile {
    SettingsFile::new(default_path())
}

/// Whether the bridge is on at start, and its port (the person's settings).
pub fn settings() -> BridgeSettings {
    BridgeSettings::load(&file())
}

/// Keep whether the bridge is on, and its port, for the next start.
pub fn keep(on: bool, port: u16) -> Result<(), ErrorInfo> {
    Ok(BridgeSettings::save(
        &file(),
        &BridgeSettings { enabled: on, port },
    )?)
}

/// The install's token (made and kept in the keychain on first use).
pub fn token() -> Result<String, ErrorInfo> {
    Ok(settings::token(
        &Keychain::app(),
        &workbench_core::settings::keychain_lock(),
    )?)
}

/// The token if one was made.
pub fn token_if_made() -> Result<Option<String>, ErrorInfo> {
    Ok(Keychain::app().get(settings::TOKEN_ID)?)
}

/// A new token: clients with the old one are refused from now on (a
/// bridge that listens must be started again to take it).
pub fn new_token() -> Result<(), ErrorInfo> {
    Ok(Keychain::app().set(settings::TOKEN_ID, &workbench_bridge::http::new_token())?)
}

/// Serve `bridge` on 127.0.0.1:`port` (0: any free one), callers showing
/// `token` (None: no token — test clients only, said by the caller).
pub async fn listen(
    bridge: Bridge,
    port: u16,
    token: Option<String>,
) -> Result<Listening, ErrorInfo> {
    workbench_bridge::http::serve(bridge, port, token)
        .await
        .map_err(|e| ErrorInfo::refused(format!("cannot listen on 127.0.0.1:{port}: {e}")))
}

/// Relay stdio to the window's own bridge at `url` (None: where its
/// settings say it listens), with the install's token; only a loopback
/// address over plain http is taken.
pub async fn attach(url: Option<&str>) -> Result<(), ErrorInfo> {
    let url = match url.filter(|u| !u.is_empty()) {
        Some(u) => u.to_string(),
        None => format!("http://127.0.0.1:{}/mcp", settings().port),
    };
    if let Some(why) = workbench_core::connect::own_bridge::refuse(&url) {
        return Err(crate::invalid(why));
    }
    let token = token_if_made()?;
    workbench_bridge::attach::relay(&url, token).await
}

/// What `mcpwb serve` serves.
pub struct Headless {
    /// Only these servers' tools (none: every server's).
    pub only: Vec<String>,
    /// Only tools matching these patterns (none: every tool).
    pub tools: Vec<String>,
    pub policy: Policy,
    /// With one server: its own names, no `server__` prefix.
    pub bare: bool,
    /// The workbench's own tools beside (or instead of: `own_only`).
    pub own: Option<std::sync::Arc<dyn workbench_bridge::own::OwnTools>>,
    pub own_only: bool,
}

/// The bridge `mcpwb serve` runs (no window to ask the person: a call no
/// rule decides follows `policy`), once the servers settled (10 s at most).
pub async fn headless(calls: &workbench_calls::Calls, h: Headless) -> Bridge {
    let served = Bridge::new(
        calls.clone(),
        BridgeOptions {
            only: h.only,
            tools: h.tools,
            policy: h.policy,
            headless: true,
            bare: h.bare,
            own: h.own,
            own_only: h.own_only,
        },
    );
    served.settled(std::time::Duration::from_secs(10)).await;
    served
}

/// The questions servers ask that a bridge takes (it passes them to its
/// caller): sampling and elicitation both.
pub fn takes_asks() -> workbench_core::asks::Offers {
    workbench_core::asks::Offers {
        sampling: true,
        elicitation: true,
    }
}

/// The servers' stderr as it comes, each line with its server's name
/// (`line`), and how many were skipped when the reader fell behind
/// (`skipped`): a client that launched `mcpwb serve` logs it.
pub fn forward_stderr(
    wb: &workbench_core::Workbench,
    line: impl Fn(&str, &str) + Send + 'static,
    skipped: impl Fn(u64) + Send + 'static,
) {
    let mut stderr = wb.traffic().subscribe_stderr();
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match stderr.recv().await {
                Ok(e) => line(&e.server, &e.body),
                Err(RecvError::Lagged(n)) => skipped(n),
                Err(RecvError::Closed) => return,
            }
        }
    });
}

/// A ready-made entry for another client.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Snippet {
    /// The client's name as people know it.
    pub client: String,
    /// `http` (this bridge, with the token) or `stdio` (`mcpwb serve`).
    pub kind: String,
    pub text: String,
    /// What the export could not say, one sentence each.
    pub notes: Vec<String>,
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

/// Ready-made entries for other clients (Claude Code, Cursor, VS Code):
/// this bridge over HTTP with its token, or `mcpwb serve` over stdio.
pub fn snippets(url: &str, token: &str) -> Vec<Snippet> {
    let http = serde_json::json!({
        "type": "http",
        "url": url,
        "headers": { "Authorization": format!("Bearer {token}") }
    });
    let stdio = serde_json::json!({ "command": mcpwb_path(), "args": ["serve"] });
    let mut out = Vec::new();
    for (client, dialect) in [
        (
            "Claude Code",
            workbench_core::config::dialects::Dialect::ClaudeCode,
        ),
        ("Cursor", workbench_core::config::dialects::Dialect::Cursor),
        ("VS Code", workbench_core::config::dialects::Dialect::Vscode),
    ] {
        for (kind, entry) in [("http", &http), ("stdio", &stdio)] {
            let map = entry.as_object().cloned().unwrap_or_default();
            if let Ok(e) =
                workbench_core::config::dialects::export(dialect, &[("workbench".into(), map)], &[])
            {
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

/// The bridge's calls waiting for the person's decision in the window.
pub fn pending(agent: &workbench_agent::Agent) -> Vec<Approval> {
    agent.pending_approvals(workbench_bridge::policy::SESSION)
}

/// The window's bridge on 127.0.0.1:`port` with the install's token: a
/// call no standing rule decides waits for the person's answer in the
/// window. The rules are read live by the one call path: a tool denied in
/// Settings while the bridge runs is refused at once.
pub async fn windowed(
    calls: &workbench_calls::Calls,
    port: u16,
) -> Result<(Bridge, Listening), ErrorInfo> {
    let token = token()?;
    let served = Bridge::new(
        calls.clone(),
        BridgeOptions {
            policy: Policy {
                mode: ApproveMode::Ask,
                ask: true,
            },
            ..BridgeOptions::default()
        },
    );
    let listening = listen(served.clone(), port, Some(token)).await?;
    Ok((served, listening))
}
