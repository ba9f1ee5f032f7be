use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use workbench_core::connect::ServerState;
use workbench_core::traffic::{Direction, MessageKind};
use workbench_core::{CallOptions, ErrorCode};

use super::*;
use workbench_core::testing::RawCalls;

/// A tool call goes through the one call path: a raw `tools/call` request
/// is refused before it reaches the server.
#[tokio::test]
async fn a_raw_tools_call_request_is_refused_and_never_sent() {
    let (wb, _dir) = start(&[stdio("demo", &[])]).await;
    ready(&wb, "demo").await;
    let before = wb.traffic().last_seq();
    let refused = wb
        .request(
            "demo",
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "x" } }),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        workbench_core::ErrorCode::Refused,
        "{refused}"
    );
    assert_eq!(wb.traffic().last_seq(), before, "nothing was sent");
    wb.shutdown().await;
}

#[tokio::test]
async fn progress_reaches_the_caller_and_cancel_stops_the_call() {
    let (wb, _dir) = start(&[stdio("demo", &[])]).await;
    ready(&wb, "demo").await;
    let (tx, mut rx) = mpsc::unbounded_channel::<workbench_core::Progress>();
    let out = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 3, "step_ms": 30 }),
            CallOptions {
                sink: Some(std::sync::Arc::new(tx)),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "done after 3 steps");
    let mut seen = Vec::new();
    while let Ok(p) = rx.try_recv() {
        seen.push((p.progress, p.total));
    }
    assert_eq!(seen, [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);

    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let err = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 1000, "step_ms": 50 }),
            CallOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Cancelled);
    // The server was told: it logs the cancellation on stderr.
    let mut told = false;
    for _ in 0..40 {
        told = wb
            .traffic()
            .last_stderr("demo", 50)
            .iter()
            .any(|l| l.contains("long_task cancelled"));
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(told, "the server never saw notifications/cancelled");
    let sent = wb.traffic().entries(Some("demo"));
    assert!(
        sent.iter()
            .any(|e| e.method.as_deref() == Some("notifications/cancelled")
                && e.direction == Direction::Outgoing)
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn progress_resets_the_timeout_up_to_the_maximum_time_for_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[stdio("demo", &[])]);
    let mut options = fast();
    options.supervisor.max_call_time = Duration::from_millis(1500);
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "demo").await;
    let within = |ms| CallOptions {
        timeout: Some(Duration::from_millis(ms)),
        ..Default::default()
    };
    // Six steps of 100 ms take longer than the 400 ms timeout, but each
    // step's progress notification resets it.
    let out = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 6, "step_ms": 100 }),
            within(400),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "done after 6 steps");
    // One silent step of 1 s: the same timeout ends the call.
    let err = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 1, "step_ms": 1000 }),
            within(400),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(err.to_string().contains("within 0.4 s"), "{err}");
    assert!(!err.to_string().contains("progress"), "{err}");
    // Progress that never ends: the maximum time for a call ends it.
    let err = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 1000, "step_ms": 100 }),
            within(400),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(
        err.to_string()
            .contains("within 1.5 s (it kept reporting progress"),
        "{err}"
    );
    // The call's own longest time over the entry's: 2 s of progress passes.
    let out = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 20, "step_ms": 100 }),
            CallOptions {
                max_total: Some(Duration::from_millis(2500)),
                ..within(400)
            },
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "done after 20 steps");
    // A fixed timeout: progress does not start it again.
    let err = wb
        .call_tool(
            "demo",
            "long_task",
            json!({ "steps": 6, "step_ms": 100 }),
            CallOptions {
                fixed_timeout: true,
                ..within(400)
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    // The server was told to stop the three abandoned calls.
    let cancels = wb
        .traffic()
        .entries(Some("demo"))
        .iter()
        .filter(|e| {
            e.direction == Direction::Outgoing
                && e.method.as_deref() == Some("notifications/cancelled")
        })
        .count();
    assert_eq!(cancels, 3);
    wb.shutdown().await;
}

#[tokio::test]
async fn traffic_holds_both_directions_paired_with_latency() {
    let (wb, _dir) = start(&[stdio("demo", &[])]).await;
    ready(&wb, "demo").await;
    wb.call_tool(
        "demo",
        "echo",
        json!({ "message": "hi" }),
        CallOptions::default(),
    )
    .await
    .unwrap();
    let entries = wb.traffic().entries(Some("demo"));
    let init = entries
        .iter()
        .find(|e| e.method.as_deref() == Some("server/discover") && e.kind == MessageKind::Response)
        .expect("the handshake is in the log");
    assert!(init.latency_ms.is_some());
    let call = entries
        .iter()
        .find(|e| e.method.as_deref() == Some("tools/call") && e.kind == MessageKind::Response)
        .unwrap();
    assert!(call.body.contains("\"hi\""));
    assert_eq!(call.direction, Direction::Incoming);
    let mut out = Vec::new();
    wb.traffic().export_jsonl(Some("demo"), &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap().lines().count(),
        entries.len()
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn tool_arguments_are_an_object_or_nothing() {
    let (wb, _dir) = start(&[stdio("demo", &[])]).await;
    ready(&wb, "demo").await;
    let err = wb
        .call_tool("demo", "echo", json!([1, 2]), CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("must be a JSON object, not an array"),
        "{err}"
    );
    // No arguments: the server is sent an empty object, and says what is missing.
    let out = wb
        .call_tool("demo", "echo", Value::Null, CallOptions::default())
        .await;
    let sent = wb
        .traffic()
        .entries(Some("demo"))
        .into_iter()
        .rev()
        .find(|e| e.method.as_deref() == Some("tools/call") && e.kind == MessageKind::Request)
        .unwrap();
    assert!(sent.body.contains(r#""arguments":{}"#), "{}", sent.body);
    assert!(out.is_err() || out.unwrap().result["isError"] == json!(true));
    wb.shutdown().await;
}

#[tokio::test]
async fn a_call_to_an_unknown_or_stopped_server_fails_at_once() {
    let (wb, _dir) = start(&[stdio("demo", &[])]).await;
    ready(&wb, "demo").await;
    assert_eq!(
        wb.call_tool("nope", "echo", json!({}), CallOptions::default())
            .await
            .unwrap_err()
            .code(),
        ErrorCode::UnknownServer
    );
    wb.server("demo").unwrap().stop().await;
    let started = std::time::Instant::now();
    let err = wb
        .call_tool(
            "demo",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerNotReady);
    assert!(started.elapsed() < Duration::from_millis(100));
    assert!(err.to_string().contains("stopped"), "{err}");
}

/// Processes whose command line contains `needle`.
fn processes_with(needle: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(needle))
        .count()
}

#[tokio::test]
async fn a_transient_server_gets_a_fresh_process_per_call_and_none_between() {
    let marker = format!("transient-{}", std::process::id());
    let (name, mut entry) = stdio(&marker, &[]);
    entry["lifecycle"] = json!("transient");
    let (wb, _dir) = start(&[(name.clone(), entry)]).await;
    ready(&wb, &name).await;
    // The catalog was filled by a discovery connection that then closed.
    let mut tools = 0;
    for _ in 0..100 {
        tools = wb
            .catalog()
            .server(&name)
            .map(|c| c.tools.len())
            .unwrap_or(0);
        if tools > 0 && processes_with(&marker) == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(tools > 0);
    assert_eq!(processes_with(&marker), 0, "no process between calls");
    assert_eq!(wb.server(&name).unwrap().status().state, ServerState::Ready);
    // Each call starts from a fresh process: the counter starts over.
    for _ in 0..2 {
        let out = wb
            .call_tool(
                &name,
                "increment_counter",
                json!({}),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(out.result["content"][0]["text"], "1");
    }
    assert_eq!(processes_with(&marker), 0, "closed after each call");
    wb.shutdown().await;
}

#[tokio::test]
async fn include_and_exclude_lists_hide_tools_from_the_catalog_and_from_calls() {
    let (a, mut only_echo) = stdio("only-echo", &[]);
    only_echo["includeTools"] = json!(["echo"]);
    let (b, mut no_add) = stdio("no-add", &[]);
    no_add["excludeTools"] = json!(["add"]);
    let (wb, _dir) = start(&[(a.clone(), only_echo), (b.clone(), no_add)]).await;
    ready(&wb, &a).await;
    ready(&wb, &b).await;
    let mut cat = None;
    for _ in 0..100 {
        cat = wb.catalog().server(&b).filter(|c| !c.tools.is_empty());
        if cat.is_some() && wb.catalog().server(&a).is_some_and(|c| !c.tools.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let names = |c: &workbench_core::catalog::ServerCatalog| -> Vec<String> {
        c.tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&wb.catalog().server(&a).unwrap()), ["echo"]);
    let no_add_cat = cat.unwrap();
    assert!(!names(&no_add_cat).contains(&"add".to_string()));
    assert!(names(&no_add_cat).contains(&"echo".to_string()));
    assert_eq!(no_add_cat.hidden_tools, ["add"]);
    let e = wb
        .call_tool(&b, "add", json!({ "a": 1, "b": 2 }), CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ToolExcluded);
    assert!(e.to_string().contains("excludeTools"), "{e}");
    wb.shutdown().await;
}

#[tokio::test]
async fn a_trial_connection_reports_what_an_unsaved_entry_offers_or_why_not() {
    use workbench_core::config::{ConfigFile, parse_entry};
    let dir = tempfile::tempdir().unwrap();
    let config = ConfigFile::empty(&dir.path().join("mcp.json"));
    let (name, raw) = stdio("trial", &[]);
    let good = parse_entry(&name, &raw).unwrap();
    let trial = workbench_core::Workbench::trial(&config, good, fast(), Duration::from_secs(10))
        .await
        .unwrap();
    assert!(is_ready(&trial.status.state), "{:?}", trial.status);
    assert!(
        trial.tools.contains(&"echo".to_string()),
        "{:?}",
        trial.tools
    );
    assert!(trial.resources > 0 && trial.prompts > 0);
    let (name, raw) = stdio("broken", &["--fault", "exit-at-start"]);
    let bad = parse_entry(&name, &raw).unwrap();
    let trial = workbench_core::Workbench::trial(&config, bad, fast(), Duration::from_secs(10))
        .await
        .unwrap();
    let ServerState::Failed { reason, .. } = &trial.status.state else {
        panic!("{:?}", trial.status)
    };
    assert!(reason.contains("exited with status 3"), "{reason}");
    assert!(trial.tools.is_empty());
    // Failed, not Restarting: a trial does not retry.
    let leftovers = processes_with("--name broken");
    assert_eq!(leftovers, 0);
}
