//! A tool's arguments as a person types them to `mcpwb call`: a JSON
//! object after the tool's name, `--args` from a file or stdin, and
//! `-a KEY=VALUE` typed by the tool's schema, against the demo server.

use std::io::Write;
use std::process::Stdio;

use super::{demo_config, mcpwb, mcpwb_command, stderr, stdout};

#[test]
fn arguments_reach_the_tool_typed_as_its_schema_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[("broken", &["--fault", "exit-at-start"])]);
    let call = |args: &[&str]| {
        let mut all = vec!["call", "demo"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--config", &cfg]);
        mcpwb(&all)
    };
    // The object after the tool's name.
    let out = call(&["add", r#"{"a":1,"b":2}"#]);
    assert_eq!(stdout(&out), "{\"sum\":3.0}\n", "{}", stderr(&out));
    // Numbers where the schema takes numbers, over the object's keys.
    let out = call(&["add", r#"{"a":1,"b":2}"#, "-a", "b=2.5"]);
    assert_eq!(stdout(&out), "{\"sum\":3.5}\n", "{}", stderr(&out));
    // Text where it takes text, though it reads as a number.
    let out = call(&["echo", "-a", "message=42"]);
    assert_eq!(stdout(&out), "42\n", "{}", stderr(&out));
    // A value the schema does not take: said before anything is called.
    let out = call(&["add", "-a", "a=one", "-a", "b=2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("takes a number for a, not \"one\""),
        "{}",
        stderr(&out)
    );
    // From a file, and from stdin.
    let file = dir.path().join("args.json");
    std::fs::write(&file, r#"{"message":"from a file"}"#).unwrap();
    let out = call(&["echo", "--args", &format!("@{}", file.display())]);
    assert_eq!(stdout(&out), "from a file\n", "{}", stderr(&out));
    let mut child = mcpwb_command(
        true,
        &["call", "demo", "echo", "--args", "-", "--config", &cfg],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"message":"from stdin"}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout(&out), "from stdin\n", "{}", stderr(&out));
    // A required argument left out: named, and the call still sent (the
    // server's answer is what an author is looking at).
    let out = call(&["add", "-a", "b=1"]);
    assert!(
        stderr(&out).contains("note: the tool's schema requires a (-a a=…)"),
        "{}",
        stderr(&out)
    );
    // A tool the server does not list: the nearest name, and the server's answer.
    let out = call(&["ecko", "-a", "message=hi"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("note: demo lists no tool ecko (did you mean echo?)"),
        "{}",
        stderr(&out)
    );
    // No tool named: the server's tools, and how to call one.
    let out = call(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).lines().any(|l| l.starts_with("echo\t")),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(&format!(
            "name the tool to call: mcpwb --config {cfg} call demo TOOL"
        )),
        "{}",
        stderr(&out)
    );
    // The same for a resource to read and a prompt to get.
    let out = mcpwb(&["read", "demo", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stdout(&out).contains("demo://readme"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "name the resource to read: mcpwb --config {cfg} read demo URI (its resources are above)"
        )),
        "{}",
        stderr(&out)
    );
    let out = mcpwb(&["prompt", "demo", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stdout(&out).contains("greet"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "name the prompt to get: mcpwb --config {cfg} prompt demo NAME"
        )),
        "{}",
        stderr(&out)
    );
    // Given twice: refused.
    let out = call(&["echo", "{}", "--args", "{}"]);
    assert_eq!(out.status.code(), Some(2));
    // Arguments that are not JSON are said first, whatever the server does.
    let out = mcpwb(&["call", "broken", "echo", "{oops", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not JSON"), "{}", stderr(&out));
}

/// `mcpwb tools SERVER TOOL` shows the one tool as a person reads it before
/// calling it: its arguments typed, what it returns, the call to make; the
/// definition as served with `--json`; a name it does not list, the nearest.
#[test]
fn one_tool_is_shown_with_its_arguments_and_the_call_to_make() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let out = mcpwb(&["tools", "demo", "add", "--config", &cfg]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in [
        "arguments: 2, 1 required",
        "  b  number, default 1  Second addend",
        "returns: structured content, object",
        "  sum: number",
        "call it: mcpwb",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert!(text.contains("call demo add -a a=…\n"), "{text}");
    let out = mcpwb(&["--json", "tools", "demo", "add", "--config", &cfg]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["name"], "add");
    assert_eq!(v["inputSchema"]["required"], serde_json::json!(["a"]));
    let out = mcpwb(&["tools", "demo", "ad", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("demo lists no tool ad (did you mean add?)"),
        "{}",
        stderr(&out)
    );
}
