//! The masker: every secret value an entry was started with, replaced by
//! the mask wherever text leaves the core.

use std::borrow::Cow;

use super::{Inner, MASK, TrafficLog};

/// The prefix of the rows the bridge records (`bridge ← CLIENT`).
pub const BRIDGE_ROWS: &str = "bridge ← ";

impl Inner {
    /// Every server's secrets (not the bridge's own rows'), longest first.
    pub(super) fn all_secrets(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .rings
            .iter()
            .filter(|(name, _)| !name.starts_with(BRIDGE_ROWS))
            .flat_map(|(_, r)| r.secrets.iter().cloned())
            .collect();
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        all.dedup();
        all
    }
}

/// Replace every secret value in `body` by the mask (the one masker's:
/// `workbench_mask`; `secrets` are already in their forms, longest first).
pub(super) fn mask(body: &mut String, secrets: &[String]) {
    for s in secrets {
        if body.contains(s.as_str()) {
            *body = body.replace(s.as_str(), MASK);
        }
    }
}

/// A message's text with the secrets masked, inside its JSON strings only
/// when it is JSON (`json`; see [`workbench_mask::Secrets::message`]).
pub(super) fn mask_message<'a>(text: &'a str, secrets: &[String], json: bool) -> Cow<'a, str> {
    if !secrets.iter().any(|s| text.contains(s.as_str())) {
        return Cow::Borrowed(text);
    }
    let set = workbench_mask::Secrets::new(secrets);
    match set.message(text, json) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(o) => Cow::Owned(o),
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
    /// not tied to one server (the log files, `mcpwb`'s output). Text that
    /// is JSON (`mcpwb --json`) is masked inside its strings only.
    pub fn mask_all(&self, text: &str) -> String {
        let inner = self.lock();
        let mut all: Vec<String> = inner
            .rings
            .values()
            .flat_map(|r| r.secrets.iter().cloned())
            .collect();
        drop(inner);
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let json = text.trim_start().starts_with(['{', '[']);
        mask_message(text, &all, json).into_owned()
    }

    /// Values that must never be shown for `server` (see
    /// [`crate::config::ServerEntry::secret_values`]); the credential inside
    /// `Bearer x` and JSON-escaped copies are added here.
    pub fn set_secrets(&self, server: &str, secrets: Vec<String>) {
        // Each value in its forms, longest first (the one masker's rule).
        let all = workbench_mask::Secrets::new(&secrets).values().to_vec();
        let mut inner = self.lock();
        inner.ring(server).secrets = all;
        // The bridge's rows carry every server's answers.
        let union = inner.all_secrets();
        for (name, ring) in inner.rings.iter_mut() {
            if name.starts_with(super::BRIDGE_ROWS) {
                ring.secrets = union.clone();
            }
        }
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
