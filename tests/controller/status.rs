//! Read status (issue #24, item 2): `Controller::status` tells a view whether it has nothing to
//! show yet, data, stale data being refetched, or an error with the data the policy keeps
//! (R-SUS-1, R-FETCH-2, R-POL-2).

use std::time::Duration;

use demo_api::Fault;
use restcache::Error;
use restcache::controller::ReadStatus;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use serde_json::json;

use crate::fixtures::*;

#[tokio::test]
async fn r_status_loading_before_the_first_answer() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    // Nothing cached and nothing in flight: a read would fetch.
    assert!(matches!(ctrl.status(&get, params! { id: 1 }), Ok(ReadStatus::Loading)));
    let mut hold = server.hold("/todos/1");
    let reader = {
        let ctrl = ctrl.clone();
        let get = get.clone();
        tokio::spawn(async move { ctrl.suspense(&get, params! { id: 1 }).await })
    };
    let held = hold.arrived().await;
    assert!(matches!(ctrl.status(&get, params! { id: 1 }), Ok(ReadStatus::Loading)));
    held.release();
    reader.await.unwrap().unwrap();
}

#[tokio::test]
async fn r_status_ready_after_the_answer() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let todo = ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    match ctrl.status(&get, params! { id: 1 }).unwrap() {
        ReadStatus::Ready(data) => assert!(std::sync::Arc::ptr_eq(&data, &todo)),
        other => panic!("expected Ready, got {other:?}"),
    }
    // Stale, with no refetch running: still data to show.
    ctrl.expire_all(&get);
    assert!(matches!(ctrl.status(&get, params! { id: 1 }), Ok(ReadStatus::Ready(_))));
    assert_eq!(hits(&server, "/todos/1"), 1, "status never sends a request");
}

#[tokio::test]
async fn r_status_fetching_shows_stale_data_while_a_refetch_runs() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let todo = ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.expire_all(&get);
    let mut hold = server.hold("/todos/1");
    // Stale: served at once, refetched in the background.
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    let held = hold.arrived().await;
    match ctrl.status(&get, params! { id: 1 }).unwrap() {
        ReadStatus::Fetching(data) => assert!(std::sync::Arc::ptr_eq(&data, &todo)),
        other => panic!("expected Fetching, got {other:?}"),
    }
    held.release();
    // Joining the refetch waits for its commit.
    ctrl.fetch(&get, params! { id: 1 }).await.unwrap();
    assert!(matches!(ctrl.status(&get, params! { id: 1 }), Ok(ReadStatus::Ready(_))));
}

/// Caches todo 1, expires it, and lets its background refetch fail with `status`: the
/// refetch's error, and the read status after it.
async fn status_after_a_failed_refetch(status: u16) -> (Error, ReadStatus<Todo>) {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.expire_all(&get);
    server.inject("/todos/1", Fault::Status(status));
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    // Joining the background refetch waits for its failure to be recorded.
    let failed = ctrl.fetch(&get, params! { id: 1 }).await.unwrap_err();
    (failed, ctrl.status(&get, params! { id: 1 }).unwrap())
}

#[tokio::test]
async fn r_status_error_keeps_the_last_data_for_a_soft_error() {
    match status_after_a_failed_refetch(503).await {
        (failed, ReadStatus::Error { error, data }) => {
            assert_eq!(error, failed);
            assert_eq!(error.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
            assert_eq!(data.expect("a soft error keeps the data").id, 1);
        }
        (_, other) => panic!("expected Error, got {other:?}"),
    }
}

#[tokio::test]
async fn r_status_error_drops_the_data_for_a_hard_error() {
    match status_after_a_failed_refetch(404).await {
        (failed, ReadStatus::Error { error, data }) => {
            assert_eq!(error, failed);
            assert!(data.is_none(), "a hard error shows no data");
        }
        (_, other) => panic!("expected Error, got {other:?}"),
    }
}

#[tokio::test]
async fn r_status_of_a_mutation_or_bad_args_is_a_typed_error() {
    let (server, ctrl) = setup().await;
    let err = ctrl.status(&todos().update(), params! { id: 1 }).unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }), "{err:?}");
    let err = ctrl.status(&todos().get(), json!({})).unwrap_err();
    assert!(matches!(err, Error::MissingParam { .. }), "{err:?}");
    assert!(server.requests().is_empty());
}

/// The status a live view yields next, which must be `Ready`: its data.
async fn next_ready(live: &mut restcache::controller::Subscription<Todo>) -> std::sync::Arc<Todo> {
    match live.next_status().await {
        Some(ReadStatus::Ready(data)) => data,
        other => panic!("expected Ready, got {other:?}"),
    }
}

#[tokio::test]
async fn r_status_a_live_view_yields_loading_ready_fetching_ready_each_once() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut hold = server.hold("/todos/1");
    let mut live = ctrl.subscribe(&get, params! { id: 1 });
    assert!(matches!(live.next_status().await, Some(ReadStatus::Loading)));
    let held = hold.arrived().await;
    assert!(matches!(live.status(), ReadStatus::Loading));
    assert!(live.try_next_status().is_none(), "still loading: nothing new to yield");
    held.release();
    let first = next_ready(&mut live).await;
    assert!(live.try_next_status().is_none(), "no status arrives twice");
    // Stale: a refetch shows the old data as Fetching, then the new data as Ready.
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "refetched" })));
    ctrl.expire_all(&get);
    let mut hold = server.hold("/todos/1");
    ctrl.refetch_stale();
    loop {
        match live.next_status().await {
            Some(ReadStatus::Fetching(data)) => {
                assert!(
                    std::sync::Arc::ptr_eq(&data, &first),
                    "the stale data, while refetching"
                );
                break;
            }
            Some(ReadStatus::Ready(data)) => assert!(std::sync::Arc::ptr_eq(&data, &first)),
            other => panic!("expected Fetching, got {other:?}"),
        }
    }
    hold.arrived().await.release();
    assert_eq!(next_ready(&mut live).await.title, "refetched");
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_status_refetch_stale_refetches_stale_live_views_only() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut one = ctrl.subscribe(&get, params! { id: 1 });
    let mut two = ctrl.subscribe(&get, params! { id: 2 });
    one.next().await.unwrap().unwrap();
    two.next().await.unwrap().unwrap();
    ctrl.expire_all(&|key: &str| key.ends_with("/todos/1"));
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "refetched" })));
    let mut hold = server.hold("/todos/1");
    ctrl.refetch_stale();
    // Both refetches would be in flight by now: only the stale one is.
    assert!(matches!(
        ctrl.status(&get, params! { id: 1 }),
        Ok(ReadStatus::Fetching(_))
    ));
    assert!(matches!(ctrl.status(&get, params! { id: 2 }), Ok(ReadStatus::Ready(_))));
    hold.arrived().await.release();
    assert_eq!(one.next().await.unwrap().unwrap().title, "refetched");
    assert_eq!(hits(&server, "/todos/1"), 2);
    assert_eq!(hits(&server, "/todos/2"), 1, "fresh data is not refetched");
    // A view that was dropped is not refetched either.
    drop(two);
    ctrl.expire_all(&get);
    ctrl.refetch_stale();
    assert!(matches!(ctrl.status(&get, params! { id: 2 }), Ok(ReadStatus::Ready(_))));
    assert_eq!(hits(&server, "/todos/2"), 1);
}

/// R-POL-2: an error past its `error_expiry_length` is not shown, as no read serves it: the
/// status is where the next read starts from, the data a soft error kept, or nothing yet.
#[tokio::test]
async fn r_pol_2_status_shows_no_error_past_its_expiry() {
    let (server, ctrl) = setup().await;
    let brief = todos_with_brief_errors();
    let get = brief.get();
    let todo = ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.expire_all(&get);
    server.inject("/todos/1", Fault::Status(503));
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.fetch(&get, params! { id: 1 }).await.unwrap_err();
    match ctrl.status(&get, params! { id: 1 }).unwrap() {
        ReadStatus::Ready(data) => assert!(std::sync::Arc::ptr_eq(&data, &todo)),
        other => panic!("expected the kept data, got {other:?}"),
    }
    server.inject("/todos/2", Fault::Status(503));
    ctrl.fetch(&get, params! { id: 2 }).await.unwrap_err();
    assert!(matches!(ctrl.status(&get, params! { id: 2 }), Ok(ReadStatus::Loading)));
    assert_eq!((hits(&server, "/todos/1"), hits(&server, "/todos/2")), (2, 1));
}

/// R-POL-2: `refetch_stale` (what focus and coming back online call) refetches a live view whose
/// error's time is up, so the view recovers; a view whose error still stands is left alone.
#[tokio::test]
async fn r_pol_2_refetch_stale_refetches_a_live_view_whose_error_expired() {
    let (server, ctrl) = setup().await;
    let brief = todos_with_brief_errors();
    server.inject("/todos/1", Fault::Status(503));
    server.inject("/todos/2", Fault::Status(503));
    let mut expired = ctrl.subscribe(&brief.get(), params! { id: 1 });
    let mut standing = ctrl.subscribe(&todos().get(), params! { id: 2 });
    assert!(expired.next().await.unwrap().is_err());
    assert!(standing.next().await.unwrap().is_err());
    ctrl.refetch_stale();
    let next = tokio::time::timeout(Duration::from_secs(30), expired.next()).await;
    assert_eq!(next.expect("refetched").unwrap().unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 2);
    assert_eq!(
        hits(&server, "/todos/2"),
        1,
        "an error within its expiry is not refetched"
    );
}

#[tokio::test]
async fn r_status_coming_back_online_refetches_stale_live_views() {
    let (server, ctrl) = setup().await;
    let get = todos().get();
    let mut live = ctrl.subscribe(&get, params! { id: 1 });
    live.next().await.unwrap().unwrap();
    ctrl.expire_all(&get);
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "refetched" })));
    let mut hold = server.hold("/todos/1");
    ctrl.set_online(false);
    assert!(matches!(ctrl.status(&get, params! { id: 1 }), Ok(ReadStatus::Ready(_))));
    ctrl.set_online(true);
    assert!(matches!(
        ctrl.status(&get, params! { id: 1 }),
        Ok(ReadStatus::Fetching(_))
    ));
    hold.arrived().await.release();
    assert_eq!(live.next().await.unwrap().unwrap().title, "refetched");
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_status_a_refused_live_view_yields_its_error_once() {
    let (_server, ctrl) = setup().await;
    let mut live = ctrl.subscribe(&todos().update(), params! { id: 1 });
    match live.next_status().await {
        Some(ReadStatus::Error {
            error: Error::InvalidConfig { .. },
            data: None,
        }) => {}
        other => panic!("expected the refusal, got {other:?}"),
    }
    assert!(live.next_status().await.is_none());
}
