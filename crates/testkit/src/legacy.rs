//! The demo server as a server written before 2026-07-28 sees the world:
//! `server/discover` is an unknown method (JSON-RPC -32601) and the session
//! goes on, so a client must fall back to `initialize`.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Stdio pipes for rmcp that answer `server/discover` with "method not found"
/// before rmcp sees it.
pub fn stdio_without_discover() -> (DuplexStream, DuplexStream) {
    let (rmcp_read, mut to_rmcp) = tokio::io::duplex(1 << 20);
    let (from_rmcp, rmcp_write) = tokio::io::duplex(1 << 20);
    let (answers_tx, mut answers) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let parsed: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if parsed["method"] == "server/discover" {
                let answer = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": parsed["id"],
                    "error": { "code": -32601, "message": "Method not found: server/discover" }
                });
                let _ = answers_tx.send(answer.to_string());
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
