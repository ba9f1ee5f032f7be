//! How the bridge names what it serves, reversibly: tools and prompts as
//! the catalog qualifies tools (`server__name`), resources and templates as
//! `mcpwb://SERVER/ORIGINAL` (the server's name percent-encoded, the
//! original URI or template verbatim after the slash, so template variables
//! still expand and the caller's URI routes back). A skill's files
//! (`skill://PATH`, SEP-2640) stay skills: `skill://SERVER/PATH`, so the
//! skill's name is still the segment before `SKILL.md`.

use std::collections::{HashMap, HashSet};

use workbench_core::catalog::qualify;

pub const SCHEME: &str = "mcpwb://";

/// The scheme of skills' files (SEP-2640).
pub const SKILL_SCHEME: &str = "skill://";

fn encode_server(server: &str) -> String {
    let mut out = String::new();
    for b in server.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char);
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn decode_server(part: &str) -> Option<String> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = part.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The bridge's URI for `server`'s resource (or template) `uri`.
pub fn resource_uri(server: &str, uri: &str) -> String {
    match uri.strip_prefix(SKILL_SCHEME) {
        Some(path) => format!("{SKILL_SCHEME}{}/{path}", encode_server(server)),
        None => format!("{SCHEME}{}/{uri}", encode_server(server)),
    }
}

/// The server and its own URI for a bridge URI.
pub fn route_resource(uri: &str) -> Option<(String, String)> {
    if let Some(rest) = uri.strip_prefix(SKILL_SCHEME) {
        let (server, path) = rest.split_once('/')?;
        return Some((decode_server(server)?, format!("{SKILL_SCHEME}{path}")));
    }
    let rest = uri.strip_prefix(SCHEME)?;
    let (server, original) = rest.split_once('/')?;
    Some((decode_server(server)?, original.to_string()))
}

/// Qualified names of every (server, name) pair, and the way back.
#[derive(Default)]
pub struct Names {
    forward: HashMap<(String, String), String>,
    back: HashMap<String, (String, String)>,
}

impl Names {
    /// Name each pair in order, as the catalog names tools.
    pub fn of<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Names {
        let mut taken = HashSet::new();
        let mut names = Names::default();
        for (server, name) in pairs {
            let q = qualify(server, name, &taken);
            taken.insert(q.clone());
            names
                .forward
                .insert((server.to_string(), name.to_string()), q.clone());
            names.back.insert(q, (server.to_string(), name.to_string()));
        }
        names
    }

    /// Each pair under its own name (one server's items).
    pub fn bare<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Names {
        let mut names = Names::default();
        for (server, name) in pairs {
            let key = (server.to_string(), name.to_string());
            names.forward.insert(key.clone(), name.to_string());
            names.back.insert(name.to_string(), key);
        }
        names
    }

    pub fn name(&self, server: &str, name: &str) -> Option<&str> {
        self.forward
            .get(&(server.to_string(), name.to_string()))
            .map(String::as_str)
    }

    pub fn route(&self, qualified: &str) -> Option<&(String, String)> {
        self.back.get(qualified)
    }
}

/// `*` matches any run of characters; everything else is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_route_back_whatever_the_server_is_called() {
        for (server, uri) in [
            ("files", "file:///etc/hosts"),
            ("my server/2", "demo://items/{id}"),
            ("ünï", "https://x.example/a?b=c#d"),
        ] {
            let ours = resource_uri(server, uri);
            assert!(ours.starts_with("mcpwb://"));
            assert_eq!(
                route_resource(&ours),
                Some((server.to_string(), uri.to_string()))
            );
        }
        assert_eq!(route_resource("file:///x"), None);
    }

    #[test]
    fn names_route_back_and_globs_match() {
        let names = Names::of([("a", "greet"), ("b", "greet"), ("a b", "x.y")]);
        assert_eq!(names.name("a", "greet"), Some("a__greet"));
        let odd = names.name("a b", "x.y").unwrap().to_string();
        assert_eq!(names.route(&odd), Some(&("a b".into(), "x.y".into())));
        assert!(glob("a__*", "a__greet"));
        assert!(glob("*greet", "b__greet"));
        assert!(glob("*__get_*", "gh__get_issue"));
        assert!(!glob("a__*", "b__greet"));
        assert!(glob("echo", "echo") && !glob("echo", "echo2"));
    }
}
