//! Every provider's wire format: a tool call, its result sent back in that
//! provider's shape, the final answer, usage; parallel calls (Ollama sends
//! them in one chunk, and genai shows only the first until the end).

use serde_json::{Value, json};
use workbench_agent::{ApproveMode, EndReason};
use workbench_testkit::llm::{ScriptedUsage, Turn};

use super::{Setup, bench};

fn with_usage(mut turn: Turn, input: u32, output: u32, cached: u32) -> Turn {
    turn.usage = Some(ScriptedUsage {
        input,
        output,
        cached,
    });
    turn
}

/// Where the tool result sits in the second request, per provider.
fn tool_results_sent(kind: &str, body: &Value) -> Vec<String> {
    let texts = |v: &Value| v.to_string();
    match kind {
        "anthropic" => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|c| c["type"] == "tool_result")
            .map(|c| texts(&c["content"]))
            .collect(),
        "gemini" => body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
            .filter(|p| p.get("functionResponse").is_some())
            .map(|p| texts(&p["functionResponse"]))
            .collect(),
        _ => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| texts(&m["content"]))
            .collect(),
    }
}

async fn one_format(kind: &str) {
    let turns = vec![
        with_usage(
            Turn {
                text: "Let me echo that.".into(),
                reasoning: if kind == "openai" || kind == "anthropic" {
                    "The user wants an echo.".into()
                } else {
                    String::new()
                },
                ..Turn::calls(&[("demo__echo", json!({"message": "bonjour"}))])
            },
            100,
            20,
            40,
        ),
        with_usage(Turn::text("The server said bonjour."), 150, 10, 100),
    ];
    let b = bench(Setup {
        kind,
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b
        .turn("echo bonjour please", ApproveMode::All, b.sink())
        .await;
    assert_eq!(end, EndReason::Done, "{kind}: {:?}", b.events());
    assert_eq!(b.last_text(&chat), "The server said bonjour.", "{kind}");
    let results = b.results(&chat);
    assert_eq!(results.len(), 1, "{kind}: {results:?}");
    assert_eq!(results[0].1, "ok");
    assert!(results[0].2.contains("bonjour"), "{kind}: {results:?}");
    // The second request carries the result in the provider's own shape.
    let chats = b.llm.chats();
    assert_eq!(chats.len(), 2, "{kind}");
    let sent = tool_results_sent(kind, &chats[1].body);
    assert_eq!(sent.len(), 1, "{kind}: {}", chats[1].body);
    assert!(sent[0].contains("bonjour"), "{kind}: {sent:?}");
    // The tools were offered by their qualified names.
    let offered = chats[0].body.to_string();
    assert!(
        offered.contains("demo__echo") && offered.contains("demo__add"),
        "{kind}"
    );
    // The key went where it should (none for Ollama).
    if kind != "ollama" {
        assert!(
            chats[0]
                .credential
                .as_deref()
                .unwrap_or_default()
                .contains("sk-scripted"),
            "{kind}"
        );
    }
    // Usage, per step and for the session.
    let session = b.agent.store().session(&chat).unwrap();
    assert_eq!(
        (session.usage.input, session.usage.output),
        (250, 30),
        "{kind}"
    );
    if kind == "openai" || kind == "anthropic" || kind == "gemini" {
        assert_eq!(session.usage.cached, 140, "{kind}");
    }
    // Reasoning arrived and was kept, collapsed, not sent back.
    if kind == "openai" || kind == "anthropic" {
        let kept = b.agent.messages(&chat).unwrap().iter().flat_map(|m| m.parts.clone()).any(|p| {
            matches!(p, workbench_agent::Part::Reasoning { text } if text == "The user wants an echo.")
        });
        assert!(kept, "{kind}: reasoning not kept");
    }
    // Text streamed in pieces before the message was stored.
    let deltas = b
        .events()
        .iter()
        .filter(|e| matches!(e, workbench_agent::AgentEvent::TextDelta { .. }))
        .count();
    assert!(deltas >= 4, "{kind}: {deltas} text deltas");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chat_completions() {
    one_format("openai").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_messages() {
    one_format("anthropic").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_generate_content() {
    one_format("gemini").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_api_chat() {
    one_format("ollama").await;
}

/// Two calls in one step, in every format: both run, both answers go back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_in_every_format() {
    for kind in ["openai", "anthropic", "gemini", "ollama", "compatible"] {
        let turns = vec![
            Turn::calls(&[
                ("demo__echo", json!({"message": "one"})),
                ("demo__add", json!({"a": 2, "b": 3})),
            ]),
            Turn::text("done"),
        ];
        let b = bench(Setup {
            kind,
            turns,
            ..Default::default()
        })
        .await;
        let (chat, end) = b.turn("do both", ApproveMode::All, b.sink()).await;
        assert_eq!(end, EndReason::Done, "{kind}: {:?}", b.events());
        let results = b.results(&chat);
        let names: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, ["demo__echo", "demo__add"], "{kind}");
        assert!(results[0].2.contains("one"), "{kind}: {results:?}");
        assert!(results[1].2.contains('5'), "{kind}: {results:?}");
        let sent = tool_results_sent(
            if kind == "compatible" { "openai" } else { kind },
            &b.llm.chats()[1].body,
        );
        assert_eq!(sent.len(), 2, "{kind}: {sent:?}");
    }
}
