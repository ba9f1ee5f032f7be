//! `mcpwb tap --watch`: the server behind the tap restarted when its files
//! change, the host kept connected with its session (its handshake
//! replayed, calls in flight told, list changes announced); the one
//! watcher follows no link and holds restarts back.

use std::io::{BufRead, BufReader, Write};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::stdout;
use super::tap::{in_home, sessions};

/// A server whose tools come from tools.json (read at start), with a tool
/// that takes its time, and list changes declared.
pub(super) const RELOADING: &str = r#"
import json, sys, time, pathlib
tools = json.loads((pathlib.Path(__file__).parent / "tools.json").read_text())
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": "py", "version": "1"}}
    elif m == "tools/list":
        r = {"tools": tools}
    elif m == "tools/call" and msg["params"]["name"].startswith("slow"):
        time.sleep(msg["params"].get("arguments", {}).get("seconds", 30))
        r = {"content": [{"type": "text", "text": "slow"}]}
    elif m == "tools/call":
        r = {"content": [{"type": "text", "text": "%s of %d" % (msg["params"]["name"], len(tools))}]}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": r}), flush=True)
"#;

/// A host of `mcpwb tap ARGS -- python3 server.py` in `d`, its handshake
/// made: the tap, what the host writes, and each line it gets back (parsed)
/// as it comes.
fn kept_host(
    d: &std::path::Path,
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<Value>,
) {
    let mut tap = in_home(d)
        .current_dir(d)
        .arg("tap")
        .args(args)
        .args(["--", "python3", "server.py"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut host_in = tap.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let out = tap.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&line).unwrap_or(Value::Null));
        }
    });
    let hello = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"keeper","version":"1"}}});
    writeln!(host_in, "{hello}").unwrap();
    let answer = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("initialize answered");
    assert_eq!(answer["id"], 1, "{answer}");
    writeln!(
        host_in,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();
    (tap, host_in, rx)
}

#[test]
fn a_change_restarts_the_server_behind_the_tap_and_the_host_keeps_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), RELOADING).unwrap();
    let tools = |names: &[&str]| {
        Value::Array(
            names
                .iter()
                .map(|n| json!({ "name": n, "inputSchema": { "type": "object" } }))
                .collect(),
        )
        .to_string()
    };
    std::fs::write(d.join("tools.json"), tools(&["slow", "one"])).unwrap();
    let (mut tap, mut host_in, rx) = kept_host(d, &["--watch", "*.json"]);
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("nothing came: waiting for {what}"))
    };
    let mut send = |v: Value| writeln!(host_in, "{v}").unwrap();
    send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    assert_eq!(
        next("tools/list")["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A call under way when the files change.
    send(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}),
    );
    std::thread::sleep(Duration::from_millis(500));
    std::fs::write(d.join("tools.json"), tools(&["slow", "one", "two"])).unwrap();
    // The host is told its call will not be answered, then that the tools changed.
    let cut = next("the cut call");
    assert_eq!(cut["id"], 3, "{cut}");
    assert!(
        cut["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the server restarted"),
        "{cut}"
    );
    let changed = next("list_changed");
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    // No new handshake from the host: it lists again and calls the new tool.
    send(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    let listed = next("the new list");
    assert_eq!(
        listed["id"], 4,
        "the replayed handshake's answer is not the host's: {listed}"
    );
    assert_eq!(
        listed["result"]["tools"].as_array().unwrap().len(),
        3,
        "{listed}"
    );
    send(
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"two","arguments":{}}}),
    );
    assert_eq!(next("the call")["result"]["content"][0]["text"], "two of 3");
    drop(host_in);
    assert!(tap.wait().unwrap().success());
    // The session shows where the server restarted, and what the host was
    // told came from the tap.
    let id = sessions(d)[0]["id"].as_i64().unwrap();
    let out = in_home(d)
        .args(["session", "export", &id.to_string()])
        .output()
        .unwrap();
    let text = stdout(&out);
    let restart: Vec<&str> = text.lines().filter(|l| l.contains("\"restart\"")).collect();
    assert_eq!(restart.len(), 1, "{text:.3000}");
    assert!(
        restart[0].contains("\"from\":\"tap\"") && restart[0].contains("\"answeredWithError\":1"),
        "{}",
        restart[0]
    );
}

/// `tap --keep`: the server killed under a call is started again, the
/// host kept connected — the call in flight told why (never sent again),
/// the list change announced, and the next call answered by the new
/// process without a new handshake from the host.
#[test]
fn a_server_that_dies_behind_a_kept_tap_comes_back_and_the_host_keeps_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), RELOADING).unwrap();
    std::fs::write(
        d.join("tools.json"),
        json!([{ "name": "slow", "inputSchema": { "type": "object" } },
               { "name": "one", "inputSchema": { "type": "object" } },
               { "name": "slow_look", "inputSchema": { "type": "object" },
                 "annotations": { "readOnlyHint": true } }])
        .to_string(),
    )
    .unwrap();
    let (mut tap, mut host_in, rx) = kept_host(d, &["--keep"]);
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("nothing came: waiting for {what}"))
    };
    let mut send = |v: Value| writeln!(host_in, "{v}").unwrap();
    send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}),
    );
    std::thread::sleep(Duration::from_millis(500));
    // The server dies (its python process, a child of the tap).
    kill_server_of(&tap);
    let cut = next("the cut call");
    assert_eq!(cut["id"], 2, "{cut}");
    let said = cut["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("the server restarted (it exited (status 137))"),
        "{cut}"
    );
    assert_eq!(
        next("list_changed")["method"],
        "notifications/tools/list_changed"
    );
    send(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"one","arguments":{}}}),
    );
    let answered = next("the call after the restart");
    assert_eq!(
        answered["id"], 3,
        "the replayed handshake's answer is not the host's: {answered}"
    );
    assert_eq!(answered["result"]["content"][0]["text"], "one of 3");
    // A read-only tool's call in flight at a death is sent again once (the
    // tap learnt the hints from the host's tools/list): answered, not cut.
    send(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    assert_eq!(next("the list")["id"], 4);
    send(json!({"jsonrpc":"2.0","id":5,"method":"tools/call",
        "params":{"name":"slow_look","arguments":{"seconds": 1}}}));
    std::thread::sleep(Duration::from_millis(300));
    kill_server_of(&tap);
    assert_eq!(
        next("list_changed")["method"],
        "notifications/tools/list_changed"
    );
    let again = next("the read-only call, answered by the new process");
    assert_eq!(again["id"], 5, "{again}");
    assert_eq!(again["result"]["content"][0]["text"], "slow", "{again}");
    drop(host_in);
    assert!(tap.wait().unwrap().success());
}

/// A tap restarting its server (`args`) whose server is up, and how it
/// ended within ten seconds of `end` (None: it went on), the host's end of
/// the pipe open all the while.
fn tap_ends_after(args: &[&str], end: impl FnOnce(&std::process::Child)) -> Option<ExitStatus> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), RELOADING).unwrap();
    std::fs::write(d.join("tools.json"), "[]").unwrap();
    let (mut tap, mut host_in, rx) = kept_host(d, args);
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    writeln!(host_in, "{list}").unwrap();
    let listed = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the server up");
    assert_eq!(listed["id"], 1, "{listed}");
    end(&tap);
    for _ in 0..100 {
        if let Some(status) = tap.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = tap.kill();
    None
}

/// `tap --keep` asked by its host to stop (SIGTERM): the signal reaches the
/// server, and its exit ends the tap with its status instead of a restart.
/// A `--watch` tap (no `--keep`) whose server exits ends with it, though
/// its host has not closed the pipe (it waited for the host before).
#[test]
fn a_restarting_tap_ends_with_its_server_when_told_to_stop_or_not_told_to_keep_it() {
    let term = |tap: &std::process::Child| {
        let pid = tap.id().to_string();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
    };
    let status = tap_ends_after(&["--keep"], term).expect("ended, not restarted");
    // Its server's end (SIGTERM: 128 + 15), not the tap killed by the signal.
    assert_eq!(status.code(), Some(143), "{status:?}");
    let status = tap_ends_after(&["--watch", "*.json"], kill_server_of).expect("ended with it");
    assert_eq!(status.code(), Some(137), "{status:?}");
}

/// SIGKILL the server a tap runs (its child running `server.py`; the
/// other is the watcher that ends the server should the tap be killed).
fn kill_server_of(tap: &std::process::Child) {
    let children =
        std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", tap.id())).unwrap();
    let server: u32 = children
        .split_whitespace()
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains("server.py"))
        })
        .expect("the server among the tap's children")
        .parse()
        .unwrap();
    std::process::Command::new("kill")
        .args(["-KILL", &server.to_string()])
        .status()
        .unwrap();
}

/// The inotify watches a process holds (its `inotify wd:` lines).
fn inotify_watches(pid: u32) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return 0;
    };
    fds.filter_map(|f| f.ok())
        .filter_map(|f| std::fs::read_to_string(f.path()).ok())
        .map(|t| t.lines().filter(|l| l.starts_with("inotify wd:")).count())
        .sum()
}

/// The review's play against `tap --watch '**'`: a link to `/usr` in the
/// server's folder (15,727 watches through it), and a server that writes
/// into its own folder each time it starts (37 restarts in ~20 s). The one
/// watcher holds: no link followed, restarts held back.
#[test]
fn the_taps_watch_follows_no_link_and_does_not_restart_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), RELOADING).unwrap();
    std::fs::write(d.join("tools.json"), "[]").unwrap();
    std::os::unix::fs::symlink("/usr", d.join("usrlink")).unwrap();
    let mut tap = in_home(d)
        .current_dir(d)
        .args(["tap", "--watch", "**", "--"])
        .args(["sh", "-c", "date +%s%N >> state.db; exec python3 server.py"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut host_in = tap.stdin.take().unwrap();
    let out = tap.stdout.take().unwrap();
    std::thread::spawn(
        move || {
            for _ in BufReader::new(out).lines().map_while(Result::ok) {}
        },
    );
    writeln!(
        host_in,
        "{}",
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}})
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let watches = inotify_watches(tap.id());
    assert!(
        (1..50).contains(&watches),
        "{watches} inotify watches: the link to /usr was followed"
    );
    // A save starts the loop (each start appends to state.db).
    std::fs::write(d.join("tools.json"), "[] ").unwrap();
    std::thread::sleep(Duration::from_secs(8));
    let starts = std::fs::read_to_string(d.join("state.db"))
        .unwrap()
        .lines()
        .count();
    drop(host_in);
    let _ = tap.kill();
    let _ = tap.wait();
    // The first start and at most a handful of restarts, held back longer each time.
    assert!(
        (2..=6).contains(&starts),
        "{starts} starts in 8 s after one save"
    );
}
