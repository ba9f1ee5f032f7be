use std::path::Path;
use std::process::Stdio;

use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

/// A demo server on an ephemeral loopback port; killed on drop.
pub struct HttpServer {
    child: std::process::Child,
    pub addr: String,
    _dir: tempfile::TempDir,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn start_http(extra: &[&str]) -> HttpServer {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("addr");
    let child = std::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .args(extra)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let addr = wait_for_file(&port_file).await;
    HttpServer {
        child,
        addr,
        _dir: dir,
    }
}

async fn wait_for_file(path: &Path) -> String {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the demo server did not write {}", path.display());
}

async fn connect_http(addr: &str, token: Option<&str>) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"));
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport =
        StreamableHttpClientTransport::with_client(workbench_http::client().unwrap(), config);
    tokio::time::timeout(TIMEOUT, TestClient::default().serve(transport))
        .await
        .map_err(|_| "timed out".to_string())?
        .map_err(|e| e.to_string())
}

/// The status code of a bare POST /mcp without credentials.
async fn raw_status(addr: &str) -> u16 {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn streamable_http_with_a_bearer_token() {
    let server = start_http(&["--token", "s3cret", "--name", "demo-http"]).await;
    assert!(
        server.addr.starts_with("127.0.0.1:"),
        "loopback only: {}",
        server.addr
    );
    assert_eq!(raw_status(&server.addr).await, 401);
    assert!(connect_http(&server.addr, Some("wrong")).await.is_err());

    let client = connect_http(&server.addr, Some("s3cret")).await.unwrap();
    let info = serde_json::to_value(client.peer_info().unwrap()).unwrap();
    assert_eq!(info["serverInfo"]["name"], "demo-http");
    let echo = client
        .call_tool(call("echo", json!({ "message": "over http" })))
        .await
        .unwrap();
    assert_eq!(text_of(&echo), "over http");
    client.cancel().await.unwrap();
}

/// POST one JSON-RPC message; returns the status and the raw head + body.
async fn raw_post(addr: &str, session: Option<&str>, body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response).to_string();
    (
        text.split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap_or(0),
        text,
    )
}

#[tokio::test]
async fn drop_session_fault_answers_404_to_a_session_after_its_first_call() {
    let server = start_http(&["--fault", "drop-session", "--legacy"]).await;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let (status, head) = raw_post(&server.addr, None, init).await;
    assert_eq!(status, 200, "{head}");
    let session = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l[15..].trim().to_string())
        })
        .expect("a session id");
    let (status, _) = raw_post(
        &server.addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert!(status == 202 || status == 200, "{status}");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}"#;
    let (status, body) = raw_post(&server.addr, Some(&session), call).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = raw_post(&server.addr, Some(&session), call).await;
    assert_eq!(status, 404, "the session is forgotten after its first call");
    // A new session works.
    let (status, _) = raw_post(&server.addr, None, init).await;
    assert_eq!(status, 200);
}
