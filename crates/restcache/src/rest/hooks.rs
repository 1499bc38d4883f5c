//! Request hooks: the seed's `getRequestInit` override, as a trait (R-REQ-3, R-REQ-4).

use reqwest::Method;
use reqwest::header::HeaderMap;
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

/// Customizes the requests of an endpoint (the seed's `Endpoint` option and its
/// `getRequestInit` override). Both methods have defaults that change nothing.
///
/// Order: library defaults → [`request_init`](Self::request_init) → [`headers`](Self::headers)
/// → credential filtering → send.
///
/// ```
/// use restcache::rest::{Credentials, EndpointHooks, RequestInit, BoxFuture};
/// use restcache::Error;
/// use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
///
/// /// Sends the session token, to our own origin only.
/// #[derive(Default)]
/// struct Authenticated;
///
/// impl EndpointHooks for Authenticated {
///     fn request_init(&self, init: &mut RequestInit) {
///         init.credentials = Credentials::SameOrigin;
///     }
///     fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
///         Box::pin(async move {
///             headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer demo-token"));
///             Ok(headers)
///         })
///     }
/// }
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
}

/// The hooks of an endpoint that declares none.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultHooks;

impl EndpointHooks for DefaultHooks {}
