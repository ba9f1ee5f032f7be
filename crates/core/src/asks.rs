//! When a server asks the client something (sampling, elicitation): the ask
//! is published as an event, waits for a person's answer, and goes back to
//! the server. Also what the client answers by itself: the roots per server.
//! Without anyone to answer (the CLI), asks are declined at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::events::Event;

pub use crate::events::{AskKind, PendingAsk};

/// The answer: the result object to send, or an error for the server.
#[derive(Debug, Clone)]
pub enum Answer {
    Result(Value),
    Refuse(String),
}

/// How long an ask waits for a person before it is refused.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(600);

/// Asks one server may have waiting at once; more are declined at once (a
/// server cannot bury the window in dialogs, or memory in requests).
pub const MAX_WAITING_PER_SERVER: usize = 8;

struct Waiting {
    ask: PendingAsk,
    reply: oneshot::Sender<Answer>,
}

#[derive(Default)]
struct Inner {
    waiting: Mutex<HashMap<u32, Waiting>>,
    next: AtomicU64,
    roots: Mutex<BTreeMap<String, Vec<Value>>>,
}

/// What the client says it can answer (when someone answers at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offers {
    pub sampling: bool,
    pub elicitation: bool,
}

impl Default for Offers {
    fn default() -> Self {
        Offers {
            sampling: true,
            elicitation: true,
        }
    }
}

/// Shared by every session of a workbench. Cheap to clone.
#[derive(Clone)]
pub struct Asks {
    inner: Arc<Inner>,
    /// Whether anyone will answer (the window); if not, asks are refused.
    pub interactive: bool,
    /// What is advertised (and answered) when `interactive`.
    pub offers: Offers,
    events: broadcast::Sender<Event>,
}

impl Asks {
    pub fn new(events: broadcast::Sender<Event>, interactive: bool) -> Asks {
        Asks {
            inner: Arc::default(),
            interactive,
            offers: Offers::default(),
            events,
        }
    }

    /// Advertise (and answer) only `offers`.
    pub fn offering(mut self, offers: Offers) -> Asks {
        self.offers = offers;
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Waiting>> {
        self.inner.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publish an ask and wait for its answer (or `cancel`, or the timeout).
    pub async fn ask(
        &self,
        server: &str,
        kind: AskKind,
        params: Value,
        cancel: CancellationToken,
    ) -> Answer {
        let offered = match kind {
            AskKind::Sampling => self.offers.sampling,
            AskKind::Elicitation => self.offers.elicitation,
        };
        if !self.interactive || !offered {
            return Answer::Refuse(
                "no one is there to answer (the workbench runs headless)".into(),
            );
        }
        let id = (self.inner.next.fetch_add(1, Ordering::Relaxed) + 1) as u32;
        let ask = PendingAsk {
            id,
            server: server.to_string(),
            kind,
            params,
        };
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = self.lock();
            let mine = waiting.values().filter(|w| w.ask.server == server).count();
            if mine >= MAX_WAITING_PER_SERVER {
                tracing::warn!(%server, waiting = mine, "too many asks waiting; declined");
                return Answer::Refuse(format!(
                    "{mine} requests from this server already wait for the person; declined"
                ));
            }
            waiting.insert(
                id,
                Waiting {
                    ask: ask.clone(),
                    reply: tx,
                },
            );
        }
        let _ = self.events.send(Event::Ask { ask });
        let answer = tokio::select! {
            a = rx => a.unwrap_or(Answer::Refuse("the ask was dropped".into())),
            _ = cancel.cancelled() => Answer::Refuse("the server cancelled the request".into()),
            _ = tokio::time::sleep(ASK_TIMEOUT) => Answer::Refuse("no answer within 10 minutes".into()),
        };
        if self.lock().remove(&id).is_some() {
            // Cancelled or timed out: the window should close its dialog.
            let _ = self.events.send(Event::AskClosed { id });
        }
        answer
    }

    /// The address a URL-mode elicitation asks the person to open: only a
    /// web address (http or https) of an ask that is still waiting, so the
    /// window can never be made to open anything else.
    pub fn url_to_open(&self, id: u32) -> Result<String> {
        let inner = self.lock();
        let waiting = inner.get(&id).ok_or_else(|| {
            Error::Refused(format!(
                "ask {id} is no longer waiting (answered, cancelled or timed out)"
            ))
        })?;
        let url = match (&waiting.ask.kind, waiting.ask.params.get("url")) {
            (AskKind::Elicitation, Some(Value::String(url))) => url.clone(),
            _ => {
                return Err(Error::Refused(format!(
                    "ask {id} does not ask for an address to be opened"
                )));
            }
        };
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("http" | "https") if url::Url::parse(&url).is_ok() => Ok(url),
            _ => Err(Error::Refused(format!(
                "{url} is not a web address (http or https); it was not opened"
            ))),
        }
    }

    /// Answer ask `id`.
    pub fn answer(&self, id: u32, answer: Answer) -> Result<()> {
        let waiting = self.lock().remove(&id).ok_or_else(|| {
            Error::Internal(format!(
                "ask {id} is no longer waiting (answered, cancelled or timed out)"
            ))
        })?;
        let _ = waiting.reply.send(answer);
        let _ = self.events.send(Event::AskClosed { id });
        Ok(())
    }

    /// Decline every ask of `server` waiting now; returns how many.
    pub fn decline_all(&self, server: &str, why: &str) -> usize {
        let gone: Vec<(u32, Waiting)> = {
            let mut waiting = self.lock();
            let ids: Vec<u32> = waiting
                .iter()
                .filter(|(_, w)| w.ask.server == server)
                .map(|(id, _)| *id)
                .collect();
            ids.into_iter()
                .filter_map(|id| waiting.remove(&id).map(|w| (id, w)))
                .collect()
        };
        let n = gone.len();
        for (id, w) in gone {
            let _ = w.reply.send(Answer::Refuse(why.to_string()));
            let _ = self.events.send(Event::AskClosed { id });
        }
        n
    }

    /// The asks waiting now, oldest first.
    pub fn pending(&self) -> Vec<PendingAsk> {
        let mut out: Vec<PendingAsk> = self.lock().values().map(|w| w.ask.clone()).collect();
        out.sort_by_key(|a| a.id);
        out
    }

    /// The roots offered to `server` (`[{ "uri": "file:///...", "name": ... }]`).
    pub fn roots(&self, server: &str) -> Vec<Value> {
        self.inner
            .roots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .cloned()
            .unwrap_or_default()
    }

    pub fn set_roots(&self, server: &str, roots: Vec<Value>) {
        self.inner
            .roots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_string(), roots);
    }
}

impl std::fmt::Debug for Asks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asks")
            .field("interactive", &self.interactive)
            .field("pending", &self.lock().len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Publish an ask the way a session does and return its id.
    async fn pending(asks: &Asks, kind: AskKind, params: Value) -> u32 {
        let before = asks.pending().len();
        let a = asks.clone();
        tokio::spawn(async move { a.ask("s", kind, params, CancellationToken::new()).await });
        for _ in 0..100 {
            let now = asks.pending();
            if now.len() > before {
                return now.last().map(|p| p.id).unwrap_or_default();
            }
            tokio::task::yield_now().await;
        }
        panic!("the ask never appeared");
    }

    #[tokio::test]
    async fn only_a_waiting_elicitations_web_address_is_given_to_open() {
        let (events, _) = broadcast::channel(16);
        let asks = Asks::new(events, true);
        let url = "https://auth.example.com/connect?state=abc";
        let id = pending(
            &asks,
            AskKind::Elicitation,
            json!({ "mode": "url", "url": url }),
        )
        .await;
        assert_eq!(asks.url_to_open(id).unwrap(), url);

        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ssh://host",
            "https://",
        ] {
            let id = pending(&asks, AskKind::Elicitation, json!({ "url": bad })).await;
            let err = asks.url_to_open(id).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::Refused, "{bad}");
            assert!(err.to_string().contains("not a web address"), "{err}");
        }
        let form = pending(&asks, AskKind::Elicitation, json!({ "message": "name?" })).await;
        assert!(asks.url_to_open(form).is_err());
        let sampling = pending(&asks, AskKind::Sampling, json!({ "url": url })).await;
        assert!(asks.url_to_open(sampling).is_err());

        asks.answer(id, Answer::Result(json!({ "action": "accept" })))
            .unwrap();
        let err = asks.url_to_open(id).unwrap_err();
        assert!(err.to_string().contains("no longer waiting"), "{err}");
    }
}
