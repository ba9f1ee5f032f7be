//! The MCP Workbench desktop shell. Thin: it builds the Tauri runtime, state
//! and plugins, and adapts `workbench-core` to typed IPC commands (one module
//! per area under `commands/`). Everything testable without a window lives in
//! `workbench-core`.

pub mod commands;
mod launch;
pub mod state;

use tauri::{Manager, Runtime};

pub use launch::LaunchOptions;
pub use state::AppState;

/// The typed command set; TypeScript bindings are generated from it into
/// `ui/src/bindings.ts` (see `tests/bindings.rs`).
pub fn specta_builder<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::<R>::new().commands(tauri_specta::collect_commands![
        commands::servers::list_servers::<tauri::Wry>
    ])
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
            app.manage(AppState::new(options.config_path.clone(), guard));
            Ok(())
        })
}

/// Entry point of the desktop binary.
pub fn run() {
    let options = match LaunchOptions::from_env(std::env::args_os().skip(1)) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("mcp-workbench: {message}");
            eprintln!("usage: mcp-workbench [--config PATH]");
            std::process::exit(2);
        }
    };
    if let Err(e) = builder::<tauri::Wry>(options).run(tauri::generate_context!()) {
        eprintln!("mcp-workbench: could not start: {e}");
        std::process::exit(1);
    }
}
