include!("src/command_list.rs");

/// The names of [`window_commands`].
macro_rules! names {
    ($($area:ident :: $name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

const COMMANDS: &[&str] = window_commands!(names);

/// The window's capability: event listening and exactly the commands of
/// `src/command_list.rs`. Written only when it changes (Tauri reads it next).
fn write_capability() {
    let mut permissions = vec![
        "core:event:allow-listen".to_string(),
        "core:event:allow-unlisten".to_string(),
    ];
    permissions.extend(
        COMMANDS
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-"))),
    );
    let listed: Vec<String> = permissions.iter().map(|p| format!("    \"{p}\"")).collect();
    let text = format!(
        "{{\n  \"$schema\": \"../gen/schemas/desktop-schema.json\",\n  \"identifier\": \"main-window\",\n  \"description\": \"The main window: the app's own commands and event listening, nothing else (no shell, no fs, no http). Written by build.rs from src/command_list.rs.\",\n  \"windows\": [\n    \"main\"\n  ],\n  \"permissions\": [\n{}\n  ]\n}}\n",
        listed.join(",\n")
    );
    let path = std::path::Path::new("capabilities/main-window.json");
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, text).expect("capabilities/main-window.json is written");
    }
    println!("cargo:rerun-if-changed=src/command_list.rs");
    // The shipped build lays these functions out first (xtask's
    // startup_order, as the linker): a new list is a new link.
    println!("cargo:rerun-if-changed=startup-order.txt");
}

fn main() {
    write_capability();
    // Listing the app's commands makes Tauri generate one permission per
    // command (`allow-list-servers`, ...) and deny any command a capability
    // file does not grant: the webview gets exactly what capabilities/ lists.
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script failed");
}
