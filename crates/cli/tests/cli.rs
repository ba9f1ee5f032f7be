//! `mcpwb` as a user runs it: real binary, temp config files.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcpwb");

fn mcpwb(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env_remove("MCPWB_CONFIG")
        .env("HOME", std::env::temp_dir().join("mcpwb-cli-test-home"))
        .output()
        .unwrap()
}

#[test]
fn servers_lists_the_example_config_as_text_and_json() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../mcp.example.json");
    let out = mcpwb(&["servers", "--config", example]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("demo-stdio\tStdio\t"), "{text}");
    assert!(text.contains("demo-http\tStreamableHttp\thttp://127.0.0.1:8765/mcp"));

    let out = mcpwb(&["servers", "--json", "--config", example]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["servers"][1]["transport"], "streamable_http");
}

#[test]
fn a_broken_config_exits_3_with_one_line_naming_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, "{\"mcpServers\": {\"a\": }}").unwrap();
    let out = mcpwb(&["servers", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("mcp.json:1:"), "{err}");

    let out = mcpwb(&["servers", "--json", "--config", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "config_syntax");
}
