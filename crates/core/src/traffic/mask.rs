//! The masker: every secret value an entry was started with, replaced by
//! the mask wherever text leaves the core.

use super::{MASK, TrafficLog};

/// Replace every secret value in `body` by the mask.
pub(super) fn mask(body: &mut String, secrets: &[String]) {
    for s in secrets {
        if body.contains(s.as_str()) {
            *body = body.replace(s.as_str(), MASK);
        }
    }
}

impl TrafficLog {
    /// `text` with `server`'s secret values masked: for what leaves the core
    /// other than traffic (failure reasons, server log messages).
    pub fn mask_text(&self, server: &str, text: &str) -> String {
        let mut out = text.to_string();
        if let Some(ring) = self.lock().rings.get(server) {
            mask(&mut out, &ring.secrets);
        }
        out
    }

    /// The values masked for `server` (for a caller that masks many
    /// things of one server without taking the log's lock each time).
    pub fn secrets_of(&self, server: &str) -> Vec<String> {
        self.lock()
            .rings
            .get(server)
            .map(|r| r.secrets.clone())
            .unwrap_or_default()
    }

    /// `text` with every server's secret values masked: for text that is
    /// not tied to one server (the log files, `mcpwb`'s output).
    pub fn mask_all(&self, text: &str) -> String {
        let mut out = text.to_string();
        let inner = self.lock();
        let mut all: Vec<&String> = inner.rings.values().flat_map(|r| &r.secrets).collect();
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for s in all {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), MASK);
            }
        }
        out
    }

    /// Values that must never be shown for `server` (see
    /// [`crate::config::ServerEntry::secret_values`]); the credential inside
    /// `Bearer x` and JSON-escaped copies are added here.
    pub fn set_secrets(&self, server: &str, secrets: Vec<String>) {
        let mut all: Vec<String> = Vec::new();
        let mut add = |s: &str| {
            if s.len() >= 4 && !all.iter().any(|a| a == s) {
                all.push(s.to_string());
            }
        };
        for s in &secrets {
            let mut forms = vec![s.as_str()];
            // The credential inside a scheme ("Bearer x", "Basic x", "token x").
            if let Some((scheme, rest)) = s.split_once(' ')
                && !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphabetic())
            {
                forms.push(rest.trim());
            }
            for f in forms {
                add(f);
                // As it appears inside JSON text (quotes, backslashes escaped).
                if let Ok(json) = serde_json::to_string(f) {
                    add(&json[1..json.len() - 1]);
                }
            }
        }
        // Longest first: a value is masked whole before a part of it.
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.lock().ring(server).secrets = all;
    }
}

/// `value` with `secrets` masked inside its strings (never across JSON
/// structure: the value stays valid JSON of the same shape).
pub fn mask_json(value: &mut serde_json::Value, secrets: &[String]) {
    if secrets.is_empty() {
        return;
    }
    match value {
        serde_json::Value::String(s) => mask(s, secrets),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| mask_json(i, secrets)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|i| mask_json(i, secrets)),
        _ => {}
    }
}

/// `text` with `secrets` masked.
pub fn mask_str(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    mask(&mut out, secrets);
    out
}
