//! What a failed request was, told apart by what rmcp and the transport
//! say (never by text): a server's error answer, a timeout, a cancel, or a
//! connection that failed — before the request was delivered (a broken
//! pipe, a refused connection: the server never saw it, so it may go on the
//! next connection) or while it was in flight (the server may have acted).

use rmcp::service::ServiceError;

use crate::error::Error;

/// Whether a send failed for want of a reader: a broken pipe (the process
/// died) or a refused connection (nothing listens) — the request was not
/// delivered.
fn never_delivered(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut at: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = at {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionRefused
            )
        {
            return true;
        }
        at = err.source();
    }
    false
}

/// Whether a send failed for its connection (reset, closed, aborted, or
/// the HTTP client could not send it): the server may have had it.
fn connection_failed(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut at: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = at {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        if let Some(r) = err.downcast_ref::<reqwest::Error>()
            && (r.is_connect() || r.is_request())
        {
            return true;
        }
        at = err.source();
    }
    false
}

pub(super) fn map_error(server: &str, method: &str, e: ServiceError) -> Error {
    let (server, method) = (server.to_string(), method.to_string());
    match e {
        ServiceError::McpError(e) => Error::ServerError {
            server,
            method,
            code: e.code.0,
            message: e.message.to_string(),
            data: e.data.map(Box::new),
        },
        ServiceError::Timeout { timeout } => Error::Timeout {
            server,
            method,
            seconds: timeout.as_secs_f64(),
            progressing: false,
        },
        ServiceError::Cancelled { .. } => Error::Cancelled { server, method },
        ServiceError::TransportClosed => Error::ConnectionLost {
            server,
            method,
            sent: true,
        },
        // The request could not be written (the process was gone, nothing
        // listened): the server never saw it.
        ServiceError::TransportSend(e) if never_delivered(&e) => Error::ConnectionLost {
            server,
            method,
            sent: false,
        },
        // Failed on the way (a connection the server closed as it went
        // away): it may have reached it, so it is in flight.
        ServiceError::TransportSend(e) if connection_failed(&e) => Error::ConnectionLost {
            server,
            method,
            sent: true,
        },
        other => Error::Transport {
            server,
            method,
            message: crate::connect::error_chain(&other),
        },
    }
}
