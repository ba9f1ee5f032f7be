//! `mcpwb tap` between a host and its server, changing nothing: what the
//! host sent is what the server read and what the server wrote is what the
//! host read, byte for byte (bad bytes and a 50 MB line included); each
//! connection is kept as a session, exported, and served back by
//! `mcpwb mock` to `mcpwb` itself as the host.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{BIN, demo_server, stdout};

/// `mcpwb ARGS` with its own home (store, settings, keychain) under `dir`.
pub(super) fn in_home(dir: &Path) -> Command {
    let home = dir.join("home");
    let mut c = Command::new(BIN);
    c.env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-tap-test-{}", std::process::id()),
        )
        .env("HOME", &home);
    c
}

pub(super) fn sessions(dir: &Path) -> Vec<Value> {
    let out = in_home(dir)
        .args(["--json", "session", "list"])
        .output()
        .unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stdout(&out)));
    v["sessions"].as_array().unwrap().clone()
}

#[test]
fn a_tap_passes_every_byte_both_ways_and_keeps_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The server reads and writes through tee: what it saw, byte for byte.
    let script = format!(
        "tee '{0}/server-read.bin' | '{1}' --name demo | tee '{0}/server-wrote.bin'",
        d.display(),
        demo_server().display()
    );
    let mut tap = in_home(d)
        .args(["tap", "--", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut host_in = tap.stdin.take().unwrap();
    let mut host_out = BufReader::new(tap.stdout.take().unwrap());
    let mut sent = Vec::new();
    let mut received = Vec::new();
    let mut send = |v: Value, sent: &mut Vec<u8>| {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        host_in.write_all(&line).unwrap();
        host_in.flush().unwrap();
        sent.extend_from_slice(&line);
    };
    let mut answer_to = |id: i64, received: &mut Vec<u8>| -> Value {
        loop {
            let mut line = String::new();
            assert!(host_out.read_line(&mut line).unwrap() > 0, "the tap closed");
            received.extend_from_slice(line.as_bytes());
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-host","version":"1.2"}}}),
        &mut sent,
    );
    let init = answer_to(1, &mut received);
    assert_eq!(init["result"]["serverInfo"]["name"], "demo", "{init}");
    send(
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        &mut sent,
    );
    // Fields no SDK models pass as they are.
    send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x-unknown":[1,{"deep":true}]}}),
        &mut sent,
    );
    answer_to(2, &mut received);
    send(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"through the tap"}}}),
        &mut sent,
    );
    let call = answer_to(3, &mut received);
    assert!(call.to_string().contains("through the tap"), "{call}");
    drop(host_in);
    // Whatever else the server wrote before it ended reaches the host.
    host_out.read_to_end(&mut received).unwrap();
    let status = tap.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read(d.join("server-read.bin")).unwrap(),
        sent,
        "the server read what the host sent"
    );
    assert_eq!(
        std::fs::read(d.join("server-wrote.bin")).unwrap(),
        received,
        "the host read what the server wrote"
    );
    // Kept: the host as it named itself, the protocol, every message.
    let kept = sessions(d);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let s = &kept[0];
    assert_eq!(
        (s["host"].as_str(), s["host_version"].as_str()),
        (Some("test-host"), Some("1.2")),
        "{s}"
    );
    assert_eq!(s["protocol"], "2025-11-25", "{s}");
    assert_eq!(s["server"], "sh", "{s}");
    let lines = sent.iter().filter(|b| **b == b'\n').count()
        + received.iter().filter(|b| **b == b'\n').count();
    assert_eq!(s["messages"].as_u64(), Some(lines as u64), "{s}");
    assert_eq!(s["dropped"], 0, "{s}");
    assert!(s["ended_at"].is_i64(), "{s}");
    let show = in_home(d)
        .args(["session", "show", &s["id"].to_string()])
        .output()
        .unwrap();
    let text = stdout(&show);
    assert!(
        text.contains("host → server  tools/call echo (id 3)")
            && text.contains("server → host  result of 3 (tools/call echo, ")
            && text.contains("server → host  result of 1 (initialize, "),
        "{text}"
    );
    // The host's call is in the History: origin host, the host named.
    let history = in_home(d)
        .args(["--json", "history", "--origin", "host"])
        .output()
        .unwrap();
    let text = stdout(&history);
    let rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let all = rows
        .iter()
        .flat_map(|r| {
            r["calls"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![r.clone()])
        })
        .collect::<Vec<_>>();
    assert_eq!(all.len(), 1, "{text}");
    assert_eq!(
        (&all[0]["tool"], &all[0]["call_id"], &all[0]["status"]),
        (&json!("echo"), &json!("test-host 1.2"), &json!("ok")),
        "{text}"
    );
    assert!(
        all[0]["result"].to_string().contains("through the tap"),
        "{text}"
    );
    // Keyed by its session and its answer as it was written (the same
    // transaction as the messages), not afterwards from the row's id.
    let key = all[0]["key"].as_str().unwrap_or_default();
    assert!(key.starts_with(&format!("tap-{}-", s["id"])), "{text}");
}

#[test]
fn bad_bytes_and_a_50_mb_line_pass_unchanged_and_are_kept_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut tap = in_home(d)
        .args(["tap", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut payload = Vec::new();
    payload.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"big\",\"params\":\"");
    payload.extend(std::iter::repeat_n(b'a', 50 * 1024 * 1024));
    payload.extend_from_slice(b"\"}\n");
    payload.extend_from_slice(b"\xff\xfe\x00 not UTF-8\r\n");
    payload.extend_from_slice(b"{\"last\":\"no newline\"}");
    let mut host_in = tap.stdin.take().unwrap();
    let sending = payload.clone();
    let writer = std::thread::spawn(move || {
        host_in.write_all(&sending).unwrap();
    });
    let mut received = Vec::new();
    tap.stdout
        .take()
        .unwrap()
        .read_to_end(&mut received)
        .unwrap();
    writer.join().unwrap();
    assert!(tap.wait().unwrap().success());
    assert!(
        received == payload,
        "{} bytes back of {}",
        received.len(),
        payload.len()
    );
    // Kept: the big one cut with its whole size, the bad bytes, the last line.
    let deadline = Instant::now() + Duration::from_secs(10);
    let kept = loop {
        let k = sessions(d);
        if k.first().is_some_and(|s| s["ended_at"].is_i64()) || Instant::now() > deadline {
            break k;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let id = kept[0]["id"].to_string();
    let export = in_home(d)
        .args(["session", "export", &id])
        .output()
        .unwrap();
    let lines: Vec<Value> = stdout(&export)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Header, then per direction: big, bad, last.
    assert_eq!(
        lines.len(),
        7,
        "{:?}",
        lines.iter().map(|l| l["size"].clone()).collect::<Vec<_>>()
    );
    let big = &lines[1];
    let whole = payload.iter().position(|b| *b == b'\n').unwrap() as u64;
    assert_eq!(
        (big["cut"].as_bool(), big["size"].as_u64()),
        (Some(true), Some(whole)),
        "{}",
        big["size"]
    );
    assert!(
        lines
            .iter()
            .any(|l| l["text"].as_str().is_some_and(|t| t.contains("not UTF-8")))
    );
    assert!(lines.iter().any(|l| l["message"]["last"] == "no newline"));
}

#[test]
fn a_tapped_entry_runs_only_trusted_and_its_secrets_are_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = d.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "demo": {
            "command": demo_server(), "args": ["--name", "demo"],
            "env": { "DEMO_TOKEN": "${env:TAP_TEST_SECRET}" } } } })
        .to_string(),
    )
    .unwrap();
    let host = |trust: bool| {
        let mut c = in_home(d);
        c.args(trust.then_some("--trust"))
            .arg("--config")
            .arg(&config)
            .args(["tap", "--server", "demo"])
            .env("TAP_TEST_SECRET", "tap-secret-4711")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c.spawn().unwrap()
    };
    // Not trusted: it says how, and runs nothing.
    let refused = host(false).wait_with_output().unwrap();
    assert_eq!(
        refused.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // Said for this run's file: what is pasted trusts the entry just read.
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&format!(
            "`mcpwb --config {} config trust demo --dry-run`",
            config.display()
        )),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(sessions(d).is_empty());
    // Trusted: the host's message naming the secret is kept masked.
    let mut tap = host(true);
    let mut stdin = tap.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}})
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();
    writeln!(stdin, "{}", json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"tap-secret-4711"}}})).unwrap();
    let mut out = BufReader::new(tap.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("\"id\":2") {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0);
        seen.push_str(&line);
    }
    assert!(
        seen.contains("tap-secret-4711"),
        "the host gets the bytes as sent: {seen}"
    );
    drop(stdin);
    assert!(tap.wait().unwrap().success());
    let id = sessions(d)[0]["id"].to_string();
    let export = stdout(
        &in_home(d)
            .args(["session", "export", &id])
            .output()
            .unwrap(),
    );
    assert!(!export.contains("tap-secret-4711"), "{export}");
    assert!(export.contains("••••••"), "{export}");
}

/// Run one host session of `calls` echo calls of `size` bytes each
/// through `mcpwb tap -- demo`; the host's answers are read and dropped.
fn echo_session(d: &Path, calls: usize, size: usize) {
    let mut tap = in_home(d)
        .args(["tap", "--"])
        .arg(demo_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut host_in = tap.stdin.take().unwrap();
    let mut host_out = BufReader::new(tap.stdout.take().unwrap());
    let mut ask = |v: Value| {
        writeln!(host_in, "{v}").unwrap();
        let id = v["id"].clone();
        loop {
            let mut line = String::new();
            assert!(host_out.read_line(&mut line).unwrap() > 0, "the tap closed");
            if serde_json::from_str::<Value>(&line).is_ok_and(|a| a["id"] == id) {
                return;
            }
        }
    };
    ask(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"big","version":"1"}}}),
    );
    let message = "x".repeat(size);
    for i in 1..=calls {
        ask(
            json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"echo","arguments":{"message":message}}}),
        );
    }
    drop(host_in);
    let _ = tap.wait();
}

/// The review's play: 60 calls of a large result through a tap under a
/// 1 MiB cap kept 63 MB, and nothing could delete it. The sessions' cap
/// holds (the oldest ended session goes first; one past it keeps nothing
/// more and says so), and `mcpwb session delete` forgets one.
#[test]
fn tapped_sessions_stay_under_their_cap_and_can_be_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("home")).unwrap();
    std::fs::write(
        d.join("home/settings.json"),
        json!({ "history": { "max_mib": 1, "sessions_max_mib": 1 } }).to_string(),
    )
    .unwrap();
    echo_session(d, 30, 64 * 1024);
    echo_session(d, 30, 64 * 1024);
    let kept = sessions(d);
    let size = |id: &Value| {
        let out = in_home(d)
            .args(["session", "export", &id.to_string()])
            .output()
            .unwrap();
        out.stdout.len()
    };
    // The first (ended) session went to make room; the second stopped
    // keeping at the cap and says so.
    assert_eq!(kept.len(), 1, "{kept:?}");
    let exported = size(&kept[0]["id"]);
    assert!(
        exported < 3 * 1024 * 1024,
        "{exported} bytes kept under a 1 MiB cap"
    );
    let out = in_home(d)
        .args(["session", "export", &kept[0]["id"].to_string()])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("reached their cap"),
        "the cap is said in the session"
    );
    assert!(kept[0]["dropped"].as_i64().unwrap() > 0, "{kept:?}");
    let out = in_home(d)
        .args(["session", "delete", &kept[0]["id"].to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sessions(d).is_empty());
    let out = in_home(d)
        .args(["session", "delete", "999"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session 999"));
}
