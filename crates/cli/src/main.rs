//! `mcpwb`: the headless face of MCP Workbench, over the same core as the app.
#![forbid(unsafe_code)]

mod app_cmd;
mod auth_cmd;
mod bundle_cmd;
mod chat;
mod commands;
mod config_cmd;
mod config_fields;
mod config_io;
mod dev_cmd;
mod doctor_cmd;
mod examples;
mod history_cmd;
mod load_cmd;
mod print;
mod publish_cmd;
#[cfg(test)]
mod reference;
mod registry_cmd;
mod serve_cmd;
mod session;
mod session_cmd;
mod skills_cmd;
mod stop;
mod tap_cmd;
mod task_cmd;
mod terminal;
mod test_cmd;
mod test_evals;
mod tool_args;
mod tool_shown;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use workbench_core::{Error, ErrorCode, ErrorInfo};

/// Exit codes, one per kind of outcome a script may branch on.
pub mod exit {
    pub const TOOL_ERROR: u8 = 1;
    /// The command asked for something that cannot be done as asked.
    pub const USAGE: u8 = 2;
    pub const CONFIG: u8 = 3;
    pub const NOT_READY: u8 = 4;
    pub const TIMEOUT: u8 = 5;
    pub const SERVER_ERROR: u8 = 6;
    pub const OTHER: u8 = 7;
}

#[derive(Parser, Debug)]
#[command(
    name = "mcpwb",
    version,
    about = "MCP Workbench from the command line",
    after_help = "Exit codes: 0 ok, 1 the tool returned an error result, 2 usage, 3 config problem,\n4 server not ready, 5 timeout, 6 the server answered with an error, 7 other failure."
)]
pub struct Cli {
    /// The mcp.json to use (default: $MCPWB_CONFIG, then ~/.config/mcp-workbench/mcp.json).
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "MCPWB_CONFIG"
    )]
    config: Option<PathBuf>,
    /// A project folder whose .mcp.json is merged over the user's file.
    #[arg(long, global = true, help_heading = "Global options")]
    project: Option<PathBuf>,
    /// Machine-readable JSON output.
    #[arg(long, global = true, help_heading = "Global options")]
    json: bool,
    /// Export traces (a span for each call, suite case, turn, relay, load
    /// run) to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (also
    /// $OTEL_EXPORTER_OTLP_ENDPOINT, or the settings file's "traces").
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_name = "URL"
    )]
    otlp: Option<String>,
    /// Seconds to wait for a server to start and for each request.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        default_value_t = 30.0
    )]
    timeout: f64,
    /// The longest a call may take however it progresses, in seconds
    /// (default: the entry's "maxCallTime", else 600). The timeout above
    /// starts again at each progress notification.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_name = "SECONDS"
    )]
    max_total: Option<f64>,
    /// The timeout counts from the call's start: progress does not reset it.
    #[arg(long, global = true, help_heading = "Global options")]
    fixed_timeout: bool,
    /// Servers' requests for an LLM answer: ask on the terminal, let the
    /// configured model answer, or refuse.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_enum,
        default_value = "refuse"
    )]
    sampling: terminal::Sampling,
    /// Servers' requests for input (elicitation): decline, accept with the
    /// schema's defaults (SEP-1034), or ask on the terminal.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_enum,
        default_value = "decline"
    )]
    elicitation: terminal::Elicitation,
    /// Trust every server of the config for this run and later ones (as
    /// `mcpwb config trust NAME` does one): servers from a project's file,
    /// an import or an edit outside the workbench do not start otherwise.
    #[arg(long, global = true, help_heading = "Global options")]
    trust: bool,
    /// Print servers' text as sent, terminal control sequences included
    /// (by default they are removed: a server could rewrite your terminal).
    #[arg(long, global = true, help_heading = "Global options")]
    raw: bool,
    /// When a server refuses for want of sign-in (401) or scope (403
    /// insufficient_scope): sign in again — opening the browser, or printing
    /// the address with `--sign-in=print` — and try once more (at most 3
    /// sign-ins per command).
    #[arg(long, global = true, help_heading = "Global options", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "browser")]
    sign_in: Option<auth_cmd::SignIn>,
    #[command(subcommand)]
    command: Command,
}

/// The commands: those that stand alone (they start what they need
/// themselves, or nothing) and those that talk to connected servers.
#[derive(Subcommand, Debug)]
pub enum Command {
    #[command(flatten)]
    Connected(Connected),
    /// The calls made by anyone (window, chat, bridge, mcpwb, suites),
    /// newest first; `history show ID` prints one whole.
    History(history_cmd::HistoryArgs),
    /// Run suites — saved calls with assertions kept in the project
    /// (.mcp-workbench/suites) — against the servers; exit 0 all passed,
    /// 1 a case failed, 2 a suite file is broken, 4 a server is not ready.
    Test(test_cmd::TestArgs),
    /// Chat with an LLM that uses the servers' tools (one turn with a prompt,
    /// a conversation without one on a terminal).
    Chat(Box<chat::ChatArgs>),
    /// Serve every server's tools, resources and prompts as one MCP server
    /// (stdio; --http PORT for loopback HTTP with a token; --attach to relay
    /// to the running app's bridge; --workbench adds the workbench's own
    /// tools for a coding agent).
    Serve(serve_cmd::ServeArgs),
    /// How fast a server is: a tool (or a suite's mix) called by N at once
    /// for a time or a number of calls, or a ramp of N; percentiles,
    /// throughput, errors by kind, where latency bends; --baseline fails
    /// past a regression.
    Load(load_cmd::LoadArgs),
    /// Print the skill (SKILL.md) that teaches a coding agent (Claude Code,
    /// Codex, Cursor) the server author's loop with `mcpwb serve --workbench`.
    AgentHelp,
    /// Sign in to a remote server with OAuth (login, status, refresh, logout, debug).
    Auth {
        #[command(subcommand)]
        action: auth_cmd::AuthCommand,
    },
    /// What is wrong with a server: names, schemas, descriptions, token
    /// cost, resources and prompts, and how it behaves; each finding with
    /// its code, where, why it matters and how to fix it. Exit 1 when a
    /// finding reaches --fail-on, 4 when a server is not ready.
    Doctor(doctor_cmd::DoctorArgs),
    /// A server's surface (tools and schemas, resources, templates,
    /// prompts, capabilities) as stable JSON to commit.
    Snapshot(doctor_cmd::SnapshotArgs),
    /// What changed between two surfaces (snapshot files or live servers),
    /// each change breaking or compatible.
    Diff(doctor_cmd::DiffArgs),
    /// Run one server and restart it when the files its "dev": {"watch":
    /// ...} names change; print what changed in its surface, the doctor's
    /// new findings and (--call) a call run again after each reload.
    Dev(dev_cmd::DevArgs),
    /// Put the workbench between a host and its server: what a host's
    /// config runs instead of the server (`mcpwb tap -- COMMAND ARGS...`,
    /// `--server NAME`, or `--to URL` for an HTTP server). Every byte passes
    /// unchanged both ways; each message is kept as a session (`mcpwb
    /// session`).
    Tap(tap_cmd::TapArgs),
    /// MCP bundles (.mcpb): show one, install it (unpacked, added to
    /// mcp.json, its secrets to the keychain), remove it.
    Bundle(bundle_cmd::BundleArgs),
    /// Before you publish your server: check its folder (server.json,
    /// manifest.json, ownership markers, versions) and what each host
    /// would run (`publish check [DIR] [--run]`).
    Publish(publish_cmd::PublishArgs),
    /// The MCP Registry: search it, show a server (the entry it would
    /// become), add one to mcp.json.
    Registry(registry_cmd::RegistryArgs),
    /// The sessions `mcpwb tap` kept: list, show, export, import.
    Session {
        #[command(subcommand)]
        action: session_cmd::SessionCommand,
    },
    /// Serve a kept session as a stand-in server over stdio: each request
    /// answered as the server answered it then.
    Mock(session_cmd::MockArgs),
    /// Look at and change mcp.json (no server is started).
    Config {
        #[command(subcommand)]
        action: Box<config_cmd::ConfigCommand>,
    },
}

/// The commands that connect the servers they name (all when none), wait
/// for them, and ask: `commands.rs` runs them, signing in when one asks.
#[derive(Subcommand, Debug)]
pub enum Connected {
    /// Connect to every server and show its state.
    Servers,
    /// List tools (of one server, or of all with qualified names); with a
    /// tool's name, that tool: its arguments, annotations, what it returns
    /// and the call to make (`--json`: its definition as served).
    Tools {
        /// Only this server's (default: every server's, as `server__tool`).
        server: Option<String>,
        /// One tool of the server, by its own name.
        tool: Option<String>,
    },
    /// Call a tool (kept in the call history the window shows too).
    Call {
        /// The server, by its name in mcp.json.
        server: String,
        /// The tool, by its own name (`echo`, not `demo__echo`); without
        /// it, the server's tools are listed.
        tool: Option<String>,
        /// The arguments as a JSON object (or --args, -a KEY=VALUE).
        #[arg(value_name = "JSON")]
        arguments: Option<String>,
        #[command(flatten)]
        args: tool_args::ToolArgs,
        /// Do not keep this call in the history.
        #[arg(long)]
        no_history: bool,
        /// Ask for a task where the tool may run as one (2025-11-25
        /// `taskSupport: "optional"`; a required one is always a task).
        /// A task's statuses go to stderr; Ctrl+C cancels it.
        #[arg(long)]
        task: bool,
        /// Print the task the call became and leave it running (follow it
        /// with `mcpwb task get`).
        #[arg(long)]
        no_wait: bool,
    },
    /// A tool's MCP App, resolved headless: the tool called, its ui://
    /// resource read, the HTML written with the CSP the window would apply
    /// (--html FILE), the policy printed.
    App(app_cmd::AppArgs),
    /// A task a call became: its status, result, the server's list, cancel.
    Task {
        #[command(subcommand)]
        action: task_cmd::TaskCommand,
    },
    /// List resources and resource templates.
    Resources {
        /// Only this server's (default: every server's).
        server: Option<String>,
    },
    /// Read a resource.
    Read {
        /// The server, by its name in mcp.json.
        server: String,
        /// The resource's URI, as listed (a template's filled in); without
        /// it, the server's resources and templates are listed.
        uri: Option<String>,
    },
    /// List prompts.
    Prompts {
        /// Only this server's (default: every server's).
        server: Option<String>,
    },
    /// List skills (SEP-2640): each server's, by name, with their files'
    /// count and size. Nothing of a skill is read until it is loaded.
    Skills {
        /// Only this server's (default: every server's).
        server: Option<String>,
    },
    /// Load a skill: its SKILL.md, checked against the server's listing
    /// (digest, size, frontmatter); `--file PATH` one of its files;
    /// `--verify` every file read and checked (exit 1 when one is not as
    /// listed: the server's fault).
    Skill {
        /// The server, by its name in mcp.json.
        server: String,
        /// The skill's name, as `mcpwb skills` lists it.
        name: String,
        /// One of its files instead of SKILL.md (a path as listed, e.g.
        /// `reference/forms.md`).
        #[arg(long)]
        file: Option<String>,
        /// Read every file of the skill and check each against the listing.
        #[arg(long)]
        verify: bool,
    },
    /// Get a prompt's messages.
    Prompt {
        /// The server, by its name in mcp.json.
        server: String,
        /// The prompt's name, as `mcpwb prompts` lists it; without it, the
        /// server's prompts are listed.
        name: Option<String>,
        #[command(flatten)]
        args: tool_args::PromptArgs,
    },
    /// Ping a server and show the round trip.
    Ping {
        /// The server, by its name in mcp.json.
        server: String,
    },
    /// Connect (to one server or all), then print every message exchanged.
    Traffic {
        /// Only this server's messages (default: every server's).
        server: Option<String>,
    },
}

/// What a command failed with: a core error, or a message with an exit code.
pub enum Failure {
    Core(Error),
    Usage(String),
    ToolError(String),
    /// The application layer or the agent failed: its code and message.
    Agent(ErrorInfo),
    /// Already reported; exit with this code.
    Exit(u8),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

impl From<ErrorInfo> for Failure {
    fn from(e: ErrorInfo) -> Self {
        Failure::Agent(e)
    }
}

impl From<workbench_core::config::Error> for Failure {
    fn from(e: workbench_core::config::Error) -> Self {
        Failure::Core(e.into())
    }
}

fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::ConfigNotFound
        | ErrorCode::ConfigUnreadable
        | ErrorCode::ConfigSyntax
        | ErrorCode::ConfigInvalid
        | ErrorCode::ConfigEdit
        | ErrorCode::ConfigConflict
        | ErrorCode::ConfigWrite
        | ErrorCode::Variable
        | ErrorCode::Dialect => exit::CONFIG,
        ErrorCode::UnknownServer
        | ErrorCode::UnknownTool
        | ErrorCode::ToolExcluded
        | ErrorCode::ServerNotReady => exit::NOT_READY,
        ErrorCode::Timeout => exit::TIMEOUT,
        ErrorCode::Invalid => exit::USAGE,
        ErrorCode::ServerError => exit::SERVER_ERROR,
        _ => exit::OTHER,
    }
}

// The bridge (`mcpwb serve`) and the core allocate per message; mimalloc
// measured ~20% less CPU per bridged call than glibc's malloc.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Output read by a program that stopped reading (`mcpwb tools | head`):
/// `println!` panics on the closed pipe; end quietly as a Unix tool
/// killed by SIGPIPE does (141), not with a panic and a backtrace. SIGPIPE
/// itself stays ignored: the tap and the bridge write to pipes and sockets
/// that close under them, and must live on.
fn quiet_when_stdout_closes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let said = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if said.starts_with("failed printing to stdout") && said.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    // Its settings for a long-running app (see `workbench_core::memory`).
    workbench_core::memory::use_mimalloc();
    // Every HTTP client mcpwb makes speaks TLS with ring.
    workbench_http::ready();
    quiet_when_stdout_closes();
    let cli = examples::command()
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
        .unwrap_or_else(|e| e.exit());
    print::set_raw(cli.raw);
    print::set_files_named(cli.config.as_deref(), cli.project.as_deref());
    let _log = workbench_core::logging::init(
        None,
        "error,rmcp=off,genai=off,rustls_platform_verifier=off",
    );
    // `serve` and `tap` relay message after message: on one thread each is
    // handed on without waking another (benches/bridge.rs: sequential calls
    // through the bridge 0.40 -> 0.45 of direct, 64 in flight 0.55 -> 0.60;
    // benches/tap.rs over HTTP: see docs/src/tap.md).
    let mut builder = if matches!(cli.command, Command::Serve(_) | Command::Tap(_)) {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcpwb: cannot start: {e}");
            return ExitCode::from(exit::OTHER);
        }
    };
    let outcome = runtime.block_on(async {
        let settings =
            workbench_core::settings::SettingsFile::new(workbench_core::settings::default_path());
        if let Some(url) = workbench_core::otel::endpoint(cli.otlp.as_deref(), &settings)
            && let Err(why) = workbench_core::otel::export_to(&url, "mcpwb")
        {
            eprintln!(
                "mcpwb: traces are not exported: {}",
                print::clean(&why.message)
            );
        }
        let outcome = commands::run(&cli).await;
        // A short run's spans go before it exits.
        workbench_core::otel::flush(std::time::Duration::from_secs(3)).await;
        outcome
    });
    // What is still running ends now. Dropping the runtime would wait for
    // every blocking task, and a read of stdin that a host keeps open
    // never ends: `tap --keep` told to stop, or whose server exited, hung
    // there until its host closed the pipe.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let (code, info) = match failure {
                Failure::Core(e) => (exit_code(e.code()), ErrorInfo::from(&e)),
                Failure::Usage(message) => (
                    exit::USAGE,
                    ErrorInfo {
                        code: ErrorCode::Internal,
                        message,
                    },
                ),
                Failure::Exit(code) => return ExitCode::from(code),
                Failure::Agent(info) => (exit_code(info.code), info),
                Failure::ToolError(message) => {
                    if !cli.json {
                        eprintln!(
                            "mcpwb: the tool returned an error: {}",
                            print::clean(&message)
                        );
                    }
                    return ExitCode::from(exit::TOOL_ERROR);
                }
            };
            let info = ErrorInfo {
                message: print::on_this_run(&info.message),
                ..info
            };
            if cli.json {
                println!("{}", serde_json::json!({ "error": info }));
            } else {
                eprintln!("mcpwb: {}", print::clean(&info.message.replace('\n', " ")));
            }
            ExitCode::from(code)
        }
    }
}
