//! Approvals (approve, deny, edit then approve, for this chat, always —
//! written to mcp.json without disturbing the rest), a tool whose
//! definition changed being asked about again, denied tools never offered,
//! and the deferred `search_tools` with 200 tools.

use std::time::Duration;

use serde_json::{Value, json};
use workbench_agent::{AgentEvent, ApproveMode, Decision, EndReason, Remember, ToolPolicy};
use workbench_testkit::llm::Turn;

use super::{Setup, bench, demo};
use workbench_core::testing::RawCalls;

fn approvals(events: &[AgentEvent]) -> Vec<workbench_agent::Approval> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalNeeded { approval } => Some(approval.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_deny_and_edit_then_approve() {
    let turns = vec![
        Turn::calls(&[
            ("demo__echo", json!({"message": "as the model wrote it"})),
            ("demo__add", json!({"a": 1, "b": 1})),
            ("demo__increment_counter", json!({})),
        ]),
        Turn::text("ok"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let sink = b.deciding(|a| match a.tool.as_str() {
        "echo" => Decision::approve_with(
            Some(json!({"message": "as the person edited it"})),
            Remember::Once,
        ),
        "add" => Decision::deny("not now"),
        _ => Decision::approve(),
    });
    let (chat, end) = b.turn("three calls", ApproveMode::Ask, sink).await;
    assert_eq!(end, EndReason::Done);
    let asked = approvals(&b.events());
    assert_eq!(asked.len(), 3, "each call asked");
    assert!(
        asked.iter().all(|a| a.batch == asked[0].batch),
        "asked together"
    );
    // The card has what the person needs: server, tool, arguments, annotations.
    assert_eq!(asked[0].server, "demo");
    assert_eq!(
        asked[0].arguments,
        json!({"message": "as the model wrote it"})
    );
    assert_eq!(asked[0].definition["annotations"]["readOnlyHint"], true);
    let results = b.results(&chat);
    assert_eq!(results[0].1, "ok");
    assert!(
        results[0].2.contains("as the person edited it"),
        "{results:?}"
    );
    assert_eq!(results[1].1, "denied");
    assert!(results[1].2.contains("refused") && results[1].2.contains("not now"));
    assert_eq!(results[2].1, "ok");
    // The model was told of the refusal.
    let second = b.llm.chats()[1].body.to_string();
    assert!(second.contains("The person refused this call"), "{second}");
    // The record keeps the arguments the call ran with (the calls ran at
    // once: found by tool, not by the order they ended in).
    let calls = b.agent.store().session_calls(&chat).unwrap();
    let echo = calls
        .iter()
        .find(|c| c.tool == "echo")
        .expect("the echo call is kept");
    assert_eq!(
        echo.arguments,
        json!({"message": "as the person edited it"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_is_written_to_mcp_json_losslessly_and_holds_in_a_new_chat() {
    let turns = vec![
        Turn::calls(&[("demo__echo", json!({"message": "first"}))]),
        Turn::text("ok"),
        Turn::calls(&[("demo__echo", json!({"message": "second"}))]),
        Turn::text("ok again"),
    ];
    let b = bench(Setup {
        turns,
        config_prefix: "// my servers, kept by hand\n",
        ..Default::default()
    })
    .await;
    let sink = b.deciding(|_| Decision::approve_with(None, Remember::Always));
    let (_, end) = b.turn("echo", ApproveMode::Ask, sink).await;
    assert_eq!(end, EndReason::Done);
    let text = std::fs::read_to_string(b.dir.path().join("mcp.json")).unwrap();
    assert!(text.starts_with("// my servers, kept by hand\n"), "{text}");
    let parsed =
        workbench_core::config::parse_jsonc(std::path::Path::new("mcp.json"), &text).unwrap();
    assert_eq!(
        parsed["mcpServers"]["demo"]["autoApprove"],
        json!(["echo"]),
        "{text}"
    );
    assert!(parsed["mcpServers"]["demo"]["args"].is_array());
    // A new chat does not ask.
    b.events.lock().unwrap().clear();
    let (chat, end) = b.turn("echo again", ApproveMode::Ask, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    assert!(approvals(&b.events()).is_empty());
    assert_eq!(b.results(&chat)[0].1, "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_changed_since_it_was_allowed_is_asked_again_with_the_difference() {
    let turns = vec![
        Turn::calls(&[("demo__echo", json!({"message": "one"}))]),
        Turn::calls(&[("demo__echo", json!({"message": "two"}))]),
        Turn::text("done"),
        Turn::calls(&[("demo__echo", json!({"message": "three"}))]),
        Turn::text("done again"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let sink = b.deciding(|_| Decision::approve_with(None, Remember::Chat));
    let chat = b.new_chat();
    assert_eq!(
        b.turn_in(&chat, "twice", ApproveMode::Ask, sink.clone())
            .await,
        EndReason::Done
    );
    assert_eq!(
        approvals(&b.events()).len(),
        1,
        "allowed for this chat after the first"
    );
    // The server changes echo's definition (and says its list changed).
    b.wb.call_tool("demo", "redefine_echo", json!({}), Default::default())
        .await
        .unwrap();
    for _ in 0..100 {
        let now = b.wb.catalog().server("demo").unwrap();
        if now
            .tools
            .iter()
            .any(|t| t["description"] == workbench_testkit::demo::tools::ECHO_REDEFINED)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        b.turn_in(&chat, "once more", ApproveMode::Ask, sink).await,
        EndReason::Done
    );
    let asked = approvals(&b.events());
    assert_eq!(asked.len(), 2, "asked again after the change");
    let diff = asked[1].changed.as_ref().expect("the difference is shown");
    let added: Vec<&str> = diff
        .iter()
        .filter(|l| l.op == "+")
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(added.len(), 1, "{diff:?}");
    assert!(added[0].contains("also keeps a copy"), "{added:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_turned_off_and_app_only_tools_are_never_offered() {
    let turns = vec![Turn::text("nothing to do")];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    b.agent
        .update_settings(|s| {
            s.tool_policies.insert("demo/add".into(), ToolPolicy::Deny);
        })
        .unwrap();
    let chat = b.new_chat();
    b.agent
        .change_chat_options(&chat, |o| o.disabled_tools.push("demo/echo".into()))
        .unwrap();
    b.turn_in(&chat, "hi", ApproveMode::All, b.sink()).await;
    let tools: Vec<String> = b.llm.chats()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"demo__create_order".to_string()));
    assert!(
        !tools.iter().any(|t| t == "demo__add" || t == "demo__echo"),
        "{tools:?}"
    );
    // An MCP App's own tool (visibility ["app"]) is never the model's; one
    // with an App that the model may call is.
    assert!(!tools.iter().any(|t| t == "demo__app_bump"), "{tools:?}");
    assert!(
        tools.contains(&"demo__counter_app".to_string()),
        "{tools:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_200_tools_the_model_searches_and_loads_what_it_needs() {
    let turns = vec![
        Turn::calls(&[("search_tools", json!({"query": "gen_00042"}))]),
        Turn::calls(&[("demo__gen_00042", json!({"query": "forty-two"}))]),
        Turn::text("used it"),
    ];
    let b = bench(Setup {
        servers: vec![demo("demo", &["--tool-count", "200"])],
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("use tool 42", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done, "{:?}", b.events());
    let names = |body: &Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let chats = b.llm.chats();
    // The demo's skills stay offered through load_skill beside the search.
    assert_eq!(names(&chats[0].body), ["search_tools", "load_skill"]);
    assert_eq!(
        names(&chats[1].body),
        ["search_tools", "load_skill", "demo__gen_00042"]
    );
    let loaded = b
        .events()
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolsLoaded { names } if names == &["demo__gen_00042"]));
    assert!(loaded, "the window is told which tools were loaded");
    let results = b.results(&chat);
    assert!(results[0].2.contains("Loaded 1 tool"), "{results:?}");
    assert_eq!(results[1].1, "ok", "{results:?}");
    let view = b.agent.chat_tools(&chat).unwrap();
    assert!(view.deferred);
    assert!(view.tools.len() > 200);
    let offered_tools = view
        .tools
        .iter()
        .filter(|t| t.offered && !t.tool.starts_with("skill:"))
        .count();
    assert_eq!(offered_tools, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_tool_called_by_name_without_loading_counts_as_loaded() {
    let turns = vec![
        Turn::calls(&[("demo__gen_00007", json!({"query": "seven"}))]),
        Turn::text("done"),
    ];
    let b = bench(Setup {
        servers: vec![demo("demo", &["--tool-count", "200"])],
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("use tool 7", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done, "{:?}", b.events());
    assert_eq!(b.results(&chat)[0].1, "ok");
    let view = b.agent.chat_tools(&chat).unwrap();
    let loaded: Vec<&str> = view
        .tools
        .iter()
        .filter(|t| t.offered && t.name != "search_tools" && t.name != "load_skill")
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(loaded, ["demo__gen_00007"], "the chat's Tools count it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_calls_go_through_the_one_path_kept_as_chat_calls_and_checked_against_the_output_schema()
 {
    let turns = vec![
        Turn::calls(&[
            ("demo__echo", json!({"message": "kept"})),
            ("demo__bad_structured_output", json!({})),
        ]),
        Turn::text("done"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("two calls", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done, "{:?}", b.events());
    let calls = b.agent.store().session_calls(&chat).unwrap();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(
        calls
            .iter()
            .all(|c| c.origin == "chat" && c.session.as_deref() == Some(chat.as_str()))
    );
    let bad = calls
        .iter()
        .find(|c| c.tool == "bad_structured_output")
        .unwrap();
    assert!(!bad.schema_violations.is_empty(), "{bad:?}");
    let echo = calls.iter().find(|c| c.tool == "echo").unwrap();
    assert!(echo.schema_violations.is_empty(), "{echo:?}");
    // The model is told the result breaks the tool's own schema.
    let second = b.llm.chats()[1].body.to_string();
    assert!(
        second.contains("does not match the tool's output schema"),
        "{second}"
    );
}
