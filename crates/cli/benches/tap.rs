//! The tap against going direct: echo calls per second from a bare rmcp
//! client to the demo server straight, and through `mcpwb tap` (recording
//! on, into a throwaway store), over stdio in both protocol eras and over
//! Streamable HTTP (`mcpwb tap --to`), sequential and 64 in flight, and
//! over stdio once more beside two programs that keep the CPUs busy. Beside
//! them a bare relay that only passes bytes (`echo/relay.rs`): the floor of
//! any hop, so what is ours in the tap's cost shows apart from what a second
//! hop costs. Prints figures and the ratios (the target: the tap at least
//! 0.9 of straight); asserts nothing. `cargo xtask bench`.
//!
//! The clients are connected at once and take turns batch by batch (the
//! order rotating each batch), so drift in the machine's load falls on all.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::ClientLifecycleMode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");

#[path = "echo/mod.rs"]
mod calls;
#[path = "echo/race.rs"]
mod race;
#[path = "echo/relay.rs"]
mod relay;
use race::{Path, Via, over_stdio, race};

const SEQ: usize = 300;
const CONC: usize = 1_500;
const TARGET: f64 = 0.9;

/// Going straight, through a bare relay, through the tap passing only
/// (`--no-record`), recording but asleep between messages
/// (`MCPWB_SPIN_US=0`) and as it runs: echo's paths.
fn paths(direct: Via, relayed: Via, passing: Via, asleep: Via, tapped: Via) -> Vec<Path> {
    let path = |name, (c, pid): Via| Path {
        name,
        client: Arc::new(c),
        tool: "echo",
        pid,
    };
    vec![
        path("straight", direct),
        path("bare relay", relayed),
        path("tap, no record", passing),
        path("tap asleep", asleep),
        path("the tap", tapped),
    ]
}

/// How a tap runs: recording or not, awake between close messages or not.
#[derive(Clone, Copy)]
struct Runs {
    record: bool,
    awake: bool,
}

const PASSING: Runs = Runs {
    record: false,
    awake: true,
};
const ASLEEP: Runs = Runs {
    record: true,
    awake: false,
};
const TAPPED: Runs = Runs {
    record: true,
    awake: true,
};

/// `mcpwb tap` with `args` in the throwaway home `home`.
fn tap_cmd(home: &std::path::Path, runs: Runs, args: &[&str]) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(MCPWB);
    if !runs.awake {
        c.env("MCPWB_SPIN_US", "0");
    }
    let command = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    c.args(&args[..command]);
    if !runs.record {
        c.arg("--no-record");
    }
    c.args(&args[command..])
        .env("HOME", home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-bench-tap-{}", std::process::id()),
        )
        .stderr(Stdio::null())
        .kill_on_drop(true);
    c
}

/// `mcpwb tap --to url` started: the child and the URL it says.
async fn http_tap(
    home: &std::path::Path,
    runs: Runs,
    url: &str,
) -> (tokio::process::Child, String) {
    let (tap, first) =
        relay::first_line(tap_cmd(home, runs, &["--json", "tap", "--to", url])).await;
    let said: serde_json::Value = serde_json::from_str(&first).unwrap();
    (tap, said["url"].as_str().unwrap().to_string())
}

/// `n` programs that only spin, at the normal priority (killed when
/// dropped).
fn busy_programs(n: usize) -> Vec<tokio::process::Child> {
    (0..n)
        .map(|_| {
            tokio::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .kill_on_drop(true)
                .spawn()
                .unwrap()
        })
        .collect()
}

fn main() {
    relay::run_if_asked();
    bench()
}

#[tokio::main]
async fn bench() {
    let dir = tempfile::tempdir().unwrap();
    let demo = workbench_testkit::demo_server_path();
    println!(
        "echo through mcpwb tap (recording) vs straight to the demo server and through a bare relay (target: the tap >= {TARGET} of straight)"
    );
    for (label, mode) in [
        ("stdio 2025", ClientLifecycleMode::Initialize),
        (
            "stdio 2026",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        ),
    ] {
        let direct = over_stdio(tokio::process::Command::new(&demo), &mode).await;
        let relayed = over_stdio(relay::stdio_command(&demo), &mode).await;
        let demo = demo.to_str().unwrap();
        let stdio_tap = |runs| over_stdio(tap_cmd(dir.path(), runs, &["tap", "--", demo]), &mode);
        let passing = stdio_tap(PASSING).await;
        let asleep = stdio_tap(ASLEEP).await;
        let tapped = stdio_tap(TAPPED).await;
        let all = paths(direct, relayed, passing, asleep, tapped);
        race(label, &all, (SEQ, CONC), TARGET).await;
        if label == "stdio 2025" {
            // The same paths beside two programs that keep both CPUs busy:
            // the tap waits for bytes awake only while CPUs are spare, and
            // must not make the server and the host wait behind it.
            let _busy = busy_programs(2);
            race("stdio 2025, CPUs busy", &all, (SEQ, CONC), TARGET).await;
        }
    }
    // Streamable HTTP: the demo server on a loopback port, `mcpwb tap --to`
    // in front of it.
    let port_file = dir.path().join("demo-addr");
    let mut demo_http = tokio::process::Command::new(&demo)
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut addr = String::new();
    for _ in 0..400 {
        addr = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !addr.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let url = format!("http://{addr}/mcp");
    let (mut passing_tap, passing_url) = http_tap(dir.path(), PASSING, &url).await;
    let (mut asleep_tap, asleep_url) = http_tap(dir.path(), ASLEEP, &url).await;
    let (mut tap, tapped_url) = http_tap(dir.path(), TAPPED, &url).await;
    let (passing_pid, asleep_pid, tap_pid) = (passing_tap.id(), asleep_tap.id(), tap.id());
    let http = |u: &str| {
        ().serve(StreamableHttpClientTransport::with_client(
            workbench_http::client().unwrap(),
            StreamableHttpClientTransportConfig::with_uri(u.to_string()),
        ))
    };
    let (relay, relayed_url) = relay::http_relay(&url, "/mcp").await;
    let direct = (http(&url).await.unwrap(), None);
    let relayed = (http(&relayed_url).await.unwrap(), relay.id());
    let passing = (http(&passing_url).await.unwrap(), passing_pid);
    let asleep = (http(&asleep_url).await.unwrap(), asleep_pid);
    let tapped = (http(&tapped_url).await.unwrap(), tap_pid);
    let all = paths(direct, relayed, passing, asleep, tapped);
    race("HTTP", &all, (SEQ, CONC), TARGET).await;
    let _ = passing_tap.kill().await;
    let _ = asleep_tap.kill().await;
    let _ = demo_http.kill().await;
    let _ = tap.kill().await;
}
