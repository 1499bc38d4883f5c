//! One type per schema kind, with the field types whose checks bad input must hit: string and
//! number pks, a bool, a float, required and optional nested entities, a cycle, unions with and
//! without `other`, and an object schema holding a collection.

use restcache::prelude::*;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct User {
    #[entity(pk)]
    pub id: String,
    pub name: String,
}

/// A number pk, a bool, a float and an optional nested entity.
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

/// A required nested entity and a list of nested entities.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Assignment {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub user: User,
    #[entity(schema)]
    pub todos: Vec<Todo>,
}

/// Entities that refer to each other in a cycle (R-NORM-8).
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Author {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub books: Vec<Book>,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Book {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub author: Option<Author>,
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

/// A union with an `other` variant: unmatched inputs are kept.
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
pub enum FeedItem {
    Link(Link),
    Post(Post),
    #[union(other)]
    Other(Value),
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Image {
    #[entity(pk)]
    pub id: String,
    pub width: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Video {
    #[entity(pk)]
    pub id: String,
    pub seconds: f64,
}

/// A union without `other`: unmatched inputs are an error at a single position (R-UNION-3).
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
pub enum Media {
    Image(Image),
    Video(Video),
}

/// An object schema: a collection, plain fields and an optional nested entity.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
pub struct TodoPage {
    #[schema(nested)]
    pub results: Collection<Vec<Todo>>,
    pub total: u64,
    pub next_page: Option<u64>,
    #[schema(nested)]
    pub owner: Option<User>,
}

pub type TodoList = Collection<Vec<Todo>>;
pub type FeedList = Collection<Vec<FeedItem>>;
