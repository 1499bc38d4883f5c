//! Path templates of restcache: parse, validate, render, shorten and key-match.
//!
//! This crate is the bottom of restcache's dependency graph: no I/O and no other restcache
//! crate. The runtime uses it to build URLs and keys, and the proc-macro crate uses it to reject
//! bad templates at compile time with the same checks and reasons.
//!
//! | rule | here |
//! |---|---|
//! | R-PATH-1, R-PATH-2 grammar and rejections | [`Template::parse`], [`TemplateError`] |
//! | R-PATH-3, R-URL-1..4 rendering | [`Template::render`], [`Template::render_url`], [`RenderError`] |
//! | R-PATH-4 `shorten_path` | [`Template::shorten`], [`shorten_path`] |
//! | R-KEY-1 keys | [`cache_key`] |
//! | R-KEY-2 `test_key` | [`KeyPattern`] |
//!
//! # Example
//!
//! ```
//! use restcache_path::{KeyPattern, Template, cache_key};
//! use serde_json::json;
//!
//! let path = Template::parse("/:group/posts/:id")?;
//! let args = json!({ "group": "react", "id": "1" });
//! let url = path.render_url("", args.as_object().unwrap())?;
//! assert_eq!(cache_key("GET", &url), "GET /react/posts/1");
//!
//! let list = path.shorten()?;
//! assert_eq!(list.as_str(), "/:group/posts");
//! let args = json!({ "group": "react", "author": "clara" });
//! let url = list.render_url("", args.as_object().unwrap())?;
//! assert_eq!(url, "/react/posts?author=clara");
//!
//! let get_list = KeyPattern::new("GET", "", &list);
//! assert!(get_list.test_key(&cache_key("GET", &url)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod encode;
mod error;
mod key;
mod matcher;
mod parse;
mod render;
mod shorten;
mod template;

pub use encode::{encode_path_value, string_form};
pub use error::{RenderError, TemplateError};
pub use key::{KeyPattern, cache_key};
pub use shorten::shorten_path;
pub use template::{Placeholder, PlaceholderKind, Template};

/// The `reason` of [`RenderError::InvalidParam`] for an object, or an array or object inside an
/// array, given as a query value (R-URL-4).
///
/// # Example
///
/// ```
/// use restcache_path::{NESTED_QUERY_REASON, RenderError, Template};
/// use serde_json::json;
///
/// let template = Template::parse("/users").unwrap();
/// let err = template.render(json!({ "f": { "a": 1 } }).as_object().unwrap()).unwrap_err();
/// assert_eq!(
///     err,
///     RenderError::InvalidParam { name: "f".into(), reason: NESTED_QUERY_REASON.into() }
/// );
/// ```
pub const NESTED_QUERY_REASON: &str = render::NESTED_QUERY;

/// The `reason` of the [`TemplateError`] of [`Template::shorten`] for a template with no
/// parameter or wildcard (R-PATH-4).
///
/// # Example
///
/// ```
/// use restcache_path::{NO_PARAMETER_REASON, shorten_path};
///
/// assert_eq!(shorten_path("/todos").unwrap_err().reason, NO_PARAMETER_REASON);
/// ```
pub const NO_PARAMETER_REASON: &str = shorten::NO_PARAMETER;
