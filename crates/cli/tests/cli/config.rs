//! `mcpwb config ...` on temp files, a throwaway keychain namespace and the
//! demo server.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::{BIN, stderr, stdout};

/// `mcpwb` with a temp HOME (its settings and data there too) and its own
/// keychain namespace.
pub(super) fn run(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .env("HOME", home)
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-cli-test-{}", std::process::id()),
        )
        .output()
        .unwrap()
}

pub(super) fn namespace() -> String {
    format!("mcpwb-cli-test-{}", std::process::id())
}

const FILE: &str = "// my servers\n{\n  \"mcpServers\": {\n    \"old\": { \"command\": \"x\" } // keep this\n  },\n  \"theirSetting\": true\n}\n";

#[test]
fn add_edit_rename_disable_remove_change_only_their_entries() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(&cfg, FILE).unwrap();
    let c = cfg.to_str().unwrap();
    let ok = |args: &[&str]| {
        let mut all = vec!["--config", c, "config"];
        all.extend_from_slice(args);
        let out = run(dir.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        out
    };
    ok(&[
        "add",
        "files",
        "--command",
        "npx",
        "--arg",
        "-y",
        "--arg",
        "pkg",
        "--env",
        "A=1",
    ]);
    ok(&["edit", "files", "--cwd", "/srv", "--unset", "env"]);
    ok(&["rename", "files", "fs"]);
    ok(&["disable", "old"]);
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(text.starts_with("// my servers\n"), "{text}");
    assert!(text.contains("// keep this") && text.contains("\"theirSetting\": true"));
    let shown: Value = serde_json::from_slice(&ok(&["--json", "show"]).stdout).unwrap();
    assert_eq!(
        shown,
        json!({
            "old": { "command": "x", "disabled": true },
            "fs": { "command": "npx", "args": ["-y", "pkg"], "cwd": "/srv" }
        })
    );
    // The command after `--`, as other hosts' `mcp add` take it: every word
    // after it is the server's, flags included.
    ok(&[
        "add", "fs2", "--env", "B=2", "--", "npx", "-y", "pkg", "--env", "C=3",
    ]);
    let shown: Value = serde_json::from_slice(&ok(&["--json", "show", "fs2"]).stdout).unwrap();
    assert_eq!(
        shown["fs2"],
        json!({ "command": "npx", "args": ["-y", "pkg", "--env", "C=3"], "env": { "B": "2" } }),
        "{shown}"
    );
    ok(&["remove", "fs2"]);
    ok(&["enable", "old"]);
    ok(&["remove", "fs"]);
    let shown: Value = serde_json::from_slice(&ok(&["--json", "show"]).stdout).unwrap();
    assert_eq!(
        shown,
        json!({ "old": { "command": "x", "disabled": false } })
    );
    // The previous version is kept beside the file.
    assert!(dir.path().join("mcp.json.bak").exists());

    // Mistakes: one line, a meaningful exit code, the file untouched.
    let before = std::fs::read_to_string(&cfg).unwrap();
    for (args, code) in [
        (vec!["remove", "nope"], 4),
        (vec!["add", "old", "--command", "y"], 2),
        (vec!["add", "twice", "--command", "y", "--", "z"], 2),
        (vec!["add", "nothing"], 2),
        (
            vec!["add", "both", "--command", "y", "--url", "http://h/mcp"],
            2,
        ),
        (vec!["rename", "old", "old2"], 0),
    ] {
        let mut all = vec!["--config", c, "config"];
        all.extend(args.iter().copied());
        let out = run(dir.path(), &all);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        if code != 0 {
            assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
            assert_eq!(std::fs::read_to_string(&cfg).unwrap(), before);
        }
    }
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{ \"mcpServers\": { \"a\": } }").unwrap();
    let out = run(
        dir.path(),
        &[
            "--config",
            broken.to_str().unwrap(),
            "config",
            "add",
            "z",
            "--command",
            "q",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("broken.json:1:"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "{ \"mcpServers\": { \"a\": } }"
    );
}

#[test]
fn validate_import_export_and_discover() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(&cfg, FILE).unwrap();
    let c = cfg.to_str().unwrap();
    // A Cursor config in its documented place.
    let cursor = dir.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::write(
        &cursor,
        r#"{ "mcpServers": { "old": { "command": "theirs" },
             "remote": { "url": "https://example.com/mcp", "headers": { "X": "${env:X}" } } } }"#,
    )
    .unwrap();
    let found = run(dir.path(), &["--config", c, "--json", "config", "discover"]);
    let found: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(found[0]["dialect"], "cursor");
    assert_eq!(found[0]["servers"], 2);

    let dry = run(
        dir.path(),
        &[
            "--config",
            c,
            "config",
            "import",
            cursor.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("would import 1 server from"),
        "{}",
        stdout(&dry)
    );
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        FILE,
        "a dry run writes nothing"
    );

    let real = run(
        dir.path(),
        &["--config", c, "config", "import", cursor.to_str().unwrap()],
    );
    assert_eq!(real.status.code(), Some(0), "{}", stderr(&real));
    assert!(
        stdout(&real).contains("kept ours (same name"),
        "{}",
        stdout(&real)
    );
    let valid = run(dir.path(), &["--config", c, "config", "validate"]);
    assert_eq!(valid.status.code(), Some(0));
    assert!(stdout(&valid).contains("2 servers, 0 problems"));
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(text.contains("// keep this") && text.contains("${env:X}"));

    let exported = run(
        dir.path(),
        &["--config", c, "config", "export", "--to", "claude-code"],
    );
    let doc: Value = serde_json::from_slice(&exported.stdout).unwrap();
    assert_eq!(
        doc["mcpServers"]["remote"]["headers"]["X"], "${X}",
        "translated for Claude Code"
    );
    assert_eq!(doc["mcpServers"]["old"]["command"], "x");

    std::fs::write(
        &cfg,
        r#"{ "mcpServers": { "bad": { "type": "http", "url": "ftp://x" } } }"#,
    )
    .unwrap();
    let invalid = run(dir.path(), &["--config", c, "config", "validate"]);
    assert_eq!(invalid.status.code(), Some(3));
    assert!(
        stdout(&invalid).contains("/mcpServers/bad/url"),
        "{}",
        stdout(&invalid)
    );
}

#[test]
fn a_project_file_is_merged_and_edits_go_back_to_the_file_an_entry_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(&cfg, FILE).unwrap();
    let c = cfg.to_str().unwrap();
    let p = project.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "--config",
            c,
            "--project",
            p,
            "config",
            "add",
            "team",
            "--url",
            "https://t.example/mcp",
            "--scope",
            "project",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(
        dir.path(),
        &["--config", c, "--project", p, "config", "disable", "team"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let project_text = std::fs::read_to_string(project.join(".mcp.json")).unwrap();
    assert!(
        project_text.contains("\"disabled\": true"),
        "{project_text}"
    );
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        FILE,
        "the user file is untouched"
    );
    let shown = run(
        dir.path(),
        &["--config", c, "--project", p, "--json", "config", "show"],
    );
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert!(shown.get("old").is_some() && shown.get("team").is_some());
}

/// A file with both `"mcpServers"` and VS Code's `"servers"`: every entry is
/// shown and can be edited where it is (played: `config show` hid the
/// `"servers"` ones while a refusal sent the person there).
#[test]
fn a_file_with_both_server_keys_shows_and_edits_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        r#"{ "mcpServers": { "a": { "command": "x" } }, "servers": { "b": { "command": "y" } } }"#,
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let json = |args: &[&str]| -> Value {
        let mut all = vec!["--json", "--config", c, "config"];
        all.extend_from_slice(args);
        let out = run(dir.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null)
    };
    let shown = json(&["show"]);
    assert_eq!(shown["a"]["command"], "x", "{shown}");
    assert_eq!(shown["b"]["command"], "y", "{shown}");
    assert_eq!(json(&["show", "b"])["b"]["command"], "y");
    json(&["edit", "b", "--cwd", "/srv"]);
    json(&["rename", "b", "c"]);
    let text = std::fs::read_to_string(&cfg).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["servers"]["c"],
        json!({ "command": "y", "cwd": "/srv" }),
        "{text}"
    );
    assert!(
        doc["mcpServers"].get("b").is_none() && doc["mcpServers"].get("c").is_none(),
        "{text}"
    );
}

/// The person renames or changes their own server with `mcpwb config`: the
/// approvals they gave it follow it (they are kept per entry and what it
/// runs, so a change outside the workbench would lose them).
#[test]
fn approvals_follow_an_entry_the_person_renames_or_changes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    let c = cfg.to_str().unwrap();
    let ok = |args: &[&str]| {
        let mut all = vec!["--config", c, "config"];
        all.extend_from_slice(args);
        let out = run(dir.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    };
    ok(&["add", "files", "--command", "x"]);
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        json!({ "agent": { "tool_policies": { "files/read": "allow" }, "trusted_servers": ["files"] } })
            .to_string(),
    )
    .unwrap();
    ok(&["rename", "files", "fs"]);
    ok(&["edit", "fs", "--arg", "--verbose"]);
    let agent: Value = serde_json::from_str::<Value>(&std::fs::read_to_string(&settings).unwrap())
        .unwrap()["agent"]
        .clone();
    assert_eq!(
        agent["tool_policies"],
        json!({ "fs/read": "allow" }),
        "{agent}"
    );
    assert_eq!(agent["trusted_servers"], json!(["fs"]), "{agent}");
    let owner = agent["grant_owners"]["fs"].as_str().unwrap_or_default();
    assert!(owner.contains("#fs@"), "{agent}");
    assert!(agent["grant_owners"].get("files").is_none(), "{agent}");
}

/// A host's file that cannot be read says why, where a person looks: the
/// line `config discover` prints for it, and the import's error names the
/// file and the line and column. A file that lists no server imports
/// nothing and says so.
#[test]
fn a_hosts_file_that_cannot_be_imported_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    let c = cfg.to_str().unwrap();
    let codex = dir.path().join(".codex/config.toml");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::write(&codex, "model = \"o3\"\n[mcp_servers.x\ncommand = \"a\"\n").unwrap();
    let found = run(dir.path(), &["--config", c, "config", "discover"]);
    assert!(
        stdout(&found)
            .contains("(not a codex config: line 2, column 15: unclosed table, expected `]`)"),
        "{}",
        stdout(&found)
    );
    let out = run(
        dir.path(),
        &["--config", c, "config", "import", codex.to_str().unwrap()],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(&format!(
            "{}: not a codex config: line 2, column 15",
            codex.display()
        )),
        "{}",
        stderr(&out)
    );
    std::fs::write(&codex, "model = \"o3\"\n").unwrap();
    let out = run(
        dir.path(),
        &["--config", c, "config", "import", codex.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(codex) lists no server to import: nothing changed"),
        "{}",
        stdout(&out)
    );
    assert!(!cfg.exists(), "nothing written");
}
