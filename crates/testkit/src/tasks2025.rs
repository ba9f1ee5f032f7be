//! A hand-written stdio server speaking the 2025-11-25 form of tasks, which
//! no MCP library for Rust speaks (rmcp has only the 2026-07-28 extension):
//! `capabilities.tasks`, tools with `execution.taskSupport`, `tools/call`
//! with `params.task` answered `{"task": {...}}`, `tasks/get`,
//! `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel`, and
//! `notifications/tasks/status` on every change. The tools are the demo
//! server's task tools (`demo::tasked`): one that may run as a task, ones
//! that must — asking for input midway (`elicitation/create` with the
//! related-task `_meta`), failing, cancelled by the server midway.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

/// The poll interval the tasks suggest.
pub const POLL_MS: u64 = 100;
const RELATED: &str = "io.modelcontextprotocol/related-task";

#[derive(Clone)]
struct Task {
    id: String,
    status: &'static str,
    message: String,
    created: String,
    updated: String,
    ttl: Option<u64>,
    poll: u64,
    /// How long `tasks/get` about it takes to answer (its `status_ms`).
    status_ms: u64,
    /// The call's result, or the JSON-RPC error it failed with.
    outcome: Option<Result<Value, Value>>,
}

impl Task {
    fn json(&self) -> Value {
        json!({
            "taskId": self.id, "status": self.status, "statusMessage": self.message,
            "createdAt": self.created, "lastUpdatedAt": self.updated,
            "ttl": self.ttl, "pollInterval": self.poll
        })
    }
    fn terminal(&self) -> bool {
        matches!(self.status, "completed" | "failed" | "cancelled")
    }
}

fn now() -> String {
    rmcp::task_manager::current_timestamp()
}

#[derive(Clone)]
struct Shared {
    out: Arc<Mutex<std::io::Stdout>>,
    tasks: Arc<(Mutex<HashMap<String, Task>>, Condvar)>,
    /// Requests sent to the client, waiting for their answers, by id.
    waiting: Arc<Mutex<HashMap<i64, mpsc::Sender<Value>>>>,
    next: Arc<Mutex<i64>>,
}

impl Shared {
    fn send(&self, v: &Value) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    }

    /// Change a task and tell the client (`notifications/tasks/status`);
    /// false when the task already ended (a cancel came first).
    fn set(&self, id: &str, change: impl FnOnce(&mut Task)) -> bool {
        let (lock, changed) = &*self.tasks;
        let mut tasks = lock.lock().unwrap_or_else(|e| e.into_inner());
        let Some(task) = tasks.get_mut(id) else {
            return false;
        };
        if task.terminal() {
            return false;
        }
        change(task);
        task.updated = now();
        let note = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task.json() });
        drop(tasks);
        changed.notify_all();
        self.send(&note);
        true
    }

    /// Ask the client something for a task and wait for the answer.
    fn ask(&self, task: &str, method: &str, mut params: Value) -> Option<Value> {
        let id = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            *next += 1;
            *next
        };
        let (tx, rx) = mpsc::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, tx);
        params["_meta"] = json!({ RELATED: { "taskId": task } });
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        rx.recv_timeout(Duration::from_secs(600)).ok()
    }
}

fn text(t: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": t }], "isError": false })
}

/// The work of one task, on its own thread.
fn work(shared: Shared, id: String, tool: String, args: Value) {
    let steps = args["steps"].as_u64().unwrap_or(3).clamp(1, 100);
    let ms = args["step_ms"].as_u64().unwrap_or(300).min(60_000);
    let running = |message: String| {
        shared.set(&id, |t| {
            t.status = "working";
            t.message = message;
        })
    };
    let finish = |status: &'static str, message: &str, outcome: Result<Value, Value>| {
        shared.set(&id, |t| {
            t.status = status;
            t.message = message.to_string();
            t.outcome = Some(outcome);
        });
    };
    let pause = || std::thread::sleep(Duration::from_millis(ms));
    match tool.as_str() {
        "task_report" | "task_batch" => {
            for i in 1..=steps {
                if !running(format!("step {i} of {steps}")) {
                    return;
                }
                pause();
            }
            finish(
                "completed",
                "done",
                Ok(text(&format!("{tool} done after {steps} steps"))),
            );
        }
        "task_approval" => {
            if !shared.set(&id, |t| {
                t.status = "input_required";
                t.message = "waiting for approval".into();
            }) {
                return;
            }
            let schema = json!({ "type": "object", "properties": { "approve": { "type": "boolean", "title": "Approve" } }, "required": ["approve"] });
            let answer = shared.ask(
                &id,
                "elicitation/create",
                json!({ "message": "Approve the demo job?", "requestedSchema": schema }),
            );
            let approved = answer
                .as_ref()
                .is_some_and(|a| a["action"] == "accept" && a["content"]["approve"] == true);
            if !running("finishing".into()) {
                return;
            }
            pause();
            finish(
                "completed",
                "done",
                Ok(text(if approved {
                    "approved and done"
                } else {
                    "not approved: nothing done"
                })),
            );
        }
        "task_failing" => {
            if !running("step 1 of 2".into()) {
                return;
            }
            pause();
            let error =
                json!({ "code": -32603, "message": "the demo job failed on purpose at step 2" });
            finish("failed", "failed at step 2", Err(error));
        }
        _ => {
            if !running("step 1 of 2".into()) {
                return;
            }
            pause();
            let error = json!({ "code": -32603, "message": "the server cancelled the task" });
            finish("cancelled", "cancelled by the server", Err(error));
        }
    }
}

fn tools() -> Value {
    let mut tools = crate::demo::task_tools(true);
    for t in &mut tools {
        t["title"] = json!(format!(
            "{} (2025-11-25)",
            t["title"].as_str().unwrap_or_default()
        ));
    }
    json!({ "tools": tools })
}

/// Serve stdin/stdout until stdin ends.
pub fn serve() -> std::io::Result<()> {
    let shared = Shared {
        out: Arc::new(Mutex::new(std::io::stdout())),
        tasks: Arc::default(),
        waiting: Arc::default(),
        next: Arc::default(),
    };
    let mut made = 0u64;
    for line in std::io::stdin().lock().lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification
        };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // An answer to one of our requests.
            let waiting = id.as_i64().and_then(|id| {
                shared
                    .waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id)
            });
            if let Some(tx) = waiting {
                let _ = tx.send(msg.get("result").cloned().unwrap_or(Value::Null));
            }
            continue;
        };
        let p = &msg["params"];
        let answer = |r: Result<Value, Value>| match r {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        };
        let unknown =
            |task: &str| Err(json!({ "code": -32602, "message": format!("no task {task}") }));
        let task_id = p["taskId"].as_str().unwrap_or_default().to_string();
        let reply = match method {
            "initialize" => Ok(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {
                    "tools": {},
                    "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }
                },
                "serverInfo": { "name": "tasks-2025", "title": "Demo tasks (2025-11-25 form)", "version": "1.0.0" }
            })),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(tools()),
            "tools/call" => {
                let tool = p["name"].as_str().unwrap_or_default().to_string();
                let known = crate::demo::task_tools(true)
                    .iter()
                    .any(|t| t["name"] == tool.as_str());
                match (known, p.get("task")) {
                    (false, _) => {
                        Err(json!({ "code": -32602, "message": format!("no tool named {tool}") }))
                    }
                    (true, Some(asked)) => {
                        made += 1;
                        let created = now();
                        let task = Task {
                            id: format!("task-{made}"),
                            status: "working",
                            message: "starting".into(),
                            created: created.clone(),
                            updated: created,
                            ttl: asked["ttl"].as_u64(),
                            poll: p["arguments"]["poll_ms"]
                                .as_u64()
                                .unwrap_or(POLL_MS)
                                .clamp(10, 60_000),
                            status_ms: p["arguments"]["status_ms"]
                                .as_u64()
                                .unwrap_or(0)
                                .min(10_000),
                            outcome: None,
                        };
                        let json = task.json();
                        shared
                            .tasks
                            .0
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(task.id.clone(), task.clone());
                        let (s, args) = (shared.clone(), p["arguments"].clone());
                        std::thread::spawn(move || work(s, task.id, tool, args));
                        Ok(json!({ "task": json }))
                    }
                    // Asked directly: the optional one runs; a required one
                    // is refused as the spec says (-32601).
                    (true, None) if tool == "task_report" => {
                        Ok(text("task_report done after 3 steps (not as a task)"))
                    }
                    (true, None) => Err(
                        json!({ "code": -32601, "message": format!("{tool} runs only as a task: call it with params.task") }),
                    ),
                }
            }
            "tasks/get" => {
                let get = || {
                    let tasks = shared.tasks.0.lock().unwrap_or_else(|e| e.into_inner());
                    tasks.get(&task_id).map(|t| (t.status_ms, t.json()))
                };
                // A slow status round answers late (and holds up the rest).
                if let Some((ms, _)) = get() {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                match get() {
                    Some((_, json)) => Ok(json),
                    None => unknown(&task_id),
                }
            }
            "tasks/list" => {
                let tasks = shared.tasks.0.lock().unwrap_or_else(|e| e.into_inner());
                let mut list: Vec<&Task> = tasks.values().collect();
                list.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
                Ok(json!({ "tasks": list.iter().map(|t| t.json()).collect::<Vec<_>>() }))
            }
            "tasks/cancel" => {
                let ended = shared
                    .tasks
                    .0
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&task_id)
                    .map(Task::terminal);
                match ended {
                    None => unknown(&task_id),
                    Some(true) => Err(
                        json!({ "code": -32602, "message": format!("task {task_id} already ended") }),
                    ),
                    Some(false) => {
                        let error = json!({ "code": -32603, "message": "the task was cancelled" });
                        shared.set(&task_id, |t| {
                            t.status = "cancelled";
                            t.message = "cancelled by the client".into();
                            t.outcome = Some(Err(error));
                        });
                        let tasks = shared.tasks.0.lock().unwrap_or_else(|e| e.into_inner());
                        Ok(tasks.get(&task_id).map(Task::json).unwrap_or_default())
                    }
                }
            }
            "tasks/result" => {
                // Waits for the end on a thread of its own: the loop goes on
                // reading (the answers to the task's questions come here).
                let (s, id) = (shared.clone(), id.clone());
                std::thread::spawn(move || {
                    let (lock, changed) = &*s.tasks;
                    let mut tasks = lock.lock().unwrap_or_else(|e| e.into_inner());
                    let outcome = loop {
                        match tasks.get(&task_id) {
                            None => {
                                break Err(
                                    json!({ "code": -32602, "message": format!("no task {task_id}") }),
                                );
                            }
                            Some(t) => match &t.outcome {
                                Some(Ok(result)) => {
                                    let mut result = result.clone();
                                    result["_meta"] = json!({ RELATED: { "taskId": task_id } });
                                    break Ok(result);
                                }
                                Some(Err(error)) => break Err(error.clone()),
                                None => {
                                    tasks = changed.wait(tasks).unwrap_or_else(|e| e.into_inner())
                                }
                            },
                        }
                    };
                    drop(tasks);
                    s.send(&match outcome {
                        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
                        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
                    });
                });
                continue;
            }
            other => {
                Err(json!({ "code": -32601, "message": format!("method not found: {other}") }))
            }
        };
        shared.send(&answer(reply));
    }
    Ok(())
}
