//! R-INV-1/2 and the delete-response forms the store applies (R-RESP-6).

use restcache::prelude::*;
use restcache::store::WriteOptions;
use serde_json::{Value, json};

use crate::fixtures::*;

fn seeded() -> Store {
    let mut store = Store::new();
    let body = json!([{"id": "1"}, {"id": "2"}, {"id": "3"}]);
    store.set_response::<TodoList>("GET /todos", &(), &body).unwrap();
    store
        .set_response::<TodoList>(
            "GET /todos?completed=true",
            &json!({"completed": true}),
            &json!([{"id": "2"}]),
        )
        .unwrap();
    store
}

#[test]
fn r_inv_2_a_deleted_entity_vanishes_from_every_list() {
    let mut store = seeded();
    let out = store.set_response::<Invalidate<Todo>>("DELETE /todos/2", &(), &json!({"id": "2"}));
    out.unwrap();
    assert_eq!(ids(&data::<TodoList>(&store, "GET /todos", &json!({}))), ["1", "3"]);
    assert!(data::<TodoList>(&store, "GET /todos?completed=true", &json!({"completed": true})).is_empty());
    assert_eq!(
        *data::<Invalidate<Todo>>(&store, "DELETE /todos/2", &json!({})),
        "2",
        "the read returns the pk"
    );
}

#[test]
fn r_inv_2_a_required_position_becomes_invalid_and_an_option_none() {
    let mut store = Store::new();
    store
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "owner": {"id": "u1"}}))
        .unwrap();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/1", &(), &json!("1"))
        .unwrap();
    let read = store.get_response::<Todo>("GET /todos/1", &()).unwrap();
    assert_eq!((read.data.is_none(), read.status), (true, ExpiryStatus::Invalid));
    // In an Option position it is None, and the read stays valid.
    let read = store.get_response::<Option<Todo>>("GET /todos/1", &()).unwrap();
    assert_eq!(read.data.as_deref(), Some(&None));
    assert_eq!(read.status, ExpiryStatus::Valid);
}

#[test]
fn r_inv_2_the_entity_reappears_in_lists_once_rewritten() {
    let mut store = seeded();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/2", &(), &json!("2"))
        .unwrap();
    store
        .set_response::<Todo>("GET /todos/2", &(), &json!({"id": "2", "title": "back"}))
        .unwrap();
    assert_eq!(
        ids(&data::<TodoList>(&store, "GET /todos", &json!({}))),
        ["1", "2", "3"]
    );
}

#[test]
fn r_inv_1_the_mark_is_written_even_for_an_entity_never_stored() {
    let mut store = Store::new();
    store
        .set_response::<Invalidate<User>>("DELETE /users/9", &(), &json!(9))
        .unwrap();
    let snap = store.inspect();
    let row = &snap["entities"]["User"]["rows"][0];
    assert_eq!((&row["pk"], &row["record"]), (&json!("9"), &json!("INVALID")));
    // The table now exists, so All's query mode is valid and empty (R-ALL-4).
    let all = store.get_response::<All<User>>("GET /users", &()).unwrap();
    assert_eq!(all.data.as_deref(), Some(&vec![]));
}

#[test]
fn r_inv_1_batch_invalidate_removes_each_element() {
    let mut store = seeded();
    store
        .set_response::<Vec<Invalidate<Todo>>>("DELETE /todos", &(), &json!(["1", {"id": "3"}]))
        .unwrap();
    assert_eq!(ids(&data::<TodoList>(&store, "GET /todos", &json!({}))), ["2"]);
    assert_eq!(
        *data::<Vec<Invalidate<Todo>>>(&store, "DELETE /todos", &json!({})),
        ["1", "3"]
    );
}

#[test]
fn r_resp_6_an_empty_delete_response_invalidates_the_args_pk() {
    for empty in [Value::Null, json!(""), json!({}), json!({"ok": true})] {
        let mut store = seeded();
        store
            .set_response::<Invalidate<Todo>>("DELETE /todos/3", &json!({"id": "3"}), &empty)
            .unwrap();
        assert_eq!(
            ids(&data::<TodoList>(&store, "GET /todos", &json!({}))),
            ["1", "2"],
            "{empty}"
        );
    }
}

#[test]
fn r_res_7_an_empty_batch_response_uses_the_request_body() {
    let mut store = seeded();
    let body = json!(["1", "3"]);
    store
        .set_response_with::<Vec<Invalidate<Todo>>>("DELETE /todos", &(), &Value::Null, WriteOptions::new().body(&body))
        .unwrap();
    assert_eq!(ids(&data::<TodoList>(&store, "GET /todos", &json!({}))), ["2"]);
    assert_eq!(
        *data::<Vec<Invalidate<Todo>>>(&store, "DELETE /todos", &json!({})),
        ["1", "3"]
    );
}

#[test]
fn r_resp_6_a_batch_element_without_pk_is_an_error_and_writes_nothing() {
    let mut store = seeded();
    let before = store.inspect();
    for answer in [json!(["1", {"x": 1}]), json!(["1", null]), json!([null])] {
        let err = store
            .set_response::<Vec<Invalidate<Todo>>>("DELETE /todos", &(), &answer)
            .unwrap_err();
        let at = if answer[0].is_null() { "/0" } else { "/1" };
        assert!(
            matches!(&err, restcache::Error::InvalidResponse { position, .. } if position == at),
            "{answer}: {err:?}"
        );
        assert_eq!(store.inspect(), before, "{answer}");
    }
}

#[test]
fn r_inv_1_union_invalidation_picks_the_variant_or_every_table_holding_the_pk() {
    let mut store = Store::new();
    let feed = json!([
        {"id": 1, "type": "link", "url": "u"},
        {"id": 2, "type": "post", "content": "c"},
        {"id": 3, "type": "post", "content": "d"},
    ]);
    store.set_response::<Vec<FeedItem>>("GET /feed", &(), &feed).unwrap();
    store
        .set_response::<Invalidate<FeedItem>>("DELETE /feed/1", &(), &json!({"id": 1, "type": "link"}))
        .unwrap();
    store
        .set_response::<Invalidate<FeedItem>>("DELETE /feed/3", &(), &json!("3"))
        .unwrap();
    let left = data::<Vec<FeedItem>>(&store, "GET /feed", &json!({}));
    assert_eq!(left.len(), 1);
    assert!(matches!(&left[0], FeedItem::Post(p) if p.id == 2));
    // The bare pk marked only the table that holds it.
    assert!(
        store.inspect()["entities"]["Link"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["pk"] != "3")
    );
}

#[test]
fn r_resp_6_a_union_delete_without_pk_uses_the_args_or_is_an_error() {
    let mut store = Store::new();
    let feed = json!([{"id": 1, "type": "link", "url": "u"}, {"id": 2, "type": "post", "content": "c"}]);
    store.set_response::<Vec<FeedItem>>("GET /feed", &(), &feed).unwrap();
    // An object with no usable pk, or an empty response, falls back to the args.
    for reply in [json!({"ok": true}), Value::Null] {
        let mut store = Store::new();
        store.set_response::<Vec<FeedItem>>("GET /feed", &(), &feed).unwrap();
        store
            .set_response::<Invalidate<FeedItem>>("DELETE /feed/2", &json!({"id": 2}), &reply)
            .unwrap();
        assert_eq!(
            *data::<Invalidate<FeedItem>>(&store, "DELETE /feed/2", &json!({"id": 2})),
            "2"
        );
        assert_eq!(
            data::<Vec<FeedItem>>(&store, "GET /feed", &json!({})).len(),
            1,
            "{reply}"
        );
    }
    // No pk in the response nor in the args: an error that writes nothing, not a success that
    // reads back as nothing.
    let before = store.inspect();
    for reply in [json!({"ok": true}), Value::Null, json!({})] {
        let err = store
            .set_response::<Invalidate<FeedItem>>("DELETE /feed", &(), &reply)
            .unwrap_err();
        assert!(
            matches!(&err, restcache::Error::InvalidResponse { reason, .. } if reason == "missing or empty primary key"),
            "{err:?}"
        );
        assert_eq!(store.inspect(), before);
    }
    // So is an element without a pk in a batch (R-RESP-6).
    let err = store
        .set_response::<Vec<Invalidate<FeedItem>>>("DELETE /feed", &(), &json!([1, {"ok": true}]))
        .unwrap_err();
    assert!(
        matches!(&err, restcache::Error::InvalidResponse { position, .. } if position == "/1"),
        "{err:?}"
    );
    assert_eq!(store.inspect(), before);
}
