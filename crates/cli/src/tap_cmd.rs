//! `mcpwb tap`, `mcpwb session`, `mcpwb mock`: the workbench between a host
//! and its server (every byte passed unchanged, each message kept), the
//! sessions kept, and a session served as a stand-in server.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::json;
use workbench_core::config::Transport;
use workbench_store::Store;
use workbench_tap::session::Session;
use workbench_tap::stdio::Spawn;

use crate::print::{clean, line};
use crate::{Cli, Failure};

#[derive(Args, Debug)]
pub struct TapArgs {
    /// Run this entry of your mcp.json (with its environment, secrets and
    /// trust) instead of a command after `--`.
    #[arg(long, conflicts_with = "command")]
    server: Option<String>,
    /// Pass the bytes and keep nothing.
    #[arg(long)]
    no_record: bool,
    /// Restart the server when files matching GLOB change (under its
    /// folder), the host kept connected: its handshake replayed, calls in
    /// flight told the server restarted, list changes announced. A
    /// `--server` entry's `"dev": {"watch": ...}` is used when none is given.
    #[arg(long, value_name = "GLOB")]
    watch: Vec<String>,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true)]
    command: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// The sessions kept, newest first.
    List {
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// One session: its host and server, then each message with its time
    /// and direction.
    Show { id: i64 },
    /// A session as a file to share (JSON Lines: a header, then one message
    /// a line); to stdout without -o.
    Export {
        id: i64,
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Keep a session file in the store (its new id is printed).
    Import { file: PathBuf },
    /// The session's tool calls as a suite (arguments as sent, each result
    /// a snapshot): the next version of the server is held to what the
    /// host saw. Written to DIR (default: ./.mcp-workbench/suites) as
    /// NAME.json with its snapshots, trusted as yours.
    ToSuite {
        id: i64,
        /// The suite's name (default: session-ID).
        #[arg(long)]
        name: Option<String>,
        /// The server of your mcp.json the suite calls (default: the
        /// session's).
        #[arg(long)]
        server: Option<String>,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
pub struct MockArgs {
    /// A kept session's id, or a session file.
    session: String,
    /// Match tools and prompts by name and resources by URI only (the rest
    /// by method and parameters).
    #[arg(long = "match", value_parser = ["exact", "name"], default_value = "exact")]
    how: String,
}

fn store() -> Result<Store, Failure> {
    Store::open_in(&workbench_core::settings::data_dir())
        .map_err(|e| Failure::Usage(format!("the workbench's store: {e}")))
}

/// The server a tap runs, and the values to mask in what it keeps.
/// The server, its name, what to mask, and the patterns that restart it.
type Tapped = (String, Spawn, Vec<String>, Vec<String>);

fn spawn_of(cli: &Cli, args: &TapArgs) -> Result<Tapped, Failure> {
    if let Some(name) = &args.server {
        let mut config = crate::config_cmd::load(cli)?;
        let trust = workbench_core::config::trust::Trust::app();
        trust.mark(&mut config);
        let entry = config
            .servers
            .iter()
            .find(|e| e.name == *name)
            .ok_or_else(|| workbench_core::Error::UnknownServer(name.clone()))?;
        let file =
            workbench_core::config::trust::file_of(&config.path, config.project.as_deref(), entry);
        if !entry.trusted {
            if !cli.trust {
                return Err(Failure::Usage(format!(
                    "{name} is not trusted: read what it runs with `mcpwb config show {name}`, then `mcpwb config trust {name}` (or pass --trust)"
                )));
            }
            trust.trust(&file, entry)?;
        }
        let vars = workbench_core::config::vars::Vars::from_process(cli.project.clone());
        let expanded = entry.expanded(&vars)?;
        let secrets = entry.secret_values(&expanded, &vars);
        let Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } = expanded.transport
        else {
            return Err(Failure::Usage(format!(
                "{name} is a remote server: the tap runs stdio servers (an HTTP tap is not built yet)"
            )));
        };
        let base = file.parent().map(std::path::Path::to_path_buf);
        let cwd = cwd.map(|c| match &base {
            Some(b) if std::path::Path::new(&c).is_relative() => b.join(c),
            _ => PathBuf::from(c),
        });
        let watch = entry
            .dev
            .as_ref()
            .map(|d| d.watch.clone())
            .unwrap_or_default();
        let spawn = Spawn {
            program: command,
            args,
            env,
            cwd: cwd.or(base),
        };
        return Ok((name.clone(), spawn, secrets, watch));
    }
    let Some((program, rest)) = args.command.split_first() else {
        return Err(Failure::Usage(
            "the server to tap: `mcpwb tap -- COMMAND ARGS...` or `mcpwb tap --server NAME`".into(),
        ));
    };
    let name = std::path::Path::new(program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().to_string());
    Ok((
        name,
        Spawn {
            program: program.clone(),
            args: rest.to_vec(),
            ..Spawn::default()
        },
        Vec::new(),
        Vec::new(),
    ))
}

/// `mcpwb tap`: nothing of ours goes to stdout (it is the host's); what the
/// tap has to say goes to stderr.
pub async fn tap(cli: &Cli, args: &TapArgs) -> Result<(), Failure> {
    let (name, spawn, secrets, dev_watch) = spawn_of(cli, args)?;
    let patterns = if args.watch.is_empty() {
        dev_watch
    } else {
        args.watch.clone()
    };
    let command = std::iter::once(spawn.program.as_str())
        .chain(spawn.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let recording = if args.no_record {
        None
    } else {
        match store().and_then(|s| {
            workbench_tap::record::start(s, &name, &command, secrets)
                .map_err(|e| Failure::Usage(e.to_string()))
        }) {
            Ok(r) => Some(r),
            Err(Failure::Usage(why)) => {
                eprintln!("mcpwb tap: nothing is kept ({why}); the bytes still pass");
                None
            }
            Err(other) => return Err(other),
        }
    };
    let (recorder, writer) = match recording {
        Some((r, w)) => (Some(r), Some(w)),
        None => (None, None),
    };
    let code = if patterns.is_empty() {
        workbench_tap::stdio::run(&spawn, recorder).await
    } else {
        let root = match &spawn.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| Failure::Usage(e.to_string()))?,
        };
        let watch = workbench_tap::keep::Watch { root, patterns };
        workbench_tap::keep::run(&spawn, &watch, recorder).await
    }
    .map_err(|e| Failure::Usage(e.to_string()))?;
    if let Some(w) = writer {
        w.finish();
    }
    if code == 0 {
        Ok(())
    } else {
        Err(Failure::Exit(u8::try_from(code).unwrap_or(1)))
    }
}

pub fn session(cli: &Cli, action: &SessionCommand) -> Result<(), Failure> {
    let store = store()?;
    match action {
        SessionCommand::List { limit } => {
            let rows = store
                .taps(*limit)
                .map_err(|e| Failure::Usage(e.to_string()))?;
            if cli.json {
                line(&serde_json::to_string(&json!({ "sessions": rows })).unwrap_or_default());
                return Ok(());
            }
            if rows.is_empty() {
                line(
                    "no sessions yet: put `mcpwb tap -- COMMAND...` where a host's config runs the server",
                );
            }
            for r in rows {
                let host = match (&r.host, &r.host_version) {
                    (Some(h), Some(v)) => format!("{} {}", clean(h), clean(v)),
                    (Some(h), None) => clean(h),
                    _ => "(no handshake)".into(),
                };
                line(&format!(
                    "{:>5}  {}  {:<24} → {:<16} {:<10} {:>6} messages{}{}",
                    r.id,
                    crate::history_cmd::when(r.started_at),
                    host,
                    clean(&r.server),
                    r.protocol.as_deref().map(clean).unwrap_or_default(),
                    r.messages,
                    if r.dropped > 0 {
                        format!(" ({} not kept)", r.dropped)
                    } else {
                        String::new()
                    },
                    if r.ended_at.is_none() {
                        "  (running)"
                    } else {
                        ""
                    },
                ));
            }
            Ok(())
        }
        SessionCommand::Show { id } => {
            let s = Session::from_store(&store, *id).map_err(Failure::Usage)?;
            if cli.json {
                print!("{}", s.to_jsonl());
                return Ok(());
            }
            line(&format!("session {id}: {}", clean(&s.header.to_string())));
            let start = s.messages.first().map_or(0, |m| m.at_ms);
            for m in &s.messages {
                let v: serde_json::Value = serde_json::from_str(&m.text).unwrap_or_default();
                let what = match (v["method"].as_str(), v.get("id")) {
                    (Some(method), Some(id)) => format!("{method} (id {id})"),
                    (Some(method), None) => method.to_string(),
                    (None, Some(id)) if v.get("error").is_some() => format!("error of {id}"),
                    (None, Some(id)) => format!("result of {id}"),
                    _ => "(not JSON-RPC)".into(),
                };
                let arrow = if m.direction == "host" {
                    "host → server"
                } else {
                    "server → host"
                };
                line(&format!(
                    "{:>9.3} s  {arrow}  {}  {} B{}",
                    (m.at_ms - start) as f64 / 1000.0,
                    clean(&what),
                    m.size,
                    if m.cut { " (kept cut)" } else { "" }
                ));
            }
            Ok(())
        }
        SessionCommand::Export { id, out } => {
            let text = Session::from_store(&store, *id)
                .map_err(Failure::Usage)?
                .to_jsonl();
            match out {
                Some(path) => {
                    workbench_core::files::write_private_atomic(path, text.as_bytes())?;
                    eprintln!("session {id} written to {}", path.display());
                }
                None => print!("{text}"),
            }
            Ok(())
        }
        SessionCommand::ToSuite {
            id,
            name,
            server,
            dir,
        } => {
            let session = Session::from_store(&store, *id).map_err(Failure::Usage)?;
            let server = server
                .clone()
                .or_else(|| session.header["server"].as_str().map(str::to_string))
                .unwrap_or_default();
            let (suite, snapshots, left_out) = workbench_tap::session::to_suite(&session, &server);
            let cases = suite["cases"].as_array().map_or(0, Vec::len);
            if cases == 0 {
                return Err(Failure::Usage(format!(
                    "session {id} has no answered tools/call to make a case of"
                )));
            }
            let name = name.clone().unwrap_or_else(|| format!("session-{id}"));
            let dir = dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(workbench_calls::suite::DEFAULT_DIR));
            std::fs::create_dir_all(dir.join("__snapshots__"))
                .map_err(|e| Failure::Usage(format!("{}: {e}", dir.display())))?;
            let path = dir.join(format!("{name}.json"));
            if path.exists() {
                return Err(Failure::Usage(format!(
                    "{} exists: choose another --name",
                    path.display()
                )));
            }
            let text = serde_json::to_string_pretty(&suite).unwrap_or_default() + "\n";
            let snaps = serde_json::to_string_pretty(&snapshots).unwrap_or_default() + "\n";
            workbench_core::files::write_private_atomic(
                &dir.join("__snapshots__").join(format!("{name}.json")),
                snaps.as_bytes(),
            )?;
            workbench_core::files::write_private_atomic(&path, text.as_bytes())?;
            // Written by the person's own command: trusted as written.
            workbench_calls::suite::trust::SuiteTrust::app()
                .trust(
                    &path,
                    &workbench_calls::suite::trust::fingerprint(text.as_bytes()),
                )
                .map_err(Failure::Usage)?;
            let said = format!(
                "{cases} case(s) written to {}{}; run them with `mcpwb test {}`",
                path.display(),
                if left_out > 0 {
                    format!(" ({left_out} call(s) answered with an error left out)")
                } else {
                    String::new()
                },
                path.display()
            );
            if cli.json {
                line(&json!({ "suite": path, "cases": cases, "leftOut": left_out }).to_string());
            } else {
                line(&said);
            }
            Ok(())
        }
        SessionCommand::Import { file } => {
            let bytes = workbench_core::files::read_no_follow(file, 512 * 1024 * 1024)
                .map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
            let s = Session::from_jsonl(&String::from_utf8_lossy(&bytes))
                .map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
            let id = s.import(&store).map_err(Failure::Usage)?;
            if cli.json {
                line(&json!({ "imported": id }).to_string());
            } else {
                line(&format!("imported as session {id}"));
            }
            Ok(())
        }
    }
}

/// `mcpwb mock`: a session served over stdio until the host leaves; a
/// summary on stderr.
pub async fn mock(_cli: &Cli, args: &MockArgs) -> Result<(), Failure> {
    let session = match args.session.parse::<i64>() {
        Ok(id) => Session::from_store(&store()?, id).map_err(Failure::Usage)?,
        Err(_) => {
            let path = PathBuf::from(&args.session);
            let bytes = workbench_core::files::read_no_follow(&path, 512 * 1024 * 1024)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            Session::from_jsonl(&String::from_utf8_lossy(&bytes))
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?
        }
    };
    let how = if args.how == "name" {
        workbench_tap::mock::Match::Name
    } else {
        workbench_tap::mock::Match::Exact
    };
    let mut mock = workbench_tap::mock::Mock::new(&session, how);
    workbench_tap::mock::serve_stdio(&mut mock)
        .await
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let never = mock.never_asked();
    eprintln!(
        "mcpwb mock: {} answered as recorded, {} not matched; {} recorded request(s) never asked{}",
        mock.answered,
        mock.unmatched,
        never.len(),
        if never.is_empty() {
            String::new()
        } else {
            format!(": {}", never.join(", "))
        }
    );
    Ok(())
}
