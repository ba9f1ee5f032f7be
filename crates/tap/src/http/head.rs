//! An HTTP exchange's head as the session keeps it (the tap's `http`
//! mark, read back for HAR): method, path, both sides' headers, status,
//! timings, the numbers of the messages each side's body carried, an error
//! answer's first bytes. Gathered on the exchange's path as it is (the
//! header maps are shared, not copied) and masked and written out as JSON
//! on the session's writer thread: the recording is never on the path.

use axum::http::{HeaderMap, Method};
use serde::Serialize;
use serde::ser::SerializeMap;

use super::TOKEN_HEADER;

pub(crate) struct Head {
    pub(crate) method: Method,
    /// As the host asked for it (the tap's token taken off).
    pub(crate) path: String,
    pub(crate) request_headers: HeaderMap,
    pub(crate) started_at: i64,
    /// The numbers of the request's messages in the session.
    pub(crate) request: Vec<i64>,
    pub(crate) status: Option<u16>,
    pub(crate) response_headers: Option<HeaderMap>,
    /// Why the server was not reached.
    pub(crate) error: Option<String>,
    /// An error answer's first bytes.
    pub(crate) response_body: Option<String>,
    /// The numbers of the answer's messages in the session.
    pub(crate) response: Option<Vec<i64>>,
    pub(crate) ended_at: Option<i64>,
    /// Credentials kept as they were (`--unmasked`).
    pub(crate) unmasked: bool,
}

impl Head {
    /// About what the head holds, in bytes: what it counts against the
    /// session's queue until it is written (a host's long headers count).
    pub(crate) fn holds(&self) -> usize {
        let headers = |h: &HeaderMap| {
            h.iter()
                .map(|(n, v)| n.as_str().len() + v.len() + 8)
                .sum::<usize>()
        };
        256 + self.path.len()
            + headers(&self.request_headers)
            + self.response_headers.as_ref().map_or(0, headers)
            + self.error.as_ref().map_or(0, String::len)
            + self.response_body.as_ref().map_or(0, String::len)
            + 8 * (self.request.len() + self.response.as_ref().map_or(0, Vec::len))
    }

    /// The mark's text: `{"http": {...}}`, the headers that carry
    /// credentials and the path's own (`?api_key=`) masked unless unmasked.
    pub(crate) fn text(&self) -> String {
        #[derive(Serialize)]
        struct Mark<'a> {
            http: Out<'a>,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Out<'a> {
            method: &'a str,
            path: std::borrow::Cow<'a, str>,
            request_headers: Masked<'a>,
            started_at: i64,
            request: &'a [i64],
            #[serde(skip_serializing_if = "Option::is_none")]
            status: Option<u16>,
            #[serde(skip_serializing_if = "Option::is_none")]
            response_headers: Option<Masked<'a>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            response_body: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            response: Option<&'a [i64]>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ended_at: Option<i64>,
        }
        let masked = |headers| Masked {
            headers,
            unmasked: self.unmasked,
        };
        let mark = Mark {
            http: Out {
                method: self.method.as_str(),
                path: if self.unmasked {
                    self.path.as_str().into()
                } else {
                    workbench_mask::mask_url(&self.path).into()
                },
                request_headers: masked(&self.request_headers),
                started_at: self.started_at,
                request: &self.request,
                status: self.status,
                response_headers: self.response_headers.as_ref().map(masked),
                error: self.error.as_deref(),
                response_body: self.response_body.as_deref(),
                response: self.response.as_deref(),
                ended_at: self.ended_at,
            },
        };
        serde_json::to_string(&mark).unwrap_or_default()
    }
}

/// Headers as kept: one entry a name (a repeated header's values joined
/// with ", "), the tap's own token left out, credentials masked (the one
/// masker's rule, [`workbench_mask::secret_header`]) unless `unmasked`.
struct Masked<'a> {
    headers: &'a HeaderMap,
    unmasked: bool,
}

impl Serialize for Masked<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for name in self.headers.keys() {
            if name.as_str() == TOKEN_HEADER {
                continue;
            }
            if !self.unmasked && workbench_mask::secret_header(name.as_str()) {
                map.serialize_entry(name.as_str(), "••••••")?;
                continue;
            }
            let mut values = self
                .headers
                .get_all(name)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()));
            let first = values.next().unwrap_or_default();
            match values.next() {
                None => map.serialize_entry(name.as_str(), &first)?,
                Some(second) => {
                    let mut joined = format!("{first}, {second}");
                    for v in values {
                        joined.push_str(", ");
                        joined.push_str(&v);
                    }
                    map.serialize_entry(name.as_str(), &joined)?;
                }
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_kept_masked_with_repeated_headers_joined() {
        let mut request_headers = HeaderMap::new();
        request_headers.insert("authorization", "Bearer sk-0123456789".parse().unwrap());
        request_headers.insert(TOKEN_HEADER, "the-taps-own".parse().unwrap());
        request_headers.append("accept", "application/json".parse().unwrap());
        request_headers.append("accept", "text/event-stream".parse().unwrap());
        let mut head = Head {
            method: Method::POST,
            path: "/mcp?api_key=KEY-0123456789abcdef".into(),
            request_headers,
            started_at: 5,
            request: vec![0],
            status: Some(200),
            response_headers: Some(HeaderMap::new()),
            error: None,
            response_body: None,
            response: Some(vec![1, 2]),
            ended_at: Some(9),
            unmasked: false,
        };
        let kept: serde_json::Value = serde_json::from_str(&head.text()).unwrap();
        let http = &kept["http"];
        assert_eq!(http["requestHeaders"]["authorization"], "••••••");
        assert_eq!(
            http["requestHeaders"]["accept"],
            "application/json, text/event-stream"
        );
        assert!(http["requestHeaders"].get(TOKEN_HEADER).is_none());
        assert!(!http["path"].as_str().unwrap().contains("KEY-0123"));
        assert_eq!(http["response"], serde_json::json!([1, 2]));
        assert_eq!(http["endedAt"], 9);
        assert!(http.get("error").is_none());
        head.unmasked = true;
        let kept: serde_json::Value = serde_json::from_str(&head.text()).unwrap();
        assert_eq!(
            kept["http"]["requestHeaders"]["authorization"],
            "Bearer sk-0123456789"
        );
        assert!(kept["http"]["path"].as_str().unwrap().contains("KEY-0123"));
    }
}
