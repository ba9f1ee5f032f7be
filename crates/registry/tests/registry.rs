//! The registry reader against the test kit's stand-in for the MCP
//! Registry (the v0.1 API over real loopback HTTP) and against the same
//! fixtures as a folder.

use workbench_codes::ErrorCode;
use workbench_registry::{Query, Registry, Status};
use workbench_testkit::registry::{StandIn, fixtures};

fn names(page: &workbench_registry::Page) -> Vec<String> {
    page.servers
        .iter()
        .map(|l| format!("{} {}", l.name, l.version))
        .collect()
}

const LATEST: [&str; 5] = [
    "com.example/remote-search 2.0.0",
    "io.github.example/rusty 0.3.1",
    "io.github.example/weather 1.4.0",
    "io.modelcontextprotocol/everything 2026.8.31",
    "io.modelcontextprotocol/time 2026.10.19",
];

#[tokio::test]
async fn a_search_pages_through_each_servers_latest_and_never_lists_a_deleted_one() {
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let registry = Registry::open(&format!("{}/v0.1", stand_in.url()), None).unwrap();
    let all = registry.search(&Query::default()).await.unwrap();
    assert_eq!(names(&all), LATEST);
    assert_eq!(all.next_cursor, None);
    // Two a page: three pages, the same servers in the same order.
    let mut paged = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = registry
            .search(&Query {
                cursor: cursor.clone(),
                limit: Some(2),
                ..Default::default()
            })
            .await
            .unwrap();
        pages += 1;
        paged.extend(names(&page));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!((pages, paged), (3, LATEST.map(String::from).to_vec()));
    // A word of the description finds it.
    let found = registry
        .search(&Query {
            search: Some("FORECAST".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(names(&found), ["io.github.example/weather 1.4.0"]);
    // Every version: the deprecated one is there, marked, with its reason.
    let every = registry
        .search(&Query {
            search: Some("everything".into()),
            all_versions: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let old = every
        .servers
        .iter()
        .find(|l| l.version == "2025.9.25")
        .expect("the deprecated version is listed");
    assert_eq!(old.status, Status::Deprecated);
    assert!(
        old.status_message
            .as_deref()
            .unwrap()
            .contains("Use 2026.8.31")
    );
}

#[tokio::test]
async fn versions_and_one_version_say_what_is_missing_or_deleted() {
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let registry = Registry::open(&stand_in.url(), None).unwrap();
    let (versions, _) = registry
        .versions("io.modelcontextprotocol/everything")
        .await
        .unwrap();
    let v: Vec<&str> = versions.iter().map(|l| l.version.as_str()).collect();
    assert_eq!(v, ["2026.8.31", "2025.9.25"]);
    let (latest, _) = registry
        .version("io.modelcontextprotocol/everything", None)
        .await
        .unwrap();
    assert_eq!(latest.version, "2026.8.31");
    assert!(latest.is_latest);
    assert_eq!(
        latest.server["packages"][0]["identifier"],
        "@modelcontextprotocol/server-everything"
    );
    let pinned = registry
        .version("io.modelcontextprotocol/everything", Some("2025.9.25"))
        .await
        .unwrap()
        .0;
    assert_eq!(pinned.status, Status::Deprecated);
    let gone = registry
        .version("io.github.example/gone", None)
        .await
        .unwrap_err();
    assert_eq!(gone.code, ErrorCode::NotFound);
    assert!(
        gone.message.contains("deleted") && gone.message.contains("leaked tokens"),
        "{gone:?}"
    );
    let unknown = registry
        .versions("io.github.nobody/nothing")
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert!(
        unknown
            .message
            .contains("no server named io.github.nobody/nothing")
    );
    let no_version = registry
        .version("io.github.example/weather", Some("9.9.9"))
        .await
        .unwrap_err();
    assert!(
        no_version.message.contains("no version 9.9.9"),
        "{no_version:?}"
    );
}

#[tokio::test]
async fn answers_are_cached_and_the_last_one_is_used_when_the_registry_is_gone() {
    let cache = tempfile::tempdir().unwrap();
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let url = stand_in.url();
    let registry = Registry::open(&url, Some(cache.path().to_path_buf())).unwrap();
    let first = registry.search(&Query::default()).await.unwrap();
    assert_eq!(first.cached, None);
    let asked = stand_in.requests();
    let again = registry.search(&Query::default()).await.unwrap();
    assert_eq!(names(&again), names(&first));
    assert!(again.cached.is_some_and(|c| !c.stale));
    assert_eq!(
        stand_in.requests(),
        asked,
        "a fresh answer is not asked again"
    );
    // Refreshed: asked again.
    let refreshed = Registry::open(&url, Some(cache.path().to_path_buf()))
        .unwrap()
        .refreshed();
    assert_eq!(
        refreshed.search(&Query::default()).await.unwrap().cached,
        None
    );
    assert_eq!(stand_in.requests(), asked + 1);
    // The registry gone: the last answer, said to be stale.
    drop(stand_in);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let offline = refreshed.search(&Query::default()).await.unwrap();
    assert_eq!(names(&offline), names(&first));
    assert!(offline.cached.is_some_and(|c| c.stale));
    // With nothing kept, it says it cannot reach it.
    let fresh = Registry::open(&url, None).unwrap();
    let err = fresh.search(&Query::default()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Transport);
    assert!(err.message.contains("cannot reach the registry"), "{err:?}");
    // Why, in a person's words, not the HTTP client's chain of causes.
    assert!(
        err.message
            .contains("(connection refused): is the server running?")
            && !err.message.contains("error sending request"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_folder_of_server_json_files_is_a_registry_and_a_link_in_it_is_not_read() {
    let folder = Registry::open(&format!("file:{}", fixtures().display()), None).unwrap();
    assert_eq!(
        names(&folder.search(&Query::default()).await.unwrap()),
        LATEST
    );
    let (versions, _) = folder
        .versions("io.modelcontextprotocol/everything")
        .await
        .unwrap();
    assert_eq!(versions.len(), 2);
    assert!(
        folder
            .version("io.github.example/gone", None)
            .await
            .is_err()
    );
    // A bare server.json in a team's folder, and a link planted beside it.
    let team = tempfile::tempdir().unwrap();
    std::fs::write(
        team.path().join("server.json"),
        r#"{"name": "com.acme/tickets", "description": "Acme's tickets", "version": "1.0.0",
            "remotes": [{"type": "streamable-http", "url": "https://mcp.acme.example/tickets"}]}"#,
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("evil.json"),
        r#"{"name": "com.evil/x", "description": "x", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("evil.json"),
        team.path().join("evil.json"),
    )
    .unwrap();
    let team_registry = Registry::open(&format!("file://{}", team.path().display()), None).unwrap();
    let page = team_registry.search(&Query::default()).await.unwrap();
    assert_eq!(names(&page), ["com.acme/tickets 1.0.0"]);
}
