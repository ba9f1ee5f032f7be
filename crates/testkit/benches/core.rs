//! The connection core against a bare rmcp client, on the same demo server in
//! the same process run: echo calls per second (sequential and 64 in flight)
//! over stdio and Streamable HTTP, and connect time for 1 server vs 20.
//! Over HTTP also against the Python SDK's client and `wrk` (`peers/http.rs`),
//! and on both transports against a third-party server, `server-everything`
//! (`peers/stdio.rs`: with a raw pipe in Python, the peer the goals name).
//! Prints figures and ratios; asserts nothing. `cargo xtask bench`.
//!
//! Both clients are connected at once and take turns: a batch of calls on
//! one, then the same on the other (the order flipping every batch), many
//! times over. Each sees the same machine, so drift in its load (large on a
//! shared 2-core VM: single runs of one client swing by 20%) falls on both
//! alike; each figure is the total over all of its batches.
//!
//! Over stdio the core is also set against a raw JSON-RPC pipe: lines
//! written to the server's stdin and answers read from its stdout and
//! handed to their waiter by id — the least any client can do (no types,
//! no traffic log, no supervisor). Both speak 2025-11-25 to the demo in
//! `--legacy` mode (the pipe does not carry 2026-07-28's per-request
//! client metadata).
//!
//! Connect times are printed next to the same handshakes by bare rmcp
//! clients and to the processes alone (started and run to exit, no MCP):
//! for servers that start instantly, process creation on the machine's
//! cores is the floor every client stands on.
//!
//! What each change bought, measured here (2 cores; ratios of one run, the
//! clients taking turns; ±3% between runs). Core / raw pipe, stdio
//! 2025-11-25, sequential in one task / task per call / 64 in flight:
//! - fat LTO, one codegen unit (release profile): 0.67 / 0.80 / 0.79 →
//!   0.67 / 0.79 / 0.92.
//! - a line written when rmcp hands it over (`connect/lines.rs`), not when
//!   the task rmcp spawns for it runs: core / bare rmcp 0.99 / 0.97 / 1.02
//!   → 1.04 / 1.02 / 1.04; against the raw pipe within the noise.
//! - mimalloc here, as the app and `mcpwb` run: no change beyond the noise.
//! - TCP_NODELAY on the demo's (and the bridge's) listener: an answer over
//!   SSE waited 40 ms for the client's delayed ACK — 23 calls/s for `wrk`
//!   and the core alike → 7,280 and 3,201. The server's doing, not the
//!   client's: the row against `wrk` is the server's ceiling once it is fixed.
//!
//! - mimalloc built without transparent huge pages (`no_thp`; for the
//!   window's memory: −16 MiB): the kernel zeroing 2 MiB pages had been a
//!   third of this process's samples in `perf`; calls a second unchanged
//!   beyond the noise.
//! - Against a third-party server (`server-everything`, Node) and the
//!   peer the goals name, a raw pipe in Python: 0.93x sequential, 0.81x
//!   with 64 in flight (Python's one-thread asyncio loop does the 64 with
//!   less CPU a call than the core's two workers); over HTTP 0.88x of `wrk`
//!   and 1.75x the Python SDK's client.
//!
//! What is left over stdio is rmcp's service loop: a request goes from
//! the caller's task to the loop's through a channel before it is written
//! (the raw pipe writes from the caller); over HTTP, rmcp's worker and
//! hyper's connection task add two more hand-offs a call. The profile is
//! the kernel's task switches, not code of ours.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, RoleClient, serve_client_with_lifecycle};
use serde_json::{Value, json};
use workbench_core::config::ConfigFile;
use workbench_core::connect::ServerState;
use workbench_core::testing::RawCalls;
use workbench_core::{CallOptions, Workbench, WorkbenchOptions};

#[path = "peers/http.rs"]
mod http_peers;
#[path = "peers/stdio.rs"]
mod stdio_peers;

// The allocator the app and `mcpwb` run the core with (each client in this
// process, the raw pipe too, allocates through it).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");
/// Sequential calls: batches per client, calls per batch.
const SEQ_BATCHES: usize = 20;
const SEQ_BATCH: usize = 150;
/// Calls with 64 in flight: batches per client, calls per batch.
const CONC_BATCHES: usize = 10;
const CONC_BATCH: usize = 1_000;
const IN_FLIGHT: usize = 64;
/// Calls made before timing, alike for both clients (first-call costs: the
/// catalog fetched at connect, lazily built state).
const WARM_UP: usize = 200;

fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        legacy_version: Some(rmcp::model::ProtocolVersion::V_2025_11_25),
    }
}

fn echo_params(i: usize) -> CallToolRequestParams {
    serde_json::from_value(json!({ "name": "echo", "arguments": { "message": format!("m{i}") } }))
        .unwrap()
}

/// One of the two clients under comparison.
#[derive(Clone)]
enum Client {
    Bare(rmcp::Peer<RoleClient>),
    Core(Workbench),
    Raw(Arc<RawPipe>),
}

/// A raw JSON-RPC client over a server's pipes.
struct RawPipe {
    stdin: tokio::sync::Mutex<tokio::process::ChildStdin>,
    waiting: std::sync::Mutex<std::collections::HashMap<u64, tokio::sync::oneshot::Sender<()>>>,
    next: std::sync::atomic::AtomicU64,
    _child: tokio::process::Child,
}

impl RawPipe {
    async fn start(program: &str, args: &[&str]) -> Arc<RawPipe> {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let pipe = Arc::new(RawPipe {
            stdin: tokio::sync::Mutex::new(child.stdin.take().unwrap()),
            waiting: std::sync::Mutex::default(),
            next: std::sync::atomic::AtomicU64::new(1),
            _child: child,
        });
        let reader = pipe.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                // The id is the only field read (as a client's router does).
                let Some(id) = serde_json::from_str::<Value>(&line)
                    .ok()
                    .and_then(|v| v["id"].as_u64())
                else {
                    continue;
                };
                if let Some(tx) = reader.waiting.lock().unwrap().remove(&id) {
                    let _ = tx.send(());
                }
            }
        });
        pipe.request(0, json!({ "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw-pipe", "version": "1" } } })).await;
        pipe.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        pipe
    }

    async fn send(&self, message: &Value) {
        use tokio::io::AsyncWriteExt;
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.lock().await.write_all(&line).await.unwrap();
    }

    async fn request(&self, id: u64, mut message: Value) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.waiting.lock().unwrap().insert(id, tx);
        message["jsonrpc"] = json!("2.0");
        message["id"] = json!(id);
        self.send(&message).await;
        rx.await.unwrap();
    }

    async fn echo(&self, i: usize) {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.request(id, json!({ "method": "tools/call", "params": { "name": "echo", "arguments": { "message": format!("m{i}") } } }))
            .await;
    }
}

impl Client {
    async fn echo(&self, i: usize) {
        match self {
            Client::Bare(peer) => {
                peer.call_tool(echo_params(i)).await.unwrap();
            }
            Client::Core(wb) => {
                let args = json!({ "message": format!("m{i}") });
                wb.call_tool("s", "echo", args, CallOptions::default())
                    .await
                    .unwrap();
            }
            Client::Raw(pipe) => pipe.echo(i).await,
        }
    }
}

#[derive(Clone, Copy)]
enum Mode {
    /// Awaited one after another in one task (a client's loop).
    OneTask,
    /// Each spawned as its own task and awaited (as the app and the bridge
    /// run calls).
    TaskPerCall,
    /// At most 64 in flight.
    Concurrent,
}

/// Time `n` calls on `client` in `mode`.
async fn batch(client: &Client, mode: Mode, n: usize) -> Duration {
    let started = Instant::now();
    match mode {
        Mode::OneTask => {
            for i in 0..n {
                client.echo(i).await;
            }
        }
        Mode::TaskPerCall => {
            for i in 0..n {
                let c = client.clone();
                tokio::spawn(async move { c.echo(i).await }).await.unwrap();
            }
        }
        Mode::Concurrent => {
            let sem = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
            let mut tasks = Vec::with_capacity(n);
            for i in 0..n {
                let permit = sem.clone().acquire_owned().await.unwrap();
                let c = client.clone();
                tasks.push(tokio::spawn(async move {
                    c.echo(i).await;
                    drop(permit);
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
        }
    }
    started.elapsed()
}

/// Calls per second of (bare, core) in `mode`, taking turns batch by batch.
async fn compare(bare: &Client, core: &Client, mode: Mode) -> (f64, f64) {
    let (batches, size) = match mode {
        Mode::Concurrent => (CONC_BATCHES, CONC_BATCH),
        _ => (SEQ_BATCHES, SEQ_BATCH),
    };
    let (mut t_bare, mut t_core) = (Duration::ZERO, Duration::ZERO);
    for b in 0..batches {
        if b % 2 == 0 {
            t_bare += batch(bare, mode, size).await;
            t_core += batch(core, mode, size).await;
        } else {
            t_core += batch(core, mode, size).await;
            t_bare += batch(bare, mode, size).await;
        }
    }
    let calls = (batches * size) as f64;
    (calls / t_bare.as_secs_f64(), calls / t_core.as_secs_f64())
}

/// A bare rmcp client that introduces itself as the workbench does (on
/// 2026-07-28 the client's info and capabilities travel in every request's
/// `_meta`, so the server and rmcp do the same work for both).
async fn bare_client(url: Option<&str>) -> rmcp::service::RunningService<RoleClient, ClientConfig> {
    let info = workbench_core::connect::client_config(None);
    let client = match url {
        None => {
            let mut cmd = tokio::process::Command::new(BIN);
            cmd.stderr(Stdio::null());
            serve_client_with_lifecycle(info, TokioChildProcess::new(cmd).unwrap(), lifecycle())
                .await
                .unwrap()
        }
        Some(url) => {
            let t = StreamableHttpClientTransport::with_client(
                workbench_http::client().unwrap(),
                StreamableHttpClientTransportConfig::with_uri(url),
            );
            serve_client_with_lifecycle(info, t, lifecycle())
                .await
                .unwrap()
        }
    };
    client
        .peer()
        .set_response_cache_config(rmcp::ClientCacheConfig::disabled())
        .await;
    client
}

async fn core_client(dir: &std::path::Path, entry: Value) -> Workbench {
    let wb = Workbench::start(
        &config(dir, vec![("s".into(), entry)]),
        WorkbenchOptions::default(),
    );
    wb.server("s")
        .unwrap()
        .wait_for(Duration::from_secs(30), |s| matches!(s, ServerState::Ready))
        .await
        .expect("ready");
    wb
}

/// Both clients on one transport: rows of calls per second and the ratios.
async fn throughput(label: &str, url: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let entry = match url {
        None => json!({ "command": BIN }),
        Some(url) => json!({ "type": "http", "url": url }),
    };
    let running = bare_client(url).await;
    let bare = Client::Bare(running.peer().clone());
    let wb = core_client(dir.path(), entry).await;
    let core = Client::Core(wb.clone());
    for c in [&bare, &core] {
        batch(c, Mode::OneTask, WARM_UP).await;
    }
    let mut rows = Vec::new();
    for mode in [Mode::OneTask, Mode::TaskPerCall, Mode::Concurrent] {
        rows.push(compare(&bare, &core, mode).await);
    }
    println!(
        "{:<26}{:>14.0}{:>14.0}{:>14.0}",
        format!("{label}, bare rmcp"),
        rows[0].0,
        rows[1].0,
        rows[2].0
    );
    println!(
        "{:<26}{:>14.0}{:>14.0}{:>14.0}",
        format!("{label}, workbench core"),
        rows[0].1,
        rows[1].1,
        rows[2].1
    );
    println!(
        "  core / bare, {label}: {:.2}x sequential in one task, {:.2}x sequential with a task per call, {:.2}x with 64 in flight (target >= 0.9x)",
        rows[0].1 / rows[0].0,
        rows[1].1 / rows[1].0,
        rows[2].1 / rows[2].0
    );
    let _ = running.cancel().await;
    wb.shutdown().await;
}

/// The core against a raw JSON-RPC pipe over stdio, both in 2025-11-25.
async fn against_raw_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let raw = Client::Raw(RawPipe::start(BIN, &["--legacy"]).await);
    let wb = core_client(dir.path(), json!({ "command": BIN, "args": ["--legacy"] })).await;
    let core = Client::Core(wb.clone());
    for c in [&raw, &core] {
        batch(c, Mode::OneTask, WARM_UP).await;
    }
    let mut rows = Vec::new();
    for mode in [Mode::OneTask, Mode::TaskPerCall, Mode::Concurrent] {
        rows.push(compare(&raw, &core, mode).await);
    }
    for (label, pick) in [("raw JSON-RPC pipe", 0usize), ("workbench core", 1)] {
        let v = |r: &(f64, f64)| if pick == 0 { r.0 } else { r.1 };
        println!(
            "{:<26}{:>14.0}{:>14.0}{:>14.0}",
            format!("stdio 2025, {label}"),
            v(&rows[0]),
            v(&rows[1]),
            v(&rows[2])
        );
    }
    println!(
        "  core / raw pipe, stdio 2025-11-25: {:.2}x sequential in one task, {:.2}x with a task per call, {:.2}x with 64 in flight (goals: >= 1.0x sequential, >= 0.95x in flight)",
        rows[0].1 / rows[0].0,
        rows[1].1 / rows[1].0,
        rows[2].1 / rows[2].0
    );
    wb.shutdown().await;
}

fn config(dir: &std::path::Path, servers: Vec<(String, Value)>) -> ConfigFile {
    let map: serde_json::Map<String, Value> = servers.into_iter().collect();
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": map }).to_string()).unwrap();
    ConfigFile::load(&path).unwrap()
}

async fn connect_time(n: usize, delay_ms: u64) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let servers = (0..n)
        .map(|i| {
            (
                format!("s{i}"),
                json!({ "command": BIN, "args": ["--name", format!("s{i}"), "--startup-delay-ms", delay_ms.to_string()] }),
            )
        })
        .collect();
    let cfg = config(dir.path(), servers);
    let started = Instant::now();
    let wb = Workbench::start(&cfg, WorkbenchOptions::default());
    for s in wb.servers() {
        s.wait_for(Duration::from_secs(60), |s| matches!(s, ServerState::Ready))
            .await
            .expect("ready");
    }
    let took = started.elapsed();
    wb.shutdown().await;
    took
}

/// The same with bare rmcp clients: `n` handshakes at once, nothing else
/// (no supervisor, no catalog). What the machine allows, for comparison.
async fn connect_time_bare(n: usize, delay_ms: u64) -> Duration {
    let started = Instant::now();
    let clients = futures::future::join_all((0..n).map(|_| async move {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.args(["--startup-delay-ms", &delay_ms.to_string()])
            .stderr(Stdio::null());
        serve_client_with_lifecycle((), TokioChildProcess::new(cmd).unwrap(), lifecycle())
            .await
            .unwrap()
    }))
    .await;
    let took = started.elapsed();
    for c in clients {
        let _ = c.cancel().await;
    }
    took
}

/// The machine alone, no MCP at all: `n` demo servers started at once with
/// stdin closed, until all have exited. What process creation costs here
/// bounds every client's connect time for servers that start instantly.
async fn processes_time(n: usize) -> Duration {
    let started = Instant::now();
    let children: Vec<_> = (0..n)
        .map(|_| {
            tokio::process::Command::new(BIN)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().await.unwrap();
    }
    started.elapsed()
}

/// `measure(1)` and `measure(20)`, each the median of three, in milliseconds.
async fn one_vs_twenty<F, Fut>(measure: F) -> (f64, f64)
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Duration>,
{
    let mut out = [0.0; 2];
    for (slot, n) in out.iter_mut().zip([1, 20]) {
        let mut runs = Vec::new();
        for _ in 0..3 {
            runs.push(measure(n).await);
        }
        *slot = median(runs).as_secs_f64() * 1000.0;
    }
    (out[0], out[1])
}

/// The middle value (of rates, ratios or times; shared by the peers' parts).
fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    // `cargo bench --bench core -- stdio-peers http-peers` runs only those
    // parts (names below); no names, every part.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    const PARTS: [&str; 6] = [
        "stdio",
        "raw-pipe",
        "stdio-peers",
        "http",
        "http-peers",
        "connect",
    ];
    if let Some(unknown) = only.iter().find(|o| !PARTS.contains(&o.as_str())) {
        eprintln!(
            "no part \"{unknown}\" in this bench; its parts: {}",
            PARTS.join(", ")
        );
        std::process::exit(2);
    }
    let part = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    // HTTP server for both clients.
    let dir = tempfile::tempdir().unwrap();
    let (mut http, addr) = workbench_testkit::demo_over_http(BIN.as_ref(), dir.path(), &[]).await;
    let url = format!("http://{addr}/mcp");

    println!(
        "echo calls per second ({} sequential, {} with {IN_FLIGHT} in flight, per client; the two take turns in batches)",
        SEQ_BATCHES * SEQ_BATCH,
        CONC_BATCHES * CONC_BATCH
    );
    println!(
        "{:<26}{:>14}{:>14}{:>14}",
        "", "sequential,", "sequential,", "64 in"
    );
    println!(
        "{:<26}{:>14}{:>14}{:>14}",
        "", "one task", "task per call", "flight"
    );
    if part("stdio") {
        throughput("stdio", None).await;
    }
    if part("raw-pipe") {
        against_raw_pipe().await;
    }
    if part("stdio-peers") {
        stdio_peers::against_peers().await;
    }
    if part("http") {
        throughput("http", Some(&url)).await;
    }
    if part("http-peers") {
        http_peers::against_peers().await;
    }
    for delay in [0u64, 300].into_iter().filter(|_| part("connect")) {
        let (one, twenty) = one_vs_twenty(|n| connect_time(n, delay)).await;
        println!(
            "connect until Ready, servers that take {delay} ms to start (median of 3): 1 server {one:.1} ms, 20 servers {twenty:.1} ms, ratio {:.2}x (target <= 1.3x)",
            twenty / one
        );
        let (one, twenty) = one_vs_twenty(|n| connect_time_bare(n, delay)).await;
        println!(
            "  the same handshakes with bare rmcp clients: 1 server {one:.1} ms, 20 servers {twenty:.1} ms, ratio {:.2}x",
            twenty / one
        );
        if delay == 0 {
            let (one, twenty) = one_vs_twenty(processes_time).await;
            println!(
                "  the machine alone (demo server processes started and run to exit, no MCP): 1 process {one:.1} ms, 20 processes {twenty:.1} ms, ratio {:.2}x on {} cores",
                twenty / one,
                std::thread::available_parallelism().map_or(1, |n| n.get())
            );
        }
    }
    let _ = http.kill().await;
    let _ = http.wait().await;
}
