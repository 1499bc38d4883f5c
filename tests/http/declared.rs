//! The same members declared with `resource!`, and a generic resource factory (seed §4.4),
//! over real HTTP.

use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use restcache::schema::EntitySchema;
use serde::Serialize;
use serde_json::json;

use crate::fixtures::*;

#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TodoInput {
    title: String,
    user_id: String,
}

resource! {
    /// The demo API's todos.
    #[resource(path = "/todos/:id", schema = Todo, body = TodoInput, pagination_field = "page")]
    pub struct TodoResource {
        #[member(path = "/todos/search\\?q=:q?&page=:page?", schema = Vec<Todo>)]
        search,
        #[member(method = "DELETE", path = "/todos", body = Vec<String>, schema = Vec<Invalidate<Todo>>)]
        delete_many,
    }
}

#[tokio::test]
async fn seed_members_declared_with_resource_macro() {
    let (server, ctrl) = setup().await;
    let page1 = ctrl
        .fetch(&TodoResource::get_list().get_page(), params! { page: 1 })
        .await
        .unwrap();
    assert_eq!(page1.len(), 10);
    ctrl.fetch(&TodoResource::get_list().get_page(), params! { page: 2 })
        .await
        .unwrap();
    let input = TodoInput {
        title: "declared".into(),
        user_id: "u2".into(),
    };
    let made = ctrl
        .fetch(&TodoResource::get_list().push(), ())
        .body(&input)
        .await
        .unwrap();
    let list = ctrl.get_response(&TodoResource::get_list(), ()).unwrap().data.unwrap();
    assert_eq!(list.len(), 21);
    assert_eq!(list.last().map(|t| t.id), Some(made.id));
    // `get` of a listed todo needs no request while fresh.
    let before = server.requests().len();
    assert_eq!(
        ctrl.get_response(&TodoResource::get(), params! { id: made.id })
            .unwrap()
            .data
            .unwrap()
            .title,
        "declared"
    );
    assert_eq!(server.requests().len(), before);

    let found = ctrl
        .fetch(&TodoResource::search(), params! { q: "declared", page: 1 })
        .await
        .unwrap();
    assert_eq!(ids(&found), [made.id]);
    ctrl.fetch(&TodoResource::delete_many(), ())
        .body(&["1", "2"])
        .await
        .unwrap();
    let list = ctrl.get_response(&TodoResource::get_list(), ()).unwrap().data.unwrap();
    assert_eq!(list.len(), 19);
    let methods: Vec<String> = server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.uri()))
        .collect();
    assert_eq!(
        methods,
        [
            "GET /todos?page=1",
            "GET /todos?page=2",
            "POST /todos",
            "GET /todos/search?q=declared&page=1",
            "DELETE /todos"
        ]
    );
    assert_eq!(
        server.requests()[2].json(),
        Some(json!({ "title": "declared", "userId": "u2" }))
    );
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Article {
    #[entity(pk)]
    pub id: u64,
    pub title: String,
    pub author_id: String,
}

/// The seed's reusable page shape.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
pub struct Paginated<E> {
    #[schema(nested)]
    pub results: Collection<Vec<E>>,
    pub total: u64,
    pub limit: u64,
    pub skip: u64,
}

/// A resource factory generic over the entity: every list of it is a `Paginated` page.
fn paginated_resource<E: EntitySchema + Default>(path: &str) -> Result<Resource<E, Paginated<E>>, restcache::Error> {
    Ok(Resource::<E>::new(ResourceOptions {
        path: path.into(),
        ..Default::default()
    })?
    .with_list_schema::<Paginated<E>>())
}

#[tokio::test]
async fn seed_generic_resource_factory_with_a_paginated_list() {
    let (server, ctrl) = setup().await;
    let articles = paginated_resource::<Article>("/articles/:id").unwrap();
    let page = ctrl
        .fetch(&articles.get_list(), params! { skip: 10, limit: 5 })
        .await
        .unwrap();
    assert_eq!((page.total, page.limit, page.skip), (25, 5, 10));
    assert_eq!(
        page.results.iter().map(|a| a.id).collect::<Vec<_>>(),
        [11, 12, 13, 14, 15]
    );
    assert_eq!(only_request(&server).uri(), "/articles?limit=5&skip=10");
    // The page's entities are in the table: `get` reads one without a request.
    let one = ctrl
        .get_response(&articles.get(), params! { id: 12 })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(one.title, "Article 12");
}
