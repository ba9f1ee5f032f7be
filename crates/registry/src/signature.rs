//! A bundle's signature, as `mcpb sign` writes it: the bundle's bytes, then
//! `MCPB_SIG_V1`, a length (u32, little-endian), a detached PKCS#7 /
//! CMS `SignedData` over those bytes, and `MCPB_SIG_END`. Checked here in
//! three steps, each said apart: the bytes are those that were signed (the
//! `messageDigest` attribute), the signer's certificate made the signature,
//! and who vouches for that certificate (a chain to a root this machine
//! trusts for code signing — `SSL_CERT_FILE`/`SSL_CERT_DIR` or the system's
//! store —, or nobody: self-signed).

use pki_types::{CertificateDer, SignatureVerificationAlgorithm, UnixTime};
use sha2::{Digest, Sha256, Sha384, Sha512};
use webpki::ring as algs;

mod der;
use der::{Cert, Tlv};

const HEADER: &[u8] = b"MCPB_SIG_V1";
const FOOTER: &[u8] = b"MCPB_SIG_END";

/// 1.2.840.113549.1.7.2, 1.2.840.113549.1.9.4, 1.3.6.1.5.5.7.3.3.
const SIGNED_DATA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02];
const MESSAGE_DIGEST: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04];
const CODE_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];

/// What a bundle's signature says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signature {
    /// No signature block.
    Unsigned,
    /// The signature matches the bytes and the certificate.
    Signed(Signer),
    /// A signature block whose signature does not hold: the bytes changed
    /// after signing, or it was not made by the certificate it names.
    Broken(String),
    /// A signature this workbench cannot check (an algorithm it does not
    /// know, a block it cannot read): the publisher stays unverified.
    Unchecked(String),
}

/// Who signed, and who vouches for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The certificate's subject (its common name, else the whole name).
    pub publisher: String,
    pub issuer: String,
    pub valid_from: String,
    pub valid_to: String,
    /// SHA-256 of the signing certificate (hex).
    pub fingerprint: String,
    pub trust: Trust,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// A chain to a root this machine trusts, for code signing.
    Verified,
    /// The certificate vouches for itself: anyone can make one.
    SelfSigned,
    /// A chain that does not reach a trusted root, or not for code
    /// signing, or out of its dates: why.
    NotTrusted(String),
}

/// The most a signature block is looked for from the file's end.
const BLOCK_MAX: usize = 1 << 20;

/// The bytes that were signed and the signature block's PKCS#7, when the
/// file ends with one (as `mcpb` finds it: the last footer, the nearest
/// header before it).
pub fn split(file: &[u8]) -> Option<(&[u8], &[u8])> {
    let tail = file.len().saturating_sub(BLOCK_MAX);
    let footer = tail + rfind(&file[tail..], FOOTER)?;
    let header = tail + rfind(&file[tail..footer], HEADER)?;
    let at = header + HEADER.len();
    let len = u32::from_le_bytes(file.get(at..at + 4)?.try_into().ok()?) as usize;
    let pkcs7 = file.get(at + 4..(at + 4).checked_add(len)?)?;
    Some((&file[..header], pkcs7))
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Check the signature `file` ends with, if any.
pub fn check(file: &[u8]) -> Signature {
    let Some((content, pkcs7)) = split(file) else {
        return Signature::Unsigned;
    };
    match signed_data(pkcs7) {
        Ok(parts) => verify(content, &parts),
        Err(e) => Signature::Unchecked(format!("its signature block cannot be read: {e}")),
    }
}

/// The parts of a `SignedData` a check needs.
struct Parts<'a> {
    certs: Vec<Tlv<'a>>,
    /// The signer's issuer (its DER) and serial, when named that way.
    issuer_and_serial: Option<(&'a [u8], &'a [u8])>,
    digest_alg: &'a [u8],
    /// The signed attributes, whole (tagged `[0]`), if any.
    signed_attrs: Option<Tlv<'a>>,
    signature_alg: &'a [u8],
    signature: &'a [u8],
}

fn signed_data(pkcs7: &[u8]) -> Result<Parts<'_>, String> {
    let info = der::one(pkcs7, der::SEQUENCE)?;
    let mut info = info.body;
    let kind = der::next(&mut info, der::OID)?;
    if kind.body != SIGNED_DATA {
        return Err("not PKCS#7 signed data".into());
    }
    let explicit = der::next(&mut info, 0xa0)?;
    let data = der::one(explicit.body, der::SEQUENCE)?;
    let mut data = data.body;
    der::next(&mut data, der::INTEGER)?;
    der::next(&mut data, der::SET)?;
    der::next(&mut data, der::SEQUENCE)?;
    let mut certs = Vec::new();
    let mut next = der::next(&mut data, 0)?;
    if next.tag == 0xa0 {
        let mut list = next.body;
        while !list.is_empty() {
            certs.push(der::next(&mut list, der::SEQUENCE)?);
        }
        next = der::next(&mut data, 0)?;
    }
    if next.tag == 0xa1 {
        next = der::next(&mut data, 0)?;
    }
    if next.tag != der::SET {
        return Err("no signer".into());
    }
    let mut signers = next.body;
    let signer = der::next(&mut signers, der::SEQUENCE)?;
    if !signers.is_empty() {
        return Err("more than one signer".into());
    }
    let mut s = signer.body;
    der::next(&mut s, der::INTEGER)?;
    let sid = der::next(&mut s, 0)?;
    let issuer_and_serial = if sid.tag == der::SEQUENCE {
        let mut ias = sid.body;
        let issuer = der::next(&mut ias, der::SEQUENCE)?;
        let serial = der::next(&mut ias, der::INTEGER)?;
        Some((issuer.whole, serial.body))
    } else {
        None
    };
    let digest_alg = der::next(&mut s, der::SEQUENCE)?;
    let mut next = der::next(&mut s, 0)?;
    let signed_attrs = if next.tag == 0xa0 {
        let attrs = next;
        next = der::next(&mut s, der::SEQUENCE)?;
        Some(attrs)
    } else {
        None
    };
    let signature_alg = next;
    let signature = der::next(&mut s, der::OCTET_STRING)?;
    Ok(Parts {
        certs,
        issuer_and_serial,
        digest_alg: der::first(digest_alg.body, der::OID)?.body,
        signed_attrs,
        signature_alg: der::first(signature_alg.body, der::OID)?.body,
        signature: signature.body,
    })
}

fn digest(alg: &[u8], bytes: &[u8]) -> Option<Vec<u8>> {
    // 2.16.840.1.101.3.4.2.{1,2,3}
    let sha2 = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02];
    match alg.strip_prefix(&sha2[..])? {
        [1] => Some(Sha256::digest(bytes).to_vec()),
        [2] => Some(Sha384::digest(bytes).to_vec()),
        [3] => Some(Sha512::digest(bytes).to_vec()),
        _ => None,
    }
}

/// The verification algorithms a signer may have used, by the signature
/// algorithm and digest the block names (the key decides among them).
fn algorithms(
    signature_alg: &[u8],
    digest_alg: &[u8],
) -> Vec<&'static dyn SignatureVerificationAlgorithm> {
    let rsa = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    let ecdsa = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03];
    let bits = match digest_alg.last() {
        Some(1) => 256,
        Some(2) => 384,
        Some(3) => 512,
        _ => 0,
    };
    if let Some(rest) = signature_alg.strip_prefix(&rsa[..]) {
        // rsaEncryption (the digest named apart, as node-forge signs) or
        // sha{256,384,512}WithRSAEncryption.
        return match (rest, bits) {
            ([1] | [11], 256) => vec![algs::RSA_PKCS1_2048_8192_SHA256],
            ([1] | [12], 384) => vec![algs::RSA_PKCS1_2048_8192_SHA384],
            ([1] | [13], 512) => vec![algs::RSA_PKCS1_2048_8192_SHA512],
            _ => vec![],
        };
    }
    if let Some(rest) = signature_alg.strip_prefix(&ecdsa[..]) {
        return match rest {
            [2] => vec![algs::ECDSA_P256_SHA256, algs::ECDSA_P384_SHA256],
            [3] => vec![algs::ECDSA_P256_SHA384, algs::ECDSA_P384_SHA384],
            // ECDSA over SHA-512 (rare: openssl signs with SHA-256 unless
            // told) is not in ring, the crypto the workbench is built with.
            _ => vec![],
        };
    }
    if signature_alg == [0x2b, 0x65, 0x70] {
        return vec![algs::ED25519];
    }
    vec![]
}

fn verify(content: &[u8], parts: &Parts<'_>) -> Signature {
    let Some(wanted) = digest(parts.digest_alg, content) else {
        return Signature::Unchecked(
            "it is signed with a digest this workbench does not know".into(),
        );
    };
    // The message the signature covers: the signed attributes (as a SET),
    // which carry the content's digest, or else the content itself.
    let message = match &parts.signed_attrs {
        Some(attrs) => {
            match message_digest(attrs.body) {
                Ok(Some(said)) if said == wanted.as_slice() => {}
                Ok(Some(_)) => {
                    return Signature::Broken(
                        "the bundle's bytes are not those that were signed: it changed after signing"
                            .into(),
                    );
                }
                Ok(None) => {
                    return Signature::Broken("its signature names no digest of the bundle".into());
                }
                Err(e) => {
                    return Signature::Unchecked(format!(
                        "its signed attributes cannot be read: {e}"
                    ));
                }
            }
            let mut set = attrs.whole.to_vec();
            set[0] = der::SET;
            set
        }
        None => content.to_vec(),
    };
    let certs: Vec<Cert<'_>> = parts
        .certs
        .iter()
        .filter_map(|c| Cert::parse(*c).ok())
        .collect();
    let signer = parts
        .issuer_and_serial
        .and_then(|(issuer, serial)| {
            certs
                .iter()
                .find(|c| c.issuer == issuer && c.serial == serial)
        })
        .or(certs.first());
    let Some(signer) = signer else {
        return Signature::Unchecked(
            "its signature carries no certificate to check it with".into(),
        );
    };
    let der = CertificateDer::from(signer.whole);
    let Ok(ee) = webpki::EndEntityCert::try_from(&der) else {
        return Signature::Unchecked("its signing certificate cannot be read".into());
    };
    let algorithms = algorithms(parts.signature_alg, parts.digest_alg);
    if algorithms.is_empty() {
        return Signature::Unchecked(
            "it is signed with an algorithm this workbench does not check (it checks RSA, ECDSA over SHA-256 or SHA-384, and Ed25519)".into(),
        );
    }
    if !algorithms
        .iter()
        .any(|alg| ee.verify_signature(*alg, &message, parts.signature).is_ok())
    {
        return Signature::Broken("its signature was not made by the certificate it names".into());
    }
    let intermediates: Vec<CertificateDer<'_>> = certs
        .iter()
        .filter(|c| c.whole != signer.whole)
        .map(|c| CertificateDer::from(c.whole))
        .collect();
    let trust = if signer.subject == signer.issuer {
        Trust::SelfSigned
    } else {
        chain(&ee, &intermediates)
    };
    Signature::Signed(Signer {
        publisher: signer.subject_name(),
        issuer: signer.issuer_name(),
        valid_from: signer.not_before.clone(),
        valid_to: signer.not_after.clone(),
        fingerprint: Sha256::digest(signer.whole)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        trust,
    })
}

/// The `messageDigest` attribute's value, if the attributes hold one.
fn message_digest(mut attrs: &[u8]) -> Result<Option<&[u8]>, String> {
    while !attrs.is_empty() {
        let attr = der::next(&mut attrs, der::SEQUENCE)?;
        let mut a = attr.body;
        let oid = der::next(&mut a, der::OID)?;
        if oid.body == MESSAGE_DIGEST {
            let values = der::next(&mut a, der::SET)?;
            return Ok(Some(der::one(values.body, der::OCTET_STRING)?.body));
        }
    }
    Ok(None)
}

/// Who vouches for the signer: a chain to one of this machine's roots,
/// for code signing, valid now.
fn chain(ee: &webpki::EndEntityCert<'_>, intermediates: &[CertificateDer<'_>]) -> Trust {
    let roots = rustls_native_certs::load_native_certs().certs;
    let anchors: Vec<_> = roots
        .iter()
        .filter_map(|c| webpki::anchor_from_trusted_cert(c).ok())
        .collect();
    if anchors.is_empty() {
        return Trust::NotTrusted("this machine has no trusted roots to check it against".into());
    }
    let now = UnixTime::now();
    match ee.verify_for_usage(
        webpki::ALL_VERIFICATION_ALGS,
        &anchors,
        intermediates,
        now,
        webpki::KeyUsage::required(CODE_SIGNING),
        None,
        None,
    ) {
        Ok(_) => Trust::Verified,
        Err(e) => Trust::NotTrusted(
            match e {
                webpki::Error::UnknownIssuer => {
                    "its certificate's issuer is not one this machine trusts"
                }
                webpki::Error::CertExpired { .. } => "its certificate has expired",
                webpki::Error::CertNotValidYet { .. } => "its certificate is not valid yet",
                webpki::Error::RequiredEkuNotFoundContext(_) => {
                    "its certificate is not one for signing code"
                }
                webpki::Error::CaUsedAsEndEntity => "it is signed with a CA's certificate",
                _ => "its certificate chain does not hold",
            }
            .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(pkcs7: &[u8]) -> Vec<u8> {
        let mut file = b"PK...the bundle's bytes".to_vec();
        file.extend_from_slice(HEADER);
        file.extend_from_slice(&(pkcs7.len() as u32).to_le_bytes());
        file.extend_from_slice(pkcs7);
        file.extend_from_slice(FOOTER);
        file
    }

    #[test]
    fn the_block_is_found_at_the_end_and_its_length_checked() {
        let file = block(&[0x30, 0x00]);
        let (content, pkcs7) = split(&file).unwrap();
        assert_eq!(content, b"PK...the bundle's bytes");
        assert_eq!(pkcs7, [0x30, 0x00]);
        let mut long = file.clone();
        let at = long.len() - FOOTER.len() - 2 - 4;
        long[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(split(&long), None, "a length past the end");
        assert_eq!(check(b"PK no block"), Signature::Unsigned);
    }

    #[test]
    fn a_block_that_is_not_signed_data_cannot_be_checked_and_says_why() {
        let Signature::Unchecked(why) = check(&block(&[0x30, 0x03, 0x06, 0x01, 0x2a])) else {
            panic!("not unchecked");
        };
        assert!(why.contains("not PKCS#7 signed data"), "{why}");
        let Signature::Unchecked(why) = check(&block(&[0x30, 0x80, 0, 0])) else {
            panic!("not unchecked");
        };
        assert!(why.contains("indefinite length"), "{why}");
    }
}
