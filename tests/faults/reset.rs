//! R-EXP-5 under load: `reset()` while fetches are in flight never panics, every fetch started
//! before it resolves with `Error::Reset` or had finished, and nothing it would have written,
//! optimistic layers included, lands after the reset.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use demo_api::DemoServer;
use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::rest::ResourceOptions;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fixtures::*;

/// Every instant in a snapshot (entity rows and endpoint meta), as recorded: nanoseconds since
/// the store was created.
fn fetched_ats(snapshot: &Value) -> Vec<(String, i64)> {
    let mut all = Vec::new();
    for (table, t) in snapshot["entities"].as_object().unwrap() {
        for row in t["rows"].as_array().unwrap() {
            all.push((format!("{table} {}", row["pk"]), row["fetched_at"].as_i64().unwrap()));
        }
    }
    for m in snapshot["meta"].as_array().unwrap() {
        all.push((format!("meta {}", m["key"]), m["fetched_at"].as_i64().unwrap()));
    }
    all
}

/// `/nowhere/:id`: a Todo resource whose every request is a 404, optimistic, so its layers
/// show (title "layer") only while a mutation is in flight.
fn failing_optimistic() -> Resource<Todo> {
    Resource::new(ResourceOptions {
        path: "/nowhere/:id".into(),
        optimistic: true,
        ..Default::default()
    })
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_exp_5_fetches_in_flight_during_a_reset_write_nothing() {
    let server = DemoServer::start().await.unwrap();
    let ctrl = controller(&server, |b| b);
    ctrl.fetch(&todos().get_list(), params! {}).await.unwrap();
    let hold_lists = server.hold("/todos");
    let hold_five = server.hold("/todos/5");
    let before = server.requests().len();

    // Started before the reset: held lists, held reads and an optimistic update of todo 5
    // (its layer shows at once), and free reads of todos 6..=20, all with distinct URLs.
    let mut held = Vec::new();
    for n in 0..4 {
        held.push(spawn_fetch(ctrl.fetch(&todos().get_list(), params! { userId: "u1", n: n })).map_ok());
        held.push(spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 5, n: n })).map_ok());
    }
    held.push(
        spawn_fetch(
            ctrl.fetch(&optimistic_todos().update(), params! { id: 5 })
                .body(&json!({ "title": "layer" })),
        )
        .map_ok(),
    );
    let free: Vec<_> = (6..=20)
        .map(|id| spawn_fetch(ctrl.fetch(&todos().get(), params! { id: id })).map_ok())
        .collect();
    let started = held.len() + free.len();
    server.wait_for_requests(before + started).await;
    assert_eq!(
        ctrl.get_response(&todos().get(), params! { id: 5 })
            .unwrap()
            .data
            .unwrap()
            .title,
        "layer"
    );

    // Fetches of todos 21..=30 keep running while the reset happens.
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (21..=30)
        .map(|id| {
            let (ctrl, stop) = (ctrl.clone(), Arc::clone(&stop));
            tokio::spawn(async move {
                let mut outcomes = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    outcomes.push(ctrl.fetch(&todos().get(), params! { id: id }).await.map(drop));
                }
                outcomes
            })
        })
        .collect();
    ctrl.reset();
    // Dropping the holds releases every held request: answered now, they must write nothing.
    drop(hold_lists);
    drop(hold_five);

    for fetch in held {
        assert_eq!(fetch.await.unwrap(), Err(Error::Reset), "held across the reset");
    }
    for fetch in free {
        let outcome = fetch.await.unwrap();
        assert!(matches!(outcome, Ok(()) | Err(Error::Reset)), "{outcome:?}");
    }
    stop.store(true, Ordering::Relaxed);
    for reader in readers {
        for outcome in reader.await.unwrap() {
            assert!(matches!(outcome, Ok(()) | Err(Error::Reset)), "{outcome:?}");
        }
    }

    let snapshot = ctrl.inspect();
    let rows: Vec<u64> = snapshot["entities"]["Todo"]["rows"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|r| r["pk"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(
        rows.iter().all(|id| (21..=30).contains(id)),
        "only fetches of todos 21..=30 could start after the reset: {rows:?}"
    );
    assert!(snapshot["entities"].get("[Todo]").is_none(), "no list was written");
    for m in snapshot["meta"].as_array().unwrap() {
        let key = m["key"].as_str().unwrap();
        let id = key.strip_prefix("GET /todos/").and_then(|id| id.parse::<u64>().ok());
        assert!(
            id.is_some_and(|id| (21..=30).contains(&id)),
            "{key} was written after the reset"
        );
    }
    assert!(
        ctrl.get_response(&todos().get(), params! { id: 5 })
            .unwrap()
            .data
            .is_none(),
        "the optimistic layer went with the reset"
    );
    // The reset refused only what straddled it: a fetch started now is written.
    let fresh = ctrl.fetch(&todos().get(), params! { id: 21 }).await.unwrap();
    assert_eq!(*fresh, server_todo(&server, 21));
    let stored = ctrl.get_response(&todos().get(), params! { id: 21 }).unwrap();
    assert_eq!(stored.data.as_deref(), Some(&*fresh));
}

/// Small helper: a fetch's outcome without its value.
trait MapOk {
    fn map_ok(self) -> tokio::task::JoinHandle<Result<(), Error>>;
}

impl<T: Send + Sync + 'static> MapOk for tokio::task::JoinHandle<Result<Arc<T>, Error>> {
    fn map_ok(self) -> tokio::task::JoinHandle<Result<(), Error>> {
        tokio::spawn(async move { self.await.unwrap().map(drop) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_exp_5_resets_racing_random_fetches_leave_no_stale_write_or_layer() {
    // Workers run a seeded mix of reads (todos 1..=30, u2's list) and optimistic updates that
    // fail (ids 100..=129, never read otherwise), while another thread resets in a loop until
    // half of the work is done. The rest of the work then runs after the last reset.
    const WORKERS: u64 = 4;
    const OPS: usize = 60;
    let server = DemoServer::start().await.unwrap();
    let ctrl = controller(&server, |b| b);
    let created = Instant::now();
    let finished = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let resetter = {
        let (ctrl, finished) = (ctrl.clone(), Arc::clone(&finished));
        std::thread::spawn(move || {
            let mut last = Instant::now();
            while finished.load(Ordering::Relaxed) < WORKERS as usize * OPS / 2 {
                last = Instant::now();
                ctrl.reset();
                std::thread::yield_now();
            }
            last
        })
    };
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (ctrl, finished) = (ctrl.clone(), Arc::clone(&finished));
            let mut rng = SplitMix64::new(0x5E5E_7000 + w);
            tokio::spawn(async move {
                let mut outcomes = Vec::new();
                for _ in 0..OPS {
                    let id = 1 + rng.below(30);
                    let outcome = match rng.below(4) {
                        0 => ctrl
                            .fetch(&todos().get_list(), params! { userId: "u2" })
                            .await
                            .map(drop),
                        1 => ctrl
                            .fetch(&failing_optimistic().update(), params! { id: 99 + id })
                            .body(&json!({ "title": "layer" }))
                            .await
                            .map(drop),
                        _ => ctrl.fetch(&todos().get(), params! { id: id }).await.map(drop),
                    };
                    finished.fetch_add(1, Ordering::Relaxed);
                    outcomes.push(outcome);
                }
                outcomes
            })
        })
        .collect();
    let (mut resets, mut oks) = (0, 0);
    for worker in workers {
        // A deadlock guard, not a timing assertion.
        let outcomes = tokio::time::timeout(Duration::from_secs(60), worker)
            .await
            .expect("the workers finish")
            .unwrap();
        for outcome in outcomes {
            match outcome {
                Ok(()) => oks += 1,
                Err(Error::Status {
                    status: StatusCode::NOT_FOUND,
                    ..
                }) => {}
                Err(Error::Reset) => resets += 1,
                other => panic!("{other:?}"),
            }
        }
    }
    let last_reset = resetter.join().unwrap();
    assert!(resets > 0, "some fetches straddled a reset");
    assert!(oks > 0, "the fetches after the last reset succeed");

    // Everything stored was written by a fetch that started after the last reset (the store
    // counts from its creation, which precedes `created`).
    let since = (last_reset - created).as_nanos() as i64;
    for (what, at) in fetched_ats(&ctrl.inspect()) {
        assert!(
            at >= since,
            "{what} was written by a fetch that started before the last reset"
        );
    }
    // Every fetch settled, so no optimistic layer may be left, and reads agree with the server.
    let fresh = ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(*fresh, server_todo(&server, 1), "a fetch after the resets is written");
    for id in 1..=30u64 {
        let read = ctrl.get_response(&todos().get(), params! { id: id }).unwrap();
        if let Some(todo) = read.data {
            assert_eq!(*todo, server_todo(&server, id), "todo {id}");
        }
        let layered = ctrl.get_response(&todos().get(), params! { id: 99 + id }).unwrap();
        assert!(
            layered.data.is_none(),
            "the layer of the update of {} was left behind",
            99 + id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_exp_5_a_reset_while_optimistic_mutations_start_leaves_no_layer_behind() {
    // A reset can land at any point of a mutation's start. Bursts of optimistic mutations start
    // while another thread resets; its last reset falls in the middle of a burst. Once every
    // mutation has settled (each fails: the route does not exist), no layer may be left: the
    // ones started before the reset went with it, the others were rolled back.
    let server = DemoServer::start().await.unwrap();
    let ctrl = controller(&server, |b| b);
    const BURST: usize = 64;
    for trial in 0..40u64 {
        let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let resetter = {
            let (ctrl, started) = (ctrl.clone(), Arc::clone(&started));
            std::thread::spawn(move || {
                while started.load(Ordering::Relaxed) < BURST / 2 {
                    ctrl.reset();
                }
                ctrl.reset();
            })
        };
        let burst: Vec<_> = (0..BURST as u64)
            .map(|n| {
                let (ctrl, started) = (ctrl.clone(), Arc::clone(&started));
                let id = 1000 * trial + n;
                tokio::spawn(async move {
                    let update = ctrl
                        .fetch(&failing_optimistic().update(), params! { id: id })
                        .body(&json!({ "title": "layer" }));
                    started.fetch_add(1, Ordering::Relaxed);
                    update.await
                })
            })
            .collect();
        for fetch in burst {
            let outcome = fetch.await.unwrap();
            assert!(
                matches!(
                    outcome,
                    Err(Error::Reset
                        | Error::Status {
                            status: StatusCode::NOT_FOUND,
                            ..
                        })
                ),
                "{outcome:?}"
            );
        }
        resetter.join().unwrap();
        for n in 0..BURST as u64 {
            let id = 1000 * trial + n;
            let read = ctrl.get_response(&todos().get(), params! { id: id }).unwrap();
            assert!(
                read.data.is_none(),
                "trial {trial}: the layer of the update of {id} outlived its fetch"
            );
        }
    }
}
