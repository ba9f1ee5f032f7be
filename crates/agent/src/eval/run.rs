//! An eval run: each model's prompt cases (a model whose provider cannot
//! be used marks its cases not ready), each case run its number of times,
//! the progress told as each run ends, and the report kept in the store.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::Semaphore;
use workbench_calls::suite::{CaseOutcome, PromptCase, Suite};
use workbench_core::ErrorInfo;

use super::{EvalCell, EvalOptions, EvalProgress, EvalReport, Progress, provider_for};
use crate::Agent;
use crate::settings::ProviderConfig;

/// One model's part of a run: its provider (or why there is none) and the
/// cases it runs.
struct Plan<'a> {
    model: String,
    provider: Result<(ProviderConfig, String), ErrorInfo>,
    cases: Vec<&'a PromptCase>,
}

/// What every model's part shares: the suite, the options, and the
/// progress with its count.
struct Run<'a> {
    suite: &'a Suite,
    options: &'a EvalOptions,
    progress: Progress,
    done: AtomicU32,
    total: u32,
}

impl Run<'_> {
    fn runs_of(&self, case: &PromptCase) -> u32 {
        self.options.runs.unwrap_or_else(|| case.runs()).max(1)
    }
}

/// The models a run uses: those asked for, else the suite's and its cases'.
fn models_of(suite: &Suite, options: &EvalOptions) -> Vec<String> {
    if !options.models.is_empty() {
        return options.models.clone();
    }
    let mut m = suite.models.clone();
    for p in &suite.prompts {
        for x in p.models.iter().flatten() {
            if !m.contains(x) {
                m.push(x.clone());
            }
        }
    }
    m
}

impl Agent {
    /// Run `suite`'s prompt cases with its models (or `options.models`),
    /// keep the report in the store, and return it.
    pub async fn run_evals(
        &self,
        suite: &Suite,
        options: &EvalOptions,
        progress: Progress,
    ) -> crate::Result<EvalReport> {
        let started = Instant::now();
        let started_at = workbench_store::now_ms();
        let settings = self.settings()?;
        let models = models_of(suite, options);
        let cases: Vec<&PromptCase> = suite
            .prompts
            .iter()
            .filter(|c| options.case.as_ref().is_none_or(|p| p.picks(&c.name)))
            .collect();
        // A filter that picked no prompt case runs nothing and keeps nothing:
        // the suite's last run stays its newest.
        if cases.is_empty() && options.case.is_some() {
            return Err(crate::Error::Invalid(format!(
                "no prompt case of {} is picked by {:?}",
                suite.name, options.case
            )));
        }
        let plans: Vec<Plan<'_>> = models
            .iter()
            .map(|m| Plan {
                model: m.clone(),
                provider: provider_for(&settings, m),
                cases: cases
                    .iter()
                    .copied()
                    // A case naming its models runs with those only (unless
                    // the run was told which models).
                    .filter(|c| {
                        !options.models.is_empty()
                            || c.models.as_ref().is_none_or(|only| only.contains(m))
                    })
                    .collect(),
            })
            .collect();
        let mut run = Run {
            suite,
            options,
            progress,
            done: AtomicU32::new(0),
            total: 0,
        };
        run.total = plans
            .iter()
            .filter(|p| p.provider.is_ok())
            .flat_map(|p| p.cases.iter())
            .filter(|c| c.skip.is_none())
            .map(|c| run.runs_of(c))
            .sum();
        (run.progress)(EvalProgress::Started { total: run.total });
        let limit = Semaphore::new(options.parallel.max(1));
        let per_model = plans.iter().map(|plan| self.run_model(&run, plan, &limit));
        let mut cells = Vec::new();
        let mut sessions = Vec::new();
        for (c, s) in futures::future::join_all(per_model).await {
            cells.extend(c);
            sessions.extend(s);
        }
        let count = |o: CaseOutcome| cells.iter().filter(|c| c.outcome == o).count() as u32;
        let mut report = EvalReport {
            suite: suite.name.clone(),
            path: suite.path.display().to_string(),
            fingerprint: suite.fingerprint.clone(),
            started_at,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            models,
            cases: cases.iter().map(|c| c.name.clone()).collect(),
            passed: count(CaseOutcome::Passed),
            failed: count(CaseOutcome::Failed),
            skipped: count(CaseOutcome::Skipped),
            not_ready: count(CaseOutcome::NotReady),
            cells,
            id: None,
        };
        let value =
            serde_json::to_value(&report).map_err(|e| crate::Error::Invalid(e.to_string()))?;
        report.id = Some(self.store().add_eval_run(
            &report.path,
            &report.suite,
            started_at,
            &value,
            &sessions,
        )?);
        Ok(report)
    }

    /// One model's cells (and the chats its runs made), at most
    /// `options.parallel` models at once.
    async fn run_model(
        &self,
        run: &Run<'_>,
        plan: &Plan<'_>,
        limit: &Semaphore,
    ) -> (Vec<EvalCell>, Vec<String>) {
        let provider = match &plan.provider {
            Ok(p) => p,
            Err(why) => {
                let cells = plan
                    .cases
                    .iter()
                    .map(|c| {
                        EvalCell::not_run(
                            &plan.model,
                            &c.name,
                            CaseOutcome::NotReady,
                            why.message.clone(),
                        )
                    })
                    .collect();
                return (cells, Vec::new());
            }
        };
        let _permit = limit.acquire().await;
        let mut cells = Vec::new();
        let mut sessions = Vec::new();
        for case in &plan.cases {
            let (cell, chats) = self.run_case(run, &plan.model, provider, case).await;
            cells.extend(cell);
            sessions.extend(chats);
        }
        (cells, sessions)
    }

    /// One case with one model: skipped, not ready, or run its number of
    /// times (a run whose chat cannot start ends the case as not ready).
    async fn run_case(
        &self,
        run: &Run<'_>,
        model: &str,
        provider: &(ProviderConfig, String),
        case: &PromptCase,
    ) -> (Option<EvalCell>, Vec<String>) {
        if let Some(skip) = &case.skip {
            let why = match skip {
                Value::String(s) => s.clone(),
                _ => "skip in the file".into(),
            };
            let cell = EvalCell::not_run(model, &case.name, CaseOutcome::Skipped, why);
            return (Some(cell), Vec::new());
        }
        let servers = case.servers_with(run.suite.server.as_deref());
        if let Some(why) = self.not_ready(&servers) {
            let cell = EvalCell::not_run(model, &case.name, CaseOutcome::NotReady, why);
            return (Some(cell), Vec::new());
        }
        let mut runs = Vec::new();
        let mut sessions = Vec::new();
        for n in 1..=run.runs_of(case) {
            let once = self
                .run_once(run.suite, case, &servers, model, provider, n, run.options)
                .await;
            let passed = once.as_ref().is_ok_and(|r| r.passed);
            let done = run.done.fetch_add(1, Ordering::Relaxed) + 1;
            (run.progress)(EvalProgress::RunDone {
                model: model.to_string(),
                case: case.name.clone(),
                run: n,
                passed,
                done,
                total: run.total,
            });
            match once {
                Ok(r) => {
                    sessions.push(r.session.clone());
                    runs.push(r);
                }
                Err(e) => {
                    // The chat could not even start (its provider went
                    // away): the rest cannot either.
                    let cell =
                        EvalCell::not_run(model, &case.name, CaseOutcome::NotReady, e.to_string());
                    return (Some(cell), sessions);
                }
            }
        }
        let cell = EvalCell::of_runs(model, &case.name, case.pass_rate(), runs);
        (Some(cell), sessions)
    }
}
