//! R-VAL-1: objects used as maps.

use restcache::prelude::*;
use serde_json::json;

use crate::fixtures::*;

#[test]
fn r_val_1_values_take_the_map_key_as_pk_and_drop_nulls_and_unresolved() {
    let mut store = Store::new();
    let body = json!({"u1": {"name": "Ada"}, "u2": {"id": "real", "name": "Bo"}, "u3": null});
    store.set_response::<Values<User>>("GET /users", &(), &body).unwrap();
    let users = data::<Values<User>>(&store, "GET /users", &json!({}));
    assert_eq!(users.keys().collect::<Vec<_>>(), ["u1", "u2"]);
    assert_eq!(users["u2"].id, "real", "a usable pk wins over the map key");
    let snap = store.inspect();
    let pks: Vec<&str> = snap["entities"]["User"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(pks, ["u1", "real"]);
    store
        .set_response::<Invalidate<User>>("DELETE /users/u1", &(), &json!("u1"))
        .unwrap();
    assert_eq!(data::<Values<User>>(&store, "GET /users", &json!({})).len(), 1);
}

#[test]
fn r_val_1_an_empty_map_key_is_no_pk() {
    let mut store = Store::new();
    let before = store.inspect();
    let err = store
        .set_response::<Values<User>>("GET /users", &(), &json!({"": {"name": "Ada"}}))
        .unwrap_err();
    assert!(
        matches!(&err, restcache::Error::InvalidResponse { entity: Some(e), position, reason, .. }
            if e == "User" && position == "/" && reason == "missing or empty primary key"),
        "{err:?}"
    );
    assert_eq!(store.inspect(), before);
    // An entity's own pk still wins over an empty key.
    store
        .set_response::<Values<User>>("GET /users", &(), &json!({"": {"id": "u1", "name": "Ada"}}))
        .unwrap();
    assert_eq!(data::<Values<User>>(&store, "GET /users", &json!({}))[""].id, "u1");
}
