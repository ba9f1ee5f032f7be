//! What each host would run, and whether it can: the entry the workbench's
//! dialects give each way the server ships (a registry package or remote,
//! a bundle's `mcp_config`), and its command looked up on the PATH each
//! host starts servers with. "Works in a terminal, fails in Claude Desktop"
//! is most often a launcher (`uvx`, `npx` from a version manager) that is
//! on the person's shell PATH and not on the host's. Looking a command up
//! runs nothing.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};
use workbench_core::config::dialects::registry::{Pick, import_pick};

use crate::finding::{Finding, Severity};

/// A host and the PATH it gives the servers it starts.
#[derive(Debug, Clone, Serialize)]
pub struct PublishHost {
    pub name: String,
    /// Its PATH, as it starts servers (None: the environment it was started
    /// with, as a terminal's).
    pub path: Option<String>,
    pub note: String,
}

/// The hosts looked at: a terminal (the PATH here), Claude Desktop (a GUI
/// app's fixed PATH: no shell profile, no `~/.local/bin`, no version
/// manager), VS Code (the login shell's environment, resolved at start).
pub fn hosts(terminal_path: &str) -> Vec<PublishHost> {
    vec![
        PublishHost {
            name: "terminal".into(),
            path: Some(terminal_path.into()),
            note: "your shell's PATH".into(),
        },
        PublishHost {
            name: "Claude Desktop".into(),
            path: Some("/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin".into()),
            note: "a GUI app's PATH: no shell profile, so not ~/.local/bin, ~/.cargo/bin, nvm or pyenv".into(),
        },
        PublishHost {
            name: "VS Code".into(),
            path: Some(terminal_path.into()),
            note: "the login shell's environment, read when it starts".into(),
        },
    ]
}

/// One way the server runs, as an mcp.json entry.
#[derive(Debug, Clone, Serialize)]
pub struct PublishWay {
    /// `server.json package 1 (npm …)`, `manifest.json mcp_config`.
    pub label: String,
    pub entry: Map<String, Value>,
}

/// Each way `server_json` and `manifest` describe, as entries (remotes
/// too: they need no PATH, but a host reaches them all the same).
pub fn ways(server_json: Option<&Value>, manifest: Option<&Value>, dir: &Path) -> Vec<PublishWay> {
    let mut out = Vec::new();
    if let Some(doc) = server_json {
        let count = |k: &str| doc.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..count("packages") {
            if let Ok(mut imported) = import_pick(doc, Pick::Package(i)) {
                let kind = doc["packages"][i]["registryType"].as_str().unwrap_or("?");
                out.push(PublishWay {
                    label: format!("server.json package {} ({kind})", i + 1),
                    entry: imported.servers.remove(0).1,
                });
            }
        }
        for i in 0..count("remotes") {
            if let Ok(mut imported) = import_pick(doc, Pick::Remote(i)) {
                out.push(PublishWay {
                    label: format!("server.json remote {}", i + 1),
                    entry: imported.servers.remove(0).1,
                });
            }
        }
    }
    if let Some(config) = manifest.and_then(|m| m.pointer("/server/mcp_config")) {
        let dirname = dir.display().to_string();
        let fill = |s: &str| s.replace("${__dirname}", &dirname);
        let mut entry = Map::new();
        if let Some(c) = config.get("command").and_then(Value::as_str) {
            entry.insert("command".into(), json!(fill(c)));
        }
        if let Some(args) = config.get("args").and_then(Value::as_array) {
            let args: Vec<Value> = args
                .iter()
                .filter_map(Value::as_str)
                .map(|a| json!(fill(a)))
                .collect();
            entry.insert("args".into(), Value::Array(args));
        }
        out.push(PublishWay {
            label: "manifest.json mcp_config".into(),
            entry,
        });
    }
    out
}

/// `command` found on `path` (a command with a slash is itself).
pub fn resolve(command: &str, path: &str) -> Option<PathBuf> {
    if command.contains('/') {
        let p = PathBuf::from(command);
        return is_program(&p).then_some(p);
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|p| is_program(p))
}

fn is_program(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where each way's command is found on each host, as findings: one that a
/// host cannot find (found elsewhere), and Windows' `npx`.
pub fn findings(ways: &[PublishWay], hosts: &[PublishHost]) -> Vec<Finding> {
    let mut out = Vec::new();
    for way in ways {
        let Some(command) = way.entry.get("command").and_then(Value::as_str) else {
            continue;
        };
        let found: Vec<(&PublishHost, Option<PathBuf>)> = hosts
            .iter()
            .map(|h| (h, resolve(command, h.path.as_deref().unwrap_or_default())))
            .collect();
        let somewhere = found.iter().find_map(|(_, p)| p.clone());
        for (host, at) in &found {
            if at.is_some() {
                continue;
            }
            let (code, severity, why, fix) = match &somewhere {
                Some(there) => (
                    "host.not-on-path",
                    Severity::Error,
                    format!(
                        "works in a terminal, fails in {}: `{command}` is {}, not on its PATH ({})",
                        host.name,
                        there.display(),
                        host.note
                    ),
                    format!(
                        "tell users to install `{command}` where every app finds it (/usr/local/bin), or name its full path in the entry; a bundle can start from a script that adds {} to PATH",
                        there
                            .parent()
                            .map(|p| p.display().to_string())
                            .unwrap_or_default()
                    ),
                ),
                None => (
                    "host.command-missing",
                    Severity::Warning,
                    format!(
                        "`{command}` is on no PATH here: {} cannot start it",
                        host.name
                    ),
                    format!(
                        "install `{command}` to try it, and say in the README that users need it"
                    ),
                ),
            };
            out.push(
                Finding::new(code, severity, way.label.clone())
                    .at("/command")
                    .seen(format!("{} → {command}", host.name))
                    .why(why)
                    .fix(fix),
            );
            if somewhere.is_none() {
                // Said once for all hosts.
                break;
            }
        }
        if command == "npx" {
            out.push(
                Finding::new("host.windows-launcher", Severity::Info, way.label.clone())
                    .at("/command")
                    .seen(command)
                    .why("on Windows, npx is npx.cmd, a script: a host that starts `npx` without a shell fails (\"spawn npx ENOENT\")")
                    .fix("Windows users write \"command\": \"cmd\", \"args\": [\"/c\", \"npx\", …]; say so in the README"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launcher_only_in_a_home_folder_works_in_a_terminal_and_not_in_claude_desktop() {
        let home = tempfile::tempdir().unwrap();
        let bin = home.path().join(".local/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let uvx = bin.join("uvx");
        std::fs::write(&uvx, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&uvx, std::fs::Permissions::from_mode(0o755)).unwrap();
        let terminal = format!("{}:/usr/bin:/bin", bin.display());
        let doc = json!({"name": "io.github.a/b", "version": "1.0.0", "description": "x",
            "packages": [{"registryType": "pypi", "identifier": "b-mcp", "version": "1.0.0", "transport": {"type": "stdio"}}]});
        let ways = ways(Some(&doc), None, home.path());
        assert_eq!(ways[0].entry["command"], "uvx");
        let found = findings(&ways, &hosts(&terminal));
        let not_on_path: Vec<&Finding> = found
            .iter()
            .filter(|f| f.code == "host.not-on-path")
            .collect();
        assert_eq!(not_on_path.len(), 1, "{found:?}");
        assert!(
            not_on_path[0]
                .why
                .starts_with("works in a terminal, fails in Claude Desktop: `uvx` is")
        );
        assert!(
            !found.iter().any(|f| f.code == "host.windows-launcher"),
            "uvx is an .exe on Windows"
        );
    }
}
