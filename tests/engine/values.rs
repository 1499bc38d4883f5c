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
    let snap = store.snapshot();
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
