//! `ctrl.fetch(&endpoint, args).body(&b).await` (R-FETCH-1..5).

use std::any::{Any, TypeId};
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::rt::Instant;
use reqwest::Method;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::watch;

use super::Controller;
use crate::bounded_value::{self, Refused};
use crate::error::Error;
use crate::rest::http::Outgoing;
use crate::rest::{BoxFuture, EndpointConfig, RestEndpoint};
use crate::rt::Spawner;
use crate::schema::Schema;
use crate::store::{Detached, ExpiryStatus, Layer, LayerSpec, Store, WriteOptions};

/// What a fetch settles with: the value it described, type-erased, or its error.
pub(crate) type Outcome = Result<Arc<dyn Any + Send + Sync>, Error>;

/// GETs are shared by request URL and schema type (R-FETCH-2).
pub(crate) type FlightKey = (String, TypeId);

/// A GET in flight that later identical GETs join.
pub(crate) struct Flight {
    id: u64,
    epoch: u64,
    /// The request key it will write.
    key: String,
    outcome: watch::Receiver<Option<Outcome>>,
}

impl Flight {
    /// The request key it will write.
    pub(crate) fn key(&self) -> &str {
        &self.key
    }

    /// The store epoch it started in; a reset since makes it one no read joins.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }
}

/// A request whose URL and key are built: nothing can fail before it is sent.
#[derive(Clone)]
pub(crate) struct Prepared {
    pub cfg: Arc<EndpointConfig>,
    pub args: Map<String, Value>,
    pub url: String,
    pub key: String,
    pub body: Option<Value>,
}

impl Prepared {
    /// R-FETCH-1 step 1: the URL and key; a body on GET or HEAD is refused.
    pub fn new(cfg: Arc<EndpointConfig>, args: Map<String, Value>, body: Option<Value>) -> Result<Self, Error> {
        let url = cfg.url(&args)?;
        let key = cfg.key(&args)?;
        if body.is_some() && (cfg.method == Method::GET || cfg.method == Method::HEAD) {
            return Err(Error::InvalidArgs {
                reason: format!("a {} request cannot carry a body", cfg.method),
            });
        }
        Ok(Prepared {
            cfg,
            args,
            url,
            key,
            body,
        })
    }
}

/// A request about to be sent; `.await` it (it is `IntoFuture`).
///
/// The body is any `Serialize` value; `B`, the endpoint's declared body type, documents what the
/// server expects.
#[must_use = "a fetch does nothing until it is awaited"]
pub struct FetchRequest<S, B> {
    ctrl: Controller,
    cfg: Arc<EndpointConfig>,
    args: Result<Map<String, Value>, Error>,
    body: Option<Result<Value, Error>>,
    types: PhantomData<fn() -> (S, B)>,
}

impl<S: Schema, B> FetchRequest<S, B> {
    pub(crate) fn new<G>(
        ctrl: Controller,
        ep: &RestEndpoint<S, B, G>,
        args: Result<Map<String, Value>, Error>,
    ) -> Self {
        FetchRequest {
            ctrl,
            cfg: Arc::clone(&ep.cfg),
            args,
            body: None,
            types: PhantomData,
        }
    }

    /// Sends `body` as JSON (R-REQ-1). A body on a GET or HEAD is `Error::InvalidArgs`, and so
    /// is a body nested deeper than 128 levels (refused as it is serialized, R-ERR-2).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    ///     path: "/todos/:id".into(),
    ///     ..Default::default()
    /// })
    /// .unwrap();
    /// let ctrl = Controller::builder().base_url("http://127.0.0.1:9").build().unwrap();
    /// let mut body = serde_json::json!("deep");
    /// for _ in 0..200 {
    ///     body = serde_json::Value::Array(vec![body]);
    /// }
    /// let sent = ctrl.fetch(&todos.partial_update(), params! { id: 1 }).body(&body).await;
    /// assert!(matches!(sent, Err(Error::InvalidArgs { .. })));
    /// # }
    /// ```
    pub fn body(mut self, body: &impl Serialize) -> Self {
        self.body = Some(bounded_value::to_value(body).map_err(Refused::of_body));
        self
    }
}

impl<S: Schema, B> IntoFuture for FetchRequest<S, B> {
    type Output = Result<Arc<S::Output>, Error>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let FetchRequest {
            ctrl, cfg, args, body, ..
        } = self;
        Box::pin(async move {
            let req = Prepared::new(cfg, args?, body.transpose()?)?;
            settled::<S>(ctrl.start::<S>(req)).await
        })
    }
}

/// Waits for a fetch to settle and takes its value back as `S::Output`.
pub(crate) async fn settled<S: Schema>(mut outcome: watch::Receiver<Option<Outcome>>) -> Result<Arc<S::Output>, Error> {
    let value = match outcome.wait_for(Option::is_some).await {
        Ok(v) => v.clone(),
        // The task was cancelled before it settled (R-FETCH-4).
        Err(_) => None,
    };
    let value = value.ok_or(Error::Aborted)??;
    value.downcast::<S::Output>().map_err(|_| Error::InvalidConfig {
        reason: "a shared fetch settled with another type".into(),
    })
}

impl Controller {
    /// Starts `req` on a task the Controller owns, or joins the same GET in flight (R-FETCH-2),
    /// and returns where its outcome will appear.
    pub(crate) fn start<S: Schema>(&self, req: Prepared) -> watch::Receiver<Option<Outcome>> {
        self.start_unless::<S>(req, |_, _| None)
    }

    /// [`start`](Self::start) for a read that found the cache unusable: if a request committed
    /// fresh data since, that answers instead. The cache is read under the lock that joins or
    /// registers requests in flight, and a request leaves it only after its commit, so a read
    /// that misses the request in flight finds its data (R-FETCH-2).
    pub(crate) fn start_read<S: Schema>(&self, req: Prepared) -> watch::Receiver<Option<Outcome>> {
        self.start_unless::<S>(req, |store, req| {
            let r = store
                .get_response_with::<S>(&req.key, &req.args, req.cfg.invalid_if_stale)
                .ok()?;
            let fresh = r.status != ExpiryStatus::Invalid && r.error.is_none() && !r.is_stale(Instant::now());
            let data = r.data.filter(|_| fresh)?;
            Some(Ok(data as Arc<dyn Any + Send + Sync>))
        })
    }

    /// [`start`](Self::start), unless `cached` answers from the store first.
    fn start_unless<S: Schema>(
        &self,
        req: Prepared,
        cached: impl FnOnce(&Store, &Prepared) -> Option<Outcome>,
    ) -> watch::Receiver<Option<Outcome>> {
        let spawner = match Spawner::current() {
            Ok(spawner) => spawner,
            Err(e) => return watch::channel(Some(Err(e))).1,
        };
        let inner = &self.inner;
        let shared = req.cfg.method == Method::GET;
        let flight_key = (req.url.clone(), TypeId::of::<S>());
        let mut flights = inner.in_flight.lock();
        let epoch = {
            let store = inner.store.lock();
            let epoch = store.epoch();
            if shared && let Some(f) = flights.get(&flight_key).filter(|f| f.epoch == epoch) {
                return f.outcome.clone();
            }
            if let Some(answer) = cached(&store, &req) {
                return watch::channel(Some(answer)).1;
            }
            epoch
        };
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (settle, outcome) = watch::channel(None);
        if shared {
            flights.insert(
                flight_key.clone(),
                Flight {
                    id,
                    epoch,
                    key: req.key.clone(),
                    outcome: outcome.clone(),
                },
            );
        }
        drop(flights);
        if shared {
            self.flights_changed();
        }

        let started = Instant::now();
        let layer = self.add_layer::<S>(&req, id, started, epoch);
        let ctrl = self.clone();
        // Dropping the task's handle leaves it running: a fetch is not cancelled (R-FETCH-4).
        drop(spawner.spawn(async move {
            let result = ctrl.execute::<S>(&req, started, epoch, layer).await;
            if shared {
                let mut flights = ctrl.inner.in_flight.lock();
                if flights.get(&flight_key).is_some_and(|f| f.id == id) {
                    flights.remove(&flight_key);
                }
                drop(flights);
                ctrl.flights_changed();
            }
            // Every waiter is resolved after the commit (R-FETCH-1 step 8).
            settle.send_replace(Some(result));
        }));
        outcome
    }

    /// R-FETCH-1 step 3: the optimistic layer of a mutation, from the moment it starts. None if
    /// the store was reset since the fetch read its epoch: the fetch resolves with
    /// `Error::Reset`, and a layer added now would outlive it (R-EXP-5).
    fn add_layer<S: Schema>(&self, req: &Prepared, id: u64, started: Instant, epoch: u64) -> Option<u64> {
        let transform = req.cfg.transform?;
        let n = self.inner.next_placeholder.fetch_add(1, Ordering::Relaxed);
        let spec = LayerSpec {
            id,
            fetched_at: started,
            key: req.key.clone(),
            method: req.cfg.method.to_string(),
            args: Value::Object(req.args.clone()),
            body: req.body.clone(),
            transform,
            placeholder: format!("optimistic-{n}"),
            policy: req.cfg.policy.clone(),
        };
        {
            let mut store = self.inner.store.lock();
            if store.epoch() != epoch {
                return None;
            }
            store.add_layer(Layer::new::<S>(spec));
        }
        self.notify();
        Some(id)
    }

    /// Sends the request, then commits its outcome in one step (R-FETCH-1 steps 4–7).
    async fn execute<S: Schema>(&self, req: &Prepared, started: Instant, epoch: u64, layer: Option<u64>) -> Outcome {
        let ignore_body = TypeId::of::<S::Output>() == TypeId::of::<()>();
        let out = Outgoing {
            cfg: &req.cfg,
            url: &req.url,
            body: req.body.clone(),
            ignore_body,
        };
        let sent = self.inner.http.send(out).await;
        // A read is ordered by when it started; a mutation by when its answer arrived, so that
        // no read that was in flight alongside it, whatever it saw, overrides its effect
        // (R-NORM-7).
        let ordered_at = if is_read(&req.cfg.method) {
            started
        } else {
            Instant::now()
        };
        let write_args = Value::Object(req.cfg.write_args(&req.args).unwrap_or_else(|| req.args.clone()));
        let mut opts = WriteOptions::new()
            .fetched_at(ordered_at)
            .data_expiry(req.cfg.data_expiry);
        opts.body = req.body.as_ref();
        opts.policy = req.cfg.policy.as_deref();
        // Step 6 before the lock: parsing and normalizing need only the body (which stored lists
        // a push or unshift joins, and what a page adds to its list, is left to the commit); a
        // schema that turns out to read the stored tables is normalized again under it.
        let normalized = sent.map(|fetched| {
            let syntax = |e| fetched.syntax_error(e);
            let detached = Store::normalize_fetched::<S>(&req.key, &write_args, &fetched.bytes, opts, &syntax);
            (fetched, detached)
        });
        let outcome = {
            let mut store = self.inner.store.lock();
            if store.epoch() != epoch {
                // Reset while in flight: write nothing (its layer went with the reset).
                return Err(Error::Reset);
            }
            let written = normalized.and_then(|(fetched, detached)| {
                match detached {
                    Detached::Ready(n) => store.commit_fetched::<S>(&req.key, &write_args, n, opts, layer),
                    Detached::Failed(e) => store.check_schema::<S>().and(Err(e)),
                    Detached::NeedsTables => {
                        let syntax = |e| fetched.syntax_error(e);
                        store.write_fetched::<S>(&req.key, &write_args, &fetched.bytes, opts, layer, &syntax)
                    }
                }
                .map_err(|e| fetched.blame(e).with_url(&req.url))
            });
            match written {
                Ok(Some(value)) => Ok(value as Arc<dyn Any + Send + Sync>),
                // Committed, but what it wrote reads as invalid now (R-FETCH-5): not a failure
                // of the key.
                Ok(None) => Err(Error::Invalidated { key: req.key.clone() }),
                Err(e) => {
                    store.fail(&req.key, ordered_at, e.clone(), req.cfg.error_expiry, layer);
                    Err(e)
                }
            }
        };
        self.notify();
        outcome
    }
}

/// Whether `method` only reads: GET and HEAD.
fn is_read(method: &Method) -> bool {
    *method == Method::GET || *method == Method::HEAD
}
