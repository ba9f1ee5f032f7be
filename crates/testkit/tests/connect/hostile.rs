//! Hostile servers, played for real: what a server writes cannot grow the
//! workbench's memory without bound, stop it reading, or take another
//! server down.

use std::time::{Duration, Instant};

use serde_json::json;
use workbench_core::CallOptions;

use super::faults::{healthy_still_works, with_healthy};
use super::*;
use workbench_core::testing::RawCalls;

async fn echo(wb: &Workbench, server: &str, text: &str) -> String {
    let out = wb
        .call_tool(
            server,
            "echo",
            json!({ "message": text }),
            CallOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{server}: {e}"));
    out.result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// This process's resident memory, from /proc.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

#[tokio::test]
async fn bytes_that_are_not_utf8_on_stderr_do_not_stop_the_drain() {
    let (wb, _dir) = with_healthy(stdio("bad", &["--fault", "bad-stderr"])).await;
    ready(&wb, "bad").await;
    // The line after the bad bytes arrives: the drain went on.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines = wb.traffic().last_stderr("bad", 10);
        if lines.iter().any(|l| l.contains("after the bad bytes")) {
            let bad = lines.iter().find(|l| l.contains("not utf-8")).unwrap();
            assert!(bad.contains('\u{fffd}'), "decoded lossily: {bad:?}");
            break;
        }
        assert!(Instant::now() < deadline, "the drain stopped: {lines:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // And the server keeps working (its stderr is still read).
    for i in 0..5 {
        assert_eq!(echo(&wb, "bad", &i.to_string()).await, i.to_string());
    }
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_one_gigabyte_stderr_line_is_capped_and_memory_stays_bounded() {
    let before = rss_bytes();
    let (wb, _dir) = with_healthy(stdio("huge", &["--fault", "huge-stderr-line"])).await;
    ready(&wb, "huge").await;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut peak = before;
    loop {
        peak = peak.max(rss_bytes());
        let lines = wb.traffic().last_stderr("huge", 3);
        if lines.iter().any(|l| l.contains("the huge line has ended")) {
            let capped = lines
                .iter()
                .find(|l| l.starts_with("xxx"))
                .expect("the capped line");
            assert!(capped.len() < 70 * 1024, "kept {} bytes", capped.len());
            assert!(
                capped.contains("more bytes of this line dropped"),
                "says what was dropped"
            );
            break;
        }
        assert!(Instant::now() < deadline, "the line never ended: {lines:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let grew = peak.saturating_sub(before);
    println!(
        "RSS grew by {} MiB while 1 GiB went by on stderr",
        grew >> 20
    );
    // Other tests of this binary run alongside: allow them room, not a gigabyte.
    assert!(grew < 300 << 20, "memory grew by {} MiB", grew >> 20);
    assert_eq!(echo(&wb, "huge", "still here").await, "still here");
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// Past maxMessageSize (16 MiB unless the entry says otherwise) a message
/// is refused with a reason that names the key: the reader never holds
/// more than the limit, whatever the server sends.
#[tokio::test]
async fn a_message_over_max_message_size_ends_the_connection_with_a_clear_reason() {
    let (wb, _dir) = with_healthy(stdio("huge", &["--fault", "huge-result"])).await;
    ready(&wb, "huge").await;
    let e = wb
        .call_tool(
            "huge",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .expect_err("a 20 MB answer is over the default 16 MiB");
    println!("call failed: {e}");
    let h = wb.server("huge").unwrap();
    let down = h
        .wait_for(Duration::from_secs(10), |s| {
            !matches!(s, workbench_core::connect::ServerState::Ready)
        })
        .await;
    let said = wb.traffic().last_notes("huge", 5).join("\n");
    assert!(said.contains("maxMessageSize"), "{said} / {down:?}");
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// A loopback server on its own port that records every request's headers
/// (the "foreign origin" credentials must never reach) and answers 404.
struct Recorder {
    addr: std::net::SocketAddr,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    _stop: tokio_util::sync::DropGuard,
}

pub async fn serve(app: axum::Router) -> (std::net::SocketAddr, tokio_util::sync::DropGuard) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let until = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move { until.cancelled().await })
            .await;
    });
    (addr, stop.drop_guard())
}

async fn recorder() -> Recorder {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let log = log.clone();
        async move {
            let headers: Vec<String> = req
                .headers()
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or("?")))
                .collect();
            log.lock().unwrap().push(format!(
                "{} {} [{}]",
                req.method(),
                req.uri(),
                headers.join("; ")
            ));
            axum::http::StatusCode::NOT_FOUND
        }
    });
    let (addr, stop) = serve(app).await;
    Recorder {
        addr,
        seen,
        _stop: stop,
    }
}

fn remote(name: &str, kind: &str, url: &str) -> (String, Value) {
    (
        name.to_string(),
        json!({
            "type": kind,
            "url": url,
            "headers": { "Authorization": "Bearer s3cret-token", "X-Api-Key": "k3y-value" }
        }),
    )
}

async fn failure_reason(wb: &Workbench, name: &str) -> String {
    let s = wb
        .server(name)
        .unwrap()
        .wait_for(Duration::from_secs(20), |s| {
            matches!(
                s,
                workbench_core::connect::ServerState::Failed { .. }
                    | workbench_core::connect::ServerState::Restarting { .. }
            )
        })
        .await
        .expect("the server should fail");
    format!("{:?}", s.state)
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_and_no_header_goes_there() {
    let foreign = recorder().await;
    let target = format!("http://{}/mcp", foreign.addr);
    let app = axum::Router::new().fallback(move || {
        let target = target.clone();
        async move {
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, target)],
            )
        }
    });
    let (origin, _stop) = serve(app).await;
    let url = format!("http://{origin}/mcp");
    let (wb, _dir) = with_healthy(remote("redirected", "http", &url)).await;
    let reason = failure_reason(&wb, "redirected").await;
    assert!(reason.contains("another origin"), "{reason}");
    assert!(!reason.contains("s3cret"), "{reason}");
    assert_eq!(*foreign.seen.lock().unwrap(), Vec::<String>::new());
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_legacy_sse_endpoint_on_another_origin_is_refused_and_no_header_goes_there() {
    let foreign = recorder().await;
    let endpoint = format!("http://{}/messages?session=1", foreign.addr);
    let app = axum::Router::new().route(
        "/sse",
        axum::routing::get(move || {
            let endpoint = endpoint.clone();
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
                    format!("event: endpoint\ndata: {endpoint}\n\n"),
                )
            }
        }),
    );
    let (origin, _stop) = serve(app).await;
    let url = format!("http://{origin}/sse");
    let (wb, _dir) = with_healthy(remote("foreign-endpoint", "sse", &url)).await;
    let reason = failure_reason(&wb, "foreign-endpoint").await;
    assert!(reason.contains("another origin"), "{reason}");
    assert_eq!(*foreign.seen.lock().unwrap(), Vec::<String>::new());
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn an_authorization_header_over_plain_http_to_another_host_is_refused_unless_allowed() {
    // 192.0.2.1 (TEST-NET-1) is not this machine; nothing is sent to it.
    let (wb, _dir) = with_healthy(remote("insecure", "http", "http://192.0.2.1:9/mcp")).await;
    let reason = failure_reason(&wb, "insecure").await;
    assert!(
        reason.contains("plain http") && reason.contains("allowInsecure"),
        "{reason}"
    );
    wb.shutdown().await;
    // With "allowInsecure": true the workbench tries (and cannot reach it).
    let (name, mut entry) = remote("allowed", "http", "http://192.0.2.1:9/mcp");
    entry["allowInsecure"] = json!(true);
    entry["startupTimeout"] = json!(2);
    let (wb, _dir) = with_healthy((name, entry)).await;
    let reason = failure_reason(&wb, "allowed").await;
    assert!(!reason.contains("allowInsecure"), "{reason}");
    wb.shutdown().await;
}

/// A server that says its secret back in a log message: the window's log
/// console gets it masked, as the traffic log does.
#[tokio::test]
async fn a_secret_a_server_says_back_in_a_log_message_is_masked() {
    let (name, mut entry) = stdio("echoer", &[]);
    entry["env"] = json!({ "API_TOKEN": "s3cr3t-value-4242" });
    let (wb, _dir) = with_healthy((name, entry)).await;
    ready(&wb, "echoer").await;
    let mut rx = wb.subscribe();
    wb.call_tool(
        "echoer",
        "log",
        json!({ "level": "error", "message": "my token is s3cr3t-value-4242" }),
        CallOptions::default(),
    )
    .await
    .unwrap();
    let data = loop {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
            Ok(Ok(workbench_core::events::Event::ServerLog { server, data, .. }))
                if server == "echoer" =>
            {
                break data;
            }
            Ok(_) => {}
            Err(_) => panic!("no log message arrived"),
        }
    };
    assert!(
        data.contains("my token is") && !data.contains("s3cr3t-value-4242"),
        "{data}"
    );
    for e in wb.traffic().entries(Some("echoer")) {
        assert!(!e.body.contains("s3cr3t-value-4242"), "{}", e.body);
    }
    wb.shutdown().await;
}

/// A server that says back the command line and environment it was started
/// with: the secrets in them — from the keychain, from the environment,
/// in an argument — reach neither the traffic log (messages and stderr)
/// nor its exports, nor the log lines.
#[tokio::test]
async fn a_server_telling_its_args_and_env_back_shows_no_secret() {
    use workbench_core::config::secrets::{Backend, Keychain};
    let ns = format!("mcpwb-test-teller-{}", std::process::id());
    let kc = Keychain::new(&ns, Backend::KernelKeyring);
    kc.set("teller/args/token", "kc-arg-secret-9911").unwrap();
    let mut options = fast();
    options.supervisor.vars.keychain = Some(kc.clone());
    options.supervisor.vars.env = Some(
        [("SERVICE_API_KEY", "env-secret-7788"), ("PORT", "4321")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    let (name, mut entry) = stdio(
        "teller",
        &[
            "--fault",
            "tell-secrets",
            "--token",
            "${secret:teller/args/token}",
        ],
    );
    // A literal credential under a credential's name is masked; a plain
    // setting is not (masking `true` or a path would corrupt the output).
    entry["env"] = json!({ "K": "${SERVICE_API_KEY}", "DB_PASSWORD": "literal-pass-6655", "MODE": "verbose-mode-on" });
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[(name, entry)]);
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "teller").await;
    let told = echo(&wb, "teller", "anything").await;
    // It did say them (the call's own result is the caller's to see)…
    assert!(told.contains("kc-arg-secret-9911") && told.contains("env-secret-7788"));
    // …but nothing that leaves the core for a log or a view holds them.
    let secrets = ["kc-arg-secret-9911", "env-secret-7788", "literal-pass-6655"];
    let entries = wb.traffic().entries(Some("teller"));
    assert!(
        entries.iter().any(|e| e.body.contains("args:")),
        "the result was recorded"
    );
    for e in &entries {
        for s in secrets {
            assert!(!e.body.contains(s), "{s} in the traffic: {}", e.body);
        }
    }
    let everything = wb.traffic().mask_all(&format!("{told} {:?}", entries));
    for s in secrets {
        assert!(!everything.contains(s), "{s}: {everything}");
    }
    // What is not a secret stays readable, in the log too.
    assert!(told.contains("--fault tell-secrets"));
    assert!(
        entries
            .iter()
            .any(|e| e.body.contains("MODE=verbose-mode-on")),
        "a plain setting is not masked"
    );
    kc.delete("teller/args/token").unwrap();
    wb.shutdown().await;
}

/// A 400 MB result on one line: the reader stops at maxMessageSize, the
/// server is reported, memory does not follow the server's bytes.
#[tokio::test]
async fn a_400_mb_result_is_refused_at_the_limit_and_memory_stays_bounded() {
    let before = rss_bytes();
    let (wb, _dir) = with_healthy(stdio("giant", &["--fault", "giant-result"])).await;
    ready(&wb, "giant").await;
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_bytes(), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let e = wb
        .call_tool("giant", "echo", json!({}), CallOptions::default())
        .await
        .expect_err("400 MB is over the default 16 MiB");
    sampler.abort();
    let grew = peak
        .load(std::sync::atomic::Ordering::Relaxed)
        .saturating_sub(before);
    println!("call failed: {e}; RSS grew by {} MiB", grew >> 20);
    assert!(grew < 300 << 20, "memory grew by {} MiB", grew >> 20);
    let said = wb.traffic().last_notes("giant", 5).join("\n");
    assert!(said.contains("maxMessageSize"), "{said}");
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// 100,000 requests with an id no response can carry (`1.5`): the call
/// still gets its answer, the log of unanswered requests stays bounded,
/// the other server keeps working.
#[tokio::test]
async fn a_flood_of_requests_with_fractional_ids_leaves_the_client_working() {
    let (wb, _dir) = with_healthy(stdio("flood", &["--fault", "ping-flood"])).await;
    ready(&wb, "flood").await;
    let started = Instant::now();
    let out = wb
        .call_tool("flood", "echo", json!({}), CallOptions::default())
        .await;
    println!(
        "flood: {:?} after {:.1} s",
        out.as_ref().map(|o| &o.result),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        out.expect("the answer after the flood").result["content"][0]["text"],
        "after the flood"
    );
    assert!(
        wb.traffic().pending_len() <= workbench_core::traffic::MAX_PENDING,
        "{} requests waiting",
        wb.traffic().pending_len()
    );
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// An SSE stream that never ends its event (Streamable HTTP's POST answer,
/// the legacy transport's GET stream): the client stops reading at
/// maxMessageSize and says so; it does not buffer what the server sends.
#[tokio::test]
async fn an_sse_event_that_never_ends_is_cut_at_the_limit() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let sent = std::sync::Arc::new(AtomicU64::new(0));
    let counter = sent.clone();
    let app = axum::Router::new().fallback(move || {
        let counter = counter.clone();
        async move {
            let block = bytes::Bytes::from(vec![b'x'; 1 << 20]);
            let first = futures::stream::once(async {
                Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"data: "))
            });
            let endless = futures::stream::repeat_with(move || {
                counter.fetch_add(1 << 20, Ordering::Relaxed);
                Ok(block.clone())
            });
            (
                [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
                axum::body::Body::from_stream(futures::StreamExt::chain(first, endless)),
            )
        }
    });
    let (addr, _stop) = serve(app).await;
    for kind in ["http", "sse"] {
        sent.store(0, Ordering::Relaxed);
        let name = format!("endless-{kind}");
        let entry =
            json!({ "type": kind, "url": format!("http://{addr}/mcp"), "maxMessageSize": 4 << 20 });
        let (wb, _dir) = with_healthy((name.clone(), entry)).await;
        let reason = failure_reason(&wb, &name).await;
        let mib = sent.load(Ordering::Relaxed) >> 20;
        println!("{kind}: {reason} after the server sent {mib} MiB");
        assert!(reason.contains("maxMessageSize"), "{kind}: {reason}");
        // The limit is 4 MiB; what sits in socket buffers is the rest.
        assert!(mib < 64, "{kind}: the server got to send {mib} MiB");
        healthy_still_works(&wb).await;
        wb.shutdown().await;
    }
}

/// Waits until `ok` holds of the workbench, for up to `secs`.
async fn until(secs: u64, what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A tool list that never ends (8 MiB pages, a new cursor each) is read up
/// to the catalog's limit, then stopped with the reason in the server's
/// events; memory stays bounded and the server and the others work on.
#[tokio::test]
async fn a_list_that_never_ends_stops_at_the_limit_and_says_so() {
    let before = rss_bytes();
    let (wb, _dir) = with_healthy(stdio("pages", &["--fault", "endless-pages"])).await;
    ready(&wb, "pages").await;
    let server = wb.server("pages").unwrap();
    until(60, "the reason never came", || {
        server.life().iter().any(|e| e.state == "catalog")
    })
    .await;
    let said = server
        .life()
        .into_iter()
        .find(|e| e.state == "catalog")
        .unwrap();
    let reason = said.reason.unwrap_or_default();
    assert!(
        reason.contains("limit") && reason.contains("MiB"),
        "{reason}"
    );
    let grew = rss_bytes().saturating_sub(before);
    assert!(grew < 400 << 20, "memory grew by {} MiB", grew >> 20);
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// 20,000 `tools/list_changed` in a row make a couple of list refreshes,
/// not 20,000 (one runs, at most one more waits).
#[tokio::test]
async fn a_flood_of_list_changed_makes_a_few_refreshes_not_one_each() {
    let (wb, _dir) = with_healthy(stdio("churn", &["--fault", "list-changed-flood"])).await;
    ready(&wb, "churn").await;
    assert_eq!(echo(&wb, "churn", "x").await, "after the flood");
    let lists = || {
        wb.traffic()
            .query(&workbench_core::traffic::TrafficQuery {
                server: Some("churn".into()),
                method: Some("tools/list".into()),
                direction: Some(workbench_core::traffic::Direction::Outgoing),
                limit: 100_000,
                ..Default::default()
            })
            .total
    };
    // Let whatever refreshes the flood caused run out.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let asked = lists();
    println!("tools/list asked {asked} times after 20,000 list_changed");
    assert!(asked <= 6, "{asked} refreshes");
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

/// 8,000 tools of one name: one tool under it, the repeat reported once,
/// and qualification stays linear (the quadratic version took 111 s).
#[tokio::test]
async fn duplicate_tool_names_are_kept_once_and_reported() {
    let (wb, _dir) = with_healthy(stdio("dups", &["--fault", "duplicate-tools"])).await;
    ready(&wb, "dups").await;
    until(30, "the catalog never filled", || {
        wb.catalog()
            .server("dups")
            .is_some_and(|c| !c.tools.is_empty())
    })
    .await;
    let cat = wb.catalog().server("dups").unwrap();
    let names: Vec<&str> = cat
        .tools
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["dup", "echo"]);
    assert_eq!(cat.duplicate_tools, ["dup"]);
    let qualified: Vec<String> = wb
        .catalog()
        .tools()
        .into_iter()
        .filter(|t| t.server == "dups")
        .map(|t| t.qualified)
        .collect();
    assert_eq!(qualified, ["dups__dup", "dups__echo"]);
    wb.shutdown().await;
}
