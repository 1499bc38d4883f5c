//! Which keys `invalidate_all` and `expire_all` act on (R-KEY-2, R-EXP-3/4).

use crate::rest::RestEndpoint;
use crate::schema::Schema;

/// Selects stored keys: an endpoint (its [`test_key`](RestEndpoint::test_key)) or any
/// `Fn(&str) -> bool`.
///
/// A matcher runs while the Controller holds its cache: it must not call the Controller (that
/// call would wait for the cache for ever).
///
/// ```
/// use restcache::controller::KeyMatcher;
/// let todos = |key: &str| key.starts_with("GET /todos");
/// assert!(todos.matches("GET /todos?page=2"));
/// ```
pub trait KeyMatcher {
    /// Whether `key` is selected.
    fn matches(&self, key: &str) -> bool;
}

impl<S: Schema, B, G> KeyMatcher for RestEndpoint<S, B, G> {
    fn matches(&self, key: &str) -> bool {
        self.test_key(key)
    }
}

impl<F: Fn(&str) -> bool> KeyMatcher for F {
    fn matches(&self, key: &str) -> bool {
        self(key)
    }
}
