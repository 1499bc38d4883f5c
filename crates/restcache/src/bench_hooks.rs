//! For this repository's benchmarks only (`benches/normalizr.rs`), behind the `bench-hooks`
//! feature: not part of the API, and free to change with the store. Each function reaches a path
//! of the store that the public API does not offer on its own.

use serde::Serialize;
use serde_json::Value;

use crate::denormalize::DenormalizeCtx;
use crate::schema::Schema;
use crate::store::{Store, args_map};

/// Reads `key` without the memo: every call builds the output anew. `None` when the args do not
/// serialize or the read does not resolve.
pub fn read_uncached<S: Schema>(store: &Store, key: &str, args: &impl Serialize) -> Option<S::Output> {
    let args = Value::Object(args_map(args).ok()?);
    let mut ctx = DenormalizeCtx::untracked(store.read_tables(), &args);
    match store.read_result(key) {
        Some(r) => S::denormalize(&r.value, &mut ctx).ok(),
        None => S::query(&mut ctx)?.ok(),
    }
}

/// Forgets every memoized read of `store`, so its next read is cold.
pub fn clear_memo(store: &Store) {
    store.clear_memo();
}
