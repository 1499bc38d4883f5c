//! Aborts (issue #24, item 4): a GET nobody awaits any more is aborted, and so is every GET on
//! `reset`; a mutation runs to its end (R-FETCH-4).

use std::future::{Future, IntoFuture, poll_fn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::rest::{EndpointHooks, RequestInit};
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

/// A request hook with a bug: it panics the first time it runs.
#[derive(Default)]
struct PanicsOnce(AtomicBool);

impl EndpointHooks for PanicsOnce {
    fn request_init(&self, _: &mut RequestInit) {
        if !self.0.swap(true, Ordering::SeqCst) {
            panic!("a bug in the app's request hook (the test expects this panic)");
        }
    }
}

/// `fut`'s output; fails the test instead of hanging if it never settles.
async fn settles<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), fut)
        .await
        .expect("settled, not left waiting for ever")
}

#[tokio::test]
async fn r_fetch_4_a_get_whose_task_panics_is_aborted_and_frees_its_key() {
    let (server, ctrl) = setup().await;
    let get = todos().get().with_hooks(PanicsOnce::default());
    let first = settles(ctrl.fetch(&get, params! { id: 1 }).into_future()).await;
    assert_eq!(first.unwrap_err(), Error::Aborted);
    assert!(ctrl.get_response(&get, params! { id: 1 }).unwrap().data.is_none());
    // The key is not left to the dead task: the next read sends a request of its own.
    let next = settles(ctrl.suspense(&get, params! { id: 1 })).await;
    assert_eq!(next.unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 1);
}

#[tokio::test]
async fn r_fetch_4_a_mutation_whose_task_panics_rolls_its_layer_back() {
    let (_server, ctrl) = setup().await;
    let r = optimistic_todos();
    let before = ctrl.suspense(&r.get(), params! { id: 3 }).await.unwrap();
    let patch = r.partial_update().with_hooks(PanicsOnce::default());
    let patched = ctrl
        .fetch(&patch, params! { id: 3 })
        .body(&json!({ "title": "never sent" }))
        .into_future();
    assert_eq!(settles(patched).await.unwrap_err(), Error::Aborted);
    let after = ctrl.get_response(&r.get(), params! { id: 3 }).unwrap().data.unwrap();
    assert_eq!(after, before, "the optimistic layer went with the task");
}

/// A fetch task that its runtime drops before it ever ran (the runtime shut down first) is
/// aborted all the same: a Controller that outlives that runtime serves the key on the next.
#[test]
fn r_fetch_4_a_task_dropped_before_it_ran_frees_its_key() {
    let server = demo_api::DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server);
    let get = todos().get();
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    runtime().block_on(async {
        let mut fetch = std::pin::pin!(ctrl.fetch(&get, params! { id: 1 }).into_future());
        // One poll starts the task; the runtime goes before it runs.
        poll_fn(|cx| {
            assert!(fetch.as_mut().poll(cx).is_pending());
            Poll::Ready(())
        })
        .await;
    });
    let todo = runtime().block_on(settles(ctrl.suspense(&get, params! { id: 1 })));
    assert_eq!(todo.unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 1);
}

/// R-EXP-5 with R-FETCH-4: `reset` aborts every GET in flight at once, also one an earlier
/// `invalidate` took out of the flights (no later read joins it, but it still runs): its
/// reader gets `Error::Reset` without waiting for the server, which sees the client leave.
#[tokio::test(start_paused = true)]
async fn r_exp_5_reset_aborts_a_get_an_invalidation_forgot() {
    let (server, ctrl) = setup_paused();
    let get = todos().get();
    let mut hold = server.hold("/todos/1");
    let reader = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
    let mut held = hold.arrived().await;
    ctrl.invalidate(&get, params! { id: 1 }).unwrap();
    ctrl.reset();
    // Paused, the clock jumps as soon as nothing is left to run: a reader still waiting for
    // the server when the reset is done times out here.
    let out = tokio::time::timeout(Duration::from_secs(10), reader).await;
    let out = out.expect("the reader waited for the server after the reset");
    assert_eq!(out.unwrap().unwrap_err(), Error::Reset);
    held.abandoned().await;
}
