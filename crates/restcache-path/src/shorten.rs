//! `shorten_path` (R-PATH-4): the path of a resource's list members.

use crate::error::TemplateError;
use crate::template::Template;

/// The reason given for a template with no parameter or wildcard to drop.
pub(crate) const NO_PARAMETER: &str = "a resource path needs at least one parameter";

impl Template {
    /// The path of the list members (R-PATH-4, the seed's `removeLastArg`).
    ///
    /// Cuts at the last parameter or wildcard (at its group's `{` if it is in a group), drops
    /// everything from there on, then drops one trailing unescaped `/` unless only `/` is left.
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] with the reason "a resource path needs at least one parameter" when
    /// the template has no parameter or wildcard.
    ///
    /// # Example
    ///
    /// ```
    /// use restcache_path::Template;
    ///
    /// let short = |s: &str| Template::parse(s).unwrap().shorten().map(|t| t.as_str().to_owned());
    /// assert_eq!(short("/todos/:id").unwrap(), "/todos");
    /// assert_eq!(short("/:first").unwrap(), "/");
    /// assert_eq!(short("/:group/posts{/:id}").unwrap(), "/:group/posts");
    /// assert_eq!(short("/todos").unwrap_err().reason, "a resource path needs at least one parameter");
    /// ```
    pub fn shorten(&self) -> Result<Template, TemplateError> {
        let Some(last) = self.placeholders.last() else {
            return Err(TemplateError::new(&self.source, 0, NO_PARAMETER));
        };
        let cut = last.group.unwrap_or(last.offset);
        let mut kept = &self.source[..cut];
        if kept.len() > 1 && ends_with_unescaped_slash(kept) {
            kept = &kept[..kept.len() - 1];
        }
        Template::parse(kept)
    }
}

/// Parses `template` and shortens it (R-PATH-4): see [`Template::shorten`].
///
/// # Errors
///
/// The parse error, or the error of [`Template::shorten`].
///
/// # Example
///
/// ```
/// use restcache_path::shorten_path;
///
/// assert_eq!(shorten_path("/repos/:owner/*path").unwrap().as_str(), "/repos/:owner");
/// assert_eq!(shorten_path(":group").unwrap().as_str(), "");
/// assert!(shorten_path("/todos").is_err());
/// ```
pub fn shorten_path(template: &str) -> Result<Template, TemplateError> {
    Template::parse(template)?.shorten()
}

/// `s` (a valid template prefix) ends with a `/` that is not escaped: the run of `\` before it
/// has even length, so each of them is an escape pair.
fn ends_with_unescaped_slash(s: &str) -> bool {
    match s.strip_suffix('/') {
        Some(rest) => rest.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 0,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_slashes_are_kept() {
        assert!(ends_with_unescaped_slash("/a/"));
        assert!(!ends_with_unescaped_slash(r"/a\/"));
        assert!(ends_with_unescaped_slash(r"/a\\/"));
        assert!(!ends_with_unescaped_slash(r"/a\\\/"));
        assert!(!ends_with_unescaped_slash("/a"));
        assert_eq!(shorten_path(r"/a\//:id").unwrap().as_str(), r"/a\/");
        assert_eq!(shorten_path(r"/a\\//:id").unwrap().as_str(), r"/a\\/");
    }
}
