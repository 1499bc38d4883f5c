//! `status`: what a view can show for an endpoint and args right now (issue #24, item 2) —
//! the Rust form of Data Client's `useDLE` and TanStack's `isFetching`.

use std::any::TypeId;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::Controller;
use super::fetch::Prepared;
use crate::error::Error;
use crate::rest::RestEndpoint;
use crate::rt::Instant;
use crate::schema::Schema;
use crate::store::{ExpiryStatus, args_map};

/// What a view can show for one endpoint and args: nothing yet, data, stale data being
/// refetched, or an error (with the data the error policy keeps). Returned by
/// [`Controller::status`].
///
/// ```
/// use restcache::controller::ReadStatus;
/// use restcache::prelude::*;
///
/// #[derive(Clone, Debug, Default, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// resource! {
///     #[resource(path = "/todos/:id", schema = Todo)]
///     pub struct TodoResource;
/// }
///
/// fn render(status: ReadStatus<Todo>) -> String {
///     match status {
///         ReadStatus::Loading => "loading…".into(),
///         ReadStatus::Ready(todo) => todo.title.clone(),
///         ReadStatus::Fetching(todo) => format!("{} (refreshing)", todo.title),
///         ReadStatus::Error { error, data: Some(todo) } => format!("{} ({error})", todo.title),
///         ReadStatus::Error { error, data: None } => error.to_string(),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = demo_api::DemoServer::start().await?;
/// let ctrl = Controller::builder().base_url(server.base_url()).build()?;
/// assert_eq!(render(ctrl.status(&TodoResource::get(), params! { id: 1 })?), "loading…");
/// ctrl.suspense(&TodoResource::get(), params! { id: 1 }).await?;
/// assert!(matches!(ctrl.status(&TodoResource::get(), params! { id: 1 })?, ReadStatus::Ready(_)));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub enum ReadStatus<T> {
    /// Nothing to show yet: no usable data (or only data a hard error hides), and a GET is in
    /// flight or a read would send one.
    Loading,
    /// Data to show, fresh or stale, with no refetch running.
    Ready(Arc<T>),
    /// Data to show (stale, or kept by a soft error) while a GET of the same URL refetches it.
    Fetching(Arc<T>),
    /// The last fetch failed within `error_expiry_length` (R-POL-2). `data` is the last data
    /// when the error is soft ([`Error::is_soft`]), `None` when it is hard.
    Error {
        /// The error of the last fetch.
        error: Error,
        /// The data the error policy keeps showing, if any.
        data: Option<Arc<T>>,
    },
}

impl<T> ReadStatus<T> {
    /// Whether `self` and `other` show the same thing: the same variant with the same data
    /// (the same `Arc`) and an equal error. A view re-renders only when this is false.
    ///
    /// ```
    /// use restcache::controller::ReadStatus;
    /// use std::sync::Arc;
    ///
    /// let data = Arc::new(1);
    /// assert!(ReadStatus::Ready(Arc::clone(&data)).same(&ReadStatus::Ready(Arc::clone(&data))));
    /// assert!(!ReadStatus::Ready(Arc::clone(&data)).same(&ReadStatus::Fetching(data)));
    /// assert!(!ReadStatus::Ready(Arc::new(1)).same(&ReadStatus::Ready(Arc::new(1))));
    /// ```
    pub fn same(&self, other: &Self) -> bool {
        let same_data = |a: &Option<Arc<T>>, b: &Option<Arc<T>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        match (self, other) {
            (ReadStatus::Loading, ReadStatus::Loading) => true,
            (ReadStatus::Ready(a), ReadStatus::Ready(b)) | (ReadStatus::Fetching(a), ReadStatus::Fetching(b)) => {
                Arc::ptr_eq(a, b)
            }
            (ReadStatus::Error { error: e, data: d }, ReadStatus::Error { error: f, data: g }) => {
                e == f && same_data(d, g)
            }
            _ => false,
        }
    }

    /// The data to show, if any: that of `Ready` and `Fetching`, and what an `Error` keeps.
    ///
    /// ```
    /// use restcache::controller::ReadStatus;
    /// use std::sync::Arc;
    ///
    /// assert_eq!(ReadStatus::Fetching(Arc::new(7)).data().map(|n| **n), Some(7));
    /// assert!(ReadStatus::<u8>::Loading.data().is_none());
    /// ```
    pub fn data(&self) -> Option<&Arc<T>> {
        match self {
            ReadStatus::Loading => None,
            ReadStatus::Ready(d) | ReadStatus::Fetching(d) => Some(d),
            ReadStatus::Error { data, .. } => data.as_ref(),
        }
    }
}

impl<T> Clone for ReadStatus<T> {
    fn clone(&self) -> Self {
        match self {
            ReadStatus::Loading => ReadStatus::Loading,
            ReadStatus::Ready(d) => ReadStatus::Ready(Arc::clone(d)),
            ReadStatus::Fetching(d) => ReadStatus::Fetching(Arc::clone(d)),
            ReadStatus::Error { error, data } => ReadStatus::Error {
                error: error.clone(),
                data: data.clone(),
            },
        }
    }
}

impl Controller {
    /// The [`ReadStatus`] of `ep` for `args`, from the cache (as [`get_response`](Self::get_response)
    /// reads it) and whether a GET of that URL is in flight. Never sends a request; see
    /// [`ReadStatus`] for an example.
    ///
    /// Only GET members are accepted (`Error::InvalidConfig` otherwise); args that do not fit
    /// the path are the error `get_response` gives them (`Error::MissingParam`, say). An error
    /// past its `error_expiry_length` is not reported; a live view's status shows that at the
    /// next change it sees, as the expiry alone does not wake it.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// # let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// let ctrl = Controller::new();
    /// assert!(matches!(ctrl.status(&todos.get(), params! { id: 1 })?, ReadStatus::Loading));
    /// ctrl.set_response(&todos.get(), params! { id: 1 }, json!({ "id": 1, "title": "a" }))?;
    /// assert!(matches!(ctrl.status(&todos.get(), params! { id: 1 })?, ReadStatus::Ready(t) if t.title == "a"));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn status<S: Schema, B, G>(
        &self,
        ep: &RestEndpoint<S, B, G>,
        args: impl Serialize,
    ) -> Result<ReadStatus<S::Output>, Error> {
        let cfg = &ep.cfg;
        cfg.require_get("have a read status")?;
        self.read_status::<S>(&Prepared::new(Arc::clone(cfg), args_map(&args)?, None)?)
    }

    /// [`status`](Self::status) of a GET whose key and URL are built (a live view reads it
    /// after every change, so it builds them once).
    pub(crate) fn read_status<S: Schema>(&self, req: &Prepared) -> Result<ReadStatus<S::Output>, Error> {
        let flight_key = (req.url.clone(), TypeId::of::<S>());
        // Flights, then the store: the order `start` takes them in.
        let flights = self.inner.in_flight.lock();
        let store = self.inner.store.lock();
        // A flight from before a reset is not one a read would join (R-EXP-5).
        let fetching = flights.get(&flight_key).is_some_and(|f| f.epoch() == store.epoch());
        let read = store.get_response_with::<S>(&req.key, &req.args, req.cfg.invalid_if_stale)?;
        // Hidden by a pending optimistic delete: no read fetches, the delete's outcome decides.
        let hidden = read.status == ExpiryStatus::Invalid
            && store.hidden_by_layers::<S>(&req.key, &Value::Object(req.args.clone()));
        drop(store);
        drop(flights);
        // What `suspense` would serve: usable data, unless a hard error hides it (R-POL-2). An
        // error past its expiry is served no more: the next read fetches again.
        let standing = !read.is_stale(Instant::now());
        // A hard error past its expiry hides the data no more: the kept data shows (R-POL-2).
        let kept = read
            .data
            .clone()
            .filter(|_| !standing && read.status != ExpiryStatus::Invalid);
        let shown = read.usable().cloned().or(kept);
        Ok(match (shown, read.error.filter(|_| standing)) {
            (Some(data), _) if fetching => ReadStatus::Fetching(data),
            (None, _) if fetching => ReadStatus::Loading,
            (data, Some(error)) => ReadStatus::Error { error, data },
            (Some(data), None) => ReadStatus::Ready(data),
            (None, None) if hidden => ReadStatus::Error {
                error: Error::Invalidated { key: req.key.clone() },
                data: None,
            },
            (None, None) => ReadStatus::Loading,
        })
    }
}
