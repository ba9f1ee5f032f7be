//! The MCP Workbench desktop shell. Thin: it builds the Tauri runtime, state
//! and plugins, and adapts `workbench-core` to typed IPC commands (one module
//! per area under `commands/`). Everything testable without a window lives in
//! `workbench-core`.

#![forbid(unsafe_code)]
// The library has no unit tests (its tests are in tests/app/), yet `cargo
// test --all-targets` builds its unit-test harness whatever `test = false`
// says: under cfg(test) it is empty, so that build compiles nothing of it
// (it was 20 s of a fresh build, 27-70 s of a warm one).
#![cfg(not(test))]

pub mod apps;
pub mod commands;
mod compose;
pub mod events;
mod launch;
pub mod startup;
pub mod state;
pub mod window_state;
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
    cpu_rendering: &'static [(&'static str, &'static str)],
) -> tauri::Builder<R> {
    let specta = specta_builder::<R>();
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_store::Builder::new().build())
        .plugin(tauri_plugin_dialog::init())
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
            let config = compose::config_at_start(&options);
            let (gate, gate_rx) = tokio::sync::watch::channel(false);
            let gate = compose::opened_in_time(gate);
            let (workbench, caller, watch, dev) = compose::start(
                &config,
                compose::workbench_options(gate_rx, &options),
                &options,
            );
            let watch = watch
                .inspect_err(|e| tracing::warn!(error = %e, "not following the config file"))
                .ok();
            events::forward(app.handle().clone(), &workbench);
            events::forward_surfaces(app.handle().clone(), &dev.1);
            // Inside the runtime: the sampling watcher is a task.
            let agent = tauri::async_runtime::block_on(async {
                compose::agent(&workbench, caller, &options).map(|a| {
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
                if let Err(e) =
                    tauri::async_runtime::block_on(commands::bridge::start(&state, saved.port))
                {
                    tracing::warn!(error = %e.message, "the bridge did not start");
                }
            }
            end_on_sigterm(app.handle().clone());
            startup::set_up(began);
            Ok(())
        })
}

/// SIGTERM (a session logging out, `kill`) ends the app as closing its
/// window does: the servers stopped and the History written, where the
/// signal's default would end the process with neither.
fn end_on_sigterm<R: Runtime>(app: tauri::AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            term.recv().await;
            tracing::info!("SIGTERM: ending as a closed window does");
            app.exit(0);
        }
    });
}

/// Stop every server (and its process group) before the app exits, then
/// write what the History still holds.
fn shutdown<R: Runtime>(app: &tauri::AppHandle<R>) {
    if let Some(state) = app.try_state::<AppState>() {
        let wb = state.workbench.clone();
        let calls = state.calls.clone();
        tauri::async_runtime::block_on(async move {
            let ten = std::time::Duration::from_secs(10);
            let _ = tokio::time::timeout(ten, wb.shutdown()).await;
            let _ = tokio::time::timeout(ten, workbench_app::history::flush(&calls)).await;
        });
    }
}

/// Entry point of the desktop binary.
pub fn run() {
    startup::mark_run();
    let cpu_rendering = workbench_early::prefer_cpu_rendering();
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
