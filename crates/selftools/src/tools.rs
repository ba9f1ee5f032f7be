//! The tools as `tools/list` gives them: each with a description an agent
//! can act on, its input and output schemas, and annotations that say what
//! it may change.

use serde_json::{Value, json};

pub const SERVERS: &str = "workbench_servers";
pub const RESTART: &str = "workbench_restart";
pub const DOCTOR: &str = "workbench_doctor";
pub const CALL: &str = "workbench_call";
pub const ANSWER: &str = "workbench_answer_input";
pub const TEST: &str = "workbench_test";
pub const SNAPSHOT: &str = "workbench_snapshot";
pub const DIFF: &str = "workbench_diff";
pub const TRAFFIC: &str = "workbench_traffic";

/// Every tool's name.
pub const NAMES: [&str; 9] = [
    SERVERS, RESTART, DOCTOR, CALL, ANSWER, TEST, SNAPSHOT, DIFF, TRAFFIC,
];

fn server_arg() -> Value {
    json!({ "type": "string", "description": "The server's name in mcp.json (workbench_servers lists them)" })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// What the workbench's annotations say: `read_only`, and for the others
/// whether they may destroy and whether they reach outside.
fn hints(title: &str, read_only: bool, destructive: bool, open_world: bool) -> Value {
    let mut a = json!({ "title": title, "readOnlyHint": read_only, "openWorldHint": open_world });
    if !read_only {
        a["destructiveHint"] = json!(destructive);
        a["idempotentHint"] = json!(false);
    }
    a
}

/// A call's state, as `workbench_call` and `workbench_answer_input` give it.
fn call_state() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": { "type": "string", "enum": ["done", "input_required", "running", "refused", "failed"] },
            "call": { "type": "integer", "description": "The call's id, for workbench_answer_input" },
            "isError": { "type": "boolean", "description": "The tool's own result is an error" },
            "result": { "type": "object", "description": "The tool's result as the server sent it" },
            "input": {
                "type": "object",
                "description": "The server's question: its id, kind and request (message, requestedSchema)",
                "properties": { "id": { "type": "integer" }, "kind": { "type": "string" }, "request": { "type": "object" } }
            },
            "schemaViolations": { "type": "array", "items": { "type": "string" } },
            "historyKey": { "type": ["string", "null"] }
        },
        "required": ["status"]
    })
}

pub fn all() -> Vec<Value> {
    vec![
        json!({
            "name": SERVERS,
            "description": "Every server of the workbench's mcp.json and its state now: ready (with its protocol, transport and how many tools, resources, prompts and skills it lists), starting, failed (with the reason and its last stderr lines), untrusted (the person has not trusted it yet: ask them) or disabled. Start here.",
            "inputSchema": object(json!({}), &[]),
            "outputSchema": object(json!({ "servers": { "type": "array", "items": { "type": "object", "properties": { "name": { "type": "string" }, "state": { "type": "string" } }, "required": ["name", "state"] } } }), &["servers"]),
            "annotations": hints("The servers and their state", true, false, false),
        }),
        json!({
            "name": RESTART,
            "description": "Restart a server after you edited its code or config, wait until it is ready again (at most 30 s), and return what changed in its surface since it last started: each change with its code, the item and whether it is breaking, the tools added and changed, and the doctor's findings that are new. A failure to come back returns its reason and stderr. A server the person has not trusted is not started.",
            "inputSchema": object(json!({ "server": server_arg() }), &["server"]),
            "outputSchema": object(json!({
                "server": { "type": "string" },
                "state": { "type": "string" },
                "readyMs": { "type": "number" },
                "changed": { "type": "boolean" },
                "change": { "type": ["object", "null"], "description": "changes, new_findings, added_tools, changed_tools" }
            }), &["server", "state", "changed"]),
            "annotations": hints("Restart a server and see what changed", false, false, false),
        }),
        json!({
            "name": DOCTOR,
            "description": "What is wrong with a server: each finding with a stable code, its severity, the item and a JSON pointer into it, what was seen, why it matters and how to fix it; also the tokens its tool list costs a model. probe: also call its read-only tools (only tools marked read-only, never one marked destructive). eras: connect again once per protocol era and play how real clients (the TypeScript and Python SDKs, ...) find it.",
            "inputSchema": object(json!({
                "server": server_arg(),
                "probe": { "type": "boolean", "default": false },
                "eras": { "type": "boolean", "default": false }
            }), &["server"]),
            "outputSchema": object(json!({
                "server": { "type": "string" },
                "findings": { "type": "array", "items": { "type": "object", "properties": { "code": { "type": "string" }, "severity": { "type": "string" } }, "required": ["code", "severity"] } }
            }), &["server", "findings"]),
            "annotations": hints("The doctor's findings", true, false, false),
        }),
        json!({
            "name": CALL,
            "description": "Call a tool of a server, as the person's rules allow (a tool they denied is refused; History keeps the call, origin agent). Returns status done with the tool's result (isError, structuredContent, and any breach of its output schema). If the server asks a question during the call (elicitation: a form with a JSON schema), the call is parked: status input_required with the question; answer it with workbench_answer_input. After waitMs (default 60000) a call still running returns status running.",
            "inputSchema": object(json!({
                "server": server_arg(),
                "tool": { "type": "string", "description": "The tool's own name on that server" },
                "arguments": { "type": "object", "description": "The tool's arguments (its inputSchema)" },
                "waitMs": { "type": "integer", "minimum": 100, "maximum": 600000, "default": 60000 }
            }), &["server", "tool"]),
            "outputSchema": call_state(),
            "annotations": hints("Call a server's tool", false, true, true),
        }),
        json!({
            "name": ANSWER,
            "description": "Answer the question a parked call asked (workbench_call's input_required): action accept with content matching the question's requestedSchema, or decline, or cancel. Returns the call's result, its next question, or running after waitMs. With only call (no input), waits again for a call still running.",
            "inputSchema": object(json!({
                "call": { "type": "integer", "description": "The call's id" },
                "input": { "type": "integer", "description": "The question's id (input.id)" },
                "action": { "type": "string", "enum": ["accept", "decline", "cancel"], "default": "accept" },
                "content": { "type": "object", "description": "With accept: the answer, as the requestedSchema says" },
                "waitMs": { "type": "integer", "minimum": 100, "maximum": 600000, "default": 60000 }
            }), &["call"]),
            "outputSchema": call_state(),
            "annotations": hints("Answer a parked call's question", false, true, true),
        }),
        json!({
            "name": TEST,
            "description": "Run the project's suites (.mcp-workbench/suites/*.json, and the person's own), or one file or folder (path), or only the cases whose name matches case (* for any run of characters). Returns each suite's cases: passed, failed (each failed assertion with what was seen and a diff), skipped or not run (server not ready); and the totals. A suite the person has not trusted is refused, not run. Prompt cases (evals) are not run here.",
            "inputSchema": object(json!({
                "path": { "type": "string", "description": "A suite file or folder (relative to the project)" },
                "case": { "type": "string", "description": "Only cases whose name matches (* for any run of characters)" }
            }), &[]),
            "outputSchema": object(json!({
                "suites": { "type": "array", "items": { "type": "object" } },
                "passed": { "type": "integer" },
                "failed": { "type": "integer" },
                "skipped": { "type": "integer" },
                "not_ready": { "type": "integer" },
                "broken": { "type": "array", "items": { "type": "string" } }
            }), &["suites", "passed", "failed"]),
            "annotations": hints("Run the suites", false, true, true),
        }),
        json!({
            "name": SNAPSHOT,
            "description": "A server's surface now as stable JSON: its tools with their schemas, resources, templates, prompts, skills, capabilities and protocol. Keep it to compare later with workbench_diff.",
            "inputSchema": object(json!({ "server": server_arg() }), &["server"]),
            "outputSchema": object(json!({
                "snapshot": { "type": "integer" },
                "tools": { "type": "array" },
                "protocolVersion": { "type": "string" }
            }), &["tools"]),
            "annotations": hints("A server's surface", true, false, false),
        }),
        json!({
            "name": DIFF,
            "description": "What changed in a server's surface: against before (a workbench_snapshot), or by default against its surface when the workbench started it or last restarted it through workbench_restart. Each change has a code (tool.removed, input.required-added, ...), the item, a JSON pointer, and whether it breaks clients.",
            "inputSchema": object(json!({
                "server": server_arg(),
                "before": { "type": "object", "description": "An earlier workbench_snapshot" }
            }), &["server"]),
            "outputSchema": object(json!({
                "server": { "type": "string" },
                "changes": { "type": "array", "items": { "type": "object", "properties": { "impact": { "type": "string" }, "code": { "type": "string" }, "item": { "type": "string" } } } },
                "breaking": { "type": "integer" }
            }), &["server", "changes", "breaking"]),
            "annotations": hints("What changed in a server's surface", true, false, false),
        }),
        json!({
            "name": TRAFFIC,
            "description": "The last messages between the workbench and a server, oldest first: each with its direction, method, id, time and body (requests, results, errors, notifications and the server's stderr lines). Secrets of its config are masked. Read it when a call fails in a way the result does not explain.",
            "inputSchema": object(json!({
                "server": server_arg(),
                "last": { "type": "integer", "minimum": 1, "maximum": 200, "default": 20 },
                "method": { "type": "string", "description": "Only messages of this method (e.g. tools/call)" }
            }), &["server"]),
            "outputSchema": object(json!({
                "server": { "type": "string" },
                "total": { "type": "integer" },
                "messages": { "type": "array", "items": { "type": "object" } }
            }), &["server", "messages"]),
            "annotations": hints("A server's recent traffic", true, false, false),
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_says_what_it_is_and_may_change() {
        let tools = all();
        let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, NAMES, "NAMES lists each tool, in order");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 9);
        for t in &tools {
            let name = t["name"].as_str().unwrap();
            assert!(name.starts_with("workbench_"), "{name}");
            assert!(t["description"].as_str().unwrap().len() > 80, "{name}");
            assert_eq!(t["inputSchema"]["type"], "object", "{name}");
            assert_eq!(t["outputSchema"]["type"], "object", "{name}");
            let a = &t["annotations"];
            assert!(a["readOnlyHint"].is_boolean(), "{name}");
            if a["readOnlyHint"] == false {
                assert!(a["destructiveHint"].is_boolean(), "{name}");
            }
        }
    }
}
