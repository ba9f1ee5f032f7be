//! The server behind a tap restarted when its files change, while the host
//! stays connected (`mcpwb tap --watch GLOB`): the host's own handshake is
//! replayed to the new process (its `initialize` or `server/discover`, then
//! `notifications/initialized`, its subscriptions and `subscriptions/listen`),
//! requests that were in flight get an error saying the server restarted,
//! and the host is told what may have changed (`notifications/*/list_changed`
//! where the server declared them). Messages pass as whole lines, byte for
//! byte; only the replayed handshake's answers are not passed (the host
//! already has them). A line longer than [`LONGEST_HELD`] passes in parts
//! as it comes (never held whole: a server's endless line cannot grow the
//! tap), and is not read for its id. The files are watched by the one
//! watcher (`workbench_watch`: rooted, no link followed, ignored folders
//! pruned, capped, restarts held back).

use std::collections::{BTreeMap, HashSet};
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
pub use workbench_watch::Watch;

/// The longest part of a line held before it is passed on (the entries'
/// default `maxMessageSize`): a longer line passes in parts.
pub const LONGEST_HELD: usize = 16 * 1024 * 1024;

/// A piece of one side's output: a whole line (with its newline), or a part
/// of a line longer than [`LONGEST_HELD`] (passed, not read).
struct Piece {
    bytes: Vec<u8>,
    whole: bool,
}

/// One process of the server.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Piece>,
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

/// Whole lines (with their newline) as they come, a last one without; a
/// line past [`LONGEST_HELD`] in parts as they come.
async fn read_lines(from: impl tokio::io::AsyncRead + Unpin, to: mpsc::Sender<Piece>) {
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    // Inside a line already passed in part.
    let mut inside = false;
    loop {
        let mut line = Vec::new();
        let ended = loop {
            let buf = match reader.fill_buf().await {
                Ok([]) | Err(_) => break None,
                Ok(buf) => buf,
            };
            let room = LONGEST_HELD.saturating_sub(line.len()).max(1);
            match buf.iter().take(room).position(|b| *b == b'\n') {
                Some(at) => {
                    line.extend_from_slice(&buf[..=at]);
                    reader.consume(at + 1);
                    break Some(true);
                }
                None => {
                    let n = buf.len().min(room);
                    line.extend_from_slice(&buf[..n]);
                    reader.consume(n);
                    if line.len() >= LONGEST_HELD {
                        break Some(false);
                    }
                }
            }
        };
        let whole = ended == Some(true) && !inside;
        let ends_line = ended != Some(false);
        if line.is_empty() {
            return;
        }
        if to.send(Piece { bytes: line, whole }).await.is_err() {
            return;
        }
        inside = !ends_line;
        if ended.is_none() {
            return;
        }
    }
}

/// Changes under `watch`, a settled burst at a time, by the one watcher;
/// what it says (folders left out, a restart held back) goes to the log
/// and, when the session is kept, into it as a mark.
fn changes(
    watch: &Watch,
    marks: Option<Recorder>,
) -> std::io::Result<(
    workbench_watch::Watching,
    mpsc::Receiver<workbench_watch::Burst>,
)> {
    let say: workbench_watch::Say = std::sync::Arc::new(move |why: &str| {
        tracing::warn!("tap --watch: {why}");
        if let Some(m) = &marks {
            m.mark(&json!({ "watch": why }));
        }
    });
    workbench_watch::start(watch, say)
        .map_err(|why| std::io::Error::other(format!("--watch: {why}")))
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
    let marks = recorder.clone();
    let (watching, mut changed) = changes(watch, marks.clone())?;
    // A restart's start is over once the replayed handshake is answered
    // (or the server's first line came, for a host that never said hello).
    let mut starting = false;
    let mut host_split = recorder.clone().map(|r| Splitter::new(Direction::Host, r));
    let mut server_split = recorder.map(|r| Splitter::new(Direction::Server, r));
    let (host_tx, mut host_lines) = mpsc::channel::<Piece>(256);
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
                let Some(Piece { bytes: line, whole }) = line else {
                    // The host is gone: the server's stdin closes.
                    host_open = false;
                    process.stdin = None;
                    continue;
                };
                if let Some(s) = &mut host_split {
                    s.feed(&line);
                }
                if whole {
                    host.note(&line);
                }
                if let Some(stdin) = &mut process.stdin {
                    let _ = stdin.write_all(&line).await;
                    let _ = stdin.flush().await;
                }
            }
            line = process.lines.recv() => {
                let Some(Piece { bytes: line, whole }) = line else {
                    // The server ended by itself: so does the tap.
                    let status = process.child.wait().await?;
                    return Ok(code(status));
                };
                if let Some(s) = &mut server_split {
                    s.feed(&line);
                }
                let v: Value = if whole {
                    serde_json::from_slice(&line).unwrap_or(Value::Null)
                } else {
                    Value::Null
                };
                if std::mem::take(&mut starting) {
                    watching.started();
                }
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
            Some(burst) = changed.recv() => {
                tracing::info!(files = ?burst.files, "tap: files changed; restarting the server");
                process.stdin = None;
                let _ = tokio::time::timeout(Duration::from_secs(2), process.child.wait()).await;
                let _ = process.child.start_kill();
                let _ = process.child.wait().await;
                // What the old process still said reaches the host.
                while let Ok(Piece { bytes: line, whole }) = process.lines.try_recv() {
                    if let Some(s) = &mut server_split {
                        s.feed(&line);
                    }
                    let v: Value = if whole {
                        serde_json::from_slice(&line).unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    };
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
                        "files": burst.files,
                        "answeredWithError": told.len(),
                        "replayed": host.hello.is_some() as usize + host.standing.len(),
                    } }));
                }
                process = start(spawn)?;
                starting = true;
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
