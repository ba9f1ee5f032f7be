//! The server behind a tap restarted when its files change (`mcpwb tap
//! --watch GLOB`) or when it exits by itself (`--keep`), while the host
//! stays connected: the host's own handshake is
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

/// One process of the server, in a process group of its own: dropped (a
/// restart, the tap's end), nothing of its group is left.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Piece>,
    group: crate::group::Group,
}

fn start(spawn: &Spawn) -> std::io::Result<Process> {
    let mut command = tokio::process::Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .envs(&spawn.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(dir) = &spawn.cwd {
        command.current_dir(dir);
    }
    let mut child = command.spawn().map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot start {}: {e}", spawn.program))
    })?;
    let pid = child
        .id()
        .ok_or_else(|| std::io::Error::other("the server ended before it could be watched"))?;
    let group = crate::group::Group::led_by(pid);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, lines) = mpsc::channel(256);
    tokio::spawn(read_lines(stdout, tx));
    Ok(Process {
        child,
        stdin,
        lines,
        group,
    })
}

/// The host's stdin, read on a thread of its own. A read of stdin ends only
/// when the host closes it; tokio's own `stdin()` reads on the runtime's
/// blocking pool, and the runtime's end waits for that read, so a tap told to
/// stop while its host kept the pipe open would hang at exit. A thread of
/// our own is simply left behind when the process ends.
fn host_stdin() -> std::io::Result<impl tokio::io::AsyncRead + Unpin> {
    use std::io::Read;
    let (tx, rx) = mpsc::channel::<std::io::Result<std::collections::VecDeque<u8>>>(16);
    std::thread::Builder::new()
        .name("tap-host-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let read = match stdin.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => Ok(buf[..n].iter().copied().collect()),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = read.is_err();
                if tx.blocking_send(read).is_err() || failed {
                    return;
                }
            }
        })?;
    let chunks = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    });
    Ok(tokio_util::io::StreamReader::new(Box::pin(chunks)))
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
    /// Requests not answered yet: id → (id, method, the line as sent).
    in_flight: BTreeMap<String, (Value, String, Vec<u8>)>,
    /// Requests already sent again once after a restart (never twice).
    sent_again: HashSet<String>,
    /// Tools the server's last `tools/list` answer marked read-only or
    /// idempotent: a call of one in flight at a restart is sent again once.
    harmless: HashSet<String>,
}

impl Host {
    /// Whether the request `line` (a `method`) cannot act twice.
    fn harmless(&self, method: &str, line: &[u8]) -> bool {
        if workbench_codes::methods::only_reads(method) {
            return true;
        }
        method == "tools/call"
            && serde_json::from_slice::<Value>(line).is_ok_and(|v| {
                v["params"]["name"]
                    .as_str()
                    .is_some_and(|t| self.harmless.contains(t))
            })
    }

    /// A `tools/list` answer seen: which tools may be sent again.
    fn learn_tools(&mut self, result: &Value) {
        for tool in result["tools"].as_array().into_iter().flatten() {
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            let hint = |h: &str| tool["annotations"][h].as_bool() == Some(true);
            if hint("readOnlyHint") || hint("idempotentHint") {
                self.harmless.insert(name.to_string());
            } else {
                self.harmless.remove(name);
            }
        }
    }
}

/// Why the server behind the tap is restarted.
enum Why {
    /// Files matching the watch changed.
    Changed(Vec<String>),
    /// It exited by itself (its status).
    Exited(i32),
}

impl Why {
    fn said(&self) -> String {
        match self {
            Why::Changed(_) => "its files changed".into(),
            Why::Exited(code) => format!("it exited (status {code})"),
        }
    }
}

/// The server's side of a kept tap: its process, what the host's session
/// needs replayed, and what the host is owed.
struct Kept<'a> {
    spawn: &'a Spawn,
    process: Process,
    host: Host,
    /// Answers of the replayed handshake: not the host's.
    swallow: HashSet<String>,
    /// The server's capabilities as it first declared them.
    declared: Value,
    server_split: Option<Splitter>,
    marks: Option<Recorder>,
    stdout: tokio::io::Stdout,
    /// A restart's start is over once the replayed handshake is answered
    /// (or the server's first line came, for a host that never said hello).
    starting: bool,
    started_at: std::time::Instant,
    /// Exits in a row soon after a start: each waits longer before the next.
    quick_exits: u32,
}

/// A server that lived this long was not crashing at start.
const LIVED: Duration = Duration::from_secs(10);

impl Kept<'_> {
    /// A line the server wrote, to the host (a replayed answer swallowed).
    async fn pass_on(&mut self, line: Vec<u8>, whole: bool) -> std::io::Result<()> {
        if let Some(s) = &mut self.server_split {
            s.feed(&line);
        }
        let v: Value = if whole {
            serde_json::from_slice(&line).unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        if v.get("method").is_none()
            && let Some(id) = v.get("id")
        {
            let key = id.to_string();
            if self.swallow.remove(&key) {
                return Ok(());
            }
            if self.declared.is_null() && v["result"]["capabilities"].is_object() {
                self.declared = v["result"]["capabilities"].clone();
            }
            if let Some((_, method, _)) = self.host.in_flight.remove(&key)
                && method == "tools/list"
            {
                self.host.learn_tools(&v["result"]);
            }
            self.host.sent_again.remove(&key);
        }
        self.stdout.write_all(&line).await?;
        self.stdout.flush().await
    }

    /// A message of the tap's own to the host (kept as the server's side).
    async fn tell(&mut self, message: &Value) -> std::io::Result<()> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        if let Some(s) = &mut self.server_split {
            s.feed(&line);
        }
        self.stdout.write_all(&line).await
    }

    /// Start the server again, the host kept: what the old process still
    /// said reaches the host, a request in flight is sent again once to the
    /// new process when it cannot act twice (a read, a tool the server's
    /// list marks read-only or idempotent), else answered with an error
    /// saying why (the server may have acted), the host's handshake and
    /// standing requests are replayed, and the list changes the server
    /// declared are announced.
    async fn restart(&mut self, why: Why) -> std::io::Result<()> {
        tracing::info!("tap: {}; restarting the server", why.said());
        self.process.stdin = None;
        if matches!(why, Why::Changed(_)) {
            let _ = tokio::time::timeout(Duration::from_secs(2), self.process.child.wait()).await;
            let _ = self.process.child.start_kill();
        }
        let _ = self.process.child.wait().await;
        while let Ok(Piece { bytes, whole }) = self.process.lines.try_recv() {
            self.pass_on(bytes, whole).await?;
        }
        let mut told = Vec::new();
        let mut again = Vec::new();
        for (key, (id, method, line)) in std::mem::take(&mut self.host.in_flight) {
            if self
                .host
                .standing
                .get(&key)
                .is_some_and(|(m, _)| m == "subscriptions/listen")
            {
                self.host.in_flight.insert(key, (id, method, line));
                continue;
            }
            if !self.host.sent_again.contains(&key) && self.host.harmless(&method, &line) {
                self.host.sent_again.insert(key.clone());
                again.push(line.clone());
                self.host.in_flight.insert(key, (id, method, line));
                continue;
            }
            self.host.sent_again.remove(&key);
            told.push(json!({ "jsonrpc": "2.0", "id": id, "error": {
                "code": -32000,
                "message": format!("the server restarted ({}) before it answered this {method}; ask again", why.said()) } }));
        }
        // An exit soon after a start waits before the next, longer each time.
        let wait = match why {
            Why::Exited(_) if self.started_at.elapsed() < LIVED => {
                self.quick_exits += 1;
                Duration::from_millis(500)
                    .saturating_mul(2u32.saturating_pow(self.quick_exits.min(6)))
                    .min(Duration::from_secs(30))
            }
            _ => {
                self.quick_exits = 0;
                Duration::ZERO
            }
        };
        if let Some(m) = &self.marks {
            let files = match &why {
                Why::Changed(files) => json!(files),
                Why::Exited(_) => Value::Null,
            };
            m.mark(&json!({ "restart": {
                "why": why.said(),
                "files": files,
                "afterMs": wait.as_millis() as u64,
                "answeredWithError": told.len(),
                "sentAgain": again.len(),
                "replayed": self.host.hello.is_some() as usize + self.host.standing.len(),
            } }));
        }
        tokio::time::sleep(wait).await;
        self.process = start(self.spawn)?;
        self.started_at = std::time::Instant::now();
        self.starting = true;
        let mut replay = Vec::new();
        for (key, line) in self.host.hello.iter().map(|l| (id_of(l), l)) {
            self.swallow.extend(key);
            replay.push(line.clone());
        }
        replay.extend(self.host.initialized.iter().cloned());
        for (key, (method, line)) in &self.host.standing {
            if method != "subscriptions/listen" {
                self.swallow.insert(key.clone());
            }
            replay.push(line.clone());
        }
        // The requests sent again go after the handshake, their answers the host's.
        replay.extend(again);
        if let Some(stdin) = &mut self.process.stdin {
            for line in replay {
                let _ = stdin.write_all(&line).await;
            }
            let _ = stdin.flush().await;
        }
        for kind in ["tools", "resources", "prompts"] {
            if self.declared[kind]["listChanged"] == true {
                told.push(json!({ "jsonrpc": "2.0", "method": format!("notifications/{kind}/list_changed") }));
            }
        }
        for message in &told {
            self.tell(message).await?;
        }
        self.stdout.flush().await
    }
}

/// Run `spawn` as [`crate::stdio::run`] does, the host kept connected while
/// the server is restarted: on changes under `watch`, and when it exits by
/// itself if `on_exit` (else the tap ends with it).
pub async fn run(
    spawn: &Spawn,
    watch: Option<&Watch>,
    on_exit: bool,
    recorder: Option<Recorder>,
) -> std::io::Result<i32> {
    let (watching, mut changed) = match watch {
        Some(w) => {
            let (watching, changed) = changes(w, recorder.clone())?;
            (Some(watching), Some(changed))
        }
        None => (None, None),
    };
    let mut host_split = recorder.clone().map(|r| Splitter::new(Direction::Host, r));
    let (host_tx, mut host_lines) = mpsc::channel::<Piece>(256);
    tokio::spawn(read_lines(host_stdin()?, host_tx));
    let mut kept = Kept {
        spawn,
        process: start(spawn)?,
        host: Host::default(),
        swallow: HashSet::new(),
        declared: Value::Null,
        server_split: recorder
            .clone()
            .map(|r| Splitter::new(Direction::Server, r)),
        marks: recorder,
        stdout: tokio::io::stdout(),
        starting: false,
        started_at: std::time::Instant::now(),
        quick_exits: 0,
    };
    let mut host_open = true;
    // A signal from the host reaches the server's whole group, and means
    // stop: the server's exit then ends the tap instead of a restart.
    use nix::sys::signal::Signal;
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut stopping = false;
    loop {
        let burst = async {
            match changed.as_mut() {
                Some(c) => c.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            line = host_lines.recv(), if host_open => {
                let Some(Piece { bytes: line, whole }) = line else {
                    // The host is gone: the server's stdin closes.
                    host_open = false;
                    kept.process.stdin = None;
                    continue;
                };
                if let Some(s) = &mut host_split {
                    s.feed(&line);
                }
                if whole {
                    kept.host.note(&line);
                }
                if let Some(stdin) = &mut kept.process.stdin {
                    let _ = stdin.write_all(&line).await;
                    let _ = stdin.flush().await;
                }
            }
            line = kept.process.lines.recv() => {
                let Some(Piece { bytes: line, whole }) = line else {
                    let status = code(kept.process.child.wait().await?);
                    // The host gone or asking to stop, or no restart asked:
                    // the tap ends with it.
                    if !on_exit || !host_open || stopping {
                        return Ok(status);
                    }
                    kept.restart(Why::Exited(status)).await?;
                    continue;
                };
                if std::mem::take(&mut kept.starting)
                    && let Some(w) = &watching
                {
                    w.started();
                }
                kept.pass_on(line, whole).await?;
            }
            Some(burst) = burst, if !stopping => {
                kept.restart(Why::Changed(burst.files)).await?;
            }
            sent = async {
                tokio::select! {
                    _ = term.recv() => Signal::SIGTERM,
                    _ = int.recv() => Signal::SIGINT,
                    _ = hup.recv() => Signal::SIGHUP,
                }
            } => {
                stopping = true;
                kept.process.group.signal(sent);
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
                self.in_flight
                    .insert(key, (id.clone(), method.to_string(), line.to_vec()));
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
