//! Just enough DER to read a PKCS#7 signature block and the names and dates
//! of its certificates: elements one at a time, each with its tag, its
//! contents and its whole encoding. What checks the signature and the chain
//! is webpki; this only finds the parts to hand it.

pub const INTEGER: u8 = 0x02;
pub const OCTET_STRING: u8 = 0x04;
pub const OID: u8 = 0x06;
pub const SEQUENCE: u8 = 0x30;
pub const SET: u8 = 0x31;

/// One element.
#[derive(Debug, Clone, Copy)]
pub struct Tlv<'a> {
    pub tag: u8,
    pub body: &'a [u8],
    pub whole: &'a [u8],
}

/// The next element of `input`, which moves past it; of tag `tag` unless
/// `tag` is 0 (any).
pub(super) fn next<'a>(input: &mut &'a [u8], tag: u8) -> Result<Tlv<'a>, String> {
    let bytes = *input;
    let (&found, rest) = bytes.split_first().ok_or("it ends early")?;
    if tag != 0 && found != tag {
        return Err(format!("a {found:#04x} where a {tag:#04x} belongs"));
    }
    if found & 0x1f == 0x1f {
        return Err("a tag in several bytes".into());
    }
    let (&first, mut rest) = rest.split_first().ok_or("it ends early")?;
    let len = match first {
        0..=0x7f => first as usize,
        0x81..=0x84 => {
            let n = (first & 0x7f) as usize;
            if rest.len() < n {
                return Err("it ends early".into());
            }
            let len = rest[..n].iter().fold(0usize, |l, b| (l << 8) | *b as usize);
            rest = &rest[n..];
            len
        }
        0x80 => return Err("an indefinite length (BER, not DER)".into()),
        _ => return Err("a length too long".into()),
    };
    if rest.len() < len {
        return Err("it ends early".into());
    }
    let header = bytes.len() - rest.len();
    *input = &rest[len..];
    Ok(Tlv {
        tag: found,
        body: &rest[..len],
        whole: &bytes[..header + len],
    })
}

/// `bytes` is exactly one element of tag `tag`.
pub(super) fn one(bytes: &[u8], tag: u8) -> Result<Tlv<'_>, String> {
    let mut rest = bytes;
    let tlv = next(&mut rest, tag)?;
    if !rest.is_empty() {
        return Err("bytes after its end".into());
    }
    Ok(tlv)
}

/// The first element of `bytes`, of tag `tag` (what follows is left).
pub(super) fn first(bytes: &[u8], tag: u8) -> Result<Tlv<'_>, String> {
    let mut rest = bytes;
    next(&mut rest, tag)
}

/// What a certificate says of itself.
#[derive(Debug)]
pub struct Cert<'a> {
    pub whole: &'a [u8],
    pub serial: &'a [u8],
    /// The issuer's and subject's names, their whole DER.
    pub issuer: &'a [u8],
    pub subject: &'a [u8],
    pub not_before: String,
    pub not_after: String,
}

impl<'a> Cert<'a> {
    pub(super) fn parse(cert: Tlv<'a>) -> Result<Self, String> {
        let mut c = cert.body;
        let tbs = next(&mut c, SEQUENCE)?;
        let mut t = tbs.body;
        if t.first() == Some(&0xa0) {
            next(&mut t, 0xa0)?;
        }
        let serial = next(&mut t, INTEGER)?.body;
        next(&mut t, SEQUENCE)?;
        let issuer = next(&mut t, SEQUENCE)?.whole;
        let mut validity = next(&mut t, SEQUENCE)?.body;
        let not_before = time(next(&mut validity, 0)?)?;
        let not_after = time(next(&mut validity, 0)?)?;
        let subject = next(&mut t, SEQUENCE)?.whole;
        Ok(Cert {
            whole: cert.whole,
            serial,
            issuer,
            subject,
            not_before,
            not_after,
        })
    }

    pub fn subject_name(&self) -> String {
        name(self.subject)
    }

    pub fn issuer_name(&self) -> String {
        name(self.issuer)
    }
}

/// A name as a person reads it: its common name, else its parts joined.
fn name(der: &[u8]) -> String {
    let Ok(seq) = one(der, SEQUENCE) else {
        return "(a name that cannot be read)".into();
    };
    let mut parts = Vec::new();
    let mut rdns = seq.body;
    while let Ok(rdn) = next(&mut rdns, SET) {
        let mut atvs = rdn.body;
        while let Ok(atv) = next(&mut atvs, SEQUENCE) {
            let mut a = atv.body;
            let (Ok(oid), Ok(value)) = (next(&mut a, OID), next(&mut a, 0)) else {
                continue;
            };
            let text = String::from_utf8_lossy(value.body).into_owned();
            // 2.5.4.3 commonName, .10 organization, .6 country.
            match oid.body {
                [0x55, 0x04, 0x03] => return text,
                [0x55, 0x04, 0x0a] => parts.push(format!("O={text}")),
                [0x55, 0x04, 0x06] => parts.push(format!("C={text}")),
                _ => {}
            }
        }
    }
    if parts.is_empty() {
        "(no name)".into()
    } else {
        parts.join(", ")
    }
}

/// A UTCTime or GeneralizedTime as `YYYY-MM-DDTHH:MM:SSZ`.
fn time(t: Tlv<'_>) -> Result<String, String> {
    let text = std::str::from_utf8(t.body).map_err(|_| "a date that is not text")?;
    let digits = text.trim_end_matches('Z');
    let full = match (t.tag, digits.len()) {
        (0x17, 12) => {
            let yy: u32 = digits[..2].parse().map_err(|_| "a bad date")?;
            format!("{}{digits}", if yy >= 50 { "19" } else { "20" })
        }
        (0x18, 14) => digits.to_string(),
        _ => return Err(format!("a date it cannot read: {text}")),
    };
    if !full.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("a date it cannot read: {text}"));
    }
    Ok(format!(
        "{}-{}-{}T{}:{}:{}Z",
        &full[..4],
        &full[4..6],
        &full[6..8],
        &full[8..10],
        &full[10..12],
        &full[12..14]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_with_long_lengths_are_read_and_truncation_refused() {
        let mut long = vec![0x04, 0x81, 200];
        long.extend(std::iter::repeat_n(7u8, 200));
        let tlv = one(&long, OCTET_STRING).unwrap();
        assert_eq!(tlv.body.len(), 200);
        assert_eq!(tlv.whole.len(), 203);
        assert!(one(&long[..100], OCTET_STRING).is_err());
        assert!(
            one(&[0x30, 0x80, 0, 0], SEQUENCE).is_err(),
            "BER's indefinite length"
        );
        assert!(one(&[0x02, 0x01, 0x05], SEQUENCE).is_err(), "the wrong tag");
    }

    #[test]
    fn dates_of_both_kinds() {
        let utc = Tlv {
            tag: 0x17,
            body: b"491231235959Z",
            whole: &[],
        };
        assert_eq!(time(utc).unwrap(), "2049-12-31T23:59:59Z");
        let old = Tlv {
            tag: 0x17,
            body: b"990101000000Z",
            whole: &[],
        };
        assert_eq!(time(old).unwrap(), "1999-01-01T00:00:00Z");
        let general = Tlv {
            tag: 0x18,
            body: b"20361128120000Z",
            whole: &[],
        };
        assert_eq!(time(general).unwrap(), "2036-11-28T12:00:00Z");
    }
}
