//! `Controller::builder()`.

#[cfg(feature = "cookies")]
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;

use super::Controller;
use crate::error::Error;
use crate::rest::Credentials;
use crate::rest::http::{DEFAULT_MAX_RESPONSE_BYTES, Http, Jar};
use crate::store::Store;

/// Configures a [`Controller`].
///
/// ```
/// use restcache::Controller;
/// use restcache::rest::Credentials;
/// use std::time::Duration;
///
/// let ctrl = Controller::builder()
///     .base_url("http://127.0.0.1:3000")
///     .timeout(Duration::from_secs(10))
///     .max_response_bytes(1 << 20)
///     .credentials(Credentials::Omit)
///     .build()?;
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Default)]
pub struct ControllerBuilder {
    base_url: Option<String>,
    client: Option<reqwest::Client>,
    timeout: Option<Duration>,
    max_response_bytes: Option<u64>,
    credentials: Credentials,
    jar: Option<Jar>,
}

impl std::fmt::Debug for ControllerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerBuilder")
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("credentials", &self.credentials)
            .field("cookies", &self.jar.is_some())
            .finish_non_exhaustive()
    }
}

impl ControllerBuilder {
    /// Relative member URLs go to `base_url` (R-REQ-2); it is also the home origin of
    /// credentials (R-REQ-4).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Uses this client. It must not follow redirects itself
    /// (`reqwest::redirect::Policy::none()`), or the credential guarantees of R-REQ-4 do not
    /// hold across redirects.
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// A timeout for each request (none by default); a timeout is `Error::Transport`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The largest response body read (default 32 MiB); a larger one is
    /// `Error::ResponseTooLarge`.
    pub fn max_response_bytes(mut self, limit: u64) -> Self {
        self.max_response_bytes = Some(limit);
        self
    }

    /// The default credentials mode (default `SameOrigin`); hooks may change it per request.
    pub fn credentials(mut self, mode: Credentials) -> Self {
        self.credentials = mode;
        self
    }

    /// Keeps cookies in a jar (off by default). Jar cookies are credentials: they are sent, and
    /// `Set-Cookie` is stored, only as the credentials mode allows (R-REQ-4).
    #[cfg(feature = "cookies")]
    pub fn cookie_store(mut self, enable: bool) -> Self {
        self.jar = enable.then(|| Arc::new(reqwest::cookie::Jar::default()) as Jar);
        self
    }

    /// Keeps cookies in this store (for example a jar shared with other clients).
    #[cfg(feature = "cookies")]
    pub fn cookie_provider(mut self, store: Arc<dyn reqwest::cookie::CookieStore>) -> Self {
        self.jar = Some(store);
        self
    }

    /// Builds the Controller.
    pub fn build(self) -> Result<Controller, Error> {
        let base_url = match self.base_url {
            Some(u) => match Url::parse(&u) {
                Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Some(url),
                _ => {
                    return Err(Error::InvalidConfig {
                        reason: format!("base_url {u:?} is not an absolute http(s) URL"),
                    });
                }
            },
            None => None,
        };
        let client = match self.client {
            Some(c) => c,
            None => reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| Error::InvalidConfig {
                    reason: format!("cannot build the HTTP client: {e}"),
                })?,
        };
        let http = Http {
            client,
            base_url,
            timeout: self.timeout,
            max_response_bytes: self.max_response_bytes.unwrap_or(DEFAULT_MAX_RESPONSE_BYTES),
            credentials: self.credentials,
            jar: self.jar,
        };
        Ok(Controller::from_parts(Store::new(), http))
    }
}
