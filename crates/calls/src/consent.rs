//! That a call may run. Two kinds of caller, one rule each:
//!
//! - The callers a person answers for — the chat, the bridge, an App, a
//!   coding agent — need a [`Consent`]: made only in this crate, when the
//!   standing rules allow the call ([`crate::Calls::verdict_for`]) or a
//!   person said yes through the approvals queue. [`crate::Calls::run`]
//!   demands one from them, and without one runs only what a standing rule
//!   allows: a new surface that forgets to ask is refused, never let
//!   through.
//! - The calls nobody is asked about — a suite's case, an eval's model, a
//!   load run, the doctor's probe — follow [`unattended`]: a tool runs
//!   under a rule the person set, or when it is harmless by its marks
//!   (read-only, not destructive, not open-world; one that claims both
//!   read-only and destructive is destructive) and those marks come from a
//!   server the person vouches for.

use serde_json::Value;

use crate::Origin;

/// Where a person sets the rule a call nobody is asked about needs.
const RULE: &str = "(Allow under \"Not by hand\" in the tool's panel or in Settings' tool policy, or the entry's autoApprove)";

/// A call's consent: the standing rules or a person allowed this tool of
/// this server. Its fields are private: only this crate makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consent {
    server: String,
    tool: String,
}

impl Consent {
    pub(crate) fn to(server: &str, tool: &str) -> Consent {
        Consent {
            server: server.to_string(),
            tool: tool.to_string(),
        }
    }

    /// Whether it was given for `server`'s `tool`.
    pub fn covers(&self, server: &str, tool: &str) -> bool {
        self.server == server && self.tool == tool
    }
}

/// What a tool's annotations say of it, read once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks {
    /// Marked `readOnlyHint: true` and not also `destructiveHint: true`
    /// (a tool that claims both is taken as destructive).
    pub read_only: bool,
    /// Marked `destructiveHint: true`.
    pub destructive: bool,
    /// Marked `openWorldHint: true` (it reaches outside: the web, other
    /// people's systems).
    pub open_world: bool,
}

impl Marks {
    pub fn of(definition: &Value) -> Marks {
        let hint = |name: &str| {
            definition
                .pointer(&format!("/annotations/{name}"))
                .and_then(Value::as_bool)
        };
        let destructive = hint("destructiveHint") == Some(true);
        Marks {
            read_only: hint("readOnlyHint") == Some(true) && !destructive,
            destructive,
            open_world: hint("openWorldHint") == Some(true),
        }
    }

    /// Read-only, not destructive, not open-world: what runs with nobody
    /// asked when the marks come from a server the person vouches for.
    pub fn harmless(&self) -> bool {
        self.read_only && !self.destructive && !self.open_world
    }
}

/// Why a call nobody is asked about does not run, or None when it may.
/// `key` names the tool (`server/tool`); `rule`: a rule the person set
/// allows it (Settings' Allow, the entry's `autoApprove`, "always" this
/// run); `vouched`: its marks come from the person's own file or a server
/// they marked trusted. Other origins are not this rule's (None).
pub fn unattended(
    origin: Origin,
    key: &str,
    marks: Marks,
    rule: bool,
    vouched: bool,
) -> Option<String> {
    let taken = marks.harmless() && vouched;
    match origin {
        // The person trusted the suite, whose review names every tool it
        // calls: its cases run, but what says it destroys needs a rule.
        Origin::Suite => (marks.destructive && !rule).then(|| {
            format!(
                "{key} is marked destructive: a suite runs it only under a rule you set {RULE}"
            )
        }),
        Origin::Load => (!rule && !taken).then(|| {
            format!(
                "{key} {}: a load run calls it thousands of times only under a rule you set {RULE}",
                unless(marks, vouched)
            )
        }),
        Origin::Eval => (!rule && !taken).then(|| {
            format!(
                "{key} {}: an eval runs it only under a rule you set {RULE}, or give its result in the case's \"results\"",
                unless(marks, vouched)
            )
        }),
        Origin::Doctor => {
            if !marks.read_only {
                Some(format!(
                    "{key} is not marked read-only: the probe calls only read-only tools"
                ))
            } else if marks.destructive || marks.open_world {
                Some(format!(
                    "{key} is marked destructive or open-world: the probe never calls it"
                ))
            } else if !vouched {
                Some(format!(
                    "{key} says it is read-only, but a project's server is not taken at its word: the probe calls the read-only tools of your own file's servers and of servers marked trusted in Settings"
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Why a tool is not taken as harmless, in a few words.
fn unless(marks: Marks, vouched: bool) -> &'static str {
    if marks.destructive {
        "is marked destructive"
    } else if !marks.read_only {
        "may change or delete things (it is not marked read-only)"
    } else if marks.open_world {
        "reaches outside (it is marked open-world)"
    } else if !vouched {
        "says it is read-only, but a project's server is not taken at its word"
    } else {
        "is not harmless"
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn marks(annotations: Value) -> Marks {
        Marks::of(&json!({ "annotations": annotations }))
    }

    #[test]
    fn a_tool_that_claims_read_only_and_destructive_is_destructive() {
        let m = marks(json!({ "readOnlyHint": true, "destructiveHint": true }));
        assert!(m.destructive && !m.read_only && !m.harmless());
        for origin in [Origin::Eval, Origin::Load, Origin::Doctor, Origin::Suite] {
            assert!(
                unattended(origin, "mine/wipe", m, false, true).is_some(),
                "{origin:?} ran a tool that says it deletes"
            );
        }
    }

    #[test]
    fn nobody_asked_runs_only_harmless_vouched_tools_or_what_a_rule_allows() {
        let harmless = marks(json!({ "readOnlyHint": true }));
        let changes = marks(json!({ "destructiveHint": false }));
        let open = marks(json!({ "readOnlyHint": true, "openWorldHint": true }));
        let bare = marks(json!({}));
        for origin in [Origin::Eval, Origin::Load] {
            assert_eq!(unattended(origin, "k", harmless, false, true), None);
            // A project's read-only mark is not taken at its word.
            assert!(unattended(origin, "k", harmless, false, false).is_some());
            for m in [changes, open, bare] {
                assert!(unattended(origin, "k", m, false, true).is_some(), "{m:?}");
                assert_eq!(unattended(origin, "k", m, true, true), None, "a rule");
            }
        }
        // A trusted suite's cases: only what says it destroys needs a rule.
        assert_eq!(unattended(Origin::Suite, "k", bare, false, false), None);
        assert!(
            unattended(
                Origin::Suite,
                "k",
                marks(json!({"destructiveHint": true})),
                false,
                true
            )
            .is_some()
        );
        // The probe: never more than harmless and vouched, whatever the rules.
        assert!(unattended(Origin::Doctor, "k", open, true, true).is_some());
        assert_eq!(unattended(Origin::Doctor, "k", harmless, false, true), None);
        // The others are not this rule's.
        assert_eq!(unattended(Origin::Window, "k", bare, false, false), None);
    }
}
