//! Who the HTTP tap (and the HTTP mock) answers: a loopback `Host` on its
//! own port, no web page of another site, the token in the URL's first
//! path segment or the `Mcp-Workbench-Token` header.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::TOKEN_HEADER;

pub(crate) fn refuse(status: StatusCode, why: String) -> Response {
    (status, why).into_response()
}

/// Why a request is not passed: its status and the sentence said.
pub(crate) struct Refused(pub StatusCode, pub String);

/// Refused unless the request is from this machine, no foreign web
/// page, with the token; else the path (token taken off) and whether
/// the token came in it.
pub(crate) fn admit(
    parts: &axum::http::request::Parts,
    port: u16,
    token: &str,
) -> Result<(String, bool), Refused> {
    let headers = &parts.headers;
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !workbench_loopback::loopback_host(host, port) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            format!(
                "the workbench answers only to a loopback Host (127.0.0.1:{}), not \"{host}\"",
                port
            ),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let o = origin.to_str().unwrap_or("?");
        if !workbench_loopback::local_origin(o) {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                format!("the workbench does not answer web pages of other sites (Origin: {o})"),
            ));
        }
    }
    let path_and_query = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let prefix = format!("/{}", token);
    if let Some(rest) = path_and_query.strip_prefix(&prefix)
        && (rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
    {
        let rest = if rest.starts_with('/') {
            rest.to_string()
        } else {
            format!("/{rest}")
        };
        return Ok((rest, true));
    }
    let given = headers
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !given.is_empty() && workbench_loopback::same(given.as_bytes(), token.as_bytes()) {
        return Ok((path_and_query.to_string(), false));
    }
    // 403, not 401: a 401 would send the host into OAuth with the server.
    Err(Refused(
        StatusCode::FORBIDDEN,
        if given.is_empty() {
            "this needs its token: as the URL's first path segment (the URL `mcpwb` printed) or in the Mcp-Workbench-Token header".into()
        } else {
            "wrong token".into()
        },
    ))
}
