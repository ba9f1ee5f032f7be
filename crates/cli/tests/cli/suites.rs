//! `mcpwb test`: suites kept in a project run headless against the demo
//! server (and the third-party server-everything when installed), with
//! cases meant to fail whose failures are asserted. Every run's output is
//! captured here: a "N passed, N failed" line of a planted failure never
//! reaches the CI log, where it would read as a verdict.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::{BIN, demo_server, stderr, stdout};

struct Project {
    dir: tempfile::TempDir,
    config: String,
}

impl Project {
    /// A project with an mcp.json of `servers` (name → demo args) and its
    /// suites folder.
    fn new(servers: &[(&str, &[&str])]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let mut map = serde_json::Map::new();
        for (name, args) in servers {
            map.insert(
                name.to_string(),
                json!({ "command": demo_server(), "args": args }),
            );
        }
        let config = dir.path().join("mcp.json");
        std::fs::write(&config, json!({ "mcpServers": map }).to_string()).unwrap();
        std::fs::create_dir_all(dir.path().join(".mcp-workbench/suites")).unwrap();
        Project {
            config: config.display().to_string(),
            dir,
        }
    }

    fn suite(&self, name: &str, text: &str) {
        std::fs::write(self.suites().join(format!("{name}.json")), text).unwrap();
    }

    fn suites(&self) -> std::path::PathBuf {
        self.dir.path().join(".mcp-workbench/suites")
    }

    fn test(&self, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let home = self.dir.path().join("home");
        let mut c = Command::new(BIN);
        c.args(["--trust", "--config", &self.config, "--project"])
            .arg(self.dir.path())
            .args(["test", "--trust-suites"])
            .args(extra)
            .current_dir(self.dir.path())
            .env_remove("MCPWB_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home)
            .env("MCPWB_DATA_DIR", home.join("data"))
            .env("MCPWB_SETTINGS", home.join("settings.json"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

fn summary(out: &std::process::Output) -> String {
    stdout(out).lines().last().unwrap_or_default().to_string()
}

const DEMO_SUITE: &str = r#"// the demo server's basics, with one case meant to fail
{ "server": "demo",
  "cases": [
    { "name": "adds", "tool": "add", "arguments": {"a": 2, "b": 3},
      "expect": { "json": { "/sum": { "equals": 5, "type": "number" } }, "outputSchema": true } },
    { "name": "echoes the sum", "tool": "echo",
      "arguments": { "message": "sum=${case.adds.json./sum}" },
      "expect": { "text": { "contains": "sum=5", "matches": "^sum=5(\\.0)?$" } } },
    { "name": "meant to fail", "tool": "add", "arguments": {"a": 1, "b": 1},
      "expect": { "json": { "/sum": { "equals": 3 } } } },
    { "name": "fails as expected", "tool": "fail", "expect": { "isError": true } },
    { "name": "breaks its schema", "tool": "bad_structured_output", "expect": { "outputSchema": true } },
    { "name": "kept", "tool": "echo", "arguments": {"message": "${env:SNAP_MESSAGE}"}, "expect": { "snapshot": true } },
    { "name": "add is there", "surface": { "tool": "add" } },
    { "name": "no such tool", "tool": "nope" },
    { "name": "elsewhere", "server": "ghost", "tool": "echo" }
  ] }"#;

#[test]
fn a_suite_runs_with_chained_cases_snapshots_and_failures_that_say_why() {
    let p = Project::new(&[("demo", &["--name", "demo"])]);
    p.suite("demo", DEMO_SUITE);
    let junit = p.dir.path().join("junit.xml");
    let junit_arg = junit.display().to_string();
    let out = p.test(&["--junit", &junit_arg], &[("SNAP_MESSAGE", "first")]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert_eq!(summary(&out), "5 passed, 4 failed", "{text}");
    assert!(
        text.contains("✓ echoes the sum"),
        "the chained case ran: {text}"
    );
    assert!(
        text.contains("json /sum equals: expected 3, got 2"),
        "{text}"
    );
    assert!(
        text.contains("outputSchema: structuredContent breaks the output schema"),
        "{text}"
    );
    assert!(text.contains("demo has no tool \"nope\""), "{text}");
    assert!(text.contains("no server \"ghost\""), "{text}");
    assert!(text.contains("(snapshot written)"), "{text}");
    // The snapshot is kept beside the suite, reviewable.
    let snap: Value = serde_json::from_str(
        &std::fs::read_to_string(p.suites().join("__snapshots__/demo.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(snap["kept"]["content"][0]["text"], "first");

    // JUnit that a CI system reads: one testsuite, one testcase a case.
    let report =
        quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(&junit).unwrap())
            .expect("JUnit XML parses back");
    assert_eq!(report.test_suites.len(), 1);
    let suite = &report.test_suites[0];
    assert_eq!(suite.name.as_str(), "demo");
    assert_eq!(suite.test_cases.len(), 9);
    let failed: Vec<&str> = suite
        .test_cases
        .iter()
        .filter(|c| matches!(c.status, quick_junit::TestCaseStatus::NonSuccess { .. }))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "meant to fail",
            "breaks its schema",
            "no such tool",
            "elsewhere"
        ]
    );

    // The snapshot holds: same result passes, a changed one fails with a diff
    // (values too short to be secrets: the environment's others are masked)...
    let out = p.test(&["--case", "kept"], &[("SNAP_MESSAGE", "first")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(summary(&out), "1 passed, 0 failed, 8 skipped");
    let out = p.test(&["--case", "kept"], &[("SNAP_MESSAGE", "later")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("snapshot: the result differs"), "{text}");
    assert!(
        text.contains("-       \"text\": \"first\"")
            && text.contains("+       \"text\": \"later\""),
        "{text}"
    );
    // ...until it is updated, then the new one holds.
    let out = p.test(
        &["--case", "kept", "--update-snapshots"],
        &[("SNAP_MESSAGE", "later")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = p.test(&["--case", "kept"], &[("SNAP_MESSAGE", "later")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // --bail stops at the first failure; --json is one report.
    let out = p.test(&["--bail", "--json"], &[("SNAP_MESSAGE", "later")]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = v["report"]["suites"][0]["cases"].as_array().unwrap();
    // (The ghost server's case is another lane, run at the same time.)
    let after: Vec<&str> = cases[3..8]
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert!(after.iter().all(|o| *o == "skipped"), "{after:?}");

    // Suite calls are in the history as suite calls.
    let home = p.dir.path().join("home");
    let h = Command::new(BIN)
        .args(["history", "--origin", "suite", "--json", "--limit", "100"])
        .env("HOME", &home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&h.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    assert!(calls.len() >= 6, "{v}");
    // The call that answered while its case failed an assertion says so,
    // beside its own "ok" (History shows it in the window too).
    let meant = calls
        .iter()
        .find(|c| c["verdict"]["case"] == "meant to fail")
        .unwrap_or_else(|| panic!("no verdict kept for 'meant to fail': {v}"));
    assert_eq!(meant["status"], "ok", "{meant}");
    assert_eq!(meant["verdict"]["suite"], "demo", "{meant}");
    assert_eq!(meant["verdict"]["outcome"], "failed", "{meant}");
    assert!(
        meant["verdict"]["failures"][0]
            .as_str()
            .unwrap()
            .contains("expected 3, got 2"),
        "{meant}"
    );
    assert!(
        calls
            .iter()
            .any(|c| c["verdict"]["outcome"] == "passed" && c["status"] == "ok"),
        "{v}"
    );
}

#[test]
fn a_broken_suite_is_reported_with_its_place_and_the_others_still_run() {
    let p = Project::new(&[("demo", &["--name", "demo"])]);
    p.suite(
        "good",
        r#"{"server": "demo", "cases": [{"name": "echo", "tool": "echo", "arguments": {"message": "hi"}, "expect": {"text": {"equals": "hi"}}}]}"#,
    );
    p.suite(
        "broken",
        "{ \"server\": \"demo\",\n  \"cases\": [ { \"name\": \"x\", } ",
    );
    let out = p.test(&[], &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(err.contains("broken.json:2:"), "line and column: {err}");
    assert!(err.contains("nothing run from it"), "{err}");
    assert_eq!(summary(&out), "1 passed, 0 failed");
}

#[test]
fn a_hanging_case_is_cut_and_a_server_not_ready_exits_4() {
    let p = Project::new(&[
        ("demo", &["--name", "demo"]),
        ("hangs", &["--fault", "hang-on-call"]),
    ]);
    p.suite(
        "hang",
        r#"{"server": "hangs", "cases": [
            {"name": "hangs", "tool": "echo", "arguments": {"message": "x"}, "timeoutMs": 500},
            {"name": "other server still runs", "server": "demo", "tool": "echo", "arguments": {"message": "y"}}
        ]}"#,
    );
    let started = std::time::Instant::now();
    let out = p.test(&[], &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("no result within 500 ms"), "{text}");
    assert_eq!(summary(&out), "1 passed, 1 failed");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    let p = Project::new(&[("broken", &["--fault", "exit-at-start"])]);
    p.suite(
        "b",
        r#"{"server": "broken", "cases": [{"name": "c", "tool": "echo"}]}"#,
    );
    let out = p.test(&["--timeout", "5"], &[]);
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("not run"), "{}", stdout(&out));
}

#[test]
fn a_suite_runs_against_the_third_party_everything_server() {
    let Some(dir) = std::env::var_os("MCPWB_THIRD_PARTY") else {
        eprintln!(
            "MCPWB_THIRD_PARTY is not set (cargo xtask test installs server-everything): skipped"
        );
        return;
    };
    let bin = Path::new(&dir).join("node_modules/.bin/mcp-server-everything");
    let p = Project::new(&[]);
    std::fs::write(
        &p.config,
        json!({ "mcpServers": { "everything": { "command": bin, "args": ["stdio"] } } })
            .to_string(),
    )
    .unwrap();
    p.suite(
        "everything",
        r#"{"server": "everything", "cases": [
            {"name": "echo", "tool": "echo", "arguments": {"message": "hi"}, "expect": {"text": {"equals": "Echo: hi"}}},
            {"name": "sum", "tool": "get-sum", "arguments": {"a": 2, "b": 3}, "expect": {"text": {"contains": "is 5"}}},
            {"name": "weather", "tool": "get-structured-content", "arguments": {"location": "Chicago"},
             "expect": {"outputSchema": true, "json": {"/temperature": {"equals": 36}, "/conditions": {"type": "string"}}}},
            {"name": "meant to fail", "tool": "get-sum", "arguments": {"a": 1, "b": 1}, "expect": {"text": {"contains": "is 3"}}},
            {"name": "echo still has its schema", "surface": {"tool": "echo"}}
        ]}"#,
    );
    let out = p.test(&["--timeout", "60"], &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert_eq!(summary(&out), "4 passed, 1 failed", "{text}");
    assert!(
        text.contains("✗ meant to fail") && text.contains("does not contain \"is 3\""),
        "{text}"
    );
}

/// A runtime for the scripted LLM while the blocking test runs `mcpwb`.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

const EVALS: &str = r#"{ "server": "demo", "models": ["scripted:good", "scripted:bad"],
  "cases": [
    { "name": "adds", "tool": "add", "arguments": {"a": 1, "b": 1} },
    { "name": "sums by asking", "prompt": "What is 2 + 3?",
      "expect": { "calls": [{ "tool": "demo/add", "arguments": { "/b": { "equals": 3 } } }],
                  "answer": { "contains": "5" } },
      "runs": 2 } ] }"#;

#[test]
fn prompt_cases_print_a_matrix_exit_1_under_their_pass_rate_and_go_to_junit() {
    use workbench_testkit::llm::{ScriptedLlm, Turn};
    let rt = runtime();
    let mut turns = Vec::new();
    for _ in 0..3 {
        turns.push(Turn::calls(&[("demo__add", json!({"a": 2, "b": 3}))]).for_model("good"));
        turns.push(Turn::text("It is 5.").for_model("good"));
    }
    for _ in 0..2 {
        turns.push(Turn::calls(&[("demo__add", json!({"a": 2, "b": 4}))]).for_model("bad"));
        turns.push(Turn::text("It is 6.").for_model("bad"));
    }
    let llm = rt
        .block_on(ScriptedLlm::start("127.0.0.1:0", turns))
        .unwrap();
    let p = Project::new(&[("demo", &["--name", "demo"])]);
    p.suite("evals", EVALS);
    let home = p.dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("settings.json"),
        json!({"agent": {"providers": [{"id": "scripted", "kind": "open_ai_compatible", "base_url": llm.url("openai")}]}}).to_string(),
    )
    .unwrap();
    // Paid model turns run only when asked, as in the window (Run all
    // leaves them to Run evals): a plain run counts them, asks no model.
    let plain = p.test(&[], &[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    assert!(
        stdout(&plain).contains("1 prompt case not run"),
        "{}",
        stdout(&plain)
    );
    assert_eq!(llm.remaining(), 10, "no model was asked");
    // A pattern without `*` picks the names holding it; one picking no
    // prompt case asks no model either.
    let picked = p.test(&["--evals", "--case", "ADD"], &[]);
    assert_eq!(
        summary(&picked),
        "1 passed, 0 failed",
        "{}",
        stdout(&picked)
    );
    assert_eq!(llm.remaining(), 10, "no model was asked");
    let junit = p.dir.path().join("junit.xml");
    let junit_arg = junit.display().to_string();
    let out = p.test(&["--evals", "--junit", &junit_arg, "--parallel", "2"], &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    // The matrix: a row a case, a column a model.
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("case"))
        .expect(&text);
    assert!(
        header.contains("scripted:good") && header.contains("scripted:bad"),
        "{header}"
    );
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("sums by asking") && l.contains('/'))
        .expect(&text);
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells, ["sums by asking", "✓ 2/2", "✗ 0/2"], "{text}");
    assert!(text.contains("run 1: calls[0] arguments /b equals: demo/add called with {\"a\":2,\"b\":4}: expected 3, got 4"), "{text}");
    assert!(text.contains("2.0 steps"), "{text}");
    assert!(
        stderr(&out).contains("[4/4]"),
        "progress as runs end: {}",
        stderr(&out)
    );
    // The tool case and the two cells count.
    assert_eq!(summary(&out), "2 passed, 1 failed", "{text}");
    let report =
        quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(&junit).unwrap())
            .expect("JUnit XML parses back");
    let names: Vec<(&str, bool)> = report
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter())
        .map(|c| {
            (
                c.name.as_str(),
                matches!(c.status, quick_junit::TestCaseStatus::Success { .. }),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("adds", true),
            ("sums by asking [scripted:good]", true),
            ("sums by asking [scripted:bad]", false)
        ]
    );

    // --model picks: the good model alone passes (its last run's turns).
    let out = p.test(
        &["--model", "scripted:good", "--runs", "1", "--case", "sums*"],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(summary(&out), "1 passed, 0 failed, 1 skipped");
    assert_eq!(llm.remaining(), 0);
    // A model nobody configured is said, not run (exit 4).
    let out = p.test(&["--model", "mistral:large", "--case", "sums*"], &[]);
    assert_eq!(out.status.code(), Some(4), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("no provider \"mistral\" is configured"),
        "{}",
        stdout(&out)
    );
}
