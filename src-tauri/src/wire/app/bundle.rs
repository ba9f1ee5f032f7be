#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// How far the signature goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
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
#[derive(Debug, Clone, Serialize, specta::Type)]
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
/// A value the bundle asks for.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BundleField {
    pub key: String,
    pub title: String,
    pub description: Option<String>,
    /// string, number, boolean, directory or file.
    pub kind: String,
    pub required: bool,
    pub sensitive: bool,
    pub multiple: bool,
    pub default: Option<Value>,
}
/// A bundle as read, before anything is written.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BundleShown {
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    /// Who the manifest says published it: not verified.
    pub author: String,
    /// What its signature says: who signed, who vouches for them.
    pub signature: SignatureShown,
    pub sha256: String,
    pub server_type: String,
    pub fields: Vec<BundleField>,
    pub tools: Vec<String>,
}
/// What installing did.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    pub name: String,
    pub folder: String,
    pub file: String,
    pub shown: BundleShown,
    /// The manifest's problems, as the publish check finds them.
    pub findings: Vec<crate::wire::doctor::Finding>,
}
crate::wire::to_wire!(workbench_app::bundle::BundleShown => BundleShown);
impl From<workbench_app::bundle::BundleShown> for BundleShown {
    fn from(v: workbench_app::bundle::BundleShown) -> Self {
        let workbench_app::bundle::BundleShown {
            name,
            display_name,
            version,
            description,
            author,
            signature,
            sha256,
            server_type,
            fields,
            tools,
        } = v;
        Self {
            name,
            display_name,
            version,
            description,
            author,
            signature: signature.into(),
            sha256,
            server_type,
            fields: fields.into_iter().map(|v| v.into()).collect(),
            tools,
        }
    }
}
crate::wire::to_wire!(workbench_app::bundle::Installed => Installed);
impl From<workbench_app::bundle::Installed> for Installed {
    fn from(v: workbench_app::bundle::Installed) -> Self {
        let workbench_app::bundle::Installed {
            name,
            folder,
            file,
            shown,
            findings,
        } = v;
        Self {
            name,
            folder,
            file,
            shown: shown.into(),
            findings: findings.into_iter().map(|v| v.into()).collect(),
        }
    }
}
crate::wire::to_wire!(workbench_app::bundle::SignatureShown => SignatureShown);
impl From<workbench_app::bundle::SignatureShown> for SignatureShown {
    fn from(v: workbench_app::bundle::SignatureShown) -> Self {
        let workbench_app::bundle::SignatureShown {
            status,
            said,
            publisher,
            issuer,
            valid_to,
            fingerprint,
        } = v;
        Self {
            status: status.into(),
            said,
            publisher,
            issuer,
            valid_to,
            fingerprint,
        }
    }
}
crate::wire::to_wire!(workbench_app::bundle::BundleField => BundleField);
impl From<workbench_app::bundle::BundleField> for BundleField {
    fn from(v: workbench_app::bundle::BundleField) -> Self {
        let workbench_app::bundle::BundleField {
            key,
            title,
            description,
            kind,
            required,
            sensitive,
            multiple,
            default,
        } = v;
        Self {
            key,
            title,
            description,
            kind,
            required,
            sensitive,
            multiple,
            default,
        }
    }
}
crate::wire::to_wire!(workbench_app::bundle::SignatureStatus => SignatureStatus);
impl From<workbench_app::bundle::SignatureStatus> for SignatureStatus {
    fn from(v: workbench_app::bundle::SignatureStatus) -> Self {
        match v {
            workbench_app::bundle::SignatureStatus::Unsigned => Self::Unsigned,
            workbench_app::bundle::SignatureStatus::Verified => Self::Verified,
            workbench_app::bundle::SignatureStatus::SelfSigned => Self::SelfSigned,
            workbench_app::bundle::SignatureStatus::NotTrusted => Self::NotTrusted,
            workbench_app::bundle::SignatureStatus::Broken => Self::Broken,
            workbench_app::bundle::SignatureStatus::Unchecked => Self::Unchecked,
        }
    }
}
