//! Whether a call through the bridge runs: the one call path's gate
//! (workbench-calls: per-tool allow/ask/deny read live from the settings
//! file, the entry's `autoApprove`, trusted servers' read-only tools, a
//! definition that changed since it was allowed asked about again) under the
//! bridge's own mode. A call that would ask goes to the window when one is
//! open (its approvals queue, session `bridge`), else it is refused with the
//! reason.

use serde_json::Value;
use workbench_calls::{ApproveMode, Asking, Calls, Decided, Link, Origin};

/// The approvals session bridge calls wait in (the window's Bridge panel).
pub const SESSION: &str = "bridge";

#[derive(Clone, Copy)]
pub struct Policy {
    /// What happens to a call no standing rule decides.
    pub mode: ApproveMode,
    /// A person can decide in the window; false: headless, refuse.
    pub ask: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            mode: ApproveMode::All,
            ask: false,
        }
    }
}

pub struct Call<'a> {
    /// Who asked, as the History keeps it (the bridge's caller, the agent).
    pub origin: Origin,
    /// The History row's link (the caller's call id).
    pub link: Link,
    pub caller: &'a str,
    pub server: &'a str,
    pub tool: &'a str,
    pub qualified: &'a str,
    pub definition: &'a Value,
    pub arguments: &'a Value,
}

impl Policy {
    /// Ok(the decision: its consent, and the arguments when edited in the
    /// window) or Err(why it is refused), the refusal kept in the History
    /// here: no surface that calls for someone else can leave it out.
    pub async fn decide(
        &self,
        calls: &Calls,
        call: Call<'_>,
    ) -> Result<Decided, workbench_core::ErrorInfo> {
        let asking = Asking {
            server: call.server,
            tool: call.tool,
            definition: call.definition,
            mode: self.mode,
            chat_allowed: None,
        };
        calls
            .decide(
                &asking,
                SESSION,
                call.caller,
                call.qualified,
                call.arguments,
                self.ask,
            )
            .await
            .map_err(|mut why| {
                if !self.ask {
                    why.message = why
                        .message
                        .replace("nobody can be asked here", "the bridge runs headless");
                }
                calls.refused(
                    call.origin,
                    call.server,
                    call.tool,
                    call.arguments,
                    call.link,
                    &why.message,
                );
                why
            })
    }
}
