//! `mcpwb config ...`: look at and change mcp.json without connecting.
//! Every change goes through the core's lossless edits and safe saves.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Map, Value, json};
use workbench_core::Error;
use workbench_core::config::dialects;
use workbench_core::config::document::Document;
use workbench_core::config::edit::EditOp;
use workbench_core::config::secrets::Keychain;
use workbench_core::config::vars::keychain_refs;
use workbench_core::config::{ConfigFile, Scope};

use crate::config_fields::{Fields, ScopeArg};
use crate::{Cli, Failure};

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Check the file: syntax (line:column) and every entry.
    Validate,
    /// Print the entries as written (references unexpanded).
    Show {
        /// Only this server's entry.
        server: Option<String>,
    },
    /// Add a server.
    Add {
        /// The new server's name (its tools show as NAME__tool).
        name: String,
        #[command(flatten)]
        fields: Fields,
        /// Which file gets it: the user's, or the project's .mcp.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
    /// Change some settings of a server; the rest keep their text.
    Edit {
        /// The server's name in mcp.json.
        name: String,
        #[command(flatten)]
        fields: Fields,
        /// Remove these keys (e.g. --unset cwd).
        #[arg(long)]
        unset: Vec<String>,
    },
    /// Remove a server's entry (its keychain secrets too).
    Remove {
        /// The server's name in mcp.json.
        name: String,
    },
    /// Give a server another name.
    Rename {
        /// Its name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Let a disabled server start again.
    Enable {
        /// The server's name in mcp.json.
        name: String,
    },
    /// Keep a server's entry but never start it.
    Disable {
        /// The server's name in mcp.json.
        name: String,
    },
    /// Import servers from another client's config file.
    Import {
        /// The other client's config file (Claude, Cursor, VS Code, …).
        path: PathBuf,
        /// The file's dialect (guessed from its name and content if absent).
        #[arg(long)]
        from: Option<String>,
        /// Only these servers.
        #[arg(long)]
        only: Vec<String>,
        /// Replace servers of the same name (default: keep ours, skip theirs).
        #[arg(long)]
        replace: bool,
        /// Show what would be imported; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Write the servers in another client's dialect (to stdout or --output).
    Export {
        /// The dialect to write: a client's id, as `config discover` names
        /// them (claude-desktop, claude-code, cursor, vscode, …).
        #[arg(long)]
        to: String,
        /// The file to write (default: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Overwrite --output if it exists.
        #[arg(long)]
        force: bool,
    },
    /// List other clients' config files found on this machine.
    Discover,
    /// Route a host's server through `mcpwb tap`: its entry in the host's
    /// config (FILE, or a dialect's known file: claude-desktop, cursor, …)
    /// runs the tap with its command after `--`; only `command` and `args`
    /// change. Every connection the host makes is then a session.
    Tap {
        /// The entry's name in the host's config.
        name: String,
        /// The host's config file, or a dialect id for its known file.
        #[arg(long = "in", value_name = "FILE|DIALECT")]
        file: String,
    },
    /// Put a tapped entry back: the file's bytes as they were when nothing
    /// else changed it since, else that entry's command and args.
    Untap {
        /// The entry's name in the host's config.
        name: String,
        /// The host's config file, or a dialect id for its known file.
        #[arg(long = "in", value_name = "FILE|DIALECT")]
        file: String,
    },
    /// Trust a server from elsewhere (a project's file, an import, an edit
    /// outside the workbench) so it may start; read `config show NAME` first.
    Trust {
        /// The server's name in mcp.json.
        name: String,
    },
    /// Give the value of `${input:ID}` (read from stdin when --value is absent);
    /// it is kept in the OS keychain for each server that uses it (each
    /// entry reads only its own answers).
    Input {
        /// The input's id (what `${input:ID}` names).
        id: String,
        /// Its value (default: read from stdin, not echoed).
        #[arg(long)]
        value: Option<String>,
        /// Only for this server (repeatable; default: every server using it).
        #[arg(long = "server")]
        servers: Vec<String>,
    },
}

pub(crate) fn usage(m: impl Into<String>) -> Failure {
    Failure::Usage(m.into())
}

fn user_path(cli: &Cli) -> PathBuf {
    cli.config
        .clone()
        .unwrap_or_else(workbench_core::config::default_user_config)
}

fn project_dir(cli: &Cli) -> Option<PathBuf> {
    cli.project.clone()
}

pub(crate) fn load(cli: &Cli) -> Result<ConfigFile, Failure> {
    Ok(ConfigFile::load_scoped(
        &user_path(cli),
        project_dir(cli).as_deref(),
    )?)
}

/// Apply one edit to `path` and save it safely.
/// The person's own edit: what it adds or changes is trusted as written.
/// A renamed entry's own secrets follow it.
fn change(cli: &Cli, path: &Path, op: EditOp) -> Result<(), Failure> {
    let mut doc = Document::open(path)?;
    let settings =
        workbench_core::settings::SettingsFile::new(workbench_core::settings::default_path());
    Ok(workbench_calls::rules::save_own_edit(
        &mut doc,
        &op,
        &Keychain::app(),
        &workbench_core::config::trust::Trust::app(),
        &settings,
        path == user_path(cli),
    )?)
}

/// The file that holds `name` (edits go back where the entry came from).
fn file_of(cli: &Cli, name: &str) -> Result<PathBuf, Failure> {
    let cfg = load(cli)?;
    let entry = cfg
        .servers
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| Error::UnknownServer(name.to_string()))?;
    Ok(cfg.file_of(entry).to_path_buf())
}

pub(crate) fn raw_servers(path: &Path) -> Result<dialects::Entries, Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| {
        workbench_core::config::Error::ConfigUnreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(workbench_core::config::raw_entries(path, &text)?)
}

pub(crate) fn say(cli: &Cli, text: String, data: Value) {
    if cli.json {
        println!("{data}");
    } else {
        println!("{text}");
    }
}

pub fn run(cli: &Cli, command: &ConfigCommand) -> Result<(), Failure> {
    match command {
        ConfigCommand::Validate => validate(cli),
        ConfigCommand::Trust { name } => trust(cli, name),
        ConfigCommand::Show { server } => show(cli, server.as_deref()),
        ConfigCommand::Add {
            name,
            fields,
            scope,
        } => add(cli, name, fields, *scope),
        ConfigCommand::Edit {
            name,
            fields,
            unset,
        } => edit(cli, name, fields, unset),
        ConfigCommand::Remove { name } => remove(cli, name),
        ConfigCommand::Rename { from, to } => {
            let path = file_of(cli, from)?;
            change(
                cli,
                &path,
                EditOp::Rename {
                    from: from.clone(),
                    to: to.clone(),
                },
            )?;
            say(
                cli,
                format!("renamed {from} to {to}"),
                json!({ "renamed": from, "to": to }),
            );
            Ok(())
        }
        ConfigCommand::Enable { name } | ConfigCommand::Disable { name } => {
            let disabled = matches!(command, ConfigCommand::Disable { .. });
            let path = file_of(cli, name)?;
            change(
                cli,
                &path,
                EditOp::SetDisabled {
                    name: name.clone(),
                    disabled,
                },
            )?;
            let word = if disabled { "disabled" } else { "enabled" };
            say(cli, format!("{word} {name}"), json!({ word: name }));
            Ok(())
        }
        ConfigCommand::Import {
            path,
            from,
            only,
            replace,
            dry_run,
        } => crate::config_io::import(cli, path, from.as_deref(), only, *replace, *dry_run),
        ConfigCommand::Export { to, output, force } => {
            crate::config_io::export(cli, load(cli)?, to, output.as_deref(), *force)
        }
        ConfigCommand::Discover => crate::config_io::discover(cli, project_dir(cli).as_deref()),
        ConfigCommand::Tap { name, file } => {
            crate::config_io::tap(cli, project_dir(cli).as_deref(), name, file, true)
        }
        ConfigCommand::Untap { name, file } => {
            crate::config_io::tap(cli, project_dir(cli).as_deref(), name, file, false)
        }
        ConfigCommand::Input { id, value, servers } => input(cli, id, value.as_deref(), servers),
    }
}

/// `config validate`: the file's problems, each with where it is.
fn validate(cli: &Cli) -> Result<(), Failure> {
    let cfg = load(cli)?;
    let problems: Vec<Value> = cfg
        .problems
        .iter()
        .map(|p| json!({ "pointer": p.pointer, "message": p.message, "scope": p.scope }))
        .collect();
    if !cli.json {
        for p in &cfg.problems {
            let file = if p.scope == Scope::Project {
                cfg.project.as_deref()
            } else {
                Some(cfg.path.as_path())
            };
            println!(
                "{}: {}: {}",
                file.unwrap_or(&cfg.path).display(),
                p.pointer,
                p.message
            );
        }
    }
    say(
        cli,
        format!(
            "{} server(s), {} problem(s)",
            cfg.servers.len(),
            problems.len()
        ),
        json!({ "servers": cfg.servers.len(), "problems": problems }),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Exit(crate::exit::CONFIG))
    }
}

/// `config trust NAME`: the entry trusted as it is now.
fn trust(cli: &Cli, name: &str) -> Result<(), Failure> {
    let asked = workbench_app::trust::trust(&load(cli)?, name)?;
    say(
        cli,
        format!("trusted {name}: {} (in {})", asked.target, asked.file),
        serde_json::to_value(&asked).unwrap_or_default(),
    );
    Ok(())
}

/// `config show [NAME]`: the entries as written.
fn show(cli: &Cli, server: Option<&str>) -> Result<(), Failure> {
    let cfg = load(cli)?;
    let mut files = vec![cfg.path.clone()];
    files.extend(cfg.project.clone());
    let mut out = Map::new();
    for f in files.iter().filter(|f| f.exists()) {
        for (name, entry) in raw_servers(f)? {
            if server.as_ref().is_none_or(|s| *s == name) {
                out.insert(name, Value::Object(entry));
            }
        }
    }
    if let Some(s) = server
        && !out.contains_key(s)
    {
        return Err(Error::UnknownServer(s.to_string()).into());
    }
    let text = serde_json::to_string_pretty(&out).unwrap_or_default();
    say(cli, text, Value::Object(out));
    Ok(())
}

/// `config add NAME`: a new entry, its secrets in the keychain.
fn add(cli: &Cli, name: &str, fields: &Fields, scope: ScopeArg) -> Result<(), Failure> {
    let keychain = Keychain::app;
    if !fields.names_a_server() {
        return Err(usage("a server needs --command or --url"));
    }
    let path = match scope {
        ScopeArg::User => user_path(cli),
        ScopeArg::Project => project_dir(cli)
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_default())
            .join(".mcp.json"),
    };
    let existing = Document::open(&path)?;
    if !existing.text.trim().is_empty()
        && ConfigFile::parse(&path, &existing.text)?
            .servers
            .iter()
            .any(|s| s.name == *name)
    {
        return Err(usage(format!(
            "a server named \"{name}\" already exists (use config edit)"
        )));
    }
    let (owner_scope, folder) = match scope {
        ScopeArg::User => (Scope::User, None),
        ScopeArg::Project => (Scope::Project, path.parent().map(Path::to_path_buf)),
    };
    let map = fields.to_map(name, (owner_scope, folder.as_deref()), &keychain)?;
    upsert(cli, &path, name, map, "added")
}

/// Write `map` into entry `name` of the file at `path` and say so (`said`:
/// added, updated).
fn upsert(
    cli: &Cli,
    path: &Path,
    name: &str,
    map: Map<String, Value>,
    said: &str,
) -> Result<(), Failure> {
    change(
        cli,
        path,
        EditOp::Upsert {
            name: name.to_string(),
            fields: map,
        },
    )?;
    let to = if said == "added" { "to" } else { "in" };
    say(
        cli,
        format!("{said} {name} {to} {}", path.display()),
        json!({ said: name, "file": path }),
    );
    Ok(())
}

/// `config edit NAME`: some of the entry's settings changed, the rest kept as written.
fn edit(cli: &Cli, name: &str, fields: &Fields, unset: &[String]) -> Result<(), Failure> {
    let keychain = Keychain::app;
    let path = file_of(cli, name)?;
    let owner_scope = load(cli)?
        .servers
        .iter()
        .find(|e| e.name == *name)
        .map_or(Scope::User, |e| e.scope);
    let folder = path.parent().map(Path::to_path_buf);
    let mut map = fields.to_map(name, (owner_scope, folder.as_deref()), &keychain)?;
    for key in unset {
        map.insert(key.clone(), Value::Null);
    }
    if map.is_empty() {
        return Err(usage(
            "nothing to change: give the settings to change, or --unset KEY",
        ));
    }
    upsert(cli, &path, name, map, "updated")
}

/// `config remove NAME`: the entry and its own secrets and input answers.
fn remove(cli: &Cli, name: &str) -> Result<(), Failure> {
    let path = file_of(cli, name)?;
    let mut secrets: Vec<String> = raw_servers(&path)?
        .into_iter()
        .filter(|(n, _)| n == name)
        .flat_map(|(_, e)| keychain_refs(&Value::Object(e).to_string()))
        .filter(|id| !id.starts_with("input/"))
        .collect();
    if let Some(entry) = load(cli)?.servers.iter().find(|e| e.name == name) {
        let dir = project_dir(cli);
        secrets.extend(
            entry
                .input_refs()
                .iter()
                .map(|id| entry.input_key(dir.as_deref(), id)),
        );
    }
    change(
        cli,
        &path,
        EditOp::Remove {
            name: name.to_string(),
        },
    )?;
    // The entry's own secrets and input answers go with it.
    for id in secrets {
        if let Err(e) = Keychain::app().delete(&id) {
            eprintln!("mcpwb: could not remove {id} from the keychain: {e}");
        }
    }
    say(
        cli,
        format!("removed {name} from {}", path.display()),
        json!({ "removed": name }),
    );
    Ok(())
}

/// `config input ID`: an `${input:ID}` answer kept for each server using it.
fn input(cli: &Cli, id: &str, value: Option<&str>, servers: &[String]) -> Result<(), Failure> {
    let keys: Vec<(String, String)> = load(cli)?
        .input_keys(project_dir(cli).as_deref(), id)
        .into_iter()
        .filter(|(s, _)| servers.is_empty() || servers.contains(s))
        .collect();
    if keys.is_empty() {
        return Err(usage(format!(
            "no server{} uses ${{input:{id}}}",
            if servers.is_empty() {
                String::new()
            } else {
                format!(" named {}", servers.join(", "))
            }
        )));
    }
    let value = match value {
        Some(v) => v.to_string(),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| usage(format!("cannot read the value from stdin: {e}")))?;
            s.trim_end_matches(['\n', '\r']).to_string()
        }
    };
    for (_, key) in &keys {
        Keychain::app().set(key, &value)?;
    }
    let names: Vec<&str> = keys.iter().map(|(s, _)| s.as_str()).collect();
    say(
        cli,
        format!(
            "stored the value of ${{input:{id}}} in the keychain for {}",
            names.join(", ")
        ),
        json!({ "stored": id, "servers": names }),
    );
    Ok(())
}
