//! HTTPS for the demo server: a throwaway certificate authority and a
//! certificate for 127.0.0.1/localhost signed by it, made at start. The CA's
//! PEM is written to a file so a client can trust it (`SSL_CERT_FILE`).

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::server::TlsStream;

fn invalid(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// Make the CA and the server certificate; write the CA to `ca_out`.
pub fn acceptor(ca_out: &Path) -> io::Result<TlsAcceptor> {
    let ca_key = KeyPair::generate().map_err(invalid)?;
    let mut ca_params = CertificateParams::new(Vec::new()).map_err(invalid)?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "MCP Workbench test CA");
    let ca_cert = ca_params.self_signed(&ca_key).map_err(invalid)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let key = KeyPair::generate().map_err(invalid)?;
    let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .map_err(invalid)?;
    let cert = params.signed_by(&key, &issuer).map_err(invalid)?;
    std::fs::write(ca_out, ca_cert.pem())?;

    let chain = vec![CertificateDer::from(cert.der().to_vec())];
    let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let config = ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(invalid)?
    .with_no_client_auth()
    .with_single_cert(chain, private)
    .map_err(invalid)?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A TCP listener whose connections are TLS; failed handshakes are skipped.
pub struct TlsListener {
    pub tcp: TcpListener,
    pub acceptor: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (stream, addr) = match self.tcp.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    eprintln!("demo server: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            match self.acceptor.accept(stream).await {
                Ok(tls) => return (tls, addr),
                Err(e) => eprintln!("demo server: TLS handshake with {addr} failed: {e}"),
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}
