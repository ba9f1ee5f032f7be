//! What `mcpwb` says of the config and of each server's state: a broken
//! file, a server ready, failing (with the end of its stderr), not reachable,
//! or waiting for the person's trust.

use serde_json::{Value, json};

use super::{demo_config, demo_server, mcpwb, mcpwb_as_found, stderr, stdout};

#[test]
fn a_broken_config_exits_3_with_one_line_naming_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, "{\"mcpServers\": {\"a\": }}").unwrap();
    let out = mcpwb(&["servers", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("mcp.json:1:"), "{err}");
    let out = mcpwb(&["servers", "--json", "--config", path.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "config_syntax");
}

#[test]
fn servers_shows_each_state_and_what_it_offers() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[("broken", &["--fault", "exit-at-start"])]);
    let out = mcpwb(&["servers", "--config", &cfg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let demo = text.lines().find(|l| l.starts_with("demo\t")).unwrap();
    assert!(
        demo.contains("\tready\t") && demo.contains("25 tools, 7 resources, 3 prompts, 2 skills"),
        "{demo}"
    );
    let broken = text.lines().find(|l| l.starts_with("broken\t")).unwrap();
    assert!(broken.contains("failed"), "{broken}");

    let out = mcpwb(&["servers", "--json", "--config", &cfg]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["servers"][0]["status"]["state"], "ready");
    assert_eq!(v["servers"][0]["tools"], 25);
}

/// A server that fails at start says why on stderr, and the reason is
/// seldom its last line (`npm error could not determine executable to run`,
/// then `npm error A complete log of this run can be found in: …`): the
/// last three lines that say something are shown, under the server in
/// `servers` and in the error of a command that needed it.
#[test]
fn a_failed_server_shows_the_end_of_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    let script = "echo starting >&2; echo 'npm error could not determine executable to run' >&2; \
                  echo >&2; echo 'npm error A complete log of this run is in /tmp/x.log' >&2; exit 1";
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { "np": { "command": "sh", "args": ["-c", script] } } }).to_string(),
    )
    .unwrap();
    let cfg = cfg.display().to_string();

    let out = mcpwb(&["servers", "--config", &cfg]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("np\tfailed"))
        .expect(&text);
    assert_eq!(
        lines[at + 1..],
        [
            "    stderr│ starting",
            "    stderr│ npm error could not determine executable to run",
            "    stderr│ npm error A complete log of this run is in /tmp/x.log",
        ],
        "{text}"
    );

    let out = mcpwb(&["tools", "np", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(
        err.contains("its stderr ended: starting │ npm error could not determine executable to run │ npm error A complete log"),
        "{err}"
    );
}

#[test]
fn example_config_lists_without_connecting_failures_hiding_the_others() {
    // demo-http is not running here: it fails, demo-stdio's binary may not be
    // where the example points; either way the command answers per server.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../mcp.example.json");
    let out = mcpwb(&["servers", "--timeout", "5", "--config", example]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.starts_with("demo-stdio\t")));
    assert!(text.lines().any(|l| l.starts_with("demo-http\t")));
}

/// A project's server does not start until trusted: a clear refusal (exit
/// 4) that says how, `config trust NAME`, and `--trust` for scripts.
#[test]
fn a_projects_server_waits_for_trust() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let project = dir.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": { "team": { "command": demo_server(), "args": ["--name", "team"] } } })
            .to_string(),
    )
    .unwrap();
    let proj = project.display().to_string();
    let call = |extra: &[&str]| {
        let mut args = vec![
            "call",
            "team",
            "echo",
            "--args",
            r#"{"message":"hi"}"#,
            "--config",
            &cfg,
            "--project",
            &proj,
        ];
        args.extend_from_slice(extra);
        mcpwb_as_found(&args)
    };
    let out = call(&[]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    // The commands it suggests name this run's files.
    let named = format!("mcpwb --config {cfg} --project {proj} config trust team");
    assert!(
        stderr(&out).contains(&format!("`{named} --dry-run`, then `{named}`")),
        "{}",
        stderr(&out)
    );
    // `servers` says the same of it, by its name.
    let out = mcpwb_as_found(&["servers", "--config", &cfg, "--project", &proj]);
    let line = stdout(&out)
        .lines()
        .find(|l| l.starts_with("team\t"))
        .map(str::to_string);
    assert!(
        line.as_deref().is_some_and(|l| l.contains(&format!(
            "not trusted yet: read what it runs with `{named} --dry-run`"
        ))),
        "{line:?}"
    );
    // The user's own server, once trusted, runs meanwhile.
    let out = mcpwb_as_found(&["config", "trust", "demo", "--config", &cfg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mcpwb_as_found(&[
        "call",
        "demo",
        "echo",
        "--args",
        r#"{"message":"mine"}"#,
        "--config",
        &cfg,
        "--project",
        &proj,
    ]);
    assert_eq!(stdout(&out), "mine\n", "{}", stderr(&out));
    let out = mcpwb_as_found(&[
        "config",
        "trust",
        "team",
        "--config",
        &cfg,
        "--project",
        &proj,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("mcp-demo-server"),
        "shows what it trusted: {}",
        stdout(&out)
    );
    assert_eq!(stdout(&call(&[])), "hi\n");
    // A change to the entry asks again; --trust vouches for it.
    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": { "team": { "command": demo_server(), "args": ["--name", "team2"] } } })
            .to_string(),
    )
    .unwrap();
    assert_eq!(call(&[]).status.code(), Some(4));
    assert_eq!(stdout(&call(&["--trust"])), "hi\n");
}
