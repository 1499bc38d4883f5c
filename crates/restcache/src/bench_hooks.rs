//! For this repository's benchmarks only (`benches/normalizr.rs`), behind the `bench-hooks`
//! feature: not part of the API, and free to change with the store. Each function reaches a path
//! of the store that the public API does not offer on its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::rest::Optimistic;
use crate::rt::Instant;
use crate::schema::Schema;
use crate::schema::denormalize::DenormalizeCtx;
use crate::store::{DEFAULT_ERROR_EXPIRY, Layer, LayerSpec, Store, WriteOptions, args_map, syntax_error};

/// Reads `key` without the memo: every call builds the output anew. `None` when the args do not
/// serialize or the read does not resolve.
pub fn read_uncached<S: Schema>(store: &Store, key: &str, args: &impl Serialize) -> Option<S::Output> {
    let args = Value::Object(args_map(args).ok()?);
    let stored = store.read_result(key).map(|r| r.read_as::<S>());
    let mut ctx = DenormalizeCtx::untracked(store.read_tables(), &args);
    match &stored {
        Some(stored) => S::denormalize(stored.as_ref()?, &mut ctx).ok(),
        None => S::query(&mut ctx)?.ok(),
    }
}

/// Forgets every memoized read of `store`, so its next read is cold.
pub fn clear_memo(store: &Store) {
    store.clear_memo();
}

/// The ids of the layers these hooks add, apart from each other.
static NEXT_LAYER: AtomicU64 = AtomicU64::new(1);

/// An optimistic update and its commit, as `Controller::fetch` does them for a mutation whose
/// endpoint is an `update` (R-FETCH-1 steps 3 to 7, R-OPTM-2..4): adds the layer `args ⊕ body`
/// for `key` (`"METHOD url"`), then normalizes `response`, the mutation's real answer, and
/// commits it, dropping the layer in the same step. Returns the cache's view of what it wrote,
/// as a fetch does; if the response does not commit, the layer is rolled back and the error
/// recorded under `key`, as a failed fetch's.
pub fn optimistic_update_and_commit<S: Schema>(
    store: &mut Store,
    key: &str,
    args: &impl Serialize,
    body: &Value,
    response: &[u8],
) -> Result<Option<Arc<S::Output>>, Error> {
    let args = Value::Object(args_map(args)?);
    let id = NEXT_LAYER.fetch_add(1, Ordering::Relaxed);
    let method = key.split_once(' ').map_or("", |(m, _)| m);
    store.add_layer(Layer::new::<S>(LayerSpec {
        id,
        fetched_at: Instant::now(),
        key: key.to_owned(),
        method: method.to_owned(),
        args: args.clone(),
        body: Some(body.clone()),
        transform: Optimistic::Update,
        placeholder: format!("optimistic-{id}"),
        policy: None,
    }));

    // A mutation is ordered by when its answer arrived (R-NORM-7): now.
    let mut opts = WriteOptions::new();
    opts.body = Some(body);
    let syntax = |e| syntax_error(e, None);
    let written = match Store::normalize_fetched::<S>(key, &args, response, opts, &syntax) {
        Ok(n) => store.commit_fetched::<S>(key, &args, n, opts, Some(id)),
        Err(e) => store.check_schema::<S>().and(Err(e)),
    };
    if let Err(e) = &written {
        store.fail(key, opts.fetched_at, e.clone(), DEFAULT_ERROR_EXPIRY, Some(id));
    }
    written
}
