//! A server that refuses a request for want of sign-in or scope: `401` with
//! a Bearer challenge (no or stale token) or `403 insufficient_scope` (the
//! token lacks a scope). The HTTP transports note it per server, in the
//! traffic view and here, so the window can offer to sign in with the wider
//! scope and `mcpwb --sign-in` can re-authorise and try again.

use serde::Serialize;

use super::Tokens;
use super::discover::{Challenge, parse_challenge};

/// The last refusal a server gave.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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

    /// Whether signing in again could help: a 401 always may; a 403 only
    /// when it names a scope the stored sign-in did not ask for (else the
    /// server would refuse again — re-authorising in a loop helps nobody).
    pub fn worth_signing_in(&self, stored: Option<&Tokens>) -> bool {
        if !self.wants_scope() {
            return true;
        }
        let have: Vec<&str> = stored
            .and_then(|t| t.scope.as_deref())
            .map(|s| s.split_whitespace().collect())
            .unwrap_or_default();
        match &self.scope {
            Some(wanted) => wanted.split_whitespace().any(|s| !have.contains(&s)),
            None => stored.is_none(),
        }
    }

    /// The scopes to ask for now: what was granted before and what the
    /// server asks for, together (SEP-2350: re-authorising keeps what the
    /// earlier grant had).
    pub fn widened(&self, stored: Option<&Tokens>) -> Option<String> {
        let mut scopes: Vec<&str> = Vec::new();
        let before = stored.and_then(|t| t.scope.as_deref()).unwrap_or("");
        for s in before
            .split_whitespace()
            .chain(self.scope.as_deref().unwrap_or("").split_whitespace())
        {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(scope: &str) -> Tokens {
        Tokens {
            access_token: "a".into(),
            refresh_token: None,
            expires_at: None,
            scope: Some(scope.into()),
            issuer: "https://as".into(),
            token_endpoint: "https://as/token".into(),
            revocation_endpoint: None,
            resource: "https://r/mcp".into(),
            client_id: "c".into(),
            client_secret: None,
            auth_method: "none".into(),
            refreshed_at: None,
        }
    }

    #[test]
    fn a_step_up_keeps_what_was_granted_and_adds_what_is_asked() {
        let r = Refusal::new(
            403,
            Some("tools/call".into()),
            r#"Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="https://r/.well-known/oauth-protected-resource""#,
        );
        assert!(r.wants_scope());
        let old = tokens("mcp:basic offline_access");
        assert!(r.worth_signing_in(Some(&old)));
        assert_eq!(
            r.widened(Some(&old)).as_deref(),
            Some("mcp:basic offline_access mcp:write")
        );
        assert!(r.describe().contains("tools/call"), "{}", r.describe());
    }

    #[test]
    fn a_scope_already_granted_is_not_asked_for_again() {
        let r = Refusal::new(
            403,
            None,
            r#"Bearer error="insufficient_scope", scope="mcp:admin""#,
        );
        assert!(!r.worth_signing_in(Some(&tokens("mcp:admin"))));
        assert!(r.worth_signing_in(Some(&tokens("mcp:basic"))));
        // A 401 may always be answered by signing in.
        let r = Refusal::new(401, None, r#"Bearer scope="mcp:admin""#);
        assert!(r.worth_signing_in(Some(&tokens("mcp:admin"))));
    }
}
