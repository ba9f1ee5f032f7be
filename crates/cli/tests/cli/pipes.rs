//! `mcpwb`'s output read by another program, as in a shell pipeline.

use std::process::Command;

use super::{BIN, stderr};

/// `mcpwb … | head`: the reader gone before mcpwb writes, it ends as a Unix
/// tool killed by SIGPIPE does, saying nothing (no panic, no backtrace).
#[test]
fn output_to_a_reader_that_went_away_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    std::fs::write(&config, r#"{ "mcpServers": { "a": { "command": "x" } } }"#).unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(BIN)
        .arg("--config")
        .arg(&config)
        .args(["config", "show"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "nothing said");
}
