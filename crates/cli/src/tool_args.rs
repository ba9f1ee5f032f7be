//! How a person types a tool's arguments on the command line: a JSON
//! object (`--args`, or the text after the tool's name in `mcpwb call`),
//! read from a file (`--args @FILE`) or stdin (`--args -`), and single
//! arguments (`-a KEY=VALUE`), each typed by the tool's input schema: text
//! where the schema takes text, JSON where it takes a number, a boolean,
//! an array or an object.

use std::io::Read;

use serde_json::{Map, Value};

use crate::Failure;

/// A tool's arguments as typed.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ToolArgs {
    /// The arguments as a JSON object; `@FILE` reads it from a file, `-`
    /// from stdin.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// One argument, KEY=VALUE (again for each): VALUE is text where the
    /// tool's schema takes text, else JSON (`-a count=3 -a tags='["x"]'`).
    /// Over `--args`' keys of the same name. A KEY the schema does not list
    /// is noted, and refused where the schema takes no other.
    #[arg(short = 'a', long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
}

impl ToolArgs {
    /// Whether any argument was typed.
    pub fn given(&self) -> bool {
        self.args.is_some() || !self.arg.is_empty()
    }

    /// The arguments: the JSON object (`--args` or `positional`, not both),
    /// then each `-a KEY=VALUE` typed by `schema` (the tool's
    /// `inputSchema`; None when it is not known: JSON when VALUE reads as
    /// JSON, else text).
    pub fn resolve(
        &self,
        positional: Option<&str>,
        schema: Option<&Value>,
    ) -> Result<Value, Failure> {
        let object = self.object(positional)?;
        self.typed(object, schema)
    }

    /// The JSON object alone (`--args` or `positional`), read once.
    pub fn object(&self, positional: Option<&str>) -> Result<Map<String, Value>, Failure> {
        let text = match (positional, self.args.as_deref()) {
            (Some(_), Some(_)) => {
                return Err(usage(
                    "give the arguments once: after the tool's name or with --args",
                ));
            }
            (Some(t), None) => Some(t.to_string()),
            (None, Some(a)) => Some(read(a)?),
            (None, None) => None,
        };
        match text {
            None => Ok(Map::new()),
            Some(t) => match serde_json::from_str::<Value>(&t) {
                Ok(Value::Object(o)) => Ok(o),
                Ok(_) => Err(usage("the arguments must be a JSON object ({...})")),
                Err(e) => Err(usage(format!("the arguments are not JSON: {e}"))),
            },
        }
    }

    /// `object` with each `-a KEY=VALUE` put over it, typed by `schema`.
    pub fn typed(
        &self,
        mut object: Map<String, Value>,
        schema: Option<&Value>,
    ) -> Result<Value, Failure> {
        for pair in &self.arg {
            let (key, value) = split(pair)?;
            let property = schema.and_then(|s| s.get("properties")?.get(key));
            if let (None, Some(schema)) = (property, schema) {
                unlisted_property(key, schema)?;
            }
            object.insert(key.to_string(), typed(key, value, property)?);
        }
        if let Some(missing) = schema.and_then(|s| missing_required(&object, s)) {
            eprintln!("note: {missing}; sent without, for the server to answer");
        }
        Ok(Value::Object(object))
    }
}

/// What the schema's `required` names that `object` lacks, as a sentence
/// (None when nothing is missing): the server will most likely refuse the
/// call, and its own words for it vary.
fn missing_required(object: &Map<String, Value>, schema: &Value) -> Option<String> {
    let missing: Vec<String> = schema
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !object.contains_key(*name))
        .map(str::to_string)
        .collect();
    let first = missing.first()?;
    Some(format!(
        "the tool's schema requires {} (-a {}=…)",
        listed(&missing),
        crate::print::clean(first)
    ))
}

/// A prompt's arguments as typed: all text (MCP's prompts take strings).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PromptArgs {
    /// The arguments as a JSON object of strings; `@FILE` reads it from a
    /// file, `-` from stdin.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// One argument, KEY=VALUE (again for each), taken as text. Over
    /// `--args`' keys of the same name. A KEY the prompt does not declare is
    /// refused.
    #[arg(short = 'a', long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
}

impl PromptArgs {
    /// The arguments: `--args`, then each `-a KEY=VALUE` as text. Checked
    /// against `declared`, the prompt as its server listed it (None: not
    /// listed, or not yet known): an `-a` name it does not declare is
    /// refused (`--args` sends any object as it is), and a required
    /// argument not given is noted.
    pub fn resolve(&self, declared: Option<&Value>) -> Result<Value, Failure> {
        let as_tool = ToolArgs {
            args: self.args.clone(),
            arg: Vec::new(),
        };
        let mut object = as_tool.object(None)?;
        let arguments = declared.map(|p| match p.get("arguments") {
            Some(Value::Array(a)) => a.as_slice(),
            _ => &[],
        });
        let name_of = |a: &Value| a.get("name").and_then(Value::as_str).map(str::to_string);
        for pair in &self.arg {
            let (key, value) = split(pair)?;
            if let Some(arguments) = arguments
                && !arguments.iter().any(|a| name_of(a).as_deref() == Some(key))
            {
                let names: Vec<String> = arguments.iter().filter_map(name_of).collect();
                let takes = match names.is_empty() {
                    true => "it takes none".to_string(),
                    false => format!("it takes: {}", listed(&names)),
                };
                return Err(usage(format!(
                    "-a {key}: the prompt takes no argument {key} ({takes}); \
                     --args sends any object as it is"
                )));
            }
            object.insert(key.to_string(), Value::String(value.to_string()));
        }
        for argument in arguments.unwrap_or_default() {
            let required = argument.get("required") == Some(&Value::Bool(true));
            match name_of(argument) {
                Some(name) if required && !object.contains_key(&name) => eprintln!(
                    "note: the prompt's argument {} is required and not given (-a {}=…)",
                    crate::print::clean(&name),
                    crate::print::clean(&name)
                ),
                _ => {}
            }
        }
        Ok(Value::Object(object))
    }
}

/// `-a KEY` for a name the tool's schema does not list among its
/// `properties`: refused where the schema takes no other
/// (`additionalProperties: false`), else sent with a note on stderr (a typo
/// a server would ignore). A schema listing no properties says nothing.
fn unlisted_property(key: &str, schema: &Value) -> Result<(), Failure> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    let names: Vec<String> = properties.keys().cloned().collect();
    let says = format!(
        "-a {key}: the tool's schema lists no argument {key} (it lists: {})",
        listed(&names)
    );
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        return Err(usage(format!(
            "{says} and takes no other; --args sends any object as it is"
        )));
    }
    eprintln!("note: {says}; sent as given");
    Ok(())
}

/// A note for a call to a tool its server does not list (a typo, most
/// often; an author may mean it, so the call is still sent): the listed
/// name nearest to it, else the names.
pub fn unlisted_tool(server: &str, tool: &str, listed_names: &[String]) -> String {
    format!(
        "{}; sent as given",
        no_such_tool(server, tool, listed_names)
    )
}

/// `SERVER lists no tool TOOL`, with the listed name nearest to it, else the
/// names.
pub fn no_such_tool(server: &str, tool: &str, listed_names: &[String]) -> String {
    let nearest = listed_names
        .iter()
        .map(|n| {
            (
                strsim::levenshtein(&n.to_lowercase(), &tool.to_lowercase()),
                n,
            )
        })
        .filter(|(d, n)| *d <= (n.chars().count() / 3).max(2))
        .min_by_key(|(d, _)| *d);
    let hint = match nearest {
        Some((_, n)) => format!("did you mean {}?", crate::print::clean(n)),
        None if listed_names.is_empty() => "it lists none".to_string(),
        None => format!("it lists: {}", listed(listed_names)),
    };
    format!(
        "{} lists no tool {} ({hint})",
        crate::print::clean(server),
        crate::print::clean(tool)
    )
}

/// Names a server gave, for a line on the terminal: cleaned of control
/// sequences, the first twelve.
fn listed(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut out: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| crate::print::clean(n))
        .collect();
    if names.len() > SHOWN {
        out.push(format!("… {} more", names.len() - SHOWN));
    }
    out.join(", ")
}

/// `KEY=VALUE` (only the first `=` splits), the key not empty.
fn split(pair: &str) -> Result<(&str, &str), Failure> {
    match pair.split_once('=') {
        Some(("", _)) => Err(usage(format!("-a {pair}: the KEY is empty"))),
        Some(kv) => Ok(kv),
        None => Err(usage(format!("-a {pair}: give it as KEY=VALUE"))),
    }
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// `--args`' text: itself, a file's (`@FILE`), or stdin's (`-`).
fn read(arg: &str) -> Result<String, Failure> {
    if arg == "-" {
        // Read once: the arguments are checked before the servers start,
        // then used.
        static STDIN: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
        return STDIN
            .get_or_init(|| {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map(|_| text)
                    .map_err(|e| format!("--args -: stdin could not be read: {e}"))
            })
            .clone()
            .map_err(usage);
    }
    match arg.strip_prefix('@') {
        Some(file) => {
            let bytes = workbench_app::read_in(std::path::Path::new(file), 64 << 20)
                .map_err(|e| usage(format!("--args @{}", e.message)))?;
            String::from_utf8(bytes).map_err(|_| usage(format!("--args @{file}: not UTF-8 text")))
        }
        None => Ok(arg.to_string()),
    }
}

/// The JSON types a property's schema allows (empty: it does not say).
fn types(property: &Value) -> Vec<&str> {
    let mut out: Vec<&str> = match &property["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    // `anyOf`/`oneOf` of typed branches (a nullable string, a union).
    for key in ["anyOf", "oneOf"] {
        for branch in property[key].as_array().into_iter().flatten() {
            out.extend(types(branch));
        }
    }
    if out.is_empty()
        && property["enum"]
            .as_array()
            .is_some_and(|e| e.iter().all(Value::is_string))
    {
        out.push("string");
    }
    out
}

/// VALUE as the property takes it.
fn typed(key: &str, value: &str, property: Option<&Value>) -> Result<Value, Failure> {
    let as_json = serde_json::from_str::<Value>(value);
    let allowed = property.map(types).unwrap_or_default();
    if allowed.is_empty() {
        // The schema does not say: JSON when it reads as JSON, else text.
        return Ok(as_json.unwrap_or_else(|_| Value::String(value.to_string())));
    }
    // Text where text is taken, unless the value is JSON of another type
    // the property also takes (`-a limit=null` for a nullable string).
    if allowed.contains(&"string") {
        return Ok(match as_json {
            Ok(v) if !v.is_string() && fits(&v, &allowed) => v,
            _ => Value::String(value.to_string()),
        });
    }
    match as_json {
        Ok(v) if fits(&v, &allowed) => Ok(v),
        _ => Err(usage(format!(
            "-a {key}={value}: the tool's schema takes {} for {key}, not {value:?}",
            allowed
                .iter()
                .map(|t| spoken(t))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

/// A JSON type as a person says it.
fn spoken(t: &str) -> &str {
    match t {
        "number" => "a number",
        "integer" => "a whole number",
        "boolean" => "true or false",
        "array" => "a JSON array",
        "object" => "a JSON object",
        other => other,
    }
}

fn fits(v: &Value, allowed: &[&str]) -> bool {
    allowed.iter().any(|t| match *t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(json: Option<&str>, pairs: &[&str]) -> ToolArgs {
        ToolArgs {
            args: json.map(str::to_string),
            arg: pairs.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn said(f: Failure) -> String {
        match f {
            Failure::Usage(m) => m,
            _ => panic!("not a usage error"),
        }
    }

    fn ok(r: Result<Value, Failure>) -> Value {
        r.unwrap_or_else(|f| panic!("{}", said(f)))
    }

    fn schema() -> Value {
        json!({ "type": "object", "properties": {
            "message": { "type": "string" },
            "count": { "type": "integer" },
            "ratio": { "type": "number" },
            "loud": { "type": "boolean" },
            "tags": { "type": "array", "items": { "type": "string" } },
            "note": { "type": ["string", "null"] },
            "unit": { "enum": ["c", "f"] },
            "id": { "anyOf": [{ "type": "string" }, { "type": "integer" }] }
        }})
    }

    #[test]
    fn each_pair_is_typed_by_the_schema() {
        let pairs = [
            "message=42",
            "count=3",
            "ratio=0.5",
            "loud=true",
            r#"tags=["a","b"]"#,
            "note=null",
            "unit=c",
            "id=7",
            "extra=x=y",
        ];
        let got = ok(args(None, &pairs).resolve(None, Some(&schema())));
        assert_eq!(
            got,
            json!({
                // Text where the schema takes text, even when it reads as a number.
                "message": "42", "count": 3, "ratio": 0.5, "loud": true, "tags": ["a", "b"],
                "note": null, "unit": "c", "id": 7,
                // Not in the schema: text (it is not JSON); only the first `=` splits.
                "extra": "x=y"
            })
        );
    }

    #[test]
    fn a_value_the_schema_does_not_take_is_refused_with_what_it_takes() {
        let refused = args(None, &["count=three"]).resolve(None, Some(&schema()));
        let e = said(refused.unwrap_err());
        assert!(
            e.contains("the tool's schema takes a whole number for count, not \"three\""),
            "{e}"
        );
        let e = said(args(None, &["count"]).resolve(None, None).unwrap_err());
        assert!(e.contains("KEY=VALUE"), "{e}");
    }

    #[test]
    fn the_object_then_the_pairs_over_it() {
        let both = args(Some(r#"{"message":"hi","count":1}"#), &["count=2"]);
        let got = ok(both.resolve(None, Some(&schema())));
        assert_eq!(got, json!({ "message": "hi", "count": 2 }));
        let got = ok(args(None, &[]).resolve(Some(r#"{"a":1}"#), None));
        assert_eq!(got, json!({ "a": 1 }));
        assert!(args(Some("{}"), &[]).resolve(Some("{}"), None).is_err());
        assert!(args(Some("[1]"), &[]).resolve(None, None).is_err());
        assert_eq!(ok(args(None, &[]).resolve(None, None)), json!({}));
    }

    #[test]
    fn a_prompts_arguments_are_text() {
        let prompt = PromptArgs {
            args: Some(r#"{"topic":"cats"}"#.into()),
            arg: vec!["count=3".into(), "topic=dogs".into()],
        };
        let got = ok(prompt.resolve(None));
        assert_eq!(got, json!({ "topic": "dogs", "count": "3" }));
    }

    #[test]
    fn a_name_the_prompt_does_not_declare_is_refused_saying_what_it_takes() {
        let listed = json!({ "name": "greet", "arguments": [
            { "name": "topic", "required": true }, { "name": "style" }
        ]});
        let prompt = |pairs: &[&str]| PromptArgs {
            args: None,
            arg: pairs.iter().map(|p| p.to_string()).collect(),
        };
        let got = ok(prompt(&["topic=cats", "style=short"]).resolve(Some(&listed)));
        assert_eq!(got, json!({ "topic": "cats", "style": "short" }));
        let e = said(prompt(&["topik=cats"]).resolve(Some(&listed)).unwrap_err());
        assert!(
            e.contains("the prompt takes no argument topik (it takes: topic, style)"),
            "{e}"
        );
        let none = json!({ "name": "plain" });
        let e = said(prompt(&["a=1"]).resolve(Some(&none)).unwrap_err());
        assert!(e.contains("it takes none"), "{e}");
        // A required one missing is noted, not refused: the server answers.
        assert_eq!(ok(prompt(&[]).resolve(Some(&listed))), json!({}));
        // Not listed: nothing to check against.
        assert_eq!(ok(prompt(&["x=1"]).resolve(None)), json!({ "x": "1" }));
    }

    #[test]
    fn a_name_the_schema_does_not_list_is_refused_only_where_it_takes_no_other() {
        let mut closed = schema();
        closed["additionalProperties"] = json!(false);
        let e = said(
            args(None, &["mesage=hi"])
                .resolve(None, Some(&closed))
                .unwrap_err(),
        );
        assert!(
            e.contains("the tool's schema lists no argument mesage (it lists: "),
            "{e}"
        );
        assert!(e.contains("takes no other"), "{e}");
        // The raw object is sent as it is, for a server's answer to it.
        let raw = args(Some(r#"{"mesage":"hi"}"#), &[]).resolve(None, Some(&closed));
        assert_eq!(ok(raw), json!({ "mesage": "hi" }));
    }

    #[test]
    fn a_required_argument_not_given_is_named() {
        let schema = json!({
            "type": "object",
            "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
            "required": ["a", "b"]
        });
        let object = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            missing_required(&object(json!({ "a": 1 })), &schema).as_deref(),
            Some("the tool's schema requires b (-a b=…)")
        );
        assert_eq!(
            missing_required(&object(json!({})), &schema).as_deref(),
            Some("the tool's schema requires a, b (-a a=…)")
        );
        assert_eq!(
            missing_required(&object(json!({ "a": 1, "b": 2 })), &schema),
            None
        );
        assert_eq!(
            missing_required(&object(json!({})), &json!({ "type": "object" })),
            None
        );
    }

    #[test]
    fn a_tool_the_server_does_not_list_is_noted_with_the_nearest_name() {
        let names: Vec<String> = ["echo", "get-sum", "get-tiny-image"]
            .map(String::from)
            .into();
        assert_eq!(
            unlisted_tool("ev", "get_sum", &names),
            "ev lists no tool get_sum (did you mean get-sum?); sent as given"
        );
        assert_eq!(
            unlisted_tool("ev", "Echo", &names),
            "ev lists no tool Echo (did you mean echo?); sent as given"
        );
        assert_eq!(
            unlisted_tool("ev", "weather", &names),
            "ev lists no tool weather (it lists: echo, get-sum, get-tiny-image); sent as given"
        );
        assert_eq!(
            unlisted_tool("ev", "x", &[]),
            "ev lists no tool x (it lists none); sent as given"
        );
    }

    #[test]
    fn the_object_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("args.json");
        std::fs::write(&file, r#"{"message":"from a file"}"#).unwrap();
        let from_file = args(Some(&format!("@{}", file.display())), &[]);
        assert_eq!(
            ok(from_file.resolve(None, None)),
            json!({ "message": "from a file" })
        );
        let missing = args(Some("@/no/such/file.json"), &[]).resolve(None, None);
        assert!(said(missing.unwrap_err()).contains("/no/such/file.json"));
    }
}
