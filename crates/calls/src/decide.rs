//! Deciding a call before it is made: what the standing rules say
//! ([`Calls::verdict`]), asking a person through the approvals queue while
//! a rule may still answer it ([`Calls::decide_with`]), "always" kept with
//! what the tool looked like, and what the rules refuse outright for callers
//! a person does not drive ([`Calls::standing_refusal`]).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::consent::{self, Consent, Marks};
use crate::gate::{self, Approval, ApproveMode, Decision, Remember, Verdict};
use crate::rules::{Grantee, Rules, ToolPolicy, tool_key};
use crate::{Asking, Call, Calls, Origin};

/// How often a call waiting for a person looks whether a rule now allows it.
const RULES_RECHECK: std::time::Duration = std::time::Duration::from_millis(500);

/// A call the rules or the person let run.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The arguments to run with, when the person edited them.
    pub arguments: Option<Value>,
    /// How long the person's allow holds (`Once` when a rule allowed it).
    pub remember: Remember,
    /// What the call carries to [`Calls::run`].
    pub consent: Consent,
}

/// A call that does not run.
#[derive(Debug, Clone, PartialEq)]
pub enum Undecided {
    /// The rules or the person refused it (why).
    Refused(String),
    /// Nobody decided: the ask was dropped (its App closed, its turn stopped).
    Dropped,
}

impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undecided::Refused(why) => f.write_str(why),
            Undecided::Dropped => {
                f.write_str("the approval was dropped (nobody is left to decide)")
            }
        }
    }
}

impl Calls {
    /// What the rules say about a call, with the consent the call carries
    /// to [`Calls::run`] when they allow it.
    pub fn verdict_for(&self, asking: &Asking<'_>) -> (Verdict, Option<Consent>) {
        let verdict = self.verdict(asking);
        let consent = (verdict == Verdict::Allow).then(|| Consent::to(asking.server, asking.tool));
        (verdict, consent)
    }

    /// What the rules say about a call.
    pub fn verdict(&self, asking: &Asking<'_>) -> Verdict {
        let rules = self.rules();
        let none = BTreeMap::new();
        let auto_approved = self.auto_approved(asking.server, asking.tool);
        let grantee = self.grantee(asking.server);
        let grants = rules.hold(&grantee);
        let verdict = gate::verdict(&gate::Context {
            rules: &rules,
            server: asking.server,
            tool: asking.tool,
            definition: asking.definition,
            auto_approved,
            chat_allowed: asking.chat_allowed.unwrap_or(&none),
            mode: asking.mode,
            grants,
            own_file: grantee.own_file,
        });
        if verdict == Verdict::Allow {
            self.first_use(&rules, asking, &grantee, auto_approved);
        }
        verdict
    }

    /// A standing approval used for the first time records what the tool
    /// looked like, so a later change is asked about.
    fn first_use(&self, rules: &Rules, asking: &Asking<'_>, g: &Grantee, by_entry: bool) {
        let key = tool_key(asking.server, asking.tool);
        let holds = rules.hold(g);
        let recorded = holds && rules.approved_definitions.contains_key(&key);
        let by_policy = holds && rules.policy(asking.server, asking.tool) == ToolPolicy::Allow;
        if (by_entry || by_policy) && !recorded {
            let covered = gate::covered(asking.definition);
            if let Err(e) = self.inner.rules.approve_definition(g, asking.tool, covered) {
                tracing::warn!("{key}: what it looked like when allowed could not be kept: {e}");
            }
        }
    }

    /// "Always" for the rest of this run, and what the tool looks like now
    /// kept so a change asks again. (Writing `autoApprove` to mcp.json is
    /// the caller's, who knows the files.)
    pub fn allow_always(&self, server: &str, tool: &str, definition: &Value) {
        let key = tool_key(server, tool);
        self.always().insert(key.clone());
        let g = self.grantee(server);
        if let Err(e) = self
            .inner
            .rules
            .approve_definition(&g, tool, gate::covered(definition))
        {
            tracing::warn!("{key}: what it looked like when allowed could not be kept: {e}");
        }
    }

    /// Decide a call by the rules, asking a person through the approvals
    /// queue (under `session`) when they say ask and one can answer.
    /// Ok(the decision: the consent, and the arguments when the person
    /// edited them) or Err(why: `refused`).
    pub async fn decide(
        &self,
        asking: &Asking<'_>,
        session: &str,
        caller: &str,
        qualified: &str,
        arguments: &Value,
        person: bool,
    ) -> Result<Decided, workbench_core::ErrorInfo> {
        self.decide_with(asking, session, caller, qualified, arguments, person)
            .await
            .map_err(|u| workbench_core::ErrorInfo::refused(u.to_string()))
    }

    /// [`Calls::decide`], saying how long the person's allow holds and
    /// whether nobody decided (the ask was dropped: its App closed, its
    /// turn stopped) rather than refused.
    pub async fn decide_with(
        &self,
        asking: &Asking<'_>,
        session: &str,
        caller: &str,
        qualified: &str,
        arguments: &Value,
        person: bool,
    ) -> Result<Decided, Undecided> {
        let changed = match self.verdict(asking) {
            Verdict::Allow => {
                return Ok(Decided {
                    arguments: None,
                    remember: Remember::Once,
                    consent: Consent::to(asking.server, asking.tool),
                });
            }
            Verdict::Deny(why) => return Err(Undecided::Refused(why)),
            Verdict::Ask(changed) => changed,
        };
        if !person {
            return Err(Undecided::Refused(format!(
                "{}/{} needs approval and nobody can be asked here: allow it (\"Not by hand\" in the tool's panel, Settings' tool policy, the entry's autoApprove) or run with --approve all",
                asking.server, asking.tool
            )));
        }
        let approvals = self.approvals();
        let id = approvals.next_id();
        let waiting = approvals.request(Approval {
            id,
            session: session.to_string(),
            batch: id,
            call_id: format!("{caller}:{id}"),
            server: asking.server.to_string(),
            tool: asking.tool.to_string(),
            qualified: qualified.to_string(),
            arguments: arguments.clone(),
            definition: asking.definition.clone(),
            changed,
        });
        // While it waits, a rule the person sets (Allow in Settings, "Always
        // allow" on another card) answers it: the card goes, the call runs.
        let mut waiting = waiting;
        let decided = loop {
            tokio::select! {
                d = &mut waiting => break d,
                _ = tokio::time::sleep(RULES_RECHECK) => {
                    if self.verdict(asking) == Verdict::Allow {
                        let _ = approvals.decide(id, Decision::approve());
                    }
                }
            }
        };
        match decided {
            Ok(Decision {
                approve: true,
                arguments,
                remember,
                ..
            }) => {
                if remember == Remember::Always {
                    self.allow_always(asking.server, asking.tool, asking.definition);
                }
                Ok(Decided {
                    arguments: arguments.filter(Value::is_object),
                    remember,
                    consent: Consent::to(asking.server, asking.tool),
                })
            }
            Ok(Decision { reason, .. }) => Err(Undecided::Refused(format!(
                "refused in the window{}",
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            ))),
            Err(_) => Err(Undecided::Dropped),
        }
    }

    /// Why the standing rules refuse `call` outright, whoever asked:
    /// - a person's own call in the window or `mcpwb call`: never (their act
    ///   is the approval);
    /// - the chat, the bridge, an App, a coding agent: a Deny, and anything
    ///   without a [`Consent`] for it unless a standing rule allows it (see
    ///   `consent.rs`: they pass the gate before, or are refused here);
    /// - a suite, an eval, a load run, the doctor's probe: a Deny, and the
    ///   one rule for calls nobody is asked about ([`consent::unattended`]).
    pub fn standing_refusal(&self, call: &Call<'_>) -> Option<String> {
        let key = tool_key(call.server, call.tool);
        let policy = self.rules().policy(call.server, call.tool);
        if call.origin.by_person() {
            return None;
        }
        if policy == ToolPolicy::Deny {
            return Some(format!("{key} is denied in Settings (its tool policy)"));
        }
        let looked_up;
        let definition = match call.definition {
            Some(d) => d,
            None => {
                looked_up = self
                    .workbench()
                    .catalog()
                    .tool(call.server, call.tool)
                    .unwrap_or(Value::Null);
                &looked_up
            }
        };
        let standing = || {
            self.verdict(&Asking {
                server: call.server,
                tool: call.tool,
                definition,
                mode: ApproveMode::None,
                chat_allowed: None,
            })
        };
        if call.origin.answered_for() {
            if call
                .consent
                .as_ref()
                .is_some_and(|c| c.covers(call.server, call.tool))
            {
                return None;
            }
            return match standing() {
                Verdict::Allow => None,
                Verdict::Deny(why) => Some(why),
                Verdict::Ask(_) => Some(format!(
                    "nobody agreed to {key}: it needs a person's approval or a rule you set, and this call came without either"
                )),
            };
        }
        let grantee = self.grantee(call.server);
        let rules = self.rules();
        let vouched = grantee.own_file
            || (rules.hold(&grantee) && rules.trusted_servers.iter().any(|s| s == call.server));
        let rule = || standing() == Verdict::Allow;
        let marks = Marks::of(definition);
        // The rule is asked only where it can change the answer.
        let needs_rule = match call.origin {
            Origin::Doctor => false,
            Origin::Suite => marks.destructive,
            _ => !(marks.harmless() && vouched),
        };
        consent::unattended(call.origin, &key, marks, needs_rule && rule(), vouched)
    }
}
