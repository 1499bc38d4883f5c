//! R-FETCH-1..5 and R-EXP-5 through the Controller.

use std::sync::Arc;

use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::rest::ResourceOptions;
use serde_json::json;

use crate::fixtures::*;

#[tokio::test]
async fn r_fetch_2_a_hundred_concurrent_suspense_calls_make_one_request() {
    let (server, ctrl) = setup().await;
    let mut hold = server.hold("/todos/1");
    let readers: Vec<_> = (0..100)
        .map(|_| {
            let ctrl = ctrl.clone();
            tokio::spawn(async move { ctrl.suspense(&todos().get(), params! { id: 1 }).await })
        })
        .collect();
    // The first request is held at the server while the other 99 callers join it.
    let held = hold.arrived().await;
    tokio::task::yield_now().await;
    held.release();
    let mut results = Vec::new();
    for r in readers {
        results.push(r.await.unwrap().unwrap());
    }
    assert_eq!(hits(&server, "/todos/1"), 1);
    assert!(
        results.iter().all(|t| Arc::ptr_eq(t, &results[0])),
        "every caller reads the same data"
    );
    assert_eq!(results[0].title, "Todo 1");
}

#[tokio::test]
async fn r_fetch_2_mutations_are_never_shared() {
    let (server, ctrl) = setup().await;
    let patch = |title: &'static str| {
        spawn_fetch(
            ctrl.fetch(&todos().partial_update(), params! { id: 2 })
                .body(&json!({ "title": title })),
        )
    };
    let (a, b) = (patch("a"), patch("b"));
    a.await.unwrap().unwrap();
    b.await.unwrap().unwrap();
    assert_eq!(hits(&server, "/todos/2"), 2);
}

#[tokio::test]
async fn r_fetch_2_a_fetch_sends_a_request_even_when_the_data_is_fresh() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_norm_7_overlapping_requests_answered_in_reverse_order_keep_the_newer_data() {
    let (server, ctrl) = setup().await;
    let scoped = resource(ResourceOptions {
        path: "/users/:user_id/todos/:id".into(),
        ..Default::default()
    });
    let mut hold = server.hold("/todos/1");
    let older = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 1 }));
    let held = hold.arrived().await;
    // A request that starts later is answered first, with newer data.
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "newer" })));
    ctrl.fetch(&scoped.get(), params! { user_id: "u1", id: 1 })
        .await
        .unwrap();
    // The older request is answered last, with what it saw.
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "older", "completed": true })));
    held.release();
    let answered = older.await.unwrap().unwrap();
    let cached = ctrl
        .get_response(&todos().get(), params! { id: 1 })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(cached.title, "newer", "the older response merged underneath");
    assert!(cached.completed, "fields only the older response had were added");
    assert_eq!(
        answered, cached,
        "the fetch resolves to the cache's view of what it wrote (R-FETCH-5)"
    );
}

#[tokio::test]
async fn r_fetch_5_a_put_whose_response_omits_fields_resolves_to_their_cached_values() {
    let (server, ctrl) = setup().await;
    let before = ctrl.suspense(&todos().get(), params! { id: 3 }).await.unwrap();
    assert!(before.completed);
    // The server answers the PUT with only some of the todo's fields.
    server.inject(
        "/todos/3",
        demo_api::Fault::Json(json!({ "id": 3, "title": "renamed" })),
    );
    let put = ctrl
        .fetch(&todos().update(), params! { id: 3 })
        .body(&json!({ "title": "renamed" }))
        .await
        .unwrap();
    let read = ctrl
        .get_response(&todos().get(), params! { id: 3 })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(*put, *read, "a fetch resolves to what a read of the same data returns");
    assert_eq!(
        (put.title.as_str(), put.completed, put.user_id.as_str()),
        ("renamed", true, "u1"),
        "omitted fields keep their cached values, not their defaults"
    );
}

#[tokio::test]
async fn r_exp_5_reset_wins_over_a_fetch_in_flight() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 9 }).await.unwrap();
    let mut hold = server.hold("/todos/4");
    let in_flight = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 4 }));
    let held = hold.arrived().await;
    ctrl.reset();
    held.release();
    drop(hold);
    assert_eq!(in_flight.await.unwrap().unwrap_err(), Error::Reset);
    let snap = ctrl.inspect();
    assert_eq!(
        (snap["entities"].clone(), snap["results"].clone(), snap["meta"].clone()),
        (json!({}), json!([]), json!([]))
    );
    // A fetch started after the reset does not join the old one.
    assert_eq!(ctrl.fetch(&todos().get(), params! { id: 4 }).await.unwrap().id, 4);
    assert_eq!(hits(&server, "/todos/4"), 2);
}

#[tokio::test]
async fn r_fetch_1_an_error_is_recorded_and_a_success_clears_it() {
    let (server, ctrl) = setup().await;
    let err = ctrl.fetch(&todos().get(), params! { id: 99 }).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::NOT_FOUND));
    assert_eq!(
        ctrl.get_response(&todos().get(), params! { id: 99 }).unwrap().error,
        Some(err)
    );
    assert!(server.upsert_todo(json!({ "id": 99, "title": "now here" })));
    ctrl.fetch(&todos().get(), params! { id: 99 }).await.unwrap();
    let read = ctrl.get_response(&todos().get(), params! { id: 99 }).unwrap();
    assert_eq!(
        (read.error, read.data.unwrap().title.clone()),
        (None, "now here".to_owned())
    );
}

#[test]
fn r_fetch_4_outside_a_runtime_is_an_error_not_a_panic() {
    let ctrl = Controller::builder().base_url("http://127.0.0.1:9").build().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Built outside any runtime, awaited inside one: fine.
    let fut = std::future::IntoFuture::into_future(ctrl.fetch(&todos().get(), params! { id: 1 }));
    let out = rt.block_on(fut);
    assert!(matches!(out, Err(Error::Transport { .. })), "{out:?}");
    // Subscribing with no runtime yields one error.
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 1 });
    let first = rt.block_on(sub.next());
    assert!(matches!(first, Some(Err(Error::InvalidConfig { .. }))), "{first:?}");
}

/// R-FETCH-2: a read that finds fresh data, or a request in flight, never sends another. A
/// server that answers at once leaves no time to join a request: the callers that read the
/// cache before the first request was committed must find its data, not send their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn r_fetch_2_concurrent_suspense_calls_never_send_a_second_request() {
    let (server, ctrl) = setup().await;
    for id in 1..=10u64 {
        let readers: Vec<_> = (0..100)
            .map(|_| {
                let ctrl = ctrl.clone();
                tokio::spawn(async move { ctrl.suspense(&todos().get(), params! { id: id }).await })
            })
            .collect();
        for r in readers {
            assert_eq!(r.await.unwrap().unwrap().id, id);
        }
        assert_eq!(hits(&server, &format!("/todos/{id}")), 1, "todo {id}");
    }
}

/// R-FETCH-2: a GET is registered as in flight before it is sent and leaves only after its
/// commit, so every identical `fetch` that starts meanwhile joins it; only a fetch that starts
/// after that sends its own request (a fetch always fetches).
#[tokio::test]
async fn r_fetch_2_fetches_that_start_while_a_get_is_in_flight_join_it() {
    let (server, ctrl) = setup().await;
    let mut hold = server.hold("/todos/5");
    let fetches: Vec<_> = (0..1000)
        .map(|_| spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 5 })))
        .collect();
    // On this one-threaded runtime every fetch has started by the time the first request
    // reaches the server.
    hold.arrived().await.release();
    let mut results = Vec::new();
    for f in fetches {
        results.push(f.await.unwrap().unwrap());
    }
    assert!(
        results.iter().all(|t| Arc::ptr_eq(t, &results[0])),
        "they share one outcome"
    );
    assert_eq!(hits(&server, "/todos/5"), 1);
    drop(hold);
    ctrl.fetch(&todos().get(), params! { id: 5 }).await.unwrap();
    assert_eq!(
        hits(&server, "/todos/5"),
        2,
        "a fetch after the first settled sends its own"
    );
}
