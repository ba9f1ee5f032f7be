//! `mcpwb history`: the call history the window shows (the shared store),
//! read without starting any server.

use serde_json::{Value, json};
use workbench_app::history;
use workbench_app::history::{CallRow, HistoryQuery};

use crate::print::{clean, line};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    show: Option<Show>,
    /// Only this server's calls.
    server: Option<String>,
    /// Only calls of this tool.
    #[arg(long)]
    tool: Option<String>,
    /// Only calls made from here: window, chat, bridge, cli, suite, eval,
    /// agent, app, doctor, host.
    #[arg(long)]
    origin: Option<String>,
    /// Only calls that ended so: ok, error, failed, denied, cancelled.
    #[arg(long)]
    status: Option<String>,
    /// Only calls whose arguments, result or error contain this text.
    #[arg(long)]
    search: Option<String>,
    /// At most this many, newest first.
    #[arg(long, default_value_t = 20)]
    limit: u32,
}

#[derive(clap::Subcommand, Debug)]
enum Show {
    /// One call whole: arguments, result, error, traffic rows.
    Show {
        /// The call's id (the first column of `mcpwb history`) or its key
        /// (what `mcpwb test --json` and the agent's `workbench_call` name).
        call: String,
    },
}

pub fn run(cli: &Cli, args: &HistoryArgs) -> Result<(), Failure> {
    let store = history::open()?;
    if let Some(Show::Show { call }) = &args.show {
        let Some(row) = history::named(&store, call)? else {
            return Err(Failure::Usage(format!(
                "no call {} in the history (mcpwb history lists them)",
                clean(call)
            )));
        };
        show(cli.json, &row);
        return Ok(());
    }
    let (origin, status) = history::filter(args.origin.as_deref(), args.status.as_deref())?;
    let rows = history::calls(
        &store,
        &HistoryQuery {
            server: args.server.clone(),
            tool: args.tool.clone(),
            origin,
            status,
            search: args.search.clone(),
            before: None,
            limit: args.limit.max(1),
        },
    )?;
    if cli.json {
        line(&json!({ "calls": rows }).to_string());
        return Ok(());
    }
    if rows.is_empty() {
        eprintln!("mcpwb: no calls in the history match");
    }
    for r in &rows {
        line(&summary(r));
    }
    Ok(())
}

pub(crate) fn when(ms: i64) -> String {
    // UTC, to the second: `2026-11-24 06:12:03`.
    let (y, m, d, rem) = workbench_app::history::civil(ms);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn summary(r: &CallRow) -> String {
    let took = r
        .duration_ms
        .map(|d| format!("{d:.0} ms"))
        .unwrap_or_else(|| "-".into());
    let args = clean(&r.arguments.to_string());
    let args = if args.chars().count() > 60 {
        format!("{}…", args.chars().take(59).collect::<String>())
    } else {
        args
    };
    // An ok call whose case failed reads "ok·case✗".
    let status = match &r.verdict {
        Some(v) if v.outcome == "failed" => format!("{}·case✗", said(r.status)),
        _ => said(r.status).to_string(),
    };
    format!(
        "{:>6}  {}  {:<7} {:<9} {:>8}  {}/{} {}",
        r.id,
        when(r.started_at),
        r.origin,
        status,
        took,
        clean(&r.server),
        clean(&r.tool),
        args
    )
}

fn show(as_json: bool, r: &CallRow) {
    if as_json {
        line(&serde_json::to_string(r).unwrap_or_default());
        return;
    }
    let pretty = |v: &Value| clean(&serde_json::to_string_pretty(v).unwrap_or_default());
    line(&format!(
        "call {}: {}/{}",
        r.id,
        clean(&r.server),
        clean(&r.tool)
    ));
    line(&format!("  key       {}", clean(&r.key)));
    line(&format!("  when      {} UTC", when(r.started_at)));
    line(&format!("  origin    {}", r.origin));
    line(&format!("  status    {}", said(r.status)));
    if let Some(v) = &r.verdict {
        line(&format!(
            "  case      {} of suite {}: {}",
            clean(&v.case),
            clean(&v.suite),
            v.outcome
        ));
        for f in &v.failures {
            line(&format!("            {}", clean(f)));
        }
    }
    if let Some(d) = r.duration_ms {
        line(&format!("  duration  {}", crate::print::took_ms(d)));
    }
    if let Some(p) = &r.protocol {
        line(&format!("  protocol  {}", clean(p)));
    }
    // A call refused before it was sent has no messages of its own.
    if let (Some(from), Some(to)) = (r.traffic_from, r.traffic_to)
        && to > from
    {
        line(&format!(
            "  traffic   rows {} to {} of that run",
            from + 1,
            to
        ));
    }
    line("arguments:");
    line(&pretty(&r.arguments));
    if let Some(result) = &r.result {
        line("result:");
        line(&pretty(result));
    }
    if let Some(e) = &r.error {
        line(&format!("error: {}", clean(e)));
    }
    for v in &r.schema_violations {
        line(&format!("outputSchema: {}", clean(v)));
    }
}

/// A status as a person reads it: a call kept while it runs is running.
fn said(status: workbench_app::history::CallStatus) -> &'static str {
    match status {
        workbench_app::history::CallStatus::Pending => "running",
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_utc() {
        assert_eq!(super::when(0), "1970-01-01 00:00:00");
        assert_eq!(super::when(1_795_500_723_000), "2026-11-24 06:12:03");
        assert_eq!(super::when(951_782_400_000), "2000-02-29 00:00:00");
    }
}
