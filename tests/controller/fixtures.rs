//! Entities of the demo API and Controllers pointed at it.
#![allow(dead_code)]

use demo_api::DemoServer;
use restcache::controller::ControllerBuilder;
use restcache::prelude::*;
use restcache::rest::header::HeaderValue;
use restcache::rest::{EndpointHooks, RequestInit, ResourceOptions};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    #[entity(pk)]
    pub id: u64,
    pub user_id: String,
    pub title: String,
    pub completed: bool,
}

/// A demo server on this runtime and a Controller whose `base_url` is that server.
pub async fn setup() -> (DemoServer, Controller) {
    let server = DemoServer::start().await.expect("the demo API starts");
    let ctrl = controller(&server);
    (server, ctrl)
}

/// For paused-clock tests: the server runs on its own thread in real time, and neither the
/// client (no idle-connection timer) nor the Controller (no timeout) keeps a timer that would
/// let the paused clock jump while a request is in flight.
pub fn setup_paused() -> (DemoServer, Controller) {
    let server = DemoServer::start_on_thread().expect("the demo API starts");
    let ctrl = controller(&server);
    (server, ctrl)
}

pub fn controller(server: &DemoServer) -> Controller {
    // Injected faults are one-shot: a retry would hide them. The retry tests build their own.
    controller_with(server, |b| b.retry(restcache::rest::Retry::never()))
}

/// A Controller on `server` with `configure` applied, and no timeout or idle-connection timer
/// (so it also serves paused-clock tests).
pub fn controller_with(
    server: &DemoServer,
    configure: impl FnOnce(ControllerBuilder) -> ControllerBuilder,
) -> Controller {
    let client = restcache::reqwest::Client::builder()
        .redirect(restcache::reqwest::redirect::Policy::none())
        .pool_idle_timeout(None)
        .build()
        .expect("client");
    configure(
        Controller::builder()
            .base_url(server.base_url())
            .client(client)
            .timeout(None),
    )
    .build()
    .expect("controller")
}

/// Stamps each request with the paused clock's time since its `Instant`, in ms
/// (`x-virtual-ms`).
pub struct VirtualTime(pub tokio::time::Instant);

impl EndpointHooks for VirtualTime {
    fn request_init(&self, init: &mut RequestInit) {
        let ms = (tokio::time::Instant::now() - self.0).as_millis().to_string();
        init.headers
            .insert("x-virtual-ms", HeaderValue::from_str(&ms).expect("digits"));
    }
}

/// The `x-virtual-ms` stamp of every request the server saw, in order.
pub fn virtual_times(server: &DemoServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| r.header("x-virtual-ms").unwrap_or("-").to_owned())
        .collect()
}

pub fn resource(opts: ResourceOptions) -> Resource<Todo> {
    Resource::new(opts).expect("valid resource")
}

/// `/todos/:id`.
pub fn todos() -> Resource<Todo> {
    resource(ResourceOptions {
        path: "/todos/:id".into(),
        ..Default::default()
    })
}

/// `/todos/:id`, whose errors expire at once: the next read after a failure fetches again.
pub fn todos_with_brief_errors() -> Resource<Todo> {
    resource(ResourceOptions {
        path: "/todos/:id".into(),
        error_expiry_length: Some(std::time::Duration::ZERO),
        ..Default::default()
    })
}

/// `/todos/:id`, optimistic.
pub fn optimistic_todos() -> Resource<Todo> {
    resource(ResourceOptions {
        path: "/todos/:id".into(),
        optimistic: true,
        ..Default::default()
    })
}

/// Runs a fetch on its own task, to act while it is in flight (held at the server, say).
pub fn spawn_fetch<S: restcache::schema::Schema, B>(
    request: restcache::controller::FetchRequest<S, B>,
) -> tokio::task::JoinHandle<Result<std::sync::Arc<S::Output>, restcache::Error>> {
    tokio::spawn(std::future::IntoFuture::into_future(request))
}

/// How many requests the server saw for `path`.
pub fn hits(server: &DemoServer, path: &str) -> usize {
    server.requests().iter().filter(|r| r.path == path).count()
}

pub fn ids(todos: &[Todo]) -> Vec<u64> {
    todos.iter().map(|t| t.id).collect()
}
