//! Asking a server's lists again as its cache hints (2026-07-28) allow: the
//! person's Refresh asks every list; otherwise a list is asked again only
//! once the time its server gave (a positive `ttlMs`) ran out, and only when
//! the server does not announce that list's changes (`listChanged`: a
//! notification asks again at once, fresh or not). `ttlMs` 0 says "do not
//! reuse", not "ask before every turn": such a list, like one of a server
//! that gave no hints, is asked on Ready, on list_changed and on Refresh.

use super::Workbench;
use crate::connect::ServerState;
use crate::events::Event;

/// The list a cache-hint kind is read with (`resourceTemplates` come with
/// `resources`), and the capability that says it announces changes.
fn list_of(kind: &str) -> &str {
    match kind {
        "resourceTemplates" => "resources",
        other => other,
    }
}

impl Workbench {
    /// List `server`'s tools, resources, prompts (and skills) now, waiting
    /// for the answers; Err(why the lists could not be read). For a caller
    /// that found no lists after Ready and must say why.
    pub async fn list_now(&self, server: &str) -> crate::error::Result<()> {
        let handle = self.server(server)?;
        let not_ready = |state: &str| crate::error::Error::ServerNotReady {
            server: server.to_string(),
            state: state.to_string(),
        };
        // A server that went away since (a refusal broke its connection)
        // has nothing to list: said so, not an empty list.
        match handle.status().state {
            ServerState::Ready => {}
            ServerState::Failed { reason, .. } | ServerState::Restarting { reason, .. } => {
                return Err(not_ready(&format!("failed: {reason}")));
            }
            _ => return Err(not_ready("not connected")),
        }
        let (Some(peer), Some(caps)) =
            (handle.peer(), handle.with_info(|i| i.capabilities.clone()))
        else {
            return Err(not_ready("not connected"));
        };
        let entry = handle.entry().clone();
        let offers = move |tool: &str| entry.offers_tool(tool);
        self.catalog()
            .refresh(server, &peer, &caps, None, &offers)
            .await
            .map_err(crate::error::Error::Internal)
    }

    /// Ask lists again: every list of `server` (or of every Ready server)
    /// when `force`, else those whose hints ran out (see the module). The
    /// `(server, list)` pairs asked, each read again before this returns
    /// (`all` for every list); what failed is noted on the server.
    pub async fn revalidate_lists(
        &self,
        server: Option<&str>,
        force: bool,
    ) -> Vec<(String, String)> {
        let now = crate::cache::now_ms();
        let mut asked = Vec::new();
        for handle in self.servers() {
            if server.is_some_and(|s| s != handle.name()) {
                continue;
            }
            let status = handle.status();
            let (ServerState::Ready, Some(peer)) = (&status.state, handle.peer()) else {
                continue;
            };
            let caps = status.info.map(|i| i.capabilities).unwrap_or_default();
            let name = handle.name().to_string();
            let entry = handle.entry().clone();
            let offers = move |tool: &str| entry.offers_tool(tool);
            let mut reread = |list: Option<String>| {
                let (catalog, name, handle, peer, caps) = (
                    self.catalog().clone(),
                    name.clone(),
                    handle.clone(),
                    peer.clone(),
                    caps.clone(),
                );
                let events = self.inner.events.clone();
                let offers = offers.clone();
                asked.push((name.clone(), list.clone().unwrap_or_else(|| "all".into())));
                async move {
                    if let Err(e) = catalog
                        .refresh(&name, &peer, &caps, list.as_deref(), &offers)
                        .await
                    {
                        handle.note_catalog_failure(&e);
                    }
                    let _ = events.send(Event::CatalogChanged { server: name });
                }
            };
            if force {
                reread(None).await;
                continue;
            }
            let Some(lists) = self.catalog().server(&name) else {
                continue;
            };
            let mut due: Vec<&str> = lists
                .cache
                .iter()
                .filter(|(kind, hint)| {
                    hint.ttl_ms.is_some_and(|ttl| ttl > 0)
                        && hint.fresh_for(now) == 0
                        && caps[list_of(kind)]["listChanged"] != true
                })
                .map(|(kind, _)| list_of(kind))
                .collect();
            due.dedup();
            let due: Vec<String> = due.into_iter().map(str::to_string).collect();
            for list in due {
                reread(Some(list)).await;
            }
        }
        asked
    }
}
