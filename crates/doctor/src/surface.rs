//! A server's surface as stable JSON: who it says it is, the protocol and
//! capabilities it answered with, and its tools (with their schemas and
//! annotations), resources, templates and prompts — sorted, keys in order,
//! so two snapshots of the same server are the same bytes and a commit of
//! one diffs cleanly.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use workbench_core::catalog::ServerCatalog;
use workbench_core::status::ServerInfo;
use workbench_core::{ErrorCode, ErrorInfo, Workbench};

/// The snapshot format's version (a later format reads this one).
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    pub snapshot: u32,
    /// The server's own name, title and version (`serverInfo`).
    pub server: Value,
    pub protocol_version: String,
    pub capabilities: Value,
    #[serde(default)]
    pub instructions: Option<String>,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// Skills (SEP-2640) as listed; absent from snapshots made before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Value>,
}

/// `v` with every object's keys sorted, recursively.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn sorted_by(items: &[Value], key: &str) -> Vec<Value> {
    let mut out: Vec<Value> = items.iter().map(canonical).collect();
    out.sort_by(|a, b| {
        let k = |v: &Value| v[key].as_str().unwrap_or_default().to_string();
        k(a).cmp(&k(b))
    });
    out
}

impl Surface {
    /// The surface of a server from what it answered (`info`) and listed.
    pub fn of(info: &ServerInfo, catalog: &ServerCatalog) -> Surface {
        let mut server = Map::new();
        server.insert("name".into(), Value::String(info.name.clone()));
        if let Some(t) = &info.title {
            server.insert("title".into(), Value::String(t.clone()));
        }
        server.insert("version".into(), Value::String(info.version.clone()));
        Surface {
            snapshot: FORMAT,
            server: Value::Object(server),
            protocol_version: info.protocol_version.clone(),
            capabilities: canonical(&info.capabilities),
            instructions: info.instructions.clone().filter(|s| !s.is_empty()),
            tools: sorted_by(&catalog.tools, "name"),
            resources: sorted_by(&catalog.resources, "uri"),
            resource_templates: sorted_by(&catalog.resource_templates, "uriTemplate"),
            prompts: sorted_by(&catalog.prompts, "name"),
            skills: sorted_by(&catalog.skills, "uri"),
        }
    }

    /// The surface of a running server of `wb` (None: it is not ready or its
    /// lists are not read yet).
    pub fn live(wb: &Workbench, server: &str) -> Option<Surface> {
        let handle = wb.server(server).ok()?;
        let info = handle.status().info?;
        let catalog = wb.catalog().server(server)?;
        Some(Surface::of(&info, &catalog))
    }

    /// The snapshot file's text: pretty, stable, ending in a newline.
    pub fn to_text(&self) -> String {
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        let mut text = serde_json::to_string_pretty(&canonical(&v)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Read a snapshot file's text, saying what is wrong with it.
    pub fn from_text(text: &str) -> Result<Surface, ErrorInfo> {
        let invalid = |m: String| ErrorInfo::new(ErrorCode::Invalid, m);
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        match v.get("snapshot").and_then(Value::as_u64) {
            Some(n) if n <= u64::from(FORMAT) => {}
            Some(n) => {
                return Err(invalid(format!(
                    "a snapshot of format {n}; this mcpwb reads format {FORMAT} and older"
                )));
            }
            None => {
                return Err(invalid(
                    "not an mcpwb snapshot (no \"snapshot\" key)".into(),
                ));
            }
        }
        serde_json::from_value(v).map_err(|e| invalid(format!("not a snapshot: {e}")))
    }

    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools.iter().find(|t| t["name"] == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_surface_in_any_order_is_the_same_text() {
        let info = ServerInfo {
            protocol_version: "2025-11-25".into(),
            name: "s".into(),
            title: None,
            version: "1".into(),
            instructions: None,
            capabilities: json!({"tools": {"listChanged": true}, "prompts": {}}),
            transport: workbench_core::TransportKind::Stdio,
        };
        let a = ServerCatalog {
            tools: vec![
                json!({"name": "b", "inputSchema": {"type": "object", "properties": {"y": {}, "x": {}}}}),
                json!({"name": "a", "inputSchema": {"type": "object"}}),
            ],
            ..ServerCatalog::default()
        };
        let mut b = a.clone();
        b.tools.reverse();
        b.tools[1] = json!({"inputSchema": {"properties": {"x": {}, "y": {}}, "type": "object"}, "name": "b"});
        let (sa, sb) = (Surface::of(&info, &a), Surface::of(&info, &b));
        assert_eq!(sa.to_text(), sb.to_text());
        assert_eq!(sa.tools[0]["name"], "a");
        assert_eq!(Surface::from_text(&sa.to_text()).unwrap(), sa);
        assert!(
            Surface::from_text("{}")
                .unwrap_err()
                .message
                .contains("not an mcpwb snapshot")
        );
    }
}
