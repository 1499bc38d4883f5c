//! restcache in a real browser: wasm-bindgen-test in headless Chromium, against the demo API that
//! `scripts/wasm.sh test` starts natively on 127.0.0.1 (another origin than the test page, so
//! every request is a CORS request). The script passes the API's URL at build time as
//! `RESTCACHE_DEMO_API`. Each test starts from the seeded data with an empty request log
//! (`POST /_control/reset`), and asserts what reached the server through `/_control/requests`.
#![cfg(target_arch = "wasm32")]

use std::sync::Arc;
use std::time::Duration;

use browser_tests::{api, control};
use restcache::prelude::*;
use restcache::reqwest;
use restcache::rest::ResourceOptions;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
    completed: bool,
}

fn todos(configure: impl FnOnce(ResourceOptions) -> ResourceOptions) -> Resource<Todo> {
    let opts = configure(ResourceOptions {
        path: "/todos/:id".into(),
        ..Default::default()
    });
    Resource::new(opts).expect("a valid resource")
}

/// Reseeds the server, and a Controller pointed at it.
async fn setup() -> Controller {
    control("POST", "/_control/reset", None).await;
    Controller::builder().base_url(api()).build().expect("a Controller")
}

/// `METHOD /path` of every request the server saw, in order.
async fn requests() -> Vec<String> {
    let log = control("GET", "/_control/requests", None).await;
    log.as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["method"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect()
}

/// Arms a fault for the next request to `path`.
async fn inject(path: &str, fault: Value) {
    control(
        "POST",
        "/_control/faults",
        Some(json!({ "path": path, "fault": fault })),
    )
    .await;
}

/// Changes a todo at the server behind restcache's back.
async fn change_on_server(id: u64, body: Value) {
    let response = reqwest::Client::new()
        .patch(format!("{}/todos/{id}", api()))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    // Not a request of the Controller's: forget it.
    control("DELETE", "/_control/requests", None).await;
}

#[wasm_bindgen_test]
async fn r_get_a_list_read_then_a_detail_read_sends_one_request() {
    let ctrl = setup().await;
    let list = ctrl
        .suspense(&todos(|o| o).get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    assert_eq!(list.len(), 10);
    let one = ctrl.suspense(&todos(|o| o).get(), params! { id: 3 }).await.unwrap();
    assert_eq!(one.title, "Todo 3");
    assert_eq!(requests().await, ["GET /todos"], "the detail came from the cache");
}

/// R-PERS-4: the page's cache kept in `localStorage`; a Controller built again from it, as a
/// reloaded page builds its own, shows the list with no request, and a reset empties it.
#[wasm_bindgen_test]
async fn r_pers_4_a_reloaded_page_shows_the_persisted_list_with_no_request() {
    use restcache::persist::LocalStoragePersister;
    use restcache::store::Schemas;
    control("POST", "/_control/reset", None).await;
    let build = || {
        let schemas = Schemas::new().with::<Collection<Vec<Todo>>>();
        Controller::builder()
            .base_url(api())
            .persist(LocalStoragePersister::new("restcache-test/"), schemas)
            .build()
            .expect("a Controller")
    };
    let list = todos(|o| o).get_list();
    let page = build();
    page.reset();
    let shown = page.suspense(&list, params! { userId: "u1" }).await.unwrap();
    assert_eq!(shown.len(), 10);
    drop(page);
    control("DELETE", "/_control/requests", None).await;

    let reloaded = build();
    let again = reloaded.suspense(&list, params! { userId: "u1" }).await.unwrap();
    assert_eq!(again, shown, "the list as the page left it");
    assert_eq!(
        requests().await,
        Vec::<String>::new(),
        "no request: localStorage served it"
    );

    reloaded.reset();
    let emptied = build();
    assert!(
        emptied
            .get_response(&list, params! { userId: "u1" })
            .unwrap()
            .data
            .is_none(),
        "a reset is saved too"
    );
}

/// R-PERS-4 with R-GC-1: rows the collector removed are removed from `localStorage`, and the
/// row that took a removed row's place takes its place there too: a reloaded page has the rows
/// the cache kept, in the order it kept them.
#[wasm_bindgen_test]
async fn r_pers_4_a_reload_after_collection_keeps_the_rows_and_their_order() {
    use restcache::persist::LocalStoragePersister;
    use restcache::store::{GcPolicy, Schemas};
    control("POST", "/_control/reset", None).await;
    let build = || {
        Controller::builder()
            .base_url(api())
            .persist(
                LocalStoragePersister::new("restcache-gc-test/"),
                Schemas::new().with::<Todo>(),
            )
            .gc(GcPolicy::new().max_bytes(8 << 10))
            .build()
            .expect("a Controller")
    };
    let rows = |ctrl: &Controller| -> Vec<Value> {
        let snapshot = serde_json::to_value(ctrl.snapshot()).unwrap();
        let tables = snapshot["tables"].as_array().cloned().unwrap_or_default();
        let todos = tables.into_iter().find(|t| t["name"] == "Todo").unwrap_or_default();
        todos["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| r["pk"].clone())
            .collect()
    };
    let get = todos(|o| o).get();
    let page = build();
    page.reset();
    for id in 1..=30u64 {
        page.suspense(&get, params! { id: id }).await.unwrap();
    }
    let kept = rows(&page);
    assert!(kept.len() < 30, "the budget evicted some: {kept:?}");
    drop(page);
    let reloaded = build();
    assert_eq!(rows(&reloaded), kept, "the same rows, in the same order");
    reloaded.reset();
}

/// R-ERR-2 with R-PERS-4: a stored entry whose place is the counter's last (a corrupt or
/// hostile `localStorage`) neither panics nor wraps the counter round: the save that would pass
/// the end fails, the compaction after it numbers the entries again, and a reload has them all.
#[wasm_bindgen_test]
async fn r_err_2_a_stored_place_at_the_counter_s_end_is_renumbered() {
    use restcache::persist::LocalStoragePersister;
    use restcache::store::Schemas;
    const PREFIX: &str = "restcache-places-test/";
    control("POST", "/_control/reset", None).await;
    let build = || {
        Controller::builder()
            .base_url(api())
            .persist(LocalStoragePersister::new(PREFIX), Schemas::new().with::<Todo>())
            .build()
            .expect("a Controller")
    };
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let entries = || -> Vec<(String, Value)> {
        let names = (0..storage.length().unwrap()).filter_map(|i| storage.key(i).unwrap());
        names
            .filter(|name| name.starts_with(PREFIX))
            .map(|name| {
                let entry = storage.get_item(&name).unwrap().unwrap().parse().unwrap();
                (name, entry)
            })
            .collect()
    };
    let get = todos(|o| o).get();
    let page = build();
    page.reset();
    page.suspense(&get, params! { id: 1 }).await.unwrap();
    drop(page);
    let (name, mut entry) = entries().into_iter().max_by_key(|(_, e)| e["place"].as_u64()).unwrap();
    entry["place"] = json!(u64::MAX);
    storage.set_item(&name, &entry.to_string()).unwrap();

    let reloaded = build();
    reloaded.suspense(&get, params! { id: 2 }).await.unwrap();
    drop(reloaded);
    let places = entries()
        .iter()
        .map(|(_, e)| e["place"].as_u64().unwrap())
        .collect::<Vec<_>>();
    assert!(
        places.iter().all(|&p| p as usize <= places.len()),
        "renumbered: {places:?}"
    );
    control("DELETE", "/_control/requests", None).await;
    let again = build();
    for id in [1u64, 2] {
        let read = again.get_response(&get, params! { id: id }).unwrap();
        assert_eq!(read.data.map(|t| t.id), Some(id));
    }
    assert_eq!(requests().await, Vec::<String>::new());
    again.reset();
}

#[wasm_bindgen_test]
async fn r_sub_a_patch_push_and_delete_reach_a_live_list() {
    let ctrl = setup().await;
    let resource = todos(|o| o);
    let mut live = ctrl.subscribe(&resource.get_list(), params! { userId: "u1" });
    assert_eq!(live.next().await.unwrap().unwrap().len(), 10);

    ctrl.fetch(&resource.partial_update(), params! { id: 1 })
        .body(&json!({ "title": "renamed in the browser" }))
        .await
        .unwrap();
    assert_eq!(live.next().await.unwrap().unwrap()[0].title, "renamed in the browser");

    let made = ctrl
        .fetch(&resource.get_list().push(), params! { userId: "u1" })
        .body(&json!({ "userId": "u1", "title": "made in the browser" }))
        .await
        .unwrap();
    let list = live.next().await.unwrap().unwrap();
    assert_eq!(list.last().map(|t| t.id), Some(made.id), "the push joins the list");

    ctrl.fetch(&resource.delete(), params! { id: made.id }).await.unwrap();
    let list = live.next().await.unwrap().unwrap();
    assert!(list.iter().all(|t| t.id != made.id), "the delete leaves it");
    assert_eq!(
        requests().await,
        [
            "GET /todos",
            "PATCH /todos/1",
            "POST /todos",
            &format!("DELETE /todos/{}", made.id)
        ]
    );
}

#[wasm_bindgen_test]
async fn r_optm_an_optimistic_update_shows_at_once_and_rolls_back_on_a_500() {
    let ctrl = setup().await;
    let resource = todos(|o| ResourceOptions { optimistic: true, ..o });
    let mut live = ctrl.subscribe(&resource.get(), params! { id: 2 });
    assert_eq!(live.next().await.unwrap().unwrap().title, "Todo 2");

    inject("/todos/2", json!({ "status": 500 })).await;
    let patch = ctrl
        .fetch(&resource.partial_update(), params! { id: 2 })
        .body(&json!({ "title": "optimistic" }));
    let patch = std::future::IntoFuture::into_future(patch);
    let (outcome, seen) = futures_join(patch, async {
        let shown = live.next().await.unwrap().unwrap();
        let back = live.next().await.unwrap().unwrap();
        (shown, back)
    })
    .await;
    assert!(
        matches!(
            outcome,
            Err(restcache::Error::Status {
                status: restcache::reqwest::StatusCode::INTERNAL_SERVER_ERROR,
                ..
            })
        ),
        "{outcome:?}"
    );
    assert_eq!(seen.0.title, "optimistic", "shown before the server answered");
    assert_eq!(seen.1.title, "Todo 2", "rolled back after the 500");
}

#[wasm_bindgen_test]
async fn r_pol_a_poll_tick_refetches_and_the_view_sees_the_change() {
    let ctrl = setup().await;
    let resource = todos(|o| ResourceOptions {
        poll_frequency: Some(Duration::from_millis(100)),
        ..o
    });
    let mut live = ctrl.subscribe(&resource.get(), params! { id: 4 });
    assert_eq!(live.next().await.unwrap().unwrap().title, "Todo 4");
    change_on_server(4, json!({ "title": "changed on the server" })).await;
    // Only a poll can bring the change: nothing else fetches.
    assert_eq!(live.next().await.unwrap().unwrap().title, "changed on the server");
    assert!(requests().await.iter().all(|r| r == "GET /todos/4"));
}

#[wasm_bindgen_test]
async fn r_exp_expired_data_is_refetched() {
    let ctrl = setup().await;
    let resource = todos(|o| ResourceOptions {
        data_expiry_length: Some(Duration::from_millis(50)),
        invalid_if_stale: true,
        ..o
    });
    let first = ctrl.suspense(&resource.get(), params! { id: 5 }).await.unwrap();
    let again = ctrl.suspense(&resource.get(), params! { id: 5 }).await.unwrap();
    assert!(Arc::ptr_eq(&first, &again), "fresh: served from the cache");
    change_on_server(5, json!({ "title": "after expiry" })).await;
    // The browser's clock cannot be paused: let the data's 50 ms run out.
    gloo_timers::future::sleep(Duration::from_millis(80)).await;
    let expired = ctrl.suspense(&resource.get(), params! { id: 5 }).await.unwrap();
    assert_eq!(expired.title, "after expiry");
    assert_eq!(requests().await, ["GET /todos/5"], "one refetch after the expiry");
}

#[wasm_bindgen_test]
async fn r_err_a_404_and_an_html_body_are_typed_errors() {
    let ctrl = setup().await;
    let missing = ctrl.suspense(&todos(|o| o).get(), params! { id: 999 }).await;
    assert!(
        matches!(
            missing,
            Err(restcache::Error::Status {
                status: restcache::reqwest::StatusCode::NOT_FOUND,
                ..
            })
        ),
        "{missing:?}"
    );

    inject("/todos/6", json!({ "html": true })).await;
    let html = ctrl.suspense(&todos(|o| o).get(), params! { id: 6 }).await;
    match html {
        Err(restcache::Error::Decode { content_type, url, .. }) => {
            assert_eq!(content_type.as_deref(), Some("text/html; charset=utf-8"));
            assert_eq!(url, format!("{}/todos/6", api()));
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn r_req_a_slow_response_does_not_block_the_page() {
    let ctrl = Controller::builder().base_url(api()).build().unwrap();
    let slow = RestEndpoint::<Value>::builder("/misbehave/slow").build().unwrap();
    let ticks = std::cell::Cell::new(0u32);
    let fetch = std::future::IntoFuture::into_future(ctrl.fetch(&slow, params! { ms: 400 }));
    // While the response is on its way, the page's timers keep firing: nothing spins.
    let ticking = async {
        loop {
            gloo_timers::future::sleep(Duration::from_millis(20)).await;
            ticks.set(ticks.get() + 1);
        }
    };
    let answered = select_first(fetch, ticking).await;
    assert_eq!(answered.unwrap()["ok"], true);
    // A page blocked until the answer would have run none of them.
    assert!(
        ticks.get() > 0,
        "the page's timers never fired while the response was on its way"
    );
}

/// Runs both futures to completion on this thread.
async fn futures_join<A: std::future::Future, B: std::future::Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none()
            && let std::task::Poll::Ready(v) = a.as_mut().poll(cx)
        {
            ra = Some(v);
        }
        if rb.is_none()
            && let std::task::Poll::Ready(v) = b.as_mut().poll(cx)
        {
            rb = Some(v);
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready((ra.take().unwrap(), rb.take().unwrap()))
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}

/// `first`'s output; `other` runs alongside until then.
async fn select_first<A: std::future::Future>(first: A, other: impl std::future::Future<Output = ()>) -> A::Output {
    let (mut first, mut other) = (std::pin::pin!(first), std::pin::pin!(other));
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(v) = first.as_mut().poll(cx) {
            return std::task::Poll::Ready(v);
        }
        let _ = other.as_mut().poll(cx);
        std::task::Poll::Pending
    })
    .await
}

/// `setTimeout` takes at most 2^31 - 1 ms (about 24.8 days): a longer fetch timeout must still
/// wait, not fire at once as an overflowed delay does (R-REQ-5).
#[wasm_bindgen_test]
async fn r_req_5_a_thirty_day_timeout_does_not_fire_at_once() {
    control("POST", "/_control/reset", None).await;
    let ctrl = Controller::builder()
        .base_url(api())
        .timeout(Duration::from_secs(30 * 86_400))
        .build()
        .expect("a Controller");
    let todo = ctrl.fetch(&todos(|o| o).get(), params! { id: 1 }).await;
    assert_eq!(todo.expect("answered within thirty days").id, 1);
}

/// A retry delay of `Duration::MAX` means never (R-EXP-1): in the browser too, the retry waits,
/// and the fetch ends at its timeout, with no exception thrown.
#[wasm_bindgen_test]
async fn r_exp_1_a_retry_delay_of_duration_max_waits_until_the_timeout() {
    control("POST", "/_control/reset", None).await;
    let ctrl = Controller::builder()
        .base_url(api())
        .timeout(Duration::from_millis(300))
        .retry(restcache::rest::Retry::new(1, Duration::MAX))
        .build()
        .expect("a Controller");
    inject("/todos/1", json!({ "status": 503 })).await;
    let failed = ctrl.fetch(&todos(|o| o).get(), params! { id: 1 }).await.unwrap_err();
    assert!(failed.is_timeout(), "{failed:?}");
    assert_eq!(requests().await, ["GET /todos/1"], "the retry never came");
}

/// R-REQ-5: in the browser too, an answer's `Retry-After` (read across origins, as the demo API
/// exposes it) in seconds or as a date is the error's `retry_after`, and one longer than the
/// policy's cap ends the fetch with no retry.
#[wasm_bindgen_test]
async fn r_req_5_a_retry_after_past_the_cap_ends_the_fetch_in_the_browser() {
    control("POST", "/_control/reset", None).await;
    let ctrl = Controller::builder().base_url(api()).build().expect("a Controller");
    let year = Duration::from_secs(365 * 86_400);
    for (after, asked) in [
        ("3600", 3_600..=3_600),
        (
            "Fri, 01 Jan 2100 00:00:00 GMT",
            70 * year.as_secs()..=80 * year.as_secs(),
        ),
    ] {
        inject("/todos/1", json!({ "retry_after": { "status": 429, "after": after } })).await;
        let failed = ctrl.fetch(&todos(|o| o).get(), params! { id: 1 }).await.unwrap_err();
        assert_eq!(failed.status(), Some(restcache::reqwest::StatusCode::TOO_MANY_REQUESTS));
        let waited = failed.retry_after().map(|d| d.as_secs());
        assert!(waited.is_some_and(|s| asked.contains(&s)), "{after}: {failed:?}");
    }
    assert_eq!(
        requests().await,
        ["GET /todos/1", "GET /todos/1"],
        "neither was retried"
    );
}

/// R-PERS-4: a compaction removes the entries the state no longer holds before it writes the
/// state's, so storage filled to its quota by stale entries (rows the collector removed while
/// saving failed) has room again, and the compaction succeeds.
#[wasm_bindgen_test]
async fn r_pers_4_a_compaction_frees_stale_entries_before_writing() {
    use restcache::persist::{LocalStoragePersister, Persister};
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let prefix = "restcache-quota/";
    let mut log = LocalStoragePersister::new(prefix);
    log.compact(&[]).unwrap();
    // Stale entries of this persister, until the origin's quota refuses one more.
    let chunk = "x".repeat(256 * 1024);
    let mut stale = 0;
    while storage.set_item(&format!("{prefix}row/Stale/{stale}"), &chunk).is_ok() {
        stale += 1;
        assert!(stale < 1_000, "no quota reached");
    }
    let mut store = restcache::Store::new();
    let big = json!({ "id": 1, "userId": "u1", "title": "t".repeat(300 * 1024), "completed": false });
    store.set_response::<Todo>("GET /todos/1", &(), &big).unwrap();
    let state = store.snapshot().changes();
    let compacted = log.compact(&state);
    let left = (0..stale).filter(|i| storage.get_item(&format!("{prefix}row/Stale/{i}")).unwrap().is_some());
    let left = left.count();
    log.compact(&[]).unwrap();
    compacted.expect("room made by the stale entries");
    assert_eq!(left, 0, "the stale entries are gone");
    assert_eq!(LocalStoragePersister::new(prefix).restore().unwrap().len(), 0);
}
