//! A kept session used again: served by `mcpwb mock` as a stand-in
//! server to `mcpwb` as the host, and made a suite that holds the next
//! version of the server to what the host saw.

use std::path::Path;

use serde_json::{Value, json};

use super::tap::{in_home, sessions};
use super::tap_watch::RELOADING;
use super::{BIN, demo_server, stdout};

/// A config whose `demo` runs the demo server behind `mcpwb tap`.
fn tapped_config(d: &Path) -> std::path::PathBuf {
    let tapped = d.join("tapped.json");
    std::fs::write(
        &tapped,
        json!({ "mcpServers": { "demo": {
            "command": BIN, "args": ["tap", "--", demo_server(), "--name", "demo"] } } })
        .to_string(),
    )
    .unwrap();
    tapped
}

/// The first kept session exported, and a config whose `demo` is `mcpwb
/// mock` of it.
fn mock_of_first_session(d: &Path) -> std::path::PathBuf {
    let kept = sessions(d);
    let file = d.join("session.jsonl");
    let export = in_home(d)
        .args(["session", "export", &kept[0]["id"].to_string(), "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let mock = d.join("mock.json");
    std::fs::write(
        &mock,
        json!({ "mcpServers": { "demo": { "command": BIN, "args": ["mock", file] } } }).to_string(),
    )
    .unwrap();
    mock
}

#[test]
fn a_kept_session_answers_mcpwb_as_a_stand_in_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Record: mcpwb itself is the host, the tap runs the demo server.
    let tapped = tapped_config(d);
    let call = |config: &Path, message: &str| {
        in_home(d)
            .args(["--trust", "--json", "--config"])
            .arg(config)
            .args(["call", "demo", "echo", "--no-history", "--args"])
            .arg(json!({ "message": message }).to_string())
            .output()
            .unwrap()
    };
    let live = call(&tapped, "recorded");
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    let kept = sessions(d);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        kept[0]["host"]
            .as_str()
            .is_some_and(|h| h.contains("workbench") || h.contains("mcpwb")),
        "{}",
        kept[0]
    );
    // Replay: the same call gets the recorded answer, from no server at all.
    let mock = mock_of_first_session(d);
    let replayed = call(&mock, "recorded");
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&live.stdout).unwrap(),
        serde_json::from_slice(&replayed.stdout).unwrap(),
    );
    assert_eq!(
        a["result"], b["result"],
        "the mock answers as the server did"
    );
    // A call never recorded: an error that names the nearest recorded one.
    let other = call(&mock, "never said");
    assert!(!other.status.success());
    let said = format!(
        "{}{}",
        stdout(&other),
        String::from_utf8_lossy(&other.stderr)
    );
    assert!(
        said.contains("no recorded tools/call matches") && said.contains("recorded"),
        "{said}"
    );
}

/// A call whose answer is 2 MB is kept whole (messages were once kept cut
/// past 1 MiB, and the mock then matched no recorded call): the mock
/// answers it as the server did.
#[test]
fn a_kept_session_answers_a_two_megabyte_call_as_the_server_did() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tapped = tapped_config(d);
    let call = |config: &Path| {
        in_home(d)
            .args(["--trust", "--json", "--config"])
            .arg(config)
            .args(["call", "demo", "huge_result", "--no-history", "--args"])
            .arg(json!({ "megabytes": 2 }).to_string())
            .output()
            .unwrap()
    };
    let live = call(&tapped);
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    let mock = mock_of_first_session(d);
    let replayed = call(&mock);
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&live.stdout).unwrap(),
        serde_json::from_slice(&replayed.stdout).unwrap(),
    );
    let text = a["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.len() >= 2_000_000, "{} bytes live", text.len());
    assert!(
        a["result"] == b["result"],
        "the mock answers the 2 MB call as the server did"
    );
}

#[test]
fn a_session_made_a_suite_holds_the_next_version_to_what_the_host_saw() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.py"), RELOADING).unwrap();
    std::fs::write(
        d.join("tools.json"),
        r#"[{"name":"one","inputSchema":{"type":"object"}}]"#,
    )
    .unwrap();
    let entry = |tapped: bool| {
        let mut args = vec![json!("server.py")];
        let mut command = json!("python3");
        if tapped {
            args = vec![
                json!("tap"),
                json!("--"),
                json!("python3"),
                json!("server.py"),
            ];
            command = json!(BIN);
        }
        json!({ "mcpServers": { "py": { "command": command, "args": args, "cwd": d } } })
            .to_string()
    };
    std::fs::write(d.join("tapped.json"), entry(true)).unwrap();
    std::fs::write(d.join("straight.json"), entry(false)).unwrap();
    let run = |args: &[&str]| in_home(d).current_dir(d).args(args).output().unwrap();
    let host = run(&[
        "--trust",
        "--config",
        "tapped.json",
        "call",
        "py",
        "one",
        "--no-history",
    ]);
    assert!(
        host.status.success(),
        "{}",
        String::from_utf8_lossy(&host.stderr)
    );
    let id = sessions(d)[0]["id"].to_string();
    let made = run(&[
        "session", "to-suite", &id, "--name", "seen", "--server", "py", "--dir", "suites",
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(
        stdout(&made).contains("1 case of py written"),
        "{}",
        stdout(&made)
    );
    // What the host sent is someone else's input: not run until trusted.
    let untrusted = run(&[
        "--trust",
        "--config",
        "straight.json",
        "test",
        "suites/seen.json",
    ]);
    assert_eq!(untrusted.status.code(), Some(4), "{}", stdout(&untrusted));
    // The server as the host saw it passes, once the person trusts the suite.
    let same = run(&[
        "--trust",
        "--config",
        "straight.json",
        "test",
        "--trust-suites",
        "suites/seen.json",
    ]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}{}",
        stdout(&same),
        String::from_utf8_lossy(&same.stderr)
    );
    // A changed server fails, with the difference.
    std::fs::write(
        d.join("tools.json"),
        r#"[{"name":"one","inputSchema":{"type":"object"}},{"name":"two","inputSchema":{"type":"object"}}]"#,
    )
    .unwrap();
    let changed = run(&[
        "--trust",
        "--config",
        "straight.json",
        "test",
        "suites/seen.json",
    ]);
    assert_eq!(changed.status.code(), Some(1), "{}", stdout(&changed));
    let text = stdout(&changed);
    assert!(
        text.contains("one of 1") && text.contains("one of 2"),
        "{text}"
    );
}
