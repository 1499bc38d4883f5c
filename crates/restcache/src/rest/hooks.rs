//! Request and response hooks: the seed's `getRequestInit` override, as a trait (R-REQ-3,
//! R-REQ-4), and a look at each response before its body is read.

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::error::Error;

pub use crate::rt::BoxFuture;

/// Whether credentials go with a request (R-REQ-4).
///
/// Credentials are cookies from the Controller's cookie jar and the hook-set `Authorization`,
/// `Proxy-Authorization` and `Cookie` headers, plus any header a hook marked sensitive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Credentials {
    /// Never send credentials.
    Omit,
    /// Send them only to the home origin (the Controller's `base_url`, else an absolute
    /// `url_prefix`), and only while the request has been nowhere else: never to another
    /// origin, and never on a hop back home once a redirect left it or when the request was
    /// first sent elsewhere. `Set-Cookie` is stored only from the hops that may carry them.
    #[default]
    SameOrigin,
    /// Send them on every request; a redirect still never carries hook-set credential headers
    /// to an origin other than the first.
    Include,
}

/// What a request will be: read-only URL and method, and the headers, body and credentials
/// mode that hooks may change.
#[derive(Clone, Debug)]
pub struct RequestInit {
    pub(crate) url: String,
    pub(crate) method: Method,
    /// The request headers (defaults: `Accept: application/json`, and `Content-Type:
    /// application/json` when there is a body).
    pub headers: HeaderMap,
    /// The JSON body, if any. One nested deeper than 128 levels is not sent: the fetch fails
    /// with `Error::InvalidArgs` (R-ERR-2).
    pub body: Option<Value>,
    /// The credentials mode of this request.
    pub credentials: Credentials,
}

impl RequestInit {
    /// The absolute request URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The request method.
    pub fn method(&self) -> &Method {
        &self.method
    }
}

/// What a response said before its body is read: status, headers and the URL that answered.
/// Response hooks see it ([`EndpointHooks::response`]), and
/// [`FetchRequest::with_response`](crate::controller::FetchRequest::with_response) returns it
/// with the data, for headers such as `X-Total-Count` or `Link`.
///
/// ```
/// use restcache::rest::ResponseHead;
/// use restcache::reqwest::StatusCode;
///
/// fn total(head: &ResponseHead) -> Option<u64> {
///     head.headers().get("x-total-count")?.to_str().ok()?.parse().ok()
/// }
/// # let _ = (total, StatusCode::OK);
/// ```
#[derive(Clone, Debug)]
pub struct ResponseHead {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) url: String,
    pub(crate) method: Method,
    pub(crate) retried: bool,
}

impl ResponseHead {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The response headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The absolute URL that answered, after redirects.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The request method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// Whether this response answers the one retry a response hook asked for; a hook's
    /// [`AfterResponse::Retry`] is not honoured then.
    pub fn is_retry(&self) -> bool {
        self.retried
    }
}

/// What a response hook decides ([`EndpointHooks::response`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AfterResponse {
    /// Go on: read the body (or report the error status).
    #[default]
    Continue,
    /// Send the request again, once: its request hooks run again first (so a refreshed token
    /// goes out). Honoured once per fetch; asked on the retry's response, it reads as
    /// `Continue`.
    Retry,
}

/// Customizes the requests of an endpoint (the seed's `Endpoint` option and its
/// `getRequestInit` override) and looks at their responses. Every method has a default that
/// changes nothing.
///
/// Hooks are values: build them with whatever state they need (an `Arc` token store, say) and
/// attach them to a resource ([`ResourceOptions::hooks`](crate::rest::ResourceOptions::hooks)),
/// to one endpoint ([`RestEndpoint::with_hooks`](crate::rest::RestEndpoint::with_hooks)), or to
/// every request of a Controller
/// ([`ControllerBuilder::hooks`](crate::controller::ControllerBuilder::hooks)). The
/// Controller's run first, then the endpoint's.
///
/// Order: library defaults → [`request_init`](Self::request_init) → [`headers`](Self::headers)
/// (may await) → credential filtering → send → [`response`](Self::response) (may await, may ask
/// for one retry) → body.
///
/// ```
/// use restcache::rest::{AfterResponse, BoxFuture, EndpointHooks, RequestInit, ResponseHead};
/// use restcache::Error;
/// use reqwest::StatusCode;
/// use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
/// use std::sync::{Arc, Mutex};
///
/// /// Sends the current token; on a 401, refreshes it and retries once.
/// struct Session {
///     token: Arc<Mutex<String>>,
/// }
///
/// impl EndpointHooks for Session {
///     fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
///         Box::pin(async move {
///             let token = format!("Bearer {}", self.token.lock().unwrap());
///             let value = HeaderValue::from_str(&token).map_err(|e| Error::InvalidArgs { reason: e.to_string() })?;
///             headers.insert(AUTHORIZATION, value);
///             Ok(headers)
///         })
///     }
///     fn response<'a>(&'a self, head: &'a ResponseHead) -> BoxFuture<'a, AfterResponse> {
///         Box::pin(async move {
///             if head.status() != StatusCode::UNAUTHORIZED {
///                 return AfterResponse::Continue;
///             }
///             // A real app would await its refresh endpoint here.
///             *self.token.lock().unwrap() = "refreshed".into();
///             AfterResponse::Retry
///         })
///     }
/// }
/// # let _ = Session { token: Arc::new(Mutex::new("t".into())) };
/// # let _ = RequestInit::url;
/// ```
pub trait EndpointHooks: Send + Sync + 'static {
    /// Changes the request before it is sent: headers, body, credentials mode.
    fn request_init(&self, init: &mut RequestInit) {
        let _ = init;
    }

    /// Produces the final headers; may await (for example to refresh a token).
    fn headers(&self, headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(std::future::ready(Ok(headers)))
    }

    /// Sees each response's status and headers before its body is read (success or error,
    /// after redirects), and may ask for one retry; may await (for example to refresh a
    /// token after a 401).
    fn response<'a>(&'a self, head: &'a ResponseHead) -> BoxFuture<'a, AfterResponse> {
        let _ = head;
        Box::pin(std::future::ready(AfterResponse::Continue))
    }
}

/// The hooks of an endpoint that declares none.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultHooks;

impl EndpointHooks for DefaultHooks {}

impl std::fmt::Debug for dyn EndpointHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn EndpointHooks")
    }
}
