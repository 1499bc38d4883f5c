//! Raw bytes as a template and its args: the bytes before the first NUL are the template; each
//! following NUL-separated chunk is the value of the next placeholder (JSON when it parses,
//! otherwise the text; a wildcard's text is split on `/`), and the chunks after those are query
//! pairs `key=value`.
//!
//! Checked (R-PATH-2/3, R-URL-1..4, R-KEY-1/2): no panic; a rejected template points at a
//! character of it; a rendered URL has exactly the structure (`/`, `?`, `#`, `&`, `=`) it has
//! with harmless values, no `.` / `..` segment it would not have with them, the query pairs of
//! the args at its end, and a key its own `test_key` matches; a render error names a placeholder
//! or an args key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use percent_encoding::percent_decode_str;
use restcache_path::{Template, cache_key};
use serde_json::{Map, Value};

/// A value from a chunk: its JSON, else its text.
fn value_of(chunk: &[u8], wildcard: bool) -> Value {
    if let Ok(v) = serde_json::from_slice::<Value>(chunk) {
        return v;
    }
    let text = String::from_utf8_lossy(chunk);
    if wildcard {
        Value::Array(text.split('/').map(|s| Value::String(s.to_owned())).collect())
    } else {
        Value::String(text.into_owned())
    }
}

/// The same args with every scalar replaced by `"v"`: a value that cannot break anything.
fn harmless(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(harmless).collect()),
        Value::Object(_) => v.clone(),
        _ => Value::from("v"),
    }
}

/// The characters that give a URL its structure.
fn structure(url: &str) -> String {
    url.chars()
        .filter(|c| matches!(c, '/' | '?' | '#' | '&' | '='))
        .collect()
}

/// For each segment of the path part (before the first `?` or `#`): whether it is a dot
/// segment once percent-decoded (WHATWG also reads `%2e` as `.`).
fn dot_segments(url: &str) -> Vec<bool> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    path.split('/')
        .map(|s| matches!(percent_decode_str(s).decode_utf8_lossy().as_ref(), "." | ".."))
        .collect()
}

/// The string form of a scalar (docs/behaviour.md).
fn string_form(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn check(template: &Template, args: &Map<String, Value>) {
    let url = match template.render_url("", args) {
        Ok(url) => url,
        Err(e) => {
            let name = e.name();
            assert!(
                template.has_name(name) || args.contains_key(name),
                "{e} names nothing given"
            );
            return;
        }
    };
    let safe_args: Map<String, Value> = args.iter().map(|(k, v)| (k.clone(), harmless(v))).collect();
    let safe = template
        .render_url("", &safe_args)
        .unwrap_or_else(|e| panic!("harmless values fail ({e}) where {url:?} rendered"));
    assert_eq!(
        structure(&url),
        structure(&safe),
        "values changed the structure: {url:?} vs {safe:?}"
    );
    assert_eq!(
        dot_segments(&url),
        dot_segments(&safe),
        "values made a dot segment: {url:?} vs {safe:?}"
    );

    // The query pairs of the args come last, sorted by key (R-URL-4).
    let mut extra: Vec<(&String, &Value)> = args.iter().filter(|(k, _)| !template.has_name(k)).collect();
    extra.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut want = Vec::new();
    for (k, v) in extra {
        match v {
            Value::Array(items) => want.extend(items.iter().filter_map(string_form).map(|s| (k.clone(), s))),
            v => want.extend(string_form(v).map(|s| (k.clone(), s))),
        }
    }
    if !safe.contains('#')
        && let Some((_, query)) = url.split_once('?')
    {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        assert!(
            pairs.ends_with(&want),
            "query of {url:?}: {pairs:?} does not end with {want:?}"
        );
    } else {
        assert!(
            want.is_empty() || safe.contains('#'),
            "no query in {url:?}, want {want:?}"
        );
    }

    // The endpoint's own key matches its pattern (R-KEY-2).
    let key = cache_key("GET", &url);
    assert!(
        template.key_pattern("GET", "").test_key(&key),
        "{key:?} does not match {template}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut chunks = data.split(|&b| b == 0);
    let Ok(source) = std::str::from_utf8(chunks.next().unwrap_or_default()) else {
        return;
    };
    let template = match Template::parse(source) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.index < source.len() && source.is_char_boundary(e.index), "{e}");
            return;
        }
    };
    if let Ok(list) = template.shorten() {
        assert!(list.as_str().len() <= source.len());
        let _ = Template::parse(list.as_str()).expect("a shortened template parses");
    }
    let mut args = Map::new();
    let chunks: Vec<&[u8]> = chunks.collect();
    let placeholders = template.placeholders();
    for (p, chunk) in placeholders.iter().zip(&chunks) {
        args.insert(p.name().to_owned(), value_of(chunk, p.is_wildcard()));
    }
    for chunk in chunks.iter().skip(placeholders.len()) {
        let text = String::from_utf8_lossy(chunk);
        let (k, v) = text.split_once('=').unwrap_or((&text, ""));
        args.insert(k.to_owned(), value_of(v.as_bytes(), false));
    }
    check(&template, &args);
});
