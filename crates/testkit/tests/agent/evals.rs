//! Evals against the demo server: the scripted LLM plays models that call
//! the right tool, the wrong one, a wrong argument, a forbidden tool, and
//! one that is right three runs in five — in OpenAI's and Anthropic's wire
//! formats. Each run is a real turn through the one call path (origin
//! `eval`), judged by the case's assertions.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use workbench_agent::eval::{EvalOptions, EvalProgress, compare};
use workbench_calls::suite::{self, CaseOutcome};
use workbench_store::HistoryQuery;
use workbench_testkit::llm::Turn;

use crate::{Setup, bench, provider};

fn right(model: &str) -> Vec<Turn> {
    vec![
        Turn::calls(&[("demo__add", json!({"a": 2, "b": 3}))]).for_model(model),
        Turn::text("2 + 3 = 5").for_model(model),
    ]
}

fn wrong_tool(model: &str) -> Vec<Turn> {
    vec![
        Turn::calls(&[("demo__echo", json!({"message": "2 + 3"}))]).for_model(model),
        Turn::text("It is 5").for_model(model),
    ]
}

fn wrong_argument(model: &str) -> Vec<Turn> {
    vec![
        Turn::calls(&[("demo__add", json!({"a": 2, "b": 4}))]).for_model(model),
        Turn::text("2 + 4 = 6").for_model(model),
    ]
}

/// Calls the tool the case forbids (it may change things: refused), then
/// the right one.
fn forbidden(model: &str) -> Vec<Turn> {
    vec![
        Turn::calls(&[
            ("demo__increment_counter", json!({})),
            ("demo__add", json!({"a": 2, "b": 3})),
        ])
        .for_model(model),
        Turn::text("5").for_model(model),
    ]
}

const SUITE: &str = r#"{
  "server": "demo",
  "models": ["openai:m-right", "openai:m-wrong", "openai:m-flaky", "anthropic:claude-right"],
  "cases": [
    { "name": "adds", "prompt": "What is 2 + 3? Use the tools.",
      "expect": {
        "calls": [{ "tool": "demo/add", "arguments": { "/a": { "equals": 2 }, "/b": { "equals": 3 } } }],
        "notCalled": ["demo/increment_counter"],
        "answer": { "contains": "5" },
        "maxSteps": 3 },
      "runs": 5, "passRate": 0.6 },
    { "name": "orders without side effects", "prompt": "Order two widgets.",
      "models": ["openai:m-right"],
      "results": { "demo/create_order": "order 42 placed" },
      "expect": { "calls": [{ "tool": "create_order" }], "answer": { "contains": "42" } } }
  ]
}"#;

fn load(dir: &Path) -> suite::Suite {
    let path = dir.join("arith.json");
    std::fs::write(&path, SUITE).unwrap();
    let (mut suites, broken) = suite::load(&[path]);
    assert!(broken.is_empty(), "{broken:?}");
    suites.remove(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn models_are_judged_by_the_cases_assertions_with_their_pass_rates() {
    let mut turns = Vec::new();
    for _ in 0..5 {
        turns.extend(right("m-right"));
        turns.extend(right("claude-right"));
    }
    // After its five runs of "adds", m-right orders: the case's result
    // stands in for the tool.
    turns.push(
        Turn::calls(&[(
            "demo__create_order",
            json!({"item": "widget", "quantity": 2}),
        )])
        .for_model("m-right"),
    );
    turns.push(Turn::text("Done: order 42 placed.").for_model("m-right"));
    for planted in [
        wrong_tool,
        wrong_argument,
        forbidden,
        wrong_tool,
        wrong_argument,
    ] {
        turns.extend(planted("m-wrong"));
    }
    // Three runs in five right.
    for play in [right, wrong_tool, right, right, wrong_argument] {
        turns.extend(play("m-flaky"));
    }
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    b.agent
        .save_provider(provider("anthropic", &b.llm), false)
        .unwrap();
    b.agent
        .set_provider_key("anthropic", "sk-scripted")
        .unwrap();
    let suite = load(b.dir.path());

    let seen: Arc<Mutex<Vec<EvalProgress>>> = Arc::default();
    let progress = {
        let seen = seen.clone();
        Arc::new(move |p| seen.lock().unwrap().push(p))
    };
    let report = b
        .agent
        .run_evals(&suite, &EvalOptions::default(), progress)
        .await
        .unwrap();
    assert_eq!(b.llm.remaining(), 0, "every scripted turn was asked for");

    let cell = |m: &str, c: &str| report.cell(m, c).unwrap_or_else(|| panic!("{m} × {c}"));
    let right_cell = cell("openai:m-right", "adds");
    assert_eq!(
        (right_cell.outcome, right_cell.tally().as_str()),
        (CaseOutcome::Passed, "5/5")
    );
    assert_eq!(right_cell.mean_steps, 2.0);
    assert!(right_cell.input_tokens + right_cell.output_tokens >= 0);
    let claude = cell("anthropic:claude-right", "adds");
    assert_eq!(
        (claude.outcome, claude.tally().as_str()),
        (CaseOutcome::Passed, "5/5")
    );
    let flaky = cell("openai:m-flaky", "adds");
    assert_eq!(flaky.tally(), "3/5");
    assert!((flaky.pass_rate - 0.6).abs() < 1e-9);
    assert_eq!(
        flaky.outcome,
        CaseOutcome::Passed,
        "3/5 meets a passRate of 0.6"
    );

    let wrong = cell("openai:m-wrong", "adds");
    assert_eq!(
        (wrong.outcome, wrong.tally().as_str()),
        (CaseOutcome::Failed, "0/5")
    );
    let named: Vec<Vec<&str>> = wrong
        .runs
        .iter()
        .map(|r| r.failures.iter().map(|f| f.assertion.as_str()).collect())
        .collect();
    assert_eq!(
        named[0],
        ["calls[0]"],
        "the wrong tool: {:?}",
        wrong.runs[0].failures
    );
    assert!(
        wrong.runs[0].failures[0]
            .message
            .contains("demo/add was not called (the model called demo/echo)")
    );
    // A wrong argument (and the answer that follows from it).
    assert_eq!(
        named[1],
        ["calls[0] arguments /b equals", "answer.contains"]
    );
    assert!(
        wrong.runs[1].failures[0]
            .message
            .contains("expected 3, got 4")
    );
    assert_eq!(
        named[2],
        ["notCalled[0]"],
        "the forbidden tool: {:?}",
        wrong.runs[2].failures
    );

    // The forbidden tool may change things (no annotations): the eval
    // refused it; the right one ran, each kept in History as the eval's.
    let store = b.agent.store();
    let mut rows = Vec::new();
    for _ in 0..100 {
        rows = store
            .history(&HistoryQuery {
                origin: Some("eval".into()),
                ..Default::default()
            })
            .unwrap();
        if rows.iter().any(|r| r.tool == "increment_counter") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let counter = rows
        .iter()
        .find(|r| r.tool == "increment_counter")
        .expect("the refusal is kept");
    assert_eq!(counter.status, workbench_store::CallStatus::Denied);
    assert!(
        counter
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("may change or delete things"),
        "{counter:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.tool == "add" && r.status == workbench_store::CallStatus::Ok)
    );
    // The case's results stood in: create_order never ran, the model read the given text.
    let ordered = cell("openai:m-right", "orders without side effects");
    assert_eq!(
        ordered.outcome,
        CaseOutcome::Passed,
        "{:?}",
        ordered.runs[0].failures
    );
    assert!(!rows.iter().any(|r| r.tool == "create_order"));
    let asked: Vec<String> = b.llm.chats().iter().map(|r| r.body.to_string()).collect();
    assert!(asked.iter().any(|t| t.contains("order 42 placed")));
    // Only the case's models ran it.
    assert!(
        report
            .cell("openai:m-wrong", "orders without side effects")
            .is_none()
    );

    // Each run's transcript is a chat, hidden from the chat list.
    let transcript = b.agent.chat(&wrong.runs[0].session).unwrap();
    assert!(transcript.messages.len() >= 4);
    assert!(
        b.agent
            .chats(None)
            .unwrap()
            .iter()
            .all(|c| !c.title.contains("arith"))
    );

    // Progress counted every run; the totals; the run was kept.
    let p = seen.lock().unwrap().clone();
    assert!(
        matches!(p.first(), Some(EvalProgress::Started { total: 21 })),
        "{p:?}"
    );
    assert_eq!(
        p.iter()
            .filter(|e| matches!(e, EvalProgress::RunDone { .. }))
            .count(),
        21
    );
    assert_eq!((report.passed, report.failed), (4, 1));
    let kept = b.agent.eval_runs(&report.path).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].id, report.id);
    assert_eq!(kept[0].cells.len(), report.cells.len());

    // JUnit: one testcase a model × case, the failed one says its rate.
    let junit = workbench_calls::suite::junit::xml(&workbench_calls::suite::Report {
        suites: vec![report.as_suite_result()],
        passed: report.passed,
        failed: report.failed,
        skipped: 0,
        not_ready: 0,
        duration_ms: report.duration_ms,
    });
    let parsed = quick_junit::Report::deserialize_from_str(&junit).expect("JUnit parses back");
    let cases = &parsed.test_suites[0].test_cases;
    assert_eq!(cases.len(), 5);
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| matches!(c.status, quick_junit::TestCaseStatus::NonSuccess { .. }))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(failed, ["adds [openai:m-wrong]"]);

    // Compared with itself, nothing moved.
    for change in compare(&kept[0], &report) {
        assert_eq!(change.before, change.after, "{change:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_nobody_configured_and_a_server_that_is_not_there_are_said() {
    let b = bench(Setup::default()).await;
    let dir = b.dir.path();
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        r#"{"server": "demo", "models": ["mistral:large", "openai:x"], "cases": [
            {"name": "a", "prompt": "hi"},
            {"name": "b", "prompt": "hi", "servers": ["ghost"]},
            {"name": "c", "prompt": "hi", "skip": "not yet"}]}"#,
    )
    .unwrap();
    let (suites, _) = suite::load(&[path]);
    let report = b
        .agent
        .run_evals(&suites[0], &EvalOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    let a = report.cell("mistral:large", "a").unwrap();
    assert_eq!(a.outcome, CaseOutcome::NotReady);
    assert!(
        a.note
            .as_deref()
            .unwrap()
            .contains("no provider \"mistral\" is configured"),
        "{a:?}"
    );
    let ghost = report.cell("openai:x", "b").unwrap();
    assert_eq!(ghost.outcome, CaseOutcome::NotReady);
    assert!(
        ghost
            .note
            .as_deref()
            .unwrap()
            .contains("no server \"ghost\"")
    );
    assert_eq!(
        report.cell("openai:x", "c").unwrap().outcome,
        CaseOutcome::Skipped
    );
    // Nothing was asked of any model: "a" for openai:x asked the LLM, which
    // had no turn (a failed turn is a failed run, named).
    let run = &report.cell("openai:x", "a").unwrap().runs[0];
    assert_eq!(run.failures[0].assertion, "turn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_tool_never_reaches_an_eval_and_a_turn_becomes_a_case() {
    let b = bench(Setup {
        turns: right("m"),
        ..Default::default()
    })
    .await;
    b.agent
        .update_settings(|s| {
            s.tool_policies
                .insert("demo/add".into(), workbench_agent::ToolPolicy::Deny);
        })
        .unwrap();
    let path = b.dir.path().join("d.json");
    std::fs::write(
        &path,
        r#"{"server": "demo", "models": ["openai:m"], "cases": [
            {"name": "adds", "prompt": "2 + 3?", "expect": {"calls": [{"tool": "add"}]}}]}"#,
    )
    .unwrap();
    let (suites, _) = suite::load(&[path]);
    let report = b
        .agent
        .run_evals(&suites[0], &EvalOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    let run = &report.cell("openai:m", "adds").unwrap().runs[0];
    // A denied tool is not offered to the model; called by name anyway, it
    // does not run, and the judge says what the model called.
    assert!(!run.passed);
    assert_eq!(
        run.failures[0].message,
        "add was not called (the model called demo__add)"
    );
    let transcript = b.agent.chat(&run.session).unwrap();
    let refused = transcript
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .find_map(|p| match p {
            workbench_agent::Part::ToolResult {
                status, content, ..
            } => Some((*status, content.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(refused.0, workbench_store::CallStatus::Failed);
    assert!(
        refused.1.contains("There is no tool named \"demo__add\""),
        "{}",
        refused.1
    );
    let asked = b.llm.chats();
    let offered = asked[0].body["tools"].to_string();
    assert!(
        !offered.contains("demo__add") && offered.contains("demo__echo"),
        "{offered}"
    );

    // The turn as a case: its prompt, the call, the steps, the chat's model.
    let turn = b.agent.turn_case(&run.session, 1).unwrap();
    assert_eq!(turn.prompt, "2 + 3?");
    assert_eq!(turn.servers, ["demo"]);
    assert_eq!(turn.calls[0].tool, "demo__add");
    assert_eq!(turn.calls[0].arguments, json!({"a": 2, "b": 3}));
    assert_eq!(turn.steps, 2);
    assert_eq!(turn.model, "openai:m");
    assert!(
        b.agent.turn_case(&run.session, 2).is_err(),
        "seq 2 is not the person's"
    );
}

/// The review's play: an eval's model (nobody watching, no rule set) calls
/// `wipe` ("Deletes every record", marked both read-only and destructive),
/// `post_message` (`destructiveHint: false`), `fetch` (read-only and
/// open-world) and `delete_repo` (no marks). None of them runs: the server
/// hears no tools/call; a harmless read-only tool of the person's own
/// server does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eval_runs_only_harmless_tools_without_a_rule() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.py");
    let log = dir.path().join("calls.log");
    std::fs::write(
        &server,
        format!(
            r#"
import json, sys
tools = [
  {{"name": "wipe", "description": "Deletes every record", "inputSchema": {{"type": "object"}}, "annotations": {{"readOnlyHint": True, "destructiveHint": True}}}},
  {{"name": "post_message", "inputSchema": {{"type": "object"}}, "annotations": {{"destructiveHint": False}}}},
  {{"name": "fetch", "inputSchema": {{"type": "object"}}, "annotations": {{"readOnlyHint": True, "openWorldHint": True}}}},
  {{"name": "delete_repo", "inputSchema": {{"type": "object"}}}},
  {{"name": "list_things", "inputSchema": {{"type": "object"}}, "annotations": {{"readOnlyHint": True, "openWorldHint": False}}}},
]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        r = {{"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {{"tools": {{}}}}, "serverInfo": {{"name": "mine", "version": "1"}}}}
    elif m == "tools/list":
        r = {{"tools": tools}}
    elif m == "tools/call":
        open({log:?}, "a").write(msg["params"]["name"] + "\n")
        r = {{"content": [{{"type": "text", "text": "ok " + msg["params"]["name"]}}]}}
    else:
        print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "error": {{"code": -32601, "message": "no"}}}}), flush=True)
        continue
    print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": r}}), flush=True)
"#,
            log = log.display().to_string()
        ),
    )
    .unwrap();
    let b = bench(Setup {
        servers: vec![(
            "mine".into(),
            json!({ "command": "python3", "args": [server], "protocolVersion": "2025-11-25" }),
        )],
        turns: vec![
            Turn::calls(&[
                ("mine__wipe", json!({})),
                ("mine__post_message", json!({})),
                ("mine__fetch", json!({})),
                ("mine__delete_repo", json!({})),
                ("mine__list_things", json!({})),
            ])
            .for_model("m"),
            Turn::text("tidied").for_model("m"),
        ],
        ..Default::default()
    })
    .await;
    let path = b.dir.path().join("tidy.json");
    std::fs::write(
        &path,
        r#"{"server": "mine", "models": ["openai:m"], "cases": [{"name": "cleanup", "prompt": "tidy up", "expect": {"answer": {"contains": "tidied"}}}]}"#,
    )
    .unwrap();
    let (suites, broken) = suite::load(&[path]);
    assert!(broken.is_empty(), "{broken:?}");
    b.agent
        .run_evals(&suites[0], &EvalOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    let heard = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        heard, "list_things\n",
        "the server was called for: {heard:?}"
    );
    // The History is written off the call's path: wait for the rows.
    let mut rows = Vec::new();
    for _ in 0..100 {
        rows = b
            .agent
            .store()
            .history(&HistoryQuery {
                origin: Some("eval".into()),
                ..Default::default()
            })
            .unwrap();
        if rows.len() >= 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for tool in ["wipe", "post_message", "fetch", "delete_repo"] {
        let row = rows
            .iter()
            .find(|r| r.tool == tool)
            .unwrap_or_else(|| panic!("{tool}: {rows:?}"));
        assert_eq!(
            row.status,
            workbench_store::CallStatus::Denied,
            "{tool}: {row:?}"
        );
    }
}
