//! `mcpwb skills` and `mcpwb skill` against the demo server's skills
//! (SEP-2640): listed without reading a file, one loaded and checked
//! against its listing, its files read and checked one by one. (What a
//! server that lies about a file gets is played by the conformance suite's
//! client scenarios: `cargo xtask conformance`.)

use serde_json::Value;

use super::{demo_config, mcpwb, stderr, stdout};

#[test]
fn skills_are_listed_loaded_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    // A second server serving a folder of its own skills, one with a
    // nested folder of references.
    let skills = dir.path().join("skills");
    std::fs::create_dir_all(skills.join("triage/notes")).unwrap();
    std::fs::write(
        skills.join("triage/SKILL.md"),
        "---\nname: triage\ndescription: Sort incoming bugs by severity.\n---\n\nRead notes/levels.md.\n",
    )
    .unwrap();
    std::fs::write(
        skills.join("triage/notes/levels.md"),
        "S1: down\nS2: broken\n",
    )
    .unwrap();
    let cfg = demo_config(
        dir.path(),
        &[(
            "mine",
            &["--name", "mine", "--skills", skills.to_str().unwrap()],
        )],
    );
    let listed = mcpwb(&["--config", &cfg, "--json", "skills"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let all: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let names = |server: &str| -> Vec<String> {
        all.as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == server)
            .unwrap()["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("demo"), ["pdf-processing", "release-notes"]);
    assert_eq!(names("mine"), ["triage"]);

    let loaded = mcpwb(&["--config", &cfg, "skill", "mine", "triage", "--verify"]);
    let text = stdout(&loaded);
    assert!(loaded.status.success(), "{text}{}", stderr(&loaded));
    assert!(
        text.contains("SKILL.md") && text.contains("✓ as listed"),
        "{text}"
    );
    assert!(
        text.contains("notes/levels.md") && text.contains("Read notes/levels.md."),
        "{text}"
    );
    let file = mcpwb(&[
        "--config",
        &cfg,
        "skill",
        "mine",
        "triage",
        "--file",
        "notes/levels.md",
    ]);
    assert_eq!(stdout(&file), "S1: down\nS2: broken\n");
    // Only what the entry lists is read; an unknown skill is said so.
    let outside = mcpwb(&[
        "--config",
        &cfg,
        "skill",
        "mine",
        "triage",
        "--file",
        "../../etc/passwd",
    ]);
    assert!(!outside.status.success());
    assert!(
        stderr(&outside).contains("lists no file"),
        "{}",
        stderr(&outside)
    );
    let unknown = mcpwb(&["--config", &cfg, "skill", "demo", "nope"]);
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("lists no skill named \"nope\""),
        "{}",
        stderr(&unknown)
    );
}
