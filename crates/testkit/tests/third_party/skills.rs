//! Skills (SEP-2640) served by someone else's implementation: the official
//! TypeScript SDK's skills extension (`@modelcontextprotocol/server`, its
//! `ext/skills/node` serving a folder), over stdio. The workbench lists its
//! skills without reading them, loads one (its SKILL.md checked against
//! the listing), reads a file (checked against the digest and size it
//! promised).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use workbench_core::config::ConfigFile;
use workbench_core::{Workbench, WorkbenchOptions};

/// The TypeScript SDK's server package, installed by `cargo xtask test`
/// into `target/third-party/ts-sdk`.
fn sdk() -> Option<PathBuf> {
    let dir = std::env::var_os("MCPWB_THIRD_PARTY").map(PathBuf::from)?;
    let sdk = dir.join("ts-sdk");
    assert!(
        sdk.join("node_modules/@modelcontextprotocol/server/dist/ext/skills")
            .is_dir(),
        "MCPWB_THIRD_PARTY is set but {} has no @modelcontextprotocol/server with ext/skills",
        sdk.display()
    );
    Some(sdk)
}

#[tokio::test]
async fn skills_served_by_the_typescript_sdk_list_load_and_verify() {
    let Some(third_party) = sdk() else {
        eprintln!("skipped: MCPWB_THIRD_PARTY is not set (cargo xtask test sets it)");
        return;
    };
    // The script beside the SDK's node_modules (its imports resolve there).
    let dir = tempfile::tempdir().unwrap();
    let script = third_party.join(format!("ts-skills-server-{}.mjs", std::process::id()));
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/third_party/ts_skills_server.mjs"
        ),
        &script,
    )
    .unwrap();
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": { "ts": { "command": "node", "args": [script, skills] } } })
            .to_string(),
    )
    .unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    wb.settle(Duration::from_secs(30)).await;
    let mut listed = Vec::new();
    for _ in 0..400 {
        listed = wb.skills_of("ts");
        if listed.len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let _ = std::fs::remove_file(&script);
    let mut names: Vec<String> = listed.iter().map(workbench_core::skills::name_of).collect();
    names.sort();
    assert_eq!(names, ["pdf-processing", "release-notes"], "{listed:#?}");
    // Listed, not read: no resources/read went out yet.
    let reads = wb
        .traffic()
        .entries(Some("ts"))
        .iter()
        .filter(|e| e.method.as_deref() == Some("resources/read"))
        .count();
    assert_eq!(reads, 0, "nothing of a skill is read before it is loaded");

    let loaded = wb
        .load_skill("ts", "pdf-processing", Some(Duration::from_secs(20)))
        .await
        .expect("the skill loads");
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert!(loaded.text.contains("# PDF processing"), "{}", loaded.text);
    assert!(
        loaded.files.iter().any(|f| f.path == "references/FORMS.md"),
        "{:?}",
        loaded.files
    );
    let file = wb
        .skill_file(
            "ts",
            "pdf-processing",
            "references/FORMS.md",
            Some(Duration::from_secs(20)),
        )
        .await
        .expect("the file is read");
    assert_eq!(file.problem, None, "as its digest and size promised");
    let on_disk =
        std::fs::read_to_string(format!("{skills}/pdf-processing/references/FORMS.md")).unwrap();
    assert_eq!(file.text.as_deref(), Some(on_disk.as_str()));
    wb.shutdown().await;
}
