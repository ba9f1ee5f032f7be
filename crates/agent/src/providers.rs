//! LLM providers through the one client crate, genai: where each provider's
//! API is, which of genai's adapters speaks it (GPT-5 and other Responses
//! models go to the Responses API), the key (keychain, else the
//! environment), model lists, a test call, local servers found on this
//! machine, and the context window and image support of a model.

use std::time::{Duration, Instant};

use genai::adapter::AdapterKind;
use genai::resolver::{AuthData, Endpoint};
use genai::{ModelIden, ServiceTarget};
use serde::Serialize;
use workbench_core::config::secrets::Keychain;

use crate::error::{Error, Result};
use crate::settings::{ProviderConfig, ProviderKind};

/// Where a provider's key came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeySource {
    /// Stored in the OS keychain through the window or `mcpwb`.
    Keychain,
    /// Read from this environment variable.
    Environment { var: String },
    /// None found.
    Missing,
}

/// The keychain entry of a provider's key.
pub fn key_id(provider: &str) -> String {
    format!("agent.provider.{provider}.api_key")
}

/// The provider's key and where it came from. The keychain wins over the
/// environment: a key stored on purpose is the one meant.
pub fn resolve_key(provider: &ProviderConfig, keychain: &Keychain) -> (Option<String>, KeySource) {
    if let Ok(Some(key)) = keychain.get(&key_id(&provider.id))
        && !key.is_empty()
    {
        return (Some(key), KeySource::Keychain);
    }
    let var = provider
        .api_key_env
        .clone()
        .or_else(|| provider.kind.default_key_env().map(str::to_string));
    if let Some(var) = var
        && let Ok(value) = std::env::var(&var)
        && !value.is_empty()
    {
        return (Some(value), KeySource::Environment { var });
    }
    (None, KeySource::Missing)
}

/// The provider's API base, with the trailing slash genai joins paths to.
pub fn base_url(provider: &ProviderConfig) -> Result<String> {
    let url = match (&provider.base_url, provider.kind) {
        (Some(u), _) if !u.trim().is_empty() => u.trim().to_string(),
        (_, ProviderKind::OpenAi) => "https://api.openai.com/v1/".into(),
        (_, ProviderKind::Anthropic) => "https://api.anthropic.com/v1/".into(),
        (_, ProviderKind::Gemini) => "https://generativelanguage.googleapis.com/v1beta/".into(),
        (_, ProviderKind::Ollama) => "http://127.0.0.1:11434/".into(),
        (_, ProviderKind::OpenAiCompatible) => {
            return Err(Error::NoProvider(format!(
                "provider \"{}\" is OpenAI-compatible but has no base URL (e.g. http://127.0.0.1:1234/v1/ for LM Studio)",
                provider.id
            )));
        }
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(Error::NoProvider(format!(
            "provider \"{}\": the base URL {url} is not an http(s) address",
            provider.id
        )));
    }
    let url = if url.ends_with('/') {
        url
    } else {
        format!("{url}/")
    };
    // Anthropic's SDKs take the base without `/v1`
    // (`ANTHROPIC_BASE_URL=https://api.anthropic.com`) and add
    // `/v1/messages`: a proxy or gateway given either way is reached.
    if provider.kind == ProviderKind::Anthropic && !url.trim_end_matches('/').ends_with("/v1") {
        return Ok(format!("{url}v1/"));
    }
    Ok(url)
}

/// Where a request for `model` goes: the provider's base and the path its
/// API (as genai speaks it) adds — shown beside the base URL in Settings.
pub fn request_url(provider: &ProviderConfig, model: &str) -> Result<String> {
    let base = base_url(provider)?;
    let path = match adapter(provider.kind, model) {
        AdapterKind::Anthropic => "messages".to_string(),
        AdapterKind::OpenAIResp => "responses".to_string(),
        AdapterKind::Gemini => format!("models/{model}:streamGenerateContent"),
        AdapterKind::Ollama => "api/chat".to_string(),
        _ => "chat/completions".to_string(),
    };
    Ok(format!("{base}{path}"))
}

/// The genai adapter that speaks this provider's API for `model`.
pub fn adapter(kind: ProviderKind, model: &str) -> AdapterKind {
    match kind {
        // genai knows which OpenAI models need the Responses API (GPT-5,
        // codex, ...); everything else is chat completions.
        ProviderKind::OpenAi => match AdapterKind::from_model(model) {
            Ok(AdapterKind::OpenAIResp) => AdapterKind::OpenAIResp,
            _ => AdapterKind::OpenAI,
        },
        ProviderKind::Anthropic => AdapterKind::Anthropic,
        ProviderKind::Gemini => AdapterKind::Gemini,
        ProviderKind::Ollama => AdapterKind::Ollama,
        ProviderKind::OpenAiCompatible => AdapterKind::OpenAI,
    }
}

/// Everything genai needs to call `model` at `provider`.
pub fn target(
    provider: &ProviderConfig,
    model: &str,
    key: Option<String>,
) -> Result<ServiceTarget> {
    let kind = adapter(provider.kind, model);
    let auth = match key {
        Some(k) => AuthData::from_single(k),
        None if provider.kind.needs_key() => {
            let var = provider
                .api_key_env
                .as_deref()
                .or(provider.kind.default_key_env())
                .unwrap_or("the key's variable");
            return Err(Error::NoProvider(format!(
                "{} (provider \"{}\") needs an API key: store one in the Chat view's provider settings (kept in the OS keychain) or set {var}",
                provider.kind.label(),
                provider.id
            )));
        }
        // Local OpenAI-compatible servers take any key; genai wants one.
        None if provider.kind == ProviderKind::OpenAiCompatible => {
            AuthData::from_single("not-needed")
        }
        None => AuthData::None,
    };
    Ok(ServiceTarget {
        endpoint: Endpoint::from_owned(base_url(provider)?),
        auth,
        model: ModelIden::new(kind, model.to_string()),
    })
}

/// The models the provider lists.
pub async fn list_models(
    client: &genai::Client,
    provider: &ProviderConfig,
    key: Option<String>,
) -> Result<Vec<String>> {
    let kind = adapter(provider.kind, "");
    let auth = key.map(AuthData::from_single).unwrap_or(AuthData::None);
    let config = genai::resolver::ProviderConfig {
        endpoint: Some(Endpoint::from_owned(base_url(provider)?)),
        auth: Some(auth),
    };
    let mut models = tokio::time::timeout(
        Duration::from_secs(20),
        client.all_model_names(kind, config),
    )
    .await
    .map_err(|_| crate::retry::no_answer(provider, 20))?
    .map_err(|e| crate::retry::classify(provider, &e))?;
    models.sort();
    models.dedup();
    Ok(models)
}

/// What a test call found.
#[derive(Debug, Clone, Serialize)]
pub struct TestReport {
    pub model: String,
    pub reply: String,
    pub latency_ms: f64,
}

/// Ask `model` for a one-word reply: proves the address, the key and the model.
pub async fn test(
    client: &genai::Client,
    provider: &ProviderConfig,
    model: &str,
    key: Option<String>,
) -> Result<TestReport> {
    let target = target(provider, model, key)?;
    let request = genai::chat::ChatRequest::from_user("Reply with the single word: ready");
    let options = genai::chat::ChatOptions::default().with_max_tokens(16);
    let started = Instant::now();
    let response = tokio::time::timeout(
        Duration::from_secs(60),
        client.exec_chat(genai::ModelSpec::Target(target), request, Some(&options)),
    )
    .await
    .map_err(|_| crate::retry::no_answer(provider, 60))?
    .map_err(|e| crate::retry::classify(provider, &e))?;
    Ok(TestReport {
        model: model.to_string(),
        reply: response.first_text().unwrap_or_default().to_string(),
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// A local LLM server answering on this machine.
#[derive(Debug, Clone, Serialize)]
pub struct LocalServer {
    /// A provider ready to be added.
    pub provider: ProviderConfig,
    pub models: Vec<String>,
}

/// Where local servers are looked for: Ollama on 11434, LM Studio on 1234.
/// `MCPWB_LOCAL_LLM` replaces the list (`kind=url,...`; empty: look nowhere),
/// which keeps tests from finding whatever runs on the machine.
fn local_candidates() -> Vec<(ProviderKind, String, &'static str)> {
    match std::env::var("MCPWB_LOCAL_LLM") {
        Ok(list) => list
            .split(',')
            .filter_map(|item| {
                let (kind, url) = item.trim().split_once('=')?;
                let kind = ProviderKind::parse(kind)?;
                let id = if kind == ProviderKind::Ollama {
                    "ollama"
                } else {
                    "lmstudio"
                };
                Some((kind, url.to_string(), id))
            })
            .collect(),
        Err(_) => vec![
            (
                ProviderKind::Ollama,
                "http://127.0.0.1:11434/".into(),
                "ollama",
            ),
            (
                ProviderKind::OpenAiCompatible,
                "http://127.0.0.1:1234/v1/".into(),
                "lmstudio",
            ),
        ],
    }
}

/// Look for local LLM servers (each asked for its models, 1.5 s at most).
pub async fn find_local(client: &genai::Client) -> Vec<LocalServer> {
    let probes = local_candidates()
        .into_iter()
        .map(|(kind, url, id)| async move {
            let provider = ProviderConfig {
                id: id.to_string(),
                kind,
                base_url: Some(url),
                api_key_env: None,
                default_model: None,
                context_windows: Default::default(),
            };
            let models = tokio::time::timeout(
                Duration::from_millis(1500),
                list_models(client, &provider, None),
            )
            .await
            .ok()?
            .ok()?;
            let mut provider = provider;
            provider.default_model = models.first().cloned();
            Some(LocalServer { provider, models })
        });
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Context windows (tokens) of well-known model families, longest prefix
/// first; a provider's own override wins. Unknown models get 8,192 and the
/// window says the figure is assumed.
const CONTEXT_WINDOWS: &[(&str, u32)] = &[
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5", 16_385),
    ("gpt-oss", 131_072),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("claude", 200_000),
    ("gemini", 1_048_576),
    ("llama3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama3", 8_192),
    ("qwen3", 40_960),
    ("qwen2.5", 32_768),
    ("mistral", 32_768),
    ("deepseek", 128_000),
    ("gemma3", 131_072),
    ("phi4", 16_384),
];

pub const ASSUMED_CONTEXT_WINDOW: u32 = 8_192;

/// The model's context window and whether it came from the table or an
/// override (true) or was assumed (false).
pub fn context_window(provider: &ProviderConfig, model: &str) -> (u32, bool) {
    if let Some(n) = provider.context_windows.get(model) {
        return (*n, true);
    }
    let bare = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    CONTEXT_WINDOWS
        .iter()
        .filter(|(prefix, _)| bare.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or((ASSUMED_CONTEXT_WINDOW, false), |(_, n)| (*n, true))
}

/// Whether the model takes images in its input (tool results with images
/// are then passed as images; otherwise described in text).
pub fn accepts_images(model: &str) -> bool {
    let m = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    const VISION: &[&str] = &[
        "gpt-4o",
        "gpt-4.1",
        "gpt-5",
        "o1",
        "o3",
        "o4",
        "claude",
        "gemini",
        "llava",
        "llama3.2-vision",
        "qwen2.5vl",
        "qwen2.5-vl",
        "gemma3",
        "moondream",
        "minicpm-v",
        "pixtral",
    ];
    VISION.iter().any(|p| m.starts_with(p))
        && !m.starts_with("o1-mini")
        && !m.starts_with("o3-mini")
}

/// A configured provider as the window shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderView {
    pub config: ProviderConfig,
    pub key: KeySource,
    pub is_default: bool,
}

impl crate::Agent {
    fn provider_config(&self, id: &str) -> Result<ProviderConfig> {
        self.settings()?
            .provider(id)
            .cloned()
            .ok_or_else(|| Error::NoProvider(format!("no provider named \"{id}\" in the settings")))
    }

    fn key_of(&self, provider: &ProviderConfig) -> Option<String> {
        resolve_key(provider, &self.inner.keychain).0
    }

    /// The configured providers, each with where its key comes from.
    pub fn providers(&self) -> Result<Vec<ProviderView>> {
        let settings = self.settings()?;
        let default = settings.default_provider().map(|p| p.id.clone());
        Ok(settings
            .providers
            .iter()
            .map(|p| ProviderView {
                key: resolve_key(p, &self.inner.keychain).1,
                is_default: default.as_deref() == Some(p.id.as_str()),
                config: p.clone(),
            })
            .collect())
    }

    /// Add a provider or replace the one with the same id; the first one
    /// added becomes the default.
    pub fn save_provider(&self, config: ProviderConfig, make_default: bool) -> Result<()> {
        let id = config.id.trim().to_string();
        if id.is_empty() || id.contains(|c: char| c.is_whitespace() || c == '/') {
            return Err(Error::Invalid(format!(
                "\"{id}\" cannot name a provider: use letters, digits, - or _"
            )));
        }
        if config.kind == ProviderKind::OpenAiCompatible || config.base_url.is_some() {
            base_url(&config)?;
        }
        self.update_settings(|s| {
            match s.providers.iter_mut().find(|p| p.id == id) {
                Some(p) => *p = config,
                None => s.providers.push(config),
            }
            if make_default || s.default_provider.is_none() {
                s.default_provider = Some(id);
            }
        })?;
        Ok(())
    }

    /// Remove a provider and its stored key.
    pub fn remove_provider(&self, id: &str) -> Result<()> {
        self.provider_config(id)?;
        self.update_settings(|s| {
            s.providers.retain(|p| p.id != id);
            if s.default_provider.as_deref() == Some(id) {
                s.default_provider = s.providers.first().map(|p| p.id.clone());
            }
        })?;
        let _ = self.inner.keychain.delete(&key_id(id));
        Ok(())
    }

    /// Keep a provider's key in the OS keychain (empty: forget it).
    pub fn set_provider_key(&self, id: &str, key: &str) -> Result<()> {
        self.provider_config(id)?;
        if key.trim().is_empty() {
            self.inner.keychain.delete(&key_id(id))?;
        } else {
            self.inner.keychain.set(&key_id(id), key.trim())?;
        }
        Ok(())
    }

    /// The models of a provider that may not be saved (its key resolved the usual way).
    pub async fn provider_models_of(&self, provider: &ProviderConfig) -> Result<Vec<String>> {
        list_models(&self.inner.client, provider, self.key_of(provider)).await
    }

    pub async fn provider_models(&self, id: &str) -> Result<Vec<String>> {
        let p = self.provider_config(id)?;
        list_models(&self.inner.client, &p, self.key_of(&p)).await
    }

    pub async fn test_provider(&self, id: &str, model: &str) -> Result<TestReport> {
        let p = self.provider_config(id)?;
        test(&self.inner.client, &p, model, self.key_of(&p)).await
    }

    /// Local LLM servers answering on this machine that are not configured yet.
    pub async fn local_providers(&self) -> Vec<LocalServer> {
        let configured: Vec<String> = self
            .settings()
            .map(|s| {
                s.providers
                    .iter()
                    .filter_map(|p| p.base_url.clone())
                    .collect()
            })
            .unwrap_or_default();
        find_local(&self.inner.client)
            .await
            .into_iter()
            .filter(|l| {
                !configured.contains(l.provider.base_url.as_ref().unwrap_or(&String::new()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(kind: ProviderKind) -> ProviderConfig {
        ProviderConfig {
            id: "p".into(),
            kind,
            base_url: None,
            api_key_env: None,
            default_model: None,
            context_windows: [("my-model".to_string(), 1234)].into(),
        }
    }

    #[test]
    fn gpt5_goes_to_the_responses_api_and_compatible_servers_to_chat_completions() {
        assert_eq!(
            adapter(ProviderKind::OpenAi, "gpt-5"),
            AdapterKind::OpenAIResp
        );
        assert_eq!(
            adapter(ProviderKind::OpenAi, "gpt-4o-mini"),
            AdapterKind::OpenAI
        );
        assert_eq!(
            adapter(ProviderKind::OpenAiCompatible, "gpt-5"),
            AdapterKind::OpenAI
        );
        assert_eq!(
            adapter(ProviderKind::Ollama, "llama3.2"),
            AdapterKind::Ollama
        );
    }

    #[test]
    fn context_windows_come_from_overrides_then_the_table_then_an_assumption() {
        let p = provider(ProviderKind::OpenAi);
        assert_eq!(context_window(&p, "my-model"), (1234, true));
        assert_eq!(context_window(&p, "gpt-4o-mini"), (128_000, true));
        assert_eq!(context_window(&p, "gpt-4-0613"), (8_192, true));
        assert_eq!(context_window(&p, "meta/llama3.1:8b"), (131_072, true));
        assert_eq!(
            context_window(&p, "mystery"),
            (ASSUMED_CONTEXT_WINDOW, false)
        );
    }

    #[test]
    fn a_missing_key_or_base_url_says_what_to_do() {
        let e = target(&provider(ProviderKind::Anthropic), "claude-x", None).unwrap_err();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let e = target(&provider(ProviderKind::OpenAiCompatible), "m", None).unwrap_err();
        assert!(e.to_string().contains("base URL"), "{e}");
        let mut p = provider(ProviderKind::OpenAiCompatible);
        p.base_url = Some("http://127.0.0.1:1234/v1".into());
        let t = target(&p, "m", None).unwrap();
        assert_eq!(t.endpoint.base_url(), "http://127.0.0.1:1234/v1/");
    }

    /// The walk: an Anthropic gateway given as `http://host:port` (as the
    /// SDKs take it) got a 404 from `/messages`. Both forms reach
    /// `/v1/messages`, and the form says so.
    #[test]
    fn an_anthropic_base_is_taken_with_or_without_its_v1() {
        let mut p = provider(ProviderKind::Anthropic);
        for given in [
            "http://127.0.0.1:8080",
            "http://127.0.0.1:8080/",
            "http://127.0.0.1:8080/v1",
            "http://127.0.0.1:8080/v1/",
        ] {
            p.base_url = Some(given.into());
            assert_eq!(
                base_url(&p).unwrap(),
                "http://127.0.0.1:8080/v1/",
                "{given}"
            );
            assert_eq!(
                request_url(&p, "claude-x").unwrap(),
                "http://127.0.0.1:8080/v1/messages",
                "{given}"
            );
        }
        p.base_url = None;
        assert_eq!(
            request_url(&p, "claude-x").unwrap(),
            "https://api.anthropic.com/v1/messages"
        );
        let mut o = provider(ProviderKind::OpenAiCompatible);
        o.base_url = Some("http://127.0.0.1:1234/v1".into());
        assert_eq!(
            request_url(&o, "m").unwrap(),
            "http://127.0.0.1:1234/v1/chat/completions"
        );
    }
}
