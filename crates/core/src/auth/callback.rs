//! The browser's way back (RFC 8252): a listener on 127.0.0.1 with a port
//! the system picks, for one matching callback; other requests get a 404.

use std::collections::HashMap;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub struct Callback {
    listener: TcpListener,
    pub redirect_uri: String,
}

const PAGE: &str = "<!doctype html><meta charset=utf-8><title>MCP Workbench</title>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Signed in</h1>\
<p>You can close this tab and go back to MCP Workbench.</p></body>";

impl Callback {
    pub async fn open() -> Result<Callback, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1 for the sign-in callback: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        Ok(Callback {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }

    /// Wait for the callback (its query parameters), then close.
    pub async fn wait(self, timeout: Duration) -> Result<HashMap<String, String>, String> {
        let accept = async {
            loop {
                let Ok((mut stream, _)) = self.listener.accept().await else {
                    continue;
                };
                let mut buf = vec![0u8; 8192];
                let n = match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
                    .await
                {
                    Ok(Ok(n)) => n,
                    _ => continue,
                };
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let target = head
                    .lines()
                    .next()
                    .and_then(|l| l.split_whitespace().nth(1))
                    .unwrap_or("")
                    .to_string();
                let Some(query) = target.strip_prefix("/callback") else {
                    let _ = stream
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    continue;
                };
                let params: HashMap<String, String> =
                    url::form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
                        .into_owned()
                        .collect();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
                let _ = stream.shutdown().await;
                return params;
            }
        };
        tokio::time::timeout(timeout, accept).await.map_err(|_| {
            format!(
                "callback: nobody came back from the sign-in page within {} s",
                timeout.as_secs()
            )
        })
    }
}
