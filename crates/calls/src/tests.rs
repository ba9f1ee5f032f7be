use serde_json::json;
use workbench_core::settings::SettingsFile;

use super::*;

#[test]
fn origins_read_back_as_written() {
    for o in Origin::ALL {
        assert_eq!(Origin::parse(o.as_str()), Some(o));
        let json = serde_json::to_value(o).unwrap();
        assert_eq!(json, o.as_str());
    }
    assert_eq!(Origin::parse("nobody"), None);
    assert!(Origin::Window.by_person() && Origin::Cli.by_person() && Origin::Suite.by_person());
    assert!(!Origin::Chat.by_person() && !Origin::Bridge.by_person() && !Origin::App.by_person());
}

#[test]
fn rules_are_read_live_and_a_broken_file_keeps_the_last_good_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let live = LiveRules::new(SettingsFile::new(&path));
    assert_eq!(
        live.get().policy("s", "t"),
        ToolPolicy::Ask,
        "no file: no rules"
    );
    std::fs::write(
        &path,
        json!({"agent": {"providers": [], "tool_policies": {"s/t": "deny"}}}).to_string(),
    )
    .unwrap();
    assert_eq!(live.get().policy("s", "t"), ToolPolicy::Deny);
    std::fs::write(
        &path,
        json!({"agent": {"tool_policies": {"s/t": "allow", "s/u": "deny"}}}).to_string(),
    )
    .unwrap();
    assert_eq!(
        live.get().policy("s", "t"),
        ToolPolicy::Allow,
        "a change is seen at once"
    );
    std::fs::write(&path, "{ \"agent\": ").unwrap();
    assert_eq!(
        live.get().policy("s", "u"),
        ToolPolicy::Deny,
        "half-written: the last rules hold"
    );
}

#[test]
fn approving_a_definition_keeps_the_rest_of_the_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        json!({"agent": {"max_steps": 7, "providers": [{"id": "p"}], "tool_policies": {"s/t": "allow"}}, "window": {"zoom": 2}})
            .to_string(),
    )
    .unwrap();
    let live = LiveRules::new(SettingsFile::new(&path));
    live.approve_definition("s/t", json!({"description": "d"}))
        .unwrap();
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(all["agent"]["max_steps"], 7);
    assert_eq!(all["agent"]["providers"][0]["id"], "p");
    assert_eq!(
        all["agent"]["approved_definitions"]["s/t"]["description"],
        "d"
    );
    assert_eq!(all["window"]["zoom"], 2);
    assert_eq!(live.get().approved_definitions["s/t"]["description"], "d");
}
