//! The normalized cache: entity tables, endpoint results and their meta (SPEC R-STORE-1).
//!
//! The store is synchronous and does no I/O. Every write is computed in full against the
//! committed state and then committed in one step (R-NORM-2); reads are memoized per key and
//! return the same `Arc` until something they depend on changes (R-READ-5).

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::denormalize::{DenormalizeCtx, Deps};
use crate::error::Error;
use crate::normalize::{NormalizeCtx, Pending, PendingWrite};
use crate::schema::{CollectionPolicy, Registry, Schema, SchemaKind};
use crate::tables::{EntityMeta, Record, Slot, Tables};

/// How long a successful response stays fresh unless the endpoint says otherwise (R-EXP-1).
pub const DEFAULT_DATA_EXPIRY: Duration = Duration::from_secs(60);
/// How long an error stands before a read retries unless the endpoint says otherwise (R-EXP-1).
pub const DEFAULT_ERROR_EXPIRY: Duration = Duration::from_secs(1);

/// The expiry status of a read (R-GET-4).
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
    pub fn is_stale(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|at| now > at)
    }
}

/// The meta of one endpoint key (R-STORE-1).
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointMeta {
    /// When the request that wrote this meta started.
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
    /// The request body, if any.
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
    pub fn new() -> Self {
        WriteOptions {
            fetched_at: Instant::now(),
            data_expiry: DEFAULT_DATA_EXPIRY,
            body: None,
            policy: None,
        }
    }

    /// Sets when the request started.
    pub fn fetched_at(mut self, at: Instant) -> Self {
        self.fetched_at = at;
        self
    }

    /// Sets how long the data stays fresh.
    pub fn data_expiry(mut self, d: Duration) -> Self {
        self.data_expiry = d;
        self
    }

    /// Sets the request body.
    pub fn body(mut self, body: &'a Value) -> Self {
        self.body = Some(body);
        self
    }

    /// Overrides the collection policy.
    pub fn policy(mut self, policy: &'a dyn CollectionPolicy) -> Self {
        self.policy = Some(policy);
        self
    }
}

#[derive(Clone, Debug)]
struct StoredResult {
    value: Value,
    version: u64,
}

/// What a memoized read found.
enum Found {
    Data(Arc<dyn Any + Send + Sync>),
    /// An unresolved reference at the top (R-READ-2).
    Invalid,
    /// No result and nothing inferable.
    Nothing,
}

struct MemoEntry {
    schema: TypeId,
    epoch: u64,
    checked_at: u64,
    result_version: Option<u64>,
    /// Query-mode reads depend on the args too.
    args: Option<Value>,
    deps: Deps,
    found: Found,
}

#[derive(Default)]
struct Memo {
    entries: HashMap<String, Vec<MemoEntry>>,
    registry: Registry,
    checked: HashSet<TypeId>,
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
    results: HashMap<String, StoredResult>,
    meta: HashMap<String, EndpointMeta>,
    /// Bumped by every commit.
    version: u64,
    /// The source of record and result versions; never reused.
    next_version: u64,
    /// Bumped by `clear`, which reuses table rows.
    epoch: u64,
    memo: Mutex<Memo>,
    origin: Instant,
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

/// Converts call args to an object (SPEC §0): `()` and `null` are `{}`.
pub(crate) fn args_map(args: &impl Serialize) -> Result<Map<String, Value>, Error> {
    match serde_json::to_value(args) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(Error::InvalidArgs {
            reason: format!(
                "args must serialize to an object, not {}",
                crate::normalize::kind(&other)
            ),
        }),
        Err(e) => Err(Error::InvalidArgs {
            reason: format!("args do not serialize: {e}"),
        }),
    }
}

/// The value a response stands for, after the empty-response rules (R-RESP-5, R-RESP-6).
fn prepare<'v>(
    kind: SchemaKind,
    method: &str,
    value: &'v Value,
    args: &Map<String, Value>,
    body: Option<&Value>,
) -> Result<Cow<'v, Value>, Error> {
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    Ok(match kind {
        SchemaKind::Invalidate if empty(value) => Cow::Owned(Value::Object(args.clone())),
        SchemaKind::InvalidateList if value.is_null() || empty(value) && value.is_array() => match body {
            Some(b @ Value::Array(_)) => Cow::Owned(b.clone()),
            _ => Cow::Owned(Value::Array(vec![Value::Object(args.clone())])),
        },
        SchemaKind::Entity if value.is_null() && matches!(method, "PUT" | "PATCH") => match body {
            Some(Value::Object(b)) => {
                let mut merged = args.clone();
                merged.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
                Cow::Owned(Value::Object(merged))
            }
            _ => {
                return Err(Error::InvalidResponse {
                    url: String::new(),
                    entity: None,
                    position: String::new(),
                    reason: format!("an empty response to {method} needs an object body to stand for the entity"),
                });
            }
        },
        _ => Cow::Borrowed(value),
    })
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store {
            tables: Tables::default(),
            results: HashMap::new(),
            meta: HashMap::new(),
            version: 0,
            next_version: 1,
            epoch: 0,
            memo: Mutex::new(Memo::default()),
            origin: Instant::now(),
        }
    }

    /// Checks, once per schema type, that no entity key is used by two Rust types.
    fn check_schema<S: Schema>(&self) -> Result<(), Error> {
        let mut memo = self.memo.lock();
        if memo.checked.contains(&TypeId::of::<S>()) {
            return Ok(());
        }
        let mut registry = memo.registry.clone();
        S::register(&mut registry);
        registry.check()?;
        memo.registry = registry;
        memo.checked.insert(TypeId::of::<S>());
        Ok(())
    }

    /// Writes `value` as the response of `key`, arriving now (R-EXP-6).
    ///
    /// On error nothing is written. See [`set_response_with`](Self::set_response_with).
    pub fn set_response<S: Schema>(&mut self, key: &str, args: &impl Serialize, value: &Value) -> Result<(), Error> {
        self.set_response_with::<S>(key, args, value, WriteOptions::new())
    }

    /// Normalizes `value` as the response of `key` (`"METHOD url"`) and commits it in one step:
    /// its entities, its result and a fresh meta. On error nothing at all is written.
    ///
    /// `args` are the call's args (for collection keys and delete fallbacks). The method in the
    /// key selects the empty-response rules: an empty PUT/PATCH answer stands for `args ⊕ body`.
    pub fn set_response_with<S: Schema>(
        &mut self,
        key: &str,
        args: &impl Serialize,
        value: &Value,
        opts: WriteOptions<'_>,
    ) -> Result<(), Error> {
        let args = Value::Object(args_map(args)?);
        let url = key.split_once(' ').map_or(key, |(_, url)| url);
        self.write::<S>(key, &args, value, opts)
            .map(drop)
            .map_err(|e| e.with_url(url))
    }

    /// Normalizes and commits a response; returns what the response itself describes, built
    /// from its own writes without consulting the rest of the store (R-FETCH-5).
    pub(crate) fn write<S: Schema>(
        &mut self,
        key: &str,
        args: &Value,
        value: &Value,
        opts: WriteOptions<'_>,
    ) -> Result<Arc<S::Output>, Error> {
        self.check_schema::<S>()?;
        let method = key.split_once(' ').map_or("", |(m, _)| m);
        let (result, pending) = self.normalize::<S>(method, value, args, opts)?;
        let described = Self::describe::<S>(&result, &pending, args, opts.fetched_at);
        let now = Instant::now();
        self.commit(
            key,
            Some(result.clone()),
            pending,
            opts.fetched_at,
            now,
            now + opts.data_expiry,
        );
        match described {
            Some(out) => Ok(Arc::new(out)),
            // The response's own writes do not resolve (an unusual schema): read the cache.
            None => self
                .get_response::<S>(key, args)?
                .data
                .ok_or_else(|| Error::Invalidated { key: key.to_owned() }),
        }
    }

    /// Denormalizes `result` against a table holding only the pending writes.
    fn describe<S: Schema>(result: &Value, pending: &Pending, args: &Value, at: Instant) -> Option<S::Output> {
        let mut scratch = Tables::default();
        let meta = EntityMeta {
            fetched_at: at,
            written_at: at,
            expires_at: at,
        };
        for ((table, pk), write) in &pending.writes {
            let record = match write {
                PendingWrite::Entity(fields) => Record::Valid(Value::Object(fields.clone())),
                PendingWrite::Invalid => Record::Invalid,
                PendingWrite::Collection(items) => Record::Valid(Value::Array(items.clone())),
            };
            scratch.get_or_create(table).1.rows.insert(
                pk.clone(),
                Slot {
                    record,
                    meta,
                    version: 0,
                },
            );
        }
        S::denormalize(result, &mut DenormalizeCtx::new(&scratch, args)).ok()
    }

    fn normalize<S: Schema>(
        &self,
        method: &str,
        value: &Value,
        args: &Value,
        opts: WriteOptions<'_>,
    ) -> Result<(Value, Pending), Error> {
        let value = prepare(S::KIND, method, value, crate::normalize::as_map(args), opts.body)?;
        let mut ctx = NormalizeCtx::new(&self.tables, args, opts.body);
        ctx.policy = opts.policy;
        let result = S::normalize(&value, &mut ctx)?;
        Ok((result, ctx.pending))
    }

    /// Records a failed fetch of `key` (R-FETCH-1 step 7). The stored result is kept.
    pub fn set_error(&mut self, key: &str, fetched_at: Instant, error: Error, error_expiry: Duration) {
        if self.meta.get(key).is_some_and(|m| m.fetched_at > fetched_at) {
            return;
        }
        let now = Instant::now();
        self.meta.insert(
            key.to_owned(),
            EndpointMeta {
                fetched_at,
                written_at: now,
                expires_at: Some(now + error_expiry),
                error: Some(error),
                invalidated: false,
            },
        );
        self.version += 1;
    }

    fn bump(next: &mut u64) -> u64 {
        let v = *next;
        *next += 1;
        v
    }

    fn commit(
        &mut self,
        key: &str,
        result: Option<Value>,
        pending: Pending,
        fetched_at: Instant,
        now: Instant,
        expires_at: Instant,
    ) {
        let meta = EntityMeta {
            fetched_at,
            written_at: now,
            expires_at,
        };
        let next = &mut self.next_version;
        for ((table, pk), write) in pending.writes {
            let (_, t) = self.tables.get_or_create(table);
            match t.rows.get_mut(pk.as_str()) {
                Some(slot) => {
                    if apply(slot, write, meta) {
                        slot.version = Self::bump(next);
                        t.version = slot.version;
                    }
                }
                None => {
                    let record = match write {
                        PendingWrite::Entity(fields) => Record::Valid(Value::Object(fields)),
                        PendingWrite::Invalid => Record::Invalid,
                        PendingWrite::Collection(items) => Record::Valid(Value::Array(items)),
                    };
                    let version = Self::bump(next);
                    t.rows.insert(pk, Slot { record, meta, version });
                    t.version = version;
                }
            }
        }
        if let Some(result) = result {
            let newer = self.meta.get(key).is_some_and(|m| m.fetched_at > fetched_at);
            if !newer {
                match self.results.get_mut(key) {
                    Some(r) if r.value == result => {}
                    Some(r) => {
                        r.value = result;
                        r.version = Self::bump(&mut self.next_version);
                    }
                    None => {
                        let version = Self::bump(&mut self.next_version);
                        self.results
                            .insert(key.to_owned(), StoredResult { value: result, version });
                    }
                }
                self.meta.insert(
                    key.to_owned(),
                    EndpointMeta {
                        fetched_at,
                        written_at: now,
                        expires_at: Some(expires_at),
                        error: None,
                        invalidated: false,
                    },
                );
            }
        }
        self.version += 1;
    }
}

/// Applies one pending write to a stored slot (R-NORM-6/7/9). Returns whether the record changed.
fn apply(slot: &mut Slot, write: PendingWrite, meta: EntityMeta) -> bool {
    let older = meta.fetched_at < slot.meta.fetched_at;
    let mut changed = false;
    match (write, &mut slot.record) {
        (PendingWrite::Entity(fields), Record::Valid(Value::Object(stored))) => {
            for (k, v) in fields {
                match stored.get_mut(&k) {
                    Some(old) if older || *old == v => {}
                    Some(old) => {
                        *old = v;
                        changed = true;
                    }
                    None => {
                        stored.insert(k, v);
                        changed = true;
                    }
                }
            }
        }
        (_, _) if older => {}
        (PendingWrite::Entity(fields), record) => {
            *record = Record::Valid(Value::Object(fields));
            changed = true;
        }
        (PendingWrite::Invalid, record) => {
            changed = *record != Record::Invalid;
            *record = Record::Invalid;
        }
        (PendingWrite::Collection(items), record) => {
            let new = Record::Valid(Value::Array(items));
            changed = *record != new;
            *record = new;
        }
    }
    if !older {
        slot.meta = meta;
    }
    changed
}

/// The outcome of one read, before status and expiry are worked out.
struct Read<T> {
    data: Option<Arc<T>>,
    invalid: bool,
    /// Query mode: the earliest expiry of the records the read touched (R-GET-4).
    touched_expiry: Option<Instant>,
}

impl Store {
    /// Reads `key` (R-GET-1): its stored result denormalized against the tables, or what query
    /// mode infers from `args` when no result is stored (R-GET-3), with its status and expiry.
    ///
    /// Two reads with no relevant change in between return the same `Arc` (R-READ-5).
    /// Returns `Err` only when the args or the schema cannot be used.
    pub fn get_response<S: Schema>(&self, key: &str, args: &impl Serialize) -> Result<Cached<S::Output>, Error> {
        self.get_response_with::<S>(key, args, false)
    }

    /// [`get_response`](Self::get_response) for an endpoint that may have `invalid_if_stale`.
    pub(crate) fn get_response_with<S: Schema>(
        &self,
        key: &str,
        args: &impl Serialize,
        invalid_if_stale: bool,
    ) -> Result<Cached<S::Output>, Error> {
        let args = args_map(args)?;
        self.check_schema::<S>()?;
        let read = self.read::<S>(key, args);
        let meta = self.meta.get(key);
        let expires_at = match meta {
            Some(m) => m.expires_at,
            None => read.touched_expiry,
        };
        let status = if meta.is_some_and(|m| m.invalidated) || read.invalid && meta.is_none_or(|m| m.error.is_none()) {
            ExpiryStatus::Invalid
        } else if read.data.is_none() || invalid_if_stale {
            ExpiryStatus::InvalidIfStale
        } else {
            ExpiryStatus::Valid
        };
        Ok(Cached {
            data: read.data,
            status,
            expires_at,
            error: meta.and_then(|m| m.error.clone()),
        })
    }

    fn read<S: Schema>(&self, key: &str, args: Map<String, Value>) -> Read<S::Output> {
        let result = self.results.get(key);
        let result_version = result.map(|r| r.version);
        let query_args = if result.is_none() {
            Some(Value::Object(args))
        } else {
            None
        };
        let schema = TypeId::of::<S>();
        let mut memo = self.memo.lock();
        let entries = memo.entries.get_mut(key);
        let cached = entries
            .and_then(|es| es.iter_mut().find(|e| e.schema == schema))
            .filter(|e| {
                e.epoch == self.epoch
                    && e.result_version == result_version
                    && e.args == query_args
                    && (e.checked_at == self.version || e.deps.current(&self.tables))
            });
        if let Some(e) = cached {
            e.checked_at = self.version;
            return self.found::<S>(&e.found, &e.deps, result.is_none());
        }

        let empty = Value::Object(Map::new());
        let mut ctx = DenormalizeCtx::new(&self.tables, query_args.as_ref().unwrap_or(&empty));
        let outcome = match result {
            Some(r) => Some(S::denormalize(&r.value, &mut ctx)),
            None => S::query(&mut ctx),
        };
        let deps = ctx.deps;
        let found = match outcome {
            Some(Ok(out)) => Found::Data(Arc::new(out)),
            Some(Err(_)) => Found::Invalid,
            None => Found::Nothing,
        };
        let entry = MemoEntry {
            schema,
            epoch: self.epoch,
            checked_at: self.version,
            result_version,
            args: query_args,
            deps,
            found,
        };
        let read = self.found::<S>(&entry.found, &entry.deps, result.is_none());
        let entries = memo.entries.entry(key.to_owned()).or_default();
        match entries.iter_mut().find(|e| e.schema == schema) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
        read
    }

    fn found<S: Schema>(&self, found: &Found, deps: &Deps, query_mode: bool) -> Read<S::Output> {
        let touched_expiry = if query_mode {
            deps.slots
                .iter()
                .map(|d| self.tables.table(d.table).rows[d.row as usize].meta.expires_at)
                .min()
        } else {
            None
        };
        match found {
            Found::Data(any) => Read {
                data: Arc::clone(any).downcast::<S::Output>().ok(),
                invalid: false,
                touched_expiry,
            },
            Found::Invalid => Read {
                data: None,
                invalid: true,
                touched_expiry,
            },
            Found::Nothing => Read {
                data: None,
                invalid: false,
                touched_expiry: None,
            },
        }
    }

    /// The meta of `key`, if any.
    pub fn meta(&self, key: &str) -> Option<&EndpointMeta> {
        self.meta.get(key)
    }

    /// Every key that holds a stored result.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.results.keys().map(String::as_str)
    }

    /// Forgets the result of `key` and marks it invalidated, so its next read fetches and waits
    /// (R-EXP-2). Entities are untouched.
    pub fn invalidate(&mut self, key: &str) {
        self.results.remove(key);
        let origin = self.origin;
        let meta = self.meta.entry(key.to_owned()).or_insert_with(|| EndpointMeta {
            fetched_at: origin,
            written_at: origin,
            expires_at: None,
            error: None,
            invalidated: true,
        });
        meta.expires_at = None;
        meta.error = None;
        meta.invalidated = true;
        self.version += 1;
    }

    /// [`invalidate`](Self::invalidate)s every key with a stored result that `matches`
    /// (R-EXP-3). Returns how many.
    pub fn invalidate_all(&mut self, mut matches: impl FnMut(&str) -> bool) -> usize {
        let keys: Vec<String> = self.results.keys().filter(|k| matches(k)).cloned().collect();
        for k in &keys {
            self.invalidate(k);
        }
        keys.len()
    }

    /// Marks every key with meta that `matches` as expired (R-EXP-4): data, errors and status
    /// are kept; the next read refetches. Returns how many.
    pub fn expire_all(&mut self, mut matches: impl FnMut(&str) -> bool) -> usize {
        let mut n = 0;
        for (k, m) in &mut self.meta {
            if matches(k) {
                m.expires_at = None;
                n += 1;
            }
        }
        if n > 0 {
            self.version += 1;
        }
        n
    }

    /// Empties the store: entities, results and meta (the data part of R-EXP-5).
    pub fn clear(&mut self) {
        self.tables = Tables::default();
        self.results.clear();
        self.meta.clear();
        self.memo.lock().entries.clear();
        self.epoch += 1;
        self.version += 1;
    }

    /// The whole store as JSON, for inspection and tests: tables in insertion order with every
    /// record (`"INVALID"` for a mark), version and meta; results; endpoint meta. Instants are
    /// nanoseconds since the store was created.
    pub fn snapshot(&self) -> Value {
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
                        "pk": pk,
                        "record": match &slot.record { Record::Valid(v) => v.clone(), Record::Invalid => "INVALID".into() },
                        "version": slot.version,
                        "fetched_at": at(slot.meta.fetched_at),
                        "written_at": at(slot.meta.written_at),
                        "expires_at": at(slot.meta.expires_at),
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
            "results": results.into_iter().map(|(k, r)| serde_json::json!({"key": k, "value": r.value, "version": r.version})).collect::<Vec<_>>(),
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
