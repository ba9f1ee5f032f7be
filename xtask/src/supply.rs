//! Supply chain: `cargo deny` over the Rust tree (licenses, bans, sources,
//! advisories) and the same license rule plus `npm audit` for the window's
//! npm packages. Advisory databases live on the internet; where they cannot
//! be reached the check says so and the rest still holds.

use std::path::Path;
use std::process::Command;

use crate::setup::cargo_bin_dir;
use crate::stages::{Result, cmd, sh};

/// cargo-deny, from crates.io (about 5 minutes to build on 2 cores).
pub fn install_cargo_deny() -> Result {
    let path = cargo_bin_dir().join("cargo-deny");
    if path.exists() {
        println!("cargo-deny: {}", path.display());
        return Ok(());
    }
    println!("cargo-deny: installing it from crates.io (checks the dependency tree)");
    sh(Command::new("cargo").args(["install", "cargo-deny", "--locked", "--version", "^0.20"]))
}

/// Run `c`, echoing its output; `Ok(None)` when it succeeded, else its output.
fn run(c: &mut Command) -> Result<Option<String>> {
    let shown = format!("{c:?}").replace('"', "");
    println!("$ {shown}");
    let out = c
        .output()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{text}");
    Ok((!out.status.success()).then_some(text))
}

pub fn check(root: &Path) -> Result {
    sh(cmd(
        "cargo",
        &["deny", "--offline", "check", "licenses", "bans", "sources"],
        root,
    ))?;
    if let Some(out) = run(&mut cmd("cargo", &["deny", "check", "advisories"], root))? {
        if !out.contains("failed to fetch advisory database") {
            return Err("cargo deny found advisories not accepted in deny.toml".into());
        }
        println!(
            "advisories: NOT CHECKED — the advisory database (github.com/RustSec/advisory-db) cannot be fetched from this machine"
        );
    }
    let ui = root.join("ui");
    sh(cmd("node", &["scripts/licenses.mjs"], &ui))?;
    if let Some(out) = run(&mut cmd(
        "npm",
        &["audit", "--omit=dev", "--audit-level=high"],
        &ui,
    ))? {
        if !out.contains("audit endpoint returned an error") && !out.contains("ENOTFOUND") {
            return Err(
                "npm audit found high or critical advisories in the shipped packages".into(),
            );
        }
        println!("npm audit: NOT CHECKED — the registry here has no audit endpoint");
    }
    Ok(())
}
