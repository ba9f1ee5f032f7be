//! Whether a call through the bridge runs: the same verdict as the agent's
//! (per-tool allow/ask/deny from the agent's settings, the entry's
//! `autoApprove`, trusted servers' read-only tools, a definition that changed
//! since it was allowed asked about again) under the bridge's own mode. A
//! call that would ask goes to the window when one is open (its approvals
//! queue, session `bridge`), else it is refused with the reason.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;
use workbench_agent::approvals::{
    self, Approval, Approvals, ApproveMode, Context, Decision, Verdict,
};
use workbench_agent::settings::AgentSettings;

/// The approvals session bridge calls wait in (the window's Bridge panel).
pub const SESSION: &str = "bridge";

#[derive(Clone)]
pub struct Policy {
    /// What happens to a call no standing rule decides.
    pub mode: ApproveMode,
    /// The agent's settings: per-tool policies, trusted servers, approved
    /// definitions (shared with the agent: the same approvals).
    pub settings: Arc<RwLock<AgentSettings>>,
    /// Where a person decides (the window); None: headless, refuse.
    pub approvals: Option<Approvals>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            mode: ApproveMode::All,
            settings: Arc::default(),
            approvals: None,
        }
    }
}

pub struct Call<'a> {
    pub caller: &'a str,
    pub server: &'a str,
    pub tool: &'a str,
    pub qualified: &'a str,
    pub definition: &'a Value,
    pub arguments: &'a Value,
    pub auto_approved: bool,
}

impl Policy {
    /// Ok(arguments to run with) or Err(why it is refused).
    pub async fn decide(&self, call: Call<'_>) -> Result<Option<Value>, String> {
        let verdict = {
            let settings = self.settings.read().unwrap_or_else(|e| e.into_inner());
            let none = BTreeMap::new();
            approvals::verdict(&Context {
                settings: &settings,
                server: call.server,
                tool: call.tool,
                definition: call.definition,
                auto_approved: call.auto_approved,
                chat_allowed: &none,
                mode: self.mode,
            })
        };
        let changed = match verdict {
            Verdict::Allow => return Ok(None),
            Verdict::Deny(why) => return Err(why),
            Verdict::Ask(changed) => changed,
        };
        let Some(approvals) = &self.approvals else {
            return Err(format!(
                "{}/{} needs approval and the bridge runs headless: allow it (the agent's tool policy, the entry's autoApprove) or start the bridge with --approve all",
                call.server, call.tool
            ));
        };
        let id = approvals.next_id();
        let waiting = approvals.request(Approval {
            id,
            session: SESSION.to_string(),
            batch: id,
            call_id: format!("{}:{id}", call.caller),
            server: call.server.to_string(),
            tool: call.tool.to_string(),
            qualified: call.qualified.to_string(),
            arguments: call.arguments.clone(),
            definition: call.definition.clone(),
            changed,
        });
        match waiting.await {
            Ok(Decision {
                approve: true,
                arguments,
                ..
            }) => Ok(arguments),
            Ok(Decision { reason, .. }) => Err(format!(
                "refused in the window{}",
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            )),
            Err(_) => Err("the approval was dropped (the window closed the bridge)".into()),
        }
    }
}
