//! Fixture MCP servers for MCP Workbench: the demo server (every protocol
//! feature, used by `mcp.example.json` and the tests) and its misbehaving
//! modes ([`Fault`]) for fault tests.
#![forbid(unsafe_code)]

pub mod demo;
pub mod eras;
pub mod fault;
pub mod http;
pub mod llm;
pub mod media;
pub mod oauth;
pub mod otlp;
pub mod planted;
pub mod raw;
pub mod registry;
pub mod sse;
pub mod tasks2025;
pub mod tls;
pub mod wire;

pub use demo::DemoServer;
pub use fault::Fault;

/// The demo server `bin` over loopback HTTP on a free port (`args` more):
/// its process (stopped when dropped) and the address it listens on.
pub async fn demo_over_http(
    bin: &std::path::Path,
    dir: &std::path::Path,
    args: &[&str],
) -> (tokio::process::Child, String) {
    let port_file = dir.join("demo-addr");
    let child = tokio::process::Command::new(bin)
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .args(args)
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the demo server starts");
    for _ in 0..400 {
        if let Ok(addr) = std::fs::read_to_string(&port_file)
            && !addr.is_empty()
        {
            return (child, addr);
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the demo server did not say its address within 10 s");
}

/// The demo server binary of this build, beside the running test or bench
/// (`target/<profile>/mcp-demo-server`), built first when missing. For the
/// other crates' tests: the test kit's own use `CARGO_BIN_EXE_mcp-demo-server`.
pub fn demo_server_path() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the running test's path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let path = dir.join("mcp-demo-server");
    if !path.exists() {
        let release = dir.file_name().is_some_and(|p| p == "release");
        let mut args = vec![
            "build",
            "-q",
            "-p",
            "workbench-testkit",
            "--bin",
            "mcp-demo-server",
        ];
        if release {
            args.push("--release");
        }
        let status = std::process::Command::new(env!("CARGO"))
            .args(args)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the demo server failed");
    }
    path
}
