//! The agent's own costs, with the LLM (the scripted server on loopback)
//! and the tools (the demo server over pipes) taken out. Prints figures next
//! to a baseline measured in the same process; asserts nothing.
//! `cargo xtask bench`.
//!
//! - Per tool round trip: from the end of the model's answer asking for a
//!   call to the arrival of the next request, minus the call's own time —
//!   against a bare genai client sending requests back to back to the same
//!   server (the HTTP floor every client stands on).
//! - A streamed token to the window's event: from the frame leaving the
//!   server to the sink (what the window's channel sends) receiving it —
//!   against the same frames read by a bare genai stream.
//! - Opening a chat of 2,000 messages (what `open_chat` does, serialised as
//!   the window receives it) — against reading the same rows from the store.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use workbench_agent::{
    Agent, AgentEvent, AgentOptions, ApproveMode, ConfigPaths, ProviderConfig, ProviderKind,
};
use workbench_core::Workbench;
use workbench_core::config::secrets::{Backend, Keychain};
use workbench_core::settings::SettingsFile;
use workbench_store::{NewSession, Store};
use workbench_testkit::llm::{ScriptedLlm, Turn};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");

#[path = "../support/one_demo.rs"]
mod one_demo;

const ROUND_TRIPS: usize = 40;
const TOKENS: usize = 200;
const MESSAGES: usize = 2_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn setup(turns: Vec<Turn>) -> (Workbench, Agent, ScriptedLlm, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (wb, path) = one_demo::one_demo(BIN, dir.path()).await;
    let llm = ScriptedLlm::start("127.0.0.1:0", turns).await.unwrap();
    let agent = Agent::new(
        wb.clone(),
        AgentOptions {
            calls: workbench_calls::Calls::new(
                wb.clone(),
                workbench_core::ToolCaller::for_tests(),
                workbench_calls::CallsOptions {
                    settings: SettingsFile::new(dir.path().join("settings.json")),
                    store: Some(Store::open_in(dir.path()).unwrap()),
                },
            ),
            settings: SettingsFile::new(dir.path().join("settings.json")),
            store: Store::open_in(dir.path()).unwrap(),
            config: ConfigPaths {
                user: path,
                project: None,
            },
            keychain: Keychain::new(
                &format!("mcpwb-bench-{}", std::process::id()),
                Backend::KernelKeyring,
            ),
        },
    )
    .unwrap();
    agent
        .save_provider(
            ProviderConfig {
                id: "scripted".into(),
                kind: ProviderKind::OpenAiCompatible,
                base_url: Some(llm.url("openai")),
                api_key_env: None,
                default_model: Some("scripted-model".into()),
                context_windows: Default::default(),
            },
            true,
        )
        .unwrap();
    (wb, agent, llm, dir)
}

/// Time between one answer's last frame and the next request's arrival.
fn gaps(llm: &ScriptedLlm) -> Vec<Duration> {
    let sent = llm.sent();
    let requests = llm.chats();
    (1..requests.len())
        .filter_map(|i| {
            let end = sent
                .iter()
                .filter(|s| s.turn == i && s.last)
                .map(|s| s.at)
                .next()?;
            Some(requests[i].arrived.saturating_duration_since(end))
        })
        .collect()
}

async fn round_trips() {
    let mut turns: Vec<Turn> = (0..ROUND_TRIPS)
        .map(|i| Turn::calls(&[("demo__echo", json!({ "message": format!("m{i}") }))]))
        .collect();
    turns.push(Turn::text("done"));
    let (wb, agent, llm, _dir) = setup(turns).await;
    agent
        .update_settings(|s| s.max_steps = ROUND_TRIPS as u32 + 5)
        .unwrap();
    let chat = agent.create_chat(Default::default()).unwrap().id;
    /// Each call: its id, when it started, when it finished.
    type Calls = Arc<Mutex<Vec<(String, Instant, Option<Instant>)>>>;
    let tool_time: Calls = Arc::default();
    let t = tool_time.clone();
    let sink: workbench_agent::Sink = Arc::new(move |e| match e {
        AgentEvent::ToolStarted { call_id, .. } => {
            t.lock().unwrap().push((call_id, Instant::now(), None))
        }
        AgentEvent::ToolFinished { call_id, .. } => {
            if let Some(c) = t.lock().unwrap().iter_mut().find(|c| c.0 == call_id) {
                c.2 = Some(Instant::now());
            }
        }
        _ => {}
    });
    let started = Instant::now();
    agent
        .send(&chat, "go", ApproveMode::All, sink)
        .unwrap()
        .finished()
        .await;
    let total = started.elapsed();
    let tools: Vec<Duration> = tool_time
        .lock()
        .unwrap()
        .iter()
        .map(|(_, a, b)| b.unwrap_or(*a) - *a)
        .collect();
    let own: Vec<f64> = gaps(&llm)
        .iter()
        .zip(&tools)
        .map(|(gap, tool)| ms(gap.saturating_sub(*tool)))
        .collect();

    // Baseline: a bare genai client asking the same server back to back.
    let bare = ScriptedLlm::start(
        "127.0.0.1:0",
        (0..ROUND_TRIPS + 1).map(|_| Turn::text("x")).collect(),
    )
    .await
    .unwrap();
    workbench_http::ready();
    let client = genai::Client::new().unwrap();
    let target = genai::ServiceTarget {
        endpoint: genai::resolver::Endpoint::from_owned(bare.url("openai")),
        auth: genai::resolver::AuthData::from_single("x"),
        model: genai::ModelIden::new(genai::adapter::AdapterKind::OpenAI, "scripted-model"),
    };
    for _ in 0..=ROUND_TRIPS {
        let request = genai::chat::ChatRequest::from_user("go");
        let mut stream = client
            .exec_chat_stream(genai::ModelSpec::Target(target.clone()), request, None)
            .await
            .unwrap()
            .stream;
        while stream.next().await.is_some() {}
    }
    let floor: Vec<f64> = gaps(&bare).into_iter().map(ms).collect();
    let tools_ms: f64 = tools.iter().map(|d| ms(*d)).sum();
    println!("agent: per tool round trip ({ROUND_TRIPS} in one turn, LLM and tool time excluded)");
    println!(
        "  agent's own time      median {:>7.2} ms   max {:>7.2} ms",
        median(own.clone()),
        own.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  bare genai, same HTTP median {:>7.2} ms   (the floor: answer end to next request)",
        median(floor.clone())
    );
    println!(
        "  agent minus floor     median {:>7.2} ms   (target: under 2 ms)",
        median(own) - median(floor)
    );
    println!(
        "  whole turn {:.0} ms, of which tools {:.0} ms",
        ms(total),
        tools_ms
    );
    wb.shutdown().await;
}

async fn token_latency() {
    let text: String = (0..TOKENS).map(|i| format!("t{i:04} ")).collect();
    let turn = Turn {
        delay_ms: 3,
        ..Turn::text(&text)
    };
    let (wb, agent, llm, _dir) = setup(vec![turn.clone()]).await;
    let chat = agent.create_chat(Default::default()).unwrap().id;
    let got: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let g = got.clone();
    let sink: workbench_agent::Sink = Arc::new(move |e| {
        if matches!(e, AgentEvent::TextDelta { .. }) {
            g.lock().unwrap().push(Instant::now());
        }
    });
    agent
        .send(&chat, "talk", ApproveMode::All, sink)
        .unwrap()
        .finished()
        .await;
    // Text frames are the second to the (n - 3)th of the stream (role, text..., finish, usage, done).
    let sent: Vec<Instant> = llm.sent().iter().map(|s| s.at).collect();
    let received = got.lock().unwrap().clone();
    let latency: Vec<f64> = received
        .iter()
        .zip(sent.iter().skip(1))
        .map(|(r, s)| ms(r.saturating_duration_since(*s)))
        .collect();

    // Baseline: the same frames read by a bare genai stream.
    let bare = ScriptedLlm::start("127.0.0.1:0", vec![turn]).await.unwrap();
    workbench_http::ready();
    let client = genai::Client::new().unwrap();
    let target = genai::ServiceTarget {
        endpoint: genai::resolver::Endpoint::from_owned(bare.url("openai")),
        auth: genai::resolver::AuthData::from_single("x"),
        model: genai::ModelIden::new(genai::adapter::AdapterKind::OpenAI, "scripted-model"),
    };
    let mut stream = client
        .exec_chat_stream(
            genai::ModelSpec::Target(target),
            genai::chat::ChatRequest::from_user("talk"),
            None,
        )
        .await
        .unwrap()
        .stream;
    let mut bare_times = Vec::new();
    while let Some(e) = stream.next().await {
        if matches!(e, Ok(genai::chat::ChatStreamEvent::Chunk(_))) {
            bare_times.push(Instant::now());
        }
    }
    let bare_sent: Vec<Instant> = bare.sent().iter().map(|s| s.at).collect();
    let floor: Vec<f64> = bare_times
        .iter()
        .zip(bare_sent.iter().skip(1))
        .map(|(r, s)| ms(r.saturating_duration_since(*s)))
        .collect();
    println!(
        "agent: a streamed token, from leaving the server to the window's event ({} tokens)",
        latency.len()
    );
    println!(
        "  agent                 median {:>7.2} ms   max {:>7.2} ms   (target: within 50 ms)",
        median(latency.clone()),
        latency.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  bare genai stream     median {:>7.2} ms   max {:>7.2} ms",
        median(floor.clone()),
        floor.iter().cloned().fold(0.0, f64::max)
    );
    wb.shutdown().await;
}

async fn open_long_chat() {
    let (wb, agent, _llm, _dir) = setup(Vec::new()).await;
    let store = agent.store().clone();
    let s = store
        .create_session(NewSession {
            title: "long".into(),
            provider: "scripted".into(),
            model: "scripted-model".into(),
            ..Default::default()
        })
        .unwrap();
    let result = json!({"content": [{"type": "text", "text": "x".repeat(800)}]});
    for i in 0..MESSAGES {
        let (role, parts): (&str, Value) = match i % 3 {
            0 => (
                "user",
                json!([{"type": "text", "text": format!("question {i} ").repeat(8)}]),
            ),
            1 => (
                "assistant",
                json!([
                    {"type": "text", "text": format!("answer {i} ").repeat(20)},
                    {"type": "tool_call", "call_id": format!("c{i}"), "name": "demo__echo", "server": "demo", "tool": "echo", "arguments": {"message": "hi"}}
                ]),
            ),
            _ => (
                "tool",
                json!([{"type": "tool_result", "call_id": format!("c{}", i - 1), "name": "demo__echo", "status": "ok", "content": "x".repeat(800), "result": result, "duration_ms": 2.0}]),
            ),
        };
        store.append_message(&s.id, role, &parts, "", None).unwrap();
    }
    let mut open = Vec::new();
    let mut rows = Vec::new();
    let mut bytes = 0;
    for _ in 0..7 {
        let t = Instant::now();
        let view = agent.chat(&s.id).unwrap();
        bytes = serde_json::to_string(&view).unwrap().len();
        open.push(ms(t.elapsed()));
        let t = Instant::now();
        let _ = store.messages(&s.id).unwrap();
        rows.push(ms(t.elapsed()));
    }
    println!(
        "agent: opening a chat of {MESSAGES} messages ({:.1} MB as the window receives it)",
        bytes as f64 / 1e6
    );
    println!(
        "  open_chat, serialised median {:>7.1} ms   (target: under 300 ms)",
        median(open)
    );
    println!("  the store's rows alone median {:>7.1} ms", median(rows));
    wb.shutdown().await;
}

#[tokio::main]
async fn main() {
    round_trips().await;
    token_latency().await;
    open_long_chat().await;
}
