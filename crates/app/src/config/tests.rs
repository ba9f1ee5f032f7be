use super::*;

fn place(dir: &Path) -> Place {
    Place::with_settings(
        dir.join("mcp.json"),
        None,
        SettingsFile::new(dir.join("settings.json")),
    )
}

#[test]
fn a_new_name_is_added_and_the_same_name_again_is_refused_with_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    std::fs::write(&place.user, "{\n  // mine\n  \"mcpServers\": {}\n}\n").unwrap();
    let mut fields = Map::new();
    fields.insert("command".into(), Value::String("node".into()));
    place.add_to(&place.user, "a", fields.clone()).unwrap();
    let after = std::fs::read_to_string(&place.user).unwrap();
    assert!(
        after.contains("// mine") && after.contains("\"a\""),
        "{after}"
    );
    let again = place.add_to(&place.user, "a", fields).unwrap_err();
    assert_eq!(again.code, workbench_core::ErrorCode::Invalid);
    assert_eq!(std::fs::read_to_string(&place.user).unwrap(), after);
}

/// The window and `mcpwb` adding servers at the same moment: each
/// addition lands, none is written over or refused.
#[test]
fn additions_at_once_all_land() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcp.json"), "{ \"mcpServers\": {} }\n").unwrap();
    let start = std::sync::Arc::new(std::sync::Barrier::new(4));
    let adders: Vec<_> = (0..4)
        .map(|w| {
            let (dir, start) = (dir.path().to_path_buf(), start.clone());
            std::thread::spawn(move || {
                let place = place(&dir);
                let mut fields = Map::new();
                fields.insert("command".into(), Value::String("node".into()));
                start.wait();
                for i in 0..10 {
                    place
                        .add_to(&place.user, &format!("w{w}-{i}"), fields.clone())
                        .unwrap();
                }
            })
        })
        .collect();
    for a in adders {
        a.join().unwrap();
    }
    let place = place(dir.path());
    let text = std::fs::read_to_string(&place.user).unwrap();
    let kept = ConfigFile::parse(&place.user, &text).unwrap();
    assert_eq!(kept.servers.len(), 40, "{text}");
}

#[test]
fn a_stale_base_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    std::fs::write(&place.user, r#"{"mcpServers": {}}"#).unwrap();
    let err = place
        .save_text(
            Scope::User,
            r#"{"mcpServers": {"x": {"command": "y"}}}"#.into(),
            "{}",
        )
        .unwrap_err();
    assert_eq!(err.code, workbench_core::ErrorCode::ConfigConflict);
    assert_eq!(
        std::fs::read_to_string(&place.user).unwrap(),
        r#"{"mcpServers": {}}"#
    );
}

#[test]
fn entries_are_as_written_and_an_unknown_name_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    std::fs::write(
        &place.user,
        r#"{"mcpServers": {"s": {"command": "x", "env": {"K": "${secret:k}"}}}}"#,
    )
    .unwrap();
    assert_eq!(place.entry("s").unwrap()["env"]["K"], "${secret:k}");
    assert_eq!(
        place.entry("nope").unwrap_err().code,
        workbench_core::ErrorCode::UnknownServer
    );
}

#[test]
fn the_project_scope_needs_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let err = place(dir.path()).file_for(Scope::Project).unwrap_err();
    assert!(err.message.contains("--project"), "{}", err.message);
}
