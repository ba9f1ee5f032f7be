//! An entry may pin one protocol era: a server's developer tests it under
//! each. The traffic shows which handshake was used.

use serde_json::json;
use workbench_core::connect::ServerState;
use workbench_core::traffic::Direction;

use super::*;
use workbench_core::testing::RawCalls;

fn pinned(name: &str, pin: &str, args: &[&str]) -> (String, serde_json::Value) {
    let (name, mut entry) = stdio(name, args);
    entry["protocolVersion"] = json!(pin);
    (name, entry)
}

fn first_request(wb: &Workbench, server: &str) -> Option<String> {
    wb.traffic()
        .entries(Some(server))
        .iter()
        .find(|e| e.direction == Direction::Outgoing && e.method.is_some())
        .and_then(|e| e.method.as_deref().map(str::to_string))
}

/// Wait (past the probe's 10 s) until `name` is ready or has failed; it
/// must be ready. The protocol version it speaks.
async fn ready_after_the_probe(wb: &Workbench, name: &str) -> String {
    let s = wb
        .server(name)
        .unwrap()
        .wait_for(std::time::Duration::from_secs(40), |s| {
            matches!(
                s,
                ServerState::Ready | ServerState::Failed { .. } | ServerState::Restarting { .. }
            )
        })
        .await;
    let status = wb.server(name).unwrap().status();
    assert!(
        matches!(s.map(|s| s.state), Some(ServerState::Ready)),
        "{status:?}"
    );
    status.info.unwrap().protocol_version
}

/// `name` fails to connect (within 20 s).
async fn refused(wb: &Workbench, name: &str) {
    let failed = wb
        .server(name)
        .unwrap()
        .wait_for(std::time::Duration::from_secs(20), |s| {
            matches!(
                s,
                ServerState::Failed { .. } | ServerState::Restarting { .. }
            )
        })
        .await;
    assert!(failed.is_some(), "{:?}", wb.server(name).unwrap().status());
}

/// The methods of the requests sent, in order.
fn requests(traffic: &[std::sync::Arc<workbench_core::traffic::TrafficEntry>]) -> Vec<&str> {
    traffic
        .iter()
        .filter(|e| e.direction == Direction::Outgoing)
        .filter_map(|e| e.method.as_deref())
        .collect()
}

#[tokio::test]
async fn a_pinned_era_is_spoken_whatever_the_server_could_do() {
    let (wb, _dir) = start(&[
        pinned("old-way", "2025-11-25", &[]),
        pinned("new-way", "2026-07-28", &[]),
        pinned("auto", "auto", &[]),
        pinned("legacy-new", "2026-07-28", &["--legacy"]),
    ])
    .await;
    for n in ["old-way", "new-way", "auto"] {
        ready(&wb, n).await;
    }
    let version = |n: &str| {
        wb.server(n)
            .unwrap()
            .status()
            .info
            .unwrap()
            .protocol_version
    };
    // A modern server, asked the old way, answers the old way.
    assert_eq!(version("old-way"), "2025-11-25");
    assert_eq!(first_request(&wb, "old-way").as_deref(), Some("initialize"));
    assert_eq!(version("new-way"), "2026-07-28");
    assert_eq!(
        first_request(&wb, "new-way").as_deref(),
        Some("server/discover")
    );
    assert_eq!(version("auto"), "2026-07-28");
    // A 2025-11-25 server pinned to 2026-07-28 cannot connect, and says so.
    refused(&wb, "legacy-new").await;
    assert!(
        wb.server("old-way").unwrap().entry().protocol
            == workbench_core::config::ProtocolPin::V2025_11_25
    );
    wb.shutdown().await;
}

#[test]
fn an_unknown_era_is_a_clear_problem_at_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {"x": {"command": "y", "protocolVersion": "2024-01-01"}}}"#,
    )
    .unwrap();
    let config = workbench_core::config::ConfigFile::load(&path).unwrap();
    assert!(config.servers.is_empty());
    assert_eq!(config.problems[0].pointer, "/mcpServers/x/protocolVersion");
    assert!(
        config.problems[0]
            .message
            .contains("\"2025-11-25\", \"2026-07-28\" or \"auto\""),
        "{}",
        config.problems[0].message
    );
}

/// The workbench says it renders MCP Apps in both eras: in `initialize`'s
/// capabilities up to 2025-11-25, in each request's client capabilities
/// from 2026-07-28 on.
#[tokio::test]
async fn mcp_apps_are_declared_in_both_eras() {
    let (wb, _dir) = start(&[stdio("new", &[]), stdio("old", &["--legacy"])]).await;
    ready(&wb, "new").await;
    ready(&wb, "old").await;
    let ui = workbench_core::apps::UI_EXTENSION_ID;
    let init = sent(&wb, "old", "initialize").pop().expect("an initialize");
    assert_eq!(
        init["params"]["capabilities"]["extensions"][ui]["mimeTypes"],
        json!([workbench_core::apps::APP_MIME]),
        "{init}"
    );
    let listed = sent(&wb, "new", "tools/list").pop().expect("a tools/list");
    let caps = &listed["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(
        caps["extensions"][ui]["mimeTypes"],
        json!([workbench_core::apps::APP_MIME]),
        "{listed}"
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn the_health_check_is_a_method_the_servers_era_has() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[
            pinned("old-way", "2025-11-25", &[]),
            pinned("new-way", "2026-07-28", &[]),
        ],
    );
    let mut options = fast();
    options.supervisor.health_interval = Some(std::time::Duration::from_millis(150));
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "old-way").await;
    ready(&wb, "new-way").await;
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    let checks = |server: &str| {
        let mut methods: Vec<String> = wb
            .traffic()
            .entries(Some(server))
            .iter()
            .filter(|e| e.direction == Direction::Outgoing)
            .filter_map(|e| e.method.as_deref().map(str::to_string))
            .filter(|m| m == "ping" || m == "server/discover")
            .collect();
        methods.dedup();
        methods
    };
    // 2026-07-28 has no ping: the check is server/discover (the handshake's
    // own is the first of them), answered, so it stays ready.
    assert_eq!(checks("new-way"), ["server/discover"]);
    let discovers = wb
        .traffic()
        .entries(Some("new-way"))
        .iter()
        .filter(|e| {
            e.direction == Direction::Outgoing && e.method.as_deref() == Some("server/discover")
        })
        .count();
    assert!(discovers >= 3, "checked {discovers} time(s) in 700 ms");
    assert_eq!(checks("old-way"), ["ping"]);
    for n in ["old-way", "new-way"] {
        assert_eq!(
            wb.server(n).unwrap().status().state,
            ServerState::Ready,
            "{n}"
        );
    }
    wb.shutdown().await;
}

/// The era trap: a tool on the official Python SDK that asks with
/// `ctx.elicit` fails in the 2026-07-28 era (no server-initiated requests);
/// the failure says what happened and the two ways out, and the same
/// server pinned to 2025-11-25 asks the person as it was written to.
#[tokio::test]
async fn a_python_sdk_tool_that_asks_the_old_way_is_explained_in_the_new_era() {
    let dir = tempfile::tempdir().unwrap();
    let script = include_str!("../../../../tests/fixtures/sdk_elicit.py");
    let Some(new) = python_sdk_server(
        dir.path(),
        script,
        json!({ "protocolVersion": "2026-07-28" }),
    ) else {
        return;
    };
    let mut old = new.clone();
    old["protocolVersion"] = json!("2025-11-25");
    let cfg = config(
        dir.path(),
        &[("new".to_string(), new), ("old".to_string(), old)],
    );
    let wb = Workbench::start(&cfg, fast());
    ready(&wb, "new").await;
    ready(&wb, "old").await;
    let err = wb
        .call_tool("new", "confirm", json!({}), Default::default())
        .await
        .unwrap_err();
    let said = err.to_string();
    println!("{said}");
    assert_eq!(err.code(), workbench_core::ErrorCode::ServerError, "{said}");
    for part in [
        "elicitation/create",
        "2026-07-28",
        "\"protocolVersion\": \"2025-11-25\"",
        "input_required",
    ] {
        assert!(said.contains(part), "{part:?} missing from: {said}");
    }
    // Pinned to 2025-11-25 the question is put (and, with nobody to
    // answer here, declined): the tool answers, no trap.
    let out = wb
        .call_tool("old", "confirm", json!({}), Default::default())
        .await
        .unwrap();
    assert!(
        out.result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("answered:")),
        "{}",
        out.result
    );
    wb.shutdown().await;
}

/// rmcp waits 10 s for the era probe's answer, then asks `initialize` on
/// the same pipe. A 2025-11-25 server slower than that to start (npx
/// fetching a package the first time) then answers both: its late "method
/// not found" to the probe must not fail the handshake it then completes.
#[tokio::test]
async fn a_legacy_server_slower_to_start_than_the_probes_wait_still_connects() {
    let (wb, _dir) = start(&[stdio("late", &["--legacy", "--startup-delay-ms", "10500"])]).await;
    let version = ready_after_the_probe(&wb, "late").await;
    assert_eq!(version, "2025-11-25");
    let traffic = wb.traffic().entries(Some("late"));
    let asked = requests(&traffic);
    assert_eq!(asked[..2], ["server/discover", "initialize"], "{asked:?}");
    assert!(
        traffic
            .iter()
            .any(|e| e.direction == Direction::Note && e.body.contains("left out of the handshake")),
        "the late answer is explained"
    );
    // The session works: a call goes through.
    let out = wb
        .call_tool("late", "echo", json!({"message": "hi"}), Default::default())
        .await
        .unwrap();
    assert!(out.result.to_string().contains("hi"), "{}", out.result);
    wb.shutdown().await;
}

/// The era trap: a server of 2026-07-28 only, slower than the probe's 10 s
/// wait to start the first time (uvx fetching it), gets `initialize` and
/// refuses it (-32022). It is started again and asked `server/discover`
/// alone, and the traffic says why; it answers at once the second time.
#[tokio::test]
async fn a_modern_only_server_slower_to_start_than_the_probes_wait_is_asked_again_its_way() {
    let marker = tempfile::tempdir().unwrap();
    let once = marker.path().join("fetched");
    let (wb, _dir) = start(&[stdio(
        "late-modern",
        &[
            "--modern-only",
            "--startup-delay-ms",
            "10500",
            "--delay-once",
            once.to_str().unwrap(),
        ],
    )])
    .await;
    let version = ready_after_the_probe(&wb, "late-modern").await;
    assert_eq!(version, "2026-07-28");
    let traffic = wb.traffic().entries(Some("late-modern"));
    let asked = requests(&traffic);
    assert_eq!(
        asked[..3],
        ["server/discover", "initialize", "server/discover"],
        "{asked:?}"
    );
    assert!(
        traffic.iter().any(|e| e.direction == Direction::Note
            && e.body.contains("speaks 2026-07-28 only")
            && e.body.contains("asks server/discover alone")),
        "the second start is explained"
    );
    let out = wb
        .call_tool(
            "late-modern",
            "echo",
            json!({"message": "hi"}),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(out.result.to_string().contains("hi"), "{}", out.result);
    wb.shutdown().await;
}

/// A server of 2026-07-28 only that answers the probe in time is never
/// asked `initialize`, and one pinned to 2025-11-25 is not asked again
/// another way: the person chose the era.
#[tokio::test]
async fn a_modern_only_server_in_time_is_asked_once_and_a_pinned_era_is_kept() {
    let (wb, _dir) = start(&[
        stdio("modern", &["--modern-only"]),
        pinned("old-way", "2025-11-25", &["--modern-only"]),
    ])
    .await;
    ready(&wb, "modern").await;
    let traffic = wb.traffic().entries(Some("modern"));
    let asked = requests(&traffic);
    assert!(!asked.contains(&"initialize"), "{asked:?}");
    // It cannot connect, and says so.
    refused(&wb, "old-way").await;
    let old_way = wb.traffic().entries(Some("old-way"));
    assert!(
        !old_way.iter().any(|e| e.direction == Direction::Outgoing
            && e.method.as_deref() == Some("server/discover")),
        "a pinned era is never switched"
    );
    wb.shutdown().await;
}
