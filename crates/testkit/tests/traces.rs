//! Traces of a chat: the turn, each model step and the calls a step makes
//! are one trace, exported to an OTLP/HTTP receiver that decodes with the
//! official definitions, and the server is sent the call's span as its
//! `traceparent`. A process of its own: exporting is the process's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use workbench_agent::{
    Agent, AgentOptions, ApproveMode, ConfigPaths, ProviderConfig, ProviderKind,
};
use workbench_core::config::secrets::{Backend, Keychain};
use workbench_core::settings::SettingsFile;
use workbench_core::traffic::TrafficQuery;
use workbench_store::Store;
use workbench_testkit::llm::{ScriptedLlm, Turn};
use workbench_testkit::otlp::Receiver;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");

#[path = "../support/one_demo.rs"]
mod one_demo;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_its_steps_and_their_calls_are_one_trace() {
    let receiver = Receiver::start().await.unwrap();
    workbench_core::otel::export_to(&receiver.url(), "traces-test").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (wb, path) = one_demo::one_demo(BIN, dir.path()).await;
    let llm = ScriptedLlm::start(
        "127.0.0.1:0",
        vec![
            Turn::calls(&[("demo__echo", json!({ "message": "traced" }))]),
            Turn::text("It said traced."),
        ],
    )
    .await
    .unwrap();
    let settings = SettingsFile::new(dir.path().join("settings.json"));
    let store = Store::open_in(dir.path()).unwrap();
    let agent = Agent::new(
        wb.clone(),
        AgentOptions {
            calls: workbench_calls::Calls::new(
                wb.clone(),
                workbench_core::ToolCaller::for_tests(),
                workbench_calls::CallsOptions {
                    settings: settings.clone(),
                    store: Some(store.clone()),
                },
            ),
            settings,
            store,
            config: ConfigPaths {
                user: path.clone(),
                project: None,
            },
            keychain: Keychain::new(
                &format!("mcpwb-traces-test-{}", std::process::id()),
                Backend::KernelKeyring,
            ),
        },
    )
    .unwrap();
    agent
        .save_provider(
            ProviderConfig {
                id: "local".into(),
                kind: ProviderKind::OpenAiCompatible,
                base_url: Some(llm.url("openai")),
                api_key_env: None,
                default_model: Some("local-scripted".into()),
                context_windows: Default::default(),
            },
            true,
        )
        .unwrap();
    let chat = agent.create_chat(Default::default()).unwrap().id;
    let turn = agent
        .send(&chat, "echo traced", ApproveMode::All, Arc::new(|_| {}))
        .unwrap();
    tokio::time::timeout(Duration::from_secs(60), turn.finished())
        .await
        .expect("the turn ends");
    workbench_core::otel::flush(Duration::from_secs(5)).await;

    assert_eq!(receiver.refused(), Vec::<String>::new());
    let spans = receiver.spans();
    let named = |n: &str| {
        spans.iter().find(|s| s.span.name == n).unwrap_or_else(|| {
            panic!(
                "no span {n}: {:?}",
                spans.iter().map(|s| &s.span.name).collect::<Vec<_>>()
            )
        })
    };
    let turn = named("agent turn");
    let first = named("agent step 1");
    let second = named("agent step 2");
    let call = named("tools/call echo");
    assert_eq!(turn.service, "traces-test");
    assert!(turn.parent_id().is_empty(), "the turn is the trace's root");
    for s in [first, second, call] {
        assert_eq!(
            s.trace_id(),
            turn.trace_id(),
            "{} is in the turn's trace",
            s.span.name
        );
    }
    assert_eq!(
        (first.parent_id(), second.parent_id()),
        (turn.span_id(), turn.span_id())
    );
    assert_eq!(
        call.parent_id(),
        first.span_id(),
        "the call is the first step's"
    );
    assert_eq!(call.attribute("mcp.origin").as_deref(), Some("chat"));
    assert_eq!(
        first.attribute("agent.model").as_deref(),
        Some("local-scripted")
    );
    // The server was told the call's span.
    let page = wb.traffic().query(&TrafficQuery {
        server: Some("demo".into()),
        method: Some("tools/call".into()),
        limit: 10,
        ..TrafficQuery::default()
    });
    let sent: Value = serde_json::from_str(&page.entries[0].body).unwrap();
    assert_eq!(
        sent["params"]["_meta"]["traceparent"],
        format!("00-{}-{}-01", call.trace_id(), call.span_id())
    );
    workbench_core::otel::stop();
    wb.shutdown().await;
}
