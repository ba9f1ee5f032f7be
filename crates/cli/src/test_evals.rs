//! The evals half of `mcpwb test`: a suite's prompt cases run with its
//! models (or `--model`), printed as a matrix — case × model, the runs
//! passed — then each cell's steps, tokens and time and each failed run's
//! assertions. A model whose provider is not configured is taken from the
//! environment when its kind's key is there (`openai:…` with
//! `OPENAI_API_KEY`), as CI sets it.

use std::sync::Arc;

use workbench_app::chat::Agent;
use workbench_app::evals::{self, EvalOptions, EvalProgress, EvalReport, Progress};
use workbench_app::suites::{CaseOutcome, CasePick, Suite};

use crate::print::{clean, line};

/// Providers this run takes from the environment for the models named.
pub fn providers_from_environment(agent: &Agent, models: &[String]) {
    workbench_app::providers::from_environment_for(agent, models);
}

/// Every model a run of `suites` would use.
pub fn models_of(suites: &[Suite], chosen: &[String]) -> Vec<String> {
    if !chosen.is_empty() {
        return chosen.to_vec();
    }
    let mut out: Vec<String> = Vec::new();
    for s in suites {
        for m in s
            .models
            .iter()
            .chain(s.prompts.iter().flat_map(|p| p.models.iter().flatten()))
        {
            if !out.contains(m) {
                out.push(m.clone());
            }
        }
    }
    out
}

/// Run each suite's prompt cases, a progress line on stderr as runs end.
pub async fn run(
    agent: &Agent,
    suites: &[Suite],
    options: &EvalOptions,
    quiet: bool,
) -> Vec<EvalReport> {
    let mut out = Vec::new();
    // A suite none of whose prompt cases is picked runs no model.
    let picked = |s: &&Suite| {
        s.prompts
            .iter()
            .any(|c| options.case.as_ref().is_none_or(|p| p.picks(&c.name)))
    };
    for suite in suites.iter().filter(picked) {
        let name = suite.name.clone();
        let progress: Progress = Arc::new(move |p| {
            if quiet {
                return;
            }
            match p {
                EvalProgress::Started { total } => {
                    eprintln!("mcpwb: {}: {total} model runs", clean(&name))
                }
                EvalProgress::RunDone {
                    model,
                    case,
                    run,
                    passed,
                    done,
                    total,
                } => eprintln!(
                    "mcpwb: [{done}/{total}] {} × {} run {run}: {}",
                    clean(&case),
                    clean(&model),
                    if passed { "passed" } else { "failed" }
                ),
            }
        });
        match evals::run_suite(agent, suite, options, progress).await {
            Ok(r) => out.push(r),
            Err(e) => eprintln!(
                "mcpwb: {}: the evals did not run: {}",
                clean(&suite.name),
                clean(&e.message)
            ),
        }
    }
    out
}

fn mark(outcome: CaseOutcome) -> &'static str {
    match outcome {
        CaseOutcome::Passed => "✓",
        CaseOutcome::Failed => "✗",
        CaseOutcome::Skipped => "-",
        CaseOutcome::NotReady => "!",
    }
}

fn pad(text: &str, width: usize) -> String {
    let n = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(n)))
}

/// The matrix and the details under it.
pub fn print(report: &EvalReport) {
    let runs: usize = report.cells.iter().map(|c| c.runs.len()).sum();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    line(&format!(
        "{} (evals: {} × {}, {}, {:.1} s)",
        clean(&report.suite),
        plural(report.models.len(), "model", "models"),
        plural(report.cases.len(), "case", "cases"),
        plural(runs, "run", "runs"),
        report.duration_ms / 1000.0
    ));
    let first = report
        .cases
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(4)
        .max(4)
        + 2;
    let widths: Vec<usize> = report
        .models
        .iter()
        .map(|m| m.chars().count().max(7) + 2)
        .collect();
    let mut head = format!("  {}", pad("case", first));
    for (m, w) in report.models.iter().zip(&widths) {
        head.push_str(&pad(&clean(m), *w));
    }
    line(head.trim_end());
    for case in &report.cases {
        let mut row = format!("  {}", pad(&clean(case), first));
        for (m, w) in report.models.iter().zip(&widths) {
            let cell = match report.cell(m, case) {
                Some(c) if !c.runs.is_empty() => format!("{} {}", mark(c.outcome), c.tally()),
                Some(c) => mark(c.outcome).to_string(),
                None => "·".into(),
            };
            row.push_str(&pad(&cell, *w));
        }
        line(row.trim_end());
    }
    for c in &report.cells {
        let head = format!("  {} × {}", clean(&c.case), clean(&c.model));
        if c.runs.is_empty() {
            let why = c.note.as_deref().unwrap_or("not run");
            line(&format!("{head}: {} ({})", mark(c.outcome), clean(why)));
            continue;
        }
        let tokens = c.input_tokens + c.output_tokens;
        let tokens = if tokens > 0 {
            format!(" · {tokens} tokens")
        } else {
            String::new()
        };
        line(&format!(
            "{head}: {} {} passed (needs {:.0}%) · {:.1} steps{tokens} · {:.1} s a run",
            mark(c.outcome),
            c.tally(),
            c.required * 100.0,
            c.mean_steps,
            c.mean_ms / 1000.0
        ));
        let mut shown = 0;
        for (i, r) in c.runs.iter().enumerate().filter(|(_, r)| !r.passed) {
            for f in &r.failures {
                if shown == 6 {
                    line("      …");
                    break;
                }
                line(&format!(
                    "      run {}: {}: {}",
                    i + 1,
                    f.assertion,
                    clean(&f.message)
                ));
                shown += 1;
            }
        }
    }
}

/// The options of this run.
pub fn options(
    models: &[String],
    runs: Option<u32>,
    case: Option<String>,
    parallel: usize,
    timeout: f64,
) -> EvalOptions {
    EvalOptions {
        models: models.to_vec(),
        runs,
        case: case.map(CasePick::Matching),
        parallel: parallel.max(1),
        timeout: std::time::Duration::from_secs_f64(timeout.max(1.0)),
    }
}
