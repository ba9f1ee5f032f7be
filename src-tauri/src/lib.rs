//! The MCP Workbench desktop shell. Thin: it builds the Tauri runtime, state
//! and plugins, and adapts `workbench-core` to typed IPC commands (one module
//! per area under `commands/`). Everything testable without a window lives in
//! `workbench-core`.

pub mod commands;
pub mod events;
mod launch;
pub mod state;
mod window_state;

use tauri::{Manager, Runtime};

pub use launch::LaunchOptions;
pub use state::AppState;

/// The typed command set; TypeScript bindings are generated from it into
/// `ui/src/bindings.ts` (see `tests/bindings.rs`).
pub fn specta_builder<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::<R>::new()
        .commands(tauri_specta::collect_commands![
            commands::servers::list_servers::<tauri::Wry>,
            commands::servers::server_statuses::<tauri::Wry>,
            commands::servers::restart_server::<tauri::Wry>,
            commands::servers::stop_server::<tauri::Wry>,
            commands::tools::list_tools::<tauri::Wry>,
            commands::tools::call_tool::<tauri::Wry>,
            commands::tools::cancel_call::<tauri::Wry>,
            commands::traffic::traffic_page::<tauri::Wry>,
            commands::asks::pending_asks::<tauri::Wry>,
            commands::asks::answer_ask::<tauri::Wry>,
            commands::asks::open_ask_url::<tauri::Wry>,
            commands::asks::set_roots::<tauri::Wry>,
            commands::asks::get_roots::<tauri::Wry>,
            commands::asks::set_log_level::<tauri::Wry>,
            commands::resources::list_resources::<tauri::Wry>,
            commands::resources::list_prompts::<tauri::Wry>,
            commands::resources::read_resource::<tauri::Wry>,
            commands::resources::subscribe_resource::<tauri::Wry>,
            commands::resources::get_prompt::<tauri::Wry>,
            commands::resources::complete::<tauri::Wry>,
            commands::config::read_config::<tauri::Wry>,
            commands::config::save_config::<tauri::Wry>,
            commands::config::edit_server::<tauri::Wry>,
            commands::config::try_server::<tauri::Wry>,
            commands::config::server_entry::<tauri::Wry>,
            commands::config::store_secret::<tauri::Wry>,
            commands::config::discover_configs::<tauri::Wry>,
            commands::config::import_config::<tauri::Wry>,
            commands::config::needed_inputs::<tauri::Wry>,
            commands::config::provide_input::<tauri::Wry>,
        ])
        .events(tauri_specta::collect_events![
            events::ServerStatusChanged,
            events::ConfigChanged,
            events::CatalogChanged,
            events::TrafficGrew,
            events::AskReceived,
            events::AskClosed,
            events::ServerLogged,
            events::ResourceUpdated
        ])
        // JSON from servers (`serde_json::Value`) may hold i64 numbers; in the
        // window they are JS numbers, exactly as JSON.parse would give them.
        .dangerously_cast_bigints_to_number()
}

/// The app builder, generic over the runtime so it can run under
/// `tauri::test::mock_builder()` as well as WebKit.
pub fn builder<R: Runtime>(options: LaunchOptions) -> tauri::Builder<R> {
    let specta = specta_builder::<R>();
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_store::Builder::new().build())
        .invoke_handler(specta.invoke_handler())
        .setup(move |app| {
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
            let workbench_options = workbench_core::WorkbenchOptions {
                supervisor: workbench_core::connect::SupervisorOptions {
                    vars: workbench_core::config::vars::Vars::from_process(
                        options.project_dir.clone(),
                    ),
                    ..Default::default()
                },
                // The window's traffic view holds up to 100,000 entries per
                // server (and 64 MiB of message text, whichever comes first).
                traffic_capacity: Some(100_000),
                interactive: true,
            };
            let (workbench, watch) = tauri::async_runtime::block_on(async {
                let wb = workbench_core::Workbench::start(&config, workbench_options);
                let watch =
                    wb.watch_config(options.config_path.clone(), options.project_dir.clone());
                (wb, watch)
            });
            let watch = watch
                .inspect_err(|e| tracing::warn!(error = %e, "not following the config file"))
                .ok();
            events::forward(app.handle().clone(), &workbench);
            app.manage(AppState::new(
                options.config_path.clone(),
                options.project_dir.clone(),
                workbench,
                watch,
                guard,
            ));
            Ok(())
        })
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
    let options = match LaunchOptions::from_env(std::env::args_os().skip(1)) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("mcp-workbench: {message}");
            eprintln!("usage: mcp-workbench [--config PATH] [--project DIR]");
            std::process::exit(2);
        }
    };
    let app = match builder::<tauri::Wry>(options).build(tauri::generate_context!()) {
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
