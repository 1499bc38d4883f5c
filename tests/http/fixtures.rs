//! Entities of the demo API, and a server with a Controller pointed at it.
#![allow(dead_code)]

use demo_api::{DemoServer, RecordedRequest};
use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    #[entity(pk)]
    pub id: u64,
    pub user_id: String,
    pub title: String,
    pub completed: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
pub struct User {
    #[entity(pk)]
    pub id: String,
    pub name: String,
    pub email: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Link {
    #[entity(pk)]
    pub id: u64,
    pub url: String,
    pub title: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Post {
    #[entity(pk)]
    pub id: u64,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
pub enum FeedItem {
    Link(Link),
    Post(Post),
    #[union(other)]
    Other(Value),
}

/// A demo server and a Controller whose `base_url` is that server.
pub async fn setup() -> (DemoServer, Controller) {
    let server = DemoServer::start().await.expect("the demo API starts");
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .build()
        .expect("controller");
    (server, ctrl)
}

/// `/todos/:id` with `page` pagination.
pub fn todos() -> Resource<Todo> {
    Resource::new(ResourceOptions {
        path: "/todos/:id".into(),
        pagination_field: Some("page".into()),
        ..Default::default()
    })
    .expect("valid resource")
}

pub fn users() -> Resource<User> {
    Resource::new(ResourceOptions {
        path: "/users/:id".into(),
        ..Default::default()
    })
    .expect("valid resource")
}

/// The one request the server saw.
pub fn only_request(server: &DemoServer) -> RecordedRequest {
    let mut all = server.requests();
    assert_eq!(
        all.len(),
        1,
        "exactly one request: {:?}",
        all.iter().map(RecordedRequest::uri).collect::<Vec<_>>()
    );
    all.remove(0)
}

pub fn ids(todos: &[Todo]) -> Vec<u64> {
    todos.iter().map(|t| t.id).collect()
}
