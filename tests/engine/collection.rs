//! R-COL-1..6 and R-PAGE-3/4: lists that push, unshift and paginate.

use restcache::Error;
use restcache::prelude::*;
use restcache::schema::collection_pk;
use restcache::store::WriteOptions;
use serde_json::{Value, json};

use crate::fixtures::*;

/// Stores the lists of R-COL-5's example.
fn lists() -> Store {
    let mut store = Store::new();
    let lists = [
        ("GET /todos", json!({})),
        ("GET /todos?userId=1", json!({"userId": "1"})),
        (
            "GET /todos?orderBy=title&userId=1",
            json!({"userId": 1, "orderBy": "title"}),
        ),
        ("GET /todos?userId=2", json!({"userId": "2"})),
        (
            "GET /todos?ignoredMe=5&userId=1",
            json!({"userId": "1", "ignoredMe": "5"}),
        ),
    ];
    for (key, args) in lists {
        store
            .set_response::<TodoList>(key, &args, &json!([{"id": "1"}]))
            .unwrap();
    }
    store
}

fn list_ids(store: &Store, key: &str, args: Value) -> Vec<String> {
    data::<TodoList>(store, key, &args)
        .iter()
        .map(|t| t.id.clone())
        .collect()
}

#[test]
fn r_col_1_every_list_of_a_type_shares_one_table() {
    let store = lists();
    let snap = store.inspect();
    let pks: Vec<&str> = snap["entities"]["[Todo]"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(
        pks,
        [
            "{}",
            r#"{"userId":"1"}"#,
            r#"{"orderBy":"title","userId":"1"}"#,
            r#"{"userId":"2"}"#,
            r#"{"ignoredMe":"5","userId":"1"}"#
        ]
    );
}

#[test]
fn r_col_2_collection_pk_examples() {
    let pk = |v: Value| collection_pk(v.as_object().unwrap());
    assert_eq!(pk(json!({})), "{}");
    assert_eq!(pk(json!({"userId": 1})), r#"{"userId":"1"}"#);
    assert_eq!(
        pk(json!({"userId": 1, "completed": false, "a": "x"})),
        r#"{"a":"x","completed":"false","userId":"1"}"#
    );
    assert_eq!(
        pk(json!({"tags": [1, "b", null], "skip": null})),
        r#"{"tags":["1","b"]}"#
    );
}

#[test]
fn r_col_3_a_list_response_replaces_its_record_and_is_read_by_other_keys() {
    let mut store = Store::new();
    store
        .set_response::<TodoList>("GET /todos", &(), &json!([{"id": "1"}, {"id": "2"}]))
        .unwrap();
    store
        .set_response::<TodoList>("GET /todos", &(), &json!([{"id": "3"}]))
        .unwrap();
    assert_eq!(list_ids(&store, "GET /todos", json!({})), ["3"]);
    // Another key with the same args has no result of its own: query mode reads the record.
    assert_eq!(list_ids(&store, "GET http://other.example/todos", json!({})), ["3"]);
    assert!(
        store
            .get_response::<TodoList>("GET /todos?userId=1", &json!({"userId": 1}))
            .unwrap()
            .data
            .is_none()
    );
}

#[test]
fn r_col_4_push_appends_and_unshift_prepends_to_every_matching_list() {
    let mut store = lists();
    store
        .set_response::<Push<TodoList>>("POST /todos?userId=1", &json!({"userId": "1"}), &json!({"id": "9"}))
        .unwrap();
    store
        .set_response::<Unshift<TodoList>>("POST /todos?userId=1", &json!({"userId": 1}), &json!([{"id": "8"}]))
        .unwrap();
    assert_eq!(list_ids(&store, "GET /todos", json!({})), ["8", "1", "9"]);
    assert_eq!(
        list_ids(&store, "GET /todos?userId=1", json!({"userId": "1"})),
        ["8", "1", "9"]
    );
    // The member's own key stores the created entity.
    assert_eq!(
        data::<Push<TodoList>>(&store, "POST /todos?userId=1", &json!({})).id,
        "8"
    );
}

#[test]
fn r_col_4_push_skips_lists_that_hold_the_entity_and_creates_none() {
    let mut store = Store::new();
    store
        .set_response::<Push<TodoList>>("POST /todos", &(), &json!({"id": "1"}))
        .unwrap();
    assert!(
        store.inspect()["entities"].get("[Todo]").is_none(),
        "collections that are not stored are not created"
    );
    store
        .set_response::<TodoList>("GET /todos", &(), &json!([{"id": "1"}]))
        .unwrap();
    store
        .set_response::<Push<TodoList>>("POST /todos", &(), &json!({"id": "1", "title": "again"}))
        .unwrap();
    assert_eq!(list_ids(&store, "GET /todos", json!({})), ["1"]);
}

#[test]
fn r_col_4_a_push_response_must_be_one_entity() {
    for bad in [Value::Null, json!([]), json!([{"id": "1"}, {"id": "2"}]), json!("1")] {
        let mut store = lists();
        let before = store.inspect();
        let err = store
            .set_response::<Push<TodoList>>("POST /todos", &(), &bad)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidResponse { .. }), "{bad}");
        assert_eq!(store.inspect(), before, "{bad}");
    }
}

#[test]
fn r_col_5_push_skips_other_filters() {
    let mut store = lists();
    store
        .set_response::<Push<TodoList>>("POST /todos?userId=1", &json!({"userId": "1"}), &json!({"id": "9"}))
        .unwrap();
    let has9 = |store: &Store, key: &str, args: Value| list_ids(store, key, args).contains(&"9".to_owned());
    assert!(has9(&store, "GET /todos", json!({})));
    assert!(has9(&store, "GET /todos?userId=1", json!({"userId": "1"})));
    assert!(has9(&store, "GET /todos?orderBy=title&userId=1", json!({})));
    assert!(!has9(&store, "GET /todos?userId=2", json!({})));
    assert!(!has9(&store, "GET /todos?ignoredMe=5&userId=1", json!({})));
}

#[test]
fn r_col_5_the_body_can_satisfy_the_filter() {
    let mut store = lists();
    let body = json!({"userId": 2, "title": "x"});
    store
        .set_response_with::<Push<TodoList>>(
            "POST /todos",
            &(),
            &json!({"id": "9", "userId": 2}),
            WriteOptions::new().body(&body),
        )
        .unwrap();
    assert!(list_ids(&store, "GET /todos?userId=2", json!({})).contains(&"9".to_owned()));
    assert!(!list_ids(&store, "GET /todos?userId=1", json!({})).contains(&"9".to_owned()));
}

#[test]
fn r_col_5_a_custom_non_filter_argument_keys() {
    let mut store = lists();
    store
        .set_response::<Push<Collection<Vec<Todo>, IgnoreMe>>>(
            "POST /todos?userId=1",
            &json!({"userId": "1"}),
            &json!({"id": "9"}),
        )
        .unwrap();
    assert!(list_ids(&store, "GET /todos?ignoredMe=5&userId=1", json!({})).contains(&"9".to_owned()));
    assert!(
        !list_ids(&store, "GET /todos?orderBy=title&userId=1", json!({})).contains(&"9".to_owned()),
        "orderBy filters now"
    );
    // The same through a run-time override of the policy.
    let mut store = lists();
    store
        .set_response_with::<Push<TodoList>>(
            "POST /todos?userId=1",
            &json!({"userId": "1"}),
            &json!({"id": "9"}),
            WriteOptions::new().policy(&IgnoreMe),
        )
        .unwrap();
    assert!(list_ids(&store, "GET /todos?ignoredMe=5&userId=1", json!({})).contains(&"9".to_owned()));
}

#[test]
fn r_col_6_a_nested_collection_is_keyed_by_the_policy() {
    let mut store = Store::new();
    let body = json!([
        {"id": "a1", "comments": [{"id": "c1", "body": "x"}]},
        {"id": "a2", "comments": [{"id": "c2", "body": "y"}]},
    ]);
    store.set_response::<Vec<Article>>("GET /articles", &(), &body).unwrap();
    let snap = store.inspect();
    let pks: Vec<&str> = snap["entities"]["[Comment]"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(pks, [r#"{"article":"a1"}"#, r#"{"article":"a2"}"#]);
    let articles = data::<Vec<Article>>(&store, "GET /articles", &json!({}));
    assert_eq!(articles[1].comments[0].body, "y");
    // A comment pushed for article a1 joins only a1's list.
    store
        .set_response::<Push<Collection<Vec<Comment>, ByArticle>>>(
            "POST /articles/a1/comments",
            &json!({"article": "a1"}),
            &json!({"id": "c3"}),
        )
        .unwrap();
    let articles = data::<Vec<Article>>(&store, "GET /articles", &json!({}));
    assert_eq!(articles[0].comments.len(), 2);
    assert_eq!(articles[1].comments.len(), 1);
}

/// A plain object schema, nested in an entity after a collection keyed by that entity.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct Stats {
    views: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Post {
    #[entity(pk)]
    id: String,
    #[entity(schema)]
    comments: Collection<Vec<Comment>, ByArticle>,
    #[entity(schema)]
    stats: Stats,
}

/// R-COL-6: a nested collection is keyed by the entity that holds it, whatever object schemas
/// that entity holds after it (each waits for its own object only).
#[test]
fn r_col_6_a_nested_collection_is_keyed_by_its_entity_not_by_an_object_after_it() {
    let mut store = Store::new();
    let body = json!({"id": "p1", "comments": [{"id": "c1", "body": "x"}], "stats": {"views": 3}});
    let bytes = serde_json::to_vec(&body).unwrap();
    store.set_response_bytes::<Post>("GET /posts/p1", &(), &bytes).unwrap();
    let snap = store.inspect();
    let pks: Vec<&str> = snap["entities"]["[Comment]"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(pks, [r#"{"article":"p1"}"#]);
    let post = data::<Post>(&store, "GET /posts/p1", &json!({}));
    assert_eq!((post.comments.len(), post.stats.views), (1, 3));
}

#[test]
fn r_page_3_a_page_appends_new_items_without_duplicates() {
    let mut store = Store::new();
    store
        .set_response::<TodoList>("GET /todos", &(), &json!([{"id": "1"}, {"id": "2"}]))
        .unwrap();
    store
        .set_response::<Page<TodoList>>(
            "GET /todos",
            &(),
            &json!([{"id": "2", "title": "updated"}, {"id": "3"}]),
        )
        .unwrap();
    let list = data::<TodoList>(&store, "GET /todos", &json!({}));
    assert_eq!(ids(&list), ["1", "2", "3"]);
    assert_eq!(list[1].title, "updated", "entities in the page are still written");
    // Without a stored record the page creates one.
    let mut store = Store::new();
    store
        .set_response::<Page<TodoList>>("GET /todos", &(), &json!([{"id": "5"}]))
        .unwrap();
    assert_eq!(list_ids(&store, "GET /todos", json!({})), ["5"]);
}

#[test]
fn r_page_4_the_base_result_takes_the_page_fields_and_the_accumulated_collection() {
    let mut store = Store::new();
    let page1 = json!({"results": [{"id": "1"}, {"id": "2"}], "total": 3, "next_page": 2});
    let page2 = json!({"results": [{"id": "3"}], "total": 3, "next_page": null});
    store.set_response::<TodoPage>("GET /todos", &(), &page1).unwrap();
    store.set_response::<Page<TodoPage>>("GET /todos", &(), &page2).unwrap();
    let page = data::<TodoPage>(&store, "GET /todos", &json!({}));
    assert_eq!(ids(&page.results), ["1", "2", "3"]);
    assert_eq!((page.total, page.next_page), (3, None));
}
