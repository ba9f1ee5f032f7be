//! `mcpwb session` and `mcpwb mock`: the sessions `mcpwb tap` kept (list,
//! show, export, import, a suite made of one), and a session served as a
//! stand-in server.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::json;
use workbench_app::Store;
use workbench_app::sessions;

use crate::print::{clean, line};
use crate::{Cli, Failure};

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
    Show {
        /// The session's id (`mcpwb session list` shows them).
        id: i64,
    },
    /// A session as a file to share (JSON Lines: a header, then one message
    /// a line); to stdout without -o.
    Export {
        /// The session's id (`mcpwb session list` shows them).
        id: i64,
        /// The file to write (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// HAR 1.2 instead (an HTTP session's exchanges, for any HAR
        /// viewer); the default when OUT ends in .har.
        #[arg(long)]
        har: bool,
        /// Keep credentials in headers as they were kept (masked by
        /// default; the tap keeps them only with `mcpwb tap --unmasked`).
        #[arg(long)]
        unmasked: bool,
    },
    /// The hosts seen, each release's fingerprint (protocol versions
    /// offered, capabilities and extensions declared, methods called in
    /// order, whether it read an App's ui:// resource or listed again after
    /// list_changed), merged over its sessions.
    Hosts,
    /// What changed between two hosts' fingerprints: each is a session id
    /// or HOST@VERSION (all its sessions).
    Compare {
        /// The first: a session id or HOST@VERSION.
        a: String,
        /// The second, compared with the first.
        b: String,
    },
    /// Keep a session file in the store (its new id is printed).
    Import {
        /// A session file (JSON Lines, as `session export` writes it).
        file: PathBuf,
    },
    /// Forget sessions and their messages (their calls stay in the History).
    Delete {
        /// The sessions' ids (mcpwb session list shows them).
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// The session's tool calls as a suite (arguments as sent, kept as
    /// text; each result a snapshot): the next version of the server is held
    /// to what the host saw. Written to DIR (default:
    /// ./.mcp-workbench/suites) as NAME.json with its snapshots, NOT
    /// trusted: what a host sent is someone else's input — read what it
    /// calls, then `mcpwb test --trust-suites` (or Trust in the Suites room).
    ToSuite {
        /// The session's id (`mcpwb session list` shows them).
        id: i64,
        /// The suite's name (default: session-ID).
        #[arg(long)]
        name: Option<String>,
        /// The server of your mcp.json the suite calls (default: the entry
        /// the session was with: its name, URL or command line).
        #[arg(long)]
        server: Option<String>,
        /// The suites folder to write into (default: ./.mcp-workbench/suites).
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
    /// Serve Streamable HTTP on 127.0.0.1:PORT instead of stdio (PORT 0,
    /// or no value: a free one); the URL, with the token, is printed.
    #[arg(long, value_name = "127.0.0.1:PORT", num_args = 0..=1, default_missing_value = "0")]
    http: Option<String>,
}

pub fn store() -> Result<Store, Failure> {
    Ok(workbench_app::history::open()?)
}

pub fn session(cli: &Cli, action: &SessionCommand) -> Result<(), Failure> {
    let store = store()?;
    match action {
        SessionCommand::List { limit } => list(cli, &store, *limit),
        SessionCommand::Show { id } => show(cli, &store, *id),
        SessionCommand::Export {
            id,
            out,
            har,
            unmasked,
        } => export(&store, *id, out.as_deref(), *har, *unmasked),
        SessionCommand::ToSuite {
            id,
            name,
            server,
            dir,
        } => to_suite(
            cli,
            &store,
            *id,
            name.as_deref(),
            server.as_deref(),
            dir.as_deref(),
        ),
        SessionCommand::Hosts => hosts(cli, &store),
        SessionCommand::Compare { a, b } => compare(cli, &store, a, b),
        SessionCommand::Import { file } => import(cli, &store, file),
        SessionCommand::Delete { ids } => delete(cli, &store, ids),
    }
}

/// `session list`: the sessions kept, newest first.
fn list(cli: &Cli, store: &Store, limit: u32) -> Result<(), Failure> {
    let rows = sessions::list(store, limit)?;
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
            "{:>5}  {}  {:<24} → {:<16} {:<10} {:>6} messages{}{}{}",
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
            if r.ended_at.is_none() && r.imported_from.is_none() {
                "  (running)"
            } else {
                ""
            },
            r.imported_from
                .as_deref()
                .map(|f| format!("  (from {})", clean(f)))
                .unwrap_or_default(),
        ));
    }
    Ok(())
}

/// `session show ID`: its host and server, then each message.
fn show(cli: &Cli, store: &Store, id: i64) -> Result<(), Failure> {
    let s = sessions::open(store, id)?;
    if cli.json {
        print!("{}", s.to_jsonl());
        return Ok(());
    }
    let h = &s.header;
    let text = |k: &str| h[k].as_str().map(clean).unwrap_or_default();
    line(&format!(
        "session {id}: {} {} → {} ({}), {}{}",
        text("host"),
        text("hostVersion"),
        text("server"),
        h["protocol"].as_str().map_or("no handshake".into(), clean),
        crate::history_cmd::when(h["startedAt"].as_i64().unwrap_or_default()),
        if h["endedAt"].is_null() {
            ", still connected"
        } else {
            ""
        }
    ));
    let start = s.messages.first().map_or(0, |m| m.at_ms);
    // Each request as it was asked (by whom, what, when): its answer says
    // what it answers and how long it took.
    let mut asked: std::collections::HashMap<(String, String), (String, i64)> =
        std::collections::HashMap::new();
    for m in &s.messages {
        let v: serde_json::Value = serde_json::from_str(&m.text).unwrap_or_default();
        let what = match (v["method"].as_str(), v.get("id")) {
            (Some(method), Some(id)) => {
                let named = asked_for(method, &v["params"]);
                asked.insert(
                    (m.direction.clone(), id.to_string()),
                    (named.clone(), m.at_ms),
                );
                format!("{named} (id {id})")
            }
            (Some(method), None) => method.to_string(),
            (None, Some(id)) => {
                let asker = if m.direction == "host" {
                    "server"
                } else {
                    "host"
                };
                let kind = if v.get("error").is_some() {
                    "error"
                } else {
                    "result"
                };
                match asked.remove(&(asker.to_string(), id.to_string())) {
                    Some((named, at)) => format!(
                        "{kind} of {id} ({named}, {})",
                        crate::print::took_ms((m.at_ms - at) as f64)
                    ),
                    None => format!("{kind} of {id}"),
                }
            }
            _ => "(not JSON-RPC)".into(),
        };
        let arrow = match m.direction.as_str() {
            "host" => "host → server",
            "server" => "server → host",
            _ => "tap          ",
        };
        let what = match (&v["http"], &v["restart"], &v["sse"]) {
            (h, _, _) if h.is_object() => format!(
                "{} {} → {}",
                h["method"].as_str().unwrap_or_default(),
                h["path"].as_str().unwrap_or_default(),
                h["status"]
            ),
            (_, r, _) if r.is_object() => format!(
                "the server restarted ({}); {} answered with an error",
                r["why"].as_str().unwrap_or_default(),
                crate::print::count(r["answeredWithError"].as_u64().unwrap_or(0), "call")
            ),
            (_, _, e) if e.is_object() => {
                format!("SSE {} event", e["event"].as_str().unwrap_or_default())
            }
            _ => what,
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

/// `session export ID`: the session as a file, masked unless asked.
fn export(
    store: &Store,
    id: i64,
    out: Option<&std::path::Path>,
    har: bool,
    unmasked: bool,
) -> Result<(), Failure> {
    let har = har
        || out
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "har"));
    let format = if har {
        sessions::Format::Har
    } else {
        sessions::Format::Jsonl
    };
    let (_, text) = sessions::export(store, id, format, unmasked)?;
    match out {
        Some(path) => {
            workbench_app::write_out(path, &text)?;
            eprintln!("session {id} written to {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `session to-suite ID`: its calls as a suite, untrusted.
fn to_suite(
    cli: &Cli,
    store: &Store,
    id: i64,
    name: Option<&str>,
    server: Option<&str>,
    dir: Option<&std::path::Path>,
) -> Result<(), Failure> {
    // Entries to name the server by; none when the file cannot be read.
    let entries = crate::config_cmd::load(cli)
        .map(|c| c.servers)
        .unwrap_or_default();
    let made = sessions::save_as_suite(
        store,
        &entries,
        sessions::SaveAsSuite {
            session: id,
            name: name.map(str::to_string),
            server: server.map(str::to_string),
            dir: dir
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(workbench_app::suites::DEFAULT_DIR)),
        },
    )?;
    if cli.json {
        line(&json!({ "suite": made.path, "server": made.server, "cases": made.cases, "leftOut": made.left_out, "review": made.review }).to_string());
        return Ok(());
    }
    let left_out = match made.left_out {
        0 => String::new(),
        n => format!(
            " ({} answered with an error left out)",
            crate::print::count(n, "call")
        ),
    };
    line(&format!(
        "{} of {} written to {}{left_out}",
        crate::print::count(made.cases, "case"),
        made.server,
        made.path
    ));
    // Made of what a host sent: the person reads it before it runs.
    line(&format!(
        "not trusted yet: it calls {}{}. Read it, then run it with `mcpwb test --trust-suites {}`",
        clean(&made.review.calls.join(", ")),
        if made.review.env.is_empty() {
            String::new()
        } else {
            format!(" and reads {}", clean(&made.review.env.join(", ")))
        },
        made.path
    ));
    Ok(())
}

/// `session hosts`: each host release's fingerprint.
fn hosts(cli: &Cli, store: &Store) -> Result<(), Failure> {
    let all = sessions::hosts(store)?;
    if cli.json {
        line(&json!({ "hosts": all }).to_string());
        return Ok(());
    }
    if all.is_empty() {
        line("no host has spoken through a tap yet");
    }
    for f in all {
        line(&format!(
            "{}@{}  {} session(s)\n  offers {}\n  extensions: {}\n  calls: {}\n  reads ui:// resources: {}  lists again after list_changed: {}",
            clean(f["host"].as_str().unwrap_or("?")),
            clean(f["version"].as_str().unwrap_or("?")),
            f["sessions"],
            joined(&f["protocolVersions"]),
            joined(&f["extensions"]),
            joined(&f["methods"]),
            if f["readAppResource"] == true {
                "yes"
            } else {
                "no"
            },
            relisted(&f["listedAgainAfterListChanged"]),
        ));
    }
    Ok(())
}

/// `session compare A B`: what the second host does differently.
fn compare(cli: &Cli, store: &Store, a: &str, b: &str) -> Result<(), Failure> {
    let (fa, fb) = (
        sessions::fingerprint_of(store, a)?,
        sessions::fingerprint_of(store, b)?,
    );
    let said = sessions::compare(&fa, &fb);
    if cli.json {
        line(&json!({ "a": fa, "b": fb, "changes": said }).to_string());
    } else if said.is_empty() {
        line(&format!("{a} and {b} do the same"));
    } else {
        line(&format!("from {a} to {b}, the host:"));
        for s in said {
            line(&format!("  {}", clean(&s)));
        }
    }
    Ok(())
}

/// `session import FILE`: a session file kept.
fn import(cli: &Cli, store: &Store, file: &std::path::Path) -> Result<(), Failure> {
    let id = sessions::import(store, file)?;
    if cli.json {
        line(&json!({ "imported": id }).to_string());
    } else {
        line(&format!("imported as session {id}"));
    }
    Ok(())
}

/// `session delete ID...`: sessions forgotten; the missing said.
fn delete(cli: &Cli, store: &Store, ids: &[i64]) -> Result<(), Failure> {
    let mut missing = Vec::new();
    for id in ids {
        match sessions::delete(store, *id) {
            Ok(()) if !cli.json => line(&format!("session {id} deleted")),
            Ok(()) => {}
            Err(e) if e.code == workbench_app::ErrorCode::NotFound => missing.push(*id),
            Err(e) => return Err(e.into()),
        }
    }
    if cli.json {
        line(&json!({ "deleted": ids.iter().filter(|i| !missing.contains(i)).collect::<Vec<_>>(), "missing": missing }).to_string());
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(workbench_app::ErrorInfo::refused(format!(
            "no session {} (mcpwb session list shows them)",
            missing
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into())
    }
}

/// `mcpwb mock`: a session served over stdio until the host leaves; a
/// summary on stderr.
pub async fn mock(cli: &Cli, args: &MockArgs) -> Result<(), Failure> {
    let session = match args.session.parse::<i64>() {
        Ok(id) => sessions::open(&store()?, id)?,
        Err(_) => sessions::read_file(std::path::Path::new(&args.session))?,
    };
    let mut mock = workbench_app::mock::of(&session, args.how == "name");
    if let Some(listen) = &args.http {
        let listening = workbench_app::mock::http(mock, crate::tap_cmd::listen_port(Some(listen))?)
            .await
            .map_err(|e| Failure::Usage(e.message))?;
        if cli.json {
            line(&json!({ "url": listening.url }).to_string());
        }
        eprintln!(
            "mcpwb mock: serving the session at {} (or send the token in the Mcp-Workbench-Token header). Ctrl-C ends.",
            listening.url
        );
        crate::stop::asked().await;
        listening.stop.cancel();
        mock = listening
            .done
            .await
            .map_err(|e| Failure::Usage(e.to_string()))?;
    } else {
        workbench_app::mock::stdio(&mut mock)
            .await
            .map_err(|e| Failure::Usage(e.message))?;
    }
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

fn joined(v: &serde_json::Value) -> String {
    let all: Vec<String> = v
        .as_array()
        .map(|l| l.iter().filter_map(|x| x.as_str().map(clean)).collect())
        .unwrap_or_default();
    if all.is_empty() {
        "(none)".into()
    } else {
        all.join(", ")
    }
}

fn relisted(v: &serde_json::Value) -> String {
    match v.as_object() {
        Some(o) if !o.is_empty() => o
            .iter()
            .map(|(k, again)| format!("{} {}", clean(k), if *again == true { "yes" } else { "no" }))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "(never told a list changed)".into(),
    }
}

/// A request's method with what it names: the tool or prompt called, the
/// resource read.
fn asked_for(method: &str, params: &serde_json::Value) -> String {
    let named = params["name"].as_str().or_else(|| params["uri"].as_str());
    match named {
        Some(n)
            if matches!(
                method,
                "tools/call" | "prompts/get" | "resources/read" | "resources/subscribe"
            ) =>
        {
            format!("{method} {n}")
        }
        _ => method.to_string(),
    }
}
