//! R-COL-7/8: `remove` and `move_item`, which take an entity out of stored lists and move it
//! between them.

use restcache::Error;
use restcache::prelude::*;
use restcache::store::WriteOptions;
use serde_json::{Value, json};

/// A task, listed per owner: its lists are keyed by `userId`.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Task {
    #[entity(pk)]
    id: String,
    #[serde(rename = "userId")]
    user_id: String,
    title: String,
}

type Tasks = Collection<Vec<Task>>;

/// Every list: all tasks, and each owner's.
const LISTS: [(&str, &str); 4] = [
    ("GET /tasks", "{}"),
    ("GET /tasks?userId=u1", r#"{"userId":"u1"}"#),
    (
        "GET /tasks?orderBy=title&userId=u1",
        r#"{"orderBy":"title","userId":"u1"}"#,
    ),
    ("GET /tasks?userId=u2", r#"{"userId":"u2"}"#),
];

/// A store with tasks a and b of u1 and c of u2, in every list that matches them.
fn stored() -> Store {
    let task = |id: &str, user: &str| json!({"id": id, "userId": user, "title": id});
    let mut store = Store::new();
    for (key, args) in LISTS {
        let args: Value = serde_json::from_str(args).unwrap();
        let items: Vec<Value> = [task("a", "u1"), task("b", "u1"), task("c", "u2")]
            .into_iter()
            .filter(|t| args.get("userId").is_none_or(|u| *u == t["userId"]))
            .collect();
        store.set_response::<Tasks>(key, &args, &Value::Array(items)).unwrap();
    }
    store
}

/// The ids of each list, in [`LISTS`] order.
fn lists(store: &Store) -> Vec<Vec<String>> {
    LISTS
        .iter()
        .map(|(key, args)| {
            let args: Value = serde_json::from_str(args).unwrap();
            let list = store.get_response::<Tasks>(key, &args).unwrap().data.unwrap();
            list.iter().map(|t| t.id.clone()).collect()
        })
        .collect()
}

fn ids(lists: &[&[&str]]) -> Vec<Vec<String>> {
    lists
        .iter()
        .map(|l| l.iter().map(|s| s.to_string()).collect())
        .collect()
}

fn task(store: &Store, id: &str) -> Task {
    let args = json!({"id": id});
    (*store
        .get_response::<Task>(&format!("GET /tasks/{id}"), &args)
        .unwrap()
        .data
        .unwrap())
    .clone()
}

#[test]
fn r_col_7_remove_takes_the_entity_out_of_every_matching_list_and_keeps_it() {
    let mut store = stored();
    let args = json!({"userId": "u1"});
    store
        .set_response::<Remove<Tasks>>("PATCH /tasks?userId=u1", &args, &json!({"id": "a", "title": "out"}))
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["b", "c"], &["b"], &["b"], &["c"]]),
        "out of `{{}}` and both u1 lists (orderBy does not filter); u2's list never held it"
    );
    let a = task(&store, "a");
    assert_eq!(
        (a.user_id.as_str(), a.title.as_str()),
        ("u1", "out"),
        "stored, merged, not deleted"
    );
    // The member's own key reads the entity it answered.
    assert_eq!(
        store
            .get_response::<Remove<Tasks>>("PATCH /tasks?userId=u1", &args)
            .unwrap()
            .data
            .unwrap()
            .id,
        "a"
    );
}

#[test]
fn r_col_7_remove_matches_lists_by_args_or_body_and_leaves_the_others() {
    let mut store = stored();
    let body = json!({"id": "c", "userId": "u2"});
    store
        .set_response_with::<Remove<Tasks>>("PATCH /tasks", &(), &body, WriteOptions::new().body(&body))
        .unwrap();
    assert_eq!(lists(&store), ids(&[&["a", "b"], &["a", "b"], &["a", "b"], &[]]));
}

#[test]
fn r_col_7_removing_an_entity_no_list_holds_changes_no_list_and_creates_none() {
    let mut store = stored();
    let before = store
        .get_response::<Tasks>("GET /tasks", &json!({}))
        .unwrap()
        .data
        .unwrap();
    store
        .set_response::<Remove<Tasks>>("PATCH /tasks", &(), &json!({"id": "z", "userId": "u9"}))
        .unwrap();
    let after = store
        .get_response::<Tasks>("GET /tasks", &json!({}))
        .unwrap()
        .data
        .unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&before, &after),
        "the list's record did not change"
    );
    assert_eq!(task(&store, "z").user_id, "u9", "the entity is still stored");
    assert_eq!(
        store.inspect()["entities"]["[Task]"]["rows"].as_array().unwrap().len(),
        LISTS.len()
    );

    let mut empty = Store::new();
    empty
        .set_response::<Remove<Tasks>>("PATCH /tasks", &(), &json!({"id": "a"}))
        .unwrap();
    assert!(
        empty.inspect()["entities"].get("[Task]").is_none(),
        "no list is created"
    );
}

#[test]
fn r_col_7_a_remove_answer_must_be_one_entity() {
    let bad = [json!("a"), json!({"title": "no pk"})];
    refused_without_writing::<Remove<Tasks>>("PATCH /tasks", &json!({}), bad);
    // A one-element array counts as its entity, as for push. With no args and no body, only
    // the list whose key has no filter key matches.
    let mut store = stored();
    store
        .set_response::<Remove<Tasks>>("PATCH /tasks", &(), &json!([{"id": "b"}]))
        .unwrap();
    assert_eq!(lists(&store), ids(&[&["a", "c"], &["a", "b"], &["a", "b"], &["c"]]));
}

#[test]
fn r_col_8_move_leaves_the_lists_it_no_longer_matches_and_joins_those_it_now_matches() {
    let mut store = stored();
    let body = json!({"userId": "u2"});
    store
        .set_response_with::<Move<Tasks>>(
            "PATCH /tasks/a",
            &json!({"id": "a"}),
            &json!({"id": "a", "userId": "u2", "title": "a"}),
            WriteOptions::new().body(&body),
        )
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["a", "b", "c"], &["b"], &["b"], &["c", "a"]]),
        "`{{}}` matches before and after: untouched; u1's lists lose it; u2's gains it at its end"
    );
    assert_eq!(task(&store, "a").user_id, "u2");
}

#[test]
fn r_col_8_the_answer_alone_can_move_the_entity() {
    // No body: the answered fields decide where the entity belongs now.
    let mut store = stored();
    store
        .set_response::<Move<Tasks>>(
            "PATCH /tasks/c",
            &json!({"id": "c"}),
            &json!({"id": "c", "userId": "u1"}),
        )
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["a", "b", "c"], &["a", "b", "c"], &["a", "b", "c"], &[]])
    );
}

#[test]
fn r_col_8_a_move_that_changes_no_filtered_field_changes_no_list() {
    let mut store = stored();
    let before = lists(&store);
    store
        .set_response::<Move<Tasks>>(
            "PATCH /tasks/a",
            &json!({"id": "a"}),
            &json!({"id": "a", "title": "renamed"}),
        )
        .unwrap();
    assert_eq!(lists(&store), before);
    assert_eq!(task(&store, "a").title, "renamed");
}

#[test]
fn r_col_8_an_entity_that_was_not_stored_only_joins_lists() {
    let mut store = stored();
    store
        .set_response::<Move<Tasks>>(
            "PATCH /tasks/d",
            &json!({"id": "d"}),
            &json!({"id": "d", "userId": "u2"}),
        )
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["a", "b", "c", "d"], &["a", "b"], &["a", "b"], &["c", "d"]]),
        "with no fields before, it matched no list: it joins every list it matches now, `{{}}` included"
    );
}

#[test]
fn r_col_8_a_move_answer_must_be_one_entity() {
    refused_without_writing::<Move<Tasks>>("PATCH /tasks/a", &json!({"id": "a"}), [json!({"userId": "u2"})]);
}

/// Checks that `S` refuses, with `InvalidResponse` and writing nothing, each answer that is not
/// one entity: `null`, arrays of none or two, and `more`.
fn refused_without_writing<S: restcache::schema::Schema>(
    key: &str,
    args: &Value,
    more: impl IntoIterator<Item = Value>,
) {
    let not_one = [Value::Null, json!([]), json!([{"id": "a"}, {"id": "b"}])];
    for bad in not_one.into_iter().chain(more) {
        let mut store = stored();
        let before = store.inspect();
        let err = store.set_response::<S>(key, args, &bad).unwrap_err();
        assert!(matches!(err, Error::InvalidResponse { .. }), "{bad}: {err}");
        assert_eq!(store.inspect(), before, "{bad}: nothing written");
    }
}

#[test]
fn r_col_8_move_to_front_puts_the_entity_first_in_the_lists_it_joins() {
    let mut store = stored();
    store
        .set_response::<MoveToFront<Tasks>>(
            "PATCH /tasks/a",
            &json!({"id": "a"}),
            &json!({"id": "a", "userId": "u2"}),
        )
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["a", "b", "c"], &["b"], &["b"], &["a", "c"]]),
        "it leaves u1's lists as a move does, and joins u2's at its start"
    );
}

#[test]
fn r_col_5_the_args_or_the_body_give_a_list_its_value() {
    let mut store = stored();
    let body = json!({"userId": "u2"});
    // The args name u1, the body u2: both lists take it, as either gives its key's value.
    store
        .set_response_with::<Push<Tasks>>(
            "POST /tasks",
            &json!({"userId": "u1"}),
            &json!({"id": "d", "userId": "u2"}),
            WriteOptions::new().body(&body),
        )
        .unwrap();
    assert_eq!(
        lists(&store),
        ids(&[&["a", "b", "c", "d"], &["a", "b", "d"], &["a", "b", "d"], &["c", "d"]])
    );
    // A `null` arg gives nothing; the body still does.
    let body = json!({"userId": "u1"});
    store
        .set_response_with::<Push<Tasks>>(
            "POST /tasks",
            &json!({"userId": null}),
            &json!({"id": "e", "userId": "u1"}),
            WriteOptions::new().body(&body),
        )
        .unwrap();
    assert!(lists(&store)[1].contains(&"e".to_owned()), "{:?}", lists(&store));
}

#[test]
fn r_norm_7_an_older_move_or_remove_takes_nothing_from_newer_lists() {
    let long_ago = restcache::Instant::now() - std::time::Duration::from_secs(10);
    let mut store = stored();
    let before = lists(&store);
    store
        .set_response_with::<Move<Tasks>>(
            "PATCH /tasks/a",
            &json!({"id": "a"}),
            &json!({"id": "a", "userId": "u2"}),
            WriteOptions::new().fetched_at(long_ago),
        )
        .unwrap();
    assert_eq!(task(&store, "a").user_id, "u1", "the newer fields stand");
    assert_eq!(lists(&store), before, "and the lists follow them");
    store
        .set_response_with::<Remove<Tasks>>(
            "PATCH /tasks",
            &json!({"userId": "u1"}),
            &json!({"id": "b"}),
            WriteOptions::new().fetched_at(long_ago),
        )
        .unwrap();
    assert_eq!(lists(&store), before, "an older remove takes nothing out");
}

#[test]
fn r_col_8_a_union_move_is_decided_by_its_args_and_body() {
    use crate::fixtures::FeedItem;
    type Feed = Collection<Vec<FeedItem>>;
    let mut store = Store::new();
    let link = json!({"id": 1, "type": "link", "url": "u", "title": "t"});
    store
        .set_response::<Feed>("GET /feed?group=g1", &json!({"group": "g1"}), &json!([link]))
        .unwrap();
    store
        .set_response::<Feed>("GET /feed?group=g2", &json!({"group": "g2"}), &json!([]))
        .unwrap();
    let body = json!({"group": "g2"});
    store
        .set_response_with::<Move<Feed>>(
            "PATCH /feed/1",
            &json!({"id": 1, "group": "g1"}),
            &json!({"id": 1, "type": "link", "url": "u", "title": "t"}),
            WriteOptions::new().body(&body),
        )
        .unwrap();
    let len = |group: &str| {
        let args = json!({"group": group});
        store
            .get_response::<Feed>(&format!("GET /feed?group={group}"), &args)
            .unwrap()
            .data
            .unwrap()
            .len()
    };
    assert_eq!(
        (len("g1"), len("g2")),
        (0, 1),
        "out of the list its args named, into the one its body names"
    );
}
