//! The demo server as a server of one protocol era sees the world: rmcp
//! serves both, so a front on its stdio answers the other era's opening
//! request itself, before rmcp sees it.
//!
//! - [`stdio_without_discover`]: a server written before 2026-07-28:
//!   `server/discover` is an unknown method (JSON-RPC -32601) and the
//!   session goes on, so a client must fall back to `initialize`.
//! - [`stdio_modern_only`]: a server of 2026-07-28 only: `initialize` is
//!   refused with -32022 naming the versions it speaks, as the Python SDK's
//!   modern servers answer it.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Stdio pipes for rmcp that answer `server/discover` with "method not found".
pub fn stdio_without_discover() -> (DuplexStream, DuplexStream) {
    stdio_front(|message| {
        (message["method"] == "server/discover").then(|| {
            json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": { "code": -32601, "message": "Method not found: server/discover" }
            })
        })
    })
}

/// Stdio pipes for rmcp that refuse `initialize` (-32022, supported:
/// 2026-07-28 only).
pub fn stdio_modern_only() -> (DuplexStream, DuplexStream) {
    stdio_front(|message| {
        (message["method"] == "initialize").then(|| {
            json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {
                    "code": -32022,
                    "message": "this server speaks 2026-07-28 only: the initialize handshake is not accepted",
                    "data": {
                        "supported": ["2026-07-28"],
                        "requested": message["params"]["protocolVersion"]
                    }
                }
            })
        })
    })
}

/// Stdin and stdout through a front: a line `answer` has an answer for is
/// answered here and never reaches rmcp; the rest pass both ways.
fn stdio_front(
    answer: impl Fn(&Value) -> Option<Value> + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (rmcp_read, mut to_rmcp) = tokio::io::duplex(1 << 20);
    let (from_rmcp, rmcp_write) = tokio::io::duplex(1 << 20);
    let (answers_tx, mut answers) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let parsed: Value = serde_json::from_str(&line).unwrap_or_default();
            if let Some(answered) = answer(&parsed) {
                let _ = answers_tx.send(answered.to_string());
                continue;
            }
            if to_rmcp
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_rmcp).lines();
        loop {
            let line = tokio::select! {
                l = lines.next_line() => match l { Ok(Some(l)) => l, _ => break },
                a = answers.recv() => match a { Some(a) => a, None => continue },
            };
            if stdout
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });
    (rmcp_read, rmcp_write)
}
