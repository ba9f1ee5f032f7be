//! The servers' resources as the bridge's: each list with its URIs as
//! callers see them (`mcpwb://SERVER/URI`), a read sent to the owning
//! server (or answered from the bridge's own skills), a subscription
//! passed to the owner in its era's way.

use rmcp::RoleServer;
use rmcp::model::{ErrorData, ReadResourceResponse, ReadResourceResult};
use rmcp::service::RequestContext;
use serde_json::{Value, json};
use workbench_core::CallOptions;

use crate::service::{Handler, bad};
use crate::upstream::upstream;

impl Handler {
    /// Every served server's items of one list, their `key` (a URI or a
    /// template) as the callers see it.
    pub(crate) fn listed(
        &self,
        pick: impl Fn(workbench_core::catalog::ServerCatalog) -> Vec<Value>,
        key: &str,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        for server in self.bridge.serving() {
            if let Some(cat) = self.bridge.wb().catalog().server(&server) {
                for mut item in pick(cat) {
                    let uri = item[key].as_str().unwrap_or_default().to_string();
                    item[key] = Value::String(self.bridge.uri_out(&server, &uri));
                    out.push(item);
                }
            }
        }
        out
    }

    /// `resources/subscribe` or `/unsubscribe`, to the server owning `uri`.
    pub(crate) async fn pass_subscription(&self, uri: &str, method: &str) -> Result<(), ErrorData> {
        let (server, own) = self.bridge.uri_in(uri).ok_or_else(|| {
            bad(format!(
                "no resource {uri} here (resources/list names them)"
            ))
        })?;
        // Either era upstream: resources/subscribe, or its listen stream.
        self.bridge
            .wb()
            .subscribe_resource(&server, &own, method == "resources/subscribe")
            .await
            .map_err(upstream)?;
        Ok(())
    }

    /// `resources/read` of the caller's `uri`.
    pub(crate) async fn read_one_resource(
        &self,
        uri: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // The bridge's own skills' files.
        if let Some(read) = self
            .bridge
            .own()
            .and_then(|o| o.skills())
            .and_then(|c| c.read_resource(uri))
        {
            return Ok(read.into());
        }
        let (server, own) = self.bridge.uri_in(uri).ok_or_else(|| {
            bad(format!(
                "no resource {uri} here (resources/list names them)"
            ))
        })?;
        let mut out = self
            .bridge
            .wb()
            .request(
                &server,
                "resources/read",
                json!({ "uri": own }),
                CallOptions {
                    cancel: Some(ctx.ct.clone()),
                    ..CallOptions::default()
                },
            )
            .await
            .map_err(upstream)?;
        if let Some(contents) = out.result["contents"].as_array_mut() {
            for c in contents {
                if let Some(u) = c["uri"].as_str() {
                    c["uri"] = Value::String(self.bridge.uri_out(&server, u));
                }
            }
        }
        self.answer::<ReadResourceResult>(ctx, out.result, || ReadResourceResult::new(vec![]))
            .map(Into::into)
    }
}
