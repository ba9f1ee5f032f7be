//! DPoP (RFC 9449; MCP's `io.modelcontextprotocol/auth/dpop` extension,
//! SEP-1932): sender-constrained tokens. A sign-in to an authorization
//! server that lists ES256 in `dpop_signing_alg_values_supported` makes a
//! P-256 key of its own (kept with the tokens in the keychain); the token
//! request carries a proof made with it, and so does every request to the
//! server afterwards (`Authorization: DPoP <token>` and a fresh `DPoP`
//! proof bound to the method, the URL and the token). A server that wants a
//! nonce says so (`use_dpop_nonce` and a `DPoP-Nonce` header): the request
//! is made again with it, and the newest nonce each server sent is used
//! from then on.

use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

/// The algorithm a proof is signed with (the one every server must accept
/// when it accepts any: RFC 9449 names ES256 first; ring signs it).
pub const ALG: &str = "ES256";

/// A sign-in's own key (PKCS#8, kept in the keychain with its tokens).
#[derive(Clone)]
pub struct DpopKey {
    pkcs8: Arc<Vec<u8>>,
    pair: Arc<EcdsaKeyPair>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DpopKey({})", self.thumbprint())
    }
}

impl PartialEq for DpopKey {
    fn eq(&self, other: &Self) -> bool {
        self.pkcs8 == other.pkcs8
    }
}

impl serde::Serialize for DpopKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&B64.encode(self.pkcs8.as_slice()))
    }
}

impl<'de> serde::Deserialize<'de> for DpopKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = B64
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)?;
        DpopKey::from_pkcs8(bytes).map_err(serde::de::Error::custom)
    }
}

/// Whether an authorization server's metadata says it binds tokens with
/// DPoP in an algorithm we sign with.
pub fn offered(asm: &Value) -> bool {
    asm["dpop_signing_alg_values_supported"]
        .as_array()
        .is_some_and(|algs| algs.iter().any(|a| a == ALG))
}

/// The URL a proof names (`htu`): the request's, without query and
/// fragment (RFC 9449 §4.2).
fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

impl DpopKey {
    /// A new key for a sign-in.
    pub(crate) fn generate() -> Result<DpopKey, String> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "DPoP: no P-256 key could be made".to_string())?;
        DpopKey::from_pkcs8(doc.as_ref().to_vec())
    }

    fn from_pkcs8(pkcs8: Vec<u8>) -> Result<DpopKey, String> {
        let pair = EcdsaKeyPair::from_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &pkcs8,
            &SystemRandom::new(),
        )
        .map_err(|_| "DPoP: the kept key is not a P-256 key".to_string())?;
        Ok(DpopKey {
            pkcs8: Arc::new(pkcs8),
            pair: Arc::new(pair),
        })
    }

    /// The public key as a JWK (RFC 7517; no private part).
    pub fn jwk(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        // Uncompressed: 0x04 || x (32 bytes) || y (32 bytes).
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": B64.encode(&point[1..33]),
            "y": B64.encode(&point[33..65]),
        })
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638): what a bound token's
    /// `cnf.jkt` names.
    pub fn thumbprint(&self) -> String {
        use sha2::Digest;
        let jwk = self.jwk();
        // The required members in lexicographic order, no spaces.
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap_or_default(),
            jwk["y"].as_str().unwrap_or_default()
        );
        B64.encode(sha2::Sha256::digest(canonical.as_bytes()))
    }

    /// A fresh proof for one request (RFC 9449 §4): `method` and `url` of
    /// the request, `token` when it carries an access token (`ath`), the
    /// server's `nonce` when it asked for one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<Proof, String> {
        let header = json!({ "typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk() });
        let mut claims = json!({
            "jti": super::random_token(18),
            "htm": method,
            "htu": htu(url),
            "iat": super::now(),
        });
        if let Some(token) = token {
            use sha2::Digest;
            claims["ath"] = json!(B64.encode(sha2::Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| "DPoP: the proof could not be signed".to_string())?;
        Ok(Proof {
            jwt: format!("{input}.{}", B64.encode(signature.as_ref())),
            header,
            claims,
        })
    }
}

/// A proof: the JWT sent, and what it says (for the sign-in's record).
#[derive(Debug, Clone)]
pub struct Proof {
    pub jwt: String,
    pub header: Value,
    pub claims: Value,
}

impl Proof {
    /// The proof as the sign-in debugger shows it: its claims (the header
    /// is the same key each time: its thumbprint is shown instead).
    pub fn describe(&self, key: &DpopKey) -> String {
        format!(
            "DPoP proof ({} key {}): {}",
            ALG,
            key.thumbprint(),
            self.claims
        )
    }
}

/// Whether an answer asks for a nonce: RFC 9449 §8 (token endpoint: a 400
/// whose `error` is `use_dpop_nonce`) and §9 (a server: a 401 whose
/// challenge says `error="use_dpop_nonce"`), with the `DPoP-Nonce` header.
pub fn nonce_asked(
    status: u16,
    headers: &http::HeaderMap,
    body_error: Option<&str>,
) -> Option<String> {
    let nonce = headers
        .get("dpop-nonce")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)?;
    let challenge = headers
        .get_all(http::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("use_dpop_nonce"));
    let asked = match status {
        400 => body_error == Some("use_dpop_nonce"),
        401 => challenge,
        _ => false,
    };
    asked.then_some(nonce)
}

/// A connection's binding: the key, the token it is bound to, and the
/// newest nonce the server sent (RFC 9449 §9: any answer may carry one).
#[derive(Debug)]
pub struct Binding {
    pub key: DpopKey,
    pub token: String,
    nonce: Mutex<Option<String>>,
}

impl Binding {
    pub fn new(key: DpopKey, token: String) -> Arc<Binding> {
        Arc::new(Binding {
            key,
            token,
            nonce: Mutex::new(None),
        })
    }

    /// The `Authorization` header's value.
    pub fn authorization(&self) -> String {
        format!("DPoP {}", self.token)
    }

    /// A proof for a request to the server (`None` when it cannot be made:
    /// the request goes without, and the server's refusal says why).
    pub fn proof(&self, method: &str, url: &str) -> Option<String> {
        let nonce = self.nonce.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match self
            .key
            .proof(method, url, Some(&self.token), nonce.as_deref())
        {
            Ok(p) => Some(p.jwt),
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        }
    }

    /// Keep a nonce the server sent (on any answer). True when it is new.
    pub fn note_nonce(&self, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) else {
            return false;
        };
        let mut kept = self.nonce.lock().unwrap_or_else(|e| e.into_inner());
        let new = kept.as_deref() != Some(nonce);
        *kept = Some(nonce.to_string());
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn part(jwt: &str, i: usize) -> Value {
        let p = jwt.split('.').nth(i).unwrap();
        serde_json::from_slice(&B64.decode(p).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_is_a_signed_dpop_jwt_bound_to_the_request_and_the_token() {
        let key = DpopKey::generate().unwrap();
        let p = key
            .proof(
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some("tok"),
                Some("n-1"),
            )
            .unwrap();
        let header = part(&p.jwt, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = part(&p.jwt, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["nonce"], "n-1");
        // ath = base64url(SHA-256("tok")), RFC 9449 §4.2.
        assert_eq!(claims["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        assert!((claims["iat"].as_u64().unwrap() as i64 - super::super::now() as i64).abs() < 5);
        // The signature verifies with the public key in the header.
        let x = B64.decode(header["jwk"]["x"].as_str().unwrap()).unwrap();
        let y = B64.decode(header["jwk"]["y"].as_str().unwrap()).unwrap();
        let public = [&[4u8][..], &x, &y].concat();
        let (input, sig) = p.jwt.rsplit_once('.').unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, public)
            .verify(input.as_bytes(), &B64.decode(sig).unwrap())
            .expect("the proof's signature verifies");
        // Each proof is fresh.
        let again = key
            .proof("POST", "https://mcp.example/mcp", Some("tok"), None)
            .unwrap();
        assert_ne!(part(&again.jwt, 1)["jti"], claims["jti"]);
        assert!(part(&again.jwt, 1).get("nonce").is_none());
    }

    #[test]
    fn the_key_survives_the_keychain_and_its_thumbprint_is_rfc_7638() {
        let key = DpopKey::generate().unwrap();
        let text = serde_json::to_string(&key).unwrap();
        let back: DpopKey = serde_json::from_str(&text).unwrap();
        assert_eq!(back, key);
        assert_eq!(back.jwk(), key.jwk());
        // RFC 7638 §3.1's example is RSA; an EC key's members are crv, kty, x, y.
        use sha2::Digest;
        let jwk = key.jwk();
        let canonical = serde_json::to_string(&json!({
            "crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"], "y": jwk["y"]
        }))
        .unwrap();
        assert_eq!(
            key.thumbprint(),
            B64.encode(sha2::Sha256::digest(canonical))
        );
    }

    #[test]
    fn a_nonce_is_asked_for_only_as_the_rfc_says() {
        let mut h = http::HeaderMap::new();
        h.insert("dpop-nonce", "abc".parse().unwrap());
        assert_eq!(
            nonce_asked(400, &h, Some("use_dpop_nonce")),
            Some("abc".into())
        );
        assert_eq!(nonce_asked(400, &h, Some("invalid_grant")), None);
        assert_eq!(nonce_asked(401, &h, None), None);
        h.insert(
            http::header::WWW_AUTHENTICATE,
            r#"DPoP error="use_dpop_nonce", error_description="x""#
                .parse()
                .unwrap(),
        );
        assert_eq!(nonce_asked(401, &h, None), Some("abc".into()));
        let b = Binding::new(DpopKey::generate().unwrap(), "t".into());
        assert!(b.note_nonce(&h));
        assert!(!b.note_nonce(&h), "the same nonce again is not new");
        let proof = b.proof("GET", "http://127.0.0.1:1/mcp").unwrap();
        assert_eq!(part(&proof, 1)["nonce"], "abc");
        assert_eq!(b.authorization(), "DPoP t");
    }
}
