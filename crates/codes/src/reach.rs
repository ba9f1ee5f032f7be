//! Why a connection was not made, said so a person can act on it: the name
//! does not resolve, nothing listens, no answer. One reading for every
//! network request the workbench makes (a remote server, the Registry), so
//! each says it alike.

/// Why a connection to a host was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreached {
    /// The host's name does not resolve (misspelt, or this machine offline).
    NoSuchName,
    /// The host answered that nothing listens on the port.
    Refused,
    /// No answer in time.
    TimedOut,
    /// Something else (its own text says what).
    Other,
}

impl Unreached {
    /// Read from an error and its causes (an `io::Error` from a connect,
    /// or an HTTP client's error wrapping one).
    pub fn of(e: &(dyn std::error::Error + 'static)) -> Unreached {
        let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = next {
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                match io.kind() {
                    std::io::ErrorKind::ConnectionRefused => return Unreached::Refused,
                    std::io::ErrorKind::TimedOut => return Unreached::TimedOut,
                    _ => {}
                }
            }
            let text = err.to_string();
            // getaddrinfo's words (glibc, musl, macOS) and the HTTP client's.
            if [
                "failed to lookup address",
                "Name or service not known",
                "No address associated with hostname",
                "nodename nor servname",
                "dns error",
                "Temporary failure in name resolution",
            ]
            .iter()
            .any(|w| text.contains(w))
            {
                return Unreached::NoSuchName;
            }
            next = err.source();
        }
        Unreached::Other
    }

    /// The sentence for `host` (and `port`), with what to check; `None`
    /// for [`Unreached::Other`] (the error's own text says it better).
    pub fn said(self, host: &str, port: u16) -> Option<String> {
        match self {
            Unreached::NoSuchName => Some(format!(
                "the name {host} does not resolve: is it spelt right, and is this machine online?"
            )),
            Unreached::Refused => Some(format!(
                "nothing listens at {host}:{port} (connection refused): is the server running?"
            )),
            Unreached::TimedOut => Some(format!(
                "no answer from {host}:{port}: is the address right, or a firewall in the way?"
            )),
            Unreached::Other => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Unreached;

    #[test]
    fn a_refused_connect_and_a_name_that_does_not_resolve_are_told_apart() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(Unreached::of(&refused), Unreached::Refused);
        let dns = std::io::Error::other(
            "failed to lookup address information: Name or service not known",
        );
        assert_eq!(Unreached::of(&dns), Unreached::NoSuchName);
        assert_eq!(
            Unreached::NoSuchName.said("mcp.example.com", 443).unwrap(),
            "the name mcp.example.com does not resolve: is it spelt right, and is this machine online?"
        );
        assert_eq!(
            Unreached::of(&std::io::Error::other("odd")),
            Unreached::Other
        );
        assert_eq!(Unreached::Other.said("h", 1), None);
    }
}
