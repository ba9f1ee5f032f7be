//! `mcpwb tap --to URL`: an HTTP reverse proxy that changes nothing. A
//! hand-written upstream writes down each request as it arrived and answers
//! with bytes the test chose; the test compares both sides: method, path,
//! query, headers and body as the host sent them, status, headers and body
//! as the server wrote them (an SSE stream in pieces, a 401 challenge, a
//! 50 MB body). The official Python SDK's client runs through the tap to the
//! demo server in both eras.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::http_upstream::{Answer, HttpTap, end_to_end, send, upstream};
use super::tap::in_home;
use super::{BIN, demo_server, http_demo};

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
    let list = sessions_listed(dir.path());
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
fn an_http_tap_that_keeps_nothing_passes_each_exchange_and_keeps_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let answer = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"up","version":"1"}}}"#;
    let (up, seen) = upstream(vec![Answer {
        status: "200 OK",
        headers: vec![
            ("content-type", "application/json".into()),
            ("content-length", answer.len().to_string()),
            ("mcp-session-id", "s-9".into()),
        ],
        pieces: vec![answer.to_vec()],
    }]);
    let mut tap = HttpTap::start_with(dir.path(), &format!("http://{up}/mcp"), &["--no-record"]);
    let (addr, token, path) = tap.parts();
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-host","version":"1"}}}"#;
    let head = format!(
        "POST /{token}{path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer host-secret-9\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        init.len()
    );
    let answered = send(&addr, &head, init);
    let arrived = seen.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(arrived.body, init);
    assert_eq!(arrived.headers["authorization"], "Bearer host-secret-9");
    assert_eq!(answered.start, "HTTP/1.1 200 OK");
    assert_eq!(answered.body, answer);
    tap.stop();
    let list = sessions_listed(dir.path());
    assert_eq!(list["sessions"], serde_json::json!([]), "{list}");
}

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
    let list = sessions_listed(dir.path());
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
    let list = sessions_listed(dir.path());
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
    // The list as printed (not read back): what a person sees.
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

/// What `mcpwb session list --json` says in the home `dir`.
fn sessions_listed(dir: &std::path::Path) -> Value {
    let out = in_home(dir)
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}
