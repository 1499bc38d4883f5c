//! Aborts (issue #24, item 4): a GET nobody awaits any more is aborted, and so is every GET on
//! `reset`; a mutation runs to its end (R-FETCH-4).

use restcache::Error;
use restcache::prelude::*;
use serde_json::json;

use crate::fixtures::*;

#[tokio::test]
async fn r_fetch_4_a_get_is_aborted_when_its_last_awaiting_reader_is_dropped() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut hold = server.hold("/todos/1");
    let first = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    let mut held = hold.arrived().await;
    let second = {
        let (ctrl, get) = (ctrl.clone(), get.clone());
        tokio::spawn(async move { ctrl.suspense(&get, params! { id: 1 }).await })
    };
    // One of two readers goes: the request goes on.
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    // The other goes too: the request is aborted, and the server sees the client leave.
    second.abort();
    assert!(second.await.unwrap_err().is_cancelled());
    held.abandoned().await;
    assert!(
        ctrl.get_response(&get, params! { id: 1 }).unwrap().data.is_none(),
        "nothing was written"
    );
    // The next read sends a request of its own.
    drop(hold);
    assert_eq!(ctrl.suspense(&get, params! { id: 1 }).await.unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_fetch_4_a_get_goes_on_while_one_of_its_readers_still_awaits() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut hold = server.hold("/todos/1");
    let first = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    let held = hold.arrived().await;
    let second = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    held.release();
    assert_eq!(second.await.unwrap().unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 1);
}

#[tokio::test]
async fn r_fetch_4_a_background_refetch_is_not_aborted() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.expire_all(&get);
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "revalidated" })));
    let mut hold = server.hold("/todos/1");
    // Stale: served at once, refetched with nobody awaiting the refetch.
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    let held = hold.arrived().await;
    // A reader joins the refetch and leaves: the refetch still runs to its end.
    let joined = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    joined.abort();
    assert!(joined.await.unwrap_err().is_cancelled());
    let mut live = ctrl.subscribe(&get, params! { id: 1 });
    held.release();
    loop {
        if live.next().await.unwrap().unwrap().title == "revalidated" {
            break;
        }
    }
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_fetch_4_a_dropped_mutation_still_runs_and_commits() {
    let (server, ctrl) = setup().await;
    let mut live = ctrl.subscribe(&todos().get(), params! { id: 1 });
    live.next().await.unwrap().unwrap();
    let mut hold = server.hold("/todos/1");
    let patch = spawn_fetch(
        ctrl.fetch(&todos().partial_update(), params! { id: 1 })
            .body(&json!({ "title": "patched" })),
    );
    let held = hold.arrived().await;
    patch.abort();
    assert!(patch.await.unwrap_err().is_cancelled());
    held.release();
    loop {
        if live.next().await.unwrap().unwrap().title == "patched" {
            break;
        }
    }
}

#[tokio::test]
async fn r_exp_5_reset_aborts_gets_in_flight_at_once() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut hold = server.hold("/todos/1");
    let reader = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    let mut held = hold.arrived().await;
    ctrl.reset();
    // Resolved while the server still holds the request: it was not waited for.
    assert_eq!(reader.await.unwrap().unwrap_err(), Error::Reset);
    held.abandoned().await;
    assert!(ctrl.get_response(&get, params! { id: 1 }).unwrap().data.is_none());
}
