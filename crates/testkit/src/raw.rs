//! A hand-written stdio JSON-RPC loop for the faults no MCP library would
//! commit: the demo server's `ping-flood` and `giant-result` modes. It
//! answers the handshake (2025-11-25 era: `server/discover` is not found),
//! lists one tool, `echo`, and misbehaves when that tool is called.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::Fault;

/// How many `{"id":1.5,"method":"ping"}` requests a call brings.
pub const FLOOD: usize = 100_000;
/// The size of the giant result's text.
pub const GIANT: usize = 400 << 20;

fn send(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}

/// Serve stdin/stdout until stdin ends.
pub fn serve(fault: Fault) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let Ok(msg) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification (or a response to our pings)
        };
        let answer = |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result });
        match msg["method"].as_str().unwrap_or("") {
            "initialize" => send(
                &mut out,
                &answer(json!({
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "hostile", "version": "1.0.0" }
                })),
            )?,
            "ping" => send(&mut out, &answer(json!({})))?,
            "tools/list" => send(
                &mut out,
                &answer(json!({ "tools": [{
                    "name": "echo",
                    "description": "Misbehaves when called",
                    "inputSchema": { "type": "object" }
                }] })),
            )?,
            "tools/call" => match fault {
                Fault::PingFlood => {
                    // Requests the client cannot answer by id (not an
                    // integer or a string), then the real answer.
                    let ping = json!({ "jsonrpc": "2.0", "id": 1.5, "method": "ping" });
                    for _ in 0..FLOOD {
                        writeln!(out, "{ping}")?;
                    }
                    let text = json!([{ "type": "text", "text": "after the flood" }]);
                    send(&mut out, &answer(json!({ "content": text })))?;
                }
                _ => {
                    // One line of GIANT bytes, written in 1 MiB pieces (never
                    // held whole here either).
                    write!(
                        out,
                        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
                    )?;
                    let block = vec![b'x'; 1 << 20];
                    for _ in 0..GIANT >> 20 {
                        out.write_all(&block)?;
                    }
                    writeln!(out, r#""}}]}}}}"#)?;
                    out.flush()?;
                }
            },
            method => send(
                &mut out,
                &json!({ "jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": format!("method not found: {method}")
                } }),
            )?,
        }
    }
    Ok(())
}
