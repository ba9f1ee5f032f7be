//! MCP Apps (the `io.modelcontextprotocol/ui` extension, 2026-01-26): the
//! UI resource a tool names, who may call a tool (`visibility`), and the
//! Content-Security-Policy a host puts around an App — built from what the
//! resource declares, never looser, the spec's restrictive default without
//! a declaration. Rendering is the callers' (the window; `mcpwb app` writes
//! the resolved App to a file).

use serde::Serialize;
use serde_json::{Value, json};

/// The extension's identifier, as the client declares it.
pub const UI_EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The one kind of App content the extension defines.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// What the client declares under `extensions[UI_EXTENSION_ID]`.
pub fn extension_settings() -> Value {
    json!({ "mimeTypes": [APP_MIME] })
}

/// The `ui://` resource a tool's results are shown with (`_meta.ui.resourceUri`,
/// or the deprecated flat `_meta["ui/resourceUri"]`).
pub fn resource_uri(tool: &Value) -> Option<&str> {
    let meta = &tool["_meta"];
    meta["ui"]["resourceUri"]
        .as_str()
        .or_else(|| meta["ui/resourceUri"].as_str())
        .filter(|u| u.starts_with("ui://"))
}

/// Who may call a tool: `visibility` (default both).
fn visibility(tool: &Value) -> Option<Vec<&str>> {
    tool["_meta"]["ui"]["visibility"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_str).collect())
}

/// Whether the model (the agent) sees the tool: not when its visibility
/// leaves out `"model"`.
pub fn visible_to_model(tool: &Value) -> bool {
    visibility(tool).is_none_or(|v| v.contains(&"model"))
}

/// Whether an App may call the tool: not when its visibility leaves out `"app"`.
pub fn visible_to_app(tool: &Value) -> bool {
    visibility(tool).is_none_or(|v| v.contains(&"app"))
}

/// Whether `host` (no port, no brackets) names this machine.
pub(crate) fn loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.to_ascii_lowercase().ends_with(".localhost")
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

/// Why a declared origin is refused, None when it is taken: only
/// `scheme://host[:port][/path]` with scheme http(s) or ws(s) and at most a
/// leading `*.` wildcard over two labels or more (`*.com` would be every
/// site of a top-level domain) — nothing a CSP would read as a keyword,
/// another directive or every host; never the webview's own hosts (nor a
/// wildcard that covers them, `*.localhost`), and this machine only for an
/// App whose server is on this machine itself.
fn origin_refused(source: &str, loopback_allowed: bool) -> Option<&'static str> {
    const SHAPE: &str = "not an origin (scheme://host[:port], http(s) or ws(s), at most a leading *.): a keyword, a bare scheme or * would allow more than one site";
    if origin_ok(source) {
        let rest = source.split_once("://").map_or("", |(_, r)| r);
        let host_port = rest.split('/').next().unwrap_or_default();
        let host = match host_port.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || p.parse::<u16>().is_ok() || p == "*" => h,
            _ => host_port,
        };
        let (wild, base) = match host.strip_prefix("*.") {
            Some(b) => (true, b),
            None => (false, host),
        };
        if wild && base.split('.').count() < 2 {
            return Some(
                "a wildcard over a single label (*.com) covers every site under it: name the sites",
            );
        }
        if loopback(base) || (wild && base.eq_ignore_ascii_case("localhost")) {
            return (!loopback_allowed).then_some(
                "this machine (localhost, 127.0.0.1, ::1): an App reaches this machine's services only when its own server runs here over HTTP",
            );
        }
        return None;
    }
    Some(SHAPE)
}

/// The shape check: see [`origin_refused`].
fn origin_ok(source: &str) -> bool {
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return false;
    }
    let host_port = rest.split('/').next().unwrap_or_default();
    let path = &rest[host_port.len()..];
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (host_port, None),
    };
    let wild = host.starts_with("*.");
    let host = host.strip_prefix("*.").unwrap_or(host);
    // The webview's own IPC and asset hosts are never an App's to reach,
    // nor a wildcard that covers them (`*.localhost`).
    if ["ipc.localhost", "tauri.localhost", "asset.localhost"]
        .iter()
        .any(|own| {
            host.eq_ignore_ascii_case(own)
                || (wild
                    && own
                        .to_ascii_lowercase()
                        .ends_with(&format!(".{}", host.to_ascii_lowercase())))
        })
    {
        return false;
    }
    let label_ok = |l: &str| {
        !l.is_empty() && l.len() <= 63 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    !host.is_empty()
        && host.split('.').all(label_ok)
        && port.is_none_or(|p| p == "*" || (!p.is_empty() && p.parse::<u16>().is_ok()))
        && path
            .chars()
            .all(|c| c.is_ascii_graphic() && !matches!(c, ';' | ',' | '\'' | '"'))
}

/// One declaration the host did not take, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    /// `connectDomains`, `resourceDomains`, ...
    pub field: String,
    pub value: String,
    pub why: String,
}

/// The CSP an App runs under and what of its declaration was not taken.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppPolicy {
    /// The header's value, directives separated by `; `.
    pub csp: String,
    /// The frame's Permission Policy (`allow` attribute): camera,
    /// microphone, geolocation, clipboard-write as declared.
    pub allow: String,
    pub refused: Vec<Refused>,
}

/// The policy for what a resource declares (`_meta.ui`; null: nothing).
pub fn policy(ui: &Value) -> AppPolicy {
    policy_for(ui, false)
}

/// The policy for what a resource declares, `server_here`: the App's
/// server itself runs on this machine over HTTP (its App may then reach
/// this machine; any other App may not).
pub fn policy_for(ui: &Value, server_here: bool) -> AppPolicy {
    let mut refused = Vec::new();
    let mut list = |field: &str| -> Vec<String> {
        let mut out = Vec::new();
        for v in ui["csp"][field].as_array().into_iter().flatten() {
            let why = match v.as_str() {
                Some(s) => origin_refused(s, server_here),
                None => Some("not a string"),
            };
            match why {
                None => out.push(v.as_str().unwrap_or_default().to_string()),
                Some(why) => refused.push(Refused {
                    field: field.into(),
                    value: v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string()),
                    why: why.into(),
                }),
            }
        }
        out
    };
    let connect = list("connectDomains");
    let resource = list("resourceDomains");
    let frame = list("frameDomains");
    let base = list("baseUriDomains");
    let with = |head: &str, extra: &[String]| {
        let mut s = head.to_string();
        for e in extra {
            s.push(' ');
            s.push_str(e);
        }
        s
    };
    let directives = [
        "default-src 'none'".to_string(),
        with("script-src 'self' 'unsafe-inline'", &resource),
        with("style-src 'self' 'unsafe-inline'", &resource),
        with("img-src 'self' data:", &resource),
        with("font-src 'self'", &resource),
        with("media-src 'self' data:", &resource),
        if connect.is_empty() {
            "connect-src 'none'".to_string()
        } else {
            with("connect-src", &connect)
        },
        if frame.is_empty() {
            "frame-src 'none'".to_string()
        } else {
            with("frame-src", &frame)
        },
        "object-src 'none'".to_string(),
        if base.is_empty() {
            "base-uri 'self'".to_string()
        } else {
            with("base-uri", &base)
        },
        "form-action 'none'".to_string(),
    ];
    let permissions = &ui["permissions"];
    let allow: Vec<&str> = [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ]
    .into_iter()
    .filter(|(key, _)| permissions[key].is_object())
    .map(|(_, feature)| feature)
    .collect();
    AppPolicy {
        csp: directives.join("; "),
        allow: allow.join("; "),
        refused,
    }
}

/// An App resolved: its HTML and the policy it runs under.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppResource {
    pub server: String,
    pub uri: String,
    pub html: String,
    /// `_meta` of the content as the server sent it (or of the listed
    /// resource, where the content has none).
    pub meta: Value,
    pub policy: AppPolicy,
    /// `_meta.ui.prefersBorder` as declared.
    pub prefers_border: Option<bool>,
}

/// `html` with `tag` put first in its `<head>` (after the doctype, before
/// anything of the App's): the host's probe runs before the App's scripts.
pub fn inject_first(html: &str, tag: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let after = |open: &str| open_tag_end(&lower, open);
    let at = after("<head")
        .or_else(|| after("<html"))
        .or_else(|| after("<!doctype"))
        .unwrap_or(0);
    let mut out = String::with_capacity(html.len() + tag.len());
    out.push_str(&html[..at]);
    out.push_str(tag);
    out.push_str(&html[at..]);
    out
}

/// Where the first real `open` tag of `lower` ends (just past its `>`):
/// not one inside a comment (`<!-- <head> -->` would hide what goes after
/// it), nor a longer name (`<header>` for `<head`); quotes in its
/// attributes may hold `>`.
fn open_tag_end(lower: &str, open: &str) -> Option<usize> {
    let bytes = lower.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if lower[i..].starts_with("<!--") {
            i = lower[i + 4..]
                .find("-->")
                .map_or(bytes.len(), |e| i + 4 + e + 3);
            continue;
        }
        if lower[i..].starts_with(open) {
            let next = bytes.get(i + open.len()).copied();
            let whole = open == "<!doctype"
                || matches!(
                    next,
                    Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') | None
                );
            if whole {
                let mut j = i + open.len();
                let mut quote: Option<u8> = None;
                while j < bytes.len() {
                    match (quote, bytes[j]) {
                        (None, b'"' | b'\'') => quote = Some(bytes[j]),
                        (Some(q), c) if c == q => quote = None,
                        (None, b'>') => return Some(j + 1),
                        _ => {}
                    }
                    j += 1;
                }
                return None;
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_declaration_gets_the_spec_s_restrictive_default() {
        let p = policy(&Value::Null);
        for d in [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'none'",
            "frame-src 'none'",
            "object-src 'none'",
            "base-uri 'self'",
        ] {
            assert!(p.csp.contains(d), "{d} in {}", p.csp);
        }
        assert!(p.allow.is_empty() && p.refused.is_empty());
    }

    #[test]
    fn declared_origins_are_added_where_they_belong_and_nothing_wider() {
        let ui = json!({ "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443", "*", "https:", "'unsafe-eval'", "https://x.com; script-src *", "http://ipc.localhost", "ipc://localhost"],
            "resourceDomains": ["https://*.cdn.example.net"],
            "frameDomains": ["https://www.youtube.com"]
        }, "permissions": { "camera": {}, "clipboardWrite": {} } });
        let p = policy(&ui);
        assert!(
            p.csp
                .contains("connect-src https://api.example.com wss://live.example.com:8443;"),
            "{}",
            p.csp
        );
        assert!(
            p.csp
                .contains("script-src 'self' 'unsafe-inline' https://*.cdn.example.net")
        );
        assert!(p.csp.contains("frame-src https://www.youtube.com"));
        assert!(!p.csp.contains("unsafe-eval") && !p.csp.contains(" * "));
        let refused: Vec<&str> = p.refused.iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            refused,
            [
                "*",
                "https:",
                "'unsafe-eval'",
                "https://x.com; script-src *",
                "http://ipc.localhost",
                "ipc://localhost"
            ]
        );
        assert_eq!(p.allow, "camera; clipboard-write");
    }

    #[test]
    fn wildcards_over_the_webviews_hosts_a_single_label_or_this_machine_are_refused() {
        let ui = json!({ "csp": { "connectDomains": [
            "http://*.localhost", "https://*.com", "http://localhost:3000",
            "http://127.0.0.1:8080", "ws://[::1]:9000", "http://0.0.0.0",
            "https://*.example.com", "https://api.example.com"
        ] } });
        let p = policy(&ui);
        let refused: Vec<&str> = p.refused.iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            refused,
            [
                "http://*.localhost",
                "https://*.com",
                "http://localhost:3000",
                "http://127.0.0.1:8080",
                "ws://[::1]:9000",
                "http://0.0.0.0"
            ]
        );
        assert!(
            p.csp
                .contains("connect-src https://*.example.com https://api.example.com;"),
            "{}",
            p.csp
        );
        // An App whose server runs here may reach this machine; never the
        // webview's own hosts (an IPv6 literal is not taken at all).
        let here = policy_for(&ui, true);
        let refused: Vec<&str> = here.refused.iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            refused,
            ["http://*.localhost", "https://*.com", "ws://[::1]:9000"],
            "{refused:?}"
        );
    }

    #[test]
    fn the_probe_goes_first_in_the_head() {
        let tag = "<script src=\"/probe.js\"></script>";
        assert_eq!(
            inject_first("<!DOCTYPE html><HTML lang=en><Head><script>x</script>", tag),
            format!("<!DOCTYPE html><HTML lang=en><Head>{tag}<script>x</script>")
        );
        assert_eq!(
            inject_first("<!doctype html><p>hi", tag),
            format!("<!doctype html>{tag}<p>hi")
        );
        assert_eq!(inject_first("<p>hi", tag), format!("{tag}<p>hi"));
        // A head in a comment hides nothing; a <header> is not a <head>.
        let sly = "<!doctype html><!-- <head> --><html><head data-x=\"a>b\"><header>";
        let made = inject_first(sly, tag);
        assert_eq!(
            made,
            format!("<!doctype html><!-- <head> --><html><head data-x=\"a>b\">{tag}<header>")
        );
        let only_header = "<header>x</header>";
        assert_eq!(
            inject_first(only_header, tag),
            format!("{tag}{only_header}")
        );
    }

    #[test]
    fn a_tool_names_its_app_and_who_may_call_it() {
        let t = json!({ "name": "t", "_meta": { "ui": { "resourceUri": "ui://s/app", "visibility": ["app"] } } });
        assert_eq!(resource_uri(&t), Some("ui://s/app"));
        assert!(!visible_to_model(&t) && visible_to_app(&t));
        let flat = json!({ "_meta": { "ui/resourceUri": "ui://s/old" } });
        assert_eq!(resource_uri(&flat), Some("ui://s/old"));
        assert!(visible_to_model(&flat) && visible_to_app(&flat));
        let not_ui = json!({ "_meta": { "ui": { "resourceUri": "https://x" } } });
        assert_eq!(resource_uri(&not_ui), None);
    }
}
