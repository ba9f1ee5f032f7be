//! What a command that talks to servers starts from: the config loaded and
//! its servers connected (only those named), each checked Ready with a
//! reason when not, the one call path over them with the shared history,
//! and who answers servers' asks. Every `*_cmd` stands on this;
//! `commands.rs` only chooses the command.

use std::time::Duration;

use workbench_core::config::{ConfigFile, default_user_config};
use workbench_core::connect::{ServerState, SupervisorOptions};
use workbench_core::{CallOptions, Error, Workbench, WorkbenchOptions};

use crate::{Cli, Command, Failure};

/// A workbench started for one command, and the capability to call its
/// tools, which goes only to the one call path ([`calls_for`]). Derefs to
/// the workbench.
pub struct Started {
    wb: Workbench,
    caller: workbench_core::ToolCaller,
}

impl Started {
    pub fn new((wb, caller): (Workbench, workbench_core::ToolCaller)) -> Started {
        Started { wb, caller }
    }
}

/// A workbench on `config` with none of its servers started (a run whose
/// cases name no server of it: each case fails saying so).
pub fn start_without_servers(config: &ConfigFile) -> Started {
    let mut none = config.clone();
    none.servers.clear();
    Started::new(Workbench::start_with_caller(&none, Default::default()))
}

impl std::ops::Deref for Started {
    type Target = Workbench;
    fn deref(&self) -> &Workbench {
        &self.wb
    }
}

/// Start the servers of the config (only `only`, when given) and wait for them.
pub async fn connect(cli: &Cli, only: Option<&str>) -> Result<Started, Failure> {
    let only: Vec<&str> = only.into_iter().collect();
    connect_some(cli, &only, offers(cli, cli.sampling)).await
}

/// What the client advertises: what the flags answer.
pub fn offers(cli: &Cli, sampling: crate::terminal::Sampling) -> workbench_core::asks::Offers {
    workbench_core::asks::Offers {
        sampling: sampling != crate::terminal::Sampling::Refuse,
        elicitation: cli.elicitation != crate::terminal::Elicitation::Decline,
    }
}

/// Start the servers named in `only` (all when empty) and wait for them;
/// `offers`: what servers may ask (someone answers).
pub async fn connect_some(
    cli: &Cli,
    only: &[&str],
    offers: workbench_core::asks::Offers,
) -> Result<Started, Failure> {
    let path = cli.config.clone().unwrap_or_else(default_user_config);
    let mut config = ConfigFile::load_scoped(&path, cli.project.as_deref())?;
    // Seen whole first: the user's file as first seen is trusted whole,
    // not only the servers this run asked for.
    workbench_core::config::trust::Trust::app().mark(&mut config);
    if !only.is_empty() {
        if let Some(missing) = only
            .iter()
            .find(|n| !config.servers.iter().any(|s| s.name == **n))
        {
            return Err(Error::UnknownServer(missing.to_string()).into());
        }
        config.servers.retain(|s| only.contains(&s.name.as_str()));
    }
    for p in &config.problems {
        eprintln!("mcpwb: skipped {}: {}", p.pointer, p.message);
    }
    // `mcpwb dev --watch GLOB`: the person's own globs for this run, in
    // place of the entry's (the file is not changed).
    if let Command::Dev(dev) = &cli.command
        && !dev.watch.is_empty()
        && let Some(entry) = config.servers.iter_mut().find(|e| e.name == dev.server)
    {
        entry.dev = Some(workbench_core::config::DevSettings {
            watch: dev.watch.clone(),
        });
    }
    let trust = workbench_core::config::trust::Trust::app();
    if cli.trust {
        // --trust: the person vouches for every entry of this run (remembered).
        workbench_app::trust::trust_every(&config)?;
    }
    let timeout = Duration::from_secs_f64(cli.timeout.max(0.1));
    // `serve` runs until its client leaves: servers that crash come back,
    // and calls may take as long as the caller waits (progress resets it).
    let serving = matches!(cli.command, Command::Serve(_) | Command::Dev(_));
    let options = WorkbenchOptions {
        supervisor: SupervisorOptions {
            startup_timeout: timeout,
            call_timeout: if serving {
                timeout.max(Duration::from_secs(600))
            } else {
                timeout
            },
            auto_restart: serving,
            health_interval: None,
            shutdown_grace: Duration::from_millis(500),
            vars: workbench_core::config::vars::Vars::from_process(cli.project.clone()),
            ..SupervisorOptions::default()
        },
        traffic_capacity: None,
        interactive: offers.sampling || offers.elicitation,
        offers: Some(offers),
        stagger: Duration::ZERO,
        trust: Some(trust),
    };
    let wb = Started::new(Workbench::start_with_caller(&config, options));
    crate::print::mask_with(wb.traffic());
    // Ready, failed, disabled — or still starting when the timeout passes.
    wb.settle(timeout).await;
    Ok(wb)
}

/// The server may start: not waiting for the person's trust, not disabled
/// (else why not, as [`ready`] says it). Starting, failed or ready are all fine.
pub async fn may_start(wb: &Workbench, name: &str) -> Result<(), Failure> {
    match wb.server(name)?.status().state {
        ServerState::Untrusted | ServerState::Disabled => ready(wb, name).await,
        _ => Ok(()),
    }
}

/// The server must be Ready; else say why not.
pub async fn ready(wb: &Workbench, name: &str) -> Result<(), Failure> {
    let status = wb.server(name)?.status();
    match status.state {
        ServerState::Ready => {
            match !wb.server(name)?.is_transient() {
                true => {
                    // The workbench lists a Ready server itself: wait for
                    // that (a list of our own would ask the server twice);
                    // list here only if it did not come, to say why.
                    let unlisted =
                        |wb: &Workbench| wb.catalog().server(name).is_none_or(|c| c.stale);
                    // (A refusal for want of sign-in ends the wait: no list comes.)
                    let mut events = wb.subscribe();
                    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
                    while unlisted(wb)
                        && wb.traffic().refusal(name).is_none()
                        && tokio::time::Instant::now() < deadline
                    {
                        let tick = tokio::time::Instant::now() + Duration::from_millis(100);
                        if let Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) =
                            tokio::time::timeout_at(tick.min(deadline), events.recv()).await
                        {
                            break;
                        }
                    }
                    if unlisted(wb) {
                        wb.list_now(name).await?;
                    }
                }
                // Transient: its discovery session fills the catalog, then closes.
                false => {
                    for _ in 0..100 {
                        if wb.catalog().server(name).is_some() {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            }
            Ok(())
        }
        ServerState::Failed { reason, stderr, .. }
        | ServerState::Restarting { reason, stderr, .. } => {
            let tail = crate::print::stderr_tail(&stderr);
            let tail = if tail.is_empty() {
                String::new()
            } else {
                format!("; its stderr ended: {}", tail.join(" │ "))
            };
            Err(Error::ServerNotReady {
                server: name.into(),
                state: format!("failed: {reason}{tail}"),
            }
            .into())
        }
        ServerState::Starting { .. } => Err(Error::ServerNotReady {
            server: name.into(),
            state: "no answer to initialize within the timeout".into(),
        }
        .into()),
        ServerState::Disabled => Err(Error::ServerNotReady {
            server: name.into(),
            state: "disabled in the config".into(),
        }
        .into()),
        ServerState::Untrusted => {
            let (read, trust) = crate::print::trust_commands(name);
            Err(Error::ServerNotReady {
                server: name.into(),
                state: format!(
                    "not trusted: it comes from a project, an import or an edit outside the workbench. \
                     Read what it runs with `{read}`, then `{trust}` (or pass --trust)"
                ),
            }
            .into())
        }
        ServerState::Stopped => Err(Error::ServerNotReady {
            server: name.into(),
            state: "stopped".into(),
        }
        .into()),
    }
}

pub fn opts(cli: &Cli) -> CallOptions {
    CallOptions {
        timeout: Some(Duration::from_secs_f64(cli.timeout.max(0.1))),
        max_total: cli.max_total.map(|s| Duration::from_secs_f64(s.max(0.1))),
        fixed_timeout: cli.fixed_timeout,
        ..Default::default()
    }
}

/// The one call path over `wb`, keeping calls in the shared history when
/// `keep` (a history that cannot be opened is said, and the call goes on).
pub fn calls_for(wb: &Started, keep: bool) -> workbench_calls::Calls {
    let store = keep
        .then(|| workbench_store::Store::open_in(&workbench_core::settings::data_dir()))
        .and_then(|opened| {
            opened
                .map_err(|e| eprintln!("mcpwb: the call is not kept in the history: {e}"))
                .ok()
        });
    workbench_calls::Calls::new(
        wb.wb.clone(),
        wb.caller.clone(),
        workbench_calls::CallsOptions {
            settings: workbench_core::settings::SettingsFile::new(
                workbench_core::settings::default_path(),
            ),
            store,
        },
    )
}

/// What answers servers' asks during a command: the model (`--sampling
/// auto`), the person (`ask`, on a terminal), or nobody (refused).
pub fn asks_for(cli: &Cli, wb: &Started) -> Result<Option<tokio_util::sync::DropGuard>, Failure> {
    use crate::terminal::{Elicitation, Sampling, Terminal, interactive, serve_asks};
    if cli.sampling == Sampling::Refuse && cli.elicitation == Elicitation::Decline {
        return Ok(None);
    }
    if cli.sampling == Sampling::Ask && !interactive() {
        return Err(Failure::Usage(
            "--sampling ask needs a terminal; use auto or refuse".into(),
        ));
    }
    if cli.elicitation == Elicitation::Ask && !interactive() {
        return Err(Failure::Usage(
            "--elicitation ask needs a terminal; use defaults or decline".into(),
        ));
    }
    let asking = cli.sampling == Sampling::Ask || cli.elicitation == Elicitation::Ask;
    if cli.sampling == Sampling::Refuse {
        let terminal = asking.then(Terminal::start);
        return Ok(Some(serve_asks(
            wb,
            None,
            (cli.sampling, cli.elicitation),
            terminal,
        )));
    }
    let config = cli.config.clone().unwrap_or_else(default_user_config);
    let store = workbench_store::Store::open_in(&workbench_core::settings::data_dir())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let agent = workbench_agent::Agent::new(
        wb.wb.clone(),
        workbench_agent::AgentOptions {
            calls: calls_for(wb, false),
            settings: workbench_core::settings::SettingsFile::new(
                workbench_core::settings::default_path(),
            ),
            store,
            config: workbench_agent::ConfigPaths {
                user: config,
                project: cli.project.as_ref().map(|d| d.join(".mcp.json")),
            },
            keychain: workbench_core::config::secrets::Keychain::app(),
        },
    )
    .map_err(|e| Failure::Agent(e.into()))?;
    let terminal = asking.then(Terminal::start);
    Ok(Some(serve_asks(
        wb,
        Some(agent),
        (cli.sampling, cli.elicitation),
        terminal,
    )))
}

/// The agent over `wb`: the person's settings, store and keychain (the chat,
/// and the evals of `mcpwb test`).
pub fn agent_for(cli: &Cli, wb: &Started) -> Result<workbench_agent::Agent, Failure> {
    use workbench_core::settings;
    let failure = |e: workbench_agent::Error| match e {
        workbench_agent::Error::Core(e) => Failure::Core(e),
        other => Failure::Agent(other.into()),
    };
    let config = cli
        .config
        .clone()
        .unwrap_or_else(workbench_core::config::default_user_config);
    let store =
        workbench_store::Store::open_in(&settings::data_dir()).map_err(|e| failure(e.into()))?;
    let calls = workbench_calls::Calls::new(
        wb.wb.clone(),
        wb.caller.clone(),
        workbench_calls::CallsOptions {
            settings: settings::SettingsFile::new(settings::default_path()),
            store: Some(store.clone()),
        },
    );
    workbench_agent::Agent::new(
        wb.wb.clone(),
        workbench_agent::AgentOptions {
            calls,
            settings: settings::SettingsFile::new(settings::default_path()),
            store,
            config: workbench_agent::ConfigPaths {
                user: config,
                project: cli.project.as_ref().map(|d| d.join(".mcp.json")),
            },
            keychain: workbench_core::config::secrets::Keychain::app(),
        },
    )
    .map_err(failure)
}
