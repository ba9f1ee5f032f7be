//! `mcpwb serve`: every configured server's tools, resources and prompts as
//! one MCP server — over stdio (what other clients launch from their
//! config), over loopback HTTP with the install's token (`--http PORT`), or
//! relayed to the running app's bridge (`--attach`).

use workbench_app::bridge::{self, ApproveMode, Policy};

use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Serve Streamable HTTP on 127.0.0.1:PORT (0: any free port) instead
    /// of stdio; callers need the install's token.
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
    /// With --http: take requests without the token (test clients such as
    /// the conformance suite; still loopback only, Host and Origin checked).
    #[arg(long, requires = "http")]
    no_token: bool,
    /// Serve only this server's tools (repeatable).
    #[arg(long, value_name = "SERVER")]
    only: Vec<String>,
    /// Serve only tools matching this pattern, `*` for any run of
    /// characters, against `server__tool` or the tool's own name (repeatable).
    #[arg(long, value_name = "PATTERN")]
    tools: Vec<String>,
    /// With one server (--only NAME): keep its own tool, prompt and resource
    /// names (no `server__` prefix, no `mcpwb://` URIs).
    #[arg(long)]
    bare: bool,
    /// Calls no standing rule decides: `all` run (the calling client asks
    /// its user), `read-only` run only tools marked read-only, `none` are
    /// refused. Tools denied in Settings are always refused (read live).
    #[arg(long, value_enum, default_value = "all")]
    approve: Approve,
    /// Do not keep the calls clients make in the call history.
    #[arg(long)]
    no_history: bool,
    /// Also serve the workbench's own tools (workbench_*: the servers and
    /// their state, restart with what changed, the doctor, calls with
    /// questions parked for the caller, suites, traffic) and the skill that
    /// teaches a coding agent the loop (`mcpwb agent-help` prints it).
    #[arg(long, conflicts_with = "attach")]
    workbench: bool,
    /// Serve only the workbench's own tools, not the servers'.
    #[arg(long, conflicts_with = "attach")]
    workbench_only: bool,
    /// Relay stdio to the running app's bridge (default: the port its
    /// panel set, 8767 unless changed) instead of starting the servers again.
    #[arg(long, value_name = "URL", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    attach: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Approve {
    All,
    ReadOnly,
    None,
}

pub async fn run(cli: &Cli, args: &ServeArgs) -> Result<(), Failure> {
    if let Some(url) = &args.attach {
        return Ok(bridge::attach(Some(url)).await?);
    }
    let only: Vec<&str> = args.only.iter().map(String::as_str).collect();
    // Servers' questions are taken (the bridge passes them to its caller).
    let wb = crate::session::connect_some(cli, &only, bridge::takes_asks()).await?;
    crate::print::not_served(&workbench_app::servers::statuses(&wb));
    let calls = crate::session::calls_for(&wb, !args.no_history);
    let policy = Policy {
        mode: match args.approve {
            Approve::All => ApproveMode::All,
            Approve::ReadOnly => ApproveMode::ReadOnly,
            Approve::None => ApproveMode::None,
        },
        ask: false,
    };
    let own = if args.workbench || args.workbench_only {
        let base = match &cli.project {
            Some(p) => p.clone(),
            None => std::env::current_dir().map_err(|e| Failure::Usage(e.to_string()))?,
        };
        let tools = workbench_selftools::served(
            &calls,
            policy,
            args.only.clone(),
            args.tools.clone(),
            base,
        )
        .map_err(|e| Failure::Usage(format!("the workbench's tools: {e}")))?;
        Some(tools)
    } else {
        None
    };
    let served = bridge::headless(
        &calls,
        bridge::Headless {
            only: args.only.clone(),
            tools: args.tools.clone(),
            policy,
            bare: args.bare,
            own,
            own_only: args.workbench_only,
        },
    )
    .await;
    bridge::forward_stderr(
        &wb,
        |server, line| eprintln!("[{server}] {}", crate::print::clean(line)),
        |n| eprintln!("[mcpwb] {n} stderr lines of the servers skipped"),
    );
    let outcome = match args.http {
        // Until the host closes our stdin, or asks us to stop.
        None => tokio::select! {
            served = served.serve_stdio() => served.map_err(Failure::from),
            () = crate::stop::asked() => Ok(()),
        },
        Some(port) => {
            let token = if args.no_token {
                eprintln!(
                    "mcpwb: WARNING: the bridge takes requests without a token (--no-token); anything on this machine can call every tool"
                );
                None
            } else {
                Some(bridge::token()?)
            };
            let listening = bridge::listen(served.clone(), port, token.clone()).await?;
            eprintln!(
                "mcpwb: serving {} servers at {}",
                served.serving().len(),
                listening.url()
            );
            if let Some(t) = &token {
                eprintln!("mcpwb: token (send as Authorization: Bearer …): {t}");
            }
            crate::stop::asked().await;
            listening.stop.cancel();
            let _ = listening.done.await;
            Ok(())
        }
    };
    workbench_app::servers::end(&wb, &calls).await;
    outcome
}
