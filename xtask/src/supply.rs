//! Supply chain: `cargo deny` over the Rust tree (licenses, bans, sources,
//! advisories) and the same license rule plus `npm audit` for the window's
//! npm packages. Advisory databases live on the internet; where they cannot
//! be reached the check says so and the rest still holds.

use std::path::Path;
use std::process::Command;

use crate::stages::{Result, cmd, sh};

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

/// The checks, `deny` the cargo-deny program ([`crate::tools::CARGO_DENY`]).
pub fn check(root: &Path, deny: &Path) -> Result {
    let deny = deny.display().to_string();
    sh(cmd(
        &deny,
        &["--offline", "check", "licenses", "bans", "sources"],
        root,
    ))?;
    if let Some(out) = run(&mut cmd(&deny, &["check", "advisories"], root))? {
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
