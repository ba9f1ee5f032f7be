//! What an eval run reports: per model × prompt case, each run's verdict
//! (its failed assertions, steps, tokens, time, calls, transcript), the
//! pass rate against the case's; the same cells as suite case results for
//! JUnit (one testcase a model × case); and two runs of a suite compared.

use serde::{Deserialize, Serialize};
use workbench_calls::suite::prompt::SeenCall;
use workbench_calls::suite::{CaseOutcome, CaseResult, Failure, SuiteResult};

/// One run of one case by one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalRun {
    /// Its hidden chat (the transcript).
    pub session: String,
    pub passed: bool,
    #[serde(default)]
    pub failures: Vec<Failure>,
    pub steps: u32,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub duration_ms: f64,
    /// The calls the model asked for, in order.
    #[serde(default)]
    pub calls: Vec<SeenCall>,
}

/// A model × case: its runs and what they add up to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalCell {
    /// `PROVIDER:MODEL` as the suite names it.
    pub model: String,
    pub case: String,
    pub outcome: CaseOutcome,
    /// Why it did not run (no such provider, a server not ready, skipped).
    pub note: Option<String>,
    pub runs: Vec<EvalRun>,
    /// Passed runs over runs (0 when none ran).
    pub pass_rate: f64,
    /// The case's `passRate`.
    pub required: f64,
    pub mean_steps: f64,
    pub mean_ms: f64,
    pub input_tokens: i64,
    pub output_tokens: i64,
}

impl EvalCell {
    pub(crate) fn not_run(model: &str, case: &str, outcome: CaseOutcome, note: String) -> EvalCell {
        EvalCell {
            model: model.into(),
            case: case.into(),
            outcome,
            note: Some(note),
            runs: Vec::new(),
            pass_rate: 0.0,
            required: 1.0,
            mean_steps: 0.0,
            mean_ms: 0.0,
            input_tokens: 0,
            output_tokens: 0,
        }
    }

    pub(crate) fn of_runs(model: &str, case: &str, required: f64, runs: Vec<EvalRun>) -> EvalCell {
        let n = runs.len().max(1) as f64;
        let passed = runs.iter().filter(|r| r.passed).count() as f64;
        let pass_rate = if runs.is_empty() { 0.0 } else { passed / n };
        EvalCell {
            model: model.into(),
            case: case.into(),
            // A rate is compared with a little room for 0.8 written as 4/5.
            outcome: if !runs.is_empty() && pass_rate + 1e-9 >= required {
                CaseOutcome::Passed
            } else {
                CaseOutcome::Failed
            },
            note: None,
            pass_rate,
            required,
            mean_steps: runs.iter().map(|r| r.steps as f64).sum::<f64>() / n,
            mean_ms: runs.iter().map(|r| r.duration_ms).sum::<f64>() / n,
            input_tokens: runs.iter().map(|r| r.input_tokens).sum(),
            output_tokens: runs.iter().map(|r| r.output_tokens).sum(),
            runs,
        }
    }

    /// "3/5" (passed runs of runs).
    pub fn tally(&self) -> String {
        let passed = self.runs.iter().filter(|r| r.passed).count();
        format!("{passed}/{}", self.runs.len())
    }
}

/// One run of a suite's prompt cases.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalReport {
    /// The suite's name and file.
    pub suite: String,
    pub path: String,
    /// The file's fingerprint when it ran (a changed file shows in a comparison).
    pub fingerprint: String,
    pub started_at: i64,
    pub duration_ms: f64,
    /// Columns: the models, in the suite's order.
    pub models: Vec<String>,
    /// Rows: the prompt cases, in the file's order.
    pub cases: Vec<String>,
    pub cells: Vec<EvalCell>,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub not_ready: u32,
    /// The run as kept in the store (None: not kept).
    pub id: Option<i64>,
}

impl EvalReport {
    pub fn cell(&self, model: &str, case: &str) -> Option<&EvalCell> {
        self.cells
            .iter()
            .find(|c| c.model == model && c.case == case)
    }

    /// Each cell as a suite case (`case [model]`), for JUnit and the
    /// suites' totals.
    pub fn as_suite_result(&self) -> SuiteResult {
        let cases = self
            .cells
            .iter()
            .map(|c| {
                let mut failures = Vec::new();
                for (i, r) in c.runs.iter().enumerate().filter(|(_, r)| !r.passed) {
                    for f in &r.failures {
                        failures.push(Failure {
                            assertion: f.assertion.clone(),
                            message: format!("run {}: {}", i + 1, f.message),
                            diff: f.diff.clone(),
                        });
                    }
                }
                if c.outcome == CaseOutcome::Failed && !c.runs.is_empty() {
                    failures.insert(
                        0,
                        Failure {
                            assertion: "passRate".into(),
                            message: format!(
                                "{} runs passed ({:.0}%), the case needs {:.0}%",
                                c.tally(),
                                c.pass_rate * 100.0,
                                c.required * 100.0
                            ),
                            diff: None,
                        },
                    );
                }
                CaseResult {
                    name: format!("{} [{}]", c.case, c.model),
                    server: c.model.clone(),
                    tool: None,
                    outcome: c.outcome,
                    failures,
                    note: c.note.clone().or_else(|| {
                        (c.outcome == CaseOutcome::Passed)
                            .then(|| format!("{} runs passed", c.tally()))
                    }),
                    duration_ms: Some(c.mean_ms * c.runs.len() as f64),
                    history_key: None,
                    arguments: None,
                }
            })
            .collect();
        SuiteResult {
            name: format!("{} (evals)", self.suite),
            path: self.path.clone(),
            cases,
            duration_ms: self.duration_ms,
        }
    }
}

/// A cell of one run beside the same cell of another.
#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    pub model: String,
    pub case: String,
    /// Pass rates before and after (None: the cell was not in that run, or did not run).
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub steps_before: Option<f64>,
    pub steps_after: Option<f64>,
    pub tokens_before: Option<i64>,
    pub tokens_after: Option<i64>,
}

/// Every cell of either run, `before` against `after`, in `after`'s order
/// (then what only `before` had).
pub fn compare(before: &EvalReport, after: &EvalReport) -> Vec<CellChange> {
    let ran = |c: &EvalCell| !c.runs.is_empty();
    let mut out: Vec<CellChange> = Vec::new();
    let mut keys: Vec<(String, String)> = after
        .cells
        .iter()
        .map(|c| (c.model.clone(), c.case.clone()))
        .collect();
    for c in &before.cells {
        if !keys.iter().any(|(m, k)| *m == c.model && *k == c.case) {
            keys.push((c.model.clone(), c.case.clone()));
        }
    }
    for (model, case) in keys {
        let b = before.cell(&model, &case).filter(|c| ran(c));
        let a = after.cell(&model, &case).filter(|c| ran(c));
        out.push(CellChange {
            before: b.map(|c| c.pass_rate),
            after: a.map(|c| c.pass_rate),
            steps_before: b.map(|c| c.mean_steps),
            steps_after: a.map(|c| c.mean_steps),
            tokens_before: b.map(|c| c.input_tokens + c.output_tokens),
            tokens_after: a.map(|c| c.input_tokens + c.output_tokens),
            model,
            case,
        });
    }
    out
}
