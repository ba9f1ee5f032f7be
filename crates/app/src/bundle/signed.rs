//! What a bundle's signature says, as a person reads it before installing:
//! who signed it and who vouches for them, or why nobody does. A signature
//! that does not hold (the bytes changed after signing) refuses the install.

use serde::Serialize;
use workbench_registry::signature::{Signature, Trust};

/// How far the signature goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignatureStatus {
    Unsigned,
    /// Signed, with a chain to a root this machine trusts for code signing.
    Verified,
    /// Signed with a certificate that vouches for itself.
    SelfSigned,
    /// Signed, but nobody this machine trusts vouches for the signer.
    NotTrusted,
    /// The signature does not hold: installing is refused.
    Broken,
    /// A signature the workbench cannot check.
    Unchecked,
}

/// A bundle's signature, shown.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureShown {
    pub status: SignatureStatus,
    /// One sentence: who signed and who vouches for them, or why not.
    pub said: String,
    /// The signing certificate's subject and issuer, its last valid day and
    /// its SHA-256, when it was read.
    pub publisher: Option<String>,
    pub issuer: Option<String>,
    pub valid_to: Option<String>,
    pub fingerprint: Option<String>,
}

pub fn shown(signature: &Signature) -> SignatureShown {
    let bare = |status, said: String| SignatureShown {
        status,
        said,
        publisher: None,
        issuer: None,
        valid_to: None,
        fingerprint: None,
    };
    match signature {
        Signature::Unsigned => bare(
            SignatureStatus::Unsigned,
            "unsigned: nobody vouches for who made it".into(),
        ),
        Signature::Broken(why) => bare(
            SignatureStatus::Broken,
            format!("its signature does not hold ({why}): it is not installed"),
        ),
        Signature::Unchecked(why) => bare(
            SignatureStatus::Unchecked,
            format!("signed, but not checked: {why}"),
        ),
        Signature::Signed(s) => {
            let (status, said) = match &s.trust {
                Trust::Verified => (
                    SignatureStatus::Verified,
                    format!(
                        "signed by {}, verified: its certificate comes from {}, trusted by this machine for signing code",
                        s.publisher, s.issuer
                    ),
                ),
                Trust::SelfSigned => (
                    SignatureStatus::SelfSigned,
                    format!(
                        "self-signed by \"{}\": the bytes are as signed, but anyone can make such a certificate",
                        s.publisher
                    ),
                ),
                Trust::NotTrusted(why) => (
                    SignatureStatus::NotTrusted,
                    format!("signed by \"{}\", not verified: {why}", s.publisher),
                ),
            };
            SignatureShown {
                status,
                said,
                publisher: Some(s.publisher.clone()),
                issuer: Some(s.issuer.clone()),
                valid_to: Some(s.valid_to.clone()),
                fingerprint: Some(s.fingerprint.clone()),
            }
        }
    }
}
