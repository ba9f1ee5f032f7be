//! Everything the Ready servers offer, in one place: tools, resources,
//! resource templates and prompts, fetched page by page, refreshed on
//! list_changed, kept (marked stale) while a server is away. Tools get
//! collision-free qualified names `server__tool` that route back.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, RwLock};

use rmcp::model::{ClientRequest, PaginatedRequestParams, ServerResult};
use rmcp::{Peer, RoleClient};
use serde::Serialize;
use serde_json::Value;

use crate::config::sanitise;

/// What one server offers, as it sent it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerCatalog {
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// Its skills (SEP-2640) as `skills/list` gave them: each entry's uri,
    /// frontmatter and files (digests and sizes). Their files are read only
    /// when a skill is loaded.
    pub skills: Vec<Value>,
    /// True while the server is not Ready: these are its last-known lists.
    pub stale: bool,
    /// Tools the server has that the config's includeTools/excludeTools hide.
    pub hidden_tools: Vec<String>,
    /// Names the server listed more than once (the first of each is kept).
    pub duplicate_tools: Vec<String>,
    /// Each list's cache hints as its last reading gave them (`tools`,
    /// `resources`, `resourceTemplates`, `prompts`, `skills`).
    pub cache: BTreeMap<String, crate::cache::CacheHint>,
    /// What went wrong paging through a list whose pages were kept (a
    /// repeated cursor): the server's fault, said once per list.
    pub list_problems: Vec<String>,
}

/// A tool with its qualified name.
#[derive(Debug, Clone, Serialize)]
pub struct QualifiedTool {
    pub qualified: String,
    pub server: String,
    pub tool: Value,
}

#[derive(Default)]
struct Inner {
    servers: BTreeMap<String, ServerCatalog>,
}

#[derive(Clone, Default)]
pub struct Catalog {
    inner: Arc<RwLock<Inner>>,
    /// Where the lists' answers are found as sent (every field kept); without
    /// it, items are what the client library's types model.
    raw: Option<crate::traffic::TrafficLog>,
    /// One list request of a server at a time, so the answer kept whole is
    /// the one to that request.
    listing: Arc<std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    /// Refreshes asked for, per server and list: one runs, at most one
    /// more waits (a flood of list_changed makes two refreshes, not one a
    /// notification).
    asked: Arc<std::sync::Mutex<HashMap<RefreshKey, bool>>>,
}

/// A server and one of its lists (None: all of them).
type RefreshKey = (String, Option<String>);

fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

const MAX_NAME: usize = 64;

/// `server__tool`, sanitised to `[A-Za-z0-9_-]{1,64}`. When sanitising or
/// shortening could make two names equal, a hash of the original pair keeps
/// them apart; `taken` holds the names already given.
pub fn qualify(server: &str, tool: &str, taken: &HashSet<String>) -> String {
    let plain = format!("{}__{}", sanitise(server), sanitise(tool));
    let exact = sanitise(server) == server && sanitise(tool) == tool;
    if plain.len() <= MAX_NAME && exact && !taken.contains(&plain) {
        return plain;
    }
    let hash = format!("{:08x}", fnv1a(&format!("{server}\u{0}{tool}")));
    let mut salt = 0u32;
    loop {
        let suffix = if salt == 0 {
            format!("_{hash}")
        } else {
            format!("_{hash}{salt}")
        };
        let room = MAX_NAME - suffix.len();
        let s = sanitise(server);
        let t = sanitise(tool);
        let s_room = (room / 2)
            .min(s.len())
            .max(room.saturating_sub(t.len() + 2).min(s.len()));
        let s_part = &s[..s_room];
        let t_room = room.saturating_sub(s_part.len() + 2).min(t.len());
        let name = format!("{s_part}__{}{suffix}", &t[..t_room]);
        if !taken.contains(&name) {
            return name;
        }
        salt += 1;
    }
}

/// The list method of a kind of item (`tools`, `resources`,
/// `resourceTemplates`, `skills`, `prompts`).
pub fn method_of(kind: &str) -> &'static str {
    match kind {
        "tools" => "tools/list",
        "resources" => "resources/list",
        "resourceTemplates" => "resources/templates/list",
        "skills" => "skills/list",
        _ => "prompts/list",
    }
}

/// One page as the server sent it (its items and every other field: the
/// cache hints), when the answer kept in the traffic log is this page (as
/// many items as the library parsed).
fn raw_page(
    raw: Option<(&crate::traffic::TrafficLog, &str)>,
    kind: &str,
    parsed: usize,
) -> Option<Value> {
    let (traffic, server) = raw?;
    let text = traffic.take_raw_list(server, method_of(kind))?;
    let mut message: Value = serde_json::from_str(&text).ok()?;
    let items = message["result"][kind].as_array()?;
    (items.len() == parsed).then(|| message["result"].take())
}

/// The most items one list may hold, over all its pages.
pub const MAX_LIST_ITEMS: usize = 100_000;
/// The most bytes one list may take, over all its pages (each page is
/// already held to the entry's `maxMessageSize`).
pub const MAX_LIST_BYTES: usize = 32 << 20;

/// A list as read: its items, what stopped the paging early (a repeated
/// cursor) when the pages read so far were kept, and its pages' cache hints.
type Listed = (Vec<Value>, Option<String>, crate::cache::CacheHint);

/// What a refresh read so far: the lists that failed, whether any was
/// read, the problems of lists read in part (a repeated cursor: its items
/// are kept, the problem said in the server's events and kept for the
/// doctor), and each list's cache hint.
#[derive(Default)]
struct Reading {
    failed: Vec<String>,
    read_any: bool,
    problems: Vec<String>,
    hints: Vec<(&'static str, crate::cache::CacheHint)>,
}

impl Reading {
    /// A list read (its items, its problem and hint noted).
    fn kept(&mut self, kind: &'static str, (items, problem, hint): Listed) -> Vec<Value> {
        if let Some(p) = problem {
            self.problems.push(p);
        }
        self.hints.push((kind, hint));
        items
    }

    /// A list asked for: its items, or None with its failure noted.
    fn took(&mut self, kind: &'static str, fetched: Result<Listed, String>) -> Option<Vec<Value>> {
        match fetched {
            Ok(listed) => {
                self.read_any = true;
                Some(self.kept(kind, listed))
            }
            Err(e) => {
                self.failed.push(e);
                None
            }
        }
    }
}

async fn fetch_all(
    peer: &Peer<RoleClient>,
    kind: &str,
    raw: Option<(&crate::traffic::TrafficLog, &str)>,
) -> Result<Listed, String> {
    let mut items = Vec::new();
    let mut hint = crate::cache::CacheHint {
        read_at_ms: crate::cache::now_ms(),
        ..Default::default()
    };
    let mut bytes = 0usize;
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for _ in 0..10_000 {
        let params = Some(PaginatedRequestParams::default().with_cursor(cursor.clone()));
        let request = match kind {
            "tools" => ClientRequest::ListToolsRequest(rmcp::model::ListToolsRequest::with_param(
                params.clone().unwrap_or_default(),
            )),
            "resources" => ClientRequest::ListResourcesRequest(
                rmcp::model::ListResourcesRequest::with_param(params.clone().unwrap_or_default()),
            ),
            "resourceTemplates" => ClientRequest::ListResourceTemplatesRequest(
                rmcp::model::ListResourceTemplatesRequest::with_param(
                    params.clone().unwrap_or_default(),
                ),
            ),
            "skills" => ClientRequest::ListSkillsRequest(
                rmcp::model::ListSkillsRequest::with_param(params.clone().unwrap_or_default()),
            ),
            _ => ClientRequest::ListPromptsRequest(rmcp::model::ListPromptsRequest::with_param(
                params.clone().unwrap_or_default(),
            )),
        };
        let result: ServerResult = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            peer.send_request(request),
        )
        .await
        .map_err(|_| format!("{kind}: no answer within 60 s"))?
        .map_err(|e| format!("{kind}: {e}"))?;
        let page = serde_json::to_value(&result).map_err(|e| e.to_string())?;
        if let Some(list) = page[kind].as_array() {
            let whole = raw_page(raw, kind, list.len());
            hint.add(whole.as_ref().unwrap_or(&page));
            let got = match whole {
                Some(mut whole) => match whole[kind].take() {
                    Value::Array(items) => items,
                    _ => list.clone(),
                },
                None => list.clone(),
            };
            bytes += got
                .iter()
                .map(|i| serde_json::to_string(i).map_or(0, |t| t.len()))
                .sum::<usize>();
            items.extend(got);
            if items.len() > MAX_LIST_ITEMS || bytes > MAX_LIST_BYTES {
                return Err(format!(
                    "{kind}: the server's list passed the limit ({} items, {} MiB over its pages; at most {MAX_LIST_ITEMS} items and {} MiB are read); stopped reading it",
                    items.len(),
                    bytes >> 20,
                    MAX_LIST_BYTES >> 20
                ));
            }
        }
        cursor = page["nextCursor"].as_str().map(str::to_string);
        match &cursor {
            None => return Ok((items, None, hint)),
            // The server's fault, seen at once: what the pages gave is kept.
            Some(c) if !seen.insert(c.clone()) => {
                let why = format!(
                    "{kind}: the server repeated the cursor \"{c}\" (a loop); the {} items of the pages before are listed",
                    items.len()
                );
                return Ok((items, Some(why), hint));
            }
            Some(_) => {}
        }
    }
    Err(format!("{kind}: more than 10,000 pages"))
}

impl Catalog {
    /// A catalog that keeps items as sent, read from `traffic`.
    pub fn reading(traffic: crate::traffic::TrafficLog) -> Catalog {
        Catalog {
            raw: Some(traffic),
            ..Catalog::default()
        }
    }

    /// Fetch the lists `capabilities` advertises (or one of them) from a Ready server.
    pub async fn refresh(
        &self,
        server: &str,
        peer: &Peer<RoleClient>,
        capabilities: &Value,
        only: Option<&str>,
        offers: &(dyn Fn(&str) -> bool + Send + Sync),
    ) -> Result<(), String> {
        let lock = self
            .listing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(server.to_string())
            .or_default()
            .clone();
        let _one_at_a_time = lock.lock().await;
        let raw = self.raw.as_ref().map(|t| (t, server));
        let mut current = self.server(server).unwrap_or_default();
        let wants = |list: &str, cap: &str| {
            only.is_none_or(|o| o == list) && capabilities.get(cap).is_some()
        };
        // Each list on its own: one that fails leaves the others read (and
        // its last-known items kept); the failures are returned together.
        let mut reading = Reading::default();
        if wants("tools", "tools")
            && let Some(tools) = reading.took("tools", fetch_all(peer, "tools", raw).await)
        {
            keep_tools(&mut current, tools, offers, server);
        }
        if wants("resources", "resources") {
            if let Some(r) = reading.took("resources", fetch_all(peer, "resources", raw).await) {
                current.resources = r;
            }
            current.resource_templates = fetch_all(peer, "resourceTemplates", raw)
                .await
                .map(|l| reading.kept("resourceTemplates", l))
                .unwrap_or_default();
        }
        if wants("prompts", "prompts")
            && let Some(p) = reading.took("prompts", fetch_all(peer, "prompts", raw).await)
        {
            current.prompts = p;
        }
        // Skills: an extension, declared under `extensions`.
        if only.is_none_or(|o| o == "skills")
            && capabilities["extensions"]
                .get(crate::skills::SKILLS_EXTENSION_ID)
                .is_some()
            && let Some(list) = reading.took("skills", fetch_all(peer, "skills", raw).await)
        {
            current.skills = list;
        }
        let Reading {
            mut failed,
            read_any,
            problems,
            hints,
        } = reading;
        for (kind, hint) in hints {
            current.cache.insert(kind.to_string(), hint);
        }
        match only {
            None => current.list_problems = problems.clone(),
            Some(list) => {
                // One list read again: its earlier problem goes, the others' stay.
                current
                    .list_problems
                    .retain(|p| !p.starts_with(&format!("{list}:")));
                current.list_problems.extend(problems.iter().cloned());
            }
        }
        failed.extend(problems);
        // Every list it has failed (a refusal, a dead connection): it
        // stays unlisted (or keeps its last lists, stale). A server with no
        // lists at all is listed, empty.
        if read_any || failed.is_empty() {
            current.stale = false;
            self.write().servers.insert(server.to_string(), current);
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }

    /// Ask for a refresh of `server`'s `list` (None: all). True: the
    /// caller runs it now (then calls [`Catalog::refreshed`]); false: one
    /// runs already and will run once more after it.
    pub fn ask_refresh(&self, server: &str, list: Option<&str>) -> bool {
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        match asked.get_mut(&(server.to_string(), list.map(str::to_string))) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                asked.insert((server.to_string(), list.map(str::to_string)), false);
                true
            }
        }
    }

    /// A refresh asked for with [`Catalog::ask_refresh`] ended. True: it
    /// was asked for again meanwhile, run it once more.
    pub fn refreshed(&self, server: &str, list: Option<&str>) -> bool {
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        let key = (server.to_string(), list.map(str::to_string));
        match asked.get_mut(&key) {
            Some(again) if *again => {
                *again = false;
                true
            }
            _ => {
                asked.remove(&key);
                false
            }
        }
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn mark_stale(&self, server: &str) {
        if let Some(c) = self.write().servers.get_mut(server) {
            c.stale = true;
        }
    }

    pub fn remove(&self, server: &str) {
        self.write().servers.remove(server);
    }

    pub fn server(&self, server: &str) -> Option<ServerCatalog> {
        self.read().servers.get(server).cloned()
    }

    /// One tool's definition as the server sent it (only it is copied).
    pub fn tool(&self, server: &str, tool: &str) -> Option<serde_json::Value> {
        self.read()
            .servers
            .get(server)?
            .tools
            .iter()
            .find(|t| t["name"] == tool)
            .cloned()
    }

    /// All tools of all servers with qualified names, in server then tool order.
    pub fn tools(&self) -> Vec<QualifiedTool> {
        let inner = self.read();
        let mut taken = HashSet::new();
        let mut out = Vec::new();
        for (server, cat) in &inner.servers {
            for tool in &cat.tools {
                let name = tool["name"].as_str().unwrap_or_default();
                let qualified = qualify(server, name, &taken);
                taken.insert(qualified.clone());
                out.push(QualifiedTool {
                    qualified,
                    server: server.clone(),
                    tool: tool.clone(),
                });
            }
        }
        out
    }

    /// Route a qualified name back to (server, tool).
    pub fn route(&self, qualified: &str) -> Option<(String, String)> {
        let map: HashMap<String, (String, String)> = self
            .tools()
            .into_iter()
            .map(|t| {
                (
                    t.qualified,
                    (
                        t.server,
                        t.tool["name"].as_str().unwrap_or_default().to_string(),
                    ),
                )
            })
            .collect();
        map.get(qualified).cloned()
    }
}

/// A server's tools as read: those the entry offers (the others named as
/// hidden), one tool a name (a server that lists a name twice has one tool
/// under it for a caller; the repeats are reported once).
fn keep_tools(
    current: &mut ServerCatalog,
    tools: Vec<Value>,
    offers: &(dyn Fn(&str) -> bool + Send + Sync),
    server: &str,
) {
    let (shown, hidden): (Vec<Value>, Vec<Value>) = tools
        .into_iter()
        .partition(|t| offers(t["name"].as_str().unwrap_or_default()));
    let mut names = HashSet::new();
    let mut repeated = Vec::new();
    current.tools = shown
        .into_iter()
        .filter(|t| {
            let name = t["name"].as_str().unwrap_or_default();
            let first = names.insert(name.to_string());
            if !first && !repeated.iter().any(|r| r == name) {
                repeated.push(name.to_string());
            }
            first
        })
        .collect();
    if !repeated.is_empty() {
        tracing::warn!(%server, names = ?repeated, "the server lists tools under the same name more than once; the first of each is kept");
    }
    current.duplicate_tools = repeated;
    current.hidden_tools = hidden
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn plain_names_stay_readable() {
        assert_eq!(
            qualify("github", "create_issue", &HashSet::new()),
            "github__create_issue"
        );
    }

    #[test]
    fn odd_long_and_clashing_names_are_valid_and_distinct() {
        let pairs = [
            ("my server", "do.thing"),
            ("my_server", "do_thing"),
            ("my-server", "do_thing"),
            ("a".repeat(80).as_str(), "tool"),
            ("a".repeat(81).as_str(), "tool"),
            ("srv", "t".repeat(100).as_str()),
            ("srv", &format!("{}x", "t".repeat(100))),
            ("ünïcødé", "ツール"),
            ("", ""),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        let mut taken = HashSet::new();
        for (s, t) in &pairs {
            let q = qualify(s, t, &taken);
            assert!(valid(&q), "{q:?} from {s:?}/{t:?}");
            assert!(taken.insert(q.clone()), "collision on {q}");
        }
    }
}
