//! `mcpwb doctor`, `snapshot` and `diff` as a script in CI uses them: exit
//! codes, `--json` that parses, snapshots stable across runs, a breaking
//! change failing the build with a JUnit report.

use serde_json::Value;

use serde_json::json;

use super::{demo_config, mcpwb, python, stderr, stdout};

#[test]
fn doctor_exits_by_the_worst_finding_and_its_json_parses() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(
        dir.path(),
        &[
            ("planted", &["--fault", "doctor-names"]),
            ("broken", &["--fault", "exit-at-start"]),
        ],
    );
    // The demo server: warnings and notes, no error.
    let out = mcpwb(&["--config", &cfg, "doctor", "demo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("demo: 0 errors"), "{}", stdout(&out));
    let out = mcpwb(&["--config", &cfg, "doctor", "demo", "--fail-on", "warning"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the demo has warnings: {}",
        stdout(&out)
    );
    // Planted names: errors; exit 1, and the JSON says which.
    let out = mcpwb(&["--config", &cfg, "--json", "doctor", "planted"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let findings = v["servers"][0]["findings"].as_array().unwrap();
    let invalid = findings
        .iter()
        .find(|f| f["code"] == "name.invalid")
        .unwrap();
    assert_eq!(invalid["item"], "tool has space");
    assert_eq!(invalid["severity"], "error");
    assert!(!invalid["why"].as_str().unwrap().is_empty());
    // A server that does not start: exit 4.
    let out = mcpwb(&["--config", &cfg, "--timeout", "5", "doctor", "nosuch"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    // One that fails at start: why, with the end of what it said on stderr.
    let out = mcpwb(&["--config", &cfg, "--timeout", "5", "doctor", "broken"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "during the handshake; its stderr ended: demo server: exiting at start on purpose"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn snapshots_are_stable_and_diff_fails_the_build_on_a_breaking_change() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    for path in [&a, &b] {
        let out = mcpwb(&[
            "--config",
            &cfg,
            "snapshot",
            "demo",
            "-o",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let (ta, tb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert_eq!(ta, tb, "two snapshots of one server differ");
    // The same surface, file against the live server: no change.
    let out = mcpwb(&[
        "--config",
        &cfg,
        "diff",
        a.to_str().unwrap(),
        "demo",
        "--fail-on",
        "breaking",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("no changes"));
    // A tool gone and a required argument added: breaking, exit 1, JUnit.
    let mut old: Value = serde_json::from_str(&ta).unwrap();
    let tools = old["tools"].as_array_mut().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap().clone();
    let mut renamed = echo.clone();
    renamed["name"] = "echo_old".into();
    tools.push(renamed);
    std::fs::write(&a, old.to_string()).unwrap();
    let junit = dir.path().join("diff.xml");
    let out = mcpwb(&[
        "--config",
        &cfg,
        "--json",
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--fail-on",
        "breaking",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["breaking"], 1, "{v}");
    assert_eq!(v["changes"][0]["code"], "tool.removed");
    assert_eq!(v["changes"][0]["item"], "tool echo_old");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<failure") && xml.contains("tool.removed"),
        "{xml}"
    );
    // Without --fail-on, a breaking change is reported, not failed.
    let out = mcpwb(&[
        "--config",
        &cfg,
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("breaking  tool.removed"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_list_whose_cursor_repeats_is_listed_at_once_and_the_doctor_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[("loop", &["--fault", "repeated-cursor"])]);
    // What the pages gave, at once (it waited 10 s and listed nothing).
    let started = std::time::Instant::now();
    let out = mcpwb(&["--config", &cfg, "--timeout", "30", "tools", "loop"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("first") && text.contains("second"), "{text}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "waited {:?} for the list",
        started.elapsed()
    );
    // The doctor: a finding with the loop, the tools it could read checked.
    let out = mcpwb(&["--config", &cfg, "--json", "doctor", "loop"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let findings = v["servers"][0]["findings"].as_array().unwrap();
    assert!(
        !findings.iter().any(|f| f["code"] == "server.not-ready"),
        "{findings:?}"
    );
    let looped = findings
        .iter()
        .find(|f| f["code"] == "list.repeated-cursor")
        .unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!(looped["severity"], "error");
    assert!(
        looped["seen"].as_str().unwrap().contains("page-2"),
        "{looped}"
    );
    // The listed tools were examined as usual (no annotations on them).
    assert!(
        findings
            .iter()
            .any(|f| f["item"].as_str().unwrap_or("").contains("first")),
        "{findings:?}"
    );
}

/// The era trap, end to end on the official Python SDK: a tool that asks
/// with ctx.elicit fails in the 2026-07-28 era with what happened and the
/// two ways out, and `doctor --eras` names it from the History.
#[test]
fn a_tool_that_asks_the_old_way_is_explained_and_named_by_the_doctor() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("server.py"),
        include_str!("../../../../tests/fixtures/sdk_elicit.py"),
    )
    .unwrap();
    // A name of its own: the History is shared by this binary's tests.
    let name = format!("asks-{}", std::process::id());
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { &name: {
            "command": python, "args": ["server.py"], "cwd": dir.path(),
            "protocolVersion": "2026-07-28"
        } } })
        .to_string(),
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    let out = mcpwb(&["--config", &cfg, "call", &name, "confirm"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("elicitation/create") && said.contains("\"protocolVersion\": \"2025-11-25\""),
        "{said}"
    );
    let out = mcpwb(&["--config", &cfg, "--json", "doctor", &name, "--eras"]);
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let found = report["servers"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "era.asks-the-old-way")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(found["item"], "tool confirm", "{found}");
    assert!(
        found["seen"]
            .as_str()
            .unwrap()
            .contains("elicitation/create"),
        "{found}"
    );
}

/// A stdio server that stays up once its stdin has ended.
const OUTLIVES_STDIN: &str = include_str!("../../../../tests/fixtures/outlives_stdin.py");

/// How a host stops a stdio server (its stdin closed, then signals): one
/// that outlives its stdin is said, with what ended it; the demo, which
/// exits on its stdin's end, is not.
#[test]
fn a_server_that_outlives_its_stdin_is_said_by_the_doctor() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("server.py"), OUTLIVES_STDIN).unwrap();
    let lingers = json!({ "command": "python3", "args": ["server.py"], "cwd": dir.path() });
    let cfg = demo_config(dir.path(), &[]);
    let mut all: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    all["mcpServers"]["lingers"] = lingers;
    std::fs::write(&cfg, all.to_string()).unwrap();
    let outlives = |server: &str| -> Option<Value> {
        let out = mcpwb(&["--config", &cfg, "--json", "doctor", server, "--eras"]);
        let report: Value = serde_json::from_str(stdout(&out).trim())
            .unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        report["servers"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "stdio.outlives-stdin")
            .cloned()
    };
    let found = outlives("lingers").expect("said of the server that lingers");
    assert_eq!(found["severity"], "warning", "{found}");
    assert!(
        found["seen"]
            .as_str()
            .unwrap_or_default()
            .contains("SIGTERM ended it"),
        "{found}"
    );
    assert_eq!(outlives("demo"), None, "the demo exits on its stdin's end");
}
