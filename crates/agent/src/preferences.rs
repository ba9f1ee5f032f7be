//! Which of the person's models answers a sampling request, by the
//! request's `modelPreferences` (MCP: `hints` are names, or parts of names,
//! in the order the server prefers them; `costPriority`, `speedPriority` and
//! `intelligencePriority` weigh the rest, 0 to 1). The models to choose from
//! are the ones the person configured: each provider's default model and
//! the models it lists context windows for. A hint is matched as a part of
//! a model's name, case folded; a family name (`claude`, `gpt`, `gemini`,
//! `llama`) also matches its provider's kind. Without a match the
//! priorities pick by what the model's name says of its size; without
//! either, the default provider and model answer.

use serde::Serialize;
use serde_json::Value;

use crate::settings::{AgentSettings, ProviderConfig, ProviderKind};

/// The model chosen, and why (the ask dialog says it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelChoice {
    pub provider: String,
    pub model: String,
    pub why: String,
}

/// One configured model.
struct Candidate<'a> {
    provider: &'a ProviderConfig,
    model: String,
}

fn candidates(settings: &AgentSettings) -> Vec<Candidate<'_>> {
    let mut out: Vec<Candidate<'_>> = Vec::new();
    for p in &settings.providers {
        let models = p
            .default_model
            .iter()
            .cloned()
            .chain(p.context_windows.keys().cloned());
        for model in models {
            if !out
                .iter()
                .any(|c| c.provider.id == p.id && c.model == model)
            {
                out.push(Candidate { provider: p, model });
            }
        }
    }
    out
}

/// The family a hint names that a provider's kind serves.
fn family_of(kind: ProviderKind) -> &'static [&'static str] {
    match kind {
        ProviderKind::Anthropic => &["claude", "anthropic"],
        ProviderKind::OpenAi => &["gpt", "openai", "o1", "o3", "o4"],
        ProviderKind::Gemini => &["gemini", "google"],
        ProviderKind::Ollama => &["llama", "ollama", "mistral", "qwen"],
        ProviderKind::OpenAiCompatible => &[],
    }
}

/// What a model's name says of it: (small and fast, large and able).
fn size_of(model: &str) -> (bool, bool) {
    let m = model.to_lowercase();
    let small = [
        "mini", "nano", "haiku", "flash", "lite", "small", "8b", "7b", "3b", "1b",
    ]
    .iter()
    .any(|w| m.contains(w));
    let large = !small
        && [
            "opus", "pro", "large", "70b", "405b", "ultra", "sonnet", "gpt-5", "o3",
        ]
        .iter()
        .any(|w| m.contains(w));
    (small, large)
}

fn priority(prefs: &Value, key: &str) -> f64 {
    prefs[key].as_f64().unwrap_or(0.0).clamp(0.0, 1.0)
}

/// Choose a model for `prefs` (the request's `modelPreferences`, or null).
pub fn choose(settings: &AgentSettings, prefs: &Value) -> Option<ModelChoice> {
    let all = candidates(settings);
    let default = settings.default_provider().and_then(|p| {
        p.default_model.clone().map(|m| ModelChoice {
            provider: p.id.clone(),
            model: m,
            why: String::new(),
        })
    });
    let pick = |c: &Candidate<'_>, why: String| ModelChoice {
        provider: c.provider.id.clone(),
        model: c.model.clone(),
        why,
    };
    // The hints, in the server's order: a part of a name, then a family.
    for hint in prefs["hints"].as_array().into_iter().flatten() {
        let Some(name) = hint["name"]
            .as_str()
            .map(str::to_lowercase)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if let Some(c) = all.iter().find(|c| c.model.to_lowercase().contains(&name)) {
            return Some(pick(
                c,
                format!("the server's hint \"{name}\" is part of its name"),
            ));
        }
        if let Some(c) = all
            .iter()
            .find(|c| family_of(c.provider.kind).iter().any(|f| name.contains(f)))
        {
            return Some(pick(
                c,
                format!(
                    "the server's hint \"{name}\" names a model of {}'s family (no configured model has that name)",
                    c.provider.id
                ),
            ));
        }
    }
    let (cost, speed, intelligence) = (
        priority(prefs, "costPriority"),
        priority(prefs, "speedPriority"),
        priority(prefs, "intelligencePriority"),
    );
    if all.len() > 1 && (cost > 0.0 || speed > 0.0 || intelligence > 0.0) {
        let wants_small = cost.max(speed) > intelligence;
        let found = all.iter().find(|c| {
            let (small, large) = size_of(&c.model);
            if wants_small { small } else { large }
        });
        if let Some(c) = found {
            let why = if wants_small {
                format!(
                    "no hint matched; cost {cost:.1} and speed {speed:.1} over intelligence {intelligence:.1}: its name says it is a small, fast model"
                )
            } else {
                format!(
                    "no hint matched; intelligence {intelligence:.1} over cost {cost:.1} and speed {speed:.1}: its name says it is a large model"
                )
            };
            return Some(pick(c, why));
        }
    }
    let asked = prefs["hints"].as_array().is_some_and(|h| !h.is_empty())
        || cost > 0.0
        || speed > 0.0
        || intelligence > 0.0;
    default.map(|d| ModelChoice {
        why: if asked {
            "no configured model matches the server's preferences: the default model".into()
        } else {
            "the server states no preference: the default model".into()
        },
        ..d
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings() -> AgentSettings {
        let provider = |id: &str, kind, model: &str, more: &[&str]| ProviderConfig {
            id: id.into(),
            kind,
            base_url: None,
            api_key_env: None,
            default_model: Some(model.into()),
            context_windows: more.iter().map(|m| (m.to_string(), 128_000)).collect(),
        };
        AgentSettings {
            providers: vec![
                provider("openai", ProviderKind::OpenAi, "gpt-5", &["gpt-5-mini"]),
                provider(
                    "anthropic",
                    ProviderKind::Anthropic,
                    "claude-sonnet-4-5",
                    &[],
                ),
            ],
            default_provider: Some("openai".into()),
            ..AgentSettings::default()
        }
    }

    fn chosen(prefs: Value) -> (String, String) {
        let c = choose(&settings(), &prefs).unwrap();
        (format!("{}:{}", c.provider, c.model), c.why)
    }

    #[test]
    fn hints_first_in_the_servers_order_then_a_family() {
        let (m, why) = chosen(json!({"hints": [{"name": "sonnet"}, {"name": "gpt-5-mini"}]}));
        assert_eq!(m, "anthropic:claude-sonnet-4-5");
        assert!(why.contains("\"sonnet\""), "{why}");
        let (m, _) = chosen(json!({"hints": [{"name": "gemini-2.5"}, {"name": "mini"}]}));
        assert_eq!(m, "openai:gpt-5-mini");
        let (m, why) = chosen(json!({"hints": [{"name": "claude-3-opus"}]}));
        assert_eq!(m, "anthropic:claude-sonnet-4-5");
        assert!(why.contains("family"), "{why}");
    }

    #[test]
    fn priorities_weigh_what_the_names_say_then_the_default() {
        let (m, why) = chosen(json!({"speedPriority": 0.9, "intelligencePriority": 0.2}));
        assert_eq!(m, "openai:gpt-5-mini");
        assert!(why.contains("speed 0.9"), "{why}");
        let (m, _) = chosen(json!({"intelligencePriority": 1.0}));
        assert_eq!(m, "openai:gpt-5");
        let (m, why) = chosen(Value::Null);
        assert_eq!(m, "openai:gpt-5");
        assert!(why.contains("no preference"), "{why}");
        let (m, why) = chosen(json!({"hints": [{"name": "mistral-large"}]}));
        assert_eq!(m, "openai:gpt-5");
        assert!(why.contains("no configured model matches"), "{why}");
    }
}
