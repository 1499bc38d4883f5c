//! The one error type of restcache (R-ERR-1).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;

/// Everything that can go wrong in restcache.
///
/// `Clone` because de-duplicated waiters and stored error records share one error; `#[non_exhaustive]`
/// so new variants are not breaking changes. Every variant states its facts in `Display`.
///
/// As with `reqwest::Error`, [`status`](Error::status) gives the HTTP status of an error answer,
/// [`is_timeout`](Error::is_timeout) and [`is_connect`](Error::is_connect) classify transport
/// failures, and `source()` gives the `reqwest::Error` behind a transport failure.
///
/// ```
/// use restcache::Error;
///
/// let e = Error::MissingParam { name: "id".into(), template: "/todos/:id".into() };
/// assert_eq!(e.to_string(), "missing path parameter `id` for template \"/todos/:id\"");
/// assert!(!e.is_soft());
/// assert_eq!(e.status(), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A path template is malformed, or a resource path has no parameter (R-PATH-2, R-PATH-4).
    InvalidTemplate {
        /// The template as written.
        template: String,
        /// Byte offset of the offending character.
        index: usize,
        /// Why it was rejected.
        reason: String,
    },
    /// A required path parameter or wildcard is absent from the args (R-PATH-3).
    MissingParam {
        /// The parameter's name.
        name: String,
        /// The template that needs it.
        template: String,
    },
    /// A path or query value cannot be sent (R-URL-2..4).
    InvalidParam {
        /// The parameter or query key.
        name: String,
        /// Why the value was rejected.
        reason: String,
    },
    /// The args are not an object, or a body was given to a GET or HEAD.
    InvalidArgs {
        /// What is wrong with them.
        reason: String,
    },
    /// The configuration cannot work (entity-key clash, missing collection, conflicting options, …).
    InvalidConfig {
        /// What is wrong with it.
        reason: String,
    },
    /// A snapshot cannot be hydrated: it does not parse, is of another format, holds a table
    /// the given schemas do not know, a record that does not read back as its type, or a value
    /// nested too deep (R-SNAP-3). Nothing is written.
    InvalidSnapshot {
        /// What is wrong with it.
        reason: String,
    },
    /// A persister could not read or write what it keeps (R-PERS-2): an I/O error, or storage
    /// that is missing or full.
    Persist {
        /// What failed.
        reason: String,
    },
    /// The server answered with a non-2xx final status (R-RESP-1).
    Status {
        /// The HTTP status.
        status: StatusCode,
        /// The request URL.
        url: String,
        /// The first 4096 bytes of the body, as lossy UTF-8.
        body: String,
        /// How long the answer's `Retry-After` header asked the client to wait: a number of
        /// seconds, or the time until the HTTP date it named (zero for a date gone by;
        /// `Duration::MAX` for more seconds than a `u64` holds). `None` without the header, or
        /// when it names no time. A retry waits at least this long (R-REQ-5).
        retry_after: Option<Duration>,
    },
    /// A connection, TLS or IO failure, a timeout, or too many redirects: no HTTP answer to use.
    Transport {
        /// The request URL.
        url: String,
        /// What failed, with the causes of reqwest's error, if any.
        message: String,
        /// Whether the fetch ran out of time: its whole-fetch timeout or one of reqwest's.
        timed_out: bool,
        /// The reqwest error behind the failure, if reqwest reported one; `source()` returns it.
        source: Option<TransportSource>,
    },
    /// The response body exceeded the configured limit (R-RESP-4).
    ResponseTooLarge {
        /// The request URL.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The body is not JSON, is too deep, or a value does not deserialize into its Rust type.
    Decode {
        /// The request URL (for a store write, the key's URL).
        url: String,
        /// The response's content type, if known.
        content_type: Option<String>,
        /// The entity key whose record failed, if any.
        entity: Option<String>,
        /// JSON Pointer into the body (`""` is the root).
        position: String,
        /// serde's message.
        message: String,
    },
    /// Well-formed JSON that does not fit the schema (missing pk, wrong JSON kind, unmatched union, …).
    InvalidResponse {
        /// The request URL (for a store write, the key's URL).
        url: String,
        /// The entity key concerned, if any.
        entity: Option<String>,
        /// JSON Pointer into the body (`""` is the root).
        position: String,
        /// What does not fit.
        reason: String,
    },
    /// A request hook returned an error.
    Hook {
        /// The hook's message.
        message: String,
    },
    /// One fetch could not make the data of this key valid (R-SUS-1, R-SUB-3).
    Invalidated {
        /// The endpoint key.
        key: String,
    },
    /// The store was reset while the request was in flight.
    Reset,
    /// The request task was cancelled before it settled.
    Aborted,
}

/// The `reqwest::Error` behind an [`Error::Transport`], shared so that [`Error`] stays `Clone`.
///
/// It dereferences to the `reqwest::Error`; `Error::source()` returns that error itself. Two are
/// equal when they say the same, causes included.
///
/// ```
/// use restcache::{Error, TransportSource};
///
/// let refused = restcache::reqwest::Client::new().get("not a url").build().unwrap_err();
/// let e = Error::Transport {
///     url: "not a url".into(),
///     message: refused.to_string(),
///     timed_out: false,
///     source: Some(TransportSource::new(refused)),
/// };
/// let source = std::error::Error::source(&e).unwrap();
/// assert!(source.downcast_ref::<restcache::reqwest::Error>().unwrap().is_builder());
/// ```
#[derive(Clone, Debug)]
pub struct TransportSource(Arc<reqwest::Error>);

impl TransportSource {
    /// Shares `error`.
    ///
    /// ```
    /// let e = restcache::reqwest::Client::new().get("not a url").build().unwrap_err();
    /// let shared = restcache::TransportSource::new(e);
    /// assert!(shared.is_builder());
    /// ```
    pub fn new(error: reqwest::Error) -> Self {
        Self(Arc::new(error))
    }
}

impl std::ops::Deref for TransportSource {
    type Target = reqwest::Error;

    fn deref(&self) -> &reqwest::Error {
        &self.0
    }
}

impl PartialEq for TransportSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || chain(&*self.0) == chain(&*other.0)
    }
}

/// An error's message followed by those of its causes, `": "`-separated.
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Where in the body: its JSON Pointer, or the root.
        let at = |position: &str| {
            if position.is_empty() {
                "the root".to_owned()
            } else {
                format!("{position:?}")
            }
        };
        match self {
            Error::InvalidTemplate {
                template,
                index,
                reason,
            } => {
                write!(f, "invalid path template {template:?} at byte {index}: {reason}")
            }
            Error::MissingParam { name, template } => {
                write!(f, "missing path parameter `{name}` for template {template:?}")
            }
            Error::InvalidParam { name, reason } => write!(f, "invalid value for parameter `{name}`: {reason}"),
            Error::InvalidArgs { reason } => write!(f, "invalid arguments: {reason}"),
            Error::InvalidConfig { reason } => write!(f, "invalid configuration: {reason}"),
            Error::InvalidSnapshot { reason } => write!(f, "invalid snapshot: {reason}"),
            Error::Persist { reason } => write!(f, "persistence failed: {reason}"),
            Error::Status { status, url, .. } => write!(f, "HTTP {} from {url}", status.as_u16()),
            Error::Transport { url, message, .. } => write!(f, "transport error for {url}: {message}"),
            Error::ResponseTooLarge { url, limit } => {
                write!(f, "response from {url} exceeds the limit of {limit} bytes")
            }
            Error::Decode {
                url,
                content_type,
                entity,
                position,
                message,
            } => {
                f.write_str("cannot decode")?;
                if let Some(e) = entity {
                    write!(f, " entity {e}")?;
                }
                write!(f, " at {}", at(position))?;
                if !url.is_empty() {
                    write!(f, " of the response from {url}")?;
                }
                match content_type {
                    Some(ct) => write!(f, " (content type {ct:?})")?,
                    None if !url.is_empty() => f.write_str(" (no content type)")?,
                    None => {}
                }
                write!(f, ": {message}")
            }
            Error::InvalidResponse {
                url,
                entity,
                position,
                reason,
            } => {
                f.write_str("invalid response")?;
                if !url.is_empty() {
                    write!(f, " from {url}")?;
                }
                if let Some(e) = entity {
                    write!(f, " for entity {e}")?;
                }
                write!(f, " at {}: {reason}", at(position))
            }
            Error::Hook { message } => write!(f, "hook failed: {message}"),
            Error::Invalidated { key } => write!(f, "{key} is still invalid after fetching it"),
            Error::Reset => f.write_str("the cache was reset while the request was in flight"),
            Error::Aborted => f.write_str("the request was aborted before it settled"),
        }
    }
}

impl std::error::Error for Error {
    /// The `reqwest::Error` behind an [`Error::Transport`], when there is one.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport {
                source: Some(cause), ..
            } => Some(&**cause),
            _ => None,
        }
    }
}

impl Error {
    /// Whether the error is *soft* (R-POL-1): a 5xx [`Error::Status`] or any [`Error::Transport`].
    /// Reads keep serving cached data through soft errors.
    ///
    /// ```
    /// use restcache::{Error, reqwest::StatusCode};
    /// let e = Error::Status { status: StatusCode::SERVICE_UNAVAILABLE, url: "/x".into(), body: String::new(), retry_after: None };
    /// assert!(e.is_soft());
    /// ```
    pub fn is_soft(&self) -> bool {
        match self {
            Error::Status { status, .. } => status.is_server_error(),
            Error::Transport { .. } => true,
            _ => false,
        }
    }

    /// The HTTP status of an [`Error::Status`], as `reqwest::Error::status` gives it; `None` for
    /// every other error.
    ///
    /// ```
    /// use restcache::{Error, reqwest::StatusCode};
    /// let e = Error::Status { status: StatusCode::NOT_FOUND, url: "/x".into(), body: String::new(), retry_after: None };
    /// assert_eq!(e.status(), Some(StatusCode::NOT_FOUND));
    /// assert_eq!(Error::Reset.status(), None);
    /// ```
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// How long the server asked the client to wait before it asks again: the `Retry-After`
    /// of an [`Error::Status`] (a `429` or `503`, mostly), if it named a time; `None` for every
    /// other error.
    ///
    /// ```
    /// use restcache::{Error, reqwest::StatusCode};
    /// use std::time::Duration;
    /// let busy = Error::Status {
    ///     status: StatusCode::TOO_MANY_REQUESTS,
    ///     url: "/x".into(),
    ///     body: String::new(),
    ///     retry_after: Some(Duration::from_secs(30)),
    /// };
    /// assert_eq!(busy.retry_after(), Some(Duration::from_secs(30)));
    /// assert_eq!(Error::Reset.retry_after(), None);
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether the fetch ran out of time (R-REQ-5): its whole-fetch timeout, or a timeout reqwest
    /// reported.
    ///
    /// ```
    /// use restcache::Error;
    /// let e = Error::Transport { url: "/x".into(), message: "timed out".into(), timed_out: true, source: None };
    /// assert!(e.is_timeout());
    /// assert!(!Error::Reset.is_timeout());
    /// ```
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Transport { timed_out, source, .. } => {
                *timed_out || source.as_ref().is_some_and(|cause| cause.is_timeout())
            }
            _ => false,
        }
    }

    /// Whether the connection could not be made (refused, unreachable, DNS, TLS handshake), as
    /// `reqwest::Error::is_connect` says. Always false in the browser, where `fetch` does not tell.
    ///
    /// ```
    /// use restcache::Error;
    /// let e = Error::Transport { url: "/x".into(), message: "no".into(), timed_out: false, source: None };
    /// assert!(!e.is_connect());
    /// ```
    pub fn is_connect(&self) -> bool {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            Error::Transport {
                source: Some(cause), ..
            } => cause.is_connect(),
            _ => false,
        }
    }

    /// Fills in the URL of normalization errors, which are raised before the URL is known.
    pub(crate) fn with_url(self, new_url: &str) -> Self {
        self.set_url(new_url, false)
    }

    /// Names `new_url` in a normalization error, in place of any URL it named.
    pub(crate) fn at_url(self, new_url: &str) -> Self {
        self.set_url(new_url, true)
    }

    fn set_url(mut self, new_url: &str, replace: bool) -> Self {
        if let Error::Decode { url, .. } | Error::InvalidResponse { url, .. } = &mut self
            && (replace || url.is_empty())
        {
            new_url.clone_into(url);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_err_1_error_is_clone_send_sync_static() {
        fn assert_traits<T: Clone + Send + Sync + 'static + std::error::Error>() {}
        assert_traits::<Error>();
    }

    #[test]
    fn r_err_1_display_states_entity_position_and_url() {
        let e = Error::InvalidResponse {
            url: String::new(),
            entity: Some("Todo".into()),
            position: "/results/3".into(),
            reason: "missing or empty primary key".into(),
        }
        .with_url("GET /todos");
        assert_eq!(
            e.to_string(),
            "invalid response from GET /todos for entity Todo at \"/results/3\": missing or empty primary key"
        );
        let d = Error::Decode {
            url: "http://h/x".into(),
            content_type: Some("text/html".into()),
            entity: None,
            position: String::new(),
            message: "expected value".into(),
        };
        assert_eq!(
            d.to_string(),
            "cannot decode at the root of the response from http://h/x (content type \"text/html\"): expected value"
        );
    }

    #[test]
    fn r_pol_1_soft_errors_are_5xx_and_transport() {
        let net = |status: u16| Error::Status {
            status: StatusCode::from_u16(status).unwrap(),
            url: String::new(),
            body: String::new(),
            retry_after: None,
        };
        assert!(net(500).is_soft());
        assert!(!net(404).is_soft());
        assert!(
            Error::Transport {
                url: String::new(),
                message: String::new(),
                timed_out: false,
                source: None,
            }
            .is_soft()
        );
        assert!(!Error::Reset.is_soft());
    }
}
