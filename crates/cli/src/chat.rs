//! `mcpwb chat`: the agent on the terminal. With a prompt (or text on
//! stdin), one turn to completion, the answer on stdout and the tool calls
//! summarised on stderr; without one on a terminal, a conversation with
//! streaming and approvals asked as they come (y / n / chat / always /
//! edit). `--json` prints one event per line. Sessions live in the same
//! store as the window's, so a chat can be continued in either.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;
use workbench_app::chat::{
    self as chats, Agent, AgentEvent, Approval, ApproveMode, Decision, EndReason, Part, Remember,
    Sink,
};
use workbench_app::{ErrorCode, ErrorInfo, providers};

use crate::terminal::{Terminal, interactive};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct ChatArgs {
    /// The message. Without it: a conversation on a terminal, or the text on stdin.
    pub prompt: Option<String>,
    /// A configured provider's id, or a kind: openai, anthropic, gemini, ollama, openai-compatible.
    #[arg(long)]
    pub provider: Option<String>,
    /// The provider's API address (required for openai-compatible).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model (default: the provider's default model).
    #[arg(long)]
    pub model: Option<String>,
    /// The environment variable holding the API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// The system prompt (kept with the session).
    #[arg(long)]
    pub system: Option<String>,
    /// Which calls run without asking (default: ask on a terminal, none otherwise).
    #[arg(long, value_enum)]
    pub approve: Option<Approve>,
    /// Model steps a turn may take (default 20).
    #[arg(long)]
    pub max_steps: Option<u32>,
    /// Continue the session with this id or title, or start one with this title.
    #[arg(long)]
    pub session: Option<String>,
    /// Only this server's tools (repeatable); only these servers are started.
    #[arg(long = "server")]
    pub servers: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Approve {
    Ask,
    ReadOnly,
    All,
    None,
}

/// Settle the provider for this run: a configured one (with the flags
/// over it), a kind given by flag, or one found from the environment.
async fn provider(agent: &Agent, args: &ChatArgs) -> Result<(), Failure> {
    let asked = providers::Asked {
        provider: args.provider.as_deref(),
        base_url: args.base_url.as_deref(),
        model: args.model.as_deref(),
        api_key_env: args.api_key_env.as_deref(),
    };
    Ok(providers::for_run(agent, asked).await?)
}

/// What the terminal shows as events arrive.
fn printer(json_lines: bool, approvals: mpsc::UnboundedSender<Approval>) -> Sink {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Whether the answer's last line is unfinished: a tool line then
    // starts the answer's next words on a line of their own.
    let mid_line = AtomicBool::new(false);
    let end_line = move |mid: &AtomicBool| {
        if mid.swap(false, Ordering::Relaxed) {
            println!();
        }
    };
    Arc::new(move |event| {
        if let AgentEvent::ApprovalNeeded { approval } = &event {
            let _ = approvals.send(approval.clone());
        }
        if json_lines {
            crate::print::line(&serde_json::to_string(&event).unwrap_or_default());
            return;
        }
        match event {
            AgentEvent::TextDelta { text } => {
                let mut out = std::io::stdout();
                let _ = write!(out, "{}", crate::print::clean(&text));
                let _ = out.flush();
                mid_line.store(!text.ends_with('\n'), Ordering::Relaxed);
            }
            AgentEvent::ToolStarted {
                server,
                tool,
                arguments,
                ..
            } => {
                end_line(&mid_line);
                eprintln!(
                    "→ {}/{} {}",
                    crate::print::clean(&server),
                    crate::print::clean(&tool),
                    crate::print::clean(&arguments.to_string())
                );
            }
            AgentEvent::ToolFinished {
                status,
                duration_ms,
                ..
            } => {
                let status = serde_json::to_value(status).unwrap_or_default();
                let took = duration_ms
                    .map(|d| format!(" in {d:.0} ms"))
                    .unwrap_or_default();
                eprintln!("← {}{took}", status.as_str().unwrap_or("done"));
            }
            AgentEvent::ToolsLoaded { names } => {
                eprintln!("loaded tools: {}", crate::print::clean(&names.join(", ")))
            }
            AgentEvent::Retrying {
                attempt,
                wait_ms,
                reason,
            } => {
                end_line(&mid_line);
                eprintln!(
                    "mcpwb: {}; trying again in {:.1} s (attempt {attempt})",
                    crate::print::clean(&reason),
                    wait_ms as f64 / 1000.0
                )
            }
            AgentEvent::Notice { text } => eprintln!("note: {}", crate::print::clean(&text)),
            AgentEvent::Message { message } if message.role == "assistant" => {
                for p in &message.parts {
                    if let Part::Notice { text, error: false } = p {
                        end_line(&mid_line);
                        eprintln!("{}", crate::print::clean(text));
                    }
                }
            }
            AgentEvent::End { .. } => end_line(&mid_line),
            _ => {}
        }
    })
}

/// Ask about each call on the terminal (or decide by mode when none).
async fn approve_calls(
    agent: Agent,
    terminal: Option<Arc<Terminal>>,
    mut rx: mpsc::UnboundedReceiver<Approval>,
) {
    while let Some(a) = rx.recv().await {
        let decision = match &terminal {
            Some(t) => ask_approval(t, &a).await,
            None => Decision::deny("no one is at the terminal to approve it"),
        };
        let _ = chats::decide(&agent, a.id, decision);
    }
}

async fn ask_approval(t: &Terminal, a: &Approval) -> Decision {
    let read_only = a
        .definition
        .pointer("/annotations/readOnlyHint")
        .and_then(|v| v.as_bool())
        == Some(true);
    eprintln!(
        "\n{} wants to run {}{}\n  arguments: {}",
        a.server,
        a.tool,
        if read_only {
            " (says it only reads)"
        } else {
            ""
        },
        crate::print::clean(&a.arguments.to_string())
    );
    if let Some(diff) = &a.changed {
        eprintln!("  its definition changed since you allowed it:");
        for l in diff.iter().filter(|l| l.op != " ") {
            eprintln!("    {}{}", l.op, crate::print::clean(&l.text));
        }
    }
    let mut arguments = None;
    loop {
        let answer = t
            .ask("Allow? [y]es, [n]o, [c]hat (allow in this chat), [a]lways, [e]dit arguments: ")
            .await;
        let remember = match answer.as_deref().map(str::trim) {
            Some("y" | "yes") => Remember::Once,
            Some("c" | "chat") => Remember::Chat,
            Some("a" | "always") => Remember::Always,
            Some("e" | "edit") => {
                match t
                    .ask("Arguments (JSON): ")
                    .await
                    .map(|l| serde_json::from_str::<serde_json::Value>(&l))
                {
                    Some(Ok(v)) if v.is_object() => arguments = Some(v),
                    Some(_) => {
                        eprintln!("  that is not a JSON object; the arguments are unchanged")
                    }
                    None => return Decision::deny("the person left"),
                }
                continue;
            }
            _ => return Decision::deny("the person said no"),
        };
        return Decision::approve_with(arguments, remember);
    }
}

pub async fn run(
    cli: &Cli,
    args: &ChatArgs,
    sampling: crate::terminal::Sampling,
) -> Result<(), Failure> {
    let on_terminal = interactive();
    let prompt = match &args.prompt {
        Some(p) => Some(p.clone()),
        None if !std::io::stdin().is_terminal() => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Usage(format!("cannot read stdin: {e}")))?;
            if text.trim().is_empty() {
                return Err(Failure::Usage(
                    "no message: pass one, or pipe text in".into(),
                ));
            }
            Some(text)
        }
        None => None,
    };
    let only: Vec<&str> = args.servers.iter().map(String::as_str).collect();
    let wb =
        crate::session::connect_some(cli, &only, crate::session::offers(cli, sampling)).await?;
    let outcome = chat(cli, args, &wb, prompt, on_terminal, sampling).await;
    workbench_app::servers::close(&wb).await;
    outcome
}

async fn chat(
    cli: &Cli,
    args: &ChatArgs,
    wb: &crate::session::Started,
    prompt: Option<String>,
    on_terminal: bool,
    sampling: crate::terminal::Sampling,
) -> Result<(), Failure> {
    let agent = crate::session::agent_for(cli, wb)?;
    provider(&agent, args).await?;
    let terminal = on_terminal.then(Terminal::start);
    let _asks = crate::terminal::serve_asks(
        wb,
        Some(agent.clone()),
        (sampling, cli.elicitation),
        terminal.clone(),
    );
    let session = workbench_app::chat::for_run(
        &agent,
        workbench_app::chat::ForRun {
            name: args.session.clone(),
            system_prompt: args.system.clone(),
            servers: args.servers.clone(),
            max_steps: args.max_steps,
        },
    )?;
    let mode = approve_mode(args.approve, terminal.is_some())?;
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(approve_calls(agent.clone(), terminal.clone(), rx));
    let sink = printer(cli.json, tx);
    if cli.json {
        crate::print::line(
            &json!({ "type": "session", "id": session.id, "title": session.title }).to_string(),
        );
    }
    if let Some(text) = prompt {
        // One turn and out: SIGTERM stops it as Ctrl+C does.
        let stop = crate::stop::asked();
        return one_turn(&agent, &session.id, &text, mode, sink, stop).await;
    }
    let terminal = terminal
        .ok_or_else(|| Failure::Usage("no message given and no terminal to ask on".into()))?;
    eprintln!(
        "Chat \"{}\" with {}. Empty line or Ctrl+D to leave; Ctrl+C stops a turn.",
        session.title, session.model
    );
    loop {
        let Some(line) = terminal.ask("\n> ").await else {
            return Ok(());
        };
        if line.trim().is_empty() {
            return Ok(());
        }
        // Ctrl+C stops a turn and the conversation goes on; SIGTERM keeps
        // its default (the process ends: nothing here would see it between
        // turns).
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        if let Err(f) = one_turn(&agent, &session.id, &line, mode, sink.clone(), stop).await {
            report(&f);
        }
    }
}

/// Who approves the agent's calls: `--approve`, else the person at a
/// terminal (none without one).
fn approve_mode(approve: Option<Approve>, terminal: bool) -> Result<ApproveMode, Failure> {
    Ok(match approve {
        Some(Approve::Ask) if !terminal => {
            return Err(Failure::Usage(
                "--approve ask needs a terminal; use read-only, all or none".into(),
            ));
        }
        Some(Approve::Ask) => ApproveMode::Ask,
        Some(Approve::ReadOnly) => ApproveMode::ReadOnly,
        Some(Approve::All) => ApproveMode::All,
        Some(Approve::None) => ApproveMode::None,
        None if terminal => ApproveMode::Ask,
        None => ApproveMode::None,
    })
}

fn report(f: &Failure) {
    if let Failure::Agent(info) = f {
        eprintln!("mcpwb: {}", info.message);
    }
}

/// One turn; `stop` (Ctrl+C, and SIGTERM for a single turn) stops it. A
/// provider failure is exit 7 with its message.
async fn one_turn(
    agent: &Agent,
    session: &str,
    text: &str,
    mode: ApproveMode,
    sink: Sink,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), Failure> {
    let errors = Arc::new(std::sync::Mutex::new(None));
    let seen = errors.clone();
    let wrapped: Sink = Arc::new(move |e| {
        if let AgentEvent::Error { code, message, .. } = &e {
            *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(ErrorInfo {
                code: *code,
                message: message.clone(),
            });
        }
        sink(e)
    });
    let turn = chats::send(agent, session, text, mode, wrapped);
    tokio::pin!(turn);
    let end = tokio::select! {
        end = &mut turn => end?,
        () = stop => {
            chats::stop(agent, session);
            turn.await?
        }
    };
    match end {
        EndReason::Error => {
            let info = errors.lock().unwrap_or_else(|p| p.into_inner()).take();
            Err(Failure::Agent(info.unwrap_or(ErrorInfo {
                code: ErrorCode::ProviderFailed,
                message: "the turn failed".into(),
            })))
        }
        EndReason::Stopped => {
            eprintln!("(stopped)");
            Ok(())
        }
        EndReason::Done | EndReason::StepLimit => Ok(()),
    }
}
