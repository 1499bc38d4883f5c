//! Seed §4.1: every standard member over real HTTP — method, URL, body and headers seen by the
//! server, and the cache afterwards.

use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use serde_json::json;

use crate::fixtures::*;

#[tokio::test]
async fn seed_get_sends_a_get_and_caches_the_entity() {
    let (server, ctrl) = setup().await;
    let todo = ctrl.fetch(&todos().get(), params! { id: 5 }).await.unwrap();
    assert_eq!((todo.id, todo.title.as_str()), (5, "Todo 5"));
    let req = only_request(&server);
    assert_eq!((req.method.as_str(), req.uri().as_str()), ("GET", "/todos/5"));
    assert_eq!(req.header("accept"), Some("application/json"));
    assert_eq!(req.header("content-type"), None, "no body, no content type");
    assert!(req.body.is_empty());
    let cached = ctrl.get_response(&todos().get(), params! { id: 5 }).unwrap();
    assert_eq!(
        (cached.data.unwrap().title.as_str(), cached.status),
        ("Todo 5", ExpiryStatus::Valid)
    );
    assert_eq!(
        ctrl.inspect()["results"][0]["key"],
        "GET /todos/5",
        "base_url is not part of the key"
    );
}

#[tokio::test]
async fn seed_get_list_sends_search_params_as_the_query() {
    let (server, ctrl) = setup().await;
    let list = ctrl
        .fetch(&todos().get_list(), params! { userId: "u2", completed: true })
        .await
        .unwrap();
    assert_eq!(ids(&list), [12, 15, 18]);
    assert_eq!(only_request(&server).uri(), "/todos?completed=true&userId=u2");
    // `get` of a listed todo is served from the entity table (query mode), fresh.
    let one = ctrl.get_response(&todos().get(), params! { id: 15 }).unwrap();
    assert_eq!(one.data.unwrap().title, "Todo 15");
}

#[tokio::test]
async fn seed_push_posts_the_body_and_appends_to_matching_lists() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get_list(), params! {}).await.unwrap();
    ctrl.fetch(&todos().get_list(), params! { userId: "u2" }).await.unwrap();
    server.clear_requests();
    let body = json!({ "title": "new", "userId": "u1" });
    let made = ctrl
        .fetch(&todos().get_list().push(), params! {})
        .body(&body)
        .await
        .unwrap();
    assert_eq!((made.id, made.title.as_str()), (31, "new"));
    let req = only_request(&server);
    assert_eq!((req.method.as_str(), req.uri().as_str()), ("POST", "/todos"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.json(), Some(body));
    let all = ctrl
        .get_response(&todos().get_list(), params! {})
        .unwrap()
        .data
        .unwrap();
    assert_eq!(all.last().map(|t| t.id), Some(31));
    let u2 = ctrl
        .get_response(&todos().get_list(), params! { userId: "u2" })
        .unwrap()
        .data
        .unwrap();
    assert!(!ids(&u2).contains(&31), "the body's userId does not match u2's list");
}

#[tokio::test]
async fn seed_unshift_prepends_to_matching_lists() {
    let (_server, ctrl) = setup().await;
    ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    let made = ctrl
        .fetch(&todos().get_list().unshift(), params! { userId: "u1" })
        .body(&json!({ "title": "first" }))
        .await
        .unwrap();
    let list = ctrl
        .get_response(&todos().get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(list.first().map(|t| t.id), Some(made.id));
    assert_eq!(list.len(), 11);
}

#[tokio::test]
async fn seed_get_page_accumulates_pages_without_duplicates() {
    let (server, ctrl) = setup().await;
    let page = todos().get_list().paginated().unwrap().get_page();
    let first = ctrl.fetch(&page, params! { page: 1 }).await.unwrap();
    assert_eq!(ids(&first), (1..=10).collect::<Vec<_>>());
    ctrl.fetch(&page, params! { page: 2 }).await.unwrap();
    ctrl.fetch(&page, params! { page: 2 }).await.unwrap();
    let uris: Vec<String> = server.requests().iter().map(|r| r.uri()).collect();
    assert_eq!(uris, ["/todos?page=1", "/todos?page=2", "/todos?page=2"]);
    assert_eq!(
        page.key(&params! { page: 2 }).unwrap(),
        "GET /todos",
        "stored under the list's key"
    );
    let list = ctrl
        .get_response(&todos().get_list(), params! {})
        .unwrap()
        .data
        .unwrap();
    assert_eq!(ids(&list), (1..=20).collect::<Vec<_>>());
}

#[tokio::test]
async fn seed_update_puts_and_partial_update_patches_and_lists_follow() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    let full = json!({ "title": "renamed", "userId": "u1", "completed": false });
    ctrl.fetch(&todos().update(), params! { id: 3 })
        .body(&full)
        .await
        .unwrap();
    ctrl.fetch(&todos().partial_update(), params! { id: 4 })
        .body(&json!({ "completed": true }))
        .await
        .unwrap();
    let methods: Vec<(String, String)> = server
        .requests()
        .iter()
        .skip(1)
        .map(|r| (r.method.clone(), r.uri()))
        .collect();
    assert_eq!(
        methods,
        [("PUT".into(), "/todos/3".into()), ("PATCH".into(), "/todos/4".into())]
    );
    let list = ctrl
        .get_response(&todos().get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(list[2].title, "renamed");
    assert!(
        list[3].completed && list[3].title == "Todo 4",
        "a PATCH keeps the other fields"
    );
}

#[tokio::test]
async fn seed_delete_invalidates_the_entity_everywhere() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    ctrl.fetch(&todos().get(), params! { id: 2 }).await.unwrap();
    let pk = ctrl.fetch(&todos().delete(), params! { id: 2 }).await.unwrap();
    assert_eq!(*pk, "2", "a 204 answer invalidates the args' pk");
    assert_eq!(
        server.requests().last().map(|r| (r.method.clone(), r.uri())),
        Some(("DELETE".into(), "/todos/2".into()))
    );
    let list = ctrl
        .get_response(&todos().get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert!(!ids(&list).contains(&2));
    let one = ctrl.get_response(&todos().get(), params! { id: 2 }).unwrap();
    assert_eq!((one.data.is_none(), one.status), (true, ExpiryStatus::Invalid));
}

#[tokio::test]
async fn seed_url_prefix_is_put_before_every_member() {
    let server = demo_api::DemoServer::start().await.unwrap();
    let ctrl = Controller::new();
    let users = Resource::<User>::new(ResourceOptions {
        path: "/users/:id".into(),
        url_prefix: server.base_url(),
        ..Default::default()
    })
    .unwrap();
    let user = ctrl.fetch(&users.get(), params! { id: "u3" }).await.unwrap();
    assert_eq!(user.name, "Grace Hopper");
    assert_eq!(
        ctrl.inspect()["results"][0]["key"],
        format!("GET {}/users/u3", server.base_url())
    );
    let list = ctrl.fetch(&users.get_list(), params! {}).await.unwrap();
    assert_eq!(list.len(), 3);
}

#[tokio::test]
async fn seed_all_reads_every_cached_user_including_ones_created_by_a_post() {
    let (_server, ctrl) = setup().await;
    let all_users = users().get_list().with_schema::<All<User>>();
    ctrl.fetch(&all_users, params! {}).await.unwrap();
    let made = ctrl
        .fetch(&users().get_list().push(), params! {})
        .body(&json!({ "name": "Edsger" }))
        .await
        .unwrap();
    let all = ctrl.get_response(&all_users, params! {}).unwrap().data.unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all.last().map(|u| u.id.as_str()), Some(made.id.as_str()));
}

#[tokio::test]
async fn seed_polymorphic_feed_through_all() {
    let (_server, ctrl) = setup().await;
    let feed = restcache::RestEndpoint::<All<FeedItem>>::builder("/feed")
        .build()
        .unwrap();
    let items = ctrl.fetch(&feed, params! {}).await.unwrap();
    assert_eq!(items.len(), 7, "the fetch resolves to the response's items");
    let read = ctrl.get_response(&feed, params! {}).unwrap().data.unwrap();
    let kinds: Vec<&str> = read
        .iter()
        .map(|i| match i {
            FeedItem::Link(_) => "link",
            FeedItem::Post(_) => "post",
            FeedItem::Other(_) => "other",
        })
        .collect();
    assert_eq!(kinds, ["link", "link", "link", "post", "post", "post", "other"]);
    assert!(matches!(&read[6], FeedItem::Other(v) if v["type"] == "video"));
}
