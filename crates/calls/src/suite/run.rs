//! Running suites: the cases of one server run in order (a case may use an
//! earlier one's result), servers run in parallel, each call goes through
//! the one call path as a `suite` call, a call that hangs is cut at its
//! timeout and the rest still run.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use workbench_core::connect::ServerState;

use super::expect::Failure;
use super::report::{CaseOutcome, CaseResult, Report, SuiteResult, mask_report};
use super::vars::Earlier;
use super::{Case, Suite, snapshot_folder_ok, snapshot_path};
use crate::Calls;

/// The least time given to a case's assertions, whatever its call took.
mod case;

const MIN_CHECK: Duration = Duration::from_secs(1);

/// Which cases run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CasePick {
    /// The case of this name (the window's Run on one case).
    Named(String),
    /// Cases whose names match a person's pattern ([`selects`]: `mcpwb
    /// test --case`, an agent's `workbench_test`).
    Matching(String),
}

impl CasePick {
    /// Whether the case `name` is picked.
    pub fn picks(&self, name: &str) -> bool {
        match self {
            CasePick::Named(n) => n == name,
            CasePick::Matching(p) => selects(p, name),
        }
    }
}

/// Whether a person's `pattern` selects the case `name`: without `*`, any
/// name that holds it (letter case aside: `--case zzz` selects "echo says
/// zzz"); with `*`, the whole name as a glob (`*` any run of characters).
pub fn selects(pattern: &str, name: &str) -> bool {
    if pattern.contains('*') {
        glob(pattern, name)
    } else {
        name.to_lowercase().contains(&pattern.to_lowercase())
    }
}

/// How a run goes.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Only these cases (None: all).
    pub case: Option<CasePick>,
    /// Run every case against this server instead of the one it names.
    pub server: Option<String>,
    /// Take the results as the new snapshots.
    pub update_snapshots: bool,
    /// Stop at the first failure (the rest are reported as not run).
    pub bail: bool,
    /// A case's call is cut after this long unless it says otherwise.
    pub timeout: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            case: None,
            server: None,
            update_snapshots: false,
            bail: false,
            timeout: Duration::from_secs(30),
        }
    }
}

/// Whether `name` matches `pattern` (`*` for any run of characters).
pub fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

/// Per suite, the results of its cases so far and its snapshots.
struct SuiteState {
    earlier: Earlier,
    snapshots: Map<String, Value>,
    /// The cases whose snapshots this run wrote or updated.
    snapshots_changed: std::collections::BTreeSet<String>,
}

struct Shared<'a> {
    calls: &'a Calls,
    options: &'a RunOptions,
    suites: &'a [Suite],
    state: Vec<Mutex<SuiteState>>,
    stop: AtomicBool,
}

fn result(case: &Case, server: &str, outcome: CaseOutcome, note: Option<String>) -> CaseResult {
    CaseResult {
        name: case.name.clone(),
        server: server.to_string(),
        tool: case.tool.clone(),
        outcome,
        failures: Vec::new(),
        note,
        duration_ms: None,
        history_key: None,
        arguments: None,
    }
}

fn failed(case: &Case, server: &str, assertion: &str, message: String) -> CaseResult {
    let mut r = result(case, server, CaseOutcome::Failed, None);
    r.failures.push(Failure {
        assertion: assertion.into(),
        message,
        diff: None,
    });
    r
}

/// Whether `server` can take calls; Err(why not, and whether it exists).
fn ready(calls: &Calls, server: &str) -> Result<(), (bool, String)> {
    let handle = calls.workbench().server(server).map_err(|_| {
        (
            false,
            format!("there is no server \"{server}\" in the config"),
        )
    })?;
    match handle.status().state {
        ServerState::Ready => Ok(()),
        ServerState::Failed { reason, .. } => Err((true, format!("{server} failed: {reason}"))),
        ServerState::Untrusted => Err((
            true,
            format!("{server} is not trusted yet (mcpwb config trust {server})"),
        )),
        other => Err((true, format!("{server} is not ready ({other:?})"))),
    }
}

impl Shared<'_> {
    /// History says what the case made of its call, beside the call's own
    /// status (an `ok` call whose case failed an assertion).
    fn keep_verdict(&self, suite: &str, r: &CaseResult) {
        let Some(key) = r.history_key.clone() else {
            return;
        };
        let outcome = match r.outcome {
            CaseOutcome::Passed => "passed",
            CaseOutcome::Failed => "failed",
            CaseOutcome::Skipped => "skipped",
            CaseOutcome::NotReady => "not_ready",
        };
        let verdict = workbench_store::CaseVerdict {
            suite: suite.to_string(),
            case: r.name.clone(),
            outcome: outcome.into(),
            failures: r
                .failures
                .iter()
                .map(|f| format!("{}: {}", f.assertion, f.message))
                .collect(),
        };
        self.calls.keep_verdict(key, verdict);
    }

    /// One server's lane: its cases one after another, each in a span, a
    /// failure stopping the rest with `--bail`.
    async fn run_lane(
        &self,
        server: String,
        cases: Vec<(usize, usize)>,
    ) -> Vec<((usize, usize), CaseResult)> {
        let mut out = Vec::new();
        for (si, ci) in cases {
            let case = &self.suites[si].cases[ci];
            let mut span = workbench_core::otel::Span::start(
                &format!("suite case {}", case.name),
                workbench_core::otel::Kind::Internal,
                None,
            );
            span.set("suite.name", self.suites[si].name.as_str());
            span.set("suite.case", case.name.as_str());
            span.set("mcp.server", server.as_str());
            let r = span.run(self.run_case(si, case, &server)).await;
            span.set(
                "suite.outcome",
                serde_json::to_value(r.outcome).unwrap_or_default(),
            );
            if r.outcome == CaseOutcome::Failed {
                span.fail(
                    r.failures
                        .first()
                        .map(|f| format!("{}: {}", f.assertion, f.message))
                        .unwrap_or_else(|| "failed".into()),
                );
            }
            drop(span);
            self.keep_verdict(&self.suites[si].name, &r);
            if r.outcome == CaseOutcome::Failed && self.options.bail {
                self.stop.store(true, Ordering::Relaxed);
            }
            out.push(((si, ci), r));
        }
        out
    }
}

/// Run `suites`. Broken files are the loader's; this runs what loaded.
pub async fn run(calls: &Calls, suites: &[Suite], options: &RunOptions) -> Report {
    let started = Instant::now();
    let shared = Arc::new(Shared {
        calls,
        options,
        suites,
        state: suites.iter().map(|s| Mutex::new(state_of(s))).collect(),
        stop: AtomicBool::new(false),
    });
    let (lanes, filtered) = lanes_of(suites, options);
    let lane_runs = lanes
        .into_iter()
        .map(|(server, cases)| shared.run_lane(server, cases));
    let mut done: HashMap<(usize, usize), CaseResult> = futures::future::join_all(lane_runs)
        .await
        .into_iter()
        .flatten()
        .collect();
    done.extend(filtered);
    calls.flush().await;
    let mut report = Report {
        suites: Vec::new(),
        passed: 0,
        failed: 0,
        skipped: 0,
        not_ready: 0,
        duration_ms: 0.0,
    };
    for (si, suite) in suites.iter().enumerate() {
        let cases: Vec<CaseResult> = (0..suite.cases.len())
            .filter_map(|ci| done.remove(&(si, ci)))
            .collect();
        for c in &cases {
            match c.outcome {
                CaseOutcome::Passed => report.passed += 1,
                CaseOutcome::Failed => report.failed += 1,
                CaseOutcome::Skipped => report.skipped += 1,
                CaseOutcome::NotReady => report.not_ready += 1,
            }
        }
        let state = shared.state[si].lock().unwrap_or_else(|e| e.into_inner());
        if !state.snapshots_changed.is_empty() {
            write_snapshots(suite, &state.snapshots, &state.snapshots_changed);
        }
        let took: f64 = cases.iter().filter_map(|c| c.duration_ms).sum();
        report.suites.push(SuiteResult {
            name: suite.name.clone(),
            path: suite.path.display().to_string(),
            cases,
            duration_ms: took,
        });
    }
    report.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    mask_report(calls, &mut report);
    report
}

/// A suite's state as a run starts: its snapshots, read never through a
/// link (a planted `__snapshots__/x.json -> ~/.docker/config.json` would
/// print its target in a diff).
fn state_of(suite: &Suite) -> SuiteState {
    let snapshots = snapshot_folder_ok(suite)
        .ok()
        .and_then(|()| {
            workbench_core::files::read_no_follow(&snapshot_path(suite), super::MAX_FILE).ok()
        })
        .and_then(|t| serde_json::from_slice::<Map<String, Value>>(&t).ok())
        .unwrap_or_default();
    SuiteState {
        earlier: Earlier::new(),
        snapshots,
        snapshots_changed: Default::default(),
    }
}

/// The lanes of a run, one per server (its cases in suite then case
/// order), and the cases `--case` left out, as skipped.
#[allow(clippy::type_complexity)]
fn lanes_of(
    suites: &[Suite],
    options: &RunOptions,
) -> (
    BTreeMap<String, Vec<(usize, usize)>>,
    HashMap<(usize, usize), CaseResult>,
) {
    let mut lanes: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    let mut filtered: HashMap<(usize, usize), CaseResult> = HashMap::new();
    for (si, suite) in suites.iter().enumerate() {
        for (ci, case) in suite.cases.iter().enumerate() {
            let server = options
                .server
                .clone()
                .or_else(|| case.server.clone())
                .or_else(|| suite.server.clone())
                .unwrap_or_default();
            if let Some(p) = &options.case
                && !p.picks(&case.name)
            {
                let why = Some("not selected by --case".into());
                filtered.insert((si, ci), result(case, &server, CaseOutcome::Skipped, why));
                continue;
            }
            lanes.entry(server).or_default().push((si, ci));
        }
    }
    (lanes, filtered)
}

/// The suite's snapshots written (never through a link), or said when
/// they cannot be.
fn write_snapshots(
    suite: &Suite,
    snapshots: &Map<String, Value>,
    changed: &std::collections::BTreeSet<String>,
) {
    let path = snapshot_path(suite);
    let written = snapshot_folder_ok(suite)
        .and_then(|()| {
            path.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .map_err(|e| e.to_string())
        })
        .and_then(|()| snapshot_folder_ok(suite))
        .and_then(|()| merge_into(&path, snapshots, changed));
    if let Err(e) = written {
        tracing::warn!(
            "{}: the snapshots could not be written: {e}",
            path.display()
        );
    }
}

/// The `changed` snapshots of this run put into the file as it is now,
/// under its lock: another run that updated other cases meanwhile keeps
/// theirs (a file made meanwhile is read, never written over).
fn merge_into(
    path: &std::path::Path,
    ours: &Map<String, Value>,
    changed: &std::collections::BTreeSet<String>,
) -> Result<(), String> {
    use workbench_core::config::{Error, document};
    for _ in 0..8 {
        let _held = workbench_core::files::lock_file(path);
        let planted = std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file());
        let now = match workbench_core::files::read_no_follow(path, super::MAX_FILE) {
            Ok(bytes) => Some(bytes),
            // A link (or a FIFO) planted there is not read: replaced by ours.
            Err(_) if planted => Some(Vec::new()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.to_string()),
        };
        let mut merged: Map<String, Value> = now
            .as_deref()
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or_default();
        for name in changed {
            if let Some(v) = ours.get(name) {
                merged.insert(name.clone(), v.clone());
            }
        }
        let text = serde_json::to_string_pretty(&Value::Object(merged)).unwrap_or_default() + "\n";
        match now {
            Some(_) => {
                return workbench_core::files::write_private_atomic(path, text.as_bytes())
                    .map_err(|e| e.to_string());
            }
            None => match document::write_new(path, text.as_bytes()) {
                Err(Error::ConfigConflict { .. }) => continue,
                done => return done.map_err(|e| e.to_string()),
            },
        }
    }
    Err("the file kept changing while it was written".into())
}

#[cfg(test)]
mod tests {
    /// Two runs updating one suite's snapshots: each writes the cases it
    /// changed into the file as it is, the other run's kept.
    #[test]
    fn a_runs_snapshots_go_into_the_file_as_it_is() {
        use serde_json::json;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let ours = json!({ "a": "ours, stale", "b": "ours, new" });
        let changed = ["b".to_string()].into_iter().collect();
        // None yet: made with ours.
        super::merge_into(&path, ours.as_object().unwrap(), &changed).unwrap();
        let made: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(made, json!({ "b": "ours, new" }));
        // Another run updated a meanwhile: kept; b is ours.
        std::fs::write(&path, json!({ "a": "theirs", "b": "old" }).to_string()).unwrap();
        super::merge_into(&path, ours.as_object().unwrap(), &changed).unwrap();
        let merged: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(merged, json!({ "a": "theirs", "b": "ours, new" }));
    }

    #[test]
    fn case_patterns_match_with_stars() {
        assert!(super::glob("add*", "adds two"));
        assert!(super::glob("*two", "adds two"));
        assert!(super::glob("a*d*o", "adds two"));
        assert!(super::glob("adds two", "adds two"));
        assert!(!super::glob("add", "adds two"));
        assert!(!super::glob("*x*", "adds two"));
    }
}
