//! R-ERR-2: bad input gives a typed error at the right position and leaves the store as it was.

use restcache::Error;
use restcache::prelude::*;
use serde_json::{Value, json};

use crate::fixtures::*;

fn populated() -> Store {
    let mut store = Store::new();
    let body = json!({"results": [{"id": "1", "title": "a", "owner": {"id": "u1", "name": "Ada"}}], "total": 1});
    store.set_response::<TodoPage>("GET /todos", &(), &body).unwrap();
    store
        .set_response::<All<FeedItem>>("GET /feed", &(), &json!([{"id": 1, "type": "link"}]))
        .unwrap();
    store
}

/// Writes `body` as `S`, expects an error, and checks that nothing changed.
fn rejected<S: restcache::schema::Schema>(body: Value) -> Error {
    let mut store = populated();
    let before = store.inspect();
    let err = store.set_response::<S>("GET /todos?bad", &(), &body).unwrap_err();
    assert_eq!(store.inspect(), before, "store unchanged after {err}");
    err
}

#[test]
fn r_err_2_missing_pk_deep_in_a_page() {
    let err =
        rejected::<TodoPage>(json!({"results": [{"id": "2"}, {"id": "3", "owner": {"name": "no id"}}], "total": 2}));
    assert!(
        matches!(&err, Error::InvalidResponse { entity: Some(e), position, .. } if e == "User" && position == "/results/1/owner"),
        "{err:?}"
    );
}

#[test]
fn r_err_2_wrong_json_kind_at_an_entity_position() {
    let err = rejected::<TodoPage>(json!({"results": [{"id": "2", "owner": "u1"}], "total": 1}));
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position == "/results/0/owner"),
        "{err:?}"
    );
    let err = rejected::<TodoPage>(json!({"results": {"id": "2"}, "total": 1}));
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position == "/results"),
        "{err:?}"
    );
}

#[test]
fn r_err_2_a_field_of_the_wrong_type() {
    let err = rejected::<TodoPage>(json!({"results": [{"id": "2", "owner": {"id": "u2", "name": 7}}], "total": 1}));
    assert!(
        matches!(&err, Error::Decode { entity: Some(e), position, .. } if e == "User" && position == "/results/0/owner/name"),
        "{err:?}"
    );
    let err = rejected::<TodoPage>(json!({"results": [], "total": "many"}));
    assert!(
        matches!(&err, Error::Decode { entity: None, position, .. } if position == "/total"),
        "{err:?}"
    );
}

#[test]
fn r_err_2_an_unmatched_union_at_a_single_position() {
    let err = rejected::<SuffixedFeed>(json!({"id": 5, "type": "poll"}));
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position.is_empty()),
        "{err:?}"
    );
}

#[test]
fn r_err_2_pointer_escapes_tilde_and_slash() {
    let err = rejected::<Values<User>>(json!({"a/b~c": {"id": "x", "name": 1}}));
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/a~1b~0c/name"),
        "{err:?}"
    );
}

/// R-ERR-2: a field of the wrong type is reported at its key, whether the parser lends the key
/// from the input, unescapes it into a buffer of its own, or moves it in from a `Value`.
#[test]
fn r_err_2_a_failing_field_is_named_by_its_key_however_the_parser_gives_it() {
    for text in [r#"[{"id": "x", "name": 1}]"#, r#"[{"id": "x", "na\u006de": 1}]"#] {
        let value: Value = serde_json::from_str(text).unwrap();
        let mut store = Store::new();
        let from_bytes = store.set_response_bytes::<Vec<User>>("GET /users", &(), text.as_bytes());
        let from_value = store.set_response::<Vec<User>>("GET /users", &(), value);
        for err in [from_bytes.unwrap_err(), from_value.unwrap_err()] {
            assert!(
                matches!(&err, Error::Decode { position, .. } if position == "/0/name"),
                "{text}: {err:?}"
            );
        }
    }
}

#[test]
fn r_err_2_input_nested_beyond_the_limit_is_an_error_not_a_stack_overflow() {
    let mut chain = Value::Null;
    for id in (1..=10_000u64).rev() {
        chain = node(id, chain);
    }
    let mut store = Store::new();
    let err = store.set_response::<Node>("GET /nodes/1", &(), &chain).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { reason, .. } if reason.contains("nested deeper")),
        "{err:?}"
    );
    assert_eq!(store.inspect()["entities"], json!({}));
    // Drop the deep value without recursing through serde_json's destructor.
    let mut v = chain;
    while let Value::Object(mut m) = v {
        v = m.remove("next").unwrap_or(Value::Null);
    }
}

#[test]
fn r_err_2_an_owned_input_nested_beyond_the_limit_is_refused_and_dropped_without_overflow() {
    let mut chain = Value::Null;
    for id in (1..=100_000u64).rev() {
        chain = node(id, chain);
    }
    let mut store = Store::new();
    // Moved in: what is left of it after the refusal is the store's to drop, iteratively.
    let err = store.set_response::<Node>("GET /nodes/1", &(), chain).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { reason, .. } if reason.contains("nested deeper")),
        "{err:?}"
    );
    assert_eq!(store.inspect()["entities"], json!({}));
}

/// R-RESP-4: bytes nested as deep as serde_json's limit are refused exactly where serde_json
/// refuses them, whichever parser the store uses.
#[test]
fn r_resp_4_bytes_nested_at_the_limit_are_refused_as_serde_json_refuses_them() {
    for depth in [126, 127, 128, 129] {
        for text in [
            format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth)),
        ] {
            let mut store = Store::new();
            let written = store.set_response_bytes::<Value>("GET /deep", &(), text.as_bytes());
            let parsed = serde_json::from_str::<Value>(&text);
            assert_eq!(written.is_ok(), parsed.is_ok(), "depth {depth}: {written:?}");
            if let Ok(value) = parsed {
                assert!(
                    *data::<Value>(&store, "GET /deep", &json!({})) == value,
                    "depth {depth}"
                );
            }
        }
    }
}
