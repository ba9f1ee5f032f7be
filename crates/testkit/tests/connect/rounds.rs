//! Servers on protocol 2026-07-28 cannot send requests of their own: a tool
//! that needs a form, an LLM answer or the roots answers `input_required`,
//! the core puts the request to the person like any other ask, and calls
//! again with the answer and the echoed `requestState` (SEP-2322).

use serde_json::{Value, json};
use workbench_core::asks::{Answer, AskKind};
use workbench_core::traffic::Direction;
use workbench_core::{CallOptions, ErrorCode, Workbench};

use super::asks::{next_ask, roots_set_by_the_user_reach};
use super::*;
use workbench_core::testing::RawCalls;

async fn new_era(interactive: bool) -> (Workbench, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[stdio("asker", &[])]);
    let mut options = fast();
    options.interactive = interactive;
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "asker").await;
    let version = wb
        .server("asker")
        .unwrap()
        .status()
        .info
        .unwrap()
        .protocol_version;
    assert_eq!(version, "2026-07-28");
    (wb, dir)
}

fn call(
    wb: &Workbench,
    tool: &str,
    args: Value,
) -> tokio::task::JoinHandle<workbench_core::Result<workbench_core::CallOutcome>> {
    let (wb, tool) = (wb.clone(), tool.to_string());
    tokio::spawn(async move {
        wb.call_tool("asker", &tool, args, CallOptions::default())
            .await
    })
}

/// The tools/call requests sent, as JSON.
fn calls_sent(wb: &Workbench) -> Vec<Value> {
    wb.traffic()
        .entries(Some("asker"))
        .iter()
        .filter(|e| e.direction == Direction::Outgoing && e.method.as_deref() == Some("tools/call"))
        .map(|e| serde_json::from_str(&e.body).unwrap())
        .collect()
}

#[tokio::test]
async fn an_input_required_form_is_put_to_the_person_and_the_call_is_sent_again() {
    let (wb, _dir) = new_era(true).await;
    let mut rx = wb.subscribe();
    let running = call(&wb, "ask_user", json!({ "message": "Who are you?" }));
    let ask = next_ask(&mut rx).await;
    assert_eq!(ask.kind, AskKind::Elicitation);
    assert_eq!(ask.params["message"], "Who are you?");
    assert_eq!(ask.params["requestedSchema"]["required"], json!(["name"]));
    wb.asks()
        .answer(
            ask.id,
            Answer::Result(json!({ "action": "accept", "content": { "name": "Ada" } })),
        )
        .unwrap();
    let out = running.await.unwrap().unwrap();
    assert_eq!(out.result["structuredContent"]["content"]["name"], "Ada");
    assert_eq!(
        out.result
            .get("resultType")
            .and_then(Value::as_str)
            .unwrap_or("complete"),
        "complete"
    );

    // Two rounds on the wire: the plain call, then the call with the answer
    // and the state the server gave, echoed as it was.
    let sent = calls_sent(&wb);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent[0]["params"].get("inputResponses").is_none());
    assert_eq!(
        sent[1]["params"]["inputResponses"]["answer"]["content"]["name"],
        "Ada"
    );
    assert_eq!(sent[1]["params"]["requestState"], "ask_user");
    assert_eq!(sent[1]["params"]["arguments"]["message"], "Who are you?");
    let answers: Vec<_> = wb
        .traffic()
        .entries(Some("asker"))
        .iter()
        .filter(|e| {
            e.direction == Direction::Incoming
                && e.body.contains(r#""resultType":"input_required""#)
        })
        .map(|e| e.latency_ms.is_some())
        .collect();
    assert_eq!(
        answers,
        [true],
        "one input_required answer, paired with its request"
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn sampling_and_roots_are_answered_in_rounds_too_and_a_refusal_ends_the_call() {
    let (wb, _dir) = new_era(true).await;
    let mut rx = wb.subscribe();
    let running = call(&wb, "ask_llm", json!({ "question": "6 x 7?" }));
    let ask = next_ask(&mut rx).await;
    assert_eq!(ask.kind, AskKind::Sampling);
    assert_eq!(ask.params["messages"][0]["content"]["text"], "6 x 7?");
    wb.asks()
        .answer(
            ask.id,
            Answer::Result(json!({ "role": "assistant", "content": { "type": "text", "text": "42" }, "model": "by-hand" })),
        )
        .unwrap();
    let out = running.await.unwrap().unwrap();
    assert_eq!(
        out.result["content"][0]["text"],
        "The model (by-hand) said: 42"
    );

    let running = call(&wb, "ask_llm", json!({ "question": "again?" }));
    let ask = next_ask(&mut rx).await;
    wb.asks()
        .answer(ask.id, Answer::Refuse("not now".into()))
        .unwrap();
    let err = running.await.unwrap().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Refused, "{err}");
    assert!(err.to_string().contains("not now"), "{err}");

    roots_set_by_the_user_reach(&wb, "asker").await;
    wb.shutdown().await;
}

#[tokio::test]
async fn headless_a_form_in_rounds_is_declined_without_waiting() {
    let (wb, _dir) = new_era(false).await;
    let out = wb
        .call_tool("asker", "ask_user", json!({}), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(
        out.result["content"][0]["text"],
        "action: decline; content: null"
    );
    assert!(wb.asks().pending().is_empty());
    wb.shutdown().await;
}

#[tokio::test]
async fn a_busy_server_asking_for_nothing_is_asked_again_with_its_state() {
    let (wb, _dir) = new_era(false).await;
    let out = wb
        .call_tool("asker", "busy_once", json!({}), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "served after a retry");
    let sent = calls_sent(&wb);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1]["params"]["requestState"], "busy");
    assert_eq!(sent[1]["params"]["inputResponses"], json!({}));
    wb.shutdown().await;
}
