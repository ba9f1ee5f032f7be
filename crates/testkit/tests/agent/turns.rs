//! The loop: several steps over two servers, the step limit, Stop (the
//! stream and a call under way: the server is told), and the provider's
//! failures — each ends the turn with a clear error, 429 and 5xx retried.

use std::time::{Duration, Instant};

use serde_json::json;
use workbench_agent::{AgentEvent, ApproveMode, EndReason};
use workbench_core::ErrorCode;
use workbench_core::traffic::Direction;
use workbench_testkit::llm::{Fault, Turn};

use super::{Setup, bench, demo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_steps_over_two_servers() {
    let turns = vec![
        Turn::calls(&[("alpha__echo", json!({"message": "from alpha"}))]),
        Turn::calls(&[("beta__add", json!({"a": 40, "b": 2}))]),
        Turn::text("alpha echoed and beta added."),
    ];
    let b = bench(Setup {
        servers: vec![demo("alpha", &[]), demo("beta", &[])],
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("use both servers", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    let results = b.results(&chat);
    assert_eq!(results.len(), 2);
    assert!(results[0].2.contains("from alpha"));
    assert!(results[1].2.contains("42"));
    // Each call went to its own server.
    for (server, tool) in [("alpha", "echo"), ("beta", "add")] {
        let called = b.wb.traffic().entries(Some(server)).iter().any(|e| {
            e.direction == Direction::Outgoing
                && e.method.as_deref() == Some("tools/call")
                && e.body.contains(tool)
        });
        assert!(called, "{server} never got tools/call {tool}");
    }
    // The call record keeps server, arguments, result and duration.
    let calls = b.agent.store().session_calls(&chat).unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[1].server.as_str(), calls[1].tool.as_str()),
        ("beta", "add")
    );
    assert_eq!(calls[1].arguments, json!({"a": 40, "b": 2}));
    assert!(calls[1].duration_ms.unwrap() > 0.0);
    assert_eq!(
        calls[1].result.as_ref().unwrap()["structuredContent"]["sum"],
        42.0
    );
    assert_eq!(b.llm.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_step_limit_ends_the_turn_with_a_message() {
    let turns = (0..5)
        .map(|i| Turn::calls(&[("demo__echo", json!({"message": format!("round {i}")}))]))
        .collect();
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    b.agent
        .change_chat_options(&chat, |o| o.max_steps = Some(2))
        .unwrap();
    let end = b.turn_in(&chat, "loop", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::StepLimit);
    assert_eq!(b.llm.chats().len(), 2);
    let last = b.agent.messages(&chat).unwrap().pop().unwrap();
    let text = serde_json::to_string(&last.parts).unwrap();
    assert!(text.contains("Stopped after 2 steps"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_cancels_a_call_under_way_and_the_server_is_told() {
    let turns = vec![Turn::calls(&[(
        "demo__long_task",
        json!({"steps": 1000, "step_ms": 50}),
    )])];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    let sink = stop_at(&b, &chat, |e| matches!(e, AgentEvent::ToolProgress { .. }));
    let started = Instant::now();
    let end = b
        .turn_in(&chat, "run the long task", ApproveMode::All, sink)
        .await;
    assert_eq!(end, EndReason::Stopped);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(b.results(&chat)[0].1, "cancelled");
    let mut told = false;
    for _ in 0..60 {
        told =
            b.wb.traffic()
                .last_stderr("demo", 50)
                .iter()
                .any(|l| l.contains("long_task cancelled"));
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(told, "the server never saw notifications/cancelled");
    assert!(!b.agent.is_running(&chat));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_becomes_a_task_is_waited_for_with_its_status_on_the_card() {
    let turns = vec![
        Turn::calls(&[("demo__task_batch", json!({"steps": 3, "step_ms": 100}))]),
        Turn::text("the batch is done."),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("run the batch", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    // The model got the task's result, not its handle.
    let results = b.results(&chat);
    assert!(
        results[0].2.contains("task_batch done after 3 steps"),
        "{:?}",
        results[0]
    );
    let statuses: Vec<String> = b
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolTask { task, .. } => Some(task.status.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(statuses.first().map(String::as_str), Some("working"));
    assert_eq!(statuses.last().map(String::as_str), Some("completed"));
    // The history keeps the task the call ran as.
    let calls = b.agent.store().session_calls(&chat).unwrap();
    let task = calls[0].task.as_ref().expect("the task is in the history");
    assert_eq!(
        (task["status"].as_str(), task["form"].as_str()),
        (Some("completed"), Some("extension"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_cancels_a_task_under_way_with_tasks_cancel() {
    let turns = vec![Turn::calls(&[(
        "demo__task_batch",
        json!({"steps": 100, "step_ms": 100}),
    )])];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    let sink = stop_at(&b, &chat, |e| matches!(e, AgentEvent::ToolTask { .. }));
    let started = Instant::now();
    let end = b
        .turn_in(&chat, "run the batch", ApproveMode::All, sink)
        .await;
    assert_eq!(end, EndReason::Stopped);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(b.results(&chat)[0].1, "cancelled");
    let cancelled =
        b.wb.traffic().entries(Some("demo")).iter().any(|e| {
            e.direction == Direction::Outgoing && e.method.as_deref() == Some("tasks/cancel")
        });
    assert!(cancelled, "the server was sent tasks/cancel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_drops_a_stream_that_never_ends_and_keeps_what_came() {
    let turns = vec![Turn::fault(Fault::Hang)];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    let sink = stop_at(&b, &chat, |e| matches!(e, AgentEvent::TextDelta { .. }));
    let end = b.turn_in(&chat, "hang", ApproveMode::All, sink).await;
    assert_eq!(end, EndReason::Stopped);
    let answer = b.agent.messages(&chat).unwrap().pop().unwrap();
    let text = serde_json::to_string(&answer.parts).unwrap();
    assert!(
        text.contains("partia") && text.contains("Stopped."),
        "{text}"
    );
    // The chat can go on.
    b.llm.push([Turn::text("back")]);
    assert_eq!(
        b.turn_in(&chat, "again", ApproveMode::All, b.sink()).await,
        EndReason::Done
    );
}

/// A step stopped before the provider counted it: the context meter is the
/// last count plus what came since, not an estimate of the whole (which
/// read 344 after 3,220 in the window walk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_meter_keeps_the_providers_count_through_a_stop() {
    let mut counted = Turn::calls(&[("demo__echo", json!({ "message": "hi" }))]);
    counted.usage = Some(workbench_testkit::llm::ScriptedUsage {
        input: 3_000,
        output: 220,
        cached: 0,
    });
    let b = bench(Setup {
        turns: vec![counted, Turn::fault(Fault::Hang)],
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    let sink = stop_at(&b, &chat, |e| matches!(e, AgentEvent::TextDelta { .. }));
    let end = b
        .turn_in(&chat, "echo then hang", ApproveMode::All, sink)
        .await;
    assert_eq!(end, EndReason::Stopped);
    let used = meter_readings(&b);
    assert_eq!(used.len(), 2, "{used:?}");
    assert_eq!(used[0], 3_220, "the provider's count");
    assert!(
        used[1] >= 3_220 && used[1] < 3_220 + 200,
        "after the stop: {used:?}"
    );
    // The chat opened afresh (no turn running) says the same.
    let fresh = b.agent.chat_tools(&chat).unwrap().context.used;
    assert!(
        (3_220..3_220 + 200).contains(&fresh),
        "opened afresh: {fresh}"
    );
}

/// A provider that answers `prompt_tokens: 0` (the scripted LLM without a
/// usage, as some OpenAI-compatible servers do) has not counted: the meter
/// is the estimate, not 0 in the middle of a chat (seen in the window walk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_of_no_input_tokens_leaves_the_meter_on_its_estimate() {
    let b = bench(Setup {
        turns: vec![Turn::text("hello back")],
        ..Default::default()
    })
    .await;
    let chat = b.new_chat();
    let before = b.agent.chat_tools(&chat).unwrap().context.used;
    assert!(before > 0, "an empty chat's request has a size: {before}");
    let end = b.turn_in(&chat, "hello", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    let used = meter_readings(&b);
    assert!(
        used.len() == 1 && used[0] >= before,
        "after a turn: {used:?} (before it: {before})"
    );
    let fresh = b.agent.chat_tools(&chat).unwrap().context.used;
    assert!(fresh > before, "opened afresh: {fresh} (before: {before})");
}

/// What the context meter read after each step, in order.
fn meter_readings(b: &super::Bench) -> Vec<u32> {
    b.events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { context, .. } => Some(context.used),
            _ => None,
        })
        .collect()
}

/// A sink that keeps every event and stops the turn at the first one `at` picks.
fn stop_at(
    b: &super::Bench,
    chat: &str,
    at: impl Fn(&AgentEvent) -> bool + Send + Sync + 'static,
) -> workbench_agent::Sink {
    let (agent, stopper, events) = (b.agent.clone(), chat.to_string(), b.events.clone());
    std::sync::Arc::new(move |e| {
        if at(&e) {
            agent.stop(&stopper);
        }
        events.lock().unwrap().push(e);
    })
}

/// The error a turn's events ended with: its code, message and whether it may be retried.
fn error_said(events: &[AgentEvent]) -> Option<(ErrorCode, String, bool)> {
    events.iter().find_map(|e| match e {
        AgentEvent::Error {
            code,
            message,
            retryable,
        } => Some((*code, message.clone(), *retryable)),
        _ => None,
    })
}

/// Run one turn against a script and return the error event it ended with.
async fn failing(turns: Vec<Turn>) -> (ErrorCode, String, bool, usize, Vec<AgentEvent>) {
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (_, end) = b.turn("hello", ApproveMode::All, b.sink()).await;
    let events = b.events();
    let error = error_said(&events);
    match error {
        Some((code, message, retryable)) => {
            assert_eq!(end, EndReason::Error);
            (code, message, retryable, b.llm.chats().len(), events)
        }
        None => (
            ErrorCode::Internal,
            String::new(),
            false,
            b.llm.chats().len(),
            events,
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_is_not_retried_and_says_so() {
    let (code, message, retryable, requests, _) =
        failing(vec![Turn::fault(Fault::Unauthorized)]).await;
    assert_eq!(code, ErrorCode::ProviderAuth);
    assert!(
        message.contains("401") && message.contains("invalid api key (scripted)"),
        "{message}"
    );
    assert!(message.contains("Check the API key"), "{message}");
    assert!(!retryable);
    assert_eq!(requests, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_waited_out_as_the_provider_asks() {
    let mut limited = Turn::fault(Fault::RateLimited);
    limited.retry_after = Some(1);
    let started = Instant::now();
    let (code, _, _, requests, events) = failing(vec![limited, Turn::text("fine now")]).await;
    assert_eq!(code, ErrorCode::Internal, "no error expected: {events:?}");
    assert_eq!(requests, 2);
    let waited = events.iter().find_map(|e| match e {
        AgentEvent::Retrying {
            wait_ms, attempt, ..
        } => Some((*wait_ms, *attempt)),
        _ => None,
    });
    assert_eq!(waited, Some((1000, 1)));
    assert!(started.elapsed() >= Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    let turns = (0..6).map(|_| Turn::fault(Fault::ServerError)).collect();
    let (code, message, retryable, requests, _) = failing(turns).await;
    assert_eq!(code, ErrorCode::ProviderUnavailable);
    assert!(message.contains("500"), "{message}");
    assert!(retryable);
    assert_eq!(requests, 4, "one try and three retries");
}

/// A provider at an address where nothing listens (a local model server
/// not started): said as an address that cannot be reached, not as a
/// stream that "broke off" with reqwest's text (seen in the window walk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_nothing_listens_for_says_so() {
    let b = bench(Setup::default()).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let mut p = super::provider("compatible", &b.llm);
    p.base_url = Some(format!("http://127.0.0.1:{port}/v1/"));
    b.agent.save_provider(p, true).unwrap();
    let (chat, end) = b.turn("hello", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Error);
    // Kept: the question and the error, no empty answer between them.
    let kept: Vec<(String, usize)> = b
        .agent
        .messages(&chat)
        .unwrap()
        .into_iter()
        .map(|m| (m.role, m.parts.len()))
        .collect();
    assert_eq!(
        kept,
        [("user".into(), 1), ("assistant".into(), 1)],
        "{kept:?}"
    );
    let (code, message, retryable) = error_said(&b.events()).expect("an error");
    assert_eq!(code, ErrorCode::ProviderUnavailable);
    assert_eq!(
        message,
        format!(
            "could not reach OpenAI-compatible (provider \"compatible\") at http://127.0.0.1:{port}/v1/: nothing listens at 127.0.0.1:{port} (connection refused): is the server running?"
        )
    );
    assert!(retryable);
    // Settings' "Save and test" (one request, not streamed) says the same.
    let tested = b
        .agent
        .test_provider("compatible", "local-scripted")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        tested.contains(&format!(
            "nothing listens at 127.0.0.1:{port} (connection refused)"
        )),
        "{tested}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_or_cut_stream_ends_the_turn_and_offers_retry() {
    let (code, message, retryable, _, _) = failing(vec![Turn::fault(Fault::Malformed)]).await;
    assert_eq!(code, ErrorCode::ProviderFailed);
    assert!(message.contains("malformed"), "{message}");
    assert!(retryable);
    let (code, message, _, _, _) = failing(vec![Turn::fault(Fault::Cut)]).await;
    assert_eq!(code, ErrorCode::ProviderFailed);
    assert!(
        message.contains("ended before the answer was complete"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_a_failure_asks_again_from_the_same_message() {
    let turns = vec![Turn::fault(Fault::Cut), Turn::text("second time lucky")];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("hello", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Error);
    let handle = b
        .agent
        .regenerate(&chat, ApproveMode::All, b.sink())
        .unwrap();
    assert_eq!(handle.finished().await, EndReason::Done);
    let messages = b.agent.messages(&chat).unwrap();
    assert_eq!(messages.len(), 2, "the failed answer is replaced");
    assert_eq!(b.last_text(&chat), "second time lucky");
}

/// A message sent while a server is still starting (the app was just opened)
/// waits for it, says so, and the model gets its tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_message_waits_for_servers_still_starting() {
    let b = bench(Setup {
        servers: vec![demo("slow", &["--startup-delay-ms", "1500"])],
        turns: vec![
            Turn::calls(&[("slow__echo", json!({"message": "made it"}))]),
            Turn::text("done"),
        ],
        settled: false,
        ..Default::default()
    })
    .await;
    assert!(
        !b.wb.pending_tools().is_empty(),
        "the server should still be starting"
    );
    let (chat, end) = b.turn("echo", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    let said = b.events().iter().any(
        |e| matches!(e, AgentEvent::Notice { text } if text.contains("Waiting for slow to start")),
    );
    assert!(said, "the wait is said: {:?}", b.events());
    let first = &b.llm.chats()[0].body;
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"slow__echo"), "{offered:?}");
    let results = b.results(&chat);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].1, "ok");
    assert!(results[0].2.contains("made it"), "{results:?}");
}
