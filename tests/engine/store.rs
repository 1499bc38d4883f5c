//! R-STORE-1/2, R-GET-4 basics, R-EXP-2..4 on the store, and entity-key clashes (docs/behaviour.md).

use std::sync::Arc;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::store::WriteOptions;
use serde_json::json;
use tokio::time::Instant;

use crate::fixtures::*;

#[test]
fn r_store_1_tables_results_and_meta() {
    let mut store = Store::new();
    let body = json!([{"id": "2", "owner": {"id": "u"}}, {"id": "1"}]);
    store.set_response::<TodoList>("GET /todos", &(), &body).unwrap();
    let snap = store.inspect();
    let todo_pks: Vec<&str> = snap["entities"]["Todo"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(todo_pks, ["2", "1"], "first-insertion order");
    let row = &snap["entities"]["Todo"]["rows"][0];
    for field in ["fetched_at", "written_at", "expires_at"] {
        assert!(row[field].is_i64(), "entity meta has {field}");
    }
    assert_eq!(snap["results"][0]["key"], "GET /todos");
    assert_eq!(
        snap["results"][0]["value"], "{}",
        "the result references the collection"
    );
    let meta = store.meta("GET /todos").unwrap();
    assert!(meta.error.is_none() && !meta.invalidated && meta.expires_at.is_some());
}

#[test]
fn r_store_2_every_commit_bumps_the_version() {
    let mut store = Store::new();
    let v = |s: &Store| s.inspect()["version"].as_u64().unwrap();
    let v0 = v(&store);
    store
        .set_response::<User>("GET /users/1", &(), &json!({"id": "1"}))
        .unwrap();
    let v1 = v(&store);
    assert!(v1 > v0);
    let _ = store.set_response::<User>("GET /users/2", &(), &json!({})).unwrap_err();
    assert_eq!(v(&store), v1, "a failed write is no commit");
    store.invalidate("GET /users/1");
    assert!(v(&store) > v1);
}

#[tokio::test(start_paused = true)]
async fn r_get_4_status_and_expiry() {
    let mut store = Store::new();
    let nothing = store.get_response::<User>("GET /users/1", &()).unwrap();
    assert_eq!(
        (nothing.data.is_none(), nothing.status, nothing.expires_at),
        (true, ExpiryStatus::InvalidIfStale, None)
    );

    let start = Instant::now();
    store
        .set_response_with::<User>(
            "GET /users/1",
            &(),
            &json!({"id": "1"}),
            WriteOptions::new().data_expiry(Duration::from_secs(5)),
        )
        .unwrap();
    let fresh = store.get_response::<User>("GET /users/1", &()).unwrap();
    assert_eq!(fresh.status, ExpiryStatus::Valid);
    assert_eq!(fresh.expires_at, Some(start + Duration::from_secs(5)));
    assert!(!fresh.is_stale(Instant::now()));
    tokio::time::advance(Duration::from_secs(6)).await;
    assert!(fresh.is_stale(Instant::now()));

    // Query mode: expiry is the earliest of the records the read touched.
    let by_query = store
        .get_response::<User>("GET /users/1?via=query", &json!({"id": "1"}))
        .unwrap();
    assert_eq!(by_query.expires_at, Some(start + Duration::from_secs(5)));
    assert_eq!(by_query.data.unwrap().id, "1");
}

/// `Duration::MAX` as an expiry length means "never": the data and the error stand past any
/// time the test's clock reaches, and nothing overflows.
#[tokio::test(start_paused = true)]
async fn r_exp_1_an_expiry_longer_than_the_clock_reaches_never_comes() {
    let mut store = Store::new();
    let forever = WriteOptions::new().data_expiry(Duration::MAX);
    store
        .set_response_with::<User>("GET /users/1", &(), &json!({"id": "1"}), forever)
        .unwrap();
    store.set_error("GET /users/2", Instant::now(), Error::Reset, Duration::MAX);
    tokio::time::advance(Duration::from_secs(50 * 365 * 24 * 3600)).await;
    let data = store.get_response::<User>("GET /users/1", &()).unwrap();
    assert_eq!(data.status, ExpiryStatus::Valid);
    assert!(!data.is_stale(Instant::now()));
    let error = store.get_response::<User>("GET /users/2", &()).unwrap();
    assert_eq!(error.error, Some(Error::Reset));
    assert!(error.expires_at.is_some_and(|at| at > Instant::now()));
}

#[test]
fn r_exp_2_invalidate_forgets_the_result_but_not_the_entities() {
    let mut store = Store::new();
    store
        .set_response::<User>("GET /users/1", &(), &json!({"id": "1"}))
        .unwrap();
    store
        .set_response::<Vec<User>>("GET /users", &(), &json!([{"id": "1"}]))
        .unwrap();
    store.invalidate("GET /users/1");
    let read = store.get_response::<User>("GET /users/1", &json!({"id": "1"})).unwrap();
    assert_eq!((read.status, read.expires_at), (ExpiryStatus::Invalid, None));
    assert_eq!(
        data::<Vec<User>>(&store, "GET /users", &json!({})).len(),
        1,
        "other keys unaffected"
    );
    assert!(store.meta("GET /users/1").unwrap().invalidated);
    // A key with no meta gets one.
    store.invalidate("GET /never");
    assert!(store.meta("GET /never").unwrap().invalidated);
}

#[test]
fn r_exp_3_and_4_invalidate_all_and_expire_all_by_matcher() {
    let mut store = Store::new();
    for id in ["1", "2"] {
        store
            .set_response::<User>(&format!("GET /users/{id}"), &(), &json!({"id": id}))
            .unwrap();
    }
    store.set_response::<Vec<User>>("GET /users", &(), &json!([])).unwrap();
    let before = store.get_response::<Vec<User>>("GET /users", &()).unwrap();
    assert_eq!(store.expire_all(|k| k == "GET /users"), 1);
    let after = store.get_response::<Vec<User>>("GET /users", &()).unwrap();
    assert_eq!(
        (after.status, after.expires_at),
        (ExpiryStatus::Valid, None),
        "expired, still valid"
    );
    assert!(
        Arc::ptr_eq(before.data.as_ref().unwrap(), after.data.as_ref().unwrap()),
        "data kept"
    );
    assert_eq!(store.invalidate_all(|k| k.starts_with("GET /users/")), 2);
    assert_eq!(store.keys().collect::<Vec<_>>(), ["GET /users"]);
}

#[test]
fn r_fetch_1_an_older_result_does_not_replace_a_newer_one() {
    let mut store = Store::new();
    let t0 = Instant::now();
    let t1 = t0 + Duration::from_millis(5);
    store
        .set_response_with::<Vec<User>>(
            "GET /users",
            &(),
            &json!([{"id": "new"}]),
            WriteOptions::new().fetched_at(t1),
        )
        .unwrap();
    store
        .set_response_with::<Vec<User>>(
            "GET /users",
            &(),
            &json!([{"id": "old"}]),
            WriteOptions::new().fetched_at(t0),
        )
        .unwrap();
    let users = data::<Vec<User>>(&store, "GET /users", &json!({}));
    assert_eq!(users[0].id, "new");
    assert_eq!(store.meta("GET /users").unwrap().fetched_at, t1);
    // Its entities still commit.
    assert_eq!(store.inspect()["entities"]["User"]["rows"].as_array().unwrap().len(), 2);
}

#[test]
fn r_fetch_1_an_error_record_keeps_the_result() {
    let mut store = Store::new();
    store
        .set_response::<User>("GET /users/1", &(), &json!({"id": "1"}))
        .unwrap();
    let err = Error::Status {
        status: StatusCode::SERVICE_UNAVAILABLE,
        url: "/users/1".into(),
        body: String::new(),
        retry_after: None,
    };
    store.set_error("GET /users/1", Instant::now(), err.clone(), Duration::from_secs(1));
    let read = store.get_response::<User>("GET /users/1", &()).unwrap();
    assert_eq!(read.error, Some(err));
    assert_eq!(read.data.unwrap().id, "1");
}

#[test]
fn r_conventions_two_types_with_one_entity_key_are_a_config_error() {
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    #[entity(key = "User")]
    struct OtherUser {
        #[entity(pk)]
        id: String,
    }
    let mut store = Store::new();
    store
        .set_response::<User>("GET /users/1", &(), &json!({"id": "1"}))
        .unwrap();
    let err = store
        .set_response::<OtherUser>("GET /others/1", &(), &json!({"id": "1"}))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidConfig { reason } if reason.contains("\"User\"")),
        "{err:?}"
    );
    assert!(store.get_response::<Vec<OtherUser>>("GET /others", &()).is_err());
}

#[test]
fn r_conventions_args_must_be_an_object() {
    let mut store = Store::new();
    let err = store
        .set_response::<User>("GET /users/1", &json!([1]), &json!({"id": "1"}))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgs { .. }));
    assert!(matches!(
        store.get_response::<User>("GET /users/1", &"x"),
        Err(Error::InvalidArgs { .. })
    ));
}

/// From bytes (the HTTP path), only the text `null` is the empty PUT/PATCH answer: with JSON's
/// whitespace around it, it stands for args and body; a form feed makes it not JSON; an object
/// body is the entity, normalized in one pass.
#[test]
fn r_resp_5_from_bytes_a_null_put_or_patch_response_stands_for_args_and_body() {
    let mut store = Store::new();
    let stored = br#"{"id": "1", "title": "a", "completed": false}"#;
    store.set_response_bytes::<Todo>("GET /todos/1", &(), stored).unwrap();
    let args = json!({"id": "1"});
    let body = json!({"completed": true});
    for (i, text) in [&b"null"[..], b" \r\n\tnull \n"].into_iter().enumerate() {
        let body = json!({"completed": i == 0});
        store
            .set_response_bytes_with::<Todo>("PATCH /todos/1", &args, text, WriteOptions::new().body(&body))
            .unwrap();
        let todo = data::<Todo>(&store, "GET /todos/1", &json!({}));
        assert_eq!((todo.title.as_str(), todo.completed), ("a", i == 0), "{text:?}");
    }
    let before = store.inspect();
    let err = store
        .set_response_bytes_with::<Todo>("PUT /todos/1", &args, b"\x0cnull", WriteOptions::new().body(&body))
        .unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    let err = store
        .set_response_bytes::<Todo>("PUT /todos/1", &args, b"null")
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }), "no object body: {err:?}");
    assert_eq!(store.inspect(), before, "refused answers write nothing");
    let answer = br#"{"id": "1", "title": "b", "completed": true}"#;
    store
        .set_response_bytes_with::<Todo>("PUT /todos/1", &args, answer, WriteOptions::new().body(&body))
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({}));
    assert_eq!((todo.title.as_str(), todo.completed), ("b", true));
    let err = store
        .set_response_bytes::<Todo>("PUT /todos/1", &args, br#"{"title": "c"}"#)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }), "missing pk: {err:?}");
}

#[test]
fn r_resp_5_an_empty_put_or_patch_response_stands_for_args_and_body() {
    let mut store = Store::new();
    store
        .set_response::<Todo>(
            "GET /todos/1",
            &(),
            &json!({"id": "1", "title": "a", "completed": false}),
        )
        .unwrap();
    let body = json!({"completed": true});
    store
        .set_response_with::<Todo>(
            "PATCH /todos/1",
            &json!({"id": "1"}),
            &serde_json::Value::Null,
            WriteOptions::new().body(&body),
        )
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({}));
    assert_eq!((todo.title.as_str(), todo.completed), ("a", true));
    let err = store
        .set_response::<Todo>("PUT /todos/1", &json!({"id": "1"}), &serde_json::Value::Null)
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidResponse { .. }),
        "no object body to stand for the entity"
    );
}
