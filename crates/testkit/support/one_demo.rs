//! A workbench on one demo server, for the test kit's tests and benches
//! (each includes this file: the test kit's library does not depend on the
//! core). Its config is written in `dir`; the server is called "demo".

use std::time::Duration;

use serde_json::json;
use workbench_core::config::ConfigFile;
use workbench_core::{Workbench, WorkbenchOptions};

/// Started, and returned once the demo is ready and its tools are listed;
/// with the config file's path.
pub async fn one_demo(bin: &str, dir: &std::path::Path) -> (Workbench, std::path::PathBuf) {
    let path = dir.join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": { "demo": { "command": bin, "args": ["--name", "demo"] } } })
            .to_string(),
    )
    .unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    wb.settle(Duration::from_secs(20)).await;
    for _ in 0..1000 {
        if wb.catalog().tool("demo", "echo").is_some() {
            return (wb, path);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the demo server was not ready with its tools within 20 s");
}
