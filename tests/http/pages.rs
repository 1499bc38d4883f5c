//! R-PAGE over real HTTP: pages accumulate under the base list's key, in order, each reference
//! once, whatever the pages repeat. Pages the demo API would not write (repeats, one pk in two
//! variant tables) are answered with an injected `Fault::Json`.

use demo_api::{DemoServer, Fault};
use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use serde_json::{Value, json};

use crate::fixtures::*;

/// The todos of these ids as the server holds them, as one page.
fn page_of(server: &DemoServer, ids: &[u64]) -> Value {
    let todo = |id: u64| server.todo(id).unwrap_or_else(|| panic!("the server holds todo {id}"));
    Value::Array(ids.iter().map(|&id| todo(id)).collect())
}

#[tokio::test]
async fn r_page_3_pages_accumulate_in_order_without_repeats_within_or_across_pages() {
    let (server, ctrl) = setup().await;
    let page = todos().get_list().paginated().unwrap().get_page();
    ctrl.fetch(&page, params! { page: 1 }).await.unwrap();
    // A page that repeats one of its own items (12) and one of the first page (3).
    server.inject("/todos", Fault::Json(page_of(&server, &[12, 11, 12, 3, 13])));
    ctrl.fetch(&page, params! { page: 2 }).await.unwrap();
    // The real second page, which repeats the three items the first answer had.
    ctrl.fetch(&page, params! { page: 2 }).await.unwrap();

    let list = ctrl
        .get_response(&todos().get_list(), params! {})
        .unwrap()
        .data
        .unwrap();
    let expected: Vec<u64> = (1..=10).chain([12, 11, 13]).chain(14..=20).collect();
    assert_eq!(
        ids(&list),
        expected,
        "the stored order is kept; each todo is listed once"
    );
    let snapshot = ctrl.inspect();
    let rows = snapshot["entities"]["[Todo]"]["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        1,
        "one collection: the pagination field is not part of its key"
    );
    assert_eq!(rows[0]["record"].as_array().unwrap().len(), 20, "no repeat is stored");
}

#[tokio::test]
async fn r_page_5_a_page_fetch_resolves_to_the_page_in_its_own_order() {
    let (server, ctrl) = setup().await;
    let page = todos().get_list().paginated().unwrap().get_page();
    ctrl.fetch(&page, params! { page: 1 }).await.unwrap();
    // Todo 5 is on the first page already; the page still answers it where it has it.
    server.inject("/todos", Fault::Json(page_of(&server, &[11, 5, 12])));
    let answered = ctrl.fetch(&page, params! { page: 2 }).await.unwrap();
    assert_eq!(ids(&answered), [11, 5, 12]);
    let list = ctrl
        .get_response(&todos().get_list(), params! {})
        .unwrap()
        .data
        .unwrap();
    let expected: Vec<u64> = (1..=12).collect();
    assert_eq!(ids(&list), expected);
}

#[tokio::test]
async fn r_page_3_r_union_4_one_pk_in_two_variant_tables_is_two_members() {
    let (server, ctrl) = setup().await;
    let feed = Resource::<FeedItem>::new(ResourceOptions {
        path: "/feed/:id".into(),
        pagination_field: Some("page".into()),
        ..Default::default()
    })
    .unwrap();
    let page = feed.get_list().paginated().unwrap().get_page();
    let link = |id: u64| json!({ "id": id, "type": "link", "url": format!("https://l/{id}"), "title": "" });
    let post = |id: u64| json!({ "id": id, "type": "post", "content": format!("post {id}") });
    let video = json!({ "id": 9, "type": "video" });
    server.inject("/feed", Fault::Json(json!([link(1), post(1), video])));
    ctrl.fetch(&page, params! { page: 1 }).await.unwrap();
    // Post 1 and link 1 again, the same unknown item again, and link 2 and post 2 twice each.
    let second = json!([post(1), link(2), post(2), link(2), link(1), video, post(2)]);
    server.inject("/feed", Fault::Json(second));
    ctrl.fetch(&page, params! { page: 2 }).await.unwrap();

    let list = ctrl.get_response(&feed.get_list(), params! {}).unwrap().data.unwrap();
    let members: Vec<String> = list
        .iter()
        .map(|item| match item {
            FeedItem::Link(l) => format!("link {}", l.id),
            FeedItem::Post(p) => format!("post {}", p.id),
            FeedItem::Other(v) => format!("other {}", v["id"]),
        })
        .collect();
    assert_eq!(members, ["link 1", "post 1", "other 9", "link 2", "post 2"]);
}
