//! Tasks from the terminal: a call that becomes a task waits, its statuses
//! on stderr; `--no-wait` prints the task and leaves it running; `mcpwb
//! task get|list|cancel` asks about one later (an HTTP server keeps its
//! tasks across runs of mcpwb).

use serde_json::{Value, json};

use super::{http_demo, mcpwb};

#[test]
fn a_task_is_waited_for_with_its_statuses_on_stderr_or_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let demo = http_demo(dir.path(), &[]);
    let config = dir.path().join("mcp.json");
    let url = format!("http://{}/mcp", demo.addr);
    std::fs::write(
        &config,
        json!({ "mcpServers": { "web": { "type": "http", "url": url } } }).to_string(),
    )
    .unwrap();
    let config = config.to_str().unwrap();

    let out = mcpwb(&[
        "--config",
        config,
        "call",
        "--no-history",
        "web",
        "task_batch",
        "--args",
        r#"{"steps":2,"step_ms":100}"#,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "task_batch done after 2 steps"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(": working — step "), "{stderr}");
    assert!(
        stderr
            .lines()
            .last()
            .unwrap_or_default()
            .contains(": completed"),
        "{stderr}"
    );

    // Left running, then followed by its id.
    let out = mcpwb(&[
        "--config",
        config,
        "--json",
        "call",
        "--no-history",
        "--no-wait",
        "web",
        "task_batch",
        "--args",
        r#"{"steps":2,"step_ms":100}"#,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = made["task"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(made["result"]["resultType"], "task");
    let mut last = String::new();
    for _ in 0..50 {
        let out = mcpwb(&["--config", config, "task", "get", "web", &id]);
        last = String::from_utf8_lossy(&out.stdout).into_owned();
        if last.contains(": completed") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(last.starts_with(&format!("task {id}: completed")), "{last}");
    assert!(
        last.contains("task_batch done after 2 steps"),
        "the outcome is shown: {last}"
    );

    // A failed task is the call's failure: exit 6, the server's message.
    let out = mcpwb(&[
        "--config",
        config,
        "call",
        "--no-history",
        "web",
        "task_failing",
        "--args",
        r#"{"step_ms":10}"#,
    ]);
    assert_eq!(out.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed on purpose"));

    // The extension has no tasks/list: said, not guessed.
    let out = mcpwb(&["--config", config, "task", "list", "web"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tasks/list"));
}
