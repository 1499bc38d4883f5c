//! `subscribe`: a stream of a read that yields again whenever what it depends on changes
//! (R-SUB-1..5) — the view-layer hook of the seed, for any UI.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use crate::rt::Instant;
use futures_core::Stream;
use reqwest::Method;
use serde::Serialize;
use tokio::sync::mpsc;

use super::Controller;
use super::fetch::Prepared;
use super::poll::PollGuard;
use crate::error::Error;
use crate::rest::RestEndpoint;
use crate::rt::{Spawner, Task};
use crate::schema::Schema;
use crate::store::args_map;

/// The items of a [`Controller::subscribe`] stream. Dropping it ends the subscription (and its
/// share of polling).
///
/// It is a [`Stream`]; [`next`](Self::next) reads it without a stream library.
pub struct Subscription<T> {
    items: mpsc::Receiver<Result<Arc<T>, Error>>,
    task: Option<Task>,
    _poll: Option<PollGuard>,
}

impl<T> std::fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").finish_non_exhaustive()
    }
}

impl<T> Subscription<T> {
    /// The next item: the first is the outcome of `suspense`, then one per change.
    pub async fn next(&mut self) -> Option<Result<Arc<T>, Error>> {
        self.items.recv().await
    }

    /// The next item if one is ready now, without waiting.
    pub fn try_next(&mut self) -> Option<Result<Arc<T>, Error>> {
        self.items.try_recv().ok()
    }
}

impl<T> Stream for Subscription<T> {
    type Item = Result<Arc<T>, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().items.poll_recv(cx)
    }
}

impl<T> Drop for Subscription<T> {
    fn drop(&mut self) {
        if let Some(mut task) = self.task.take() {
            task.abort();
        }
    }
}

/// The last item yielded, to yield nothing twice (R-SUB-3).
enum Last<T> {
    Data(Arc<T>),
    /// An error and the written_at of the meta recording it.
    Error(Error, Option<Instant>),
}

impl<T> Last<T> {
    fn same(&self, item: &Result<Arc<T>, Error>, written: Option<Instant>) -> bool {
        match (self, item) {
            (Last::Data(a), Ok(b)) => Arc::ptr_eq(a, b),
            (Last::Error(a, w), Err(b)) => a == b && *w == written,
            _ => false,
        }
    }
}

impl Controller {
    /// A stream of `ep`'s data for `args`: first the outcome of [`suspense`](Self::suspense),
    /// then a new item after every commit or optimistic change that touches the key's result
    /// or meta, a record the read used, or a table an `All` read enumerated. Unchanged data is
    /// never yielded twice. While the stream lives and the endpoint has a `poll_frequency`, the
    /// key is polled (the smallest frequency among its streams wins).
    ///
    /// Only GET members can be subscribed; for others the stream yields one
    /// `Error::InvalidConfig` and ends. It needs a tokio runtime.
    pub fn subscribe<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
    ) -> Subscription<S::Output> {
        let (tx, items) = mpsc::channel(16);
        let args = args_map(&args);
        let cfg = Arc::clone(&ep.cfg);
        let spawner = match Spawner::current() {
            Ok(spawner) => spawner,
            Err(e) => {
                let _ = tx.try_send(Err(e));
                return Subscription {
                    items,
                    task: None,
                    _poll: None,
                };
            }
        };
        let req = args.and_then(|args| {
            if cfg.method != Method::GET {
                let reason = format!(
                    "{} is a {} member; only GET members can be subscribed",
                    cfg.name, cfg.method
                );
                return Err(Error::InvalidConfig { reason });
            }
            Prepared::new(Arc::clone(&cfg), args, None)
        });
        let req = match req {
            Ok(req) => req,
            Err(e) => {
                let _ = tx.try_send(Err(e));
                return Subscription {
                    items,
                    task: None,
                    _poll: None,
                };
            }
        };
        // Registered here, not in the task, so dropping the stream stops its polling at once.
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let poll = cfg
            .poll_frequency
            .map(|every| self.poll::<S>(&spawner, req.clone(), id, every));
        let task = spawner.spawn(follow::<S>(self.clone(), req, tx));
        Subscription {
            items,
            task: Some(task),
            _poll: poll,
        }
    }
}

/// Yields the read's outcome whenever it may have changed, never the same one twice (R-SUB-3).
async fn follow<S: Schema>(ctrl: Controller, req: Prepared, tx: mpsc::Sender<Result<Arc<S::Output>, Error>>) {
    let mut changes = ctrl.inner.changes.subscribe();
    let mut last: Option<Last<S::Output>> = None;
    let mut may_fetch = true;
    loop {
        changes.borrow_and_update();
        let (item, fetched) = ctrl.suspend::<S>(&req.cfg, &req.args, may_fetch).await;
        // Never start a fetch because of the commit of our own fetch.
        may_fetch = !fetched;
        let written = ctrl.inner.store.lock().meta(&req.key).map(|m| m.written_at);
        if !last.as_ref().is_some_and(|l| l.same(&item, written)) {
            last = Some(match &item {
                Ok(data) => Last::Data(Arc::clone(data)),
                Err(e) => Last::Error(e.clone(), written),
            });
            if tx.send(item).await.is_err() {
                return;
            }
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            () = tx.closed() => return,
        }
    }
}
