//! The agent's settings as the person changes them: the view (grants read
//! as they apply to the entries running now) and a change, whose grants
//! are claimed for the entry running under that name first — a project's
//! entry that shadows the user's does not inherit the user's grants.

use serde::Deserialize;
use workbench_agent::{Agent, AgentSettings, ToolPolicy};
use workbench_calls::{Calls, Grantee};
use workbench_core::ErrorInfo;

/// A change to the agent's settings (each `Some` replaces that setting).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AgentSettingsChange {
    pub default_provider: Option<String>,
    pub max_steps: Option<u32>,
    pub deferred_threshold: Option<u32>,
    pub session_max_idle_days: Option<u32>,
    /// One tool's policy (`server/tool`, and the policy).
    pub tool_policy: Option<(String, ToolPolicy)>,
    /// Mark a server trusted (its read-only tools run without asking) or not.
    pub trusted: Option<(String, bool)>,
    /// Let the model answer a server's sampling requests without asking, or not.
    pub auto_sampling: Option<(String, bool)>,
}

/// The settings as they apply to the entries running now (a grant given to
/// another entry of a name reads as not given).
pub fn settings(agent: &Agent, calls: &Calls) -> Result<AgentSettings, ErrorInfo> {
    Ok(applied(calls, agent.settings()?))
}

/// Change the settings; what they are after, as they apply.
pub fn change(
    agent: &Agent,
    calls: &Calls,
    change: AgentSettingsChange,
) -> Result<AgentSettings, ErrorInfo> {
    // A grant is for the entry running under that name now: another entry
    // of the name (a project's shadowing the user's) had its grants dropped.
    let granted = change
        .tool_policy
        .as_ref()
        .and_then(|(key, _)| calls.server_of_key(key))
        .into_iter()
        .chain(change.trusted.as_ref().map(|(s, _)| s.clone()))
        .chain(change.auto_sampling.as_ref().map(|(s, _)| s.clone()));
    for server in granted {
        calls.claim(&server)?;
    }
    let updated = agent.update_settings(move |s| apply(s, change))?;
    Ok(applied(calls, updated))
}

fn apply(s: &mut AgentSettings, change: AgentSettingsChange) {
    if let Some(p) = change.default_provider {
        s.default_provider = Some(p);
    }
    if let Some(n) = change.max_steps {
        s.max_steps = n.max(1);
    }
    if let Some(n) = change.deferred_threshold {
        s.deferred_threshold = n.max(1);
    }
    if let Some(n) = change.session_max_idle_days {
        s.session_max_idle_days = n;
    }
    if let Some((tool, policy)) = change.tool_policy {
        match policy {
            ToolPolicy::Ask => s.tool_policies.remove(&tool),
            other => s.tool_policies.insert(tool, other),
        };
    }
    if let Some((server, on)) = change.trusted {
        toggle(&mut s.trusted_servers, server, on);
    }
    if let Some((server, on)) = change.auto_sampling {
        toggle(&mut s.auto_sampling_servers, server, on);
    }
}

fn toggle(list: &mut Vec<String>, item: String, on: bool) {
    list.retain(|s| *s != item);
    if on {
        list.push(item);
    }
}

fn applied(calls: &Calls, settings: AgentSettings) -> AgentSettings {
    let running = |server: &str| {
        calls
            .workbench()
            .server(server)
            .ok()
            .map(|h| Grantee::of(&h))
    };
    settings.as_applied(running, |key| calls.server_of_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_replaces_only_what_it_names_and_ask_clears_a_policy() {
        let mut s = AgentSettings::default();
        let before_provider = s.default_provider.clone();
        apply(
            &mut s,
            AgentSettingsChange {
                max_steps: Some(0),
                tool_policy: Some(("demo/echo".into(), ToolPolicy::Allow)),
                trusted: Some(("demo".into(), true)),
                ..Default::default()
            },
        );
        assert_eq!(s.max_steps, 1, "a step limit is at least one");
        assert_eq!(s.tool_policies.get("demo/echo"), Some(&ToolPolicy::Allow));
        assert_eq!(s.trusted_servers, ["demo"]);
        assert_eq!(s.default_provider, before_provider);
        apply(
            &mut s,
            AgentSettingsChange {
                tool_policy: Some(("demo/echo".into(), ToolPolicy::Ask)),
                trusted: Some(("demo".into(), false)),
                ..Default::default()
            },
        );
        assert!(s.tool_policies.is_empty(), "Ask is no policy kept");
        assert!(s.trusted_servers.is_empty());
    }
}
