//! R-NORM-1..9: what normalization accepts, stores and merges.

use std::sync::Arc;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::store::WriteOptions;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fixtures::*;

#[test]
fn r_norm_1_each_schema_kind_reads_back_its_output() {
    let mut store = Store::new();
    let todo = json!({"id": "1", "title": "a", "completed": true});
    store.set_response::<Todo>("GET /todos/1", &(), &todo).unwrap();
    store
        .set_response::<Vec<Todo>>("GET /todos", &(), &json!([todo, null]))
        .unwrap();
    store
        .set_response::<Option<Todo>>("GET /maybe", &(), &Value::Null)
        .unwrap();
    store.set_response::<Box<Todo>>("GET /boxed", &(), &todo).unwrap();
    store
        .set_response::<Value>("GET /raw", &(), &json!({"any": [1, "x"]}))
        .unwrap();
    store.set_response::<()>("POST /ping", &(), &json!("ignored")).unwrap();

    let expected = Todo {
        id: "1".into(),
        title: "a".into(),
        completed: true,
        owner: None,
    };
    assert_eq!(*data::<Todo>(&store, "GET /todos/1", &json!({})), expected);
    assert_eq!(
        *data::<Vec<Todo>>(&store, "GET /todos", &json!({})),
        vec![expected.clone()]
    );
    assert_eq!(*data::<Option<Todo>>(&store, "GET /maybe", &json!({})), None);
    assert_eq!(**data::<Box<Todo>>(&store, "GET /boxed", &json!({})), expected);
    assert_eq!(*data::<Value>(&store, "GET /raw", &json!({})), json!({"any": [1, "x"]}));
    assert_eq!(*data::<()>(&store, "POST /ping", &json!({})), ());
}

/// R-NORM-2: a body's numbers are stored as serde_json reads them, whichever parser the store
/// uses for the bytes: `-0` is a float, and decimals are rounded correctly.
#[test]
fn r_norm_2_bytes_and_their_parsed_value_store_the_same_numbers() {
    let texts = [
        "-0",
        "[-0, 1]",
        "-996269.0126230741",
        "2.4703282292062328e-324",
        "18446744073709551616",
        "1e2",
    ];
    for text in texts {
        let mut store = Store::new();
        store
            .set_response_bytes::<Value>("GET /bytes", &(), text.as_bytes())
            .unwrap();
        let parsed: Value = serde_json::from_str(text).unwrap();
        store.set_response::<Value>("GET /value", &(), parsed).unwrap();
        let stored = |key| serde_json::to_string(&*data::<Value>(&store, key, &json!({}))).unwrap();
        assert_eq!(stored("GET /bytes"), stored("GET /value"), "{text}");
    }
}

#[test]
fn r_norm_1_array_and_object_mismatches_are_invalid_response() {
    let mut store = Store::new();
    let err = store
        .set_response::<Vec<Todo>>("GET /todos", &(), &json!({"id": "1"}))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position.is_empty()),
        "{err:?}"
    );
    let err = store
        .set_response::<Todo>("GET /todos/1", &(), &json!([{"id": "1"}]))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { entity: Some(e), .. } if e == "Todo"),
        "{err:?}"
    );
}

#[test]
fn r_norm_2_a_failed_normalization_writes_nothing() {
    let mut store = Store::new();
    store
        .set_response::<Vec<Todo>>("GET /todos", &(), &json!([{"id": "1", "title": "kept"}]))
        .unwrap();
    let before = store.inspect();
    // The first element is valid and would update todo 1; the third has no pk.
    let bad = json!([{"id": "1", "title": "changed"}, {"id": "2"}, {"title": "no pk"}]);
    let err = store
        .set_response::<Vec<Todo>>("GET /todos?page=2", &(), &bad)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position == "/2"),
        "{err:?}"
    );
    assert_eq!(store.inspect(), before);
}

#[test]
fn r_norm_3_pk_is_the_string_form_of_the_field() {
    let mut store = Store::new();
    store
        .set_response::<Vec<Link>>("GET /links", &(), &json!([{"id": 5, "url": "u"}, {"id": 6}]))
        .unwrap();
    let snap = store.inspect();
    let pks: Vec<&str> = snap["entities"]["Link"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pk"].as_str().unwrap())
        .collect();
    assert_eq!(pks, ["5", "6"]);
    assert_eq!(data::<Link>(&store, "GET /links/5", &json!({"id": 5})).url, "u");
}

#[test]
fn r_norm_3_missing_pk_forms_are_errors_with_their_position() {
    // A pk the field's type accepts but that is no pk: an empty string.
    let mut store = Store::new();
    let body = json!({"results": [{"id": "ok"}, {"id": ""}], "total": 2});
    let err = store.set_response::<TodoPage>("GET /todos", &(), &body).unwrap_err();
    match &err {
        Error::InvalidResponse {
            entity,
            position,
            reason,
            ..
        } => {
            assert_eq!(entity.as_deref(), Some("Todo"));
            assert_eq!(position, "/results/1");
            assert_eq!(reason, "missing or empty primary key");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.inspect()["entities"], json!({}), "nothing written");
    // A pk of a kind the field's type (`String`) refuses is serde's error, at the field.
    for (i, bad) in [json!(null), json!(true), json!({}), json!([1])]
        .into_iter()
        .enumerate()
    {
        let mut store = Store::new();
        let body = json!({"results": [{"id": "ok"}, {"id": bad}], "total": 2});
        let err = store.set_response::<TodoPage>("GET /todos", &(), &body).unwrap_err();
        assert!(
            matches!(&err, Error::Decode { entity: Some(e), position, .. } if e == "Todo" && position == "/results/1/id"),
            "case {i}: {err:?}"
        );
        assert_eq!(store.inspect()["entities"], json!({}), "case {i}: nothing written");
    }
    // An absent pk field is missing too.
    let mut store = Store::new();
    assert!(
        store
            .set_response::<Todo>("GET /t", &(), &json!({"title": "x"}))
            .is_err()
    );
}

#[test]
fn r_norm_3_custom_pk_function() {
    let mut store = Store::new();
    store
        .set_response::<GithubUser>(
            "GET /users/gnoff",
            &(),
            &json!({"login": "gnoff", "id": 1, "name": null}),
        )
        .unwrap();
    let snap = store.inspect();
    assert_eq!(snap["entities"]["GithubUser"]["rows"][0]["pk"], "gnoff");
    let err = store
        .set_response::<GithubUser>("GET /users/x", &(), &json!({"id": 2}))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }));
}

#[test]
fn r_norm_4_only_objects_stand_at_entity_positions() {
    let mut store = Store::new();
    for bad in [json!(["1", "2"]), json!([1]), json!([true]), json!([[{"id": "1"}]])] {
        let err = store.set_response::<Vec<Todo>>("GET /todos", &(), &bad).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidResponse { position, .. } if position == "/0"),
            "{bad}: {err:?}"
        );
    }
    // null is allowed only in an Option position.
    let err = store
        .set_response::<Assignment>("GET /a/1", &(), &json!({"id": "1", "user": null}))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { position, .. } if position == "/user"),
        "{err:?}"
    );
    store
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "owner": null}))
        .unwrap();
    assert_eq!(data::<Todo>(&store, "GET /todos/1", &json!({})).owner, None);
    assert!(store.set_response::<Todo>("GET /todos/1", &(), &Value::Null).is_err());
}

#[test]
fn r_norm_5_rows_keep_the_declared_fields_and_drop_unknown_ones() {
    let mut store = Store::new();
    store
        .set_response::<Todo>(
            "GET /todos/1",
            &(),
            &json!({"id": "1", "title": "a", "extra": {"deep": [1]}}),
        )
        .unwrap();
    let snap = store.inspect();
    assert_eq!(
        snap["entities"]["Todo"]["rows"][0]["record"],
        json!({"id": "1", "title": "a"})
    );
    // Fields the responses never carried take their Default.
    assert_eq!(
        *data::<Todo>(&store, "GET /todos/1", &json!({})),
        Todo {
            id: "1".into(),
            title: "a".into(),
            ..Todo::default()
        }
    );
}

#[test]
fn r_norm_5_a_field_of_the_wrong_type_is_a_decode_error_at_the_field() {
    let mut store = Store::new();
    let before = store.inspect();
    let body = json!([{"id": "1", "completed": false}, {"id": "2", "completed": "yes"}]);
    let err = store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap_err();
    match &err {
        Error::Decode {
            url,
            entity,
            position,
            message,
            ..
        } => {
            assert_eq!(url, "/todos");
            assert_eq!(entity.as_deref(), Some("Todo"));
            assert_eq!(position, "/1/completed");
            assert!(message.contains("expected a boolean"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.inspect(), before);
    // null in a non-Option field is serde's error too.
    let err = store
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "title": null}))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/title"),
        "{err:?}"
    );
}

#[test]
fn r_norm_6_a_patch_response_updates_only_what_it_carries() {
    let mut store = Store::new();
    store
        .set_response::<Todo>(
            "GET /todos/1",
            &(),
            &json!({"id": "1", "title": "a", "completed": false}),
        )
        .unwrap();
    store
        .set_response::<Todo>("PATCH /todos/1", &(), &json!({"id": "1", "completed": true}))
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({}));
    assert_eq!((todo.title.as_str(), todo.completed), ("a", true));
}

/// An entity with a plain field that holds any JSON.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Note {
    #[entity(pk)]
    id: String,
    meta: Value,
}

#[test]
fn r_norm_6_nested_plain_objects_are_replaced_whole() {
    let mut store = Store::new();
    store
        .set_response::<Note>("GET /notes/1", &(), &json!({"id": "1", "meta": {"a": 1, "b": 2}}))
        .unwrap();
    store
        .set_response::<Note>("GET /notes/1", &(), &json!({"id": "1", "meta": {"a": 3}}))
        .unwrap();
    assert_eq!(
        store.inspect()["entities"]["Note"]["rows"][0]["record"]["meta"],
        json!({"a": 3})
    );
}

#[test]
fn r_norm_6_duplicates_in_one_response_combine_in_document_order() {
    let mut store = Store::new();
    let body = json!([
        {"id": "1", "title": "first", "owner": {"id": "u", "name": "Ada"}},
        {"id": "2", "title": "second", "owner": {"id": "u", "name": "Ada L."}},
        {"id": "1", "completed": true},
    ]);
    store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap();
    let todos = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert_eq!(todos[0].title, "first");
    assert!(todos[0].completed, "later fields of the same (K, pk) are combined");
    assert_eq!(todos[0].owner.as_ref().unwrap().name, "Ada L.", "later occurrence wins");
    let snap = store.inspect();
    assert_eq!(snap["entities"]["User"]["rows"].as_array().unwrap().len(), 1);
}

#[test]
fn r_norm_7_older_response_merges_underneath() {
    let mut store = Store::new();
    let t0 = Instant::now();
    let t1 = t0 + Duration::from_millis(10);
    store
        .set_response_with::<Todo>(
            "GET /todos/1",
            &(),
            &json!({"id": "1", "title": "new"}),
            WriteOptions::new().fetched_at(t1),
        )
        .unwrap();
    let meta_before = store.inspect()["entities"]["Todo"]["rows"][0]["fetched_at"].clone();
    store
        .set_response_with::<Todo>(
            "GET /todos/1?v=old",
            &(),
            &json!({"id": "1", "title": "old", "completed": true}),
            WriteOptions::new().fetched_at(t0),
        )
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({}));
    assert_eq!(todo.title, "new", "stored fields win");
    assert!(todo.completed, "fields only the older response has are added");
    assert_eq!(
        store.inspect()["entities"]["Todo"]["rows"][0]["fetched_at"],
        meta_before,
        "stored meta kept"
    );
}

#[test]
fn r_norm_7_an_older_response_cannot_revive_an_invalid_mark_or_replace_a_collection() {
    let mut store = Store::new();
    let t0 = Instant::now();
    let t1 = t0 + Duration::from_millis(10);
    store
        .set_response_with::<TodoList>(
            "GET /todos",
            &(),
            &json!([{"id": "1"}, {"id": "2"}]),
            WriteOptions::new().fetched_at(t1),
        )
        .unwrap();
    store
        .set_response_with::<Invalidate<Todo>>("DELETE /todos/1", &(), &json!("1"), WriteOptions::new().fetched_at(t1))
        .unwrap();
    store
        .set_response_with::<TodoList>(
            "GET /todos?stale",
            &(),
            &json!([{"id": "1", "title": "zombie"}]),
            WriteOptions::new().fetched_at(t0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    // The older list write went to the same collection ({} args) and lost.
    assert_eq!(ids(&data::<TodoList>(&store, "GET /todos", &json!({}))), ["2"]);
    assert_eq!(store.inspect()["entities"]["Todo"]["rows"][0]["record"], "INVALID");
}

#[test]
fn r_norm_7_a_newer_write_replaces_an_invalid_mark_wholesale() {
    let mut store = Store::new();
    store
        .set_response::<Todo>(
            "GET /todos/1",
            &(),
            &json!({"id": "1", "title": "before", "completed": true}),
        )
        .unwrap();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/1", &(), &json!({"id": "1"}))
        .unwrap();
    store
        .set_response::<Todo>("POST /todos", &(), &json!({"id": "1", "title": "again"}))
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({"id": "1"}));
    assert_eq!(
        (todo.title.as_str(), todo.completed),
        ("again", false),
        "fields from before the invalidation are gone"
    );
}

#[test]
fn r_norm_8_nested_entities_go_to_their_own_tables_even_in_cycles() {
    let mut store = Store::new();
    let body =
        json!({"id": "a", "name": "Ann", "books": [{"id": "b1", "author": {"id": "a", "name": "Ann"}}, {"id": "b2"}]});
    store.set_response::<Author>("GET /authors/a", &(), &body).unwrap();
    let snap = store.inspect();
    assert_eq!(
        snap["entities"]["Author"]["rows"][0]["record"],
        json!({"id": "a", "name": "Ann", "books": ["b1", "b2"]})
    );
    assert_eq!(
        snap["entities"]["Book"]["rows"][0]["record"],
        json!({"id": "b1", "author": "a"})
    );
}

#[test]
fn r_norm_9_an_unchanged_write_keeps_versions_and_identity() {
    let mut store = Store::new();
    let body = json!([{"id": "1", "title": "a", "owner": {"id": "u", "name": "Ada"}}]);
    store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap();
    let first = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    let v1 = store.inspect();
    store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap();
    let second = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert!(Arc::ptr_eq(&first, &second));
    let v2 = store.inspect();
    assert_eq!(
        v1["entities"]["Todo"]["rows"][0]["version"],
        v2["entities"]["Todo"]["rows"][0]["version"]
    );
    assert_eq!(v1["results"][0]["version"], v2["results"][0]["version"]);
    assert_ne!(v1["version"], v2["version"], "it is still a commit");
}

/// R-NORM-3: an object that names an entity names its pk as a row holds it: args `{id: 1}` name
/// the row of an `f64` pk read from `1`, and so does `1.0`; a number given as a string still
/// names the pk its text is; a delete answered with the bare number names that row too.
#[test]
fn r_norm_3_args_name_a_float_pk_as_the_row_does() {
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct Reading {
        #[entity(pk)]
        id: f64,
        v: String,
    }
    let mut store = Store::new();
    store
        .set_response::<Vec<Reading>>(
            "GET /readings",
            &(),
            &json!([{"id": 1, "v": "a"}, {"id": 2.5, "v": "b"}]),
        )
        .unwrap();
    for (args, v) in [
        (json!({"id": 1}), "a"),
        (json!({"id": 1.0}), "a"),
        (json!({"id": "2.5"}), "b"),
    ] {
        let read = store.get_response::<Reading>("GET /readings/x", &args).unwrap();
        assert_eq!(read.data.map(|r| r.v.clone()).as_deref(), Some(v), "{args}");
    }
    // A delete answered with the bare number names the row too.
    store
        .set_response::<Invalidate<Reading>>("DELETE /readings/1", &(), &json!(1))
        .unwrap();
    let left = data::<Vec<Reading>>(&store, "GET /readings", &json!({}));
    assert_eq!(left.iter().map(|r| r.v.as_str()).collect::<Vec<_>>(), ["b"]);
}

/// R-NORM-6: copies of an entity merge in document order also when one is inside a field
/// normalized once its object is complete (a nested collection, a union chosen by a function):
/// a later field's copy wins over it, and it wins over an earlier field's copy. (A `Value`'s
/// object holds its fields in key order, the names' order here.)
#[test]
fn r_norm_6_a_copy_in_a_nested_collection_merges_in_document_order() {
    fn a_user(_: &Value, _: Option<&Value>, _: Option<&str>) -> Option<String> {
        Some("user".to_owned())
    }
    /// Normalized once the team is complete, after the members.
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute_fn = a_user)]
    enum Person {
        User(User),
    }
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct Team {
        #[entity(pk)]
        id: String,
        #[entity(schema)]
        a_first: Option<User>,
        #[entity(schema)]
        b_members: Collection<Vec<User>>,
        #[entity(schema)]
        c_lead: Option<User>,
        #[entity(schema)]
        d_alumnus: Option<Person>,
        #[entity(schema)]
        e_coach: Option<User>,
    }
    let team = json!({
        "id": "t",
        "a_first": {"id": "a", "name": "first"},
        "b_members": [{"id": "a", "name": "member"}, {"id": "b", "name": "member"}],
        "c_lead": {"id": "b", "name": "lead"},
        "d_alumnus": {"id": "b", "name": "alumnus"},
        "e_coach": {"id": "b", "name": "coach"},
    });
    for (bytes, read) in written_both_ways::<Team>("GET /teams/t", &team) {
        let names: Vec<&str> = read.b_members.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["member", "coach"], "bytes: {bytes}");
        assert_eq!(read.a_first.as_ref().unwrap().name, "member", "bytes: {bytes}");
        assert_eq!(read.c_lead.as_ref().unwrap().name, "coach", "bytes: {bytes}");
    }
}

/// R-NORM-6: document order holds also when a field that waits for its object holds objects
/// with waiting fields of their own: the later field's copy still wins.
#[test]
fn r_norm_6_a_waiting_field_whose_objects_wait_too_keeps_document_order() {
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct Pet {
        #[entity(pk)]
        id: String,
    }
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct Member {
        #[entity(pk)]
        id: String,
        name: String,
        #[entity(schema)]
        pets: Collection<Vec<Pet>>,
    }
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct Crew {
        #[entity(pk)]
        id: String,
        #[entity(schema)]
        b_members: Collection<Vec<Member>>,
        #[entity(schema)]
        c_lead: Option<Member>,
    }
    let crew = json!({
        "id": "t",
        "b_members": [{"id": "m", "name": "member", "pets": [{"id": "p"}]}],
        "c_lead": {"id": "m", "name": "lead", "pets": []},
    });
    for (bytes, read) in written_both_ways::<Crew>("GET /crews/t", &crew) {
        assert_eq!(read.c_lead.as_ref().unwrap().name, "lead", "bytes: {bytes}");
        assert_eq!(read.b_members[0].name, "lead", "bytes: {bytes}");
    }
}
