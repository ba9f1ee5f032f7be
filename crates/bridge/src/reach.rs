//! What the person put within a bridge caller's reach: `--only` (servers)
//! and `--tools` (`*` patterns over a tool's name as served, or its own
//! name). One rule for the relay of the servers' tools and for the tools of
//! the bridge's own that call them for an agent (`workbench_call`, the
//! doctor's probe): a tool kept out of one is kept out of both.

use crate::names;

/// The servers and tools a caller of the bridge may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Only these servers (empty: all).
    pub only: Vec<String>,
    /// Only tools whose qualified or own name matches one of these
    /// patterns (empty: all).
    pub tools: Vec<String>,
}

impl Reach {
    /// Whether `server` is within reach.
    pub fn server(&self, server: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == server)
    }

    /// Whether a tool named `qualified` as served (its own name `own`) is
    /// let through by the patterns.
    pub fn named(&self, qualified: &str, own: &str) -> bool {
        self.tools.is_empty()
            || self
                .tools
                .iter()
                .any(|p| names::glob(p, qualified) || names::glob(p, own))
    }

    /// Why `server`'s tool `own` (served as `qualified`) is out of reach,
    /// or None when it is within.
    pub fn refusal(&self, server: &str, qualified: &str, own: &str) -> Option<String> {
        if !self.server(server) {
            return Some(format!(
                "{server} is not served here (the person serves only {})",
                self.only.join(", ")
            ));
        }
        (!self.named(qualified, own)).then(|| {
            format!(
                "{qualified} is not served here (the person serves only tools matching {})",
                self.tools.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Reach;

    #[test]
    fn a_tool_is_within_reach_only_where_the_server_and_a_pattern_let_it() {
        let open = Reach::default();
        assert!(open.refusal("a", "a__x", "x").is_none());
        let bounded = Reach {
            only: vec!["ro".into()],
            tools: vec!["ro__*".into()],
        };
        assert!(bounded.refusal("ro", "ro__list", "list").is_none());
        assert!(bounded.refusal("off", "off__drop", "drop").is_some());
        let by_tool = Reach {
            only: vec![],
            tools: vec!["rosrv__*".into()],
        };
        let why = by_tool.refusal("offsrv", "offsrv__drop_tables", "drop_tables");
        assert!(why.is_some_and(|w| w.contains("rosrv__*")));
    }
}
