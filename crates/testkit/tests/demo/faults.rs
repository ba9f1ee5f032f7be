use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;

use super::*;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn spawn(fault: &str) -> std::process::Child {
    Command::new(BIN)
        .args(["--fault", fault])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn exit_at_start_exits_3_and_says_why() {
    let out = Command::new(BIN)
        .args(["--fault", "exit-at-start"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exit-at-start"));
}

#[test]
fn an_unknown_fault_is_refused_with_the_list() {
    let out = Command::new(BIN)
        .args(["--fault", "gremlins"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("hang-on-call"));
}

#[test]
fn help_names_every_fault() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).replace(['\n', ' '], "");
    for fault in workbench_testkit::fault::ALL {
        assert!(help.contains(fault.name()), "--help leaves out {fault}");
    }
}

#[test]
fn garbage_stdout_writes_non_json_before_answering() {
    let mut child = spawn("garbage-stdout");
    writeln!(child.stdin.as_mut().unwrap(), "{INIT}").unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(serde_json::from_str::<Value>(&first).is_err(), "{first}");
    let answer = lines
        .map(|l| l.unwrap())
        .find_map(|l| {
            serde_json::from_str::<Value>(&l)
                .ok()
                .filter(|v| v["id"] == 1)
        })
        .expect("initialize is still answered");
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn flood_stderr_writes_thousands_of_lines() {
    let mut child = spawn("flood-stderr");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let started = Instant::now();
    let count = stderr
        .lines()
        .take_while(|_| started.elapsed() < Duration::from_millis(500))
        .take(5_000)
        .count();
    assert!(count >= 1_000, "only {count} lines");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn grandchild_leaves_a_process_in_the_same_group() {
    let mut child = spawn("grandchild");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let pid: u32 = line.trim().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    child.kill().unwrap();
    child.wait().unwrap();
    // The grandchild outlives its parent: exactly what a client must clean up.
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    let _ = Command::new("kill").arg(pid.to_string()).status();
}

use std::path::Path;

#[tokio::test]
async fn no_initialize_never_answers() {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(["--fault", "no-initialize"]).stderr(Stdio::null());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let attempt = tokio::time::timeout(
        Duration::from_millis(800),
        TestClient::default().serve(transport),
    )
    .await;
    assert!(attempt.is_err(), "initialize must not be answered");
}

#[tokio::test]
async fn crash_and_hang_on_call() {
    let (client, _) = connect_stdio(&["--fault", "crash-on-call"]).await;
    let crashed = tokio::time::timeout(
        TIMEOUT,
        client.call_tool(call("echo", json!({ "message": "x" }))),
    )
    .await;
    assert!(
        matches!(crashed, Ok(Err(_))),
        "a crash ends the call with an error"
    );

    let (client, _) = connect_stdio(&["--fault", "hang-on-call"]).await;
    let hung = tokio::time::timeout(
        Duration::from_millis(500),
        client.call_tool(call("echo", json!({ "message": "x" }))),
    )
    .await;
    assert!(hung.is_err(), "a hung call never answers");
    client.cancel().await.unwrap();
}

/// Checked on the raw pipe: rmcp's stdio codec silently drops lines over
/// 16 MiB (`DEFAULT_MAX_LINE_LENGTH`), so a plain rmcp client would hang here.
/// The workbench's own transport must raise that limit (see ARCHITECTURE.md).
#[test]
fn huge_result_is_a_single_line_over_twenty_megabytes() {
    let mut child = spawn("huge-result");
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "{INIT}").unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"x"}}}}}}"#).unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let answer = lines
        .map(|l| l.unwrap())
        .find(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":2"#))
        .expect("an answer to the call");
    assert!(answer.len() > 20 * 1024 * 1024, "{} bytes", answer.len());
    let parsed: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        parsed["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        20 * 1024 * 1024
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// SIGTERM ends the demo server with its client's end of stdin still open,
/// before and after the handshake (a host passes its own stop on this way;
/// the server hung until SIGKILL, waiting on its read of stdin).
#[test]
fn sigterm_ends_it_while_stdin_is_still_open() {
    for initialized in [false, true] {
        let mut child = Command::new(BIN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if initialized {
            writeln!(stdin, "{INIT}").unwrap();
            let mut line = String::new();
            BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert!(line.contains("\"result\""), "{line}");
        } else {
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(
            status.is_some_and(|s| s.success()),
            "initialized: {initialized}: {status:?}"
        );
        drop(stdin);
    }
}
