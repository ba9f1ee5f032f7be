//! A tool called for someone else: the coding agent, through the
//! workbench's own tools (`mcpwb serve --workbench`). One sequence, its
//! checks in order: the server ready (never one the person has not
//! trusted), the tool within the reach the person serves (`--only`,
//! `--tools`), the tool listed now, then the person's rules under the
//! serving mode. Every refusal is kept in the History; an approved call is
//! made through the one call path with the consent the decision carries.

use serde_json::Value;
use workbench_bridge::policy::{self, Policy};
use workbench_bridge::reach::Reach;
use workbench_calls::{Call, Calls, Consent, Link};
use workbench_core::CallOptions;
use workbench_core::connect::ServerState;

pub use workbench_calls::{Origin, Ran};

/// Why a call was not made.
#[derive(Debug)]
pub enum NotCalled {
    /// No server has that name.
    Unknown(String),
    /// The person has not trusted the server.
    Untrusted,
    /// The server is not ready (its state, as the window names it).
    NotReady(String),
    /// The server lists no such tool now.
    NoTool,
    /// Out of the reach the person serves, or refused by the person's
    /// rules: why (kept in the History).
    Refused(String),
}

/// A call the person's rules let run, with the arguments to run it with.
pub struct Approved {
    server: String,
    tool: String,
    arguments: Value,
    definition: Value,
    consent: Consent,
    origin: Origin,
}

/// Check and decide `server`'s `tool` with `arguments`, called by `caller`
/// (as the History keeps it: `origin`).
#[allow(clippy::too_many_arguments)]
pub async fn decide(
    calls: &Calls,
    policy: &Policy,
    reach: &Reach,
    origin: Origin,
    caller: &str,
    server: &str,
    tool: &str,
    arguments: Value,
) -> Result<Approved, NotCalled> {
    let wb = calls.workbench();
    let status = wb
        .server(server)
        .map_err(|e| NotCalled::Unknown(e.to_string()))?
        .status();
    match status.state {
        ServerState::Ready => {}
        ServerState::Untrusted => return Err(NotCalled::Untrusted),
        other => {
            let state = serde_json::to_value(&other).unwrap_or_default();
            return Err(NotCalled::NotReady(
                state["state"].as_str().unwrap_or("?").to_string(),
            ));
        }
    }
    let listed = wb
        .catalog()
        .tools()
        .into_iter()
        .find(|t| t.server == server && t.tool["name"] == tool);
    let qualified = listed
        .as_ref()
        .map(|t| t.qualified.clone())
        .unwrap_or_else(|| format!("{server}__{tool}"));
    if let Some(why) = reach.refusal(server, &qualified, tool) {
        calls.refused(origin, server, tool, &arguments, Link::default(), &why);
        return Err(NotCalled::Refused(why));
    }
    let definition = listed.map(|t| t.tool).ok_or(NotCalled::NoTool)?;
    let decided = policy
        .decide(
            calls,
            policy::Call {
                origin,
                link: Link::default(),
                caller,
                server,
                tool,
                qualified: &qualified,
                definition: &definition,
                arguments: &arguments,
            },
        )
        .await
        .map_err(|why| NotCalled::Refused(why.message))?;
    Ok(Approved {
        server: server.to_string(),
        tool: tool.to_string(),
        arguments: decided.arguments.unwrap_or(arguments),
        definition,
        consent: decided.consent,
        origin,
    })
}

impl Approved {
    /// Make the call through the one call path; `call_id` links its
    /// History row to the caller's handle on it.
    pub async fn run(self, calls: &Calls, call_id: String) -> Ran {
        calls
            .run(Call {
                consent: Some(self.consent),
                origin: self.origin,
                server: &self.server,
                tool: &self.tool,
                arguments: self.arguments,
                definition: Some(&self.definition),
                link: Link {
                    call_id,
                    ..Link::default()
                },
                options: CallOptions::default(),
            })
            .await
    }
}
