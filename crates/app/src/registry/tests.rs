use super::*;

fn publish(folder: &Path, url: &str) {
    let server = serde_json::json!({
        "name": "io.example/weather", "description": "Weather", "version": "1.0.0",
        "remotes": [{ "type": "streamable-http", "url": url }]
    });
    std::fs::write(folder.join("weather.json"), server.to_string()).unwrap();
}

fn request<'a>(shown: Option<&'a str>) -> AddRequest<'a> {
    AddRequest {
        name: "io.example/weather",
        version: None,
        pick: Pick::First,
        as_name: None,
        scope: Scope::User,
        deprecated_ok: false,
        answers: &[],
        host: None,
        plain_text_ok: false,
        shown,
    }
}

/// The registry's answer changed between the person's look and their
/// Add (republished under the same version): nothing is added until
/// they look again.
#[tokio::test]
async fn an_entry_the_registry_makes_otherwise_since_it_was_shown_is_not_added() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("registry");
    std::fs::create_dir_all(&folder).unwrap();
    let settings = SettingsFile::new(dir.path().join("settings.json"));
    let place = Place::with_settings(dir.path().join("mcp.json"), None, settings.clone());
    std::fs::write(&place.user, "{ \"mcpServers\": {} }\n").unwrap();
    let given = format!("file:{}", folder.display());
    let registry = open_with(Some(&given), &settings, true).unwrap();
    publish(&folder, "https://weather.example/mcp");
    let seen = show(&registry, "io.example/weather", None, Pick::First)
        .await
        .unwrap()
        .preview
        .unwrap();
    publish(&folder, "https://elsewhere.example/mcp");
    let refused = add(&place, &registry, request(Some(&seen.fingerprint)))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Refused);
    assert!(
        refused.message.contains("changed since it was shown"),
        "{}",
        refused.message
    );
    assert_eq!(
        std::fs::read_to_string(&place.user).unwrap(),
        "{ \"mcpServers\": {} }\n"
    );
    // Looked at again, it is added as now shown.
    let again = show(&registry, "io.example/weather", None, Pick::First)
        .await
        .unwrap()
        .preview
        .unwrap();
    add(&place, &registry, request(Some(&again.fingerprint)))
        .await
        .unwrap();
    let written = std::fs::read_to_string(&place.user).unwrap();
    assert!(
        written.contains("https://elsewhere.example/mcp"),
        "{written}"
    );
}
