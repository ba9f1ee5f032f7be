//! `mcpwb chat` end to end: the real binary, the demo server over pipes,
//! the scripted LLM on loopback; settings, store and keychain in temp places.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use workbench_testkit::llm::{Fault, ScriptedLlm, Turn};

use super::{BIN, demo_config, stderr, stdout};

/// A runtime for the scripted LLM while the blocking test runs `mcpwb`.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn chat(home: &Path, cfg: &str, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["--trust", "--config", cfg])
        .args(args)
        .env("HOME", home)
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_LOCAL_LLM", "")
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-chat-test-{}", std::process::id()),
        )
        .env_remove("MCPWB_CONFIG")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn provider_flags(llm: &ScriptedLlm) -> Vec<String> {
    vec![
        "--provider".into(),
        "openai-compatible".into(),
        "--base-url".into(),
        llm.url("openai"),
        "--model".into(),
        "scripted".into(),
    ]
}

#[test]
fn one_turn_prints_the_answer_and_summarises_calls_and_the_session_continues() {
    let rt = runtime();
    let llm = rt
        .block_on(ScriptedLlm::start(
            "127.0.0.1:0",
            vec![
                Turn {
                    text: "Checking.".into(),
                    ..Turn::calls(&[("demo__echo", json!({"message": "ping"}))])
                },
                Turn::text("It said ping."),
                Turn::text("Still here.").when("It said ping."),
            ],
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cfg = demo_config(home.path(), &[]);
    let mut args: Vec<String> = vec![
        "chat".into(),
        "echo ping".into(),
        "--approve".into(),
        "all".into(),
        "--session".into(),
        "pinging".into(),
    ];
    args.extend(provider_flags(&llm));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chat(home.path(), &cfg, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Checking.\nIt said ping.\n");
    assert!(
        stderr(&out).contains("→ demo/echo {\"message\":\"ping\"}"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("← ok in"), "{}", stderr(&out));
    // Continue the same session by its title: the model sees what came before.
    let mut again: Vec<String> = vec![
        "chat".into(),
        "are you there?".into(),
        "--session".into(),
        "pinging".into(),
    ];
    again.extend(provider_flags(&llm));
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    let out = chat(home.path(), &cfg, &again);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Still here.\n");
    let last = llm.chats().pop().unwrap().body.to_string();
    assert!(
        last.contains("echo ping") && last.contains("are you there?"),
        "{last}"
    );
}

#[test]
fn json_prints_one_event_per_line() {
    let rt = runtime();
    let llm = rt
        .block_on(ScriptedLlm::start(
            "127.0.0.1:0",
            vec![
                Turn::calls(&[("demo__add", json!({"a": 1, "b": 2}))]),
                Turn::text("3"),
            ],
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cfg = demo_config(home.path(), &[]);
    let mut args: Vec<String> = vec![
        "--json".into(),
        "chat".into(),
        "add".into(),
        "--approve".into(),
        "all".into(),
    ];
    args.extend(provider_flags(&llm));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chat(home.path(), &cfg, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for want in [
        "session",
        "message",
        "tool_call_delta",
        "tool_started",
        "tool_finished",
        "text_delta",
        "usage",
        "end",
    ] {
        assert!(types.contains(&want), "{want} missing from {types:?}");
    }
    assert_eq!(events.last().unwrap()["reason"], "done");
}

#[test]
fn without_a_terminal_calls_are_refused_unless_approved_and_the_model_is_told() {
    let rt = runtime();
    let llm = rt
        .block_on(ScriptedLlm::start(
            "127.0.0.1:0",
            vec![
                Turn::calls(&[("demo__echo", json!({"message": "x"}))]),
                Turn::text("I could not."),
            ],
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cfg = demo_config(home.path(), &[]);
    let mut args: Vec<String> = vec!["chat".into(), "echo x".into()];
    args.extend(provider_flags(&llm));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chat(home.path(), &cfg, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "I could not.\n");
    let second = llm.chats()[1].body.to_string();
    assert!(second.contains("needs approval"), "{second}");
}

#[test]
fn provider_failures_exit_7_with_their_message() {
    let rt = runtime();
    let llm = rt
        .block_on(ScriptedLlm::start(
            "127.0.0.1:0",
            vec![Turn::fault(Fault::Unauthorized)],
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cfg = demo_config(home.path(), &[]);
    let mut args: Vec<String> = vec!["chat".into(), "hi".into()];
    args.extend(provider_flags(&llm));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chat(home.path(), &cfg, &args);
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("refused the request (HTTP 401)"),
        "{}",
        stderr(&out)
    );
    // No provider at all: say how to get one.
    let out = chat(home.path(), &cfg, &["chat", "hi"]);
    assert_eq!(out.status.code(), Some(7));
    assert!(
        stderr(&out).contains("no LLM provider is configured"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("OPENAI_API_KEY"), "{}", stderr(&out));
}

#[test]
fn sampling_auto_lets_the_model_answer_a_servers_request() {
    let rt = runtime();
    let llm = rt
        .block_on(ScriptedLlm::start(
            "127.0.0.1:0",
            vec![Turn::text("forty-two")],
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cfg = demo_config(home.path(), &[]);
    std::fs::write(
        home.path().join("settings.json"),
        json!({"agent": {"providers": [{"id": "local", "kind": "open_ai_compatible", "base_url": llm.url("openai"), "default_model": "scripted"}]}}).to_string(),
    )
    .unwrap();
    let args = [
        "call",
        "demo",
        "ask_llm",
        "--args",
        r#"{"question":"the answer?"}"#,
    ];
    let out = chat(
        home.path(),
        &cfg,
        &["--sampling", "auto"]
            .iter()
            .chain(args.iter())
            .copied()
            .collect::<Vec<_>>(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "The model (scripted) said: forty-two\n");
    // Refused by default.
    let out = chat(home.path(), &cfg, &args);
    assert!(!out.status.success());
    assert_eq!(llm.chats().len(), 1);
}
