//! Trying an entry before it is saved: connect it alone, report what it
//! offers or why it failed, and close it again.

use std::time::Duration;

use serde::Serialize;

use super::{Workbench, WorkbenchOptions};
use crate::config::{ConfigFile, ServerEntry};
use crate::connect::{ServerState, ServerStatus};
use crate::error::Result;
use crate::events::Event;

#[derive(Debug, Clone, Serialize)]
pub struct Trial {
    /// The state the trial connection reached (ready, or failed and why).
    pub status: ServerStatus,
    pub tools: Vec<String>,
    pub resources: u32,
    /// Resource templates (counted apart from resources, as the panel does).
    pub templates: u32,
    pub prompts: u32,
    /// What it listed, whole (for a check of what it offers).
    #[serde(skip)]
    pub catalog: crate::catalog::ServerCatalog,
}

impl Workbench {
    /// Connect `entry` (relative paths against `config`'s folder) without
    /// restarts, wait up to `timeout`, list what it offers, and stop it.
    pub async fn trial(
        config: &ConfigFile,
        entry: ServerEntry,
        mut options: WorkbenchOptions,
        timeout: Duration,
    ) -> Result<Trial> {
        let name = entry.name.clone();
        let mut alone = ConfigFile::empty(&config.path);
        alone.servers.push(entry);
        options.supervisor.auto_restart = false;
        options.supervisor.startup_timeout = timeout;
        let wb = Workbench::start(&alone, options);
        let mut events = wb.subscribe();
        wb.settle(timeout).await;
        let status = wb.server(&name)?.status();
        if status.state == ServerState::Ready && wb.catalog().server(&name).is_none() {
            // The catalog is fetched right after Ready; wait for it, bounded.
            let _ = tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    match events.recv().await {
                        Ok(Event::CatalogChanged { server }) if server == name => return,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                        _ => {}
                    }
                }
            })
            .await;
        }
        let catalog = wb.catalog().server(&name).unwrap_or_default();
        wb.shutdown().await;
        Ok(Trial {
            status,
            tools: catalog
                .tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect(),
            resources: u32::try_from(catalog.resources.len()).unwrap_or(u32::MAX),
            templates: u32::try_from(catalog.resource_templates.len()).unwrap_or(u32::MAX),
            prompts: u32::try_from(catalog.prompts.len()).unwrap_or(u32::MAX),
            catalog,
        })
    }

    /// Connect `entry` (already trusted and running here) again alone,
    /// with this workbench's options — its variables and keychain, so its
    /// `${secret:...}` resolve as they do for the running server — and
    /// report what it answered (the doctor asks each protocol era so).
    pub async fn trial_alone(
        &self,
        config: &ConfigFile,
        entry: ServerEntry,
        timeout: Duration,
    ) -> Result<Trial> {
        let mut options = self.inner.options.clone();
        options.trust = None;
        options.stagger = Duration::ZERO;
        Workbench::trial(config, entry, options, timeout).await
    }
}
