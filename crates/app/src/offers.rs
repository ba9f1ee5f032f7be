//! What the servers offer besides tools — resources (and their templates),
//! prompts, skills — as the window's lists and `mcpwb resources|prompts|
//! skills` show them, and the requests a person makes of them by hand: a
//! resource read or subscribed to, a prompt got, completions asked, a skill
//! loaded, one of its files read, every file checked; and the era's own
//! liveness check (`mcpwb ping`).

use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value, json};
use workbench_core::catalog::ServerCatalog;
pub use workbench_core::skills::{name_of, promised};
use workbench_core::{CallOptions, Error, ErrorInfo, Workbench};
pub use workbench_core::{LoadedSkill, SkillFile};

/// A resource, or a resource template (`uriTemplate`), of a server.
#[derive(Debug, Clone, Serialize)]
pub struct ResourceRow {
    pub server: String,
    pub template: bool,
    /// As the server listed it (uri or uriTemplate, name, title, mimeType, ...).
    pub resource: Value,
    pub stale: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct PromptRow {
    pub server: String,
    /// As the server listed it (name, title, description, arguments).
    pub prompt: Value,
    pub stale: bool,
}

/// A skill (SEP-2640) of a server, as its `skills/list` gave it.
#[derive(Debug, Clone, Serialize)]
pub struct SkillRow {
    pub server: String,
    /// Its name (the folder of its SKILL.md).
    pub name: String,
    /// The entry as listed (uri, frontmatter, resources with digests and sizes).
    pub skill: Value,
    pub stale: bool,
}

/// One list's cache hints, as its server's last answer gave them.
#[derive(Debug, Clone, Serialize)]
pub struct ListCache {
    pub server: String,
    /// `tools`, `resources`, `resourceTemplates`, `prompts` or `skills`.
    pub list: String,
    /// When it was read is in it: the window says how fresh it is now.
    pub hint: workbench_core::cache::CacheHint,
}

/// What each server's answers said of caching (2026-07-28 `ttlMs` and
/// `cacheScope`), list by list.
pub fn cache_hints(wb: &Workbench) -> Vec<ListCache> {
    catalogs(wb, None)
        .into_iter()
        .flat_map(|(server, cat)| {
            cat.cache.into_iter().map(move |(list, hint)| ListCache {
                server: server.clone(),
                list,
                hint,
            })
        })
        .collect()
}

/// The person's Refresh: a server's lists (every server's when None) asked
/// again, fresh or not; how many were asked.
pub async fn refresh(wb: &Workbench, server: Option<&str>) -> usize {
    wb.revalidate_lists(server, true).await.len()
}

/// The lists of `names` (every server when None) that have been read, by
/// server, in order.
pub fn catalogs(wb: &Workbench, names: Option<&[String]>) -> Vec<(String, ServerCatalog)> {
    let all: Vec<String> = match names {
        Some(n) => n.to_vec(),
        None => wb.servers().iter().map(|s| s.name().to_string()).collect(),
    };
    all.into_iter()
        .filter_map(|n| wb.catalog().server(&n).map(|c| (n, c)))
        .collect()
}

pub fn resources(wb: &Workbench) -> Vec<ResourceRow> {
    let mut out = Vec::new();
    for (server, cat) in catalogs(wb, None) {
        let rows = cat
            .resources
            .iter()
            .map(|r| (false, r))
            .chain(cat.resource_templates.iter().map(|r| (true, r)));
        for (template, resource) in rows {
            out.push(ResourceRow {
                server: server.clone(),
                template,
                resource: resource.clone(),
                stale: cat.stale,
            });
        }
    }
    out
}

pub fn prompts(wb: &Workbench) -> Vec<PromptRow> {
    catalogs(wb, None)
        .into_iter()
        .flat_map(|(server, cat)| {
            cat.prompts.into_iter().map(move |prompt| PromptRow {
                server: server.clone(),
                prompt,
                stale: cat.stale,
            })
        })
        .collect()
}

/// One prompt as its server listed it (None: not listed, or the server
/// is not ready).
pub fn prompt(wb: &Workbench, server: &str, name: &str) -> Option<Value> {
    wb.catalog()
        .server(server)?
        .prompts
        .into_iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
}

pub fn skills(wb: &Workbench) -> Vec<SkillRow> {
    catalogs(wb, None)
        .into_iter()
        .flat_map(|(server, cat)| {
            cat.skills.into_iter().map(move |skill| SkillRow {
                server: server.clone(),
                name: workbench_core::skills::name_of(&skill),
                skill,
                stale: cat.stale,
            })
        })
        .collect()
}

/// The skills of each of `names`, as listed.
pub fn skills_of(wb: &Workbench, names: &[String]) -> Vec<(String, Vec<Value>)> {
    names.iter().map(|n| (n.clone(), wb.skills_of(n))).collect()
}

/// `resources/read`: the contents (text, or base64 blobs) as the server sent them.
pub async fn read_resource(
    wb: &Workbench,
    server: &str,
    uri: &str,
    options: CallOptions,
) -> Result<Value, ErrorInfo> {
    Ok(wb
        .request(server, "resources/read", json!({ "uri": uri }), options)
        .await?
        .result)
}

/// Subscribe to (or unsubscribe from) a resource's updates: either era's
/// way (`resources/subscribe`, or the listen stream of 2026-07-28).
pub async fn subscribe(wb: &Workbench, server: &str, uri: &str, on: bool) -> Result<(), ErrorInfo> {
    Ok(wb.subscribe_resource(server, uri, on).await?)
}

/// `prompts/get` with its arguments: the messages.
pub async fn get_prompt(
    wb: &Workbench,
    server: &str,
    name: &str,
    arguments: Value,
    options: CallOptions,
) -> Result<Value, ErrorInfo> {
    Ok(wb
        .request(
            server,
            "prompts/get",
            json!({ "name": name, "arguments": arguments }),
            options,
        )
        .await?
        .result)
}

/// `completion/complete` for a prompt argument or a template variable
/// (`reference`: `{"type": "ref/prompt", "name"}` or `{"type":
/// "ref/resource", "uri"}`), with the values already chosen as context.
pub async fn complete(
    wb: &Workbench,
    server: &str,
    reference: Value,
    argument: &str,
    value: &str,
    context: Option<Map<String, Value>>,
) -> Result<Vec<String>, ErrorInfo> {
    let mut params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
    if let Some(arguments) = context.filter(|c| !c.is_empty()) {
        params["context"] = json!({ "arguments": arguments });
    }
    let result = wb
        .request(
            server,
            "completion/complete",
            params,
            CallOptions::default(),
        )
        .await?
        .result;
    Ok(result["completion"]["values"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}

/// A skill loaded: its entry, its SKILL.md checked against the listing.
pub async fn load_skill(
    wb: &Workbench,
    server: &str,
    name: &str,
    timeout: Option<Duration>,
) -> Result<LoadedSkill, ErrorInfo> {
    Ok(wb.load_skill(server, name, timeout).await?)
}

/// One file of a skill, read and checked against the listing.
pub async fn skill_file(
    wb: &Workbench,
    server: &str,
    name: &str,
    path: &str,
    timeout: Option<Duration>,
) -> Result<SkillFile, ErrorInfo> {
    Ok(wb.skill_file(server, name, path, timeout).await?)
}

/// A skill loaded and, when its SKILL.md is as listed, every other file of
/// it read and checked: each file's path and whether it is as listed; the
/// problems found, the SKILL.md's first.
pub struct Verified {
    pub skill: LoadedSkill,
    pub problems: Vec<String>,
    pub checked: Vec<(String, bool)>,
}

pub async fn verify_skill(
    wb: &Workbench,
    server: &str,
    name: &str,
    timeout: Option<Duration>,
) -> Result<Verified, ErrorInfo> {
    let skill = wb.load_skill(server, name, timeout).await?;
    let mut problems = skill.problems.clone();
    let mut checked = Vec::new();
    // A SKILL.md that is not what the server listed is not used: its files
    // are not read.
    if problems.is_empty() {
        for f in &skill.files {
            if f.uri == skill.uri {
                checked.push((f.path.clone(), true));
                continue;
            }
            let read = wb.skill_file(server, name, &f.path, timeout).await?;
            if let Some(p) = &read.problem {
                problems.push(p.clone());
            }
            checked.push((f.path.clone(), read.problem.is_none()));
        }
    }
    Ok(Verified {
        skill,
        problems,
        checked,
    })
}

/// The era's liveness check: `ping` (up to 2025-11-25); a server that does
/// not know it (2026-07-28) answers `server/discover` instead. The round
/// trip's time, in milliseconds. `options` makes each request's options.
pub async fn ping(
    wb: &Workbench,
    server: &str,
    options: impl Fn() -> CallOptions,
) -> Result<f64, ErrorInfo> {
    let answer = match wb.request(server, "ping", Value::Null, options()).await {
        Err(Error::ServerError { code: -32601, .. }) => {
            wb.request(server, "server/discover", json!({}), options())
                .await?
        }
        other => other?,
    };
    Ok(answer.duration_ms)
}
