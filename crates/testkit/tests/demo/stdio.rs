use serde_json::{Value, json};

use super::*;

#[tokio::test]
async fn offers_tools_with_rich_schemas_and_answers_them() {
    let (client, _) = connect_stdio(&["--name", "demo-under-test"]).await;
    let info = serde_json::to_value(client.peer_info().expect("server info")).unwrap();
    assert_eq!(info["serverInfo"]["name"], "demo-under-test");
    assert!(
        info["instructions"]
            .as_str()
            .unwrap()
            .contains("demo server")
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    for expected in [
        "echo",
        "add",
        "create_order",
        "all_content_types",
        "fail",
        "long_task",
        "toggle_extra_tool",
        "ask_llm",
        "ask_user",
        "huge_result",
    ] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} missing from {names:?}"
        );
    }
    let order =
        serde_json::to_value(tools.iter().find(|t| t.name == "create_order").unwrap()).unwrap();
    let schema = &order["inputSchema"];
    assert_eq!(
        schema["properties"]["customer"]["properties"]["address"]["$ref"],
        "#/$defs/address"
    );
    assert!(schema["properties"]["payment"]["oneOf"].is_array());
    assert_eq!(
        schema["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(schema["properties"]["items"]["items"]["type"], "object");

    let sum = client
        .call_tool(call("add", json!({ "a": 2, "b": 40 })))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&sum).unwrap()["structuredContent"],
        json!({ "sum": 42.0 })
    );

    let created = client
        .call_tool(call(
            "create_order",
            json!({
                "customer": { "name": "Ada", "email": "ada@example.com" },
                "items": [{ "sku": "A1", "quantity": 2 }, { "sku": "B2" }],
                "payment": { "kind": "invoice" }
            }),
        ))
        .await
        .unwrap();
    let structured = serde_json::to_value(&created).unwrap()["structuredContent"].clone();
    assert_eq!(structured["items"], 2);
    assert_eq!(structured["total_quantity"], 3);
    assert_eq!(structured["status"], "held");

    let failed = client
        .call_tool(call("fail", json!({ "reason": "on purpose" })))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text_of(&failed), "on purpose");

    let blocks = client
        .call_tool(call("all_content_types", json!({})))
        .await
        .unwrap();
    let kinds: Vec<Value> = serde_json::to_value(&blocks).unwrap()["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            json!("text"),
            json!("image"),
            json!("audio"),
            json!("resource_link"),
            json!("resource")
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
#[allow(deprecated)]
async fn resources_templates_subscriptions_prompts_and_completions() {
    let (client, handler) = connect_stdio(&[]).await;
    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "demo://counter"));
    let templates = client.list_all_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://notes/{topic}")
    );

    let read = |uri: &str| from_json::<ReadResourceRequestParams>(json!({ "uri": uri }));
    let note = serde_json::to_value(
        client
            .read_resource(read("demo://notes/rust"))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(note["contents"][0]["text"], "Notes on rust: nothing yet.");
    assert!(client.read_resource(read("demo://nope")).await.is_err());

    client
        .subscribe(from_json(json!({ "uri": "demo://counter" })))
        .await
        .unwrap();
    client
        .call_tool(call("increment_counter", json!({})))
        .await
        .unwrap();
    let seen = handler.seen.clone();
    assert!(eventually(|| seen.lock().unwrap().resource_updated == ["demo://counter"]).await);
    let counter =
        serde_json::to_value(client.read_resource(read("demo://counter")).await.unwrap()).unwrap();
    assert_eq!(counter["contents"][0]["text"], "1");

    let prompt = serde_json::to_value(
        client
            .get_prompt(from_json(
                json!({ "name": "greet", "arguments": { "name": "Ada", "style": "pirate" } }),
            ))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Please say: Ahoy, Ada!"
    );
    assert!(
        client
            .get_prompt(from_json(json!({ "name": "greet", "arguments": {} })))
            .await
            .is_err()
    );

    let done = serde_json::to_value(
        client
            .complete(from_json(json!({ "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "style", "value": "f" } })))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(done["completion"]["values"], json!(["formal"]));
    client.cancel().await.unwrap();
}

#[tokio::test]
#[allow(deprecated)]
async fn server_requests_progress_list_changed_and_logging() {
    let (client, handler) = connect_stdio(&[]).await;
    let answer = client
        .call_tool(call("ask_llm", json!({ "question": "why?" })))
        .await
        .unwrap();
    assert_eq!(
        text_of(&answer),
        "The model (scripted) said: you asked: why?"
    );
    let elicited = client.call_tool(call("ask_user", json!({}))).await.unwrap();
    assert_eq!(
        serde_json::to_value(&elicited).unwrap()["structuredContent"]["content"]["name"],
        "Ada"
    );
    let roots = client
        .call_tool(call("list_roots", json!({})))
        .await
        .unwrap();
    assert!(text_of(&roots).contains("file:///work/project"));

    client
        .call_tool(call("toggle_extra_tool", json!({})))
        .await
        .unwrap();
    let seen = handler.seen.clone();
    assert!(eventually(|| seen.lock().unwrap().tool_list_changed == 1).await);
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"extra_tool".to_string()));

    client
        .set_level(from_json(json!({ "level": "warning" })))
        .await
        .unwrap();
    client
        .call_tool(call(
            "log",
            json!({ "level": "info", "message": "filtered out" }),
        ))
        .await
        .unwrap();
    client
        .call_tool(call("log", json!({ "level": "error", "message": "shown" })))
        .await
        .unwrap();
    assert!(eventually(|| seen.lock().unwrap().log_messages.len() == 1).await);
    assert_eq!(seen.lock().unwrap().log_messages[0]["data"], "shown");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn long_task_reports_progress_and_stops_when_cancelled() {
    let (client, handler) = connect_stdio(&[]).await;
    let mut params = call("long_task", json!({ "steps": 3, "step_ms": 20 }));
    params.meta = Some(rmcp::model::RequestMetaObject::with_progress_token(
        ProgressToken(NumberOrString::Number(7)),
    ));
    let done = client.call_tool(params).await.unwrap();
    assert_eq!(text_of(&done), "done after 3 steps");
    let seen = handler.seen.clone();
    assert!(eventually(|| seen.lock().unwrap().progress == [1.0, 2.0, 3.0]).await);

    // A long call, cancelled by the client: the server stops and answers nothing more.
    let request = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(call(
                "long_task",
                json!({ "steps": 1000, "step_ms": 50 }),
            ))),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    request.cancel(Some("test".into())).await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // The server is still responsive afterwards.
    let echo = client
        .call_tool(call("echo", json!({ "message": "still here" })))
        .await
        .unwrap();
    assert_eq!(text_of(&echo), "still here");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn pagination_returns_every_tool_across_pages() {
    let (client, _) = connect_stdio(&["--page-size", "4"]).await;
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 4);
    assert!(first.next_cursor.is_some());
    let all = client.list_all_tools().await.unwrap();
    let (unpaged, _) = connect_stdio(&[]).await;
    assert_eq!(all.len(), unpaged.list_all_tools().await.unwrap().len());
    client.cancel().await.unwrap();
    unpaged.cancel().await.unwrap();
}
