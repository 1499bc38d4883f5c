//! One request over reqwest: URL, headers and hooks, credentials, redirects, and the response
//! read within bounds and decoded (R-REQ-1..5, R-RESP-1..4).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, COOKIE, HeaderMap, HeaderValue, PROXY_AUTHORIZATION, RETRY_AFTER,
};
#[cfg(not(target_arch = "wasm32"))]
use reqwest::header::{LOCATION, SET_COOKIE};
use reqwest::{Method, Url};
use serde_json::Value;

use super::endpoint::EndpointConfig;
use super::hooks::{AfterResponse, Credentials, EndpointHooks, RequestInit, ResponseHead};
use super::retry::{self, Retry};
use crate::bounded_value;
use crate::error::{Error, TransportSource, chain};

/// How many redirects a request follows (R-REQ-5).
pub const MAX_REDIRECTS: usize = 10;
/// The default bound on a whole fetch: hooks, every redirect hop and the body (R-REQ-5).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default bound on a response body (R-RESP-4).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;
/// How much of an error body `Error::Status` keeps.
const ERROR_BODY_BYTES: usize = 4096;

/// `(scheme, host, port)`.
type Origin = (String, String, Option<u16>);

fn origin(url: &Url) -> Origin {
    (
        url.scheme().to_owned(),
        url.host_str().unwrap_or("").to_ascii_lowercase(),
        url.port_or_known_default(),
    )
}

#[cfg(all(feature = "cookies", not(target_arch = "wasm32")))]
pub(crate) type Jar = Arc<dyn reqwest::cookie::CookieStore>;
/// Cookies need the `cookies` feature.
#[cfg(not(all(feature = "cookies", not(target_arch = "wasm32"))))]
pub(crate) type Jar = Arc<()>;

/// The HTTP side of a Controller: the client and the request policy.
pub(crate) struct Http {
    pub client: reqwest::Client,
    pub base_url: Option<Url>,
    pub timeout: Option<Duration>,
    pub max_response_bytes: u64,
    pub credentials: Credentials,
    /// With the `cookies` feature, natively: in the browser, `fetch` keeps cookies itself.
    #[cfg(all(feature = "cookies", not(target_arch = "wasm32")))]
    pub jar: Option<Jar>,
    /// Hooks that run on every request, before the endpoint's.
    pub hooks: Option<Arc<dyn EndpointHooks>>,
    /// How GETs (and HEADs) are retried when their endpoint sets no policy.
    pub retry: Retry,
}

/// A request once its hooks have run: what each hop sends.
struct Request {
    method: Method,
    /// Headers that go on every hop.
    plain: HeaderMap,
    /// Credential headers, which go only where the credentials mode allows.
    secret: HeaderMap,
    body: Option<Vec<u8>>,
    credentials: Credentials,
    /// Where credentials belong.
    home: Option<Origin>,
}

/// What one fetch sends.
pub(crate) struct Outgoing<'a> {
    pub cfg: &'a EndpointConfig,
    /// The endpoint's URL (relative or absolute).
    pub url: &'a str,
    pub body: Option<&'a Value>,
    /// The schema is `()`: the body is not read as JSON.
    pub ignore_body: bool,
}

/// The body of a successful response, read but not parsed: the caller normalizes it from its
/// bytes (`Store::normalize_fetched`).
pub(crate) struct Fetched {
    /// The JSON text; empty when there is nothing to read (a 204, a whitespace body, or a
    /// `()` schema), which stands for an empty response.
    pub bytes: Vec<u8>,
    /// The URL that answered, after redirects.
    pub url: String,
    pub content_type: Option<String>,
    pub head: ResponseHead,
}

impl Fetched {
    /// The [`Error::Decode`] of a body that is not JSON.
    pub fn syntax_error(&self, e: serde_json::Error) -> Error {
        crate::store::syntax_error(e, self.content_type.as_deref()).with_url(&self.url)
    }

    /// `e`, raised while normalizing this body: a decode error names the content type, and it
    /// and a schema error name the absolute URL that answered, as the HTTP errors do.
    pub fn blame(&self, mut e: Error) -> Error {
        if let Error::Decode { content_type, .. } = &mut e
            && content_type.is_none()
        {
            content_type.clone_from(&self.content_type);
        }
        e.with_url(&self.url)
    }
}

/// A transport failure reqwest reported, which stays its source.
fn transport(url: &Url, e: reqwest::Error) -> Error {
    Error::Transport {
        url: url.to_string(),
        message: chain(&e),
        timed_out: e.is_timeout(),
        source: Some(TransportSource::new(e)),
    }
}

/// A transport failure restcache itself decided on (the timeout, a redirect it refuses).
fn refused(url: &Url, message: String, timed_out: bool) -> Error {
    Error::Transport {
        url: url.to_string(),
        message,
        timed_out,
        source: None,
    }
}

/// Whether a `Content-Type` value names JSON (R-RESP-3): the media type `application/json`, or
/// any `type/subtype+json` (`application/problem+json`, …), case-insensitive, parameters ignored.
fn is_json_media_type(content_type: &str) -> bool {
    let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match media.split_once('/') {
        Some((kind, subtype)) if !kind.is_empty() => {
            media == "application/json" || subtype.strip_suffix("+json").is_some_and(|name| !name.is_empty())
        }
        _ => false,
    }
}

/// Whether `url` starts with `http://` or `https://`, in any case.
fn is_absolute(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// `url`, if it is an absolute http(s) URL.
pub(crate) fn http_url(url: &str) -> Option<Url> {
    Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
}

fn is_credential(name: &reqwest::header::HeaderName, value: &HeaderValue) -> bool {
    name == AUTHORIZATION || name == PROXY_AUTHORIZATION || name == COOKIE || value.is_sensitive()
}

impl Http {
    /// The absolute URL of a request (R-REQ-2).
    pub fn absolute(&self, url: &str) -> Result<Url, Error> {
        let full = if is_absolute(url) {
            url.to_owned()
        } else if let Some(base) = &self.base_url {
            let base = base.as_str().trim_end_matches('/');
            if url.starts_with('/') {
                format!("{base}{url}")
            } else {
                format!("{base}/{url}")
            }
        } else {
            return Err(Error::InvalidConfig {
                reason: format!("relative URL {url:?} and no base_url"),
            });
        };
        http_url(&full).ok_or_else(|| Error::InvalidConfig {
            reason: format!("{full:?} is not an absolute http(s) URL"),
        })
    }

    /// The origin credentials belong to: `base_url`, else an absolute `url_prefix` (R-REQ-4).
    fn home_origin(&self, cfg: &EndpointConfig) -> Option<Origin> {
        match &self.base_url {
            Some(base) => Some(origin(base)),
            None if is_absolute(&cfg.url_prefix) => Url::parse(&cfg.url_prefix).ok().map(|u| origin(&u)),
            None => None,
        }
    }

    /// Sends the request, following redirects, and reads the response's body, all within the
    /// timeout (R-REQ-5).
    pub async fn send(&self, out: Outgoing<'_>) -> Result<Fetched, Error> {
        let start = self.absolute(out.url)?;
        let mut at = start.clone();
        let Some(limit) = self.timeout else {
            return self.attempts(&out, &start, &mut at).await;
        };
        match crate::rt::timeout(limit, self.attempts(&out, &start, &mut at)).await {
            Some(done) => done,
            // `at` is the hop that was under way.
            None => Err(refused(
                &at,
                format!("timed out after {limit:?} (hooks, redirects and body included)"),
                true,
            )),
        }
    }

    /// The hooks of a request: the Controller's, then the endpoint's.
    fn hooks<'a>(&'a self, out: &'a Outgoing<'_>) -> impl Iterator<Item = &'a dyn EndpointHooks> {
        self.hooks.as_deref().into_iter().chain([&*out.cfg.hooks])
    }

    /// Sends the request from `start` (`at` is then the hop under way), again after a failure
    /// that may pass, as the retry policy says: the endpoint's, else the Controller's for a
    /// GET or HEAD, else none.
    async fn attempts(&self, out: &Outgoing<'_>, start: &Url, at: &mut Url) -> Result<Fetched, Error> {
        let reads = out.cfg.is_read();
        let policy = out.cfg.retry.unwrap_or(if reads { self.retry } else { Retry::never() });
        // The one retry a response hook may ask for, over all attempts.
        let mut hook_retried = false;
        let mut n = 0;
        loop {
            at.clone_from(start);
            let retries = |e: &Error| policy.retries_after(n, e);
            match self.attempt(out, start, at, &mut hook_retried, &retries).await {
                Err(e) if retries(&e) => {
                    let wait = policy.wait(n, &e);
                    n += 1;
                    tracing::debug!(url = %start, retry = n, ?wait, error = %e, "retrying after a failure that may pass");
                    crate::rt::sleep_until(crate::rt::later(crate::rt::Instant::now(), wait)).await;
                }
                done => return done,
            }
        }
    }

    /// One attempt: the request, the response hooks (and the one retry they may ask for, sent
    /// from `start` again, through the same redirects), and the body, unless the answer is an
    /// error that `retried` says is sent again.
    async fn attempt(
        &self,
        out: &Outgoing<'_>,
        start: &Url,
        at: &mut Url,
        hook_retried: &mut bool,
        retried: &(dyn Fn(&Error) -> bool + Sync),
    ) -> Result<Fetched, Error> {
        loop {
            let response = self.exchange(out, at).await?;
            let head = ResponseHead {
                status: response.status(),
                headers: response.headers().clone(),
                url: at.to_string(),
                method: out.cfg.method.clone(),
                retried: *hook_retried,
            };
            let mut retry = false;
            for hooks in self.hooks(out) {
                retry |= hooks.response(&head).await == AfterResponse::Retry;
            }
            if retry && !*hook_retried {
                *hook_retried = true;
                tracing::debug!(url = %head.url, status = %head.status, "a response hook asked for a retry");
                // Not to where the chain ended: that hop's origin is not the request's to choose
                // (R-REQ-4), and a redirect chain decides credentials by its first hop.
                at.clone_from(start);
                continue;
            }
            return self.read(response, at, out.ignore_body, head, retried).await;
        }
    }

    /// Runs the request hooks and sends the request to `url`, following redirects (`url` is
    /// then the hop under way); returns the final response, its body unread.
    async fn exchange(&self, out: &Outgoing<'_>, url: &mut Url) -> Result<reqwest::Response, Error> {
        let mut init = RequestInit {
            url: url.to_string(),
            method: out.cfg.method.clone(),
            headers: HeaderMap::new(),
            body: out.body.cloned(),
            credentials: self.credentials,
        };
        init.headers
            .insert(ACCEPT, HeaderValue::from_static("application/json"));
        if init.body.is_some() {
            init.headers
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        for hooks in self.hooks(out) {
            hooks.request_init(&mut init);
        }
        for hooks in self.hooks(out) {
            init.headers = hooks.headers(init.headers).await?;
        }

        let mut plain = HeaderMap::new();
        let mut secret = HeaderMap::new();
        for (name, value) in &init.headers {
            let target = if is_credential(name, value) {
                &mut secret
            } else {
                &mut plain
            };
            target.append(name.clone(), value.clone());
        }
        if init.body.is_some() && !plain.contains_key(CONTENT_TYPE) {
            plain.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        // A hook may have set any body: it is refused, not sent, past the depth limit.
        let request = Request {
            method: init.method,
            plain,
            secret,
            body: init.body.map(bounded_value::body_bytes).transpose()?,
            credentials: init.credentials,
            home: self.home_origin(out.cfg),
        };
        self.transfer(request, url).await
    }

    /// Sends `request` to `url`, following redirects itself (`url` is then the hop under way),
    /// with credentials and jar cookies only where they may go (R-REQ-4, R-REQ-5).
    #[cfg(not(target_arch = "wasm32"))]
    async fn transfer(&self, request: Request, url: &mut Url) -> Result<reqwest::Response, Error> {
        let first = origin(url);
        // Whether the chain has been anywhere but the home origin, its first hop included.
        let mut left_home = false;

        for hop in 0..=MAX_REDIRECTS {
            let here = origin(url);
            left_home |= request.home.as_ref() != Some(&here);
            // `SameOrigin`: no credential of any kind once the chain has left home (or started
            // elsewhere), even on a hop back home. Jar cookies go, and `Set-Cookie` is stored,
            // where credentials may go; in `Include` mode the jar's own domain rules decide.
            let allowed = match request.credentials {
                Credentials::Omit => false,
                Credentials::SameOrigin => !left_home,
                Credentials::Include => true,
            };
            // Hook-set credentials never follow a redirect to an origin other than the first.
            let with_credentials = allowed && (request.credentials != Credentials::Include || here == first);
            let mut headers = request.plain.clone();
            if with_credentials {
                headers.extend(request.secret.clone());
            }
            if allowed {
                self.add_jar_cookies(&mut headers, url);
            }
            let mut builder = self
                .client
                .request(request.method.clone(), url.clone())
                .headers(headers);
            if let Some(b) = &request.body {
                builder = builder.body(b.clone());
            }
            let response = builder.send().await.map_err(|e| transport(url, e))?;
            if allowed {
                self.store_cookies(&response, url);
            }
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let next = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| url.join(l).ok())
                    .filter(|u| matches!(u.scheme(), "http" | "https"));
                if let Some(next) = next {
                    if hop == MAX_REDIRECTS {
                        return Err(refused(url, format!("more than {MAX_REDIRECTS} redirects"), false));
                    }
                    // By the Fetch standard, 301 and 302 turn a POST into a GET, and 303 anything
                    // but GET and HEAD; other redirects keep the method and the body.
                    let method = &request.method;
                    let to_get = match status {
                        301 | 302 => *method == Method::POST,
                        303 => *method != Method::GET && *method != Method::HEAD,
                        _ => false,
                    };
                    if to_get {
                        // Whatever a GET there answers, it is not the mutation's outcome.
                        let message = format!(
                            "a {status} redirect to {next} would resend the {} as a GET; \
                             a mutation is not followed into a GET",
                            request.method
                        );
                        return Err(refused(url, message, false));
                    }
                    *url = next;
                    continue;
                }
            }
            return Ok(response);
        }
        unreachable!("the loop returns on its last hop")
    }

    /// Sends `request` to `url` with the browser's `fetch`, which follows redirects and keeps
    /// cookies itself: the credentials mode becomes fetch's, and hook-set credentials go only
    /// where that mode lets them (R-REQ-4).
    #[cfg(target_arch = "wasm32")]
    async fn transfer(&self, request: Request, url: &mut Url) -> Result<reqwest::Response, Error> {
        let with_credentials = match request.credentials {
            Credentials::Omit => false,
            Credentials::SameOrigin => request.home.as_ref() == Some(&origin(url)),
            Credentials::Include => true,
        };
        let mut headers = request.plain;
        if with_credentials {
            headers.extend(request.secret);
        }
        let mut builder = self.client.request(request.method, url.clone()).headers(headers);
        builder = match request.credentials {
            Credentials::Omit => builder.fetch_credentials_omit(),
            Credentials::SameOrigin => builder.fetch_credentials_same_origin(),
            Credentials::Include => builder.fetch_credentials_include(),
        };
        if let Some(b) = request.body {
            builder = builder.body(b);
        }
        let response = builder.send().await.map_err(|e| transport(url, e))?;
        // The URL that answered, after the browser's redirects.
        *url = response.url().clone();
        Ok(response)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn add_jar_cookies(&self, headers: &mut HeaderMap, url: &Url) {
        #[cfg(feature = "cookies")]
        if let Some(jar) = &self.jar
            && let Some(cookies) = jar.cookies(url)
        {
            let value = match headers.get(COOKIE) {
                Some(set) => {
                    let mut joined = set.as_bytes().to_vec();
                    joined.extend_from_slice(b"; ");
                    joined.extend_from_slice(cookies.as_bytes());
                    HeaderValue::from_bytes(&joined).unwrap_or(cookies)
                }
                None => cookies,
            };
            headers.insert(COOKIE, value);
        }
        #[cfg(not(feature = "cookies"))]
        let _ = (headers, url);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn store_cookies(&self, response: &reqwest::Response, url: &Url) {
        #[cfg(feature = "cookies")]
        if let Some(jar) = &self.jar {
            jar.set_cookies(&mut response.headers().get_all(SET_COOKIE).iter(), url);
        }
        #[cfg(not(feature = "cookies"))]
        let _ = (response, url, SET_COOKIE);
    }

    /// Reads at most `limit` bytes of the body; `Ok(None)` when there were more.
    async fn read_limited(body: &mut Body, url: &Url, limit: u64) -> Result<Option<Vec<u8>>, Error> {
        let mut bytes = Vec::new();
        while let Some(chunk) = body.chunk().await.map_err(|e| transport(url, e))? {
            if bytes.len() as u64 + chunk.len() as u64 > limit {
                // Stop reading at the limit; the rest of the body is never buffered.
                return Ok(None);
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Some(bytes))
    }

    async fn read(
        &self,
        response: reqwest::Response,
        url: &Url,
        ignore_body: bool,
        head: ResponseHead,
        retried: &(dyn Fn(&Error) -> bool + Sync),
    ) -> Result<Fetched, Error> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let content_length = response.content_length();
        let mut response = Body::new(response);
        if !status.is_success() {
            let mut error = Error::Status {
                status,
                url: url.to_string(),
                body: String::new(),
                retry_after: head.headers.get(RETRY_AFTER).and_then(retry::retry_after),
            };
            // An answer sent again is not read: its body is dropped, and may never end.
            if !retried(&error)
                && let Error::Status { body: text, .. } = &mut error
            {
                let mut body = Vec::new();
                while body.len() < ERROR_BODY_BYTES {
                    match response.chunk().await {
                        Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                        _ => break,
                    }
                }
                body.truncate(ERROR_BODY_BYTES);
                *text = String::from_utf8_lossy(&body).into_owned();
            }
            return Err(error);
        }
        let too_large = || Error::ResponseTooLarge {
            url: url.to_string(),
            limit: self.max_response_bytes,
        };
        if content_length.is_some_and(|n| n > self.max_response_bytes) {
            return Err(too_large());
        }
        let bytes = Self::read_limited(&mut response, url, self.max_response_bytes)
            .await?
            .ok_or_else(too_large)?;
        let empty = ignore_body || status.as_u16() == 204 || bytes.iter().all(u8::is_ascii_whitespace);
        if !empty
            && let Some(ct) = &content_type
            && !is_json_media_type(ct)
        {
            return Err(Error::Decode {
                url: url.to_string(),
                content_type: content_type.clone(),
                entity: None,
                position: String::new(),
                message: format!("expected a JSON content type, got {ct:?}"),
            });
        }
        Ok(Fetched {
            bytes: if empty { Vec::new() } else { bytes },
            url: url.to_string(),
            content_type,
            head,
        })
    }
}

/// A response's body, read a chunk at a time on either platform.
struct Body {
    #[cfg(not(target_arch = "wasm32"))]
    response: reqwest::Response,
    #[cfg(target_arch = "wasm32")]
    stream: std::pin::Pin<Box<dyn futures_core::Stream<Item = reqwest::Result<bytes::Bytes>>>>,
}

impl Body {
    fn new(response: reqwest::Response) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Body { response }
        }
        #[cfg(target_arch = "wasm32")]
        {
            Body {
                stream: Box::pin(response.bytes_stream()),
            }
        }
    }

    /// The next chunk, `None` at the end.
    async fn chunk(&mut self) -> reqwest::Result<Option<impl std::ops::Deref<Target = [u8]>>> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.response.chunk().await
        }
        #[cfg(target_arch = "wasm32")]
        {
            std::future::poll_fn(|cx| self.stream.as_mut().poll_next(cx))
                .await
                .transpose()
        }
    }
}
