//! `mcpwb config ...`: look at and change mcp.json without connecting.
//! Every change goes through the core's lossless edits and safe saves.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};
use workbench_app::config::Place;
use workbench_app::config::{ConfigFile, EditOp, Keychain, Scope};

use crate::config_fields::{Fields, ScopeArg};
use crate::{Cli, Failure};

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Check the file: syntax (line:column) and every entry.
    Validate,
    /// Print the entries as written (references unexpanded).
    #[command(alias = "list")]
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
        /// The command and its arguments, after `--` (instead of --command and --arg).
        #[arg(last = true, value_name = "COMMAND ARGS")]
        run: Vec<String>,
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
    /// outside the workbench) so it may start. `--dry-run` prints what it
    /// runs and its fingerprint, trusting nothing; `--shown FINGERPRINT`
    /// then trusts it only if it still runs that.
    Trust {
        /// The server's name in mcp.json.
        name: String,
        /// Print what would be trusted (command, folder, environment,
        /// what it reads, its fingerprint); trust nothing.
        #[arg(long)]
        dry_run: bool,
        /// The fingerprint `--dry-run` printed: an entry changed since is
        /// refused, nothing trusted.
        #[arg(long, value_name = "FINGERPRINT")]
        shown: Option<String>,
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
        .unwrap_or_else(workbench_app::config::default_user_config)
}

fn project_dir(cli: &Cli) -> Option<PathBuf> {
    cli.project.clone()
}

/// Where the person's servers are written, as this run names them.
pub(crate) fn place(cli: &Cli) -> Place {
    Place::new(user_path(cli), project_dir(cli))
}

pub(crate) fn load(cli: &Cli) -> Result<ConfigFile, Failure> {
    Ok(place(cli).load()?)
}

/// The person's own edit of the entry it names, in the file it lives in.
fn change(cli: &Cli, op: EditOp) -> Result<(), Failure> {
    let edited = place(cli).edit(&op, Scope::User)?;
    for left in edited.secrets_left {
        eprintln!("mcpwb: {left}");
    }
    for kept in edited.kept {
        eprintln!("note: {kept}");
    }
    Ok(())
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
        ConfigCommand::Trust {
            name,
            dry_run,
            shown,
        } => trust(cli, name, *dry_run, shown.as_deref()),
        ConfigCommand::Show { server } => show(cli, server.as_deref()),
        ConfigCommand::Add {
            name,
            fields,
            scope,
            run,
        } => add(cli, name, &fields.with_run(run)?, *scope),
        ConfigCommand::Edit {
            name,
            fields,
            unset,
        } => edit(cli, name, fields, unset),
        ConfigCommand::Remove { name } => remove(cli, name),
        ConfigCommand::Rename { from, to } => {
            place(cli).file_of_existing(from)?;
            change(
                cli,
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
            place(cli).file_of_existing(name)?;
            change(
                cli,
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
        ConfigCommand::Discover => crate::config_io::discover(cli),
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
            "{}, {}",
            crate::print::count(cfg.servers.len(), "server"),
            crate::print::count(problems.len(), "problem")
        ),
        json!({ "servers": cfg.servers.len(), "problems": problems }),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Exit(crate::exit::CONFIG))
    }
}

/// `config trust NAME`: the entry trusted as it is now, or as it was read
/// (`--shown`); `--dry-run` only says what it runs.
fn trust(cli: &Cli, name: &str, dry_run: bool, shown: Option<&str>) -> Result<(), Failure> {
    let config = load(cli)?;
    if dry_run {
        let asked = workbench_app::trust::request(&config, name)?;
        let mut text = format!("{name} runs: {} (in {})", asked.target, asked.file);
        if let Some(cwd) = &asked.cwd {
            text.push_str(&format!("\n  in folder {cwd}"));
        }
        for v in asked.env.iter().chain(&asked.headers) {
            text.push_str(&format!("\n  {}={}", v.name, v.value));
            if let Some(why) = &v.changes_what_runs {
                text.push_str(&format!("  (changes what runs: {why})"));
            }
        }
        if !asked.references.is_empty() {
            text.push_str(&format!("\n  reads {}", asked.references.join(" ")));
        }
        if !asked.auto_approve.is_empty() {
            text.push_str(&format!(
                "\n  runs unasked: {}",
                asked.auto_approve.join(" ")
            ));
        }
        text.push_str(&format!(
            "\nnothing trusted; to trust it as shown: mcpwb config trust {name} --shown {}",
            asked.fingerprint
        ));
        say(cli, text, serde_json::to_value(&asked).unwrap_or_default());
        return Ok(());
    }
    let asked = workbench_app::trust::trust_as_shown(&config, name, shown)?;
    say(
        cli,
        format!("trusted {name}: {} (in {})", asked.target, asked.file),
        serde_json::to_value(&asked).unwrap_or_default(),
    );
    Ok(())
}

/// `config show [NAME]`: the entries as written.
fn show(cli: &Cli, server: Option<&str>) -> Result<(), Failure> {
    let (out, hidden) = place(cli).entries_shown(server)?;
    let text = serde_json::to_string_pretty(&out).unwrap_or_default();
    say(cli, text, Value::Object(out));
    for note in hidden {
        eprintln!("note: {}", crate::print::on_this_run(&note));
    }
    Ok(())
}

/// `config add NAME`: a new entry, its secrets in the keychain.
fn add(cli: &Cli, name: &str, fields: &Fields, scope: ScopeArg) -> Result<(), Failure> {
    let keychain = Keychain::app;
    if !fields.names_a_server() {
        return Err(usage(
            "a server needs a command (`-- COMMAND ARGS…`, or --command) or --url",
        ));
    }
    let path = match scope {
        ScopeArg::User => user_path(cli),
        ScopeArg::Project => project_dir(cli)
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_default())
            .join(".mcp.json"),
    };
    let (owner_scope, folder) = match scope {
        ScopeArg::User => (Scope::User, None),
        ScopeArg::Project => (Scope::Project, path.parent().map(Path::to_path_buf)),
    };
    let map = fields.to_map(name, (owner_scope, folder.as_deref()), &keychain)?;
    let edited = place(cli).add_to(&path, name, map)?;
    for kept in edited.kept {
        eprintln!("note: {kept}");
    }
    said(cli, &path, name, "added");
    Ok(())
}

/// Say that `name` was `did` (added, updated) in the file at `path`.
fn said(cli: &Cli, path: &Path, name: &str, did: &str) {
    let to = if did == "added" { "to" } else { "in" };
    say(
        cli,
        format!("{did} {name} {to} {}", path.display()),
        json!({ did: name, "file": path }),
    );
}

/// `config edit NAME`: some of the entry's settings changed, the rest kept as written.
fn edit(cli: &Cli, name: &str, fields: &Fields, unset: &[String]) -> Result<(), Failure> {
    let keychain = Keychain::app;
    let path = place(cli).file_of_existing(name)?;
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
    change(
        cli,
        EditOp::Upsert {
            name: name.to_string(),
            fields: map,
        },
    )?;
    said(cli, &path, name, "updated");
    Ok(())
}

/// `config remove NAME`: the entry and its own secrets and input answers.
fn remove(cli: &Cli, name: &str) -> Result<(), Failure> {
    let path = place(cli).file_of_existing(name)?;
    change(
        cli,
        EditOp::Remove {
            name: name.to_string(),
        },
    )?;
    say(
        cli,
        format!("removed {name} from {}", path.display()),
        json!({ "removed": name }),
    );
    Ok(())
}

/// `config input ID`: an `${input:ID}` answer kept for each server using it.
fn input(cli: &Cli, id: &str, value: Option<&str>, servers: &[String]) -> Result<(), Failure> {
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
    let names = place(cli).provide_input(id, &value, servers)?;
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
