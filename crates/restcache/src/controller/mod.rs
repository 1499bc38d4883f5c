//! The Controller: what applications hold to fetch and read through the cache.

mod builder;
mod fetch;

use std::sync::Arc;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;

pub use builder::ControllerBuilder;
pub use fetch::FetchRequest;

use crate::error::Error;
use crate::rest::RestEndpoint;
use crate::rest::http::Http;
use crate::schema::Schema;
use crate::store::{Cached, Store, args_map};

pub(crate) struct Inner {
    pub store: Mutex<Store>,
    pub http: Http,
}

/// One cheap-to-clone handle on a store and an HTTP client: fetches members and reads what
/// they returned.
///
/// ```no_run
/// use restcache::prelude::*;
/// use restcache::rest::RestEndpoint;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// # async fn run() -> Result<(), restcache::Error> {
/// let ctrl = Controller::builder().base_url("http://127.0.0.1:3000").build()?;
/// let get = RestEndpoint::<Todo>::builder("/todos/:id").build()?;
/// let todo = ctrl.fetch(&get, params! { id: 1 }).await?;
/// println!("{}", todo.title);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Controller {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("base_url", &self.inner.http.base_url)
            .finish_non_exhaustive()
    }
}

impl Default for Controller {
    fn default() -> Self {
        Self::new()
    }
}

impl Controller {
    /// A Controller with the default client and no `base_url`.
    ///
    /// # Panics
    /// If the TLS backend cannot be initialized, like `reqwest::Client::new`; use
    /// [`builder`](Self::builder) to handle that as an error.
    pub fn new() -> Self {
        match Self::builder().build() {
            Ok(c) => c,
            Err(e) => panic!("cannot build the default HTTP client: {e}"),
        }
    }

    /// Configures a Controller: base URL, client, timeout, body limit, credentials.
    pub fn builder() -> ControllerBuilder {
        ControllerBuilder::default()
    }

    /// Sends `ep`'s request for `args`; awaiting it commits the response to the cache and
    /// resolves to what the response describes (R-FETCH-1, R-FETCH-5). Add a body with
    /// [`FetchRequest::body`].
    pub fn fetch<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> FetchRequest<S, B> {
        FetchRequest::new(self.clone(), ep, args_map(&args))
    }

    /// What the cache holds for `ep` and `args` (R-GET-1): data, status, expiry and error.
    pub fn get_response<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
    ) -> Result<Cached<S::Output>, Error> {
        let args = args_map(&args)?;
        let key = ep.cfg.key(&args)?;
        self.inner
            .store
            .lock()
            .get_response_with::<S>(&key, &args, ep.cfg.invalid_if_stale)
    }

    /// Writes `value` as `ep`'s response for `args`, arriving now (R-EXP-6).
    pub fn set_response<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
        value: &Value,
    ) -> Result<(), Error> {
        let args = args_map(&args)?;
        let key = ep.cfg.key(&args)?;
        let write_args = ep.cfg.write_args(&args).unwrap_or(args);
        let opts = crate::store::WriteOptions::new().data_expiry(ep.cfg.data_expiry);
        let opts = match &ep.cfg.policy {
            Some(p) => opts.policy(&**p),
            None => opts,
        };
        self.inner
            .store
            .lock()
            .set_response_with::<S>(&key, &write_args, value, opts)
    }

    /// Forgets `ep`'s result for `args`, so its next read fetches (R-EXP-2).
    pub fn invalidate<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> Result<(), Error> {
        let key = ep.key(&args)?;
        self.inner.store.lock().invalidate(&key);
        Ok(())
    }

    /// Invalidates every stored key `ep` matches (R-EXP-3). Returns how many.
    pub fn invalidate_all<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>) -> usize {
        self.inner.store.lock().invalidate_all(|k| ep.test_key(k))
    }

    /// Marks every key `ep` matches as expired (R-EXP-4). Returns how many.
    pub fn expire_all<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>) -> usize {
        self.inner.store.lock().expire_all(|k| ep.test_key(k))
    }

    /// The whole cache as JSON (see [`Store::snapshot`]).
    pub fn snapshot(&self) -> Value {
        self.inner.store.lock().snapshot()
    }
}
