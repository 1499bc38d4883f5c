//! The one error type of restcache (SPEC R-ERR-1).

/// Everything that can go wrong in restcache.
///
/// `Clone` because de-duplicated waiters and stored error records share one error; `#[non_exhaustive]`
/// so new variants are not breaking changes. Every variant states its facts in `Display`.
///
/// ```
/// use restcache::Error;
///
/// let e = Error::MissingParam { name: "id".into(), template: "/todos/:id".into() };
/// assert_eq!(e.to_string(), "missing path parameter `id` for template \"/todos/:id\"");
/// assert!(!e.is_soft());
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path template is malformed, or a resource path has no parameter (R-PATH-2, R-PATH-4).
    #[error("invalid path template {template:?} at byte {index}: {reason}")]
    InvalidTemplate {
        /// The template as written.
        template: String,
        /// Byte offset of the offending character.
        index: usize,
        /// Why it was rejected.
        reason: String,
    },
    /// A required path parameter or wildcard is absent from the args (R-PATH-3).
    #[error("missing path parameter `{name}` for template {template:?}")]
    MissingParam {
        /// The parameter's name.
        name: String,
        /// The template that needs it.
        template: String,
    },
    /// A path or query value cannot be sent (R-URL-2..4).
    #[error("invalid value for parameter `{name}`: {reason}")]
    InvalidParam {
        /// The parameter or query key.
        name: String,
        /// Why the value was rejected.
        reason: String,
    },
    /// The args are not an object, or a body was given to a GET or HEAD.
    #[error("invalid arguments: {reason}")]
    InvalidArgs {
        /// What is wrong with them.
        reason: String,
    },
    /// The configuration cannot work (entity-key clash, missing collection, conflicting options, …).
    #[error("invalid configuration: {reason}")]
    InvalidConfig {
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered with a non-2xx final status (R-RESP-1).
    #[error("HTTP {status} from {url}")]
    Network {
        /// The HTTP status code.
        status: u16,
        /// The request URL.
        url: String,
        /// The first 4096 bytes of the body, as lossy UTF-8.
        body: String,
    },
    /// A connection, TLS or IO failure, a timeout, or too many redirects.
    #[error("transport error for {url}: {message}")]
    Transport {
        /// The request URL.
        url: String,
        /// What failed.
        message: String,
    },
    /// The response body exceeded the configured limit (R-RESP-4).
    #[error("response from {url} exceeds the limit of {limit} bytes")]
    ResponseTooLarge {
        /// The request URL.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The body is not JSON, is too deep, or a value does not deserialize into its Rust type.
    #[error("{}", describe_decode(url, content_type.as_deref(), entity.as_deref(), position, message))]
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
    #[error("{}", describe_invalid(url, entity.as_deref(), position, reason))]
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
    #[error("hook failed: {message}")]
    Hook {
        /// The hook's message.
        message: String,
    },
    /// One fetch could not make the data of this key valid (R-SUS-1, R-SUB-3).
    #[error("{key} is still invalid after fetching it")]
    Invalidated {
        /// The endpoint key.
        key: String,
    },
    /// The store was reset while the request was in flight.
    #[error("the cache was reset while the request was in flight")]
    Reset,
    /// The request task was cancelled before it settled.
    #[error("the request was aborted before it settled")]
    Aborted,
}

impl Error {
    /// Whether the error is *soft* (R-POL-1): a 5xx [`Error::Network`] or any [`Error::Transport`].
    /// Reads keep serving cached data through soft errors.
    ///
    /// ```
    /// use restcache::Error;
    /// let e = Error::Network { status: 503, url: "/x".into(), body: String::new() };
    /// assert!(e.is_soft());
    /// ```
    pub fn is_soft(&self) -> bool {
        match self {
            Error::Network { status, .. } => *status >= 500,
            Error::Transport { .. } => true,
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

fn at(position: &str) -> String {
    if position.is_empty() {
        "the root".to_owned()
    } else {
        format!("{position:?}")
    }
}

fn describe_decode(
    url: &str,
    content_type: Option<&str>,
    entity: Option<&str>,
    position: &str,
    message: &str,
) -> String {
    let mut s = String::from("cannot decode");
    if let Some(e) = entity {
        s.push_str(&format!(" entity {e}"));
    }
    s.push_str(&format!(" at {}", at(position)));
    if !url.is_empty() {
        s.push_str(&format!(" of the response from {url}"));
    }
    match content_type {
        Some(ct) => s.push_str(&format!(" (content type {ct:?})")),
        None if !url.is_empty() => s.push_str(" (no content type)"),
        None => {}
    }
    s.push_str(": ");
    s.push_str(message);
    s
}

fn describe_invalid(url: &str, entity: Option<&str>, position: &str, reason: &str) -> String {
    let mut s = String::from("invalid response");
    if !url.is_empty() {
        s.push_str(&format!(" from {url}"));
    }
    if let Some(e) = entity {
        s.push_str(&format!(" for entity {e}"));
    }
    s.push_str(&format!(" at {}: {reason}", at(position)));
    s
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
        let net = |status| Error::Network {
            status,
            url: String::new(),
            body: String::new(),
        };
        assert!(net(500).is_soft());
        assert!(!net(404).is_soft());
        assert!(
            Error::Transport {
                url: String::new(),
                message: String::new()
            }
            .is_soft()
        );
        assert!(!Error::Reset.is_soft());
    }
}
