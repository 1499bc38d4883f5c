//! R-READ-1..5: resolution, propagation of unresolved references, cycles, identity.

use std::sync::Arc;

use restcache::prelude::*;
use serde_json::{Value, json};

use crate::fixtures::*;

#[test]
fn r_read_1_references_resolve_to_records_and_marks_or_missing_records_do_not() {
    let mut store = Store::new();
    store
        .set_response::<Vec<Todo>>(
            "GET /todos",
            &(),
            &json!([{"id": "1", "owner": {"id": "u1", "name": "Ada"}}]),
        )
        .unwrap();
    // The reference in todo 1 resolves to the User record, whoever wrote it last.
    store
        .set_response::<User>("GET /users/u1", &(), &json!({"id": "u1", "name": "Ada L."}))
        .unwrap();
    assert_eq!(
        data::<Vec<Todo>>(&store, "GET /todos", &json!({}))[0]
            .owner
            .as_ref()
            .unwrap()
            .name,
        "Ada L."
    );
    // A result whose reference points at a missing record is unresolved at the top.
    store
        .set_response::<Assignment>("GET /a/1", &(), &json!({"id": "a1", "user": {"id": "u2"}}))
        .unwrap();
    store
        .set_response::<Invalidate<User>>("DELETE /users/u2", &(), &json!("u2"))
        .unwrap();
    let read = store.get_response::<Assignment>("GET /a/1", &()).unwrap();
    assert!(read.data.is_none());
}

/// R-READ-1: every reference resolves to the record of its own pk, in whatever order a result
/// lists them: the order they were written in, reversed, repeated, interleaved with a missing
/// pk, or with pks of the same length that differ in one byte.
#[test]
fn r_read_1_references_resolve_to_their_own_records_in_any_order() {
    let mut store = Store::new();
    let todo = |id: &str, owner: &str| json!({"id": id, "title": format!("t{id}"), "owner": {"id": owner, "name": format!("n{owner}")}});
    let written = ["10", "11", "12", "13", "14", "15"];
    let owners = ["u1", "u1", "u2", "u2", "u3", "u1"];
    let body: Vec<Value> = written.iter().zip(owners).map(|(id, o)| todo(id, o)).collect();
    store
        .set_response::<Vec<Todo>>("GET /todos", &(), &Value::Array(body))
        .unwrap();
    let orders: [&[&str]; 5] = [
        &written,
        &["15", "14", "13", "12", "11", "10"],
        &["11", "11", "10", "10", "12", "12"],
        &["10", "16", "11", "17", "12"],
        &["13", "12", "14", "11", "15", "10", "13"],
    ];
    for (i, order) in orders.iter().enumerate() {
        let key = format!("GET /todos?order={i}");
        let body: Vec<Value> = order
            .iter()
            .map(|id| match written.iter().position(|w| w == id) {
                Some(at) => todo(id, owners[at]),
                None => json!({"id": id, "title": format!("t{id}")}),
            })
            .collect();
        store.set_response::<Vec<Todo>>(&key, &(), &Value::Array(body)).unwrap();
        // Drop the records the extra pks wrote, so those references are missing.
        for id in order.iter().filter(|id| !written.contains(id)) {
            store
                .set_response::<Invalidate<Todo>>(&format!("DELETE /todos/{id}"), &(), &json!(id))
                .unwrap();
        }
        let todos = data::<Vec<Todo>>(&store, &key, &json!({}));
        let expected: Vec<&str> = order.iter().copied().filter(|id| written.contains(id)).collect();
        assert_eq!(ids(&todos), expected, "order {order:?}");
        for t in todos.iter() {
            let owner = owners[written.iter().position(|w| *w == t.id).unwrap()];
            assert_eq!(t.title, format!("t{}", t.id));
            assert_eq!(t.owner.as_ref().map(|u| u.id.as_str()), Some(owner), "todo {}", t.id);
            assert_eq!(t.owner.as_ref().unwrap().name, format!("n{owner}"));
        }
    }
}

/// R-READ-1/2 over long tables and lists (thousands of rows): every row resolves to its own record to the very end of its
/// table, whichever way the records were written (from bytes, holding only their values, or from
/// a `Value`, holding their names), in the written order, reversed, as a collection and through
/// `All`. INVALID rows (among them the table's last one), records lacking fields and empty
/// strings read as they do in a short list.
#[test]
fn r_read_1_long_lists_resolve_every_row_to_the_tables_end_however_written() {
    let n = 5_000;
    let owner = |i: usize| {
        let u = i % 7;
        json!({"id": format!("u{u}"), "name": if u == 0 { String::new() } else { format!("user {u}") }})
    };
    let item = |i: usize| match i % 5 {
        1 => json!({"id": i.to_string()}),
        _ => {
            json!({"id": i.to_string(), "title": if i.is_multiple_of(5) { String::new() } else { format!("title {i}") },
                    "completed": i.is_multiple_of(2), "owner": owner(i)})
        }
    };
    let forward: Vec<Value> = (0..n).map(item).collect();
    let reversed: Vec<Value> = (0..n).rev().map(item).collect();
    // The last row INVALID, the one before it not: every look-ahead distance reaches past the end.
    let gone_todos = ["7", "4997", "4999"];
    let expected = |order: &mut dyn Iterator<Item = usize>| -> Vec<Todo> {
        order
            .filter(|i| !gone_todos.contains(&i.to_string().as_str()))
            .map(|i| {
                serde_json::from_value::<Todo>(item(i)).unwrap_or_else(|_| Todo {
                    id: i.to_string(),
                    ..Todo::default()
                })
            })
            .map(|mut t| {
                // The invalidated user leaves its todos' Option fields empty.
                if t.owner.as_ref().is_some_and(|u| u.id == "u3") {
                    t.owner = None;
                }
                t
            })
            .collect()
    };
    for from_bytes in [true, false] {
        let mut store = Store::new();
        for (key, body) in [("GET /todos", &forward), ("GET /todos?desc", &reversed)] {
            if from_bytes {
                let bytes = serde_json::to_vec(body).unwrap();
                store.set_response_bytes::<Vec<Todo>>(key, &(), &bytes).unwrap();
            } else {
                store
                    .set_response::<Vec<Todo>>(key, &(), Value::Array(body.clone()))
                    .unwrap();
            }
        }
        // The same list as a collection (its own record of references).
        store
            .set_response::<TodoList>("GET /todo-list", &(), Value::Array(forward.clone()))
            .unwrap();
        for id in gone_todos {
            store
                .set_response::<Invalidate<Todo>>(&format!("DELETE /todos/{id}"), &(), &json!(id))
                .unwrap();
        }
        store
            .set_response::<Invalidate<User>>("DELETE /users/u3", &(), &json!("u3"))
            .unwrap();
        let forward_read = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
        assert_eq!(*forward_read, expected(&mut (0..n)), "from bytes: {from_bytes}");
        let reversed_read = data::<Vec<Todo>>(&store, "GET /todos?desc", &json!({}));
        assert_eq!(*reversed_read, expected(&mut (0..n).rev()), "from bytes: {from_bytes}");
        let collection = data::<TodoList>(&store, "GET /todo-list", &json!({}));
        assert_eq!(*collection, expected(&mut (0..n)), "from bytes: {from_bytes}");
        let all = data::<All<Todo>>(&store, "GET /all-todos", &json!({}));
        assert_eq!(all.to_vec(), expected(&mut (0..n)), "from bytes: {from_bytes}");
    }
}

#[test]
fn r_read_2_unresolved_list_elements_are_dropped_and_options_become_none() {
    let mut store = Store::new();
    let body = json!([
        {"id": "1", "owner": {"id": "u1", "name": "Ada"}},
        {"id": "2", "owner": {"id": "u2", "name": "Bo"}},
    ]);
    store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap();
    store
        .set_response::<Invalidate<User>>("DELETE /users/u1", &(), &json!("u1"))
        .unwrap();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/2", &(), &json!("2"))
        .unwrap();
    let todos = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert_eq!(ids(&todos), ["1"]);
    assert_eq!(
        todos[0].owner, None,
        "an Option field holding an unresolved entity is None"
    );
}

#[test]
fn r_read_2_an_unresolved_required_field_makes_its_parent_unresolved() {
    let mut store = Store::new();
    let body = json!([{"id": "a1", "user": {"id": "u1"}}, {"id": "a2", "user": {"id": "u2"}}]);
    store
        .set_response::<Vec<Assignment>>("GET /assignments", &(), &body)
        .unwrap();
    store
        .set_response::<Assignment>("GET /assignments/a1", &(), &json!({"id": "a1", "user": {"id": "u1"}}))
        .unwrap();
    store
        .set_response::<Invalidate<User>>("DELETE /users/u1", &(), &json!("u1"))
        .unwrap();

    let list = data::<Vec<Assignment>>(&store, "GET /assignments", &json!({}));
    assert_eq!(
        list.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["a2"],
        "dropped one level up"
    );

    let one = store
        .get_response::<Assignment>("GET /assignments/a1", &json!({}))
        .unwrap();
    assert!(one.data.is_none(), "the top of the read is invalid");
    assert_eq!(one.status, ExpiryStatus::Invalid);
}

#[test]
fn r_read_3_a_cycle_is_built_shallow() {
    let mut store = Store::new();
    let body = json!({"id": "a", "name": "Ann", "books": [{"id": "b1", "author": {"id": "a"}}]});
    store.set_response::<Author>("GET /authors/a", &(), &body).unwrap();
    let author = data::<Author>(&store, "GET /authors/a", &json!({}));
    let inner = author.books[0].author.as_ref().expect("the author is resolved");
    assert_eq!(inner.name, "Ann", "own fields come from the record");
    assert!(
        inner.books.is_empty(),
        "nested-schema fields of the shallow copy take their Default"
    );
}

#[test]
fn r_read_3_entities_at_depth_65_are_built_shallow() {
    // A chain of 100 nodes, each holding the next.
    let mut chain = Value::Null;
    for id in (1..=100u64).rev() {
        chain = node(id, chain);
    }
    let mut store = Store::new();
    store.set_response::<Node>("GET /nodes/1", &(), &chain).unwrap();
    let node = data::<Node>(&store, "GET /nodes/1", &json!({}));
    let mut depth = 1;
    let mut at = &*node;
    while let Some(next) = &at.next {
        depth += 1;
        at = next;
    }
    assert_eq!(depth, 65);
    assert_eq!(at.id, 65);
}

#[test]
fn r_read_5_reads_keep_their_arc_until_a_dependency_changes() {
    let mut store = Store::new();
    let body = json!([{"id": "1", "owner": {"id": "u1", "name": "Ada"}}]);
    store.set_response::<Vec<Todo>>("GET /todos", &(), &body).unwrap();
    let a = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    let b = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert!(Arc::ptr_eq(&a, &b), "no change at all");

    store
        .set_response::<User>("GET /users/u9", &(), &json!({"id": "u9", "name": "Zed"}))
        .unwrap();
    store
        .set_response::<Todo>("GET /todos/7", &(), &json!({"id": "7"}))
        .unwrap();
    let c = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert!(Arc::ptr_eq(&a, &c), "unrelated commits do not change the read");

    store
        .set_response::<User>("GET /users/u1", &(), &json!({"id": "u1", "name": "Ada"}))
        .unwrap();
    let d = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert!(
        Arc::ptr_eq(&a, &d),
        "a write that changes nothing keeps identity (R-NORM-9)"
    );

    store
        .set_response::<User>("GET /users/u1", &(), &json!({"id": "u1", "name": "Ada L."}))
        .unwrap();
    let e = data::<Vec<Todo>>(&store, "GET /todos", &json!({}));
    assert!(!Arc::ptr_eq(&a, &e), "a nested entity changed");
    assert_eq!(e[0].owner.as_ref().unwrap().name, "Ada L.");
}

#[test]
fn r_read_5_a_missing_reference_that_appears_changes_the_read() {
    let mut store = Store::new();
    // Query mode for a todo that is not stored yet: nothing.
    assert!(
        store
            .get_response::<Todo>("GET /todos/1", &json!({"id": "1"}))
            .unwrap()
            .data
            .is_none()
    );
    store
        .set_response::<Todo>("POST /todos", &(), &json!({"id": "1", "title": "new"}))
        .unwrap();
    let todo = data::<Todo>(&store, "GET /todos/1", &json!({"id": "1"}));
    assert_eq!(todo.title, "new");
}

/// An entity with an optional field, for records that hold some of its fields.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "Wide")]
struct Wide {
    #[entity(pk)]
    id: String,
    alpha: String,
    beta: String,
    gamma: Option<String>,
    zeta: u32,
}

/// R-NORM-5 with R-READ-1: a record holding some of its type's declared fields and no other
/// (read by their index in the declared list) reads as one found by name: each field it holds,
/// the default for each it lacks, through both write paths and across merges, and so does one
/// holding a field the type does not declare.
#[test]
fn r_norm_5_records_of_some_declared_fields_read_like_records_found_by_name() {
    let wide = |alpha: &str, beta: &str, gamma: Option<&str>, zeta: u32| Wide {
        id: "1".into(),
        alpha: alpha.into(),
        beta: beta.into(),
        gamma: gamma.map(Into::into),
        zeta,
    };
    for from_bytes in [false, true] {
        let mut store = Store::new();
        let mut write = |body: Value| {
            let key = "GET /wide/1";
            if from_bytes {
                let bytes = serde_json::to_vec(&body).unwrap();
                store.set_response_bytes::<Wide>(key, &(), &bytes).unwrap();
            } else {
                store.set_response::<Wide>(key, &(), body).unwrap();
            }
            (*data::<Wide>(&store, key, &json!({}))).clone()
        };
        // Fields 0, 1 and 3 of [alpha, beta, gamma, id, zeta]: beta is the record's second
        // pair, zeta (index 4) is missing.
        assert_eq!(
            write(json!({"id": "1", "alpha": "A", "beta": "B"})),
            wide("A", "B", None, 0),
            "bytes: {from_bytes}"
        );
        assert_eq!(write(json!({"id": "1", "zeta": 4})), wide("A", "B", None, 4));
        assert_eq!(write(json!({"id": "1", "gamma": "G"})), wide("A", "B", Some("G"), 4));
        // Only some fields, each one on its own: no other index leaks into them.
        assert_eq!(write(json!({"id": "2", "gamma": "g"})).gamma.as_deref(), Some("g"));
        assert_eq!(write(json!({"id": "3", "zeta": 9})).zeta, 9);
        // A field the type does not declare: found by name from now on.
        assert_eq!(
            write(json!({"id": "1", "extra": [1], "beta": "B2"})),
            wide("A", "B2", Some("G"), 4)
        );
        let mut other = Store::new();
        let body = json!({"id": "1", "aaa": 0, "beta": "B", "zeta": 2});
        other.set_response::<Wide>("GET /wide/1", &(), body).unwrap();
        assert_eq!(*data::<Wide>(&other, "GET /wide/1", &json!({})), wide("", "B", None, 2));
    }
}

/// Some fields of `TodoPage`: a result `TodoPage` wrote, read in its JSON form.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct TodoPageTotal {
    total: u64,
    #[schema(nested)]
    results: TodoList,
}

/// R-READ-6: a key read with another schema than the one that wrote it takes the stored result in
/// its JSON form as that schema's normalized form: an entity's reference serves an `Option` of
/// it, a collection's key serves `All`, an object's row serves another object over the same
/// fields, and a union's references serve a list of the union. A form the schema cannot take
/// (a list read as one entity) does not resolve.
#[test]
fn r_read_6_a_result_is_read_by_another_schema_in_its_json_form() {
    let mut store = Store::new();
    store
        .set_response::<Todo>("GET /todos/1", &(), &json!({"id": "1", "title": "a"}))
        .unwrap();
    let one = data::<Option<Todo>>(&store, "GET /todos/1", &json!({}));
    assert_eq!(one.as_ref().as_ref().map(|t| t.title.as_str()), Some("a"));

    store
        .set_response::<TodoList>("GET /todos", &(), &json!([{"id": "2", "title": "b"}]))
        .unwrap();
    let all = data::<All<Todo>>(&store, "GET /todos", &json!({}));
    assert_eq!(all.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["1", "2"]);
    // A list stored as it is (`Vec<Todo>`, the form `All<Todo>` keeps) is read once, from the table.
    store
        .set_response::<Vec<Todo>>("GET /todos/plain", &(), &json!([{"id": "2"}, {"id": "1"}]))
        .unwrap();
    let all = data::<All<Todo>>(&store, "GET /todos/plain", &json!({}));
    assert_eq!(all.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["1", "2"]);

    store
        .set_response::<TodoPage>(
            "GET /todos?page=1",
            &json!({"page": 1}),
            &json!({"results": [{"id": "3", "title": "c"}], "total": 9}),
        )
        .unwrap();
    let page = data::<TodoPageTotal>(&store, "GET /todos?page=1", &json!({}));
    assert_eq!(page.total, 9);
    assert_eq!(page.results.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["3"]);

    store
        .set_response::<Vec<FeedItem>>(
            "GET /feed",
            &(),
            &json!([{"id": 1, "type": "link", "url": "u"}, {"id": 5, "type": "?"}]),
        )
        .unwrap();
    let feed = data::<Vec<Option<FeedItem>>>(&store, "GET /feed", &json!({}));
    assert!(matches!(feed[0], Some(FeedItem::Link(_))), "{feed:?}");
    assert!(matches!(feed[1], Some(FeedItem::Other(_))), "{feed:?}");

    for read in [
        store.get_response::<Todo>("GET /feed", &()).unwrap(),
        store.get_response::<Todo>("GET /todos?page=1", &()).unwrap(),
    ] {
        assert_eq!((read.data.is_none(), read.status), (true, ExpiryStatus::Invalid));
    }
}
