//! Traces out: `mcpwb --otlp URL` exports a span for a call, a suite's case
//! (the call its child) and a load run (one span, not one a call) to an
//! OTLP/HTTP receiver that decodes them with the official protocol
//! definitions; the server gets the call's span as `_meta.traceparent`;
//! `OTEL_EXPORTER_OTLP_ENDPOINT` does the same; nothing is sent unless asked.

use std::process::Command;

use serde_json::json;
use workbench_testkit::otlp::Receiver;

use super::{BIN, demo_server, stderr, stdout};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// A config of one server that writes each call it gets (with the trace
/// context it came with) to `calls`.
fn hinted(dir: &std::path::Path, calls: &std::path::Path) -> std::path::PathBuf {
    let config = dir.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "hinted": { "command": demo_server(), "args": ["--name", "hinted", "--fault", "hinted"], "env": { "MCP_DEMO_CALLS": calls } } } }).to_string(),
    )
    .unwrap();
    config
}

#[test]
fn spans_go_to_the_collector_named_and_the_server_joins_the_trace() {
    let rt = runtime();
    let receiver = rt.block_on(Receiver::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.log");
    let config = hinted(dir.path(), &calls);
    let cfg = config.display().to_string();
    let mcpwb = |args: &[&str], env: Option<&str>| {
        let mut c = Command::new(BIN);
        c.args(["--trust", "--config", &cfg])
            .args(args)
            .env("HOME", dir.path())
            .env_remove("MCPWB_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
        if let Some(url) = env {
            c.env("OTEL_EXPORTER_OTLP_ENDPOINT", url);
        }
        c.output().unwrap()
    };
    let url = receiver.url();

    // Nothing is sent unless asked, and no trace context goes to the server.
    let out = mcpwb(&["call", "hinted", "lookup"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(receiver.spans().is_empty());
    assert!(
        !std::fs::read_to_string(&calls)
            .unwrap()
            .contains("traceparent")
    );

    // A call: its span, and the server got it as its parent.
    let out = mcpwb(
        &[
            "--otlp",
            &url,
            "call",
            "hinted",
            "lookup",
            "--args",
            r#"{"q": 1}"#,
        ],
        None,
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(receiver.refused(), Vec::<String>::new());
    let spans = receiver.spans();
    let call = spans
        .iter()
        .find(|s| s.span.name == "tools/call lookup")
        .expect("the call's span");
    assert_eq!(call.service, "mcpwb");
    assert_eq!(call.attribute("mcp.server").as_deref(), Some("hinted"));
    assert_eq!(call.attribute("mcp.origin").as_deref(), Some("cli"));
    assert_eq!(call.attribute("mcp.status").as_deref(), Some("ok"));
    assert!(call.span.end_time_unix_nano >= call.span.start_time_unix_nano);
    let sent = std::fs::read_to_string(&calls).unwrap();
    let wanted = format!("traceparent=00-{}-{}-01", call.trace_id(), call.span_id());
    assert!(
        sent.lines().last().unwrap().ends_with(&wanted),
        "{sent}\n{wanted}"
    );

    // A suite's case: the call is its child, in one trace.
    let suite = dir.path().join("s.json");
    std::fs::write(
        &suite,
        json!({ "server": "hinted", "cases": [{ "name": "looks up", "tool": "lookup" }] })
            .to_string(),
    )
    .unwrap();
    let out = mcpwb(
        &[
            "--otlp",
            &url,
            "test",
            "--trust-suites",
            &suite.display().to_string(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let spans = receiver.spans();
    let case = spans
        .iter()
        .find(|s| s.span.name == "suite case looks up")
        .expect("the case's span");
    assert_eq!(case.attribute("suite.outcome").as_deref(), Some("passed"));
    let child = spans
        .iter()
        .find(|s| s.span.name == "tools/call lookup" && s.parent_id() == case.span_id())
        .expect("the case's call is its child");
    assert_eq!(child.trace_id(), case.trace_id());
    assert_eq!(child.attribute("mcp.origin").as_deref(), Some("suite"));

    // A load run: one span with its figures, not one a call (the
    // environment names the collector this time).
    let before = receiver.spans().len();
    let out = mcpwb(
        &["load", "hinted", "lookup", "-n", "50", "-c", "2"],
        Some(&url),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let new: Vec<_> = receiver.spans().into_iter().skip(before).collect();
    let names: Vec<&str> = new.iter().map(|s| s.span.name.as_str()).collect();
    assert_eq!(names, ["load run"], "{names:?}");
    assert_eq!(new[0].attribute("load.calls").as_deref(), Some("50"));
}

/// Through the bridge: a caller's `_meta.traceparent` is the parent of the
/// relay's span, the call is the relay's child, and the server gets the
/// same trace — the caller, the workbench and the server in one trace.
#[test]
fn a_callers_trace_runs_through_the_bridge_to_the_server() {
    use rmcp::ServiceExt;
    use rmcp::transport::TokioChildProcess;
    let rt = runtime();
    let receiver = rt.block_on(Receiver::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.log");
    let config = hinted(dir.path(), &calls);
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args([
        "--trust",
        "--config",
        &config.display().to_string(),
        "--otlp",
        &receiver.url(),
        "serve",
    ])
    .env("HOME", dir.path())
    .env_remove("MCPWB_CONFIG")
    .env_remove("XDG_CONFIG_HOME")
    .env_remove("XDG_DATA_HOME")
    .stderr(std::process::Stdio::null());
    let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    rt.block_on(async {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let params: rmcp::model::CallToolRequestParams = serde_json::from_value(json!({
            "name": "hinted__lookup",
            "arguments": {},
            "_meta": { "traceparent": format!("00-{trace}-{parent}-01") }
        }))
        .unwrap();
        client.call_tool(params).await.unwrap();
        let _ = client.cancel().await;
    });
    // The exporter sends at least every second.
    let mut spans = Vec::new();
    for _ in 0..60 {
        spans = receiver.spans();
        if spans.len() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let relay = spans
        .iter()
        .find(|s| s.span.name == "bridge tools/call hinted__lookup")
        .expect("the relay's span");
    assert_eq!(
        (relay.trace_id().as_str(), relay.parent_id().as_str()),
        (trace, parent)
    );
    let call = spans
        .iter()
        .find(|s| s.span.name == "tools/call lookup")
        .expect("the call's span");
    assert_eq!(call.trace_id(), trace);
    assert_eq!(call.parent_id(), relay.span_id());
    assert_eq!(call.attribute("mcp.origin").as_deref(), Some("bridge"));
    let sent = std::fs::read_to_string(&calls).unwrap();
    assert!(
        sent.contains(&format!("traceparent=00-{trace}-{}-01", call.span_id())),
        "{sent}"
    );
}
