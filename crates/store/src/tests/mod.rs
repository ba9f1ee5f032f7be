use serde_json::{Value, json};

use super::*;

mod kept;
mod opening;

fn new(title: &str) -> NewSession {
    NewSession {
        hidden: false,
        title: title.into(),
        provider: "openai".into(),
        model: "gpt-4o".into(),
        system_prompt: "Be brief.".into(),
        options: json!({ "servers": ["demo"] }),
    }
}

#[test]
fn a_session_and_its_messages_survive_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open_in(dir.path()).unwrap();
        let s = store.create_session(new("First")).unwrap();
        store
            .append_message(
                &s.id,
                "user",
                &json!([{"type": "text", "text": "hi"}]),
                "hi",
                None,
            )
            .unwrap();
        let usage = Usage {
            input: 10,
            output: 4,
            cached: 2,
        };
        store
            .append_message(
                &s.id,
                "assistant",
                &json!([{"type": "text", "text": "hello"}]),
                "hello",
                Some(usage),
            )
            .unwrap();
        s.id
    };
    let store = Store::open_in(dir.path()).unwrap();
    let s = store.session(&id).unwrap();
    assert_eq!(s.title, "First");
    assert_eq!(s.system_prompt, "Be brief.");
    assert_eq!(s.options["servers"], json!(["demo"]));
    assert_eq!(s.message_count, 2);
    assert_eq!(
        s.usage,
        Usage {
            input: 10,
            output: 4,
            cached: 2
        }
    );
    let messages = store.messages(&id).unwrap();
    assert_eq!(messages.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(messages[1].content[0]["text"], "hello");
    assert_eq!(messages[1].usage.unwrap().output, 4);
}

#[test]
fn search_finds_titles_and_message_text_literally() {
    let store = Store::in_memory().unwrap();
    let a = store.create_session(new("Weather in Paris")).unwrap();
    let b = store.create_session(new("Other")).unwrap();
    store
        .append_message(&b.id, "user", &json!([]), "what does 100% mean_here", None)
        .unwrap();
    let titles = |q: &str| -> Vec<String> {
        store
            .sessions(Some(q))
            .unwrap()
            .into_iter()
            .map(|s| s.title)
            .collect()
    };
    assert_eq!(titles("paris"), ["Weather in Paris"]);
    assert_eq!(titles("100%"), ["Other"]);
    assert_eq!(titles("_here"), ["Other"]);
    // % and _ are not wildcards.
    assert!(titles("1_0").is_empty());
    assert_eq!(store.sessions(None).unwrap().len(), 2);
    store.rename_session(&a.id, "Renamed").unwrap();
    assert_eq!(store.session(&a.id).unwrap().title, "Renamed");
    store.delete_session(&a.id).unwrap();
    assert!(matches!(store.session(&a.id), Err(Error::NoSession(_))));
}

#[test]
fn truncating_drops_the_rest_of_the_branch_and_its_calls() {
    let store = Store::in_memory().unwrap();
    let s = store.create_session(new("t")).unwrap();
    for text in ["one", "two", "three"] {
        store
            .append_message(&s.id, "user", &json!([]), text, None)
            .unwrap();
    }
    let messages = store.messages(&s.id).unwrap();
    store
        .insert_calls(&[NewCall {
            origin: "chat".into(),
            session: Some(s.id.clone()),
            message: Some(messages[2].id),
            call_id: "c1".into(),
            server: "demo".into(),
            tool: "echo".into(),
            arguments: json!({"text": "y"}).to_string(),
            result: Some(json!({"content": []}).to_string()),
            status: Some(CallStatus::Ok),
            duration_ms: Some(3.5),
            ..Default::default()
        }])
        .unwrap();
    assert_eq!(
        store.session_calls(&s.id).unwrap()[0].arguments["text"],
        "y"
    );
    assert_eq!(store.truncate_messages(&s.id, 2).unwrap(), 2);
    assert_eq!(store.messages(&s.id).unwrap().len(), 1);
    assert!(store.session_calls(&s.id).unwrap().is_empty());
    // The next message continues from what is left.
    let next = store
        .append_message(&s.id, "user", &json!([]), "again", None)
        .unwrap();
    assert_eq!(next.seq, 2);
}

#[test]
fn idle_sessions_are_cleaned_up_and_active_ones_kept() {
    let store = Store::in_memory().unwrap();
    let old = store.create_session(new("old")).unwrap();
    let fresh = store.create_session(new("fresh")).unwrap();
    store
        .lock()
        .execute(
            "UPDATE sessions SET updated_at = updated_at - 40 * 86400000 WHERE id = ?1",
            [&old.id],
        )
        .unwrap();
    assert_eq!(store.delete_idle_sessions(30 * 86_400_000).unwrap(), 1);
    let left: Vec<String> = store
        .sessions(None)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, [fresh.id]);
}

fn manual(server: &str, tool: &str, arguments: Value, status: CallStatus) -> NewCall {
    NewCall {
        origin: "window".into(),
        server: server.into(),
        tool: tool.into(),
        arguments: arguments.to_string(),
        result: Some(
            json!({"content": [{"type": "text", "text": format!("r{arguments}")}]}).to_string(),
        ),
        status: Some(status),
        duration_ms: Some(1.0),
        started_at: crate::now_ms(),
        ..Default::default()
    }
}

#[test]
fn a_tools_history_lists_its_calls_newest_first() {
    let store = Store::in_memory().unwrap();
    let calls: Vec<NewCall> = (0..3)
        .map(|i| manual("demo", "add", json!({"a": i}), CallStatus::Ok))
        .collect();
    let ids = store.insert_calls(&calls).unwrap();
    assert_eq!(ids.len(), 3);
    let history = store.tool_calls("demo", "add", 2).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].arguments["a"], 2);
    assert_eq!(history[0].origin, "window");
    assert_eq!(store.call(ids[0]).unwrap().unwrap().arguments["a"], 0);
    assert!(store.call(9999).unwrap().is_none());
}

#[test]
fn history_filters_by_server_tool_origin_status_and_text() {
    let store = Store::in_memory().unwrap();
    let mut bridge = manual(
        "demo",
        "echo",
        json!({"text": "50% off_sale"}),
        CallStatus::Ok,
    );
    bridge.origin = "bridge".into();
    store
        .insert_calls(&[
            manual("demo", "add", json!({"a": 1}), CallStatus::Ok),
            manual("demo", "add", json!({"a": 2}), CallStatus::Error),
            manual("other", "add", json!({"a": 3}), CallStatus::Ok),
            bridge,
        ])
        .unwrap();
    let q = |q: HistoryQuery| store.history(&q).unwrap().len();
    assert_eq!(q(HistoryQuery::default()), 4);
    assert_eq!(
        q(HistoryQuery {
            server: Some("demo".into()),
            ..Default::default()
        }),
        3
    );
    assert_eq!(
        q(HistoryQuery {
            tool: Some("add".into()),
            ..Default::default()
        }),
        3
    );
    assert_eq!(
        q(HistoryQuery {
            origin: Some("bridge".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            status: Some(CallStatus::Error),
            ..Default::default()
        }),
        1
    );
    // Searched in arguments and results; % and _ are taken literally.
    assert_eq!(
        q(HistoryQuery {
            search: Some("50% off_".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            search: Some("0%".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            search: Some("\"a\":3".into()),
            ..Default::default()
        }),
        1
    );
    // Paging: older than the newest.
    let newest = store.history(&HistoryQuery::default()).unwrap()[0].id;
    assert_eq!(
        q(HistoryQuery {
            before: Some(newest),
            limit: 2,
            ..Default::default()
        }),
        2
    );
}

#[test]
fn appending_to_a_missing_session_is_a_clear_error() {
    let store = Store::in_memory().unwrap();
    let err = store
        .append_message("nope", "user", &json!([]), "", None)
        .unwrap_err();
    assert_eq!(err.to_string(), "no chat session \"nope\"");
}

#[test]
fn a_call_is_found_by_the_key_its_caller_made_and_a_keyless_row_gets_one() {
    let store = Store::in_memory().unwrap();
    let keyed = NewCall {
        key: Some("k-1".into()),
        ..manual("demo", "echo", json!({}), CallStatus::Ok)
    };
    // An older build beside this one writes no key.
    let bare = manual("demo", "echo", json!({}), CallStatus::Ok);
    let ids = store.insert_calls(&[keyed, bare]).unwrap();
    let row = store.call_by_key("k-1").unwrap().expect("found by its key");
    assert_eq!(row.id, ids[0]);
    let other = store.call(ids[1]).unwrap().unwrap();
    assert_eq!(other.key, format!("row-{}", ids[1]));
    assert_eq!(store.call_by_key(&other.key).unwrap().unwrap().id, ids[1]);
    // A key names one row only.
    let again = NewCall {
        key: Some("k-1".into()),
        ..manual("demo", "echo", json!({}), CallStatus::Ok)
    };
    assert!(store.insert_calls(&[again]).is_err());
    assert!(store.call_by_key("k-2").unwrap().is_none());
}
