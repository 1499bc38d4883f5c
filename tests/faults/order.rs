//! R-NORM-7 (and D-16): a response that arrives after the response of a request that started
//! later never overwrites that newer data.
//!
//! The older request is held at the server until the newer one has settled. What it answers is
//! fixed when it *arrives*, with an injected `Fault::Json` of the server's state at that moment:
//! a response computed early and delivered late, as on a slow network. The newer request is
//! handled normally, so the server ends up holding what the cache must show.

use demo_api::{DemoServer, Fault};
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::*;

async fn setup() -> (DemoServer, Controller) {
    let server = DemoServer::start().await.expect("the demo API starts");
    let ctrl = controller(&server, |b| b);
    (server, ctrl)
}

/// The stored record of a todo, as the snapshot shows it (`"INVALID"` for a mark).
fn record(ctrl: &Controller, id: u64) -> Value {
    let snapshot = ctrl.inspect();
    let rows = snapshot["entities"]["Todo"]["rows"].as_array().expect("a Todo table");
    let pk = id.to_string();
    rows.iter()
        .find(|r| r["pk"] == pk.as_str())
        .unwrap_or_else(|| panic!("todo {id} is stored"))["record"]
        .clone()
}

/// The server's todos of one user, as its list route answers them.
fn list_of(server: &DemoServer, user: &str) -> Value {
    Value::Array(server.todos().into_iter().filter(|t| t["userId"] == user).collect())
}

#[tokio::test]
async fn r_norm_7_an_older_get_answered_after_a_newer_patch_merges_underneath() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    // What the older GET saw, plus a field only it carries.
    let mut seen = server.todo(1).unwrap();
    seen["seenBy"] = json!("the older GET");
    server.inject("/todos/1", Fault::Json(seen));
    let mut hold = server.hold("/todos/1");
    let older = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 1 }));
    let held_older = hold.arrived().await;

    let newer = spawn_fetch(
        ctrl.fetch(&todos().partial_update(), params! { id: 1 })
            .body(&json!({ "title": "patched" })),
    );
    hold.arrived().await.release();
    assert_eq!(newer.await.unwrap().unwrap().title, "patched");
    held_older.release();
    assert_eq!(
        older.await.unwrap().unwrap().title,
        "patched",
        "the older fetch resolves to the cache's view of what it wrote (R-FETCH-5)"
    );

    assert_eq!(
        record(&ctrl, 1),
        json!({ "id": 1, "userId": "u1", "title": "patched", "completed": false }),
        "the newer fields win (a field the entity does not declare is not kept)"
    );
    let read = ctrl.get_response(&todos().get(), params! { id: 1 }).unwrap();
    assert_eq!(read.data.as_deref(), Some(&server_todo(&server, 1)));
}

#[tokio::test]
async fn r_norm_7_a_patch_is_not_overridden_by_a_get_in_flight_alongside_it() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 4 }).await.unwrap();
    let mut hold = server.hold("/todos/4");
    let patch = spawn_fetch(
        ctrl.fetch(&todos().partial_update(), params! { id: 4 })
            .body(&json!({ "title": "mine" })),
    );
    let held_patch = hold.arrived().await;
    // A GET that starts after the PATCH is answered first, before the patch takes effect.
    let get = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 4 }));
    hold.arrived().await.release();
    assert_eq!(get.await.unwrap().unwrap().title, "Todo 4");
    held_patch.release();
    assert_eq!(patch.await.unwrap().unwrap().title, "mine");

    let read = ctrl.get_response(&todos().get(), params! { id: 4 }).unwrap();
    assert_eq!(read.data.unwrap().title, "mine", "the mutation's effect stands");
    assert_eq!(record(&ctrl, 4), server.todo(4).unwrap());
}

#[tokio::test]
async fn r_norm_7_d_16_older_reads_answered_after_a_newer_delete_do_not_bring_it_back() {
    let (server, ctrl) = setup().await;
    let args = params! { userId: "u1" };
    ctrl.fetch(&todos().get_list(), &args).await.unwrap();
    // A list and a single read, both answered with todo 2 before it was deleted.
    server.inject("/todos", Fault::Json(list_of(&server, "u1")));
    server.inject("/todos/2", Fault::Json(server.todo(2).unwrap()));
    let mut hold_list = server.hold("/todos");
    let mut hold_one = server.hold("/todos/2");
    let older_list = spawn_fetch(ctrl.fetch(&todos().get_list(), &args));
    let held_list = hold_list.arrived().await;
    let older_one = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 2 }));
    let held_one = hold_one.arrived().await;

    let delete = spawn_fetch(ctrl.fetch(&todos().delete(), params! { id: 2 }));
    hold_one.arrived().await.release();
    assert_eq!(*delete.await.unwrap().unwrap(), "2");
    assert!(server.todo(2).is_none());
    held_list.release();
    held_one.release();
    // What they wrote, read as the cache holds it: without the deleted todo (R-FETCH-5).
    assert!(older_list.await.unwrap().unwrap().iter().all(|t| t.id != 2));
    assert!(matches!(
        older_one.await.unwrap(),
        Err(restcache::Error::Invalidated { .. })
    ));

    assert_eq!(record(&ctrl, 2), json!("INVALID"), "the newer mark stays");
    let list = ctrl.get_response(&todos().get_list(), &args).unwrap().data.unwrap();
    let ids: Vec<u64> = list.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        [1, 3, 4, 5, 6, 7, 8, 9, 10],
        "the deleted todo stays out of the list"
    );
    let one = ctrl.get_response(&todos().get(), params! { id: 2 }).unwrap();
    assert_eq!(
        (one.data, one.status),
        (None, ExpiryStatus::Invalid),
        "and cannot be read"
    );
}

#[tokio::test]
async fn r_norm_7_an_older_list_answered_after_a_newer_push_keeps_the_pushed_todo() {
    let (server, ctrl) = setup().await;
    let args = params! { userId: "u1" };
    ctrl.fetch(&todos().get_list(), &args).await.unwrap();
    server.inject("/todos", Fault::Json(list_of(&server, "u1")));
    let mut hold = server.hold("/todos");
    let older = spawn_fetch(ctrl.fetch(&todos().get_list(), &args));
    let held_older = hold.arrived().await;

    let push = spawn_fetch(
        ctrl.fetch(&todos().get_list().push(), &args)
            .body(&json!({ "userId": "u1", "title": "pushed" })),
    );
    hold.arrived().await.release();
    let pushed = push.await.unwrap().unwrap();
    held_older.release();
    assert_eq!(
        older.await.unwrap().unwrap().last().map(|t| t.id),
        Some(pushed.id),
        "the older answer, which predates the push, resolves to the list as cached (R-FETCH-5)"
    );

    let list = ctrl.get_response(&todos().get_list(), &args).unwrap().data.unwrap();
    assert_eq!(
        list.last().map(|t| (t.id, t.title.as_str())),
        Some((pushed.id, "pushed")),
        "the newer collection stays as it is"
    );
    let on_server: Vec<u64> = list_of(&server, "u1")
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_u64().unwrap())
        .collect();
    assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), on_server);
}

#[tokio::test]
async fn r_col_4_a_push_or_unshift_answered_after_a_later_push_still_joins_the_lists() {
    for unshift in [false, true] {
        let (server, ctrl) = setup().await;
        let args = params! { userId: "u1" };
        ctrl.fetch(&todos().get_list(), &args).await.unwrap();
        ctrl.fetch(&todos().get_list(), params! {}).await.unwrap();
        let mut hold = server.hold("/todos");
        let body = |title: &str| json!({ "userId": "u1", "title": title });
        let first = if unshift {
            spawn_fetch(ctrl.fetch(&todos().get_list().unshift(), &args).body(&body("first")))
        } else {
            spawn_fetch(ctrl.fetch(&todos().get_list().push(), &args).body(&body("first")))
        };
        let held_first = hold.arrived().await;
        let second = spawn_fetch(ctrl.fetch(&todos().get_list().push(), &args).body(&body("second")));
        hold.arrived().await.release();
        let second = second.await.unwrap().unwrap().id;
        held_first.release();
        let first = first.await.unwrap().unwrap().id;

        // Both creates are on the server; the cache must not lose the one answered last. It
        // joins underneath the later push: at the end, or at the start for an unshift.
        for (args, seeded) in [(params! { userId: "u1" }, 1..=10), (params! {}, 1..=30)] {
            let list = ctrl.get_response(&todos().get_list(), &args).unwrap().data.unwrap();
            let ids: Vec<u64> = list.iter().map(|t| t.id).collect();
            let mut expected: Vec<u64> = seeded.collect();
            if unshift {
                expected.insert(0, first);
                expected.push(second);
            } else {
                expected.extend([second, first]);
            }
            assert_eq!(ids, expected, "unshift: {unshift}, list {args}");
        }
    }
}

#[tokio::test]
async fn r_norm_7_reads_in_flight_alongside_a_delete_never_bring_the_entity_back() {
    let (server, ctrl) = setup().await;
    let args = params! { userId: "u1" };
    ctrl.fetch(&todos().get_list(), &args).await.unwrap();
    let mut hold = server.hold("/todos/1");
    let delete = spawn_fetch(ctrl.fetch(&todos().delete(), params! { id: 1 }));
    let held_delete = hold.arrived().await;

    // A GET that starts after the DELETE is answered, with the todo, before the delete takes
    // effect at the server.
    let early = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 1 }));
    hold.arrived().await.release();
    assert_eq!(early.await.unwrap().unwrap().id, 1);
    // A list read that also starts after the DELETE saw the todo, but is answered only after
    // the delete has committed.
    server.inject("/todos", Fault::Json(list_of(&server, "u1")));
    let mut hold_list = server.hold("/todos");
    let late = spawn_fetch(ctrl.fetch(&todos().get_list(), &args));
    let held_late = hold_list.arrived().await;

    held_delete.release();
    assert_eq!(*delete.await.unwrap().unwrap(), "1");
    assert!(server.todo(1).is_none());
    held_late.release();
    late.await.unwrap().unwrap();

    assert_eq!(record(&ctrl, 1), json!("INVALID"), "the delete's mark stands");
    let one = ctrl.get_response(&todos().get(), params! { id: 1 }).unwrap();
    assert_eq!((one.data, one.status), (None, ExpiryStatus::Invalid));
    let list = ctrl.get_response(&todos().get_list(), &args).unwrap().data.unwrap();
    assert_eq!(
        list.iter().map(|t| t.id).collect::<Vec<_>>(),
        (2..=10).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn r_optm_2_a_pending_optimistic_delete_does_not_make_a_live_view_refetch() {
    let (server, ctrl) = setup().await;
    let mut live = ctrl.subscribe(&optimistic_todos().get(), params! { id: 1 });
    assert_eq!(live.next().await.unwrap().unwrap().id, 1);
    let mut hold = server.hold("/todos/1");
    let delete = spawn_fetch(ctrl.fetch(&optimistic_todos().delete(), params! { id: 1 }));
    let held_delete = hold.arrived().await;

    // The layer hides the todo: the view says so, and sends no request of its own.
    tokio::select! {
        item = live.next() => assert!(
            matches!(item, Some(Err(restcache::Error::Invalidated { .. }))),
            "the hidden todo reads as invalidated: {item:?}"
        ),
        refetch = hold.arrived() => panic!(
            "the live view refetched while the delete was pending: {:?}",
            refetch.request()
        ),
    }
    drop(hold);
    held_delete.release();
    assert_eq!(*delete.await.unwrap().unwrap(), "1");

    // Once the delete has committed, the view's read is really invalid: it refetches, and
    // the server says the todo is gone.
    let after = live.next().await.unwrap();
    assert!(
        matches!(
            &after,
            Err(restcache::Error::Status {
                status: StatusCode::NOT_FOUND,
                ..
            })
        ),
        "the refetch after the delete finds nothing: {after:?}"
    );
    let methods: Vec<_> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/todos/1")
        .map(|r| r.method.clone())
        .collect();
    assert_eq!(methods, ["GET", "DELETE", "GET"]);
    assert_eq!(record(&ctrl, 1), json!("INVALID"));
}

/// `/todos/:id` paged by `page` (ten todos a page on the demo API).
fn paged_todos() -> Resource<Todo> {
    Resource::new(restcache::rest::ResourceOptions {
        path: "/todos/:id".into(),
        pagination_field: Some("page".into()),
        ..Default::default()
    })
    .expect("valid resource")
}

#[tokio::test]
async fn r_norm_7_r_page_3_an_older_page_answered_after_a_newer_one_adds_its_items_underneath() {
    let (server, ctrl) = setup().await;
    let page = paged_todos().get_list().paginated().unwrap().get_page();
    ctrl.fetch(&page, params! { page: 1 }).await.unwrap();
    // The older request's answer: page 2, with todo 21 (which the newer page 3 holds) inside it
    // and its own first todo repeated at its end.
    let todo = |id: u64| server.todo(id).unwrap();
    let mut answer: Vec<Value> = (11..=20).map(todo).collect();
    answer.insert(3, todo(21));
    answer.push(todo(11));
    server.inject("/todos", Fault::Json(Value::Array(answer)));
    let mut hold = server.hold("/todos");
    let older = spawn_fetch(ctrl.fetch(&page, params! { page: 2 }));
    let held_older = hold.arrived().await;

    let newer = spawn_fetch(ctrl.fetch(&page, params! { page: 3 }));
    hold.arrived().await.release();
    newer.await.unwrap().unwrap();
    let after_newer = ctrl.inspect();
    held_older.release();
    older.await.unwrap().unwrap();

    let list = ctrl
        .get_response(&paged_todos().get_list(), params! {})
        .unwrap()
        .data
        .unwrap();
    let ids: Vec<u64> = list.iter().map(|t| t.id).collect();
    let expected: Vec<u64> = (1..=10).chain(21..=30).chain(11..=20).collect();
    assert_eq!(
        ids, expected,
        "the newer list stays as it is; the older page adds the todos only it has, at the end"
    );
    let snapshot = ctrl.inspect();
    let collection = |s: &Value| s["entities"]["[Todo]"]["rows"][0]["fetched_at"].clone();
    assert_eq!(
        collection(&snapshot),
        collection(&after_newer),
        "the newer meta is kept"
    );
    let meta = |s: &Value| {
        s["meta"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["key"] == "GET /todos")
            .cloned()
    };
    assert_eq!(
        meta(&snapshot),
        meta(&after_newer),
        "the base key keeps the newer page's meta"
    );
}
