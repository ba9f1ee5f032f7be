//! A server's sampling and elicitation requests reach whoever answers them,
//! and the answer reaches the server; roots are what the user set. These are
//! server-to-client requests of the 2025-11-25 era (`--legacy`); the
//! 2026-07-28 way (input_required results) is in `rounds.rs`.

use std::time::Duration;

use serde_json::json;
use workbench_core::asks::{Answer, AskKind};
use workbench_core::events::Event;
use workbench_core::{CallOptions, Workbench};

use super::*;
use workbench_core::testing::RawCalls;

pub async fn next_ask(
    rx: &mut tokio::sync::broadcast::Receiver<Event>,
) -> workbench_core::asks::PendingAsk {
    loop {
        match tokio::time::timeout(Duration::from_secs(15), rx.recv()).await {
            Ok(Ok(Event::Ask { ask })) => return ask,
            Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("no ask arrived: {other:?}"),
        }
    }
}

async fn interactive() -> (Workbench, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[stdio("asker", &["--legacy"])]);
    let mut options = fast();
    options.interactive = true;
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "asker").await;
    (wb, dir)
}

#[tokio::test]
async fn an_elicitation_is_answered_by_a_person_and_the_server_gets_the_form() {
    let (wb, _dir) = interactive().await;
    let mut rx = wb.subscribe();
    let call = {
        let wb = wb.clone();
        tokio::spawn(async move {
            wb.call_tool(
                "asker",
                "ask_user",
                json!({ "message": "Who are you?" }),
                CallOptions::default(),
            )
            .await
        })
    };
    let ask = next_ask(&mut rx).await;
    assert_eq!(ask.kind, AskKind::Elicitation);
    assert_eq!(ask.server, "asker");
    assert_eq!(ask.params["message"], "Who are you?");
    assert_eq!(ask.params["requestedSchema"]["required"], json!(["name"]));
    assert_eq!(wb.asks().pending().len(), 1);
    wb.asks()
        .answer(
            ask.id,
            Answer::Result(json!({ "action": "accept", "content": { "name": "Ada", "age": 36 } })),
        )
        .unwrap();
    let out = call.await.unwrap().unwrap();
    assert_eq!(out.result["structuredContent"]["action"], "accept");
    assert_eq!(out.result["structuredContent"]["content"]["name"], "Ada");
    assert!(wb.asks().pending().is_empty());
    // Answering twice is an error, not a panic.
    assert!(
        wb.asks()
            .answer(ask.id, Answer::Refuse("late".into()))
            .is_err()
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn a_sampling_request_is_answered_by_hand_or_refused() {
    let (wb, _dir) = interactive().await;
    let mut rx = wb.subscribe();
    let ask_llm = |wb: Workbench| {
        tokio::spawn(async move {
            wb.call_tool(
                "asker",
                "ask_llm",
                json!({ "question": "6 x 7?" }),
                CallOptions::default(),
            )
            .await
        })
    };
    let call = ask_llm(wb.clone());
    let ask = next_ask(&mut rx).await;
    assert_eq!(ask.kind, AskKind::Sampling);
    assert_eq!(ask.params["messages"][0]["content"]["text"], "6 x 7?");
    wb.asks()
        .answer(
            ask.id,
            Answer::Result(json!({ "role": "assistant", "content": { "type": "text", "text": "42" }, "model": "by-hand" })),
        )
        .unwrap();
    let out = call.await.unwrap().unwrap();
    assert_eq!(
        out.result["content"][0]["text"],
        "The model (by-hand) said: 42"
    );

    let call = ask_llm(wb.clone());
    let ask = next_ask(&mut rx).await;
    wb.asks()
        .answer(ask.id, Answer::Refuse("not now".into()))
        .unwrap();
    let out = call.await.unwrap().unwrap();
    assert_eq!(out.result["isError"], true);
    assert!(
        out.result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not now")
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn headless_asks_are_declined_at_once_and_roots_are_what_the_user_set() {
    let (wb, _dir) = start(&[stdio("headless", &["--legacy"])]).await;
    ready(&wb, "headless").await;
    let out = wb
        .call_tool("headless", "ask_user", json!({}), CallOptions::default())
        .await
        .unwrap();
    let text = out.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    // Not advertised, so the server's SDK declines on our behalf.
    assert_eq!(text, "action: decline; content: null");
    roots_set_by_the_user_reach(&wb, "headless").await;
    wb.shutdown().await;
}

/// Offer a root to `server` and check its `list_roots` tool sees it.
pub async fn roots_set_by_the_user_reach(wb: &Workbench, server: &str) {
    wb.set_roots(
        server,
        vec![json!({ "uri": "file:///work/project", "name": "project" })],
    )
    .await
    .unwrap();
    let out = wb
        .call_tool(server, "list_roots", json!({}), CallOptions::default())
        .await
        .unwrap();
    assert!(
        out.result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("file:///work/project"),
        "{}",
        out.result
    );
}

/// A server asking 100 times at once: at most 8 wait for the person, the
/// rest are declined at once; "decline all from this server" ends the
/// others; the server keeps working.
#[tokio::test]
async fn a_hundred_concurrent_elicitations_are_capped_and_can_be_declined_together() {
    let (wb, _dir) = interactive().await;
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let wb = wb.clone();
            tokio::spawn(async move {
                wb.call_tool(
                    "asker",
                    "ask_user",
                    json!({ "message": format!("question {i}") }),
                    CallOptions::default(),
                )
                .await
            })
        })
        .collect();
    let cap = workbench_core::asks::MAX_WAITING_PER_SERVER;
    // Those over the cap end without anyone answering; `cap` wait.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let ended = calls.iter().filter(|c| c.is_finished()).count();
        if ended == 100 - cap && wb.asks().pending().len() == cap {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{ended} ended, {} waiting",
            wb.asks().pending().len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(wb.asks().decline_all("asker", "declined by the user"), cap);
    assert!(wb.asks().pending().is_empty());
    for c in calls {
        let out = tokio::time::timeout(Duration::from_secs(10), c)
            .await
            .expect("every call ends")
            .unwrap();
        if let Ok(out) = out {
            assert_ne!(out.result["structuredContent"]["action"], "accept");
        }
    }
    let out = wb
        .call_tool(
            "asker",
            "echo",
            json!({ "message": "still here" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "still here");
    wb.shutdown().await;
}
