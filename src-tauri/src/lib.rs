//! The MCP Workbench desktop shell. Thin: it builds the Tauri runtime, state
//! and plugins, and adapts `workbench-core` to typed IPC commands (one module
//! per area under `commands/`). Everything testable without a window lives in
//! `workbench-core`.

#![forbid(unsafe_code)]

mod app_calls;
pub mod apps;
pub mod commands;
pub mod events;
mod launch;
pub mod startup;
pub mod state;
mod window_state;
pub mod wire;

use tauri::{Manager, Runtime};

pub use launch::LaunchOptions;
pub use state::AppState;

include!("command_list.rs");

/// Every command of [`window_commands`] with its TypeScript binding.
macro_rules! register {
    ($($area:ident :: $name:ident),* $(,)?) => {
        tauri_specta::collect_commands![$(commands::$area::$name::<tauri::Wry>),*]
    };
}

/// The typed command set; TypeScript bindings are generated from it into
/// `ui/src/bindings.ts` (see `tests/bindings.rs`).
pub fn specta_builder<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::<R>::new()
        .commands(window_commands!(register))
        .events(tauri_specta::collect_events![
            events::ServerStatusChanged,
            events::ConfigChanged,
            events::CatalogChanged,
            events::TrafficGrew,
            events::AskReceived,
            events::AskClosed,
            events::ServerLogged,
            events::ResourceUpdated,
            events::AuthStepped,
            events::AuthBrowser,
            events::SurfaceChanged,
            events::DevReloaded,
            events::TaskChanged,
            events::HistoryGrew
        ])
        // JSON from servers (`serde_json::Value`) may hold i64 numbers; in the
        // window they are JS numbers, exactly as JSON.parse would give them.
        .dangerously_cast_bigints_to_number()
}

/// The app builder, generic over the runtime so it can run under
/// `tauri::test::mock_builder()` as well as WebKit.
pub fn builder<R: Runtime>(
    options: LaunchOptions,
    cpu_rendering: Vec<(&'static str, &'static str)>,
) -> tauri::Builder<R> {
    let specta = specta_builder::<R>();
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_store::Builder::new().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .invoke_handler(specta.invoke_handler())
        // MCP Apps, each on its own origin (mcpapp://<id>/): see apps.rs.
        .manage(apps::Apps::default())
        .register_uri_scheme_protocol(apps::SCHEME, |ctx, request| {
            let apps = ctx.app_handle().state::<apps::Apps>();
            apps::serve(&apps, &request)
        })
        .setup(move |app| {
            let began = startup::since_launch();
            let log_dir = options
                .log_dir
                .clone()
                .or_else(|| app.path().app_log_dir().ok());
            let guard = workbench_core::logging::init(log_dir.as_deref(), "info");
            tracing::info!(
                log_dir = ?guard.log_dir,
                config = %options.config_path.display(),
                "MCP Workbench starting"
            );
            if !cpu_rendering.is_empty() {
                tracing::info!(set = ?cpu_rendering, "no GPU: the window paints on the CPU");
            }
            specta.mount_events(app);
            window_state::follow(app.handle());
            // Connect to every server of the config and follow the file: a
            // config that cannot be read is shown by list_servers, nothing is
            // started, and the servers start once the file is fixed.
            let config = match workbench_core::ConfigFile::load_scoped(
                &options.config_path,
                options.project_dir.as_deref(),
            ) {
                Ok(config) => config,
                Err(e) => {
                    tracing::warn!(error = %e, "config not loaded; no servers started");
                    workbench_core::ConfigFile::empty(&options.config_path)
                }
            };
            if options.trust {
                // --trust: the person vouches for what the files hold now.
                let trust = workbench_core::config::trust::Trust::app();
                for entry in &config.servers {
                    let file = workbench_core::config::trust::file_of(
                        &config.path,
                        config.project.as_deref(),
                        entry,
                    );
                    if let Err(e) = trust.trust(&file, entry) {
                        tracing::warn!(error = %e, server = %entry.name, "--trust: not recorded");
                    }
                }
            }
            // The window comes first: the servers start once it says it is
            // interactive (or after 3 s whatever happens), one every 60 ms.
            let (gate, gate_rx) = tokio::sync::watch::channel(false);
            let workbench_options = workbench_core::WorkbenchOptions {
                supervisor: workbench_core::connect::SupervisorOptions {
                    vars: workbench_core::config::vars::Vars::from_process(
                        options.project_dir.clone(),
                    ),
                    start_gate: Some(gate_rx),
                    ..Default::default()
                },
                // The window's traffic view holds up to 100,000 entries per
                // server (and 64 MiB of message text, whichever comes first).
                traffic_capacity: Some(100_000),
                interactive: true,
                offers: None,
                stagger: std::time::Duration::from_millis(60),
                trust: Some(workbench_core::config::trust::Trust::app()),
            };
            let gate = std::sync::Arc::new(gate);
            let fallback = gate.clone();
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                fallback.send_replace(true);
            });
            // The folder the config will be saved in (a first start has
            // none): the watch needs it to see the first save. The file
            // itself is not created until something is saved.
            if let Some(dir) = options.config_path.parent()
                && let Err(e) = std::fs::create_dir_all(dir)
            {
                tracing::warn!(error = %e, dir = %dir.display(), "cannot create the config's folder");
            }
            let (workbench, caller, watch, dev) = tauri::async_runtime::block_on(async {
                // Traces out only to a collector the person named (the
                // environment or Settings); nothing is sent otherwise.
                let settings = workbench_core::settings::SettingsFile::new(
                    workbench_core::settings::default_path(),
                );
                if let Some(url) = workbench_core::otel::endpoint(None, &settings)
                    && let Err(why) = workbench_core::otel::export_to(&url, "mcp-workbench")
                {
                    tracing::warn!("traces are not exported: {why}");
                }
                let (wb, caller) =
                    workbench_core::Workbench::start_with_caller(&config, workbench_options);
                workbench_core::logging::mask_with(wb.traffic());
                let watch =
                    wb.watch_config(options.config_path.clone(), options.project_dir.clone());
                // Reload on change (`dev.watch`), and each surface followed
                // across restarts for the panel's "what changed".
                let dev = (wb.watch_dev(), workbench_doctor::follow::Surfaces::follow(&wb));
                (wb, caller, watch, dev)
            });
            let watch = watch
                .inspect_err(|e| tracing::warn!(error = %e, "not following the config file"))
                .ok();
            events::forward(app.handle().clone(), &workbench);
            events::forward_surfaces(app.handle().clone(), &dev.1);
            // Inside the runtime: the sampling watcher is a task.
            let agent = tauri::async_runtime::block_on(async {
                agent(&workbench, caller, &options).map(|a| {
                    let sampling = a.answer_sampling(false);
                    (a, sampling)
                })
            })?;
            app.manage(startup::StartGate(gate));
            app.manage(AppState::new(
                options.config_path.clone(),
                options.project_dir.clone(),
                workbench,
                agent,
                watch,
                dev,
                guard,
            ));
            // The window's History follows the store.
            events::forward_history(app.handle().clone(), &app.state::<AppState>().calls);
            // The bridge comes back on if the person left it on.
            let saved = workbench_app::bridge::settings();
            if saved.enabled {
                let state = app.state::<AppState>();
                if let Err(e) = tauri::async_runtime::block_on(commands::bridge::start(&state, saved.port)) {
                    tracing::warn!(error = %e.message, "the bridge did not start");
                }
            }
            startup::set_up(began);
            Ok(())
        })
}

/// The chat agent: settings and sessions shared with `mcpwb` (a database
/// that cannot be opened is reported and chats are kept in memory).
fn agent(
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

/// Stop every server (and its process group) before the app exits.
fn shutdown<R: Runtime>(app: &tauri::AppHandle<R>) {
    if let Some(state) = app.try_state::<AppState>() {
        let wb = state.workbench.clone();
        tauri::async_runtime::block_on(async move {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), wb.shutdown()).await;
        });
    }
}

/// Entry point of the desktop binary.
pub fn run() {
    startup::mark_run();
    let cpu_rendering = startup::prefer_cpu_rendering_without_gpu();
    // For the window only: servers start with the person's environment.
    workbench_core::connect::stdio::hide_from_servers(
        cpu_rendering.iter().map(|(key, _)| *key).collect(),
    );
    let options = match LaunchOptions::from_env(std::env::args_os().skip(1)) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("mcp-workbench: {message}");
            eprintln!("usage: mcp-workbench [--config PATH] [--project DIR] [--trust]");
            std::process::exit(2);
        }
    };
    let app = match builder::<tauri::Wry>(options, cpu_rendering).build(tauri::generate_context!())
    {
        Ok(app) => app,
        Err(e) => {
            eprintln!("mcp-workbench: could not start: {e}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            shutdown(handle);
        }
    });
}
