//! `mcpwb config tap|untap`: a host's own config (Claude Desktop, VS Code,
//! Cursor, Windsurf) routed through `mcpwb tap` and back, byte for byte;
//! a session asked for that is not kept.

use super::tap::{in_home, sessions};
use super::{demo_server, stdout};

/// Tap and Untap on a copy of each host's config: the entry runs through
/// the tap (a host running it makes a session), nothing else in the file
/// changes, and Untap gives the bytes back.
#[test]
fn tap_and_untap_route_a_hosts_entry_through_the_tap_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let demo = demo_server().display().to_string();
    let files = [
        (
            "claude_desktop_config.json",
            format!(
                "{{\n  \"mcpServers\": {{\n    \"demo\": {{\n      \"command\": \"{demo}\",\n      \"args\": [\"--name\", \"demo\"]\n    }},\n    \"web\": {{ \"url\": \"https://x.example/mcp\" }}\n  }},\n  \"globalShortcut\": \"Ctrl+Space\"\n}}\n"
            ),
        ),
        (
            "vscode-mcp.json",
            format!(
                "// VS Code's user mcp.json\n{{\n  \"inputs\": [{{ \"type\": \"promptString\", \"id\": \"k\", \"password\": true }}],\n  \"servers\": {{\n    \"demo\": {{ \"type\": \"stdio\", \"command\": \"{demo}\", \"env\": {{ \"K\": \"${{input:k}}\" }} }}, // trailing\n  }}\n}}\n"
            ),
        ),
        (
            "cursor-mcp.json",
            format!("{{\"mcpServers\":{{\"demo\":{{\"command\":\"{demo}\",\"args\":[]}}}}}}"),
        ),
        (
            "windsurf_mcp_config.json",
            format!(
                "{{\n\t\"mcpServers\": {{\n\t\t\"demo\": {{\n\t\t\t\"command\": \"{demo}\",\n\t\t\t\"disabled\": false,\n\t\t\t\"disabledTools\": []\n\t\t}}\n\t}}\n}}\n"
            ),
        ),
    ];
    for (file, text) in &files {
        let path = d.join(file);
        std::fs::write(&path, text).unwrap();
        let out = in_home(d)
            .args(["config", "tap", "demo", "--in"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}: {}", super::stderr(&out));
        let tapped = std::fs::read_to_string(&path).unwrap();
        // Only the entry's command and args changed.
        let strip = |t: &str| {
            t.lines()
                .filter(|l| !l.contains("\"command\"") && !l.contains("\"args\""))
                // A new key after the last one gives that one a comma.
                .map(|l| l.trim_end_matches(',').to_string())
                .collect::<Vec<_>>()
        };
        if text.lines().count() > 3 && !file.starts_with("vscode") {
            assert_eq!(strip(text), strip(&tapped), "{file}: {tapped}");
        }
        assert!(
            tapped.contains("\"tap\"")
                && tapped.contains("\"--name=demo\"")
                && tapped.contains("\"--keep\""),
            "{file}: {tapped}"
        );
        // A host running the entry: mcpwb itself, reading the host's file.
        if !file.starts_with("vscode") {
            let out = in_home(d)
                .arg("--config")
                .arg(&path)
                .args([
                    "--trust",
                    "call",
                    "demo",
                    "echo",
                    "--args",
                    r#"{"message":"via the host's entry"}"#,
                ])
                .output()
                .unwrap();
            assert!(
                stdout(&out).contains("via the host's entry"),
                "{file}: {}",
                super::stderr(&out)
            );
            assert_eq!(sessions(d)[0]["server"], "demo", "{file}");
        }
        let out = in_home(d)
            .args(["config", "untap", "demo", "--in"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}: {}", super::stderr(&out));
        assert_eq!(
            &std::fs::read_to_string(&path).unwrap(),
            text,
            "{file}: the bytes back"
        );
    }
    // A remote entry is not rewritten; the way to tap it is said.
    let out = in_home(d)
        .args(["config", "tap", "web", "--in"])
        .arg(d.join("claude_desktop_config.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        super::stderr(&out).contains("mcpwb tap --to https://x.example/mcp"),
        "{}",
        super::stderr(&out)
    );
}

/// A session that is not kept is said to be not found (its own code),
/// with the way to list them.
#[test]
fn a_session_not_kept_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let out = in_home(dir.path())
        .args(["--json", "session", "show", "4242"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(said["error"]["code"], "not_found", "{said}");
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mcpwb session list"),
        "{said}"
    );
}
