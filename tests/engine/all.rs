//! R-ALL-1..5: every cached entity of a type.

use std::sync::Arc;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::store::WriteOptions;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fixtures::*;

#[test]
fn r_all_1_writes_every_element_and_rejects_non_arrays() {
    let mut store = Store::new();
    store
        .set_response::<All<User>>("GET /users", &(), &json!([{"id": "1"}, null, {"id": "2"}]))
        .unwrap();
    assert_eq!(store.inspect()["entities"]["User"]["rows"].as_array().unwrap().len(), 2);
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
    let snap = store.inspect();
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

/// R-GET-4 with R-ALL-4: a query-mode `All` read touches every row of the tables it enumerates,
/// so its expiry is the earliest of theirs (INVALID rows included, as a reference to one counts),
/// and it follows changes to a row's expiry that leave the row's data as it was.
#[tokio::test(start_paused = true)]
async fn r_get_4_a_query_mode_all_expires_with_the_earliest_row_it_enumerated() {
    let start = Instant::now();
    let secs = Duration::from_secs;
    let mut store = Store::new();
    let write = |store: &mut Store, key: &str, body: Value, expiry: u64| {
        store
            .set_response_with::<User>(key, &(), &body, WriteOptions::new().data_expiry(secs(expiry)))
            .unwrap();
    };
    write(&mut store, "GET /users/1", json!({"id": "1", "name": "Ada"}), 9);
    write(&mut store, "GET /users/2", json!({"id": "2", "name": "Bob"}), 5);
    let read = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(read.data.as_ref().map(|users| users.len()), Some(2));
    assert_eq!(
        (read.status, read.expires_at),
        (ExpiryStatus::Valid, Some(start + secs(5))),
        "the earliest of the two users"
    );

    // "2" refetched unchanged with a longer expiry: the table's rows are as they were, the
    // expiry is not.
    tokio::time::advance(secs(2)).await;
    write(&mut store, "GET /users/2", json!({"id": "2", "name": "Bob"}), 30);
    let again = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert!(Arc::ptr_eq(read.data.as_ref().unwrap(), again.data.as_ref().unwrap()));
    assert_eq!(again.expires_at, Some(start + secs(9)), "now \"1\" expires first");

    // "1" deleted with a short expiry: it leaves the list, and its INVALID row still counts.
    store
        .set_response_with::<Invalidate<User>>(
            "DELETE /users/1",
            &(),
            &json!("1"),
            WriteOptions::new().data_expiry(secs(1)),
        )
        .unwrap();
    let deleted = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(deleted.data.as_ref().map(|users| users.len()), Some(1));
    assert_eq!(deleted.expires_at, Some(start + secs(3)));

    // Its own fetch gives the key a meta, whose expiry wins (R-GET-4's first case).
    store
        .set_response_with::<All<User>>("GET /users", &(), &json!([]), WriteOptions::new().data_expiry(secs(60)))
        .unwrap();
    let fetched = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(fetched.expires_at, Some(start + secs(62)));
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
