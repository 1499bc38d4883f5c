//! Rendering a template with args into a path and query (R-PATH-3, R-URL-1..4).

use serde_json::{Map, Value};

use crate::encode::{encode_path_value, form_encode, string_form};
use crate::error::RenderError;
use crate::template::{Placeholder, PlaceholderKind, Template, Token};

/// The reason of the error for an object, or an array inside an array, given as a query value.
pub(crate) const NESTED_QUERY: &str = "nested values cannot be sent as query parameters";

impl Template {
    /// Renders the path and the query (R-PATH-3, R-URL-1..4) without a `url_prefix`.
    ///
    /// Parameters and wildcards take their values from `args` by name; `null` counts as absent.
    /// Every other key becomes a query pair, sorted by key in UTF-8 byte order. The query starts
    /// with `&` when the rendered path already holds a `?` (from an escaped `\?`), else with `?`.
    ///
    /// # Errors
    ///
    /// [`RenderError::MissingParam`] for the first absent required parameter or wildcard,
    /// [`RenderError::InvalidParam`] for a value of the wrong kind, an empty, `.` or `..` path
    /// value, a value that completes a dot segment with the text around it (`.%2:id` with `id` =
    /// `e` gives `.%2e`, read as `..`), or a nested query value. When several values are wrong,
    /// the first in template order (then in query key order) is reported.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    /// use serde_json::json;
    ///
    /// let template = Template::parse("/users").unwrap();
    /// let args = json!({ "z": 1, "a": 2, "tags": ["x", "y"], "q": "x y", "skip": null });
    /// assert_eq!(
    ///     template.render(args.as_object().unwrap()).unwrap(),
    ///     "/users?a=2&q=x+y&tags=x&tags=y&z=1"
    /// );
    ///
    /// let template = Template::parse(r"/search\?q=:q").unwrap();
    /// let args = json!({ "q": "bug", "page": 2 });
    /// assert_eq!(template.render(args.as_object().unwrap()).unwrap(), "/search?q=bug&page=2");
    /// ```
    pub fn render(&self, args: &Map<String, Value>) -> Result<String, RenderError> {
        self.render_url_without("", args, &[])
    }

    /// Renders `url_prefix + path + query` (R-URL-1). The prefix is copied verbatim: it is not a
    /// template, so colons are fine in it.
    ///
    /// # Errors
    ///
    /// As [`Template::render`].
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    /// use serde_json::json;
    ///
    /// let template = Template::parse("/").unwrap();
    /// let url = template.render_url("http://test.com/article-cooler", &Default::default()).unwrap();
    /// assert_eq!(url, "http://test.com/article-cooler/");
    ///
    /// let template = Template::parse("/todos/:id").unwrap();
    /// let args = json!({ "id": 5 });
    /// let url = template.render_url("http://127.0.0.1:3000", args.as_object().unwrap()).unwrap();
    /// assert_eq!(url, "http://127.0.0.1:3000/todos/5");
    /// ```
    pub fn render_url(&self, url_prefix: &str, args: &Map<String, Value>) -> Result<String, RenderError> {
        self.render_url_without(url_prefix, args, &[])
    }

    /// Like [`Template::render_url`], with the keys in `excluded` treated as if they were not in
    /// `args` at all. `get_page` uses it to compute its key without `pagination_field` (R-KEY-1).
    ///
    /// # Errors
    ///
    /// As [`Template::render`]; a required parameter that is excluded is missing.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    /// use serde_json::json;
    ///
    /// let template = Template::parse("/:group/posts").unwrap();
    /// let args = json!({ "group": "react", "author": "clara", "page": 2 });
    /// let args = args.as_object().unwrap();
    /// assert_eq!(template.render_url("", args).unwrap(), "/react/posts?author=clara&page=2");
    /// assert_eq!(template.render_url_without("", args, &["page"]).unwrap(), "/react/posts?author=clara");
    /// ```
    pub fn render_url_without(
        &self,
        url_prefix: &str,
        args: &Map<String, Value>,
        excluded: &[&str],
    ) -> Result<String, RenderError> {
        let lookup = |name: &str| -> Option<&Value> {
            if excluded.contains(&name) {
                return None;
            }
            args.get(name).filter(|v| !v.is_null())
        };
        let mut path = RenderedPath::default();
        if let Err(e) = self.render_path(&mut path, &lookup) {
            // A value that completes a dot segment before the fault comes first in template order.
            self.check_dot_segments(&path, false)?;
            return Err(e);
        }
        self.check_dot_segments(&path, true)?;
        let path = path.text;
        let query = self.query(args, excluded)?;
        let mut url = String::with_capacity(url_prefix.len() + path.len() + query.len() + 1);
        url.push_str(url_prefix);
        url.push_str(&path);
        if !query.is_empty() {
            url.push(if path.contains('?') { '&' } else { '?' });
            url.push_str(&query);
        }
        Ok(url)
    }

    /// Renders the path into `out`, recording where each value went.
    fn render_path<'a>(
        &self,
        out: &mut RenderedPath,
        lookup: &impl Fn(&str) -> Option<&'a Value>,
    ) -> Result<(), RenderError> {
        for token in &self.tokens {
            match token {
                Token::Text(text) => out.text.push_str(text),
                Token::Slot(index) => {
                    let placeholder = &self.placeholders[*index];
                    match render_slot(placeholder, lookup(&placeholder.name))? {
                        Some(rendered) => out.push_value(&rendered, *index),
                        None if placeholder.optional => {}
                        None => {
                            return Err(RenderError::MissingParam {
                                name: placeholder.name.clone(),
                                template: self.source.clone(),
                            });
                        }
                    }
                }
                Token::Group(tokens) => {
                    let mark = (out.text.len(), out.values.len());
                    if !self.render_group(tokens, lookup, out)? {
                        out.text.truncate(mark.0);
                        out.values.truncate(mark.1);
                    }
                }
            }
        }
        Ok(())
    }

    /// Renders a group into `out`; returns whether every slot in it is provided (otherwise the
    /// caller takes its text out again). Provided values are checked even when the group is left
    /// out.
    fn render_group<'a>(
        &self,
        tokens: &[Token],
        lookup: &impl Fn(&str) -> Option<&'a Value>,
        out: &mut RenderedPath,
    ) -> Result<bool, RenderError> {
        let mut complete = true;
        for token in tokens {
            match token {
                Token::Text(text) => out.text.push_str(text),
                Token::Slot(index) => {
                    let placeholder = &self.placeholders[*index];
                    match render_slot(placeholder, lookup(&placeholder.name))? {
                        Some(rendered) => out.push_value(&rendered, *index),
                        None => complete = false,
                    }
                }
                // The parser never nests groups.
                Token::Group(_) => complete = false,
            }
        }
        Ok(complete)
    }

    /// R-URL-2: a value must not form a dot segment with the template text around it either
    /// (`.%2:id` with `id` = `e` gives `.%2e`, which URL parsers resolve as `..`). Checks the
    /// segments of the path part (up to a `?` or `#`); the last one only when the path is
    /// `finished`, since text still to come could change it.
    fn check_dot_segments(&self, path: &RenderedPath, finished: bool) -> Result<(), RenderError> {
        let end = path.text.find(['?', '#']);
        let part = &path.text[..end.unwrap_or(path.text.len())];
        let mut start = 0;
        for segment in part.split('/') {
            let stop = start + segment.len();
            let last = stop == part.len();
            if (!last || finished || end.is_some())
                && is_dot_segment(segment)
                && let Some(&(_, _, index)) = path.values.iter().find(|(s, e, _)| *s < stop && *e > start)
            {
                return Err(RenderError::invalid(
                    &self.placeholders[index].name,
                    format!(
                        "a path value cannot complete the segment `{segment}`: the URL parser would resolve it as a dot segment"
                    ),
                ));
            }
            start = stop + 1;
        }
        Ok(())
    }

    /// The encoded query: every args key that is not a name of this template (R-URL-4).
    fn query(&self, args: &Map<String, Value>, excluded: &[&str]) -> Result<String, RenderError> {
        let mut entries: Vec<(&String, &Value)> = args
            .iter()
            .filter(|(key, _)| !self.has_name(key) && !excluded.contains(&key.as_str()))
            .collect();
        // Keys are unique, so an unstable sort keeps every array's order.
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (key, value) in entries {
            match value {
                Value::Null => {}
                Value::Array(items) => {
                    for item in items {
                        match item {
                            Value::Null => {}
                            Value::Array(_) | Value::Object(_) => {
                                return Err(RenderError::invalid(key, NESTED_QUERY));
                            }
                            scalar => pairs.extend(string_form(scalar).map(|s| (key.as_str(), s))),
                        }
                    }
                }
                Value::Object(_) => return Err(RenderError::invalid(key, NESTED_QUERY)),
                scalar => pairs.extend(string_form(scalar).map(|s| (key.as_str(), s))),
            }
        }
        Ok(form_encode(pairs))
    }
}

/// A rendered path and where each value sits in it: `(start, end, placeholder index)`.
#[derive(Default)]
struct RenderedPath {
    text: String,
    values: Vec<(usize, usize, usize)>,
}

impl RenderedPath {
    fn push_value(&mut self, rendered: &str, index: usize) {
        let start = self.text.len();
        self.text.push_str(rendered);
        self.values.push((start, self.text.len(), index));
    }
}

/// `.` or `..`, in any of the spellings URL parsers resolve (`%2e` for a dot, any case).
fn is_dot_segment(segment: &str) -> bool {
    segment.len() <= 6
        && matches!(
            segment.to_ascii_lowercase().as_str(),
            "." | "%2e" | ".." | ".%2e" | "%2e." | "%2e%2e"
        )
}

/// The rendered text of one parameter or wildcard (with the `/` an optional parameter took
/// over), or `None` when it is absent.
fn render_slot(placeholder: &Placeholder, value: Option<&Value>) -> Result<Option<String>, RenderError> {
    let Some(value) = value else { return Ok(None) };
    let name = placeholder.name.as_str();
    match placeholder.kind {
        PlaceholderKind::Param => {
            let encoded = path_value(name, value, None)?;
            Ok(Some(if placeholder.slash_before {
                format!("/{encoded}")
            } else {
                encoded
            }))
        }
        PlaceholderKind::Wildcard => {
            let Value::Array(items) = value else {
                return Err(RenderError::invalid(
                    name,
                    format!("a wildcard takes an array of path segments, not {}", kind_of(value)),
                ));
            };
            if items.is_empty() {
                return Ok(None);
            }
            let mut segments = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                segments.push(path_value(name, item, Some(i))?);
            }
            Ok(Some(segments.join("/")))
        }
    }
}

/// One encoded path value or wildcard segment (R-URL-2, R-URL-3).
fn path_value(name: &str, value: &Value, segment: Option<usize>) -> Result<String, RenderError> {
    let what = match segment {
        Some(i) => format!("wildcard segment {i}"),
        None => "a path value".to_owned(),
    };
    let Some(text) = string_form(value) else {
        return Err(RenderError::invalid(
            name,
            format!("{what} must be a string, number or boolean, not {}", kind_of(value)),
        ));
    };
    match text.as_str() {
        "" => Err(RenderError::invalid(name, format!("{what} cannot be empty"))),
        "." | ".." => Err(RenderError::invalid(
            name,
            format!("{what} cannot be `{text}`: the URL parser would resolve it as a dot segment"),
        )),
        _ => Ok(encode_path_value(&text)),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
