//! A transport decorator for the era negotiation: a success answer to
//! `server/discover` that is not a discover result (a bare `{}`, as many
//! hand-written and older servers answer any method they do not know) is
//! turned into the "method not found" error such a server should have sent,
//! so rmcp falls back to `initialize`. The traffic log keeps the answer as
//! sent and says why the workbench fell back.
//!
//! rmcp waits 10 s for the probe's answer, then sends `initialize` on the
//! same connection. A server slower than that to start (npx fetching a
//! package the first time) answers the probe after all, before its answer
//! to `initialize`: rmcp takes that late answer for an uncorrelated one and
//! the handshake fails. Once `initialize` has gone out, an answer to a probe
//! still unanswered is left out of the handshake (the log keeps it, with a
//! note saying so).

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
    /// Ids of the `server/discover` requests sent and not yet answered.
    asked: HashSet<RequestId>,
    /// `initialize` went out while a probe was unanswered: rmcp stopped
    /// waiting for it.
    gave_up: bool,
    server: String,
    traffic: TrafficLog,
}

impl<T> DiscoverGuard<T> {
    pub fn new(inner: T, server: &str, traffic: &TrafficLog) -> Self {
        DiscoverGuard {
            inner,
            asked: HashSet::new(),
            gave_up: false,
            server: server.to_string(),
            traffic: traffic.clone(),
        }
    }

    /// A late answer to a probe rmcp stopped waiting for: left out.
    fn late(&mut self, message: &RxJsonRpcMessage<RoleClient>) -> bool {
        if !self.gave_up {
            return false;
        }
        let (id, modern) = match message {
            JsonRpcMessage::Response(r) => {
                (&r.id, matches!(r.result, ServerResult::DiscoverResult(_)))
            }
            JsonRpcMessage::Error(JsonRpcError { id: Some(id), .. }) => (id, false),
            _ => return false,
        };
        if !self.asked.remove(id) {
            return false;
        }
        let why = if modern {
            "the server answered server/discover after the 10 s the workbench waits for it, by which time the workbench had sent initialize (2025-11-25); the late answer is left out of the handshake. The server speaks 2026-07-28: if its initialize fails, set \"protocolVersion\": \"2026-07-28\" on the entry so the workbench waits for its answer"
        } else {
            "the server answered server/discover after the 10 s the workbench waits for it, by which time the workbench had sent initialize (2025-11-25); the late answer is left out of the handshake"
        };
        self.traffic.record_note(&self.server, why);
        true
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
        if let JsonRpcMessage::Request(r) = &item {
            match r.request {
                ClientRequest::DiscoverRequest(_) => {
                    self.asked.insert(r.id.clone());
                }
                ClientRequest::InitializeRequest(_) if !self.asked.is_empty() => {
                    self.gave_up = true;
                }
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            if !self.late(&message) {
                return Some(self.check(message));
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
