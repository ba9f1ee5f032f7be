//! What a host does, read from its sessions: the protocol versions it
//! offered, the capabilities and extensions it declared, the methods it
//! called (in the order first called), whether it read an App's `ui://`
//! resource, whether it listed again after a `list_changed`. Kept per host
//! and version (merged over its sessions) so two releases of a host can be
//! compared.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::session::Session;

/// The most distinct methods, protocol versions and list kinds one
/// fingerprint keeps (a session file from anyone may name 200,000).
pub const MAX_DISTINCT: usize = 1_000;

/// A list in first-seen order, each item once, at most [`MAX_DISTINCT`].
#[derive(Default)]
struct Distinct {
    order: Vec<String>,
    seen: HashSet<String>,
}

impl Distinct {
    fn add(&mut self, item: &str) {
        if self.order.len() < MAX_DISTINCT && !self.seen.contains(item) {
            self.seen.insert(item.to_string());
            self.order.push(item.to_string());
        }
    }
}

/// What one session shows of its host.
pub fn of_session(session: &Session) -> Value {
    let mut offered = Distinct::default();
    let mut capabilities = Value::Null;
    let mut methods = Distinct::default();
    let mut read_app = false;
    // list_changed seen per kind, then whether a list followed.
    let mut told: Map<String, Value> = Map::new();
    let mut host = (Value::Null, Value::Null);
    for m in &session.messages {
        if m.cut {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(&m.text) else {
            continue;
        };
        let Some(method) = v["method"].as_str() else {
            continue;
        };
        let params = &v["params"];
        if m.direction == "server" {
            if let Some(kind) = method
                .strip_prefix("notifications/")
                .and_then(|r| r.strip_suffix("/list_changed"))
                && told.len() < MAX_DISTINCT
            {
                told.entry(kind.to_string()).or_insert(Value::Bool(false));
            }
            continue;
        }
        if m.direction != "host" {
            continue;
        }
        methods.add(method);
        let meta = &params["_meta"];
        let version = if method == "initialize" {
            params["protocolVersion"].as_str()
        } else {
            meta["io.modelcontextprotocol/protocolVersion"].as_str()
        };
        if let Some(p) = version {
            offered.add(p);
        }
        if capabilities.is_null() {
            if params["capabilities"].is_object() {
                capabilities = params["capabilities"].clone();
                host = (
                    params["clientInfo"]["name"].clone(),
                    params["clientInfo"]["version"].clone(),
                );
            } else if meta["io.modelcontextprotocol/clientCapabilities"].is_object() {
                capabilities = meta["io.modelcontextprotocol/clientCapabilities"].clone();
                let info = &meta["io.modelcontextprotocol/clientInfo"];
                host = (info["name"].clone(), info["version"].clone());
            }
        }
        if method == "resources/read"
            && params["uri"]
                .as_str()
                .is_some_and(|u| u.starts_with("ui://"))
        {
            read_app = true;
        }
        if let Some(kind) = method.strip_suffix("/list")
            && let Some(seen) = told.get_mut(kind)
        {
            *seen = Value::Bool(true);
        }
    }
    let extensions: Vec<String> = capabilities["extensions"]
        .as_object()
        .map(|e| e.keys().cloned().collect())
        .unwrap_or_default();
    let mut declared = capabilities.clone();
    if let Some(o) = declared.as_object_mut() {
        o.remove("extensions");
    }
    json!({
        "host": host.0,
        "version": host.1,
        "sessions": 1,
        "protocolVersions": offered.order,
        "capabilities": declared,
        "extensions": extensions,
        "methods": methods.order,
        "readAppResource": read_app,
        "listedAgainAfterListChanged": told,
    })
}

/// Several sessions of one host and version as one fingerprint: what any
/// of them did.
pub fn merge(all: &[Value]) -> Value {
    let Some(first) = all.first() else {
        return Value::Null;
    };
    let mut out = first.clone();
    for f in &all[1..] {
        for key in ["protocolVersions", "extensions", "methods"] {
            let mut list = Distinct::default();
            for v in [&out[key], &f[key]]
                .into_iter()
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(Value::as_str)
            {
                list.add(v);
            }
            out[key] = json!(list.order);
        }
        if out["capabilities"].is_null() {
            out["capabilities"] = f["capabilities"].clone();
        }
        out["readAppResource"] =
            Value::Bool(out["readAppResource"] == true || f["readAppResource"] == true);
        if let (Some(mine), Some(theirs)) = (
            out["listedAgainAfterListChanged"].as_object().cloned(),
            f["listedAgainAfterListChanged"].as_object(),
        ) {
            let mut merged = mine;
            for (k, v) in theirs {
                let was = merged.get(k).cloned().unwrap_or(Value::Bool(false));
                merged.insert(k.clone(), Value::Bool(was == true || *v == true));
            }
            out["listedAgainAfterListChanged"] = Value::Object(merged);
        }
        out["sessions"] = json!(out["sessions"].as_u64().unwrap_or(1) + 1);
    }
    out
}

/// What changed from `a` to `b`, a sentence a line (empty: nothing).
pub fn compare(a: &Value, b: &Value) -> Vec<String> {
    let mut said = Vec::new();
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (key, what) in [
        ("protocolVersions", "offers protocol version"),
        ("extensions", "declares the extension"),
        ("methods", "calls"),
    ] {
        let (before, after) = (list(&a[key]), list(&b[key]));
        for x in after.iter().filter(|x| !before.contains(x)) {
            said.push(format!("now {what} {x}"));
        }
        for x in before.iter().filter(|x| !after.contains(x)) {
            said.push(format!("no longer {what} {x}"));
        }
    }
    let (ma, mb) = (list(&a["methods"]), list(&b["methods"]));
    let common_a: Vec<&String> = ma.iter().filter(|m| mb.contains(m)).collect();
    let common_b: Vec<&String> = mb.iter().filter(|m| ma.contains(m)).collect();
    if common_a != common_b {
        said.push(format!(
            "calls in another order: {} (was {})",
            common_b
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            common_a
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let caps = |v: &Value| -> Map<String, Value> {
        v["capabilities"].as_object().cloned().unwrap_or_default()
    };
    let (ca, cb) = (caps(a), caps(b));
    for (k, v) in &cb {
        match ca.get(k) {
            None => said.push(format!("now declares the capability {k} {v}")),
            Some(old) if old != v => said.push(format!("declares {k} as {v} (was {old})")),
            _ => {}
        }
    }
    for k in ca.keys().filter(|k| !cb.contains_key(*k)) {
        said.push(format!("no longer declares the capability {k}"));
    }
    if a["readAppResource"] != b["readAppResource"] {
        said.push(if b["readAppResource"] == true {
            "now reads an App's ui:// resource".into()
        } else {
            "no longer reads an App's ui:// resource".into()
        });
    }
    let relist = |v: &Value| {
        v["listedAgainAfterListChanged"]
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    let (ra, rb) = (relist(a), relist(b));
    for (kind, again) in &rb {
        if let Some(before) = ra.get(kind)
            && before != again
        {
            said.push(if *again == true {
                format!("now lists {kind} again after {kind}/list_changed")
            } else {
                format!("no longer lists {kind} again after {kind}/list_changed")
            });
        }
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[(&str, Value)]) -> Session {
        Session::of(lines)
    }

    #[test]
    fn two_releases_of_a_host_are_told_apart() {
        let old = session(&[
            (
                "host",
                json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"h","version":"1"}}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}),
            ),
        ]);
        let new = session(&[
            (
                "host",
                json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"extensions":{"io.modelcontextprotocol/ui":{}}},"clientInfo":{"name":"h","version":"2"}}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"ui://app/x.html"}}),
            ),
        ]);
        let (a, b) = (of_session(&old), of_session(&new));
        assert_eq!(a["host"], "h");
        assert_eq!(a["listedAgainAfterListChanged"]["tools"], false);
        assert_eq!(b["listedAgainAfterListChanged"]["tools"], true);
        let said = compare(&a, &b);
        for expected in [
            "now offers protocol version 2025-11-25",
            "no longer offers protocol version 2025-06-18",
            "now declares the extension io.modelcontextprotocol/ui",
            "now calls resources/read",
            "no longer calls tools/call",
            "declares roots as {\"listChanged\":true} (was {})",
            "now reads an App's ui:// resource",
            "now lists tools again after tools/list_changed",
        ] {
            assert!(
                said.iter().any(|s| s == expected),
                "{expected} not in {said:#?}"
            );
        }
        assert!(compare(&a, &a).is_empty());
        let both = merge(&[a.clone(), b.clone()]);
        assert_eq!(both["sessions"], 2);
        assert_eq!(both["readAppResource"], true);
    }
}

#[cfg(test)]
mod bounds {
    use serde_json::json;

    use super::*;

    /// The review's read: an imported file of 200,000 distinct methods made
    /// the fingerprint quadratic. Each list is kept once per item, and at
    /// most MAX_DISTINCT long.
    #[test]
    fn a_session_of_many_distinct_methods_is_fingerprinted_in_bounds() {
        let lines: Vec<(&str, Value)> = (0..20_000)
            .map(|i| ("host", json!({"jsonrpc":"2.0","id":i,"method":format!("x/{i}"),"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":format!("v{i}")}}})))
            .collect();
        let f = of_session(&Session::of(&lines));
        assert_eq!(f["methods"].as_array().unwrap().len(), MAX_DISTINCT);
        assert_eq!(
            f["protocolVersions"].as_array().unwrap().len(),
            MAX_DISTINCT
        );
        assert_eq!(f["methods"][0], "x/0", "first seen first");
        let merged = merge(&[f.clone(), f]);
        assert_eq!(merged["methods"].as_array().unwrap().len(), MAX_DISTINCT);
    }
}
