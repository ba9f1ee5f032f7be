//! One history for the window and the terminal: `mcpwb call` keeps its
//! calls (not with `--no-history`), `mcpwb history` lists and filters them
//! across runs, `history show ID` prints one whole.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{BIN, demo_config, stderr, stdout};

/// `mcpwb` with its own data folder and settings (nothing shared with
/// the other tests or the user).
fn mcpwb_in(home: &Path, args: &[&str]) -> std::process::Output {
    command_in(home, args).output().unwrap()
}

/// The command [`mcpwb_in`] runs, for a test that starts it and goes on.
pub(super) fn command_in(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("--trust")
        .args(args)
        .env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"));
    command
}

#[test]
fn calls_are_kept_across_runs_and_listed_filtered_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cfg = demo_config(home, &[]);
    let call = |tool: &str, args: &str, extra: &[&str]| {
        let mut a = vec!["call", "demo", tool, "--args", args, "--config", &cfg];
        a.extend_from_slice(extra);
        mcpwb_in(home, &a)
    };
    assert!(
        call("echo", r#"{"message":"first run"}"#, &[])
            .status
            .success()
    );
    assert_eq!(call("fail", "{}", &[]).status.code(), Some(1));
    let quiet = call("echo", r#"{"message":"not kept"}"#, &["--no-history"]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert!(call("add", r#"{"a":2,"b":3}"#, &[]).status.success());

    // A later run (a new process) sees them, newest first.
    let out = mcpwb_in(home, &["history", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["add", "fail", "echo"], "--no-history kept nothing");
    assert!(
        calls
            .iter()
            .all(|c| c["origin"] == "cli" && c["server"] == "demo")
    );
    assert_eq!(calls[0]["result"]["structuredContent"]["sum"], 5.0);
    assert_eq!(calls[1]["status"], "error");
    assert_eq!(calls[2]["arguments"]["message"], "first run");
    assert!(calls[2]["protocol"].is_string(), "{}", calls[2]);

    // Filters.
    let out = mcpwb_in(home, &["history", "demo", "--tool", "echo", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["calls"].as_array().unwrap().len(), 1);
    let out = mcpwb_in(home, &["history", "--status", "error", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["calls"][0]["tool"], "fail");
    let out = mcpwb_in(home, &["history", "--search", "first run"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("demo/echo") && text.contains("cli") && text.contains("ok"),
        "{text}"
    );
    let out = mcpwb_in(home, &["history", "--origin", "bridge"]);
    assert!(out.status.success());
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("no calls"), "{}", stderr(&out));

    // One call whole.
    let id = calls[0]["id"].as_i64().unwrap().to_string();
    let out = mcpwb_in(home, &["history", "show", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("demo/add") && text.contains("\"sum\": 5"),
        "{text}"
    );

    // ... or by the key made before the call (what `mcpwb test --json`
    // and the agent's workbench_call name).
    let key = calls[1]["key"].as_str().expect("every row has a key");
    let out = mcpwb_in(home, &["history", "show", key]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("demo/fail"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("key       {key}")),
        "{}",
        stdout(&out)
    );

    // Bad input says what is wrong.
    let out = mcpwb_in(home, &["history", "show", "no-such-key"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no call no-such-key"),
        "{}",
        stderr(&out)
    );
    let out = mcpwb_in(home, &["history", "show", "99999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no call 99999"), "{}", stderr(&out));
    let out = mcpwb_in(home, &["history", "--origin", "nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("window, chat, bridge"),
        "{}",
        stderr(&out)
    );
}

/// A call the server answered with an error took time worth keeping; one
/// refused before it was sent took none and has no messages of its own.
#[test]
fn a_failed_call_keeps_how_long_it_took_when_it_was_sent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cfg = home.join("mcp.json");
    std::fs::write(
        &cfg,
        serde_json::json!({ "mcpServers": { "demo": {
            "command": super::demo_server(), "excludeTools": ["fail"]
        } } })
        .to_string(),
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    let answered = mcpwb_in(home, &["call", "demo", "nope", "--config", &cfg]);
    assert_eq!(answered.status.code(), Some(6), "{}", stderr(&answered));
    let refused = mcpwb_in(home, &["call", "demo", "fail", "--config", &cfg]);
    assert_eq!(refused.status.code(), Some(4), "{}", stderr(&refused));

    let out = mcpwb_in(home, &["history", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    let (refused, answered) = (&calls[0], &calls[1]);
    assert_eq!(
        (refused["tool"].as_str(), answered["tool"].as_str()),
        (Some("fail"), Some("nope"))
    );
    assert!(
        answered["duration_ms"].as_f64().is_some_and(|d| d > 0.0),
        "{answered}"
    );
    assert!(refused["duration_ms"].is_null(), "{refused}");

    let shown = |row: &Value| {
        let out = mcpwb_in(home, &["history", "show", &row["id"].to_string()]);
        stdout(&out)
    };
    let text = shown(answered);
    assert!(
        text.contains("  duration  ") && text.contains("  traffic   rows "),
        "{text}"
    );
    let text = shown(refused);
    assert!(
        !text.contains("  duration  ") && !text.contains("  traffic "),
        "{text}"
    );
    assert!(
        text.contains("hidden by this server's includeTools/excludeTools"),
        "{text}"
    );
}

/// A call cut short by a kill: kept while it ran, and the next `mcpwb`
/// finds its process gone and says it was interrupted. Never lost.
#[test]
fn a_call_cut_short_by_a_kill_is_kept_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cfg = demo_config(home, &[]);
    let long = [
        "call",
        "demo",
        "long_task",
        "-a",
        "steps=100",
        "-a",
        "step_ms=100",
    ];
    let mut running = command_in(home, &long)
        .args(["--config", &cfg])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kept while it runs (after a second), then killed: no end is written.
    let listed = |args: &[&str]| -> Vec<Value> {
        let mut a = vec!["--json", "history", "--config", &cfg];
        a.extend_from_slice(args);
        serde_json::from_str::<Value>(&stdout(&mcpwb_in(home, &a))).unwrap()["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let mut seen = Vec::new();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        seen = listed(&["--tool", "long_task"]);
        if !seen.is_empty() {
            break;
        }
    }
    assert_eq!(seen.len(), 1, "kept while it runs");
    assert_eq!(seen[0]["status"], "pending", "{:?}", seen[0]);
    running.kill().unwrap();
    running.wait().unwrap();
    let after = listed(&["--tool", "long_task"]);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0]["status"], "failed", "{:?}", after[0]);
    assert!(
        after[0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("interrupted"),
        "{:?}",
        after[0]
    );
    assert_eq!(after[0]["arguments"]["steps"], 100);
}
