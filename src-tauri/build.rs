fn main() {
    // Listing the app's commands here makes Tauri generate one permission per
    // command (`allow-list-servers`, ...) and deny any command a capability
    // file does not grant: the webview gets exactly what capabilities/ lists.
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(
        tauri_build::AppManifest::new().commands(&[
            "list_servers",
            "server_statuses",
            "restart_server",
            "stop_server",
            "list_tools",
            "call_tool",
            "cancel_call",
            "traffic_page",
            "pending_asks",
            "answer_ask",
            "open_ask_url",
            "set_roots",
            "get_roots",
            "set_log_level",
            "list_resources",
            "list_prompts",
            "read_resource",
            "subscribe_resource",
            "get_prompt",
            "complete",
            "read_config",
            "save_config",
            "edit_server",
            "try_server",
            "server_entry",
            "store_secret",
            "discover_configs",
            "import_config",
            "needed_inputs",
            "provide_input",
        ]),
    ))
    .expect("tauri build script failed");
}
