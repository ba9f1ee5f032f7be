//! Answers sent as the upstream server wrote them: the handler leaves the
//! JSON in a `RawSlot` carried in the request's extensions, and `Raw` (the
//! stdio session's service) sends it instead of rmcp's typed value, with
//! `resultType` and cache hints added for 2026-07-28 callers and dropped for
//! earlier ones. Over HTTP there is no slot: the relay (`relay.rs`) does it.
//! `DirectCalls` is the stdio session's reading rule: a caller's
//! `tools/call` is read straight into its type.

use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::{
    ClientNotification, ClientRequest, CustomResult, ErrorData, ServerConfig, ServerResult,
};
use rmcp::service::{NotificationContext, RequestContext, Service};
use serde_json::{Value, json};

use workbench_core::connect::lines::{Rules, mentions};

use crate::service::Handler;
use crate::slot::RawSlot;

/// The handler, answering with the upstream JSON where it has it.
#[derive(Clone)]
pub struct Raw(pub Handler);

impl Service<RoleServer> for Raw {
    async fn handle_request(
        &self,
        request: ClientRequest,
        mut ctx: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let slot = RawSlot::default();
        ctx.extensions.insert(slot.clone());
        let cacheable = matches!(
            request,
            ClientRequest::ListToolsRequest(_)
                | ClientRequest::ListPromptsRequest(_)
                | ClientRequest::ListResourcesRequest(_)
                | ClientRequest::ListResourceTemplatesRequest(_)
                | ClientRequest::ReadResourceRequest(_)
        );
        let new_era = crate::upstream::caller_new_era(&ctx);
        // Boxed: the handler's future is large (a call's whole path).
        let typed = Box::pin(Service::handle_request(&self.0, request, ctx)).await?;
        let raw = slot.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(match raw {
            Some(mut v) => {
                // 2026-07-28 results say they are complete; earlier ones do not.
                if let Some(obj) = v.as_object_mut() {
                    if new_era {
                        obj.entry("resultType")
                            .or_insert_with(|| Value::String("complete".into()));
                        // Cache hints (SEP-2549): not cached, for this caller
                        // only — what the bridge serves changes as servers do.
                        if cacheable {
                            obj.entry("ttlMs").or_insert_with(|| json!(0));
                            obj.entry("cacheScope").or_insert_with(|| json!("private"));
                        }
                    } else {
                        // Fields of 2026-07-28 results an earlier caller
                        // does not know (an upstream server may be newer).
                        if obj.get("resultType").and_then(Value::as_str) == Some("complete") {
                            obj.remove("resultType");
                        }
                        obj.remove("ttlMs");
                        obj.remove("cacheScope");
                    }
                }
                ServerResult::CustomResult(CustomResult(v))
            }
            None => typed,
        })
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        ctx: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Service::handle_notification(&self.0, notification, ctx).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }
}

/// The bridge's side of stdio: a `tools/call` is read straight into its
/// type. rmcp's message type is an untagged enum of untagged enums: a call
/// is tried as each kind of request before it (an error made for each).
pub(crate) struct DirectCalls;

impl Rules<rmcp::RoleServer> for DirectCalls {
    fn read(&self, line: &[u8]) -> Option<rmcp::service::RxJsonRpcMessage<rmcp::RoleServer>> {
        use rmcp::model::{CallToolRequest, ClientRequest, JsonRpcMessage, JsonRpcRequest};
        if !mentions(line, "\"tools/call\"") {
            return None;
        }
        let call: JsonRpcRequest<CallToolRequest> = serde_json::from_slice(line).ok()?;
        Some(JsonRpcMessage::Request(JsonRpcRequest {
            jsonrpc: call.jsonrpc,
            id: call.id,
            request: ClientRequest::CallToolRequest(call.request),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_read_straight_is_what_rmcp_reads() {
        let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__echo","arguments":{"m":"x"},"_meta":{"progressToken":"p1"}}}"#;
        let ours = DirectCalls.read(line).expect("read straight");
        let theirs: rmcp::service::RxJsonRpcMessage<RoleServer> =
            serde_json::from_slice(line).unwrap();
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            serde_json::to_value(&theirs).unwrap()
        );
        let rmcp::model::JsonRpcMessage::Request(r) = ours else {
            panic!("a request")
        };
        let ClientRequest::CallToolRequest(call) = r.request else {
            panic!("a call")
        };
        let meta = call.extensions.get::<rmcp::model::RequestMetaObject>();
        assert!(format!("{meta:?}").contains("p1"), "{meta:?}");
        // Anything else is left to rmcp.
        assert!(
            DirectCalls
                .read(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
                .is_none()
        );
        assert!(
            DirectCalls
                .read(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}"#)
                .is_none()
        );
    }
}
