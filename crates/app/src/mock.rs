//! A kept session as a stand-in server (`mcpwb mock`): each request the
//! host sends answered as the server answered it then — matched exactly, or
//! tools, prompts and resources by name — over stdio, or over loopback
//! HTTP with the install's tap token.

use workbench_core::ErrorInfo;
pub use workbench_tap::mock::{Listening, Mock};
use workbench_tap::mock::{Match, serve_http, serve_stdio};
use workbench_tap::session::Session;

/// The stand-in for `session`; `by_name` matches tools, prompts and
/// resources by name (the rest exactly).
pub fn of(session: &Session, by_name: bool) -> Mock {
    Mock::new(session, if by_name { Match::Name } else { Match::Exact })
}

/// Served over stdio until the host leaves.
pub async fn stdio(mock: &mut Mock) -> Result<(), ErrorInfo> {
    serve_stdio(mock)
        .await
        .map_err(|e| crate::invalid(e.to_string()))
}

/// Served on 127.0.0.1:`port` (0: any free one) behind the install's tap
/// token, until `stop`; `done` gives the mock back with its counts.
pub async fn http(mock: Mock, port: u16) -> Result<Listening, ErrorInfo> {
    serve_http(mock, port, crate::tap::run::token()?)
        .await
        .map_err(|e| crate::invalid(e.to_string()))
}
