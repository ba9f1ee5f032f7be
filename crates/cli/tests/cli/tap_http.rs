//! `mcpwb tap --to URL`: an HTTP reverse proxy that changes nothing. A
//! hand-written upstream writes down each request as it arrived and answers
//! with bytes the test chose; the test compares both sides: method, path,
//! query, headers and body as the host sent them, status, headers and body
//! as the server wrote them (an SSE stream in pieces, a 401 challenge, a
//! 50 MB body). The official Python SDK's client runs through the tap to the
//! demo server in both eras.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::tap::in_home;
use super::{BIN, demo_server, http_demo};

/// A running `mcpwb tap --to`; stopped (SIGTERM, so it keeps the sessions'
/// ends) on drop.
struct HttpTap {
    child: Child,
    url: String,
    stopped: bool,
}

impl HttpTap {
    fn start(dir: &Path, to: &str) -> HttpTap {
        let mut child = in_home(dir)
            .args(["--json", "tap", "--to", to])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let v: Value = serde_json::from_str(&first).unwrap_or_else(|_| panic!("{first}"));
        HttpTap {
            child,
            url: v["url"].as_str().unwrap().to_string(),
            stopped: false,
        }
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }

    /// `127.0.0.1:PORT`, the token, the server's path.
    fn parts(&self) -> (String, String, String) {
        let rest = self.url.strip_prefix("http://").unwrap();
        let (addr, path) = rest.split_once('/').unwrap();
        let (token, path) = path.split_once('/').unwrap();
        (addr.into(), token.into(), format!("/{path}"))
    }
}

impl Drop for HttpTap {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.1 message as it crossed a socket.
#[derive(Debug, Clone, PartialEq)]
struct Message {
    /// The request or status line.
    start: String,
    /// Lowercased names, values as sent; repeated names joined.
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

fn read_head(r: &mut BufReader<TcpStream>) -> Option<(String, BTreeMap<String, String>)> {
    let mut start = String::new();
    if r.read_line(&mut start).ok()? == 0 {
        return None;
    }
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        r.read_line(&mut line).ok()?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (n, v) = line.split_once(':').unwrap();
        headers
            .entry(n.trim().to_ascii_lowercase())
            .and_modify(|e: &mut String| {
                e.push_str(", ");
                e.push_str(v.trim());
            })
            .or_insert_with(|| v.trim().to_string());
    }
    Some((start.trim_end().to_string(), headers))
}

/// A body framed by Content-Length, chunks, or the connection's end.
fn read_body(r: &mut BufReader<TcpStream>, headers: &BTreeMap<String, String>) -> Vec<u8> {
    let mut body = Vec::new();
    if let Some(n) = headers.get("content-length") {
        body.resize(n.parse().unwrap(), 0);
        r.read_exact(&mut body).unwrap();
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|t| t == "chunked")
    {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if !headers.contains_key("content-length") && !headers.is_empty() {
        r.read_to_end(&mut body).unwrap();
    }
    body
}

/// What the upstream answers: status line, headers, the body in pieces
/// (written with a pause between).
struct Answer {
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    pieces: Vec<Vec<u8>>,
}

/// A server that writes down each request and answers each with the next
/// of `answers`, then closes the connection.
fn upstream(answers: Vec<Answer>) -> (String, mpsc::Receiver<Message>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for answer in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut r = BufReader::new(stream.try_clone().unwrap());
            let Some((start, headers)) = read_head(&mut r) else {
                return;
            };
            let body = if headers.contains_key("content-length")
                || headers.contains_key("transfer-encoding")
            {
                read_body(&mut r, &headers)
            } else {
                Vec::new()
            };
            let _ = tx.send(Message {
                start,
                headers,
                body,
            });
            let mut w = stream;
            let mut head = format!("HTTP/1.1 {}\r\n", answer.status);
            for (n, v) in &answer.headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("connection: close\r\n\r\n");
            w.write_all(head.as_bytes()).unwrap();
            for piece in &answer.pieces {
                w.write_all(piece).unwrap();
                w.flush().unwrap();
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    });
    (addr, rx)
}

/// Send `head` + `body` to `addr` raw; the answer as it came.
fn send(addr: &str, head: &str, body: &[u8]) -> Message {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut r = BufReader::new(s);
    let (start, headers) = read_head(&mut r).unwrap();
    let body = read_body(&mut r, &headers);
    Message {
        start,
        headers,
        body,
    }
}

/// Headers that belong to one hop (and the framing a proxy may redo).
fn end_to_end(h: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    h.iter()
        .filter(|(n, _)| {
            !matches!(
                n.as_str(),
                "connection"
                    | "transfer-encoding"
                    | "content-length"
                    | "host"
                    | "mcp-workbench-token"
                    | "date"
            )
        })
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}

#[test]
fn an_http_tap_passes_each_exchange_unchanged_and_keeps_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-host","version":"3.1"},"x-unknown":"\u00e9t\u00e9 ✓"}}"#.as_bytes();
    let sse_pieces = vec![
        b": a comment first\n\nid: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}\n\n".to_vec(),
        b"id: 8\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"up\",\"version\":\"1\"},\"x-future\":[1,2]}}\n\n".to_vec(),
    ];
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{}"}}}}}}"#,
        "x".repeat(50 * 1024 * 1024)
    );
    let (up, seen) = upstream(vec![
        Answer {
            status: "200 OK",
            headers: vec![
                ("content-type", "text/event-stream".into()),
                ("mcp-session-id", "s-1".into()),
                ("x-server-says", "kept as is".into()),
                ("cache-control", "no-cache".into()),
            ],
            pieces: sse_pieces.clone(),
        },
        Answer {
            status: "401 Unauthorized",
            headers: vec![
                (
                    "www-authenticate",
                    "Bearer resource_metadata=\"http://up.example/.well-known/oauth-protected-resource\"".into(),
                ),
                ("content-type", "application/json".into()),
                ("content-length", "17".into()),
            ],
            pieces: vec![b"{\"error\":\"login\"}".to_vec()],
        },
        Answer {
            status: "202 Accepted",
            headers: vec![("content-length", "0".into())],
            pieces: vec![],
        },
    ]);
    let mut tap = HttpTap::start(dir.path(), &format!("http://{up}/mcp?tenant=a"));
    let (addr, token, path) = tap.parts();
    assert_eq!(path, "/mcp?tenant=a");

    // Refused before anything reaches the server: no token, a wrong one, a
    // foreign Host, a web page's Origin.
    for (head, why) in [
        (
            format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"),
            "needs its token",
        ),
        (
            format!(
                "GET /wrong{path} HTTP/1.1\r\nhost: {addr}\r\nmcp-workbench-token: nope\r\nconnection: close\r\n\r\n"
            ),
            "wrong token",
        ),
        (
            format!(
                "GET /{token}{path} HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\n\r\n"
            ),
            "loopback Host",
        ),
        (
            format!(
                "GET /{token}{path} HTTP/1.1\r\nhost: {addr}\r\norigin: https://evil.example\r\nconnection: close\r\n\r\n"
            ),
            "web pages",
        ),
    ] {
        let got = send(&addr, &head, b"");
        assert!(got.start.contains("403"), "{}", got.start);
        let said = String::from_utf8_lossy(&got.body);
        assert!(said.contains(why), "{said}");
    }

    // 1. The handshake, token in the path: an SSE answer in two pieces.
    let head = format!(
        "POST /{token}{path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer host-secret-1\r\nmcp-method: initialize\r\nx-host-says: as is\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        init.len()
    );
    let answered = send(&addr, &head, init);
    let arrived = seen.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(arrived.start, "POST /mcp?tenant=a HTTP/1.1");
    assert_eq!(arrived.body, init);
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    for line in head.lines().skip(1).filter(|l| !l.is_empty()) {
        let (n, v) = line.split_once(':').unwrap();
        expected.insert(n.to_ascii_lowercase(), v.trim().to_string());
    }
    assert_eq!(end_to_end(&arrived.headers), end_to_end(&expected));
    assert_eq!(answered.start, "HTTP/1.1 200 OK");
    assert_eq!(
        answered.body,
        sse_pieces.concat(),
        "the SSE stream as written"
    );
    let mut written: BTreeMap<String, String> = BTreeMap::new();
    for (n, v) in [
        ("content-type", "text/event-stream"),
        ("mcp-session-id", "s-1"),
        ("x-server-says", "kept as is"),
        ("cache-control", "no-cache"),
    ] {
        written.insert(n.into(), v.into());
    }
    assert_eq!(end_to_end(&answered.headers), written);

    // 2. A 401 challenge, token in the header: passed as written.
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\nmcp-workbench-token: {token}\r\nmcp-session-id: s-1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        call.len()
    );
    let answered = send(&addr, &head, call);
    let arrived = seen.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(
        !arrived.headers.contains_key("mcp-workbench-token"),
        "the tap's token is not passed on"
    );
    assert_eq!(arrived.headers["mcp-session-id"], "s-1");
    assert_eq!(answered.start, "HTTP/1.1 401 Unauthorized");
    assert_eq!(answered.body, b"{\"error\":\"login\"}");
    assert!(answered.headers["www-authenticate"].contains("resource_metadata="));

    // 3. A 50 MB message passes whole.
    let head = format!(
        "POST /{token}{path} HTTP/1.1\r\nhost: {addr}\r\nmcp-session-id: s-1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        big.len()
    );
    let answered = send(&addr, &head, big.as_bytes());
    let arrived = seen.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(arrived.body == big.as_bytes(), "the 50 MB body changed");
    assert_eq!(answered.start, "HTTP/1.1 202 Accepted");

    tap.stop();
    // Kept: one session (s-1), the host named, each message, each
    // exchange's head with the credentials masked.
    let out = in_home(dir.path())
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{list}");
    let s = &sessions[0];
    assert_eq!(
        (&s["host"], &s["host_version"], &s["protocol"]),
        (
            &Value::from("raw-host"),
            &Value::from("3.1"),
            &Value::from("2025-11-25")
        )
    );
    let id = s["id"].as_i64().unwrap();
    let out = in_home(dir.path())
        .args(["session", "export", &id.to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let from = |who: &str| lines.iter().filter(|l| l["from"] == who).count();
    assert_eq!((from("host"), from("server")), (3, 2), "{text:.2000}");
    let big_kept = lines
        .iter()
        .find(|l| l["size"].as_u64() == Some(big.len() as u64))
        .expect("the 50 MB message is kept with its size");
    assert_eq!(big_kept["cut"], true);
    let heads: Vec<&Value> = lines
        .iter()
        .filter_map(|l| l["message"].get("http"))
        .collect();
    assert_eq!(heads.len(), 3);
    assert_eq!(
        heads
            .iter()
            .map(|h| h["status"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [200, 401, 202]
    );
    assert!(!text.contains("host-secret-1"), "Authorization is masked");
    assert_eq!(heads[0]["requestHeaders"]["x-host-says"], "as is");
    assert_eq!(
        heads[1]["responseBody"], "{\"error\":\"login\"}",
        "an error page is kept on its exchange"
    );
}

/// The official Python SDK's client as the host, through the tap over stdio
/// and over HTTP, in both eras: it works as it does straight, and each
/// connection is a session naming the SDK's client.
#[test]
fn the_python_sdk_as_a_host_works_through_the_tap_and_against_its_mock() {
    let Ok(python) = std::env::var("MCPWB_PYTHON") else {
        eprintln!("MCPWB_PYTHON is not set: the Python SDK host is not played");
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/tap/python_host.py"
    );
    let dir = tempfile::tempdir().unwrap();
    let demo = http_demo(dir.path(), &[]);
    let mut tap = HttpTap::start(dir.path(), &format!("http://{}/mcp", demo.addr));
    for mode in ["legacy", "auto"] {
        // The tap's own home reaches it through the SDK's environment.
        let home = in_home(dir.path());
        let out = Command::new(&python)
            .args([script, "stdio", mode, BIN, "tap", "--"])
            .arg(demo_server())
            .envs(home.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .output()
            .unwrap();
        let said = format!("{}{}", super::stdout(&out), super::stderr(&out));
        assert!(
            out.status.success() && said.contains("\"ok\": true"),
            "stdio {mode}: {said}"
        );
        let out = Command::new(&python)
            .args([script, "http", mode, &tap.url])
            .output()
            .unwrap();
        let said = format!("{}{}", super::stdout(&out), super::stderr(&out));
        assert!(
            out.status.success() && said.contains("\"ok\": true"),
            "http {mode}: {said}"
        );
    }
    tap.stop();
    let out = in_home(dir.path())
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = list["sessions"].as_array().unwrap();
    // Two stdio connections, and over HTTP: the legacy session and the
    // 2026 era's requests (no session id) kept together.
    assert!(sessions.len() >= 4, "{list}");
    for s in sessions {
        assert!(s["messages"].as_i64().unwrap() > 6, "{s}");
    }
    let protocols: Vec<&str> = sessions
        .iter()
        .filter_map(|s| s["protocol"].as_str())
        .collect();
    assert!(protocols.contains(&"2025-11-25"), "{protocols:?}");
    assert!(protocols.iter().any(|p| *p > "2025-11-25"), "{protocols:?}");
    // The two eras of one host told apart by their fingerprints.
    let id_of = |era: &str| {
        sessions
            .iter()
            .find(|s| s["protocol"].as_str().is_some_and(|p| p.starts_with(era)))
            .unwrap()["id"]
            .to_string()
    };
    let out = in_home(dir.path())
        .args(["session", "compare", &id_of("2025"), &id_of("2026")])
        .output()
        .unwrap();
    let said = super::stdout(&out);
    assert!(said.contains("now calls server/discover"), "{said}");
    assert!(said.contains("no longer calls initialize"), "{said}");
    let out = in_home(dir.path())
        .args(["session", "hosts"])
        .output()
        .unwrap();
    let said = super::stdout(&out);
    assert!(
        said.contains("mcp@") && said.contains("4 session(s)"),
        "{said}"
    );
}

/// A legacy HTTP+SSE server (2024-11-05) through the tap, `mcpwb` as the
/// host: the `endpoint` event's path is given the token's segment so the
/// host's POSTs come back through the tap, and the call works.
#[test]
fn a_legacy_sse_server_works_through_the_tap_with_mcpwb_as_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("sse-addr");
    let mut server = Command::new(demo_server())
        .args(["--sse", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut addr = String::new();
    for _ in 0..400 {
        addr = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !addr.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let mut tap = HttpTap::start(dir.path(), &format!("http://{addr}/sse"));
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        serde_json::json!({ "mcpServers": { "old": { "type": "sse", "url": tap.url } } })
            .to_string(),
    )
    .unwrap();
    let out = in_home(dir.path())
        .arg("--config")
        .arg(&config)
        .args([
            "--trust",
            "call",
            "old",
            "echo",
            "--args",
            r#"{"message":"through an SSE tap"}"#,
        ])
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    tap.stop();
    assert!(
        out.status.success() && super::stdout(&out).contains("through an SSE tap"),
        "{}{}",
        super::stdout(&out),
        super::stderr(&out)
    );
    let out = in_home(dir.path())
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = list["sessions"][0]["id"]
        .as_i64()
        .expect("a session is kept");
    let out = in_home(dir.path())
        .args(["session", "export", &id.to_string()])
        .output()
        .unwrap();
    let text = super::stdout(&out);
    assert!(
        text.contains("\"endpoint\""),
        "the endpoint event is kept: {text:.3000}"
    );
    assert!(text.contains("through an SSE tap"), "{text:.3000}");
}

/// The review's play: an upstream URL with `?api_key=`, a host's bearer
/// token that the server echoes in its answer. The default exports (JSON
/// Lines and HAR) and the session list hold neither.
#[test]
fn the_masked_exports_keep_no_credential_of_the_url_or_an_echoed_header() {
    let dir = tempfile::tempdir().unwrap();
    let echoed = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"your auth was Bearer host_bearer_SECRETVALUE"}]}}"#;
    let (up, seen) = upstream(vec![Answer {
        status: "200 OK",
        headers: vec![
            ("content-type", "application/json".into()),
            ("content-length", echoed.len().to_string()),
        ],
        pieces: vec![echoed.to_vec()],
    }]);
    let mut tap = HttpTap::start(
        dir.path(),
        &format!("http://{up}/mcp?api_key=sk_live_QUERYSECRET&region=eu"),
    );
    let (addr, token, path) = tap.parts();
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}"#;
    let head = format!(
        "POST /{token}{path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nauthorization: Bearer host_bearer_SECRETVALUE\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        call.len()
    );
    let answered = send(&addr, &head, call);
    assert_eq!(answered.body, echoed, "the answer passes unchanged");
    let arrived = seen.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(
        arrived.start.contains("api_key=sk_live_QUERYSECRET"),
        "the key reaches the server"
    );
    tap.stop();
    let list = in_home(dir.path())
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let list_text = String::from_utf8_lossy(&list.stdout).to_string();
    let listed: Value = serde_json::from_str(&list_text).unwrap();
    let id = listed["sessions"][0]["id"]
        .as_i64()
        .expect(&list_text)
        .to_string();
    let jsonl = in_home(dir.path())
        .args(["session", "export", &id])
        .output()
        .unwrap();
    let har = in_home(dir.path())
        .args(["session", "export", &id, "--har"])
        .output()
        .unwrap();
    for (what, text) in [
        ("list", list_text),
        ("jsonl", String::from_utf8_lossy(&jsonl.stdout).to_string()),
        ("har", String::from_utf8_lossy(&har.stdout).to_string()),
    ] {
        assert!(!text.is_empty(), "{what} is empty");
        assert!(
            !text.contains("QUERYSECRET"),
            "{what} keeps the URL's key: {text:.3000}"
        );
        assert!(
            !text.contains("host_bearer_SECRETVALUE"),
            "{what} keeps the echoed token: {text:.3000}"
        );
    }
    let har: Value = serde_json::from_slice(&har.stdout).unwrap();
    let query = &har["log"]["entries"][0]["request"]["queryString"];
    assert!(query.to_string().contains("region"), "{query}");
}
