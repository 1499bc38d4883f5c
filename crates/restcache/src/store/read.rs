//! Reads: a key's result (or what query mode infers) denormalized against the read state, memoized
//! so an unchanged read returns the same `Arc` (R-GET, R-READ-5).

use std::any::{Any, TypeId};
use std::collections::HashSet;
use std::sync::Arc;

use crate::rt::Instant;
use serde::Serialize;
use serde_json::{Map, Value};

use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
use parking_lot::MutexGuard;

use super::{Cached, ExpiryStatus, KeyMap, Store, StoredResult, args_value, get_hashed, get_hashed_mut};
use crate::error::Error;
use crate::pk::PkHasher;
use crate::schema::denormalize::{DenormalizeCtx, Deps, Unresolved};
use crate::schema::{Registry, Schema};
use crate::tables::Stamp;

/// What a memoized read found.
pub(super) enum Found {
    Data(Arc<dyn Any + Send + Sync>),
    /// An unresolved reference at the top (R-READ-2).
    Invalid,
    /// No result and nothing inferable.
    Nothing,
}

impl Found {
    fn data<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        match self {
            Found::Data(any) => Arc::clone(any).downcast::<T>().ok(),
            Found::Invalid | Found::Nothing => None,
        }
    }
}

pub(super) struct MemoEntry {
    schema: TypeId,
    epoch: u64,
    /// The store version this entry was last found current at; `view` is that version's.
    checked_at: u64,
    result_version: Option<u64>,
    /// Query-mode reads depend on the args too.
    args: Option<Value>,
    pub(super) deps: Deps,
    found: Found,
    view: View,
    /// When a read last found this entry: the memo's [`clock`](Memo::clock) then.
    pub(super) last_read: Stamp,
}

impl MemoEntry {
    /// Whether this entry answers a read of these `args` at the store's `epoch` and `version`
    /// without looking at anything else: it was found current at that very version, when the
    /// store held what it holds now (every change bumps the version).
    fn answers(&self, epoch: u64, version: u64, args: &Value) -> bool {
        self.epoch == epoch
            && self.checked_at == version
            && (self.result_version.is_some()
                || match (&self.args, args) {
                    (Some(Value::Object(a)), Value::Object(b)) => a == b,
                    (Some(Value::Object(a)), _) => a.is_empty(),
                    _ => false,
                })
    }
}

type Answer<T> = (Option<Arc<T>>, View);

/// What a read answers besides its data, from the key's meta (R-GET-4): the same until the store
/// changes, so a memoized read keeps it with its data.
#[derive(Clone)]
pub(super) struct View {
    expires_at: Option<Instant>,
    /// Invalid whether or not the endpoint is `invalid_if_stale`.
    invalid: bool,
    /// Boxed: most reads have none, and a view is copied out of the memo by every read.
    error: Option<Box<Error>>,
}

#[derive(Default)]
pub(super) struct Memo {
    pub(super) entries: KeyMap<Vec<MemoEntry>>,
    /// The time of the last commit or collection step: what a read records as its time, for
    /// the collector's least-recently-read order (R-GC-4), without reading the clock.
    pub(super) clock: Stamp,
    pub(super) registry: Registry,
    pub(super) checked: HashSet<TypeId>,
}

impl Memo {
    /// Checks, once per schema type, that no entity key is used by two Rust types.
    pub(super) fn check_schema<S: Schema>(&mut self) -> Result<(), Error> {
        if self.checked.contains(&TypeId::of::<S>()) {
            return Ok(());
        }
        let mut registry = self.registry.clone();
        S::register(&mut registry);
        registry.check()?;
        self.registry = registry;
        self.checked.insert(TypeId::of::<S>());
        Ok(())
    }

    /// When a read last found one of `key`'s entries, if it has any.
    pub(super) fn last_read(&self, key: &str) -> Option<Stamp> {
        self.entries.get(key)?.iter().map(|e| e.last_read).max()
    }
}

impl Store {
    /// Reads `key` (R-GET-1): its stored result denormalized against the tables, or what query
    /// mode infers from `args` when no result is stored (R-GET-3), with its status and expiry.
    ///
    /// Two reads with no relevant change in between return the same `Arc` (R-READ-5).
    /// Returns `Err` only when the args or the schema cannot be used.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use std::sync::Arc;
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{ "id": 1, "title": "a" }]))?;
    /// let first = store.get_response::<Vec<Todo>>("GET /todos", &())?.data.unwrap();
    /// let again = store.get_response::<Vec<Todo>>("GET /todos", &())?.data.unwrap();
    /// assert_eq!(first[0].title, "a");
    /// assert!(Arc::ptr_eq(&first, &again)); // nothing changed in between
    /// # Ok::<(), restcache::Error>(())
    /// ```
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
        let args = args_value(args)?;
        let hash = PkHasher::pk(key);
        let (data, view) = match self.answered::<S::Output>(TypeId::of::<S>(), key, hash, &args) {
            Ok(answer) => answer,
            Err(memo) => self.read::<S>(memo, key, hash, args)?,
        };
        let status = if view.invalid {
            ExpiryStatus::Invalid
        } else if data.is_none() || invalid_if_stale {
            ExpiryStatus::InvalidIfStale
        } else {
            ExpiryStatus::Valid
        };
        Ok(Cached {
            data,
            status,
            expires_at: view.expires_at,
            error: view.error.map(|e| *e),
        })
    }

    /// The memo's answer to a read of `key` by the schema whose `TypeId` is `schema` (its
    /// output being `T`), if nothing has changed since it was last found current; otherwise the
    /// memo, still locked, for [`read`](Self::read).
    ///
    /// A function of its own, apart from `read`, so that a warm read runs only this small one
    /// and not the large function's prologue and copies.
    fn answered<T: Send + Sync + 'static>(
        &self,
        schema: TypeId,
        key: &str,
        hash: u64,
        args: &Value,
    ) -> Result<Answer<T>, MutexGuard<'_, Memo>> {
        let mut memo = self.memo.lock();
        let clock = memo.clock;
        // Nothing has changed since this read was last answered: the same answer, without
        // looking up the key's result and meta again (nor checking the schema, which an entry
        // of it has passed).
        let entries = get_hashed_mut(&mut memo.entries, hash, key);
        match entries.and_then(|es| es.iter_mut().find(|e| e.schema == schema)) {
            Some(e) if e.answers(self.epoch, self.version, args) => {
                e.last_read = clock;
                Ok((e.found.data(), e.view.clone()))
            }
            _ => Err(memo),
        }
    }

    /// Checks `S` and reads `key` with the memo locked (which [`answered`](Self::answered)
    /// found not to answer it as it is): its data and [`View`].
    ///
    /// `args` is an object, or `Null` for `{}` ([`args_value`]).
    fn read<S: Schema>(
        &self,
        mut memo: MutexGuard<'_, Memo>,
        key: &str,
        hash: u64,
        args: Value,
    ) -> Result<Answer<S::Output>, Error> {
        let schema = TypeId::of::<S>();
        memo.check_schema::<S>()?;
        let result = self.read_result_hashed(key, hash);
        let result_version = result.map(|r| r.version);
        let query_args = match args {
            _ if result.is_some() => None,
            Value::Object(_) => Some(args),
            _ => Some(Value::Object(Map::new())),
        };
        let clock = memo.clock;
        let cached = get_hashed_mut(&mut memo.entries, hash, key)
            .and_then(|es| es.iter_mut().find(|e| e.schema == schema))
            .filter(|e| {
                e.epoch == self.epoch
                    && e.result_version == result_version
                    && e.args == query_args
                    && (e.checked_at == self.version || e.deps.current(self.read_tables()))
            });
        if let Some(e) = cached {
            // Current, but the store changed: the key's meta may have.
            let (data, view) = self.answer::<S::Output>(key, hash, &e.found, &e.deps, result.is_none());
            (e.view, e.checked_at, e.last_read) = (view.clone(), self.version, clock);
            return Ok((data, view));
        }

        let empty = Value::Object(Map::new());
        let stored = result.map(StoredResult::read_as::<S>);
        let mut ctx = DenormalizeCtx::new(self.read_tables(), query_args.as_ref().unwrap_or(&empty));
        let outcome = match &stored {
            Some(Some(stored)) => Some(S::denormalize(stored, &mut ctx)),
            Some(None) => Some(Err(Unresolved)),
            None => S::query(&mut ctx),
        };
        let deps = ctx.into_deps();
        let found = match outcome {
            Some(Ok(out)) => Found::Data(Arc::new(out)),
            Some(Err(_)) => Found::Invalid,
            None => Found::Nothing,
        };
        let (data, view) = self.answer::<S::Output>(key, hash, &found, &deps, result.is_none());
        let entry = MemoEntry {
            schema,
            epoch: self.epoch,
            checked_at: self.version,
            result_version,
            args: query_args,
            deps,
            found,
            view: view.clone(),
            last_read: clock,
        };
        let entries = match memo.entries.raw_entry_mut_v1().from_key_hashed_nocheck(hash, key) {
            RawEntryMut::Occupied(o) => o.into_mut(),
            RawEntryMut::Vacant(v) => v.insert_hashed_nocheck(hash, key.to_owned(), Vec::new()).1,
        };
        match entries.iter_mut().find(|e| e.schema == schema) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
        Ok((data, view))
    }

    /// Forgets every memoized read, so the next read is cold ([`crate::bench_hooks`]).
    #[cfg(feature = "bench-hooks")]
    pub(crate) fn clear_memo(&self) {
        self.memo.lock().entries.clear();
    }

    /// What a read of `key` that found `found`, depending on `deps`, answers: its data, and
    /// its view from the key's meta; a read in query mode, which has no meta, expires with the
    /// earliest of the records it touched (R-GET-4).
    fn answer<T: Send + Sync + 'static>(
        &self,
        key: &str,
        hash: u64,
        found: &Found,
        deps: &Deps,
        query_mode: bool,
    ) -> Answer<T> {
        // The rows the read looked up, and every row of the tables it enumerated (`All` reads
        // each of them, INVALID ones included, as a reference to one counts).
        let touched_expiry = || {
            let tables = self.read_tables();
            let looked_up = deps
                .slots
                .iter()
                .filter_map(|d| tables.get_table(d.table)?.rows.get_index(d.row as usize))
                .map(|(_, slot)| slot);
            let enumerated = deps
                .tables
                .iter()
                .flat_map(|(name, _)| tables.rows(name))
                .map(|(_, _, _, slot)| slot);
            let expiries = looked_up.chain(enumerated).map(|slot| slot.meta.expires_at);
            expiries.min().map(Stamp::instant)
        };
        let meta = get_hashed(&self.meta, hash, key);
        let invalid = matches!(found, Found::Invalid);
        let view = View {
            expires_at: match meta {
                Some(m) => m.expires_at,
                None if query_mode && !matches!(found, Found::Nothing) => touched_expiry(),
                None => None,
            },
            invalid: meta.is_some_and(|m| m.invalidated) || invalid && meta.is_none_or(|m| m.error.is_none()),
            error: meta.and_then(|m| m.error.clone()).map(Box::new),
        };
        (found.data(), view)
    }
}
