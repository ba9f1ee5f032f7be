//! Every HTTP client the workbench makes (to a server, its OAuth endpoints,
//! the Registry, an OTLP collector, the tap's upstream, an LLM provider)
//! is made here, or after [`ready`]: reqwest over rustls with ring as
//! rustls's crypto.
//!
//! reqwest is built without a crypto provider of its own, so building a
//! client panics until one is installed for the process; [`builder`]
//! installs ring first (once). A library that builds its client inside
//! (genai's `Client::new`, rmcp's `StreamableHttpClientTransport::
//! from_config`) is called after [`ready`], or handed a client made here.
//! The house rules hold every other crate to this.
#![forbid(unsafe_code)]

use std::sync::Once;

/// Install ring as the process's TLS crypto, once. A provider installed
/// before (by whoever embeds us) is kept.
pub fn ready() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder, the process's TLS ready.
pub fn builder() -> reqwest::ClientBuilder {
    ready();
    reqwest::Client::builder()
}

/// A client with reqwest's defaults (what `reqwest::Client::new` makes),
/// or why it could not be made.
pub fn client() -> reqwest::Result<reqwest::Client> {
    builder().build()
}

#[cfg(test)]
mod tests {
    /// A client made here speaks TLS: its crypto is installed, where
    /// reqwest without a provider of its own panics building one.
    #[test]
    fn a_client_is_made_with_its_crypto_installed() {
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
        super::client().expect("a client");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        // Again: the provider stays, and nothing panics.
        super::client().expect("a second client");
    }
}
