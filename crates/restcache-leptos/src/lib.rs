//! [Leptos](https://leptos.dev) 0.8 bindings for restcache: a [`Controller`] provided to a
//! component tree, reads that suspend a `<Suspense>` or `<Transition>` until the data is there
//! and then follow the cache, and a live [`ReadStatus`] signal.
//!
//! | function | gives |
//! |---|---|
//! | [`provide_controller`] | the Controller to every descendant, and (in the browser) refetches on focus, visibility and reconnection |
//! | [`use_controller`], [`try_use_controller`] | that Controller, for mutations (`ctrl.fetch(..)`) |
//! | [`use_suspense`] | a [`LocalResource`] of the data: it suspends until the first read, then shows every change the cache sees, with no refetch |
//! | [`use_live`] | a [`Signal`] of the [`ReadStatus`]: loading, ready, refetching, or an error |
//!
//! Args are a closure, read reactively: when a signal it reads changes the key, the read follows
//! the new args (the old live view is dropped, which also stops its polling); a change that names
//! the same key leaves the read as it is.
//!
//! ```no_run
//! use leptos::prelude::*;
//! use restcache::prelude::*;
//! use restcache_leptos::{provide_controller, use_suspense};
//!
//! #[derive(Clone, Debug, Default, serde::Deserialize, Entity)]
//! struct Todo { #[entity(pk)] id: u64, title: String }
//!
//! resource! {
//!     #[resource(path = "/todos/:id", schema = Todo)]
//!     pub struct TodoResource;
//! }
//!
//! #[component]
//! fn Todos() -> impl IntoView {
//!     let todos = use_suspense(&TodoResource::get_list(), || params! { userId: "u1" });
//!     view! {
//!         <Transition fallback=|| "loading…">
//!             <ul>
//!                 {move || Suspend::new(async move {
//!                     match todos.await {
//!                         Ok(todos) => todos.iter().map(|t| view! { <li>{t.title.clone()}</li> }).collect_view().into_any(),
//!                         Err(e) => view! { <li>{e.to_string()}</li> }.into_any(),
//!                     }
//!                 })}
//!             </ul>
//!         </Transition>
//!     }
//! }
//!
//! # fn main() -> Result<(), restcache::Error> {
//! let ctrl = Controller::builder().base_url("http://127.0.0.1:3000").build()?;
//! leptos::mount::mount_to_body(move || {
//!     provide_controller(ctrl.clone());
//!     view! { <Todos/> }
//! });
//! # Ok(())
//! # }
//! ```
//!
//! In the browser, the hooks need Leptos's `csr` feature (its effects and task executor), as
//! any Leptos client-side app has.
//!
//! `leptos::prelude` and `restcache::prelude` both export an `Error`: with both globs in scope,
//! name restcache's `restcache::Error`.

use std::cell::OnceCell;
use std::rc::Rc;
use std::sync::Arc;

use futures::future::{AbortHandle, AbortRegistration, Abortable};
use leptos::prelude::*;
use leptos::task::spawn_local;
use restcache::controller::{ReadStatus, Subscription};
use restcache::schema::Schema;
use restcache::{Controller, Error, RestEndpoint};
use serde::Serialize;
use serde_json::Value;

/// Provides `ctrl` to the current component and its descendants, for [`use_controller`],
/// [`use_suspense`] and [`use_live`].
///
/// In the browser it also follows the window for as long as the current owner lives (the
/// listeners go when it is dropped), once per call (in a worker, which has no window, it
/// follows nothing):
///
/// | event | call |
/// |---|---|
/// | `focus`, and `visibilitychange` to visible | [`Controller::refetch_stale`]: stale live views refetch |
/// | `online`, `offline` | [`Controller::set_online`] with `navigator.onLine`: polling pauses while offline, and going online refetches what is stale |
///
/// ```no_run
/// use leptos::prelude::*;
/// use restcache::Controller;
/// use restcache_leptos::provide_controller;
///
/// # fn main() -> Result<(), restcache::Error> {
/// let ctrl = Controller::builder().base_url("http://127.0.0.1:3000").build()?;
/// leptos::mount::mount_to_body(move || {
///     provide_controller(ctrl.clone());
///     view! { <p>"the app goes here"</p> }
/// });
/// # Ok(())
/// # }
/// ```
pub fn provide_controller(ctrl: Controller) {
    #[cfg(target_arch = "wasm32")]
    browser::follow_window(&ctrl);
    provide_context(ctrl);
}

/// The [`Controller`] that an ancestor provided with [`provide_controller`].
///
/// # Panics
///
/// If no ancestor provided one, like Leptos's `expect_context`; [`try_use_controller`] returns
/// the error instead.
///
/// ```no_run
/// use leptos::prelude::*;
/// use restcache::prelude::*;
/// use restcache_leptos::use_controller;
///
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct Todo { #[entity(pk)] id: u64, completed: bool }
/// # resource! {
/// #     #[resource(path = "/todos/:id", schema = Todo)]
/// #     pub struct TodoResource;
/// # }
/// #[component]
/// fn Complete(id: u64) -> impl IntoView {
///     let ctrl = use_controller();
///     let complete = move |_| {
///         let ctrl = ctrl.clone();
///         leptos::task::spawn_local(async move {
///             let patch = ctrl
///                 .fetch(&TodoResource::partial_update(), params! { id: id })
///                 .body(&serde_json::json!({ "completed": true }));
///             let _ = patch.await;
///         });
///     };
///     view! { <button on:click=complete>"done"</button> }
/// }
/// ```
pub fn use_controller() -> Controller {
    match try_use_controller() {
        Ok(ctrl) => ctrl,
        Err(e) => panic!("{e}"),
    }
}

/// The [`Controller`] that an ancestor provided with [`provide_controller`], or
/// `Error::InvalidConfig` saying that none did.
///
/// ```
/// use leptos::prelude::*;
/// use restcache::Controller;
/// use restcache_leptos::{provide_controller, try_use_controller};
///
/// let owner = Owner::new();
/// owner.with(|| {
///     assert!(try_use_controller().is_err());
///     provide_controller(Controller::new());
///     assert!(try_use_controller().is_ok());
/// });
/// ```
pub fn try_use_controller() -> Result<Controller, Error> {
    use_context::<Controller>().ok_or_else(|| Error::InvalidConfig {
        reason: "no restcache Controller in this component's context: \
                 call restcache_leptos::provide_controller(ctrl) in an ancestor"
            .into(),
    })
}

/// What [`use_suspense`] holds: the data, or the error of the read.
///
/// ```
/// use std::sync::Arc;
/// use restcache_leptos::ReadResult;
///
/// fn shown(read: &ReadResult<String>) -> String {
///     match read {
///         Ok(title) => title.to_string(),
///         Err(e) => format!("error: {e}"),
///     }
/// }
/// assert_eq!(shown(&Ok(Arc::new("Todo 1".to_string()))), "Todo 1");
/// ```
pub type ReadResult<T> = Result<Arc<T>, Error>;

/// The data of `ep` for the args that `args` returns, as a [`LocalResource`] that works inside
/// `<Suspense>` and `<Transition>` (await it in a `Suspend`, or `.get()` it).
///
/// Its first value is what [`Controller::suspense`] gives: from the cache when it has the data
/// (no request), else from one GET. It then stays live: every later state of the read (a
/// mutation anywhere in the app, a refetch, polling) is set on the resource at once, without a
/// new request and without suspending again. `args` is read reactively; when it changes, the
/// resource reads the new args (suspending a `<Suspense>`; a `<Transition>` keeps showing the
/// old data meanwhile). The live view stops when the args change or the resource's owner is
/// dropped.
///
/// Errors are values: a read error, bad args (`Error::MissingParam`, say), a non-GET endpoint
/// (`Error::InvalidConfig`) or a missing [`provide_controller`] (`Error::InvalidConfig`).
///
/// `args` may notify with no change to the key (a signal set to the value it had): the read
/// then stays as it is, with no new subscription and no suspension.
///
/// The resource's `refetch()` subscribes again: data in the cache is served (and refetched in
/// the background when stale), and a GET is sent when there is none. To fetch from the server,
/// invalidate or expire the data through the Controller (`invalidate`, `expire_all`), which
/// this live read follows.
///
/// ```no_run
/// use leptos::prelude::*;
/// use restcache::prelude::*;
/// use restcache_leptos::use_suspense;
///
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct Todo { #[entity(pk)] id: u64, title: String }
/// # resource! {
/// #     #[resource(path = "/todos/:id", schema = Todo)]
/// #     pub struct TodoResource;
/// # }
/// #[component]
/// fn Detail(id: ReadSignal<u64>) -> impl IntoView {
///     // Reads `id`: another id, another read.
///     let todo = use_suspense(&TodoResource::get(), move || params! { id: id.get() });
///     view! {
///         <Suspense fallback=|| "loading…">
///             {move || todo.get().map(|t| match t {
///                 Ok(t) => t.title.clone(),
///                 Err(e) => e.to_string(),
///             })}
///         </Suspense>
///     }
/// }
/// ```
pub fn use_suspense<S, B, G, A>(
    ep: &RestEndpoint<S, B, G>,
    args: impl Fn() -> A + 'static,
) -> LocalResource<ReadResult<S::Output>>
where
    S: Schema,
    A: Serialize,
    B: 'static,
    G: 'static,
{
    let ctrl = try_use_controller();
    let request = requests(ep, args);
    let ep = ep.clone();
    // The resource, for the task that sets the live view's later states on it. The arena handle
    // is no owning reference, so this makes no cycle.
    let slot: Rc<OnceCell<LocalResource<ReadResult<S::Output>>>> = Rc::default();
    let resource = LocalResource::new({
        let slot = Rc::clone(&slot);
        move || {
            let request = request.get();
            let (ctrl, ep) = (ctrl.clone(), ep.clone());
            // Runs in the resource's owner, which cleans up before every rerun and when dropped.
            let follow = FollowGuard::new();
            let slot = Rc::clone(&slot);
            // Subscribed in the future: a server (`ssr`) never polls it, and subscribes nothing.
            async move {
                let mut view = ctrl?.subscribe(&ep, &request?.args);
                let first = view.next().await.unwrap_or(Err(Error::Aborted));
                follow.spawn(async move {
                    while let Some(state) = view.next().await {
                        if let Some(resource) = slot.get() {
                            resource.try_set(Some(state));
                        }
                    }
                });
                first
            }
        }
    });
    let _ = slot.set(resource);
    resource
}

/// The [`ReadStatus`] of `ep` for the args that `args` returns, as a signal that follows the
/// read: `Loading`, then `Ready`, `Fetching` while a refetch runs, `Error` when one fails.
/// Unlike [`use_suspense`] it never suspends; the view decides what each state shows.
///
/// Its first value is the status the cache gives now ([`Controller::status`]). It subscribes the
/// read (fetching it when the cache has nothing usable, and polling it if the endpoint polls)
/// from an effect, so it follows from the component's mount on, reads `args` reactively, and
/// stops when they change or the owner is dropped. A missing [`provide_controller`] or bad args
/// are an `Error` status.
///
/// ```no_run
/// use leptos::prelude::*;
/// use restcache::prelude::*;
/// use restcache_leptos::use_live;
///
/// # #[derive(Clone, Debug, Default, Entity)]
/// # struct Todo { #[entity(pk)] id: u64, completed: bool }
/// # resource! {
/// #     #[resource(path = "/todos/:id", schema = Todo)]
/// #     pub struct TodoResource;
/// # }
/// #[component]
/// fn Summary() -> impl IntoView {
///     let status = use_live(&TodoResource::get_list(), || params! { userId: "u1" });
///     move || match status.get() {
///         ReadStatus::Loading => "loading…".to_string(),
///         ReadStatus::Ready(todos) => format!("{} todos", todos.len()),
///         ReadStatus::Fetching(todos) => format!("{} todos (refreshing)", todos.len()),
///         ReadStatus::Error { error, .. } => error.to_string(),
///     }
/// }
/// ```
pub fn use_live<S, B, G, A>(ep: &RestEndpoint<S, B, G>, args: impl Fn() -> A + 'static) -> Signal<ReadStatus<S::Output>>
where
    S: Schema,
    A: Serialize,
    B: 'static,
    G: 'static,
{
    let ctrl = try_use_controller();
    let request = requests(ep, args);
    let ep = ep.clone();
    // What the cache has now, so that cached data shows before the effect's first run.
    let now = match (&ctrl, request.get_untracked()) {
        (Ok(ctrl), Ok(request)) => ctrl.status(&ep, &request.args),
        (Err(error), _) => Err(error.clone()),
        (_, Err(error)) => Err(error),
    };
    let status = RwSignal::new(now.unwrap_or_else(|error| ReadStatus::Error { error, data: None }));
    Effect::new(move |_| {
        let request = request.get();
        // Without a Controller the status is that error already.
        let Ok(ctrl) = &ctrl else { return };
        let request = match request {
            Ok(request) => request,
            Err(error) => return show(status, ReadStatus::Error { error, data: None }),
        };
        let mut view: Subscription<S::Output> = ctrl.subscribe(&ep, &request.args);
        show(status, view.status());
        FollowGuard::new().spawn(async move {
            while let Some(next) = view.next_status().await {
                show(status, next);
            }
        });
    });
    status.into()
}

/// Sets `status` to `next`, unless it shows that already (the same data, by identity): a write
/// re-runs everything that reads it, and a view's first status is mostly the one shown. Does
/// nothing once the signal is disposed.
fn show<T: Send + Sync + 'static>(status: RwSignal<ReadStatus<T>>, next: ReadStatus<T>) {
    if status.try_with_untracked(|shown| !shown.same(&next)) == Some(true) {
        status.try_set(next);
    }
}

/// The read that args name: its cache key, and the args as JSON. Two are equal when their keys
/// are.
#[derive(Clone, Debug)]
struct Request {
    key: String,
    args: Value,
}

impl PartialEq for Request {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

/// The request `ep` makes of `args`, or why it makes none.
fn request<S: Schema, B, G>(ep: &RestEndpoint<S, B, G>, args: &impl Serialize) -> Result<Request, Error> {
    // The key first: it bounds the args' depth, so turning them into JSON afterwards is safe.
    let key = ep.key(args)?;
    let args = serde_json::to_value(args).map_err(|e| Error::InvalidArgs { reason: e.to_string() })?;
    Ok(Request { key, args })
}

/// The request of what `args` returns, as a signal that changes only when the key (or the
/// error) does: a signal that `args` reads may notify with no change to the key. It follows
/// `args` from an effect, so on a server it stays what `args` first gave.
fn requests<S, B, G, A>(
    ep: &RestEndpoint<S, B, G>,
    args: impl Fn() -> A + 'static,
) -> ReadSignal<Result<Request, Error>>
where
    S: Schema,
    A: Serialize,
    B: 'static,
    G: 'static,
{
    let ep = ep.clone();
    let current = RwSignal::new(request(&ep, &untrack(&args)));
    Effect::new(move |_| {
        let next = request(&ep, &args());
        if current.with_untracked(|shown| *shown != next) {
            current.set(next);
        }
    });
    current.read_only()
}

/// Stops a task that follows a live view when the current reactive owner cleans up (before an
/// effect or resource reruns, and when it is dropped), which drops the view and its polling.
struct FollowGuard {
    registration: AbortRegistration,
}

impl FollowGuard {
    fn new() -> Self {
        let (abort, registration) = AbortHandle::new_pair();
        on_cleanup(move || abort.abort());
        FollowGuard { registration }
    }

    fn spawn(self, task: impl Future<Output = ()> + 'static) {
        spawn_local(async move {
            let _ = Abortable::new(task, self.registration).await;
        });
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use leptos::prelude::{document, on_cleanup, window, window_event_listener_untyped};
    use restcache::Controller;
    use web_sys::VisibilityState;

    /// Wires the window's focus, visibility and connectivity events to `ctrl`, until the
    /// current owner cleans up. Outside a window (a worker, say), wires nothing: Leptos's own
    /// `window()` would panic there.
    pub(super) fn follow_window(ctrl: &Controller) {
        if web_sys::window().is_none() {
            return;
        }
        // Both ways: the Controller may have gone offline under an earlier provider, which was
        // gone when the window came back online. Setting what it is already does nothing.
        ctrl.set_online(window().navigator().on_line());
        let refetch = {
            let ctrl = ctrl.clone();
            move |_| ctrl.refetch_stale()
        };
        let visible = {
            let ctrl = ctrl.clone();
            move |_| {
                if document().visibility_state() == VisibilityState::Visible {
                    ctrl.refetch_stale();
                }
            }
        };
        // `set_online(true)` refetches what is stale itself.
        let connectivity = {
            let ctrl = ctrl.clone();
            move |_| ctrl.set_online(window().navigator().on_line())
        };
        let handles = [
            window_event_listener_untyped("focus", refetch),
            window_event_listener_untyped("visibilitychange", visible),
            window_event_listener_untyped("online", connectivity.clone()),
            window_event_listener_untyped("offline", connectivity),
        ];
        on_cleanup(move || handles.into_iter().for_each(|h| h.remove()));
    }
}
