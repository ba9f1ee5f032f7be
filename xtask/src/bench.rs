//! `cargo xtask bench` (release builds: the core against its peers, the
//! agent, the doctor, the bridge, the window's start, memory and Apps) and
//! `cargo xtask soak` (the soak bed's long run): what runs long and prints
//! figures, apart from the checks of `cargo xtask test`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::{shared_dir, target_dir};
use crate::setup;
use crate::stages::{Result, Stages, cmd, sh};
use crate::tasks::{APP_PROFILE, build_demo_server, build_shipped_app, root};

/// The Python MCP SDK and the third-party servers, each a stage; the
/// Python interpreter that has the SDK.
fn third_party_servers(stages: &mut Stages, root: &Path) -> Result<PathBuf> {
    let mut python = PathBuf::new();
    stages.run("set-up: the Python MCP SDK", || {
        python = setup::python_sdk(root)?;
        Ok(())
    })?;
    stages.run("set-up: third-party MCP servers", || {
        setup::third_party(root)
    })?;
    Ok(python)
}

/// The soak bed's long run (`crates/cli/tests/cli/soak.rs`), with the
/// third-party servers `cargo xtask test` installs.
pub fn soak(seconds: Option<&str>) -> Result {
    let root = root();
    let seconds = match seconds {
        Some(s) => s
            .parse::<u64>()
            .map_err(|_| format!("soak: SECONDS is a number of seconds, not {s:?}"))?,
        None => 1800,
    };
    let mut stages = Stages::default();
    let outcome = (|| {
        let python = third_party_servers(&mut stages, &root)?;
        stages.run("soak", || {
            let mut c = cmd(
                "cargo",
                &[
                    "test",
                    "--package",
                    "workbench-cli",
                    "--test",
                    "cli",
                    "the_long_soak",
                    "--",
                    "--ignored",
                    "--nocapture",
                ],
                &root,
            );
            sh(c.env("MCPWB_SOAK_SECS", seconds.to_string())
                .env("MCPWB_PYTHON", &python)
                .env("MCPWB_THIRD_PARTY", shared_dir(&root).join("third-party")))
        })
    })();
    stages.report();
    outcome
}

/// `node SCRIPT` on a desktop of its own ([`on_a_desktop`]).
fn window_bench(root: &Path, script: &str) -> Command {
    on_a_desktop(root, &["node", script])
}

/// `command` under Xvfb, in a session bus of its own as on a desktop
/// (without one GTK launches a bus for its accessibility bridge, which no
/// person's start pays).
pub(crate) fn on_a_desktop(root: &Path, command: &[&str]) -> Command {
    let mut args = vec!["--", "xvfb-run", "-a", "-s", "-screen 0 1920x1200x24"];
    args.extend_from_slice(command);
    cmd("dbus-run-session", &args, root)
}

pub fn bench() -> Result {
    let root = root();
    let mut stages = Stages::default();
    let outcome = (|| {
        // `wrk` for the Streamable HTTP ceiling, beside what the rest needs.
        stages.run("set-up: Debian packages", setup::bench_packages)?;
        // server-everything: the third-party server the core is set against
        // its peers on.
        let python = third_party_servers(&mut stages, &root)?;
        // The connection core against bare rmcp, raw pipes (Rust, Python),
        // the Python SDK and wrk, the agent's own costs, the calls path, and
        // what waiting on a task costs.
        stages.run("bench: core and agent", || {
            let mut c = cmd(
                "cargo",
                &[
                    "bench",
                    "--package",
                    "workbench-testkit",
                    "--bench",
                    "core",
                    "--bench",
                    "agent",
                    "--bench",
                    "calls",
                    "--bench",
                    "tasks",
                ],
                &root,
            );
            sh(c.env("MCPWB_PYTHON", &python)
                .env("MCPWB_THIRD_PARTY", shared_dir(&root).join("third-party")))
        })?;
        // The doctor on 500 tools, and a watched save to listed again.
        stages.run("bench: the doctor and reload on change", || {
            sh(cmd(
                "cargo",
                &[
                    "bench",
                    "--package",
                    "workbench-doctor",
                    "--bench",
                    "doctor",
                ],
                &root,
            ))
        })?;
        // Echo through `mcpwb serve` against straight to the demo server.
        stages.run("bench: the bridge against direct", || {
            build_demo_server(&root, true)?;
            sh(cmd(
                "cargo",
                &[
                    "bench",
                    "--package",
                    "workbench-cli",
                    "--bench",
                    "bridge",
                    "--bench",
                    "suites",
                    "--bench",
                    "tap",
                    "--bench",
                    "mock",
                ],
                &root,
            ))
        })?;
        // The window's start with 14 servers against 1 (the app as shipped, Xvfb).
        stages.run("set-up: npm packages", || setup::npm_packages(&root))?;
        stages.run(
            "build: the app as shipped and the release demo server",
            || {
                build_demo_server(&root, true)?;
                build_shipped_app(&root, false)
            },
        )?;
        stages.run("bench: the window's start", || {
            let target = target_dir(&root);
            let mut c = window_bench(&root, "tests/e2e/startup.bench.mjs");
            // Node and Python servers beside the demo server, as a person's list has them.
            setup::third_party(&root)?;
            let python = setup::python_sdk(&root)?;
            c.env("APP_BINARY", target.join(APP_PROFILE).join("mcp-workbench"))
                .env("DEMO_SERVER", target.join("release/mcp-demo-server"))
                .env("MCPWB_THIRD_PARTY", shared_dir(&root).join("third-party"))
                .env("MCPWB_PYTHON", python);
            sh(&mut c)
        })?;
        // The window's memory at rest beside the MCP Inspector's (one server).
        stages.run("bench: memory beside the MCP Inspector", || {
            let target = target_dir(&root);
            let launcher = setup::inspector(&root)?;
            let mut c = window_bench(&root, "tests/e2e/memory.bench.mjs");
            c.env("APP_BINARY", target.join(APP_PROFILE).join("mcp-workbench"))
                .env("DEMO_SERVER", target.join("release/mcp-demo-server"))
                .env("INSPECTOR_LAUNCHER", launcher);
            sh(&mut c)
        })?;
        // MCP Apps: how soon an App is up after its result, and a chat with
        // twenty Apps scrolling against twenty plain cards (WebDriver).
        let driver = setup::tauri_driver(&root)?;
        stages.run("bench: MCP Apps in the window", || {
            sh(cmd(
                "cargo",
                &[
                    "build",
                    "--release",
                    "-p",
                    "workbench-testkit",
                    "--bin",
                    "scripted-llm",
                ],
                &root,
            ))?;
            let target = target_dir(&root);
            let mut c = cmd(
                "xvfb-run",
                &[
                    "-a",
                    "-s",
                    "-screen 0 1920x1200x24",
                    "node",
                    "tests/e2e/apps.bench.mjs",
                ],
                &root,
            );
            c.env("TAURI_DRIVER", &driver)
                .env_remove("REMOTE_WEBDRIVER_URL")
                .env_remove("CN_API_KEY")
                .env("APP_BINARY", target.join(APP_PROFILE).join("mcp-workbench"))
                .env("DEMO_SERVER", target.join("release/mcp-demo-server"))
                .env("SCRIPTED_LLM", target.join("release/scripted-llm"));
            sh(&mut c)
        })
    })();
    stages.report();
    outcome
}
