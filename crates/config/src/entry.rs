//! One `mcpServers` entry: its dialect-tolerant reading and validation.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Problem, ServerEntry, Transport};

fn problem(pointer: &str, message: impl Into<String>) -> Problem {
    Problem {
        pointer: pointer.to_string(),
        message: message.into(),
        scope: super::Scope::User,
    }
}

fn opt_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(problem(&format!("/{key}"), "must be a string")),
    }
}

fn string_list(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(problem(&format!("/{key}/{i}"), "must be a string")),
            })
            .collect(),
        Some(_) => Err(problem(&format!("/{key}"), "must be an array of strings")),
    }
}

fn string_map(obj: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(problem(
                    &format!("/{key}/{}", k.replace('~', "~0").replace('/', "~1")),
                    "must be a string",
                )),
            })
            .collect(),
        Some(_) => Err(problem(
            &format!("/{key}"),
            "must be an object of string values",
        )),
    }
}

fn check_url(url: &str, key: &str) -> Result<(), Problem> {
    if url.starts_with("${") {
        // Checked again once expanded, when the server starts.
        return Ok(());
    }
    let lower = url.to_ascii_lowercase();
    let is_http = lower.starts_with("http://") || lower.starts_with("https://");
    if is_http && url.len() > "https://".len() - 1 {
        Ok(())
    } else {
        Err(problem(
            &format!("/{key}"),
            format!("\"{url}\" is not an http:// or https:// URL"),
        ))
    }
}

/// Read one entry. The error's pointer is relative to the entry.
pub fn parse_entry(name: &str, raw: &Value) -> Result<ServerEntry, Problem> {
    if name.trim().is_empty() {
        return Err(problem("", "a server needs a non-empty name"));
    }
    let Some(obj) = raw.as_object() else {
        return Err(problem("", "must be an object with \"command\" or \"url\""));
    };
    Ok(ServerEntry {
        name: name.to_string(),
        transport: transport_of(obj)?,
        disabled: disabled_of(obj)?,
        description: opt_string(obj, "description")?,
        lifecycle: lifecycle_of(obj)?,
        startup_timeout: seconds(obj, "startupTimeout")?,
        call_timeout: seconds(obj, "callTimeout")?,
        max_call_time: seconds(obj, "maxCallTime")?,
        restart: restart(obj)?,
        dev: dev(obj)?,
        include_tools: match obj.get("includeTools") {
            None | Some(Value::Null) => None,
            Some(_) => Some(string_list(obj, "includeTools")?),
        },
        exclude_tools: first_list(obj, &["excludeTools", "disabledTools"])?,
        auto_approve: match obj.get("trust") {
            Some(Value::Bool(true)) => vec!["*".to_string()],
            Some(Value::Bool(false)) | None | Some(Value::Null) => {
                first_list(obj, &["autoApprove", "alwaysAllow"])?
            }
            Some(_) => return Err(problem("/trust", "must be true or false")),
        },
        scope: super::Scope::User,
        max_message_size: max_message_size_of(obj)?,
        trusted: true,
        oauth: oauth_of(obj)?,
        allow_insecure: match obj.get("allowInsecure") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(problem("/allowInsecure", "must be true or false")),
        },
        protocol: protocol_of(obj)?,
    })
}

/// How the server is reached: a command (stdio) or a URL (Streamable HTTP,
/// legacy SSE, or either when the entry does not say), by `type` (or
/// `transport`) in any dialect's spelling.
fn transport_of(obj: &Map<String, Value>) -> Result<Transport, Problem> {
    let kind = opt_string(obj, "type")?.or(opt_string(obj, "transport")?);
    let url_key = if obj.contains_key("url") {
        "url"
    } else {
        "serverUrl"
    };
    let url = opt_string(obj, url_key)?;
    let command = opt_string(obj, "command")?;
    let headers = || string_map(obj, "headers");
    let normalised = kind
        .as_deref()
        .map(|k| k.to_ascii_lowercase().replace(['-', '_'], ""));
    Ok(match (normalised.as_deref(), command, url) {
        (Some("stdio") | None, Some(command), _) => {
            if command.trim().is_empty() {
                return Err(problem("/command", "must not be empty"));
            }
            Transport::Stdio {
                command,
                args: string_list(obj, "args")?,
                env: string_map(obj, "env")?,
                cwd: opt_string(obj, "cwd")?,
            }
        }
        (Some("stdio"), None, _) => {
            return Err(problem("/command", "a stdio server needs a \"command\""));
        }
        (Some("http" | "streamablehttp"), _, Some(url)) => {
            check_url(&url, url_key)?;
            Transport::StreamableHttp {
                url,
                headers: headers()?,
            }
        }
        (Some("sse"), _, Some(url)) => {
            check_url(&url, url_key)?;
            Transport::Sse {
                url,
                headers: headers()?,
            }
        }
        (None, None, Some(url)) => {
            check_url(&url, url_key)?;
            Transport::RemoteAuto {
                url,
                headers: headers()?,
            }
        }
        (Some("http" | "streamablehttp" | "sse"), _, None) => {
            return Err(problem("/url", "a remote server needs a \"url\""));
        }
        (Some(other), _, _) => {
            let shown = kind.unwrap_or_else(|| other.to_string());
            return Err(problem(
                "/type",
                format!("unknown transport \"{shown}\": use \"stdio\", \"http\" or \"sse\""),
            ));
        }
        (None, None, None) => {
            return Err(problem(
                "",
                "needs \"command\" (a local server) or \"url\" (a remote server)",
            ));
        }
    })
}

/// Turned off: `disabled: true`, or (another dialect's) `enabled: false`.
fn disabled_of(obj: &Map<String, Value>) -> Result<bool, Problem> {
    match (obj.get("disabled"), obj.get("enabled")) {
        (Some(Value::Bool(d)), _) => Ok(*d),
        (Some(_), _) => Err(problem("/disabled", "must be true or false")),
        (None, Some(Value::Bool(e))) => Ok(!*e),
        (None, Some(_)) => Err(problem("/enabled", "must be true or false")),
        (None, None) => Ok(false),
    }
}

fn lifecycle_of(obj: &Map<String, Value>) -> Result<super::Lifecycle, Problem> {
    match opt_string(obj, "lifecycle")?.as_deref() {
        None | Some("singleton") => Ok(super::Lifecycle::Singleton),
        Some("transient") => Ok(super::Lifecycle::Transient),
        Some(other) => Err(problem(
            "/lifecycle",
            format!("unknown lifecycle \"{other}\": use \"singleton\" or \"transient\""),
        )),
    }
}

/// The largest message taken from the server, 1 KiB to 4 GiB.
fn max_message_size_of(obj: &Map<String, Value>) -> Result<Option<usize>, Problem> {
    match obj.get("maxMessageSize") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(b) if (1024..=4 << 30).contains(&b) => Ok(Some(b as usize)),
            _ => Err(problem(
                "/maxMessageSize",
                "must be a number of bytes between 1024 and 4294967296",
            )),
        },
        Some(_) => Err(problem("/maxMessageSize", "must be a number of bytes")),
    }
}

/// The OAuth client the entry brings (each field a string).
fn oauth_of(obj: &Map<String, Value>) -> Result<Option<super::OAuthClient>, Problem> {
    match obj.get("oauth") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => {
            let field = |key: &str| -> Result<Option<String>, Problem> {
                match o.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(v)) => Ok(Some(v.clone())),
                    Some(_) => Err(problem(&format!("/oauth/{key}"), "must be a string")),
                }
            };
            Ok(Some(super::OAuthClient {
                client_id: field("clientId")?,
                client_secret: field("clientSecret")?,
                scope: field("scope")?,
                client_metadata_url: field("clientMetadataUrl")?,
            }))
        }
        Some(_) => Err(problem(
            "/oauth",
            "must be an object: {\"clientId\", \"clientSecret\", \"scope\", \"clientMetadataUrl\"}",
        )),
    }
}

/// The protocol version the entry pins (or `auto`).
fn protocol_of(obj: &Map<String, Value>) -> Result<super::ProtocolPin, Problem> {
    match opt_string(obj, "protocolVersion")?.as_deref() {
        None | Some("auto") => Ok(super::ProtocolPin::Auto),
        Some("2025-11-25") => Ok(super::ProtocolPin::V2025_11_25),
        Some("2026-07-28") => Ok(super::ProtocolPin::V2026_07_28),
        Some(other) => Err(problem(
            "/protocolVersion",
            format!(
                "unknown protocol version \"{other}\": use \"2025-11-25\", \"2026-07-28\" or \"auto\""
            ),
        )),
    }
}

/// The list under the first of `keys` present (dialects name it differently).
fn first_list(obj: &Map<String, Value>, keys: &[&str]) -> Result<Vec<String>, Problem> {
    match keys.iter().find(|k| obj.contains_key(**k)) {
        Some(key) => string_list(obj, key),
        None => Ok(Vec::new()),
    }
}

/// `"dev": {"watch": GLOB | [GLOB, ...]}`; other keys of `dev` (VS Code's
/// `debug`) are left for the clients that read them.
fn dev(obj: &Map<String, Value>) -> Result<Option<super::DevSettings>, Problem> {
    let Some(dev) = obj.get("dev").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Some(dev) = dev.as_object() else {
        return Err(problem(
            "/dev",
            "must be an object such as {\"watch\": \"src/**/*.ts\"}",
        ));
    };
    let watch = match dev.get("watch") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(g)) => vec![g.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .map(|g| g.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| problem("/dev/watch", "must be a glob or a list of globs"))?,
        Some(_) => return Err(problem("/dev/watch", "must be a glob or a list of globs")),
    };
    for g in &watch {
        if let Err(e) = globset::Glob::new(g) {
            return Err(problem("/dev/watch", format!("\"{g}\" is not a glob: {e}")));
        }
    }
    Ok((!watch.is_empty()).then_some(super::DevSettings { watch }))
}

fn restart(obj: &Map<String, Value>) -> Result<Option<super::RestartPolicy>, Problem> {
    match obj.get("restart") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(enabled)) => Ok(Some(super::RestartPolicy {
            enabled: *enabled,
            initial_delay: None,
            max_delay: None,
        })),
        Some(Value::Object(policy)) => {
            let nested = |key: &str| {
                seconds(policy, key)
                    .map_err(|p| problem(&format!("/restart{}", p.pointer), p.message))
            };
            let enabled = match policy.get("enabled") {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(problem("/restart/enabled", "must be true or false")),
            };
            Ok(Some(super::RestartPolicy {
                enabled,
                initial_delay: nested("initialDelay")?,
                max_delay: nested("maxDelay")?,
            }))
        }
        Some(_) => Err(problem(
            "/restart",
            "must be false, true or {\"initialDelay\": seconds, \"maxDelay\": seconds}",
        )),
    }
}

fn seconds(obj: &Map<String, Value>, key: &str) -> Result<Option<std::time::Duration>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(s) if s > 0.0 && s <= 86_400.0 => Ok(Some(std::time::Duration::from_secs_f64(s))),
            _ => Err(problem(
                &format!("/{key}"),
                "must be a number of seconds between 0 and 86400",
            )),
        },
        Some(_) => Err(problem(&format!("/{key}"), "must be a number of seconds")),
    }
}
