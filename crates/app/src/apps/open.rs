//! The Apps open in the window, by id (each id its own origin): which
//! server and tool each was opened for, what the person allowed for it
//! while it stays open, its one ask at a time per tool, and the App
//! resources read for them (kept until the server restarts or says its
//! resources changed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use workbench_core::apps::AppResource;

/// An App opened in the window.
#[derive(Clone)]
pub struct OpenApp {
    pub server: String,
    /// The tool it was opened for.
    pub tool: String,
    pub resource: AppResource,
}

#[derive(Default)]
struct Inner {
    open: HashMap<String, OpenApp>,
    /// Tools the person allowed for an open App while it stays open ("allow
    /// while this App is open"), by App id.
    allowed: HashMap<String, HashMap<String, workbench_calls::Consent>>,
    /// One ask at a time per App and tool: the calls behind it wait here.
    asking: HashMap<(String, String), Arc<tokio::sync::Mutex<()>>>,
    /// Resolved App resources by (server, uri): read once, kept until the
    /// server restarts or says its resources changed.
    cache: HashMap<(String, String), AppResource>,
}

/// The Apps open now, by id (each id its own origin), and the resources
/// read for them.
#[derive(Clone, Default)]
pub struct Apps(Arc<Mutex<Inner>>);

impl Apps {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn cached(&self, server: &str, uri: &str) -> Option<AppResource> {
        self.inner()
            .cache
            .get(&(server.to_string(), uri.to_string()))
            .cloned()
    }

    pub fn keep(&self, resource: &AppResource) {
        self.inner().cache.insert(
            (resource.server.clone(), resource.uri.clone()),
            resource.clone(),
        );
    }

    /// What was read of `server` may have changed (it restarted, its
    /// resources changed).
    pub fn forget_server(&self, server: &str) {
        self.inner().cache.retain(|(s, _), _| s != server);
    }

    /// Keep `app` under a new id (lowercase letters and digits: a host name).
    pub fn open(&self, app: OpenApp) -> String {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        let id = format!("a{:016x}", h.finish());
        self.inner().open.insert(id.clone(), app);
        id
    }

    pub fn get(&self, id: &str) -> Option<OpenApp> {
        self.inner().open.get(id).cloned()
    }

    /// The open App `id`, or why not.
    pub fn find(&self, id: &str) -> Result<OpenApp, workbench_core::ErrorInfo> {
        self.get(id).ok_or_else(|| {
            workbench_core::ErrorInfo::new(
                workbench_core::ErrorCode::NotFound,
                format!("App {id} is not open"),
            )
        })
    }

    pub fn close(&self, id: &str) -> bool {
        let mut inner = self.inner();
        inner.allowed.remove(id);
        inner.asking.retain(|(app, _), _| app != id);
        inner.open.remove(id).is_some()
    }

    /// The turn an App's calls of `tool` take to be decided.
    pub fn asking(&self, id: &str, tool: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.inner()
            .asking
            .entry((id.to_string(), tool.to_string()))
            .or_default()
            .clone()
    }

    /// Allow `tool` for the App `id` until it closes.
    pub fn allow_while_open(&self, id: &str, tool: &str, consent: workbench_calls::Consent) {
        let mut inner = self.inner();
        if inner.open.contains_key(id) {
            inner
                .allowed
                .entry(id.to_string())
                .or_default()
                .insert(tool.to_string(), consent);
        }
    }

    /// The consent the person gave `tool` for the open App `id` while it
    /// stays open (None: not given).
    pub fn allowed_while_open(&self, id: &str, tool: &str) -> Option<workbench_calls::Consent> {
        self.inner()
            .allowed
            .get(id)
            .and_then(|tools| tools.get(tool))
            .cloned()
    }
}
