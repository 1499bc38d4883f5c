//! R-OPTM-1..4 and R-READ-4: optimistic layers, seen before the response, settled by it.

use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::rest::{EndpointOptions, Optimistic, ResourceOptions};
use serde_json::json;

use crate::fixtures::*;

/// The optimistic todos resource with its mutations pointed at a route that answers 500.
fn failing() -> Resource<Todo> {
    let path = Some(r"/misbehave/500\?id=:id".to_owned());
    let mut r = optimistic_todos();
    for member in ["update", "partial_update", "delete"] {
        r = r
            .with_member(
                member,
                EndpointOptions {
                    path: path.clone(),
                    ..Default::default()
                },
            )
            .unwrap();
    }
    r
}

#[tokio::test]
async fn r_optm_1_only_mutations_of_optimistic_resources_have_a_transform() {
    let r = optimistic_todos();
    assert_eq!(r.update().optimistic(), Some(Optimistic::Update));
    assert_eq!(r.partial_update().optimistic(), Some(Optimistic::PartialUpdate));
    assert_eq!(r.delete().optimistic(), Some(Optimistic::Delete));
    assert_eq!(r.get_list().push().optimistic(), Some(Optimistic::Push));
    assert_eq!(r.get_list().unshift().optimistic(), Some(Optimistic::Unshift));
    assert_eq!(r.get_list().remove().optimistic(), Some(Optimistic::Remove));
    assert_eq!(r.get_list().move_item().optimistic(), Some(Optimistic::Move));
    assert_eq!((r.get().optimistic(), r.get_list().optimistic()), (None, None));
    assert_eq!(todos().update().optimistic(), None);
}

#[tokio::test]
async fn r_optm_2_an_update_is_visible_before_the_response() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    let before = ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap();
    let mut hold = server.hold("/todos/3");
    let patch = spawn_fetch(
        ctrl.fetch(&r.partial_update(), params! { id: 3 })
            .body(&json!({ "completed": false, "title": "soon" })),
    );
    let held = hold.arrived().await;
    let during = ctrl
        .get_response(&r.get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(
        (during[2].title.as_str(), during[2].completed),
        ("soon", false),
        "seen while in flight"
    );
    assert_eq!(before[2].title, "Todo 3");
    // The fetch itself is not the read state (R-READ-4): it resolves to the server's answer.
    held.release();
    let answered = patch.await.unwrap().unwrap();
    assert_eq!(answered.title, "soon");
    let after = ctrl
        .get_response(&r.get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(after[2].title, "soon");
    assert_eq!(
        ctrl.inspect()["entities"]["Todo"]["rows"][2]["record"]["title"],
        "soon",
        "committed"
    );
}

#[tokio::test]
async fn r_optm_4_a_failed_update_rolls_back() {
    let (server, ctrl) = setup().await;
    let r = failing();
    ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap();
    let mut hold = server.hold("/misbehave/500");
    let patch = spawn_fetch(
        ctrl.fetch(&r.partial_update(), params! { id: 4 })
            .body(&json!({ "title": "doomed" })),
    );
    let held = hold.arrived().await;
    assert_eq!(
        ctrl.get_response(&r.get_list(), params! { userId: "u1" })
            .unwrap()
            .data
            .unwrap()[3]
            .title,
        "doomed"
    );
    held.release();
    assert!(matches!(
        patch.await.unwrap(),
        Err(Error::Status {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            ..
        })
    ));
    let list = ctrl
        .get_response(&r.get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(list[3].title, "Todo 4", "rolled back");
    let key = r.partial_update().key(&params! { id: 4 }).unwrap();
    assert!(
        ctrl.inspect()["meta"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["key"] == key && m["error"].is_string()),
        "the error is recorded under the mutation's key"
    );
}

#[tokio::test]
async fn r_optm_4_a_failed_delete_brings_the_entity_back_into_every_list() {
    let (server, ctrl) = setup().await;
    let r = failing();
    ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap();
    ctrl.suspense(&r.get_list(), params! { completed: true }).await.unwrap();
    let mut hold = server.hold("/misbehave/500");
    let delete = spawn_fetch(ctrl.fetch(&r.delete(), params! { id: 6 }));
    let held = hold.arrived().await;
    let u1 = ctrl
        .get_response(&r.get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    let done = ctrl
        .get_response(&r.get_list(), params! { completed: true })
        .unwrap()
        .data
        .unwrap();
    assert!(
        !ids(&u1).contains(&6) && !ids(&done).contains(&6),
        "gone at once from every list"
    );
    held.release();
    assert!(delete.await.unwrap().is_err());
    let u1 = ctrl
        .get_response(&r.get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    let done = ctrl
        .get_response(&r.get_list(), params! { completed: true })
        .unwrap()
        .data
        .unwrap();
    assert!(ids(&u1).contains(&6) && ids(&done).contains(&6), "back in every list");
}

#[tokio::test]
async fn r_optm_3_a_push_joins_lists_under_a_placeholder_until_the_real_entity_arrives() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    ctrl.suspense(&r.get_list(), params! { userId: "u2" }).await.unwrap();
    let mut hold = server.hold("/todos");
    let push = spawn_fetch(
        ctrl.fetch(&r.get_list().push(), params! { userId: "u2" })
            .body(&json!({ "title": "drafted" })),
    );
    let held = hold.arrived().await;
    let during = ctrl
        .get_response(&r.get_list(), params! { userId: "u2" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(during.len(), 11);
    assert_eq!(
        (during[10].id, during[10].title.as_str()),
        (0, "drafted"),
        "no pk yet: the field takes its Default"
    );
    assert!(
        ctrl.inspect()["entities"]["Todo"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["pk"].as_str().unwrap().starts_with("optimistic")),
        "placeholders never reach the committed tables"
    );
    held.release();
    let made = push.await.unwrap().unwrap();
    let after = ctrl
        .get_response(&r.get_list(), params! { userId: "u2" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(
        after.len(),
        11,
        "the placeholder is gone; the real entity took its place"
    );
    assert_eq!(after[10].id, made.id);
}

/// Reads the cached list of `user`'s todos.
fn list_of(ctrl: &Controller, r: &Resource<Todo>, user: &str) -> Vec<u64> {
    let list = ctrl
        .get_response(&r.get_list(), params! { userId: user })
        .unwrap()
        .data
        .unwrap();
    ids(&list)
}

#[tokio::test]
async fn r_col_7_a_remove_leaves_the_lists_before_the_answer_and_the_todo_stays() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    let u1 = ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap();
    let u2 = ids(&ctrl.suspense(&r.get_list(), params! { userId: "u2" }).await.unwrap());
    let gone = u1[0].id;
    let mut hold = server.hold("/todos");
    let remove = spawn_fetch(
        ctrl.fetch(&r.get_list().remove(), params! { userId: "u1" })
            .body(&json!({ "id": gone, "title": "set aside" })),
    );
    let held = hold.arrived().await;
    assert_eq!(held.request().method, "PATCH");
    let during = list_of(&ctrl, &r, "u1");
    assert_eq!(
        (during.len(), during.contains(&gone)),
        (u1.len() - 1, false),
        "out while in flight"
    );
    held.release();
    let removed = remove.await.unwrap().unwrap();
    assert_eq!((removed.id, removed.title.as_str()), (gone, "set aside"));
    assert_eq!(
        server.todo(gone).unwrap()["title"],
        "set aside",
        "the server took the PATCH"
    );
    assert!(!list_of(&ctrl, &r, "u1").contains(&gone), "out once answered");
    assert_eq!(list_of(&ctrl, &r, "u2"), u2, "another user's list is untouched");
    let kept = ctrl.get_response(&r.get(), params! { id: gone }).unwrap().data.unwrap();
    assert_eq!(
        kept.title, "set aside",
        "the todo itself is kept, with the answer's fields"
    );
}

#[tokio::test]
async fn r_col_8_a_move_changes_lists_before_the_answer() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    let moved = ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap()[0].id;
    let u2 = ids(&ctrl.suspense(&r.get_list(), params! { userId: "u2" }).await.unwrap());
    let mut hold = server.hold(&format!("/todos/{moved}"));
    let request = spawn_fetch(
        ctrl.fetch(&r.get_list().move_item(), params! { id: moved })
            .body(&json!({ "userId": "u2" })),
    );
    let held = hold.arrived().await;
    assert_eq!(held.request().method, "PATCH");
    let mut expected = u2.clone();
    expected.push(moved);
    assert!(
        !list_of(&ctrl, &r, "u1").contains(&moved),
        "out of u1's list while in flight"
    );
    assert_eq!(list_of(&ctrl, &r, "u2"), expected, "at the end of u2's while in flight");
    held.release();
    assert_eq!(request.await.unwrap().unwrap().user_id, "u2");
    assert_eq!(server.todo(moved).unwrap()["userId"], "u2", "the server took the PATCH");
    assert!(!list_of(&ctrl, &r, "u1").contains(&moved));
    assert_eq!(list_of(&ctrl, &r, "u2"), expected, "where the answer puts it");
}

#[tokio::test]
async fn r_optm_3_partial_update_adds_a_layer_only_for_a_cached_entity() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    let mut hold = server.hold("/todos/8");
    let patch = spawn_fetch(
        ctrl.fetch(&r.partial_update(), params! { id: 8 })
            .body(&json!({ "title": "x" })),
    );
    let held = hold.arrived().await;
    let read = ctrl.get_response(&r.get(), params! { id: 8 }).unwrap();
    assert!(
        read.data.is_none(),
        "no layer: a partial entity would be a made-up read"
    );
    held.release();
    patch.await.unwrap().unwrap();
    assert_eq!(
        ctrl.get_response(&r.get(), params! { id: 8 })
            .unwrap()
            .data
            .unwrap()
            .title,
        "x"
    );
}

#[tokio::test]
async fn r_optm_2_a_layer_loses_to_data_from_a_request_that_started_later() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    ctrl.suspense(&r.get(), params! { id: 2 }).await.unwrap();
    let mut hold = server.hold("/todos/2");
    let patch = spawn_fetch(
        ctrl.fetch(&r.partial_update(), params! { id: 2 })
            .body(&json!({ "title": "layer" })),
    );
    let held = hold.arrived().await;
    // A GET that starts later (another URL, same entity) commits while the layer is pending.
    let scoped = resource(ResourceOptions {
        path: "/users/:user_id/todos/:id".into(),
        ..Default::default()
    });
    assert!(server.upsert_todo(json!({ "id": 2, "userId": "u1", "title": "later" })));
    ctrl.fetch(&scoped.get(), params! { user_id: "u1", id: 2 })
        .await
        .unwrap();
    assert_eq!(
        ctrl.get_response(&r.get(), params! { id: 2 })
            .unwrap()
            .data
            .unwrap()
            .title,
        "later"
    );
    held.release();
    patch.await.unwrap().unwrap();
}

/// R-READ-4 with R-FETCH-5: a fetch resolves to the committed data, not to the optimistic view:
/// a GET answered while a push is pending resolves to the list without the placeholder, and
/// one answered while a delete of its entity is pending resolves to the entity it committed.
#[tokio::test]
async fn r_read_4_a_fetch_resolves_to_committed_data_under_a_pending_layer() {
    let (server, ctrl) = setup().await;
    let r = optimistic_todos();
    let before = ctrl.suspense(&r.get_list(), params! { userId: "u2" }).await.unwrap();
    let mut hold = server.hold("/todos");
    let push = ctrl.fetch(&r.get_list().push(), params! { userId: "u2" });
    let push = spawn_fetch(push.body(&json!({ "title": "drafted" })));
    let held_push = hold.arrived().await;
    assert_eq!(held_push.request().method, "POST");
    let get = spawn_fetch(ctrl.fetch(&r.get_list(), params! { userId: "u2" }));
    hold.arrived().await.release();
    let fetched = get.await.unwrap().unwrap();
    let view = ctrl
        .get_response(&r.get_list(), params! { userId: "u2" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(view.len(), before.len() + 1, "the view holds the placeholder");
    assert_eq!(ids(&fetched), ids(&before), "the GET resolves to the committed list");
    held_push.release();
    push.await.unwrap().unwrap();

    let mut hold = server.hold("/todos/3");
    let get = spawn_fetch(ctrl.fetch(&r.get(), params! { id: 3 }));
    let held_get = hold.arrived().await;
    let delete = spawn_fetch(ctrl.fetch(&r.delete(), params! { id: 3 }));
    let held_delete = hold.arrived().await;
    assert_eq!(held_delete.request().method, "DELETE");
    held_get.release();
    let fetched = get.await.unwrap();
    assert_eq!(
        fetched.map(|t| t.title.clone()).ok().as_deref(),
        Some("Todo 3"),
        "the GET's own answer"
    );
    held_delete.release();
    delete.await.unwrap().unwrap();
}

/// R-OPTM-2 with R-GET-1: while a pending optimistic delete hides a view, its status is the
/// `Invalidated` error the view shows, not `Loading`: no GET is in flight or would be sent.
#[tokio::test]
async fn r_optm_2_a_view_hidden_by_a_pending_delete_is_not_loading() {
    use restcache::controller::ReadStatus;
    let (server, ctrl) = setup().await;
    let r = failing();
    let mut live = ctrl.subscribe(&r.get(), params! { id: 3 });
    assert_eq!(live.next().await.unwrap().unwrap().title, "Todo 3");
    let mut hold = server.hold("/misbehave/500");
    let delete = spawn_fetch(ctrl.fetch(&r.delete(), params! { id: 3 }));
    let held = hold.arrived().await;
    let item = live.next().await.unwrap();
    assert!(matches!(item, Err(Error::Invalidated { .. })), "{item:?}");
    let status = ctrl.status(&r.get(), params! { id: 3 }).unwrap();
    let live_status = live.status();
    held.release();
    assert!(delete.await.unwrap().is_err());
    assert_eq!(hits(&server, "/todos/3"), 1, "no GET was sent or is in flight");
    let hidden = |s: &ReadStatus<Todo>| {
        matches!(
            s,
            ReadStatus::Error {
                error: Error::Invalidated { .. },
                data: None
            }
        )
    };
    assert!(hidden(&status), "status while hidden: {status:?}");
    assert!(hidden(&live_status), "live status while hidden: {live_status:?}");
}

/// R-OPTM-2 with R-GET-4: a layer does not change how fresh the rows it writes over are: a
/// row gone stale reads stale while an optimistic update of it is pending, as its neighbour
/// from the same answer does.
#[tokio::test(start_paused = true)]
async fn r_optm_2_a_layered_row_keeps_the_expiry_of_the_row_beneath() {
    let (server, ctrl) = setup_paused();
    let r = resource(ResourceOptions {
        path: "/todos/:id".into(),
        optimistic: true,
        data_expiry_length: Some(std::time::Duration::from_secs(1)),
        ..Default::default()
    });
    ctrl.suspense(&r.get_list(), params! { userId: "u1" }).await.unwrap();
    let mut hold = server.hold("/todos/3");
    let patch = ctrl.fetch(&r.partial_update(), params! { id: 3 });
    let patch = spawn_fetch(patch.body(&json!({ "title": "x" })));
    let held = hold.arrived().await;
    tokio::time::advance(std::time::Duration::from_secs(5)).await;
    let now = restcache::Instant::now();
    let three = ctrl.get_response(&r.get(), params! { id: 3 }).unwrap();
    let four = ctrl.get_response(&r.get(), params! { id: 4 }).unwrap();
    held.release();
    patch.await.unwrap().unwrap();
    assert_eq!(
        three.data.as_ref().map(|t| t.title.as_str()),
        Some("x"),
        "the layer shows"
    );
    assert!(four.is_stale(now));
    assert!(
        three.is_stale(now),
        "a layered row is no fresher than the row beneath it"
    );
}
