//! `cargo xtask conformance --server`: the suite's server scenarios against
//! the demo server straight and through the bridge (`mcpwb serve --http
//! --no-token --only demo --bare`, the demo server behind it over stdio).
//! The demo server's fixtures are its own (the suite's reference server is
//! not in the npm package), so scenarios that need the suite's fixtures fail
//! on both: reported, not failed. What fails the run is a scenario that
//! passes straight and fails through the bridge — something the bridge lost.
//! The bridge talks to the demo server on 2025-11-25 (see below).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::stages::{Result, cmd, sh};

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Each scenario's (name, passed, "p/n" checks) from the suite's summary.
fn run_suite(node: &Path, suite: &Path, url: &str) -> Result<Vec<(String, bool, String)>> {
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url])
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("could not start the suite: {e}"))?;
    let text = crate::conformance::strip_ansi(&String::from_utf8_lossy(&out.stdout));
    let mut rows = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let (ok, rest) = match (line.strip_prefix("✓ "), line.strip_prefix("✗ ")) {
            (Some(r), _) => (true, r),
            (_, Some(r)) => (false, r),
            _ => continue,
        };
        let Some((name, counts)) = rest.split_once(": ") else {
            continue;
        };
        let nums: Vec<u32> = counts
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        let checks = match nums.as_slice() {
            [p, f, ..] => format!("{p}/{}", p + f),
            _ => String::new(),
        };
        rows.push((name.to_string(), ok, checks));
    }
    if rows.is_empty() {
        return Err(format!(
            "the suite reported no scenarios for {url}:\n{text}"
        ));
    }
    Ok(rows)
}

fn wait_for(path: &Path, what: &str) -> Result<String> {
    for _ in 0..400 {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return Ok(text);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Err(format!("{what} did not start"))
}

pub fn server(root: &Path) -> Result {
    crate::conformance::install(root)?;
    sh(cmd(
        "cargo",
        &[
            "build",
            "-q",
            "-p",
            "workbench-cli",
            "-p",
            "workbench-testkit",
            "--bins",
        ],
        root,
    ))?;
    let dir = root.join("tests/conformance");
    let node = crate::conformance::node(&dir)?;
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let bin = crate::tasks::target_dir(root).join("debug");
    let home =
        std::env::temp_dir().join(format!("mcpwb-conformance-server-{}", std::process::id()));
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    let port_file = home.join("demo-addr");
    let demo = Killed(
        Command::new(bin.join("mcp-demo-server"))
            .args(["--http", "127.0.0.1:0", "--name", "demo", "--port-file"])
            .arg(&port_file)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("the demo server: {e}"))?,
    );
    let direct_url = format!(
        "http://{}/mcp",
        wait_for(&port_file, "the demo server")?.trim()
    );
    let config = home.join("mcp.json");
    let entry = format!(
        // Upstream on 2025-11-25: resources/subscribe to a 2026-07-28 server
        // needs subscriptions/listen, which the core does not speak yet.
        r#"{{ "mcpServers": {{ "demo": {{ "command": {:?}, "args": ["--name", "demo"], "protocolVersion": "2025-11-25" }} }} }}"#,
        bin.join("mcp-demo-server").display().to_string()
    );
    std::fs::write(&config, entry).map_err(|e| e.to_string())?;
    let said = home.join("serve.err");
    let bridge = Killed(
        Command::new(bin.join("mcpwb"))
            .arg("--config")
            .arg(&config)
            .args([
                "--trust",
                "serve",
                "--http",
                "0",
                "--no-token",
                "--only",
                "demo",
                "--bare",
            ])
            .env("HOME", &home)
            .env("MCPWB_KEYCHAIN", "keyutils")
            .env_remove("MCPWB_CONFIG")
            .stderr(std::fs::File::create(&said).map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("mcpwb serve: {e}"))?,
    );
    let mut bridge_url = String::new();
    for _ in 0..400 {
        let text = std::fs::read_to_string(&said).unwrap_or_default();
        if let Some(u) = text
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
        {
            bridge_url = u.to_string();
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    if bridge_url.is_empty() {
        return Err("mcpwb serve --http did not say where it listens".into());
    }
    println!("the demo server straight: {direct_url}\nthrough the bridge: {bridge_url}");
    let direct = run_suite(&node, &suite, &direct_url)?;
    let bridged = run_suite(&node, &suite, &bridge_url)?;
    drop((demo, bridge));
    let _ = std::fs::remove_dir_all(&home);
    println!("\n| scenario | demo server straight | through the bridge |\n|---|---|---|");
    let mut lost = Vec::new();
    for (name, ok, checks) in &direct {
        let through = bridged.iter().find(|(n, ..)| n == name);
        let shown =
            |ok: bool, checks: &str| format!("{} {checks}", if ok { "pass" } else { "fail" });
        let b = through
            .map(|(_, o, c)| shown(*o, c))
            .unwrap_or_else(|| "not run".into());
        println!("| {name} | {} | {b} |", shown(*ok, checks));
        if *ok && !through.is_some_and(|(_, o, _)| *o) {
            lost.push(name.as_str());
        }
    }
    let count = |rows: &[(String, bool, String)]| rows.iter().filter(|r| r.1).count();
    println!(
        "\n{}/{} server scenarios pass through the bridge; {}/{} against the demo server straight",
        count(&bridged),
        bridged.len(),
        count(&direct),
        direct.len()
    );
    if lost.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "pass straight but fail through the bridge: {}",
            lost.join(", ")
        ))
    }
}
