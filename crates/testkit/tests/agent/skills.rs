//! Skills in the chat (SEP-2640, disclosed step by step): the model sees
//! each server's skills by name and description in `load_skill`, loads one
//! (asked like a call), then one of its files; each load is kept in the
//! history as the chat's; a skill turned off for the chat or denied in
//! Settings is never offered.

use std::time::Duration;

use serde_json::{Value, json};
use workbench_agent::{AgentEvent, ApproveMode, Decision, EndReason, ToolPolicy};
use workbench_testkit::llm::Turn;

use super::{Setup, bench};

/// The tools a request offered, by name, and `load_skill`'s description.
fn offered(body: &Value) -> (Vec<String>, String) {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let names = tools
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let description = tools
        .iter()
        .find(|t| t["function"]["name"] == "load_skill")
        .map(|t| {
            t["function"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    (names, description)
}

async fn skills_listed(b: &super::Bench) {
    for _ in 0..200 {
        if b.agent.workbench().skills_of("demo").len() >= 2 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the demo server's skills were never listed: {:?}",
        b.agent
            .workbench()
            .catalog()
            .server("demo")
            .map(|c| (c.skills, c.list_problems))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loads_a_skill_then_its_file_each_asked_and_kept() {
    let turns = vec![
        Turn::calls(&[("load_skill", json!({"skill": "demo/pdf-processing"}))]),
        Turn::calls(&[(
            "load_skill",
            json!({"skill": "pdf-processing", "file": "references/FORMS.md"}),
        )]),
        Turn::text("I read the form guide"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    skills_listed(&b).await;
    let sink = b.deciding(|_| Decision::approve());
    let (chat, end) = b.turn("fill this PDF form", ApproveMode::Ask, sink).await;
    assert_eq!(end, EndReason::Done, "{:?}", b.events());

    // The model saw every skill by name and description, and no file.
    let chats = b.llm.chats();
    let (names, description) = offered(&chats[0].body);
    assert!(names.contains(&"load_skill".to_string()), "{names:?}");
    assert!(
        description.contains("demo/pdf-processing: Extract text and tables from PDF files"),
        "{description}"
    );
    assert!(description.contains("demo/release-notes"), "{description}");
    assert!(
        !description.contains("FORMS.md"),
        "files are not disclosed before a load"
    );

    // Each load was asked about, as a read-only "skill:NAME" of its server.
    let asked: Vec<_> = b
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalNeeded { approval } => Some(approval.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0].server, "demo");
    assert_eq!(asked[0].tool, "skill:pdf-processing");
    assert_eq!(asked[0].definition["annotations"]["readOnlyHint"], true);

    // The model read SKILL.md with its files listed, then the file.
    let results = b.results(&chat);
    assert_eq!(results[0].1, "ok", "{results:?}");
    assert!(
        results[0].2.contains("# PDF processing"),
        "{}",
        results[0].2
    );
    assert!(
        results[0].2.contains("references/FORMS.md ("),
        "{}",
        results[0].2
    );
    assert!(
        !results[0].2.contains("the server's fault"),
        "{}",
        results[0].2
    );
    assert_eq!(results[1].1, "ok", "{results:?}");
    let forms = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("skills/pdf-processing/references/FORMS.md"),
    )
    .unwrap();
    assert!(results[1].2.contains(forms.trim()), "{}", results[1].2);

    // Both loads are in the history as the chat's.
    b.agent.calls().flush().await;
    let calls = b.agent.store().session_calls(&chat).unwrap();
    let mut kept: Vec<(String, Value, String)> = calls
        .iter()
        .map(|c| (c.tool.clone(), c.arguments.clone(), c.origin.clone()))
        .collect();
    kept.sort_by_key(|k| k.1.as_object().map_or(0, serde_json::Map::len));
    assert_eq!(
        kept,
        [
            (
                "skill:pdf-processing".to_string(),
                json!({}),
                "chat".to_string()
            ),
            (
                "skill:pdf-processing".to_string(),
                json!({"file": "references/FORMS.md"}),
                "chat".to_string()
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_or_turned_off_skill_is_not_loaded() {
    let turns = vec![
        Turn::calls(&[("load_skill", json!({"skill": "demo/release-notes"}))]),
        Turn::text("ok"),
        Turn::calls(&[("load_skill", json!({"skill": "demo/release-notes"}))]),
        Turn::text("ok"),
    ];
    let b = bench(Setup {
        turns,
        ..Default::default()
    })
    .await;
    skills_listed(&b).await;
    // The person refuses: nothing of the skill is read.
    let before = b.agent.workbench().traffic().last_seq();
    let sink = b.deciding(|_| Decision::deny("not this one"));
    let (chat, end) = b.turn("write release notes", ApproveMode::Ask, sink).await;
    assert_eq!(end, EndReason::Done);
    let results = b.results(&chat);
    assert_eq!(results[0].1, "denied", "{results:?}");
    let read = b
        .agent
        .workbench()
        .traffic()
        .query(&workbench_core::traffic::TrafficQuery {
            seq_from: Some(before + 1),
            // Read, not listed (the skills list names the file too).
            method: Some("resources/read".into()),
            text: Some("release-notes/SKILL.md".into()),
            limit: 10,
            ..Default::default()
        })
        .total;
    assert_eq!(read, 0, "a refused load reads nothing");

    // Denied in Settings: not offered, and a call by name is refused.
    b.agent
        .update_settings(|s| {
            s.tool_policies
                .insert("demo/skill:release-notes".into(), ToolPolicy::Deny);
        })
        .unwrap();
    let (chat, end) = b.turn("again", ApproveMode::All, b.sink()).await;
    assert_eq!(end, EndReason::Done);
    let (_, description) = offered(&b.llm.chats()[2].body);
    assert!(!description.contains("release-notes"), "{description}");
    assert!(description.contains("pdf-processing"), "{description}");
    let results = b.results(&chat);
    assert_eq!(results[0].1, "failed", "{results:?}");
    assert!(
        results[0].2.contains("no skill \"demo/release-notes\""),
        "{}",
        results[0].2
    );
}
