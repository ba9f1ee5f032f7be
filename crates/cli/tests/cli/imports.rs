//! `mcpwb config import`: what an import shows and where it goes.

#[allow(unused_imports)]
use super::*;

/// An import says what each server would run, and one from inside the
/// project folder goes to the project's file; the imported server waits
/// for trust.
#[test]
fn an_import_shows_command_lines_and_a_projects_file_stays_in_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join(".cursor")).unwrap();
    let theirs = project.join(".cursor/mcp.json");
    std::fs::write(
        &theirs,
        json!({ "mcpServers": { "files": { "command": "npx", "args": ["-y", "files mcp"] } } })
            .to_string(),
    )
    .unwrap();
    let proj = project.display().to_string();
    let file = theirs.display().to_string();
    let out = mcpwb(&[
        "config",
        "import",
        &file,
        "--dry-run",
        "--config",
        &cfg,
        "--project",
        &proj,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  files: npx -y 'files mcp'"),
        "{}",
        stdout(&out)
    );
    let out = mcpwb(&[
        "config",
        "import",
        &file,
        "--config",
        &cfg,
        "--project",
        &proj,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read_to_string(project.join(".mcp.json")).unwrap();
    assert!(written.contains("files mcp"), "{written}");
    assert!(!std::fs::read_to_string(&cfg).unwrap().contains("files"));
    let out = mcpwb_as_found(&["servers", "--config", &cfg, "--project", &proj]);
    assert!(stdout(&out).contains("not trusted"), "{}", stdout(&out));
}
