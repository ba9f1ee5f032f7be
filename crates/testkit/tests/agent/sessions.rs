//! Chats kept in the store: they survive a restart (a new agent on the same
//! file), edit-and-resend replaces the rest of the branch, regenerate
//! replaces the last answer, search finds them, export says what happened.

use serde_json::json;
use workbench_agent::{Agent, AgentOptions, ApproveMode, ConfigPaths, EndReason, SessionChange};
use workbench_core::settings::SettingsFile;
use workbench_store::Store;
use workbench_testkit::llm::Turn;

use super::{Setup, bench};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chats_survive_a_restart_of_the_agent() {
    let turns = vec![
        Turn::calls(&[("demo__echo", json!({"message": "kept"}))]),
        Turn::text("It echoed kept."),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (chat, end) = b.turn("please echo kept", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    b.agent
        .update_chat(
            &chat,
            SessionChange {
                system_prompt: Some("Be terse.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let before = b.agent.chat(&chat).unwrap();
    // A second agent, as after restarting the app, on the same files.
    let again = Agent::new(
        b.wb.clone(),
        AgentOptions {
            calls: workbench_calls::Calls::new(
                b.wb.clone(),
                workbench_core::ToolCaller::for_tests(),
                workbench_calls::CallsOptions {
                    settings: SettingsFile::new(b.dir.path().join("settings.json")),
                    store: Some(Store::open_in(b.dir.path()).unwrap()),
                },
            ),
            settings: SettingsFile::new(b.dir.path().join("settings.json")),
            store: Store::open_in(b.dir.path()).unwrap(),
            config: ConfigPaths {
                user: b.dir.path().join("mcp.json"),
                project: None,
            },
            keychain: b.keychain.clone(),
        },
    )
    .unwrap();
    let list = again.chats(None).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].title, "please echo kept");
    assert_eq!(list[0].message_count, 4);
    assert_eq!(list[0].model, "gpt-4o-scripted");
    let after = again.chat(&chat).unwrap();
    assert_eq!(after.messages, before.messages);
    assert_eq!(after.session.system_prompt, "Be terse.");
    assert_eq!(again.store().session_calls(&chat).unwrap().len(), 1);
    // Search by a word of a message, not of the title.
    assert_eq!(again.chats(Some("ECHOED")).unwrap().len(), 1);
    assert!(again.chats(Some("nowhere")).unwrap().is_empty());
    // Export.
    let md = again.export_markdown(&chat).unwrap();
    assert!(md.contains("# please echo kept"), "{md}");
    assert!(
        md.contains("**Calls `demo__echo`**") && md.contains("\"message\": \"kept\""),
        "{md}"
    );
    assert!(md.contains("It echoed kept."), "{md}");
    let json = again.export_json(&chat).unwrap();
    assert_eq!(json["messages"].as_array().unwrap().len(), 4);
    assert_eq!(json["calls"][0]["tool"], "echo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_and_resend_replaces_the_branch_and_regenerate_the_answer() {
    let turns = vec![
        Turn::text("about cats").when("cats"),
        Turn::text("about dogs").when("dogs"),
        Turn::text("dogs, again").when("dogs"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    let (chat, _) = b
        .turn("tell me about cats", ApproveMode::All, b.sink())
        .await;
    assert_eq!(b.last_text(&chat), "about cats");
    let first = b.agent.messages(&chat).unwrap()[0].seq;
    let handle = b
        .agent
        .edit_and_resend(
            &chat,
            first,
            "tell me about dogs",
            ApproveMode::All,
            b.sink(),
        )
        .unwrap();
    assert_eq!(handle.finished().await, EndReason::Done);
    let messages = b.agent.messages(&chat).unwrap();
    assert_eq!(messages.len(), 2, "the old branch is gone");
    assert_eq!(b.last_text(&chat), "about dogs");
    let handle = b
        .agent
        .regenerate(&chat, ApproveMode::All, b.sink())
        .unwrap();
    assert_eq!(handle.finished().await, EndReason::Done);
    assert_eq!(b.agent.messages(&chat).unwrap().len(), 2);
    assert_eq!(b.last_text(&chat), "dogs, again");
    // Only one turn at a time per chat.
    b.llm.push([Turn {
        delay_ms: 200,
        ..Turn::text("slow answer")
    }]);
    let running = b
        .agent
        .send(&chat, "slowly", ApproveMode::All, b.sink())
        .unwrap();
    let busy = b.agent.send(&chat, "again", ApproveMode::All, b.sink());
    assert_eq!(busy.err().unwrap().code(), workbench_core::ErrorCode::Busy);
    running.finished().await;
}
