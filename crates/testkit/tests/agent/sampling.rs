//! A server's sampling request answered by the model: the person edits the
//! request, approves, edits the reply, approves — and the server gets the
//! edited reply; answered without asking when allowed; with tools (SEP-1577).

use std::time::Duration;

use serde_json::json;
use workbench_core::asks::{Answer, AskKind};
use workbench_core::events::Event;
use workbench_testkit::llm::Turn;

use super::{Setup, bench};
use workbench_core::testing::RawCalls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_sees_and_edits_both_the_request_and_the_reply() {
    let turns = vec![Turn::text("six").when("3+3")];
    let b = bench(Setup {
        turns,
        interactive: true,
        ..Default::default()
    })
    .await;
    let mut events = b.wb.subscribe();
    let wb = b.wb.clone();
    let call = tokio::spawn(async move {
        wb.call_tool(
            "demo",
            "ask_llm",
            json!({"question": "What is 2+2?"}),
            Default::default(),
        )
        .await
    });
    let ask = loop {
        match tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .unwrap()
        {
            Ok(Event::Ask { ask }) if ask.kind == AskKind::Sampling => break ask,
            _ => {}
        }
    };
    // What the window shows: the messages, the system prompt, max tokens.
    assert_eq!(ask.params["messages"][0]["content"]["text"], "What is 2+2?");
    assert!(
        ask.params["systemPrompt"]
            .as_str()
            .unwrap()
            .contains("demo server")
    );
    // The person edits the request, then approves it.
    let mut edited = ask.params.clone();
    edited["messages"][0]["content"]["text"] = json!("What is 3+3?");
    let mut reply = b.agent.sample(&edited).await.unwrap();
    assert_eq!(reply["content"]["text"], "six");
    assert_eq!(reply["model"], "gpt-4o-scripted");
    assert_eq!(reply["stopReason"], "endTurn");
    // ...edits the reply, then approves it.
    reply["content"]["text"] = json!("six (checked)");
    b.wb.asks().answer(ask.id, Answer::Result(reply)).unwrap();
    let outcome = call.await.unwrap().unwrap();
    let text = outcome.result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, "The model (gpt-4o-scripted) said: six (checked)");
    // The model got the edited request, with the server's system prompt and limit.
    let sent = &b.llm.chats()[0].body;
    assert!(sent.to_string().contains("What is 3+3?"));
    assert!(sent.to_string().contains("demo server"));
    assert_eq!(sent["max_tokens"], 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_allowed_to_sample_is_answered_without_asking() {
    let turns = vec![Turn::text("four")];
    let b = bench(Setup {
        turns,
        interactive: true,
        ..Default::default()
    })
    .await;
    b.agent
        .update_settings(|s| s.auto_sampling_servers.push("demo".into()))
        .unwrap();
    let _answering = b.agent.answer_sampling(false);
    let outcome = tokio::time::timeout(
        Duration::from_secs(20),
        b.wb.call_tool(
            "demo",
            "ask_llm",
            json!({"question": "What is 2+2?"}),
            Default::default(),
        ),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        outcome.result["content"][0]["text"],
        "The model (gpt-4o-scripted) said: four"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_with_tools_returns_tool_use() {
    let turns = vec![Turn::calls(&[("get_weather", json!({"city": "Paris"}))])];
    let b = bench(Setup {
        kind: "anthropic",
        turns,
        ..Default::default()
    })
    .await;
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}
        ],
        "maxTokens": 100,
        "tools": [{"name": "get_weather", "description": "Weather by city",
                   "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "toolChoice": {"mode": "required"}
    });
    let reply = b.agent.sample(&params).await.unwrap();
    assert_eq!(reply["stopReason"], "toolUse");
    assert_eq!(reply["content"][0]["type"], "tool_use");
    assert_eq!(reply["content"][0]["name"], "get_weather");
    assert_eq!(reply["content"][0]["input"], json!({"city": "Paris"}));
    let sent = &b.llm.chats()[0].body;
    assert_eq!(sent["tools"][0]["name"], "get_weather");
    // A follow-up with the tool's result goes back as a tool result.
    b.llm.push([Turn::text("Sunny.")]);
    let follow = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
            {"role": "assistant", "content": [reply["content"][0].clone()]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": reply["content"][0]["id"], "content": [{"type": "text", "text": "sunny, 21C"}]}]}
        ],
        "maxTokens": 100
    });
    let done = b.agent.sample(&follow).await.unwrap();
    assert_eq!(done["content"]["text"], "Sunny.");
    let second = b.llm.chats()[1].body.to_string();
    assert!(
        second.contains("tool_result") && second.contains("sunny, 21C"),
        "{second}"
    );
}

/// A sampling request's modelPreferences choose among the configured
/// models: a hint names a model of the second provider, which answers (its
/// wire format, its model reported back); without a preference the default
/// model answers; the choice says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_preferences_pick_the_configured_model_that_matches() {
    let turns = vec![
        Turn::text("from claude").when("hinted"),
        Turn::text("from gpt").when("plain"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let anthropic = super::provider("anthropic", &b.llm);
    b.agent.save_provider(anthropic, false).unwrap();
    b.agent
        .set_provider_key("anthropic", "sk-scripted")
        .unwrap();
    let ask = |text: &str, prefs: serde_json::Value| {
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": 50,
            "modelPreferences": prefs
        })
    };
    let hinted = ask(
        "hinted",
        json!({"hints": [{"name": "claude"}], "intelligencePriority": 0.8}),
    );
    let choice = b.agent.sampling_model(&hinted).unwrap();
    assert_eq!(
        (choice.provider.as_str(), choice.model.as_str()),
        ("anthropic", "claude-scripted")
    );
    assert!(choice.why.contains("\"claude\""), "{}", choice.why);
    let result = b.agent.sample(&hinted).await.unwrap();
    assert_eq!(result["model"], "claude-scripted");
    assert_eq!(result["content"]["text"], "from claude");
    let last = b.llm.chats().pop().unwrap();
    assert!(
        last.path.contains("messages"),
        "Anthropic's wire format: {}",
        last.path
    );

    let plain = ask("plain", serde_json::Value::Null);
    let choice = b.agent.sampling_model(&plain).unwrap();
    assert_eq!(choice.provider, "openai");
    assert!(choice.why.contains("no preference"), "{}", choice.why);
    let result = b.agent.sample(&plain).await.unwrap();
    assert_eq!(result["model"], "gpt-4o-scripted");
    assert_eq!(result["content"]["text"], "from gpt");
}
