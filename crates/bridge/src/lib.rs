//! The bridge: every Ready server's tools, resources, templates and prompts
//! served as one MCP server — over stdio (`mcpwb serve`) or Streamable HTTP
//! on 127.0.0.1 with a bearer token (the app's bridge, `mcpwb serve --http`)
//! — over the same `Workbench` that supervises the servers. Calls route to
//! the owning server with progress and cancellation passed through; the
//! entry's include/exclude filters, `--only`/`--tools` and the approval
//! policy apply; `list_changed` goes out when the catalog changes; a server's
//! question during a call goes to the client that made the call.
//!
//! - `names`: reversible names (`server__tool`, `mcpwb://server/uri`).
//! - `service`: the MCP handler, sending upstream JSON as it came.
//! - `policy`: allow / ask (the window) / refuse, through the one call path.
//! - `callers`: connected clients, for the panel, notifications and asks.
//! - `http`: the loopback listener (token, Host and Origin checks).
//! - `attach`: `mcpwb serve --attach`, stdio relayed to a running bridge.
//! - `settings`: on/off and port (settings file), the install's token (keychain).
#![forbid(unsafe_code)]

pub mod attach;
pub mod callers;
pub mod http;
mod logs;
pub mod names;
pub mod own;
mod passing;
pub mod policy;
pub mod raw;
pub mod reach;
mod relay;
mod resources;
mod rows;
pub mod service;
pub mod settings;
mod skills;
mod slot;
mod tool_call;
mod upstream;
mod watchers;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use workbench_calls::Calls;
use workbench_core::catalog::QualifiedTool;
use workbench_core::connect::ServerState;
use workbench_core::connect::lines::Lines;
use workbench_core::status::FailureCode;
use workbench_core::{ErrorInfo, Workbench};

pub use callers::{CallerInfo, Callers};
pub use policy::Policy;

/// What the bridge serves and how calls are decided.
#[derive(Clone, Default)]
pub struct BridgeOptions {
    /// Only these servers (empty: all).
    pub only: Vec<String>,
    /// Only tools whose qualified (`server__tool`) or own name matches one
    /// of these `*` patterns (empty: all).
    pub tools: Vec<String>,
    pub policy: Policy,
    /// Nobody sits at a window: a server's question no caller can take is
    /// refused at once (else it waits for the window).
    pub headless: bool,
    /// Serving one server: keep its own names and URIs (no `server__`
    /// prefix, no `mcpwb://`). With more than one server it has no effect.
    pub bare: bool,
    /// Tools (and skills) of the bridge's own, served beside the servers'.
    pub own: Option<Arc<dyn own::OwnTools>>,
    /// Serve only those: none of the servers' tools, resources, prompts or skills.
    pub own_only: bool,
}

impl BridgeOptions {
    /// What a caller may reach (`only` and `tools`): the tools of the
    /// bridge's own that call servers' tools are bound by the same.
    pub fn reach(&self) -> reach::Reach {
        reach::Reach {
            only: self.only.clone(),
            tools: self.tools.clone(),
        }
    }
}

struct Shared {
    wb: Workbench,
    /// The one call path: the gate, the call, the history.
    calls: Calls,
    options: BridgeOptions,
    callers: Callers,
    stop: CancellationToken,
    /// The tools served, built once per change of the catalog or of a
    /// server's state (a call looks its tool up here, not in a fresh list).
    served: std::sync::RwLock<Option<Arc<Served>>>,
    /// Tasks handed to callers as their servers made them.
    tasks: passing::Tasks,
    /// What the bridge says of itself, built once: over HTTP each request
    /// of a 2026-07-28 caller asks for it.
    info: std::sync::OnceLock<rmcp::model::ServerConfig>,
}

struct Served {
    /// Shared, not copied, by every call that looks one up.
    tools: Vec<Arc<QualifiedTool>>,
    by_name: std::collections::HashMap<String, usize>,
    /// In bare mode with one server served: that server.
    bare: Option<String>,
}

/// Shared by every session; the watchers stop when the last clone drops.
#[derive(Clone)]
pub struct Bridge {
    shared: Arc<Shared>,
    _guard: Arc<tokio_util::sync::DropGuard>,
}

impl Bridge {
    /// The bridge as a watcher task sees it: the shared state without a
    /// stop guard of its own (the watchers end when the last real clone
    /// drops).
    fn watcher(shared: Arc<Shared>) -> Bridge {
        Bridge {
            shared,
            _guard: Arc::new(CancellationToken::new().drop_guard()),
        }
    }

    /// A bridge over the workbench `calls` goes through (call inside a
    /// Tokio runtime: it starts the list_changed and asks watchers).
    pub fn new(calls: Calls, options: BridgeOptions) -> Bridge {
        let stop = CancellationToken::new();
        let shared = Arc::new(Shared {
            wb: calls.workbench().clone(),
            calls,
            options,
            callers: Callers::default(),
            stop: stop.clone(),
            served: std::sync::RwLock::default(),
            tasks: passing::Tasks::default(),
            info: std::sync::OnceLock::new(),
        });
        tokio::spawn(watchers::watch_catalog(shared.clone()));
        tokio::spawn(watchers::watch_asks(shared.clone()));
        tokio::spawn(watchers::watch_notes(shared.clone()));
        Bridge {
            shared,
            _guard: Arc::new(stop.drop_guard()),
        }
    }

    pub fn wb(&self) -> &Workbench {
        &self.shared.wb
    }

    pub fn calls(&self) -> &Calls {
        &self.shared.calls
    }

    pub(crate) fn tasks(&self) -> &passing::Tasks {
        &self.shared.tasks
    }

    pub fn callers(&self) -> &Callers {
        &self.shared.callers
    }

    pub fn policy(&self) -> &Policy {
        &self.shared.options.policy
    }

    /// The handler for one session over `transport` (`http`).
    pub fn handler(&self, transport: &'static str) -> service::Handler {
        static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        service::Handler {
            bridge: self.clone(),
            transport,
            session: SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            relay: None,
        }
    }

    /// The handler for one stdio session, answering with upstream JSON as
    /// it came.
    pub fn raw(&self) -> raw::Raw {
        raw::Raw(self.handler("stdio"))
    }

    /// Serve one client over stdin/stdout until it leaves.
    pub async fn serve_stdio(&self) -> Result<(), ErrorInfo> {
        let failed = |m: String| ErrorInfo::new(workbench_core::ErrorCode::Transport, m);
        use rmcp::ServiceExt;
        // `mcpwb serve` (a runtime of its own) waits for the next message
        // awake while messages pass.
        workbench_awake::keep_runtime_awake();
        let running = match pipes() {
            // Pipes (how clients launch servers): read and written in the
            // runtime itself. Tokio's stdin/stdout go through its blocking
            // thread pool, a thread handoff per message either way.
            Some((read, write)) => {
                // A caller's message is held whole to be read: bounded (rmcp's own
                // reader dropped lines over 16 MiB; arguments may carry files).
                let transport =
                    Lines::new(read, write, raw::DirectCalls).with_max_line(MAX_CALLER_LINE);
                Box::pin(self.raw().serve(transport)).await
            }
            None => Box::pin(self.raw().serve(rmcp::transport::stdio())).await,
        }
        .map_err(|e| failed(format!("the client's handshake failed: {e}")))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| failed(format!("the session ended badly: {e}")))
    }

    /// Headless (`mcpwb serve`), the client's roots (its project folders)
    /// become every server's roots, now and whenever the client says they
    /// changed. The window keeps its own roots per server.
    #[allow(deprecated)] // roots (SEP-2577), still what 2025-11-25 clients send
    pub(crate) fn adopt_roots(&self, peer: rmcp::Peer<rmcp::RoleServer>) {
        let takes = peer
            .peer_info()
            .is_some_and(|i| i.capabilities.roots.is_some());
        if !self.shared.options.headless || !takes {
            return;
        }
        let wb = self.shared.wb.clone();
        tokio::spawn(async move {
            let Ok(listed) = peer.list_roots().await else {
                return;
            };
            let roots: Vec<serde_json::Value> = listed
                .roots
                .iter()
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect();
            for status in wb.statuses() {
                let _ = wb.set_roots(&status.name, roots.clone()).await;
            }
        });
    }

    /// The bridge's own tools, if it has any.
    pub fn own(&self) -> Option<&Arc<dyn own::OwnTools>> {
        self.shared.options.own.as_ref()
    }

    /// The servers served now, named by `--only` if given: the Ready ones,
    /// and those starting or restarting whose lists the catalog keeps — a
    /// restart does not take a server's tools away from the callers (no
    /// list change told, and a call made meanwhile waits for it: never a
    /// lost call for "unknown tool").
    pub fn serving(&self) -> Vec<String> {
        if self.shared.options.own_only {
            return Vec::new();
        }
        let reach = self.shared.options.reach();
        let catalog = self.shared.wb.catalog();
        self.shared
            .wb
            .statuses()
            .into_iter()
            .filter(|s| match &s.state {
                ServerState::Ready => true,
                ServerState::Starting { .. } | ServerState::Restarting { .. } => {
                    catalog.server(&s.name).is_some()
                }
                // Said just before its restart is planned (one that waits
                // for a sign-in, or is not restarted by itself, is gone).
                ServerState::Failed { code, .. } => {
                    !matches!(code, FailureCode::SignIn | FailureCode::Scope)
                        && catalog.server(&s.name).is_some()
                        && self
                            .shared
                            .wb
                            .server(&s.name)
                            .is_ok_and(|h| h.options().auto_restart)
                }
                _ => false,
            })
            .filter(|s| reach.server(&s.name))
            .map(|s| s.name)
            .collect()
    }

    /// Wait (at most `within`) until every Ready server's lists are in the
    /// catalog, so a client's first tools/list sees them all.
    pub async fn settled(&self, within: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + within;
        let mut events = self.shared.wb.subscribe();
        loop {
            let ready: Vec<String> = self
                .shared
                .wb
                .statuses()
                .into_iter()
                .filter(|s| matches!(s.state, ServerState::Ready))
                .map(|s| s.name)
                .collect();
            let listed = self
                .serving()
                .iter()
                .filter(|s| ready.contains(s))
                .all(|s| self.shared.wb.catalog().server(s).is_some_and(|c| !c.stale));
            if listed || tokio::time::Instant::now() >= deadline {
                return;
            }
            let tick =
                (tokio::time::Instant::now() + std::time::Duration::from_millis(100)).min(deadline);
            let _ = tokio::time::timeout_at(tick, events.recv()).await;
        }
    }

    fn served(&self) -> Arc<Served> {
        if let Some(s) = self
            .shared
            .served
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return s;
        }
        let serving = self.serving();
        let reach = self.shared.options.reach();
        let tools: Vec<QualifiedTool> = self
            .shared
            .wb
            .catalog()
            .tools()
            .into_iter()
            .filter(|t| serving.contains(&t.server))
            .filter(|t| reach.named(&t.qualified, t.tool["name"].as_str().unwrap_or_default()))
            .collect();
        let bare = (self.shared.options.bare && serving.len() == 1).then(|| serving[0].clone());
        let mut tools = tools;
        if bare.is_some() {
            for t in &mut tools {
                t.qualified = t.tool["name"].as_str().unwrap_or_default().to_string();
            }
        }
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.qualified.clone(), i))
            .collect();
        let served = Arc::new(Served {
            tools: tools.into_iter().map(Arc::new).collect(),
            by_name,
            bare,
        });
        *self
            .shared
            .served
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(served.clone());
        served
    }

    /// Forget the tools served (the catalog or a server's state changed).
    fn invalidate(&self) {
        *self
            .shared
            .served
            .write()
            .unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The one server served under its own names, in bare mode.
    pub fn bare_server(&self) -> Option<String> {
        self.served().bare.clone()
    }

    /// The URI a caller sees for `server`'s `uri`.
    pub fn uri_out(&self, server: &str, uri: &str) -> String {
        match self.bare_server() {
            Some(_) => uri.to_string(),
            None => names::resource_uri(server, uri),
        }
    }

    /// The server and its own URI for a caller's URI.
    pub fn uri_in(&self, uri: &str) -> Option<(String, String)> {
        match self.bare_server() {
            Some(server) => Some((server, uri.to_string())),
            None => names::route_resource(uri).filter(|(s, _)| self.serving().contains(s)),
        }
    }

    /// The tools served now, with their qualified names.
    pub fn tools(&self) -> Vec<Arc<QualifiedTool>> {
        self.served().tools.clone()
    }

    /// The tool listed under `qualified` (none for a name not listed).
    pub fn listed(&self, qualified: &str) -> Option<Arc<QualifiedTool>> {
        let served = self.served();
        served
            .by_name
            .get(qualified)
            .map(|&i| served.tools[i].clone())
    }

    /// What the bridge says of itself (built on first use).
    pub(crate) fn info(
        &self,
        build: impl FnOnce() -> rmcp::model::ServerConfig,
    ) -> rmcp::model::ServerConfig {
        self.shared.info.get_or_init(build).clone()
    }

    /// The tool served under `qualified` (in bare mode a name not listed
    /// yet goes to the one server, which answers for it — if `--tools`
    /// lets that name through: a pattern is never bypassed).
    pub fn tool(&self, qualified: &str) -> Option<Arc<QualifiedTool>> {
        let served = self.served();
        let let_through = self.shared.options.reach().named(qualified, qualified);
        served
            .by_name
            .get(qualified)
            .map(|&i| served.tools[i].clone())
            .or_else(|| {
                served.bare.clone().filter(|_| let_through).map(|server| {
                    Arc::new(QualifiedTool {
                        qualified: qualified.to_string(),
                        server,
                        tool: serde_json::json!({ "name": qualified }),
                    })
                })
            })
    }

    /// What is served, in short: a change to it is told to the callers.
    fn fingerprint(&self) -> String {
        let mut out = String::new();
        for t in self.tools() {
            out.push_str(&t.qualified);
            out.push_str(&t.tool.to_string());
        }
        for s in self.serving() {
            if let Some(c) = self.shared.wb.catalog().server(&s) {
                out.push_str(
                    &serde_json::to_string(&(&c.resources, &c.resource_templates, &c.prompts))
                        .unwrap_or_default(),
                );
            }
        }
        out
    }
}

pub(crate) use workbench_core::workbench::log_rank;

/// A server's log message as the bridge passes it on (its logger under the
/// server's name).
#[allow(deprecated)] // server logging (SEP-2577), still used by 2025-11-25 callers
pub(crate) fn log_note(
    server: String,
    level: String,
    logger: Option<String>,
    data: String,
) -> Option<rmcp::model::LoggingMessageNotificationParam> {
    serde_json::from_value(serde_json::json!({
        "level": level,
        "logger": logger.map(|l| format!("{server}/{l}")).unwrap_or(server),
        "data": serde_json::from_str::<serde_json::Value>(&data).unwrap_or(serde_json::Value::String(data)),
    }))
    .ok()
}

/// The longest message a stdio caller may send (64 MiB).
const MAX_CALLER_LINE: usize = 64 << 20;

/// Stdin and stdout as non-blocking pipes, when they are pipes.
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let rx = tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(input)).ok()?;
    let tx = tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(output)).ok()?;
    Some((rx, tx))
}
