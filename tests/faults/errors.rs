//! R-ERR-2, R-POL-1/2, R-RESP-1..4, R-REQ-5, R-NORM-2/3/5: every fault ends in a typed error,
//! writes nothing but the key's own error record, and the next successful fetch of the key
//! recovers.
//!
//! Each fault is tried on `GET /todos/15` twice: with no data under the key, and with the key's
//! data cached. The clock is paused while the failure is inspected, so the error record stays
//! fresh (1 s) however slow the machine is; the server runs on its own thread in real time.

use std::sync::Arc;
use std::time::Duration;

use demo_api::{DemoServer, Fault};
use restcache::Error;
use restcache::controller::{ControllerBuilder, FetchRequest};
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::*;

const ID: u64 = 15;
const PATH: &str = "/todos/15";
const KEY: &str = "GET /todos/15";
/// `max_response_bytes` of these Controllers: every ordinary answer fits.
const LIMIT: u64 = 16 * 1024;

/// A server, a Controller with something in its cache, and what a failure must leave alone.
struct Cached {
    server: DemoServer,
    ctrl: Controller,
    /// What the key held before the failure, when the run caches it.
    before: Option<Arc<Todo>>,
}

/// Fills a cache: u1's list (todos 1..=10), todo 25, an earlier error (todo 99), a PATCH result,
/// and, if `cached`, the key itself. Then the server's todo 15 changes, so a recovered read
/// shows the new title and a read served from the cache the old one.
async fn fill(server: DemoServer, ctrl: Controller, cached: bool) -> Cached {
    ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    ctrl.fetch(&todos().get(), params! { id: 25 }).await.unwrap();
    ctrl.fetch(&todos().get(), params! { id: 99 }).await.unwrap_err();
    ctrl.fetch(&todos().partial_update(), params! { id: 3 })
        .body(&json!({ "completed": false }))
        .await
        .unwrap();
    let before = if cached {
        Some(ctrl.fetch(&todos().get(), params! { id: ID }).await.unwrap())
    } else {
        None
    };
    assert!(server.upsert_todo(json!({ "id": ID, "userId": "u2", "title": "after the fault", "completed": true })));
    Cached { server, ctrl, before }
}

async fn start(cached: bool, configure: impl FnOnce(ControllerBuilder) -> ControllerBuilder) -> Cached {
    let server = DemoServer::start_on_thread().expect("the demo API starts");
    let ctrl = controller(&server, |b| configure(b.max_response_bytes(LIMIT)));
    fill(server, ctrl, cached).await
}

/// Checks what a failed fetch of the key left: only its error record (R-NORM-2), the read
/// reporting the error with the key's data kept, and the error policy (R-POL-2): `suspense`
/// serves the cached data through a soft error and returns the error otherwise, without
/// fetching (which would commit again).
async fn check_failure(
    ctrl: &Controller,
    cached: Option<&Todo>,
    snapshot_before: &Value,
    err: &Error,
    soft: bool,
    label: &str,
) {
    assert_eq!(err.is_soft(), soft, "{label}: is_soft of {err:?}");
    let snapshot = ctrl.inspect();
    assert_only_error_recorded(snapshot_before, &snapshot, KEY, err);
    let read = ctrl.get_response(&todos().get(), params! { id: ID }).unwrap();
    assert_eq!(read.error.as_ref(), Some(err), "{label}: the read reports the error");
    assert_eq!(read.data.as_deref(), cached, "{label}: the key's data is kept");
    let served = ctrl.suspense(&todos().get(), params! { id: ID }).await;
    match (cached, soft) {
        (Some(cached), true) => assert_eq!(
            served.as_deref().ok(),
            Some(cached),
            "{label}: a soft error keeps serving the cached data"
        ),
        _ => assert_eq!(
            served.as_ref().err(),
            Some(err),
            "{label}: a hard error, or any error without data, is returned"
        ),
    }
    assert_eq!(ctrl.inspect(), snapshot, "{label}: no fetch while the error is fresh");
}

/// The next fetch of the key succeeds, clears the error, and reads back the server's data.
async fn check_recovery(server: &DemoServer, ctrl: &Controller, label: &str) {
    let expected = server_todo(server, ID);
    assert_eq!(expected.title, "after the fault");
    let fetched = ctrl.fetch(&todos().get(), params! { id: ID }).await;
    assert_eq!(fetched.as_deref(), Ok(&expected), "{label}: the next fetch recovers");
    let read = ctrl.get_response(&todos().get(), params! { id: ID }).unwrap();
    assert_eq!(
        (read.data.as_deref(), read.error, read.status),
        (Some(&expected), None, ExpiryStatus::Valid),
        "{label}: the cache holds the server's data, and no error"
    );
    let requests = server.requests().len();
    assert_eq!(
        ctrl.suspense(&todos().get(), params! { id: ID }).await.as_deref(),
        Ok(&expected)
    );
    assert_eq!(server.requests().len(), requests, "{label}: served from the cache");
    // The rest of the cache is still readable as before.
    let list = ctrl
        .get_response(&todos().get_list(), params! { userId: "u1" })
        .unwrap()
        .data
        .unwrap();
    assert_eq!(
        list.iter().map(|t| t.id).collect::<Vec<_>>(),
        (1..=10).collect::<Vec<_>>()
    );
}

/// Injects `fault` for the key's next request, with the key uncached and then cached, and checks
/// the error (`expect` gets it and the request URL), the cache, the policy and the recovery.
async fn fails_then_recovers(
    fault: Fault,
    soft: bool,
    configure: fn(ControllerBuilder) -> ControllerBuilder,
    expect: impl Fn(&Error, &str) -> bool,
) {
    for cached in [false, true] {
        let label = format!("{fault:?}, key cached: {cached}");
        let run = start(cached, configure).await;
        let url = format!("{}{PATH}", run.server.base_url());
        let snapshot = run.ctrl.inspect();
        run.server.inject(PATH, fault.clone());
        let arrived = run.server.requests().len() + 1;
        let failing = spawn_fetch(run.ctrl.fetch(&todos().get(), params! { id: ID }));
        // Only once the request is at the server does the clock stop (so a client timeout
        // fires then, not before the request is even sent).
        run.server.wait_for_requests(arrived).await;
        tokio::time::pause();
        let err = failing.await.unwrap().expect_err(&label);
        assert!(expect(&err, &url), "{label}: unexpected error {err:?}");
        assert_eq!(run.server.armed_faults(PATH), 0, "{label}: the fault was used");
        check_failure(&run.ctrl, run.before.as_deref(), &snapshot, &err, soft, &label).await;
        tokio::time::resume();
        check_recovery(&run.server, &run.ctrl, &label).await;
    }
}

fn defaults(b: ControllerBuilder) -> ControllerBuilder {
    b
}

#[tokio::test]
async fn r_pol_1_a_5xx_is_a_soft_network_error_and_cached_data_is_still_served() {
    for status in [500, 502, 503] {
        fails_then_recovers(Fault::Status(status), true, defaults, |e, url| {
            matches!(e, Error::Status { status: s, url: u, body, retry_after: None }
                if *s == status && u == url && body.contains(&format!("injected {status}")))
        })
        .await;
    }
}

#[tokio::test]
async fn r_pol_1_a_4xx_is_a_hard_network_error_even_with_data_cached() {
    for status in [400, 401, 404, 429] {
        fails_then_recovers(Fault::Status(status), false, defaults, |e, url| {
            matches!(e, Error::Status { status: s, url: u, body, retry_after: None }
                if *s == status && u == url && body.contains(&format!("injected {status}")))
        })
        .await;
    }
}

#[tokio::test]
async fn r_err_2_a_connection_closed_mid_body_is_a_soft_transport_error() {
    fails_then_recovers(
        Fault::CloseMidBody,
        true,
        defaults,
        |e, url| matches!(e, Error::Transport { url: u, message, .. } if u == url && !message.is_empty()),
    )
    .await;
}

#[tokio::test]
async fn r_resp_3_truncated_json_is_a_hard_decode_error() {
    fails_then_recovers(Fault::Truncated, false, defaults, |e, url| {
        matches!(e, Error::Decode { url: u, content_type: Some(ct), entity: None, position, message }
            if u == url && ct == "application/json" && position.is_empty() && message.contains("EOF"))
    })
    .await;
}

#[tokio::test]
async fn r_resp_3_a_wrong_content_type_is_a_hard_decode_error_that_names_it() {
    fails_then_recovers(Fault::Html, false, defaults, |e, url| {
        matches!(e, Error::Decode { url: u, content_type: Some(ct), message, .. }
            if u == url && ct.starts_with("text/html") && message.contains("JSON content type"))
    })
    .await;
}

#[tokio::test]
async fn r_resp_4_a_body_over_max_response_bytes_is_refused_by_length_or_while_streaming() {
    for fault in [Fault::Huge(4 * LIMIT), Fault::HugeChunked(4 * LIMIT)] {
        fails_then_recovers(
            fault,
            false,
            defaults,
            |e, url| matches!(e, Error::ResponseTooLarge { url: u, limit } if u == url && *limit == LIMIT),
        )
        .await;
    }
}

#[tokio::test]
async fn r_resp_4_json_deeper_than_the_limit_is_a_hard_decode_error() {
    fails_then_recovers(
        Fault::Deep(200),
        false,
        defaults,
        |e, url| matches!(e, Error::Decode { url: u, message, .. } if u == url && message.contains("nesting limit")),
    )
    .await;
}

// Errors raised while normalizing name the absolute URL that answered, as the HTTP errors do
// (R-ERR-1). Decode errors name the content type.

#[tokio::test]
async fn r_norm_3_an_entity_without_its_pk_is_a_hard_invalid_response() {
    let pkless = json!({ "userId": "u2", "title": "who am I", "completed": true });
    fails_then_recovers(Fault::Json(pkless), false, defaults, |e, at| {
        matches!(e, Error::InvalidResponse { url, entity: Some(entity), position, reason }
            if url == at && entity == "Todo" && position.is_empty() && reason.contains("primary key"))
    })
    .await;
}

#[tokio::test]
async fn r_norm_5_a_field_of_the_wrong_type_is_a_hard_decode_error() {
    let mistyped = json!({ "id": ID, "userId": "u2", "title": "typed wrong", "completed": "yes" });
    fails_then_recovers(Fault::Json(mistyped), false, defaults, |e, at| {
        matches!(e, Error::Decode { url, content_type: Some(ct), entity: Some(entity), position, message }
            if url == at && ct == "application/json" && entity == "Todo" && position == "/completed"
                && message.contains("invalid type"))
    })
    .await;
}

#[tokio::test]
async fn r_req_5_a_client_timeout_is_a_soft_transport_error() {
    // The server delays the answer by ten minutes of real time. Once the request has arrived,
    // the test's clock is paused, so the 30 s client timeout fires as soon as the runtime
    // idles, without waiting.
    fn with_timeout(b: ControllerBuilder) -> ControllerBuilder {
        b.timeout(Duration::from_secs(30))
    }
    fails_then_recovers(Fault::Delay(Duration::from_secs(600)), true, with_timeout, |e, url| {
        matches!(e, Error::Transport { url: u, message, .. } if u == url && message.contains("timed out"))
            && e.is_timeout()
    })
    .await;
}

#[tokio::test]
async fn r_err_2_connection_refused_is_a_soft_transport_error_until_the_server_is_back() {
    for cached in [false, true] {
        let label = format!("connection refused, key cached: {cached}");
        let run = start(cached, defaults).await;
        let port = run.server.addr().port();
        let url = format!("{}{PATH}", run.server.base_url());
        let snapshot = run.ctrl.inspect();
        // Dropping a thread server joins its thread: nothing listens on the port any more.
        let Cached { server, ctrl, before } = run;
        drop(server);
        tokio::time::pause();
        let err = ctrl.fetch(&todos().get(), params! { id: ID }).await.expect_err(&label);
        assert!(
            matches!(&err, Error::Transport { url: u, message, .. } if *u == url && message.contains("onnect")),
            "{label}: {err:?}"
        );
        check_failure(&ctrl, before.as_deref(), &snapshot, &err, true, &label).await;
        tokio::time::resume();
        let back = DemoServer::start_on_port(port).await.expect("the port is free again");
        assert!(back.upsert_todo(json!({ "id": ID, "userId": "u2", "title": "after the fault", "completed": true })));
        check_recovery(&back, &ctrl, &label).await;
    }
}

#[tokio::test]
async fn r_norm_2_a_list_that_fails_halfway_writes_none_of_it() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let list = todos().get_list();
    let args = params! { userId: "u1" };
    ctrl.fetch(&list, &args).await.unwrap();
    ctrl.fetch(&todos().get(), params! { id: 2 }).await.unwrap();
    let snapshot = ctrl.inspect();
    // The first element would update todo 1 and the second todo 2; the third has no pk.
    server.inject(
        "/todos",
        Fault::Json(json!([
            { "id": 1, "userId": "u1", "title": "changed", "completed": true },
            { "id": 2, "userId": "u1", "title": "changed too", "completed": true },
            { "userId": "u1", "title": "no pk" },
        ])),
    );
    tokio::time::pause();
    let err = ctrl.fetch(&list, &args).await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { entity: Some(e), position, .. } if e == "Todo" && position == "/2"),
        "{err:?}"
    );
    assert_only_error_recorded(&snapshot, &ctrl.inspect(), "GET /todos?userId=u1", &err);
    let todo_2 = ctrl.get_response(&todos().get(), params! { id: 2 }).unwrap();
    assert_eq!(todo_2.data.unwrap().title, "Todo 2", "not half-written");
    tokio::time::resume();
    assert!(server.upsert_todo(json!({ "id": 1, "userId": "u1", "title": "renamed", "completed": false })));
    let recovered = ctrl.fetch(&list, &args).await.unwrap();
    assert_eq!(recovered[0].title, "renamed");
    let read = ctrl.get_response(&list, &args).unwrap();
    assert_eq!((read.data.unwrap()[0].title.as_str(), read.error), ("renamed", None));
}

#[tokio::test]
async fn r_optm_4_a_failed_mutation_leaves_only_its_error_record_and_a_retry_recovers() {
    for resource in [todos(), optimistic_todos()] {
        let label = format!("optimistic: {:?}", resource.partial_update().optimistic().is_some());
        let server = DemoServer::start_on_thread().unwrap();
        let ctrl = controller(&server, |b| b);
        ctrl.fetch(&resource.get_list(), params! { userId: "u2" })
            .await
            .unwrap();
        let snapshot = ctrl.inspect();
        server.inject(PATH, Fault::Status(503));
        tokio::time::pause();
        let err = ctrl
            .fetch(&resource.partial_update(), params! { id: ID })
            .body(&json!({ "title": "patched" }))
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(StatusCode::SERVICE_UNAVAILABLE), "{label}: {err:?}");
        assert_only_error_recorded(&snapshot, &ctrl.inspect(), "PATCH /todos/15", &err);
        let read = ctrl.get_response(&resource.get(), params! { id: ID }).unwrap();
        assert_eq!(read.data.unwrap().title, "Todo 15", "{label}: rolled back");
        assert_eq!(server.todo(ID).unwrap()["title"], "Todo 15", "{label}: not applied");
        tokio::time::resume();
        let patched = ctrl
            .fetch(&resource.partial_update(), params! { id: ID })
            .body(&json!({ "title": "patched" }))
            .await
            .unwrap();
        assert_eq!(*patched, server_todo(&server, ID), "{label}");
        let list = ctrl
            .get_response(&resource.get_list(), params! { userId: "u2" })
            .unwrap()
            .data
            .unwrap();
        assert_eq!(list[4].title, "patched", "{label}: the list sees the recovered entity");
        assert_eq!(
            ctrl.inspect()["meta"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["key"] == "PATCH /todos/15")
                .unwrap()["error"],
            Value::Null,
            "{label}: the success cleared the error"
        );
    }
}

/// Answers the next request to `path` with a `status` redirect to todo 15, sends `request`
/// (a mutation), and checks that it failed with a typed error, was not followed into a GET,
/// and left nothing but its error record under `key`: the server still holds todo 15 as it
/// was, and so does the cache, through any optimistic layer.
async fn redirected_into_a_get<S: restcache::schema::Schema>(
    server: &DemoServer,
    ctrl: &Controller,
    (path, status, key): (&str, u16, &str),
    request: FetchRequest<S, impl Sized>,
) {
    let snapshot = ctrl.inspect();
    let sent = server.requests().len();
    server.inject(
        path,
        Fault::Redirect {
            status,
            to: PATH.into(),
        },
    );
    let label = format!("{key} answered {status}");
    let err = request
        .await
        .err()
        .unwrap_or_else(|| panic!("{label}: a mutation turned into a GET succeeded"));
    let at = format!("{}{path}", server.base_url());
    assert!(
        matches!(&err, Error::Transport { url, message, .. } if *url == at && message.contains("GET")),
        "{label}: {err:?}"
    );
    let seen = server.requests();
    assert_eq!(seen.len(), sent + 1, "{label}: the redirect was not followed");
    assert_eq!(seen[sent].path, path, "{label}");
    assert_only_error_recorded(&snapshot, &ctrl.inspect(), key, &err);
    let read = ctrl.get_response(&todos().get(), params! { id: ID }).unwrap();
    assert_eq!(
        read.data.map(|t| t.title.clone()).as_deref(),
        Some("Todo 15"),
        "{label}: the cache is as it was"
    );
    assert_eq!(
        server.todo(ID).unwrap()["title"],
        "Todo 15",
        "{label}: the server is as it was"
    );
}

/// R-REQ-5 (the Fetch standard's redirects): 301 and 302 turn only a POST into a GET, 303 any
/// method but HEAD. A mutation that a redirect would resend as a GET is not that mutation's
/// success: the fetch fails with `Error::Transport`, the redirect is not followed, and nothing
/// of the mutation reaches the cache (an optimistic one rolls back). Before, a DELETE answered
/// 303 came back `Ok` from a GET and marked the entity deleted.
#[tokio::test]
async fn r_req_5_a_mutation_redirected_into_a_get_fails_and_changes_nothing() {
    for resource in [todos(), optimistic_todos()] {
        let server = DemoServer::start_on_thread().unwrap();
        let ctrl = controller(&server, |b| b);
        // u2's todos are 11..=20.
        ctrl.fetch(&resource.get_list(), params! { userId: "u2" })
            .await
            .unwrap();
        let body = json!({ "title": "redirected" });
        let id = params! { id: ID };
        let delete = ctrl.fetch(&resource.delete(), &id);
        redirected_into_a_get(&server, &ctrl, (PATH, 303, "DELETE /todos/15"), delete).await;
        let patch = ctrl.fetch(&resource.partial_update(), &id).body(&body);
        redirected_into_a_get(&server, &ctrl, (PATH, 303, "PATCH /todos/15"), patch).await;
        let put = ctrl.fetch(&resource.update(), &id).body(&body);
        redirected_into_a_get(&server, &ctrl, (PATH, 303, "PUT /todos/15"), put).await;
        let create = RestEndpoint::<Todo>::builder("/todos")
            .method(restcache::Method::POST)
            .build()
            .unwrap();
        for status in [301, 302, 303] {
            let post = ctrl.fetch(&create, ()).body(&body);
            redirected_into_a_get(&server, &ctrl, ("/todos", status, "POST /todos"), post).await;
        }
        assert_eq!(server.todos().len(), 30, "nothing was created");
    }
}
