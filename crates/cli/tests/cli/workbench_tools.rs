//! `mcpwb serve --workbench` with the official Python SDK's client as the
//! coding agent: the servers' state, a call whose server asks a question
//! (parked, answered), a fixture server's file edited and the server
//! restarted through the tool (the new tool in the returned diff), the
//! person's suite run and a clone's untrusted one refused, the doctor, the
//! traffic, the skill. `mcpwb agent-help` prints that skill.

use std::process::Command;

use serde_json::json;

use super::{BIN, demo_server, python, stderr, stdout};

#[test]
fn a_coding_agent_drives_the_authors_loop_through_the_workbenchs_tools() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let home = root.join("home");
    // A server whose tools come from a file beside it: the author edits it.
    let py = root.join("py");
    std::fs::create_dir_all(&py).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/tools_from_file.py"
        ),
        py.join("server.py"),
    )
    .unwrap();
    let tools_json = py.join("tools.json");
    std::fs::write(
        &tools_json,
        json!([{ "name": "hello", "description": "Says hello to whoever asks", "inputSchema": { "type": "object" } }]).to_string(),
    )
    .unwrap();
    let config = root.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": {
            "demo": { "command": demo_server(), "args": ["--name", "demo"] },
            "py": { "command": "python3", "args": [py.join("server.py")] }
        } })
        .to_string(),
    )
    .unwrap();
    // The person's own suite (beside the workbench's mcp.json): trusted.
    let own = home.join(".config/mcp-workbench/suites");
    std::fs::create_dir_all(&own).unwrap();
    let own_suite = own.join("mine.json");
    std::fs::write(
        &own_suite,
        json!({ "server": "demo", "cases": [
            { "name": "adds", "tool": "add", "arguments": { "a": 2, "b": 3 }, "expect": { "json": { "/sum": { "equals": 5 } } } },
            { "name": "meant to fail", "tool": "add", "arguments": { "a": 1, "b": 1 }, "expect": { "json": { "/sum": { "equals": 3 } } } }
        ] })
        .to_string(),
    )
    .unwrap();
    // The person denies one of demo's tools in Settings.
    std::fs::write(
        home.join(".config/mcp-workbench/settings.json"),
        json!({ "agent": { "tool_policies": { "demo/echo": "deny" } } }).to_string(),
    )
    .unwrap();
    // A project's suite nobody trusted (it came with a clone).
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".mcp-workbench/suites")).unwrap();
    std::fs::write(
        project.join(".mcp-workbench/suites/theirs.json"),
        json!({ "server": "demo", "cases": [{ "name": "wipes", "tool": "increment_counter" }] })
            .to_string(),
    )
    .unwrap();
    let out = Command::new(&python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/bridge/agent_client.py"
        ))
        .args([
            BIN.as_ref(),
            config.as_os_str(),
            project.as_os_str(),
            home.as_os_str(),
            tools_json.as_os_str(),
            own_suite.as_os_str(),
        ])
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-agent-tools-{}", std::process::id()),
        )
        .output()
        .unwrap();
    let (o, e) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{o}{e}");
    let seen: serde_json::Value =
        serde_json::from_str(o.lines().last().unwrap_or_default()).expect(&o);
    assert_eq!(seen["ok"], true, "{o}");
    assert!(
        seen["answered"]
            .as_str()
            .unwrap()
            .contains("\"name\":\"Ada\""),
        "{o}"
    );
    assert_eq!(seen["changes"], json!(["tool.added"]), "{o}");
    // The History keeps the agent's call as its own.
    let history = Command::new(BIN)
        .args(["--json", "history", "--origin", "agent"])
        .env("HOME", &home)
        .env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let listed = stdout(&history);
    assert!(listed.contains("ask_user"), "{listed}{}", stderr(&history));
    // And the call the person's rules refused, as refused.
    let rows: serde_json::Value = serde_json::from_str(&listed).expect(&listed);
    let denied: Vec<&serde_json::Value> = rows
        .as_array()
        .or_else(|| rows["calls"].as_array())
        .expect(&listed)
        .iter()
        .filter(|r| r["tool"] == "echo")
        .collect();
    assert_eq!(denied.len(), 1, "{listed}");
    assert_eq!(denied[0]["status"], "denied", "{listed}");
}

#[test]
fn agent_help_prints_the_skill() {
    let out = Command::new(BIN).arg("agent-help").output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.starts_with("---\nname: mcp-workbench-loop\ndescription: "),
        "{text}"
    );
    for tool in [
        "workbench_servers",
        "workbench_restart",
        "workbench_doctor",
        "workbench_call",
        "workbench_answer_input",
        "workbench_test",
        "workbench_diff",
        "workbench_traffic",
    ] {
        assert!(text.contains(tool), "{tool}");
    }
}

/// Over HTTP as the bridge (the install's token, loopback), only the
/// workbench's tools: listed, and one answers with its structured content.
/// A project's server the person has not trusted stays so: neither
/// restarted nor called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workbenchs_tools_are_served_over_http_too() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "demo": { "command": demo_server(), "args": ["--name", "demo"] } } }).to_string(),
    )
    .unwrap();
    let err = dir.path().join("serve.err");
    let mut server = Command::new(BIN)
        .args([
            "--config",
            &config.display().to_string(),
            "--trust",
            "serve",
            "--http",
            "0",
            "--workbench-only",
        ])
        .env("HOME", dir.path())
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-agent-tools-http-{}", std::process::id()),
        )
        .env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .current_dir(dir.path())
        .stderr(std::fs::File::create(&err).unwrap())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut said = String::new();
    for _ in 0..200 {
        said = std::fs::read_to_string(&err).unwrap_or_default();
        if said.contains("token") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let url = said
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("{said}"))
        .to_string();
    let token = said.rsplit(": ").next().unwrap().trim().to_string();
    let transport = StreamableHttpClientTransport::with_client(
        workbench_http::client().unwrap(),
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert!(
        names.iter().all(|n| n.starts_with("workbench_")),
        "only the workbench's: {names:?}"
    );
    assert_eq!(names.len(), 9, "{names:?}");
    let servers = client
        .call_tool(CallToolRequestParams::new("workbench_servers"))
        .await
        .unwrap();
    let v = serde_json::to_value(&servers).unwrap();
    assert_eq!(v["structuredContent"]["servers"][0]["name"], "demo", "{v}");
    assert_eq!(
        v["structuredContent"]["servers"][0]["state"], "ready",
        "{v}"
    );
    let _ = client.cancel().await;
    let _ = server.kill();
    let _ = server.wait();
}
