//! Optimistic layers: the read state is the committed state with every pending layer applied in
//! start order (R-STORE-2, R-OPTM-2..4).

use std::sync::Arc;

use crate::rt::Instant;
use serde_json::Value;

use super::write::{apply_pending, prepare};
use super::{DEFAULT_DATA_EXPIRY, KeyMap, Store, StoredResult, get_hashed, key_hash};
use crate::denormalize::DenormalizeCtx;
use crate::error::Error;
use crate::normalize::{NormalizeCtx, Pending, as_map};
use crate::rest::Optimistic;
use crate::schema::{CollectionPolicy, Schema};
use crate::tables::{EntityMeta, Tables};

type Normalize = fn(&Tables, &LayerInput<'_>) -> Result<(Value, Pending), Error>;
type Exists = fn(&Tables, &Value) -> bool;

/// What a layer normalizes.
pub(crate) struct LayerInput<'a> {
    method: &'a str,
    value: &'a Value,
    args: &'a Value,
    body: Option<&'a Value>,
    placeholder: Option<&'a str>,
    policy: Option<&'a dyn CollectionPolicy>,
}

/// What a layer is: everything but the schema.
pub(crate) struct LayerSpec {
    pub id: u64,
    /// When its fetch started (R-NORM-7 applies to the layer as to a response).
    pub fetched_at: Instant,
    pub key: String,
    pub method: String,
    pub args: Value,
    pub body: Option<Value>,
    pub transform: Optimistic,
    /// The table pk of a created entity that has none yet (`optimistic-<n>`).
    pub placeholder: String,
    pub policy: Option<Arc<dyn CollectionPolicy>>,
}

/// One pending optimistic update: a mutation's expected outcome, until its real one commits.
pub(crate) struct Layer {
    spec: LayerSpec,
    normalize: Normalize,
    exists: Exists,
}

impl Layer {
    pub fn new<S: Schema>(spec: LayerSpec) -> Self {
        Layer {
            spec,
            normalize: normalize_layer::<S>,
            exists: exists_layer::<S>,
        }
    }

    /// The layer's value against the state beneath it (R-OPTM-3); `None` means no layer.
    fn value(&self, beneath: &Tables) -> Option<Value> {
        let spec = &self.spec;
        let merged = || {
            let mut m = as_map(&spec.args).clone();
            match &spec.body {
                Some(Value::Object(b)) => m.extend(b.iter().map(|(k, v)| (k.clone(), v.clone()))),
                None => {}
                Some(_) => return None,
            }
            Some(Value::Object(m))
        };
        match spec.transform {
            Optimistic::Update | Optimistic::Push | Optimistic::Unshift => merged(),
            Optimistic::PartialUpdate => (self.exists)(beneath, &spec.args).then(merged).flatten(),
            // The empty answer of a delete stands for the args or the body array (R-RESP-6).
            Optimistic::Delete => Some(Value::Null),
        }
    }
}

fn normalize_layer<S: Schema>(tables: &Tables, input: &LayerInput<'_>) -> Result<(Value, Pending), Error> {
    let value = input.value.clone();
    let mut value = prepare(S::KIND, input.method, value, as_map(input.args), input.body)?;
    let mut ctx = NormalizeCtx::new(Some(tables), input.args, input.body);
    ctx.policy = input.policy;
    ctx.pk_fallback = input.placeholder.map(str::to_owned);
    let result = S::normalize(&mut value, &mut ctx)?;
    Ok((result, ctx.pending))
}

/// Whether the entity the args name is stored and valid (query mode finds it).
fn exists_layer<S: Schema>(tables: &Tables, args: &Value) -> bool {
    S::query(&mut DenormalizeCtx::untracked(tables, args)).is_some_and(|r| r.is_ok())
}

/// The read state while layers are pending.
pub(crate) struct Derived {
    pub tables: Tables,
    pub results: KeyMap<StoredResult>,
}

impl Store {
    /// Adds a layer on top (its fetch just started).
    pub(crate) fn add_layer(&mut self, layer: Layer) {
        self.layers.push(layer);
        self.rebuild_read_state();
        self.version += 1;
    }

    /// Removes a layer; the caller commits in the same step (R-OPTM-4).
    pub(crate) fn drop_layer(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            self.layers.retain(|l| l.spec.id != id);
        }
    }

    /// Whether a read of `key` is invalid only through the pending layers: the committed state
    /// alone resolves it (a pending optimistic delete hides it, say) and the key is not
    /// invalidated. Such a read waits for the layer's mutation, not for a refetch.
    pub(crate) fn hidden_by_layers<S: Schema>(&self, key: &str, args: &Value) -> bool {
        if self.derived.is_none() || self.meta.get(key).is_some_and(|m| m.invalidated) {
            return false;
        }
        let mut ctx = DenormalizeCtx::untracked(&self.tables, args);
        match self.results.get(key) {
            Some(r) => S::denormalize(&r.value, &mut ctx).is_ok(),
            None => S::query(&mut ctx).is_some_and(|r| r.is_ok()),
        }
    }

    /// The tables reads see.
    pub(crate) fn read_tables(&self) -> &Tables {
        self.derived.as_ref().map_or(&self.tables, |d| &d.tables)
    }

    /// The result reads see under `key`: a layer's, else the committed one.
    pub(crate) fn read_result(&self, key: &str) -> Option<&StoredResult> {
        self.read_result_hashed(key, key_hash(key))
    }

    /// [`read_result`](Self::read_result), `hash` being [`key_hash`]`(key)`.
    pub(crate) fn read_result_hashed(&self, key: &str, hash: u64) -> Option<&StoredResult> {
        self.derived
            .as_ref()
            .and_then(|d| get_hashed(&d.results, hash, key))
            .or_else(|| get_hashed(&self.results, hash, key))
    }

    /// Recomputes the read state: the committed tables with every layer applied in start order.
    /// A record (or table) the rebuild leaves as it was keeps its version, so reads that depend
    /// on it keep their identity.
    pub(crate) fn rebuild_read_state(&mut self) {
        let previous = self.derived.take();
        if self.layers.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut tables = self.tables.clone();
        let mut results = KeyMap::default();
        for layer in &self.layers {
            let Some(value) = layer.value(&tables) else {
                continue;
            };
            let (normalize, layer) = (layer.normalize, &layer.spec);
            let creates = matches!(layer.transform, Optimistic::Push | Optimistic::Unshift);
            let input = LayerInput {
                method: &layer.method,
                value: &value,
                args: &layer.args,
                body: layer.body.as_ref(),
                placeholder: creates.then_some(layer.placeholder.as_str()),
                policy: layer.policy.as_deref(),
            };
            match normalize(&tables, &input) {
                Ok((result, pending)) => {
                    let meta = EntityMeta::new(layer.fetched_at, now, now + DEFAULT_DATA_EXPIRY);
                    apply_pending(&mut tables, &mut self.next_version, pending, meta);
                    let version = previous
                        .as_ref()
                        .and_then(|p| p.results.get(&layer.key))
                        .filter(|r| r.value == result)
                        .map_or_else(|| Self::bump(&mut self.next_version), |r| r.version);
                    results.insert(layer.key.clone(), StoredResult { value: result, version });
                }
                Err(e) => tracing::warn!(key = %layer.key, error = %e, "optimistic layer skipped"),
            }
        }
        if let Some(previous) = previous {
            tables.keep_versions_of(&previous.tables, &self.tables);
        }
        self.derived = Some(Derived { tables, results });
    }
}
