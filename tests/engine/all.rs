//! R-ALL-1..5: every cached entity of a type.

use restcache::Error;
use restcache::prelude::*;
use serde_json::json;

use crate::fixtures::*;

#[test]
fn r_all_1_writes_every_element_and_rejects_non_arrays() {
    let mut store = Store::new();
    store
        .set_response::<All<User>>("GET /users", &(), &json!([{"id": "1"}, null, {"id": "2"}]))
        .unwrap();
    assert_eq!(
        store.snapshot()["entities"]["User"]["rows"].as_array().unwrap().len(),
        2
    );
    let err = store
        .set_response::<All<User>>("GET /users", &(), &json!({"id": "1"}))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }));
}

#[test]
fn r_all_2_includes_entities_written_by_other_keys_in_first_insertion_order() {
    let mut store = Store::new();
    store
        .set_response::<All<User>>(
            "GET /users",
            &(),
            &json!([{"id": "b", "name": "B"}, {"id": "a", "name": "A"}]),
        )
        .unwrap();
    // A POST creates one; a later rewrite of "b" keeps its position.
    store
        .set_response::<User>("POST /users", &(), &json!({"id": "c", "name": "C"}))
        .unwrap();
    store
        .set_response::<User>("PUT /users/b", &(), &json!({"id": "b", "name": "B2"}))
        .unwrap();
    let all = data::<All<User>>(&store, "GET /users", &json!({}));
    let names: Vec<&str> = all.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["B2", "A", "C"]);
    // Invalid entities are left out; re-creation keeps the first position.
    store
        .set_response::<Invalidate<User>>("DELETE /users/b", &(), &json!("b"))
        .unwrap();
    assert_eq!(data::<All<User>>(&store, "GET /users", &json!({})).len(), 2);
    store
        .set_response::<User>("POST /users", &(), &json!({"id": "b", "name": "B3"}))
        .unwrap();
    let names: Vec<String> = data::<All<User>>(&store, "GET /users", &json!({}))
        .iter()
        .map(|u| u.name.clone())
        .collect();
    assert_eq!(names, ["B3", "A", "C"]);
}

#[test]
fn r_all_2_polymorphic_string_attribute_with_an_unmatched_item() {
    let mut store = Store::new();
    let feed = json!([
        {"id": 1, "type": "link", "url": "https://a", "title": "A"},
        {"id": 2, "type": "post", "content": "hello"},
        {"id": 3, "type": "video", "src": "v.mp4"},
        {"id": 4, "type": "link", "url": "https://b", "title": "B"},
    ]);
    store.set_response::<All<FeedItem>>("GET /feed", &(), &feed).unwrap();
    let items = data::<All<FeedItem>>(&store, "GET /feed", &json!({}));
    // Variant tables in declaration order, then the passthrough items.
    assert_eq!(items.len(), 4);
    assert!(matches!(&items[0], FeedItem::Link(l) if l.id == 1 && l.r#type == "link" && l.title == "A"));
    assert!(matches!(&items[1], FeedItem::Link(l) if l.id == 4));
    assert!(matches!(&items[2], FeedItem::Post(p) if p.id == 2 && p.kind == "post" && p.content == "hello"));
    assert_eq!(
        items[3],
        FeedItem::Other(json!({"id": 3, "type": "video", "src": "v.mp4"}))
    );
    // The unmatched object created no entity.
    let snap = store.snapshot();
    assert_eq!(
        snap["entities"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["Link", "Post"]
    );
}

#[test]
fn r_all_2_polymorphic_function_attribute_with_suffixed_tags() {
    let mut store = Store::new();
    let feed = json!([
        {"id": 1, "type": "link", "url": "https://a"},
        {"id": 2, "type": "post", "content": "hello"},
        {"id": 3, "type": "video"},
    ]);
    store
        .set_response::<All<SuffixedFeed>>("GET /feed", &(), &feed)
        .unwrap();
    let items = data::<All<SuffixedFeed>>(&store, "GET /feed", &json!({}));
    assert_eq!(items.len(), 2, "no `other` variant: the unmatched item is skipped");
    assert!(matches!(&items[0], SuffixedFeed::Link(l) if l.url == "https://a"));
    assert!(matches!(&items[1], SuffixedFeed::Post(p) if p.content == "hello"));
}

#[test]
fn r_all_3_a_fetched_all_is_valid_even_when_empty() {
    let mut store = Store::new();
    store.set_response::<All<User>>("GET /users", &(), &json!([])).unwrap();
    let read = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(read.data.as_deref(), Some(&vec![]));
    assert_eq!(read.status, ExpiryStatus::Valid);
}

#[test]
fn r_all_4_query_mode_before_its_own_fetch() {
    let mut store = Store::new();
    let read = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(
        (read.data.is_none(), read.status),
        (true, ExpiryStatus::Invalid),
        "no table: invalid, so suspense fetches"
    );
    store
        .set_response::<User>("GET /users/1", &(), &json!({"id": "1", "name": "Ada"}))
        .unwrap();
    let read = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(read.data.unwrap()[0].name, "Ada");
}

#[test]
fn r_all_5_all_as_a_field_of_an_object_schema() {
    #[derive(Clone, Debug, Default, PartialEq, Schema)]
    struct Directory {
        #[schema(nested)]
        users: All<User>,
        count: u32,
    }
    let mut store = Store::new();
    store
        .set_response::<Directory>("GET /dir", &(), &json!({"users": [{"id": "1"}], "count": 1}))
        .unwrap();
    store
        .set_response::<User>("POST /users", &(), &json!({"id": "2"}))
        .unwrap();
    let dir = data::<Directory>(&store, "GET /dir", &json!({}));
    assert_eq!((dir.users.len(), dir.count), (2, 1));
}
