//! `mcpwb test` as CI runs it: a 200-case suite against the demo server
//! over stdio, the whole command timed (start, connect, 200 calls with
//! their assertions, the history written, exit), median of 5 runs; beside
//! it `mcpwb call` once, the floor every command stands on. Prints; asserts
//! nothing. Target: < 2 s. `cargo xtask bench` (release builds).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn timed(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let out = cmd.output().unwrap();
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let demo = workbench_testkit::demo_server_path();
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "demo": { "command": demo, "args": ["--name", "demo"] } } })
            .to_string(),
    )
    .unwrap();
    let kinds = [
        json!({ "tool": "echo", "arguments": { "message": "hello" }, "expect": { "text": { "equals": "hello" } } }),
        json!({ "tool": "add", "arguments": { "a": 2, "b": 3 }, "expect": { "json": { "/sum": { "equals": 5 } }, "outputSchema": true } }),
        json!({ "tool": "fail", "expect": { "isError": true } }),
        json!({ "tool": "all_content_types", "expect": { "text": { "matches": "." } } }),
    ];
    let cases: Vec<serde_json::Value> = (0..200)
        .map(|i| {
            let mut c = kinds[i % kinds.len()].clone();
            c["name"] = json!(format!("case {i}"));
            c
        })
        .collect();
    let suite = dir.path().join("two-hundred.json");
    std::fs::write(
        &suite,
        json!({ "server": "demo", "cases": cases }).to_string(),
    )
    .unwrap();
    let mcpwb = |args: &[&str]| {
        let mut c = Command::new(MCPWB);
        c.args(["--trust", "--config"])
            .arg(&config)
            .args(args)
            .env("HOME", dir.path())
            .env("MCPWB_DATA_DIR", dir.path().join("data"))
            .env("MCPWB_SETTINGS", dir.path().join("settings.json"))
            .env_remove("MCPWB_CONFIG");
        c
    };
    let suite_arg = suite.display().to_string();
    // The bench wrote the suite: it is trusted as the person's own would be
    // (an untrusted suite is refused before anything runs).
    // Warm the page cache and the store.
    timed(&mut mcpwb(&["test", "--trust-suites", &suite_arg]));
    let test = median(
        (0..5)
            .map(|_| timed(&mut mcpwb(&["test", "--trust-suites", &suite_arg])))
            .collect(),
    );
    let one = median(
        (0..5)
            .map(|_| {
                timed(&mut mcpwb(&[
                    "call",
                    "demo",
                    "echo",
                    "--args",
                    r#"{"message":"x"}"#,
                ]))
            })
            .collect(),
    );
    println!(
        "mcpwb test, a 200-case suite against the demo server over stdio: {:.0} ms median of 5 (target < 2000 ms); mcpwb call once: {:.0} ms",
        test.as_secs_f64() * 1000.0,
        one.as_secs_f64() * 1000.0
    );
}
