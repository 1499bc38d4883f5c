//! R-GC-5: a Controller's collector runs on its own task, and live views keep their keys.

use std::time::Duration;

use restcache::prelude::*;
use restcache::store::GcPolicy;

use crate::fixtures::*;

/// R-GC-5: every interval the collector runs a cycle on its own task: an old key no live view
/// reads is collected (a read then finds nothing and fetches), the key a live view reads is
/// kept however old, and once the view is dropped it goes too.
#[tokio::test]
async fn r_gc_5_the_collector_runs_on_its_own_and_live_views_keep_their_keys() {
    let (server, _) = setup_paused();
    let policy = GcPolicy::new()
        .max_age(Duration::from_secs(10))
        .interval(Duration::from_secs(4));
    let ctrl = controller_with(&server, |b| b.gc(policy));
    let mut live = ctrl.subscribe(&todos().get(), params! { id: 1 });
    live.next().await.unwrap().unwrap();
    ctrl.suspense(&todos().get(), params! { id: 2 }).await.unwrap();
    // The clock is paused only now: while a request was on the wire, a paused clock would have
    // jumped to the collector's wake-ups, by as many as the server took. From here on it moves
    // 40 s, less than the data's expiry (60 s): no read refetches, and no request is sent.
    tokio::time::pause();
    // The paused clock moves to each of the collector's wake-ups in turn.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let unread = ctrl.get_response(&todos().get(), params! { id: 2 }).unwrap();
    assert!(unread.data.is_none(), "collected: {unread:?}");
    let kept = ctrl.get_response(&todos().get(), params! { id: 1 }).unwrap();
    assert_eq!(kept.data.unwrap().title, "Todo 1");
    drop(live);
    tokio::time::sleep(Duration::from_secs(20)).await;
    let released = ctrl.get_response(&todos().get(), params! { id: 1 }).unwrap();
    assert!(released.data.is_none(), "collected once released: {released:?}");
    drop(server);
}

/// R-GC-5: the collector's task runs a cycle every interval from the first change of the
/// cache until the Controller ends, on whichever runtime the Controller is then used: a
/// runtime that ended does not end it.
#[test]
fn r_gc_5_the_collector_runs_after_the_runtime_it_started_on_ended() {
    let policy = GcPolicy::new()
        .max_age(Duration::from_secs(10))
        .interval(Duration::from_secs(4));
    let ctrl = Controller::builder()
        .base_url("http://127.0.0.1:9")
        .gc(policy)
        .build()
        .unwrap();
    let paused = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap()
    };
    let todo = |id: u64| serde_json::json!({"id": id, "userId": "u", "title": "t", "completed": false});
    // The first change starts the collector on a runtime that then ends.
    paused().block_on(async {
        ctrl.set_response(&todos().get(), params! { id: 1 }, todo(1)).unwrap();
    });
    paused().block_on(async {
        ctrl.set_response(&todos().get(), params! { id: 2 }, todo(2)).unwrap();
        // The paused clock moves to each of the collector's wake-ups in turn.
        tokio::time::sleep(Duration::from_secs(30)).await;
        let unread = ctrl.get_response(&todos().get(), params! { id: 2 }).unwrap();
        assert!(unread.data.is_none(), "not collected: the collector is gone");
    });
}
