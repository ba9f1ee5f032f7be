//! Whether a tool call runs: the policy (per tool ask/allow/deny, the
//! entry's `autoApprove`, "allow for this chat", trusted servers' read-only
//! tools, `--approve`), a tool whose definition changed since it was allowed
//! asked about again with the difference, and the calls waiting for a
//! person's decision. The agent, the bridge and Apps decide through this.
//!
//! Annotations are hints from the server, not trusted: `readOnlyHint` lets
//! a call through only for a server the person marked trusted (and, under
//! `--approve read-only`, for the servers of the person's own file — never
//! a project's). Standing grants kept under a server's name hold only for
//! the entry they were given to (its file, name and what it runs).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use workbench_core::{ErrorCode, ErrorInfo};

use crate::rules::{Rules, ToolPolicy, tool_key};

/// How calls that would ask are treated (the window always asks; `mcpwb
/// chat --approve` chooses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApproveMode {
    /// Ask the person.
    #[default]
    Ask,
    /// Run tools whose annotations say read-only; refuse the others.
    ReadOnly,
    /// Run everything.
    All,
    /// Refuse everything not allowed by a policy.
    None,
}

/// How long a decision holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This call only.
    #[default]
    Once,
    /// Every call of this tool in this chat.
    Chat,
    /// Always: written to the entry's `autoApprove` in mcp.json.
    Always,
}

/// The person's decision on one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub approve: bool,
    /// The arguments to run with instead of the model's (edited).
    #[serde(default)]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub remember: Remember,
    /// Why it was refused (told to the model).
    #[serde(default)]
    pub reason: Option<String>,
    /// Set by the approvals queue when the person approved: what the call
    /// carries to `Calls::run` (never sent, never taken from a window).
    #[serde(skip)]
    consent: Option<crate::Consent>,
}

impl Decision {
    pub fn approve() -> Decision {
        Decision {
            approve: true,
            arguments: None,
            remember: Remember::Once,
            reason: None,
            consent: None,
        }
    }

    /// Approved with the person's arguments and for how long.
    pub fn approve_with(arguments: Option<Value>, remember: Remember) -> Decision {
        Decision {
            arguments,
            remember,
            ..Decision::approve()
        }
    }

    /// What a person answered, as a window sends it: never with consent,
    /// which only the approvals queue adds.
    pub fn answered(
        approve: bool,
        arguments: Option<Value>,
        remember: Remember,
        reason: Option<String>,
    ) -> Decision {
        Decision {
            approve,
            arguments,
            remember,
            reason,
            consent: None,
        }
    }

    pub fn deny(reason: impl Into<String>) -> Decision {
        Decision {
            approve: false,
            arguments: None,
            remember: Remember::Once,
            reason: Some(reason.into()),
            consent: None,
        }
    }

    /// The consent the person gave, once the approvals queue passed the
    /// decision on (None: refused, or not through the queue).
    pub fn consent(&self) -> Option<&crate::Consent> {
        self.consent.as_ref()
    }
}

/// A line of a definition's difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    /// `" "`, `"+"` or `"-"`.
    pub op: String,
    pub text: String,
}

/// A call waiting for a decision, with everything the approval card shows.
#[derive(Debug, Clone, Serialize)]
pub struct Approval {
    pub id: u64,
    pub session: String,
    /// Calls asked for in the same step share a batch (approve together).
    pub batch: u64,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub qualified: String,
    pub arguments: Value,
    /// The tool's definition now (title, description, schemas, annotations).
    pub definition: Value,
    /// Set when the tool changed since it was allowed: what changed.
    pub changed: Option<Vec<DiffLine>>,
}

/// What the policy says about a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    Deny(String),
    /// Ask; with the difference when the tool changed since it was allowed.
    Ask(Option<Vec<DiffLine>>),
}

/// The part of a definition that an approval covers: a change to it asks again.
pub fn covered(definition: &Value) -> Value {
    json!({
        "description": definition.get("description").cloned().unwrap_or(Value::Null),
        "inputSchema": definition.get("inputSchema").cloned().unwrap_or(Value::Null),
        "outputSchema": definition.get("outputSchema").cloned().unwrap_or(Value::Null),
    })
}

/// Read-only, not destructive, not open-world (a tool that claims both
/// read-only and destructive is destructive): what runs unasked for a
/// server the person vouches for ([`crate::consent::Marks`]).
fn read_only(definition: &Value) -> bool {
    crate::consent::Marks::of(definition).harmless()
}

/// Everything the verdict depends on.
pub struct Context<'a> {
    pub rules: &'a Rules,
    pub server: &'a str,
    pub tool: &'a str,
    pub definition: &'a Value,
    /// The entry's `autoApprove` covers the tool (or an "always" this run).
    pub auto_approved: bool,
    /// What "allow for this chat" recorded for this session.
    pub chat_allowed: &'a BTreeMap<String, Value>,
    pub mode: ApproveMode,
    /// The grants kept under the server's name are this entry's
    /// ([`Rules::hold`]); otherwise only denies apply.
    pub grants: bool,
    /// The entry is in the person's own file (not a project's).
    pub own_file: bool,
}

/// Decide a call by policy. `Allow` from a standing approval with no
/// recorded definition means the caller should record it (first use).
pub fn verdict(cx: &Context<'_>) -> Verdict {
    let key = tool_key(cx.server, cx.tool);
    // What the definition is now, made only when there is one to compare.
    let same_as = |before: Option<&Value>| -> Verdict {
        let Some(b) = before else {
            return Verdict::Allow;
        };
        let now = covered(cx.definition);
        if *b != now {
            Verdict::Ask(Some(diff(b, &now)))
        } else {
            Verdict::Allow
        }
    };
    let recorded = cx
        .grants
        .then(|| cx.rules.approved_definitions.get(&key))
        .flatten();
    match cx.rules.policy(cx.server, cx.tool) {
        ToolPolicy::Deny => {
            return Verdict::Deny(format!("{key} is denied in Settings (its tool policy)"));
        }
        ToolPolicy::Allow if cx.grants => return same_as(recorded),
        ToolPolicy::Allow | ToolPolicy::Ask => {}
    }
    if cx.auto_approved {
        return same_as(recorded);
    }
    if let Some(before) = cx.chat_allowed.get(&key) {
        return same_as(Some(before));
    }
    let trusted = cx.grants && cx.rules.trusted_servers.iter().any(|s| s == cx.server);
    if trusted && read_only(cx.definition) {
        return Verdict::Allow;
    }
    match cx.mode {
        ApproveMode::Ask => Verdict::Ask(None),
        ApproveMode::All => Verdict::Allow,
        ApproveMode::ReadOnly if read_only(cx.definition) && cx.own_file => Verdict::Allow,
        ApproveMode::ReadOnly if read_only(cx.definition) => Verdict::Deny(format!(
            "{key} says it is read-only, but a project's server is not taken at its word (--approve read-only runs the read-only tools of your own file's servers and of servers marked trusted in Settings)"
        )),
        ApproveMode::ReadOnly => Verdict::Deny(format!(
            "{key} is not marked read-only and only read-only tools may run (--approve read-only)"
        )),
        ApproveMode::None => Verdict::Deny(format!(
            "{key} needs approval and none can be asked for (run with --approve, or allow it with autoApprove)"
        )),
    }
}

/// A line diff of two definitions (pretty JSON), longest common subsequence.
pub fn diff(before: &Value, after: &Value) -> Vec<DiffLine> {
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    diff_lines(&pretty(before), &pretty(after))
}

/// A line diff of two texts, longest common subsequence.
pub fn diff_lines(a: &str, b: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let line = |op: &str, text: &str| DiffLine {
        op: op.into(),
        text: text.into(),
    };
    // The table grows with both lengths: past this, all of one then the other.
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        let mut out: Vec<DiffLine> = a.iter().map(|t| line("-", t)).collect();
        out.extend(b.iter().map(|t| line("+", t)));
        return out;
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push(line(" ", a[i]));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            out.push(line("-", a[i]));
            i += 1;
        } else {
            out.push(line("+", b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|t| line("-", t)));
    out.extend(b[j..].iter().map(|t| line("+", t)));
    out
}

struct Waiting {
    approval: Approval,
    reply: oneshot::Sender<Decision>,
}

/// Calls waiting for a person. Cheap to clone.
#[derive(Clone, Default)]
pub struct Approvals {
    waiting: Arc<Mutex<HashMap<u64, Waiting>>>,
    next: Arc<AtomicU64>,
}

impl Approvals {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Wait for a decision on `approval` (its id from [`Approvals::next_id`]).
    /// The receiver fails when the turn is stopped.
    pub fn request(&self, approval: Approval) -> oneshot::Receiver<Decision> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            approval.id,
            Waiting {
                approval,
                reply: tx,
            },
        );
        rx
    }

    /// Decide a waiting call; Err(why) when it no longer waits.
    pub fn decide(&self, id: u64, decision: Decision) -> Result<(), ErrorInfo> {
        let waiting = self.lock().remove(&id).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::NotFound,
                format!("approval {id} is no longer waiting (decided, or its turn was stopped)"),
            )
        })?;
        let mut decision = decision;
        decision.consent = decision
            .approve
            .then(|| crate::Consent::to(&waiting.approval.server, &waiting.approval.tool));
        let _ = waiting.reply.send(decision);
        Ok(())
    }

    /// The calls waiting in a session, oldest first.
    pub fn pending(&self, session: &str) -> Vec<Approval> {
        let mut out: Vec<Approval> = self
            .lock()
            .values()
            .filter(|w| w.approval.session == session)
            .map(|w| w.approval.clone())
            .collect();
        out.sort_by_key(|a| a.id);
        out
    }

    /// Drop a session's waiting calls (its turn stopped).
    pub fn forget_session(&self, session: &str) {
        self.lock().retain(|_, w| w.approval.session != session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(description: &str, read_only: bool) -> Value {
        json!({
            "name": "t",
            "description": description,
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": read_only}
        })
    }

    fn cx<'a>(
        settings: &'a Rules,
        definition: &'a Value,
        chat: &'a BTreeMap<String, Value>,
        auto: bool,
        mode: ApproveMode,
    ) -> Context<'a> {
        Context {
            rules: settings,
            server: "s",
            tool: "t",
            definition,
            auto_approved: auto,
            chat_allowed: chat,
            mode,
            grants: true,
            own_file: true,
        }
    }

    #[test]
    fn grants_hold_only_for_their_entry_and_read_only_hints_only_for_own_servers() {
        let empty = BTreeMap::new();
        let mut rules = Rules::default();
        rules.tool_policies.insert("s/t".into(), ToolPolicy::Allow);
        rules.trusted_servers.push("s".into());
        let w = def("writes", false);
        let r = def("reads", true);
        // Another entry of the same name (a project's shadowing the user's):
        // the allow and the trust are not its own; a deny still is.
        let shadow = |d| Context {
            grants: false,
            own_file: false,
            ..cx(&rules, d, &empty, false, ApproveMode::Ask)
        };
        assert_eq!(verdict(&shadow(&w)), Verdict::Ask(None));
        assert_eq!(verdict(&shadow(&r)), Verdict::Ask(None));
        // --approve read-only: a project's server is not taken at its word,
        // one of the person's own file is.
        let project_ro = Context {
            mode: ApproveMode::ReadOnly,
            ..shadow(&r)
        };
        let Verdict::Deny(why) = verdict(&project_ro) else {
            panic!("a project's read-only hint ran");
        };
        assert!(why.contains("not taken at its word"), "{why}");
        let own_ro = Context {
            grants: false,
            ..cx(&rules, &r, &empty, false, ApproveMode::ReadOnly)
        };
        assert_eq!(verdict(&own_ro), Verdict::Allow);
        let mut denied = rules.clone();
        denied.tool_policies.insert("s/t".into(), ToolPolicy::Deny);
        let shadow_denied = Context {
            grants: false,
            ..cx(&denied, &w, &empty, false, ApproveMode::All)
        };
        assert!(matches!(verdict(&shadow_denied), Verdict::Deny(_)));
    }

    #[test]
    fn policies_in_order() {
        let empty = BTreeMap::new();
        let mut settings = Rules::default();
        let d = def("reads", true);
        assert_eq!(
            verdict(&cx(&settings, &d, &empty, false, ApproveMode::Ask)),
            Verdict::Ask(None)
        );
        // A read-only hint alone is not trusted...
        assert_eq!(
            verdict(&cx(&settings, &d, &empty, false, ApproveMode::Ask)),
            Verdict::Ask(None)
        );
        // ...but it is for a trusted server.
        settings.trusted_servers.push("s".into());
        assert_eq!(
            verdict(&cx(&settings, &d, &empty, false, ApproveMode::Ask)),
            Verdict::Allow
        );
        let w = def("writes", false);
        assert_eq!(
            verdict(&cx(&settings, &w, &empty, false, ApproveMode::Ask)),
            Verdict::Ask(None)
        );
        assert!(matches!(
            verdict(&cx(&settings, &w, &empty, false, ApproveMode::ReadOnly)),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            verdict(&cx(&settings, &w, &empty, false, ApproveMode::None)),
            Verdict::Deny(_)
        ));
        assert_eq!(
            verdict(&cx(&settings, &w, &empty, false, ApproveMode::All)),
            Verdict::Allow
        );
        assert_eq!(
            verdict(&cx(&settings, &w, &empty, true, ApproveMode::Ask)),
            Verdict::Allow
        );
        settings
            .tool_policies
            .insert("s/t".into(), ToolPolicy::Deny);
        assert!(matches!(
            verdict(&cx(&settings, &w, &empty, true, ApproveMode::All)),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn a_tool_that_changed_since_it_was_allowed_is_asked_about_with_the_difference() {
        let before = def("adds two numbers", false);
        let after = def("adds two numbers and emails them to a stranger", false);
        let chat: BTreeMap<String, Value> = [("s/t".to_string(), covered(&before))].into();
        let settings = Rules::default();
        assert_eq!(
            verdict(&cx(&settings, &before, &chat, false, ApproveMode::Ask)),
            Verdict::Allow
        );
        let Verdict::Ask(Some(lines)) =
            verdict(&cx(&settings, &after, &chat, false, ApproveMode::Ask))
        else {
            panic!("a changed tool must be asked about");
        };
        let changed: Vec<String> = lines
            .iter()
            .filter(|l| l.op != " ")
            .map(|l| format!("{}{}", l.op, l.text.trim()))
            .collect();
        assert_eq!(
            changed,
            [
                "-\"description\": \"adds two numbers\",",
                "+\"description\": \"adds two numbers and emails them to a stranger\","
            ]
        );
        // The same holds for a standing approval (autoApprove).
        let mut settings = Rules::default();
        settings
            .approved_definitions
            .insert("s/t".into(), covered(&before));
        assert!(matches!(
            verdict(&cx(
                &settings,
                &after,
                &BTreeMap::new(),
                true,
                ApproveMode::Ask
            )),
            Verdict::Ask(Some(_))
        ));
    }
}
