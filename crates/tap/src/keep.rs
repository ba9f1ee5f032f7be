//! The server behind a tap restarted when its files change, while the host
//! stays connected (`mcpwb tap --watch GLOB`): the host's own handshake is
//! replayed to the new process (its `initialize` or `server/discover`, then
//! `notifications/initialized`, its subscriptions and `subscriptions/listen`),
//! requests that were in flight get an error saying the server restarted,
//! and the host is told what may have changed (`notifications/*/list_changed`
//! where the server declared them). Messages pass as whole lines, byte for
//! byte; only the replayed handshake's answers are not passed (the host
//! already has them).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

use crate::Direction;
use crate::record::{Recorder, Splitter};
use crate::stdio::Spawn;

/// What restarts the server: files under `root` matching `patterns`.
#[derive(Debug, Clone)]
pub struct Watch {
    pub root: PathBuf,
    pub patterns: Vec<String>,
}

/// One process of the server.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Vec<u8>>,
}

fn start(spawn: &Spawn) -> std::io::Result<Process> {
    let mut command = tokio::process::Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .envs(&spawn.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if let Some(dir) = &spawn.cwd {
        command.current_dir(dir);
    }
    let mut child = command.spawn().map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot start {}: {e}", spawn.program))
    })?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, lines) = mpsc::channel(256);
    tokio::spawn(read_lines(stdout, tx));
    Ok(Process {
        child,
        stdin,
        lines,
    })
}

/// Whole lines (with their newline) as they come; a last one without.
async fn read_lines(from: impl tokio::io::AsyncRead + Unpin, to: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if to.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Changes under `watch`, a burst at a time.
fn changes(watch: &Watch) -> std::io::Result<(notify::RecommendedWatcher, mpsc::Receiver<()>)> {
    use notify::Watcher;
    let mut set = globset::GlobSetBuilder::new();
    for p in &watch.patterns {
        set.add(
            globset::Glob::new(p)
                .map_err(|e| std::io::Error::other(format!("--watch {p}: {e}")))?,
        );
    }
    let set = set.build().map_err(std::io::Error::other)?;
    let root = watch
        .root
        .canonicalize()
        .unwrap_or_else(|_| watch.root.clone());
    let (raw_tx, mut raw_rx) = mpsc::unbounded_channel::<()>();
    let inside = root.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        if event
            .paths
            .iter()
            .any(|p| p.strip_prefix(&inside).is_ok_and(|rel| set.is_match(rel)))
        {
            let _ = raw_tx.send(());
        }
    })
    .map_err(std::io::Error::other)?;
    watcher
        .watch(&root, notify::RecursiveMode::Recursive)
        .map_err(std::io::Error::other)?;
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(async move {
        while raw_rx.recv().await.is_some() {
            tokio::time::sleep(Duration::from_millis(300)).await;
            while raw_rx.try_recv().is_ok() {}
            if tx.send(()).await.is_err() {
                return;
            }
        }
    });
    Ok((watcher, rx))
}

/// What the tap keeps of the host's side to replay it.
#[derive(Default)]
struct Host {
    /// `initialize` or `server/discover`, as sent.
    hello: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    /// Subscriptions and `subscriptions/listen`, as sent, by id.
    standing: BTreeMap<String, (String, Vec<u8>)>,
    /// Requests not answered yet: id → method.
    in_flight: BTreeMap<String, (Value, String)>,
}

/// Run `spawn` as [`crate::stdio::run`] does, restarted on changes under
/// `watch` with the host kept connected.
pub async fn run(spawn: &Spawn, watch: &Watch, recorder: Option<Recorder>) -> std::io::Result<i32> {
    let (_watcher, mut changed) = changes(watch)?;
    let marks = recorder.clone();
    let mut host_split = recorder.clone().map(|r| Splitter::new(Direction::Host, r));
    let mut server_split = recorder.map(|r| Splitter::new(Direction::Server, r));
    let (host_tx, mut host_lines) = mpsc::channel::<Vec<u8>>(256);
    tokio::spawn(read_lines(tokio::io::stdin(), host_tx));
    let mut stdout = tokio::io::stdout();
    let mut process = start(spawn)?;
    let mut host = Host::default();
    // Answers of the replayed handshake: not the host's.
    let mut swallow: HashSet<String> = HashSet::new();
    // The server's capabilities as it first declared them.
    let mut declared = Value::Null;
    let mut host_open = true;
    loop {
        tokio::select! {
            line = host_lines.recv(), if host_open => {
                let Some(line) = line else {
                    // The host is gone: the server's stdin closes.
                    host_open = false;
                    process.stdin = None;
                    continue;
                };
                if let Some(s) = &mut host_split {
                    s.feed(&line);
                }
                host.note(&line);
                if let Some(stdin) = &mut process.stdin {
                    let _ = stdin.write_all(&line).await;
                    let _ = stdin.flush().await;
                }
            }
            line = process.lines.recv() => {
                let Some(line) = line else {
                    // The server ended by itself: so does the tap.
                    let status = process.child.wait().await?;
                    return Ok(code(status));
                };
                if let Some(s) = &mut server_split {
                    s.feed(&line);
                }
                let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
                if v.get("method").is_none()
                    && let Some(id) = v.get("id")
                {
                    let key = id.to_string();
                    if swallow.remove(&key) {
                        continue;
                    }
                    if declared.is_null() && v["result"]["capabilities"].is_object() {
                        declared = v["result"]["capabilities"].clone();
                    }
                    host.in_flight.remove(&key);
                }
                stdout.write_all(&line).await?;
                stdout.flush().await?;
            }
            Some(()) = changed.recv() => {
                tracing::info!("tap: files changed; restarting the server");
                process.stdin = None;
                let _ = tokio::time::timeout(Duration::from_secs(2), process.child.wait()).await;
                let _ = process.child.start_kill();
                let _ = process.child.wait().await;
                // What the old process still said reaches the host.
                while let Ok(line) = process.lines.try_recv() {
                    if let Some(s) = &mut server_split {
                        s.feed(&line);
                    }
                    let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
                    if let Some(id) = v.get("id").filter(|_| v.get("method").is_none()) {
                        host.in_flight.remove(&id.to_string());
                    }
                    stdout.write_all(&line).await?;
                }
                let mut told = Vec::new();
                for (key, (id, method)) in std::mem::take(&mut host.in_flight) {
                    if host.standing.get(&key).is_some_and(|(m, _)| m == "subscriptions/listen") {
                        host.in_flight.insert(key, (id, method));
                        continue;
                    }
                    told.push(json!({ "jsonrpc": "2.0", "id": id, "error": {
                        "code": -32000,
                        "message": format!("the server restarted (its files changed) before it answered this {method}; ask again") } }));
                }
                if let Some(m) = &marks {
                    m.mark(&json!({ "restart": {
                        "why": "its files changed",
                        "answeredWithError": told.len(),
                        "replayed": host.hello.is_some() as usize + host.standing.len(),
                    } }));
                }
                process = start(spawn)?;
                let mut replay = Vec::new();
                for (key, line) in host.hello.iter().map(|l| (id_of(l), l)) {
                    swallow.extend(key);
                    replay.push(line.clone());
                }
                replay.extend(host.initialized.iter().cloned());
                for (key, (method, line)) in &host.standing {
                    if method != "subscriptions/listen" {
                        swallow.insert(key.clone());
                    }
                    replay.push(line.clone());
                }
                if let Some(stdin) = &mut process.stdin {
                    for line in replay {
                        let _ = stdin.write_all(&line).await;
                    }
                    let _ = stdin.flush().await;
                }
                for kind in ["tools", "resources", "prompts"] {
                    if declared[kind]["listChanged"] == true {
                        told.push(json!({ "jsonrpc": "2.0", "method": format!("notifications/{kind}/list_changed") }));
                    }
                }
                for message in told {
                    let mut line = message.to_string().into_bytes();
                    line.push(b'\n');
                    if let Some(s) = &mut server_split {
                        s.feed(&line);
                    }
                    stdout.write_all(&line).await?;
                }
                stdout.flush().await?;
            }
        }
    }
}

fn id_of(line: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(line).ok()?;
    v.get("id").map(Value::to_string)
}

impl Host {
    fn note(&mut self, line: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let Some(method) = v["method"].as_str() else {
            return;
        };
        match (method, v.get("id")) {
            ("initialize" | "server/discover", Some(_)) => self.hello = Some(line.to_vec()),
            ("notifications/initialized", None) => self.initialized = Some(line.to_vec()),
            _ => {}
        }
        if let Some(id) = v.get("id") {
            let key = id.to_string();
            if matches!(
                method,
                "resources/subscribe" | "subscriptions/listen" | "logging/setLevel"
            ) {
                self.standing
                    .insert(key.clone(), (method.to_string(), line.to_vec()));
            }
            if method == "resources/unsubscribe" {
                let uri = &v["params"]["uri"];
                self.standing.retain(|_, (m, l)| {
                    !(m == "resources/subscribe"
                        && serde_json::from_slice::<Value>(l)
                            .is_ok_and(|s| &s["params"]["uri"] == uri))
                });
            }
            if !matches!(method, "initialize" | "server/discover") {
                self.in_flight.insert(key, (id.clone(), method.to_string()));
            }
        }
    }
}

fn code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}
