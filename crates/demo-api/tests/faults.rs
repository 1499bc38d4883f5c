//! Injected faults: each answers one request to its path instead of the route, in order.

use std::time::Duration;

use demo_api::client::{self, Response};
use demo_api::{DemoServer, Fault};
use serde_json::{Value, json};

type TestResult = std::io::Result<()>;

/// Checks the answer a fault gave.
type Check = Box<dyn Fn(&Response)>;

#[tokio::test]
async fn each_fault_answers_one_request_then_the_route_answers_again() -> TestResult {
    let server = DemoServer::start().await?;
    let cases: Vec<(Fault, Check)> = vec![
        (
            Fault::Status(503),
            Box::new(|r| {
                assert_eq!(r.status, 503);
                assert_eq!(r.json(), Some(json!({ "error": "injected 503", "status": 503 })));
            }),
        ),
        (Fault::Status(404), Box::new(|r| assert_eq!(r.status, 404))),
        (
            Fault::RetryAfter {
                status: 429,
                after: "30".into(),
            },
            Box::new(|r| {
                assert_eq!((r.status, r.header("retry-after")), (429, Some("30")));
                assert_eq!(r.json(), Some(json!({ "error": "injected 429", "status": 429 })));
            }),
        ),
        (
            Fault::Truncated,
            Box::new(|r| {
                assert_eq!((r.status, r.header("content-type")), (200, Some("application/json")));
                assert!(serde_json::from_slice::<Value>(&r.body).is_err());
            }),
        ),
        (
            Fault::Html,
            Box::new(|r| assert!(r.header("content-type").unwrap().starts_with("text/html"))),
        ),
        (
            Fault::Json(json!({ "id": "not a number", "extra": [1] })),
            Box::new(|r| assert_eq!(r.json(), Some(json!({ "id": "not a number", "extra": [1] })))),
        ),
        (
            Fault::Raw {
                content_type: "application/notjson-at-all".into(),
                body: "{}".into(),
            },
            Box::new(|r| {
                assert_eq!(r.header("content-type"), Some("application/notjson-at-all"));
                assert_eq!(r.text(), "{}");
            }),
        ),
        (
            Fault::Huge(5000),
            Box::new(|r| {
                assert_eq!(r.header("content-length"), Some("5000"));
                assert_eq!(serde_json::from_slice::<String>(&r.body).unwrap().len(), 4998);
            }),
        ),
        (
            Fault::HugeChunked(5000),
            Box::new(|r| {
                assert_eq!(r.header("transfer-encoding"), Some("chunked"));
                assert_eq!(r.body.len(), 5000);
            }),
        ),
        (Fault::Deep(3), Box::new(|r| assert_eq!(r.json(), Some(json!([[[]]]))))),
        (
            Fault::Redirect {
                status: 301,
                to: "/todos/5".into(),
            },
            Box::new(|r| {
                assert_eq!((r.status, r.header("location")), (301, Some("/todos/5")));
                assert!(r.body.is_empty());
            }),
        ),
    ];
    for (fault, check) in cases {
        server.inject("/todos/4", fault.clone());
        let faulted = client::get(server.addr(), "/todos/4?q=any").await?;
        check(&faulted);
        assert_eq!(server.armed_faults("/todos/4"), 0, "{fault:?} was used");
        let normal = client::get(server.addr(), "/todos/4").await?;
        assert_eq!(normal.json().unwrap()["title"], "Todo 4", "after {fault:?}");
    }
    Ok(())
}

#[tokio::test]
async fn close_mid_body_cuts_the_response_short() -> TestResult {
    let server = DemoServer::start().await?;
    server.inject("/users/u1", Fault::CloseMidBody);
    let cut = client::get(server.addr(), "/users/u1").await.unwrap_err();
    assert_eq!(cut.kind(), std::io::ErrorKind::UnexpectedEof);
    assert_eq!(client::get(server.addr(), "/users/u1").await?.status, 200);
    Ok(())
}

#[tokio::test]
async fn faults_queue_per_path_and_a_faulted_mutation_changes_nothing() -> TestResult {
    let server = DemoServer::start().await?;
    server.inject("/todos/1", Fault::Status(500));
    server.inject("/todos/1", Fault::Status(400));
    server.inject("/todos/2", Fault::Status(502));
    let patch = |id: u64| {
        let target = format!("/todos/{id}");
        let addr = server.addr();
        async move { client::request(addr, "PATCH", &target, &[], Some(br#"{"title":"patched"}"#)).await }
    };
    assert_eq!(patch(1).await?.status, 500);
    assert_eq!(server.todo(1).unwrap()["title"], "Todo 1");
    assert_eq!(patch(1).await?.status, 400);
    assert_eq!(patch(1).await?.status, 200);
    assert_eq!(server.todo(1).unwrap()["title"], "patched");
    assert_eq!(patch(2).await?.status, 502);
    assert_eq!(server.todo(2).unwrap()["title"], "Todo 2");
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        ["/todos/1", "/todos/1", "/todos/1", "/todos/2"],
        "faulted requests are recorded"
    );
    Ok(())
}

#[tokio::test]
async fn a_fault_belongs_to_the_request_that_arrived_first_even_if_held() -> TestResult {
    let server = DemoServer::start().await?;
    let mut hold = server.hold("/todos/3");
    server.inject("/todos/3", Fault::Status(503));
    let addr = server.addr();
    let first = tokio::spawn(async move { client::get(addr, "/todos/3?n=1").await });
    let held_first = hold.arrived().await;
    let second = tokio::spawn(async move { client::get(addr, "/todos/3?n=2").await });
    let held_second = hold.arrived().await;
    held_second.release();
    assert_eq!(second.await.unwrap()?.status, 200);
    held_first.release();
    assert_eq!(first.await.unwrap()?.status, 503);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn delay_waits_on_the_servers_clock_then_the_route_answers() -> TestResult {
    // The server runs on this runtime, whose clock is paused: the delay passes without waiting.
    let server = DemoServer::start().await?;
    server.inject("/todos/5", Fault::Delay(Duration::from_secs(3600)));
    let started = tokio::time::Instant::now();
    let answer = client::get(server.addr(), "/todos/5").await?;
    assert!(started.elapsed() >= Duration::from_secs(3600));
    assert_eq!(answer.json().unwrap()["title"], "Todo 5");
    Ok(())
}

#[tokio::test]
#[should_panic(expected = "Fault::Status(42)")]
async fn a_status_outside_the_valid_range_is_refused() {
    let server = DemoServer::start().await.unwrap();
    server.inject("/todos/1", Fault::Status(42));
}

#[tokio::test]
#[should_panic(expected = "a redirect status is 300..=399")]
async fn a_redirect_fault_needs_a_redirect_status() {
    let server = DemoServer::start().await.unwrap();
    server.inject(
        "/todos/1",
        Fault::Redirect {
            status: 200,
            to: "/todos/2".into(),
        },
    );
}

#[tokio::test]
async fn hang_never_answers_and_endless_body_never_ends_until_the_server_is_dropped() -> TestResult {
    for fault in [Fault::Hang, Fault::EndlessBody] {
        let server = DemoServer::start_on_thread()?;
        server.inject("/todos/6", fault.clone());
        let addr = server.addr();
        let pending = tokio::spawn(async move { client::get(addr, "/todos/6").await });
        server.wait_for_requests(1).await;
        assert_eq!(server.armed_faults("/todos/6"), 0, "{fault:?} was taken");
        // The connection ends only with the server; the response never completed.
        drop(server);
        let cut = pending.await.unwrap();
        assert!(cut.is_err(), "{fault:?}: {cut:?}");
    }
    Ok(())
}
