//! `suspense`: read through the cache, fetching when the data is missing or unusable (R-SUS-1,
//! R-POL-2) — the Rust form of the seed's `useSuspense`.

use std::sync::Arc;

use crate::rt::Instant;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Controller;
use super::fetch::{Prepared, Reader, settled};
use crate::error::Error;
use crate::rest::{EndpointConfig, RestEndpoint};
use crate::schema::Schema;
use crate::store::{ExpiryStatus, args_map};

impl Controller {
    /// The data of `ep` for `args`, fetching only when needed (R-SUS-1):
    ///
    /// | situation | outcome |
    /// |---|---|
    /// | nothing cached or inferable | fetch, wait, return |
    /// | cached (or found by query mode) and fresh | return it, no request |
    /// | stale | return it and refetch in the background (wait with `invalid_if_stale`) |
    /// | invalidated, or a required entity deleted | fetch, wait, return (or the fetch's error) |
    /// | hidden only by a pending optimistic delete | `Error::Invalidated`, no request |
    /// | an error within `error_expiry_length` | the error, or the data if the error is soft |
    ///
    /// Only GET members are accepted (`Error::InvalidConfig` otherwise). One call fetches at
    /// most once, and again (up to three times) only when an invalidation overtook that fetch's
    /// answer (R-EXP-2); if the data is still invalid then, it is `Error::Invalidated`.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), restcache::Error> {
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// // Cached and fresh: returned at once, with no request.
    /// let todo = ctrl.suspense(&todos.get(), params! { id: 1 }).await?;
    /// assert_eq!(todo.title, "a");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn suspense<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
    ) -> Result<Arc<S::Output>, Error> {
        let args = args_map(&args)?;
        self.suspend::<S>(&ep.cfg, &args, true).await.0
    }

    /// The algorithm of R-SUS-1. With `may_fetch` false it never starts a fetch (the data
    /// must be usable as it is). Also returns whether it waited for a fetch or started one in
    /// the background.
    pub(crate) async fn suspend<S: Schema>(
        &self,
        cfg: &Arc<EndpointConfig>,
        args: &Map<String, Value>,
        may_fetch: bool,
    ) -> (Result<Arc<S::Output>, Error>, bool) {
        if let Err(e) = cfg.require_get("can be read") {
            return (Err(e), false);
        }
        let key = match cfg.key(args) {
            Ok(k) => k,
            Err(e) => return (Err(e), false),
        };
        let mut fetched = !may_fetch;
        let mut waited = false;
        // Fetches left for a read whose answer an invalidation overtook.
        let mut overtaken = OVERTAKEN_REFETCHES;
        loop {
            let read = self
                .inner
                .store
                .lock()
                .get_response_with::<S>(&key, args, cfg.invalid_if_stale);
            let r = match read {
                Ok(r) => r,
                Err(e) => return (Err(e), waited),
            };
            // Right after our own fetch the data counts as fresh.
            let stale = !fetched && r.is_stale(Instant::now());
            if r.status == ExpiryStatus::Invalid || stale || (r.data.is_none() && r.error.is_none()) {
                let prepared = Prepared::new(Arc::clone(cfg), args.clone(), None);
                // Data a hard error hides is nothing usable: fetched and waited for.
                if r.status != ExpiryStatus::Valid || r.usable().is_none() {
                    // Hidden by a pending optimistic delete: refetching would only race the
                    // delete (and could bring the entity back); its outcome decides.
                    let hidden = r.status == ExpiryStatus::Invalid
                        && self
                            .inner
                            .store
                            .lock()
                            .hidden_by_layers::<S>(&key, &Value::Object(args.clone()));
                    // Our own fetch was answered, and the key is still invalidated: an
                    // invalidation that came after the request was sent kept the answer out
                    // (R-EXP-2). Fetch again, a few times at most.
                    let again = fetched
                        && may_fetch
                        && !hidden
                        && overtaken > 0
                        && self.inner.store.lock().meta(&key).is_some_and(|m| m.invalidated);
                    if again {
                        overtaken -= 1;
                        fetched = false;
                    }
                    if fetched || hidden {
                        return (Err(Error::Invalidated { key }), waited);
                    }
                    let fetch = match prepared {
                        Ok(req) => settled::<S>(self.start_read::<S>(req, Reader::Waits))
                            .await
                            .map(|(data, _)| data),
                        Err(e) => Err(e),
                    };
                    waited = true;
                    if let Err(e) = fetch {
                        return (Err(e), waited);
                    }
                    fetched = true;
                    continue;
                }
                // Background revalidation: only its outcome is recorded.
                if let Ok(req) = prepared {
                    tracing::trace!(%key, "stale: served, and refetched in the background");
                    drop(self.start_read::<S>(req, Reader::Detached));
                    waited = true;
                }
            }
            // Not invalid here: an invalid read fetched above, or returned. A hard error past its
            // expiry hides the data no more (R-POL-2): the data our fetch left, when an
            // expiry overtook its answer (R-EXP-4), or a view that may not fetch.
            let standing = !r.is_stale(Instant::now());
            let served = (r.usable().cloned()).or_else(|| r.data.clone().filter(|_| !standing));
            return (served.ok_or(r.error.unwrap_or(Error::Invalidated { key })), waited);
        }
    }
}

/// How many times a read fetches again when invalidations keep overtaking its answers.
const OVERTAKEN_REFETCHES: u32 = 3;
