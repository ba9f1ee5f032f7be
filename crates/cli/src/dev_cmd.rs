//! `mcpwb dev SERVER`: the server author's loop in a terminal — restart on
//! a change to the files its `dev.watch` names, then print what changed in
//! its surface, what the doctor now finds, and (with `--call`) the call
//! run again and whether its result changed. Ctrl+C stops it and the server.

use serde_json::{Value, json};
use workbench_app::dev::{self, DevEvent, Impact, SurfaceChange};

use crate::print::{clean, line};
use crate::session::{calls_for, connect_some, offers, opts};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct DevArgs {
    /// The server to run and restart, by its name in mcp.json (its entry's
    /// `"dev": {"watch": [...]}` says which files).
    pub server: String,
    /// Files whose change restarts it (again for each), in place of its
    /// entry's `dev.watch`: globs relative to its cwd, else the config's
    /// folder (`--watch 'src/**/*.py'`). Nothing in mcp.json changes.
    #[arg(long, value_name = "GLOB")]
    pub watch: Vec<String>,
    /// A tool to call after each reload (its result compared with the last).
    #[arg(long)]
    pub call: Option<String>,
    /// The call's arguments.
    #[command(flatten)]
    pub args: crate::tool_args::ToolArgs,
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
            Impact::Breaking => "breaking",
            Impact::Compatible => "ok",
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
    calls: &workbench_app::Calls,
    server: &str,
    tool: &str,
    arguments: &Value,
    before: Option<&Value>,
) -> Value {
    let result = dev::call(calls, server, tool, arguments, opts(cli)).await;
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
    let object = args.args.object(None)?;
    let wb = connect_some(cli, &[args.server.as_str()], offers(cli, cli.sampling)).await?;
    // A server that may not start would be watched for nothing. One that
    // fails to start is the author's to fix, and the loop is for that.
    crate::session::may_start(&wb, &args.server).await?;
    // Typed by the tool's schema as the server first listed it (a server
    // not up yet: each value as JSON when it reads as JSON, else text).
    if args.call.is_some() && !args.args.arg.is_empty() {
        let _ = crate::session::ready(&wb, &args.server).await;
    }
    let schema = args
        .call
        .as_deref()
        .and_then(|tool| workbench_app::tools::input_schema(&wb, &args.server, tool));
    let arguments = args.args.typed(object, schema.as_ref())?;
    let mut follow = dev::start(&wb, &args.server)?;
    let calls = calls_for(&wb, false);
    say(
        cli,
        format!(
            "watching {} for {} in {} (Ctrl+C stops)",
            args.server,
            follow.watch.join(", "),
            follow.root.display()
        ),
        json!({ "event": "watching", "server": args.server, "watch": follow.watch, "root": follow.root }),
    );
    let mut last_result: Option<Value> = None;
    // The call once now, so the first reload can say whether it changed.
    if let Some(tool) = &args.call {
        // Not ready: the call says why (and the first reload calls again).
        let _ = crate::session::ready(&wb, &args.server).await;
        last_result = Some(call_once(cli, &calls, &args.server, tool, &arguments, None).await);
    }
    // One listener for the whole run: a new one each turn would miss a
    // Ctrl+C that came while a reload's call ran (seen: the test's SIGINT
    // right after a late reload, and `mcpwb dev` went on). SIGTERM too.
    let stop = crate::stop::asked();
    tokio::pin!(stop);
    loop {
        let event = tokio::select! {
            _ = &mut stop => break,
            e = follow.next() => match e {
                Some(e) => e,
                None => break,
            },
        };
        match event {
            DevEvent::Surface(c) => surface(cli, &c),
            DevEvent::Reload { files } => say(
                cli,
                format!("changed: {} — restarting", files.join(", ")),
                json!({ "event": "reload", "files": files }),
            ),
            DevEvent::Note(note) => say(
                cli,
                format!("watch: {note}"),
                json!({ "event": "note", "note": note }),
            ),
            DevEvent::Failed(reason) => say(
                cli,
                format!("failed: {reason}"),
                json!({ "event": "failed", "reason": reason }),
            ),
            DevEvent::Reloaded { ms } => {
                say(
                    cli,
                    format!("reloaded in {ms:.0} ms"),
                    json!({ "event": "reloaded", "ms": ms }),
                );
                if let Some(tool) = &args.call {
                    let result = call_once(
                        cli,
                        &calls,
                        &args.server,
                        tool,
                        &arguments,
                        last_result.as_ref(),
                    )
                    .await;
                    last_result = Some(result);
                }
            }
        }
    }
    drop(follow);
    workbench_app::servers::end(&wb, &calls).await;
    Ok(())
}
