//! The one door and the one rule, played through `mcpwb` the way the
//! review played them (the table: `tests/hostile/README.md`): a project's
//! server is never started or sent its credentials by the doctor's eras; a
//! coding agent through `mcpwb serve --workbench` never starts a server the
//! person turned off, never calls a tool the person kept out of its reach,
//! and never probes where the person lets it call nothing.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use super::{BIN, demo_server, mcpwb_as_found, stderr};

/// A loopback port that records whether anyone connected.
struct Watched(TcpListener);

impl Watched {
    fn new() -> Watched {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Watched(l)
    }
    fn url(&self) -> String {
        format!("http://{}/mcp", self.0.local_addr().unwrap())
    }
    fn reached(&self) -> bool {
        self.0.accept().is_ok()
    }
}

/// A stdio entry that leaves a file in `markers` each time it is started.
fn marking(markers: &Path, name: &str) -> Value {
    json!({
        "command": "sh",
        "args": ["-c", format!("touch {}/{name}-$$; exec cat >/dev/null", markers.display())]
    })
}

fn starts(markers: &Path) -> usize {
    std::fs::read_dir(markers).map_or(0, |d| d.count())
}

#[test]
fn the_doctors_eras_start_nothing_a_project_brings_and_send_it_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let markers = dir.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    let upstream = Watched::new();
    let project = dir.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": {
            "projsrv": marking(&markers, "proj"),
            "projhttp": { "url": upstream.url(), "headers": { "Authorization": "Bearer ${env:HOME}" } }
        } })
        .to_string(),
    )
    .unwrap();
    let user = dir.path().join("mcp.json");
    // The person's own entry, turned off: the eras leave it off too.
    std::fs::write(
        &user,
        json!({ "mcpServers": { "off": { "disabled": true, "command": "sh", "args": ["-c", format!("touch {}/off-$$", markers.display())] } } })
            .to_string(),
    )
    .unwrap();
    let (user, project) = (user.display().to_string(), project.display().to_string());
    for server in ["projsrv", "projhttp", "off"] {
        let out = mcpwb_as_found(&[
            "--config",
            &user,
            "--project",
            &project,
            "--timeout",
            "3",
            "doctor",
            "--eras",
            server,
        ]);
        let said = format!("{}{}", super::stdout(&out), stderr(&out));
        assert!(
            said.contains("untrusted") || said.contains("disabled") || said.contains("not trusted"),
            "{server}: {said}"
        );
    }
    assert_eq!(
        starts(&markers),
        0,
        "a server the person did not let run was started"
    );
    assert!(
        !upstream.reached(),
        "the untrusted HTTP entry was sent a request"
    );
}

/// A coding agent on `mcpwb serve`'s stdio: requests by id, answers read.
struct Agent {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Agent {
    fn start(config: &Path, home: &Path, flags: &[&str]) -> Agent {
        let mut child = Command::new(BIN)
            .args(["--config", &config.display().to_string(), "serve"])
            .args(flags)
            .env_remove("MCPWB_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", home)
            .env("MCPWB_DATA_DIR", home.join("data"))
            .env("MCPWB_SETTINGS", home.join("settings.json"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut agent = Agent {
            child,
            input,
            output,
            next: 1,
        };
        agent.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "agent", "version": "1" } }),
        );
        agent.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        agent
    }

    fn send(&mut self, message: Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "serve ended");
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// A workbench tool's answer, as the text of its result.
    fn tool(&mut self, name: &str, arguments: Value) -> String {
        let answer = self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        );
        answer.to_string()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_agent_never_starts_a_server_the_person_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let markers = dir.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    let mut off = marking(&markers, "off");
    off["disabled"] = json!(true);
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "offsrv": off } }).to_string(),
    )
    .unwrap();
    // The person's own entry, trusted, and turned off.
    let out = mcpwb_as_found(&[
        "--config",
        &config.display().to_string(),
        "config",
        "trust",
        "offsrv",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let home = std::env::temp_dir().join("mcpwb-cli-test-home");
    let mut agent = Agent::start(&config, &home, &["--workbench-only", "--no-history"]);
    let said = agent.tool("workbench_restart", json!({ "server": "offsrv" }));
    assert!(said.contains("turned it off"), "{said}");
    let servers = agent.tool("workbench_servers", json!({}));
    assert!(servers.contains("disabled"), "{servers}");
    assert_eq!(starts(&markers), 0, "the disabled server was started");
}

/// Two demo servers, both the person's: `ro` served, `off` kept out of
/// the agent's reach by `--tools`.
fn two_demos(dir: &Path) -> std::path::PathBuf {
    let config = dir.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": {
            "ro": { "command": demo_server(), "args": ["--name", "ro"] },
            "off": { "command": demo_server(), "args": ["--name", "off"] }
        } })
        .to_string(),
    )
    .unwrap();
    let out = mcpwb_as_found(&[
        "--config",
        &config.display().to_string(),
        "config",
        "trust",
        "ro",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mcpwb_as_found(&[
        "--config",
        &config.display().to_string(),
        "config",
        "trust",
        "off",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    config
}

#[test]
fn workbench_call_is_bound_by_serve_tools_as_the_relay_is() {
    let dir = tempfile::tempdir().unwrap();
    let config = two_demos(dir.path());
    let home = std::env::temp_dir().join("mcpwb-cli-test-home");
    let mut agent = Agent::start(
        &config,
        &home,
        &["--workbench", "--tools", "ro__*", "--no-history"],
    );
    // The relay refuses the name (it is not served)...
    let relayed = agent.tool("off__echo", json!({ "message": "hi" }));
    assert!(!relayed.contains("\"hi\""), "{relayed}");
    // ...and workbench_call refuses the same tool.
    let called = agent.tool(
        "workbench_call",
        json!({ "server": "off", "tool": "echo", "arguments": { "message": "pwned" } }),
    );
    assert!(
        called.contains("refused") && called.contains("ro__*"),
        "{called}"
    );
    assert!(!called.contains("pwned\\\""), "{called}");
    // A tool within reach runs.
    let within = agent.tool(
        "workbench_call",
        json!({ "server": "ro", "tool": "echo", "arguments": { "message": "fine" } }),
    );
    assert!(
        within.contains("done") && within.contains("fine"),
        "{within}"
    );
}

#[test]
fn the_agents_probe_calls_nothing_under_approve_none() {
    let dir = tempfile::tempdir().unwrap();
    let config = two_demos(dir.path());
    let home = std::env::temp_dir().join("mcpwb-cli-test-home");
    let mut agent = Agent::start(
        &config,
        &home,
        &["--workbench-only", "--approve", "none", "--no-history"],
    );
    let report = agent.tool("workbench_doctor", json!({ "server": "ro", "probe": true }));
    assert!(report.contains("--approve none"), "{report}");
    // Nothing was probed: the traffic holds no tools/call.
    let traffic = agent.request(
        "tools/call",
        json!({ "name": "workbench_traffic", "arguments": { "server": "ro", "method": "tools/call", "last": 50 } }),
    );
    assert_eq!(
        traffic["result"]["structuredContent"]["total"], 0,
        "{traffic}"
    );
}

/// The review's play: a user-file entry named `tap` reading
/// `${secret:tap/token}` got the tap's URL token. The token now lives under
/// the workbench's own reserved segment, which no entry's references reach.
#[test]
fn no_entry_reads_the_taps_token() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The tap makes its token and prints the URL carrying it.
    let mut tap = super::tap::in_home(d)
        .args(["--json", "tap", "--to", "http://127.0.0.1:9/mcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(tap.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = tap.kill();
    let _ = tap.wait();
    let url: Value = serde_json::from_str(&first).expect(&first);
    let token = url["url"]
        .as_str()
        .unwrap()
        .split('/')
        .nth(3)
        .unwrap()
        .to_string();
    assert!(token.len() > 16, "{first}");
    let marker = d.join("marker");
    let config = d.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "tap": {
            "command": "sh",
            "args": ["-c", format!("printf '%s' \"$T\" > {}; exec cat >/dev/null", marker.display())],
            "env": { "T": "${secret:tap/token}" }
        } } })
        .to_string(),
    )
    .unwrap();
    let config = config.display().to_string();
    let out = super::tap::in_home(d)
        .args(["--config", &config, "--trust", "--timeout", "3", "servers"])
        .output()
        .unwrap();
    let read = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(
        !read.contains(&token),
        "the entry read the tap's token: {}",
        stderr(&out)
    );
}
