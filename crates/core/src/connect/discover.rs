//! A transport decorator for the era negotiation: a success answer to
//! `server/discover` that is not a discover result (a bare `{}`, as many
//! hand-written and older servers answer any method they do not know) is
//! turned into the "method not found" error such a server should have sent,
//! so rmcp falls back to `initialize`. The traffic log keeps the answer as
//! sent and says why the workbench fell back.

use std::collections::HashSet;

use rmcp::RoleClient;
use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::traffic::TrafficLog;

pub struct DiscoverGuard<T> {
    inner: T,
    /// Ids of the `server/discover` requests sent.
    asked: HashSet<RequestId>,
    server: String,
    traffic: TrafficLog,
}

impl<T> DiscoverGuard<T> {
    pub fn new(inner: T, server: &str, traffic: &TrafficLog) -> Self {
        DiscoverGuard {
            inner,
            asked: HashSet::new(),
            server: server.to_string(),
            traffic: traffic.clone(),
        }
    }

    fn check(&mut self, message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        let id = match &message {
            JsonRpcMessage::Response(r) if self.asked.contains(&r.id) => r.id.clone(),
            JsonRpcMessage::Error(JsonRpcError { id: Some(id), .. }) => {
                self.asked.remove(id);
                return message;
            }
            _ => return message,
        };
        self.asked.remove(&id);
        let JsonRpcMessage::Response(r) = &message else {
            return message;
        };
        if matches!(r.result, ServerResult::DiscoverResult(_)) {
            return message;
        }
        let why = "the server answered server/discover with a result that is not a discover result (no supportedVersions); it does not speak 2026-07-28, so the workbench falls back to initialize (2025-11-25)";
        self.traffic.record_note(&self.server, why);
        JsonRpcMessage::Error(JsonRpcError {
            jsonrpc: Default::default(),
            id: Some(id),
            error: ErrorData::new(ErrorCode::METHOD_NOT_FOUND, why, None),
        })
    }
}

impl<T: Transport<RoleClient> + Send> Transport<RoleClient> for DiscoverGuard<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item
            && matches!(r.request, ClientRequest::DiscoverRequest(_))
        {
            self.asked.insert(r.id.clone());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        Some(self.check(message))
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
