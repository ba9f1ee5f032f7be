//! Each subcommand: connect what it needs through a `Workbench`, ask, print.

use serde_json::json;
use workbench_app::Workbench;
use workbench_app::servers::{self, ServerState};
use workbench_app::tools::CallOutcome;

use crate::print;
use crate::{Cli, Command, Connected, Failure};
use workbench_app::offers;

use crate::session::{asks_for, calls_for, connect, opts, ready};

pub async fn run(cli: &Cli) -> Result<(), Failure> {
    let command = match &cli.command {
        Command::Connected(c) => c,
        Command::Config { action } => return crate::config_cmd::run(cli, action),
        Command::Auth { action } => return crate::auth_cmd::run(cli, action).await,
        Command::Chat(args) => return crate::chat::run(cli, args, cli.sampling).await,
        Command::Serve(args) => return crate::serve_cmd::run(cli, args).await,
        Command::Load(args) => return crate::load_cmd::run(cli, args).await,
        Command::AgentHelp => {
            print!("{}", workbench_selftools::SKILL);
            return Ok(());
        }
        Command::History(args) => return crate::history_cmd::run(cli, args),
        Command::Test(args) => return crate::test_cmd::run(cli, args).await,
        Command::Doctor(args) => return crate::doctor_cmd::doctor(cli, args).await,
        Command::Snapshot(args) => return crate::doctor_cmd::snapshot(cli, args).await,
        Command::Diff(args) => return crate::doctor_cmd::diff(cli, args).await,
        Command::Dev(args) => return crate::dev_cmd::run(cli, args).await,
        Command::Tap(args) => return crate::tap_cmd::tap(cli, args).await,
        Command::Bundle(args) => return crate::bundle_cmd::run(cli, args),
        Command::Publish(args) => return crate::publish_cmd::run(cli, args).await,
        Command::Registry(args) => return crate::registry_cmd::run(cli, args).await,
        Command::Session { action } => return crate::session_cmd::session(cli, action),
        Command::Mock(args) => return crate::session_cmd::mock(cli, args).await,
    };
    // Arguments that cannot be read are said before any server starts.
    command.arguments_read()?;
    let target = command.target();
    let mut sign_ins = 0;
    loop {
        let wb = connect(cli, target).await?;
        let asks = asks_for(cli, &wb)?;
        let result = dispatch(cli, command, &wb, target).await;
        drop(asks);
        let refusal = target.and_then(|t| workbench_app::auth::take_refusal(&wb, t));
        servers::close(&wb).await;
        match (result, cli.sign_in, refusal, target) {
            (Err(_), Some(mode), Some(refusal), Some(name)) if sign_ins < 3 => {
                sign_ins += 1;
                if !crate::auth_cmd::answer_refusal(cli, name, &refusal, mode).await? {
                    return Err(Failure::Exit(6));
                }
            }
            (result, ..) => return result,
        }
    }
}

async fn each_ready(wb: &Workbench, target: Option<&str>) -> Result<Vec<String>, Failure> {
    if let Some(name) = target {
        ready(wb, name).await?;
        return Ok(vec![name.to_string()]);
    }
    let mut names = Vec::new();
    for s in servers::statuses(wb) {
        if ready(wb, &s.name).await.is_ok() {
            names.push(s.name);
        } else if matches!(s.state, ServerState::Untrusted) {
            let (read, trust) = print::trust_commands(&s.name);
            eprintln!(
                "mcpwb: {} is not trusted yet; its lists are left out (read what it runs with `{read}`, then `{trust}`)",
                print::clean(&s.name)
            );
        } else if !matches!(s.state, ServerState::Disabled) {
            eprintln!("mcpwb: {} is not ready; its lists are left out", s.name);
        }
    }
    Ok(names)
}

async fn dispatch(
    cli: &Cli,
    command: &Connected,
    wb: &crate::session::Started,
    target: Option<&str>,
) -> Result<(), Failure> {
    match command {
        Connected::Servers => {
            let names: Vec<String> = servers::statuses(wb).into_iter().map(|s| s.name).collect();
            for name in &names {
                let _ = ready(wb, name).await;
            }
            let listed = offers::catalogs(wb, None);
            print::servers(cli.json, &servers::statuses(wb), &listed);
        }
        Connected::Tools { tool, .. } => tools(cli, wb, target, tool.as_deref()).await?,
        Connected::Task { action } => crate::task_cmd::run(cli, wb, action).await?,
        Connected::App(a) => crate::app_cmd::run(cli, wb, a).await?,
        Connected::Call {
            server,
            tool,
            arguments,
            args,
            no_history,
            task,
            no_wait,
        } => {
            // `mcpwb call SERVER`: which tools it has, and how to call one.
            let Some(tool) = tool else {
                tools(cli, wb, target, None).await?;
                return Err(name_it(
                    "the tool to call",
                    ("call", server, "TOOL"),
                    "its tools",
                ));
            };
            let hand = Hand {
                as_task: *task,
                detach: *no_wait,
                history: !*no_history,
            };
            let typed = (arguments.as_deref(), args);
            call(cli, wb, (server, tool), typed, hand).await?;
        }
        Connected::Resources { .. } => {
            let names = each_ready(wb, target).await?;
            print::resources(cli.json, &offers::catalogs(wb, Some(&names)));
        }
        Connected::Read { server, uri } => {
            // `mcpwb read SERVER`: what it offers, and how to read one.
            let Some(uri) = uri else {
                let names = each_ready(wb, target).await?;
                print::resources(cli.json, &offers::catalogs(wb, Some(&names)));
                return Err(name_it(
                    "the resource to read",
                    ("read", server, "URI"),
                    "its resources",
                ));
            };
            ready(wb, server).await?;
            let result = offers::read_resource(wb, server, uri, opts(cli)).await?;
            print::read(cli.json, &result);
        }
        Connected::Prompts { .. } => {
            let names = each_ready(wb, target).await?;
            print::prompts(cli.json, &offers::catalogs(wb, Some(&names)));
        }
        Connected::Skills { .. } => {
            let names = each_ready(wb, target).await?;
            crate::skills_cmd::list(cli, wb, &names);
        }
        Connected::Skill {
            server,
            name,
            file,
            verify,
        } => {
            ready(wb, server).await?;
            crate::skills_cmd::show(cli, wb, server, name, file.as_deref(), *verify).await?;
        }
        Connected::Prompt { server, name, args } => {
            let Some(name) = name else {
                let names = each_ready(wb, target).await?;
                print::prompts(cli.json, &offers::catalogs(wb, Some(&names)));
                return Err(name_it(
                    "the prompt to get",
                    ("prompt", server, "NAME"),
                    "its prompts",
                ));
            };
            ready(wb, server).await?;
            let args = args.resolve(offers::prompt(wb, server, name).as_ref())?;
            let result = offers::get_prompt(wb, server, name, args, opts(cli)).await?;
            print::prompt(cli.json, &result);
        }
        Connected::Ping { server } => {
            ready(wb, server).await?;
            let duration_ms = offers::ping(wb, server, || opts(cli)).await?;
            if cli.json {
                crate::print::line(
                    &json!({ "server": server, "duration_ms": duration_ms }).to_string(),
                );
            } else {
                crate::print::line(&format!("{server}: pong in {duration_ms:.1} ms"));
            }
        }
        Connected::Traffic { .. } => {
            let _ = each_ready(wb, target).await;
            print::traffic(cli.json, workbench_app::traffic::log(wb), target);
        }
    }
    Ok(())
}

/// A command that names a server and not what of it (`mcpwb call demo`):
/// what it offers was listed; this says how to go on (exit 2, as clap's).
fn name_it(missing: &str, (command, server, what): (&str, &str, &str), listed: &str) -> Failure {
    let server = workbench_app::config::shell_quote(server);
    Failure::Usage(format!(
        "name {missing}: {} ({listed} are above)",
        print::suggest(&format!("{command} {server} {what}"))
    ))
}

/// `mcpwb tools [SERVER]`: each server's tools once it is ready, with what
/// it said of its list's freshness (2026-07-28).
async fn tools(
    cli: &Cli,
    wb: &crate::session::Started,
    target: Option<&str>,
    one: Option<&str>,
) -> Result<(), Failure> {
    let names = each_ready(wb, target).await?;
    let tools = workbench_app::tools::of_servers(wb, &names);
    if let (Some(server), Some(name)) = (target, one) {
        return print::tool(cli.json, server, name, &tools);
    }
    let cache = workbench_app::tools::list_freshness(wb, &names);
    print::tools(cli.json, &tools, target.is_some(), &cache);
    Ok(())
}

/// How `mcpwb call` was asked to make its call.
struct Hand {
    /// `--task`: as a task.
    as_task: bool,
    /// `--no-wait`: the task's id, not its end.
    detach: bool,
    /// Kept in the History (not `--no-history`).
    history: bool,
}

/// `mcpwb call SERVER TOOL`: the call by hand through the one call path
/// (Ctrl-C cancels it, the server told), its notes and schema breaks said
/// on stderr, its result printed (or, with `--no-wait`, its task).
async fn call(
    cli: &Cli,
    wb: &crate::session::Started,
    (server, tool): (&str, &str),
    (positional, args): (Option<&str>, &crate::tool_args::ToolArgs),
    hand: Hand,
) -> Result<(), Failure> {
    ready(wb, server).await?;
    // Typed by the tool's schema as the server listed it.
    let schema = workbench_app::tools::input_schema(wb, server, tool);
    // A name the server does not list is sent (an author may mean it), with
    // a note; one the config hides is refused by the call path, which says so.
    if let Some(names) = workbench_app::tools::unlisted(wb, server, tool) {
        eprintln!(
            "note: {}",
            crate::tool_args::unlisted_tool(server, tool, &names)
        );
    }
    let arguments = args.resolve(positional, schema.as_ref())?;
    let calls = calls_for(wb, hand.history);
    let cancel = tokio_util::sync::CancellationToken::new();
    let on_interrupt = cancel.clone();
    let interrupt = tokio::spawn(async move {
        crate::stop::asked().await;
        on_interrupt.cancel();
    });
    let printed =
        (!hand.detach).then(|| std::sync::Arc::new(crate::task_cmd::PrintStatuses::new()));
    let statuses = printed
        .clone()
        .map(|p| p as std::sync::Arc<dyn workbench_app::tools::CallSink>);
    let out = workbench_app::tools::call(
        &calls,
        workbench_app::tools::HandCall {
            from: workbench_app::tools::ByHand::Cli,
            server,
            tool,
            arguments,
            as_task: hand.as_task,
            detach: hand.detach,
            timeout: opts(cli).timeout,
            max_total: opts(cli).max_total,
            fixed_timeout: cli.fixed_timeout,
            cancel,
        },
        statuses,
    )
    .await;
    if let Some(p) = &printed {
        p.finish();
    }
    interrupt.abort();
    workbench_app::history::flush(&calls).await;
    let out = out?;
    if let (true, Some(task)) = (hand.detach, &out.task) {
        if cli.json {
            crate::print::line(&json!({ "task": task, "result": out.result }).to_string());
        } else {
            crate::print::line(&crate::task_cmd::describe(task));
        }
        return Ok(());
    }
    for note in &out.notes {
        eprintln!("mcpwb: {}", print::clean(note));
    }
    for v in &out.schema_violations {
        eprintln!(
            "mcpwb: the result breaks the tool's outputSchema: {}",
            print::clean(v)
        );
    }
    print::call(
        cli.json,
        &CallOutcome {
            result: out.result,
            duration_ms: out.duration_ms,
            task: out.task,
            notes: out.notes,
        },
    )
}

impl Connected {
    /// The arguments' JSON read (stdin once, kept), or why it cannot be.
    fn arguments_read(&self) -> Result<(), Failure> {
        match self {
            Connected::Call {
                arguments, args, ..
            } => args.object(arguments.as_deref()).map(drop),
            Connected::App(a) => a.args.object(None).map(drop),
            Connected::Prompt { args, .. } => args.resolve(None).map(drop),
            _ => Ok(()),
        }
    }

    /// The server it names (None: every server).
    fn target(&self) -> Option<&str> {
        match self {
            Connected::Servers => None,
            Connected::Tools { server, .. }
            | Connected::Resources { server }
            | Connected::Prompts { server }
            | Connected::Skills { server }
            | Connected::Traffic { server } => server.as_deref(),
            Connected::Task { action } => Some(action.server()),
            Connected::App(a) => Some(a.server.as_str()),
            Connected::Call { server, .. }
            | Connected::Read { server, .. }
            | Connected::Prompt { server, .. }
            | Connected::Skill { server, .. }
            | Connected::Ping { server } => Some(server.as_str()),
        }
    }
}
