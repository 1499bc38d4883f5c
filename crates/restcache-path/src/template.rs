//! The parsed template and its parameters and wildcards.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::error::TemplateError;

/// A validated path template (R-PATH-1), e.g. `/users/:id`, `/:group/posts{/:id}` or
/// `/repos/:owner/*path`.
///
/// Build one with [`Template::parse`] (or `str::parse`); every template that exists has passed
/// the checks of R-PATH-2. Two templates are equal when their source text is equal.
///
/// # Example
///
/// ```
/// use restcache_path::Template;
/// use serde_json::json;
///
/// let template: Template = "/users/:id".parse().unwrap();
/// let args = json!({ "id": "a b", "sort": "asc" });
/// assert_eq!(template.render(args.as_object().unwrap()).unwrap(), "/users/a%20b?sort=asc");
/// ```
#[derive(Clone, Debug)]
pub struct Template {
    pub(crate) source: String,
    pub(crate) tokens: Vec<Token>,
    pub(crate) placeholders: Vec<Placeholder>,
}

/// One piece of a parsed template.
#[derive(Clone, Debug)]
pub(crate) enum Token {
    /// Literal text, escapes already resolved. Never empty.
    Text(String),
    /// The placeholder at this index of [`Template::placeholders`].
    Slot(usize),
    /// `{…}`: text and slots, rendered only when every slot in it is provided.
    Group(Vec<Token>),
}

/// What kind of value a [`Placeholder`] takes.
///
/// # Example
///
/// ```
/// use restcache_path::{PlaceholderKind, Template};
///
/// let template = Template::parse("/repos/:owner/*path").unwrap();
/// let kinds: Vec<_> = template.placeholders().iter().map(|p| p.kind()).collect();
/// assert_eq!(kinds, [PlaceholderKind::Param, PlaceholderKind::Wildcard]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaceholderKind {
    /// `:name`: one path segment.
    Param,
    /// `*name`: an array of path segments joined by `/`.
    Wildcard,
}

/// A parameter (`:name`, `:name?`) or wildcard (`*name`) of a [`Template`].
///
/// # Example
///
/// ```
/// use restcache_path::Template;
///
/// let template = Template::parse("/:group/things{/:number}/:sort?").unwrap();
/// let group = &template.placeholders()[0];
/// assert_eq!((group.name(), group.is_required()), ("group", true));
/// let number = &template.placeholders()[1];
/// assert_eq!((number.name(), number.is_grouped(), number.is_optional()), ("number", true, false));
/// let sort = &template.placeholders()[2];
/// assert_eq!((sort.name(), sort.is_grouped(), sort.is_optional()), ("sort", false, true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placeholder {
    pub(crate) name: String,
    pub(crate) kind: PlaceholderKind,
    pub(crate) optional: bool,
    /// Byte offset of the enclosing `{`, if any.
    pub(crate) group: Option<usize>,
    /// Byte offset of the `:` or `*`.
    pub(crate) offset: usize,
    /// An optional parameter that took over the unescaped `/` right before its `:`.
    pub(crate) slash_before: bool,
}

impl Placeholder {
    /// The name, without the `:` or `*`.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/todos/:id").unwrap();
    /// assert_eq!(template.placeholders()[0].name(), "id");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether this is a parameter or a wildcard.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::{PlaceholderKind, Template};
    ///
    /// let template = Template::parse("/files/*path").unwrap();
    /// assert_eq!(template.placeholders()[0].kind(), PlaceholderKind::Wildcard);
    /// ```
    pub fn kind(&self) -> PlaceholderKind {
        self.kind
    }

    /// `true` for a wildcard (`*name`).
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/files/*path").unwrap();
    /// assert!(template.placeholders()[0].is_wildcard());
    /// ```
    pub fn is_wildcard(&self) -> bool {
        self.kind == PlaceholderKind::Wildcard
    }

    /// `true` for a parameter marked optional with `?` (`:name?`). Grouped parameters are not
    /// marked, see [`Placeholder::is_grouped`].
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/users/:id?").unwrap();
    /// assert!(template.placeholders()[0].is_optional());
    /// ```
    pub fn is_optional(&self) -> bool {
        self.optional
    }

    /// `true` when the placeholder is inside a `{…}` group.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/posts{/:id}").unwrap();
    /// assert!(template.placeholders()[0].is_grouped());
    /// ```
    pub fn is_grouped(&self) -> bool {
        self.group.is_some()
    }

    /// `true` when rendering fails without a value: neither optional nor grouped.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/:a/:b?{/:c}").unwrap();
    /// let required: Vec<bool> = template.placeholders().iter().map(|p| p.is_required()).collect();
    /// assert_eq!(required, [true, false, false]);
    /// ```
    pub fn is_required(&self) -> bool {
        !self.optional && self.group.is_none()
    }

    /// Byte offset of the placeholder's `:` or `*` in the template.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/users/:id").unwrap();
    /// assert_eq!(template.placeholders()[0].offset(), 7);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl Template {
    /// Parses and validates a template (R-PATH-1, R-PATH-2).
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] with the byte offset of the offending character and the reason.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    ///
    /// assert!(Template::parse(r"http\://test.com/user/:id").is_ok());
    /// let err = Template::parse("/search?q=:q").unwrap_err();
    /// assert_eq!(err.index, 7);
    /// assert_eq!(
    ///     err.reason,
    ///     "`?` must directly follow a parameter name (escape a literal question mark as `\\?`)"
    /// );
    /// ```
    pub fn parse(source: &str) -> Result<Self, TemplateError> {
        crate::parse::parse(source)
    }

    /// The template's source text, as given to [`Template::parse`].
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse(r"/search\?q=:q").unwrap();
    /// assert_eq!(template.as_str(), r"/search\?q=:q");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The parameters and wildcards, in template order.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/repos/:owner/*path").unwrap();
    /// let names: Vec<&str> = template.placeholders().iter().map(|p| p.name()).collect();
    /// assert_eq!(names, ["owner", "path"]);
    /// ```
    pub fn placeholders(&self) -> &[Placeholder] {
        &self.placeholders
    }

    /// The names of the parameters and wildcards, in template order.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/:group/posts{/:id}").unwrap();
    /// assert_eq!(template.names().collect::<Vec<_>>(), ["group", "id"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.placeholders.iter().map(Placeholder::name)
    }

    /// Whether `name` is a parameter or wildcard of this template (such an args key never goes to
    /// the query).
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/users/:id").unwrap();
    /// assert!(template.has_name("id"));
    /// assert!(!template.has_name("sort"));
    /// ```
    pub fn has_name(&self, name: &str) -> bool {
        self.placeholders.iter().any(|p| p.name == name)
    }

    /// The placeholder called `name`, if any.
    ///
    /// # Example
    ///
    /// ```
    /// let template = restcache_path::Template::parse("/users/:id?").unwrap();
    /// assert!(template.placeholder("id").unwrap().is_optional());
    /// assert!(template.placeholder("sort").is_none());
    /// ```
    pub fn placeholder(&self, name: &str) -> Option<&Placeholder> {
        self.placeholders.iter().find(|p| p.name == name)
    }
}

impl fmt::Display for Template {
    /// Writes the source text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for Template {
    type Err = TemplateError;

    fn from_str(source: &str) -> Result<Self, Self::Err> {
        Self::parse(source)
    }
}

impl TryFrom<&str> for Template {
    type Error = TemplateError;

    fn try_from(source: &str) -> Result<Self, Self::Error> {
        Self::parse(source)
    }
}

impl AsRef<str> for Template {
    fn as_ref(&self) -> &str {
        &self.source
    }
}

impl PartialEq for Template {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for Template {}

impl Hash for Template {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source.hash(state);
    }
}
