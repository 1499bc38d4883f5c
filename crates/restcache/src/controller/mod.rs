//! The Controller: what applications hold to fetch, read through the cache and follow changes.
//!
//! One cheap-to-clone handle (an `Arc` inside, no globals): fetches run on tasks the Controller
//! owns, GETs in flight are shared, reads see optimistic layers, and every change is announced
//! to subscriptions.

mod builder;
mod collect;
mod fetch;
mod matcher;
mod poll;
mod status;
mod subscribe;
mod suspense;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

pub use builder::ControllerBuilder;
pub use fetch::{FetchRequest, FetchResponse};
pub use matcher::KeyMatcher;
pub use status::ReadStatus;
pub use subscribe::Subscription;

use crate::error::Error;
use crate::persist::Persister;
use crate::rest::RestEndpoint;
use crate::rest::http::Http;
use crate::schema::Schema;
use crate::store::{Cached, Schemas, Snapshot, Store, args_map};

pub(crate) struct Inner {
    pub store: Mutex<Store>,
    pub http: Http,
    /// GETs in flight, by (request URL, schema type) (R-FETCH-2).
    pub in_flight: Mutex<HashMap<fetch::FlightKey, fetch::Flight>>,
    /// Announces every change of the store to subscriptions.
    pub changes: watch::Sender<u64>,
    /// Announces every GET that starts or stops being in flight, for read statuses.
    pub flights_changed: watch::Sender<u64>,
    /// Counts the resets (and hydrates): each aborts every GET running (R-EXP-5).
    pub resets: watch::Sender<u64>,
    /// How to refetch each live view when it is stale, by subscription id.
    pub live: Mutex<HashMap<u64, subscribe::Revalidate>>,
    /// Whether the network is up: polling pauses while it is not.
    pub online: watch::Sender<bool>,
    /// Pollers, by key (R-SUB-4).
    pub pollers: Mutex<HashMap<String, poll::Poller>>,
    /// Ids of fetches, layers and subscriptions.
    pub next_id: AtomicU64,
    /// The `n` of `optimistic-<n>` placeholder pks.
    pub next_placeholder: AtomicU64,
    /// Where the cache's changes are saved, if anywhere (R-PERS-1).
    pub persister: Option<Mutex<Persisting>>,
    /// How often the collector starts a cycle, with a [`GcPolicy`](crate::store::GcPolicy),
    /// and its task once started (R-GC-5).
    pub collector: Option<(std::time::Duration, Mutex<Option<crate::rt::Task>>)>,
}

/// A Controller's persister, and whether changes were lost since it last saved them all.
pub(crate) struct Persisting {
    pub persister: Box<dyn Persister>,
    /// A save failed: the next compaction writes the whole cache.
    pub lost: bool,
    /// Changes to let pass before compacting again after a failed compaction, and how many
    /// the last failure let pass.
    pub backoff: u32,
    pub wait: u32,
}

/// One cheap-to-clone handle on a cache and an HTTP client: fetches members, reads through the
/// cache (`suspense`), follows changes (`subscribe`), invalidates, expires and resets.
///
/// ```
/// use restcache::prelude::*;
/// use std::sync::Arc;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// resource! {
///     #[resource(path = "/todos/:id", schema = Todo)]
///     pub struct TodoResource;
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = demo_api::DemoServer::start().await?;
/// let ctrl = Controller::builder().base_url(server.base_url()).build()?;
/// let todo = ctrl.suspense(&TodoResource::get(), params! { id: 1 }).await?;   // fetches once
/// let again = ctrl.suspense(&TodoResource::get(), params! { id: 1 }).await?;  // from the cache
/// assert!(Arc::ptr_eq(&todo, &again));
/// assert_eq!(server.requests().len(), 1);
/// # Ok(())
/// # }
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
    /// ```
    /// let ctrl = restcache::Controller::new();
    /// assert_eq!(ctrl.snapshot(), restcache::Store::new().snapshot()); // an empty cache
    /// ```
    ///
    /// # Panics
    /// If the TLS backend cannot be initialized, like `reqwest::Client::new`; use
    /// [`builder`](Self::builder) to handle that as an error.
    pub fn new() -> Self {
        Self::builder()
            .build()
            .unwrap_or_else(|e| panic!("cannot build the default HTTP client: {e}"))
    }

    /// Configures a Controller: base URL, client, timeout, body limit, credentials.
    ///
    /// ```
    /// use restcache::{Controller, Error};
    ///
    /// let ctrl = Controller::builder().base_url("https://api.example.com").build()?;
    /// assert!(ctrl.is_online());
    /// let bad = Controller::builder().base_url("not a url").build();
    /// assert!(matches!(bad, Err(Error::InvalidConfig { .. })));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn builder() -> ControllerBuilder {
        ControllerBuilder::default()
    }

    pub(crate) fn from_parts(store: Store, http: Http, persister: Option<Box<dyn Persister>>) -> Self {
        let collector = store.gc_interval().map(|every| (every, Mutex::new(None)));
        Controller {
            inner: Arc::new(Inner {
                store: Mutex::new(store),
                http,
                in_flight: Mutex::new(HashMap::new()),
                changes: watch::channel(0).0,
                resets: watch::channel(0).0,
                flights_changed: watch::channel(0).0,
                live: Mutex::new(HashMap::new()),
                online: watch::channel(true).0,
                pollers: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(1),
                next_placeholder: AtomicU64::new(1),
                persister: persister.map(|persister| {
                    Mutex::new(Persisting {
                        persister,
                        lost: false,
                        backoff: 0,
                        wait: 0,
                    })
                }),
                collector,
            }),
        }
    }

    /// Tells subscriptions that the store changed, then saves what changed with the persister
    /// (a live view does not wait for the disk).
    pub(crate) fn notify(&self) {
        self.start_collector();
        self.inner.changes.send_modify(|v| *v = v.wrapping_add(1));
        self.persist();
    }

    /// Saves what the store changed since the last save, and compacts what the persister
    /// keeps when it asks (R-PERS-1). The persister's lock is taken before the store's and held
    /// while it writes, so changes are saved in the order they were made; the store's is held
    /// only to take them. A persister that fails is logged: the cache goes on without it.
    ///
    /// Changes that fail to save are not lost: the persister is compacted to the whole cache
    /// instead, at the next change, and after a failed compaction at the 2nd, 4th, 8th… change
    /// after it (at most every 1,024th), so a persister that keeps failing costs little.
    fn persist(&self) {
        let Some(persisting) = &self.inner.persister else {
            return;
        };
        let mut p = persisting.lock();
        let changes = self.inner.store.lock().take_changes();
        if changes.is_empty() {
            return;
        }
        if !p.lost
            && let Err(e) = p.persister.save(&changes)
        {
            tracing::warn!(error = %e, "the persister did not save the cache's changes; it will be compacted");
            p.lost = true;
        }
        if !(p.lost || p.persister.should_compact()) {
            return;
        }
        if p.wait > 0 {
            p.wait -= 1;
            return;
        }
        // The state, and the journal emptied under the same lock: what it held is in the state
        // (a failed compaction is retried whole).
        let state = {
            let mut store = self.inner.store.lock();
            store.forget_changes();
            store.changes()
        };
        match p.persister.compact(&state) {
            Ok(()) => {
                p.lost = false;
                p.backoff = 0;
            }
            Err(e) => {
                tracing::warn!(error = %e, "the persister did not compact");
                p.lost = true;
                p.backoff = (p.backoff * 2).clamp(1, 1_024);
                p.wait = p.backoff;
            }
        }
    }

    /// Tells read statuses that a GET started or stopped being in flight.
    pub(crate) fn flights_changed(&self) {
        self.inner.flights_changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Refetches, in the background, every live view ([`subscribe`](Self::subscribe)) whose
    /// data is stale or expired, or whose error's time is up (R-POL-2); fresh ones, and errors
    /// still within their `error_expiry_length`, send nothing. It is what a UI does when its window
    /// regains focus or the network comes back. When it returns, each refetch is in flight (or
    /// joined one already in flight), so [`status`](Self::status) shows it as `Fetching`.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::controller::ReadStatus;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// # let ctrl = Controller::builder().base_url(server.base_url()).build()?;
    /// # let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    /// #     path: "/todos/:id".into(),
    /// #     ..Default::default()
    /// # })?;
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// live.next().await.unwrap()?;
    /// ctrl.refetch_stale(); // fresh: nothing is sent
    /// assert!(matches!(ctrl.status(&todos.get(), params! { id: 1 })?, ReadStatus::Ready(_)));
    /// ctrl.expire_all(&todos.get());
    /// ctrl.refetch_stale(); // stale: refetched
    /// assert!(matches!(ctrl.status(&todos.get(), params! { id: 1 })?, ReadStatus::Fetching(_)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn refetch_stale(&self) {
        let live: Vec<subscribe::Revalidate> = self.inner.live.lock().values().cloned().collect();
        tracing::debug!(views = live.len(), "refetching stale live views");
        for revalidate in live {
            revalidate(self);
        }
    }

    /// Tells the Controller whether the network is up (it assumes so until told otherwise).
    /// While offline, polling pauses; coming back online resumes it (a poll that fell due
    /// while offline runs at once) and calls [`refetch_stale`](Self::refetch_stale). The
    /// browser bindings call it on the window's `online` and `offline` events.
    ///
    /// ```
    /// let ctrl = restcache::Controller::new();
    /// ctrl.set_online(false);
    /// assert!(!ctrl.is_online());
    /// ctrl.set_online(true);
    /// assert!(ctrl.is_online());
    /// ```
    pub fn set_online(&self, online: bool) {
        let changed = self
            .inner
            .online
            .send_if_modified(|now| std::mem::replace(now, online) != online);
        if changed && online {
            self.refetch_stale();
        }
    }

    /// Whether the Controller takes the network to be up; see [`set_online`](Self::set_online).
    ///
    /// ```
    /// assert!(restcache::Controller::new().is_online());
    /// ```
    pub fn is_online(&self) -> bool {
        *self.inner.online.borrow()
    }

    /// Sends `ep`'s request for `args`; awaiting it commits the response to the cache and
    /// resolves to the cache's view of what the response wrote, read right after the commit
    /// (R-FETCH-1, R-FETCH-5): a field the response omitted shows its cached value, and what a
    /// newer write changed shows as it now stands (`Error::Invalidated` if a newer delete won).
    /// GETs already in flight for the same URL are joined. Add a body with
    /// [`FetchRequest::body`], and get the response's headers with
    /// [`FetchRequest::with_response`].
    ///
    /// The request runs on a task the Controller owns. A GET is aborted when every future
    /// awaiting it (this one, joined fetches and reads) has been dropped, unless a background
    /// refetch or a poll shares it. Dropping a mutation's future does not abort it: the request
    /// may already have reached the server, and only its answer tells the cache what changed,
    /// so it runs to its end and commits (or rolls back its optimistic update).
    ///
    /// GETs are retried after failures that may pass, as [`Retry`](crate::rest::Retry) says;
    /// mutations only when their endpoint sets a policy.
    ///
    /// Redirects are followed as the Fetch standard says, up to 10: 301 and 302 keep every
    /// method but POST, 307 and 308 keep all, with their bodies. A mutation that a redirect would
    /// resend as a GET (a POST on 301, 302 or 303, any other on 303) fails with
    /// `Error::Transport` and changes nothing but its key's error record.
    ///
    /// ```no_run
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), restcache::Error> {
    /// let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::builder().base_url("https://api.example.com").build()?;
    /// let body = json!({ "title": "renamed" });
    /// let todo = ctrl.fetch(&todos.partial_update(), params! { id: 1 }).body(&body).await?; // PATCH /todos/1
    /// // The answer is in the cache: every read of todo 1 shows the new title.
    /// assert_eq!(todo.title, "renamed");
    /// # Ok(())
    /// # }
    /// ```
    pub fn fetch<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> FetchRequest<S, B> {
        FetchRequest::new(self.clone(), ep, args_map(&args))
    }

    /// What the cache holds for `ep` and `args` (R-GET-1): data, status, expiry and error, as
    /// the read state (with optimistic layers) shows it.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// assert!(ctrl.get_response(&todos.get(), params! { id: 1 })?.data.is_none()); // nothing cached
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// let cached = ctrl.get_response(&todos.get(), params! { id: 1 })?;
    /// assert_eq!(cached.data.unwrap().title, "a");
    /// assert_eq!(cached.status, ExpiryStatus::Valid);
    /// # Ok::<(), restcache::Error>(())
    /// ```
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

    /// Writes `value` as `ep`'s response for `args`, arriving now (R-EXP-6). On error nothing
    /// is written; a decode or schema error names the key's URL, made absolute with the
    /// `base_url` as a fetch's would be. `value` is a [`Value`] (moved in) or a `&Value` (copied), see
    /// [`ResponseValue`](crate::store::ResponseValue).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::builder().base_url("https://api.example.com").build()?;
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// assert_eq!(ctrl.get_response(&todos.get(), params! { id: 1 })?.data.unwrap().title, "a");
    /// let err = ctrl.set_response(&todos.get(), params! { id: 2 }, json!("not a todo")).unwrap_err();
    /// assert!(err.to_string().contains("https://api.example.com/todos/2"));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_response<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
        value: impl crate::store::ResponseValue,
    ) -> Result<(), Error> {
        let args = args_map(&args)?;
        let key = ep.cfg.key(&args)?;
        let write_args = ep.cfg.write_args(&args).unwrap_or(args);
        let opts = crate::store::WriteOptions::new().data_expiry(ep.cfg.data_expiry);
        let opts = match &ep.cfg.policy {
            Some(p) => opts.policy(&**p),
            None => opts,
        };
        // Errors name the key's URL, made absolute as a fetch would (R-REQ-2) when it can be.
        let url = key.split_once(' ').map_or(key.as_str(), |(_, url)| url);
        let url = self
            .inner
            .http
            .absolute(url)
            .map_or_else(|_| url.to_owned(), String::from);
        // A borrowed value is copied before the store is locked, not while it is held.
        let value = value.into_value().map_err(|e| e.with_url(&url))?;
        self.inner
            .store
            .lock()
            .set_response_with::<S>(&key, &write_args, value, opts)
            .map_err(|e| e.at_url(&url))?;
        self.notify();
        Ok(())
    }

    /// Forgets `ep`'s result for `args`, so its next read fetches and waits (R-EXP-2). That
    /// read sends a request of its own, even if a GET of the key is still in flight; that GET's
    /// answer, which may be from before the change, does not make the key valid again.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// ctrl.invalidate(&todos.get(), params! { id: 1 })?;
    /// let cached = ctrl.get_response(&todos.get(), params! { id: 1 })?;
    /// assert_eq!(cached.status, ExpiryStatus::Invalid); // the next read fetches
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn invalidate<S: Schema, B, G>(&self, ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> Result<(), Error> {
        let key = ep.key(&args)?;
        self.change_and_forget_flights(|k| k == key, false, |store| store.invalidate(&key));
        tracing::debug!(%key, "invalidated");
        Ok(())
    }

    /// Invalidates every stored key the matcher selects (R-EXP-3). Returns how many. Later
    /// reads of the keys it selects do not join a GET already in flight.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// for id in [1, 2] {
    ///     ctrl.set_response(&todos.get(), params! { id: id }, json!({ "id": id, "title": "a" }))?;
    /// }
    /// assert_eq!(ctrl.invalidate_all(&|key: &str| key.starts_with("GET /users")), 0);
    /// assert_eq!(ctrl.invalidate_all(&todos.get()), 2); // an endpoint selects its own keys
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn invalidate_all(&self, matcher: &impl KeyMatcher) -> usize {
        let matches = |k: &str| matcher.matches(k);
        let count = self.change_and_forget_flights(matches, false, |store| store.invalidate_all(matches));
        tracing::debug!(count, "invalidated the keys a matcher selects");
        count
    }

    /// Marks every key the matcher selects as expired (R-EXP-4): the next read serves the
    /// stale data and refetches in the background, with a request of its own even if a GET of
    /// the key is still in flight. Returns how many.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// assert_eq!(ctrl.expire_all(&todos.get()), 1);
    /// let cached = ctrl.get_response(&todos.get(), params! { id: 1 })?;
    /// assert!(cached.is_stale(restcache::Instant::now()));
    /// assert_eq!(cached.data.unwrap().title, "a"); // stale data is still served
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn expire_all(&self, matcher: &impl KeyMatcher) -> usize {
        let matches = |k: &str| matcher.matches(k);
        let count = self.change_and_forget_flights(matches, false, |store| store.expire_all(matches));
        tracing::debug!(count, "expired the keys a matcher selects");
        count
    }

    /// Clears the cache (entities, results, meta, optimistic layers). Fetches in flight resolve
    /// with `Error::Reset` and write nothing, and no later read joins them: GETs are aborted at
    /// once, mutations when their answer comes. Subscriptions stay open (R-EXP-5).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// ctrl.reset();
    /// assert!(ctrl.get_response(&todos.get(), params! { id: 1 })?.data.is_none());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn reset(&self) {
        self.change_and_forget_flights(|_| true, true, Store::clear);
        tracing::debug!("reset: the cache is empty and GETs in flight are aborted");
    }

    /// Changes the store and, in the same step, forgets the GETs in flight whose key `forget`
    /// selects, so that later reads of those keys send a request of their own instead of
    /// joining one that may hang. A forgotten request still runs; what it writes is ordered by
    /// when it started (R-NORM-7). With `abort` (a reset), every GET running is aborted, the
    /// ones forgotten before included. Then tells subscriptions. All under the flights' lock,
    /// so no GET starts unseen in between.
    fn change_and_forget_flights<T>(
        &self,
        forget: impl Fn(&str) -> bool,
        abort: bool,
        change: impl FnOnce(&mut Store) -> T,
    ) -> T {
        // Flights, then the store: the order `start` takes them in.
        let mut flights = self.inner.in_flight.lock();
        let out = change(&mut self.inner.store.lock());
        flights.retain(|_, flight| !forget(flight.key()));
        if abort {
            self.inner.resets.send_modify(|n| *n = n.wrapping_add(1));
        }
        drop(flights);
        self.notify();
        self.flights_changed();
        out
    }

    /// The whole cache as JSON (see [`Store::inspect`]).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// let cache = ctrl.inspect();
    /// assert_eq!(cache["results"][0]["key"], "GET /todos/1");
    /// assert_eq!(cache["entities"]["Todo"]["rows"][0]["record"]["title"], "a");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn inspect(&self) -> Value {
        self.inner.store.lock().inspect()
    }

    /// The cache's state as a [`Snapshot`] (R-SNAP-1; see [`Store::snapshot`]): a server
    /// renders a page with it, or an app keeps it for its next start.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// use restcache::store::Schemas;
    ///
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// let mut store = Store::new();
    /// store.hydrate(ctrl.snapshot(), &Schemas::new().with::<Todo>())?;
    /// assert_eq!(store.get_response::<Todo>("GET /todos/1", &())?.data.unwrap().title, "a");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn snapshot(&self) -> Snapshot {
        self.inner.store.lock().snapshot()
    }

    /// Replaces the cache's state with `snapshot`'s, read back with `schemas` (R-SNAP-2; see
    /// [`Store::hydrate`]): reads are served from it with no request until its entries go
    /// stale, then refetch as usual. Live views see the new state. Fetches in flight end as
    /// after [`reset`](Self::reset). A snapshot that does not read back changes nothing.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// use restcache::store::{Schemas, Snapshot};
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// // On the server: fetch, then hand the cache to the page.
    /// let rendering = Controller::builder().base_url(server.base_url()).build()?;
    /// rendering.suspense(&todos.get_list(), ()).await?;
    /// let text = rendering.snapshot().to_json();
    ///
    /// // In the page: the list is there at once, with no request.
    /// let page = Controller::builder().base_url(server.base_url()).build()?;
    /// page.hydrate(Snapshot::from_json(&text)?, &Schemas::new().with::<Collection<Vec<Todo>>>())?;
    /// assert_eq!(page.get_response(&todos.get_list(), ())?.data.unwrap().len(), 30);
    /// # Ok(())
    /// # }
    /// ```
    pub fn hydrate(&self, snapshot: Snapshot, schemas: &Schemas) -> Result<(), Error> {
        let hydrated = Store::read_snapshot(snapshot, schemas)?;
        self.change_and_forget_flights(|_| true, true, |store| store.install(hydrated));
        tracing::debug!("hydrated: the cache holds a snapshot's state");
        Ok(())
    }
}
