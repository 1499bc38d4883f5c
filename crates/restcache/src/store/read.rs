//! Reads: a key's result (or what query mode infers) denormalized against the read state, memoized
//! so an unchanged read returns the same `Arc` (R-GET, R-READ-5).

use std::any::{Any, TypeId};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};

use super::{Cached, ExpiryStatus, KeyMap, Store, args_map, get_hashed, key_hash};
use crate::denormalize::{DenormalizeCtx, Deps};
use crate::error::Error;
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

pub(super) struct MemoEntry {
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
pub(super) struct Memo {
    pub(super) entries: KeyMap<Vec<MemoEntry>>,
    pub(super) registry: Registry,
    pub(super) checked: HashSet<TypeId, BuildHasherDefault<TypeIdHasher>>,
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
}

/// Hashes a [`TypeId`], which is already a hash chosen by the compiler (not by a server):
/// its bits are used as they are, so the schema check of every read costs no SipHash.
#[derive(Default)]
pub(super) struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached by `TypeId` today (it writes whole integers); kept correct for any input.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(32) ^ n;
    }
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
        let hash = key_hash(key);
        let read = self.read::<S>(key, hash, args)?;
        let meta = get_hashed(&self.meta, hash, key);
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

    /// Checks `S` and reads `key` under one lock of the memo.
    fn read<S: Schema>(&self, key: &str, hash: u64, args: Map<String, Value>) -> Result<Read<S::Output>, Error> {
        let mut memo = self.memo.lock();
        memo.check_schema::<S>()?;
        let result = self.read_result_hashed(key, hash);
        let result_version = result.map(|r| r.version);
        let query_args = if result.is_none() {
            Some(Value::Object(args))
        } else {
            None
        };
        let schema = TypeId::of::<S>();
        let entries = match memo.entries.raw_entry_mut_v1().from_key_hashed_nocheck(hash, key) {
            RawEntryMut::Occupied(o) => Some(o.into_mut()),
            RawEntryMut::Vacant(_) => None,
        };
        let cached = entries
            .and_then(|es| es.iter_mut().find(|e| e.schema == schema))
            .filter(|e| {
                e.epoch == self.epoch
                    && e.result_version == result_version
                    && e.args == query_args
                    && (e.checked_at == self.version || e.deps.current(self.read_tables()))
            });
        if let Some(e) = cached {
            e.checked_at = self.version;
            return Ok(self.found::<S>(&e.found, &e.deps, result.is_none()));
        }

        let empty = Value::Object(Map::new());
        let mut ctx = DenormalizeCtx::new(self.read_tables(), query_args.as_ref().unwrap_or(&empty));
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
        let entries = match memo.entries.raw_entry_mut_v1().from_key_hashed_nocheck(hash, key) {
            RawEntryMut::Occupied(o) => o.into_mut(),
            RawEntryMut::Vacant(v) => v.insert_hashed_nocheck(hash, key.to_owned(), Vec::new()).1,
        };
        match entries.iter_mut().find(|e| e.schema == schema) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
        Ok(read)
    }

    /// Benchmarks only: reads `key` without the memo (every call builds the output anew).
    #[doc(hidden)]
    pub fn __read_uncached<S: Schema>(&self, key: &str, args: &impl Serialize) -> Option<S::Output> {
        let args = Value::Object(args_map(args).ok()?);
        let mut ctx = DenormalizeCtx::new(self.read_tables(), &args);
        match self.read_result(key) {
            Some(r) => S::denormalize(&r.value, &mut ctx).ok(),
            None => S::query(&mut ctx)?.ok(),
        }
    }

    /// Benchmarks only: forgets every memoized read, so the next read is cold.
    #[doc(hidden)]
    pub fn __clear_memo(&self) {
        self.memo.lock().entries.clear();
    }

    fn found<S: Schema>(&self, found: &Found, deps: &Deps, query_mode: bool) -> Read<S::Output> {
        let touched_expiry = if query_mode {
            deps.slots
                .iter()
                .filter_map(|d| self.read_tables().get_table(d.table)?.rows.get_index(d.row as usize))
                .map(|(_, slot)| slot.meta.expires_at)
                .min()
                .map(Stamp::instant)
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
}
