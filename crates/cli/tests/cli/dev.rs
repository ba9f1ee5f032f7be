//! `mcpwb dev`: a server (a real Python process over pipes) restarted when
//! a watched file changes, once per burst of saves, with its surface's
//! changes, the doctor's new findings and the call run again.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::BIN;

/// A server whose tools are read from `tools.json` beside it at start.
const SERVER: &str = include_str!("../../../../tests/fixtures/tools_from_file.py");

fn tools(extra: bool) -> Value {
    let mut list = vec![json!({
        "name": "hello", "description": "Says how many tools there are",
        "inputSchema": { "type": "object", "properties": {} }
    })];
    if extra {
        list[0]["inputSchema"] = json!({ "type": "object", "properties": { "who": { "type": "string" } }, "required": ["who"] });
        list.push(json!({ "name": "bye", "inputSchema": { "type": "object" } }));
    }
    Value::Array(list)
}

#[test]
fn a_watched_change_reloads_once_per_burst_and_says_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Ignored even though it matches: node_modules is not named.
    std::fs::create_dir(d.join("node_modules")).unwrap();
    let (mut child, rx) = dev_calling_hello(
        d,
        json!({ "watch": ["*.json", "**/*.json"], "debug": { "type": "python" } }),
    );
    let wait_for = |event: &str| next(&rx, event);
    wait_for("watching");
    // Ready before the first change (the catalog read once).
    std::thread::sleep(Duration::from_millis(800));
    std::fs::write(d.join("node_modules/x.json"), "{}").unwrap();
    std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
    let reload = wait_for("reload");
    assert_eq!(reload["files"], json!(["tools.json"]), "{reload}");
    let mut seen_surface = None;
    let mut seen_call = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while (seen_surface.is_none() || seen_call.is_none()) && Instant::now() < deadline {
        let v = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("events after the reload");
        match v["event"].as_str() {
            Some("surface") => seen_surface = Some(v),
            Some("call") => seen_call = Some(v),
            Some("reload") => panic!("a second reload for one save: {v}"),
            _ => {}
        }
    }
    let surface = seen_surface.expect("the surface's change");
    let codes: Vec<&str> = surface["change"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"input.required-added") && codes.contains(&"tool.added"),
        "{surface}"
    );
    assert_eq!(surface["change"]["added_tools"], json!(["bye"]));
    let findings = surface["change"]["new_findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "text.no-description" && f["item"] == "tool bye")
    );
    assert!(
        seen_call.unwrap()["result"]
            .to_string()
            .contains("tools: 2")
    );
    // A burst of saves: one reload.
    for _ in 0..6 {
        std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
        std::thread::sleep(Duration::from_millis(40));
    }
    wait_for("reload");
    let call = wait_for("call");
    assert_eq!(call["same"], true, "{call}");
    let extra = rx.recv_timeout(Duration::from_millis(1500));
    assert!(
        extra.as_ref().map_or(true, |v| v["event"] != "reload"),
        "a burst made more than one reload: {extra:?}"
    );
    // Ctrl+C stops it and the server.
    assert!(
        stops_on_ctrl_c(&mut child, Duration::from_secs(10)),
        "mcpwb dev did not stop on Ctrl+C"
    );
}

#[test]
fn ctrl_c_while_a_reloads_call_runs_stops_it_once_the_call_ends() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mut child, rx) = dev_calling_hello(d, json!({ "watch": ["tools.json"] }));
    next(&rx, "watching");
    next(&rx, "call");
    // The call after the reload takes 2 s; Ctrl+C comes while it runs.
    std::fs::write(d.join("sleep"), "2").unwrap();
    std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
    next(&rx, "reloaded");
    assert!(
        stops_on_ctrl_c(&mut child, Duration::from_secs(15)),
        "mcpwb dev missed the Ctrl+C that came during its call"
    );
}

/// Ctrl+C to `child`: whether it ended within `within` (killed if not).
fn stops_on_ctrl_c(child: &mut std::process::Child, within: Duration) -> bool {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + within;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// The Python server `py` in `d` (its tools from `tools.json`) under
/// `mcpwb dev` with the entry's `dev` section, calling `hello` on each
/// reload.
fn dev_calling_hello(
    d: &std::path::Path,
    dev: Value,
) -> (std::process::Child, std::sync::mpsc::Receiver<Value>) {
    std::fs::write(d.join("server.py"), SERVER).unwrap();
    std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
    let cfg = d.join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { "py": {
            "command": "python3", "args": ["server.py"], "cwd": d, "dev": dev
        } } })
        .to_string(),
    )
    .unwrap();
    spawn_dev(
        d,
        &[
            "--trust",
            "--json",
            "--config",
            cfg.to_str().unwrap(),
            "dev",
            "py",
            "--call",
            "hello",
        ],
    )
}

/// `mcpwb ARGS` in `dir`, its JSON lines sent on the returned channel.
fn spawn_dev(
    dir: &std::path::Path,
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<Value>) {
    let home = dir.join("home");
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("MCPWB_CONFIG")
        .env("HOME", &home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    (child, rx)
}

fn next(rx: &std::sync::mpsc::Receiver<Value>, event: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let v = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no {event} event"));
        if v["event"] == event {
            return v;
        }
    }
}

/// The same server on the official Python SDK (`MCPWB_PYTHON`, set by
/// `cargo xtask test`); the hand-written one where it is not installed.
const SDK_SERVER: &str = include_str!("../../../../tests/fixtures/sdk_tools_from_file.py");

#[test]
fn the_loop_as_a_new_user_runs_it_relative_config_a_cwd_and_a_call_at_start() {
    let dir = tempfile::tempdir().unwrap();
    // proj/mcp.json names a server in proj/srv (its cwd): the watch is
    // rooted there, and --config is given relative to where mcpwb runs.
    let srv = dir.path().join("proj/srv");
    std::fs::create_dir_all(&srv).unwrap();
    let (python, code) = match std::env::var("MCPWB_PYTHON") {
        Ok(p) => (p, SDK_SERVER),
        Err(_) => {
            eprintln!(
                "MCPWB_PYTHON is not set: the hand-written server stands in for the Python SDK's"
            );
            ("python3".to_string(), SERVER)
        }
    };
    std::fs::write(srv.join("server.py"), code).unwrap();
    std::fs::write(srv.join("tools.json"), tools(false).to_string()).unwrap();
    std::fs::write(
        dir.path().join("proj/mcp.json"),
        json!({ "mcpServers": { "py": {
            "command": python, "args": ["server.py"], "cwd": "srv",
            "dev": { "watch": ["*.json"] }
        } } })
        .to_string(),
    )
    .unwrap();
    let (mut child, rx) = spawn_dev(
        dir.path(),
        &[
            "--trust",
            "--json",
            "--config",
            "proj/mcp.json",
            "dev",
            "py",
            "--call",
            "hello",
        ],
    );
    let watching = next(&rx, "watching");
    assert_eq!(
        std::path::PathBuf::from(watching["root"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        srv.canonicalize().unwrap(),
        "{watching}"
    );
    // The call once at start, before any reload.
    let first = next(&rx, "call");
    assert_eq!(first["first"], true, "{first}");
    assert!(first["result"].to_string().contains("tools: 1"), "{first}");
    std::fs::write(srv.join("tools.json"), tools(true).to_string()).unwrap();
    next(&rx, "reload");
    let mut surface = None;
    let mut call = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while (surface.is_none() || call.is_none()) && Instant::now() < deadline {
        let v = rx.recv_timeout(Duration::from_secs(20)).unwrap();
        match v["event"].as_str() {
            Some("surface") => surface = Some(v),
            Some("call") => call = Some(v),
            _ => {}
        }
    }
    let call = call.expect("the call after the reload");
    assert_eq!(
        call["same"], false,
        "the first reload says it changed: {call}"
    );
    assert!(call["result"].to_string().contains("tools: 2"), "{call}");
    let surface = surface.expect("the surface's change, every time");
    assert_eq!(
        surface["change"]["added_tools"],
        json!(["bye"]),
        "{surface}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_watch_stays_in_its_root_and_a_server_writing_into_it_does_not_restart_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), SERVER).unwrap();
    std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
    // A link out of the project: changes there are not the server's.
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("deep")).unwrap();
    std::os::unix::fs::symlink(outside.path(), d.join("linked")).unwrap();
    // It writes into its own watched folder each time it starts.
    std::fs::write(
        d.join("mcp.json"),
        json!({ "mcpServers": { "py": {
            "command": "sh", "args": ["-c", "date +%s%N > stamp.json; exec python3 server.py"],
            "cwd": d,
            "dev": { "watch": ["**/*.json"] }
        } } })
        .to_string(),
    )
    .unwrap();
    let cfg = d.join("mcp.json").display().to_string();
    let (mut child, rx) = spawn_dev(d, &["--trust", "--json", "--config", &cfg, "dev", "py"]);
    next(&rx, "watching");
    std::thread::sleep(Duration::from_millis(1500));
    // A change through the link: nothing.
    std::fs::write(outside.path().join("deep/x.json"), "{}").unwrap();
    std::fs::write(outside.path().join("y.json"), "{}").unwrap();
    let heard = rx.recv_timeout(Duration::from_millis(1500));
    assert!(
        heard.as_ref().map_or(true, |v| v["event"] != "reload"),
        "a change outside the root restarted it: {heard:?}"
    );
    // One save starts the loop (each start writes stamp.json): the start's
    // write restarts it once more, and at the next start the same file is
    // taken as the server's own write, said (without the rule: a restart
    // every ~0.4 s).
    std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
    let until = Instant::now() + Duration::from_secs(8);
    let (mut reloads, mut said) = (0, Vec::new());
    while Instant::now() < until {
        if let Ok(v) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            match v["event"].as_str() {
                Some("reload") => reloads += 1,
                Some("note") => said.push(v["note"].as_str().unwrap_or_default().to_string()),
                _ => {}
            }
        }
    }
    assert!(
        (1..=3).contains(&reloads),
        "{reloads} reloads in 8 s for one save"
    );
    assert!(
        said.iter()
            .any(|n| n.contains("stamp.json") && n.contains("own writes")),
        "{said:?}"
    );
    // A save of the person's after it: reloaded at once, as always.
    std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
    let reload = next(&rx, "reload");
    assert!(
        reload["files"].to_string().contains("tools.json"),
        "{reload}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// An editor's auto-save every 1.5 s: every save reloads the server, none
/// is held back, and what runs at the end is the last save (the backoff
/// against servers writing their own files once held these back 30 s).
#[test]
fn saves_as_often_as_an_auto_save_each_reload_and_the_last_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), SERVER).unwrap();
    std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
    std::fs::write(
        d.join("mcp.json"),
        json!({ "mcpServers": { "py": {
            "command": "python3", "args": ["server.py"], "cwd": d,
            "dev": { "watch": ["tools.json"] }
        } } })
        .to_string(),
    )
    .unwrap();
    let cfg = d.join("mcp.json").display().to_string();
    let (mut child, rx) = spawn_dev(
        d,
        &[
            "--trust", "--json", "--config", &cfg, "dev", "py", "--call", "hello",
        ],
    );
    next(&rx, "watching");
    std::thread::sleep(Duration::from_millis(800));
    const SAVES: usize = 8;
    let started = Instant::now();
    let (mut reloads, mut said) = (0, Vec::new());
    for i in 0..SAVES {
        let at = started + Duration::from_millis(1500 * i as u64);
        // Drain what came meanwhile.
        while let Ok(v) = rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
            match v["event"].as_str() {
                Some("reload") => reloads += 1,
                Some("note") => said.push(v.to_string()),
                _ => {}
            }
        }
        std::fs::write(d.join("tools.json"), tools(i % 2 == 0).to_string()).unwrap();
    }
    // The last save's reload, and the call made after it.
    let until = Instant::now() + Duration::from_secs(5);
    let mut last_call = None;
    while let Ok(v) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        match v["event"].as_str() {
            Some("reload") => reloads += 1,
            Some("note") => said.push(v.to_string()),
            Some("call") => last_call = Some(v),
            _ => {}
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    // One reload a save (two saves may share one when a save lands while
    // the server is still starting on a loaded machine: said, and the
    // restart comes again for it).
    assert!(
        reloads + 2 >= SAVES,
        "{reloads} reloads for {SAVES} saves; the watch said {said:?}"
    );
    assert!(
        said.iter()
            .all(|n| n.contains("changed while the server started")),
        "nothing held back or taken as the server's: {said:?}"
    );
    // The last save (i = 7) lists one tool: what runs is that save.
    let last = last_call.expect("the call after the last reload");
    assert!(last["result"].to_string().contains("tools: 1"), "{last}");
}

/// `--watch GLOB` names the files for this run where the entry has no
/// `dev` (mcp.json untouched); a server that may not start is refused at
/// once, not watched for nothing.
#[test]
fn files_named_on_the_command_line_reload_a_server_whose_entry_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), SERVER).unwrap();
    std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
    let cfg = d.join("mcp.json");
    let file = json!({ "mcpServers": { "py": {
        "command": "python3", "args": ["server.py"], "cwd": d
    } } })
    .to_string();
    std::fs::write(&cfg, &file).unwrap();
    let cfg = cfg.to_str().unwrap();

    // As found (written by hand, not trusted): refused, with why.
    let (mut child, rx) = spawn_dev(
        d,
        &["--json", "--config", cfg, "dev", "py", "--watch", "*.json"],
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(4), "an untrusted server is not watched");
    let said = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the error, as JSON");
    assert!(
        said["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not trusted")),
        "{said}"
    );

    let (mut child, rx) = spawn_dev(
        d,
        &[
            "--trust", "--json", "--config", cfg, "dev", "py", "--watch", "*.json",
        ],
    );
    let watching = next(&rx, "watching");
    assert_eq!(watching["watch"], json!(["*.json"]), "{watching}");
    std::thread::sleep(Duration::from_millis(800));
    std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
    let reload = next(&rx, "reload");
    assert_eq!(reload["files"], json!(["tools.json"]), "{reload}");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(std::fs::read_to_string(d.join("mcp.json")).unwrap(), file);
}
