//! `subscribe`: a live view of a read with watch semantics: it holds the newest state and yields
//! it whenever what the read depends on changes (R-SUB-1..5) — the view-layer hook of the seed,
//! for any UI.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};

use crate::rt::Instant;
use futures_core::Stream;
use serde::Serialize;
use tokio::sync::watch;

use super::fetch::{Prepared, Reader};
use super::poll::PollGuard;
use super::{Controller, ReadStatus};
use crate::error::Error;
use crate::rest::RestEndpoint;
use crate::rt::{Spawner, Task};
use crate::schema::Schema;
use crate::store::args_map;

/// What the subscription's task publishes: its latest item, numbered, and the store version
/// it read it at.
struct State<T> {
    item: Option<Result<Arc<T>, Error>>,
    /// Counts the items published; a consumer remembers the last one it took.
    number: u64,
    /// The Controller's change counter when the item was last re-evaluated.
    evaluated_at: u64,
}

/// Resolves when the task publishes again: `false` once it never will.
type Changed = Pin<Box<dyn Future<Output = bool> + Send + Sync>>;

/// Refetches one live view's read in the background if its data is stale
/// ([`Controller::refetch_stale`]).
pub(crate) type Revalidate = Arc<dyn Fn(&Controller) + Send + Sync>;

/// Reads one live view's [`ReadStatus`] now.
type StatusOf<T> = Box<dyn Fn() -> ReadStatus<T> + Send + Sync>;

/// A live view's entry in [`Controller::refetch_stale`]'s list, and its hold on its key
/// against the collector (R-GC-5); dropping it removes both.
struct LiveGuard {
    ctrl: Controller,
    id: u64,
    key: String,
}

impl LiveGuard {
    fn new(ctrl: &Controller, id: u64, key: &str, revalidate: Revalidate) -> Self {
        ctrl.inner.live.lock().insert(id, revalidate);
        ctrl.inner.store.lock().retain(key);
        LiveGuard {
            ctrl: ctrl.clone(),
            id,
            key: key.to_owned(),
        }
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.ctrl.inner.live.lock().remove(&self.id);
        self.ctrl.inner.store.lock().release(&self.key);
    }
}

/// A live view of one read, from [`Controller::subscribe`]: it holds the latest state, like a
/// watch channel. Dropping it ends the subscription (and its share of polling).
///
/// - [`next`](Self::next) waits for a state the consumer has not seen yet and returns the
///   newest one: a slow consumer skips the states in between, and no state arrives twice
///   (R-SUB-3).
/// - [`current`](Self::current) reads the latest state at once, for rendering.
/// - It is a [`Stream`] of the same items as `next`.
/// - [`status`](Self::status) and [`next_status`](Self::next_status) tell loading, ready,
///   fetching (stale data shown while a refetch runs) and error apart, with the same watch
///   semantics.
///
/// ```no_run
/// # use restcache::prelude::*;
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct Todo { #[entity(pk)] id: u64, title: String }
/// # async fn demo(ctrl: Controller, todos: Resource<Todo>) {
/// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
/// assert!(live.current().is_none()); // nothing read yet
/// while let Some(state) = live.next().await {
///     // The newest state; `current()` returns it too until the next change.
///     println!("{:?}", state.map(|todo| todo.title.clone()));
///     let _shown = live.current();
/// }
/// # }
/// ```
pub struct Subscription<T> {
    state: watch::Receiver<State<T>>,
    /// The number of the last item taken.
    taken: u64,
    /// The Controller's change counter, and its counter of flights starting or stopping, which
    /// wake [`next_status`](Self::next_status); `None` when no task follows the read. `take`
    /// only `borrow`s the first, so `next_status` marking it seen changes nothing there.
    changes: Option<(watch::Receiver<u64>, watch::Receiver<u64>)>,
    /// Waits for the task's next publication (see `poll_next`).
    changed: Option<Changed>,
    task: Option<Task>,
    _poll: Option<PollGuard>,
    status_of: StatusOf<T>,
    /// The last status yielded by `next_status`.
    shown: Option<ReadStatus<T>>,
    _live: Option<LiveGuard>,
}

impl<T> std::fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").finish_non_exhaustive()
    }
}

impl<T: Send + Sync + 'static> Subscription<T> {
    /// The next state not yet seen, the newest one: the first is the outcome of `suspense`,
    /// then one per change. States that came and went while the consumer was busy are skipped.
    /// `None` once the subscription has ended (only for a request it refused).
    ///
    /// ```no_run
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # async fn demo(ctrl: Controller, todos: Resource<Todo>) -> Result<(), restcache::Error> {
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// let todo = live.next().await.expect("a live read never ends")?;
    /// # Ok(()) }
    /// ```
    pub async fn next(&mut self) -> Option<Result<Arc<T>, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// The next state if one is ready now, without waiting: the newest one not yet seen.
    ///
    /// ```no_run
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # fn demo(ctrl: Controller, todos: Resource<Todo>) {
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// if let Some(state) = live.try_next() {
    ///     println!("changed: {:?}", state.map(|todo| todo.title.clone()));
    /// }
    /// # }
    /// ```
    pub fn try_next(&mut self) -> Option<Result<Arc<T>, Error>> {
        self.take(false)
    }

    /// The latest state, read synchronously, as while rendering; `None` before the first read
    /// has settled. It takes nothing from the stream: `next` still yields a state it has not
    /// yielded, even one `current` returned.
    ///
    /// ```no_run
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # fn demo(ctrl: Controller, todos: Resource<Todo>) {
    /// let live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// match live.current() {
    ///     None => println!("loading"),
    ///     Some(Ok(todo)) => println!("{}", todo.title),
    ///     Some(Err(e)) => println!("error: {e}"),
    /// }
    /// # }
    /// ```
    pub fn current(&self) -> Option<Result<Arc<T>, Error>> {
        self.state.borrow().item.clone()
    }

    /// The read status now: loading, ready, fetching (stale data shown while a refetch runs)
    /// or error with the data the error policy keeps, as [`Controller::status`] reads it.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::controller::ReadStatus;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// # let ctrl = Controller::builder().base_url(server.base_url()).build()?;
    /// # let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    /// #     path: "/todos/:id".into(),
    /// #     ..Default::default()
    /// # })?;
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// assert!(matches!(live.status(), ReadStatus::Loading));
    /// live.next().await.unwrap()?;
    /// assert!(matches!(live.status(), ReadStatus::Ready(_)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn status(&self) -> ReadStatus<T> {
        (self.status_of)()
    }

    /// The next read status not yet seen, the newest one (for example `Loading`, then
    /// `Ready`; `Fetching` when a stale read refetches, then `Ready` with the new data).
    /// Statuses that came and went while the consumer was busy are skipped, and none arrives
    /// twice ([`ReadStatus::same`]). `None` once it can no longer change (only for a request
    /// the subscription refused).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::controller::ReadStatus;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// # let ctrl = Controller::builder().base_url(server.base_url()).build()?;
    /// # let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    /// #     path: "/todos/:id".into(),
    /// #     ..Default::default()
    /// # })?;
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// while let Some(status) = live.next_status().await {
    ///     if let ReadStatus::Ready(todo) = status {
    ///         assert_eq!(todo.title, "Todo 1");
    ///         break;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next_status(&mut self) -> Option<ReadStatus<T>> {
        loop {
            if let Some(status) = self.try_next_status() {
                return Some(status);
            }
            let (changes, flights) = self.changes.as_mut()?;
            let open = tokio::select! {
                changed = changes.changed() => changed.is_ok(),
                changed = flights.changed() => changed.is_ok(),
            };
            if !open {
                return None;
            }
        }
    }

    /// The newest read status not yet seen, if there is one now, without waiting.
    ///
    /// ```no_run
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # fn demo(ctrl: Controller, todos: Resource<Todo>) {
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// if let Some(status) = live.try_next_status() {
    ///     println!("now showing: {:?}", status.data().map(|todo| todo.title.clone()));
    /// }
    /// # }
    /// ```
    pub fn try_next_status(&mut self) -> Option<ReadStatus<T>> {
        if let Some((changes, flights)) = &mut self.changes {
            // Seen before reading, so a change after the read wakes `next_status`.
            changes.borrow_and_update();
            flights.borrow_and_update();
        }
        let now = self.status();
        if self.shown.as_ref().is_some_and(|shown| shown.same(&now)) {
            return None;
        }
        self.shown = Some(now.clone());
        Some(now)
    }

    /// The newest item not yet taken, if the task has caught up with every commit so far (or,
    /// with `ended`, if no task will publish again).
    fn take(&mut self, ended: bool) -> Option<Result<Arc<T>, Error>> {
        let state = self.state.borrow_and_update();
        let caught_up = self
            .changes
            .as_ref()
            .is_none_or(|(changes, _)| *changes.borrow() == state.evaluated_at);
        if state.number == self.taken || !(caught_up || ended) {
            return None;
        }
        self.taken = state.number;
        state.item.clone()
    }
}

impl<T: Send + Sync + 'static> Stream for Subscription<T> {
    type Item = Result<Arc<T>, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(item) = this.take(false) {
                return Poll::Ready(Some(item));
            }
            // Wait for the task to publish again, on a clone of the receiver that the future
            // owns, so the future is `'static` and can wait across polls.
            let changed = this.changed.get_or_insert_with(|| {
                let mut state = this.state.clone();
                Box::pin(async move { state.changed().await.is_ok() })
            });
            let open = ready!(changed.as_mut().poll(cx));
            this.changed = None;
            if !open {
                return Poll::Ready(this.take(true));
            }
        }
    }
}

impl<T> Drop for Subscription<T> {
    fn drop(&mut self) {
        if let Some(mut task) = self.task.take() {
            task.abort();
        }
    }
}

impl Controller {
    /// A live view of `ep`'s data for `args`, with watch semantics: its first state is the
    /// outcome of [`suspense`](Self::suspense), then it re-evaluates after every commit or
    /// optimistic change that touches the key's result or meta, a record the read used, or a
    /// table an `All` read enumerated. [`Subscription::next`] yields the newest state not yet
    /// seen (a slow consumer skips those in between), unchanged data is never yielded twice,
    /// and [`Subscription::current`] reads the latest state synchronously. While the view
    /// lives and the endpoint has a `poll_frequency`, the key is polled (the smallest
    /// frequency among its views wins).
    ///
    /// Only GET members can be subscribed; for others the view yields one
    /// `Error::InvalidConfig` and ends. It needs a tokio runtime (natively).
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # #[derive(Clone, Debug, Default, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = demo_api::DemoServer::start().await?;
    /// # let ctrl = Controller::builder().base_url(server.base_url()).build()?;
    /// # let todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
    /// #     path: "/todos/:id".into(),
    /// #     ..Default::default()
    /// # })?;
    /// let mut live = ctrl.subscribe(&todos.get(), params! { id: 1 });
    /// assert_eq!(live.next().await.unwrap()?.title, "Todo 1");
    /// // Two changes while the consumer is busy: it gets the newest, once.
    /// for title in ["renamed", "renamed again"] {
    ///     ctrl.fetch(&todos.partial_update(), params! { id: 1 })
    ///         .body(&serde_json::json!({ "title": title }))
    ///         .await?;
    /// }
    /// assert_eq!(live.next().await.unwrap()?.title, "renamed again");
    /// assert!(live.try_next().is_none());
    /// assert_eq!(live.current().unwrap()?.title, "renamed again");
    /// # Ok(())
    /// # }
    /// ```
    pub fn subscribe<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
    ) -> Subscription<S::Output> {
        let (tx, state) = watch::channel(State {
            item: None,
            number: 0,
            evaluated_at: 0,
        });
        let refused = |e: Error| {
            tx.send_replace(State {
                item: Some(Err(e.clone())),
                number: 1,
                evaluated_at: 0,
            });
            let status_of: StatusOf<S::Output> = Box::new(move || ReadStatus::Error {
                error: e.clone(),
                data: None,
            });
            Subscription::new(state.clone(), status_of)
        };
        let args = args_map(&args);
        let cfg = Arc::clone(&ep.cfg);
        let spawner = match Spawner::current() {
            Ok(spawner) => spawner,
            Err(e) => return refused(e),
        };
        let req = args.and_then(|args| {
            cfg.require_get("can be subscribed")?;
            Prepared::new(Arc::clone(&cfg), args, None)
        });
        let req = match req {
            Ok(req) => req,
            Err(e) => return refused(e),
        };
        // Registered here, not in the task, so dropping the stream stops its polling at once.
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let poll = cfg
            .poll_frequency
            .map(|every| self.poll::<S>(&spawner, req.clone(), id, every));
        let status_of: StatusOf<S::Output> = {
            let (ctrl, req) = (self.clone(), req.clone());
            Box::new(move || {
                ctrl.read_status::<S>(&req)
                    .unwrap_or_else(|error| ReadStatus::Error { error, data: None })
            })
        };
        let live = LiveGuard::new(self, id, &req.key, revalidate::<S>(req.clone()));
        let mut sub = Subscription::new(state, status_of);
        sub.changes = Some((self.inner.changes.subscribe(), self.inner.flights_changed.subscribe()));
        sub.task = Some(spawner.spawn(follow::<S>(self.clone(), req, tx)));
        sub._poll = poll;
        sub._live = Some(live);
        sub
    }
}

/// Refetches `req` in the background when its data is stale, or its error's time is up (R-POL-2).
fn revalidate<S: Schema>(req: Prepared) -> Revalidate {
    Arc::new(move |ctrl: &Controller| {
        let read = ctrl
            .inner
            .store
            .lock()
            .get_response_with::<S>(&req.key, &req.args, req.cfg.invalid_if_stale);
        let due = read.is_ok_and(|r| (r.usable().is_some() || r.error.is_some()) && r.is_stale(Instant::now()));
        if due {
            drop(ctrl.start_read::<S>(req.clone(), Reader::Detached));
        }
    })
}

impl<T> Subscription<T> {
    /// A subscription that follows nothing yet: the caller adds the task and its guards.
    fn new(state: watch::Receiver<State<T>>, status_of: StatusOf<T>) -> Self {
        Subscription {
            state,
            taken: 0,
            changes: None,
            changed: None,
            task: None,
            _poll: None,
            status_of,
            shown: None,
            _live: None,
        }
    }
}

/// Publishes the read's outcome whenever it may have changed, never the same one twice
/// (R-SUB-3), and after each evaluation the change counter it read at.
async fn follow<S: Schema>(ctrl: Controller, req: Prepared, tx: watch::Sender<State<S::Output>>) {
    let mut changes = ctrl.inner.changes.subscribe();
    // The written_at of the meta that recorded the last error published: the same error
    // recorded again (a refetch that failed alike) is published again.
    let mut error_written: Option<Instant> = None;
    // Whether the last read fetched (waited for a fetch or started one in the background).
    let mut fetched_last = false;
    loop {
        let version = *changes.borrow_and_update();
        // After our own fetch, a key whose record went (a reset, the collector) or was
        // invalidated was not changed by our commit: it is read, and fetched, again (R-EXP-2,
        // R-EXP-5), even if our fetch never committed (a reset aborted it).
        let gone = || ctrl.inner.store.lock().meta(&req.key).is_none_or(|m| m.invalidated);
        let may_fetch = !fetched_last || gone();
        let (item, fetched) = ctrl.suspend::<S>(&req.cfg, &req.args, may_fetch).await;
        // Never start a fetch because of the commit of our own fetch (waited for or started in
        // the background): data that expires at once would be refetched without end.
        fetched_last = fetched;
        let written = ctrl.inner.store.lock().meta(&req.key).map(|m| m.written_at);
        // The last item published, the one in the channel: nothing is published twice (R-SUB-3).
        let new = !tx.borrow().item.as_ref().is_some_and(|last| match (last, &item) {
            (Ok(a), Ok(b)) => Arc::ptr_eq(a, b),
            (Err(a), Err(b)) => a == b && error_written == written,
            _ => false,
        });
        tx.send_modify(|state| {
            state.evaluated_at = version;
            if new {
                state.number += 1;
                state.item = Some(item.clone());
            }
        });
        if new {
            error_written = written;
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            () = tx.closed() => return,
        }
    }
}
