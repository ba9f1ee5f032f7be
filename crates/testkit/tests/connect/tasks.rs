//! Calls that become tasks, in both forms: the 2026-07-28 extension (the
//! demo server on rmcp, over stdio and HTTP) and 2025-11-25's `params.task`
//! (the hand-written `--tasks-2025` server). The caller gets each status as
//! it changes and the final result (or the failure, or the cancel) as if the
//! call had answered directly; cancelling sends `tasks/cancel`.

use serde_json::{Value, json};
use tokio::sync::mpsc;
use workbench_core::asks::{Answer, AskKind};
use workbench_core::traffic::Direction;
use workbench_core::{CallOptions, Error, ErrorCode, TaskForm, TaskState, Workbench};

use super::asks::next_ask;
use super::*;
use workbench_core::testing::RawCalls;

async fn one(entry: (String, Value), interactive: bool) -> (Workbench, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let name = entry.0.clone();
    let cfg = config(dir.path(), &[entry]);
    let mut options = fast();
    options.interactive = interactive;
    let wb = Workbench::start(&cfg, options);
    ready(&wb, &name).await;
    // The tools' `execution` decides how a 2025-11-25 call is asked: wait
    // for the list as the window and mcpwb do.
    for _ in 0..200 {
        if wb
            .catalog()
            .server(&name)
            .is_some_and(|c| !c.tools.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    (wb, dir)
}

fn tasks_2025(name: &str) -> (String, Value) {
    (
        name.to_string(),
        json!({ "command": BIN, "args": ["--tasks-2025"] }),
    )
}

/// Call `tool` and collect the statuses it went through.
async fn call(
    wb: &Workbench,
    server: &str,
    tool: &str,
    args: Value,
    as_task: bool,
) -> (
    workbench_core::Result<workbench_core::CallOutcome>,
    Vec<TaskState>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<TaskState>();
    let options = CallOptions {
        sink: Some(std::sync::Arc::new(tx)),
        as_task,
        ..CallOptions::default()
    };
    let out = wb.call_tool(server, tool, args, options).await;
    let mut seen = Vec::new();
    while let Ok(s) = rx.try_recv() {
        seen.push(s);
    }
    (out, seen)
}

fn statuses(seen: &[TaskState]) -> Vec<&str> {
    seen.iter().map(|s| s.status.as_str()).collect()
}

async fn a_task_runs_to_its_result(wb: &Workbench, server: &str, form: TaskForm) {
    // The tool says it runs only as a task, as the spec puts it.
    let definition = wb.catalog().tool(server, "task_batch").unwrap();
    assert_eq!(
        definition["execution"]["taskSupport"], "required",
        "{definition}"
    );
    let args = json!({ "steps": 3, "step_ms": 150 });
    let (out, seen) = call(wb, server, "task_batch", args, false).await;
    let out = out.unwrap();
    assert_eq!(
        out.result["content"][0]["text"], "task_batch done after 3 steps",
        "{}",
        out.result
    );
    let task = out.task.expect("the call ran as a task");
    assert_eq!((task.form, task.status.as_str()), (form, "completed"));
    // The steps were seen as they happened (polled: a step under a poll
    // interval may pass unseen on a loaded machine), then the end.
    assert_eq!(statuses(&seen).first(), Some(&"working"));
    assert_eq!(statuses(&seen).last(), Some(&"completed"));
    let steps = seen
        .iter()
        .filter(|s| {
            s.status_message
                .as_deref()
                .is_some_and(|m| m.starts_with("step "))
        })
        .count();
    assert!(steps >= 2, "{seen:?}");
    assert!(seen.iter().all(|s| s.task_id == task.task_id));
    assert!(!sent(wb, server, "tasks/get").is_empty(), "polled");
}

#[tokio::test]
async fn an_extension_task_is_followed_to_its_result_over_stdio_and_http() {
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    // The client declares the extension (the server chooses to make tasks).
    let declared = wb.traffic().entries(Some("ext")).iter().any(|e| {
        e.direction == Direction::Outgoing && e.body.contains("\"io.modelcontextprotocol/tasks\"")
    });
    assert!(declared, "the tasks extension is declared");
    a_task_runs_to_its_result(&wb, "ext", TaskForm::Extension).await;
    wb.shutdown().await;

    let demo = http_demo(&[]).await;
    let (wb, _dir) = one(
        ("web".into(), json!({ "type": "http", "url": demo.url })),
        false,
    )
    .await;
    a_task_runs_to_its_result(&wb, "web", TaskForm::Extension).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_2025_task_is_asked_with_params_task_and_its_result_fetched() {
    let (wb, _dir) = one(tasks_2025("old"), false).await;
    a_task_runs_to_its_result(&wb, "old", TaskForm::V2025).await;
    let call = &sent(&wb, "old", "tools/call")[0];
    assert!(call["params"]["task"]["ttl"].is_u64(), "{call}");
    assert_eq!(sent(&wb, "old", "tasks/result").len(), 1);
    // The server's list has it, ended.
    let list = wb.task_request("old", "list", None).await.unwrap();
    assert_eq!(
        list.result["tasks"][0]["status"], "completed",
        "{}",
        list.result
    );
    // An optional tool is called directly unless a task is asked for.
    let (out, seen) = call_optional(&wb, false).await;
    assert!(out.task.is_none() && seen.is_empty());
    assert!(
        out.result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not as a task")
    );
    let (out, _) = call_optional(&wb, true).await;
    assert_eq!(out.task.unwrap().form, TaskForm::V2025);
    wb.shutdown().await;
}

async fn call_optional(
    wb: &Workbench,
    as_task: bool,
) -> (workbench_core::CallOutcome, Vec<TaskState>) {
    let args = json!({ "steps": 1, "step_ms": 10 });
    let (out, seen) = call(wb, "old", "task_report", args, as_task).await;
    (out.unwrap(), seen)
}

async fn failures_read_as_the_call_failing(wb: &Workbench, server: &str) {
    let (out, seen) = call(wb, server, "task_failing", json!({ "step_ms": 50 }), false).await;
    match out {
        Err(Error::ServerError {
            method, message, ..
        }) => {
            assert_eq!(method, "tools/call");
            assert!(message.contains("failed on purpose"), "{message}");
        }
        other => panic!("a failed task is the call's error: {other:?}"),
    }
    assert_eq!(statuses(&seen).last(), Some(&"failed"));

    let (out, seen) = call(
        wb,
        server,
        "task_cancelled",
        json!({ "step_ms": 50 }),
        false,
    )
    .await;
    let e = out.unwrap_err();
    assert!(matches!(e, Error::TaskCancelled { .. }), "{e:?}");
    assert_eq!(e.code(), ErrorCode::Cancelled);
    assert_eq!(statuses(&seen).last(), Some(&"cancelled"));
    assert!(
        sent(wb, server, "tasks/cancel").is_empty(),
        "not cancelled by us"
    );
}

#[tokio::test]
async fn a_task_that_fails_or_is_cancelled_by_the_server_says_so_in_both_forms() {
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    failures_read_as_the_call_failing(&wb, "ext").await;
    wb.shutdown().await;
    let (wb, _dir) = one(tasks_2025("old"), false).await;
    failures_read_as_the_call_failing(&wb, "old").await;
    wb.shutdown().await;
}

/// Cancel a long task `when` it is where the caller says (after its first
/// status, or with a `tasks/get` in flight): the server is told once and
/// agrees, and the last status the caller saw is "cancelled".
async fn cancelling_tells_the_server(wb: &Workbench, server: &str, mid_status_round: bool) {
    let (tx, mut rx) = mpsc::unbounded_channel::<TaskState>();
    let cancel = tokio_util::sync::CancellationToken::new();
    let options = CallOptions {
        sink: Some(std::sync::Arc::new(tx)),
        cancel: Some(cancel.clone()),
        ..CallOptions::default()
    };
    let (wb2, server2) = (wb.clone(), server.to_string());
    // A slow status round (the server answers tasks/get after 600 ms) when
    // the cancel is to land in one.
    let status_ms = if mid_status_round { 600 } else { 0 };
    let running = tokio::spawn(async move {
        let args = json!({ "steps": 50, "step_ms": 100, "poll_ms": 10, "status_ms": status_ms });
        wb2.call_tool(&server2, "task_batch", args, options).await
    });
    let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap()
        .unwrap();
    if mid_status_round {
        for _ in 0..400 {
            if !sent(wb, server, "tasks/get").is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            !sent(wb, server, "tasks/get").is_empty(),
            "no tasks/get sent"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    cancel.cancel();
    let e = running.await.unwrap().unwrap_err();
    assert!(matches!(e, Error::Cancelled { .. }), "{e:?}");
    let asked = sent(wb, server, "tasks/cancel");
    assert_eq!(asked.len(), 1, "tasks/cancel sent {} times", asked.len());
    assert_eq!(asked[0]["params"]["taskId"], first.task_id.as_str());
    let mut last = first;
    while let Ok(next) = rx.try_recv() {
        last = next;
    }
    assert_eq!(
        last.status, "cancelled",
        "the caller was last told {last:?}"
    );
    // The server agrees it is cancelled.
    let got = wb
        .task_request(server, "get", Some(&last.task_id))
        .await
        .unwrap();
    assert_eq!(got.result["status"], "cancelled", "{}", got.result);
}

#[tokio::test]
async fn cancelling_a_task_sends_tasks_cancel_in_both_forms() {
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    cancelling_tells_the_server(&wb, "ext", false).await;
    wb.shutdown().await;
    let (wb, _dir) = one(tasks_2025("old"), false).await;
    cancelling_tells_the_server(&wb, "old", false).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_cancel_during_a_status_round_still_tells_the_server_in_both_forms() {
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    cancelling_tells_the_server(&wb, "ext", true).await;
    wb.shutdown().await;
    let (wb, _dir) = one(tasks_2025("old"), false).await;
    cancelling_tells_the_server(&wb, "old", true).await;
    wb.shutdown().await;
}

async fn input_is_put_to_the_person(wb: &Workbench, server: &str) {
    let mut events = wb.subscribe();
    let (wb2, server2) = (wb.clone(), server.to_string());
    let running = tokio::spawn(async move {
        let options = CallOptions::default();
        let args = json!({ "step_ms": 10 });
        wb2.call_tool(&server2, "task_approval", args, options)
            .await
    });
    let ask = next_ask(&mut events).await;
    assert_eq!(ask.kind, AskKind::Elicitation);
    assert_eq!(ask.params["message"], "Approve the demo job?");
    let yes = json!({ "action": "accept", "content": { "approve": true } });
    wb.asks().answer(ask.id, Answer::Result(yes)).unwrap();
    let out = running.await.unwrap().unwrap();
    assert_eq!(out.result["content"][0]["text"], "approved and done");
}

#[tokio::test]
async fn a_task_asking_for_input_gets_the_persons_answer_in_both_forms() {
    let (wb, _dir) = one(stdio("ext", &[]), true).await;
    input_is_put_to_the_person(&wb, "ext").await;
    // The extension's answer went with tasks/update, once.
    let updates = sent(&wb, "ext", "tasks/update");
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(
        updates[0]["params"]["inputResponses"]["approval"]["action"],
        "accept"
    );
    wb.shutdown().await;
    let (wb, _dir) = one(tasks_2025("old"), true).await;
    input_is_put_to_the_person(&wb, "old").await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_detached_call_returns_the_task_which_can_be_followed_later() {
    let demo = http_demo(&[]).await;
    let (wb, _dir) = one(
        ("web".into(), json!({ "type": "http", "url": demo.url })),
        false,
    )
    .await;
    let options = CallOptions {
        detach: true,
        ..CallOptions::default()
    };
    let args = json!({ "steps": 2, "step_ms": 100 });
    let out = wb
        .call_tool("web", "task_batch", args, options)
        .await
        .unwrap();
    let task = out.task.expect("the task handle");
    assert_eq!(out.result["resultType"], "task");
    assert_eq!(out.result["taskId"], task.task_id.as_str());
    let mut status = String::new();
    for _ in 0..50 {
        let got = wb
            .task_request("web", "get", Some(&task.task_id))
            .await
            .unwrap();
        status = got.result["status"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if status == "completed" {
            assert_eq!(
                got.result["result"]["content"][0]["text"],
                "task_batch done after 2 steps"
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, "completed");
    wb.shutdown().await;
}

#[tokio::test]
async fn an_extension_server_may_make_a_task_of_an_optional_tool() {
    // The client declared tasks, so the server chooses; the demo makes one.
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    let (out, seen) = call(&wb, "ext", "task_report", json!({ "step_ms": 10 }), false).await;
    let out = out.unwrap();
    assert_eq!(out.task.map(|t| t.form), Some(TaskForm::Extension));
    assert_eq!(statuses(&seen).last(), Some(&"completed"));
    wb.shutdown().await;
}

/// A call with a timeout whose task would run for 100 × 200 ms, polled
/// every 10 ms: cut at its deadline, the server told, the status rounds
/// kept to the floor (played: still polling after 90 s, 3,880 tasks/get).
async fn a_deadline_cuts_the_task(wb: &Workbench, server: &str) {
    let (tx, mut rx) = mpsc::unbounded_channel::<TaskState>();
    let options = CallOptions {
        sink: Some(std::sync::Arc::new(tx)),
        timeout: Some(Duration::from_millis(1500)),
        ..CallOptions::default()
    };
    let args = json!({ "steps": 100, "step_ms": 200, "poll_ms": 10 });
    let started = std::time::Instant::now();
    let e = wb
        .call_tool(server, "task_batch", args, options)
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert!(matches!(e, Error::Timeout { .. }), "{e:?}");
    assert!(took < Duration::from_secs(10), "cut after {took:?}");
    let gets = sent(wb, server, "tasks/get").len();
    // 1.5 s at the 100 ms floor: about 15 rounds, never hundreds.
    assert!(gets <= 20, "{gets} tasks/get in 1.5 s");
    let asked = sent(wb, server, "tasks/cancel");
    assert_eq!(asked.len(), 1, "tasks/cancel sent {} times", asked.len());
    let mut last = None;
    while let Ok(next) = rx.try_recv() {
        last = Some(next);
    }
    let last = last.unwrap();
    assert_eq!(last.status, "cancelled", "{last:?}");
    assert!(
        last.status_message
            .as_deref()
            .unwrap_or("")
            .contains("no result within"),
        "{last:?}"
    );
}

#[tokio::test]
async fn a_task_that_never_ends_is_cut_at_the_calls_deadline_in_both_forms() {
    let (wb, _dir) = one(stdio("ext", &[]), false).await;
    a_deadline_cuts_the_task(&wb, "ext").await;
    wb.shutdown().await;
    let (wb, _dir) = one(tasks_2025("old"), false).await;
    a_deadline_cuts_the_task(&wb, "old").await;
    wb.shutdown().await;
}
