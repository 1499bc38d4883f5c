//! `ctrl.fetch(&endpoint, args).body(&b).await` (R-FETCH-1..5).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::rt::Instant;
use parking_lot::MutexGuard;
use reqwest::Method;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::watch;
use tracing::Instrument;
use tracing::field::Empty;

use super::Controller;
use crate::bounded_value::{self, Refused};
use crate::error::Error;
use crate::rest::http::Outgoing;
use crate::rest::{BoxFuture, EndpointConfig, ResponseHead, RestEndpoint};
use crate::rt::Spawner;
use crate::schema::Schema;
use crate::store::{Layer, LayerSpec, Store, WriteOptions};

/// What a fetch settles with: the value it described, type-erased, and the head of the
/// response (none when the cache answered), or its error.
pub(crate) type Outcome = Result<Settled, Error>;

/// A fetch's value, type-erased, and the response it came from.
#[derive(Clone)]
pub(crate) struct Settled {
    pub value: Arc<dyn Any + Send + Sync>,
    pub head: Option<Arc<ResponseHead>>,
}

/// Where a fetch's outcome appears.
type Settle = watch::Sender<Option<Outcome>>;

/// GETs are shared by request URL and schema type (R-FETCH-2).
pub(crate) type FlightKey = (String, TypeId);

/// Who starts or joins a fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// A caller that awaits the outcome: when the last such caller of a GET is dropped, the GET
    /// is aborted.
    Waits,
    /// A background refetch or a poll: nobody awaits it, and the GET runs to its end.
    Detached,
}

/// A GET in flight that later identical GETs join.
pub(crate) struct Flight {
    id: u64,
    epoch: u64,
    key: String,
    settle: Arc<Settle>,
    /// Set once a detached reader shares the flight: it is then never abandoned.
    detached: Arc<AtomicBool>,
}

impl Flight {
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
        if body.is_some() && cfg.is_read() {
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

    /// Resolves to the data and the head of the response it came from: its status and
    /// headers (`X-Total-Count`, `Link`, …). A GET that joined one in flight gets that
    /// response's head.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// # let ctrl = Controller::builder().base_url(server.base_url()).build()?;
    /// let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    ///     path: "/todos/:id".into(),
    ///     ..Default::default()
    /// })?;
    /// let page = ctrl.fetch(&todos.get_list(), params! { userId: "u1" }).with_response().await?;
    /// assert_eq!(page.head().status(), restcache::reqwest::StatusCode::OK);
    /// let total = page.head().headers().get("x-total-count").and_then(|v| v.to_str().ok());
    /// assert_eq!(total, Some(page.data().len().to_string().as_str()));
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_response(self) -> BoxFuture<'static, Result<FetchResponse<S::Output>, Error>> {
        let (ctrl, req) = self.prepare();
        Box::pin(async move {
            let (data, head) = settled::<S>(ctrl.start::<S>(req?, Reader::Waits)).await?;
            let head = head.ok_or_else(|| Error::InvalidConfig {
                reason: "a fetch settled without a response".into(),
            })?;
            Ok(FetchResponse { data, head })
        })
    }

    /// The Controller and the prepared request, taken out before the future so it holds no `B`.
    fn prepare(self) -> (Controller, Result<Prepared, Error>) {
        let req = self
            .args
            .and_then(|args| Prepared::new(self.cfg, args, self.body.transpose()?));
        (self.ctrl, req)
    }
}

impl<S: Schema, B> IntoFuture for FetchRequest<S, B> {
    type Output = Result<Arc<S::Output>, Error>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let (ctrl, req) = self.prepare();
        Box::pin(async move {
            settled::<S>(ctrl.start::<S>(req?, Reader::Waits))
                .await
                .map(|(data, _)| data)
        })
    }
}

/// A fetch's data with the head of the response it came from, from
/// [`FetchRequest::with_response`].
#[derive(Debug)]
pub struct FetchResponse<T> {
    data: Arc<T>,
    head: Arc<ResponseHead>,
}

impl<T> FetchResponse<T> {
    /// The data, as the cache shows it after the commit (as `fetch` resolves to).
    pub fn data(&self) -> &Arc<T> {
        &self.data
    }

    /// The response's status, headers and URL.
    pub fn head(&self) -> &ResponseHead {
        &self.head
    }

    /// The data, and the head.
    pub fn into_parts(self) -> (Arc<T>, Arc<ResponseHead>) {
        (self.data, self.head)
    }
}

/// Waits for a fetch to settle and takes its value back as `S::Output`, with the response's
/// head.
pub(crate) async fn settled<S: Schema>(
    mut outcome: watch::Receiver<Option<Outcome>>,
) -> Result<(Arc<S::Output>, Option<Arc<ResponseHead>>), Error> {
    let value = match outcome.wait_for(Option::is_some).await {
        Ok(v) => v.clone(),
        // The task was cancelled before it settled (R-FETCH-4).
        Err(_) => None,
    };
    let Settled { value, head } = value.ok_or(Error::Aborted)??;
    let value = value.downcast::<S::Output>().map_err(|_| Error::InvalidConfig {
        reason: "a shared fetch settled with another type".into(),
    })?;
    Ok((value, head))
}

/// A fetch's task, from the moment it is spawned: it settles the fetch, or, dropped before it
/// did (its code panicked, in an app's hook say, or its runtime shut down, even before it ever
/// ran), ends it as an aborted one (R-FETCH-4): the GET leaves the flights, so the next read
/// sends its own request; a mutation's optimistic layer is rolled back; waiters get
/// `Error::Aborted`.
struct FetchTask {
    ctrl: Controller,
    /// The flight of a GET.
    flight: Option<FlightKey>,
    id: u64,
    layer: Option<u64>,
    settle: Arc<Settle>,
    /// Set once the fetch settled, or was aborted by its readers leaving.
    settled: bool,
}

impl FetchTask {
    /// Takes the GET out of the flights, then resolves every waiter with `result`, after the
    /// commit (R-FETCH-1 step 8).
    fn settle(&mut self, result: Outcome) {
        if let Some(flight_key) = &self.flight {
            self.ctrl.land(self.ctrl.inner.in_flight.lock(), flight_key, self.id);
        }
        self.settle.send_replace(Some(result));
        self.settled = true;
    }
}

impl Drop for FetchTask {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        tracing::warn!(id = self.id, "a fetch task ended before it settled; aborted");
        if let Some(layer) = self.layer {
            self.ctrl.inner.store.lock().roll_back_layer(layer);
            self.ctrl.notify();
        }
        self.settle(Err(Error::Aborted));
    }
}

impl Controller {
    /// Starts `req` on a task the Controller owns, or joins the same GET in flight (R-FETCH-2),
    /// and returns where its outcome will appear.
    pub(crate) fn start<S: Schema>(&self, req: Prepared, reader: Reader) -> watch::Receiver<Option<Outcome>> {
        self.start_unless::<S>(req, reader, |_, _| None)
    }

    /// [`start`](Self::start) for a read that found the cache unusable: if a request committed
    /// fresh data since, that answers instead. The cache is read under the lock that joins or
    /// registers requests in flight, and a request leaves it only after its commit, so a read
    /// that misses the request in flight finds its data (R-FETCH-2).
    pub(crate) fn start_read<S: Schema>(&self, req: Prepared, reader: Reader) -> watch::Receiver<Option<Outcome>> {
        self.start_unless::<S>(req, reader, |store, req| {
            let r = store
                .get_response_with::<S>(&req.key, &req.args, req.cfg.invalid_if_stale)
                .ok()?;
            let data = r
                .usable()
                .filter(|_| r.error.is_none() && !r.is_stale(Instant::now()))?;
            Some(Ok(Settled {
                value: Arc::clone(data) as Arc<dyn Any + Send + Sync>,
                head: None,
            }))
        })
    }

    /// [`start`](Self::start), unless `cached` answers from the store first.
    ///
    /// A GET whose every awaiting reader is dropped is aborted (unless a detached reader shares
    /// it): nothing is written, and the next read sends a request of its own. A mutation is
    /// never aborted: it may have reached the server already, and only its answer tells the
    /// cache what it did.
    fn start_unless<S: Schema>(
        &self,
        req: Prepared,
        reader: Reader,
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
        let (epoch, started) = {
            let mut store = inner.store.lock();
            let epoch = store.epoch();
            if shared && let Some(f) = flights.get(&flight_key).filter(|f| f.epoch == epoch) {
                if reader == Reader::Detached {
                    f.detached.store(true, Ordering::Relaxed);
                }
                // Joined under the lock `abandoned` checks the readers under.
                return f.settle.subscribe();
            }
            if let Some(answer) = cached(&store, &req) {
                return watch::channel(Some(answer)).1;
            }
            // Stamped after any invalidation before it, even in the same clock tick.
            (epoch, store.tick())
        };
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (settle, outcome) = watch::channel(None);
        let settle = Arc::new(settle);
        let detached = Arc::new(AtomicBool::new(reader == Reader::Detached || !shared));
        // A reset aborts every GET running (R-EXP-5), one no read joins any more included: it
        // is seen under the flights' lock, as the reset counts under it.
        let mut resets = shared.then(|| inner.resets.subscribe());
        if shared {
            flights.insert(
                flight_key.clone(),
                Flight {
                    id,
                    epoch,
                    key: req.key.clone(),
                    settle: Arc::clone(&settle),
                    detached: Arc::clone(&detached),
                },
            );
        }
        drop(flights);
        if shared {
            self.flights_changed();
        }

        let layer = self.add_layer::<S>(&req, id, started, epoch);
        // Dropping the task's handle leaves it running: it ends by itself (R-FETCH-4).
        let task = FetchTask {
            ctrl: self.clone(),
            flight: shared.then(|| flight_key.clone()),
            id,
            layer,
            settle,
            settled: false,
        };
        drop(spawner.spawn(async move {
            let mut task = task;
            let ctrl = &task.ctrl;
            let result = tokio::select! {
                result = ctrl.execute::<S>(&req, started, epoch, layer) => result,
                () = reset(resets.as_mut()) => Err(Error::Reset),
                () = ctrl.abandoned(&flight_key, id, &task.settle, &detached) => {
                    tracing::debug!(url = %req.url, key = %req.key, "aborted: no reader awaits it any more");
                    task.settled = true;
                    return;
                }
            };
            task.settle(result);
        }));
        outcome
    }

    /// Resolves once nobody awaits the GET `id` any more, after taking it out of the flights:
    /// never for a mutation or a GET a detached reader shares. Readers join (and a detached one
    /// marks the GET) under the flights' lock, and both are read here under it too, so none can
    /// join unseen after the last one left.
    async fn abandoned(&self, flight_key: &FlightKey, id: u64, settle: &Settle, detached: &AtomicBool) {
        loop {
            settle.closed().await;
            let flights = self.inner.in_flight.lock();
            if detached.load(Ordering::Relaxed) {
                drop(flights);
                return std::future::pending().await;
            }
            if settle.receiver_count() == 0 {
                return self.land(flights, flight_key, id);
            }
        }
    }

    /// Takes the GET `id` out of `flights` (unless another took its place since), then
    /// announces it.
    fn land(&self, mut flights: MutexGuard<'_, HashMap<FlightKey, Flight>>, flight_key: &FlightKey, id: u64) {
        if flights.get(flight_key).is_some_and(|f| f.id == id) {
            flights.remove(flight_key);
        }
        drop(flights);
        self.flights_changed();
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
            body: req.body.as_ref(),
            ignore_body,
        };
        // One span per request, with what it did: status, entities written and invalidated
        // (counted only when a subscriber listens), duration.
        let span = tracing::debug_span!(
            "fetch",
            method = %req.cfg.method,
            url = %req.url,
            key = %req.key,
            status = Empty,
            error = Empty,
            entities = Empty,
            invalidated = Empty,
            duration_ms = Empty,
        );
        let sent = self.inner.http.send(out).instrument(span.clone()).await;
        match &sent {
            Ok(fetched) => span.record("status", fetched.head.status.as_u16()),
            Err(e) => span.record("status", e.status().map(|s| s.as_u16())),
        };
        // A read is ordered by when it started; a mutation by when its answer arrived, so that
        // no read that was in flight alongside it, whatever it saw, overrides its effect
        // (R-NORM-7).
        let ordered_at = if req.cfg.is_read() { started } else { Instant::now() };
        let write_args = Value::Object(req.cfg.write_args(&req.args).unwrap_or_else(|| req.args.clone()));
        let mut opts = WriteOptions::new()
            .fetched_at(ordered_at)
            .data_expiry(req.cfg.data_expiry);
        opts.body = req.body.as_ref();
        opts.policy = req.cfg.policy.as_deref();
        // Step 6 before the lock: parsing and normalizing need only the body (which stored lists
        // a push or unshift joins, what a page adds to its list, and which tables hold a deleted
        // union member are left to the commit).
        let normalized = sent.map(|fetched| {
            let syntax = |e| fetched.syntax_error(e);
            let detached = Store::normalize_fetched::<S>(&req.key, &write_args, &fetched.bytes, opts, &syntax);
            (fetched, detached)
        });
        let rolled_back;
        let outcome = {
            let mut store = self.inner.store.lock();
            if store.epoch() != epoch {
                // Reset while in flight: write nothing (its layer went with the reset).
                return Err(Error::Reset);
            }
            let written = normalized.and_then(|(fetched, detached)| {
                match detached {
                    Ok(n) => {
                        if !span.is_disabled() {
                            let (entities, invalidated) = n.counts();
                            span.record("entities", entities);
                            span.record("invalidated", invalidated);
                        }
                        store.commit_fetched::<S>(&req.key, &write_args, n, opts, layer)
                    }
                    // Reported after the schema check, as under the lock.
                    Err(e) => store.check_schema::<S>().and(Err(e)),
                }
                .map_err(|e| fetched.blame(e))
                .map(|value| (value, fetched.head))
            });
            rolled_back = layer.is_some() && written.is_err();
            match written {
                Ok((Some(value), head)) => Ok(Settled {
                    value: value as Arc<dyn Any + Send + Sync>,
                    head: Some(Arc::new(head)),
                }),
                // Committed, but what it wrote reads as invalid now (R-FETCH-5): not a failure
                // of the key.
                Ok((None, _)) => Err(Error::Invalidated { key: req.key.clone() }),
                Err(e) => {
                    store.fail(&req.key, ordered_at, e.clone(), req.cfg.error_expiry, layer);
                    Err(e)
                }
            }
        };
        self.notify();
        if layer.is_some() {
            match (&outcome, rolled_back) {
                (Err(e), true) => tracing::debug!(key = %req.key, error = %e, "optimistic update rolled back"),
                _ => tracing::debug!(key = %req.key, "optimistic update committed"),
            }
        }
        if let Err(e) = &outcome {
            span.record("error", tracing::field::display(e));
        }
        span.record("duration_ms", started.elapsed().as_millis() as u64);
        outcome
    }
}

/// Resolves at the next reset the receiver sees (never without one: a mutation runs to its end).
async fn reset(resets: Option<&mut watch::Receiver<u64>>) {
    if let Some(resets) = resets
        && resets.changed().await.is_ok()
    {
        return;
    }
    std::future::pending().await
}
