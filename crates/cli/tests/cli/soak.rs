//! The soak bed: six servers behind `mcpwb serve` and one more behind a
//! tap, calls made all the time by a client of the bridge, one server
//! killed (SIGKILL) every 15 s in turn. Nothing may fail that arrived
//! outside an in-flight window (a call sent before its server died and
//! answered after); each recovery's time and the bridge's memory are
//! reported. The servers are the test kit's demo, and the third-party ones
//! `cargo xtask test` installs where they are (server-everything, a server
//! on the official Python SDK).
//!
//! CI runs it for 60 s; `cargo xtask soak` for 30 minutes (`MCPWB_SOAK_SECS`),
//! where the bridge's memory over the last two thirds must stay within ±10%.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::tap::in_home;
use super::{BIN, demo_server};

const KILL_EVERY: Duration = Duration::from_secs(15);
const WORKERS: usize = 6;
/// Each worker's pause between calls: steady traffic, not a load test (CI
/// runs the soak beside the other tests on two cores).
const PACE: Duration = Duration::from_millis(10);

/// A client of the bridge over its stdio: requests by id, answers routed.
struct Client {
    stdin: Mutex<ChildStdin>,
    waiting: Arc<Mutex<HashMap<u64, mpsc::Sender<Value>>>>,
    next: AtomicU64,
}

impl Client {
    fn start(child: &mut Child) -> Arc<Client> {
        let waiting: Arc<Mutex<HashMap<u64, mpsc::Sender<Value>>>> = Default::default();
        let stdout = child.stdout.take().unwrap();
        let routes = waiting.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if v.get("method").is_some() {
                    continue;
                }
                if let Some(id) = v["id"].as_u64()
                    && let Some(tx) = routes.lock().unwrap().remove(&id)
                {
                    let _ = tx.send(v);
                }
            }
        });
        Arc::new(Client {
            stdin: Mutex::new(child.stdin.take().unwrap()),
            waiting,
            next: AtomicU64::new(1),
        })
    }

    fn send(&self, message: &Value) {
        let mut stdin = self.stdin.lock().unwrap();
        let _ = writeln!(stdin, "{message}");
        let _ = stdin.flush();
    }

    fn request(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        self.waiting.lock().unwrap().insert(id, tx);
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let answer = rx.recv_timeout(timeout).map_err(|_| {
            self.waiting.lock().unwrap().remove(&id);
            format!("no answer within {} s", timeout.as_secs())
        })?;
        if let Some(error) = answer.get("error") {
            return Err(error.to_string());
        }
        let result = answer["result"].clone();
        if result["isError"] == true {
            return Err(result["content"].to_string());
        }
        Ok(result)
    }
}

/// One server of the bed: its entry, the tool called on it, and what in a
/// process's command line tells its process apart.
struct Bed {
    name: String,
    entry: Value,
    tool: &'static str,
    arguments: Value,
    marker: String,
}

fn demo(name: &str) -> Bed {
    Bed {
        name: name.to_string(),
        entry: json!({ "command": demo_server(), "args": ["--name", name] }),
        tool: "echo",
        arguments: json!({ "message": "soak" }),
        marker: format!("--name\0{name}"),
    }
}

/// The servers: the demo, server-everything and a Python SDK server where
/// installed, and one demo behind `mcpwb tap`.
fn beds(dir: &std::path::Path) -> Vec<Bed> {
    let mut beds: Vec<Bed> = (1..=4).map(|i| demo(&format!("demo{i}"))).collect();
    let everything = std::env::var_os("MCPWB_THIRD_PARTY")
        .map(|d| std::path::PathBuf::from(d).join("node_modules/.bin/mcp-server-everything"))
        .filter(|p| p.exists());
    match everything {
        Some(bin) => beds.push(Bed {
            name: "everything".into(),
            entry: json!({ "command": bin, "args": ["stdio"] }),
            tool: "echo",
            arguments: json!({ "message": "soak" }),
            marker: "mcp-server-everything".into(),
        }),
        None => {
            eprintln!(
                "soak: server-everything is not installed (MCPWB_THIRD_PARTY): a demo stands in"
            );
            beds.push(demo("demo5"));
        }
    }
    match std::env::var("MCPWB_PYTHON") {
        Ok(python) => {
            std::fs::write(
                dir.join("server.py"),
                include_str!("../../../../tests/fixtures/sdk_tools_from_file.py"),
            )
            .unwrap();
            std::fs::write(dir.join("tools.json"), r#"[{"name": "hello"}]"#).unwrap();
            beds.push(Bed {
                name: "python".into(),
                entry: json!({ "command": python, "args": ["server.py"], "cwd": dir }),
                tool: "hello",
                arguments: json!({}),
                marker: "server.py".into(),
            });
        }
        Err(_) => {
            eprintln!("soak: MCPWB_PYTHON is not set: a demo stands in for the Python SDK");
            beds.push(demo("demo6"));
        }
    }
    let mut tapped = demo("tapped");
    tapped.entry =
        json!({ "command": BIN, "args": ["tap", "--", demo_server(), "--name", "tapped"] });
    beds.push(tapped);
    beds
}

/// Every process under `root`, with its command line (NULs between args).
fn descendants(root: u32) -> Vec<(u32, String, String)> {
    let mut parent = HashMap::new();
    let mut line = HashMap::new();
    let mut exe = HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent is the 2nd field after the command's closing paren.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let ppid: u32 = after
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parent.insert(pid, ppid);
        line.insert(
            pid,
            String::from_utf8_lossy(
                &std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default(),
            )
            .into_owned(),
        );
        exe.insert(
            pid,
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
    }
    let under = |mut pid: u32| {
        while pid > 1 {
            if pid == root {
                return true;
            }
            pid = parent.get(&pid).copied().unwrap_or(0);
        }
        false
    };
    line.iter()
        .filter(|(pid, _)| **pid != root && under(**pid))
        .map(|(pid, l)| (*pid, l.clone(), exe.get(pid).cloned().unwrap_or_default()))
        .collect()
}

/// Kill the server of `bed` under the bridge (for the tapped one, the
/// server under the tap, not the tap) and wait until it is dead: its files
/// (the pipes the bridge writes to) closed, a zombie or gone. Whether one
/// was found. A request written between the signal and the close went into
/// a live pipe of a dying process: it was in flight, not lost.
fn kill(root: u32, bed: &Bed) -> bool {
    let mcpwb = std::fs::canonicalize(BIN).unwrap().display().to_string();
    let all: Vec<u32> = descendants(root)
        .into_iter()
        .filter(|(_, line, exe)| line.contains(&bed.marker) && *exe != mcpwb)
        .map(|(pid, _, _)| pid)
        .collect();
    let Some(pid) = all.into_iter().min() else {
        return false;
    };
    let sent = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    while sent && Instant::now() < deadline && alive(pid) {
        std::thread::sleep(Duration::from_millis(1));
    }
    sent
}

/// Whether `pid` may still hold its files: it runs, or its leader is a
/// zombie while other threads of it still exit (a multi-threaded server's
/// files are closed when its last thread is gone).
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state is the first field after the command's closing paren.
    let zombie = stat
        .rfind(')')
        .and_then(|i| stat[i + 2..].split(' ').next())
        .is_some_and(|state| state == "Z" || state == "X");
    let threads = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| d.count())
        .unwrap_or(0);
    !zombie || threads > 1
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Made {
    server: usize,
    started: Instant,
    ended: Instant,
    failure: Option<String>,
}

struct Report {
    answered: usize,
    in_flight: usize,
    lost: Vec<String>,
    recoveries: Vec<(String, Duration)>,
    memory: Vec<u64>,
}

fn soak(seconds: u64) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let beds = beds(d);
    let servers: serde_json::Map<String, Value> = beds
        .iter()
        .map(|b| (b.name.clone(), b.entry.clone()))
        .collect();
    let cfg = d.join("mcp.json");
    std::fs::write(&cfg, json!({ "mcpServers": servers }).to_string()).unwrap();
    let mut serve = in_home(d)
        .args(["--trust", "--config"])
        .arg(&cfg)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let root = serve.id();
    let client = Client::start(&mut serve);
    client
        .request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "soak", "version": "1" } }),
            Duration::from_secs(60),
        )
        .expect("the bridge answers initialize");
    client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    // Every server's tool listed before the clock starts.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let listed = client
            .request("tools/list", json!({}), Duration::from_secs(30))
            .unwrap_or_default();
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default();
        if beds
            .iter()
            .all(|b| names.contains(&format!("{}__{}", b.name, b.tool).as_str()))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not every server's tool is served: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let beds = Arc::new(beds);
    let made: Arc<Mutex<Vec<Made>>> = Default::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for w in 0..WORKERS {
        let (client, beds, made, stop) = (client.clone(), beds.clone(), made.clone(), stop.clone());
        workers.push(std::thread::spawn(move || {
            let mut i = w;
            while !stop.load(Ordering::Relaxed) {
                let server = i % beds.len();
                i += 1;
                let bed = &beds[server];
                let started = Instant::now();
                let out = client.request(
                    "tools/call",
                    json!({ "name": format!("{}__{}", bed.name, bed.tool), "arguments": bed.arguments }),
                    Duration::from_secs(60),
                );
                made.lock().unwrap().push(Made {
                    server,
                    started,
                    ended: Instant::now(),
                    failure: out.err(),
                });
                std::thread::sleep(PACE);
            }
        }));
    }
    let began = Instant::now();
    let end = began + Duration::from_secs(seconds);
    // Each kill: the server, the moment before the signal went and the one
    // its process was seen dead (a call started between them may have been
    // in flight).
    let mut kills: Vec<(usize, Instant, Instant)> = Vec::new();
    let mut memory = Vec::new();
    let mut next_kill = began + KILL_EVERY;
    let mut turn = 0;
    while Instant::now() < end {
        std::thread::sleep(Duration::from_secs(1));
        if let Some(kib) = rss_kib(root) {
            memory.push(kib);
        }
        if Instant::now() >= next_kill {
            let server = turn % beds.len();
            turn += 1;
            let before = Instant::now();
            if kill(root, &beds[server]) {
                kills.push((server, before, Instant::now()));
            } else {
                eprintln!("soak: no process of {} found to kill", beds[server].name);
            }
            next_kill += KILL_EVERY;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    drop(client);
    let _ = serve.kill();
    let _ = serve.wait();
    let kept = workbench_store::Store::open_in(&d.join("home/data"))
        .and_then(|s| s.calls_size())
        .map(|(rows, _)| rows)
        .unwrap_or_default();
    eprintln!("soak: {kept} History rows written");
    let made = std::mem::take(&mut *made.lock().unwrap());
    let mut report = Report {
        answered: 0,
        in_flight: 0,
        lost: Vec::new(),
        recoveries: Vec::new(),
        memory,
    };
    for m in &made {
        let Some(failure) = &m.failure else {
            report.answered += 1;
            continue;
        };
        let in_flight = kills
            .iter()
            .any(|(s, before, after)| *s == m.server && m.started <= *after && *before <= m.ended);
        if in_flight {
            report.in_flight += 1;
        } else {
            report.lost.push(format!(
                "{} at {:.1} s: {failure}",
                beds[m.server].name,
                m.started.duration_since(began).as_secs_f64()
            ));
        }
    }
    // Back: the first call started after the kill that was answered.
    for (server, before, after) in &kills {
        let back = made
            .iter()
            .filter(|m| m.server == *server && m.started >= *after && m.failure.is_none())
            .map(|m| m.ended)
            .min();
        if let Some(back) = back {
            report
                .recoveries
                .push((beds[*server].name.clone(), back - *before));
        }
    }
    report
}

fn print(report: &Report, seconds: u64) {
    let recoveries: Vec<String> = report
        .recoveries
        .iter()
        .map(|(s, d)| format!("{s} {:.2} s", d.as_secs_f64()))
        .collect();
    let tail = &report.memory[report.memory.len() / 3..];
    let mean = tail.iter().sum::<u64>() as f64 / tail.len().max(1) as f64;
    let (lo, hi) = (
        tail.iter().min().copied().unwrap_or_default(),
        tail.iter().max().copied().unwrap_or_default(),
    );
    println!(
        "soak {seconds} s: {} calls answered, {} failed in flight, {} lost; recoveries: {}; \
         bridge memory {:.0} → {:.0} MiB, last two thirds {:.0}–{:.0} MiB ({:+.1}% / {:+.1}% of their mean)",
        report.answered,
        report.in_flight,
        report.lost.len(),
        recoveries.join(", "),
        report.memory.first().copied().unwrap_or_default() as f64 / 1024.0,
        report.memory.last().copied().unwrap_or_default() as f64 / 1024.0,
        lo as f64 / 1024.0,
        hi as f64 / 1024.0,
        (lo as f64 - mean) / mean * 100.0,
        (hi as f64 - mean) / mean * 100.0,
    );
    for l in report.lost.iter().take(20) {
        println!("  lost: {l}");
    }
}

/// CI's minute: the kills come, and no call is lost.
#[test]
fn a_minute_of_kills_loses_no_call() {
    let report = soak(60);
    print(&report, 60);
    assert!(
        report.answered > 100,
        "only {} calls answered",
        report.answered
    );
    assert!(report.recoveries.len() >= 3, "{:?}", report.recoveries);
    assert!(report.lost.is_empty(), "{} call(s) lost", report.lost.len());
}

/// `cargo xtask soak`: 30 minutes (MCPWB_SOAK_SECS), memory flat too.
#[test]
#[ignore = "30 minutes: cargo xtask soak"]
fn the_long_soak() {
    let seconds: u64 = std::env::var("MCPWB_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1800);
    let report = soak(seconds);
    print(&report, seconds);
    assert!(report.lost.is_empty(), "{} call(s) lost", report.lost.len());
    let tail = &report.memory[report.memory.len() / 3..];
    let mean = tail.iter().sum::<u64>() as f64 / tail.len().max(1) as f64;
    let worst = tail
        .iter()
        .map(|m| (*m as f64 - mean).abs() / mean)
        .fold(0.0, f64::max);
    assert!(
        worst <= 0.10,
        "the bridge's memory moved {:.1}% from its mean",
        worst * 100.0
    );
}
