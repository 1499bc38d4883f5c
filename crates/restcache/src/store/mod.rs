//! The normalized cache: entity tables, endpoint results and their meta (R-STORE-1).
//!
//! The store is synchronous and does no I/O. Every write is computed in full against the
//! committed state and then committed in one step (R-NORM-2); reads are memoized per key and
//! return the same `Arc` until something they depend on changes (R-READ-5).

mod change;
mod gc;
mod journal;
mod layers;
mod read;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod simd_parse;
mod snapshot;
mod write;

pub use self::change::Change;
pub use self::gc::{GcPolicy, GcReport};
// The log file's own line format reads and writes changes' parts (`persist/file.rs`).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use self::change::{ChangeKind, KeyMeta, RecordText};
pub use self::snapshot::{Schemas, Snapshot};
pub use self::write::ResponseValue;
pub(crate) use self::write::syntax_error;

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::rt::Instant;
use indexmap::IndexMap;
use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::bounded_value::{self, Refused};
use crate::error::Error;
use crate::json::MAX_INPUT_DEPTH;
use crate::refs::{AnyStored, RefWalk};
use crate::schema::{CollectionPolicy, Schema};
use crate::tables::{PkHasher, Tables};

use layers::Derived;
pub use layers::Optimistic;
pub(crate) use layers::{Layer, LayerSpec};
use read::Memo;
use snapshot::{RecordOf, RecordSnapshot};

/// How long a successful response stays fresh unless the endpoint says otherwise (R-EXP-1).
pub const DEFAULT_DATA_EXPIRY: Duration = Duration::from_secs(60);
/// How long an error stands before a read retries unless the endpoint says otherwise (R-EXP-1).
pub const DEFAULT_ERROR_EXPIRY: Duration = Duration::from_secs(1);

/// The expiry status of a read (R-GET-4).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
/// assert_eq!(store.get_response::<Todo>("GET /todos/1", &())?.status, ExpiryStatus::Valid);
/// store.invalidate("GET /todos/1");
/// assert_eq!(store.get_response::<Todo>("GET /todos/1", &())?.status, ExpiryStatus::Invalid);
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpiryStatus {
    /// Usable; refetch in the background once stale.
    Valid,
    /// Usable while fresh; once stale, a read must wait for the refetch.
    InvalidIfStale,
    /// Not usable: a read must fetch and wait.
    Invalid,
}

/// What a read finds under a key (R-GET-1).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
/// let cached: Cached<Todo> = store.get_response::<Todo>("GET /todos/1", &())?;
/// assert_eq!(cached.data.unwrap().title, "a");
/// assert_eq!((cached.status, cached.error), (ExpiryStatus::Valid, None));
/// assert!(cached.expires_at.is_some());
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Debug)]
pub struct Cached<T> {
    /// The data, `None` when there is none or the read is invalid.
    pub data: Option<Arc<T>>,
    /// Whether the data may be used.
    pub status: ExpiryStatus,
    /// When the data goes stale; `None` means it already is.
    pub expires_at: Option<Instant>,
    /// The error of the last fetch of this key, if it failed.
    pub error: Option<Error>,
}

impl<T> Clone for Cached<T> {
    fn clone(&self) -> Self {
        Cached {
            data: self.data.clone(),
            status: self.status,
            expires_at: self.expires_at,
            error: self.error.clone(),
        }
    }
}

impl<T> Cached<T> {
    /// Whether the data is stale at `now` (R-GET-4: no `expires_at`, or `now` past it).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use std::time::Duration;
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// let cached = store.get_response::<Todo>("GET /todos/1", &())?;
    /// let now = restcache::Instant::now();
    /// assert!(!cached.is_stale(now));
    /// assert!(cached.is_stale(now + Duration::from_secs(61))); // past the default 60 s
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn is_stale(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|at| now > at)
    }

    /// The data a read serves: none when the read is invalid or a hard error hides it (R-POL-2).
    pub(crate) fn usable(&self) -> Option<&Arc<T>> {
        let shown = self.status != ExpiryStatus::Invalid && self.error.as_ref().is_none_or(Error::is_soft);
        self.data.as_ref().filter(|_| shown)
    }
}

/// The meta of one endpoint key (R-STORE-1).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::store::EndpointMeta;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
/// let meta: &EndpointMeta = store.meta("GET /todos/1").unwrap();
/// assert!(meta.expires_at.is_some() && meta.error.is_none() && !meta.invalidated);
/// store.invalidate("GET /todos/1");
/// assert!(store.meta("GET /todos/1").unwrap().invalidated);
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointMeta {
    /// When the request that wrote this meta started; after [`Store::invalidate`] or
    /// [`Store::expire_all`], when that was done. A response to a request started earlier
    /// writes no result or meta for the key (its entities are still merged).
    pub fetched_at: Instant,
    /// When this meta was committed.
    pub written_at: Instant,
    /// When the key goes stale; `None` means expired.
    pub expires_at: Option<Instant>,
    /// The error of the last fetch, if it failed.
    pub error: Option<Error>,
    /// Set by `invalidate`: the next read must fetch.
    pub invalidated: bool,
}

/// How a response is written: when its request started, how long it stays fresh, the request
/// body (used by the collection filter and delete fallbacks), and a collection policy override.
///
/// ```
/// use restcache::store::WriteOptions;
/// use std::time::Duration;
/// let opts = WriteOptions::new().data_expiry(Duration::from_secs(5));
/// assert_eq!(opts.data_expiry, Duration::from_secs(5));
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct WriteOptions<'a> {
    /// When the request started (R-NORM-7); defaults to now.
    pub fetched_at: Instant,
    /// How long the data stays fresh; defaults to [`DEFAULT_DATA_EXPIRY`].
    pub data_expiry: Duration,
    /// The request body, if any. A write given one nested deeper than 128 levels fails with
    /// `Error::InvalidArgs` (R-ERR-2).
    pub body: Option<&'a Value>,
    /// Replaces the collection type's policy for push/unshift filtering.
    pub policy: Option<&'a dyn CollectionPolicy>,
}

impl Default for WriteOptions<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> WriteOptions<'a> {
    /// A write that starts now, with the default expiry, no body and no policy override.
    ///
    /// ```
    /// use restcache::store::{DEFAULT_DATA_EXPIRY, WriteOptions};
    ///
    /// let opts = WriteOptions::new();
    /// assert_eq!(opts.data_expiry, DEFAULT_DATA_EXPIRY);
    /// assert!(opts.body.is_none() && opts.policy.is_none());
    /// ```
    pub fn new() -> Self {
        WriteOptions {
            fetched_at: Instant::now(),
            data_expiry: DEFAULT_DATA_EXPIRY,
            body: None,
            policy: None,
        }
    }

    /// Sets when the request started.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use restcache::store::WriteOptions;
    ///
    /// let started = restcache::Instant::now();
    /// let mut store = Store::new();
    /// let opts = WriteOptions::new().fetched_at(started);
    /// store.set_response_with::<Todo>("GET /todos/1", &(), json!({ "id": 1, "title": "a" }), opts)?;
    /// assert_eq!(store.meta("GET /todos/1").unwrap().fetched_at, started);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn fetched_at(mut self, at: Instant) -> Self {
        self.fetched_at = at;
        self
    }

    /// Sets how long the data stays fresh (`Duration::MAX`: for ever).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use restcache::store::WriteOptions;
    /// use std::time::Duration;
    ///
    /// let mut store = Store::new();
    /// let opts = WriteOptions::new().data_expiry(Duration::from_secs(5));
    /// store.set_response_with::<Todo>("GET /todos/1", &(), json!({ "id": 1, "title": "a" }), opts)?;
    /// let meta = store.meta("GET /todos/1").unwrap();
    /// assert_eq!(meta.expires_at, Some(meta.written_at + Duration::from_secs(5)));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn data_expiry(mut self, d: Duration) -> Self {
        self.data_expiry = d;
        self
    }

    /// Sets the request body: an empty PUT or PATCH response stands for `args ⊕ body`, and a
    /// pushed entity joins the collections whose filters its args or body match. A body nested
    /// deeper than 128 levels makes the write fail with `Error::InvalidArgs`, writing nothing.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::store::WriteOptions;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct User { #[entity(pk)] id: String, name: String }
    /// let mut store = Store::new();
    /// let body = serde_json::json!({ "name": "Ada" });
    /// let opts = WriteOptions::new().body(&body);
    /// let args = restcache::params! { id: "1" };
    /// store.set_response_with::<User>("PATCH /users/1", &args, serde_json::Value::Null, opts)?;
    /// let user = store.get_response::<User>("PATCH /users/1", &args)?.data.unwrap();
    /// assert_eq!(user.name, "Ada");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn body(mut self, body: &'a Value) -> Self {
        self.body = Some(body);
        self
    }

    /// Overrides the collection policy.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use restcache::store::WriteOptions;
    ///
    /// struct SortDoesNotFilter;
    /// impl CollectionPolicy for SortDoesNotFilter {
    ///     fn non_filter_argument_keys(&self, key: &str) -> bool {
    ///         key == "sort"
    ///     }
    /// }
    ///
    /// let mut store = Store::new();
    /// let sorted = params! { sort: "title" };
    /// store.set_response::<Collection<Vec<Todo>>>("GET /todos?sort=title", &sorted, &json!([]))?;
    /// // With the default policy `sort` filters: the new todo would join no list.
    /// let opts = WriteOptions::new().policy(&SortDoesNotFilter);
    /// let new = json!({ "id": 1, "title": "a" });
    /// store.set_response_with::<Push<Collection<Vec<Todo>>>>("POST /todos", &(), new, opts)?;
    /// let list = store.get_response::<Collection<Vec<Todo>>>("GET /todos?sort=title", &sorted)?.data.unwrap();
    /// assert_eq!(list.len(), 1);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn policy(mut self, policy: &'a dyn CollectionPolicy) -> Self {
        self.policy = Some(policy);
        self
    }
}

/// An endpoint's result: its schema's normalized form, and its version.
#[derive(Clone, Debug)]
pub(crate) struct StoredResult {
    pub value: Arc<dyn AnyStored>,
    pub version: u64,
    /// What the result references, by the schema that wrote it; `None` for a result read back
    /// from a snapshot or written by a layer.
    pub walk: Option<RefWalk>,
    /// The key's bytes, measured while the store has a [`GcPolicy`] (else 0).
    pub bytes: usize,
}

impl StoredResult {
    /// The result as the normalized form of the schema that wrote it, `T`: `None` when it was
    /// written by another schema.
    pub fn typed<T: 'static>(&self) -> Option<&T> {
        (&*self.value as &dyn Any).downcast_ref()
    }

    /// The result as `S` reads it: the normalized form of `S` stored, or one made from the JSON
    /// of another schema's (a member read `with_schema`, say; R-READ-6); `None` when that is no
    /// normalized form of `S`.
    pub fn read_as<S: Schema>(&self) -> Option<std::borrow::Cow<'_, S::Stored>> {
        match self.typed::<S::Stored>() {
            Some(stored) => Some(std::borrow::Cow::Borrowed(stored)),
            None => S::from_json(&self.value.json()).map(std::borrow::Cow::Owned),
        }
    }
}

/// The normalized cache.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String, completed: bool }
///
/// let mut store = Store::new();
/// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{"id": 1, "title": "write docs"}]))?;
/// // A PATCH response carrying one field updates the entity everywhere.
/// store.set_response::<Todo>("PATCH /todos/1", &(), &json!({"id": 1, "completed": true}))?;
/// let list = store.get_response::<Vec<Todo>>("GET /todos", &())?.data.unwrap();
/// assert_eq!(list[0], Todo { id: 1, title: "write docs".into(), completed: true });
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Store {
    tables: Tables,
    results: KeyMap<StoredResult>,
    meta: KeyMap<EndpointMeta>,
    /// Bumped by every commit.
    version: u64,
    /// The source of record and result versions; never reused.
    next_version: u64,
    /// Bumped by `clear`, which reuses table rows; a request started under an older epoch
    /// writes nothing (R-FETCH-1 step 5).
    epoch: u64,
    memo: Mutex<Memo>,
    origin: Instant,
    /// The last instant [`tick`](Self::tick) gave.
    last_tick: Option<Instant>,
    /// Pending optimistic layers, in start order.
    layers: Vec<Layer>,
    /// The read state while layers are pending (R-STORE-2).
    derived: Option<Derived>,
    /// What commits changed, while a persister tracks them (R-PERS-1).
    journal: Option<journal::Journal>,
    /// The collector, with a [`GcPolicy`] (R-GC-1).
    gc: Option<Box<gc::Gc>>,
    /// The keys kept from the collector, how many times each ([`Store::retain`]), and since
    /// when.
    retained: KeyMap<(u32, crate::tables::Stamp)>,
}

impl Default for Store {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field(
                "tables",
                &self.tables.iter().map(|(k, t)| (k, t.rows.len())).collect::<Vec<_>>(),
            )
            .field("results", &self.results.len())
            .field("version", &self.version)
            .finish()
    }
}

/// A map keyed by request key, hashed with the tables' keyed hasher ([`PkHasher`]) so that a
/// read hashes its key once ([`PkHasher::pk`]) for its result, its meta and its memo entry.
pub(crate) type KeyMap<V> = IndexMap<String, V, PkHasher>;

/// `map[key]`, `hash` being [`PkHasher::pk`]`(key)`.
pub(crate) fn get_hashed<'m, V>(map: &'m KeyMap<V>, hash: u64, key: &str) -> Option<&'m V> {
    map.raw_entry_v1().from_hash(hash, |k| k == key).map(|(_, v)| v)
}

pub(crate) fn get_hashed_mut<'m, V>(map: &'m mut KeyMap<V>, hash: u64, key: &str) -> Option<&'m mut V> {
    match map.raw_entry_mut_v1().from_key_hashed_nocheck(hash, key) {
        RawEntryMut::Occupied(o) => Some(o.into_mut()),
        RawEntryMut::Vacant(_) => None,
    }
}

/// Converts call args to an object (docs/behaviour.md): `()` and `null` are `{}`.
pub(crate) fn args_map(args: &impl Serialize) -> Result<Map<String, Value>, Error> {
    match args_value(args)? {
        Value::Object(m) => Ok(m),
        _ => Ok(Map::new()),
    }
}

/// [`args_map`] as a `Value`: an object, or `Null` standing for `{}` (which costs no map).
/// Args nested deeper than [`MAX_INPUT_DEPTH`] levels are refused as they are serialized.
pub(crate) fn args_value(args: &impl Serialize) -> Result<Value, Error> {
    match bounded_value::to_value(args) {
        Ok(v @ (Value::Object(_) | Value::Null)) => Ok(v),
        Ok(other) => Err(Error::InvalidArgs {
            reason: format!("args must serialize to an object, not {}", crate::json::kind(&other)),
        }),
        Err(Refused::TooDeep) => Err(Error::InvalidArgs {
            reason: format!("args nest deeper than the limit of {MAX_INPUT_DEPTH} levels"),
        }),
        Err(Refused::Unserializable(e)) => Err(Error::InvalidArgs {
            reason: format!("args do not serialize: {e}"),
        }),
    }
}

impl Store {
    /// An empty store.
    ///
    /// ```
    /// let store = restcache::Store::new();
    /// assert_eq!(store.keys().count(), 0);
    /// assert!(store.meta("GET /todos").is_none());
    /// ```
    pub fn new() -> Self {
        Store {
            tables: Tables::default(),
            results: KeyMap::default(),
            meta: KeyMap::default(),
            version: 0,
            next_version: 1,
            epoch: 0,
            memo: Mutex::new(Memo::default()),
            origin: Instant::now(),
            last_tick: None,
            layers: Vec::new(),
            derived: None,
            journal: None,
            gc: None,
            retained: KeyMap::default(),
        }
    }

    /// Checks, once per schema type, that no entity key is used by two Rust types.
    pub(crate) fn check_schema<S: Schema>(&self) -> Result<(), Error> {
        self.memo.lock().check_schema::<S>()
    }

    /// The meta of `key`, if any.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// assert!(store.meta("GET /todos/1").is_none());
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// let meta = store.meta("GET /todos/1").unwrap();
    /// assert!(meta.error.is_none() && meta.expires_at.is_some());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn meta(&self, key: &str) -> Option<&EndpointMeta> {
        self.meta.get(key)
    }

    /// Every key that holds a stored result.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{ "id": 1, "title": "a" }]))?;
    /// let mut keys: Vec<&str> = store.keys().collect();
    /// keys.sort();
    /// assert_eq!(keys, ["GET /todos", "GET /todos/1"]);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.results.keys().map(String::as_str)
    }

    /// Now, or, when the clock reads no later than at the last call, just after what that call
    /// gave: the start of a request, or an invalidation, that comes after another is stamped
    /// after it, even with a coarse clock (a browser's, or a paused one), so that an answer to a
    /// request sent before an invalidation never counts as newer (R-EXP-2).
    pub(crate) fn tick(&mut self) -> Instant {
        let now = Instant::now();
        let t = match self.last_tick {
            Some(last) if now <= last => last + Duration::from_nanos(1),
            _ => now,
        };
        self.last_tick = Some(t);
        t
    }

    /// Forgets the result of `key` and marks it invalidated, so its next read fetches and waits
    /// (R-EXP-2). Entities are untouched.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{ "id": 1, "title": "a" }]))?;
    /// store.invalidate("GET /todos");
    /// let list = store.get_response::<Vec<Todo>>("GET /todos", &())?;
    /// assert_eq!((list.data, list.status), (None, ExpiryStatus::Invalid));
    /// // The entity is still there.
    /// let todo = store.get_response::<Todo>("GET /todos/1", &params! { id: 1 })?.data.unwrap();
    /// assert_eq!(todo.title, "a");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn invalidate(&mut self, key: &str) {
        let removed = self.results.swap_remove(key);
        if let (Some(gc), Some(r)) = (self.gc.as_mut(), removed) {
            gc.key_removed(r.bytes);
        }
        let written_at = self.meta.get(key).map_or(self.origin, |m| m.written_at);
        let meta = EndpointMeta {
            // A request started before now answers from before the app said the data changed:
            // it must not make the key valid again (R-EXP-2).
            fetched_at: self.tick(),
            written_at,
            expires_at: None,
            error: None,
            invalidated: true,
        };
        self.set_meta(key, meta);
        self.version += 1;
    }

    /// [`invalidate`](Self::invalidate)s every key with a stored result that `matches`
    /// (R-EXP-3). Returns how many.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// for id in [1, 2] {
    ///     store.set_response::<Todo>(&format!("GET /todos/{id}"), &(), &json!({ "id": id, "title": "a" }))?;
    /// }
    /// assert_eq!(store.invalidate_all(|key| key.starts_with("GET /todos/")), 2);
    /// assert_eq!(store.keys().count(), 0);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn invalidate_all(&mut self, mut matches: impl FnMut(&str) -> bool) -> usize {
        let keys: Vec<String> = self.results.keys().filter(|k| matches(k)).cloned().collect();
        // Keys with meta and no result (invalidated already and being fetched again, or holding
        // only an error) are stamped too: a GET sent before now must not make them valid.
        let bare: Vec<String> = (self.meta.keys())
            .filter(|k| !self.results.contains_key(*k) && matches(k))
            .cloned()
            .collect();
        for k in keys.iter().chain(&bare) {
            self.invalidate(k);
        }
        keys.len()
    }

    /// Marks every key with meta that `matches` as expired (R-EXP-4): data, errors and status
    /// are kept; the next read refetches. Returns how many.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// assert_eq!(store.expire_all(|_| true), 1);
    /// let cached = store.get_response::<Todo>("GET /todos/1", &())?;
    /// assert!(cached.is_stale(restcache::Instant::now()));
    /// assert_eq!(cached.data.unwrap().title, "a"); // the data is kept
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn expire_all(&mut self, mut matches: impl FnMut(&str) -> bool) -> usize {
        let mut n = 0;
        let now = self.tick();
        for (k, m) in &mut self.meta {
            if matches(k) {
                m.expires_at = None;
                // As for `invalidate`: no earlier request makes the key fresh again.
                m.fetched_at = m.fetched_at.max(now);
                n += 1;
                if let Some(journal) = self.journal.as_mut() {
                    journal.key(k);
                }
            }
        }
        if n > 0 {
            self.version += 1;
        }
        n
    }

    /// Empties the store: entities, results and meta (the data part of R-EXP-5).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// store.clear();
    /// assert!(store.keys().next().is_none() && store.meta("GET /todos/1").is_none());
    /// assert!(store.get_response::<Todo>("GET /todos/1", &params! { id: 1 })?.data.is_none());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.tables = Tables::default();
        self.results.clear();
        self.meta.clear();
        self.layers.clear();
        self.derived = None;
        self.memo.lock().entries.clear();
        if let Some(journal) = self.journal.as_mut() {
            journal.clear();
        }
        if let Some(gc) = self.gc.as_mut() {
            gc.reset();
        }
        self.epoch += 1;
        self.version += 1;
    }

    /// Which `clear` the store is at: a request that started under an older epoch writes
    /// nothing (R-FETCH-1 step 5).
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The whole store as JSON, for inspection and tests: tables in insertion order with every
    /// record (`"INVALID"` for a mark), version and meta; results; endpoint meta. Instants are
    /// nanoseconds since the store was created.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// let json = store.inspect();
    /// assert_eq!(json["results"][0]["key"], "GET /todos/1");
    /// assert_eq!(json["entities"]["Todo"]["rows"][0]["record"]["title"], "a");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn inspect(&self) -> Value {
        let at = |i: Instant| -> Value {
            match i.checked_duration_since(self.origin) {
                Some(d) => Value::from(d.as_nanos() as i64),
                None => Value::from(-(self.origin.duration_since(i).as_nanos() as i64)),
            }
        };
        let mut entities = Map::new();
        for (name, table) in self.tables.iter() {
            let rows: Vec<Value> = table
                .rows
                .iter()
                .map(|(pk, slot)| {
                    serde_json::json!({
                        "pk": pk.as_str(),
                        "record": match RecordSnapshot::of(&slot.record) {
                            RecordOf::Entity(json) | RecordOf::List(json) => json,
                            RecordOf::Invalid => "INVALID".into(),
                        },
                        "version": slot.version,
                        "fetched_at": at(slot.meta.fetched_at.instant()),
                        "written_at": at(slot.meta.written_at.instant()),
                        "expires_at": at(slot.meta.expires_at.instant()),
                    })
                })
                .collect();
            entities.insert(
                name.to_owned(),
                serde_json::json!({ "version": table.version, "rows": rows }),
            );
        }
        let mut results: Vec<(&String, &StoredResult)> = self.results.iter().collect();
        results.sort_by(|a, b| a.0.cmp(b.0));
        let mut meta: Vec<(&String, &EndpointMeta)> = self.meta.iter().collect();
        meta.sort_by(|a, b| a.0.cmp(b.0));
        serde_json::json!({
            "version": self.version,
            "entities": entities,
            "results": results.into_iter().map(|(k, r)| serde_json::json!({"key": k, "value": r.value.json(), "version": r.version})).collect::<Vec<_>>(),
            "meta": meta.into_iter().map(|(k, m)| serde_json::json!({
                "key": k,
                "fetched_at": at(m.fetched_at),
                "written_at": at(m.written_at),
                "expires_at": m.expires_at.map(at),
                "error": m.error.as_ref().map(ToString::to_string),
                "invalidated": m.invalidated,
            })).collect::<Vec<_>>(),
        })
    }
}
