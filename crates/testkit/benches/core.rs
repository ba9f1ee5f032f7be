//! The connection core against a bare rmcp client, on the same demo server in
//! the same process run: echo calls per second (sequential and 64 in flight)
//! over stdio and Streamable HTTP, and connect time for 1 server vs 20.
//! Prints figures and ratios; asserts nothing. `cargo xtask bench`.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, RoleClient, serve_client_with_lifecycle};
use serde_json::{Value, json};
use workbench_core::config::ConfigFile;
use workbench_core::connect::ServerState;
use workbench_core::{CallOptions, Workbench, WorkbenchOptions};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");
const SEQUENTIAL: usize = 2_000;
const CONCURRENT: usize = 8_000;
const ROUNDS: usize = 5;
const IN_FLIGHT: usize = 64;
/// Calls made before timing, alike for both clients (first-call costs: the
/// catalog fetched at connect, lazily built state).
/// Sequential calls are timed two ways: awaited one after another in one
/// task (a client's loop), and each spawned as its own task (as the app and
/// the bridge run calls); the two differ on this machine by up to 10%.
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

/// Calls per second for `n` calls with at most `in_flight` at once.
async fn rate<F, Fut>(n: usize, in_flight: usize, call: F) -> f64
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let started = Instant::now();
    let sem = Arc::new(tokio::sync::Semaphore::new(in_flight));
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let permit = sem.clone().acquire_owned().await.unwrap();
        let call = call.clone();
        tasks.push(tokio::spawn(async move {
            call(i).await;
            drop(permit);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// Calls per second for `n` calls awaited one after another in this task.
async fn in_one_task<F, Fut>(n: usize, call: F) -> f64
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let started = Instant::now();
    for i in 0..n {
        call(i).await;
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// (sequential in one task, sequential with a task per call, 64 in flight)
type Rates = (f64, f64, f64);

async fn bare(transport: &str, url: Option<&str>) -> Rates {
    let client: rmcp::service::RunningService<RoleClient, ()> = match transport {
        "stdio" => {
            let mut cmd = tokio::process::Command::new(BIN);
            cmd.stderr(Stdio::null());
            serve_client_with_lifecycle((), TokioChildProcess::new(cmd).unwrap(), lifecycle())
                .await
                .unwrap()
        }
        _ => {
            let t = StreamableHttpClientTransport::from_config(
                StreamableHttpClientTransportConfig::with_uri(url.unwrap()),
            );
            serve_client_with_lifecycle((), t, lifecycle())
                .await
                .unwrap()
        }
    };
    client
        .peer()
        .set_response_cache_config(rmcp::ClientCacheConfig::disabled())
        .await;
    let peer = client.peer().clone();
    for i in 0..WARM_UP {
        peer.call_tool(echo_params(i)).await.unwrap();
    }
    let one = in_one_task(SEQUENTIAL, |i| {
        let p = peer.clone();
        async move {
            p.call_tool(echo_params(i)).await.unwrap();
        }
    })
    .await;
    let p = peer.clone();
    let seq = rate(SEQUENTIAL, 1, move |i| {
        let p = p.clone();
        async move {
            p.call_tool(echo_params(i)).await.unwrap();
        }
    })
    .await;
    let p = peer.clone();
    let conc = rate(CONCURRENT, IN_FLIGHT, move |i| {
        let p = p.clone();
        async move {
            p.call_tool(echo_params(i)).await.unwrap();
        }
    })
    .await;
    let _ = client.cancel().await;
    (one, seq, conc)
}

fn config(dir: &std::path::Path, servers: Vec<(String, Value)>) -> ConfigFile {
    let map: serde_json::Map<String, Value> = servers.into_iter().collect();
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": map }).to_string()).unwrap();
    ConfigFile::load(&path).unwrap()
}

async fn core(entry: Value) -> Rates {
    let dir = tempfile::tempdir().unwrap();
    let wb = Workbench::start(
        &config(dir.path(), vec![("s".into(), entry)]),
        WorkbenchOptions::default(),
    );
    wb.server("s")
        .unwrap()
        .wait_for(Duration::from_secs(30), |s| matches!(s, ServerState::Ready))
        .await
        .expect("ready");
    let echo = |wb: Workbench| {
        move |i: usize| {
            let wb = wb.clone();
            async move {
                let args = json!({ "message": format!("m{i}") });
                wb.call_tool("s", "echo", args, CallOptions::default())
                    .await
                    .unwrap();
            }
        }
    };
    for i in 0..WARM_UP {
        echo(wb.clone())(i).await;
    }
    let one = in_one_task(SEQUENTIAL, echo(wb.clone())).await;
    let seq = rate(SEQUENTIAL, 1, echo(wb.clone())).await;
    let conc = rate(CONCURRENT, IN_FLIGHT, echo(wb.clone())).await;
    wb.shutdown().await;
    (one, seq, conc)
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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    // HTTP server for both clients.
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("addr");
    let mut http = std::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut addr = String::new();
    for _ in 0..200 {
        addr = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !addr.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let url = format!("http://{addr}/mcp");

    // Bare and core alternate, round after round, so drift in the machine's
    // load hits both alike; each figure is the median of the rounds, and each
    // ratio the median of the rounds' own ratios.
    println!(
        "echo calls per second ({SEQUENTIAL} sequential, {CONCURRENT} with {IN_FLIGHT} in flight; median of {ROUNDS} alternating rounds)"
    );
    println!(
        "{:<26}{:>14}{:>14}{:>14}",
        "", "sequential,", "sequential,", "64 in"
    );
    println!(
        "{:<26}{:>14}{:>14}{:>14}",
        "", "one task", "task per call", "flight"
    );
    let mut rounds = Vec::new();
    for _ in 0..ROUNDS {
        rounds.push([
            bare("stdio", None).await,
            core(json!({ "command": BIN })).await,
            bare("http", Some(&url)).await,
            core(json!({ "type": "http", "url": url })).await,
        ]);
    }
    type Round = [Rates; 4];
    let med = |f: &dyn Fn(&Round) -> f64| -> f64 {
        let mut v: Vec<f64> = rounds.iter().map(f).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let labels = [
        "stdio, bare rmcp",
        "stdio, workbench core",
        "http, bare rmcp",
        "http, workbench core",
    ];
    for (i, label) in labels.iter().enumerate() {
        println!(
            "{label:<26}{:>14.0}{:>14.0}{:>14.0}",
            med(&|r| r[i].0),
            med(&|r| r[i].1),
            med(&|r| r[i].2)
        );
    }
    for (name, b, c) in [("stdio", 0, 1), ("http", 2, 3)] {
        println!(
            "core / bare, {name}: {:.2}x sequential in one task, {:.2}x sequential with a task per call, {:.2}x with 64 in flight (target >= 0.9x)",
            med(&|r| r[c].0 / r[b].0),
            med(&|r| r[c].1 / r[b].1),
            med(&|r| r[c].2 / r[b].2)
        );
    }

    for delay in [0u64, 300] {
        let one = median(vec![
            connect_time(1, delay).await,
            connect_time(1, delay).await,
            connect_time(1, delay).await,
        ]);
        let twenty = median(vec![
            connect_time(20, delay).await,
            connect_time(20, delay).await,
            connect_time(20, delay).await,
        ]);
        println!(
            "connect until Ready, servers that take {delay} ms to start (median of 3): 1 server {:.1} ms, 20 servers {:.1} ms, ratio {:.2}x (target <= 1.3x)",
            one.as_secs_f64() * 1000.0,
            twenty.as_secs_f64() * 1000.0,
            twenty.as_secs_f64() / one.as_secs_f64()
        );
        let bare_one = median(vec![
            connect_time_bare(1, delay).await,
            connect_time_bare(1, delay).await,
            connect_time_bare(1, delay).await,
        ]);
        let bare_twenty = median(vec![
            connect_time_bare(20, delay).await,
            connect_time_bare(20, delay).await,
            connect_time_bare(20, delay).await,
        ]);
        println!(
            "  the same handshakes with bare rmcp clients: 1 server {:.1} ms, 20 servers {:.1} ms, ratio {:.2}x",
            bare_one.as_secs_f64() * 1000.0,
            bare_twenty.as_secs_f64() * 1000.0,
            bare_twenty.as_secs_f64() / bare_one.as_secs_f64()
        );
    }
    let _ = http.kill();
    let _ = http.wait();
}
