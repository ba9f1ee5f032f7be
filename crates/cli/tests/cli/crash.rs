//! A crash loses nothing: `mcpwb serve` killed (SIGKILL) twenty times in
//! the middle of a flood of History rows, with a tap recording a busy
//! session and an eval run (a scripted model's turns and its tool calls)
//! beside it. After each kill the store opens, SQLite finds nothing
//! wrong in it, every row kept before is still there and whole, and every
//! line the tap's host got was a whole message.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use workbench_store::{HistoryQuery, Store};
use workbench_testkit::llm::{ScriptedLlm, Turn};

use super::demo_server;
use super::tap::in_home;

const KILLS: usize = 20;

/// A host writing calls into `child` as fast as it answers; every line it
/// gets back is kept.
fn hammer(child: &mut Child, tool: &'static str, stop: Arc<AtomicBool>) -> Arc<Mutex<Vec<String>>> {
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines: Arc<Mutex<Vec<String>>> = Default::default();
    let seen = lines.clone();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => seen.lock().unwrap().push(line),
            }
        }
    });
    std::thread::spawn(move || {
        let hello = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "crash", "version": "1" } } });
        if writeln!(stdin, "{hello}").is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(150));
        let _ = writeln!(
            stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
        );
        let mut id = 1u64;
        while !stop.load(Ordering::Relaxed) {
            // A few in flight at once; the pipe's buffer paces the rest.
            let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": tool, "arguments": { "message": format!("row {id}") } } });
            if writeln!(stdin, "{call}").is_err() {
                return;
            }
            id += 1;
            if id.is_multiple_of(8) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    });
    lines
}

fn spawn(command: &mut std::process::Command) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn twenty_kills_during_heavy_writing_leave_the_store_whole_and_lose_no_kept_row() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = d.join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { "demo": { "command": demo_server(), "args": ["--name", "demo"] } } })
            .to_string(),
    )
    .unwrap();
    let data = d.join("home/data");
    // The eval run: a prompt case run 40 times by a scripted model that
    // calls the demo's add and answers, against the same store.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let turns = (0..KILLS * 40)
        .flat_map(|_| {
            [
                Turn::calls(&[("demo__add", json!({"a": 2, "b": 3}))]),
                Turn::text("It is 5."),
            ]
        })
        .collect();
    let llm = rt
        .block_on(ScriptedLlm::start("127.0.0.1:0", turns))
        .unwrap();
    std::fs::create_dir_all(d.join("home")).unwrap();
    std::fs::write(
        d.join("home/settings.json"),
        json!({"agent": {"providers": [{"id": "scripted", "kind": "open_ai_compatible", "base_url": llm.url("openai")}]}}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(d.join(".mcp-workbench/suites")).unwrap();
    std::fs::write(
        d.join(".mcp-workbench/suites/evals.json"),
        json!({ "server": "demo", "models": ["scripted:any"], "cases": [
            { "name": "sums", "prompt": "What is 2 + 3?", "runs": 40,
              "expect": { "answer": { "contains": "5" } } } ] })
        .to_string(),
    )
    .unwrap();
    let mut kept_before = 0;
    let mut evals_kept = 0;
    for round in 0..KILLS {
        let stop = Arc::new(AtomicBool::new(false));
        let mut serve = spawn(
            in_home(d)
                .args(["--trust", "--config"])
                .arg(&cfg)
                .arg("serve"),
        );
        let mut tap = spawn(
            in_home(d)
                .args(["tap", "--"])
                .arg(demo_server())
                .args(["--name", "tapped"]),
        );
        let mut evals = in_home(d)
            .args(["--trust", "--config"])
            .arg(&cfg)
            .arg("--project")
            .arg(d)
            .args(["test", "--trust-suites", "--evals"])
            .current_dir(d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let _bridged = hammer(&mut serve, "demo__echo", stop.clone());
        let host_saw = hammer(&mut tap, "echo", stop.clone());
        // Killed at a different moment each round, well into the writing.
        std::thread::sleep(Duration::from_millis(600 + (round as u64 * 97) % 900));
        for child in [&mut serve, &mut tap, &mut evals] {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
        stop.store(true, Ordering::Relaxed);
        // The tap's host: every whole line it got is a whole message.
        std::thread::sleep(Duration::from_millis(50));
        for line in host_saw
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.ends_with('\n'))
        {
            assert!(
                serde_json::from_str::<Value>(line).is_ok(),
                "round {round}: the host got a line that is not a message: {line:.200}"
            );
        }
        // The store: opens, whole, every row kept before still there.
        let store = Store::open_in(&data).unwrap_or_else(|e| panic!("round {round}: {e}"));
        let problems = store.check().unwrap();
        assert!(problems.is_empty(), "round {round}: {problems:?}");
        // Every row counted before is still counted (none is pruned at
        // these sizes), and the newest ones are whole.
        let (count, _) = store.calls_size().unwrap();
        let count = count as usize;
        assert!(
            count >= kept_before,
            "round {round}: {count} rows, {kept_before} kept before"
        );
        let rows = store
            .history(&HistoryQuery {
                limit: 2_000,
                ..Default::default()
            })
            .unwrap();
        for row in &rows {
            let whole = match row.tool.as_str() {
                "echo" => row.arguments["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("row ")),
                "add" => row.arguments == json!({"a": 2, "b": 3}),
                _ => false,
            };
            assert!(whole, "round {round}: a row not whole: {row:?}");
        }
        evals_kept = rows
            .iter()
            .filter(|r| r.origin == "eval")
            .count()
            .max(evals_kept);
        let sessions = store.taps(1_000).unwrap();
        for s in &sessions {
            for m in store.tap_messages(s.id).unwrap() {
                assert!(
                    m.cut
                        || serde_json::from_str::<Value>(&m.text).is_ok()
                        || m.direction == "stderr",
                    "round {round}: a kept tap message not whole: {:.200}",
                    m.text
                );
            }
        }
        kept_before = count;
    }
    assert!(
        kept_before > KILLS * 10,
        "only {kept_before} rows kept in {KILLS} rounds"
    );
    assert!(evals_kept > 0, "the eval runs kept none of their calls");
    println!(
        "{KILLS} kills: {kept_before} History rows kept ({evals_kept} of the eval runs' among the newest), the store whole after each; {} model turns asked",
        KILLS * 80 - llm.remaining()
    );
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
fn ended(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command's name in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// A server (the demo) that first starts a process in the background,
/// which no closed stdin ends, and writes its number into `pidfile`.
fn server_with_a_background_process(pidfile: &std::path::Path) -> Vec<String> {
    let script = format!(
        "sleep 300 & echo $! > '{}'; exec '{}' --name demo",
        pidfile.display(),
        demo_server().display()
    );
    vec!["sh".into(), "-c".into(), script]
}

/// `running` (an `mcpwb` whose server is [`server_with_a_background_process`])
/// killed with SIGKILL once the server runs, so none of its shutdown runs:
/// whether the server's background process is gone within ten seconds.
fn killed_outright_leaves_nothing(mut running: Child, pidfile: &std::path::Path) -> bool {
    let mut background = String::new();
    for _ in 0..100 {
        background = std::fs::read_to_string(pidfile).unwrap_or_default();
        if background.ends_with('\n') {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let background = background.trim().to_string();
    assert!(!background.is_empty(), "the server did not start");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!ended(&background));
    running.kill().unwrap();
    running.wait().unwrap();
    for _ in 0..100 {
        if ended(&background) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::process::Command::new("kill").arg(&background).status();
    false
}

/// A crash leaves no server behind: `mcpwb` killed in the middle of a
/// call, and the watcher it started with its first server ends that
/// server's whole process group.
#[test]
fn a_killed_mcpwb_leaves_no_process_of_its_servers_running() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let pidfile = home.join("background.pid");
    let server = server_with_a_background_process(&pidfile);
    let cfg = home.join("mcp.json");
    let entry = json!({ "command": server[0], "args": server[1..] });
    std::fs::write(&cfg, json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
    let cfg = cfg.display().to_string();
    let long = [
        "call",
        "demo",
        "long_task",
        "-a",
        "steps=100",
        "-a",
        "step_ms=100",
    ];
    let running = super::history::command_in(home, &long)
        .args(["--config", &cfg])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        killed_outright_leaves_nothing(running, &pidfile),
        "the server's background process outlived the killed mcpwb"
    );
}

/// The same for a tap a host killed outright, plain and `--keep`: the
/// server it runs is watched as the workbench's own are.
#[test]
fn a_killed_tap_leaves_no_process_of_its_server_running() {
    for keep in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("background.pid");
        let mut tap = in_home(dir.path());
        tap.arg("tap");
        if keep {
            tap.arg("--keep");
        }
        let running = tap
            .arg("--")
            .args(server_with_a_background_process(&pidfile))
            // The host's end stays open: only the kill ends the tap.
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            killed_outright_leaves_nothing(running, &pidfile),
            "the tapped server's background process outlived the killed tap (keep: {keep})"
        );
    }
}
