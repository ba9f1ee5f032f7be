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

pub fn cmd(program: &str, args: &[&str], dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(dir);
    c
}

/// Whether `program` can be run (found on PATH or as a path).
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}
