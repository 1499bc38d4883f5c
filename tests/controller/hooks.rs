//! Stateful hooks, response hooks and retries (issue #24, items 3, 4 and 8): hooks are values
//! attached at the Controller or the endpoint, the request hook may await, a response hook sees
//! status and headers and may ask for one retry, a fetch's headers are reachable, and GETs
//! retry with exponential backoff and jitter.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use demo_api::{DemoServer, Fault};
use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::rest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use restcache::rest::{AfterResponse, BoxFuture, EndpointHooks, EndpointOptions, RequestInit, ResponseHead, Retry};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::fixtures::*;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
struct Me {
    #[entity(pk)]
    id: String,
    name: String,
}

fn me() -> RestEndpoint<Me> {
    RestEndpoint::<Me>::builder("/me").build().expect("a valid endpoint")
}

/// The session state an app keeps: a token, and the heads its response hook saw.
#[derive(Default)]
struct Session {
    token: Mutex<String>,
    seen: Mutex<Vec<(StatusCode, bool)>>,
    /// Always ask for a retry, whatever the answer.
    always_retry: bool,
}

/// Sends the session's token; on a 401, "refreshes" it (awaiting, as a real refresh would)
/// and asks for a retry.
struct Auth(Arc<Session>);

impl EndpointHooks for Auth {
    fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(async move {
            let token = format!("Bearer {}", self.0.token.lock().unwrap());
            headers.insert(AUTHORIZATION, HeaderValue::from_str(&token).unwrap());
            Ok(headers)
        })
    }

    fn response<'a>(&'a self, head: &'a ResponseHead) -> BoxFuture<'a, AfterResponse> {
        Box::pin(async move {
            self.0.seen.lock().unwrap().push((head.status(), head.is_retry()));
            if head.status() != StatusCode::UNAUTHORIZED && !self.0.always_retry {
                return AfterResponse::Continue;
            }
            tokio::task::yield_now().await;
            if !self.0.always_retry {
                *self.0.token.lock().unwrap() = "demo-token".into();
            }
            AfterResponse::Retry
        })
    }
}

fn authorizations(server: &DemoServer, path: &str) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| r.path == path)
        .map(|r| r.header("authorization").unwrap_or("-").to_owned())
        .collect()
}

#[tokio::test]
async fn r_hooks_a_stateful_controller_hook_sends_the_current_token() {
    let server = DemoServer::start().await.unwrap();
    let session = Arc::new(Session::default());
    let ctrl = controller_with(&server, |b| b.hooks(Auth(Arc::clone(&session))));
    *session.token.lock().unwrap() = "first".into();
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    *session.token.lock().unwrap() = "second".into();
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(authorizations(&server, "/todos/1"), ["Bearer first", "Bearer second"]);
}

#[tokio::test]
async fn r_hooks_an_endpoint_hook_value_runs_after_the_controller_s() {
    struct Tag(&'static str);
    impl EndpointHooks for Tag {
        fn request_init(&self, init: &mut RequestInit) {
            let old = init.headers.get("x-tags").map(|v| v.to_str().unwrap().to_owned());
            let tags = old.map_or(self.0.to_owned(), |old| format!("{old},{}", self.0));
            init.headers.insert("x-tags", HeaderValue::from_str(&tags).unwrap());
        }
    }
    let server = DemoServer::start().await.unwrap();
    let ctrl = controller_with(&server, |b| b.hooks(Tag("controller")));
    let get = todos().get().with_hooks(Tag("endpoint"));
    ctrl.fetch(&get, params! { id: 1 }).await.unwrap();
    assert_eq!(server.requests()[0].header("x-tags"), Some("controller,endpoint"));
}

#[tokio::test]
async fn r_hooks_the_request_hook_may_await_a_token_refresh() {
    struct Awaits(watch::Receiver<Option<String>>);
    impl EndpointHooks for Awaits {
        fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
            let mut token = self.0.clone();
            Box::pin(async move {
                let token = token.wait_for(Option::is_some).await.unwrap().clone().unwrap();
                headers.insert(AUTHORIZATION, HeaderValue::from_str(&token).unwrap());
                Ok(headers)
            })
        }
    }
    let server = DemoServer::start().await.unwrap();
    let (refreshed, token) = watch::channel(None);
    let ctrl = controller_with(&server, |b| b.hooks(Awaits(token)));
    let fetch = spawn_fetch(ctrl.fetch(&me(), ()));
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    assert!(
        server.requests().is_empty(),
        "nothing is sent before the hook has its token"
    );
    refreshed.send_replace(Some("Bearer demo-token".into()));
    assert_eq!(fetch.await.unwrap().unwrap().id, "u1");
}

#[tokio::test]
async fn r_hooks_a_401_refreshes_the_token_and_retries_once() {
    let server = DemoServer::start().await.unwrap();
    let session = Arc::new(Session {
        token: Mutex::new("expired".into()),
        ..Default::default()
    });
    let ctrl = controller_with(&server, |b| b.hooks(Auth(Arc::clone(&session))));
    let user = ctrl.fetch(&me(), ()).await.unwrap();
    assert_eq!(user.id, "u1");
    assert_eq!(authorizations(&server, "/me"), ["Bearer expired", "Bearer demo-token"]);
    assert_eq!(
        *session.seen.lock().unwrap(),
        [(StatusCode::UNAUTHORIZED, false), (StatusCode::OK, true)]
    );
}

#[tokio::test]
async fn r_hooks_a_response_hook_cannot_cause_more_than_one_retry() {
    let server = DemoServer::start().await.unwrap();
    let session = Arc::new(Session {
        token: Mutex::new("wrong".into()),
        always_retry: true,
        ..Default::default()
    });
    let ctrl = controller_with(&server, |b| b.hooks(Auth(Arc::clone(&session))));
    let err = ctrl.fetch(&me(), ()).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::UNAUTHORIZED));
    assert_eq!(hits(&server, "/me"), 2, "the first request and one retry");
    // The same holds on a success: a hook that always asks gets one retry.
    assert_eq!(ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 2);
}

#[tokio::test]
async fn r_hooks_a_fetch_result_s_headers_are_reachable() {
    let (_server, ctrl) = setup().await;
    let list = todos().get_list();
    let all = ctrl.fetch(&list, params! { userId: "u2" }).await.unwrap();
    let page = ctrl
        .fetch(&list, params! { userId: "u2", page: 1, limit: 3 })
        .with_response()
        .await
        .unwrap();
    assert_eq!(page.data().len(), 3);
    assert_eq!(page.head().status(), StatusCode::OK);
    let total = page.head().headers().get("x-total-count").unwrap().to_str().unwrap();
    assert_eq!(total, all.len().to_string(), "the count before paging");
    assert!(
        page.head().url().ends_with("/todos?limit=3&page=1&userId=u2"),
        "{}",
        page.head().url()
    );
}

fn stamps(server: &DemoServer) -> Vec<u64> {
    virtual_times(server).iter().map(|ms| ms.parse().unwrap()).collect()
}

#[tokio::test(start_paused = true)]
async fn r_retry_a_get_retries_with_exponential_backoff_and_jitter() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| {
        b.hooks(VirtualTime(Instant::now()))
            .retry(Retry::new(3, Duration::from_millis(1000)))
    });
    for status in [503, 500, 429] {
        server.inject("/todos/1", Fault::Status(status));
    }
    assert_eq!(ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap().id, 1);
    let at = stamps(&server);
    assert_eq!(at.len(), 4, "three retries: {at:?}");
    assert_eq!(at[0], 0);
    // Retry n waits between half and all of 1 s × 2ⁿ.
    for (n, full) in [1000, 2000, 4000].into_iter().enumerate() {
        let wait = at[n + 1] - at[n];
        assert!((full / 2..=full).contains(&wait), "retry {n} after {wait} ms: {at:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn r_retry_gets_retry_by_default_and_mutations_do_not() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| b);
    server.inject("/todos/1", Fault::Status(503));
    assert_eq!(ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap().id, 1);
    assert_eq!(hits(&server, "/todos/1"), 2);
    server.inject("/todos/1", Fault::Status(503));
    let patch = ctrl
        .fetch(&todos().partial_update(), params! { id: 1 })
        .body(&json!({ "title": "once" }))
        .await;
    assert_eq!(patch.unwrap_err().status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(hits(&server, "/todos/1"), 3, "the PATCH was sent once");
    // Three failures in a row are more than the default's two retries.
    for _ in 0..3 {
        server.inject("/todos/2", Fault::Status(502));
    }
    let err = ctrl.fetch(&todos().get(), params! { id: 2 }).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::BAD_GATEWAY));
    assert_eq!(hits(&server, "/todos/2"), 3);
}

#[tokio::test(start_paused = true)]
async fn r_retry_an_endpoint_policy_overrides_the_controller_s() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| b);
    let once = |member: RestEndpoint<Todo>, retry: Retry| {
        member
            .extend(EndpointOptions {
                retry: Some(retry),
                ..Default::default()
            })
            .unwrap()
    };
    server.inject("/todos/1", Fault::Status(503));
    let get = once(todos().get(), Retry::never());
    assert!(ctrl.fetch(&get, params! { id: 1 }).await.is_err());
    assert_eq!(hits(&server, "/todos/1"), 1);
    server.inject("/todos/1", Fault::Status(503));
    let patch = once(todos().partial_update(), Retry::new(1, Duration::from_millis(10)));
    let patched = ctrl
        .fetch(&patch, params! { id: 1 })
        .body(&json!({ "title": "retried" }))
        .await
        .unwrap();
    assert_eq!(patched.title, "retried");
    assert_eq!(hits(&server, "/todos/1"), 3);
}

/// A retry delay longer than the clock reaches (`Duration::MAX`) is waited, cut to a century,
/// not a task that dies on the overflow. The clock is paused and nothing else keeps a timer
/// (no timeout here), so once the failure is handled the runtime jumps to the retry, which
/// succeeds; with a timeout, the timeout ends the wait first.
#[tokio::test(start_paused = true)]
async fn r_retry_a_delay_longer_than_the_clock_reaches_is_waited_not_a_panic() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| b.retry(Retry::new(1, Duration::MAX)));
    let started = Instant::now();
    server.inject("/todos/1", Fault::Status(503));
    let todo = ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(todo.id, 1);
    assert_eq!(hits(&server, "/todos/1"), 2);
    assert!(
        started.elapsed() > Duration::from_secs(365 * 24 * 3_600),
        "{:?}",
        started.elapsed()
    );
}

/// The retry of an answer whose `Retry-After` asks for `after` under `policy`: the virtual
/// milliseconds between the first request and the retry.
async fn wait_asked_by(after: &str, policy: Retry) -> u64 {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| b.hooks(VirtualTime(Instant::now())).retry(policy));
    server.inject(
        "/todos/1",
        Fault::RetryAfter {
            status: 503,
            after: after.into(),
        },
    );
    assert_eq!(ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap().id, 1);
    let at = stamps(&server);
    assert_eq!(at.len(), 2, "one retry: {at:?}");
    at[1] - at[0]
}

#[tokio::test(start_paused = true)]
async fn r_req_5_a_retry_waits_as_long_as_retry_after_asks() {
    let policy = Retry::new(1, Duration::from_millis(100)).max_delay(Duration::from_secs(30));
    let wait = wait_asked_by("5", policy).await;
    assert!((5_000..5_100).contains(&wait), "5 s asked, waited {wait} ms");
    // An HTTP date: the time from now until then (the date has whole seconds).
    let then = std::time::SystemTime::now() + Duration::from_secs(20);
    let wait = wait_asked_by(&httpdate::fmt_http_date(then), policy).await;
    assert!((18_000..=20_000).contains(&wait), "20 s asked, waited {wait} ms");
    // Asking for less than the backoff does not shorten it.
    let wait = wait_asked_by("0", Retry::new(1, Duration::from_millis(2_000))).await;
    assert!((1_000..=2_000).contains(&wait), "the backoff: {wait} ms");
}

#[tokio::test(start_paused = true)]
async fn r_req_5_a_retry_after_past_the_policy_s_cap_ends_the_fetch_at_once() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller_with(&server, |b| b);
    server.inject(
        "/todos/1",
        Fault::RetryAfter {
            status: 429,
            after: "3600".into(),
        },
    );
    let started = Instant::now();
    let err = ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::TOO_MANY_REQUESTS));
    assert_eq!(err.retry_after(), Some(Duration::from_secs(3_600)), "{err:?}");
    assert_eq!(
        hits(&server, "/todos/1"),
        1,
        "not retried: the default policy waits 10 s at most"
    );
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
}

#[tokio::test(start_paused = true)]
async fn r_bad_input_a_retry_after_that_names_no_time_is_ignored() {
    let policy = Retry::new(1, Duration::from_millis(400));
    for after in ["soon", "-5", "1.5", "5s", "", "Thu, 99 Nov 2026 25:00:00 GMT"] {
        let wait = wait_asked_by(after, policy).await;
        assert!((200..=400).contains(&wait), "{after:?}: the backoff, waited {wait} ms");
    }
    // A date gone by asks for no wait; a number past what the clock holds for more than any.
    let server = DemoServer::start().await.unwrap();
    let ctrl = controller_with(&server, |b| b);
    for (after, asked) in [
        ("Sun, 06 Nov 1994 08:49:37 GMT", Some(Duration::ZERO)),
        ("99999999999999999999999", Some(Duration::MAX)),
        ("soon", None),
    ] {
        server.inject(
            "/todos/1",
            Fault::RetryAfter {
                status: 404,
                after: after.into(),
            },
        );
        let err = ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap_err();
        assert_eq!(
            (err.status(), err.retry_after()),
            (Some(StatusCode::NOT_FOUND), asked),
            "{after:?}"
        );
    }
}

#[tokio::test]
async fn r_retry_errors_that_cannot_pass_are_not_retried() {
    let server = DemoServer::start().await.unwrap();
    let ctrl_with_retries = controller_with(&server, |b| b.retry(Retry::new(3, Duration::from_millis(1))));
    for fault in [Fault::Status(404), Fault::Status(400), Fault::Html, Fault::Truncated] {
        server.clear_requests();
        server.inject("/todos/1", fault);
        assert!(
            ctrl_with_retries
                .fetch(&todos().get(), params! { id: 1 })
                .await
                .is_err()
        );
        assert_eq!(hits(&server, "/todos/1"), 1);
    }
}

#[tokio::test]
async fn r_bad_input_nonsense_retry_options_are_refused_when_built() {
    let refused = |b: restcache::controller::ControllerBuilder| match b.build() {
        Err(Error::InvalidConfig { reason }) => reason,
        other => panic!("expected InvalidConfig, got {other:?}"),
    };
    assert!(refused(Controller::builder().retry(Retry::new(2, Duration::ZERO))).contains("zero retry delay"));
    assert!(refused(Controller::builder().retry(Retry::new(11, Duration::from_millis(5)))).contains("11 retries"));
    let capped_below = Retry::new(2, Duration::from_secs(2)).max_delay(Duration::from_secs(1));
    assert!(refused(Controller::builder().retry(capped_below)).contains("max_delay"));
    assert!(refused(Controller::builder().timeout(Duration::ZERO)).contains("zero timeout"));
    let bad_member = todos().get().extend(EndpointOptions {
        retry: Some(Retry::new(1, Duration::ZERO)),
        ..Default::default()
    });
    assert!(matches!(bad_member, Err(Error::InvalidConfig { .. })));
}
