//! The window's composition root: the config as the app starts on it, the
//! workbench's options (servers start once the window is interactive), and
//! the workbench started with its watches. Only here (and in `mcpwb`'s
//! session) is the capability to call a tool handed out.

use std::sync::Arc;

use tokio::sync::watch;
use workbench_core::config::trust::{self, Trust};
use workbench_core::{ConfigFile, WorkbenchOptions};

use crate::LaunchOptions;

/// What `start` gives: the workbench, the capability to call its tools, the
/// config's watch and the author's loop (reload on change, surfaces
/// followed).
pub(crate) type Started = (
    workbench_core::Workbench,
    workbench_core::ToolCaller,
    workbench_core::Result<workbench_core::ConfigWatch>,
    (workbench_core::DevWatch, workbench_doctor::follow::Surfaces),
);

/// The config the app starts on: a config that cannot be read is shown by
/// list_servers, nothing is started, and the servers start once the file
/// is fixed. With `--trust` the person vouches for what the files hold now.
pub(crate) fn config_at_start(options: &LaunchOptions) -> ConfigFile {
    let config = match ConfigFile::load_scoped(&options.config_path, options.project_dir.as_deref())
    {
        Ok(config) => config,
        Err(e) => {
            tracing::warn!(error = %e, "config not loaded; no servers started");
            ConfigFile::empty(&options.config_path)
        }
    };
    if options.trust {
        let trust = Trust::app();
        for entry in &config.servers {
            let file = trust::file_of(&config.path, config.project.as_deref(), entry);
            if let Err(e) = trust.trust(&file, entry) {
                tracing::warn!(error = %e, server = %entry.name, "--trust: not recorded");
            }
        }
    }
    config
}

/// The window comes first: the servers start once it says it is
/// interactive (`gate`), or after 3 s whatever happens, one every 60 ms.
pub(crate) fn workbench_options(
    gate: watch::Receiver<bool>,
    options: &LaunchOptions,
) -> WorkbenchOptions {
    WorkbenchOptions {
        supervisor: workbench_core::connect::SupervisorOptions {
            vars: workbench_core::config::vars::Vars::from_process(options.project_dir.clone()),
            start_gate: Some(gate),
            ..Default::default()
        },
        // The window's traffic view holds up to 100,000 entries per
        // server (and 64 MiB of message text, whichever comes first).
        traffic_capacity: Some(100_000),
        interactive: true,
        offers: None,
        stagger: std::time::Duration::from_millis(60),
        trust: Some(Trust::app()),
    }
}

/// The start gate, opened after 3 s if the window has not said it is
/// interactive by then.
pub(crate) fn opened_in_time(gate: watch::Sender<bool>) -> Arc<watch::Sender<bool>> {
    let gate = Arc::new(gate);
    let fallback = gate.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        fallback.send_replace(true);
    });
    gate
}

/// The workbench started on `config`, following the config's files, each
/// server's `dev.watch` and its surface across restarts; traces out only
/// to a collector the person named (the environment or Settings).
pub(crate) fn start(
    config: &ConfigFile,
    workbench_options: WorkbenchOptions,
    options: &LaunchOptions,
) -> Started {
    // The folder the config will be saved in (a first start has none): the
    // watch needs it to see the first save. The file itself is not created
    // until something is saved.
    if let Some(dir) = options.config_path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        tracing::warn!(error = %e, dir = %dir.display(), "cannot create the config's folder");
    }
    tauri::async_runtime::block_on(async {
        let settings =
            workbench_core::settings::SettingsFile::new(workbench_core::settings::default_path());
        if let Some(url) = workbench_core::otel::endpoint(None, &settings)
            && let Err(why) = workbench_core::otel::export_to(&url, "mcp-workbench")
        {
            tracing::warn!("traces are not exported: {why}");
        }
        let (wb, caller) = workbench_core::Workbench::start_with_caller(config, workbench_options);
        workbench_core::logging::mask_with(wb.traffic());
        let watch = wb.watch_config(options.config_path.clone(), options.project_dir.clone());
        let dev = (
            wb.watch_dev(),
            workbench_doctor::follow::Surfaces::follow(&wb),
        );
        (wb, caller, watch, dev)
    })
}

/// The chat agent: settings and sessions shared with `mcpwb` (a database
/// that cannot be opened is reported and chats are kept in memory).
pub(crate) fn agent(
    workbench: &workbench_core::Workbench,
    caller: workbench_core::ToolCaller,
    options: &LaunchOptions,
) -> Result<workbench_agent::Agent, Box<dyn std::error::Error>> {
    use workbench_core::settings;
    let store = match workbench_store::Store::open_in(&settings::data_dir()) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "chats cannot be saved; keeping them in memory");
            workbench_store::Store::in_memory()?
        }
    };
    // Every call — by hand, by the agent, through the bridge — goes through
    // this one path and lands in the history beside the chats.
    let calls = workbench_calls::Calls::new(
        workbench.clone(),
        caller,
        workbench_calls::CallsOptions {
            settings: settings::SettingsFile::new(settings::default_path()),
            store: Some(store.clone()),
        },
    );
    let agent = workbench_agent::Agent::new(
        workbench.clone(),
        workbench_agent::AgentOptions {
            calls,
            settings: settings::SettingsFile::new(settings::default_path()),
            store,
            config: workbench_agent::ConfigPaths {
                user: options.config_path.clone(),
                project: options.project_dir.as_ref().map(|d| d.join(".mcp.json")),
            },
            keychain: workbench_core::config::secrets::Keychain::app(),
        },
    )?;
    match agent.clean_up_idle() {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "chats idle past the configured age deleted"),
        Err(e) => tracing::warn!(error = %e, "idle chats not cleaned up"),
    }
    Ok(agent)
}
