//! Over stdio against a third-party server (the official `server-everything`,
//! Node, from `target/third-party`; `cargo xtask bench` installs it): the
//! core against a raw JSON-RPC pipe in Python — the peer the goals are set
//! against ("a Rust client should cost less than a Python pipe") — and the
//! raw pipe in Rust (`RawPipe`), the least any client can do. All three
//! speak 2025-11-25 (the core pinned by its entry's `protocolVersion`), each
//! to a server process of its own, kept for every round.
//!
//! Five rounds; in each, every client makes the same calls, the order
//! turning from round to round so drift falls on all alike; the figures are
//! the medians of the per-round rates and of the per-round ratios.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use super::{Client, Mode, RawPipe, batch, core_client, median};

const ROUNDS: usize = 5;
/// Calls per client each round: one after another, and with 64 in flight.
const SEQ_CALLS: usize = 3_000;
const CONC_CALLS: usize = 20_000;
const WARM_UP: usize = 300;

/// The Python pipe: a driver process that starts the server, speaks to it
/// and times the calls it is told to make (`seq N` / `conc N` on its stdin,
/// the seconds they took on its stdout).
const PYTHON: &str = r#"
import asyncio, json, sys, time

async def main():
    p = await asyncio.create_subprocess_exec(*sys.argv[1:], stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
    waiting, ids = {}, iter(range(1, 1 << 62))

    async def reader():
        while line := await p.stdout.readline():
            m = json.loads(line)
            f = waiting.pop(m.get("id"), None)
            if f:
                f.set_result(m)
    asyncio.create_task(reader())

    async def request(method, params):
        i = next(ids)
        f = asyncio.get_running_loop().create_future()
        waiting[i] = f
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        return await f

    await request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "python-pipe", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    echo = lambda i: request("tools/call", {"name": "echo", "arguments": {"message": f"m{i}"}})
    gate = asyncio.Semaphore(64)

    async def gated(i):
        async with gate:
            await echo(i)
    commands = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)
    print("ready", flush=True)
    while line := await commands.readline():
        kind, n = line.split()
        started = time.perf_counter()
        if kind == b"seq":
            for i in range(int(n)):
                await echo(i)
        else:
            await asyncio.gather(*(gated(i) for i in range(int(n))))
        print(time.perf_counter() - started, flush=True)

asyncio.run(main())
"#;

struct PythonPipe {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

impl PythonPipe {
    async fn start(python: &str, dir: &Path, server: &[&str]) -> PythonPipe {
        let script = dir.join("pipe.py");
        std::fs::write(&script, PYTHON).unwrap();
        let mut child = tokio::process::Command::new(python)
            .arg(&script)
            .args(server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python runs");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = stdout.next_line().await.unwrap();
        assert_eq!(ready.as_deref(), Some("ready"), "the Python pipe starts");
        let mut pipe = PythonPipe {
            child,
            stdin,
            stdout,
        };
        pipe.run("seq", WARM_UP).await;
        pipe
    }

    /// Calls per second for `n` calls, sequential (`seq`) or 64 in flight.
    async fn run(&mut self, kind: &str, n: usize) -> f64 {
        self.stdin
            .write_all(format!("{kind} {n}\n").as_bytes())
            .await
            .unwrap();
        let line = self
            .stdout
            .next_line()
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("the Python pipe ended: {:?}", self.child.try_wait()));
        n as f64 / line.trim().parse::<f64>().expect("seconds")
    }
}

/// `server-everything` as installed by `cargo xtask bench`, if it is.
pub fn everything() -> Option<PathBuf> {
    let dir = std::env::var_os("MCPWB_THIRD_PARTY")?;
    let bin = Path::new(&dir).join("node_modules/.bin/mcp-server-everything");
    bin.exists().then_some(bin)
}

pub async fn against_peers() {
    let Some(bin) = everything() else {
        println!(
            "stdio, third-party: server-everything is not installed (MCPWB_THIRD_PARTY; `cargo xtask bench` installs it): skipped"
        );
        return;
    };
    let bin = bin.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let wb = core_client(
        dir.path(),
        json!({ "command": bin, "args": ["stdio"], "protocolVersion": "2025-11-25" }),
    )
    .await;
    let core = Client::Core(wb.clone());
    let rust = Client::Raw(RawPipe::start(bin, &["stdio"]).await);
    for c in [&core, &rust] {
        batch(c, Mode::OneTask, WARM_UP).await;
    }
    let python = std::env::var("MCPWB_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut py = PythonPipe::start(&python, dir.path(), &[bin, "stdio"]).await;
    // Rows: (core in one task, core with a task per call, Python, Rust),
    // sequential and 64 in flight.
    let mut seq: [Vec<f64>; 4] = Default::default();
    let mut conc: [Vec<f64>; 3] = Default::default();
    let (mut seq_py, mut seq_rust, mut conc_py, mut conc_rust) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let rate = |n: usize, took: Duration| n as f64 / took.as_secs_f64();
    for round in 0..ROUNDS {
        let (mut s, mut c) = ([0.0; 4], [0.0; 3]);
        for turn in 0..4 {
            match (turn + round) % 4 {
                0 => {
                    s[0] = rate(SEQ_CALLS, batch(&core, Mode::OneTask, SEQ_CALLS).await);
                    c[0] = rate(CONC_CALLS, batch(&core, Mode::Concurrent, CONC_CALLS).await);
                }
                1 => s[1] = rate(SEQ_CALLS, batch(&core, Mode::TaskPerCall, SEQ_CALLS).await),
                2 => {
                    s[2] = py.run("seq", SEQ_CALLS).await;
                    c[1] = py.run("conc", CONC_CALLS).await;
                }
                _ => {
                    s[3] = rate(SEQ_CALLS, batch(&rust, Mode::OneTask, SEQ_CALLS).await);
                    c[2] = rate(CONC_CALLS, batch(&rust, Mode::Concurrent, CONC_CALLS).await);
                }
            }
        }
        for (row, v) in seq.iter_mut().zip(s) {
            row.push(v);
        }
        for (row, v) in conc.iter_mut().zip(c) {
            row.push(v);
        }
        seq_py.push(s[0] / s[2]);
        seq_rust.push(s[0] / s[3]);
        conc_py.push(c[0] / c[1]);
        conc_rust.push(c[0] / c[2]);
    }
    let m = |v: &Vec<f64>| median(v.clone());
    println!(
        "stdio 2025, server-everything (Node, third-party), calls/s, median of {ROUNDS} rounds taking turns:"
    );
    println!(
        "  workbench core      {:>7.0} sequential in one task ({:.0} with a task per call), {:>7.0} with 64 in flight",
        m(&seq[0]),
        m(&seq[1]),
        m(&conc[0])
    );
    println!(
        "  raw pipe, Python    {:>7.0} sequential, {:>7.0} with 64 in flight",
        m(&seq[2]),
        m(&conc[1])
    );
    println!(
        "  raw pipe, Rust      {:>7.0} sequential, {:>7.0} with 64 in flight",
        m(&seq[3]),
        m(&conc[2])
    );
    println!(
        "  core / Python pipe: {:.2}x sequential, {:.2}x with 64 in flight (goals: >= 1.0x, >= 0.95x); core / Rust pipe: {:.2}x, {:.2}x",
        median(seq_py),
        median(conc_py),
        median(seq_rust),
        median(conc_rust)
    );
    wb.shutdown().await;
    let _ = py.child.kill().await;
}
