//! The fixtures the official conformance suite's server scenarios call
//! (`--conformance`): the tools, resources and prompts each scenario names,
//! answering exactly as the scenario describes. Kept apart from the demo's
//! own surface (a person exploring the demo does not need them).

use std::time::Duration;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::{from_json, text_result};
use crate::media::{b64, png, wav};

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": { "type": "object", "properties": properties, "required": required }
    })
}

/// A tool whose input schema uses JSON Schema 2020-12 (`$defs` with an
/// `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`): listed as written.
fn schema_2020_12() -> Value {
    json!({
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": { "address": { "$anchor": "addressDef", "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } } } },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" },
                "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                "phone": { "type": "string" },
                "email": { "type": "string" }
            },
            "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
            "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
            "then": { "required": ["phone"] },
            "else": { "required": ["email"] },
            "additionalProperties": false
        }
    })
}

fn tools() -> Vec<Value> {
    let none = || json!({});
    vec![
        schema_2020_12(),
        tool("test_simple_text", "Returns simple text", none(), &[]),
        tool("test_image_content", "Returns an image", none(), &[]),
        tool("test_audio_content", "Returns audio", none(), &[]),
        tool(
            "test_embedded_resource",
            "Returns an embedded resource",
            none(),
            &[],
        ),
        tool(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
            none(),
            &[],
        ),
        tool(
            "test_tool_with_logging",
            "Sends three log messages while it runs",
            none(),
            &[],
        ),
        tool(
            "test_error_handling",
            "Always returns an error result",
            none(),
            &[],
        ),
        tool(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100",
            none(),
            &[],
        ),
        tool(
            "test_sampling",
            "Asks the client's LLM (sampling/createMessage)",
            json!({ "prompt": { "type": "string", "description": "The prompt to send to the LLM" } }),
            &["prompt"],
        ),
        tool(
            "test_elicitation",
            "Asks the user for input (elicitation/create)",
            json!({ "message": { "type": "string", "description": "The message to show the user" } }),
            &["message"],
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Elicitation with defaults for every primitive type",
            none(),
            &[],
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Elicitation with every kind of enum",
            none(),
            &[],
        ),
        tool(
            "test_header_routing",
            "Runs a query in a region; the region travels in an Mcp-Param-Region header too (SEP-2243)",
            json!({
                "region": { "type": "string", "x-mcp-header": "Region" },
                "query": { "type": "string" }
            }),
            &["region", "query"],
        ),
    ]
}

fn image() -> Value {
    json!({ "type": "image", "data": b64(&png(1)), "mimeType": "image/png" })
}

async fn log(ctx: &RequestContext<RoleServer>, message: &str) {
    if let Ok(param) = from_json::<LoggingMessageNotificationParam>(
        json!({ "level": "info", "logger": "conformance", "data": message }),
    ) {
        #[allow(deprecated)]
        let _ = ctx.peer.notify_logging_message(param).await;
    }
}

async fn progress(ctx: &RequestContext<RoleServer>, done: u32) {
    if let Some(token) = ctx.meta.get_progress_token()
        && let Ok(param) = from_json::<ProgressNotificationParam>(
            json!({ "progressToken": token, "progress": done, "total": 100 }),
        )
    {
        let _ = ctx.peer.notify_progress(param).await;
    }
}

#[allow(deprecated)] // sampling and elicitation as 2025-11-25 servers ask them
async fn ask(
    ctx: &RequestContext<RoleServer>,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    let peer = &ctx.peer;
    let answer = match method {
        "sampling/createMessage" => {
            let params = from_json::<CreateMessageRequestParams>(params)
                .map_err(|e| e.message.to_string())?;
            peer.create_message(params)
                .await
                .map(|a| serde_json::to_value(a).unwrap_or_default())
        }
        _ => {
            let params =
                from_json::<ElicitRequestParams>(params).map_err(|e| e.message.to_string())?;
            peer.create_elicitation(params)
                .await
                .map(|a| serde_json::to_value(a).unwrap_or_default())
        }
    };
    answer.map_err(|e| format!("{method} failed: {e}"))
}

fn elicited(answer: Result<Value, String>, lead: &str) -> Value {
    match answer {
        Ok(a) => text_result(
            format!(
                "{lead}action={}, content={}",
                a["action"].as_str().unwrap_or("?"),
                a["content"]
            ),
            false,
        ),
        Err(e) => text_result(e, true),
    }
}

/// Every fixture tool (the tasks extension's on 2026-07-28 sessions).
pub fn all_tools(new_era: bool) -> Vec<Value> {
    let mut all = tools();
    all.extend(super::mrtr::tools());
    if new_era {
        all.extend(super::conformance_tasks::tools());
    }
    all
}

/// Any fixture tool's answer, or None when the tool is none of them.
pub async fn any(
    request: &CallToolRequestParams,
    args: &Value,
    ctx: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    if let Some(response) = super::mrtr::call(request, ctx) {
        return Some(response);
    }
    if let Some(response) = super::conformance_tasks::call(request, ctx) {
        return Some(response);
    }
    call(request, args, ctx).await
}

/// A fixture prompt's answer, or None when the prompt is none of them.
pub fn prompt(
    request: &GetPromptRequestParams,
    args: &Value,
) -> Option<Result<GetPromptResponse, McpError>> {
    if request.name == super::mrtr::PROMPT {
        return Some(super::mrtr::get_prompt(request));
    }
    let result = get_prompt(&request.name, args)?;
    Some(super::complete::<GetPromptResult>(result).map(Into::into))
}

/// What a fixture that asks the client sends: (method, params).
fn asking(name: &str, args: &Value) -> Option<(&'static str, Value)> {
    Some(match name {
        "test_sampling" => {
            let prompt = args["prompt"].as_str().unwrap_or_default();
            let message = json!({ "role": "user", "content": { "type": "text", "text": prompt } });
            (
                "sampling/createMessage",
                json!({ "messages": [message], "maxTokens": 100 }),
            )
        }
        "test_elicitation" => (
            "elicitation/create",
            json!({
                "message": args["message"].as_str().unwrap_or_default(),
                "requestedSchema": { "type": "object", "properties": {
                    "username": { "type": "string", "description": "User's response" },
                    "email": { "type": "string", "description": "User's email address" }
                }, "required": ["username", "email"] }
            }),
        ),
        "test_elicitation_sep1034_defaults" => (
            "elicitation/create",
            json!({
                "message": "Please review and update the form fields with defaults",
                "requestedSchema": { "type": "object", "properties": {
                    "name": { "type": "string", "description": "User name", "default": "John Doe" },
                    "age": { "type": "integer", "description": "User age", "default": 30 },
                    "score": { "type": "number", "description": "User score", "default": 95.5 },
                    "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
                    "verified": { "type": "boolean", "description": "Verification status", "default": true }
                } }
            }),
        ),
        "test_elicitation_sep1330_enums" => (
            "elicitation/create",
            json!({
                "message": "Please select options from the enum fields",
                "requestedSchema": { "type": "object", "properties": {
                    "untitledSingle": { "type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"] },
                    "titledSingle": { "type": "string", "description": "Choose a titled option", "oneOf": [
                        { "const": "value1", "title": "First Option" },
                        { "const": "value2", "title": "Second Option" },
                        { "const": "value3", "title": "Third Option" } ] },
                    "legacyEnum": { "type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"] },
                    "untitledMulti": { "type": "array", "description": "Choose multiple options", "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                    "titledMulti": { "type": "array", "description": "Choose multiple titled options", "items": { "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" } ] } }
                } }
            }),
        ),
        _ => return None,
    })
}

/// The answer of a fixture that asked, as its scenario words it.
fn answered(name: &str, answer: Result<Value, String>) -> Value {
    match (name, answer) {
        (_, Err(e)) => text_result(e, true),
        ("test_sampling", Ok(a)) => {
            let said = a["content"]["text"].as_str().unwrap_or_default();
            text_result(format!("LLM response: {said}"), false)
        }
        ("test_elicitation", Ok(a)) => elicited(Ok(a), "User response: "),
        (_, Ok(a)) => elicited(Ok(a), "Elicitation completed: "),
    }
}

/// A fixture tool's answer, or None when the tool is not one of them. One
/// that asks the client sends its request itself up to 2025-11-25, and
/// answers `input_required` from 2026-07-28 on (SEP-2322).
async fn call(
    request: &CallToolRequestParams,
    args: &Value,
    ctx: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    let name = &*request.name;
    if let Some((method, params)) = asking(name, args) {
        let new_era = ctx
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if new_era {
            let result = |a: &Value| answered(name, Ok(a.clone()));
            return Some(super::asking::ask_in_rounds_with(
                name, method, params, request, result,
            ));
        }
        let result = answered(name, ask(ctx, method, params).await);
        return Some(super::complete::<CallToolResult>(result).map(Into::into));
    }
    let out = fixed(name, ctx).await?;
    Some(super::complete::<CallToolResult>(out).map(Into::into))
}

/// The fixtures that answer by themselves.
async fn fixed(name: &str, ctx: &RequestContext<RoleServer>) -> Option<Value> {
    let pause = || tokio::time::sleep(Duration::from_millis(50));
    Some(match name {
        "json_schema_2020_12_tool" => text_result("the arguments fit the schema", false),
        "test_header_routing" => text_result("the query ran in the region asked for", false),
        "test_simple_text" => {
            json!({ "content": [{ "type": "text", "text": "This is a simple text response for testing." }] })
        }
        "test_image_content" => json!({ "content": [image()] }),
        "test_audio_content" => {
            json!({ "content": [{ "type": "audio", "data": b64(&wav(440.0, 100)), "mimeType": "audio/wav" }] })
        }
        "test_embedded_resource" => json!({ "content": [{ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content." } }] }),
        "test_multiple_content_types" => json!({ "content": [
            { "type": "text", "text": "Multiple content types test:" },
            image(),
            { "type": "resource", "resource": { "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}" } }
        ] }),
        "test_tool_with_logging" => {
            log(ctx, "Tool execution started").await;
            pause().await;
            log(ctx, "Tool processing data").await;
            pause().await;
            log(ctx, "Tool execution completed").await;
            text_result("Tool with logging executed successfully", false)
        }
        "test_error_handling" => {
            text_result("This tool intentionally returns an error for testing", true)
        }
        "test_tool_with_progress" => {
            progress(ctx, 0).await;
            pause().await;
            progress(ctx, 50).await;
            pause().await;
            progress(ctx, 100).await;
            text_result("Tool with progress executed successfully", false)
        }
        _ => return None,
    })
}

pub fn resources() -> Vec<Value> {
    vec![
        json!({ "uri": "test://static-text", "name": "static-text", "mimeType": "text/plain", "description": "A static text resource" }),
        json!({ "uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png", "description": "A static binary resource" }),
    ]
}

pub fn templates() -> Vec<Value> {
    vec![
        json!({ "uriTemplate": "test://template/{id}/data", "name": "template", "mimeType": "application/json", "description": "Data for an id" }),
    ]
}

pub fn read(uri: &str) -> Option<Value> {
    if uri == "test://static-text" {
        return Some(
            json!({ "contents": [{ "uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource." }] }),
        );
    }
    if uri == "test://static-binary" {
        return Some(
            json!({ "contents": [{ "uri": uri, "mimeType": "image/png", "blob": b64(&png(1)) }] }),
        );
    }
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    let text =
        json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string();
    Some(json!({ "contents": [{ "uri": uri, "mimeType": "application/json", "text": text }] }))
}

pub fn prompts() -> Vec<Value> {
    let mut all = fixed_prompts();
    all.push(super::mrtr::prompt());
    all
}

fn fixed_prompts() -> Vec<Value> {
    let arg = |name: &str, description: &str| json!({ "name": name, "description": description, "required": true });
    vec![
        json!({ "name": "test_simple_prompt", "description": "A simple prompt without arguments" }),
        json!({ "name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
                "arguments": [arg("arg1", "First test argument"), arg("arg2", "Second test argument")] }),
        json!({ "name": "test_prompt_with_embedded_resource", "description": "A prompt embedding a resource",
                "arguments": [arg("resourceUri", "URI of the resource to embed")] }),
        json!({ "name": "test_prompt_with_image", "description": "A prompt with an image" }),
    ]
}

fn get_prompt(name: &str, args: &Value) -> Option<Value> {
    let user = |content: Value| json!({ "role": "user", "content": content });
    let text = |t: String| json!({ "type": "text", "text": t });
    let s = |k: &str| args[k].as_str().unwrap_or_default().to_string();
    Some(json!({ "messages": match name {
        "test_simple_prompt" => vec![user(text("This is a simple prompt for testing.".into()))],
        "test_prompt_with_arguments" => vec![user(text(format!("Prompt with arguments: arg1='{}', arg2='{}'", s("arg1"), s("arg2"))))],
        "test_prompt_with_embedded_resource" => vec![
            user(json!({ "type": "resource", "resource": { "uri": s("resourceUri"), "mimeType": "text/plain", "text": "Embedded resource content for testing." } })),
            user(text("Please process the embedded resource above.".into())),
        ],
        "test_prompt_with_image" => vec![user(image()), user(text("Please analyze the image above.".into()))],
        _ => return None,
    } }))
}
