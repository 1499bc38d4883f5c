//! Writes: responses normalized and committed in one step (R-NORM-2, R-FETCH-1 steps 6–7).

use std::sync::Arc;
use std::time::Duration;

use crate::rt::Instant;
use serde::Serialize;
use serde_json::{Map, Value};

use super::gc::{self, Gc, walk_result};
use super::journal::Journal;
use super::{EndpointMeta, Store, StoredResult, WriteOptions, args_map};
use crate::bounded_value::Refused;
use crate::error::Error;
use crate::json::{MAX_INPUT_DEPTH, as_map, shallow, too_deep};
use crate::pk::PkHasher;
use crate::refs::{AnyStored, RefWalk};
use crate::rows::MergeOutcome;
use crate::schema::denormalize::DenormalizeCtx;
use crate::schema::normalize::{Outcome, Pending, PendingTable, edit_at, run};
use crate::schema::{CollectionPolicy, Schema, SchemaKind, join_lists};
use crate::tables::{EntityMeta, Layered, ListEdit, Record, RowMeta, Slot, Stamp, Table, TableId, Tables};

/// The value a response stands for, after the empty-response rules (R-RESP-5, R-RESP-6).
pub(super) fn prepare(
    kind: SchemaKind,
    method: &str,
    value: Value,
    args: &Map<String, Value>,
    body: Option<&Value>,
) -> Result<Value, Error> {
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    Ok(match kind {
        SchemaKind::Invalidate if empty(&value) => Value::Object(args.clone()),
        SchemaKind::InvalidateList if value.is_null() || empty(&value) && value.is_array() => match body {
            Some(b @ Value::Array(_)) => b.clone(),
            _ => Value::Array(vec![Value::Object(args.clone())]),
        },
        SchemaKind::Entity if value.is_null() && matches!(method, "PUT" | "PATCH") => match body {
            Some(Value::Object(b)) => {
                let mut merged = args.clone();
                merged.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
                Value::Object(merged)
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
        _ => value,
    })
}

/// The message of a JSON syntax error, naming the nesting limit when that is what was hit.
fn decode_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    if message.contains("recursion limit") {
        format!("JSON nested deeper than the nesting limit of {MAX_INPUT_DEPTH}: {message}")
    } else {
        message
    }
}

/// The [`Error::Decode`] of bytes that are not JSON, before the URL is known; `content_type`
/// is the response's, when it came over HTTP.
pub(crate) fn syntax_error(e: serde_json::Error, content_type: Option<&str>) -> Error {
    Error::Decode {
        url: String::new(),
        content_type: content_type.map(str::to_owned),
        entity: None,
        position: String::new(),
        message: decode_message(&e),
    }
}

/// The error of a serde error that is not a normalization error: `syntax`'s for bytes that are
/// not JSON; a value of the wrong type for the schema, at `position`, the same kind of error.
fn decode(
    e: serde_json::Error,
    position: String,
    entity: Option<&str>,
    syntax: &dyn Fn(serde_json::Error) -> Error,
) -> Error {
    let data = e.is_data();
    let mut error = syntax(e);
    if data
        && let Error::Decode {
            position: at,
            entity: in_entity,
            ..
        } = &mut error
    {
        *at = position;
        *in_entity = entity.map(str::to_owned);
    }
    error
}

/// Normalizes `value` with `S` after the empty-response rules (R-RESP-5/6); `pk_fallback`
/// stands in for a created entity's missing pk (an optimistic layer's placeholder).
pub(super) fn normalize_value<S: Schema>(
    method: &str,
    value: Value,
    args: &Value,
    body: Option<&Value>,
    pk_fallback: Option<String>,
) -> Result<Outcome<S::Stored>, Error> {
    let value = prepare(S::KIND, method, value, as_map(args), body)?;
    let syntax = |e| syntax_error(e, None);
    run(
        args.clone(),
        pk_fallback,
        || S::normalize(value),
        |e, at, entity| decode(e, at, entity, &syntax),
    )
}

/// [`normalize_value`] from bytes: parsed and normalized in one pass where the empty-response
/// rules (which look at the whole value) cannot apply. Whitespace alone is an empty response;
/// `syntax` makes the error of bytes that are not JSON.
fn normalize_bytes<S: Schema>(
    method: &str,
    bytes: &[u8],
    args: &Value,
    body: Option<&Value>,
    syntax: &dyn Fn(serde_json::Error) -> Error,
) -> Result<Outcome<S::Stored>, Error> {
    // An entity's PUT/PATCH response is empty only when it is `null` (with JSON's whitespace
    // around it, not form feeds), which its text tells; any other body takes the one-pass path.
    let null = || std::str::from_utf8(bytes).is_ok_and(|s| s.trim_matches([' ', '\t', '\n', '\r']) == "null");
    if bytes.iter().all(u8::is_ascii_whitespace)
        || S::KIND == SchemaKind::Entity && matches!(method, "PUT" | "PATCH") && null()
    {
        return normalize_value::<S>(method, Value::Null, args, body, None);
    }
    if matches!(S::KIND, SchemaKind::Invalidate | SchemaKind::InvalidateList) {
        let value = serde_json::from_slice(bytes).map_err(syntax)?;
        return normalize_value::<S>(method, value, args, body, None);
    }
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if let Some(outcome) = super::simd_parse::normalize::<S>(bytes, args) {
        return Ok(outcome);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let outcome = run(
        args.clone(),
        None,
        || {
            let result = S::normalize(&mut de)?;
            de.end()?;
            Ok(result)
        },
        |e, at, entity| decode(e, at, entity, syntax),
    );
    // Bytes that are not JSON (or nest past the limit) are that error wherever it is, before
    // any error of the schema's met earlier in them (R-RESP-4), as when the whole body is
    // parsed first; only a refused body pays for this second look.
    match outcome {
        Err(e) => match serde_json::from_slice::<Value>(bytes) {
            Err(not_json) => Err(syntax(not_json)),
            Ok(_) => Err(e),
        },
        Ok(outcome) => Ok(outcome),
    }
}

/// Completes a batch against the tables it will be committed into: the lists its created
/// entities join (R-COL-4/5) and the INVALID marks it writes only where the pk is stored.
pub(super) fn settle(
    pending: &mut Pending,
    tables: Layered<'_>,
    args: &Value,
    body: Option<&Value>,
    policy: Option<&dyn CollectionPolicy>,
    fetched_at: Instant,
) {
    join_lists(pending, tables, args, body, policy, Stamp::of(fetched_at));
    for (table, pk) in std::mem::take(&mut pending.if_stored) {
        if tables.find(table, &pk).is_some() {
            pending.invalid(table, &pk);
        }
    }
}

/// A response value for [`Store::set_response`]: an owned [`Value`] is moved into the tables
/// (its strings are not copied), a `&Value` is copied first.
///
/// ```
/// # use restcache::prelude::*;
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct User { #[entity(pk)] id: String, name: String }
/// let mut store = Store::new();
/// let body = serde_json::json!({ "id": "1", "name": "Ada" });
/// store.set_response::<User>("GET /users/1", &(), &body)?; // copied: `body` stays usable
/// store.set_response::<User>("GET /users/1", &(), body)?; // moved: no copy
/// # Ok::<(), restcache::Error>(())
/// ```
pub trait ResponseValue: sealed::Sealed {
    #[doc(hidden)]
    fn into_value(self) -> Result<Value, Error>;
}

impl ResponseValue for Value {
    /// The value itself, refused (and dropped without recursion) when it nests deeper than
    /// normalization accepts: what serde leaves of a refused value is dropped recursively.
    fn into_value(self) -> Result<Value, Error> {
        shallow(self).map_err(nested_too_deep)
    }
}

impl ResponseValue for &Value {
    /// A copy, refused (before copying) when the value nests deeper than normalization
    /// accepts: `Value::clone` recurses, and a hostile depth would overflow the stack.
    fn into_value(self) -> Result<Value, Error> {
        match too_deep(self, 0) {
            Some(position) => Err(nested_too_deep(position)),
            None => Ok(self.clone()),
        }
    }
}

/// The error of an input nested deeper than [`MAX_INPUT_DEPTH`] levels at `position`.
fn nested_too_deep(position: String) -> Error {
    Error::InvalidResponse {
        url: String::new(),
        entity: None,
        position,
        reason: format!("input nested deeper than {MAX_INPUT_DEPTH} levels"),
    }
}

/// The args of a write of `key` as an object, and the key's URL. A request body nested deeper
/// than [`MAX_INPUT_DEPTH`] levels is refused before anything copies or walks it (an empty PUT
/// or PATCH response stands for `args ⊕ body`, R-ERR-2).
fn start_write<'k>(key: &'k str, args: &impl Serialize, opts: &WriteOptions<'_>) -> Result<(Value, &'k str), Error> {
    let args = Value::Object(args_map(args)?);
    if opts.body.is_some_and(|body| too_deep(body, 0).is_some()) {
        return Err(Refused::TooDeep.of_body());
    }
    Ok((args, key.split_once(' ').map_or(key, |(_, url)| url)))
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for serde_json::Value {}
    impl Sealed for &serde_json::Value {}
}

impl Store {
    /// Writes `value` as the response of `key`, arriving now (R-EXP-6).
    ///
    /// On error nothing is written. See [`set_response_with`](Self::set_response_with).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// assert_eq!(store.get_response::<Todo>("GET /todos/1", &())?.data.unwrap().title, "a");
    /// assert!(store.set_response::<Todo>("GET /todos/2", &(), &json!("not a todo")).is_err());
    /// assert!(store.meta("GET /todos/2").is_none()); // nothing written
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_response<S: Schema>(
        &mut self,
        key: &str,
        args: &impl Serialize,
        value: impl ResponseValue,
    ) -> Result<(), Error> {
        self.set_response_with::<S>(key, args, value, WriteOptions::new())
    }

    /// Normalizes `value` as the response of `key` (`"METHOD url"`) and commits it in one step:
    /// its entities, its result and a fresh meta. On error nothing at all is written.
    ///
    /// `args` are the call's args (for collection keys and delete fallbacks). The method in the
    /// key selects the empty-response rules: an empty PUT/PATCH answer stands for `args ⊕ body`.
    /// `value` is a [`Value`] (moved in) or a `&Value` (copied).
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
    /// let opts = WriteOptions::new().data_expiry(Duration::MAX); // fresh for ever
    /// store.set_response_with::<Todo>("GET /todos/1", &(), json!({ "id": 1, "title": "a" }), opts)?;
    /// let cached = store.get_response::<Todo>("GET /todos/1", &())?;
    /// assert!(!cached.is_stale(restcache::Instant::now() + Duration::from_secs(365 * 24 * 3_600)));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_response_with<S: Schema>(
        &mut self,
        key: &str,
        args: &impl Serialize,
        value: impl ResponseValue,
        opts: WriteOptions<'_>,
    ) -> Result<(), Error> {
        let (args, url) = start_write(key, args, &opts)?;
        let value = value.into_value().map_err(|e| e.with_url(url))?;
        self.write_only::<S>(key, &args, opts, |method| {
            normalize_value::<S>(method, value, &args, opts.body, None)
        })
        .map_err(|e| e.with_url(url))
    }

    /// [`set_response`](Self::set_response) from the response's bytes: the JSON is parsed and
    /// normalized in one pass, without building a `serde_json::Value` of the whole response
    /// first where the schema allows (entities, `#[derive(Schema)]` objects, `Vec`, `Option`,
    /// `Box`; other schemas parse their part into a `Value`). Whitespace alone stands for an empty
    /// response, as over HTTP. Bytes that are not JSON are an [`Error::Decode`]; on any error
    /// nothing is written. Bytes that fail to normalize are normalized again from the `Value`
    /// they parse to, which gives the outcome: a key repeated in one object keeps its last value
    /// (as in a `Value`), so an earlier value's fault, or its writes, do not count.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct User { #[entity(pk)] id: String, name: String }
    /// let mut store = Store::new();
    /// store.set_response_bytes::<Vec<User>>("GET /users", &(), br#"[{"id": "1", "name": "Ada"}]"#)?;
    /// let users = store.get_response::<Vec<User>>("GET /users", &())?.data.unwrap();
    /// assert_eq!(users[0].name, "Ada");
    /// assert!(store.set_response_bytes::<Vec<User>>("GET /users", &(), b"[{").is_err());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_response_bytes<S: Schema>(
        &mut self,
        key: &str,
        args: &impl Serialize,
        bytes: &[u8],
    ) -> Result<(), Error> {
        self.set_response_bytes_with::<S>(key, args, bytes, WriteOptions::new())
    }

    /// [`set_response_bytes`](Self::set_response_bytes) with [`WriteOptions`], as
    /// [`set_response_with`](Self::set_response_with).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use restcache::store::WriteOptions;
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// // An empty answer to a PATCH stands for its args and body.
    /// let (args, body) = (params! { id: 1 }, json!({ "title": "renamed" }));
    /// store.set_response_bytes_with::<Todo>("PATCH /todos/1", &args, b" ", WriteOptions::new().body(&body))?;
    /// assert_eq!(store.get_response::<Todo>("GET /todos/1", &())?.data.unwrap().title, "renamed");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_response_bytes_with<S: Schema>(
        &mut self,
        key: &str,
        args: &impl Serialize,
        bytes: &[u8],
        opts: WriteOptions<'_>,
    ) -> Result<(), Error> {
        let (args, url) = start_write(key, args, &opts)?;
        self.write_only::<S>(key, &args, opts, |method| {
            let syntax = |e| syntax_error(e, None);
            normalize_bytes::<S>(method, bytes, &args, opts.body, &syntax)
        })
        .map_err(|e| e.with_url(url))
    }

    /// Normalizes a fetched body before the store is locked (R-FETCH-1 step 6), so the lock is
    /// only held to commit. `syntax` makes the error of bytes that are not JSON.
    pub(crate) fn normalize_fetched<S: Schema>(
        key: &str,
        args: &Value,
        bytes: &[u8],
        opts: WriteOptions<'_>,
        syntax: &dyn Fn(serde_json::Error) -> Error,
    ) -> Result<Outcome<S::Stored>, Error> {
        let method = key.split_once(' ').map_or("", |(m, _)| m);
        normalize_bytes::<S>(method, bytes, args, opts.body, syntax)
    }

    /// Commits a fetched response normalized by [`normalize_fetched`](Self::normalize_fetched),
    /// removing the fetch's optimistic layer in the same step; returns the cache's view of what
    /// it wrote (R-FETCH-5): `None` when that does not resolve now, as when a newer delete of
    /// the entity won. A created entity (push, unshift) joins the lists stored now (R-COL-4).
    pub(crate) fn commit_fetched<S: Schema>(
        &mut self,
        key: &str,
        args: &Value,
        normalized: Outcome<S::Stored>,
        opts: WriteOptions<'_>,
        layer: Option<u64>,
    ) -> Result<Option<Arc<S::Output>>, Error> {
        self.check_schema::<S>()?;
        let Outcome { result, pending } = normalized;
        let written = result.clone();
        let meta = Arc::new(EntityMeta::new(opts.fetched_at, opts.fetched_at, opts.fetched_at));
        // The commit tells a page from a join by them.
        let pages: Vec<_> = (pending.pages.iter())
            .map(|(table, pk, refs)| {
                let slot = Slot {
                    record: Record::List(refs.clone()),
                    meta: RowMeta::of(&meta),
                    version: 0,
                };
                (*table, pk.clone(), slot)
            })
            .collect();
        self.commit(key, args, (Arc::new(result), walk_result::<S>), pending, opts, layer);
        // What the response wrote, read as the cache now holds it: a field the response
        // omitted shows its cached value, and a newer write that won shows; a page reads as
        // the page, not as the list it joined.
        let mut ctx = DenormalizeCtx::untracked(Layered::committed(&self.tables), args).pages(&pages);
        Ok(S::denormalize(&written, &mut ctx).ok().map(Arc::new))
    }

    /// Normalizes and commits a response without building what it describes, for the callers
    /// that do not return it (`set_response`, `set_response_bytes`); `normalize` gets the key's
    /// method.
    fn write_only<S: Schema>(
        &mut self,
        key: &str,
        args: &Value,
        opts: WriteOptions<'_>,
        normalize: impl FnOnce(&str) -> Result<Outcome<S::Stored>, Error>,
    ) -> Result<(), Error> {
        self.check_schema::<S>()?;
        let method = key.split_once(' ').map_or("", |(m, _)| m);
        let Outcome { result, pending } = normalize(method)?;
        self.commit(key, args, (Arc::new(result), walk_result::<S>), pending, opts, None);
        Ok(())
    }

    /// Records a failed fetch of `key` (R-FETCH-1 step 7). The stored result is kept.
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
    /// store.set_error("GET /todos/1", restcache::Instant::now(), Error::Aborted, Duration::from_secs(1));
    /// let cached = store.get_response::<Todo>("GET /todos/1", &())?;
    /// assert_eq!(cached.error, Some(Error::Aborted));
    /// assert_eq!(cached.data.unwrap().title, "a"); // the stored result is kept
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_error(&mut self, key: &str, fetched_at: Instant, error: Error, error_expiry: Duration) {
        self.fail(key, fetched_at, error, error_expiry, None);
    }

    /// [`set_error`](Self::set_error), removing the fetch's optimistic layer in the same step:
    /// the rollback (R-OPTM-4).
    pub(crate) fn fail(
        &mut self,
        key: &str,
        fetched_at: Instant,
        error: Error,
        error_expiry: Duration,
        layer: Option<u64>,
    ) {
        if let Some(id) = layer {
            self.roll_back_layer(id);
        }
        if self.meta.get(key).is_some_and(|m| m.fetched_at > fetched_at) {
            return;
        }
        let now = Instant::now();
        self.set_meta(
            key,
            EndpointMeta {
                fetched_at,
                written_at: now,
                expires_at: Some(crate::rt::later(now, error_expiry)),
                error: Some(error),
                invalidated: false,
            },
        );
        self.version += 1;
    }

    pub(super) fn bump(next: &mut u64) -> u64 {
        let v = *next;
        *next += 1;
        v
    }

    /// Completes a normalization's writes against the committed tables ([`settle`]) and
    /// commits them with `key`'s result, removing the fetch's optimistic layer in the same step.
    fn commit(
        &mut self,
        key: &str,
        args: &Value,
        (result, walk): (Arc<dyn AnyStored>, RefWalk),
        mut pending: Pending,
        opts: WriteOptions<'_>,
        layer: Option<u64>,
    ) {
        let fetched_at = opts.fetched_at;
        let tables = Layered::committed(&self.tables);
        settle(&mut pending, tables, args, opts.body, opts.policy, fetched_at);
        let now = Instant::now();
        let expires_at = crate::rt::later(now, opts.data_expiry);
        self.drop_layer(layer);
        let meta = Arc::new(EntityMeta::new(fetched_at, now, expires_at));
        self.memo.get_mut().clock = Stamp::of(now);
        let written = apply_pending(
            &mut self.tables,
            &mut self.next_version,
            pending,
            &meta,
            Observers {
                journal: self.journal.as_mut(),
                gc: self.gc.as_deref_mut(),
            },
        );
        let newer = self.meta.get(key).is_some_and(|m| m.fetched_at > fetched_at);
        if !newer {
            let stored = self.results.get_mut(key);
            let old = stored.as_ref().map_or(0, |r| r.bytes);
            if !stored.as_ref().is_some_and(|r| r.value.same(result.as_ref())) {
                // Measured only when the store collects, and only a result that changed.
                let bytes = if self.gc.is_some() {
                    gc::key_bytes(key, result.as_ref())
                } else {
                    0
                };
                let version = Self::bump(&mut self.next_version);
                let new = StoredResult {
                    value: result,
                    version,
                    walk: Some(walk),
                    bytes,
                };
                match stored {
                    Some(r) => *r = new,
                    None => {
                        self.results.insert(key.to_owned(), new);
                    }
                }
            }
            if let Some(gc) = self.gc.as_deref_mut() {
                let new = self.results.get(key).map_or(0, |r| r.bytes);
                gc.key_written(key, old, new);
            }
            self.set_meta(
                key,
                EndpointMeta {
                    fetched_at,
                    written_at: now,
                    expires_at: Some(expires_at),
                    error: None,
                    invalidated: false,
                },
            );
        }
        self.rebuild_read_state();
        self.version += 1;
        self.gc_settle();
        self.gc_assist(written);
    }
}

/// Who is told of each row a commit writes: the persister's journal and the collector.
pub(super) struct Observers<'a> {
    pub journal: Option<&'a mut Journal>,
    pub gc: Option<&'a mut Gc>,
}

impl Observers<'_> {
    fn row(&mut self, table: TableId, row: usize, t: &Table, fresh: bool) {
        if self.journal.is_none() && self.gc.is_none() {
            return;
        }
        let Some((pk, slot)) = t.rows.get_index(row) else {
            return;
        };
        if let Some(journal) = self.journal.as_deref_mut() {
            journal.row(table, pk);
        }
        if let Some(gc) = self.gc.as_deref_mut() {
            gc.row_written(table, row, pk, slot, fresh);
        }
    }
}

/// Applies a normalization's writes to `tables`, giving every changed record a new version,
/// and tells `observers` of every row written. Returns how many rows it wrote.
pub(super) fn apply_pending(
    tables: &mut Tables,
    next: &mut u64,
    pending: Pending,
    meta: &Arc<EntityMeta>,
    mut observers: Observers<'_>,
) -> usize {
    let mut written = 0;
    let page = |name: &str, pk: &str| (pending.pages.iter()).any(|(t, p, _)| *t == name && p == pk);
    for PendingTable {
        name,
        rows,
        hashes,
        edits,
    } in pending.tables
    {
        debug_assert!(
            hashes.is_empty() || hashes.len() == rows.len(),
            "a hash for every row, or none"
        );
        let (id, t) = tables.get_or_create(name);
        written += rows.len();
        if t.rows.is_empty() {
            // Every row is new: the batch's map becomes the table, nothing is moved or hashed.
            // Its spare room goes (its hash index shrinks only if the list reserved more than
            // it wrote: repeats, nulls).
            t.rows = rows;
            t.rows.shrink_to_fit(&hashes);
            for slot in t.rows.values_mut() {
                slot.meta = RowMeta::of(meta);
                slot.version = Store::bump(next);
                t.version = slot.version;
            }
            (0..t.rows.len()).for_each(|row| observers.row(id, row, t, true));
            continue;
        }
        for (index, (pk, slot)) in rows.into_iter().enumerate() {
            let edit = edit_at(&edits, index);
            // A join (push, unshift, remove, move) edits the lists stored: one the sweep running
            // will remove counts as gone, and is left to it (a page starts its list afresh).
            let join = edit.is_some() && !page(name, &pk);
            let hash = hashes.get(index).copied().unwrap_or_else(|| PkHasher::pk(&pk));
            // A new row is added as an INVALID mark with the write's meta, then takes its record.
            let (row, stored, added) = t.rows.get_or_insert_hashed(hash, pk, &[], || Slot {
                record: Record::Invalid,
                meta: RowMeta::of(meta),
                version: 0,
            });
            let garbage = !added && observers.gc.as_deref().is_some_and(|gc| gc.is_garbage(id, row, stored));
            if garbage && join {
                continue;
            }
            let fresh = added || garbage;
            let changed = if fresh {
                stored.record = slot.record;
                stored.meta = RowMeta::of(meta);
                true
            } else {
                apply(stored, slot.record, edit, meta)
            };
            if changed {
                stored.version = Store::bump(next);
                t.version = stored.version;
            }
            observers.row(id, row, t, fresh);
        }
    }
    written
}

/// Applies the writes of an optimistic layer over the committed tables `base`, into `over`, the
/// layers' own tables: a row the writes change is copied from `base` (or from nothing) into
/// `over` first, so `base` is never written and `over` holds only what layers changed.
pub(super) fn apply_layered(
    over: &mut Tables,
    base: &Tables,
    next: &mut u64,
    pending: Pending,
    meta: &Arc<EntityMeta>,
    gc: Option<&Gc>,
) {
    for PendingTable { name, rows, edits, .. } in pending.tables {
        let base_id = base.id(name);
        let committed = base.by_name(name);
        let (_, t) = over.get_or_create(name);
        for (index, (pk, slot)) in rows.into_iter().enumerate() {
            let edit = edit_at(&edits, index);
            if let Some(stored) = t.rows.get_mut(&pk) {
                let expires_at = stored.meta.expires_at;
                if apply(stored, slot.record, edit, meta) {
                    keep_expiry(stored, expires_at);
                    stored.version = Store::bump(next);
                    t.version = stored.version;
                }
                continue;
            }
            // A row the running sweep will remove counts as gone, as the layer's commit will
            // take it: a join leaves such a list, another write starts the row afresh.
            let stored = committed.and_then(|c| c.rows.get_full(&pk));
            let garbage = match (gc, base_id, stored) {
                (Some(gc), Some(id), Some((row, slot))) => gc.is_garbage(id, row, slot),
                _ => false,
            };
            if garbage && edit.is_some() {
                continue;
            }
            let written = match stored.filter(|_| !garbage).map(|(_, slot)| slot) {
                Some(stored) => {
                    let mut copy = stored.clone();
                    let changed = apply(&mut copy, slot.record, edit, meta);
                    keep_expiry(&mut copy, stored.meta.expires_at);
                    changed.then_some(copy)
                }
                None => Some(Slot {
                    record: slot.record,
                    meta: RowMeta::of(meta),
                    version: 0,
                }),
            };
            if let Some(mut written) = written {
                written.version = Store::bump(next);
                t.version = written.version;
                t.rows.insert(pk, written);
            }
        }
    }
}

/// Gives a row a layer wrote the expiry of the row beneath it: a guess of what the server will
/// answer makes the data no fresher or staler than it was (R-OPTM-2).
fn keep_expiry(slot: &mut Slot, expires_at: Stamp) {
    if slot.meta.expires_at != expires_at {
        let meta = EntityMeta {
            expires_at,
            ..*slot.meta
        };
        slot.meta = RowMeta::of(&Arc::new(meta));
    }
}

/// Applies one pending write (`record`; `edit` as [`PendingTable::edits`]) to a stored slot
/// (R-NORM-6/7/9). Returns whether the record changed.
fn apply(slot: &mut Slot, record: Record, edit: Option<ListEdit>, meta: &Arc<EntityMeta>) -> bool {
    let older = meta.fetched_at < slot.meta.fetched_at;
    let mut changed = false;
    match (record, &mut slot.record) {
        // Field by field: an older write only adds the fields the row lacks (R-NORM-6/7).
        (Record::Entity(row), Record::Entity(stored)) => match stored.merge_row(row, older) {
            MergeOutcome::Merged(merged) => changed = merged,
            MergeOutcome::Replace(row) if !older => {
                *stored = row;
                changed = true;
            }
            MergeOutcome::Replace(_) => {}
        },
        // A push, unshift or page adds the references the stored list lacks, in one hash each
        // (R-COL-4, R-PAGE-3); a remove or move takes references out (R-COL-7/8). The list keeps
        // its order, and one the edit leaves as it was is skipped, meta included. An older write
        // edits so too (R-NORM-7): a later-started write must not undo what the server did.
        (Record::List(items), Record::List(stored)) if edit.is_some() => {
            if !edit.is_some_and(|edit| stored.edit_list(items, edit, older)) {
                return false;
            }
            changed = true;
        }
        (_, _) if older => {}
        (record, stored) => {
            changed = *stored != record;
            *stored = record;
        }
    }
    if !older {
        slot.meta = RowMeta::of(meta);
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::{Collection, Page, Push, Unshift};
    use crate::tables::Members;

    /// An entity whose rows are never read here: every field but its pk is kept as it came.
    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct Tag {
        #[entity(pk)]
        name: String,
        n: Option<u64>,
    }

    type Tags = Collection<Vec<Tag>>;

    /// R-COL-4, R-PAGE-3 with R-NORM-7: a push, unshift or page adds to the stored list the
    /// references it lacks, at its end (or start for unshift), in their order, whether it started
    /// before the list's last write (its meta is then kept) or after it; one that adds nothing
    /// changes nothing, meta included. Object references (union members) compare as values.
    #[test]
    fn r_norm_7_a_push_or_page_adds_only_the_references_the_stored_list_lacks() {
        let now = Instant::now();
        let meta = |fetched_at| Arc::new(EntityMeta::new(fetched_at, now, now));
        let stored_at = now + Duration::from_secs(1);
        let member = |pk: &str| json!({"id": pk, "schema": "Tag"});
        let list = |items: Vec<Value>| Record::List(Box::new(Members::new(items)));
        let stored = vec![json!("a"), member("b"), json!("c")];
        let slot = |items: Vec<Value>| Slot {
            record: list(items),
            meta: RowMeta::of(&meta(stored_at)),
            version: 1,
        };
        for (at, newer) in [(now, false), (now + Duration::from_secs(2), true)] {
            // "b" (as the same member) and "a" are known; "x" and "y" are new.
            let items = || list(vec![json!("x"), member("b"), json!("a"), json!("y"), json!("c")]);
            let mut back = slot(stored.clone());
            assert!(apply(&mut back, items(), Some(ListEdit::Append), &meta(at)));
            let expected = vec![json!("a"), member("b"), json!("c"), json!("x"), json!("y")];
            assert_eq!(back.record, list(expected), "newer: {newer}");
            let kept = back.meta.fetched_at.instant();
            assert_eq!(kept, if newer { at } else { stored_at }, "the newer meta wins");
            let mut front = slot(stored.clone());
            assert!(apply(&mut front, items(), Some(ListEdit::Prepend), &meta(at)));
            let expected = vec![json!("x"), json!("y"), json!("a"), member("b"), json!("c")];
            assert_eq!(front.record, list(expected), "newer: {newer}");
            // Nothing new: nothing changes. A member differs from a bare pk of the same text.
            let mut same = slot(stored.clone());
            let known = list(vec![json!("c"), member("b"), json!("a")]);
            assert!(!apply(&mut same, known, Some(ListEdit::Append), &meta(at)));
            assert_eq!(same.record, list(stored.clone()));
            assert_eq!(same.meta.fetched_at.instant(), stored_at, "newer: {newer}");
            let mut other = slot(stored.clone());
            let bare = list(vec![json!("b"), member("a")]);
            assert!(apply(&mut other, bare, Some(ListEdit::Append), &meta(at)));
            let expected = vec![json!("a"), member("b"), json!("c"), json!("b"), member("a")];
            assert_eq!(other.record, list(expected), "newer: {newer}");
        }
    }

    /// R-RESP-4: a list reserves room for at most 4,096 rows up front (its map rounds that up to
    /// its own sizes), whatever length its parser announces, so a short body of 100,001 elements
    /// that are not entities does not make a table for 100,001 rows.
    #[test]
    fn r_resp_4_a_list_reserves_rows_for_at_most_4096_entities_up_front() {
        let mut body = String::from(r#"[{"name": "a"}"#);
        body.push_str(&",null".repeat(100_000));
        body.push(']');
        let syntax = |e| syntax_error(e, None);
        for outcome in [
            normalize_bytes::<Vec<Tag>>("GET", body.as_bytes(), &json!({}), None, &syntax),
            normalize_value::<Vec<Tag>>("GET", serde_json::from_str(&body).unwrap(), &json!({}), None, None),
        ] {
            let pending = outcome.unwrap().pending;
            assert_eq!(pending.tables[0].rows.len(), 1);
            assert!(
                pending.tables[0].rows.capacity() < 8_192,
                "{}",
                pending.tables[0].rows.capacity()
            );
        }
    }

    /// R-STORE-1: a table written whole from a list keeps no room its rows do not use (the
    /// batch grew by doubling, up to a third of it spare): a store keeps what it holds for as
    /// long as it lives.
    #[test]
    fn r_store_1_a_table_written_whole_keeps_no_spare_room() {
        let tags: Vec<Value> = (0..3_000).map(|i| json!({"name": format!("t{i}")})).collect();
        let body = serde_json::to_vec(&tags).unwrap();
        let mut store = Store::new();
        store.set_response_bytes::<Vec<Tag>>("GET /tags", &(), &body).unwrap();
        let rows = &store.tables.by_name("Tag").unwrap().rows;
        assert_eq!(rows.len(), 3_000);
        assert_eq!(rows.capacity(), 3_000, "the rows' spare room");
    }

    /// R-STORE-1, R-NORM-9: a batch committed into a table that has no rows becomes that table:
    /// its rows keep their order of first occurrence (repeats combined), each gets the commit's
    /// meta and a version of its own, and the table's version is the last of them; the same
    /// batch merged into a table that already has rows writes the same rows after them.
    #[test]
    fn r_store_1_a_batch_committed_into_an_empty_table_keeps_order_meta_and_versions() {
        let args = json!({});
        let body = json!([{"name": "b", "n": 1}, {"name": "a"}, {"name": "b", "n": 2}, {"name": "c"}]);
        let mut empty = Store::new();
        empty
            .set_response::<Vec<Tag>>("GET /tags", &args, body.clone())
            .unwrap();
        let mut filled = Store::new();
        filled
            .set_response::<Vec<Tag>>("GET /first", &args, json!([{"name": "z"}]))
            .unwrap();
        filled.set_response::<Vec<Tag>>("GET /tags", &args, body).unwrap();

        let snapshot = empty.inspect();
        let table = &snapshot["entities"]["Tag"];
        let rows = table["rows"].as_array().unwrap();
        let pks: Vec<&str> = rows.iter().map(|r| r["pk"].as_str().unwrap()).collect();
        assert_eq!(pks, ["b", "a", "c"]);
        assert_eq!(rows[0]["record"], json!({"name": "b", "n": 2}));
        let endpoint = &snapshot["meta"][0];
        let mut versions = Vec::new();
        for row in rows {
            for stamp in ["fetched_at", "written_at", "expires_at"] {
                assert_eq!(row[stamp], endpoint[stamp], "{stamp} of {row}");
            }
            let version = row["version"].as_u64().unwrap();
            assert!(version > 0 && !versions.contains(&version), "{row}");
            versions.push(version);
        }
        assert_eq!(table["version"].as_u64(), versions.iter().copied().max());

        let merged = filled.inspect()["entities"]["Tag"]["rows"].clone();
        let merged = merged.as_array().unwrap();
        assert_eq!(merged.len(), 4);
        for (row, same) in merged[1..].iter().zip(rows) {
            assert_eq!((&row["pk"], &row["record"]), (&same["pk"], &same["record"]));
        }
    }

    /// R-STORE-1: the rows one write sets hold its meta once between them (one allocation a
    /// write, not 24 bytes a row), committed into an empty table or merged into one with rows;
    /// a later write's rows hold the later meta, and the rows it did not write keep theirs.
    #[test]
    fn r_store_1_the_rows_of_one_write_share_its_meta() {
        let args = json!({});
        let mut store = Store::new();
        let metas = |store: &Store| -> Vec<*const EntityMeta> {
            let rows = &store.tables.by_name("Tag").unwrap().rows;
            rows.values()
                .map(|slot| std::ptr::from_ref::<EntityMeta>(&slot.meta))
                .collect()
        };
        store
            .set_response::<Vec<Tag>>("GET /a", &args, json!([{"name": "a"}, {"name": "b"}]))
            .unwrap();
        let first = metas(&store);
        assert_eq!(first[0], first[1], "one meta for the write's rows");
        store
            .set_response::<Vec<Tag>>("GET /b", &args, json!([{"name": "b", "n": 1}, {"name": "c"}]))
            .unwrap();
        let second = metas(&store);
        assert_eq!(second[0], first[0], "`a` was not written again");
        assert_eq!(second[1], second[2], "one meta for the merged write's rows");
        assert_ne!(second[1], first[0]);
    }

    /// R-STORE-1, R-FETCH-5: a fetched batch, whose output the fetch returns, is
    /// committed with the commit's meta, into a table with no rows and into one with rows alike:
    /// no row keeps the meta it was read with.
    #[test]
    fn r_store_1_a_fetched_batch_is_committed_with_the_commits_meta() {
        let args = json!({});
        let syntax = |e| syntax_error(e, None);
        let opts = WriteOptions {
            fetched_at: Instant::now(),
            data_expiry: Duration::from_secs(60),
            ..WriteOptions::new()
        };
        let fetch = |store: &mut Store| {
            let body = br#"[{"name": "b", "n": 1}, {"name": "a"}]"#;
            let normalized = Store::normalize_fetched::<Vec<Tag>>("GET /tags", &args, body, opts, &syntax)
                .expect("a list of tags is normalized before the lock");
            let described = store.commit_fetched::<Vec<Tag>>("GET /tags", &args, normalized, opts, None);
            assert_eq!(described.unwrap().unwrap().len(), 2);
        };
        let mut empty = Store::new();
        fetch(&mut empty);
        let mut filled = Store::new();
        filled
            .set_response::<Vec<Tag>>("GET /first", &args, json!([{"name": "z"}]))
            .unwrap();
        fetch(&mut filled);

        for (store, first) in [(&empty, 0), (&filled, 1)] {
            let snapshot = store.inspect();
            let meta = snapshot["meta"].as_array().unwrap();
            let endpoint = meta.iter().find(|m| m["key"] == "GET /tags").unwrap();
            let rows = snapshot["entities"]["Tag"]["rows"].as_array().unwrap();
            assert_eq!(rows.len(), first + 2);
            for row in &rows[first..] {
                for stamp in ["fetched_at", "written_at", "expires_at"] {
                    assert_eq!(row[stamp], endpoint[stamp], "{stamp} of {row}");
                }
                assert!(row["version"].as_u64().unwrap() > 0, "{row}");
            }
        }
    }

    /// R-COL-4, R-PAGE-3: a push, unshift or page body is parsed and normalized before the
    /// store is locked, and refused there; under the lock, the commit only adds its references
    /// to the lists stored then, a list stored after the body was normalized included.
    #[test]
    fn r_col_4_a_push_unshift_or_page_body_is_normalized_before_the_lock() {
        fn outcome<S: Schema>(key: &str, bytes: &[u8]) -> &'static str {
            let syntax = |e| syntax_error(e, None);
            match Store::normalize_fetched::<S>(key, &json!({}), bytes, WriteOptions::new(), &syntax) {
                Ok(_) => "ready",
                Err(_) => "refused",
            }
        }
        let detached = |bytes: &[u8], kind: u8| match kind {
            0 => outcome::<Push<Tags>>("POST /tags", bytes),
            1 => outcome::<Unshift<Tags>>("POST /tags", bytes),
            _ => outcome::<Page<Tags>>("GET /tags", bytes),
        };
        for kind in 0..3 {
            assert_eq!(detached(br#"[{"name": "rust"}]"#, kind), "ready", "kind {kind}");
            assert_eq!(
                detached(br#"[{"name": "rust"}, {"no": "pk"}]"#, kind),
                "refused",
                "kind {kind}"
            );
            assert_eq!(detached(b"not json", kind), "refused", "kind {kind}");
        }
        let (args, opts) = (json!({}), WriteOptions::new());
        let syntax = |e| syntax_error(e, None);
        let body = br#"{"name": "new"}"#;
        let pushed = Store::normalize_fetched::<Push<Tags>>("POST /tags", &args, body, opts, &syntax)
            .expect("a push body is normalized before the lock");
        let mut store = Store::new();
        store
            .set_response::<Tags>("GET /tags", &args, json!([{"name": "old"}]))
            .unwrap();
        let written = store.commit_fetched::<Push<Tags>>("POST /tags", &args, pushed, opts, None);
        assert!(written.is_ok(), "{written:?}");
        let list = &store.inspect()["entities"]["[Tag]"]["rows"][0];
        assert_eq!((&list["pk"], &list["record"]), (&json!("{}"), &json!(["old", "new"])));
    }

    /// R-GC-2 with R-PAGE-3: a page written onto a list the running sweep will remove starts
    /// the list afresh, whether it is set or fetched (a fetch commits the page it resolves to
    /// apart from the list it joins).
    #[tokio::test(start_paused = true)]
    async fn r_gc_2_a_page_starts_afresh_a_list_the_sweep_removes() {
        use crate::store::GcPolicy;
        for fetched in [false, true] {
            let mut store = Store::new();
            store.set_gc(GcPolicy::new().max_age(Duration::ZERO).step_work(1));
            // An empty list first, so that the lists' table is swept after the tags'.
            store
                .set_response::<Tags>("GET /tags?x=1", &json!({"x": "1"}), &json!([]))
                .unwrap();
            let abc = json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]);
            store.set_response::<Tags>("GET /tags", &(), &abc).unwrap();
            tokio::time::advance(Duration::from_secs(1)).await;
            while store.gc_step().rows == 0 {}
            let page = json!([{"name": "d"}]);
            if fetched {
                let bytes = serde_json::to_vec(&page).unwrap();
                let syntax = |e| syntax_error(e, None);
                let (args, opts) = (json!({}), WriteOptions::new());
                let normalized = Store::normalize_fetched::<Page<Tags>>("GET /tags", &args, &bytes, opts, &syntax);
                (store.commit_fetched::<Page<Tags>>("GET /tags", &args, normalized.unwrap(), opts, None)).unwrap();
            } else {
                store.set_response::<Page<Tags>>("GET /tags", &(), &page).unwrap();
            }
            store.gc();
            let lists = store.inspect()["entities"]["[Tag]"]["rows"].clone();
            let list = lists.as_array().unwrap().iter().find(|r| r["pk"] == "{}").cloned();
            assert_eq!(
                list.map(|r| r["record"].clone()),
                Some(json!(["d"])),
                "fetched: {fetched}"
            );
        }
    }
}
