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
use workbench_core::traffic::mask::mask_json;
use workbench_core::{CallOptions, ErrorCode};

use super::expect::{self, Failure, Seen, snapshot_value};
use super::report::{CaseOutcome, CaseResult, Report, SuiteResult, mask_report};
use super::vars::{self, Earlier};
use super::{Case, Expect, SnapshotExpect, Suite, Surface, snapshot_folder_ok, snapshot_path};
use crate::{Call, Calls, Link, Origin};

/// The least time given to a case's assertions, whatever its call took.
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
    snapshots_changed: bool,
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
        history_id: None,
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
        let Some(id) = r.history_id else {
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
        self.calls.keep_verdict(id, verdict);
    }

    /// Why `case` is not run at all (skipped, after a failure with
    /// `--bail`, its server not ready), as its result.
    fn not_run(&self, case: &Case, server: &str) -> Option<CaseResult> {
        if let Some(skip) = &case.skip
            && skip != &Value::Bool(false)
        {
            let why = skip
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| "skip in the suite".into());
            return Some(result(case, server, CaseOutcome::Skipped, Some(why)));
        }
        if self.stop.load(Ordering::Relaxed) {
            return Some(result(
                case,
                server,
                CaseOutcome::Skipped,
                Some("not run: --bail after a failure".into()),
            ));
        }
        match ready(self.calls, server) {
            Ok(()) => None,
            Err((false, why)) => Some(failed(case, server, "server", why)),
            Err((true, why)) => Some(result(case, server, CaseOutcome::NotReady, Some(why))),
        }
    }

    /// A case about the surface (no call): the tool is there, its input
    /// schema's hash what the suite says.
    fn surface_case(&self, case: &Case, surface: &Surface, server: &str) -> CaseResult {
        let wb = self.calls.workbench();
        let Some(tool) = wb.catalog().tool(server, &surface.tool) else {
            return failed(
                case,
                server,
                "surface",
                format!("{server} has no tool \"{}\"", surface.tool),
            );
        };
        let mut r = result(case, server, CaseOutcome::Passed, None);
        if let Some(want) = &surface.schema_hash {
            let now = expect::schema_hash(tool.get("inputSchema").unwrap_or(&Value::Null));
            if *want != now {
                r.outcome = CaseOutcome::Failed;
                r.failures.push(Failure {
                    assertion: "surface.schemaHash".into(),
                    message: format!(
                        "the input schema of {} changed: its hash is now {now}",
                        surface.tool
                    ),
                    diff: None,
                });
            }
        }
        r
    }

    /// `case`'s arguments with the earlier cases' results and the
    /// environment's values put in; the environment's values read become
    /// `server`'s secrets (masked in the history, the traffic, all it
    /// writes).
    fn arguments_of(&self, suite_index: usize, case: &Case, server: &str) -> Result<Value, String> {
        let arguments = {
            let state = self.state[suite_index]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let raw = if case.arguments.is_null() {
                Value::Object(Map::new())
            } else {
                case.arguments.clone()
            };
            vars::substitute(&raw, &state.earlier)
        }?;
        let mut read = Vec::new();
        super::trust::env_refs(&case.arguments, &mut read);
        let values: Vec<String> = read.iter().filter_map(|v| std::env::var(v).ok()).collect();
        if !values.is_empty() {
            let traffic = self.calls.workbench().traffic();
            let mut secrets = traffic.secrets_of(server);
            let before = secrets.len();
            secrets.extend(values.into_iter().filter(|v| !v.is_empty()));
            if secrets.len() > before {
                traffic.set_secrets(server, secrets);
            }
        }
        Ok(arguments)
    }

    /// The snapshot kept for `case` before this run, and the note when this
    /// run wrote or updated it with `result` (under the suite's lock,
    /// released before the assertions are awaited).
    fn snapshot(
        &self,
        suite_index: usize,
        case: &Case,
        result: &Value,
    ) -> (Option<Value>, Option<String>) {
        let mut state = self.state[suite_index]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let stored = state.snapshots.get(&case.name).cloned();
        let snapshot = case
            .expect
            .snapshot
            .as_ref()
            .filter(|s| !matches!(s, SnapshotExpect::On(false)));
        let mut note = None;
        if let Some(s) = snapshot
            && (stored.is_none() || self.options.update_snapshots)
        {
            let now = snapshot_value(result, s);
            if stored.as_ref() != Some(&now) {
                note = Some(if stored.is_none() {
                    "snapshot written".into()
                } else {
                    "snapshot updated".into()
                });
                state.snapshots.insert(case.name.clone(), now);
                state.snapshots_changed = true;
            }
        }
        (stored, note)
    }

    /// `case`'s call of `server`'s `tool` as a suite's (its History row
    /// linked to the suite and the case), within `timeout` and its longest.
    async fn call(
        &self,
        suite_index: usize,
        case: &Case,
        (server, tool): (&str, &str),
        arguments: &Value,
        definition: &Value,
        timeout: Duration,
    ) -> crate::Ran {
        self.calls
            .run(Call {
                consent: None,
                origin: Origin::Suite,
                server,
                tool,
                arguments: arguments.clone(),
                definition: Some(definition),
                link: Link {
                    call_id: format!("{}/{}", self.suites[suite_index].name, case.name),
                    ..Link::default()
                },
                options: CallOptions {
                    timeout: Some(timeout),
                    max_total: case.max_total_ms.map(Duration::from_millis),
                    ..Default::default()
                },
            })
            .await
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

    async fn run_case(&self, suite_index: usize, case: &Case, server: &str) -> CaseResult {
        if let Some(r) = self.not_run(case, server) {
            return r;
        }
        if let Some(surface) = &case.surface {
            return self.surface_case(case, surface, server);
        }
        let wb = self.calls.workbench();
        let tool = case.tool.as_deref().unwrap_or_default();
        let Some(definition) = wb.catalog().tool(server, tool) else {
            return failed(
                case,
                server,
                "tool",
                format!("{server} has no tool \"{tool}\" (mcpwb tools {server} lists them)"),
            );
        };
        let arguments = match self.arguments_of(suite_index, case, server) {
            Ok(a) => a,
            Err(why) => return failed(case, server, "arguments", why),
        };
        let timeout = case
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.timeout);
        let started = Instant::now();
        let mut ran = self
            .call(
                suite_index,
                case,
                (server, tool),
                &arguments,
                &definition,
                timeout,
            )
            .await;
        let mut r = result(case, server, CaseOutcome::Passed, None);
        r.history_id = ran.record_id().await;
        r.arguments = Some(arguments);
        let outcome = match ran.outcome {
            Ok(mut o) => {
                // What a suite writes (snapshots, JUnit, --json) is meant to
                // be committed: never a server's secret.
                mask_json(&mut o.result, &wb.traffic().secrets_of(server));
                o
            }
            Err(e) => {
                r.outcome = CaseOutcome::Failed;
                r.duration_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
                r.failures.push(call_failed(&e, timeout));
                return r;
            }
        };
        r.duration_ms = Some(outcome.duration_ms);
        if case.expect.snapshot.is_some()
            && let Err(why) = snapshot_folder_ok(&self.suites[suite_index])
        {
            r.outcome = CaseOutcome::Failed;
            r.failures.push(Failure {
                assertion: "snapshot".into(),
                message: why,
                diff: None,
            });
            return r;
        }
        let (stored, note) = self.snapshot(suite_index, case, &outcome.result);
        r.note = note;
        let compare_with = if self.options.update_snapshots {
            None
        } else {
            stored
        };
        // The assertions under what is left of the case's deadline (a
        // pattern from anyone over a large result is bounded, not free).
        let seen = Checked {
            result: outcome.result.clone(),
            duration_ms: outcome.duration_ms,
            schema_violations: ran.schema_violations.clone(),
            has_output_schema: definition.get("outputSchema").is_some_and(Value::is_object),
            snapshot: compare_with,
        };
        let left = timeout.saturating_sub(started.elapsed()).max(MIN_CHECK);
        r.failures = check(case.expect.clone(), seen, left, timeout).await;
        let mut state = self.state[suite_index]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        state.earlier.insert(case.name.clone(), outcome.result);
        if !r.failures.is_empty() {
            r.outcome = CaseOutcome::Failed;
        }
        r
    }
}

/// The failure of a case whose call failed (`timeout`: the case's limit).
fn call_failed(e: &workbench_core::Error, timeout: Duration) -> Failure {
    let message = if e.code() == ErrorCode::Timeout {
        format!(
            "no result within {} ms (cut; the rest still run)",
            timeout.as_millis()
        )
    } else {
        format!("the call failed: {e}")
    };
    Failure {
        assertion: "call".into(),
        message,
        diff: None,
    }
}

/// What a case's assertions are checked against, owned (the check runs
/// off the async workers).
struct Checked {
    result: Value,
    duration_ms: f64,
    schema_violations: Vec<String>,
    has_output_schema: bool,
    snapshot: Option<Value>,
}

/// `expect` checked against `seen` within `left` (the case's `timeout`
/// names the limit when it is passed).
async fn check(expect: Expect, seen: Checked, left: Duration, timeout: Duration) -> Vec<Failure> {
    let checking = tokio::task::spawn_blocking(move || {
        expect::check(
            &expect,
            &Seen {
                result: &seen.result,
                duration_ms: seen.duration_ms,
                schema_violations: &seen.schema_violations,
                has_output_schema: seen.has_output_schema,
                snapshot: seen.snapshot.as_ref(),
            },
        )
    });
    match tokio::time::timeout(left, checking).await {
        Ok(Ok(failures)) => failures,
        Ok(Err(e)) => vec![Failure {
            assertion: "expect".into(),
            message: format!("checking the result failed: {e}"),
            diff: None,
        }],
        Err(_) => vec![Failure {
            assertion: "expect".into(),
            message: format!(
                "checking the result took longer than the case's {} ms; cut",
                timeout.as_millis()
            ),
            diff: None,
        }],
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
        if state.snapshots_changed {
            write_snapshots(suite, &state.snapshots);
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
        snapshots_changed: false,
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
fn write_snapshots(suite: &Suite, snapshots: &Map<String, Value>) {
    let path = snapshot_path(suite);
    let text =
        serde_json::to_string_pretty(&Value::Object(snapshots.clone())).unwrap_or_default() + "\n";
    let written = snapshot_folder_ok(suite)
        .and_then(|()| {
            path.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .map_err(|e| e.to_string())
        })
        .and_then(|()| snapshot_folder_ok(suite))
        .and_then(|()| {
            workbench_core::files::write_private_atomic(&path, text.as_bytes())
                .map_err(|e| e.to_string())
        });
    if let Err(e) = written {
        tracing::warn!(
            "{}: the snapshots could not be written: {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
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
