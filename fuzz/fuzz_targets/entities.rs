//! The entities both fuzz targets normalize and hydrate: users, todos (each with an optional
//! owner), and a feed of links and posts told apart by their `type`, with an `other` variant.

use restcache::prelude::*;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct User {
    #[entity(pk)]
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Todo {
    #[entity(pk)]
    pub id: u64,
    pub title: String,
    pub completed: bool,
    pub score: Option<f64>,
    #[entity(schema)]
    pub owner: Option<User>,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Link {
    #[entity(pk)]
    pub id: u64,
    pub url: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Post {
    #[entity(pk)]
    pub id: String,
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

pub type TodoList = Collection<Vec<Todo>>;
