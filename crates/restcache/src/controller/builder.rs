//! `Controller::builder()`.

use std::sync::Arc;
use std::time::Duration;

use super::Controller;
use crate::error::Error;
use crate::persist::Persister;
use crate::rest::http::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, Http, Jar, http_url};
use crate::rest::{Credentials, EndpointHooks, Retry};
use crate::store::{GcPolicy, Schemas, Store};

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
    /// `None` until set: then [`DEFAULT_TIMEOUT`]; `Some(None)` turns the timeout off.
    timeout: Option<Option<Duration>>,
    max_response_bytes: Option<u64>,
    credentials: Credentials,
    jar: Option<Jar>,
    hooks: Option<Arc<dyn EndpointHooks>>,
    retry: Option<Retry>,
    persist: Option<(Box<dyn Persister>, Schemas)>,
    gc: Option<GcPolicy>,
}

impl std::fmt::Debug for ControllerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerBuilder")
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("credentials", &self.credentials)
            .field("cookies", &self.jar.is_some())
            .field("hooks", &self.hooks.is_some())
            .field("retry", &self.retry)
            .field("persisted", &self.persist.is_some())
            .field("gc", &self.gc)
            .finish_non_exhaustive()
    }
}

impl ControllerBuilder {
    /// Keeps the cache with `persister` (R-PERS-1): `build` restores what it holds, read back
    /// with `schemas` (expiry included: fresh data is served with no request, stale data
    /// refetches), and every change of the cache is then saved through it, the rows and keys
    /// it touched one at a time. `build` fails with `Error::Persist` when the persister cannot
    /// be read.
    ///
    /// ```no_run
    /// use restcache::prelude::*;
    /// use restcache::persist::FilePersister;
    /// use restcache::store::Schemas;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64 }
    ///
    /// let ctrl = Controller::builder()
    ///     .base_url("http://127.0.0.1:3000")
    ///     .persist(FilePersister::new("cache.log"), Schemas::new().with::<Collection<Vec<Todo>>>())
    ///     .build()?;
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn persist(mut self, persister: impl Persister, schemas: Schemas) -> Self {
        self.persist = Some((Box::new(persister), schemas));
        self
    }

    /// Collects the cache with `policy` (R-GC-1..5): every [`GcPolicy::interval`] a task runs a
    /// cycle one step at a time, letting other tasks run between steps; live views keep the
    /// keys they read; with a byte budget, writes also start cycles and help them along. The
    /// task starts with the first change of the cache and ends with the Controller.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::store::GcPolicy;
    /// use std::time::Duration;
    ///
    /// let ctrl = Controller::builder()
    ///     .base_url("http://127.0.0.1:3000")
    ///     .gc(GcPolicy::new().max_age(Duration::from_secs(600)).max_bytes(32 << 20))
    ///     .build()?;
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn gc(mut self, policy: GcPolicy) -> Self {
        self.gc = Some(policy);
        self
    }

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

    /// Bounds each fetch as a whole: its hooks, every redirect hop and the reading of the body
    /// (default [`DEFAULT_TIMEOUT`](crate::rest::DEFAULT_TIMEOUT), 30 s). `None` turns it off,
    /// as in reqwest's blocking `ClientBuilder::timeout`. A fetch out of time is
    /// `Error::Transport` saying it timed out (its `is_timeout()` is true), and frees its key for
    /// the next read; a zero timeout is refused by [`build`](Self::build) with
    /// `Error::InvalidConfig`.
    ///
    /// Under tokio's paused clock (tests), a timeout fires as soon as the runtime is idle while
    /// a request is on the wire; tests that pause the clock during requests turn it off.
    ///
    /// ```
    /// use restcache::Controller;
    /// use std::time::Duration;
    ///
    /// let quick = Controller::builder().timeout(Duration::from_secs(5)).build()?;
    /// let patient = Controller::builder().timeout(None).build()?;
    /// assert!(Controller::builder().timeout(Duration::ZERO).build().is_err());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = Some(timeout.into());
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
    #[cfg(all(feature = "cookies", not(target_arch = "wasm32")))]
    pub fn cookie_store(mut self, enable: bool) -> Self {
        self.jar = enable.then(|| Arc::new(reqwest::cookie::Jar::default()) as Jar);
        self
    }

    /// Keeps cookies in this store (for example a jar shared with other clients).
    #[cfg(all(feature = "cookies", not(target_arch = "wasm32")))]
    pub fn cookie_provider(mut self, store: Arc<dyn reqwest::cookie::CookieStore>) -> Self {
        self.jar = Some(store);
        self
    }

    /// Hooks for every request of this Controller: a value built with the state it needs (a
    /// token store, say). They run before each endpoint's own hooks: `request_init`, then
    /// `headers`, then, on the response, `response` (see [`EndpointHooks`]).
    ///
    /// ```
    /// use restcache::Controller;
    /// use restcache::rest::{BoxFuture, EndpointHooks};
    /// use restcache::rest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
    /// use std::sync::{Arc, RwLock};
    ///
    /// /// The token the app's login flow keeps up to date.
    /// struct Auth(Arc<RwLock<String>>);
    ///
    /// impl EndpointHooks for Auth {
    ///     fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, restcache::Error>> {
    ///         let token = format!("Bearer {}", self.0.read().unwrap());
    ///         Box::pin(async move {
    ///             if let Ok(value) = HeaderValue::from_str(&token) {
    ///                 headers.insert(AUTHORIZATION, value);
    ///             }
    ///             Ok(headers)
    ///         })
    ///     }
    /// }
    ///
    /// let token = Arc::new(RwLock::new(String::from("signed-in")));
    /// let ctrl = Controller::builder().hooks(Auth(Arc::clone(&token))).build()?;
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn hooks(mut self, hooks: impl EndpointHooks) -> Self {
        self.hooks = Some(Arc::new(hooks));
        self
    }

    /// How GETs are retried when their endpoint sets no policy (default [`Retry::default`]:
    /// two retries with exponential backoff and jitter); `Retry::never()` turns retries off.
    /// Mutations are retried only when their endpoint asks ([`Retry`] says why). A policy that
    /// makes no sense (a zero delay, more than [`MAX_RETRIES`](crate::rest::MAX_RETRIES)) is
    /// refused by [`build`](Self::build).
    ///
    /// ```
    /// use restcache::Controller;
    /// use restcache::rest::Retry;
    /// use std::time::Duration;
    ///
    /// let eager = Controller::builder().retry(Retry::new(4, Duration::from_millis(100))).build()?;
    /// let once = Controller::builder().retry(Retry::never()).build()?;
    /// assert!(Controller::builder().retry(Retry::new(1, Duration::ZERO)).build().is_err());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn retry(mut self, policy: Retry) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Builds the Controller. A `base_url` that is not an absolute http(s) URL or has a query
    /// or fragment, a zero timeout, a retry policy that makes no sense, or a client that cannot
    /// be built is `Error::InvalidConfig`.
    pub fn build(self) -> Result<Controller, Error> {
        let retry = self.retry.unwrap_or_default();
        retry.check()?;
        let timeout = self.timeout.unwrap_or(Some(DEFAULT_TIMEOUT));
        if timeout == Some(Duration::ZERO) {
            return Err(Error::InvalidConfig {
                reason: "a zero timeout would fail every fetch; use timeout(None) to turn it off".into(),
            });
        }
        let base_url = match self.base_url {
            Some(u) => {
                let url = http_url(&u).ok_or_else(|| Error::InvalidConfig {
                    reason: format!("base_url {u:?} is not an absolute http(s) URL"),
                })?;
                // Member paths are appended to it: they would land after a query or fragment.
                if url.query().is_some() || url.fragment().is_some() {
                    return Err(Error::InvalidConfig {
                        reason: format!(
                            "base_url {u:?} has a query or fragment, which member paths would follow; \
                             give query parameters as the members' args"
                        ),
                    });
                }
                Some(url)
            }
            None => None,
        };
        let client = match self.client {
            Some(c) => c,
            None => default_client().map_err(|e| Error::InvalidConfig {
                reason: format!("cannot build the HTTP client: {e}"),
            })?,
        };
        let http = Http {
            client,
            base_url,
            timeout,
            max_response_bytes: self.max_response_bytes.unwrap_or(DEFAULT_MAX_RESPONSE_BYTES),
            credentials: self.credentials,
            #[cfg(all(feature = "cookies", not(target_arch = "wasm32")))]
            jar: self.jar,
            hooks: self.hooks,
            retry,
        };
        let (mut store, persister) = match self.persist {
            Some((mut persister, schemas)) => (restore(persister.as_mut(), &schemas)?, Some(persister)),
            None => (Store::new(), None),
        };
        if let Some(policy) = self.gc {
            store.set_gc(policy);
        }
        Ok(Controller::from_parts(store, http, persister))
    }
}

/// The store `persister` holds, read back with `schemas`; what it holds is then compacted to
/// that state, and the store tracks its changes from there (R-PERS-1). A persisted change that
/// no longer reads back with `schemas` (the app's types changed) is left out with a warning;
/// schemas that give one entity key two types fail the build, and nothing is compacted.
fn restore(persister: &mut dyn Persister, schemas: &Schemas) -> Result<Store, Error> {
    let changes = persister.restore()?;
    let count = changes.len();
    let mut store = Store::new();
    let dropped = store.restore_changes(changes, schemas)?;
    if dropped > 0 {
        tracing::warn!(dropped, "persisted changes that no longer read back were left out");
    }
    // Tracking starts after the restore, so the journal holds nothing the log already has.
    store.track_changes();
    persister.compact(&store.changes())?;
    tracing::debug!(changes = count, "restored the persisted cache");
    Ok(store)
}

/// The client restcache builds: natively one that does not follow redirects, since the
/// Controller follows them itself (R-REQ-4, R-REQ-5); in the browser, `fetch` follows them.
fn default_client() -> reqwest::Result<reqwest::Client> {
    let builder = reqwest::Client::builder();
    #[cfg(not(target_arch = "wasm32"))]
    let builder = builder.redirect(reqwest::redirect::Policy::none());
    builder.build()
}
