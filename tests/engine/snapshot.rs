//! R-SNAP-1..3: a store's state exported through serde and hydrated back.

use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::store::{ExpiryStatus, Schemas, Snapshot, WriteOptions};
use serde_json::{Value, json};

use crate::fixtures::*;

/// The schemas of [`filled`]'s tables.
fn schemas() -> Schemas {
    Schemas::new()
        .with::<TodoPage>()
        .with::<Vec<FeedItem>>()
        .with::<Article>()
        .with::<GithubUser>()
}

/// A store holding every kind of record and meta: entities with nested ones, a union, lists
/// (one with a repeat, a nested one), an object schema's result, an INVALID mark, keys with
/// their own expiry, an invalidated key, an expired one and one whose fetch failed.
fn filled() -> Store {
    let mut store = Store::new();
    let page = json!({
        "results": [
            {"id": "1", "title": "ship", "owner": {"id": "u1", "name": "Ada"}},
            {"id": "2", "title": "rest", "completed": true},
            {"id": "1"}
        ],
        "total": 2,
        "next_page": null
    });
    let short = WriteOptions::new().data_expiry(Duration::from_secs(5));
    store
        .set_response_with::<TodoPage>("GET /todos", &(), &page, short)
        .unwrap();
    let feed = json!([
        {"id": 1, "type": "link", "url": "https://example.com", "title": "x"},
        {"id": 2, "type": "post", "content": "hello"},
        {"id": 3, "type": "video"}
    ]);
    store.set_response::<Vec<FeedItem>>("GET /feed", &(), &feed).unwrap();
    let article = json!({"id": "a1", "comments": [{"id": "c1", "body": "first"}]});
    store
        .set_response::<Article>("GET /articles/a1", &(), &article)
        .unwrap();
    let user = json!({"login": "octo", "id": 9, "name": null});
    store.set_response::<GithubUser>("GET /users/octo", &(), &user).unwrap();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/2", &json!({"id": "2"}), Value::Null)
        .unwrap();
    store.invalidate("GET /users/octo");
    store.expire_all(|k| k == "GET /feed");
    // A failed fetch: its error is not exported.
    let failed = store.set_response_bytes::<Todo>("GET /todos/9", &(), b"{not json");
    assert!(failed.is_err());
    store
}

/// What reads of every key of [`filled`] return, as text: data, status and expiry.
fn reads(store: &Store) -> Vec<String> {
    let args = json!({});
    let todos = store.get_response::<TodoPage>("GET /todos", &args).unwrap();
    let feed = store.get_response::<Vec<FeedItem>>("GET /feed", &args).unwrap();
    let article = store.get_response::<Article>("GET /articles/a1", &args).unwrap();
    let user = store.get_response::<GithubUser>("GET /users/octo", &args).unwrap();
    let deleted = store.get_response::<Todo>("GET /todos/2", &json!({"id": "2"})).unwrap();
    let all = store.get_response::<All<Todo>>("GET /all-todos", &args).unwrap();
    vec![
        format!("{:?} {:?} {:?}", todos.data, todos.status, todos.expires_at),
        format!("{:?} {:?} {:?}", feed.data, feed.status, feed.expires_at),
        format!("{:?} {:?} {:?}", article.data, article.status, article.expires_at),
        format!("{:?} {:?} {:?}", user.data, user.status, user.expires_at),
        format!("{:?} {:?}", deleted.data, deleted.status),
        format!("{:?}", all.data),
    ]
}

#[test]
fn r_snap_1_a_snapshot_round_trips_exactly_through_json() {
    let store = filled();
    let snapshot = store.snapshot();
    let text = snapshot.to_json();
    let mut hydrated = Store::new();
    hydrated
        .hydrate(Snapshot::from_json(&text).unwrap(), &schemas())
        .unwrap();
    assert_eq!(hydrated.snapshot(), snapshot, "the same state, meta and marks included");
    assert_eq!(hydrated.snapshot().to_json(), text);
    assert_eq!(
        reads(&hydrated),
        reads(&store),
        "every read the same: data, status and expiry"
    );

    let exported = serde_json::to_value(&snapshot).unwrap();
    let endpoints = exported["endpoints"].as_array().unwrap();
    let keys: Vec<&str> = endpoints.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert!(
        !keys.contains(&"GET /todos/9"),
        "a failed fetch's meta is left out: {keys:?}"
    );
    let feed = endpoints.iter().find(|e| e["key"] == "GET /feed").unwrap();
    assert_eq!(feed["expires_at"], Value::Null, "expired stays expired");
    let octo = endpoints.iter().find(|e| e["key"] == "GET /users/octo").unwrap();
    assert_eq!(octo["invalidated"], true);
    let todo_rows = &exported["tables"][table(&exported, "Todo")]["rows"];
    assert_eq!(todo_rows[1]["pk"], "2");
    assert_eq!(todo_rows[1]["record"], "invalid", "the INVALID mark of todo 2");
}

#[test]
fn r_snap_1_times_are_wall_clock_and_keep_their_expiry() {
    let store = filled();
    let exported = serde_json::to_value(store.snapshot()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as i64;
    let todos = exported["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "GET /todos")
        .unwrap();
    let fetched = todos["fetched_at"].as_i64().unwrap();
    let written = todos["written_at"].as_i64().unwrap();
    let expires = todos["expires_at"].as_i64().unwrap();
    assert!(
        (now - fetched).abs() < 60_000_000_000,
        "fetched within the minute: {fetched} vs {now}"
    );
    assert!(fetched <= written, "{fetched} then {written}");
    assert_eq!(expires - written, 5_000_000_000, "its own expiry, 5 s from its write");
}

#[tokio::test(start_paused = true)]
async fn r_snap_2_a_hydrated_store_serves_reads_until_its_entries_go_stale() {
    let snapshot = filled().snapshot();
    let mut store = Store::new();
    store.hydrate(snapshot, &schemas()).unwrap();
    let read = store.get_response::<TodoPage>("GET /todos", &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Valid);
    assert!(!read.is_stale(restcache::Instant::now()), "fresh: no request needed");
    assert_eq!(
        ids(&read.data.unwrap().results),
        ["1", "1"],
        "the repeat kept; todo 2 deleted (its INVALID mark hydrated)"
    );
    tokio::time::advance(Duration::from_secs(6)).await;
    let later = store.get_response::<TodoPage>("GET /todos", &json!({})).unwrap();
    assert!(
        later.is_stale(restcache::Instant::now()),
        "stale on time: a read refetches as usual"
    );
    // Written again, the entry is replaced as any entry is.
    store
        .set_response::<TodoPage>(
            "GET /todos",
            &(),
            &json!({"results": [], "total": 0, "next_page": null}),
        )
        .unwrap();
    assert_eq!(data::<TodoPage>(&store, "GET /todos", &json!({})).total, 0);
}

#[test]
fn r_snap_2_hydrating_replaces_the_state_and_drops_pending_updates() {
    let mut store = Store::new();
    store
        .set_response::<Todo>("GET /todos/7", &(), &json!({"id": "7", "title": "old"}))
        .unwrap();
    store.hydrate(filled().snapshot(), &schemas()).unwrap();
    assert!(
        store
            .get_response::<Todo>("GET /todos/7", &json!({"id": "7"}))
            .unwrap()
            .data
            .is_none(),
        "what the store held before is gone"
    );
    assert_eq!(data::<Todo>(&store, "GET /todos/1", &json!({"id": "1"})).title, "ship");
}

/// Hydrates a store holding [`filled`]'s state with `snapshot` and expects
/// `Error::InvalidSnapshot`, with the store as it was.
fn refused(snapshot: Value, why: &str) {
    let mut store = filled();
    let before = store.inspect();
    let err = match Snapshot::from_json(&snapshot.to_string()) {
        Ok(snapshot) => store.hydrate(snapshot, &schemas()).unwrap_err(),
        Err(e) => e,
    };
    assert!(matches!(err, Error::InvalidSnapshot { .. }), "{why}: {err}");
    assert_eq!(store.inspect(), before, "{why}: nothing written");
}

/// The index of the table `name` in a snapshot's JSON.
fn table(snapshot: &Value, name: &str) -> usize {
    let tables = snapshot["tables"].as_array().unwrap();
    tables.iter().position(|t| t["name"] == name).unwrap()
}

/// [`filled`]'s snapshot as JSON, changed by `change`.
fn tampered(change: impl FnOnce(&mut Value)) -> Value {
    let mut json = serde_json::to_value(filled().snapshot()).unwrap();
    change(&mut json);
    json
}

#[test]
fn r_snap_3_a_bad_snapshot_is_a_typed_error_and_writes_nothing() {
    for text in ["", "{", "[]", "{}", r#"{"format": 1}"#, "null"] {
        let err = Snapshot::from_json(text).unwrap_err();
        assert!(matches!(err, Error::InvalidSnapshot { .. }), "{text:?}: {err}");
    }
    refused(tampered(|s| s["format"] = json!(2)), "another format");
    refused(tampered(|s| s["extra"] = json!(1)), "an unknown field");
    refused(
        tampered(|s| s.as_object_mut().unwrap().remove("tables").map(drop).unwrap()),
        "no tables",
    );
    refused(
        tampered(|s| s["tables"][0]["name"] = json!("Unknown")),
        "a table no schema has",
    );
    let todos = table(&tampered(|_| {}), "Todo");
    refused(
        tampered(|s| s["tables"][todos]["rows"][0]["record"]["entity"]["title"] = json!(5)),
        "a field of the wrong type",
    );
    refused(
        tampered(|s| s["tables"][todos]["rows"][0]["record"]["entity"]["owner"] = json!({"id": "u1"})),
        "a nested entity that is not a reference",
    );
    refused(
        tampered(|s| s["tables"][todos]["rows"][0]["record"] = json!({"list": []})),
        "a list in an entity table",
    );
    refused(
        tampered(|s| s["tables"][todos]["rows"][1]["pk"] = json!("1")),
        "a repeated pk",
    );
    refused(
        tampered(|s| s["tables"][todos]["rows"][0]["pk"] = json!("")),
        "an empty pk",
    );
    refused(
        tampered(|s| {
            let first = s["tables"][0].clone();
            s["tables"].as_array_mut().unwrap().push(first);
        }),
        "a repeated table",
    );
    refused(
        tampered(|s| {
            let first = s["results"][0].clone();
            s["results"].as_array_mut().unwrap().push(first);
        }),
        "a repeated result",
    );
    refused(
        tampered(|s| {
            let i = table(s, "[Todo]");
            s["tables"][i]["rows"][0]["record"] = json!({"list": [{"not": "a pk"}]});
        }),
        "a list of something else",
    );
}

#[test]
fn r_snap_3_hostile_sizes_are_refused_or_clamped_without_a_panic() {
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let todos = table(&tampered(|_| {}), "Todo");
    refused(
        tampered(|s| s["results"][0]["value"] = deep.clone()),
        "a result nested 200 deep",
    );
    refused(
        tampered(|s| s["tables"][todos]["rows"][0]["record"]["entity"]["title"] = deep.clone()),
        "a field nested 200 deep",
    );
    // Times at the ends of the range are clamped: the row hydrates and reads.
    let extreme = tampered(|s| {
        let row = &mut s["tables"][todos]["rows"][0];
        row["fetched_at"] = json!(i64::MIN);
        row["expires_at"] = json!(i64::MAX);
        s["endpoints"][0]["expires_at"] = json!(i64::MIN);
    });
    let mut store = Store::new();
    store
        .hydrate(serde_json::from_value(extreme).unwrap(), &schemas())
        .unwrap();
    assert_eq!(data::<Todo>(&store, "GET /todos/1", &json!({"id": "1"})).title, "ship");
    // A long pk and many rows are data like any other.
    let many = tampered(|s| {
        let rows = s["tables"][todos]["rows"].as_array_mut().unwrap();
        let template = rows[0].clone();
        for i in 0..10_000 {
            let mut row = template.clone();
            row["pk"] = json!(format!("{i}-{}", "x".repeat(1_000)));
            rows.push(row);
        }
    });
    let mut store = Store::new();
    store
        .hydrate(serde_json::from_value(many).unwrap(), &schemas())
        .unwrap();
    assert_eq!(
        store.inspect()["entities"]["Todo"]["rows"].as_array().unwrap().len(),
        10_002
    );
}

#[test]
fn r_snap_3_schemas_with_two_types_for_one_key_are_a_config_error() {
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    #[entity(key = "Todo")]
    struct OtherTodo {
        #[entity(pk)]
        id: String,
    }
    let mut store = filled();
    let before = store.inspect();
    let err = store
        .hydrate(filled().snapshot(), &schemas().with::<OtherTodo>())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }), "{err}");
    assert_eq!(store.inspect(), before);
}

#[test]
fn r_pers_2_changes_replay_into_the_state_they_describe() {
    let store = filled();
    let mut changes = store.snapshot().changes();
    // Everything twice, with a clear between: the second run stands.
    changes.extend(store.snapshot().changes());
    let mut replayed = Store::new();
    replayed.hydrate_changes(changes.clone(), &schemas()).unwrap();
    assert_eq!(
        replayed.snapshot(),
        store.snapshot(),
        "read straight from the records' text"
    );
    assert_eq!(
        Snapshot::from_changes(changes),
        store.snapshot(),
        "the same through a Snapshot"
    );
    assert_eq!(reads(&replayed), reads(&store));

    // A later change of a row replaces it where it stands; a key with nothing left goes.
    let mut edited = Store::new();
    edited
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "title": "a"}))
        .unwrap();
    edited
        .set_response::<Todo>("GET /todos/2", &(), &json!({"id": "2", "title": "b"}))
        .unwrap();
    let mut changes = edited.snapshot().changes();
    edited
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "title": "a2"}))
        .unwrap();
    edited.invalidate("GET /todos/2");
    changes.extend(edited.snapshot().changes().into_iter().skip(1));
    let mut replayed = Store::new();
    replayed.hydrate_changes(changes, &schemas()).unwrap();
    assert_eq!(replayed.snapshot(), edited.snapshot());
    let titles: Vec<String> = data::<All<Todo>>(&replayed, "all", &json!({}))
        .iter()
        .map(|t| t.title.clone())
        .collect();
    assert_eq!(titles, ["a2", "b"], "todo 1 kept its place");
}

#[test]
fn r_pers_2_a_change_that_does_not_read_back_writes_nothing() {
    let mut changes = filled().snapshot().changes();
    let text = serde_json::to_string(&changes).unwrap();
    let tampered = text.replacen(r#"\"title\":\"ship\""#, r#"\"title\":5"#, 1);
    assert_ne!(tampered, text);
    changes = serde_json::from_str(&tampered).unwrap();
    let mut store = filled();
    let before = store.inspect();
    let err = store.hydrate_changes(changes, &schemas()).unwrap_err();
    assert!(matches!(err, Error::InvalidSnapshot { .. }), "{err}");
    assert_eq!(store.inspect(), before);
}
