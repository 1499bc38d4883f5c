//! [Dioxus](https://dioxuslabs.com) 0.7 hooks for [restcache]: the [`Controller`] provided
//! through context, reads that suspend inside a `SuspenseBoundary`, and live reads as signals.
//!
//! | hook | gives |
//! |---|---|
//! | [`use_controller_provider`] | provides a [`Controller`] to the component's subtree |
//! | [`use_controller`] | the nearest provided [`Controller`] |
//! | [`use_suspense`] | the data of a read, suspending the component until there is some |
//! | [`use_live`] | a [`ReadSignal`] of the read's [`ReadStatus`] |
//!
//! Both reads are live: they follow [`Controller::subscribe`], so when the cache changes (a
//! `PATCH` of the same entity elsewhere in the app, say) the component re-renders with the new
//! data, and no request is sent for it. A read whose data is in the cache and fresh renders it at
//! once, without suspending and without a request.
//!
//! In the browser (wasm32), [`use_controller_provider`] also wires the window to the
//! Controller, for as long as the providing component lives: `focus`, and `visibilitychange` to
//! a visible page, call [`Controller::refetch_stale`]; `online` and `offline` call
//! [`Controller::set_online`] with `navigator.onLine` (so polling pauses while offline, and
//! coming back online refetches what went stale).
//!
//! ```no_run
//! use dioxus::prelude::*;
//! use restcache::prelude::*;
//! use restcache_dioxus::{use_controller_provider, use_suspense};
//!
//! #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, Entity)]
//! struct Todo { #[entity(pk)] id: u64, title: String }
//!
//! resource! {
//!     #[resource(path = "/todos/:id", schema = Todo)]
//!     struct TodoResource;
//! }
//!
//! fn App() -> Element {
//!     use_controller_provider(|| {
//!         Controller::builder().base_url("http://127.0.0.1:3000").build().expect("a valid URL")
//!     });
//!     rsx! {
//!         SuspenseBoundary { fallback: |_| rsx! { "loading…" }, Title { id: 1 } }
//!     }
//! }
//!
//! #[component]
//! fn Title(id: u64) -> Element {
//!     let todo = use_suspense(&TodoResource::get(), params! { id: id })?;
//!     rsx! { "{todo.title}" }
//! }
//! ```
//!
//! A missing provider, args that do not fit the endpoint, or an endpoint that is not a GET
//! member are a typed [`restcache::Error`]: [`use_controller`] returns it, [`use_live`] shows it
//! as [`ReadStatus::Error`], and [`use_suspense`] returns it as a [`RenderError`] for the nearest
//! `ErrorBoundary`. No hook panics on them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use dioxus::core::{RenderError, SuspendedFuture, Task, spawn, use_hook};
use dioxus::hooks::{try_use_context, use_context_provider};
use dioxus::signals::{ReadSignal, ReadableExt, Signal, WritableExt};
use restcache::controller::ReadStatus;
use restcache::rest::RestEndpoint;
use restcache::schema::Schema;
use restcache::{Controller, Error};
use serde::Serialize;
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
mod browser;

/// Provides the [`Controller`] that `init` builds to this component and its descendants, for
/// [`use_controller`], [`use_suspense`] and [`use_live`] there. `init` runs once, on the first
/// render; later renders return the same Controller.
///
/// In the browser (wasm32) it also registers, once, listeners on the window and document that
/// keep the Controller in step with the page (see the [crate] docs), and removes them when
/// the component is dropped.
///
/// ```no_run
/// use dioxus::prelude::*;
/// use restcache::Controller;
/// use restcache_dioxus::use_controller_provider;
///
/// fn App() -> Element {
///     let ctrl = use_controller_provider(|| {
///         Controller::builder().base_url("http://127.0.0.1:3000").build().expect("a valid URL")
///     });
///     let _ = ctrl.is_online();
///     rsx! { "…" }
/// }
/// ```
pub fn use_controller_provider(init: impl FnOnce() -> Controller) -> Controller {
    let ctrl = use_context_provider(init);
    #[cfg(target_arch = "wasm32")]
    {
        let listening = ctrl.clone();
        use_hook(move || Rc::new(browser::Listeners::register(&listening)));
    }
    ctrl
}

/// The [`Controller`] provided by the nearest ancestor (or this component) through
/// [`use_controller_provider`]; `Error::InvalidConfig` if there is none.
///
/// ```no_run
/// use dioxus::prelude::*;
/// use restcache_dioxus::use_controller;
///
/// fn ResetButton() -> Element {
///     let ctrl = use_controller()?;
///     rsx! { button { onclick: move |_| ctrl.reset(), "Forget everything" } }
/// }
/// ```
pub fn use_controller() -> Result<Controller, Error> {
    try_use_context::<Controller>().ok_or_else(|| Error::InvalidConfig {
        reason: "no restcache Controller here: call use_controller_provider in an ancestor".into(),
    })
}

/// A live read of `ep` for `args`, as a signal of its [`ReadStatus`]: `Loading` until there is
/// data, then `Ready`, `Fetching` while stale data is refetched, or `Error`. Reading the signal
/// while rendering re-renders the component on every change. It never suspends.
///
/// The read is a [`Controller::subscribe`] view, started once the component is mounted and
/// dropped with it: it fetches on a miss (once per key, however many components read it), and
/// then follows the cache. When `args` (or the endpoint) name another key on a later render,
/// the view moves to that key: the signal, the same one on every render, then holds the new
/// key's status (and no longer the old key's data).
///
/// Errors that come before any request (no provider, args that do not fit, a member that is
/// not a GET) are shown as `ReadStatus::Error` with no data.
///
/// ```no_run
/// use dioxus::prelude::*;
/// use restcache::controller::ReadStatus;
/// use restcache::prelude::*;
/// use restcache_dioxus::use_live;
///
/// #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// resource! {
///     #[resource(path = "/todos/:id", schema = Todo)]
///     struct TodoResource;
/// }
///
/// #[component]
/// fn Title(id: u64) -> Element {
///     let status = use_live(&TodoResource::get(), params! { id: id });
///     match &*status.read() {
///         ReadStatus::Loading => rsx! { "loading…" },
///         ReadStatus::Ready(todo) => rsx! { "{todo.title}" },
///         ReadStatus::Fetching(todo) => rsx! { "{todo.title} (refreshing)" },
///         ReadStatus::Error { error, .. } => rsx! { "error: {error}" },
///     }
/// }
/// ```
pub fn use_live<S, B, G>(ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> ReadSignal<ReadStatus<S::Output>>
where
    S: Schema + 'static,
    B: 'static,
    G: 'static,
{
    live_view(ep, &args).borrow().read
}

/// The data of a read of `ep` for `args`, suspending the component (for the nearest
/// `SuspenseBoundary`) while there is none: Dioxus's `use_resource(..).suspend()?`, over the
/// cache. Data in the cache and fresh is returned at once, with no request; otherwise the read
/// fetches (once per key) and the boundary shows its fallback until the data arrives.
///
/// It stays live, like [`use_live`]: when the cache changes, the component re-renders with the
/// new data and no refetch. Stale data is returned while it is refetched (no fallback), and so
/// is the data a soft error keeps ([`Error::is_soft`]). Any other error is returned as a
/// [`RenderError`], for the nearest `ErrorBoundary`.
///
/// ```no_run
/// use dioxus::prelude::*;
/// use restcache::prelude::*;
/// use restcache_dioxus::use_suspense;
///
/// #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String, completed: bool }
///
/// resource! {
///     #[resource(path = "/todos/:id", schema = Todo)]
///     struct TodoResource;
/// }
///
/// fn Todos() -> Element {
///     rsx! {
///         SuspenseBoundary { fallback: |_| rsx! { "loading…" }, TodoList {} }
///     }
/// }
///
/// fn TodoList() -> Element {
///     let todos = use_suspense(&TodoResource::get_list(), params! { userId: "u1" })?;
///     rsx! {
///         ul { for todo in todos.iter() { li { key: "{todo.id}", "{todo.title}" } } }
///     }
/// }
/// ```
pub fn use_suspense<S, B, G>(ep: &RestEndpoint<S, B, G>, args: impl Serialize) -> Result<Arc<S::Output>, RenderError>
where
    S: Schema + 'static,
    B: 'static,
    G: 'static,
{
    let view = live_view(ep, &args);
    let status = view.borrow().status;
    let shown = match &*status.read() {
        ReadStatus::Ready(data) | ReadStatus::Fetching(data) => return Ok(Arc::clone(data)),
        ReadStatus::Error {
            error,
            data: Some(data),
        } if error.is_soft() => return Ok(Arc::clone(data)),
        ReadStatus::Error { error, .. } => Err(error.clone()),
        ReadStatus::Loading => Ok(()),
    };
    shown?;
    let task = view.borrow_mut().waiter();
    match task {
        Some(task) => Err(RenderError::Suspended(SuspendedFuture::new(task))),
        // Loading with nothing to wait for cannot happen: a view that cannot read has an
        // error status. Say so rather than suspend forever.
        None => Err(Error::InvalidConfig {
            reason: "use_suspense: the read is loading but has no request to wait for".into(),
        }
        .into()),
    }
}

/// What a read needs to run: the Controller, the endpoint and the args, as JSON.
struct Source<S, B, G> {
    ctrl: Controller,
    ep: RestEndpoint<S, B, G>,
    args: Value,
}

impl<S, B, G> Clone for Source<S, B, G> {
    fn clone(&self) -> Self {
        Source {
            ctrl: self.ctrl.clone(),
            ep: self.ep.clone(),
            args: self.args.clone(),
        }
    }
}

/// One component's read: its status signal, for the component's whole life, and for the key
/// it reads now the task that keeps it live and the task a suspended render waits on.
struct View<S: Schema, B, G> {
    /// The cache key read, or why there is none; a new one restarts the view.
    key: Result<String, Error>,
    status: Signal<ReadStatus<S::Output>>,
    /// The read-only handle of `status` that [`use_live`] returns, made once: each conversion
    /// would make a new one, held until the component is dropped.
    read: ReadSignal<ReadStatus<S::Output>>,
    /// `None` when the read cannot run (its status is then an error).
    source: Option<Source<S, B, G>>,
    follower: Option<Task>,
    /// The waiter of the last suspension, and whether it has ended.
    waiter: Option<(Task, Rc<Cell<bool>>)>,
}

impl<S, B, G> View<S, B, G>
where
    S: Schema + 'static,
    B: 'static,
    G: 'static,
{
    /// A view of `key`, its status as the cache has it now, followed by a task of the scope.
    fn start(key: Result<String, Error>, source: Result<Source<S, B, G>, Error>) -> Self {
        let status = Signal::new(ReadStatus::Loading);
        let mut view = View {
            key: key.clone(),
            status,
            read: status.into(),
            source: None,
            follower: None,
            waiter: None,
        };
        view.read_key(key, source);
        view
    }

    /// Moves the view to `key`: the old key's tasks stop, the signal takes the new key's status
    /// as the cache has it now, and a task of the scope follows it.
    fn read_key(&mut self, key: Result<String, Error>, source: Result<Source<S, B, G>, Error>) {
        self.stop();
        let (now, source) = match source {
            Ok(source) => match source.ctrl.status(&source.ep, &source.args) {
                Ok(status) => (status, Some(source)),
                Err(error) => (ReadStatus::Error { error, data: None }, None),
            },
            Err(error) => (ReadStatus::Error { error, data: None }, None),
        };
        show(self.status, now);
        self.key = key;
        self.follower = source.clone().map(|source| spawn(follow(source, self.status)));
        self.source = source;
        self.waiter = None;
    }

    /// The task a suspended render waits on: it ends once the read has settled, with the
    /// status set to what the cache then holds. Tasks of a suspended component do not run
    /// until it resumes, so this one reads on its own instead of waiting for the follower.
    ///
    /// A waiter that has ended is never handed out again (Dioxus cannot suspend on a task that
    /// is gone): a read that is loading again (after an invalidation, say) gets a new one.
    fn waiter(&mut self) -> Option<Task> {
        if let Some((task, ended)) = &self.waiter
            && !ended.get()
        {
            return Some(*task);
        }
        let source = self.source.clone()?;
        let status = self.status;
        let ended = Rc::new(Cell::new(false));
        let done = Rc::clone(&ended);
        let task = spawn(async move {
            let settled = source.ctrl.suspense(&source.ep, &source.args).await;
            let now = source.ctrl.status(&source.ep, &source.args);
            done.set(true);
            let now = match (now, settled) {
                (Ok(ReadStatus::Loading), Err(error)) | (Err(error), _) => ReadStatus::Error { error, data: None },
                (Ok(now), _) => now,
            };
            show(status, now);
        });
        self.waiter = Some((task, ended));
        Some(task)
    }

    fn stop(&self) {
        let waiter = self.waiter.as_ref().map(|(task, _)| task);
        self.follower.iter().chain(waiter).for_each(|t| t.cancel());
    }
}

/// Publishes every status of the read into `status`, for as long as the task lives.
async fn follow<S, B, G>(source: Source<S, B, G>, status: Signal<ReadStatus<S::Output>>)
where
    S: Schema + 'static,
{
    let mut live = source.ctrl.subscribe(&source.ep, &source.args);
    while let Some(next) = live.next_status().await {
        show(status, next);
    }
}

/// Sets `status` to `now`, unless it already shows that (the same data, by identity): a write
/// re-renders every reader, and a view's first status is mostly the one it shows already.
fn show<T: 'static>(mut status: Signal<ReadStatus<T>>, now: ReadStatus<T>) {
    if !status.peek().same(&now) {
        status.set(now);
    }
}

/// The component's view of `ep` for `args`, the same on every render; when the key changed, it
/// moves to the new key (its old tasks stop, and its signal no longer holds the old data).
fn live_view<S, B, G>(ep: &RestEndpoint<S, B, G>, args: &impl Serialize) -> Rc<RefCell<View<S, B, G>>>
where
    S: Schema + 'static,
    B: 'static,
    G: 'static,
{
    let ctrl = use_controller();
    // The key is computed first: it bounds the args' depth (restcache refuses values nested
    // deeper than its limit), so turning them into JSON afterwards is safe.
    let key = ctrl.clone().and_then(|_| ep.key(args));
    let source = || -> Result<Source<S, B, G>, Error> {
        key.clone()?;
        let args = serde_json::to_value(args).map_err(|e| Error::InvalidArgs { reason: e.to_string() })?;
        Ok(Source {
            ctrl: ctrl.clone()?,
            ep: ep.clone(),
            args,
        })
    };
    let view = use_hook(|| Rc::new(RefCell::new(View::start(key.clone(), source()))));
    if view.borrow().key != key {
        let source = source();
        view.borrow_mut().read_key(key, source);
    }
    view
}
