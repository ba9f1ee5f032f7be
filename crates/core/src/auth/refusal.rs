//! What a refusal means for a sign-in: whether signing in again could help,
//! and the scopes to ask for then (the refusal itself — a server's 401/403
//! as the HTTP transports note it — is `crate::challenge::Refusal`, below
//! the traffic log that keeps it).

use super::Tokens;
pub use crate::challenge::Refusal;

/// A refusal weighed against what the stored sign-in was granted.
pub trait Grants {
    /// Whether signing in again could help: a 401 always may; a 403 only
    /// when it names a scope the stored sign-in did not ask for (else the
    /// server would refuse again — re-authorising in a loop helps nobody).
    fn worth_signing_in(&self, stored: Option<&Tokens>) -> bool;
    /// The scopes to ask for now: what was granted before and what the
    /// server asks for, together (SEP-2350: re-authorising keeps what the
    /// earlier grant had).
    fn widened(&self, stored: Option<&Tokens>) -> Option<String>;
}

impl Grants for Refusal {
    fn worth_signing_in(&self, stored: Option<&Tokens>) -> bool {
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

    fn widened(&self, stored: Option<&Tokens>) -> Option<String> {
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
            dpop: None,
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
