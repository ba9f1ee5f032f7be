//! `mcpwb dev SERVER`: the server author's loop in a terminal — restart on
//! a change to the files its `dev.watch` names, then print what changed in
//! its surface, what the doctor now finds, and (with `--call`) the call
//! run again and whether its result changed. Ctrl+C stops it and the server.

use std::time::Instant;

use serde_json::{Value, json};
use workbench_calls::{Call, Link, Origin};
use workbench_core::events::Event;
use workbench_doctor::follow::{SurfaceChange, Surfaces};

use crate::print::{clean, line};
use crate::session::{calls_for, connect_some, offers, opts, parse_args};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct DevArgs {
    /// The server to run and restart, by its name in mcp.json (its entry's
    /// `"dev": {"watch": [...]}` says which files).
    pub server: String,
    /// A tool to call after each reload (its result compared with the last).
    #[arg(long)]
    pub call: Option<String>,
    /// The call's arguments as a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
}

fn say(cli: &Cli, text: String, data: Value) {
    if cli.json {
        line(&data.to_string());
    } else {
        line(&text);
    }
}

fn surface(cli: &Cli, change: &SurfaceChange) {
    if change.unchanged_at_ms.is_some() {
        say(
            cli,
            "  no change in its surface".into(),
            json!({ "event": "surface_unchanged" }),
        );
        return;
    }
    if cli.json {
        line(&json!({ "event": "surface", "change": change }).to_string());
        return;
    }
    for c in &change.changes {
        let impact = match c.impact {
            workbench_doctor::Impact::Breaking => "breaking",
            workbench_doctor::Impact::Compatible => "ok",
        };
        let at = if c.pointer.is_empty() {
            String::new()
        } else {
            format!(" {}", c.pointer)
        };
        line(&format!(
            "  {impact:<9} {} {}{at}: {}",
            c.code, c.item, c.message
        ));
    }
    for f in &change.new_findings {
        line(&format!(
            "  new {:<7} {} {}: {}",
            f.severity.as_str(),
            f.code,
            f.item,
            f.seen
        ));
    }
}

/// Call `tool` and say its result, and whether it changed since `before`.
async fn call_once(
    cli: &Cli,
    calls: &workbench_calls::Calls,
    server: &str,
    tool: &str,
    arguments: &Value,
    before: Option<&Value>,
) -> Value {
    let ran = calls
        .run(Call {
            consent: None,
            origin: Origin::Cli,
            server,
            tool,
            arguments: arguments.clone(),
            definition: None,
            link: Link::default(),
            options: opts(cli),
        })
        .await;
    let result = match ran.outcome {
        Ok(o) => o.result,
        Err(e) => json!({ "failed": e.to_string() }),
    };
    let same = before == Some(&result);
    let verdict = match before {
        None => "at start",
        Some(_) if same => "same as before",
        Some(_) => "CHANGED",
    };
    say(
        cli,
        format!("{tool} → {verdict}: {}", clean(&result.to_string())),
        json!({ "event": "call", "tool": tool, "result": result, "same": same, "first": before.is_none() }),
    );
    result
}

pub async fn run(cli: &Cli, args: &DevArgs) -> Result<(), Failure> {
    let arguments = parse_args(&args.args)?;
    let wb = connect_some(cli, &[args.server.as_str()], offers(cli, cli.sampling)).await?;
    let handle = wb.server(&args.server)?;
    let Some(dev) = handle.entry().dev.clone() else {
        return Err(Failure::Usage(format!(
            "{} has no \"dev\": {{\"watch\": ...}} in its entry; add one (e.g. \"dev\": {{\"watch\": \"src/**/*.ts\"}}) to reload it on change",
            args.server
        )));
    };
    let root = wb
        .dev_root(&args.server)
        .unwrap_or_else(|| handle.base_dir().to_path_buf());
    if !root.is_dir() {
        return Err(Failure::Usage(format!(
            "{}'s dev.watch is read in {}, which is not a folder (its entry's cwd, else its config's folder)",
            args.server,
            root.display()
        )));
    }
    let surfaces = Surfaces::follow(&wb);
    let mut changes = surfaces.subscribe();
    let mut events = wb.subscribe();
    let _watch = wb.watch_dev();
    let calls = calls_for(&wb, false);
    say(
        cli,
        format!(
            "watching {} for {} in {} (Ctrl+C stops)",
            args.server,
            dev.watch.join(", "),
            root.display()
        ),
        json!({ "event": "watching", "server": args.server, "watch": dev.watch, "root": root }),
    );
    let mut reloading: Option<Instant> = None;
    let mut last_result: Option<Value> = None;
    // The call once now, so the first reload can say whether it changed.
    if let Some(tool) = &args.call {
        // Not ready: the call says why (and the first reload calls again).
        let _ = crate::session::ready(&wb, &args.server).await;
        last_result = Some(call_once(cli, &calls, &args.server, tool, &arguments, None).await);
    }
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            c = changes.recv() => {
                if let Ok(c) = c && c.server == args.server {
                    surface(cli, &c);
                }
            }
            e = events.recv() => {
                let Ok(e) = e else { continue };
                match e {
                    Event::DevReload { server, files } if server == args.server => {
                        reloading = Some(Instant::now());
                        say(cli, format!("changed: {} — restarting", files.join(", ")), json!({ "event": "reload", "files": files }));
                    }
                    Event::DevNote { server, note } if server == args.server => {
                        say(cli, format!("watch: {note}"), json!({ "event": "note", "note": note }));
                    }
                    Event::Status { status } if status.name == args.server => {
                        if let workbench_core::connect::ServerState::Failed { reason, .. } = &status.state {
                            say(cli, format!("failed: {reason}"), json!({ "event": "failed", "reason": reason }));
                        }
                    }
                    Event::CatalogChanged { server } if server == args.server => {
                        let Some(started) = reloading.take() else { continue };
                        let ms = started.elapsed().as_secs_f64() * 1000.0;
                        say(cli, format!("reloaded in {ms:.0} ms"), json!({ "event": "reloaded", "ms": ms }));
                        if let Some(tool) = &args.call {
                            let result = call_once(cli, &calls, &args.server, tool, &arguments, last_result.as_ref()).await;
                            last_result = Some(result);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    wb.shutdown().await;
    Ok(())
}
