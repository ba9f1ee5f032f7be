//! The author's check before publishing: the folder's files (server.json,
//! manifest.json, the package files) checked, what each host would run
//! and whether its PATH finds it, and — when the person asks (`run`) —
//! each way started as each host would start it (its PATH), its tools
//! listed, a bundle's declared tools compared with the live list. Nothing
//! starts unless asked: a folder may be a clone of someone else's.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use workbench_core::config::ConfigFile;
pub use workbench_doctor::finding::{Finding, Severity};
pub use workbench_doctor::publish::hosts::{PublishHost, PublishWay};
use workbench_doctor::publish::{check_dir, hosts};

/// One way started with one host's PATH.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostRun {
    pub way: String,
    pub host: String,
    /// It answered (initialize and its lists).
    pub started: bool,
    pub tools: Vec<String>,
    /// Why it did not start, as the workbench saw it.
    pub error: Option<String>,
    /// The doctor's checks of what it offered there (its tools' names,
    /// schemas and texts, its resources and prompts), worst first.
    pub doctor: Vec<Finding>,
}

/// What `publish check` found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishReport {
    pub folder: String,
    pub findings: Vec<Finding>,
    pub ways: Vec<PublishWay>,
    pub hosts: Vec<PublishHost>,
    /// Each way as each host started it (empty unless asked to run).
    pub runs: Vec<HostRun>,
    /// What the ways are, in short: the window sends it back when the
    /// person asks to start them, and ways the folder now describes
    /// otherwise are not started unseen.
    pub fingerprint: String,
}

impl PublishReport {
    /// Findings of `severity` or worse.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity >= severity)
            .count()
    }
}

/// Whether the check starts what the folder describes, and on whose word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start<'a> {
    /// Only look: the ways are listed, nothing starts.
    No,
    /// Start the ways the person was shown (the report's fingerprint, sent
    /// back): a folder that describes other ways by now starts nothing.
    AsShown(&'a str),
    /// Start what the folder describes now, unseen: the person's word for
    /// the folder as it is (`mcpwb publish check --run`).
    AsItIs,
}

/// What to check, and whether to start what it describes.
pub struct PublishCheck<'a> {
    pub folder: &'a Path,
    /// Start each way with each host's PATH (the person agreed to run it).
    pub start: Start<'a>,
    /// Values for the `${input:ID}` the entries ask for, when run.
    pub inputs: &'a [(String, String)],
    /// How long a start may take (a first `npx` or `uvx` downloads).
    pub timeout: Duration,
}

/// Check the folder; run its ways when asked.
pub async fn check(request: PublishCheck<'_>) -> PublishReport {
    let dir = request.folder;
    let checked = check_dir(dir);
    let ways = hosts::ways(checked.server_json.as_ref(), checked.manifest.as_ref(), dir);
    let path = std::env::var("PATH").unwrap_or_default();
    let host_list = hosts::hosts(&path);
    let mut findings = checked.findings;
    findings.extend(hosts::findings(&ways, &host_list));
    let fingerprint = crate::fingerprint(&ways);
    // Started only as shown: files changed since (a pull, a build, a
    // checkout) may run something the person never saw.
    let changed = matches!(request.start, Start::AsShown(seen) if seen != fingerprint);
    if changed {
        findings.push(
            Finding::new("publish.changed", Severity::Error, dir.display().to_string())
                .why("what the folder's files say to run changed since they were shown: nothing was started")
                .fix("look at the ways listed now, then check again to start them"),
        );
    }
    let mut runs = Vec::new();
    if request.start != Start::No && !changed {
        for way in &ways {
            let stdio = way.entry.contains_key("command");
            // A remote is reached the same from every host: once.
            let started_on: Vec<&PublishHost> = if stdio {
                host_list.iter().collect()
            } else {
                host_list.iter().take(1).collect()
            };
            for host in started_on {
                runs.push(run_one(way, host, request.inputs, request.timeout, stdio).await);
            }
        }
        if let Some(manifest) = &checked.manifest
            && let Some(live) = runs
                .iter()
                .find(|r| r.started && r.way.starts_with("manifest.json"))
        {
            findings.extend(tools_drift(manifest, &live.tools));
        }
        // The doctor's findings on what started, warnings and worse, once
        // each (the same server started from several hosts finds the same
        // things); its notes stay in each run.
        for run in &runs {
            for f in run
                .doctor
                .iter()
                .filter(|f| f.severity >= Severity::Warning)
            {
                let seen = findings
                    .iter()
                    .any(|g| g.code == f.code && g.item == f.item && g.pointer == f.pointer);
                if !seen {
                    findings.push(f.clone());
                }
            }
        }
    }
    // Worst first; that nothing started because the files changed, first of all.
    findings.sort_by_key(|f| (f.code != "publish.changed", std::cmp::Reverse(f.severity)));
    PublishReport {
        folder: dir.display().to_string(),
        findings,
        ways,
        hosts: host_list,
        runs,
        fingerprint,
    }
}

async fn run_one(
    way: &PublishWay,
    host: &PublishHost,
    inputs: &[(String, String)],
    timeout: Duration,
    stdio: bool,
) -> HostRun {
    let mut filled = Value::Object(way.entry.clone());
    crate::registry::fill(&mut filled, inputs);
    let Value::Object(mut fields) = filled else {
        unreachable!("an entry stays an object")
    };
    if stdio
        && let Some(path) = &host.path
        && let Some(env) = fields
            .entry("env")
            .or_insert_with(|| json!({}))
            .as_object_mut()
    {
        env.insert("PATH".into(), json!(path));
    }
    let name = "publish-check";
    let outcome = async {
        let entry = workbench_core::config::parse_entry(name, &Value::Object(fields))
            .map_err(|p| format!("the entry is not valid: {}", p.message))?;
        let mut options = workbench_core::WorkbenchOptions::default();
        options.supervisor.vars = workbench_core::config::vars::Vars::from_process(None);
        let config = ConfigFile::empty(std::path::Path::new("mcp.json"));
        workbench_core::Workbench::trial(&config, entry, options, timeout)
            .await
            .map_err(|e| e.to_string())
    }
    .await;
    match outcome {
        Ok(trial) => {
            let started = trial.status.state == workbench_core::connect::ServerState::Ready;
            let doctor = match (&trial.status.info, started) {
                (Some(info), true) => {
                    let surface = workbench_doctor::Surface::of(info, &trial.catalog);
                    let (mut found, _) = workbench_doctor::shape(name, &surface, &[]);
                    found.sort_by_key(|f| std::cmp::Reverse(f.severity));
                    found
                }
                _ => Vec::new(),
            };
            HostRun {
                way: way.label.clone(),
                host: host.name.clone(),
                started,
                tools: trial.tools,
                doctor,
                error: match trial.status.state {
                    workbench_core::connect::ServerState::Ready => None,
                    workbench_core::connect::ServerState::Failed { reason, stderr, .. } => {
                        Some(with_stderr(reason, &stderr))
                    }
                    other => Some(format!("{other:?}")),
                },
            }
        }
        Err(e) => HostRun {
            way: way.label.clone(),
            host: host.name.clone(),
            started: false,
            tools: Vec::new(),
            error: Some(e),
            doctor: Vec::new(),
        },
    }
}

/// The reason, and the server's last line on stderr when it said one.
fn with_stderr(reason: String, stderr: &[String]) -> String {
    match stderr.iter().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!("{reason} (stderr: {})", last.trim()),
        None => reason,
    }
}

/// The manifest's `tools` against what the server lists.
fn tools_drift(manifest: &Value, live: &[String]) -> Vec<Finding> {
    let Some(declared) = manifest.get("tools").and_then(Value::as_array) else {
        return Vec::new();
    };
    if manifest.get("tools_generated").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let declared: BTreeSet<&str> = declared
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let live: BTreeSet<&str> = live.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    let gone: Vec<&str> = declared.difference(&live).copied().collect();
    let new: Vec<&str> = live.difference(&declared).copied().collect();
    if !gone.is_empty() {
        out.push(
            Finding::new("bundle.tools-drift", Severity::Error, "manifest.json")
                .at("/tools")
                .seen(format!("declared, not served: {}", gone.join(", ")))
                .why("hosts show the manifest's tools before the install: people are promised tools the server does not have")
                .fix("remove them from the manifest's tools, or serve them"),
        );
    }
    if !new.is_empty() {
        out.push(
            Finding::new("bundle.tools-drift", Severity::Warning, "manifest.json")
                .at("/tools")
                .seen(format!("served, not declared: {}", new.join(", ")))
                .why("hosts show the manifest's tools before the install: these are not among them")
                .fix("add them to the manifest's tools (or set tools_generated: true)"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_running(dir: &Path, command: &str) {
        let manifest = json!({
            "manifest_version": "0.3", "name": "mine", "version": "0.1.0",
            "description": "mine", "author": { "name": "me" },
            "server": { "type": "binary", "entry_point": command,
                        "mcp_config": { "command": command } }
        });
        std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    }

    fn asked<'a>(dir: &'a Path, start: Start<'a>) -> PublishCheck<'a> {
        PublishCheck {
            folder: dir,
            start,
            inputs: &[],
            timeout: Duration::from_secs(5),
        }
    }

    /// The person asks to start what they were shown; the folder says to
    /// run something else by then: nothing starts, and they are told.
    #[tokio::test]
    async fn ways_changed_since_they_were_shown_are_not_started() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-server");
        folder_running(dir.path(), &missing.display().to_string());
        let listed = check(asked(dir.path(), Start::No)).await;
        assert!(listed.runs.is_empty(), "only listed: {:?}", listed.runs);
        let seen = listed.fingerprint;
        folder_running(dir.path(), "/bin/false");
        let refused = check(asked(dir.path(), Start::AsShown(&seen))).await;
        assert!(refused.runs.is_empty(), "{:?}", refused.runs);
        assert_eq!(refused.findings[0].code, "publish.changed", "said first");
        // What is shown now is started when asked.
        let started = check(asked(dir.path(), Start::AsShown(&refused.fingerprint))).await;
        assert!(!started.runs.is_empty());
        assert!(started.findings.iter().all(|f| f.code != "publish.changed"));
    }
}
