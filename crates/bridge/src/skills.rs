//! Every served server's skills (SEP-2640) as the bridge's own: each
//! skill's URIs as `skill://SERVER/PATH` (`names.rs`), its frontmatter,
//! digests and sizes as the server listed them, so a caller verifies the
//! bytes it reads through the bridge against what the server promised.

use rmcp::RoleServer;
use rmcp::model::{ErrorData, GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult};
use rmcp::service::RequestContext;
use serde_json::{Value, json};
use workbench_core::CallOptions;

use crate::service::{Handler, bad};
use crate::upstream::upstream;

impl Handler {
    /// A skill entry of `server` with its URIs as callers see them.
    fn skill_out(&self, server: &str, mut skill: Value) -> Value {
        if let Some(u) = skill["uri"].as_str() {
            skill["uri"] = Value::String(self.bridge.uri_out(server, u));
        }
        if let Some(files) = skill["resources"].as_array_mut() {
            for f in files {
                if let Some(u) = f["uri"].as_str() {
                    f["uri"] = Value::String(self.bridge.uri_out(server, u));
                }
            }
        }
        skill
    }

    /// `method` with `{"uri": OWN}` to the server owning the caller's `uri`.
    async fn routed(
        &self,
        uri: &str,
        method: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(String, Value), ErrorData> {
        let (server, own) = self.bridge.uri_in(uri).ok_or_else(|| {
            bad(format!(
                "no skill or directory {uri} here (skills/list names them)"
            ))
        })?;
        let got = self
            .bridge
            .wb()
            .request(
                &server,
                method,
                json!({ "uri": own }),
                CallOptions {
                    cancel: Some(ctx.ct.clone()),
                    ..CallOptions::default()
                },
            )
            .await
            .map_err(upstream)?;
        Ok((server, got.result))
    }

    pub(crate) fn list_all_skills(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let mut out: Vec<Value> = self
            .bridge
            .own()
            .and_then(|o| o.skills())
            .map(|c| {
                c.skills()
                    .into_iter()
                    .filter_map(|s| serde_json::to_value(s).ok())
                    .collect()
            })
            .unwrap_or_default();
        for server in self.bridge.serving() {
            for skill in self.bridge.wb().skills_of(&server) {
                out.push(self.skill_out(&server, skill));
            }
        }
        self.answer(ctx, json!({ "skills": out }), ListSkillsResult::default)
    }

    pub(crate) async fn get_one_skill(
        &self,
        uri: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        if let Some(own) = self.bridge.own().and_then(|o| o.skills())
            && let Ok(got) = own.get_skill(uri)
        {
            return Ok(got);
        }
        let (server, mut got) = self.routed(uri, "skills/get", ctx).await?;
        let skill = got["skill"].take();
        got["skill"] = self.skill_out(&server, skill);
        serde_json::from_value(got).map_err(|e| bad(format!("{server}'s skills/get answer: {e}")))
    }

    pub(crate) async fn read_one_directory(
        &self,
        uri: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        if let Some(own) = self.bridge.own().and_then(|o| o.skills())
            && let Ok(got) = own.read_resource_directory(uri)
        {
            return Ok(got);
        }
        let (server, mut got) = self.routed(uri, "resources/directory/read", ctx).await?;
        if let Some(children) = got["resources"].as_array_mut() {
            for c in children {
                if let Some(u) = c["uri"].as_str() {
                    c["uri"] = Value::String(self.bridge.uri_out(&server, u));
                }
            }
        }
        serde_json::from_value(got)
            .map_err(|e| bad(format!("{server}'s resources/directory/read answer: {e}")))
    }
}
