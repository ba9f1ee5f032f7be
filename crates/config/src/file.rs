//! A config file read into the model: both server keys (`mcpServers`,
//! VS Code's `servers`), each entry parsed on its own (a broken one is a
//! [`Problem`] at its key), names that would collide, declared inputs, a
//! project's file merged over the person's own, and the entries as written.

use std::path::Path;

use crate::{
    ConfigFile, Error, InputDecl, Problem, Result, Scope, ServerEntry, ServerSummary, dialects,
    parse_entry, parse_jsonc, sanitise,
};

/// The key under which servers live. `mcpServers` is what Claude, Cursor and
/// most clients write; VS Code writes `servers`.
const SERVER_KEYS: [&str; 2] = ["mcpServers", "servers"];

impl ConfigFile {
    /// No servers yet (the file is missing or broken): a workbench can start
    /// on it and pick the file up once it loads.
    pub fn empty(path: &Path) -> ConfigFile {
        ConfigFile {
            path: path.to_path_buf(),
            project: None,
            servers: Vec::new(),
            problems: Vec::new(),
            inputs: Vec::new(),
        }
    }

    /// Read and parse the file at `path`.
    pub fn load(path: &Path) -> Result<ConfigFile> {
        let text = std::fs::read_to_string(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                Error::ConfigNotFound {
                    path: path.to_path_buf(),
                }
            } else {
                Error::ConfigUnreadable {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        Self::parse(path, &text)
    }

    /// Parse `text` as the contents of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile> {
        let value = parse_jsonc(path, text)?;
        let invalid = |pointer: &str, message: &str| Error::ConfigInvalid {
            path: path.to_path_buf(),
            pointer: pointer.to_string(),
            message: message.to_string(),
        };
        let Some(root) = value.as_object() else {
            return Err(invalid("", "the file must hold a JSON object"));
        };
        let mut servers = Vec::new();
        let mut problems = Vec::new();
        let mut found = false;
        for key in SERVER_KEYS {
            let Some(map) = root.get(key) else { continue };
            found = true;
            let Some(map) = map.as_object() else {
                return Err(invalid(
                    &format!("/{key}"),
                    "must be an object mapping server names to their settings",
                ));
            };
            for (name, raw) in map {
                match parse_entry(name, raw) {
                    Ok(entry) => servers.push(entry),
                    Err(p) => problems.push(Problem {
                        pointer: format!("/{key}/{}{}", escape_pointer(name), p.pointer),
                        message: p.message,
                        scope: Scope::User,
                    }),
                }
            }
        }
        if !found {
            return Err(invalid(
                "",
                "no \"mcpServers\" object: add \"mcpServers\": { \"name\": { \"command\": ... } }",
            ));
        }
        flag_collisions(&mut servers, &mut problems);
        Ok(ConfigFile {
            path: path.to_path_buf(),
            project: None,
            servers,
            problems,
            inputs: inputs(root),
        })
    }

    /// The user's file merged with `<project_dir>/.mcp.json`: project entries
    /// override user entries of the same name. A missing user file is fine
    /// when the project has one.
    pub fn load_scoped(user: &Path, project_dir: Option<&Path>) -> Result<ConfigFile> {
        let project = project_dir
            .map(|d| d.join(".mcp.json"))
            .filter(|p| p.is_file());
        let mut merged = match (Self::load(user), &project) {
            (Ok(c), _) => c,
            (Err(Error::ConfigNotFound { .. }), Some(_)) => ConfigFile::empty(user),
            (Err(e), _) => return Err(e),
        };
        let Some(project) = project else {
            return Ok(merged);
        };
        let theirs = Self::load(&project)?;
        for mut entry in theirs.servers {
            entry.scope = Scope::Project;
            match merged.servers.iter_mut().find(|e| e.name == entry.name) {
                Some(slot) => *slot = entry,
                None => merged.servers.push(entry),
            }
        }
        merged
            .problems
            .extend(theirs.problems.into_iter().map(|p| Problem {
                scope: Scope::Project,
                ..p
            }));
        merged.inputs.extend(theirs.inputs);
        merged.project = Some(project);
        Ok(merged)
    }

    /// The file an entry lives in (edits go back there).
    pub fn file_of(&self, entry: &ServerEntry) -> &Path {
        match (&entry.scope, &self.project) {
            (Scope::Project, Some(p)) => p,
            _ => &self.path,
        }
    }

    /// The folder an entry's relative paths are resolved against.
    pub fn base_dir_of(&self, entry: &ServerEntry) -> &Path {
        self.file_of(entry).parent().unwrap_or(Path::new("."))
    }

    /// A line for each server: what a list of servers shows.
    pub fn summaries(&self) -> Vec<ServerSummary> {
        self.servers.iter().map(ServerSummary::from).collect()
    }

    /// The folder relative paths in the file are resolved against.
    pub fn base_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// The entries of a config text as written (unexpanded, any keys kept), in
/// file order: what `show`, export and the edit form start from.
pub fn raw_entries(path: &Path, text: &str) -> Result<dialects::Entries> {
    let doc = parse_jsonc(path, text)?;
    // Both keys, as parsing reads them (a name in both: the first is kept,
    // as parsing keeps it).
    let mut out = dialects::Entries::default();
    for map in SERVER_KEYS
        .iter()
        .filter_map(|k| doc.get(*k).and_then(serde_json::Value::as_object))
    {
        for (k, v) in map {
            if let Some(entry) = v.as_object()
                && !out.iter().any(|(n, _)| n == k)
            {
                out.push((k.clone(), entry.clone()));
            }
        }
    }
    Ok(out)
}

/// Two names that become the same once sanitised for tool names
/// (`my server` and `my_server`) would make qualified names ambiguous to a
/// reader: the second is reported at its key and skipped.
fn flag_collisions(servers: &mut Vec<ServerEntry>, problems: &mut Vec<Problem>) {
    let mut seen: Vec<(String, String)> = Vec::new();
    servers.retain(|e| {
        let norm = sanitise(&e.name).to_ascii_lowercase();
        if let Some((first, _)) = seen.iter().find(|(_, n)| *n == norm) {
            problems.push(Problem {
                pointer: format!("/mcpServers/{}", escape_pointer(&e.name)),
                message: format!(
                    "\"{}\" clashes with \"{first}\" (both become \"{norm}\" in tool names): rename one",
                    e.name
                ),
                scope: Scope::User,
            });
            false
        } else {
            seen.push((e.name.clone(), norm));
            true
        }
    });
}

fn inputs(root: &serde_json::Map<String, serde_json::Value>) -> Vec<InputDecl> {
    let Some(list) = root.get("inputs").and_then(|v| v.as_array()) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|i| {
            Some(InputDecl {
                id: i.get("id")?.as_str()?.to_string(),
                description: i
                    .get("description")
                    .and_then(|d| d.as_str())
                    .map(str::to_string),
                password: i.get("password").and_then(|p| p.as_bool()) == Some(true),
            })
        })
        .collect()
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}
