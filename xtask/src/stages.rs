//! Running commands as named, timed stages.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub type Result<T = ()> = std::result::Result<T, String>;

/// Records the wall time of each stage and prints a table at the end.
#[derive(Default)]
pub struct Stages {
    done: Vec<(String, Duration, bool)>,
}

impl Stages {
    pub fn run(&mut self, name: &str, f: impl FnOnce() -> Result) -> Result {
        println!("\n==> {name}");
        let start = Instant::now();
        let outcome = f();
        let took = start.elapsed();
        self.done.push((name.to_string(), took, outcome.is_ok()));
        match &outcome {
            Ok(()) => println!("<== {name}: ok in {:.1}s", took.as_secs_f64()),
            Err(e) => println!("<== {name}: FAILED after {:.1}s: {e}", took.as_secs_f64()),
        }
        outcome
    }

    pub fn report(&self) {
        let total: Duration = self.done.iter().map(|(_, d, _)| *d).sum();
        println!("\nstage times:");
        for (name, took, ok) in &self.done {
            let mark = if *ok { "ok    " } else { "FAILED" };
            println!("  {mark} {:>8.1}s  {name}", took.as_secs_f64());
        }
        println!("         {:>8.1}s  total", total.as_secs_f64());
    }

    /// The table, then the total against `budget` (CI's time for a fresh clone).
    pub fn report_against(&self, budget: Duration) {
        self.report();
        let total: Duration = self.done.iter().map(|(_, d, _)| *d).sum();
        let (t, b) = (total.as_secs_f64(), budget.as_secs_f64());
        println!(
            "total {:.1} min of the {:.0}-minute budget ({:.0}%){}",
            t / 60.0,
            b / 60.0,
            100.0 * t / b,
            if total > budget { ": OVER BUDGET" } else { "" }
        );
    }
}

/// Run `cmd` with inherited output; fail with its command line if it fails.
pub fn sh(mut cmd: impl std::borrow::BorrowMut<Command>) -> Result {
    let cmd = cmd.borrow_mut();
    let shown = format!("{cmd:?}").replace('"', "");
    println!("$ {shown}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Run `cmd` with its output kept, for a stage that runs beside others:
/// whether it passed, and what it printed (shown when it is waited for).
pub fn captured(mut cmd: Command) -> (Result, String) {
    let shown = format!("{cmd:?}").replace('"', "");
    match cmd.stdin(std::process::Stdio::null()).output() {
        Ok(out) => {
            let said = format!(
                "$ {shown}\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let passed = if out.status.success() {
                Ok(())
            } else {
                Err(format!("{shown} failed ({})", out.status))
            };
            (passed, said)
        }
        Err(e) => (Err(format!("could not start {shown}: {e}")), String::new()),
    }
}

/// `program` with `args` in `dir`; cargo (and tauri's CLI, which runs it)
/// builds in the machine's build cache when one is on.
pub fn cmd(program: &str, args: &[&str], dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(dir);
    if let Some(target) = crate::cache::build_cache(&crate::tasks::root()) {
        c.env("CARGO_TARGET_DIR", target);
    }
    c
}

/// Whether `program` can be run (found on PATH or as a path).
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}
