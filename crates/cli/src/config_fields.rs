//! What `mcpwb config add` and `edit` are told of an entry (its flags) and
//! how that becomes the entry's JSON: pairs checked, secret values put in
//! the OS keychain and referenced from the file, never written to it.

use std::path::Path;

use clap::Args;
use serde_json::{Map, Value, json};
use workbench_app::config::{Keychain, Scope, reference, secret_id_for};

use crate::Failure;
use crate::config_cmd::usage;

#[derive(Args, Clone, Debug, Default)]
pub struct Fields {
    /// A local server's command.
    #[arg(long)]
    command: Option<String>,
    /// An argument (repeat for each, in order).
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// KEY=VALUE environment entries.
    #[arg(long)]
    env: Vec<String>,
    /// KEY=VALUE environment entries kept in the OS keychain.
    #[arg(long)]
    secret_env: Vec<String>,
    /// The folder a local server runs in (default: the config file's).
    #[arg(long)]
    cwd: Option<String>,
    /// A remote server's URL.
    #[arg(long)]
    url: Option<String>,
    /// http or sse (default http with --url).
    #[arg(long)]
    transport: Option<String>,
    /// NAME=VALUE headers.
    #[arg(long)]
    header: Vec<String>,
    /// NAME=VALUE headers kept in the OS keychain.
    #[arg(long)]
    secret_header: Vec<String>,
    /// A line saying what the server is, shown beside it.
    #[arg(long)]
    description: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ScopeArg {
    User,
    Project,
}

fn pairs(list: &[String], flag: &str) -> Result<Vec<(String, String)>, Failure> {
    list.iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| usage(format!("--{flag} takes KEY=VALUE, got \"{p}\"")))
        })
        .collect()
}

impl Fields {
    /// These flags with the command and its arguments given after `--`
    /// (`config add NAME -- npx -y @scope/server`, as other hosts' `mcp add`
    /// take it), which stand for `--command` and `--arg` and so exclude them.
    pub(crate) fn with_run(&self, run: &[String]) -> Result<Fields, Failure> {
        let Some((command, args)) = run.split_first() else {
            return Ok(self.clone());
        };
        if self.command.is_some() || !self.args.is_empty() || self.url.is_some() {
            return Err(usage(
                "give the command either after `--` or with --command/--arg, not both (and not with --url)",
            ));
        }
        Ok(Fields {
            command: Some(command.clone()),
            args: args.to_vec(),
            ..self.clone()
        })
    }

    /// Whether it says what runs: a command or a URL.
    pub(crate) fn names_a_server(&self) -> bool {
        self.command.is_some() || self.url.is_some()
    }

    /// The keys these flags set, in our on-disk shape. Secret values go to
    /// the keychain; the entry gets a `${secret:...}` reference.
    pub(crate) fn to_map(
        &self,
        server: &str,
        owner: (Scope, Option<&Path>),
        keychain: &dyn Fn() -> Keychain,
    ) -> Result<Map<String, Value>, Failure> {
        let mut m = Map::new();
        if self.command.is_some() && self.url.is_some() {
            return Err(usage(
                "give --command (a local server) or --url (a remote one), not both",
            ));
        }
        if let Some(t) = &self.transport {
            if !matches!(t.as_str(), "http" | "sse") {
                return Err(usage("--transport is http or sse"));
            }
            m.insert("type".into(), json!(t));
        }
        if let Some(c) = &self.command {
            m.insert("command".into(), json!(c));
        }
        if let Some(u) = &self.url {
            m.entry("type").or_insert(json!("http"));
            m.insert("url".into(), json!(u));
        }
        if !self.args.is_empty() {
            m.insert("args".into(), json!(self.args));
        }
        let mut section = |key: &str,
                           field: &str,
                           plain: &[(String, String)],
                           secret: &[(String, String)]|
         -> Result<(), Failure> {
            if plain.is_empty() && secret.is_empty() {
                return Ok(());
            }
            let mut obj = Map::new();
            for (k, v) in plain {
                obj.insert(k.clone(), json!(v));
            }
            for (k, v) in secret {
                let id = secret_id_for(owner.0, owner.1, server, field, k);
                keychain().set(&id, v)?;
                obj.insert(k.clone(), json!(reference(&id)));
            }
            m.insert(key.into(), Value::Object(obj));
            Ok(())
        };
        section(
            "env",
            "env",
            &pairs(&self.env, "env")?,
            &pairs(&self.secret_env, "secret-env")?,
        )?;
        section(
            "headers",
            "headers",
            &pairs(&self.header, "header")?,
            &pairs(&self.secret_header, "secret-header")?,
        )?;
        if let Some(c) = &self.cwd {
            m.insert("cwd".into(), json!(c));
        }
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        Ok(m)
    }
}

/// `--FLAG NAME=VALUE` arguments as pairs; one without `=` is a usage error.
pub(crate) fn name_values(
    given: &[String],
    flag: &str,
    shape: &str,
) -> Result<Vec<(String, String)>, crate::Failure> {
    given
        .iter()
        .map(|g| {
            g.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| crate::Failure::Usage(format!("--{flag} {g}: give {shape}")))
        })
        .collect()
}
