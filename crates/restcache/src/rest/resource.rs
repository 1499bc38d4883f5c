//! `Resource<E>`: the standard members of one path and schema, built at run time (R-RES-1, R-RES-5).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use restcache_path::Template;

use super::endpoint::{AnyBody, EndpointConfig, EndpointOptions, RestEndpoint, Types, template_error};
use super::hooks::EndpointHooks;
use crate::error::Error;
use crate::schema::{Collection, CollectionPolicy, EntitySchema, Invalidate, Schema};
use crate::store::Optimistic;

/// Which list arguments do not filter (R-RES-6 `non_filter_argument_keys`).
#[derive(Clone, Debug)]
pub enum NonFilterKeys {
    /// Exactly these keys.
    Keys(Vec<String>),
    /// The keys for which the function returns true.
    Fn(fn(&str) -> bool),
}

impl CollectionPolicy for NonFilterKeys {
    fn non_filter_argument_keys(&self, key: &str) -> bool {
        match self {
            NonFilterKeys::Keys(keys) => keys.iter().any(|k| k == key),
            NonFilterKeys::Fn(f) => f(key),
        }
    }
}

/// The options of a resource (R-RES-6), the run-time form of `#[resource(...)]`.
///
/// ```
/// use restcache::rest::ResourceOptions;
/// let opts = ResourceOptions { path: "/todos/:id".into(), pagination_field: Some("page".into()), ..Default::default() };
/// assert!(!opts.optimistic);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ResourceOptions {
    /// The path template of `get`, `update`, `partial_update` and `delete`; shortened for lists.
    pub path: String,
    /// Put before every member's path.
    pub url_prefix: String,
    /// Adds `get_list().get_page()`.
    pub pagination_field: Option<String>,
    /// Makes the mutation members optimistic.
    pub optimistic: bool,
    /// Request hooks for every member (the `endpoint` option).
    pub hooks: Option<Arc<dyn EndpointHooks>>,
    /// A collection policy for the list members.
    pub collection: Option<Arc<dyn CollectionPolicy>>,
    /// Replaces the default rule of which list arguments do not filter.
    pub non_filter_argument_keys: Option<NonFilterKeys>,
    /// Polling period while subscribed (≥ 1 ms; `Duration::MAX`: no poll).
    pub poll_frequency: Option<Duration>,
    /// How long a successful response stays fresh (default 60 s; `Duration::MAX`: for ever).
    pub data_expiry_length: Option<Duration>,
    /// How long an error stands (default 1 s; `Duration::MAX`: for ever).
    pub error_expiry_length: Option<Duration>,
    /// Stale data reads as `InvalidIfStale`.
    pub invalid_if_stale: bool,
}

/// The standard members of one REST resource, built at run time (the seed's `createResource`).
///
/// `E` is the entity (or union), `L` the schema of `get_list` (a `Collection` unless replaced
/// with [`with_list_schema`](Self::with_list_schema)), `B` the body type of push, unshift and
/// update.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::{Resource, ResourceOptions};
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let todos = Resource::<Todo>::new(ResourceOptions {
///     path: "/users/:user_id/todos/:id".into(),
///     pagination_field: Some("page".into()),
///     ..Default::default()
/// })?;
/// assert_eq!(todos.get().url(&params! { user_id: "u1", id: 5 })?, "/users/u1/todos/5");
/// assert_eq!(todos.get_list().url(&params! { user_id: "u1", done: true })?, "/users/u1/todos?done=true");
/// let page = todos.get_list().paginated()?.get_page();
/// assert_eq!(page.key(&params! { user_id: "u1", page: 2 })?, "GET /users/u1/todos");
/// assert_eq!(todos.delete().name(), "Todo.delete");
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Resource<E, L = Collection<Vec<E>>, B = AnyBody> {
    get: Arc<EndpointConfig>,
    get_list: Arc<EndpointConfig>,
    update: Arc<EndpointConfig>,
    partial_update: Arc<EndpointConfig>,
    delete: Arc<EndpointConfig>,
    types: Types<E, L, B>,
}

impl<E, L, B> Clone for Resource<E, L, B> {
    fn clone(&self) -> Self {
        self.retype()
    }
}

impl<E, L, B> Resource<E, L, B> {
    /// The same members under other type parameters.
    fn retype<L2, B2>(&self) -> Resource<E, L2, B2> {
        Resource {
            get: Arc::clone(&self.get),
            get_list: Arc::clone(&self.get_list),
            update: Arc::clone(&self.update),
            partial_update: Arc::clone(&self.partial_update),
            delete: Arc::clone(&self.delete),
            types: PhantomData,
        }
    }
}

impl<E, L, B> fmt::Debug for Resource<E, L, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("path", &self.get.path.as_str())
            .finish_non_exhaustive()
    }
}

impl<E: EntitySchema> Resource<E> {
    /// Builds the members; the checks `resource!` makes at compile time are errors here: an
    /// invalid template, a path with no parameter, both `collection` and
    /// `non_filter_argument_keys`, a `poll_frequency` under 1 ms.
    pub fn new(opts: ResourceOptions) -> Result<Self, Error> {
        let path = Template::parse(&opts.path).map_err(template_error)?;
        let list_path = path.shorten().map_err(template_error)?;
        let policy: Option<Arc<dyn CollectionPolicy>> = match (opts.collection, opts.non_filter_argument_keys) {
            (Some(_), Some(_)) => {
                return Err(Error::InvalidConfig {
                    reason: "give either `collection` or `non_filter_argument_keys`, not both".into(),
                });
            }
            (Some(c), None) => Some(c),
            (None, Some(k)) => Some(Arc::new(k)),
            (None, None) => None,
        };
        let shared = EndpointOptions {
            url_prefix: Some(opts.url_prefix),
            optimistic: Some(opts.optimistic),
            hooks: opts.hooks,
            data_expiry_length: opts.data_expiry_length,
            error_expiry_length: opts.error_expiry_length,
            invalid_if_stale: Some(opts.invalid_if_stale),
            poll_frequency: opts.poll_frequency,
            ..EndpointOptions::default()
        };
        let key = E::resource_name();
        let member = |name: &str, method: Method, path: &Template, transform: Option<Optimistic>| {
            let mut cfg =
                EndpointConfig::new(format!("{key}.{name}"), method, path.clone(), String::new()).apply(&shared)?;
            cfg.transform = transform.filter(|_| cfg.optimistic);
            Ok::<_, Error>(Arc::new(cfg))
        };
        let mut get_list = (*member("get_list", Method::GET, &list_path, None)?).clone();
        get_list.pagination_field = opts.pagination_field;
        get_list.policy = policy;
        get_list.move_path = Some(path.clone());
        Ok(Resource {
            get: member("get", Method::GET, &path, None)?,
            get_list: Arc::new(get_list),
            update: member("update", Method::PUT, &path, Some(Optimistic::Update))?,
            partial_update: member("partial_update", Method::PATCH, &path, Some(Optimistic::PartialUpdate))?,
            delete: member("delete", Method::DELETE, &path, Some(Optimistic::Delete))?,
            types: PhantomData,
        })
    }
}

impl<E: EntitySchema, L: Schema, B> Resource<E, L, B> {
    /// `GET path`: one entity.
    pub fn get(&self) -> RestEndpoint<E, B> {
        RestEndpoint::from_arc(Arc::clone(&self.get))
    }

    /// `GET shortened path`: the list, keyed by its args.
    pub fn get_list(&self) -> RestEndpoint<L, B> {
        RestEndpoint::from_arc(Arc::clone(&self.get_list))
    }

    /// `PUT path`: replaces an entity.
    pub fn update(&self) -> RestEndpoint<E, B> {
        RestEndpoint::from_arc(Arc::clone(&self.update))
    }

    /// `PATCH path`: changes some fields of an entity.
    pub fn partial_update(&self) -> RestEndpoint<E, AnyBody> {
        RestEndpoint::from_arc(Arc::clone(&self.partial_update))
    }

    /// `DELETE path`: invalidates the entity; reads return its pk.
    pub fn delete(&self) -> RestEndpoint<Invalidate<E>, AnyBody> {
        RestEndpoint::from_arc(Arc::clone(&self.delete))
    }

    /// A resource whose standard member `name` has `opts` applied (the override form of
    /// `extend`, R-RES-4). A `path` given to `get_list` is used verbatim.
    pub fn with_member(&self, name: &str, opts: EndpointOptions) -> Result<Self, Error> {
        let mut next = self.clone();
        let (slot, standard) = match name {
            "get" => (&mut next.get, None),
            "get_list" => (&mut next.get_list, None),
            "update" => (&mut next.update, Some(Optimistic::Update)),
            "partial_update" => (&mut next.partial_update, Some(Optimistic::PartialUpdate)),
            "delete" => (&mut next.delete, Some(Optimistic::Delete)),
            other => {
                return Err(Error::InvalidConfig {
                    reason: format!("{other:?} is not a standard member"),
                });
            }
        };
        let mut cfg = slot.apply(&opts)?;
        if opts.optimistic.is_some() {
            // A read is never optimistic (R-OPTM-1), whatever the override says.
            cfg.transform = standard.filter(|_| cfg.optimistic && !cfg.is_read());
        }
        *slot = Arc::new(cfg);
        Ok(next)
    }

    /// The same resource with `get_list` (and so push, unshift and get_page) reading `L2`,
    /// for example a page object `{ results: Collection<Vec<E>>, total }`.
    pub fn with_list_schema<L2: Schema>(&self) -> Resource<E, L2, B> {
        self.retype()
    }

    /// The same resource with a declared body type for push, unshift and update.
    pub fn with_body<B2>(&self) -> Resource<E, L, B2> {
        self.retype()
    }
}
