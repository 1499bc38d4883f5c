//! R-COL-9: collections of maps, `Collection<Values<T>>`, and `assign`.

use restcache::Error;
use restcache::prelude::*;
use restcache::store::{Schemas, WriteOptions};
use serde_json::{Value, json};

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Task {
    #[entity(pk)]
    id: String,
    #[serde(rename = "userId")]
    user_id: String,
}

type ById = Collection<Values<Task>>;

/// Every map: all tasks, and each owner's.
const MAPS: [(&str, &str); 3] = [
    ("GET /tasks", "{}"),
    ("GET /tasks?userId=u1", r#"{"userId":"u1"}"#),
    ("GET /tasks?userId=u2", r#"{"userId":"u2"}"#),
];

/// Tasks a and b of u1 and c of u2, keyed `k<id>`, in every map that matches them.
fn stored() -> Store {
    let mut store = Store::new();
    for (key, args) in MAPS {
        let args: Value = serde_json::from_str(args).unwrap();
        let mut map = serde_json::Map::new();
        for (id, user) in [("a", "u1"), ("b", "u1"), ("c", "u2")] {
            if args.get("userId").is_none_or(|u| u == user) {
                map.insert(format!("k{id}"), json!({"id": id, "userId": user}));
            }
        }
        store.set_response::<ById>(key, &args, &Value::Object(map)).unwrap();
    }
    store
}

/// Each map as `key=id` entries, in [`MAPS`] order.
fn maps(store: &Store) -> Vec<Vec<String>> {
    MAPS.iter()
        .map(|(key, args)| {
            let args: Value = serde_json::from_str(args).unwrap();
            let map = store.get_response::<ById>(key, &args).unwrap().data.unwrap();
            map.iter().map(|(k, t)| format!("{k}={}", t.id)).collect()
        })
        .collect()
}

fn entries(maps: &[&[&str]]) -> Vec<Vec<String>> {
    maps.iter().map(|m| m.iter().map(|s| s.to_string()).collect()).collect()
}

#[test]
fn r_col_9_a_map_collection_reads_as_its_map_keyed_by_the_args() {
    let store = stored();
    assert_eq!(
        maps(&store),
        entries(&[&["ka=a", "kb=b", "kc=c"], &["ka=a", "kb=b"], &["kc=c"]])
    );
    // Another key with the same args reads the stored map (query mode).
    let other = store
        .get_response::<ById>("GET http://other/tasks", &json!({"userId": "u2"}))
        .unwrap();
    assert_eq!(other.data.unwrap().len(), 1);
    let inspected = store.inspect();
    let map = &inspected["entities"]["{Task}"]["rows"][1];
    assert_eq!(map["pk"], r#"{"userId":"u1"}"#);
    assert_eq!(
        map["record"],
        json!({"ka": "a", "kb": "b"}),
        "a map of references, in its own table"
    );
}

#[test]
fn r_col_9_assign_sets_entries_of_every_matching_map_and_creates_none() {
    let mut store = stored();
    let body = json!({"kd": {"id": "d", "userId": "u1"}, "ka": {"id": "a2", "userId": "u1"}});
    store
        .set_response_with::<Assign<ById>>(
            "POST /tasks",
            &json!({"userId": "u1"}),
            &body,
            WriteOptions::new().body(&body),
        )
        .unwrap();
    assert_eq!(
        maps(&store),
        entries(&[
            &["ka=a2", "kb=b", "kc=c", "kd=d"],
            &["ka=a2", "kb=b", "kd=d"],
            &["kc=c"]
        ]),
        "a key takes its new reference, the others stay; u2's map is not u1's"
    );
    assert_eq!(
        store
            .get_response::<Assign<ById>>("POST /tasks", &json!({}))
            .unwrap()
            .data
            .unwrap()
            .len(),
        2,
        "the member's key reads what it assigned"
    );
    let mut empty = Store::new();
    empty.set_response::<Assign<ById>>("POST /tasks", &(), &body).unwrap();
    assert!(empty.inspect()["entities"].get("{Task}").is_none(), "no map is created");
}

#[test]
fn r_col_9_remove_push_and_move_edit_maps_as_lists() {
    let mut store = stored();
    store
        .set_response::<Remove<ById>>("PATCH /tasks", &json!({"userId": "u1"}), &json!({"id": "b"}))
        .unwrap();
    assert_eq!(
        maps(&store),
        entries(&[&["ka=a", "kc=c"], &["ka=a"], &["kc=c"]]),
        "every entry of b"
    );
    store
        .set_response::<Push<ById>>(
            "POST /tasks",
            &json!({"userId": "u2"}),
            &json!({"id": "e", "userId": "u2"}),
        )
        .unwrap();
    assert_eq!(
        maps(&store),
        entries(&[&["e=e", "ka=a", "kc=c"], &["ka=a"], &["e=e", "kc=c"]]),
        "under its pk"
    );
    store
        .set_response::<Move<ById>>(
            "PATCH /tasks/a",
            &json!({"id": "a"}),
            &json!({"id": "a", "userId": "u2"}),
        )
        .unwrap();
    assert_eq!(
        maps(&store),
        entries(&[&["e=e", "ka=a", "kc=c"], &[], &["a=a", "e=e", "kc=c"]])
    );
}

#[test]
fn r_col_9_a_page_sets_its_entries_over_the_stored_map() {
    let mut store = stored();
    store
        .set_response::<Page<ById>>(
            "GET /tasks",
            &json!({"userId": "u2"}),
            &json!({"kz": {"id": "z", "userId": "u2"}}),
        )
        .unwrap();
    assert_eq!(maps(&store)[2], ["kc=c", "kz=z"]);
}

#[test]
fn r_col_9_map_collections_round_trip_through_a_snapshot() {
    let store = stored();
    let mut hydrated = Store::new();
    hydrated
        .hydrate(store.snapshot(), &Schemas::new().with::<ById>())
        .unwrap();
    assert_eq!(hydrated.snapshot(), store.snapshot());
    assert_eq!(maps(&hydrated), maps(&store));
}

#[test]
fn r_col_9_an_assign_answer_must_be_a_map() {
    for bad in [json!([{"id": "a"}]), json!("a"), json!({"k": "not an entity"})] {
        let mut store = stored();
        let before = store.inspect();
        let err = store
            .set_response::<Assign<ById>>("POST /tasks", &(), &bad)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidResponse { .. }), "{bad}: {err}");
        assert_eq!(store.inspect(), before, "{bad}: nothing written");
    }
}

#[test]
fn r_norm_7_an_older_assign_only_adds_keys_and_an_older_remove_takes_nothing() {
    let long_ago = restcache::Instant::now() - std::time::Duration::from_secs(10);
    let mut store = stored();
    let body = json!({"ka": {"id": "x", "userId": "u1"}, "kn": {"id": "n", "userId": "u1"}});
    store
        .set_response_with::<Assign<ById>>(
            "POST /tasks",
            &json!({"userId": "u1"}),
            &body,
            WriteOptions::new().fetched_at(long_ago),
        )
        .unwrap();
    assert_eq!(
        maps(&store)[1],
        ["ka=a", "kb=b", "kn=n"],
        "ka keeps its newer entry; kn is added"
    );
    store
        .set_response_with::<Remove<ById>>(
            "PATCH /tasks",
            &json!({"userId": "u1"}),
            &json!({"id": "b"}),
            WriteOptions::new().fetched_at(long_ago),
        )
        .unwrap();
    assert_eq!(maps(&store)[1], ["ka=a", "kb=b", "kn=n"]);
}

#[test]
fn r_col_9_a_union_joins_a_map_under_its_pk() {
    use crate::fixtures::FeedItem;
    type Feed = Collection<Values<FeedItem>>;
    let mut store = Store::new();
    store.set_response::<Feed>("GET /feed", &(), &json!({})).unwrap();
    store
        .set_response::<Push<Feed>>(
            "POST /feed",
            &(),
            &json!({"id": 7, "type": "link", "url": "u", "title": "t"}),
        )
        .unwrap();
    let map = store
        .get_response::<Feed>("GET /feed", &json!({}))
        .unwrap()
        .data
        .unwrap();
    assert_eq!(map.keys().collect::<Vec<_>>(), ["7"]);
}

/// A map collection's schema reads back its maps, not lists of its item (R-SNAP-3): given only
/// `Collection<Values<U>>`, a snapshot holding a `Collection<Vec<U>>` list is refused whole.
#[test]
fn r_snap_3_a_map_collection_does_not_hold_its_items_lists() {
    use crate::fixtures::FeedItem;
    let mut store = Store::new();
    store
        .set_response::<Collection<Vec<FeedItem>>>(
            "GET /feed",
            &(),
            &json!([{"id": 7, "type": "link", "url": "u", "title": "t"}]),
        )
        .unwrap();
    let mut hydrated = Store::new();
    let err = hydrated
        .hydrate(store.snapshot(), &Schemas::new().with::<Collection<Values<FeedItem>>>())
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidSnapshot { reason } if reason.contains("no schema given holds the table")),
        "{err:?}"
    );
    assert_eq!(hydrated.snapshot(), Store::new().snapshot(), "nothing was written");
}
