//! Cache keys (R-KEY-1) and matching stored keys against an endpoint (R-KEY-2).

use crate::matcher::Program;
use crate::template::Template;

/// The cache key of a request (R-KEY-1): the uppercase method, one space, then the url
/// (`url_prefix` + rendered path + query, as [`Template::render_url`] gives it).
///
/// # Example
///
/// ```
/// use restcache_path::{Template, cache_key};
/// use serde_json::json;
///
/// let template = Template::parse("/:group/posts/:id").unwrap();
/// let args = json!({ "group": "react", "id": "1" });
/// let url = template.render_url("", args.as_object().unwrap()).unwrap();
/// assert_eq!(cache_key("get", &url), "GET /react/posts/1");
/// ```
pub fn cache_key(method: &str, url: &str) -> String {
    let mut key = String::with_capacity(method.len() + 1 + url.len());
    key.push_str(&method.to_ascii_uppercase());
    key.push(' ');
    key.push_str(url);
    key
}

/// Tells whether a stored key belongs to an endpoint (R-KEY-2), for `expire_all` and
/// `invalidate_all`.
///
/// A key matches when it starts with `METHOD + " " + url_prefix` (case-sensitive) and the rest
/// matches `^T/?([?&].*)?$` case-insensitively, where `T` is the template with `:name` →
/// `[^/?&]+`, `:name?` → `(?:/[^/?&]+)?` (taking over the `/` before it) or `(?:[^/?&]+)?`,
/// `*name` → `.+` and `{X}` → `(?:X)?`. `.` is any character but `\n`.
///
/// The pattern runs as a small automaton without backtracking: a key of `n` characters costs at
/// most `n` × (template length) steps, whatever it holds.
///
/// # Example
///
/// ```
/// use restcache_path::{KeyPattern, Template};
///
/// let template = Template::parse(r"http\://test.com/user/:id").unwrap();
/// let get = KeyPattern::new("GET", "", &template);
/// assert!(get.test_key("GET http://test.com/user/100?extra=345"));
/// assert!(!get.test_key("GET http://test.com/user"));
/// assert!(!get.test_key("PUT http://test.com/user/100"));
///
/// let get_list = KeyPattern::new("GET", "", &template.shorten().unwrap());
/// assert!(get_list.test_key("GET http://test.com/user?page=2"));
/// assert!(!get_list.test_key("GET http://test.com/user/100"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPattern {
    /// `METHOD + " " + url_prefix`.
    head: String,
    program: Program,
}

impl KeyPattern {
    /// Builds the matcher of an endpoint from its method, `url_prefix` and template. The method
    /// is uppercased.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::{KeyPattern, Template};
    ///
    /// let template = Template::parse("/:id").unwrap();
    /// let pattern = KeyPattern::new("put", "http://test.com/article-cooler", &template);
    /// assert!(pattern.test_key("PUT http://test.com/article-cooler/5"));
    /// assert!(!pattern.test_key("PUT http://test.com/other/5"));
    /// ```
    pub fn new(method: &str, url_prefix: &str, template: &Template) -> Self {
        Self {
            head: cache_key(method, url_prefix),
            program: Program::compile(template),
        }
    }

    /// Whether `key` belongs to this endpoint (R-KEY-2).
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::{KeyPattern, Template};
    ///
    /// let pattern = KeyPattern::new("GET", "", &Template::parse("/todos").unwrap());
    /// assert!(pattern.test_key("GET /todos"));
    /// assert!(pattern.test_key("GET /TODOS/?page=2"));
    /// assert!(!pattern.test_key("GET /todos/5"));
    /// ```
    pub fn test_key(&self, key: &str) -> bool {
        key.strip_prefix(self.head.as_str())
            .is_some_and(|rest| self.program.is_match(rest))
    }
}

impl Template {
    /// The [`KeyPattern`] of an endpoint with this template: `KeyPattern::new(method, url_prefix,
    /// self)`.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    ///
    /// let template = Template::parse("/users/:id").unwrap();
    /// assert!(template.key_pattern("DELETE", "").test_key("DELETE /users/7"));
    /// ```
    pub fn key_pattern(&self, method: &str, url_prefix: &str) -> KeyPattern {
        KeyPattern::new(method, url_prefix, self)
    }
}
