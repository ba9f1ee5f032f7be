//! workbench-selftools: the workbench's own tools, for the coding agent that
//! is writing an MCP server (`mcpwb serve --workbench`). The bridge serves
//! them beside (or instead of) the servers' tools through its `OwnTools`
//! hook; what they do is here, above the doctor and the suites:
//!
//! - `workbench_servers`: every server and its state;
//! - `workbench_restart`: restart one after an edit, wait for it, and say what
//!   changed in its surface and what the doctor now finds;
//! - `workbench_doctor`: the doctor's findings (`probe`, `eras` on request);
//! - `workbench_call` / `workbench_answer_input`: call a server's tool; a
//!   question the server asks meanwhile is parked for the agent to answer
//!   (`calling.rs`);
//! - `workbench_test`: the project's suites;
//! - `workbench_snapshot` / `workbench_diff`: the surface, and what changed;
//! - `workbench_traffic`: the last messages with a server.
//!
//! Every call of a server's tool goes through the one call path under the
//! person's rules (origin `agent`); a server or suite the person has not
//! trusted stays untrusted. The skill `mcp-workbench-loop` (its SKILL.md)
//! teaches an agent the loop; `mcpwb agent-help` prints it.
#![forbid(unsafe_code)]

mod calling;
mod tools;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use workbench_app::bridge::{Answer, ApproveMode, OwnTools, Policy, Reach};
use workbench_app::doctor::{self, Surface};
use workbench_app::servers::{self, Back, Event};
use workbench_app::suites::{CasePick, RunOptions};
use workbench_app::{Calls, Workbench, traffic};

/// The skill that teaches an agent the loop (SEP-2640 frontmatter).
pub const SKILL: &str = include_str!("../skill/mcp-workbench-loop/SKILL.md");
/// Its name (and folder).
pub const SKILL_NAME: &str = "mcp-workbench-loop";

/// How long a restart waits for the server to be ready again.
const RESTART_WAIT: Duration = Duration::from_secs(30);

/// What the tools stand on.
pub struct Options {
    /// How a server's tool called through `workbench_call` is decided
    /// (the bridge's: the person's rules, then this mode).
    pub policy: Policy,
    /// The servers and tools the person serves (`--only`, `--tools`): what
    /// these tools call is bound by the same as the bridge's relay.
    pub reach: Reach,
    /// Where `workbench_test` looks for suites by default (the project's
    /// folder, then the person's own).
    pub suites: Vec<PathBuf>,
    /// The folder relative suite paths are read from (the project).
    pub base: PathBuf,
}

struct Inner {
    calls: Calls,
    options: Options,
    /// Each server's surface when the workbench started it or last
    /// restarted it through these tools: `workbench_diff`'s default.
    baseline: Mutex<BTreeMap<String, Surface>>,
    calling: calling::Calling,
    skills: SkillCatalog,
}

/// The tools. Cheap to clone.
#[derive(Clone)]
pub struct SelfTools {
    inner: Arc<Inner>,
}

/// The workbench's own tools as `mcpwb serve --workbench` serves them: bound
/// by the same reach as the bridge's relay (`only` servers, `tools`
/// patterns), decided by `policy`, suites looked for in `base`'s folders.
pub fn served(
    calls: &Calls,
    policy: Policy,
    only: Vec<String>,
    tools: Vec<String>,
    base: PathBuf,
) -> std::io::Result<Arc<dyn OwnTools>> {
    let tools = SelfTools::new(
        calls.clone(),
        Options {
            policy,
            reach: Reach { only, tools },
            suites: workbench_app::suites::folders(&base),
            base,
        },
    )?;
    Ok(Arc::new(tools))
}

/// The workbench's own skill as a catalog. rmcp's catalog loads from a
/// folder into memory and serves from that snapshot (it is never reloaded
/// here): the folder is written, read and removed at once, so a workbench
/// that is killed leaves no folder behind.
fn skill_catalog() -> std::io::Result<SkillCatalog> {
    skill_catalog_in(&std::env::temp_dir())
}

fn skill_catalog_in(parent: &std::path::Path) -> std::io::Result<SkillCatalog> {
    let dir = tempfile::Builder::new()
        .prefix("mcpwb-skill-")
        .tempdir_in(parent)?;
    let folder = dir.path().join(SKILL_NAME);
    std::fs::create_dir(&folder)?;
    std::fs::write(folder.join("SKILL.md"), SKILL)?;
    SkillCatalog::from_dir(dir.path())
        .map_err(|e| std::io::Error::other(format!("the workbench's skill: {e}")))
}

impl SelfTools {
    /// The tools over the workbench behind `calls` (call inside a Tokio
    /// runtime: the questions of parked calls are followed from now on).
    pub fn new(calls: Calls, options: Options) -> std::io::Result<SelfTools> {
        let skills = skill_catalog()?;
        let wb = calls.workbench().clone();
        let calling = calling::Calling::follow(&wb);
        let tools = SelfTools {
            inner: Arc::new(Inner {
                calls,
                options,
                baseline: Mutex::default(),
                calling,
                skills,
            }),
        };
        tools.keep_baselines();
        Ok(tools)
    }

    fn wb(&self) -> &Workbench {
        self.inner.calls.workbench()
    }

    /// Each server's surface the first time it is listed (the baseline of
    /// `workbench_diff` until a restart through these tools).
    fn keep_baselines(&self) {
        let me = self.clone();
        let mut events = servers::events(self.wb());
        let first = |me: &SelfTools| {
            for s in me.wb().statuses() {
                me.baseline_if_missing(&s.name);
            }
        };
        first(self);
        tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(Event::CatalogChanged { server }) => me.baseline_if_missing(&server),
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return,
                }
            }
        });
    }

    fn baseline_if_missing(&self, server: &str) {
        let mut baseline = self
            .inner
            .baseline
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !baseline.contains_key(server)
            && self.wb().catalog().server(server).is_some_and(|c| !c.stale)
            && let Some(s) = Surface::live(self.wb(), server)
        {
            baseline.insert(server.to_string(), s);
        }
    }

    async fn dispatch(&self, name: &str, args: Value) -> Result<Value, String> {
        let text = |key: &str| args[key].as_str().map(str::to_string);
        let server = || text("server").ok_or_else(|| "\"server\" is required".to_string());
        match name {
            tools::SERVERS => Ok(self.servers()),
            tools::RESTART => self.restart(&server()?).await,
            tools::DOCTOR => self.doctor(&server()?, &args).await,
            tools::CALL => {
                let tool = text("tool").ok_or("\"tool\" is required")?;
                let arguments = match &args["arguments"] {
                    Value::Null => json!({}),
                    Value::Object(_) => args["arguments"].clone(),
                    _ => return Err("\"arguments\" must be an object".into()),
                };
                self.call(&server()?, &tool, arguments, wait_of(&args))
                    .await
            }
            tools::ANSWER => {
                let call = args["call"]
                    .as_u64()
                    .ok_or("\"call\" is required (the id workbench_call gave)")?;
                let input = args["input"].as_u64().map(|i| i as u32);
                let action = text("action").unwrap_or_else(|| "accept".into());
                if !matches!(action.as_str(), "accept" | "decline" | "cancel") {
                    return Err(format!(
                        "\"action\" is accept, decline or cancel, not {action:?}"
                    ));
                }
                self.answer(
                    call,
                    input,
                    &action,
                    args["content"].clone(),
                    wait_of(&args),
                )
                .await
            }
            tools::TEST => self.test(text("path"), text("case")).await,
            tools::SNAPSHOT => {
                let server = server()?;
                let s = self.surface(&server)?;
                Ok(ok(serde_json::to_value(s).unwrap_or_default()))
            }
            tools::DIFF => self.diff(&server()?, &args["before"]),
            tools::TRAFFIC => {
                let server = server()?;
                let last = args["last"].as_u64().unwrap_or(20).clamp(1, 200) as u32;
                let page = traffic::of_server(self.wb(), &server, text("method"), last)
                    .await
                    .map_err(|e| e.message)?;
                Ok(ok(
                    json!({ "server": server, "total": page.total, "messages": page.entries }),
                ))
            }
            other => Err(format!("no tool {other} here")),
        }
    }

    /// `workbench_doctor`: the doctor's findings on `server` (`probe`,
    /// `eras` on request); the probe calls only tools the agent may reach.
    async fn doctor(&self, server: &str, args: &Value) -> Result<Value, String> {
        let mut options = doctor::Options {
            probe: args["probe"].as_bool().unwrap_or(false),
            eras: args["eras"].as_bool().unwrap_or(false),
            ..Default::default()
        };
        // The probe calls tools: only those the agent may reach,
        // and none where the person lets it call none.
        let mut held = None;
        if options.probe {
            match self.probe_reach(server) {
                Ok(only) => options.probe_only = only,
                Err(why) => {
                    options.probe = false;
                    held = Some(why);
                }
            }
        }
        let report = doctor::examine(&self.inner.calls, None, server, options)
            .await
            .map_err(|e| e.to_string())?;
        let mut out = serde_json::to_value(report).unwrap_or_default();
        if let Some(why) = held {
            out["probe"] = json!(format!("not run: {why}"));
        }
        Ok(ok(out))
    }

    /// `workbench_diff`: what changed in `server`'s surface since `before`
    /// (a snapshot), or since the baseline kept.
    fn diff(&self, server: &str, before: &Value) -> Result<Value, String> {
        let server = server.to_string();
        let before: Surface = match before {
            Value::Null => self
                .inner
                .baseline
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&server)
                .cloned()
                .ok_or_else(|| format!("no earlier surface of {server} is kept: pass \"before\" (a workbench_snapshot)"))?,
            v => serde_json::from_value(v.clone())
                .map_err(|e| format!("\"before\" is not a snapshot: {e}"))?,
        };
        let now = self.surface(&server)?;
        let changes = doctor::diff(&before, &now);
        let breaking = changes
            .iter()
            .filter(|c| c.impact == doctor::Impact::Breaking)
            .count();
        Ok(ok(
            json!({ "server": server, "changes": changes, "breaking": breaking }),
        ))
    }

    fn surface(&self, server: &str) -> Result<Surface, String> {
        doctor::surface(self.wb(), server)
            .map_err(|e| e.message)?
            .ok_or_else(|| {
                format!(
                    "{server} is not ready, so it has no surface now (workbench_servers says why)"
                )
            })
    }

    /// The tools the doctor's probe may call for the agent: Err(why none),
    /// Ok(None) for any the person's rules let it, Ok(Some(names)).
    fn probe_reach(&self, server: &str) -> Result<Option<Vec<String>>, String> {
        if self.inner.options.policy.mode == ApproveMode::None {
            return Err("the person serves these tools with --approve none: no tool is called for an agent, not even a read-only one".into());
        }
        let reach = &self.inner.options.reach;
        if !reach.server(server) {
            return Err(format!("{server} is not served here"));
        }
        if reach.tools.is_empty() {
            return Ok(None);
        }
        Ok(Some(
            self.wb()
                .catalog()
                .tools()
                .into_iter()
                .filter(|t| t.server == server)
                .filter_map(|t| {
                    let own = t.tool["name"].as_str()?.to_string();
                    reach.named(&t.qualified, &own).then_some(own)
                })
                .collect(),
        ))
    }

    fn servers(&self) -> Value {
        let servers: Vec<Value> = servers::statuses(self.wb())
            .into_iter()
            .map(|s| {
                let mut v = serde_json::to_value(&s.state).unwrap_or_default();
                v["name"] = json!(s.name);
                if let Some(info) = &s.info {
                    v["protocol"] = json!(info.protocol_version);
                    v["serverInfo"] = json!({ "name": info.name, "version": info.version });
                    v["transport"] = serde_json::to_value(info.transport).unwrap_or_default();
                }
                if let Some(c) = servers::offered(self.wb(), &s.name) {
                    v["tools"] = json!(c.tools);
                    v["resources"] = json!(c.resources);
                    v["prompts"] = json!(c.prompts);
                    v["skills"] = json!(c.skills);
                }
                v
            })
            .collect();
        ok(json!({ "servers": servers }))
    }

    async fn restart(&self, server: &str) -> Result<Value, String> {
        let before = self.surface(server).ok().or_else(|| {
            self.inner
                .baseline
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(server)
                .cloned()
        });
        // No such server is the agent's mistake; a restart that failed is
        // the server's answer, said as a failed result (as before the move).
        let back = match servers::restart_and_wait(self.wb(), server, RESTART_WAIT).await {
            Ok(back) => back,
            Err(e) if e.code == workbench_app::ErrorCode::UnknownServer => return Err(e.message),
            Err(e) => return Ok(failed(e.message)),
        };
        let elapsed = match back {
            Back::Ready { elapsed } => elapsed,
            Back::Untrusted => return Ok(failed(untrusted(server))),
            // The person turned it off: an agent never turns it back on.
            Back::TurnedOff { disabled } => {
                return Ok(failed(format!(
                    "{server} is {}: the person turned it off, and these tools never start it (ask the person to start it in the window or with `mcpwb`)",
                    if disabled {
                        "disabled in its mcp.json"
                    } else {
                        "stopped"
                    }
                )));
            }
            Back::Failed { reason, stderr } => {
                return Ok(failed_with(
                    format!("{server} did not come back: {reason}"),
                    json!({ "server": server, "state": "failed", "reason": reason, "stderr": stderr }),
                ));
            }
            Back::Late => {
                return Ok(failed(format!(
                    "{server} was not ready again within {} s (workbench_servers says where it is)",
                    RESTART_WAIT.as_secs()
                )));
            }
        };
        let after = self.surface(server)?;
        let change = before
            .as_ref()
            .and_then(|b| doctor::change(server, b, &after));
        self.inner
            .baseline
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_string(), after);
        Ok(ok(json!({
            "server": server,
            "state": "ready",
            "readyMs": elapsed.as_secs_f64() * 1000.0,
            "changed": change.is_some(),
            "change": change,
        })))
    }

    async fn test(&self, path: Option<String>, case: Option<String>) -> Result<Value, String> {
        let paths: Vec<PathBuf> = match path {
            Some(p) => {
                let p = PathBuf::from(p);
                vec![if p.is_absolute() {
                    p
                } else {
                    self.inner.options.base.join(p)
                }]
            }
            None => self
                .inner
                .options
                .suites
                .iter()
                .filter(|d| d.is_dir())
                .cloned()
                .collect(),
        };
        if paths.is_empty() {
            return Ok(failed(format!(
                "no suites: none of {} exists (a suite is .mcp-workbench/suites/NAME.json in the project)",
                self.inner
                    .options
                    .suites
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let (suites, broken) = workbench_app::suites::load(&paths);
        let options = RunOptions {
            case: case.map(CasePick::Matching),
            ..RunOptions::default()
        };
        // These tools never trust a suite: the person does.
        let ran = workbench_app::suites::run(
            &self.inner.calls,
            &suites,
            &options,
            workbench_app::suites::Unread::Refuse,
        )
        .await;
        let report = match ran {
            Ok((report, _)) => report,
            Err(refused) => {
                let untrusted: Vec<String> = refused.reviews.into_iter().map(|r| r.path).collect();
                return Ok(failed_with(
                    format!(
                        "not trusted, nothing ran: {}. A suite the person did not write runs only once they trust it (the Suites room, or mcpwb test --trust-suites); these tools never trust one",
                        untrusted.join(", ")
                    ),
                    json!({ "untrusted": untrusted }),
                ));
            }
        };
        let prompts: usize = suites.iter().map(|s| s.prompts.len()).sum();
        let broken: Vec<String> = broken.iter().map(ToString::to_string).collect();
        let mut out = serde_json::to_value(&report).unwrap_or_default();
        out["broken"] = json!(broken);
        if prompts > 0 {
            out["note"] = json!(format!(
                "{prompts} prompt cases (evals) were not run: they need a model (mcpwb test, or the Suites room)"
            ));
        }
        // Failed cases are the report's news, not the tool's failure.
        Ok(ok(out))
    }
}

/// Why an untrusted server is left alone.
fn untrusted(server: &str) -> String {
    format!(
        "{server} is not trusted: the person must read what it runs and trust it (mcpwb config trust {server}, or in the window); these tools never do"
    )
}

/// How long a call waits before it says it is still running.
fn wait_of(args: &Value) -> Duration {
    Duration::from_millis(
        args["waitMs"]
            .as_u64()
            .unwrap_or(60_000)
            .clamp(100, 600_000),
    )
}

/// A result with `structured` as its structured content (and as JSON text).
fn ok(structured: Value) -> Value {
    let text = serde_json::to_string_pretty(&structured).unwrap_or_default();
    json!({ "content": [{ "type": "text", "text": text }], "structuredContent": structured })
}

/// A tool error: the message, for the agent to read.
fn failed(message: String) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}

fn failed_with(message: String, structured: Value) -> Value {
    let mut v = failed(message);
    v["structuredContent"] = structured;
    v
}

impl OwnTools for SelfTools {
    fn tools(&self) -> Vec<Value> {
        tools::all()
    }

    fn owns(&self, name: &str) -> bool {
        tools::NAMES.contains(&name)
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        _cancel: CancellationToken,
    ) -> Answer<'a> {
        Box::pin(async move {
            match self.dispatch(name, arguments).await {
                Ok(v) => Ok(v),
                // A wrong argument is the agent's to fix: said as a tool error.
                Err(why) => Ok(failed(why)),
            }
        })
    }

    fn takes_ask(&self, server: &str) -> bool {
        self.inner.calling.takes(server)
    }

    fn skills(&self) -> Option<&SkillCatalog> {
        Some(&self.inner.skills)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skill is served whole from memory, and the folder it was read
    /// from is gone as soon as the catalog is made.
    #[test]
    fn the_skill_is_served_from_memory_and_its_folder_is_gone() {
        let parent = tempfile::tempdir().unwrap();
        let catalog = skill_catalog_in(parent.path()).unwrap();
        assert_eq!(
            std::fs::read_dir(parent.path()).unwrap().count(),
            0,
            "the skill's folder was left behind"
        );
        let uri = format!("skill://{SKILL_NAME}/SKILL.md");
        assert_eq!(
            catalog
                .skills()
                .iter()
                .map(|s| s.uri.as_str())
                .collect::<Vec<_>>(),
            [uri.as_str()]
        );
        let read = catalog.read_resource(&uri).expect("the skill reads");
        let text = match &read.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("not text: {other:?}"),
        };
        assert_eq!(text, SKILL);
    }
}
