//! R-SUS-1, R-GET-3/4, R-EXP-1..4 and R-POL-1/2 through the Controller. Expiry uses tokio's paused
//! clock; the server runs on its own thread.

use std::sync::Arc;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::rest::{EndpointOptions, ResourceOptions};
use serde_json::json;

use crate::fixtures::*;

#[tokio::test]
async fn r_sus_1_fetches_when_nothing_is_cached_then_serves_the_cache() {
    let (server, ctrl) = setup().await;
    let first = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    let again = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(hits(&server, "/todos/1"), 1);
}

#[tokio::test]
async fn r_get_3_get_after_get_list_is_served_from_the_entity_table() {
    let (server, ctrl) = setup().await;
    ctrl.suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    let todo = ctrl.suspense(&todos().get(), params! { id: 7 }).await.unwrap();
    assert_eq!(todo.title, "Todo 7");
    assert_eq!(hits(&server, "/todos/7"), 0, "no request while fresh");
}

#[tokio::test(start_paused = true)]
async fn r_sus_1_stale_data_is_served_and_refetched_in_the_background() {
    let (server, ctrl) = setup_paused();
    let first = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(server.upsert_todo(json!({ "id": 1, "title": "refreshed" })));
    let stale = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert!(Arc::ptr_eq(&first, &stale), "the stale data, at once");
    // Joining the background fetch (same URL) waits for its commit; the next read sees it
    // without another request.
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    let fresh = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(fresh.title, "refreshed");
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test(start_paused = true)]
async fn r_sus_1_invalid_if_stale_waits_for_the_refetch() {
    let (server, ctrl) = setup_paused();
    let strict = resource(ResourceOptions {
        path: "/todos/:id".into(),
        invalid_if_stale: true,
        ..Default::default()
    });
    ctrl.suspense(&strict.get(), params! { id: 1 }).await.unwrap();
    let fresh = ctrl.get_response(&strict.get(), params! { id: 1 }).unwrap();
    assert_eq!(fresh.status, ExpiryStatus::InvalidIfStale);
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(server.upsert_todo(json!({ "id": 1, "title": "waited for" })));
    assert_eq!(
        ctrl.suspense(&strict.get(), params! { id: 1 }).await.unwrap().title,
        "waited for"
    );
}

#[tokio::test]
async fn r_exp_2_after_invalidate_suspense_fetches_and_waits() {
    let (server, ctrl) = setup().await;
    ctrl.suspense(&todos().get(), params! { id: 2 }).await.unwrap();
    ctrl.invalidate(&todos().get(), params! { id: 2 }).unwrap();
    assert!(server.upsert_todo(json!({ "id": 2, "title": "after invalidate" })));
    assert_eq!(
        ctrl.suspense(&todos().get(), params! { id: 2 }).await.unwrap().title,
        "after invalidate"
    );
    assert_eq!(hits(&server, "/todos/2"), 2);
}

#[tokio::test]
async fn r_exp_3_invalidate_all_with_an_endpoint_or_a_closure() {
    let (server, ctrl) = setup().await;
    for id in [1, 2] {
        ctrl.suspense(&todos().get(), params! { id: id }).await.unwrap();
    }
    ctrl.suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    assert_eq!(
        ctrl.invalidate_all(&todos().get()),
        2,
        "get matches every id, not the list"
    );
    assert_eq!(ctrl.invalidate_all(&|key: &str| key.contains("userId")), 1);
    ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test(start_paused = true)]
async fn r_exp_4_expire_all_keeps_data_and_status_and_refetches_in_the_background() {
    let (server, ctrl) = setup_paused();
    let list = ctrl
        .suspense(&todos().get_list(), params! { userId: "u2" })
        .await
        .unwrap();
    assert_eq!(ctrl.expire_all(&todos().get_list()), 1);
    let read = ctrl
        .get_response(&todos().get_list(), params! { userId: "u2" })
        .unwrap();
    assert_eq!((read.status, read.expires_at), (ExpiryStatus::Valid, None));
    let served = ctrl
        .suspense(&todos().get_list(), params! { userId: "u2" })
        .await
        .unwrap();
    assert!(Arc::ptr_eq(&list, &served));
    server.wait_for_requests(2).await;
}

#[tokio::test]
async fn r_sus_1_a_deleted_required_entity_is_refetched_and_the_servers_error_returned() {
    let (_server, ctrl) = setup().await;
    ctrl.suspense(&todos().get(), params! { id: 5 }).await.unwrap();
    ctrl.fetch(&todos().delete(), params! { id: 5 }).await.unwrap();
    let err = ctrl.suspense(&todos().get(), params! { id: 5 }).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::NOT_FOUND), "{err:?}");
}

#[tokio::test]
async fn r_sus_1_only_get_members_can_be_read() {
    let (server, ctrl) = setup().await;
    let err = ctrl.suspense(&todos().update(), params! { id: 1 }).await.unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }));
    assert!(server.requests().is_empty());
}

/// R-SUS-1: data a hard error hides is nothing usable, so once that error has expired the read
/// fetches and waits, instead of serving the expired error while it refetches.
#[tokio::test]
async fn r_sus_1_data_an_expired_hard_error_hides_is_fetched_and_waited_for() {
    let (server, ctrl) = setup().await;
    let brief = todos_with_brief_errors();
    let get = brief.get();
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    ctrl.expire_all(&get);
    server.inject("/todos/1", demo_api::Fault::Status(404));
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    let failed = ctrl.fetch(&get, params! { id: 1 }).await.unwrap_err();
    assert_eq!(failed.status(), Some(StatusCode::NOT_FOUND));
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "back" })));
    assert_eq!(ctrl.suspense(&get, params! { id: 1 }).await.unwrap().title, "back");
    assert_eq!(hits(&server, "/todos/1"), 3);
}

#[tokio::test(start_paused = true)]
async fn r_pol_2_errors_within_their_expiry_are_returned_without_a_request() {
    let (server, ctrl) = setup_paused();
    let missing = todos().get();
    let first = ctrl.suspense(&missing, params! { id: 77 }).await.unwrap_err();
    let second = ctrl.suspense(&missing, params! { id: 77 }).await.unwrap_err();
    assert_eq!(first, second);
    assert_eq!(hits(&server, "/todos/77"), 1, "within error_expiry_length: no request");
    tokio::time::advance(Duration::from_millis(1001)).await;
    assert!(server.upsert_todo(json!({ "id": 77, "title": "exists now" })));
    assert_eq!(
        ctrl.suspense(&missing, params! { id: 77 }).await.unwrap().title,
        "exists now"
    );
}

#[tokio::test(start_paused = true)]
async fn r_pol_2_a_soft_error_keeps_serving_data_and_a_hard_error_does_not() {
    let (server, ctrl) = setup_paused();
    // The same key (a path with a `?` literal) answers 200 first, then the misbehaving status.
    let flaky = |status: &str| {
        todos()
            .get()
            .extend(EndpointOptions {
                path: Some(format!(r"/misbehave/{status}\?id=:id")),
                ..Default::default()
            })
            .unwrap()
            .with_schema::<Option<Todo>>()
    };
    for (status, soft) in [("503", true), ("404", false)] {
        let ep = flaky(status);
        ctrl.set_response(&ep, params! { id: 1 }, json!({ "id": 1, "title": "cached" }))
            .unwrap();
        tokio::time::advance(Duration::from_secs(61)).await;
        // Stale: served at once and refetched in the background; joining that fetch (same
        // URL) waits for its failure to be recorded.
        ctrl.suspense(&ep, params! { id: 1 }).await.unwrap();
        let failed = ctrl.fetch(&ep, params! { id: 1 }).await.unwrap_err();
        assert_eq!(failed.is_soft(), soft);
        let after = ctrl.get_response(&ep, params! { id: 1 }).unwrap();
        assert_eq!(after.error, Some(failed));
        assert_eq!(hits(&server, &format!("/misbehave/{status}")), 1);
        let next = ctrl.suspense(&ep, params! { id: 1 }).await;
        if soft {
            assert_eq!(
                next.unwrap().as_ref().as_ref().unwrap().title,
                "cached",
                "{status}: soft errors serve the data"
            );
        } else {
            assert!(
                matches!(
                    next,
                    Err(Error::Status {
                        status: StatusCode::NOT_FOUND,
                        ..
                    })
                ),
                "{status}: a hard error is returned"
            );
        }
    }
}

/// R-POL-2 with R-EXP-4: a read that fetches over an expired hard error, whose answer an
/// `expire_all` overtakes (the key keeps its old meta), serves what the fetch left, not the
/// expired error; so does a live view.
#[tokio::test(start_paused = true)]
async fn r_pol_2_an_expired_hard_error_is_not_served_after_an_overtaken_refetch() {
    use restcache::controller::ReadStatus;
    let (server, ctrl) = setup_paused();
    let get = todos().get();
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    server.inject("/todos/1", demo_api::Fault::Status(404));
    ctrl.fetch(&get, params! { id: 1 }).await.unwrap_err();
    // The hard error expires (1 s by default): the next read fetches and waits.
    tokio::time::advance(Duration::from_secs(2)).await;
    let mut hold = server.hold("/todos/1");
    let mut live = ctrl.subscribe(&get, params! { id: 1 });
    let reader = {
        let (ctrl, get) = (ctrl.clone(), get.clone());
        tokio::spawn(async move { ctrl.suspense(&get, params! { id: 1 }).await })
    };
    let held = hold.arrived().await;
    tokio::time::advance(Duration::from_millis(1)).await;
    ctrl.expire_all(&get);
    held.release();
    let read = reader.await.unwrap();
    assert_eq!(read.map(|t| t.id), Ok(1), "suspense served the expired 404");
    let shown = live.next().await.unwrap();
    assert_eq!(shown.map(|t| t.id), Ok(1), "the view shows the expired 404");
    assert!(matches!(live.status(), ReadStatus::Ready(_) | ReadStatus::Fetching(_)));
}

/// R-EXP-2 and R-EXP-4: a GET sent before `invalidate` or `expire_all` does not make the key
/// valid or fresh, even when the clock reads the same at both (paused here; a browser's
/// `performance.now()` is coarsened to 0.1–1 ms); a read after them fetches again.
#[tokio::test(start_paused = true)]
async fn r_exp_2_a_get_started_in_the_same_clock_tick_as_the_invalidation_does_not_count() {
    let (server, ctrl) = setup_paused();
    let get = todos().get();
    for expire in [false, true] {
        ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
        let hits_before = hits(&server, "/todos/1");
        let mut hold = server.hold("/todos/1");
        let reader = spawn_fetch(ctrl.fetch(&get, params! { id: 1 }));
        let held = hold.arrived().await;
        if expire {
            ctrl.expire_all(&get);
        } else {
            ctrl.invalidate(&get, params! { id: 1 }).unwrap();
        }
        held.release();
        reader.await.unwrap().unwrap();
        let read = ctrl.get_response(&get, params! { id: 1 }).unwrap();
        if expire {
            assert!(
                read.is_stale(restcache::Instant::now()),
                "the answer made the key fresh"
            );
        } else {
            assert_eq!(read.status, ExpiryStatus::Invalid, "the answer made the key valid");
        }
        // The next read fetches: it waits for an invalidated key, and serves an expired one
        // while it refetches in the background (R-EXP-4).
        let reader = {
            let (ctrl, get) = (ctrl.clone(), get.clone());
            tokio::spawn(async move { ctrl.suspense(&get, params! { id: 1 }).await })
        };
        hold.arrived().await.release();
        reader.await.unwrap().unwrap();
        drop(hold);
        assert_eq!(hits(&server, "/todos/1"), hits_before + 2, "expire: {expire}");
    }
}
