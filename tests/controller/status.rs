//! Read status (issue #24, item 2): `Controller::status` tells a view whether it has nothing to
//! show yet, data, stale data being refetched, or an error with the data the policy keeps
//! (R-SUS-1, R-FETCH-2, R-POL-2).

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
