//! The values a person gives for a Registry server's inputs: each checked
//! against what its server.json declares (named by its id or by
//! server.json's own name, a pick list's value one of its options), then
//! the defaults it declares for the rest. The add into our file and into a
//! host's both take them from here.

use serde_json::Value;
use workbench_core::ErrorInfo;

/// The answers checked against the inputs: each names one (by its id, or
/// by what server.json calls the value: `WEATHER_API_KEY` for
/// `weather-weather-api-key` of the entry `named`), a pick list's value is
/// one of its options.
pub(super) fn answers<'a>(
    inputs: &'a [Value],
    given: &'a [(String, String)],
    named: &str,
) -> Result<Vec<(&'a str, &'a str)>, ErrorInfo> {
    let id_of = |i: &'a Value| i.get("id").and_then(Value::as_str);
    given
        .iter()
        .map(|(key, value)| {
            let alias = workbench_core::config::dialects::registry::input_id(named, key);
            let decl = inputs
                .iter()
                .find(|i| id_of(i) == Some(key.as_str()))
                .or_else(|| inputs.iter().find(|i| id_of(i) == Some(alias.as_str())))
                .ok_or_else(|| {
                    let ids: Vec<&str> = inputs.iter().filter_map(id_of).collect();
                    crate::invalid(format!(
                        "it asks for no input \"{key}\" (it asks for: {})",
                        if ids.is_empty() {
                            "nothing".into()
                        } else {
                            ids.join(", ")
                        }
                    ))
                })?;
            let id = id_of(decl).unwrap_or_default();
            if let Some(options) = decl.get("options").and_then(Value::as_array)
                && !options.iter().any(|o| o.as_str() == Some(value.as_str()))
            {
                return Err(crate::invalid(format!(
                    "\"{value}\" is not one of {id}'s choices: {}",
                    options
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            Ok((id, value.as_str()))
        })
        .collect()
}

/// An input's value as an add takes it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Answer<'a> {
    pub(super) id: &'a str,
    pub(super) value: &'a str,
    /// Nobody gave it: server.json's default (the server takes it left
    /// unset).
    pub(super) by_default: bool,
}

/// The answers given, then each input nobody answered that server.json
/// gives a default, answered with it.
pub(super) fn with_defaults<'a>(
    inputs: &'a [Value],
    given: Vec<(&'a str, &'a str)>,
) -> Vec<Answer<'a>> {
    let mut out: Vec<Answer<'a>> = given
        .into_iter()
        .map(|(id, value)| Answer {
            id,
            value,
            by_default: false,
        })
        .collect();
    for decl in inputs {
        if let (Some(id), Some(value)) = (
            decl.get("id").and_then(Value::as_str),
            decl.get("default").and_then(Value::as_str),
        ) && !out.iter().any(|a| a.id == id)
        {
            out.push(Answer {
                id,
                value,
                by_default: true,
            });
        }
    }
    out
}
