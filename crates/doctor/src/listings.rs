//! Resources, resource templates and prompts: templates valid RFC 6570,
//! MIME types that are types, names present, prompt arguments described.

use serde_json::Value;

use crate::finding::{Finding, Severity, quote};

/// Why an RFC 6570 template is not one (None: it is).
pub fn template_problem(template: &str) -> Option<String> {
    let mut rest = template;
    let mut any = false;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Some(format!("a '}}' with no '{{' at \"{}\"", &rest[open..]));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Some(format!(
                "the expression \"{}\" is not closed",
                &rest[open..]
            ));
        };
        let expr = &after[..close];
        if expr.contains('{') {
            return Some(format!("\"{{{expr}\" opens an expression inside another"));
        }
        let body = expr
            .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
            .unwrap_or(expr);
        if body.is_empty() {
            return Some("an empty expression \"{}\"".into());
        }
        for var in body.split(',') {
            let (name, modifier) = match var.split_once(':') {
                Some((n, len)) => (n, Some(len)),
                None => (var.strip_suffix('*').unwrap_or(var), None),
            };
            let valid_name = !name.is_empty()
                && name.split('.').all(|part| {
                    !part.is_empty()
                        && part
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
                });
            if !valid_name {
                return Some(format!("\"{var}\" is not a variable name"));
            }
            if let Some(len) = modifier
                && !(len.parse::<u32>().is_ok_and(|n| (1..10_000).contains(&n)))
            {
                return Some(format!("\"{var}\": a prefix length must be 1–9999"));
            }
        }
        any = true;
        rest = &after[close + 1..];
    }
    if !any {
        return Some("it has no {variable}: it is a plain URI (list it as a resource)".into());
    }
    None
}

fn mime_ok(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    token(kind) && token(sub)
}

fn mime(out: &mut Vec<Finding>, item: &str, v: &Value) {
    if let Some(m) = v["mimeType"].as_str()
        && !mime_ok(m)
    {
        out.push(
            Finding::new("resource.mime-invalid", Severity::Warning, item)
                .at("/mimeType")
                .seen(format!("\"{m}\""))
                .why("clients choose how to show a resource by its MIME type: one that is not type/subtype is shown as unknown binary")
                .fix("use a registered type such as text/plain, application/json or image/png"),
        );
    }
}

/// Items listed more than once (a cursor that repeats a page, or the same
/// item on two pages): (kind, key, the repeated keys).
fn repeated(out: &mut Vec<Finding>, kind: &str, key: &str, items: &[Value]) {
    let mut seen = std::collections::HashSet::new();
    let mut twice: Vec<&str> = Vec::new();
    for k in items.iter().filter_map(|i| i[key].as_str()) {
        if !seen.insert(k) && !twice.contains(&k) {
            twice.push(k);
        }
    }
    if twice.is_empty() {
        return;
    }
    let shown: Vec<&str> = twice.iter().take(5).copied().collect();
    out.push(
        Finding::new("list.repeated-items", Severity::Warning, format!("{kind}s"))
            .seen(format!(
                "{} {kind}(s) listed more than once: {}{}",
                twice.len(),
                shown.join(", "),
                if twice.len() > 5 { ", …" } else { "" }
            ))
            .why("a repeated item usually means pagination that repeats a page: clients show it twice or keep one at random")
            .fix("give each page the items after the last page's, and end with no nextCursor"),
    );
}

pub fn check(resources: &[Value], templates: &[Value], prompts: &[Value]) -> Vec<Finding> {
    let mut out = Vec::new();
    repeated(&mut out, "resource", "uri", resources);
    repeated(&mut out, "template", "uriTemplate", templates);
    repeated(&mut out, "prompt", "name", prompts);
    for r in resources {
        let uri = r["uri"].as_str().unwrap_or("(no uri)");
        let item = format!("resource {uri}");
        if r["name"].as_str().is_none_or(str::is_empty) {
            out.push(
                Finding::new("resource.no-name", Severity::Warning, &item)
                    .at("/name")
                    .seen(quote(r))
                    .why("the specification requires a name; clients list resources by it")
                    .fix("add a \"name\""),
            );
        }
        mime(&mut out, &item, r);
    }
    for t in templates {
        let template = t["uriTemplate"].as_str().unwrap_or_default();
        let item = format!("template {template}");
        if let Some(problem) = template_problem(template) {
            out.push(
                Finding::new("template.invalid", Severity::Error, &item)
                    .at("/uriTemplate")
                    .seen(problem)
                    .why("clients expand templates by RFC 6570: one that does not parse cannot be filled in or matched")
                    .fix("write each variable as {name} (or {+name}, {?a,b}, ...)"),
            );
        }
        mime(&mut out, &item, t);
    }
    for p in prompts {
        let name = p["name"].as_str().unwrap_or("(no name)");
        let item = format!("prompt {name}");
        for (i, arg) in p["arguments"].as_array().into_iter().flatten().enumerate() {
            if arg["description"].as_str().is_none_or(str::is_empty) {
                out.push(
                    Finding::new("prompt.argument-undescribed", Severity::Warning, &item)
                        .at(format!("/arguments/{i}/description"))
                        .seen(format!(
                            "the argument \"{}\" has no description",
                            arg["name"].as_str().unwrap_or("?")
                        ))
                        .why("people fill prompt arguments in a form: the name alone rarely says what to give")
                        .fix("describe what the argument is and an example"),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_by_rfc_6570() {
        for ok in [
            "file:///{path}",
            "db://{schema}/{table}{?limit,offset}",
            "x://{+path}",
            "x://{var:3}",
            "x://{list*}",
            "x://{a.b}",
        ] {
            assert_eq!(template_problem(ok), None, "{ok}");
        }
        for bad in [
            "file:///{path",
            "file:///path}",
            "x://{}",
            "x://{a b}",
            "x://{a:0}",
            "x://{a{b}}",
            "x://plain",
        ] {
            assert!(template_problem(bad).is_some(), "{bad}");
        }
        assert!(mime_ok("text/plain; charset=utf-8") && mime_ok("application/vnd.api+json"));
        assert!(!mime_ok("text") && !mime_ok("text/") && !mime_ok("a b/c"));
    }
}
