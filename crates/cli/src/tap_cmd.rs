//! `mcpwb tap`: the workbench between a host and its server, every byte
//! passed unchanged and each message kept, over stdio (`-- COMMAND`,
//! `--server NAME`) or HTTP (`--listen 127.0.0.1:PORT --to URL`).

use clap::Args;
use workbench_app::tap::{Spawn, run};

use crate::{Cli, Failure};

#[derive(Args, Debug)]
pub struct TapArgs {
    /// Run this entry of your mcp.json (with its environment, secrets and
    /// trust) instead of a command after `--`.
    #[arg(long, conflicts_with = "command")]
    server: Option<String>,
    /// The server's name in the sessions kept (default: the entry's name,
    /// the command's program, the URL's host).
    #[arg(long)]
    name: Option<String>,
    /// Pass the bytes and keep nothing.
    #[arg(long)]
    no_record: bool,
    /// Tap an HTTP server (Streamable HTTP or legacy SSE) at URL: a
    /// reverse proxy on 127.0.0.1 whose URL (printed, with its token) the
    /// host's config names instead of the server's.
    #[arg(long, value_name = "URL", conflicts_with_all = ["command", "server"])]
    to: Option<String>,
    /// Where the HTTP tap listens: 127.0.0.1:PORT (PORT alone is enough;
    /// 0 picks a free port, the default).
    #[arg(long, value_name = "127.0.0.1:PORT")]
    listen: Option<String>,
    /// Keep credentials in headers (Authorization, cookies, …) as they
    /// were; they are masked in what is kept otherwise. The person's own
    /// secrets are masked either way.
    #[arg(long)]
    unmasked: bool,
    /// Restart the server when files matching GLOB change (under its
    /// folder), the host kept connected: its handshake replayed, calls in
    /// flight told the server restarted, list changes announced. A
    /// `--server` entry's `"dev": {"watch": ...}` is used when none is given.
    #[arg(long, value_name = "GLOB")]
    watch: Vec<String>,
    /// Restart the server when it exits by itself, the host kept connected
    /// as with --watch (calls in flight told it restarted, never sent again;
    /// an exit soon after each start waits longer each time).
    #[arg(long)]
    keep: bool,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true)]
    command: Vec<String>,
}

/// What a tap stands in front of.
enum Tapped {
    /// A stdio server: its name, how it runs, what to mask in what is
    /// kept, the patterns that restart it.
    Stdio(String, Spawn, Vec<String>, Vec<String>),
    /// An HTTP server: its name, its URL, what to mask.
    Http(String, String, Vec<String>),
}

fn spawn_of(cli: &Cli, args: &TapArgs) -> Result<Tapped, Failure> {
    if let Some(name) = &args.server {
        let config = crate::config_cmd::load(cli)?;
        return Ok(
            match workbench_app::tap::entry(&config, name, cli.trust, cli.project.clone())? {
                workbench_app::tap::Tapped::Stdio {
                    name,
                    spawn,
                    secrets,
                    watch,
                } => Tapped::Stdio(name, spawn, secrets, watch),
                workbench_app::tap::Tapped::Http { name, url, secrets } => {
                    Tapped::Http(name, url, secrets)
                }
            },
        );
    }
    if let Some(url) = &args.to {
        let name = reqwest_host(url).unwrap_or_else(|| url.clone());
        return Ok(Tapped::Http(name, url.clone(), Vec::new()));
    }
    let Some((program, rest)) = args.command.split_first() else {
        return Err(Failure::Usage(
            "the server to tap: `mcpwb tap -- COMMAND ARGS...` or `mcpwb tap --server NAME`".into(),
        ));
    };
    let name = std::path::Path::new(program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().to_string());
    Ok(Tapped::Stdio(
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

/// The host part of a URL, to name its sessions by.
fn reqwest_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    Some(host.rsplit_once('@').map_or(host, |(_, h)| h).to_string())
}

/// `--listen`: a port of 127.0.0.1 (nothing else is offered).
pub(crate) fn listen_port(listen: Option<&str>) -> Result<u16, Failure> {
    let Some(listen) = listen else { return Ok(0) };
    let port = match listen.rsplit_once(':') {
        Some(("127.0.0.1" | "localhost" | "", port)) => port,
        Some((host, _)) => {
            return Err(Failure::Usage(format!(
                "--listen {listen}: the tap listens on 127.0.0.1 only, not {host}"
            )));
        }
        None => listen,
    };
    port.parse::<u16>()
        .map_err(|_| Failure::Usage(format!("--listen {listen}: not a port")))
}

/// `mcpwb tap --to URL`: until Ctrl-C or SIGTERM.
async fn tap_http(
    cli: &Cli,
    args: &TapArgs,
    name: String,
    to: String,
    secrets: Vec<String>,
) -> Result<(), Failure> {
    let listening = run::http(
        listen_port(args.listen.as_deref())?,
        &to,
        run::Options {
            name: &name,
            secrets: &secrets,
            record: !args.no_record,
            unmasked: args.unmasked,
            watch: Vec::new(),
            root: None,
            keep: false,
        },
        |said| eprintln!("mcpwb tap: {said}"),
    )
    .await
    .map_err(|e| Failure::Usage(e.message))?;
    if cli.json {
        crate::print::line(&serde_json::json!({ "url": listening.url, "to": to }).to_string());
    }
    eprintln!(
        "mcpwb tap: {} passes to {to}; name it in the host's config instead of the server's URL (or send the token in the Mcp-Workbench-Token header). Ctrl-C ends.",
        listening.url
    );
    crate::stop::asked().await;
    listening.stop.cancel();
    let _ = listening.done.await;
    Ok(())
}

/// `mcpwb tap`: nothing of ours goes to stdout (it is the host's); what the
/// tap has to say goes to stderr.
pub async fn tap(cli: &Cli, args: &TapArgs) -> Result<(), Failure> {
    let (name, spawn, secrets, dev_watch) = match spawn_of(cli, args)? {
        Tapped::Stdio(name, spawn, secrets, watch) => {
            (args.name.clone().unwrap_or(name), spawn, secrets, watch)
        }
        Tapped::Http(name, url, secrets) => {
            let name = args.name.clone().unwrap_or(name);
            return tap_http(cli, args, name, url, secrets).await;
        }
    };
    let patterns = if args.watch.is_empty() {
        dev_watch
    } else {
        args.watch.clone()
    };
    let root = spawn.cwd.clone();
    let code = run::stdio(
        &spawn,
        run::Options {
            name: &name,
            secrets: &secrets,
            record: !args.no_record,
            unmasked: args.unmasked,
            watch: patterns,
            root,
            keep: args.keep,
        },
        |said| eprintln!("mcpwb tap: {said}"),
    )
    .await
    .map_err(|e| Failure::Usage(e.message))?;
    if code == 0 {
        Ok(())
    } else {
        Err(Failure::Exit(u8::try_from(code).unwrap_or(1)))
    }
}
