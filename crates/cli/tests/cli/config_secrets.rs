//! `mcpwb config ...` and what it keeps in the OS keychain: secret and
//! credential values (given as such, given plainly, imported, written in
//! the file by hand) and input answers, each under its entry.

use serde_json::json;
use workbench_core::config::secrets::{Backend, Keychain};

use super::config::{namespace, run};
use super::{stderr, stdout};

#[test]
fn a_secret_header_lives_in_the_keychain_and_the_server_still_gets_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = super::http_demo(dir.path(), &["--token", "s3cret-token"]);
    let addr = &server.addr;
    let cfg = dir.path().join("mcp.json");
    let c = cfg.to_str().unwrap();
    let url = format!("http://{addr}/mcp");
    let out = run(
        dir.path(),
        &[
            "--config",
            c,
            "config",
            "add",
            "remote",
            "--url",
            &url,
            "--secret-header",
            "Authorization=Bearer s3cret-token",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        !text.contains("s3cret-token"),
        "the file holds a reference: {text}"
    );
    assert!(
        text.contains("${secret:remote/headers/Authorization}"),
        "{text}"
    );
    let call = run(
        dir.path(),
        &[
            "--config",
            c,
            "call",
            "remote",
            "echo",
            "--args",
            r#"{"message":"through the keychain"}"#,
        ],
    );
    drop(server);
    assert_eq!(call.status.code(), Some(0), "{}", stderr(&call));
    assert!(stdout(&call).contains("through the keychain"));
    // Removing the server removes its secret from the keychain too.
    let keychain = Keychain::new(&namespace(), Backend::KernelKeyring);
    let id = "remote/headers/Authorization";
    assert_eq!(
        keychain.get(id).unwrap().as_deref(),
        Some("Bearer s3cret-token")
    );
    let out = run(dir.path(), &["--config", c, "config", "remove", "remote"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(keychain.get(id).unwrap(), None);
    // A credential given as a plain --header (as `claude mcp add` takes
    // it) is kept in the keychain all the same, and the person told so.
    let out = run(
        dir.path(),
        &[
            "--config",
            c,
            "config",
            "add",
            "plain",
            "--url",
            &url,
            "--header",
            "Authorization=Bearer s3cret-token",
            "--header",
            "X-Team=core",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "note: plain: headers.Authorization kept in the OS keychain, not in the file"
        ),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        !text.contains("s3cret-token")
            && text.contains("${secret:plain/headers/Authorization}")
            && text.contains("\"X-Team\": \"core\""),
        "{text}"
    );
    assert_eq!(
        keychain
            .get("plain/headers/Authorization")
            .unwrap()
            .as_deref(),
        Some("Bearer s3cret-token")
    );
    let out = run(dir.path(), &["--config", c, "config", "remove", "plain"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A credential written out in another client's file is imported into the
/// keychain, the file holding a reference; the server still gets it.
#[test]
fn an_imported_credential_goes_to_the_keychain_not_into_the_file() {
    // Its own entry name: the tests of this binary share one keychain
    // namespace, and the header test above keeps `remote/headers/…`.
    let dir = tempfile::tempdir().unwrap();
    let server = super::http_demo(dir.path(), &["--token", "imp0rted-token"]);
    let cursor = dir.path().join("cursor-mcp.json");
    std::fs::write(
        &cursor,
        json!({ "mcpServers": { "imported": {
            "url": format!("http://{}/mcp", server.addr),
            "headers": { "Authorization": "Bearer imp0rted-token" }
        } } })
        .to_string(),
    )
    .unwrap();
    let cfg = dir.path().join("mcp.json");
    let c = cfg.to_str().unwrap();
    let import = |extra: &[&str]| {
        let mut args = vec![
            "--config",
            c,
            "config",
            "import",
            cursor.to_str().unwrap(),
            "--from",
            "cursor",
        ];
        args.extend_from_slice(extra);
        run(dir.path(), &args)
    };
    let dry = import(&["--dry-run"]);
    assert!(
        stderr(&dry).contains("imported: headers.Authorization would be kept in the OS keychain"),
        "{}",
        stderr(&dry)
    );
    assert!(!cfg.exists(), "a dry run writes nothing");
    let keychain = Keychain::new(&namespace(), Backend::KernelKeyring);
    let id = "imported/headers/Authorization";
    assert_eq!(keychain.get(id).unwrap(), None, "a dry run keeps nothing");

    let out = import(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(!text.contains("imp0rted-token"), "{text}");
    assert!(
        text.contains("${secret:imported/headers/Authorization}"),
        "{text}"
    );
    assert_eq!(
        keychain.get(id).unwrap().as_deref(),
        Some("Bearer imp0rted-token")
    );
    let out = run(dir.path(), &["--config", c, "config", "trust", "imported"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let call = run(
        dir.path(),
        &[
            "--config",
            c,
            "call",
            "imported",
            "echo",
            "-a",
            "message=with the imported token",
        ],
    );
    drop(server);
    assert_eq!(call.status.code(), Some(0), "{}", stderr(&call));
    assert!(stdout(&call).contains("with the imported token"));
    let out = run(dir.path(), &["--config", c, "config", "remove", "imported"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(keychain.get(id).unwrap(), None);
}

#[test]
fn an_input_answer_is_stored_for_each_server_that_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        r#"{ "mcpServers": {
             "a": { "command": "x", "env": { "K": "${input:key}" } },
             "b": { "url": "https://h.example/mcp", "headers": { "A": "Bearer ${input:key}" } } } }"#,
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let keychain = Keychain::new(&namespace(), Backend::KernelKeyring);
    let input = |args: &[&str]| {
        let mut all = vec!["--config", c, "config", "input"];
        all.extend_from_slice(args);
        run(dir.path(), &all)
    };
    // Only for a: b's answer stays unset (it reads only its own).
    let out = input(&["key", "--value", "for-a", "--server", "a"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("for a"), "{}", stdout(&out));
    assert_eq!(
        keychain.get("input/a/key").unwrap().as_deref(),
        Some("for-a")
    );
    assert_eq!(keychain.get("input/b/key").unwrap(), None);
    // Without --server: every entry that uses it.
    let out = input(&["key", "--value", "both"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        keychain.get("input/b/key").unwrap().as_deref(),
        Some("both")
    );
    // An input nobody uses is a mistake, said as such.
    let out = input(&["nobody", "--value", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no server uses ${input:nobody}"));
    // Removing a takes its answer with it; b keeps its own.
    let out = run(dir.path(), &["--config", c, "config", "remove", "a"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(keychain.get("input/a/key").unwrap(), None);
    assert_eq!(
        keychain.get("input/b/key").unwrap().as_deref(),
        Some("both")
    );
    keychain.delete("input/b/key").unwrap();
}

/// A credential written into the file by hand is not printed by `config
/// show` (a screen shared, an issue pasted): the masker's mask, and a note
/// on how to keep it in the keychain. The file is not changed.
#[test]
fn config_show_hides_a_credential_written_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    let text = json!({ "mcpServers": { "gh": {
        "type": "http", "url": "https://example.com/mcp",
        "headers": { "Authorization": "Bearer ghp_abcdefghijklmnop0123456789", "X-Team": "core" }
    } } })
    .to_string();
    std::fs::write(&cfg, &text).unwrap();
    let c = cfg.to_str().unwrap();
    let out = run(dir.path(), &["--config", c, "config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("ghp_") && stdout(&out).contains("\"X-Team\": \"core\""),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(&format!(
            "note: gh: headers.Authorization is written in the file in plain text (hidden here); give it again with `mcpwb --config {c} config edit gh --header Authorization=…` to keep it in the OS keychain"
        )),
        "{}",
        stderr(&out)
    );
    // Nor by an import's --dry-run, which prints the file it would write.
    let other = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &other,
        json!({ "mcpServers": { "fs": { "command": "npx", "args": ["server-fs"] } } }).to_string(),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "--config",
            c,
            "config",
            "import",
            other.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("ghp_") && stdout(&out).contains("\"fs\""),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), text);
}
