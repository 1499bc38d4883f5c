//! The two error types: a template that cannot be used, and args that cannot be rendered.

use std::fmt;

/// A template that breaks the grammar (R-PATH-2), or that has no parameter where one is needed
/// (R-PATH-4).
///
/// `index` is the byte offset in `template` of the offending character, so a caller can point at
/// it; `reason` says what is wrong in words.
///
/// # Example
///
/// ```
/// use restcache_path::Template;
///
/// let err = Template::parse("/a/:/b").unwrap_err();
/// assert_eq!(err.template, "/a/:/b");
/// assert_eq!(err.index, 3);
/// assert_eq!(
///     err.reason,
///     "`:` must be followed by a parameter name (escape a literal colon as `\\:`)"
/// );
/// assert_eq!(
///     err.to_string(),
///     "invalid path template `/a/:/b` at byte 3: `:` must be followed by a parameter name \
///      (escape a literal colon as `\\:`)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TemplateError {
    /// The whole template, as given.
    pub template: String,
    /// Byte offset of the offending character in `template`.
    pub index: usize,
    /// Why the template is rejected, in words.
    pub reason: String,
}

impl TemplateError {
    pub(crate) fn new(template: &str, index: usize, reason: impl Into<String>) -> Self {
        Self {
            template: template.to_owned(),
            index,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid path template `{}` at byte {}: {}",
            self.template, self.index, self.reason
        )
    }
}

impl std::error::Error for TemplateError {}

/// Args that cannot be rendered into a URL (R-PATH-3, R-URL-2..4). Nothing should be sent.
///
/// # Example
///
/// ```
/// use restcache_path::{RenderError, Template};
/// use serde_json::json;
///
/// let template = Template::parse("/users/:id").unwrap();
/// let args = json!({}).as_object().cloned().unwrap();
/// assert_eq!(
///     template.render(&args),
///     Err(RenderError::MissingParam { name: "id".into(), template: "/users/:id".into() })
/// );
///
/// let args = json!({ "id": ".." }).as_object().cloned().unwrap();
/// assert!(matches!(template.render(&args), Err(RenderError::InvalidParam { name, .. }) if name == "id"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RenderError {
    /// A required parameter or wildcard is absent (or `null`, or an empty array for a wildcard).
    /// `name` is the first missing one in template order.
    MissingParam {
        /// The parameter or wildcard name, without `:` or `*`.
        name: String,
        /// The template being rendered.
        template: String,
    },
    /// A value of the wrong kind, an empty, `.` or `..` path value or segment, or a nested query
    /// value.
    InvalidParam {
        /// The parameter, wildcard or query key.
        name: String,
        /// Why the value is rejected, in words.
        reason: String,
    },
}

impl RenderError {
    pub(crate) fn invalid(name: &str, reason: impl Into<String>) -> Self {
        Self::InvalidParam {
            name: name.to_owned(),
            reason: reason.into(),
        }
    }

    /// The parameter, wildcard or query key the error is about.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    /// use serde_json::json;
    ///
    /// let template = Template::parse("/:group/posts").unwrap();
    /// let err = template.render(&json!({}).as_object().cloned().unwrap()).unwrap_err();
    /// assert_eq!(err.name(), "group");
    /// ```
    pub fn name(&self) -> &str {
        match self {
            Self::MissingParam { name, .. } | Self::InvalidParam { name, .. } => name,
        }
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingParam { name, template } => {
                write!(f, "missing path parameter `{name}` of template `{template}`")
            }
            Self::InvalidParam { name, reason } => {
                write!(f, "invalid parameter `{name}`: {reason}")
            }
        }
    }
}

impl std::error::Error for RenderError {}
