//! A host's session saved as a suite: green on its first run against the
//! same server, whichever era the host spoke (the official Python SDK's
//! client as the host, in both); and what a session brings is someone
//! else's input — the suite runs only once trusted, and a `${env:…}` a host
//! sent is sent again as text, never read from the environment.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::tap::in_home;
use super::{BIN, demo_server, stderr, stdout};

/// A config with the demo server as `demo`, trusted by the person.
fn demo_config(dir: &Path) -> String {
    let config = dir.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "demo": { "command": demo_server(), "args": ["--name", "demo"] } } })
            .to_string(),
    )
    .unwrap();
    let config = config.display().to_string();
    let out = in_home(dir)
        .args(["--config", &config, "config", "trust", "demo"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    config
}

fn sessions(dir: &Path) -> Vec<Value> {
    let out = in_home(dir)
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let list: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stdout(&out)));
    list["sessions"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_hosts_session_saved_as_a_suite_passes_against_the_same_server_in_either_era() {
    let Ok(python) = std::env::var("MCPWB_PYTHON") else {
        eprintln!("MCPWB_PYTHON is not set: the Python SDK host is not played");
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/tap/python_host.py"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = demo_config(dir.path());
    for mode in ["legacy", "auto"] {
        let home = in_home(dir.path());
        let out = Command::new(&python)
            .args([
                script, "stdio", mode, BIN, "--config", &config, "tap", "--server", "demo",
            ])
            .envs(home.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .output()
            .unwrap();
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            out.status.success() && said.contains("\"ok\": true"),
            "{mode}: {said}"
        );
    }
    let kept = sessions(dir.path());
    assert_eq!(kept.len(), 2, "{kept:?}");
    let suites = dir.path().join("suites");
    for s in &kept {
        let (id, era) = (
            s["id"].to_string(),
            s["protocol"].as_str().unwrap_or("?").to_string(),
        );
        let name = format!("era-{}", era.replace('-', ""));
        // The server is named from the session (`tap --server demo`).
        let out = in_home(dir.path())
            .args([
                "--config", &config, "session", "to-suite", &id, "--name", &name, "--dir",
            ])
            .arg(&suites)
            .output()
            .unwrap();
        let said = stdout(&out);
        assert!(out.status.success(), "{era}: {said}{}", stderr(&out));
        assert!(
            said.contains("of demo") && said.contains("not trusted yet"),
            "{said}"
        );
        let file = suites.join(format!("{name}.json"));
        let suite: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        // The host's error call is expected as one.
        let fail = suite["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool"] == "fail")
            .expect("the fail call is a case");
        assert_eq!(fail["expect"]["isError"], true, "{suite}");
        // Not trusted: nothing runs until the person says so.
        let out = in_home(dir.path())
            .args(["--config", &config, "test"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(4),
            "{era}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        // Trusted: green against the same server, whichever era it speaks
        // with the workbench.
        let out = in_home(dir.path())
            .args(["--config", &config, "test", "--trust-suites"])
            .arg(&file)
            .output()
            .unwrap();
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{era}: {said}");
        assert!(said.contains("0 failed"), "{era}: {said}");
    }
}

#[test]
fn a_shared_sessions_reference_is_sent_as_text_and_its_suite_runs_only_once_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let config = demo_config(dir.path());
    // Someone's "bug repro": one echo whose argument reads a secret.
    let sent = "k=${env:WB_VICTIM_SECRET}";
    let file = dir.path().join("repro.jsonl");
    let lines = [
        json!({ "mcpwbSession": 1, "server": "demo", "command": "mcp-demo-server", "host": "someone", "protocol": "2025-11-25", "startedAt": 1, "endedAt": 2 }),
        json!({ "at": 1, "from": "host", "size": 1, "message": { "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": "echo", "arguments": { "message": sent } } } }),
        json!({ "at": 2, "from": "server", "size": 1, "message": { "jsonrpc": "2.0", "id": 7, "result": { "content": [{ "type": "text", "text": sent }] } } }),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let out = in_home(dir.path())
        .args(["--json", "session", "import"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let id = sessions(dir.path())[0]["id"].to_string();
    let suites = dir.path().join("suites");
    let out = in_home(dir.path())
        .args([
            "--config", &config, "session", "to-suite", &id, "--name", "repro", "--dir",
        ])
        .arg(&suites)
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("not trusted yet"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let suite = suites.join("repro.json");
    let run = |trust: bool| {
        let mut c = in_home(dir.path());
        c.args(["--config", &config, "--json", "test"])
            .args(trust.then_some("--trust-suites"))
            .arg(&suite)
            .env("WB_VICTIM_SECRET", "AKIAvictimSECRETvalue");
        c.output().unwrap()
    };
    let untrusted = run(false);
    assert_eq!(untrusted.status.code(), Some(4), "{}", stderr(&untrusted));
    let trusted = run(true);
    let said = format!("{}{}", stdout(&trusted), stderr(&trusted));
    assert!(trusted.status.success(), "{said}");
    assert!(
        !said.contains("AKIAvictim"),
        "the environment was read: {said}"
    );
    // The call sent what the host sent, and the server echoed it as text.
    let history = in_home(dir.path())
        .args(["--json", "history", "--origin", "suite"])
        .output()
        .unwrap();
    let rows = stdout(&history);
    assert!(rows.contains("${env:WB_VICTIM_SECRET}"), "{rows}");
    assert!(!rows.contains("AKIAvictim"), "{rows}");
}
