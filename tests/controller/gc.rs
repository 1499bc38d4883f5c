//! R-GC-5: a Controller's collector runs on its own task, and live views keep their keys.

use std::time::Duration;

use restcache::prelude::*;
use restcache::store::GcPolicy;

use crate::fixtures::*;

/// R-GC-5: every interval the collector runs a cycle on its own task: an old key no live view
/// reads is collected (a read then finds nothing and fetches), the key a live view reads is
/// kept however old, and once the view is dropped it goes too.
#[tokio::test(start_paused = true)]
async fn r_gc_5_the_collector_runs_on_its_own_and_live_views_keep_their_keys() {
    let (server, _) = setup_paused();
    // Younger than the data's expiry (60 s): no read refetches while the clock moves, so no
    // request is on the wire when the paused clock jumps.
    let policy = GcPolicy::new()
        .max_age(Duration::from_secs(10))
        .interval(Duration::from_secs(4));
    let ctrl = controller_with(&server, |b| b.gc(policy));
    let mut live = ctrl.subscribe(&todos().get(), params! { id: 1 });
    live.next().await.unwrap().unwrap();
    ctrl.suspense(&todos().get(), params! { id: 2 }).await.unwrap();
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
