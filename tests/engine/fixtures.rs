//! The seed's shapes (Todo-like, User-like, the FeedItem hierarchy) and a few more.
#![allow(dead_code)]

use restcache::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
pub struct User {
    #[entity(pk)]
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[entity(key = "Todo")]
pub struct Todo {
    #[entity(pk)]
    pub id: String,
    pub title: String,
    pub completed: bool,
    #[entity(schema)]
    pub owner: Option<User>,
}

/// A required nested entity.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Assignment {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub user: User,
}

/// The seed's FeedItem hierarchy: `id` is a number whose string form is the pk.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Link {
    #[entity(pk)]
    pub id: u64,
    pub r#type: String,
    pub url: String,
    pub title: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Post {
    #[entity(pk)]
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
}

/// String attribute form, with a fallback for unmatched items.
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
pub enum FeedItem {
    Link(Link),
    Post(Post),
    #[union(other)]
    Other(Value),
}

/// The seed's function form: the tag is the `type` value with a suffix, and so are the tags.
pub fn suffixed_type(value: &Value, _parent: Option<&Value>, _key: Option<&str>) -> Option<String> {
    Some(format!("{}_item", value.get("type")?.as_str()?))
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute_fn = suffixed_type)]
pub enum SuffixedFeed {
    #[union(tag = "link_item")]
    Link(Link),
    #[union(tag = "post_item")]
    Post(Post),
}

/// A custom pk function: `{ "login": ... }`.
pub fn login_pk(value: &Value) -> Option<String> {
    restcache::schema::pk_string(value.get("login"))
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(pk = login_pk)]
pub struct GithubUser {
    pub login: String,
    pub id: u64,
    pub name: Option<String>,
}

/// Entities that refer to each other in a cycle (R-NORM-8, R-READ-3).
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Author {
    #[entity(pk)]
    pub id: String,
    pub name: String,
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

/// A self-referencing chain (R-READ-3 depth limit).
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Node {
    #[entity(pk)]
    pub id: u64,
    #[entity(schema)]
    pub next: Option<Box<Node>>,
}

/// A paginated page: an object schema holding a collection (R-PAGE-4).
#[derive(Clone, Debug, Default, PartialEq, Schema)]
pub struct TodoPage {
    #[schema(nested)]
    pub results: Collection<Vec<Todo>>,
    pub total: u64,
    pub next_page: Option<u64>,
}

/// `non_filter_argument_keys` replaced: only `ignoredMe` does not filter.
#[derive(Default)]
pub struct IgnoreMe;

impl CollectionPolicy for IgnoreMe {
    fn non_filter_argument_keys(&self, key: &str) -> bool {
        key == "ignoredMe"
    }
}

/// Comments nested in an article, keyed by the article (R-COL-6).
#[derive(Default)]
pub struct ByArticle;

impl CollectionPolicy for ByArticle {
    fn nest_key(&self, parent: &Map<String, Value>) -> Option<Map<String, Value>> {
        let mut key = Map::new();
        key.insert("article".into(), parent.get("id")?.clone());
        Some(key)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Comment {
    #[entity(pk)]
    pub id: String,
    pub body: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Article {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub comments: Collection<Vec<Comment>, ByArticle>,
}

pub type TodoList = Collection<Vec<Todo>>;

/// The ids of a list of todos.
pub fn ids(todos: &[Todo]) -> Vec<&str> {
    todos.iter().map(|t| t.id.as_str()).collect()
}

/// `body` written under `key` with `S`, into a store of its own, once as a `Value` and once as
/// its bytes: the data read back each time, with whether it came from the bytes.
pub fn written_both_ways<S: restcache::schema::Schema>(
    key: &str,
    body: &Value,
) -> Vec<(bool, std::sync::Arc<S::Output>)> {
    [false, true]
        .into_iter()
        .map(|bytes| {
            let mut store = Store::new();
            if bytes {
                let text = serde_json::to_vec(body).unwrap();
                store.set_response_bytes::<S>(key, &(), &text).unwrap();
            } else {
                store.set_response::<S>(key, &(), body).unwrap();
            }
            (bytes, data::<S>(&store, key, &serde_json::json!({})))
        })
        .collect()
}

/// Reads `key` and unwraps the data.
pub fn data<S: restcache::schema::Schema>(store: &Store, key: &str, args: &Value) -> std::sync::Arc<S::Output> {
    store
        .get_response::<S>(key, args)
        .expect("key builds")
        .data
        .expect("data present")
}

/// `{"id": id, "next": next}`, built without copying `next` (`json!` would serialize it again).
pub fn node(id: u64, next: Value) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), id.into());
    m.insert("next".into(), next);
    Value::Object(m)
}
