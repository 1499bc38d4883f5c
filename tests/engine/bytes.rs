//! R-NORM on response bytes (`Store::set_response_bytes`): the same writes and the same errors as
//! parsing into a `Value` first, made in one pass.

use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::store::WriteOptions;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fixtures::*;

/// Two nested fields holding the same user, declared in an order that is not their names' order
/// (the order of a `Value`'s keys).
#[derive(Clone, Debug, Default, PartialEq, Entity)]
pub struct Review {
    #[entity(pk)]
    pub id: String,
    #[entity(schema)]
    pub replies: Vec<Todo>,
    #[entity(schema)]
    pub author: User,
}

/// `field` (`record`, `version`, …) of the row `pk` of `table` in the store's snapshot.
fn row(store: &Store, table: &str, pk: &str, field: &str) -> Value {
    let snapshot = store.inspect();
    let rows = snapshot["entities"][table]["rows"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    rows.into_iter()
        .find(|r| r["pk"] == pk)
        .map(|r| r[field].clone())
        .unwrap_or(Value::Null)
}

/// Two stores, each holding `bytes` written under `key`: from the bytes, and from the `Value`
/// they parse to.
fn written_both_ways<S: restcache::schema::Schema>(key: &str, bytes: &[u8]) -> (Store, Store) {
    let mut from_bytes = Store::new();
    from_bytes.set_response_bytes::<S>(key, &(), bytes).unwrap();
    let mut from_value = Store::new();
    let value: Value = serde_json::from_slice(bytes).unwrap();
    from_value.set_response::<S>(key, &(), value).unwrap();
    (from_bytes, from_value)
}

/// Whether a `serde_json::Map` keeps its keys sorted: it does unless serde_json's
/// `preserve_order` feature is on (CI runs these tests both ways), when it keeps them in the
/// order they were inserted, the document's.
fn maps_sort_keys() -> bool {
    let mut map = serde_json::Map::new();
    map.insert("b".into(), Value::Null);
    map.insert("a".into(), Value::Null);
    map.keys().next().is_some_and(|k| k == "a")
}

fn record(store: &Store, table: &str, pk: &str) -> Value {
    row(store, table, pk, "record")
}

fn version(store: &Store, table: &str, pk: &str) -> Value {
    row(store, table, pk, "version")
}

#[test]
fn r_norm_6_from_bytes_repeats_combine_in_the_order_the_value_path_uses() {
    let bytes = br#"{"replies": [{"id": "t", "owner": {"id": "u", "name": "late"}}],
                     "id": "r", "author": {"id": "u", "name": "early", "email": "u@x"}}"#;
    let (from_bytes, from_value) = written_both_ways::<Review>("GET /reviews/r", bytes);

    // The document's order: in these bytes the author comes later, and its name wins; a
    // `Value`'s order is its map's (sorted keys), where the replies come later. Fields the
    // entity does not declare (`email`) are not kept.
    assert_eq!(record(&from_bytes, "User", "u"), json!({"id": "u", "name": "early"}));
    let value_name = if maps_sort_keys() { "late" } else { "early" };
    assert_eq!(record(&from_value, "User", "u"), json!({"id": "u", "name": value_name}));
    assert_eq!(record(&from_bytes, "Todo", "t"), record(&from_value, "Todo", "t"));
    assert_eq!(
        record(&from_bytes, "Review", "r"),
        json!({"id": "r", "author": "u", "replies": ["t"]})
    );
}

/// R-NORM-1: an entity's row is filled by serde, which refuses a key repeated in one object
/// ("duplicate field"): the response is a decode error and writes nothing.
#[test]
fn r_norm_1_from_bytes_a_repeated_key_in_an_entity_is_refused_as_serde_refuses_it() {
    for bytes in [
        &br#"{"id": "1", "title": "a", "completed": false, "title": "b"}"#[..],
        br#"{"id": "1", "owner": {"id": "u9", "name": "early"}, "title": "a", "owner": {"id": "u8", "name": "late"}}"#,
    ] {
        let mut store = Store::new();
        let before = store.inspect();
        let e = store
            .set_response_bytes::<Todo>("GET /todos/1", &(), bytes)
            .unwrap_err();
        assert!(
            matches!(&e, Error::Decode { message, entity: Some(k), .. } if message.contains("duplicate field") && k == "Todo"),
            "{e:?}"
        );
        assert_eq!(store.inspect(), before, "nothing written");
    }
}

/// R-NORM-5: a body with several faults fails with the first in its document's order: the
/// bytes' order, or a `Value`'s map order (sorted keys).
#[test]
fn r_norm_5_several_faults_fail_with_the_first_in_document_order() {
    let faults = br#"{"id": "1", "title": 5, "completed": "x"}"#;
    let mut store = Store::new();
    let from_bytes = store
        .set_response_bytes::<Todo>("GET /todos/1", &(), faults)
        .unwrap_err();
    assert!(
        matches!(&from_bytes, Error::Decode { position, .. } if position == "/title"),
        "{from_bytes:?}"
    );
    let value: Value = serde_json::from_slice(faults).unwrap();
    let from_value = store.set_response::<Todo>("GET /todos/1", &(), value).unwrap_err();
    let first = if maps_sort_keys() { "/completed" } else { "/title" };
    assert!(
        matches!(&from_value, Error::Decode { position, .. } if position == first),
        "{from_value:?}"
    );
    assert_eq!(store.inspect()["entities"], json!({}));
}

/// R-NORM-9 with R-NORM-6: a record parsed from bytes with exactly its entity's declared fields
/// is the same record as the one a `Value` with those fields writes (neither write changes the
/// other's version), and merges field by field with partial writes and unknown fields.
#[test]
fn r_norm_9_a_record_from_bytes_and_the_same_from_a_value_are_one_record() {
    let full = json!({"id": "1", "title": "a", "completed": false, "owner": {"id": "u", "name": "n"}});
    let bytes = serde_json::to_vec(&full).unwrap();
    let read = |store: &Store| {
        let cached = store.get_response::<Todo>("GET /todos/1", &()).unwrap();
        cached.data.map(|t| (*t).clone())
    };
    for bytes_first in [true, false] {
        let mut store = Store::new();
        let write_bytes = |store: &mut Store, bytes: &[u8]| {
            store.set_response_bytes::<Todo>("GET /todos/1", &(), bytes).unwrap();
        };
        let write_value = |store: &mut Store, value: Value| {
            store.set_response::<Todo>("GET /todos/1", &(), value).unwrap();
        };
        if bytes_first {
            write_bytes(&mut store, &bytes);
        } else {
            write_value(&mut store, full.clone());
        }
        let (todo, user) = (version(&store, "Todo", "1"), version(&store, "User", "u"));
        assert!(todo.is_u64() && user.is_u64());
        if bytes_first {
            write_value(&mut store, full.clone());
        } else {
            write_bytes(&mut store, &bytes);
        }
        assert_eq!(version(&store, "Todo", "1"), todo, "bytes first: {bytes_first}");
        assert_eq!(version(&store, "User", "u"), user, "bytes first: {bytes_first}");

        // All the declared fields again, one changed: only that field changes.
        write_bytes(
            &mut store,
            br#"{"id": "1", "title": "b", "completed": false, "owner": {"id": "u", "name": "n"}}"#,
        );
        assert_ne!(version(&store, "Todo", "1"), todo);
        assert_eq!(version(&store, "User", "u"), user);
        let expected = json!({"id": "1", "title": "b", "completed": false, "owner": "u"});
        assert_eq!(record(&store, "Todo", "1"), expected);
        // R-NORM-7: a write whose request started before the stored one changes no field.
        let changed = version(&store, "Todo", "1");
        let older = WriteOptions::new().fetched_at(Instant::now() - Duration::from_secs(60));
        let stale = br#"{"id": "1", "title": "old", "completed": true, "owner": {"id": "u", "name": "n"}}"#;
        store
            .set_response_bytes_with::<Todo>("GET /todos/1", &(), stale, older)
            .unwrap();
        assert_eq!(record(&store, "Todo", "1"), expected);
        assert_eq!(version(&store, "Todo", "1"), changed);

        // A partial write merges into the record; a field the entity does not declare is not
        // kept.
        write_bytes(&mut store, br#"{"id": "1", "completed": true}"#);
        write_value(&mut store, json!({"id": "1", "extra": [1]}));
        let expected = json!({"id": "1", "title": "b", "completed": true, "owner": "u"});
        assert_eq!(record(&store, "Todo", "1"), expected);
        let todo = read(&store).expect("the todo reads");
        assert_eq!((todo.title.as_str(), todo.completed), ("b", true));
        assert_eq!(todo.owner.map(|u| u.name).as_deref(), Some("n"));
    }
}

#[test]
fn r_resp_3_bytes_that_are_not_json_are_a_decode_error_and_write_nothing() {
    let mut store = Store::new();
    let before = store.inspect();
    let e = store
        .set_response_bytes::<Vec<Todo>>("GET /todos", &(), br#"[{"id": "1", "title": "a"}, {"id": "#)
        .unwrap_err();
    assert!(matches!(&e, Error::Decode { url, .. } if url == "/todos"), "{e:?}");
    assert_eq!(store.inspect(), before);
    let e = store
        .set_response_bytes::<Vec<Todo>>("GET /todos", &(), br#"[{"id": "1"}] trailing"#)
        .unwrap_err();
    assert!(matches!(e, Error::Decode { .. }), "{e:?}");
    assert_eq!(store.inspect(), before);
}

#[test]
fn r_norm_3_from_bytes_a_missing_pk_is_the_value_paths_error_and_writes_nothing() {
    let bytes = br#"[{"id": "1", "title": "a", "owner": {"name": "no pk"}}]"#;
    let mut store = Store::new();
    let before = store.inspect();
    let from_bytes = store
        .set_response_bytes::<Vec<Todo>>("GET /todos", &(), bytes)
        .unwrap_err();
    assert_eq!(store.inspect(), before);
    let value: Value = serde_json::from_slice(bytes).unwrap();
    let from_value = store.set_response::<Vec<Todo>>("GET /todos", &(), value).unwrap_err();
    assert_eq!(from_bytes.to_string(), from_value.to_string());
    assert!(
        matches!(&from_bytes, Error::InvalidResponse { position, entity: Some(k), .. } if position == "/0/owner" && k == "User"),
        "{from_bytes:?}"
    );
}

#[test]
fn r_norm_5_from_bytes_a_wrong_field_type_is_the_value_paths_error() {
    let bytes = br#"[{"id": "1", "title": "a"}, {"id": "2", "completed": "yes"}]"#;
    let mut store = Store::new();
    let from_bytes = store
        .set_response_bytes::<Vec<Todo>>("GET /todos", &(), bytes)
        .unwrap_err();
    let value: Value = serde_json::from_slice(bytes).unwrap();
    let from_value = store.set_response::<Vec<Todo>>("GET /todos", &(), value).unwrap_err();
    // The same error; from bytes, serde's message also names the line and column.
    assert!(
        from_bytes.to_string().starts_with(&from_value.to_string()),
        "{from_bytes}"
    );
    assert!(
        matches!(&from_bytes, Error::Decode { position, .. } if position == "/1/completed"),
        "{from_bytes:?}"
    );
    assert!(store.inspect()["entities"].as_object().is_none_or(|t| t.is_empty()));
}

#[test]
fn r_norm_1_from_bytes_the_wrong_kind_is_the_value_paths_error() {
    for (bytes, what) in [(&b"{}"[..], "an object"), (b"\"x\"", "a string"), (b"3", "a number")] {
        let mut store = Store::new();
        let from_bytes = store
            .set_response_bytes::<Vec<Todo>>("GET /todos", &(), bytes)
            .unwrap_err();
        let from_value = store
            .set_response::<Vec<Todo>>("GET /todos", &(), serde_json::from_slice::<Value>(bytes).unwrap())
            .unwrap_err();
        assert_eq!(from_bytes.to_string(), from_value.to_string());
        assert!(from_bytes.to_string().contains(what), "{from_bytes}");
    }
    let mut store = Store::new();
    let from_bytes = store
        .set_response_bytes::<Todo>("GET /todos/1", &(), b"[1]")
        .unwrap_err();
    assert!(
        matches!(&from_bytes, Error::InvalidResponse { reason, .. } if reason.contains("an array")),
        "{from_bytes:?}"
    );
}

#[test]
fn r_resp_2_from_bytes_whitespace_is_an_empty_response() {
    let mut store = Store::new();
    store
        .set_response_bytes::<Option<Todo>>("GET /todos/1", &(), b" \n")
        .unwrap();
    let read = store.get_response::<Option<Todo>>("GET /todos/1", &()).unwrap();
    assert_eq!(read.data.as_deref(), Some(&None));
}

#[test]
fn r_resp_4_from_bytes_json_that_is_not_valid_after_a_schema_error_is_still_a_decode_error() {
    // The first todo lacks its pk; the bytes go on nesting deeper than the limit, then end
    // early. Parsed whole first, the body is a decode error; from bytes it must be the same.
    let deep = format!(r#"[{{"title": "no pk"}}, {}1{}]"#, "[".repeat(200), "]".repeat(200));
    let truncated = r#"[{"title": "no pk"}, {"id": "2", "title": "#;
    for bytes in [deep.as_str(), truncated] {
        let mut store = Store::new();
        let before = store.inspect();
        let e = store
            .set_response_bytes::<Vec<Todo>>("GET /todos", &(), bytes.as_bytes())
            .unwrap_err();
        let value_error = serde_json::from_str::<Value>(bytes).unwrap_err();
        assert!(
            matches!(&e, Error::Decode { message, .. } if message.ends_with(&value_error.to_string())),
            "{e:?}"
        );
        assert_eq!(store.inspect(), before);
    }
}

/// The pk of a membership is its user's id: a pk function that reads a nested entity.
pub fn membership_pk(input: &Value) -> Option<String> {
    restcache::schema::pk_string(input.get("user"))
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(pk = membership_pk)]
pub struct Membership {
    #[entity(schema)]
    pub user: User,
    pub role: String,
}

/// R-NORM-3: a pk function sees the entity's row as JSON (a nested entity as its pk), from
/// bytes as from a `Value`.
#[test]
fn r_norm_3_from_bytes_a_pk_function_sees_the_row() {
    let bytes = br#"{"role": "admin", "user": {"id": "u", "name": "Ada"}}"#;
    let (from_bytes, from_value) = written_both_ways::<Membership>("GET /memberships/u", bytes);
    let expected = json!({"role": "admin", "user": "u"});
    assert_eq!(record(&from_value, "Membership", "u"), expected);
    assert_eq!(record(&from_bytes, "Membership", "u"), expected);
    let read = from_bytes
        .get_response::<Membership>("GET /memberships/u", &())
        .unwrap();
    assert_eq!(read.data.unwrap().user.name, "Ada");
}
