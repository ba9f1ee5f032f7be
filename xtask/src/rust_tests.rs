//! The workspace's Rust tests: built and linted once by cargo, then the test
//! binaries run side by side. `cargo test` runs them one after another, and most of
//! their time is spent waiting on the servers they start, so on two cores a
//! few at once finish in about a third of the time. Each binary's output is
//! printed whole when it ends, never interleaved.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::stages::{Result, cmd};

/// How many test binaries run at once.
const AT_ONCE: usize = 3;

/// Test binaries whose long tests run as jobs of their own beside the
/// binary's other tests, these first: one binary run whole ended the stage
/// alone (132 s of its 362 on a fresh machine, the other binaries done long
/// before). The soak bed and the crash loop (a minute together) are that
/// job. (The cli's tests that wait on bundles, publish, the doctor and the
/// bridge's Python SDK as a third job took the stage from 135.7 s to ~105
/// of test binaries, but beside them the dev loop's test saving every 1.5 s
/// saw its Python server take longer than that to start twice in a row, its
/// saves taken for the server's own writes: CI102 and CI103 failed so. So
/// did the reload, watch, registry and doctor tests as one job beside npx.)
const LONG: &[(&str, &[&[&str]])] = &[("cli: cli", &[&["soak::", "crash::"]])];

/// Make `c`, a cargo command, build the workspace's own crates through
/// clippy-driver (cargo's workspace wrapper: dependencies go to rustc as
/// before) with warnings denied. Clippy's lints are then checked in the one
/// build the tests run: `cargo clippy` compiled every dependency a second
/// time, in check mode (190 s of a fresh machine's 880). Every cargo command
/// of `cargo xtask test` that builds the workspace goes through here: cargo
/// keeps what the wrapper built apart from a plain build, so a command
/// without it would build the workspace's crates again. Incremental
/// compilation is off: its caches serve an edit loop, not a whole build,
/// and they had grown to 17 GB in a CI build folder.
pub fn linted(c: &mut Command) -> &mut Command {
    c.env("RUSTC_WORKSPACE_WRAPPER", clippy_driver())
        .env("CLIPPY_ARGS", "-Dwarnings")
        .env("CARGO_INCREMENTAL", "0")
}

/// The toolchain's clippy-driver: rustup's own (a full path, so the
/// workspace's fingerprints do not hang on PATH), else the one on PATH.
fn clippy_driver() -> PathBuf {
    Command::new("rustup")
        .args(["which", "clippy-driver"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| PathBuf::from(s.trim()))
        .unwrap_or_else(|| PathBuf::from("clippy-driver"))
}

/// A test harness binary cargo built.
pub struct TestBinary {
    integration: bool,
    /// "package: target".
    name: String,
    exe: PathBuf,
    /// The package's folder, where cargo would run it.
    dir: PathBuf,
}

/// Build and lint every target of the workspace (`cargo test --no-run
/// --all-targets` with `features`, through [`linted`]); the test harness
/// binaries it made.
pub fn build(root: &Path, features: &[&str]) -> Result<Vec<TestBinary>> {
    let mut build_args = vec!["test", "--workspace", "--all-targets", "--no-run"];
    build_args.extend_from_slice(features);
    build_args.push("--message-format=json-render-diagnostics");
    let mut build = cmd("cargo", &build_args, root);
    linted(&mut build);
    println!(
        "$ cargo {} (clippy-driver, -D warnings)",
        build_args.join(" ")
    );
    let out = build
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the build or its lints failed (cargo test --no-run: {})",
            out.status
        ));
    }
    let binaries: Vec<TestBinary> = BufReader::new(&out.stdout[..])
        .lines()
        .map_while(std::io::Result::ok)
        .filter_map(|line| test_binary(&line))
        .collect();
    if binaries.is_empty() {
        return Err("cargo built no test binaries".into());
    }
    Ok(binaries)
}

/// The unit-test binaries (a library's own tests) among `binaries`: the
/// program and its package's folder.
pub fn unit_tests(binaries: &[TestBinary]) -> Vec<(PathBuf, PathBuf)> {
    binaries
        .iter()
        .filter(|b| !b.integration)
        .map(|b| (b.exe.clone(), b.dir.clone()))
        .collect()
}

/// One thing to run: a test binary, or the doc tests.
struct Job {
    name: String,
    command: Command,
}

struct Outcome {
    name: String,
    took: Duration,
    ok: bool,
    output: String,
}

/// Run `binaries` and the doc tests `AT_ONCE` at a time, each in its
/// package's folder as cargo would. `envs` go to every one.
pub fn run(
    root: &Path,
    features: &[&str],
    binaries: Vec<TestBinary>,
    envs: &[(&str, PathBuf)],
) -> Result {
    let scratch = std::env::temp_dir().join(format!("xtask-tests-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    // Ranked: the split binaries first, then integration tests, then unit tests.
    let mut jobs: Vec<(u8, Job)> = Vec::new();
    for TestBinary {
        integration,
        name,
        exe,
        dir,
    } in binaries
    {
        let job = |name: String, args: &[&str]| {
            let mut command = Command::new(&exe);
            command
                .args(args)
                .current_dir(&dir)
                .env("CARGO_MANIFEST_DIR", &dir);
            hermetic(&mut command, &scratch, &name, integration);
            Job { name, command }
        };
        match LONG.iter().find(|(n, _)| *n == name) {
            Some((_, groups)) => {
                for group in *groups {
                    jobs.push((0, job(format!("{name} ({})", group.join(" ")), group)));
                }
                let skips: Vec<&str> = groups
                    .iter()
                    .flat_map(|g| g.iter())
                    .flat_map(|t| ["--skip", *t])
                    .collect();
                jobs.push((0, job(format!("{name} (the rest)"), &skips)));
            }
            None => jobs.push((u8::from(!integration) + 1, job(name, &[]))),
        }
    }
    // The split binaries' jobs first, in the order `LONG` gives (longest
    // first); then the integration tests, then the unit tests, by name.
    jobs.sort_by(|a, b| {
        let key = |j: &(u8, Job)| {
            (
                j.0,
                if j.0 == 0 {
                    String::new()
                } else {
                    j.1.name.clone()
                },
            )
        };
        key(a).cmp(&key(b))
    });
    let mut doc_args = vec!["test", "--workspace", "--doc"];
    doc_args.extend_from_slice(features);
    let mut jobs: VecDeque<Job> = jobs.into_iter().map(|(_, j)| j).collect();
    let mut doc = cmd("cargo", &doc_args, root);
    linted(&mut doc);
    jobs.push_back(Job {
        name: "doc tests".into(),
        command: doc,
    });
    for job in &mut jobs {
        for (k, v) in envs {
            job.command.env(k, v);
        }
    }
    println!(
        "running {} test jobs (a binary each, the long ones split) and the doc tests, {AT_ONCE} at a time",
        jobs.len() - 1
    );

    let queue = Mutex::new(jobs);
    let done = Mutex::new(Vec::<Outcome>::new());
    std::thread::scope(|s| {
        for worker in 0..AT_ONCE {
            let (queue, done, scratch) = (&queue, &done, &scratch);
            s.spawn(move || {
                loop {
                    let Some(job) = queue.lock().unwrap().pop_front() else {
                        return;
                    };
                    let outcome = run_one(job, &scratch.join(format!("{worker}.log")));
                    let mark = if outcome.ok { "ok" } else { "FAILED" };
                    // Printed under the lock: one binary's output stays whole.
                    let mut done = done.lock().unwrap();
                    println!(
                        "\n--- {}: {mark} in {:.1}s\n{}",
                        outcome.name,
                        outcome.took.as_secs_f64(),
                        outcome.output.trim_end()
                    );
                    done.push(outcome);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);

    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|o| std::cmp::Reverse(o.took));
    println!("\ntest binaries, longest first:");
    for o in &done {
        let mark = if o.ok { "ok    " } else { "FAILED" };
        println!("  {mark} {:>6.1}s  {}", o.took.as_secs_f64(), o.name);
    }
    let failed: Vec<&str> = done
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.name.as_str())
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("tests failed in: {}", failed.join(", ")))
    }
}

/// A test binary never reaches the person's own keychain entries or data
/// folder: the workbench's keychain service is one of this run's, and a
/// unit-test binary (its tests call the library in process, where the
/// data folder is the process's) gets a data folder of its own. An
/// integration test's children keep their own `HOME` (each test makes one),
/// so it is not given a shared data folder that would join them.
fn hermetic(command: &mut Command, scratch: &Path, name: &str, integration: bool) {
    command.env(
        "MCPWB_KEYCHAIN_SERVICE",
        format!("mcpwb-tests-{}", std::process::id()),
    );
    if !integration {
        let folder: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        command.env("MCPWB_DATA_DIR", scratch.join("data").join(folder));
    }
}

/// Run `job` with its output (stdout and stderr, in order) into `log`.
fn run_one(mut job: Job, log: &Path) -> Outcome {
    let start = Instant::now();
    let status = File::create(log).and_then(|f| {
        let err = f.try_clone()?;
        job.command
            .stdin(Stdio::null())
            .stdout(f)
            .stderr(err)
            .status()
    });
    let mut output = String::new();
    if let Ok(mut f) = File::open(log) {
        let _ = f.read_to_string(&mut output);
    }
    let ok = match status {
        Ok(s) if s.success() => true,
        Ok(s) => {
            output.push_str(&format!("\n(exited: {s})"));
            false
        }
        Err(e) => {
            output.push_str(&format!("\ncould not start: {e}"));
            false
        }
    };
    Outcome {
        name: job.name,
        took: start.elapsed(),
        ok,
        output,
    }
}

/// From one line of cargo's JSON messages: a test harness binary (not a
/// benchmark: built to be linted, not run).
fn test_binary(line: &str) -> Option<TestBinary> {
    if !line.contains(r#""reason":"compiler-artifact""#) {
        return None;
    }
    let profile = &line[line.find(r#""profile":{"#)?..];
    let profile = &profile[..profile.find('}')?];
    if !profile.contains(r#""test":true"#) {
        return None;
    }
    let exe = PathBuf::from(string_field(line, "executable")?);
    let manifest = PathBuf::from(string_field(line, "manifest_path")?);
    let dir = manifest.parent()?.to_path_buf();
    let target = &line[line.find(r#""target":{"#)?..];
    if target.starts_with(r#""target":{"kind":["bench"]"#) {
        return None;
    }
    let integration = target.starts_with(r#""target":{"kind":["test"]"#);
    let name = string_field(target, "name")?;
    let package = dir.file_name()?.to_string_lossy().into_owned();
    Some(TestBinary {
        integration,
        name: format!("{package}: {name}"),
        exe,
        dir,
    })
}

/// The first `"key":"…"` string in `json`, unescaped (cargo's paths and
/// names hold at most `\\` and `\"`).
fn string_field(json: &str, key: &str) -> Option<String> {
    let start = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut out = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integration_test_binary_is_found_in_cargos_message() {
        let line = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/cli#workbench-cli@0.1.0","manifest_path":"/w/crates/cli/Cargo.toml","target":{"kind":["test"],"crate_types":["bin"],"name":"cli","src_path":"/w/crates/cli/tests/cli.rs","edition":"2024","doc":false,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":0,"debug_assertions":true,"overflow_checks":true,"test":true},"features":[],"filenames":["/t/debug/deps/cli-ab"],"executable":"/t/debug/deps/cli-ab","fresh":false}"#;
        let found = test_binary(line).unwrap();
        assert!(found.integration);
        assert_eq!(found.name, "cli: cli");
        assert_eq!(found.exe, PathBuf::from("/t/debug/deps/cli-ab"));
        assert_eq!(found.dir, PathBuf::from("/w/crates/cli"));
    }

    #[test]
    fn a_plain_binary_a_library_and_a_benchmark_are_not_test_binaries() {
        let bin = r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/cli/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"mcpwb","test":true},"profile":{"opt_level":"0","test":false},"executable":"/t/debug/mcpwb","fresh":true}"#;
        let lib = r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/core/Cargo.toml","target":{"kind":["lib"],"name":"workbench_core","test":true},"profile":{"opt_level":"0","test":false},"executable":null,"fresh":true}"#;
        // Built (so linted) by `--all-targets`, in the test profile: not run.
        let bench = r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/cli/Cargo.toml","target":{"kind":["bench"],"crate_types":["bin"],"name":"tap","test":false},"profile":{"opt_level":"0","test":true},"executable":"/t/debug/deps/tap-ab","fresh":true}"#;
        assert!(test_binary(bin).is_none());
        assert!(test_binary(lib).is_none());
        assert!(test_binary(bench).is_none());
        assert_eq!(
            string_field(r#"{"a":"x\\y\"z"}"#, "a").as_deref(),
            Some(r#"x\y"z"#)
        );
    }
}
