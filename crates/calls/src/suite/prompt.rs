//! Prompt cases (evals): a prompt given to each of the suite's models, the
//! tools it may use, and what its calls and answer must be. This module is
//! the file format and the judge — pure: what a run saw goes in, the failed
//! assertions come out. The runs themselves are the agent's
//! (`workbench_agent::eval`): a model, a hidden chat, the one call path.
//!
//! ```json
//! { "server": "weather", "models": ["openai:gpt-5-mini", "ollama:llama3.1:8b"],
//!   "cases": [
//!     { "name": "forecast", "prompt": "What's the weather in Paris?",
//!       "expect": { "calls": [{ "tool": "weather/get_forecast",
//!                               "arguments": { "/city": { "matches": "(?i)paris" } } }],
//!                   "notCalled": ["weather/delete_all"],
//!                   "answer": { "contains": "Paris" }, "maxSteps": 4 },
//!       "runs": 5, "passRate": 0.8 } ] }
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::expect::{self, Failure, check_json, check_text};
use super::{JsonExpect, TextExpect};

/// The most runs a case may ask for (each run is a paid model turn).
pub const MAX_RUNS: u32 = 100;

/// One prompt case.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PromptCase {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the person says to the model.
    pub prompt: String,
    /// The servers whose tools the model gets (absent: the suite's server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<String>>,
    /// The chat's system prompt for this case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    #[serde(default)]
    pub expect: PromptExpect,
    /// How many times each model is asked (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u32>,
    /// The share of runs that must pass (default 1.0: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    /// `server/tool` → the result the model gets instead of calling it: with
    /// `results` nothing runs; a tool not listed is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<BTreeMap<String, Value>>,
    /// Only these of the suite's models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// A run is cut after this long (default: the runner's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Not run (a reason, or true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<Value>,
}

impl PromptCase {
    pub fn runs(&self) -> u32 {
        self.runs.unwrap_or(1)
    }

    pub fn pass_rate(&self) -> f64 {
        self.pass_rate.unwrap_or(1.0)
    }

    /// The servers the model gets, given the suite's default.
    pub fn servers_with(&self, suite_server: Option<&str>) -> Vec<String> {
        match &self.servers {
            Some(s) => s.clone(),
            None => suite_server.map(str::to_string).into_iter().collect(),
        }
    }
}

/// What a prompt case's runs must show. Every key is optional.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PromptExpect {
    /// Calls the model must make (each matched by some call it made).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallExpect>,
    /// The calls must come in the order listed (others may come between).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_order: bool,
    /// Tools (`server/tool`) the model must not call (asking counts, even
    /// when the call was refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_called: Vec<String>,
    /// Over the model's last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<TextExpect>,
    /// The turn ends within this many model steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
}

/// One call the model must make.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CallExpect {
    /// `server/tool` (or the tool's name alone).
    pub tool: String,
    /// JSON pointer into the arguments → what it must be.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arguments: BTreeMap<String, JsonExpect>,
}

/// The model strings a suite may name: `PROVIDER:MODEL` (the model may hold
/// colons itself, as Ollama's do).
pub fn split_model(spec: &str) -> Option<(&str, &str)> {
    let (provider, model) = spec.split_once(':')?;
    (!provider.trim().is_empty() && !model.trim().is_empty()).then_some((provider, model))
}

/// What is wrong with a prompt case (checked when the suite loads).
pub(super) fn check(case: &PromptCase, suite_server: Option<&str>) -> Result<(), String> {
    if case.prompt.trim().is_empty() {
        return Err("\"prompt\" is empty".into());
    }
    if case.servers_with(suite_server).is_empty() {
        return Err(
            "which servers may the model use? Give \"server\" in the suite or \"servers\" in the case"
                .into(),
        );
    }
    if let Some(r) = case.runs
        && !(1..=MAX_RUNS).contains(&r)
    {
        return Err(format!("\"runs\" is {r}; give 1 to {MAX_RUNS}"));
    }
    if let Some(p) = case.pass_rate
        && !(0.0..=1.0).contains(&p)
    {
        return Err(format!("\"passRate\" is {p}; give a share from 0 to 1"));
    }
    if case.expect.max_steps == Some(0) {
        return Err("\"expect.maxSteps\" must be at least 1".into());
    }
    for m in case.models.iter().flatten() {
        if split_model(m).is_none() {
            return Err(format!(
                "models: {m:?} is not PROVIDER:MODEL (e.g. \"openai:gpt-5-mini\")"
            ));
        }
    }
    for (i, c) in case.expect.calls.iter().enumerate() {
        if c.tool.trim().is_empty() {
            return Err(format!("expect.calls[{i}]: which \"tool\"?"));
        }
        let probe = super::Expect {
            json: c.arguments.clone(),
            ..Default::default()
        };
        expect::check_patterns(&probe).map_err(|e| {
            format!(
                "expect.calls[{i}].arguments: {}",
                e.trim_start_matches("expect.json")
            )
        })?;
    }
    if let Some(a) = &case.expect.answer {
        let probe = super::Expect {
            text: Some(a.clone()),
            ..Default::default()
        };
        expect::check_patterns(&probe).map_err(|e| e.replace("expect.text", "expect.answer"))?;
    }
    if let Some(results) = &case.results {
        for key in results.keys() {
            if !key.contains('/') {
                return Err(format!(
                    "results: {key:?} is not server/tool (whose result is it?)"
                ));
            }
        }
    }
    Ok(())
}

/// One call the model asked for in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeenCall {
    /// `server/tool`, or the name the model used when it matched no tool.
    pub tool: String,
    pub arguments: Value,
}

/// What one run showed.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub calls: Vec<SeenCall>,
    /// The model's last answer (its text).
    pub answer: String,
    pub steps: u32,
    /// The turn stopped at its step limit.
    pub step_limit: bool,
    /// The turn failed (the provider, a timeout): why.
    pub error: Option<String>,
}

fn fail(assertion: impl Into<String>, message: impl Into<String>) -> Failure {
    Failure {
        assertion: assertion.into(),
        message: message.into(),
        diff: None,
    }
}

/// Whether a seen call is of the tool `want` names.
pub fn names(want: &str, seen: &str) -> bool {
    if want == seen {
        return true;
    }
    // A bare tool name matches that tool of any server.
    !want.contains('/') && seen.rsplit('/').next() == Some(want)
}

fn list(calls: &[SeenCall]) -> String {
    if calls.is_empty() {
        return "no tool".into();
    }
    calls
        .iter()
        .map(|c| c.tool.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The assertions of `expect` against one run; empty when it passed.
pub fn judge(expect: &PromptExpect, seen: &Seen) -> Vec<Failure> {
    let mut out = Vec::new();
    if let Some(e) = &seen.error {
        out.push(fail("turn", format!("the turn failed: {e}")));
    }
    let failures_of = |i: usize, c: &CallExpect, call: &SeenCall| {
        check_json(
            &c.arguments,
            Some(&call.arguments),
            "the arguments",
            &format!("calls[{i}] arguments"),
        )
    };
    let mut from = 0;
    for (i, c) in expect.calls.iter().enumerate() {
        let start = if expect.in_order { from } else { 0 };
        let found = seen.calls[start..]
            .iter()
            .position(|call| names(&c.tool, &call.tool) && failures_of(i, c, call).is_empty());
        if let Some(at) = found {
            from = start + at + 1;
            continue;
        }
        let of_tool: Vec<&SeenCall> = seen
            .calls
            .iter()
            .filter(|s| names(&c.tool, &s.tool))
            .collect();
        match of_tool.first() {
            None => out.push(fail(
                format!("calls[{i}]"),
                format!(
                    "{} was not called (the model called {})",
                    c.tool,
                    list(&seen.calls)
                ),
            )),
            Some(_)
                if expect.in_order
                    && of_tool
                        .iter()
                        .any(|call| failures_of(i, c, call).is_empty()) =>
            {
                out.push(fail(
                    format!("calls[{i}]"),
                    format!(
                        "{} was called, but not after the calls before it (the model called {})",
                        c.tool,
                        list(&seen.calls)
                    ),
                ))
            }
            Some(first) => {
                let mut why = failures_of(i, c, first);
                for f in &mut why {
                    f.message =
                        format!("{} called with {}: {}", c.tool, first.arguments, f.message);
                }
                out.extend(why);
            }
        }
    }
    for (i, name) in expect.not_called.iter().enumerate() {
        if let Some(call) = seen.calls.iter().find(|s| names(name, &s.tool)) {
            out.push(fail(
                format!("notCalled[{i}]"),
                format!("{} was called (with {})", call.tool, call.arguments),
            ));
        }
    }
    if let Some(a) = &expect.answer {
        out.extend(check_text(a, &seen.answer, "answer"));
    }
    if let Some(max) = expect.max_steps
        && (seen.step_limit || seen.steps > max)
    {
        out.push(fail(
            "maxSteps",
            format!("the model was still calling tools after {max} steps"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expect(v: Value) -> PromptExpect {
        serde_json::from_value(v).unwrap()
    }

    fn call(tool: &str, arguments: Value) -> SeenCall {
        SeenCall {
            tool: tool.into(),
            arguments,
        }
    }

    fn seen(calls: Vec<SeenCall>, answer: &str) -> Seen {
        Seen {
            steps: calls.len() as u32 + 1,
            calls,
            answer: answer.into(),
            ..Default::default()
        }
    }

    fn assertions(f: &[Failure]) -> Vec<&str> {
        f.iter().map(|f| f.assertion.as_str()).collect()
    }

    #[test]
    fn the_right_call_and_answer_pass() {
        let e = expect(json!({
            "calls": [{"tool": "weather/get_forecast", "arguments": {"/city": {"matches": "(?i)paris"}}}],
            "notCalled": ["weather/delete_all"], "answer": {"contains": "Paris"}, "maxSteps": 4
        }));
        let s = seen(
            vec![call("weather/get_forecast", json!({"city": "paris"}))],
            "Sunny in Paris",
        );
        assert_eq!(judge(&e, &s), vec![]);
    }

    #[test]
    fn planted_failures_are_named() {
        let e = expect(json!({
            "calls": [{"tool": "weather/get_forecast", "arguments": {"/city": {"matches": "(?i)paris"}}}],
            "notCalled": ["weather/delete_all"], "answer": {"contains": "Paris"}
        }));
        // Wrong tool.
        let f = judge(
            &e,
            &seen(vec![call("weather/get_alerts", json!({}))], "Paris"),
        );
        assert_eq!(assertions(&f), ["calls[0]"]);
        assert!(
            f[0].message
                .contains("was not called (the model called weather/get_alerts)")
        );
        // Wrong argument.
        let f = judge(
            &e,
            &seen(
                vec![call("weather/get_forecast", json!({"city": "London"}))],
                "Paris",
            ),
        );
        assert_eq!(assertions(&f), ["calls[0] arguments /city matches"]);
        assert!(f[0].message.contains("London"), "{}", f[0].message);
        // A forbidden tool, and an answer without the word.
        let f = judge(
            &e,
            &seen(
                vec![
                    call("weather/get_forecast", json!({"city": "Paris"})),
                    call("weather/delete_all", json!({"sure": true})),
                ],
                "done",
            ),
        );
        assert_eq!(assertions(&f), ["notCalled[0]", "answer.contains"]);
    }

    #[test]
    fn order_when_asked() {
        let e = expect(json!({"calls": [{"tool": "a"}, {"tool": "b"}], "inOrder": true}));
        let ba = seen(vec![call("s/b", json!({})), call("s/a", json!({}))], "");
        let f = judge(&e, &ba);
        assert_eq!(assertions(&f), ["calls[1]"]);
        assert!(f[0].message.contains("not after"), "{}", f[0].message);
        let unordered = expect(json!({"calls": [{"tool": "a"}, {"tool": "b"}]}));
        assert!(judge(&unordered, &ba).is_empty());
        let ab = seen(vec![call("s/a", json!({})), call("s/b", json!({}))], "");
        assert!(judge(&e, &ab).is_empty());
    }

    #[test]
    fn steps_and_failed_turns() {
        let e = expect(json!({"maxSteps": 2}));
        let mut s = seen(vec![], "x");
        s.step_limit = true;
        assert_eq!(assertions(&judge(&e, &s)), ["maxSteps"]);
        let mut s = seen(vec![], "");
        s.error = Some("401".into());
        assert_eq!(assertions(&judge(&PromptExpect::default(), &s)), ["turn"]);
    }

    #[test]
    fn models_are_provider_and_model() {
        assert_eq!(
            split_model("ollama:llama3.1:8b"),
            Some(("ollama", "llama3.1:8b"))
        );
        assert_eq!(split_model("gpt-5"), None);
        assert_eq!(split_model(":x"), None);
    }
}
