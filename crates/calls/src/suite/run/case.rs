//! One case of a run: not run at all (skipped, after a failure with
//! `--bail`, its server not ready), a surface checked, or its call made
//! (arguments filled, the environment's values made secrets) and its
//! result checked against the case's expectations and snapshot.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use workbench_core::traffic::mask::mask_json;
use workbench_core::{CallOptions, ErrorCode};

use super::super::expect::{self, Failure, Seen, snapshot_value};
use super::super::report::{CaseOutcome, CaseResult};
use super::super::{Case, Expect, SnapshotExpect, Surface, snapshot_folder_ok, vars};
use super::{MIN_CHECK, Shared, failed, ready, result};
use crate::{Call, Link, Origin};

impl Shared<'_> {
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
        super::super::trust::env_refs(&case.arguments, &mut read);
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
                state.snapshots_changed.insert(case.name.clone());
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

    pub(super) async fn run_case(
        &self,
        suite_index: usize,
        case: &Case,
        server: &str,
    ) -> CaseResult {
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
        let ran = self
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
        r.history_key = ran.key.clone();
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
