//! workbench-agent: chat with an LLM that uses every connected server's
//! tools and asks before it acts. A client of workbench-core's public
//! `Workbench` API, like the window and the CLI (both are thin faces over
//! this crate): providers through genai, the loop, approvals, the tools the
//! model sees, sessions in the shared SQLite store, and sampling answered by
//! the model. Knows no window.
#![forbid(unsafe_code)]

pub mod adapt;
pub mod attach;
/// The approval gate lives in the one call path; its types are the chat's too.
pub use workbench_calls::gate as approvals;
mod calls;
pub mod error;
pub mod eval;
pub mod events;
pub mod export;
pub mod parts;
pub mod preferences;
pub mod providers;
pub mod retry;
pub mod sampling;
pub mod search;
mod sessions;
pub mod settings;
pub mod skills;
pub mod stream;
pub mod toolset;
mod turn;
pub use turn::{ChatTool, ChatTools, TurnHandle};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use workbench_calls::Calls;
use workbench_core::Workbench;
use workbench_core::config::secrets::Keychain;
use workbench_core::settings::SettingsFile;
use workbench_store::Store;

pub use approvals::{Approval, ApproveMode, Decision, Remember};
pub use error::{Error, Result};
pub use events::{AgentEvent, ContextMeter, EndReason};
pub use parts::Part;
pub use sessions::{ChatView, Message, NewChat, SessionChange};
pub use settings::{AgentSettings, ProviderConfig, ProviderKind, ToolPolicy};
pub use toolset::SessionOptions;

/// Where a turn's events go (the window's channel, the terminal).
pub type Sink = Arc<dyn Fn(AgentEvent) + Send + Sync>;

/// The files an "always" approval is written to.
#[derive(Debug, Clone, Default)]
pub struct ConfigPaths {
    /// The user's mcp.json.
    pub user: PathBuf,
    /// The project's `.mcp.json`, when a project is open.
    pub project: Option<PathBuf>,
}

/// What the agent is built from.
pub struct AgentOptions {
    /// The one call path (the gate, the history); its approvals queue is
    /// where the chat's calls wait.
    pub calls: Calls,
    pub settings: SettingsFile,
    pub store: Store,
    pub config: ConfigPaths,
    pub keychain: Keychain,
}

struct Inner {
    workbench: Workbench,
    store: Store,
    settings: SettingsFile,
    keychain: Keychain,
    config: ConfigPaths,
    client: genai::Client,
    calls: Calls,
    /// The turn running in each session, by session id.
    running: Mutex<HashMap<String, CancellationToken>>,
    /// The chats that are eval runs, and what their turns do differently.
    evals: Mutex<HashMap<String, Arc<eval::EvalTurn>>>,
    /// Providers given for this run only (`mcpwb chat --provider ...`),
    /// over those of the settings file; never written to it.
    transient: Mutex<Vec<ProviderConfig>>,
}

/// The one handle on the agent. Cheap to clone.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

impl Agent {
    pub fn new(workbench: Workbench, options: AgentOptions) -> Result<Agent> {
        // genai builds its HTTP client itself: the process's TLS first.
        workbench_http::ready();
        let client = genai::Client::new()
            .map_err(|e| Error::Invalid(format!("the LLM client could not be set up: {e}")))?;
        Ok(Agent {
            inner: Arc::new(Inner {
                workbench,
                store: options.store,
                settings: options.settings,
                keychain: options.keychain,
                config: options.config,
                client,
                calls: options.calls,
                running: Mutex::default(),
                evals: Mutex::default(),
                transient: Mutex::default(),
            }),
        })
    }

    pub fn workbench(&self) -> &Workbench {
        &self.inner.workbench
    }

    /// The calls waiting for a person's decision (the chat's, and the
    /// bridge's under session `bridge`).
    pub fn approvals(&self) -> &approvals::Approvals {
        self.inner.calls.approvals()
    }

    /// The one call path the chat's calls go through.
    pub fn calls(&self) -> &Calls {
        &self.inner.calls
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The settings file's section, with this run's transient providers.
    pub fn settings(&self) -> Result<AgentSettings> {
        let mut settings = AgentSettings::load(&self.inner.settings)?;
        let transient = self
            .inner
            .transient
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for p in transient {
            settings.providers.retain(|q| q.id != p.id);
            settings.default_provider = Some(p.id.clone());
            settings.providers.insert(0, p);
        }
        Ok(settings)
    }

    /// Use `provider` for this run only (and as the default): it shadows a
    /// configured provider of the same id and is never saved.
    pub fn use_provider(&self, provider: ProviderConfig) {
        let mut transient = self
            .inner
            .transient
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        transient.retain(|p| p.id != provider.id);
        transient.push(provider);
    }

    /// Change the agent's settings (written atomically); returns them.
    pub fn update_settings(
        &self,
        change: impl FnOnce(&mut AgentSettings),
    ) -> Result<AgentSettings> {
        AgentSettings::update(&self.inner.settings, change)
    }

    pub fn settings_path(&self) -> &std::path::Path {
        self.inner.settings.path()
    }

    /// Decide a call waiting for approval.
    pub fn decide(&self, approval: u64, decision: Decision) -> Result<()> {
        self.approvals()
            .decide(approval, decision)
            .map_err(|e| Error::NotFound(e.message))
    }

    /// The calls of a session waiting for a decision.
    pub fn pending_approvals(&self, session: &str) -> Vec<Approval> {
        self.approvals().pending(session)
    }

    /// Stop the session's turn: the stream is dropped, waiting approvals are
    /// refused and calls under way are cancelled (servers are told).
    /// False if nothing was running.
    pub fn stop(&self, session: &str) -> bool {
        let token = self
            .inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned();
        match token {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether a turn is running in the session.
    pub fn is_running(&self, session: &str) -> bool {
        self.inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(session)
    }
}
