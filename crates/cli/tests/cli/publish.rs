//! `mcpwb publish check`: a server's folder checked as its author would
//! before publishing — the files, and with --run each way started with
//! each host's PATH (the demo server as a bundle's command; the real
//! mcp-server-time from PyPI through uvx where `cargo xtask test` installed
//! uv: on the shell's PATH, not on Claude Desktop's).

use std::path::Path;

use serde_json::{Value, json};

use super::tap::in_home;
use super::{demo_server, stderr, stdout};

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

fn publish(dir: &Path, args: &[&str], path: &str) -> std::process::Output {
    in_home(dir)
        .args(["publish", "check"])
        .arg(dir.join("server"))
        .args(args)
        .env("PATH", path)
        .env("UV_CACHE_DIR", uv_cache())
        .env("UV_PYTHON_DOWNLOADS", "never")
        .output()
        .unwrap()
}

fn uv_cache() -> std::path::PathBuf {
    std::env::var_os("MCPWB_THIRD_PARTY")
        .map(|t| Path::new(&t).parent().unwrap().join("uv-cache"))
        .unwrap_or_else(|| std::env::temp_dir().join("mcpwb-test-uv-cache"))
}

#[test]
fn a_clean_folder_is_ready_and_a_faulty_one_exits_1_with_each_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = d.join("server");
    std::fs::create_dir_all(&server).unwrap();
    std::fs::write(
        server.join("server.json"),
        json!({ "$schema": SCHEMA, "name": "io.github.example/notes", "description": "Notes.",
                "version": "0.4.0", "remotes": [{ "type": "streamable-http", "url": "https://notes.example.com/mcp" }] })
        .to_string(),
    )
    .unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let clean = publish(d, &[], &path);
    assert!(
        clean.status.success(),
        "{}{}",
        stdout(&clean),
        stderr(&clean)
    );
    assert!(
        stdout(&clean).contains("nothing found: ready to publish"),
        "{}",
        stdout(&clean)
    );
    std::fs::write(
        server.join("server.json"),
        json!({ "$schema": SCHEMA, "name": "notes", "description": "Notes.", "version": "latest",
                "packages": [{ "registryType": "npm", "identifier": "notes-mcp", "version": "0.4.0",
                               "runtimeHint": "npx", "transport": { "type": "stdio" } }] })
        .to_string(),
    )
    .unwrap();
    let faulty = publish(d, &["--json"], &path);
    assert_eq!(faulty.status.code(), Some(1), "{}", stderr(&faulty));
    let report: Value = serde_json::from_slice(&faulty.stdout).unwrap();
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    for code in [
        "publish.name-format",
        "publish.version-range",
        "publish.ownership-missing",
        "host.windows-launcher",
    ] {
        assert!(codes.contains(&code), "{code} not in {codes:?}");
    }
    assert!(
        report["runs"].as_array().unwrap().is_empty(),
        "nothing starts without --run"
    );
}

#[test]
fn run_starts_each_way_as_each_host_would_and_compares_a_bundles_tools() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = d.join("server");
    std::fs::create_dir_all(&server).unwrap();
    let demo = demo_server().display().to_string();
    std::fs::write(
        server.join("manifest.json"),
        json!({ "manifest_version": "0.3", "name": "demo", "version": "0.1.0", "description": "The demo",
                "author": { "name": "tests" },
                "server": { "type": "binary", "entry_point": demo, "mcp_config": { "command": demo, "args": ["--name", "bundled"] } },
                "tools": [{ "name": "echo" }, { "name": "get_weather" }] })
        .to_string(),
    )
    .unwrap();
    let python = super::python();
    if python.is_some() {
        std::fs::write(
            server.join("server.json"),
            json!({ "$schema": SCHEMA, "name": "io.github.example/demo", "description": "The demo.", "version": "0.1.0",
                    "packages": [{ "registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19",
                                   "runtimeHint": "uvx", "transport": { "type": "stdio" } }] })
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            server.join("README.md"),
            "# demo\nmcp-name: io.github.example/demo\n",
        )
        .unwrap();
    }
    // uvx where a person's shell has it: a folder of their own on PATH.
    let bin = python
        .as_deref()
        .map(|p| Path::new(p).parent().unwrap().display().to_string());
    let path = match &bin {
        Some(b) => format!("{b}:{}", std::env::var("PATH").unwrap_or_default()),
        None => std::env::var("PATH").unwrap_or_default(),
    };
    let mut c = in_home(d);
    c.args(["publish", "check"])
        .arg(&server)
        .args(["--run"])
        .env("PATH", &path);
    if let Some(p) = &python {
        c.env("UV_PYTHON", p)
            .env("UV_CACHE_DIR", uv_cache())
            .env("UV_PYTHON_DOWNLOADS", "never");
    }
    let out = c.output().unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    for host in ["terminal", "Claude Desktop", "VS Code"] {
        assert!(
            text.contains(&format!(
                "manifest.json mcp_config in {host}: started, 25 tools"
            )),
            "{host}: {text}"
        );
    }
    assert!(
        text.contains("seen: declared, not served: get_weather"),
        "{text}"
    );
    if python.is_some() {
        assert!(
            text.contains("server.json package 1 (pypi) in terminal: started, 2 tools"),
            "{text}"
        );
        assert!(
            text.contains("server.json package 1 (pypi) in Claude Desktop: did not start: command \"uvx\" not found"),
            "{text}"
        );
        assert!(
            text.contains("why: works in a terminal, fails in Claude Desktop: `uvx` is"),
            "{text}"
        );
    }
}

#[test]
fn run_puts_the_doctor_on_what_each_host_started() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = d.join("server");
    std::fs::create_dir_all(&server).unwrap();
    let demo = demo_server().display().to_string();
    let manifest = |args: Value| {
        json!({ "manifest_version": "0.3", "name": "demo", "version": "0.1.0", "description": "The demo",
                "author": { "name": "tests" },
                "server": { "type": "binary", "entry_point": demo, "mcp_config": { "command": demo, "args": args } } })
        .to_string()
    };
    // A tool whose schema requires a property it does not declare: hosts
    // that check schemas refuse it; the files alone cannot show it.
    std::fs::write(
        server.join("manifest.json"),
        manifest(json!(["--fault", "doctor-schemas"])),
    )
    .unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let out = publish(d, &["--run", "--json"], &path);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{report:#}");
    for run in runs {
        assert_eq!(run["started"], true, "{run:#}");
        let found: Vec<&str> = run["doctor"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["code"].as_str())
            .collect();
        assert!(
            found.contains(&"schema.required-not-a-property"),
            "{}: {found:?}",
            run["host"]
        );
    }
    let ghost: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "schema.required-not-a-property")
        .collect();
    assert_eq!(ghost.len(), 1, "once, not once per host: {report:#}");
    assert_eq!(ghost[0]["item"], "tool required_ghost");
    assert_eq!(ghost[0]["pointer"], "/inputSchema/required");
    assert!(!ghost[0]["fix"].as_str().unwrap().is_empty());

    // The same server without the fault: the doctor finds no error (the
    // demo's create_order has constraints Gemini drops: warnings).
    std::fs::write(server.join("manifest.json"), manifest(json!([]))).unwrap();
    let out = publish(d, &["--run"], &path);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("manifest.json mcp_config in Claude Desktop: started, 25 tools")
            && text.contains("the doctor: 0 errors, 2 warnings")
            && text.contains("warning provider.gemini-enum [tool create_order"),
        "{text}"
    );
}
