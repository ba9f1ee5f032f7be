//! A tool's App read for the host: its `ui://` resource fetched from the
//! server and resolved (HTML as text or base64, the policy it runs under).
//! The pure parts — the policy, `inject_first`, `AppResource` — are
//! `crate::apps`, at the bottom.

use base64::Engine;
use serde_json::{Value, json};

use super::{CallOptions, Workbench};
use crate::apps::{APP_MIME, AppResource, loopback, policy_for};
use crate::error::{Error, Result};

fn bad(server: &str, uri: &str, why: String) -> Error {
    Error::Refused(format!("{server}'s App {uri}: {why}"))
}

impl Workbench {
    /// Whether `server` runs on this machine over HTTP (its URL's host is
    /// loopback): its App may then reach this machine.
    fn served_here(&self, server: &str) -> bool {
        let Ok(handle) = self.server(server) else {
            return false;
        };
        let url = match &handle.entry().transport {
            crate::config::Transport::StreamableHttp { url, .. }
            | crate::config::Transport::Sse { url, .. } => url.clone(),
            crate::config::Transport::RemoteAuto { url, .. } => url.clone(),
            _ => return false,
        };
        reqwest::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(loopback))
            .unwrap_or(false)
    }

    /// `resources/read` of `uri`: the contents `server` returned, as sent
    /// (the App reader, a chat's attachments).
    pub async fn read_contents(
        &self,
        server: &str,
        uri: &str,
        options: CallOptions,
    ) -> Result<Vec<serde_json::Value>> {
        let out = self
            .request(server, "resources/read", json!({ "uri": uri }), options)
            .await?;
        Ok(out.result["contents"]
            .as_array()
            .cloned()
            .unwrap_or_default())
    }

    /// Read the App at `uri` of `server` (`resources/read`) and resolve
    /// what the host applies: HTML (text or base64 blob) and its policy.
    pub async fn app_resource(&self, server: &str, uri: &str) -> Result<AppResource> {
        let contents = self
            .read_contents(server, uri, CallOptions::default())
            .await?;
        let content = contents
            .iter()
            .find(|c| c["uri"] == uri)
            .or_else(|| contents.first())
            .ok_or_else(|| bad(server, uri, "resources/read returned no contents".into()))?;
        let mime = content["mimeType"].as_str().unwrap_or_default();
        if mime.split(';').next().map(str::trim) != Some("text/html") {
            return Err(bad(
                server,
                uri,
                format!("its content is {mime:?}, not {APP_MIME}"),
            ));
        }
        let html = match (content["text"].as_str(), content["blob"].as_str()) {
            (Some(text), _) => text.to_string(),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| bad(server, uri, "its blob is not base64 UTF-8 HTML".into()))?,
            _ => return Err(bad(server, uri, "its content has no text or blob".into())),
        };
        let listed = || {
            self.catalog()
                .server(server)
                .and_then(|c| c.resources.into_iter().find(|r| r["uri"] == uri))
                .map(|r| r["_meta"].clone())
                .unwrap_or(Value::Null)
        };
        let meta = if content["_meta"]["ui"].is_object() {
            content["_meta"].clone()
        } else {
            listed()
        };
        Ok(AppResource {
            server: server.to_string(),
            uri: uri.to_string(),
            html,
            policy: policy_for(&meta["ui"], self.served_here(server)),
            prefers_border: meta["ui"]["prefersBorder"].as_bool(),
            meta,
        })
    }
}
