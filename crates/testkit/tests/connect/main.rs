//! workbench-core's connection layer against the demo server and its fault
//! modes: real child processes, real pipes, real loopback HTTP. Each test
//! checks the state and error a user would see, that the other servers carry
//! on, and that no process is left behind.

mod asks;
mod auth;
mod calls;
mod catalog;
mod eras;
mod faults;
mod hostile;
mod listen;
mod recover;
mod reload;
mod rounds;
mod signin_hostile;
mod standing;
mod startup;
mod stops;
mod tasks;
mod transports;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use workbench_core::config::ConfigFile;
use workbench_core::connect::{ServerState, SupervisorOptions};
use workbench_core::{Workbench, WorkbenchOptions};

pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");

/// Fast timings so fault tests finish quickly.
pub fn fast() -> WorkbenchOptions {
    WorkbenchOptions {
        supervisor: SupervisorOptions {
            startup_timeout: Duration::from_millis(1500),
            call_timeout: Duration::from_secs(20),
            restart_initial: Duration::from_millis(200),
            restart_max: Duration::from_secs(2),
            shutdown_grace: Duration::from_millis(300),
            ..SupervisorOptions::default()
        },
        traffic_capacity: Some(2_000),
        interactive: false,
        offers: None,
        stagger: Duration::ZERO,
        trust: None,
    }
}

/// A stdio entry for the demo server with extra arguments.
pub fn stdio(name: &str, args: &[&str]) -> (String, Value) {
    let mut all = vec!["--name", name];
    all.extend_from_slice(args);
    (name.to_string(), json!({ "command": BIN, "args": all }))
}

/// A server on the official Python SDK (`MCPWB_PYTHON`, set by `cargo
/// xtask test`): `script` written as `server.py` in `dir`, its entry (run
/// there) with `extra` keys; None, said, where the SDK is not installed.
pub fn python_sdk_server(dir: &Path, script: &str, extra: Value) -> Option<Value> {
    let Ok(python) = std::env::var("MCPWB_PYTHON") else {
        eprintln!("MCPWB_PYTHON is not set: the Python SDK is not installed here");
        return None;
    };
    std::fs::write(dir.join("server.py"), script).unwrap();
    let mut entry = json!({ "command": python, "args": ["server.py"], "cwd": dir });
    if let (Some(e), Value::Object(more)) = (entry.as_object_mut(), extra) {
        e.extend(more);
    }
    Some(entry)
}

pub fn config(dir: &Path, servers: &[(String, Value)]) -> ConfigFile {
    let map: serde_json::Map<String, Value> = servers.iter().cloned().collect();
    let text = serde_json::to_string_pretty(&json!({ "mcpServers": map })).unwrap();
    let path = dir.join("mcp.json");
    std::fs::write(&path, &text).unwrap();
    ConfigFile::load(&path).unwrap()
}

pub async fn start(servers: &[(String, Value)]) -> (Workbench, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), servers);
    (Workbench::start(&cfg, fast()), dir)
}

pub fn is_ready(s: &ServerState) -> bool {
    matches!(s, ServerState::Ready)
}

pub async fn ready(wb: &Workbench, name: &str) {
    let s = wb
        .server(name)
        .unwrap()
        .wait_for(Duration::from_secs(20), is_ready)
        .await;
    assert!(
        s.is_some(),
        "{name} never became ready: {:?}",
        wb.server(name).unwrap().status()
    );
}

/// The requests of `method` sent to `server`, as JSON.
pub fn sent(wb: &Workbench, server: &str, method: &str) -> Vec<Value> {
    wb.traffic()
        .entries(Some(server))
        .iter()
        .filter(|e| {
            e.direction == workbench_core::traffic::Direction::Outgoing
                && e.method.as_deref() == Some(method)
        })
        .map(|e| serde_json::from_str(&e.body).unwrap())
        .collect()
}

/// A demo server over HTTP on an ephemeral loopback port; killed on drop.
pub struct HttpDemo {
    child: std::process::Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn http_demo(extra: &[&str]) -> HttpDemo {
    demo_on("--http", "/mcp", extra).await
}

/// The demo server over the legacy HTTP+SSE transport.
pub async fn sse_demo() -> HttpDemo {
    demo_on("--sse", "/sse", &[]).await
}

async fn demo_on(flag: &str, path: &str, extra: &[&str]) -> HttpDemo {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("addr");
    let mut child = std::process::Command::new(BIN)
        .args([flag, "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .args(extra)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..400 {
        if let Ok(addr) = std::fs::read_to_string(&port_file)
            && !addr.is_empty()
        {
            return HttpDemo {
                child,
                url: format!("http://{addr}{path}"),
                _dir: dir,
            };
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("HTTP demo server did not start");
}

/// Processes whose process group is `pgid` (from /proc).
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the ")" of the command: state ppid pgrp ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid)
            && fields.first() != Some(&"Z")
        {
            out.push(pid);
        }
    }
    out
}
