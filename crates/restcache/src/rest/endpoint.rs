//! `RestEndpoint<S, B>`: one REST member — method, path template, schema — and its URLs and keys
//! (R-URL, R-KEY, R-RES-3/5).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use restcache_path::{KeyPattern, RenderError, Template, TemplateError};
use serde::Serialize;
use serde_json::{Map, Value};

use super::hooks::{DefaultHooks, EndpointHooks};
use super::retry::Retry;
use crate::error::Error;
use crate::schema::{
    Assign, Collection, CollectionPolicy, EntitySchema, ListSchema, Move, MoveToFront, Page, Push, Remove, Schema,
    Unshift, Values,
};
use crate::store::{DEFAULT_DATA_EXPIRY, DEFAULT_ERROR_EXPIRY, Optimistic, args_map};

/// The body type of an endpoint that declares none: any `Serialize` value is accepted.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyBody;

/// Marks a list endpoint without `get_page` (no `pagination_field`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoPages;

/// Marks a list endpoint with a `pagination_field`, which offers [`RestEndpoint::get_page`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Pages;

/// Options of one member, each `None` to keep what the member already has (R-RES-4/5). Schema
/// and body types change with [`RestEndpoint::with_schema`] and [`RestEndpoint::with_body`].
///
/// ```
/// use restcache::rest::EndpointOptions;
/// use std::time::Duration;
/// let opts = EndpointOptions { path: Some("/todos/:id/done".into()), data_expiry_length: Some(Duration::from_secs(5)), ..Default::default() };
/// assert!(opts.method.is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct EndpointOptions {
    /// The path template (used verbatim, also for list members).
    pub path: Option<String>,
    /// The HTTP method.
    pub method: Option<Method>,
    /// Put before the path.
    pub url_prefix: Option<String>,
    /// The query parameter `get_page` sets.
    pub pagination_field: Option<String>,
    /// Whether the resource's mutations are optimistic.
    pub optimistic: Option<bool>,
    /// Request hooks (the `endpoint` option).
    pub hooks: Option<Arc<dyn EndpointHooks>>,
    /// How long a successful response stays fresh (`Duration::MAX`: for ever).
    pub data_expiry_length: Option<Duration>,
    /// How long an error stands before a read retries (`Duration::MAX`: for ever).
    pub error_expiry_length: Option<Duration>,
    /// Stale data reads as `InvalidIfStale`.
    pub invalid_if_stale: Option<bool>,
    /// Polling period while subscribed (≥ 1 ms; `Duration::MAX`: no poll).
    pub poll_frequency: Option<Duration>,
    /// How this member's requests are retried, instead of the Controller's policy for GETs
    /// and none for mutations (see [`Retry`]).
    pub retry: Option<Retry>,
    /// The member's name, for tracing.
    pub name: Option<String>,
}

/// Everything about a member except its types. Shared by clones of an endpoint.
#[derive(Clone)]
pub(crate) struct EndpointConfig {
    pub name: String,
    pub method: Method,
    pub path: Template,
    pub url_prefix: String,
    pub pagination_field: Option<String>,
    /// `get_page`: the key leaves out the pagination field (R-PAGE-2).
    pub page: bool,
    pub data_expiry: Duration,
    pub error_expiry: Duration,
    pub invalid_if_stale: bool,
    pub poll_frequency: Option<Duration>,
    /// The resource-level `optimistic` flag, inherited by derived members.
    pub optimistic: bool,
    /// This member's optimistic transform.
    pub transform: Option<Optimistic>,
    pub hooks: Arc<dyn EndpointHooks>,
    /// This member's retry policy; `None` for the Controller's (GETs) or none (mutations).
    pub retry: Option<Retry>,
    /// A run-time `non_filter_argument_keys` / collection policy.
    pub policy: Option<Arc<dyn CollectionPolicy>>,
    /// The path `move_item` sends to: a resource's item path; `None` is the list's own.
    pub move_path: Option<Template>,
    pub pattern: KeyPattern,
}

pub(crate) fn template_error(e: TemplateError) -> Error {
    Error::InvalidTemplate {
        template: e.template,
        index: e.index,
        reason: e.reason,
    }
}

pub(crate) fn render_error(e: RenderError) -> Error {
    match e {
        RenderError::MissingParam { name, template } => Error::MissingParam { name, template },
        RenderError::InvalidParam { name, reason } => Error::InvalidParam { name, reason },
        other => Error::InvalidParam {
            name: other.name().to_owned(),
            reason: other.to_string(),
        },
    }
}

impl EndpointConfig {
    pub fn new(name: String, method: Method, path: Template, url_prefix: String) -> Self {
        let pattern = path.key_pattern(method.as_str(), &url_prefix);
        EndpointConfig {
            name,
            method,
            path,
            url_prefix,
            pagination_field: None,
            page: false,
            data_expiry: DEFAULT_DATA_EXPIRY,
            error_expiry: DEFAULT_ERROR_EXPIRY,
            invalid_if_stale: false,
            poll_frequency: None,
            optimistic: false,
            transform: None,
            hooks: Arc::new(DefaultHooks),
            retry: None,
            policy: None,
            move_path: None,
            pattern,
        }
    }

    /// A copy with `opts` applied. A new path or method drops the optimistic transform only
    /// when the caller says so (the add form, R-RES-4), or when the method is now a read.
    pub fn apply(&self, opts: &EndpointOptions) -> Result<Self, Error> {
        let mut c = self.clone();
        if let Some(p) = &opts.path {
            c.path = Template::parse(p).map_err(template_error)?;
        }
        c.method = opts.method.clone().unwrap_or(c.method);
        c.url_prefix = opts.url_prefix.clone().unwrap_or(c.url_prefix);
        c.pagination_field = opts.pagination_field.clone().or(c.pagination_field);
        c.hooks = opts.hooks.clone().unwrap_or(c.hooks);
        c.data_expiry = opts.data_expiry_length.unwrap_or(c.data_expiry);
        c.error_expiry = opts.error_expiry_length.unwrap_or(c.error_expiry);
        c.invalid_if_stale = opts.invalid_if_stale.unwrap_or(c.invalid_if_stale);
        c.name = opts.name.clone().unwrap_or(c.name);
        if let Some(o) = opts.optimistic {
            c.optimistic = o;
            if !o {
                c.transform = None;
            }
        }
        // A read is never optimistic (R-OPTM-1): a member turned into one drops its transform.
        if c.is_read() {
            c.transform = None;
        }
        if let Some(p) = opts.poll_frequency {
            if p < Duration::from_millis(1) {
                return Err(Error::InvalidConfig {
                    reason: "poll_frequency must be at least 1 ms".into(),
                });
            }
            c.poll_frequency = Some(p);
        }
        if let Some(r) = opts.retry {
            r.check()?;
            c.retry = Some(r);
        }
        c.pattern = c.path.key_pattern(c.method.as_str(), &c.url_prefix);
        Ok(c)
    }

    /// Whether the method only reads: GET or HEAD.
    pub fn is_read(&self) -> bool {
        self.method == Method::GET || self.method == Method::HEAD
    }

    /// `Error::InvalidConfig` unless the member is a GET: "only GET members {what}".
    pub fn require_get(&self, what: &str) -> Result<(), Error> {
        if self.method == Method::GET {
            return Ok(());
        }
        let reason = format!("{} is a {} member; only GET members {what}", self.name, self.method);
        Err(Error::InvalidConfig { reason })
    }

    /// `url_prefix + rendered path + query` (R-URL-1), leaving out `without`.
    pub fn url_with(&self, args: &Map<String, Value>, without: Option<&str>) -> Result<String, Error> {
        match without {
            Some(field) => self.path.render_url_without(&self.url_prefix, args, &[field]),
            None => self.path.render_url(&self.url_prefix, args),
        }
        .map_err(render_error)
    }

    pub fn url(&self, args: &Map<String, Value>) -> Result<String, Error> {
        self.url_with(args, None)
    }

    /// The cache key (R-KEY-1); a page's key leaves out the pagination field (R-PAGE-2).
    pub fn key(&self, args: &Map<String, Value>) -> Result<String, Error> {
        let without = if self.page {
            self.pagination_field.as_deref()
        } else {
            None
        };
        Ok(format!("{} {}", self.method.as_str(), self.url_with(args, without)?))
    }

    /// The args a page writes its collection with: without the pagination field.
    pub fn write_args(&self, args: &Map<String, Value>) -> Option<Map<String, Value>> {
        let field = self.pagination_field.as_deref().filter(|_| self.page)?;
        let mut a = args.clone();
        a.remove(field);
        Some(a)
    }
}

/// One REST member: its method, path template, schema `S` and body type `B`.
///
/// Cheap to clone. Build one with [`RestEndpoint::builder`], take one from a resource, or derive
/// one with [`extend`](Self::extend).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::RestEndpoint;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let get = RestEndpoint::<Todo>::builder("/users/:user/todos/:id").build()?;
/// assert_eq!(get.url(&params! { user: "ada", id: 5, sort: "asc" })?, "/users/ada/todos/5?sort=asc");
/// assert_eq!(get.key(&params! { user: "ada", id: 5 })?, "GET /users/ada/todos/5");
/// assert!(get.test_key("GET /users/bo/todos/7"));
/// # Ok::<(), restcache::Error>(())
/// ```
///
/// `B` is the declared body type (documentation for callers: `fetch(..).body(..)` takes any
/// `Serialize` value); `G` is [`Pages`] when the endpoint offers `get_page`.
pub struct RestEndpoint<S, B = AnyBody, G = NoPages> {
    pub(crate) cfg: Arc<EndpointConfig>,
    types: Types<S, B, G>,
}

/// The type parameters of an endpoint or resource, carried without owning anything.
pub(crate) type Types<A, B, C> = PhantomData<fn() -> (A, B, C)>;

impl<S, B, G> Clone for RestEndpoint<S, B, G> {
    fn clone(&self) -> Self {
        self.retype()
    }
}

impl<S, B, G> RestEndpoint<S, B, G> {
    pub(crate) fn from_arc(cfg: Arc<EndpointConfig>) -> Self {
        RestEndpoint {
            cfg,
            types: PhantomData,
        }
    }

    /// The same endpoint under other type parameters.
    fn retype<S2, B2, G2>(&self) -> RestEndpoint<S2, B2, G2> {
        RestEndpoint::from_arc(Arc::clone(&self.cfg))
    }
}

impl<S, B, G> fmt::Debug for RestEndpoint<S, B, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestEndpoint")
            .field("name", &self.cfg.name)
            .field("method", &self.cfg.method)
            .field("path", &self.cfg.path.as_str())
            .field("url_prefix", &self.cfg.url_prefix)
            .field("schema", &std::any::type_name::<S>())
            .finish_non_exhaustive()
    }
}

impl<S: Schema, B> RestEndpoint<S, B> {
    /// Starts a standalone endpoint on `path` (GET unless [`method`](EndpointBuilder::method)
    /// says otherwise).
    pub fn builder(path: impl Into<String>) -> EndpointBuilder<S, B> {
        EndpointBuilder {
            path: path.into(),
            opts: EndpointOptions::default(),
            types: PhantomData,
        }
    }
}

impl<S: Schema, B, G> RestEndpoint<S, B, G> {
    /// The HTTP method.
    pub fn method(&self) -> &Method {
        &self.cfg.method
    }

    /// The path template as written.
    pub fn path(&self) -> &str {
        self.cfg.path.as_str()
    }

    /// The URL prefix.
    pub fn url_prefix(&self) -> &str {
        &self.cfg.url_prefix
    }

    /// The member's name (`Todo.get_list.push`), for tracing.
    pub fn name(&self) -> &str {
        &self.cfg.name
    }

    /// The pagination field, if `get_page` is offered.
    pub fn pagination_field(&self) -> Option<&str> {
        self.cfg.pagination_field.as_deref()
    }

    /// How long a successful response stays fresh.
    pub fn data_expiry_length(&self) -> Duration {
        self.cfg.data_expiry
    }

    /// How long an error stands before a read retries.
    pub fn error_expiry_length(&self) -> Duration {
        self.cfg.error_expiry
    }

    /// Whether stale data must be refetched before it is read.
    pub fn invalid_if_stale(&self) -> bool {
        self.cfg.invalid_if_stale
    }

    /// The polling period while subscribed.
    pub fn poll_frequency(&self) -> Option<Duration> {
        self.cfg.poll_frequency
    }

    /// This member's optimistic transform, if the resource is optimistic.
    pub fn optimistic(&self) -> Option<Optimistic> {
        self.cfg.transform
    }

    /// The request URL for `args` (R-URL-1): prefix, rendered path, query of the other keys.
    pub fn url(&self, args: &impl Serialize) -> Result<String, Error> {
        self.cfg.url(&args_map(args)?)
    }

    /// The cache key for `args`: `METHOD url` (R-KEY-1).
    pub fn key(&self, args: &impl Serialize) -> Result<String, Error> {
        self.cfg.key(&args_map(args)?)
    }

    /// Whether a stored key belongs to this endpoint (R-KEY-2), for `expire_all` and
    /// `invalidate_all`.
    pub fn test_key(&self, key: &str) -> bool {
        self.cfg.pattern.test_key(key)
    }

    /// A new endpoint that starts from every option of this one, with `opts` applied (the
    /// seed's `extend`). The optimistic transform is kept.
    pub fn extend(&self, opts: EndpointOptions) -> Result<Self, Error> {
        Ok(Self::from_arc(Arc::new(self.cfg.apply(&opts)?)))
    }

    /// The same endpoint with `hooks` instead of its own: a value built with whatever state
    /// it needs (see [`EndpointHooks`]).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::{EndpointHooks, RequestInit, RestEndpoint};
    /// use std::sync::Arc;
    ///
    /// #[derive(Clone, Debug, Default, Entity)]
    /// struct Todo { #[entity(pk)] id: u64, title: String }
    ///
    /// struct Tenant(Arc<str>);
    /// impl EndpointHooks for Tenant {
    ///     fn request_init(&self, init: &mut RequestInit) {
    ///         init.headers.insert("x-tenant", self.0.parse().unwrap());
    ///     }
    /// }
    ///
    /// let get = RestEndpoint::<Todo>::builder("/todos/:id").build()?;
    /// let for_acme = get.with_hooks(Tenant("acme".into()));
    /// assert_eq!(for_acme.path(), get.path());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn with_hooks(&self, hooks: impl EndpointHooks) -> Self {
        let mut cfg = (*self.cfg).clone();
        cfg.hooks = Arc::new(hooks);
        Self::from_arc(Arc::new(cfg))
    }

    /// The same endpoint with another schema.
    pub fn with_schema<S2: Schema>(&self) -> RestEndpoint<S2, B, G> {
        self.retype()
    }

    /// The same endpoint with another declared body type.
    pub fn with_body<B2>(&self) -> RestEndpoint<S, B2, G> {
        self.retype()
    }

    /// The same endpoint typed as offering `get_page`; `Error::InvalidConfig` when it has no
    /// `pagination_field` (the run-time form of R-RES-1's check).
    pub fn paginated(&self) -> Result<RestEndpoint<S, B, Pages>, Error> {
        if self.cfg.pagination_field.is_none() {
            return Err(Error::InvalidConfig {
                reason: format!("{} has no pagination_field, so it has no get_page", self.cfg.name),
            });
        }
        Ok(self.retype())
    }

    /// For `resource!`, whose `pagination_field` was checked at compile time.
    #[doc(hidden)]
    pub fn __paginated_unchecked(&self) -> RestEndpoint<S, B, Pages> {
        self.retype()
    }

    fn derived<S2: Schema, G2>(
        &self,
        method: Method,
        member: &str,
        transform: Option<Optimistic>,
    ) -> RestEndpoint<S2, B, G2> {
        let mut cfg = (*self.cfg).clone();
        cfg.method = method;
        cfg.name = format!("{}.{member}", self.cfg.name);
        cfg.transform = transform.filter(|_| cfg.optimistic);
        cfg.pattern = cfg.path.key_pattern(cfg.method.as_str(), &cfg.url_prefix);
        RestEndpoint::from_arc(Arc::new(cfg))
    }
}

impl<L: ListSchema, B, G> RestEndpoint<L, B, G> {
    /// `POST` to this list's path; the created entity is appended to every matching list
    /// (R-COL-4).
    pub fn push(&self) -> RestEndpoint<Push<L>, B> {
        self.derived(Method::POST, "push", Some(Optimistic::Push))
    }

    /// `POST` to this list's path; the created entity is prepended to every matching list.
    pub fn unshift(&self) -> RestEndpoint<Unshift<L>, B> {
        self.derived(Method::POST, "unshift", Some(Optimistic::Unshift))
    }

    /// `PATCH` to this list's path with the entity (its pk, and any field to change); the
    /// answered entity is stored and taken out of every matching list, but not deleted
    /// (R-COL-7).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::{Resource, ResourceOptions};
    ///
    /// #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// struct Todo { #[entity(pk)] id: u64, user_id: u64 }
    ///
    /// let todos = Resource::<Todo>::new(ResourceOptions { path: "/users/:user_id/todos/:id".into(), ..Default::default() })?;
    /// let remove = todos.get_list().remove();
    /// assert_eq!(remove.method(), restcache::Method::PATCH);
    /// assert_eq!(remove.url(&params! { user_id: 1 })?, "/users/1/todos");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn remove(&self) -> RestEndpoint<Remove<L>, B> {
        self.derived(Method::PATCH, "remove", Some(Optimistic::Remove))
    }

    /// `PATCH` to the item's path (a resource's own path; the list's path for an endpoint
    /// built alone) with the fields that move the entity; the answered entity leaves every
    /// stored list it matched before and no longer does, and joins, at the end, every one it
    /// matches now (R-COL-8). `move` is a Rust keyword, hence the name.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::{Resource, ResourceOptions};
    ///
    /// #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// struct Todo { #[entity(pk)] id: u64, user_id: u64 }
    ///
    /// let todos = Resource::<Todo>::new(ResourceOptions { path: "/users/:user_id/todos/:id".into(), ..Default::default() })?;
    /// let moved = todos.get_list().move_item();
    /// assert_eq!(moved.method(), restcache::Method::PATCH);
    /// assert_eq!(moved.url(&params! { user_id: 1, id: 5 })?, "/users/1/todos/5");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn move_item(&self) -> RestEndpoint<Move<L>, B> {
        self.mover("move_item")
    }

    /// [`move_item`](Self::move_item), with the lists the entity joins taking it at their start.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use restcache::rest::{Resource, ResourceOptions};
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64 }
    /// let todos = Resource::<Todo>::new(ResourceOptions { path: "/todos/:id".into(), ..Default::default() })?;
    /// assert_eq!(todos.get_list().move_item_to_front().name(), "Todo.get_list.move_item_to_front");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn move_item_to_front(&self) -> RestEndpoint<MoveToFront<L>, B> {
        self.mover("move_item_to_front")
    }

    /// `PATCH` to the item's path (the move path), as member `name`.
    fn mover<S2: Schema>(&self, name: &str) -> RestEndpoint<S2, B> {
        let mut cfg = (*self.cfg).clone();
        if let Some(path) = cfg.move_path.take() {
            cfg.path = path;
        }
        RestEndpoint::<L, B, G>::from_arc(Arc::new(cfg)).derived(Method::PATCH, name, Some(Optimistic::Move))
    }
}

impl<T: EntitySchema, P: CollectionPolicy + Default, B, G> RestEndpoint<Collection<Values<T>, P>, B, G> {
    /// `POST` to this map collection's path with a map of entities; each is stored and set as
    /// an entry of every matching stored map, under its key (R-COL-9).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::RestEndpoint;
    ///
    /// #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// struct Todo { #[entity(pk)] id: u64 }
    ///
    /// let by_id = RestEndpoint::<Collection<Values<Todo>>>::builder("/todos").build()?;
    /// let assign = by_id.assign();
    /// assert_eq!(assign.method(), restcache::Method::POST);
    /// assert_eq!(assign.url(&())?, "/todos");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn assign(&self) -> RestEndpoint<Assign<Collection<Values<T>, P>>, B> {
        self.derived(Method::POST, "assign", None)
    }
}

impl<L: ListSchema, B> RestEndpoint<L, B, Pages> {
    /// `GET` one page: this list's URL plus the pagination field; the page's items are
    /// appended to the list stored under the list's own key (R-PAGE).
    pub fn get_page(&self) -> RestEndpoint<Page<L>, B> {
        let mut page = self.derived::<Page<L>, NoPages>(Method::GET, "get_page", None);
        Arc::make_mut(&mut page.cfg).page = true;
        page
    }
}

/// Builds a standalone [`RestEndpoint`].
pub struct EndpointBuilder<S, B = AnyBody> {
    path: String,
    opts: EndpointOptions,
    types: PhantomData<fn() -> (S, B)>,
}

impl<S: Schema, B> EndpointBuilder<S, B> {
    /// Sets the method (default GET).
    pub fn method(mut self, m: Method) -> Self {
        self.opts.method = Some(m);
        self
    }

    /// Sets the URL prefix.
    pub fn url_prefix(mut self, p: impl Into<String>) -> Self {
        self.opts.url_prefix = Some(p.into());
        self
    }

    /// Sets the name.
    pub fn name(mut self, n: impl Into<String>) -> Self {
        self.opts.name = Some(n.into());
        self
    }

    /// Applies every option of `opts` that is set.
    pub fn options(mut self, opts: EndpointOptions) -> Self {
        let path = opts.path.clone();
        self.opts = opts;
        if let Some(p) = path {
            self.path = p;
        }
        self
    }

    /// Sets the request hooks.
    pub fn hooks(mut self, h: impl EndpointHooks) -> Self {
        self.opts.hooks = Some(Arc::new(h));
        self
    }

    /// Checks the template and builds the endpoint.
    pub fn build(self) -> Result<RestEndpoint<S, B>, Error> {
        let path = Template::parse(&self.path).map_err(template_error)?;
        let name = std::any::type_name::<S>()
            .rsplit("::")
            .next()
            .unwrap_or("endpoint")
            .to_owned();
        let base = EndpointConfig::new(name, Method::GET, path, String::new());
        Ok(RestEndpoint::from_arc(Arc::new(base.apply(&self.opts)?)))
    }
}
