//! Servers with planted faults for the doctor, one per family
//! (`--fault doctor-names`, `doctor-schemas`, `doctor-texts`,
//! `doctor-listings`, `doctor-behaviour`). Each also lists `well_formed`, a
//! tool nothing should be said about. Hand-written (like `raw`): no MCP
//! library would send most of this.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::Fault;

/// A tool nothing should be said about (strict-ready schema, described,
/// annotated, titled).
pub fn good(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Well formed",
        "description": "Looks up a word and returns its meaning.",
        "inputSchema": {
            "type": "object",
            "properties": { "word": { "type": "string", "description": "The word" } },
            "required": ["word"],
            "additionalProperties": false
        },
        "annotations": { "readOnlyHint": true, "openWorldHint": false }
    })
}

fn with(name: &str, change: impl FnOnce(&mut Value)) -> Value {
    let mut t = good(name);
    change(&mut t);
    t
}

fn schema(name: &str, input: Value) -> Value {
    with(name, |t| t["inputSchema"] = input)
}

fn tools(fault: Fault) -> Vec<Value> {
    let mut out = vec![good("well_formed")];
    match fault {
        Fault::DoctorNames => out.extend([
            good("has space"),
            good("a_tool_whose_name_is_long_enough_to_pass_sixty_four_once_prefixed"),
            good("Lookup"),
            good("lookup"),
            good("dotted.name"),
            good("dup"),
            good("dup"),
        ]),
        Fault::DoctorSchemas => {
            let object = |props: Value, required: Value| {
                json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
            };
            out.extend([
                schema("top_array", json!({ "type": "array", "items": { "type": "string" } })),
                schema("no_items", object(json!({ "list": { "type": "array" } }), json!(["list"]))),
                schema(
                    "draft_seven",
                    json!({ "$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}, "additionalProperties": false }),
                ),
                schema("required_ghost", object(json!({}), json!(["ghost"]))),
                schema(
                    "bad_ref",
                    object(json!({ "a": { "$ref": "#/$defs/nowhere" } }), json!(["a"])),
                ),
                schema(
                    "any_top",
                    json!({ "type": "object", "anyOf": [{ "required": [] }], "properties": {}, "additionalProperties": false }),
                ),
                schema("number_enum", object(json!({ "n": { "enum": [1, 2] } }), json!(["n"]))),
                schema(
                    "pattern_lost",
                    object(json!({ "code": { "type": "string", "pattern": "^[A-Z]{3}$" } }), json!(["code"])),
                ),
                with("bad_output", |t| t["outputSchema"] = json!({ "type": "objekt" })),
            ]);
        }
        Fault::DoctorTexts => out.extend([
            with("no_description", |t| {
                t.as_object_mut().map(|m| m.remove("description"));
            }),
            with("long_description", |t| t["description"] = json!("Looks things up. ".repeat(120))),
            with("bare", |t| {
                let m = t.as_object_mut().expect("object");
                m.remove("annotations");
                m.remove("title");
            }),
            with("costly", |t| {
                let props: serde_json::Map<String, Value> = (0..60)
                    .map(|i| {
                        (
                            format!("field_{i}"),
                            json!({ "type": "string", "description": format!("The {i}th field of the record, which the lookup matches against the index before anything else happens") }),
                        )
                    })
                    .collect();
                let names: Vec<String> = props.keys().cloned().collect();
                t["inputSchema"] = json!({ "type": "object", "properties": props, "required": names, "additionalProperties": false });
            }),
        ]),
        _ => {}
    }
    out
}

fn send(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}

/// Serve stdin/stdout until stdin ends.
pub fn serve(fault: Fault) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let behaviour = fault == Fault::DoctorBehaviour;
    for line in stdin.lock().lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let method = msg["method"].as_str().unwrap_or("");
        if method == "notifications/initialized" && behaviour {
            // A list change it never declared.
            send(
                &mut out,
                &json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }),
            )?;
        }
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let answer = |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result });
        let error = |code: i32, message: &str| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
        match method {
            "initialize" => {
                if behaviour {
                    // A stray print on stdout.
                    writeln!(out, "Server starting up... loaded 3 plugins")?;
                }
                let capabilities = if behaviour {
                    json!({ "tools": {}, "resources": { "subscribe": true }, "prompts": {} })
                } else {
                    json!({ "tools": {}, "resources": {}, "prompts": {} })
                };
                send(
                    &mut out,
                    &answer(json!({
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": capabilities,
                        "serverInfo": { "name": "planted", "version": "1.0.0" }
                    })),
                )?
            }
            "ping" => send(&mut out, &answer(json!({})))?,
            "tools/list" => send(&mut out, &answer(json!({ "tools": tools(fault) })))?,
            "resources/list" if fault == Fault::DoctorListings => send(
                &mut out,
                &answer(json!({ "resources": [
                    { "uri": "memo://good", "name": "good", "mimeType": "text/plain" },
                    { "uri": "memo://odd", "name": "odd", "mimeType": "text" }
                ] })),
            )?,
            "resources/list" => send(
                &mut out,
                &answer(
                    json!({ "resources": [{ "uri": "memo://good", "name": "good", "mimeType": "text/plain" }] }),
                ),
            )?,
            "resources/templates/list" if fault == Fault::DoctorListings => send(
                &mut out,
                &answer(json!({ "resourceTemplates": [
                    { "uriTemplate": "memo://{id}", "name": "by id", "mimeType": "text/plain" },
                    { "uriTemplate": "file:///{path", "name": "broken" }
                ] })),
            )?,
            "resources/templates/list" => {
                send(&mut out, &answer(json!({ "resourceTemplates": [] })))?
            }
            "prompts/list" if behaviour => {
                send(&mut out, &error(-32603, "prompts are not loaded"))?
            }
            "prompts/list" if fault == Fault::DoctorListings => send(
                &mut out,
                &answer(json!({ "prompts": [
                    { "name": "described", "description": "Greets", "arguments": [{ "name": "who", "description": "Whom to greet", "required": true }] },
                    { "name": "terse", "description": "Greets", "arguments": [{ "name": "who" }] }
                ] })),
            )?,
            "prompts/list" => send(&mut out, &answer(json!({ "prompts": [] })))?,
            "tools/call" => send(
                &mut out,
                &answer(json!({ "content": [{ "type": "text", "text": "a meaning" }] })),
            )?,
            other => send(
                &mut out,
                &error(-32601, &format!("method not found: {other}")),
            )?,
        }
    }
    Ok(())
}
