//! The demo server's tools: their definitions (as the JSON a server sends)
//! and what each does when called.

use serde_json::{Value, json};

/// Names of the tools, in the order `tools/list` returns them.
pub const EXTRA_TOOL: &str = "extra_tool";

/// Echo's description after `redefine_echo`.
pub const ECHO_REDEFINED: &str = "Returns the message it is given, and also keeps a copy.";

/// The tool definitions, as MCP JSON. `with_extra` adds the tool that
/// `toggle_extra_tool` switches on and off (list_changed).
/// What decides the tools a session is listed.
pub struct Listing {
    pub extra: bool,
    pub echo_redefined: bool,
    /// `--tools N`: that many generated tools.
    pub generated: usize,
    pub conformance: bool,
    /// The session speaks 2026-07-28 (the tasks extension's fixtures).
    pub new_era: bool,
}

/// Every tool the demo lists to a session.
pub fn all(l: Listing) -> Vec<Value> {
    let mut all = definitions(l.extra);
    if l.echo_redefined {
        all[0]["description"] = json!(ECHO_REDEFINED);
    }
    // rmcp's Tool has no `execution`: it travels in `_meta` to the
    // transport, which puts it back (`wire.rs`).
    all.extend(
        super::tasked::definitions(l.new_era)
            .into_iter()
            .map(|mut tool| {
                if let Some(execution) = tool.as_object_mut().and_then(|t| t.remove("execution")) {
                    tool["_meta"] = json!({ crate::wire::MARKER: execution });
                }
                tool
            }),
    );
    all.extend(super::app::tools());
    all.extend(generated(l.generated));
    if l.conformance {
        all.extend(super::conformance::all_tools(l.new_era));
    }
    all
}

pub fn definitions(with_extra: bool) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns the message it is given. The benchmark tool.",
            "inputSchema": {
                "type": "object",
                "properties": { "message": { "type": "string", "description": "What to echo back" } },
                "required": ["message"]
            },
            "annotations": { "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false }
        }),
        json!({
            "name": "add",
            "title": "Add two numbers",
            "description": "Adds a and b; the result is structured content checked against the output schema.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": { "type": "number", "description": "First addend" },
                    "b": { "type": "number", "description": "Second addend", "default": 1 }
                },
                "required": ["a"]
            },
            "outputSchema": {
                "type": "object",
                "properties": { "sum": { "type": "number" } },
                "required": ["sum"]
            },
            "annotations": { "readOnlyHint": true, "idempotentHint": true }
        }),
        json!({
            "name": "create_order",
            "title": "Create an order",
            "description": "A tool with a rich input schema: nested objects, arrays of objects, enums, oneOf, nullable, $ref/$defs, formats and defaults.",
            "inputSchema": create_order_schema(),
            "outputSchema": {
                "type": "object",
                "properties": {
                    "order_id": { "type": "string" },
                    "items": { "type": "integer", "minimum": 0 },
                    "total_quantity": { "type": "integer", "minimum": 0 },
                    "status": { "type": "string", "enum": ["accepted", "held"] }
                },
                "required": ["order_id", "items", "status"]
            },
            "annotations": { "destructiveHint": false, "idempotentHint": false, "openWorldHint": false },
            "icons": [{ "src": format!("data:image/png;base64,{}", crate::media::b64(&crate::media::png(16))), "mimeType": "image/png", "sizes": ["16x16"] }]
        }),
        json!({
            "name": "all_content_types",
            "title": "Every content block",
            "description": "Returns one of each content block: text, image, audio, resource_link and an embedded resource.",
            "inputSchema": { "type": "object", "properties": {} },
            "annotations": { "readOnlyHint": true }
        }),
        json!({
            "name": "fail",
            "title": "Always fails",
            "description": "Returns an error result (isError: true) with the reason given.",
            "inputSchema": {
                "type": "object",
                "properties": { "reason": { "type": "string", "default": "this tool always fails" } }
            }
        }),
        json!({
            "name": "long_task",
            "title": "Long-running task",
            "description": "Works for steps × step_ms milliseconds, reporting progress after each step; honours cancellation.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "steps": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 10 },
                    "step_ms": { "type": "integer", "minimum": 0, "maximum": 60000, "default": 500 }
                }
            }
        }),
        json!({
            "name": "redefine_echo",
            "title": "Change echo's definition",
            "description": "Changes the description of echo (a definition change) and sends notifications/tools/list_changed.",
            "inputSchema": { "type": "object", "properties": {} }
        }),
        json!({
            "name": "toggle_extra_tool",
            "title": "Toggle the extra tool",
            "description": "Adds or removes the tool `extra_tool` and sends notifications/tools/list_changed.",
            "inputSchema": { "type": "object", "properties": {} }
        }),
        json!({
            "name": "increment_counter",
            "title": "Increment the counter",
            "description": "Adds one to the resource demo://counter and notifies its subscribers.",
            "inputSchema": { "type": "object", "properties": {} },
            "annotations": { "idempotentHint": false }
        }),
        json!({
            "name": "log",
            "title": "Send a log message",
            "description": "Sends notifications/message at the given level (if at or above the level the client set).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "level": { "type": "string", "enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"], "default": "info" },
                    "message": { "type": "string" }
                },
                "required": ["message"]
            }
        }),
        json!({
            "name": "sign_in",
            "title": "Sign in (URL elicitation)",
            "description": "Asks the client to open a web address (elicitation in URL mode) and reports the user's action.",
            "inputSchema": {
                "type": "object",
                "properties": { "url": { "type": "string", "format": "uri", "default": "https://example.com/mcp-demo/sign-in" } }
            }
        }),
        json!({
            "name": "ask_llm",
            "title": "Ask the client's LLM",
            "description": "Sends sampling/createMessage to the client and returns its answer.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "question": { "type": "string" },
                    "max_tokens": { "type": "integer", "minimum": 1, "default": 200 }
                },
                "required": ["question"]
            }
        }),
        json!({
            "name": "ask_user",
            "title": "Ask the user",
            "description": "Sends an elicitation/create form request to the client and returns what the user answered.",
            "inputSchema": {
                "type": "object",
                "properties": { "message": { "type": "string", "default": "Tell me about yourself" } }
            }
        }),
        json!({
            "name": "list_roots",
            "title": "List the client's roots",
            "description": "Sends roots/list to the client and returns the roots.",
            "inputSchema": { "type": "object", "properties": {} },
            "annotations": { "readOnlyHint": true }
        }),
        json!({
            "name": "busy_once",
            "title": "Busy once",
            "description": "On protocol 2026-07-28, first answers input_required with only a requestState (a busy server shedding load); the retry that echoes it gets the result.",
            "inputSchema": { "type": "object", "properties": {} }
        }),
        json!({
            "name": "huge_result",
            "title": "Huge result",
            "description": "Returns a text block of the given size in megabytes.",
            "inputSchema": {
                "type": "object",
                "properties": { "megabytes": { "type": "number", "minimum": 0, "maximum": 100, "default": 20 } }
            },
            "annotations": { "readOnlyHint": true }
        }),
        json!({
            "name": "bad_structured_output",
            "title": "Breaks its output schema",
            "description": "Returns structuredContent that violates its own output schema (for checking validation).",
            "inputSchema": { "type": "object", "properties": {} },
            "outputSchema": {
                "type": "object",
                "properties": { "count": { "type": "integer" } },
                "required": ["count"]
            }
        }),
    ];
    if with_extra {
        tools.push(json!({
            "name": EXTRA_TOOL,
            "description": "Exists only while toggled on by toggle_extra_tool.",
            "inputSchema": { "type": "object", "properties": {} }
        }));
    }
    tools
}

fn create_order_schema() -> Value {
    json!({
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {
                    "street": { "type": "string", "minLength": 1 },
                    "city": { "type": "string" },
                    "postcode": { "type": "string", "pattern": "^[A-Z0-9 -]{3,10}$" },
                    "country": { "type": "string", "enum": ["DE", "FR", "GB", "NL", "US"], "default": "NL" }
                },
                "required": ["street", "city"]
            }
        },
        "properties": {
            "customer": {
                "type": "object",
                "title": "Customer",
                "properties": {
                    "name": { "type": "string" },
                    "email": { "type": "string", "format": "email" },
                    "website": { "type": "string", "format": "uri" },
                    "address": { "$ref": "#/$defs/address" }
                },
                "required": ["name", "email"]
            },
            "items": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": { "type": "string" },
                        "quantity": { "type": "integer", "minimum": 1, "maximum": 99, "default": 1 },
                        "gift_wrap": { "type": "boolean", "default": false },
                        "tags": { "type": "array", "items": { "type": "string" } }
                    },
                    "required": ["sku"]
                }
            },
            "priority": { "type": "string", "enum": ["low", "normal", "high"], "default": "normal" },
            "payment": {
                "oneOf": [
                    {
                        "title": "Card",
                        "type": "object",
                        "properties": {
                            "kind": { "const": "card" },
                            "number": { "type": "string", "pattern": "^[0-9]{12,19}$" }
                        },
                        "required": ["kind", "number"]
                    },
                    {
                        "title": "Invoice",
                        "type": "object",
                        "properties": {
                            "kind": { "const": "invoice" },
                            "po_number": { "type": "string" },
                            "due_days": { "type": "integer", "enum": [14, 30, 60], "default": 30 }
                        },
                        "required": ["kind"]
                    }
                ]
            },
            "deliver_on": { "type": "string", "format": "date" },
            "placed_at": { "type": "string", "format": "date-time" },
            "note": { "type": ["string", "null"], "default": null, "maxLength": 500 },
            "billing_address": { "anyOf": [{ "$ref": "#/$defs/address" }, { "type": "null" }] }
        },
        "required": ["customer", "items"]
    })
}

/// What `create_order` answers for the given arguments.
pub fn create_order(args: &Value) -> Value {
    let items = args["items"].as_array().map(Vec::len).unwrap_or(0);
    let quantity: u64 = args["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| i["quantity"].as_u64().unwrap_or(1))
                .sum()
        })
        .unwrap_or(0);
    let held = args["payment"]["kind"] == "invoice";
    json!({
        "order_id": format!("ord-{:04}", (quantity * 37 + items as u64) % 10_000),
        "items": items,
        "total_quantity": quantity,
        "status": if held { "held" } else { "accepted" }
    })
}

/// The content blocks of `all_content_types`.
pub fn all_content_types() -> Vec<Value> {
    use crate::media::{b64, png, wav};
    vec![
        json!({ "type": "text", "text": "# Every content block\n\nThis is **markdown** text. <script>alert('never run')</script>" }),
        json!({ "type": "image", "data": b64(&png(64)), "mimeType": "image/png", "annotations": { "audience": ["user"], "priority": 0.8 } }),
        json!({ "type": "audio", "data": b64(&wav(440.0, 500)), "mimeType": "audio/wav" }),
        json!({ "type": "resource_link", "uri": "demo://readme", "name": "readme", "title": "The demo README", "mimeType": "text/markdown", "description": "A link to a resource the client can read" }),
        json!({ "type": "resource", "resource": { "uri": "demo://inline/config.json", "mimeType": "application/json", "text": "{\"embedded\": true, \"answer\": 42}" } }),
    ]
}

/// `count` generated tools (`gen_00001`, ...) with small, varied schemas:
/// what a workbench with thousands of tools has to list and search.
pub fn generated(count: usize) -> Vec<Value> {
    (1..=count)
        .map(|i| {
            json!({
                "name": format!("gen_{i:05}"),
                "title": format!("Generated tool {i}"),
                "description": format!("A generated tool for scale tests, number {i}; takes a query and a limit."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": { "type": "string" },
                        "limit": { "type": "integer", "minimum": 1, "maximum": 100, "default": 10 }
                    },
                    "required": ["query"]
                },
                "annotations": { "readOnlyHint": i % 2 == 0 }
            })
        })
        .collect()
}
