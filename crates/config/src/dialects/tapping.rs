//! A host's server routed through `mcpwb tap`, and back. **Tap** rewrites
//! one stdio entry of a host's config (Claude Desktop, Claude Code, Cursor,
//! VS Code, Windsurf, Cline, Roo, LM Studio: the files with `mcpServers` or
//! `servers`; Codex's `config.toml`, `[mcp_servers.NAME]`) to run `mcpwb tap --name NAME -- COMMAND ARGS...`, editing
//! only its `command` and `args` (comments, order and every other byte
//! kept). **Untap** puts the file's bytes back as they were when the file is
//! still as the tap left it, else sets that entry's `command` and `args`
//! back. What was tapped is written down in the data folder
//! (`tapped-hosts.json`); nothing becomes trusted by being tapped.
//!
//! A file that is a symbolic link is not edited (an atomic write would
//! replace the link with a file): edit its target.
//!
//! The record is a way back, not an authority: Untap puts the whole file
//! back only when its `before` tapped again gives the file as it is now,
//! and otherwise takes the entry's command and args from the tapped entry
//! itself (`… tap --name=NAME -- COMMAND ARGS`); an entry the person
//! deleted since stays deleted. Files are recorded by their real path.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::toml_file;
use crate::edit::{EditOp, apply};
use crate::error::{Error, Result};
use crate::files::record_key;

/// One tapped entry: enough to put it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The host's config file.
    pub path: String,
    /// The entry's name.
    pub name: String,
    /// The file's text before the tap.
    pub before: String,
    /// The file's text as the tap left it.
    pub after: String,
    /// The entry's `command` before the tap.
    pub command: Value,
    /// Its `args` before the tap (null: it had none).
    pub args: Value,
}

/// Every tapped entry, as kept in the data folder.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Records {
    /// In the order tapped.
    pub tapped: Vec<Record>,
}

impl Records {
    /// The records in `file` (none when it does not exist).
    pub fn load(file: &Path) -> Result<Records> {
        match crate::files::read_no_follow(file, 64 * 1024 * 1024) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::ConfigEdit {
                message: format!("{}: {e}", file.display()),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Records::default()),
            Err(source) => Err(Error::ConfigUnreadable {
                path: file.to_path_buf(),
                source,
            }),
        }
    }

    fn save(&self, file: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::ConfigWrite {
                path: file.to_path_buf(),
                source,
            })?;
        }
        crate::files::write_private_atomic(file, text.as_bytes())
    }

    /// The record of `name` in `path`.
    pub fn find(&self, path: &str, name: &str) -> Option<&Record> {
        self.tapped
            .iter()
            .find(|r| r.path == path && r.name == name)
    }
}

fn edit_error(message: String) -> Error {
    Error::ConfigEdit { message }
}

/// Read a host's file, refusing a link (the refusal says where it points).
pub(super) fn read(path: &Path) -> Result<String> {
    let bytes = crate::files::read_no_follow(path, 64 * 1024 * 1024).map_err(|source| {
        Error::ConfigUnreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    String::from_utf8(bytes).map_err(|_| Error::ConfigUnreadable {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// The raw entry `name` of a host's file.
fn entry(path: &Path, text: &str, name: &str) -> Result<Map<String, Value>> {
    find_entry(path, text, name)?.ok_or_else(|| {
        edit_error(format!(
            "there is no server named \"{name}\" in {}",
            path.display()
        ))
    })
}

/// The raw entries of a host's file: `mcpServers` and `servers` of a JSON
/// file, `[mcp_servers.NAME]` of Codex's TOML (its `command` and `args`
/// are spelt as ours).
fn raw_entries(path: &Path, text: &str) -> Result<Vec<(String, Map<String, Value>)>> {
    if toml_file::is_toml(path) {
        return toml_file::servers(path, text);
    }
    let doc = crate::parse_jsonc(path, text)?;
    let mut out = Vec::new();
    for key in ["mcpServers", "servers"] {
        for (name, raw) in doc[key].as_object().into_iter().flatten() {
            if let Some(raw) = raw.as_object() {
                out.push((name.clone(), raw.clone()));
            }
        }
    }
    Ok(out)
}

/// The raw entry `name` of a host's file, if it has one.
fn find_entry(path: &Path, text: &str, name: &str) -> Result<Option<Map<String, Value>>> {
    Ok(raw_entries(path, text)?
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, e)| e))
}

/// `text` with entry `name` running `command` `args` (null: no args), and
/// every other byte as it was.
fn launch(path: &Path, text: &str, name: &str, command: &Value, args: &Value) -> Result<String> {
    if toml_file::is_toml(path) {
        return toml_file::set_launch(path, text, name, command, args);
    }
    let mut fields = Map::new();
    fields.insert("command".into(), command.clone());
    fields.insert("args".into(), args.clone());
    apply(
        path,
        text,
        &EditOp::Upsert {
            name: name.to_string(),
            fields,
        },
    )
}

/// The `--name` argument a tap is given: one argument, so a name that
/// looks like a flag (`-x`) is still the name.
fn name_arg(name: &str) -> String {
    format!("--name={name}")
}

/// The command and args a tapped entry runs behind the tap (what follows
/// its `--`), or None when it is not a tap's entry.
fn behind_tap(raw: &Map<String, Value>) -> Option<(Value, Value)> {
    if !is_tapped(raw) {
        return None;
    }
    let args = raw.get("args")?.as_array()?;
    let at = args.iter().position(|a| a == "--")?;
    let command = args.get(at + 1)?.clone();
    let rest = &args[at + 2..];
    let rest = if rest.is_empty() {
        Value::Null
    } else {
        Value::Array(rest.to_vec())
    };
    Some((command, rest))
}

/// Whether two `args` say the same (absent and `[]` are no args).
fn same_args(a: &Value, b: &Value) -> bool {
    let empty = |v: &Value| v.is_null() || v.as_array().is_some_and(Vec::is_empty);
    a == b || (empty(a) && empty(b))
}

/// The fields a tap writes into `name`'s entry to run `command` `args`
/// behind `mcpwb`, with `--keep`: a server that exits by itself (a crash, a
/// kill while its author debugs it) is started again with the host kept
/// connected, its handshake replayed — the host never sees it go.
fn tapped_args(name: &str, command: &Value, args: &Value) -> Value {
    let mut new_args = vec![
        json!("tap"),
        json!(name_arg(name)),
        json!("--keep"),
        json!("--"),
        command.clone(),
    ];
    new_args.extend(args.as_array().cloned().unwrap_or_default());
    Value::Array(new_args)
}

/// One entry of a host's file, as the window's list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostEntry {
    /// The entry's name.
    pub name: String,
    /// What it runs (its command line) or reaches (its URL).
    pub target: String,
    /// It runs through `mcpwb tap` now.
    pub tapped: bool,
    /// The workbench tapped it (Untap can put it back).
    pub untappable: bool,
    /// A remote server: tapped with `mcpwb tap --to URL`, not here.
    pub remote: bool,
}

/// The entries of a host's file (`mcpServers` and `servers`), each with
/// whether it is tapped; `records` says which the workbench can put back.
pub fn entries(records: &Path, path: &Path) -> Result<Vec<HostEntry>> {
    let text = read(path)?;
    let all = Records::load(records)?;
    let file_key = record_key(path);
    Ok(raw_entries(path, &text)?
        .into_iter()
        .map(|(name, raw)| HostEntry {
            target: super::target_of(&name, &raw),
            tapped: is_tapped(&raw),
            untappable: all.find(&file_key, &name).is_some(),
            remote: raw.get("command").is_none(),
            name,
        })
        .collect())
}

/// Whether an entry runs through a tap already.
pub fn is_tapped(entry: &Map<String, Value>) -> bool {
    entry
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .is_some_and(|a| a == "tap")
        && entry
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| Path::new(c).file_name().is_some_and(|f| f == "mcpwb"))
}

/// Whether a host's file of dialect `d` has its entries tapped in place:
/// the JSON files with `mcpServers` or `servers`, and Codex's TOML. Zed's
/// settings, Goose's and Continue's YAML and OpenCode's command lists are
/// not (a tap is put in their entry by hand).
pub fn tappable(d: super::Dialect) -> bool {
    use super::Dialect as D;
    !matches!(
        d,
        D::Zed | D::Goose | D::Continue | D::OpenCode | D::Registry
    )
}

/// Route `name` of the host's file `path` through `mcpwb` (its path);
/// written down in `records`.
pub fn tap(records: &Path, path: &Path, name: &str, mcpwb: &str) -> Result<()> {
    // The records, then the host's file: one order for every tap and untap.
    let _records = crate::files::lock_beside(records);
    let file = HostFile::open(path)?;
    let before = file.text.clone();
    let dialect = super::guess(path, &before);
    if !tappable(dialect) {
        return Err(edit_error(format!(
            "{} is {}'s: its entries are not tapped in place; in its entry, run `mcpwb tap --name {name} -- COMMAND ARGS…` instead of the server",
            path.display(),
            dialect.id()
        )));
    }
    let raw = entry(path, &before, name)?;
    if is_tapped(&raw) {
        return Err(edit_error(format!("{name} runs through the tap already")));
    }
    let Some(command) = raw.get("command").filter(|c| c.is_string()).cloned() else {
        let url = raw.get("url").and_then(Value::as_str).unwrap_or("its URL");
        return Err(edit_error(format!(
            "{name} is a remote server: run `mcpwb tap --to {url}` and name the URL it prints in the host's config"
        )));
    };
    let args = raw.get("args").cloned().unwrap_or(Value::Null);
    let after = launch(
        path,
        &before,
        name,
        &json!(mcpwb),
        &tapped_args(name, &command, &args),
    )?;
    let mut all = Records::load(records)?;
    let key = record_key(path);
    all.tapped.retain(|r| !(r.path == key && r.name == name));
    all.tapped.push(Record {
        path: key,
        name: name.to_string(),
        before: before.clone(),
        after: after.clone(),
        command,
        args,
    });
    // Written down first: an entry is never tapped without the way back.
    all.save(records)?;
    file.write(path, &after)
}

/// Put `name` of `path` back as it was before [`tap`]. What it says: the
/// entry is back, or it was no longer in the file (the record is dropped,
/// nothing is written).
pub fn untap(records: &Path, path: &Path, name: &str) -> Result<Untapped> {
    let _records = crate::files::lock_beside(records);
    let all = Records::load(records)?;
    let key = record_key(path);
    let record = all.find(&key, name).cloned().ok_or_else(|| {
        edit_error(format!(
            "{name} of {} was not tapped by the workbench",
            path.display()
        ))
    })?;
    let file = HostFile::open(path)?;
    let now = file.text.clone();
    let forget = |mut all: Records| {
        all.tapped.retain(|r| !(r.path == key && r.name == name));
        all.save(records)
    };
    let Some(raw) = find_entry(path, &now, name)? else {
        // The person deleted it since: it stays deleted.
        forget(all)?;
        return Ok(Untapped::Gone);
    };
    let Some((command, args)) = behind_tap(&raw) else {
        // Not a tap's entry any more (the person changed it): left as it is.
        forget(all)?;
        return Ok(Untapped::NotTapped);
    };
    // The whole file back only when the record's `before`, tapped again,
    // is the file as it is now: a record that says otherwise is not taken
    // at its word.
    let genuine = now == record.after
        && find_entry(path, &record.before, name)?.is_some_and(|b| {
            b.get("command") == Some(&command)
                && same_args(b.get("args").unwrap_or(&Value::Null), &args)
                && launch(
                    path,
                    &record.before,
                    name,
                    raw.get("command").unwrap_or(&Value::Null),
                    &tapped_args(name, &command, &args),
                )
                .is_ok_and(|t| t == now)
        });
    let restored = if genuine {
        record.before.clone()
    } else {
        // Changed since: only this entry's command and args go back, as
        // the tapped entry itself runs them (the record's spelling of no
        // args, absent or [], when it says the same).
        let args = if same_args(&record.args, &args) {
            record.args.clone()
        } else {
            args
        };
        launch(path, &now, name, &command, &args)?
    };
    file.write(path, &restored)?;
    forget(all)?;
    Ok(Untapped::Back)
}

/// What [`untap`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untapped {
    /// The entry runs its own command again.
    Back,
    /// The entry is no longer in the file: nothing was written.
    Gone,
    /// The entry no longer runs through the tap: nothing was written.
    NotTapped,
}

impl Untapped {
    /// What a person is told of `name` in `path`.
    pub fn said(self, name: &str, path: &Path) -> String {
        match self {
            Untapped::Back => format!("{name} in {} is back as it was", path.display()),
            Untapped::Gone => format!(
                "{name} is no longer in {}: it stays deleted (the workbench forgot its tap)",
                path.display()
            ),
            Untapped::NotTapped => format!(
                "{name} in {} no longer runs through the tap: left as it is",
                path.display()
            ),
        }
    }
}

/// A host's file read under its lock (`files::lock_file`), held until the
/// edit made from it is written ([`HostFile::write`]): the window and
/// `mcpwb` tapping or adding into the same file at once each edit what
/// the other wrote, never refused for it.
pub(super) struct HostFile {
    _held: Option<nix::fcntl::Flock<std::fs::File>>,
    pub text: String,
}

impl HostFile {
    /// Lock `path`, then read it (never through a link).
    pub(super) fn open(path: &Path) -> Result<HostFile> {
        let held = crate::files::lock_file(path);
        Ok(HostFile {
            _held: held,
            text: read(path)?,
        })
    }

    /// Replace the file with `text`, made from what was read. The host
    /// takes no lock of ours: a file it changed since is a conflict,
    /// never written over.
    pub(super) fn write(self, path: &Path, text: &str) -> Result<()> {
        if read(path)? != self.text {
            return Err(Error::ConfigConflict {
                path: path.to_path_buf(),
            });
        }
        crate::document::write_atomic(path, text.as_bytes(), false)
    }
}

#[cfg(test)]
mod tests;
