//! The agent against real MCP servers (the demo server over real pipes) and
//! the scripted LLM over real loopback HTTP in each provider's wire format.
//! The LLM is the one scripted part: nothing else is stood in for.

mod attachments;
mod evals;
mod formats;
mod sampling;
mod sessions;
mod skills;
mod tools;
mod turns;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use workbench_agent::{
    Agent, AgentEvent, AgentOptions, ApproveMode, ConfigPaths, Decision, EndReason, ProviderConfig,
    ProviderKind, Sink,
};
use workbench_core::config::ConfigFile;
use workbench_core::config::secrets::{Backend, Keychain};
use workbench_core::connect::{ServerState, SupervisorOptions};
use workbench_core::settings::SettingsFile;
use workbench_core::{Workbench, WorkbenchOptions};
use workbench_store::Store;
use workbench_testkit::llm::{ScriptedLlm, Turn};

pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");

/// A stdio demo server entry.
pub fn demo(name: &str, args: &[&str]) -> (String, Value) {
    let mut all = vec!["--name", name];
    all.extend_from_slice(args);
    (name.to_string(), json!({ "command": BIN, "args": all }))
}

/// A throwaway keychain namespace (the kernel keyring; the user's is never touched).
fn keychain() -> Keychain {
    static N: AtomicU32 = AtomicU32::new(0);
    let ns = format!(
        "mcpwb-agent-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    Keychain::new(&ns, Backend::KernelKeyring)
}

/// Everything a test drives: the servers, the agent, the scripted LLM, and
/// every event the turns sent.
pub struct Bench {
    pub wb: Workbench,
    pub agent: Agent,
    pub llm: ScriptedLlm,
    pub dir: tempfile::TempDir,
    pub events: Arc<Mutex<Vec<AgentEvent>>>,
    pub keychain: Keychain,
}

pub struct Setup<'a> {
    pub kind: &'a str,
    pub servers: Vec<(String, Value)>,
    pub turns: Vec<Turn>,
    pub interactive: bool,
    /// Text added to mcp.json before the servers (a comment, to check it survives).
    pub config_prefix: &'a str,
    /// Wait for every server and its catalog before the test goes on.
    pub settled: bool,
}

impl Default for Setup<'_> {
    fn default() -> Self {
        Setup {
            kind: "openai",
            servers: vec![demo("demo", &[])],
            turns: Vec::new(),
            interactive: false,
            config_prefix: "",
            settled: true,
        }
    }
}

pub fn provider(kind: &str, llm: &ScriptedLlm) -> ProviderConfig {
    let (k, model) = match kind {
        "anthropic" => (ProviderKind::Anthropic, "claude-scripted"),
        "gemini" => (ProviderKind::Gemini, "gemini-scripted"),
        // A model name as Ollama lists it (its context window from the
        // table): with an unknown one the window is assumed 8,192 and the
        // demo's ~2,100 tokens of tools would be deferred, which the format
        // tests are not about.
        "ollama" => (ProviderKind::Ollama, "llama3.1:8b"),
        "compatible" => (ProviderKind::OpenAiCompatible, "local-scripted"),
        _ => (ProviderKind::OpenAi, "gpt-4o-scripted"),
    };
    ProviderConfig {
        id: kind.to_string(),
        kind: k,
        base_url: Some(llm.url(kind)),
        api_key_env: None,
        default_model: Some(model.to_string()),
        context_windows: Default::default(),
    }
}

pub async fn bench(setup: Setup<'_>) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let map: serde_json::Map<String, Value> = setup.servers.iter().cloned().collect();
    let text = format!(
        "{}{}\n",
        setup.config_prefix,
        serde_json::to_string_pretty(&json!({ "mcpServers": map })).unwrap()
    );
    let config_path = dir.path().join("mcp.json");
    std::fs::write(&config_path, text).unwrap();
    let config = ConfigFile::load(&config_path).unwrap();
    let options = WorkbenchOptions {
        supervisor: SupervisorOptions {
            startup_timeout: Duration::from_secs(10),
            call_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_millis(300),
            ..SupervisorOptions::default()
        },
        traffic_capacity: Some(5_000),
        interactive: setup.interactive,
        offers: None,
        stagger: Duration::ZERO,
        trust: None,
    };
    let wb = Workbench::start(&config, options);
    if setup.settled {
        wb.settle(Duration::from_secs(20)).await;
        for s in wb.statuses() {
            assert_eq!(
                s.state,
                ServerState::Ready,
                "{} did not start: {:?}",
                s.name,
                s
            );
        }
        wait_for_catalog(&wb, setup.servers.len()).await;
    }
    let llm = ScriptedLlm::start("127.0.0.1:0", setup.turns)
        .await
        .unwrap();
    let keychain = keychain();
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
                user: config_path,
                project: None,
            },
            keychain: keychain.clone(),
        },
    )
    .unwrap();
    agent
        .save_provider(provider(setup.kind, &llm), true)
        .unwrap();
    if matches!(setup.kind, "openai" | "anthropic" | "gemini") {
        agent.set_provider_key(setup.kind, "sk-scripted").unwrap();
    }
    Bench {
        wb,
        agent,
        llm,
        dir,
        events: Arc::default(),
        keychain,
    }
}

/// Wait until every server's tools are in the catalog.
pub async fn wait_for_catalog(wb: &Workbench, servers: usize) {
    for _ in 0..200 {
        let with_tools: std::collections::HashSet<String> =
            wb.catalog().tools().into_iter().map(|t| t.server).collect();
        if with_tools.len() >= servers {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the catalog never filled");
}

impl Drop for Bench {
    fn drop(&mut self) {
        for kind in ["openai", "anthropic", "gemini"] {
            let _ = self
                .keychain
                .delete(&workbench_agent::providers::key_id(kind));
        }
    }
}

impl Bench {
    /// A sink that records every event.
    pub fn sink(&self) -> Sink {
        let events = self.events.clone();
        Arc::new(move |e| events.lock().unwrap().push(e))
    }

    /// A sink that records, and decides each approval with `decide`.
    pub fn deciding(
        &self,
        decide: impl Fn(&workbench_agent::Approval) -> Decision + Send + Sync + 'static,
    ) -> Sink {
        let events = self.events.clone();
        let agent = self.agent.clone();
        Arc::new(move |e| {
            if let AgentEvent::ApprovalNeeded { approval } = &e {
                let decision = decide(approval);
                let agent = agent.clone();
                let id = approval.id;
                // Decided from another task, as a person would, later.
                tokio::spawn(async move { agent.decide(id, decision) });
            }
            events.lock().unwrap().push(e);
        })
    }

    pub fn new_chat(&self) -> String {
        self.agent.create_chat(Default::default()).unwrap().id
    }

    /// Send `text` in a new chat and wait for the end.
    pub async fn turn(&self, text: &str, mode: ApproveMode, sink: Sink) -> (String, EndReason) {
        let chat = self.new_chat();
        let reason = self.turn_in(&chat, text, mode, sink).await;
        (chat, reason)
    }

    pub async fn turn_in(
        &self,
        chat: &str,
        text: &str,
        mode: ApproveMode,
        sink: Sink,
    ) -> EndReason {
        let handle = self.agent.send(chat, text, mode, sink).unwrap();
        tokio::time::timeout(Duration::from_secs(60), handle.finished())
            .await
            .expect("the turn never ended")
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().unwrap().clone()
    }

    /// The tool results the chat stored, as (name, status, content).
    pub fn results(&self, chat: &str) -> Vec<(String, String, String)> {
        self.agent
            .messages(chat)
            .unwrap()
            .into_iter()
            .flat_map(|m| m.parts)
            .filter_map(|p| match p {
                workbench_agent::Part::ToolResult {
                    name,
                    status,
                    content,
                    ..
                } => Some((
                    name,
                    serde_json::to_value(status)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_string(),
                    content,
                )),
                _ => None,
            })
            .collect()
    }

    /// The chat's final answer text.
    pub fn last_text(&self, chat: &str) -> String {
        self.agent
            .messages(chat)
            .unwrap()
            .into_iter()
            .rev()
            .flat_map(|m| m.parts)
            .find_map(|p| match p {
                workbench_agent::Part::Text { text } => Some(text),
                _ => None,
            })
            .unwrap_or_default()
    }
}
