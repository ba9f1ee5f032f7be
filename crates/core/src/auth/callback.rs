//! The browser's way back (RFC 8252): a listener on 127.0.0.1 with a port
//! the system picks, for one matching callback; other paths get a 404, and
//! a callback with another `state` (a forged or stale hit) gets an error
//! page while the listener keeps waiting for the real one.

use std::collections::HashMap;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub struct Callback {
    listener: TcpListener,
    pub redirect_uri: String,
}

const PAGE: &str = "<!doctype html><meta charset=utf-8><title>MCP Workbench</title>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Back in MCP Workbench</h1>\
<p>You can close this tab: MCP Workbench finishes the sign-in and says how it went.</p></body>";

const WRONG: &str = "<!doctype html><meta charset=utf-8><title>MCP Workbench</title>\
<body style=\"font-family:sans-serif;margin:3em\"><h1>Not this sign-in</h1>\
<p>This address is not the one MCP Workbench is waiting for (its state does not match). \
Nothing was done; the sign-in in progress goes on.</p></body>";

impl Callback {
    pub(crate) async fn open() -> Result<Callback, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1 for the sign-in callback: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        Ok(Callback {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }

    /// Wait for the callback that carries `state` (its query parameters),
    /// then close.
    pub(crate) async fn wait(
        self,
        timeout: Duration,
        state: &str,
    ) -> Result<HashMap<String, String>, String> {
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
                if params.get("state").map(String::as_str) != Some(state) {
                    let reply = format!(
                        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{WRONG}",
                        WRONG.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                    let _ = stream.shutdown().await;
                    tracing::warn!("sign-in callback with another state ignored; still waiting");
                    continue;
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn hit(uri: &str, query: &str) -> String {
        let addr = uri
            .trim_start_matches("http://")
            .trim_end_matches("/callback");
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(format!("GET /callback?{query} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    /// Played: a forged hit on the callback ended a real sign-in and the
    /// page said "Signed in". Now it is refused and the real one still lands.
    #[tokio::test]
    async fn a_callback_with_another_state_is_refused_and_the_wait_goes_on() {
        let cb = Callback::open().await.unwrap();
        let uri = cb.redirect_uri.clone();
        let waiting = tokio::spawn(cb.wait(Duration::from_secs(10), "the-real-state"));
        let forged = hit(&uri, "code=evil&state=guessed").await;
        assert!(forged.starts_with("HTTP/1.1 400"), "{forged}");
        assert!(forged.contains("Not this sign-in"));
        let none = hit(&uri, "code=evil").await;
        assert!(none.starts_with("HTTP/1.1 400"), "{none}");
        assert!(!waiting.is_finished(), "a forged hit ended the wait");
        let real = hit(&uri, "code=good&state=the-real-state").await;
        assert!(real.starts_with("HTTP/1.1 200"), "{real}");
        let params = waiting.await.unwrap().unwrap();
        assert_eq!(params["code"], "good");
    }
}
