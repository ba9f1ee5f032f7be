//! What a server's refusal said: a `WWW-Authenticate: Bearer ...` challenge
//! and the refusal (401/403) the HTTP transports note per server. Below
//! `traffic` (which keeps the last refusal of each server) and `auth`
//! (which answers it with a sign-in).

use serde::Serialize;

/// The parameters of a `WWW-Authenticate: Bearer ...` challenge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

/// Read a Bearer challenge (`key="value"` or `key=token`, comma separated).
pub fn parse_challenge(header: &str) -> Challenge {
    let mut c = Challenge::default();
    let rest = header
        .trim()
        .strip_prefix("Bearer")
        .or_else(|| header.trim().strip_prefix("bearer"))
        .unwrap_or(header);
    let mut s = rest.trim();
    while !s.is_empty() {
        let Some((key, after)) = s.split_once('=') else {
            break;
        };
        let key = key
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"').unwrap_or(quoted.len());
            (
                quoted[..end].to_string(),
                quoted.get(end + 1..).unwrap_or(""),
            )
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        match key.as_str() {
            "resource_metadata" => c.resource_metadata = Some(value),
            "scope" => c.scope = Some(value),
            "error" => c.error = Some(value),
            _ => {}
        }
        s = next.trim_start().trim_start_matches(',').trim_start();
    }
    c
}

/// The last refusal a server gave.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Refusal {
    /// 401 or 403.
    pub status: u16,
    /// The refused request's method (`tools/call`), when it was one.
    pub method: Option<String>,
    /// The `WWW-Authenticate` header as sent.
    pub header: String,
    /// The scopes the challenge names.
    pub scope: Option<String>,
    /// The challenge's `error` (`invalid_token`, `insufficient_scope`).
    pub error: Option<String>,
}

impl Refusal {
    pub fn new(status: u16, method: Option<String>, header: &str) -> Refusal {
        let c = parse_challenge(header);
        Refusal {
            status,
            method,
            header: header.to_string(),
            scope: c.scope,
            error: c.error,
        }
    }

    /// The challenge, for a sign-in that starts from it (no probe).
    pub fn challenge(&self) -> Challenge {
        parse_challenge(&self.header)
    }

    /// Whether the server wants more scope than the token has.
    pub fn wants_scope(&self) -> bool {
        self.status == 403 || self.error.as_deref() == Some("insufficient_scope")
    }

    /// What the traffic view says.
    pub fn describe(&self) -> String {
        let what = self.method.as_deref().unwrap_or("a request");
        let scope = self
            .scope
            .as_deref()
            .map(|s| format!(" (scope \"{s}\")"))
            .unwrap_or_default();
        if self.wants_scope() {
            format!(
                "the server refused {what} with HTTP {}: the token lacks a scope{scope}; signing in again with it widens the grant",
                self.status
            )
        } else {
            format!(
                "the server refused {what} with HTTP {}: it asks for sign-in{scope}",
                self.status
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_is_read_quoted_or_not() {
        let c = parse_challenge(
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://r.example/.well-known/oauth-protected-resource""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
        assert!(
            c.resource_metadata
                .unwrap()
                .ends_with("oauth-protected-resource")
        );
        let c = parse_challenge("Bearer realm=mcp, scope=read");
        assert_eq!(c.scope.as_deref(), Some("read"));
    }
}
