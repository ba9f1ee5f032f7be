//! Where sign-in starts: the server asked without a token, the way a
//! connection starts, until it answers 401 with its challenge.

use std::time::Instant;

use serde_json::{Value, json};

use super::Timeline;
use super::discover::{Challenge, parse_challenge};

/// One POST of the probe, recorded as a discovery step.
async fn probe_post(
    http: &reqwest::Client,
    server_url: &str,
    body: Value,
    session: Option<&str>,
    tl: &mut Timeline,
) -> Result<reqwest::Response, String> {
    let started = Instant::now();
    let version = if session.is_some() || body["method"] == "initialize" {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    let mut request = http
        .post(server_url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", version);
    if let Some(id) = session {
        request = request.header("Mcp-Session-Id", id);
    }
    let sent = request.body(body.to_string()).send().await;
    let method = body["method"].as_str().unwrap_or("?").to_string();
    let s = tl.push(
        "discovery",
        format!("POST {server_url} {method} (no token)"),
        started,
    );
    let r = sent.map_err(|e| format!("discovery: {}", crate::error::error_chain(&e)))?;
    s.status = Some(r.status().as_u16());
    let header = r
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    s.response = format!("www-authenticate: {header}");
    Ok(r)
}

/// Ask the server without a token, the way a connection starts (the
/// 2026-07-28 `server/discover`, then the 2025 `initialize`): its 401 says
/// where to sign in. A server that lets the handshake through unsigned is
/// asked for its tools next (in the session it gave), where such servers ask.
pub(crate) async fn probe(
    http: &reqwest::Client,
    server_url: &str,
    tl: &mut Timeline,
) -> Result<Challenge, String> {
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "mcp-workbench", "version": env!("CARGO_PKG_VERSION") } } });
    let challenged = |r: &reqwest::Response| {
        (r.status() == reqwest::StatusCode::UNAUTHORIZED).then(|| {
            parse_challenge(
                r.headers()
                    .get("www-authenticate")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or(""),
            )
        })
    };
    let discover = json!({ "jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {} });
    let r = probe_post(http, server_url, discover, None, tl).await?;
    if let Some(c) = challenged(&r) {
        return Ok(c);
    }
    if r.status().is_success() {
        drop(r);
        let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {} });
        let r = probe_post(http, server_url, list, None, tl).await?;
        if let Some(c) = challenged(&r) {
            return Ok(c);
        }
    }
    let r = probe_post(http, server_url, init, None, tl).await?;
    if let Some(c) = challenged(&r) {
        return Ok(c);
    }
    if r.status().is_success() {
        let session = r
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        drop(r);
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let r = probe_post(http, server_url, initialized, session.as_deref(), tl).await?;
        if let Some(c) = challenged(&r) {
            return Ok(c);
        }
        let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
        let r = probe_post(http, server_url, list, session.as_deref(), tl).await?;
        if let Some(c) = challenged(&r) {
            return Ok(c);
        }
        return Err(format!(
            "discovery: the server answered initialize and tools/list ({}) without a token: it does not ask for sign-in",
            r.status()
        ));
    }
    Err(format!(
        "discovery: the server answered {} without a token: it does not ask for sign-in",
        r.status()
    ))
}
