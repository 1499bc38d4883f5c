//! The control routes under `/_control/`: what a browser test, which has no `DemoServer` handle,
//! uses to read and clear the request log, arm faults and reset the server.

use std::time::Duration;

use demo_api::DemoServer;
use demo_api::client::{self, Response};
use serde_json::{Value, json};

type TestResult = std::io::Result<()>;

/// The origin of a page served by another server on loopback, as a browser sends it.
const PAGE: &str = "http://127.0.0.1:8000";

async fn control(server: &DemoServer, method: &str, target: &str, body: Option<Value>) -> std::io::Result<Response> {
    let body = body.map(|b| b.to_string().into_bytes());
    client::request(server.addr(), method, target, &[], body.as_deref()).await
}

/// Arms `fault` for `path` over HTTP, and checks it was armed.
async fn arm(server: &DemoServer, path: &str, fault: Value) -> std::io::Result<Response> {
    let body = json!({ "path": path, "fault": fault });
    let armed = control(server, "POST", "/_control/faults", Some(body.clone())).await?;
    assert_eq!(armed.status, 200, "{body}: {}", armed.text());
    Ok(armed)
}

#[tokio::test]
async fn control_requests_lists_the_log_as_json() -> TestResult {
    let server = DemoServer::start().await?;
    client::request(server.addr(), "POST", "/todos?x=1", &[], Some(br#"{"title":"Logged"}"#)).await?;
    client::request(server.addr(), "POST", "/todos", &[], Some(b"{oops")).await?;
    client::get(server.addr(), "/users/u1").await?;

    let listed = control(&server, "GET", "/_control/requests", None).await?;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.header("content-type"), Some("application/json"));
    assert_eq!(
        listed.json(),
        Some(json!([
            { "method": "POST", "path": "/todos", "query": "x=1", "body": { "title": "Logged" } },
            { "method": "POST", "path": "/todos", "query": null, "body": "{oops" },
            { "method": "GET", "path": "/users/u1", "query": null, "body": null },
        ]))
    );
    assert_eq!(server.requests().len(), 3, "reading the log is not logged");
    Ok(())
}

#[tokio::test]
async fn control_requests_delete_clears_the_log() -> TestResult {
    let server = DemoServer::start().await?;
    client::get(server.addr(), "/todos/1").await?;
    client::get(server.addr(), "/todos/2").await?;
    let cleared = control(&server, "DELETE", "/_control/requests", None).await?;
    assert_eq!((cleared.status, cleared.body.len()), (204, 0));
    assert!(server.requests().is_empty());
    let listed = control(&server, "GET", "/_control/requests", None).await?;
    assert_eq!(listed.json(), Some(json!([])));

    client::get(server.addr(), "/todos/3").await?;
    server.wait_for_requests(1).await;
    assert_eq!(server.requests()[0].path, "/todos/3", "the log goes on after clearing");
    Ok(())
}

#[tokio::test]
async fn control_faults_arm_a_fault_for_the_next_request_like_inject() -> TestResult {
    let server = DemoServer::start().await?;
    let armed = arm(&server, "/todos/1", json!({ "status": 500 })).await?;
    assert_eq!(armed.status, 200);
    assert_eq!(armed.json(), Some(json!({ "path": "/todos/1", "armed": 1 })));
    let armed = arm(&server, "/todos/1", json!({ "html": true })).await?;
    assert_eq!(armed.json(), Some(json!({ "path": "/todos/1", "armed": 2 })));
    arm(&server, "/todos/1", json!({ "json": { "id": "odd", "list": [1] } })).await?;
    arm(&server, "/todos/1", json!({ "truncated": true })).await?;
    arm(
        &server,
        "/todos/1",
        json!({ "redirect": { "status": 307, "to": "/todos/2" } }),
    )
    .await?;
    arm(
        &server,
        "/todos/1",
        json!({ "raw": { "content_type": "text/plain", "body": "plain" } }),
    )
    .await?;
    arm(&server, "/todos/1", json!({ "deep": 3 })).await?;
    arm(&server, "/todos/1", json!({ "huge": 10 })).await?;
    arm(&server, "/todos/1", json!({ "huge_chunked": 12 })).await?;
    assert_eq!(server.armed_faults("/todos/1"), 9);

    let get = || client::get(server.addr(), "/todos/1?any=query");
    let failed = get().await?;
    assert_eq!(failed.status, 500);
    assert_eq!(failed.json(), Some(json!({ "error": "injected 500", "status": 500 })));
    let html = get().await?;
    assert_eq!(html.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(get().await?.json(), Some(json!({ "id": "odd", "list": [1] })));
    assert_eq!(get().await?.text(), r#"{"id": 1, "title": "cut"#);
    let redirected = get().await?;
    assert_eq!(
        (redirected.status, redirected.header("location")),
        (307, Some("/todos/2"))
    );
    let plain = get().await?;
    assert_eq!(
        (plain.header("content-type"), plain.text().as_str()),
        (Some("text/plain"), "plain")
    );
    assert_eq!(get().await?.json(), Some(json!([[[]]])));
    let huge = get().await?;
    assert_eq!((huge.header("content-length"), huge.body.len()), (Some("10"), 10));
    let chunked = get().await?;
    assert_eq!(
        (chunked.header("transfer-encoding"), chunked.body.len()),
        (Some("chunked"), 12)
    );
    assert_eq!(
        get().await?.json().unwrap()["title"],
        "Todo 1",
        "each fault was used once"
    );
    assert_eq!(server.armed_faults("/todos/1"), 0);
    Ok(())
}

#[tokio::test]
async fn control_faults_can_cut_a_body_short() -> TestResult {
    let server = DemoServer::start().await?;
    arm(&server, "/users/u1", json!({ "close_mid_body": true })).await?;
    let cut = client::get(server.addr(), "/users/u1").await.unwrap_err();
    assert_eq!(cut.kind(), std::io::ErrorKind::UnexpectedEof);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn control_faults_delay_ms_waits_then_the_route_answers() -> TestResult {
    // The server runs on this runtime, whose clock is paused: the delay passes without waiting.
    let server = DemoServer::start().await?;
    arm(&server, "/todos/5", json!({ "delay_ms": 90_000 })).await?;
    let started = tokio::time::Instant::now();
    let answer = client::get(server.addr(), "/todos/5").await?;
    assert!(started.elapsed() >= Duration::from_secs(90));
    assert_eq!(answer.json().unwrap()["title"], "Todo 5");
    Ok(())
}

#[tokio::test]
async fn control_faults_hang_and_endless_body_never_finish() -> TestResult {
    for fault in [json!({ "hang": true }), json!({ "endless_body": true })] {
        let server = DemoServer::start_on_thread()?;
        arm(&server, "/todos/6", fault.clone()).await?;
        assert_eq!(server.armed_faults("/todos/6"), 1);
        let addr = server.addr();
        let pending = tokio::spawn(async move { client::get(addr, "/todos/6").await });
        server.wait_for_requests(1).await;
        assert_eq!(server.armed_faults("/todos/6"), 0, "{fault} was taken");
        drop(server);
        assert!(pending.await.unwrap().is_err(), "{fault}");
    }
    Ok(())
}

#[tokio::test]
async fn control_faults_refuse_a_bad_body_with_a_400() -> TestResult {
    let server = DemoServer::start().await?;
    let bad: [&[u8]; 23] = [
        b"",
        b"{oops",
        b"[]",
        br#"{"fault": {"status": 500}}"#,
        br#"{"path": "/todos/1"}"#,
        br#"{"path": 7, "fault": {"status": 500}}"#,
        br#"{"path": "todos/1", "fault": {"status": 500}}"#,
        br#"{"path": "/todos/1?a=b", "fault": {"status": 500}}"#,
        br#"{"path": "/todos/1", "fault": {"status": 500}, "extra": 1}"#,
        br#"{"path": "/todos/1", "fault": {}}"#,
        br#"{"path": "/todos/1", "fault": {"status": 500, "html": true}}"#,
        br#"{"path": "/todos/1", "fault": {"explode": true}}"#,
        br#"{"path": "/todos/1", "fault": "html"}"#,
        br#"{"path": "/todos/1", "fault": {"status": 42}}"#,
        br#"{"path": "/todos/1", "fault": {"status": "500"}}"#,
        br#"{"path": "/todos/1", "fault": {"html": false}}"#,
        br#"{"path": "/todos/1", "fault": {"delay_ms": -1}}"#,
        br#"{"path": "/todos/1", "fault": {"redirect": {"status": 200, "to": "/"}}}"#,
        br#"{"path": "/todos/1", "fault": {"raw": {"content_type": "a\nb", "body": ""}}}"#,
        br#"{"path": "/todos/1", "fault": {"huge": 2000000000}}"#,
        br#"{"path": "/todos/1", "fault": {"retry_after": {"status": 42, "after": "1"}}}"#,
        br#"{"path": "/todos/1", "fault": {"retry_after": {"status": 503, "after": "a\nb"}}}"#,
        br#"{"path": "/todos/1", "fault": {"stalled_error": 1000}}"#,
    ];
    for body in bad {
        let refused = client::request(server.addr(), "POST", "/_control/faults", &[], Some(body)).await?;
        let shown = String::from_utf8_lossy(body);
        assert_eq!(refused.status, 400, "{shown}");
        let error = refused.json().unwrap_or_else(|| panic!("{shown}: {}", refused.text()));
        assert_eq!(error["status"], 400, "{shown}");
        assert!(error["error"].as_str().is_some_and(|e| !e.is_empty()), "{shown}");
    }
    assert_eq!(server.armed_faults("/todos/1"), 0);
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test]
async fn control_reset_reseeds_the_data_and_clears_the_log_and_faults() -> TestResult {
    let server = DemoServer::start().await?;
    client::request(server.addr(), "PATCH", "/todos/1", &[], Some(br#"{"title":"changed"}"#)).await?;
    client::request(server.addr(), "DELETE", "/users/u3", &[], None).await?;
    client::request(server.addr(), "POST", "/todos", &[], Some(b"{}")).await?;
    arm(&server, "/todos/2", json!({ "status": 503 })).await?;
    server.inject("/feed", demo_api::Fault::Html);
    let seed = DemoServer::start().await?;

    let reset = control(&server, "POST", "/_control/reset", None).await?;
    assert_eq!((reset.status, reset.body.len()), (204, 0));
    assert_eq!(server.todos(), seed.todos());
    assert_eq!(server.users(), seed.users());
    assert_eq!(server.feed(), seed.feed());
    assert!(server.requests().is_empty());
    assert_eq!((server.armed_faults("/todos/2"), server.armed_faults("/feed")), (0, 0));

    assert_eq!(client::get(server.addr(), "/todos/2").await?.status, 200);
    let made = client::request(server.addr(), "POST", "/todos", &[], Some(b"{}")).await?;
    assert_eq!(made.json().unwrap()["id"], 31, "ids start over from the seed");
    Ok(())
}

#[tokio::test]
async fn control_routes_are_never_recorded_held_or_faulted() -> TestResult {
    let server = DemoServer::start().await?;
    let _holds = [server.hold("/_control/requests"), server.hold("/_control/reset")];
    server.inject("/_control/requests", demo_api::Fault::Status(500));
    server.inject("/_control/reset", demo_api::Fault::Status(500));
    let addr = server.addr();
    let calls = tokio::spawn(async move {
        let listed = client::get(addr, "/_control/requests").await?;
        let reset = client::request(addr, "POST", "/_control/reset", &[], None).await?;
        let unknown = client::get(addr, "/_control/nothing").await?;
        assert_eq!(client::get(addr, "/_control").await?.status, 404);
        assert_eq!(client::get(addr, "/_control/").await?.status, 404);
        let wrong_method = client::get(addr, "/_control/reset").await?;
        std::io::Result::Ok([listed, reset, unknown, wrong_method])
    });
    // A control call that went through the log would be recorded (and then held) first.
    let [listed, reset, unknown, wrong_method] = tokio::select! {
        answered = calls => answered.unwrap()?,
        () = server.wait_for_requests(1) => panic!("a control call was recorded: {:?}", server.requests()),
    };
    assert_eq!((listed.status, reset.status), (200, 204));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json().unwrap()["status"], 404);
    assert_eq!(wrong_method.status, 405);
    assert_eq!(wrong_method.json().unwrap()["status"], 405);
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test]
async fn control_routes_answer_a_page_on_another_origin() -> TestResult {
    let server = DemoServer::start().await?;
    let asked = [
        ("Origin", PAGE),
        ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", "content-type"),
    ];
    let preflight = client::request(server.addr(), "OPTIONS", "/_control/faults", &asked, None).await?;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), Some(PAGE));
    assert_eq!(preflight.header("access-control-allow-headers"), Some("content-type"));

    let body = json!({ "path": "/todos/1", "fault": { "status": 500 } }).to_string();
    let headers = [("Origin", PAGE), ("Content-Type", "application/json")];
    let armed = client::request(
        server.addr(),
        "POST",
        "/_control/faults",
        &headers,
        Some(body.as_bytes()),
    )
    .await?;
    assert_eq!(armed.status, 200);
    assert_eq!(armed.header("access-control-allow-origin"), Some(PAGE));
    assert_eq!(armed.header("access-control-allow-credentials"), Some("true"));
    for (method, target) in [("GET", "/_control/requests"), ("POST", "/_control/reset")] {
        let answer = client::request(server.addr(), method, target, &[("Origin", PAGE)], None).await?;
        assert_eq!(answer.header("access-control-allow-origin"), Some(PAGE), "{target}");
    }
    Ok(())
}
