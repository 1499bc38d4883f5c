//! R-REQ-5, R-FETCH-2, R-EXP-2..5: a server that accepts and goes silent, a body that never
//! ends, or headers dripping a byte a second cannot keep a fetch, or the key it is for, pending
//! forever. A fetch has a default timeout that covers all of it, redirects and body included;
//! and `invalidate`, `invalidate_all`, `expire_all` and `reset` stop later reads from joining a
//! GET that hangs.
//!
//! The servers run on their own threads in real time. The test's clock is paused only once
//! the request is at the server (or between hops), so the 30 s default fires at once, and
//! `ends_by_itself` turns a fetch that nothing would end into a failure, not a hung test.

use std::future::{Future, IntoFuture, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use demo_api::{DemoServer, DripServer, Fault};
use restcache::Error;
use restcache::prelude::*;
use serde_json::json;

use crate::fixtures::*;

const ID: u64 = 15;
const PATH: &str = "/todos/15";

/// A Controller for `base_url` with every default, the timeout included, and a client that
/// keeps no idle-connection timer (see `controller`).
fn with_defaults(base_url: &str) -> Controller {
    Controller::builder()
        .base_url(base_url)
        .client(client())
        .build()
        .expect("controller")
}

/// Awaits a spawned fetch on the paused clock. If nothing else ends it first, an hour of the
/// test's clock passes at once and the test fails.
async fn ends_by_itself<T>(fetch: tokio::task::JoinHandle<T>) -> T {
    tokio::time::timeout(Duration::from_secs(3600), fetch)
        .await
        .expect("the fetch was still pending after an hour: nothing timed it out")
        .expect("the fetch task")
}

fn timed_out_after_30_s(err: &Error, at: &str) -> bool {
    matches!(err, Error::Transport { url, message, .. } if url == at && message.contains("timed out after 30s"))
}

#[tokio::test]
async fn r_req_5_by_default_a_fetch_ends_after_30_s_if_the_server_hangs_or_the_body_never_ends() {
    for fault in [Fault::Hang, Fault::EndlessBody] {
        let server = DemoServer::start_on_thread().unwrap();
        let ctrl = with_defaults(&server.base_url());
        server.inject(PATH, fault.clone());
        let failing = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: ID }));
        server.wait_for_requests(1).await;
        tokio::time::pause();
        let err = ends_by_itself(failing).await.expect_err("no answer is no success");
        let at = format!("{}{PATH}", server.base_url());
        assert!(timed_out_after_30_s(&err, &at), "{fault:?}: {err:?}");
        assert!(err.is_soft(), "a timeout is a transport error");
        // The key is free again: the next fetch sends a request of its own, which succeeds.
        tokio::time::resume();
        let todo = ctrl.fetch(&todos().get(), params! { id: ID }).await.unwrap();
        assert_eq!(
            (todo.title.as_str(), server.requests().len()),
            ("Todo 15", 2),
            "{fault:?}"
        );
    }
}

#[tokio::test]
async fn r_req_5_by_default_a_fetch_ends_after_30_s_if_headers_drip_a_byte_a_second() {
    let server = DripServer::start(Duration::from_secs(1)).unwrap();
    let ctrl = with_defaults(&server.base_url());
    let failing = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: ID }));
    server.wait_for_requests(1).await;
    tokio::time::pause();
    let err = ends_by_itself(failing).await.expect_err("headers that never end");
    assert!(
        timed_out_after_30_s(&err, &format!("{}{PATH}", server.base_url())),
        "{err:?}"
    );
}

#[tokio::test]
async fn r_req_5_timeout_none_turns_the_timeout_off() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .client(client())
        .timeout(None)
        .build()
        .unwrap();
    server.inject(PATH, Fault::Hang);
    let mut pending = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: ID }));
    server.wait_for_requests(1).await;
    tokio::time::pause();
    // An hour of the test's clock passes at once, and the fetch is still pending.
    let waited = tokio::time::timeout(Duration::from_secs(3600), &mut pending).await;
    assert!(waited.is_err(), "{waited:?}");
    // Only the server going away ends it.
    drop(server);
    let err = pending.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::Transport { message, .. } if !message.contains("timed out")),
        "{err:?}"
    );
}

/// A timeout past any instant the clock can name (`Duration::MAX`, "forever") never fires: the
/// fetch completes as without a timeout.
#[tokio::test]
async fn r_req_5_a_timeout_longer_than_the_clock_reaches_never_fires() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .client(client())
        .timeout(Duration::MAX)
        .build()
        .unwrap();
    // The clock runs in real time here: a fetch that hangs fails the test after a minute.
    let fetch = ctrl.fetch(&todos().get(), params! { id: ID }).into_future();
    let todo = tokio::time::timeout(Duration::from_secs(60), fetch)
        .await
        .expect("the fetch did not complete")
        .unwrap();
    assert_eq!(todo.id, ID);
}

/// Each hop of a redirect chain takes 20 s of the test's clock (held at the server while the
/// clock is moved on). The timeout bounds the fetch as a whole, so it fires during the second
/// hop, 30 s after the fetch started; a timeout per hop would let every hop take 20 s and the
/// chain succeed.
#[tokio::test]
async fn r_req_5_the_timeout_covers_the_whole_redirect_chain_not_each_hop() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = with_defaults(&server.base_url());
    let mut hold = server.hold("/redirect-chain");
    let chain = RestEndpoint::<serde_json::Value>::builder("/redirect-chain")
        .build()
        .unwrap();
    // hops=2 → hops=1 → hops=0, which answers.
    let mut fetch = spawn_fetch(ctrl.fetch(&chain, json!({ "hops": 2 })));
    let mut hops = 0;
    let outcome = loop {
        tokio::select! {
            outcome = &mut fetch => break outcome.unwrap(),
            held = hold.arrived() => {
                hops += 1;
                tokio::time::pause();
                tokio::time::advance(Duration::from_secs(20)).await;
                tokio::time::resume();
                held.release();
            }
        }
    };
    let err = outcome.expect_err("three hops of 20 s each outlast a 30 s timeout");
    assert!(
        matches!(&err, Error::Transport { url, message, .. }
            if url.ends_with("/redirect-chain?hops=1") && message.contains("timed out after 30s")),
        "{err:?}"
    );
    assert_eq!(hops, 2, "the timeout fired during the second hop");
}

/// What frees a key from a GET that hangs.
#[derive(Clone, Copy, Debug)]
enum Free {
    Invalidate,
    InvalidateAll,
    ExpireAll,
    Reset,
}

impl Free {
    /// Frees the key of todo [`ID`] (which the cache holds) as `self` says.
    fn apply(self, ctrl: &Controller, get: &RestEndpoint<Todo>) {
        match self {
            Free::Invalidate => ctrl.invalidate(get, params! { id: ID }).unwrap(),
            Free::InvalidateAll => assert_eq!(ctrl.invalidate_all(get), 1),
            Free::ExpireAll => assert_eq!(ctrl.expire_all(get), 1),
            Free::Reset => ctrl.reset(),
        }
    }
}

/// A Controller holding todo [`ID`], and a second GET of it that the server holds; later
/// requests to the path are answered at once.
struct Hung {
    server: DemoServer,
    ctrl: Controller,
    get: RestEndpoint<Todo>,
    hung: tokio::task::JoinHandle<Result<Arc<Todo>, Error>>,
    held: demo_api::Held,
}

async fn hung_get() -> Hung {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let get = todos().get();
    ctrl.fetch(&get, params! { id: ID }).await.unwrap();
    let mut hold = server.hold(PATH);
    let hung = spawn_fetch(ctrl.fetch(&get, params! { id: ID }));
    let held = hold.arrived().await;
    Hung {
        server,
        ctrl,
        get,
        hung,
        held,
    }
}

/// R-EXP-2, R-EXP-4: a GET sent before `invalidate`, `invalidate_all` or `expire_all` and
/// answered after it does not make the key fresh again: its caller gets the answer, but the key
/// stays invalid (or expired), so the next read fetches. The answer was made before the app
/// said the data had changed.
#[tokio::test]
async fn r_exp_2_a_get_sent_before_an_invalidation_leaves_the_key_invalid() {
    for free in [Free::Invalidate, Free::InvalidateAll, Free::ExpireAll] {
        let Hung {
            server,
            ctrl,
            get,
            hung,
            held,
        } = hung_get().await;
        free.apply(&ctrl, &get);
        held.release();
        assert_eq!(
            hung.await.unwrap().unwrap().title,
            "Todo 15",
            "{free:?}: its caller gets it"
        );
        let cached = ctrl.get_response(&get, params! { id: ID }).unwrap();
        let still = match free {
            Free::ExpireAll => cached.is_stale(restcache::Instant::now()),
            _ => cached.status == ExpiryStatus::Invalid,
        };
        assert!(still, "{free:?}: the key was made fresh again: {cached:?}");
        if !matches!(free, Free::ExpireAll) {
            let sent = server.requests().len();
            ctrl.suspense(&get, params! { id: ID }).await.unwrap();
            assert_eq!(server.requests().len(), sent + 1, "{free:?}: suspense fetched");
        }
    }
}

/// R-EXP-2: a `suspense` whose GET was overtaken by an invalidation (sent before it,
/// answered after it) fetches again and returns the new answer, rather than the old one or an
/// error.
#[tokio::test]
async fn r_exp_2_a_suspense_overtaken_by_an_invalidation_fetches_again() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let get = todos().get();
    let mut hold = server.hold(PATH);
    let read = tokio::spawn({
        let (ctrl, get) = (ctrl.clone(), get.clone());
        async move { ctrl.suspense(&get, params! { id: ID }).await }
    });
    let held = hold.arrived().await;
    drop(hold);
    ctrl.invalidate(&get, params! { id: ID }).unwrap();
    held.release();
    assert_eq!(read.await.unwrap().unwrap().title, "Todo 15");
    assert_eq!(server.requests().len(), 2, "the overtaken GET, then its own again");
    let cached = ctrl.get_response(&get, params! { id: ID }).unwrap();
    assert_eq!(cached.status, ExpiryStatus::Valid);
}

/// R-REQ-5: an error answer that will be retried is retried without reading its body, which
/// may never end; the body of an error that is final is read (here, until the timeout).
#[tokio::test]
async fn r_req_5_a_retried_error_s_hanging_body_is_not_waited_for() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| {
        b.timeout(Duration::from_secs(5))
            .retry(restcache::rest::Retry::new(1, Duration::from_millis(1)))
    });
    server.inject(PATH, Fault::StalledError(503));
    let todo = ctrl.fetch(&todos().get(), params! { id: ID }).await;
    assert_eq!(todo.expect("the retry answered").title, "Todo 15");
    assert_eq!(server.requests().len(), 2);
    // The last attempt's error: its body is read, so a body that never ends meets the timeout.
    let ctrl = controller(&server, |b| b.timeout(Duration::from_millis(300)));
    server.inject(PATH, Fault::StalledError(503));
    let err = ctrl.fetch(&todos().get(), params! { id: ID }).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
}

/// R-EXP-3: `invalidate_all` also stamps a matching key that holds no result (invalidated
/// already, and being fetched again): a GET sent before it does not make the key valid.
#[tokio::test]
async fn r_exp_3_invalidate_all_stamps_a_key_being_refetched() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let get = todos().get();
    ctrl.fetch(&get, params! { id: ID }).await.unwrap();
    ctrl.invalidate(&get, params! { id: ID }).unwrap();
    let mut hold = server.hold(PATH);
    let read = tokio::spawn({
        let (ctrl, get) = (ctrl.clone(), get.clone());
        async move { ctrl.suspense(&get, params! { id: ID }).await }
    });
    let held = hold.arrived().await;
    drop(hold);
    assert_eq!(ctrl.invalidate_all(&get), 0, "no stored result");
    held.release();
    assert_eq!(read.await.unwrap().unwrap().title, "Todo 15");
    assert_eq!(server.requests().len(), 3, "the overtaken GET was sent again");
}

/// A GET of the key hangs at the server (held). After `free`, a read of the key must send a
/// request of its own rather than join the one in flight: the read is polled once (which
/// starts its request or joins), then the hung GET is answered, and the server must have seen
/// the read's own request. `suspense` is tried where it fetches and waits (R-EXP-2, R-EXP-5);
/// after `expire_all` it would serve the stale data, so only `fetch` is.
#[tokio::test]
async fn r_fetch_2_after_invalidate_expire_all_or_reset_a_read_does_not_join_a_hung_get() {
    let frees = [Free::Invalidate, Free::InvalidateAll, Free::ExpireAll, Free::Reset];
    for (free, suspense) in frees.into_iter().flat_map(|f| [(f, false), (f, true)]) {
        if suspense && matches!(free, Free::ExpireAll) {
            continue;
        }
        let label = format!("{free:?}, then {}", if suspense { "suspense" } else { "fetch" });
        let Hung {
            server,
            ctrl,
            get,
            hung,
            held,
        } = hung_get().await;
        free.apply(&ctrl, &get);
        let sent = server.requests().len();
        let mut read: Pin<Box<dyn Future<Output = Result<Arc<Todo>, Error>> + '_>> = if suspense {
            Box::pin(ctrl.suspense(&get, params! { id: ID }))
        } else {
            Box::pin(ctrl.fetch(&get, params! { id: ID }).into_future())
        };
        // One poll: the read sends its request, or joins the GET in flight.
        assert!(
            poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx).is_pending())).await,
            "{label}"
        );
        held.release();
        let todo = read.await.unwrap_or_else(|e| panic!("{label}: {e:?}"));
        assert_eq!(todo.title, "Todo 15", "{label}");
        assert_eq!(
            server.requests().len(),
            sent + 1,
            "{label}: the read sent its own request"
        );
        // The old GET still settles (after `reset`, with `Error::Reset`).
        let old = hung.await.unwrap();
        assert_eq!(old.is_err(), matches!(free, Free::Reset), "{label}: {old:?}");
    }
}
