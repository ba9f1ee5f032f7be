//! Finding the program of a stdio server: relative paths against the config
//! file's folder, bare names on PATH — the env's PATH if the entry sets one,
//! else the process PATH plus the login shell's (a desktop session launched
//! from a menu lacks nvm, asdf and ~/.local/bin).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// PATH as the user's login shell sets it, asked once (bounded to 3 s).
fn login_shell_path() -> Option<&'static str> {
    static PATH: OnceLock<Option<String>> = OnceLock::new();
    PATH.get_or_init(|| {
        let shell = std::env::var("SHELL").ok().filter(|s| !s.is_empty())?;
        let mut child = std::process::Command::new(shell)
            .args(["-l", "-c", "printf %s \"$PATH\""])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
                }
            }
        }
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
        Some(out.trim().to_string()).filter(|p| !p.is_empty())
    })
    .as_deref()
}

/// The folders searched for a bare command name, in order, without repeats.
pub fn search_path(env: &BTreeMap<String, String>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut add = |list: &str| {
        for d in std::env::split_paths(list) {
            if !d.as_os_str().is_empty() && !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    };
    if let Some(p) = env.get("PATH") {
        add(p);
        return dirs;
    }
    if let Ok(p) = std::env::var("PATH") {
        add(&p);
    }
    if let Some(p) = login_shell_path() {
        add(p);
    }
    dirs
}

/// `command` found as this process would run it (a path, or a name on
/// PATH), if it is there.
pub fn find_program(command: &str) -> Option<PathBuf> {
    resolve_command(command, Path::new("."), &BTreeMap::new()).ok()
}

/// Resolve `command` to a program path, or say where it looked.
pub(crate) fn resolve_command(
    command: &str,
    base_dir: &Path,
    env: &BTreeMap<String, String>,
) -> Result<PathBuf, String> {
    let as_path = Path::new(command);
    if command.contains('/') {
        let p = if as_path.is_relative() {
            base_dir.join(as_path)
        } else {
            as_path.to_path_buf()
        };
        return if is_executable(&p) {
            Ok(p)
        } else if p.exists() {
            Err(format!("{} is not executable", p.display()))
        } else {
            Err(format!("{} does not exist", p.display()))
        };
    }
    let dirs = search_path(env);
    dirs.iter()
        .map(|d| d.join(command))
        .find(|p| is_executable(p))
        .ok_or_else(|| {
            let shown: Vec<_> = dirs.iter().map(|d| d.display().to_string()).collect();
            let from = comes_with(command)
                .map(|what| {
                    format!(" (it comes with {what}: install it, then start the server again)")
                })
                .unwrap_or_default();
            format!(
                "command \"{command}\" not found{from}; looked in: {}",
                shown.join(":")
            )
        })
}

/// What installs the launchers entries name most (a registry's `npx`,
/// `uvx`, `docker`, `dnx`; a host's `node`, `python3`).
fn comes_with(command: &str) -> Option<&'static str> {
    Some(match command {
        "npx" | "npm" | "node" => "Node.js",
        "uvx" | "uv" => "uv (docs.astral.sh/uv)",
        "docker" => "Docker",
        "python" | "python3" | "pip" | "pipx" => "Python",
        "bunx" | "bun" => "Bun",
        "deno" => "Deno",
        "dnx" | "dotnet" => "the .NET SDK (10 or later for dnx)",
        _ => return None,
    })
}

/// The folder an entry's relative paths (`command`, `cwd`, `dev.watch`) are
/// read against: its config file's, absolute — a relative `--config
/// wip/mcp.json` (or a bare `mcp.json`, whose parent is "") must not make
/// them depend on where they are read from.
pub(super) fn base_dir(file: &Path) -> PathBuf {
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    std::path::absolute(&dir).unwrap_or(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_commands_resolve_against_the_config_folder() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin/srv");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            resolve_command("./bin/srv", dir.path(), &BTreeMap::new()).unwrap(),
            dir.path().join("./bin/srv")
        );
        assert!(
            resolve_command("./bin/nope", dir.path(), &BTreeMap::new())
                .unwrap_err()
                .contains("does not exist")
        );
    }

    #[test]
    fn bare_names_use_the_entry_path_and_say_where_they_looked() {
        let env = BTreeMap::from([("PATH".to_string(), "/bin:/usr/bin".to_string())]);
        assert!(resolve_command("sh", Path::new("/"), &env).is_ok());
        let err = resolve_command("no-such-mcp-server-xyz", Path::new("/"), &env).unwrap_err();
        assert!(err.contains("looked in: /bin:/usr/bin"), "{err}");
        // A launcher a registry entry names says what installs it.
        let empty = BTreeMap::from([("PATH".to_string(), "/nonexistent".to_string())]);
        let err = resolve_command("uvx", Path::new("/"), &empty).unwrap_err();
        assert!(
            err.starts_with("command \"uvx\" not found (it comes with uv (docs.astral.sh/uv): install it, then start the server again); looked in: /nonexistent"),
            "{err}"
        );
    }
}
