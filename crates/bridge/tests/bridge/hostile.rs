//! What a caller of the bridge may try, played for real (the table of
//! attacks: `tests/hostile/README.md`).

use super::*;

/// `mcpwb serve --bare --tools PATTERN`: a name outside the pattern is not
/// passed on to the one server (played: a tool outside it ran).
#[tokio::test]
async fn bare_mode_keeps_to_the_tool_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let calls = calls(&wb, dir.path());
    let bridge = Bridge::new(
        calls.clone(),
        BridgeOptions {
            only: vec!["alpha".into()],
            tools: vec!["echo".into()],
            bare: true,
            headless: true,
            ..BridgeOptions::default()
        },
    );
    bridge.settled(Duration::from_secs(10)).await;
    assert!(
        bridge.tool("echo").is_some(),
        "the pattern's tool is served"
    );
    assert!(
        bridge.tool("add").is_none(),
        "a tool outside --tools got through"
    );
    assert!(bridge.tool("not_listed_yet").is_none());
    // Without a pattern, a name not listed yet still goes to the one server.
    let open = Bridge::new(
        calls,
        BridgeOptions {
            only: vec!["alpha".into()],
            bare: true,
            headless: true,
            ..BridgeOptions::default()
        },
    );
    open.settled(Duration::from_secs(10)).await;
    assert!(open.tool("not_listed_yet").is_some());
    wb.shutdown().await;
}

/// What the bridge relays holds the servers' answers: its rows in the
/// traffic log (and so the Traffic view and its export) are masked with
/// every server's secrets.
#[tokio::test]
async fn the_bridges_own_rows_are_masked() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    wb.traffic()
        .set_secrets("alpha", vec!["alpha-secret-5150".into()]);
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    let said = call(
        &c,
        "alpha__echo",
        json!({ "message": "the key is alpha-secret-5150" }),
    )
    .await;
    // The caller gets what it asked for...
    assert!(said.to_string().contains("alpha-secret-5150"));
    // ...and the log keeps none of it, neither the server's rows nor the bridge's.
    let rows = wb.traffic().entries(None);
    assert!(
        rows.iter()
            .any(|e| e.server.starts_with(workbench_core::traffic::BRIDGE_ROWS)),
        "the bridge recorded its rows"
    );
    for e in &rows {
        assert!(
            !e.body.contains("alpha-secret-5150"),
            "{}: {}",
            e.server,
            e.body
        );
    }
    let mut out = Vec::new();
    wb.traffic().export_jsonl(None, &mut out).unwrap();
    assert!(
        !String::from_utf8(out)
            .unwrap()
            .contains("alpha-secret-5150")
    );
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

/// A project's `.mcp.json` entry named like one of the person's servers
/// inherits none of its grants (played: a shadowing entry ran the user
/// server's allowed tools), and `--approve read-only` does not take a
/// project's server at its word; the person's own server keeps both.
#[tokio::test]
async fn a_project_entry_shadowing_a_users_server_inherits_none_of_its_grants() {
    use workbench_calls::{ApproveMode, Asking, Verdict};
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("mcp.json");
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let entry = json!({ "command": demo(), "args": ["--name", "alpha"] });
    std::fs::write(
        &user,
        json!({ "mcpServers": { "alpha": entry } }).to_string(),
    )
    .unwrap();
    // The grants the person gave their own `alpha` (rules from before
    // owners were recorded, so held for the user's file only).
    std::fs::write(
        dir.path().join("settings.json"),
        json!({ "agent": {
            "tool_policies": { "alpha/add": "allow", "alpha/fail": "deny" },
            "trusted_servers": ["alpha"]
        } })
        .to_string(),
    )
    .unwrap();
    let verdicts = |config: ConfigFile| {
        let dir = dir.path().to_path_buf();
        async move {
            let wb = Workbench::start(&config, WorkbenchOptions::default());
            wb.settle(Duration::from_secs(20)).await;
            let calls = calls(&wb, &dir);
            let catalog = wb.catalog();
            for _ in 0..200 {
                if catalog.tools().iter().any(|t| t.server == "alpha") {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            let def = |tool: &str| {
                catalog
                    .tools()
                    .into_iter()
                    .find(|t| t.server == "alpha" && t.tool["name"] == tool)
                    .map(|t| t.tool)
                    .unwrap_or_else(|| panic!("alpha has no {tool}"))
            };
            let ask = |tool: &str, mode| {
                let definition = def(tool);
                calls.verdict(&Asking {
                    server: "alpha",
                    tool,
                    definition: &definition,
                    mode,
                    chat_allowed: None,
                })
            };
            let out = (
                ask("add", ApproveMode::None),
                ask("all_content_types", ApproveMode::Ask),
                ask("all_content_types", ApproveMode::ReadOnly),
                ask("fail", ApproveMode::All),
            );
            wb.shutdown().await;
            out
        }
    };
    let own = verdicts(ConfigFile::load(&user).unwrap()).await;
    assert_eq!(own.0, Verdict::Allow, "the person's allow holds");
    assert_eq!(
        own.1,
        Verdict::Allow,
        "a trusted server's read-only tool runs"
    );
    assert_eq!(own.2, Verdict::Allow);
    assert!(matches!(own.3, Verdict::Deny(_)));

    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": { "alpha": entry } }).to_string(),
    )
    .unwrap();
    let shadow = verdicts(ConfigFile::load_scoped(&user, Some(&project)).unwrap()).await;
    assert!(
        matches!(&shadow.0, Verdict::Deny(why) if why.contains("needs approval")),
        "the user's allow ran the project's entry: {:?}",
        shadow.0
    );
    assert_eq!(
        shadow.1,
        Verdict::Ask(None),
        "the user's trust carried over"
    );
    assert!(
        matches!(&shadow.2, Verdict::Deny(why) if why.contains("not taken at its word")),
        "--approve read-only took a project's server at its word: {:?}",
        shadow.2
    );
    assert!(
        matches!(shadow.3, Verdict::Deny(_)),
        "a deny holds for anyone"
    );
}
