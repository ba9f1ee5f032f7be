//! `cargo xtask run | test | bundle | bindings`: the project's set-up and task
//! runner. It installs what is missing (Debian packages, npm packages,
//! tauri-driver, cargo-deny), says what and why, and times each stage.
#![forbid(unsafe_code)]

mod bench;
mod beside;
mod cache;
mod conformance;
mod conformance_server;
mod conformance_tap;
mod guide;
mod rust_tests;
mod setup;
mod stages;
mod startup_order;
mod supply;
mod tasks;
mod tools;
mod ui;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  run [--screenshot PNG]  build and open the app on mcp.example.json (starts the demo
                          HTTP server on 127.0.0.1:8765 for it); with --screenshot,
                          save a picture of the window after it has painted and exit
  test                    every check and test: fmt, clippy (in the tests' build), Rust
                          tests, UI checks and tests, the e2e tests in a real WebKit
                          window under Xvfb
  bench                   the core against bare rmcp, the agent, the window's start and
                          memory (release builds; the window in the app profile)
  soak [SECONDS]          the soak bed for 30 minutes (or SECONDS): six servers behind
                          mcpwb serve and one behind a tap, one killed every 15 s; fails on
                          a lost call or the bridge's memory moving past ±10%
  bundle                  build the .deb (with icon and desktop entry) in target/app/bundle/deb
  bindings                regenerate ui/src/bindings.ts from the Rust types
  startup-order           record which functions the app runs as it starts (under Xvfb),
                          which the shipped build lays out first (src-tauri/startup-order.txt)
  conformance             the official MCP conformance suite's client scenarios
                          against mcpwb: a table and N/M scenarios passed
  conformance --server    its server scenarios against the demo server straight and
                          through the bridge (mcpwb serve): fails on what the bridge loses
  guide                   build the user guide (docs/) into target/guide/book with the
                          last e2e run's screenshots, links checked
  supply                  the supply-chain checks alone: cargo deny (licenses, bans,
                          sources, advisories), npm licenses and npm audit";

fn main() -> ExitCode {
    // Run by cargo as the linker of the shipped app (see startup_order).
    if let Some(code) = startup_order::link_if_asked() {
        return code;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => tasks::run(&args[1..]),
        Some("test") => tasks::test(),
        Some("beside") => beside::run(&tasks::root(), args.get(1).map(String::as_str)),
        Some("bundle") => tasks::bundle(),
        Some("bench") => bench::bench(),
        Some("soak") => bench::soak(args.get(1).map(String::as_str)),
        Some("bindings") => tasks::bindings(),
        Some("startup-order") => startup_order::record(&tasks::root()),
        Some("conformance") if std::env::args().any(|a| a == "--server") => {
            conformance_server::server(&tasks::root())
        }
        Some("conformance") => conformance::client(&tasks::root()),
        Some("guide") => {
            let root = tasks::root();
            tools::install(&root, &tools::MDBOOK)
                .and_then(|mdbook| guide::build(&root, &mdbook, &cache::target_dir(&root)))
        }
        Some("supply") => {
            let root = tasks::root();
            tools::install(&root, &tools::CARGO_DENY).and_then(|deny| supply::check(&root, &deny))
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!(
                "xtask: unknown task {}\n\n{USAGE}",
                other.unwrap_or("(none)")
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nxtask: {e}");
            ExitCode::FAILURE
        }
    }
}
