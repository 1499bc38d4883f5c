//! Optimistic layers: the read state is the committed state with every pending layer applied in
//! start order (R-STORE-2, R-OPTM-2..4).
//!
//! The layers write into one set of tables of their own, over the committed ones: each row a
//! layer writes is copied there from the committed tables (or made) and changed, and reads look
//! there first ([`Layered`]). Starting a layer writes its rows on top; a commit or a rollback
//! writes every pending layer again over the new committed state (R-OPTM-3: a layer's value
//! depends on what is beneath it). Each costs what the layers write, not what the store holds.

use std::sync::Arc;

use crate::rt::Instant;
use serde_json::Value;

use super::gc::Gc;
use super::write::{apply_layered, normalize_value, settle};
use super::{DEFAULT_DATA_EXPIRY, KeyMap, Store, StoredResult, get_hashed};
use crate::error::Error;
use crate::json::{as_map, kind};
use crate::refs::AnyStored;
use crate::schema::denormalize::DenormalizeCtx;
use crate::schema::normalize::Pending;
use crate::schema::{CollectionPolicy, Schema};
use crate::tables::{EntityMeta, Layered, Tables};

/// Which optimistic update a mutation member applies (R-OPTM-3): what its layer writes before
/// the server answers. Members of a resource with `optimistic: true` have one
/// ([`RestEndpoint::optimistic`](crate::RestEndpoint::optimistic)).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::Optimistic;
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct Todo { #[entity(pk)] id: u64, title: String }
/// let todos = Resource::<Todo>::new(ResourceOptions {
///     path: "/todos/:id".into(),
///     optimistic: true,
///     ..Default::default()
/// })?;
/// assert_eq!(todos.update().optimistic(), Some(Optimistic::Update));
/// assert_eq!(todos.get().optimistic(), None);
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Optimistic {
    /// `update`: `args ⊕ body` over the stored entity.
    Update,
    /// `partial_update`: `args ⊕ body`, only when the entity is stored.
    PartialUpdate,
    /// `delete` and the batch form: the entities read as INVALID at once.
    Delete,
    /// `push`: the new entity joins the end of matching lists.
    Push,
    /// `unshift`: the new entity joins the start of matching lists.
    Unshift,
    /// `remove`: the entity leaves the matching lists.
    Remove,
    /// `move_item`: the entity leaves the lists it no longer matches and joins those it does.
    Move,
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
    /// [`write_layer_with`] of the layer's schema.
    write: fn(Layered<'_>, &LayerSpec) -> Option<Written>,
}

/// A layer's result and writes, settled against the state beneath it.
type Written = Result<(Arc<dyn AnyStored>, Pending), Error>;

impl Layer {
    pub fn new<S: Schema>(spec: LayerSpec) -> Self {
        Layer {
            spec,
            write: write_layer_with::<S>,
        }
    }
}

/// The layer's value against the state beneath it (R-OPTM-3), normalized with `S` and settled
/// there; `None` means no layer.
fn write_layer_with<S: Schema>(beneath: Layered<'_>, spec: &LayerSpec) -> Option<Written> {
    // `args ⊕ body`; a body that is not an object gives the layer no value (it is skipped,
    // with a warning).
    let merged = || {
        let mut m = as_map(&spec.args).clone();
        match &spec.body {
            Some(Value::Object(b)) => m.extend(b.iter().map(|(k, v)| (k.clone(), v.clone()))),
            None => {}
            Some(other) => {
                let reason = format!("the body of an optimistic update is {}, not an object", kind(other));
                return Some(Err(Error::InvalidArgs { reason }));
            }
        }
        Some(Ok(Value::Object(m)))
    };
    let value = match spec.transform {
        Optimistic::Update | Optimistic::Push | Optimistic::Unshift | Optimistic::Remove | Optimistic::Move => merged(),
        // Only when the entity the args name is stored and valid (query mode finds it).
        Optimistic::PartialUpdate => {
            let mut ctx = DenormalizeCtx::untracked(beneath, &spec.args);
            S::query(&mut ctx).is_some_and(|r| r.is_ok()).then(merged).flatten()
        }
        // The empty answer of a delete stands for the args or the body array (R-RESP-6).
        Optimistic::Delete => Some(Ok(Value::Null)),
    }?;
    let value = match value {
        Ok(value) => value,
        Err(e) => return Some(Err(e)),
    };
    let creates = matches!(spec.transform, Optimistic::Push | Optimistic::Unshift);
    let placeholder = creates.then(|| spec.placeholder.clone());
    let (args, body, policy) = (&spec.args, spec.body.as_ref(), spec.policy.as_deref());
    let normalized = normalize_value::<S>(&spec.method, value, args, body, placeholder);
    Some(normalized.map(|mut outcome| {
        settle(&mut outcome.pending, beneath, args, body, policy, spec.fetched_at);
        (Arc::new(outcome.result) as Arc<dyn AnyStored>, outcome.pending)
    }))
}

/// The read state while layers are pending.
#[derive(Default)]
pub(crate) struct Derived {
    /// The rows the layers wrote, each a committed row changed or a new one.
    pub over: Tables,
    pub results: KeyMap<StoredResult>,
}

impl Store {
    /// Adds a layer on top (its fetch just started).
    pub(crate) fn add_layer(&mut self, layer: Layer) {
        let now = Instant::now();
        let mut derived = self.derived.take().unwrap_or_default();
        write_layer(
            &self.tables,
            self.gc.as_deref(),
            &mut self.next_version,
            &layer,
            &mut derived,
            None,
            now,
        );
        self.derived = Some(derived);
        self.layers.push(layer);
        self.version += 1;
    }

    /// Removes a layer; the caller commits in the same step (R-OPTM-4).
    pub(crate) fn drop_layer(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            self.layers.retain(|l| l.spec.id != id);
        }
    }

    /// Removes layer `id` with nothing committed in its place (its fetch failed, or ended
    /// without settling): reads show the state without it (R-OPTM-4).
    pub(crate) fn roll_back_layer(&mut self, id: u64) {
        self.drop_layer(Some(id));
        self.rebuild_read_state();
        self.version += 1;
    }

    /// Whether a read of `key` is invalid only through the pending layers: the committed state
    /// alone resolves it (a pending optimistic delete hides it, say) and the key is not
    /// invalidated. Such a read waits for the layer's mutation, not for a refetch.
    pub(crate) fn hidden_by_layers<S: Schema>(&self, key: &str, args: &Value) -> bool {
        if self.derived.is_none() || self.meta.get(key).is_some_and(|m| m.invalidated) {
            return false;
        }
        let stored = self.results.get(key).map(StoredResult::read_as::<S>);
        let mut ctx = DenormalizeCtx::untracked(Layered::committed(&self.tables), args);
        match &stored {
            Some(Some(stored)) => S::denormalize(stored, &mut ctx).is_ok(),
            Some(None) => false,
            None => S::query(&mut ctx).is_some_and(|r| r.is_ok()),
        }
    }

    /// How many rows the pending layers hold over the committed tables.
    #[cfg(test)]
    fn layered_rows(&self) -> usize {
        let tables = self.derived.as_ref().map(|d| &d.over);
        tables.map_or(0, |t| t.iter().map(|(_, t)| t.rows.len()).sum())
    }

    pub(crate) fn read_tables(&self) -> Layered<'_> {
        Layered {
            base: &self.tables,
            over: self.derived.as_ref().map(|d| &d.over),
        }
    }

    /// The result reads see under `key`: a layer's, else the committed one.
    #[cfg(any(test, feature = "bench-hooks"))]
    pub(crate) fn read_result(&self, key: &str) -> Option<&StoredResult> {
        self.read_result_hashed(key, crate::pk::PkHasher::pk(key))
    }

    /// The result reads see under `key` (a layer's, else the committed one), `hash` being
    /// [`PkHasher::pk`](crate::pk::PkHasher::pk)`(key)`.
    pub(crate) fn read_result_hashed(&self, key: &str, hash: u64) -> Option<&StoredResult> {
        self.derived
            .as_ref()
            .and_then(|d| get_hashed(&d.results, hash, key))
            .or_else(|| get_hashed(&self.results, hash, key))
    }

    /// Recomputes the read state: the committed tables with every layer applied in start order.
    /// A row (or table) the rebuild leaves as it was keeps its version, so reads that depend on
    /// it keep their identity.
    pub(crate) fn rebuild_read_state(&mut self) {
        let previous = self.derived.take();
        if self.layers.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut derived = Derived::default();
        for layer in &self.layers {
            let next = &mut self.next_version;
            write_layer(
                &self.tables,
                self.gc.as_deref(),
                next,
                layer,
                &mut derived,
                previous.as_ref(),
                now,
            );
        }
        if let Some(previous) = previous {
            derived.over.keep_versions_of(&previous.over);
        }
        self.derived = Some(derived);
    }
}

/// Writes `layer` over the committed tables `base` and the layers beneath it, into `derived`,
/// taking versions from `next`. Its result keeps its version in `previous` when it is the same.
fn write_layer(
    base: &Tables,
    gc: Option<&Gc>,
    next: &mut u64,
    layer: &Layer,
    derived: &mut Derived,
    previous: Option<&Derived>,
    now: Instant,
) {
    let beneath = Layered {
        base,
        over: Some(&derived.over),
    };
    let Some(written) = (layer.write)(beneath, &layer.spec) else {
        return;
    };
    let layer = &layer.spec;
    match written {
        Ok((result, pending)) => {
            let meta = Arc::new(EntityMeta::new(layer.fetched_at, now, now + DEFAULT_DATA_EXPIRY));
            apply_layered(&mut derived.over, base, next, pending, &meta, gc);
            let version = previous
                .and_then(|p| p.results.get(&layer.key))
                .filter(|r| r.value.same(result.as_ref()))
                .map_or_else(|| Store::bump(next), |r| r.version);
            derived.results.insert(
                layer.key.clone(),
                StoredResult {
                    value: result,
                    version,
                    walk: None,
                    bytes: 0,
                },
            );
        }
        Err(e) => tracing::warn!(key = %layer.key, error = %e, "optimistic layer skipped"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::time::Duration;

    use super::*;
    use crate::store::WriteOptions;
    use crate::store::write::syntax_error;

    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct Tag {
        #[entity(pk)]
        name: String,
        n: u64,
    }

    fn update(id: u64, name: &str, n: u64) -> Layer {
        Layer::new::<Tag>(LayerSpec {
            id,
            fetched_at: Instant::now(),
            key: format!("PUT /tags/{name}"),
            method: "PUT".into(),
            args: json!({ "name": name }),
            body: Some(json!({ "n": n })),
            transform: Optimistic::Update,
            placeholder: format!("optimistic-{id}"),
            policy: None,
        })
    }

    fn read(store: &Store, name: &str) -> Option<Tag> {
        let args = json!({ "name": name });
        let data = store.get_response::<Tag>("GET /tags/x", &args).unwrap().data;
        data.map(|t| (*t).clone())
    }

    /// R-OPTM-2..4 (#25): a layer holds the rows it writes and reads fall through to the
    /// committed tables, so starting, committing and rolling back a layer cost what it writes,
    /// whatever the store holds.
    #[test]
    fn r_optm_2_a_layer_holds_only_the_rows_it_writes() {
        let mut store = Store::new();
        let tags: Vec<Value> = (0..1_000).map(|n| json!({ "name": n.to_string(), "n": n })).collect();
        store
            .set_response::<Vec<Tag>>("GET /tags", &(), Value::Array(tags))
            .unwrap();

        store.add_layer(update(1, "7", 70));
        store.add_layer(update(2, "8", 80));
        assert_eq!(store.layered_rows(), 2, "two layers, one row each");
        assert_eq!(
            read(&store, "7"),
            Some(Tag {
                name: "7".into(),
                n: 70
            })
        );
        assert_eq!(
            read(&store, "8"),
            Some(Tag {
                name: "8".into(),
                n: 80
            })
        );
        assert_eq!(read(&store, "9"), Some(Tag { name: "9".into(), n: 9 }));

        // The first one's response commits; the second layer stays, alone.
        let (args, opts) = (json!({ "name": "7" }), WriteOptions::new());
        let syntax = |e| syntax_error(e, None);
        let body = br#"{"name": "7", "n": 71}"#;
        let normalized = Store::normalize_fetched::<Tag>("PUT /tags/7", &args, body, opts, &syntax)
            .expect("an entity body is normalized before the lock");
        store
            .commit_fetched::<Tag>("PUT /tags/7", &args, normalized, opts, Some(1))
            .unwrap();
        assert_eq!(store.layered_rows(), 1);
        assert_eq!(
            read(&store, "7"),
            Some(Tag {
                name: "7".into(),
                n: 71
            })
        );
        assert_eq!(
            read(&store, "8"),
            Some(Tag {
                name: "8".into(),
                n: 80
            })
        );

        // The second one fails: rolled back, nothing is layered any more.
        let error = Error::InvalidArgs { reason: "x".into() };
        store.fail("PUT /tags/8", Instant::now(), error, Duration::from_secs(1), Some(2));
        assert_eq!(store.layered_rows(), 0);
        assert_eq!(read(&store, "8"), Some(Tag { name: "8".into(), n: 8 }));
    }

    /// R-OPTM-2, R-READ-5, R-ALL-2: under pending layers a read sees a layered row in place of
    /// the committed one, an `All` read lists the rows in committed order with the layered ones
    /// in their place, and a read that depends on no layered row keeps its `Arc`; once the layer
    /// is rolled back, the committed rows show again.
    #[test]
    fn r_optm_2_reads_fall_through_the_layered_rows_to_the_committed_ones() {
        use crate::schema::All;
        let mut store = Store::new();
        let tags = json!([{ "name": "a", "n": 1 }, { "name": "b", "n": 2 }, { "name": "c", "n": 3 }]);
        store.set_response::<Vec<Tag>>("GET /tags", &(), tags).unwrap();
        let all = |store: &Store| store.get_response::<All<Tag>>("ALL tags", &()).unwrap().data.unwrap();
        let untouched = store
            .get_response::<Tag>("GET /tags/c", &json!({ "name": "c" }))
            .unwrap();

        store.add_layer(update(1, "b", 20));
        let ns: Vec<u64> = all(&store).iter().map(|t| t.n).collect();
        assert_eq!(ns, [1, 20, 3]);
        let again = store
            .get_response::<Tag>("GET /tags/c", &json!({ "name": "c" }))
            .unwrap();
        assert!(Arc::ptr_eq(
            untouched.data.as_ref().unwrap(),
            again.data.as_ref().unwrap()
        ));

        let error = Error::InvalidArgs { reason: "x".into() };
        store.fail("PUT /tags/b", Instant::now(), error, Duration::from_secs(1), Some(1));
        let ns: Vec<u64> = all(&store).iter().map(|t| t.n).collect();
        assert_eq!(ns, [1, 2, 3]);
    }

    /// R-GC-2: no step runs while optimistic layers are pending; a step says so, and a whole
    /// cycle returns at once, not done.
    #[test]
    fn r_gc_2_a_whole_cycle_returns_while_a_layer_is_pending() {
        let mut store = Store::new();
        store.set_gc(crate::store::GcPolicy::new());
        let tags = json!([{ "name": "a", "n": 1 }]);
        store.set_response::<Vec<Tag>>("GET /tags", &(), tags).unwrap();
        store.add_layer(update(1, "a", 2));
        assert!(store.gc_step().blocked);
        let report = store.gc();
        assert!(report.blocked && !report.done);
    }

    /// R-OPTM-2 with R-GC-2: a layer written while the collector sweeps takes a row the sweep
    /// will remove as its commit does: a push leaves such a list alone, so the optimistic view
    /// shows what the commit will.
    #[tokio::test(start_paused = true)]
    async fn r_optm_2_a_push_layer_over_a_list_the_sweep_removes_matches_its_commit() {
        use crate::schema::{Collection, Push};
        type Tags = Collection<Vec<Tag>>;
        let mut store = Store::new();
        store.set_gc(crate::store::GcPolicy::new().max_age(Duration::ZERO).step_work(1));
        // An empty list first, so that the lists' table is swept after the tags'.
        store
            .set_response::<Tags>("GET /tags?x=1", &json!({"x": "1"}), &json!([]))
            .unwrap();
        let abc = json!([{"name": "a", "n": 1}, {"name": "b", "n": 2}, {"name": "c", "n": 3}]);
        store.set_response::<Tags>("GET /tags", &(), &abc).unwrap();
        tokio::time::advance(Duration::from_secs(1)).await;
        while store.gc_step().rows == 0 {}
        let names = |store: &Store| -> Option<Vec<String>> {
            let data = store.get_response::<Tags>("GET /tags", &()).unwrap().data;
            data.map(|l| l.iter().map(|t| t.name.clone()).collect())
        };
        let before = names(&store);
        store.add_layer(Layer::new::<Push<Tags>>(LayerSpec {
            id: 1,
            fetched_at: Instant::now(),
            key: "POST /tags".into(),
            method: "POST".into(),
            args: json!({}),
            body: Some(json!({"name": "d", "n": 4})),
            transform: Optimistic::Push,
            placeholder: "optimistic-1".into(),
            policy: None,
        }));
        let layered = names(&store);
        assert_eq!(layered, before, "the push joins no list the sweep removes");
        let (args, opts) = (json!({}), WriteOptions::new());
        let syntax = |e| syntax_error(e, None);
        let body = br#"{"name": "d", "n": 4}"#;
        let normalized = Store::normalize_fetched::<Push<Tags>>("POST /tags", &args, body, opts, &syntax).unwrap();
        (store.commit_fetched::<Push<Tags>>("POST /tags", &args, normalized, opts, Some(1))).unwrap();
        assert_eq!(layered, names(&store), "the layer showed what its commit did");
    }
}
