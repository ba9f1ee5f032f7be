//! Tokens in the OS keychain, one record per entry (under the entry's own
//! prefix, as its secrets: a project's entry cannot read the user's).

use super::Tokens;
use crate::config::secrets::Keychain;

/// The keychain id of an entry's tokens (`owner`: its secrets' prefix).
pub fn id(owner: &str) -> String {
    format!("oauth/{owner}tokens")
}

pub fn load(keychain: &Keychain, owner: &str) -> Option<Tokens> {
    let text = keychain.get(&id(owner)).ok().flatten()?;
    serde_json::from_str(&text).ok()
}

pub fn save(keychain: &Keychain, owner: &str, tokens: &Tokens) -> crate::Result<()> {
    let text = serde_json::to_string(tokens).expect("tokens serialise");
    Ok(keychain.set(&id(owner), &text)?)
}

pub fn forget(keychain: &Keychain, owner: &str) -> crate::Result<()> {
    Ok(keychain.delete(&id(owner))?)
}
