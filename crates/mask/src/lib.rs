//! The one masker. Every text the workbench writes out — the traffic log and
//! its exports, a tapped session kept and exported (JSON Lines, HAR), the
//! History, suites' snapshots, reports and JUnit, traces' error texts — has
//! its secrets replaced by [`MASK`] through [`Secrets`]. What counts as a
//! secret is said here once: the values an entry names as credentials (its
//! `${secret:…}`, credential-named env and header values), the credentials a
//! URL carries ([`url_secrets`]: its password, query values named like
//! credentials), and the values of credential headers ([`header_secrets`])
//! wherever they reappear — in a body a server echoed, in a URL, in a path.
//! Short and common values are never secrets ([`maskable`]): masking `true`
//! would break every JSON text it touches.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::borrow::Cow;

use serde_json::Value;

/// What a secret is replaced by.
pub const MASK: &str = "••••••";

/// Values never worth masking: too short to be a credential, or words and
/// numbers that are everywhere in JSON and logs (masking `true` would turn
/// every `true` in the output into the mask).
pub fn maskable(value: &str) -> bool {
    let v = value.trim();
    if v.chars().count() < 6 || v == MASK {
        return false;
    }
    const COMMON: &[&str] = &[
        "enabled",
        "disabled",
        "production",
        "development",
        "staging",
        "localhost",
        "warning",
        "verbose",
        "default",
        "http://localhost",
        "https://localhost",
    ];
    let lower = v.to_ascii_lowercase();
    if COMMON.contains(&lower.as_str()) {
        return false;
    }
    // A short number (a port, a count, a timeout) is not a secret.
    !(v.len() < 10
        && v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-'))
}

/// Whether a name (an env variable, a header, a query parameter) says its
/// value is a credential: `…TOKEN`, `api_key`, `X-Api-Key`, `sig`, ….
pub fn sounds_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "token",
        "key",
        "secret",
        "pass",
        "auth",
        "credential",
        "session",
        "cookie",
        "sig",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Headers whose values are credentials.
pub fn secret_header(name: &str) -> bool {
    // A header map's names are lower case already: no copy for them.
    let name: std::borrow::Cow<'_, str> = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        name.to_ascii_lowercase().into()
    } else {
        name.into()
    };
    matches!(
        name.as_ref(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || ["token", "secret", "api-key", "apikey", "password"]
        .iter()
        // A header's name is short: a plain scan, where `str::contains`
        // set up a searcher for each word (the HTTP tap asks for every
        // header of every exchange: 1,100 instructions a header).
        .any(|w| {
            name.as_bytes()
                .windows(w.len())
                .any(|at| at == w.as_bytes())
        })
}

/// The secrets a header carries: the whole value of a credential header,
/// the credential after its scheme (`Bearer x`), each cookie's value.
pub fn header_secrets(name: &str, value: &str) -> Vec<String> {
    if !secret_header(name) {
        return Vec::new();
    }
    let mut out = vec![value.trim().to_string()];
    let lower = name.to_ascii_lowercase();
    if lower == "cookie" || lower == "set-cookie" {
        for part in value.split(';') {
            if let Some((_, v)) = part.split_once('=') {
                out.push(v.trim().to_string());
            }
        }
    }
    out.retain(|v| maskable(v));
    out
}

fn decoded(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// A query's pairs as written (not decoded), in order.
fn pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// The credentials `url` carries: its password (or a lone user name, the
/// way tokens are often given), and the values of query parameters named
/// like credentials (`api_key`, `key`, `token`, `access_token`, `sig`, …),
/// each as written and decoded. Works on a path with a query too.
pub fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(u) = url::Url::parse(url) {
        let user = u.password().unwrap_or(u.username());
        out.extend([user.to_string(), decoded(user)]);
    }
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split_once('#').map_or(query, |(q, _)| q);
    for (k, v) in pairs(query) {
        if sounds_secret(&decoded(k)) {
            out.extend([v.to_string(), decoded(v)]);
        }
    }
    out.retain(|v| maskable(v));
    out.dedup();
    out
}

/// `url` (or a path with a query) with the credentials it carries masked:
/// the password, and each credential-named query value.
pub fn mask_url(url: &str) -> String {
    let secrets = url_secrets(url);
    if secrets.is_empty() {
        return url.to_string();
    }
    let (head, query) = match url.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (url, None),
    };
    let mut out = Secrets::new(&secrets).text(head).into_owned();
    if let Some(query) = query {
        let (query, fragment) = match query.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (query, None),
        };
        let masked: Vec<String> = pairs(query)
            .map(|(k, v)| {
                if sounds_secret(&decoded(k)) && maskable(&decoded(v)) {
                    format!("{k}={MASK}")
                } else if v.is_empty() && !query.contains(&format!("{k}=")) {
                    k.to_string()
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        out.push('?');
        out.push_str(&masked.join("&"));
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(f);
        }
    }
    out
}

/// The values to mask, each in the forms it appears in (as given, the
/// credential inside a scheme such as `Bearer x`, JSON-escaped), longest
/// first so a value is masked whole before a part of it. Short and common
/// values are left out ([`maskable`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// The secrets among `values`.
    pub fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Secrets {
        let mut s = Secrets::default();
        for v in values {
            s.add(v.as_ref());
        }
        s
    }

    /// Add a value (in its forms); false when it was not taken (not
    /// maskable, or known already).
    pub fn add(&mut self, value: &str) -> bool {
        let mut forms = vec![value];
        // The credential inside a scheme ("Bearer x", "Basic x", "token x").
        if let Some((scheme, rest)) = value.split_once(' ')
            && !scheme.is_empty()
            && scheme.chars().all(|c| c.is_ascii_alphabetic())
        {
            forms.push(rest.trim());
        }
        let mut added = false;
        for form in forms {
            let escaped = serde_json::to_string(form)
                .map(|j| j[1..j.len() - 1].to_string())
                .unwrap_or_default();
            for f in [form.to_string(), escaped] {
                if maskable(&f) && !self.values.contains(&f) {
                    self.values.push(f);
                    added = true;
                }
            }
        }
        if added {
            self.values.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
        added
    }

    /// Add every value of `other`.
    pub fn extend(&mut self, other: &Secrets) {
        let before = self.values.len();
        for v in &other.values {
            if !self.values.contains(v) {
                self.values.push(v.clone());
            }
        }
        if self.values.len() != before {
            self.values.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// The values, longest first.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret masked (borrowed when none was in it).
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.values.iter().any(|s| text.contains(s.as_str())) {
            return Cow::Borrowed(text);
        }
        let mut out = text.to_string();
        for s in &self.values {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), MASK);
            }
        }
        Cow::Owned(out)
    }

    /// A message's text with the secrets masked — inside its JSON strings
    /// only when it is JSON (`json`): a value that also appears as JSON
    /// structure (a key's quote, a number) is left there, so the text stays
    /// the JSON it was. Borrowed when there was nothing to mask.
    pub fn message<'a>(&self, text: &'a str, json: bool) -> Cow<'a, str> {
        if !self.values.iter().any(|s| text.contains(s.as_str())) {
            return Cow::Borrowed(text);
        }
        if !json {
            return self.text(text);
        }
        // Walk the string literals: `"` opens and closes one, `\` escapes
        // the next byte inside one. Their contents are masked (the secrets
        // are kept in their JSON-escaped form too).
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let (mut i, mut from) = (0, 0);
        while i < bytes.len() {
            if bytes[i] != b'"' {
                i += 1;
                continue;
            }
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(bytes.len());
            out.push_str(&text[from..start]);
            out.push_str(&self.text(&text[start..end]));
            from = end;
            i = end + 1;
        }
        out.push_str(&text[from.min(text.len())..]);
        Cow::Owned(out)
    }

    /// `value` with the secrets masked inside its strings (never across
    /// JSON structure: it stays valid JSON of the same shape).
    pub fn json(&self, value: &mut Value) {
        if self.values.is_empty() {
            return;
        }
        match value {
            Value::String(s) => {
                if let Cow::Owned(m) = self.text(s) {
                    *s = m;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.json(i)),
            Value::Object(map) => map.values_mut().for_each(|i| self.json(i)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_that_carries_a_credential_is_known_by_its_name_in_any_case() {
        for name in [
            "authorization",
            "Proxy-Authorization",
            "Cookie",
            "set-cookie",
            "X-API-Key",
            "x-apikey",
            "mcp-workbench-token",
            "X-Client-Secret",
            "db-password",
        ] {
            assert!(secret_header(name), "{name}");
        }
        for name in [
            "content-type",
            "Accept",
            "mcp-session-id",
            "x-api",
            "tok",
            "",
        ] {
            assert!(!secret_header(name), "{name}");
        }
    }

    #[test]
    fn a_urls_credentials_are_found_and_masked_and_nothing_else() {
        let url = "https://user:p%40ssw0rd-long@api.example/mcp?api_key=sk_live_QUERYSECRET&region=eu-west-1&sig=abcdef123456";
        let found = url_secrets(url);
        assert!(
            found.contains(&"sk_live_QUERYSECRET".to_string()),
            "{found:?}"
        );
        assert!(found.contains(&"p@ssw0rd-long".to_string()), "{found:?}");
        assert!(found.contains(&"abcdef123456".to_string()), "{found:?}");
        assert!(!found.iter().any(|f| f == "eu-west-1"), "{found:?}");
        let masked = mask_url(url);
        assert!(
            !masked.contains("QUERYSECRET")
                && !masked.contains("ssw0rd")
                && !masked.contains("abcdef123456"),
            "{masked}"
        );
        assert!(
            masked.contains("region=eu-west-1") && masked.contains("api.example/mcp"),
            "{masked}"
        );
        // A path with a query, as a tap sees it.
        assert_eq!(
            mask_url("/mcp?token=abcdefghijk&x=1"),
            format!("/mcp?token={MASK}&x=1")
        );
        assert_eq!(mask_url("/mcp"), "/mcp");
    }

    #[test]
    fn a_credential_header_gives_its_value_its_token_and_its_cookies() {
        let s = Secrets::new(header_secrets(
            "Authorization",
            "Bearer host_bearer_SECRETVALUE",
        ));
        let echoed = r#"{"text":"your auth was Bearer host_bearer_SECRETVALUE"}"#;
        assert!(!s.message(echoed, true).contains("SECRETVALUE"));
        let c = header_secrets("Cookie", "sid=abcdef0123456; theme=dark");
        assert!(
            c.contains(&"abcdef0123456".to_string()) && !c.contains(&"dark".to_string()),
            "{c:?}"
        );
        assert!(header_secrets("Content-Type", "application/json").is_empty());
    }

    #[test]
    fn masking_keeps_json_its_shape_and_leaves_common_values_alone() {
        let s = Secrets::new(["true", "8080", "a\"quoted\"secret"]);
        assert_eq!(s.values(), ["a\\\"quoted\\\"secret", "a\"quoted\"secret"]);
        let text = r#"{"ok":true,"port":8080,"v":"a\"quoted\"secret"}"#;
        let masked = s.message(text, true);
        assert_eq!(masked, format!(r#"{{"ok":true,"port":8080,"v":"{MASK}"}}"#));
        assert!(serde_json::from_str::<Value>(&masked).is_ok());
    }
}
