//! R-SUB-1..5 and R-EXP-5 for subscriptions: first item, exact change detection, polling.

use std::sync::Arc;
use std::time::Duration;

use restcache::Error;
use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use serde_json::json;
use tokio::time::Instant;

use crate::fixtures::*;

#[tokio::test]
async fn r_sub_2_the_first_item_is_the_suspense_outcome() {
    let (server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 1 });
    let first = sub.next().await.unwrap().unwrap();
    assert_eq!(first.title, "Todo 1");
    let read = ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert!(Arc::ptr_eq(&first, &read));
    assert_eq!(hits(&server, "/todos/1"), 1);
}

#[tokio::test]
async fn r_sub_3_a_list_sees_a_change_made_through_another_key_and_nothing_unrelated() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get_list(), params! { userId: "u1" });
    let first = sub.next().await.unwrap().unwrap();
    assert!(!first[1].completed);
    // Unrelated: a todo of another user, and a fresh read of the same list data.
    ctrl.fetch(&todos().partial_update(), params! { id: 25 })
        .body(&json!({ "title": "elsewhere" }))
        .await
        .unwrap();
    ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    // Related: todo 2 is in the list.
    ctrl.fetch(&todos().partial_update(), params! { id: 2 })
        .body(&json!({ "completed": true }))
        .await
        .unwrap();
    let next = sub.next().await.unwrap().unwrap();
    assert!(
        next[1].completed,
        "the next item is the related change: nothing came in between"
    );
    assert_eq!(next[0], first[0]);
}

#[tokio::test]
async fn r_sub_3_expiring_without_a_change_yields_nothing() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 3 });
    sub.next().await.unwrap().unwrap();
    ctrl.expire_all(&todos().get());
    // The background refetch brings the same data (R-NORM-9): no item. Then a real change.
    ctrl.fetch(&todos().get(), params! { id: 3 }).await.unwrap();
    ctrl.fetch(&todos().partial_update(), params! { id: 3 })
        .body(&json!({ "title": "changed" }))
        .await
        .unwrap();
    assert_eq!(sub.next().await.unwrap().unwrap().title, "changed");
}

#[tokio::test]
async fn r_sub_1_a_mutation_cannot_be_subscribed() {
    let (server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().delete(), params! { id: 1 });
    assert!(matches!(sub.next().await, Some(Err(Error::InvalidConfig { .. }))));
    assert!(sub.next().await.is_none(), "and the stream ends");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn r_exp_5_subscriptions_stay_open_across_a_reset() {
    let (server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 4 });
    let before = sub.next().await.unwrap().unwrap();
    assert!(server.upsert_todo(json!({ "id": 4, "userId": "u1", "title": "after reset" })));
    ctrl.reset();
    let after = sub.next().await.unwrap().unwrap();
    assert_eq!((before.title.as_str(), after.title.as_str()), ("Todo 4", "after reset"));
    assert_eq!(hits(&server, "/todos/4"), 2);
}

/// R-EXP-5: a reset that aborts the view's own fetch leaves the view reading again, and with the
/// data gone, that read fetches: the view comes to show the data, not an error for good.
#[tokio::test]
async fn r_exp_5_a_live_view_whose_fetch_a_reset_aborted_fetches_again() {
    let (server, ctrl) = setup().await;
    let mut hold = server.hold("/todos/4");
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 4 });
    let held = hold.arrived().await;
    ctrl.reset();
    drop((held, hold));
    let shown = async {
        loop {
            if let Ok(todo) = sub.next().await.unwrap() {
                return todo;
            }
        }
    };
    let todo = tokio::time::timeout(Duration::from_secs(30), shown)
        .await
        .expect("the view fetched again after the reset");
    assert_eq!(todo.id, 4);
    assert_eq!(hits(&server, "/todos/4"), 2);
}

#[tokio::test]
async fn r_sub_3_a_deleted_entity_is_refetched_and_the_error_yielded() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 5 });
    sub.next().await.unwrap().unwrap();
    ctrl.fetch(&todos().delete(), params! { id: 5 }).await.unwrap();
    let gone = sub.next().await.unwrap();
    assert!(
        matches!(
            gone,
            Err(Error::Status {
                status: restcache::reqwest::StatusCode::NOT_FOUND,
                ..
            })
        ),
        "{gone:?}"
    );
}

/// PATCHes todo `id`'s title and waits for the commit.
async fn retitle(ctrl: &Controller, id: u64, title: &str) {
    ctrl.fetch(&todos().partial_update(), params! { id: id })
        .body(&json!({ "title": title }))
        .await
        .unwrap();
}

#[tokio::test]
async fn r_sub_a_slow_consumer_gets_the_newest_state_and_skips_the_rest() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 6 });
    assert_eq!(sub.next().await.unwrap().unwrap().title, "Todo 6");
    // Three commits before the consumer reads again.
    for title in ["first", "second", "newest"] {
        retitle(&ctrl, 6, title).await;
    }
    let next = sub.next().await.unwrap().unwrap();
    assert_eq!(next.title, "newest", "the states in between are skipped");
    let cached = ctrl.suspense(&todos().get(), params! { id: 6 }).await.unwrap();
    assert!(Arc::ptr_eq(&next, &cached), "the item is what the cache holds");
    assert!(sub.try_next().is_none(), "nothing older is still pending");
}

#[tokio::test]
async fn r_sub_current_reads_the_latest_state_synchronously() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get(), params! { id: 7 });
    // A view can live in UI state shared between threads.
    fn shareable<T: Send + Sync + 'static>(_: &T) {}
    shareable(&sub);
    assert!(sub.current().is_none(), "no state before the first read settles");
    let first = sub.next().await.unwrap().unwrap();
    let current = sub.current().unwrap().unwrap();
    assert!(Arc::ptr_eq(&first, &current));
    retitle(&ctrl, 7, "changed").await;
    retitle(&ctrl, 7, "changed again").await;
    let latest = sub.next().await.unwrap().unwrap();
    assert_eq!(latest.title, "changed again");
    // Reading the current state takes nothing from the stream, and reading it again is the same.
    for _ in 0..2 {
        assert!(Arc::ptr_eq(&sub.current().unwrap().unwrap(), &latest));
    }
    assert!(sub.try_next().is_none());
}

#[tokio::test]
async fn r_sub_3_no_state_arrives_twice() {
    let (_server, ctrl) = setup().await;
    let mut sub = ctrl.subscribe(&todos().get_list(), params! { userId: "u1" });
    let mut seen = vec![sub.next().await.unwrap().unwrap()];
    // Commits that leave the list as it is (a refetch of the same data, an unrelated todo),
    // interleaved with changes.
    for round in 0..3 {
        ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
        retitle(&ctrl, 25, &format!("elsewhere {round}")).await;
        retitle(&ctrl, 2, &format!("round {round}")).await;
        ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
        // The consumer is busy during round 1: it reads nothing then.
        if round != 1 {
            seen.push(sub.next().await.unwrap().unwrap());
            assert!(sub.try_next().is_none(), "the newest state is taken: nothing is left");
        }
    }
    let titles: Vec<&str> = seen.iter().map(|list| list[1].title.as_str()).collect();
    assert_eq!(titles, ["Todo 2", "round 0", "round 2"], "each state once, the newest");
    for (i, a) in seen.iter().enumerate() {
        for b in &seen[i + 1..] {
            assert!(!Arc::ptr_eq(a, b), "a state arrived twice");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn r_sub_4_polling_follows_the_smallest_frequency_and_stops_with_the_last_stream() {
    let (server, ctrl) = setup_paused();
    // Keep the runtime busy so the paused clock moves only when the test advances it (an idle
    // runtime would jump to the next poll while a request is on the wire).
    let spinner = tokio::spawn(async {
        loop {
            tokio::task::yield_now().await;
        }
    });
    let t0 = Instant::now();
    let every = |ms: u64| {
        resource(ResourceOptions {
            path: "/todos/:id".into(),
            poll_frequency: Some(Duration::from_millis(ms)),
            hooks: Some(Arc::new(VirtualTime(t0))),
            ..Default::default()
        })
    };
    // Each poll brings new data, so the stream's next item marks its commit: no poll is still
    // in flight (where the next one would join it) when the clock moves on.
    let retitle = |title: &str| assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": title })));
    let mut slow = ctrl.subscribe(&every(5000).get(), params! { id: 1 });
    slow.next().await.unwrap().unwrap();
    retitle("polled at 5 s");
    tokio::time::advance(Duration::from_secs(5)).await;
    assert_eq!(slow.next().await.unwrap().unwrap().title, "polled at 5 s");
    // A faster stream: the next poll is one new period after the last poll started.
    let mut fast = ctrl.subscribe(&every(1000).get(), params! { id: 1 });
    fast.next().await.unwrap().unwrap();
    retitle("polled at 6 s");
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(slow.next().await.unwrap().unwrap().title, "polled at 6 s");
    // Back to the slow period when the fast stream goes.
    drop(fast);
    retitle("polled at 11 s");
    tokio::time::advance(Duration::from_secs(4)).await;
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(slow.next().await.unwrap().unwrap().title, "polled at 11 s");
    drop(slow);
    tokio::time::advance(Duration::from_secs(60)).await;
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    spinner.abort();
    assert_eq!(
        virtual_times(&server),
        ["0", "5000", "6000", "11000"],
        "polls at their times, none after the last stream"
    );
}

#[tokio::test(start_paused = true)]
async fn r_sub_4_polling_pauses_while_offline_and_a_missed_poll_runs_when_back_online() {
    let (server, ctrl) = setup_paused();
    // As above: the paused clock moves only when the test advances it.
    let spinner = tokio::spawn(async {
        loop {
            tokio::task::yield_now().await;
        }
    });
    let t0 = Instant::now();
    let polled = resource(ResourceOptions {
        path: "/todos/:id".into(),
        poll_frequency: Some(Duration::from_millis(1000)),
        hooks: Some(Arc::new(VirtualTime(t0))),
        ..Default::default()
    });
    let mut live = ctrl.subscribe(&polled.get(), params! { id: 1 });
    live.next().await.unwrap().unwrap();
    ctrl.set_online(false);
    tokio::time::advance(Duration::from_secs(5)).await;
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    assert_eq!(server.requests().len(), 1, "no poll while offline");
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "back online" })));
    ctrl.set_online(true);
    assert_eq!(live.next().await.unwrap().unwrap().title, "back online");
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "a period later" })));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(live.next().await.unwrap().unwrap().title, "a period later");
    drop(live);
    spinner.abort();
    assert_eq!(
        virtual_times(&server),
        ["0", "5000", "6000"],
        "the missed poll at once, then every period"
    );
}

#[tokio::test]
async fn r_sub_3_a_live_view_of_data_that_expires_at_once_does_not_refetch_in_a_loop() {
    let (server, ctrl) = setup().await;
    let at_once = resource(ResourceOptions {
        path: "/todos/:id".into(),
        data_expiry_length: Some(Duration::ZERO),
        ..Default::default()
    });
    let get = at_once.get();
    let mut live = ctrl.subscribe(&get, params! { id: 1 });
    live.next().await.unwrap().unwrap();
    // An unrelated change: the view reads again, finds its data stale and refetches once.
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "refetched" })));
    let mut hold = server.hold("/todos/1");
    retitle(&ctrl, 25, "elsewhere").await;
    hold.arrived().await.release();
    assert_eq!(live.next().await.unwrap().unwrap().title, "refetched");
    // The commit of that refetch is the view's own: it starts no other.
    assert!(
        matches!(
            ctrl.status(&get, params! { id: 1 }),
            Ok(restcache::controller::ReadStatus::Ready(_))
        ),
        "a refetch is in flight again"
    );
    assert_eq!(hits(&server, "/todos/1"), 2);
}
