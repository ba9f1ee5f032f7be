//! A bundle's signature, made by the official `mcpb sign` with certificates
//! `openssl` makes here, checked by `mcpwb bundle`: a chain to a root the
//! machine trusts (`SSL_CERT_FILE` stands for the machine's store) is
//! verified; the same bundle with another store, a certificate not for code
//! signing and a self-signed one are each said for what they are; a bundle
//! changed after signing is refused at install with nothing written.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::bundle::{mcpb, pack_demo};
use super::tap::in_home;
use super::{stderr, stdout};

fn openssl(d: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(d)
        .args(args)
        .output()
        .expect("openssl (Debian's openssl package)");
    assert!(out.status.success(), "openssl {args:?}: {}", stderr(&out));
}

/// A self-signed certificate `NAME.pem` (its key `NAME.key`) for `subject`.
fn self_signed(d: &Path, name: &str, subject: &str, extra: &[&str]) {
    let (key, pem) = (format!("{name}.key"), format!("{name}.pem"));
    let mut args = vec![
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-keyout", &key, "-out",
        &pem, "-subj", subject,
    ];
    args.extend_from_slice(extra);
    openssl(d, &args);
}

/// A CA, and a certificate it issued with the extended key usage `eku`.
fn issued(d: &Path, name: &str, eku: &str) -> (PathBuf, PathBuf) {
    if !d.join("ca.pem").exists() {
        self_signed(
            d,
            "ca",
            "/CN=Workbench Test CA/O=Tests",
            &[
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ],
        );
    }
    let ext = d.join(format!("{name}.ext"));
    std::fs::write(
        &ext,
        format!("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage={eku}\n"),
    )
    .unwrap();
    let (key, csr, pem) = (
        format!("{name}.key"),
        format!("{name}.csr"),
        format!("{name}.pem"),
    );
    openssl(
        d,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &csr,
            "-subj",
            &format!("/CN={name}"),
        ],
    );
    openssl(
        d,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "30",
            "-out",
            &pem,
            "-extfile",
            ext.to_str().unwrap(),
        ],
    );
    (d.join(pem), d.join(key))
}

/// A copy of `packed` signed by `mcpb sign` with this certificate.
fn signed(mcpb: &Path, packed: &Path, as_: &str, cert: &Path, key: &Path) -> PathBuf {
    let file = packed.with_file_name(as_);
    std::fs::copy(packed, &file).unwrap();
    let out = Command::new(mcpb)
        .arg("sign")
        .arg(&file)
        .arg("--cert")
        .arg(cert)
        .arg("--key")
        .arg(key)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mcpb sign: {}{}",
        stdout(&out),
        stderr(&out)
    );
    file
}

/// `mcpwb bundle ARGS` with `trusted` as the machine's store of roots.
fn bundle(d: &Path, trusted: &Path, args: &[&str]) -> std::process::Output {
    in_home(d)
        .env("SSL_CERT_FILE", trusted)
        .env("SSL_CERT_DIR", d.join("no-such-folder"))
        .arg("--config")
        .arg(d.join("mcp.json"))
        .arg("bundle")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_signed_bundle_says_who_vouches_for_its_publisher_and_a_changed_one_is_refused() {
    let Some(mcpb) = mcpb() else {
        eprintln!("MCPWB_THIRD_PARTY has no mcpb (cargo xtask test installs it): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let packed = pack_demo(&mcpb, d);
    let ca = d.join("ca.pem");

    let (cert, key) = issued(d, "Workbench Test Publisher", "codeSigning");
    let good = signed(&mcpb, &packed, "good.mcpb", &cert, &key);
    let good = good.to_str().unwrap();
    let shown = bundle(d, &ca, &["show", good]);
    let text = stdout(&shown);
    assert!(
        text.contains(
            "signature: signed by Workbench Test Publisher, verified: its certificate comes from Workbench Test CA"
        ),
        "{text}{}",
        stderr(&shown)
    );
    assert!(text.contains("certificate sha256 "), "{text}");

    // The same bundle on a machine that does not trust that CA.
    let (stranger, _) = {
        let other = d.join("other");
        std::fs::create_dir_all(&other).unwrap();
        issued(&other, "Someone Else", "codeSigning")
    };
    let text = stdout(&bundle(d, &stranger, &["show", good]));
    assert!(
        text.contains("signed by \"Workbench Test Publisher\", not verified: its certificate's issuer is not one this machine trusts"),
        "{text}"
    );

    // A certificate for web servers, not for signing code.
    let (web, web_key) = issued(d, "A Web Server", "serverAuth");
    let file = signed(&mcpb, &packed, "web.mcpb", &web, &web_key);
    let text = stdout(&bundle(d, &ca, &["show", file.to_str().unwrap()]));
    assert!(
        text.contains("not verified: its certificate is not one for signing code"),
        "{text}"
    );

    // Self-signed, as `mcpb sign --self-signed` makes them.
    self_signed(
        d,
        "self",
        "/CN=MCPB Self-Signed Certificate/O=MCPB Extensions/C=US",
        &[],
    );
    let file = signed(
        &mcpb,
        &packed,
        "self.mcpb",
        &d.join("self.pem"),
        &d.join("self.key"),
    );
    let text = stdout(&bundle(d, &ca, &["show", file.to_str().unwrap()]));
    assert!(
        text.contains("self-signed by \"MCPB Self-Signed Certificate\": the bytes are as signed"),
        "{text}"
    );

    // One byte of the verified bundle changed after signing (inside the
    // packed server, so the manifest still reads).
    let mut bytes = std::fs::read(good).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    let changed = d.join("changed.mcpb");
    std::fs::write(&changed, &bytes).unwrap();
    let changed = changed.to_str().unwrap();
    let text = stdout(&bundle(d, &ca, &["show", changed]));
    assert!(
        text.contains(
            "its signature does not hold (the bundle's bytes are not those that were signed"
        ),
        "{text}"
    );
    let refused = bundle(d, &ca, &["install", changed, "--set", "token=t"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is not installed: its signature does not hold"),
        "{}",
        stderr(&refused)
    );
    assert!(!d.join("mcp.json").exists(), "nothing written");
    assert!(
        !d.join("home/data/bundles/demo-bundle").exists(),
        "nothing unpacked"
    );

    // The verified one installs.
    let installed = bundle(d, &ca, &["install", good, "--set", "token=t"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    assert!(
        stdout(&installed).contains("verified"),
        "{}",
        stdout(&installed)
    );
}
