//! The request log and holding requests.

use demo_api::DemoServer;
use demo_api::client::{self, Response};
use serde_json::json;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

type TestResult = std::io::Result<()>;

fn spawn_request(
    server: &DemoServer,
    method: &'static str,
    target: String,
    body: Option<Vec<u8>>,
) -> JoinHandle<std::io::Result<Response>> {
    let addr = server.addr();
    tokio::spawn(async move { client::request(addr, method, &target, &[], body.as_deref()).await })
}

#[tokio::test]
async fn records_method_path_query_headers_and_body() -> TestResult {
    let server = DemoServer::start().await?;
    let body = br#"{"title":"Logged"}"#;
    let headers = [
        ("Content-Type", "application/json"),
        ("X-Request-Id", "abc-1"),
        ("Authorization", "Bearer t"),
    ];
    client::request(server.addr(), "POST", "/todos?source=test&x=%20y", &headers, Some(body)).await?;
    client::get(server.addr(), "/todos/1").await?;

    let log = server.requests();
    assert_eq!(log.len(), 2);
    let post = &log[0];
    assert_eq!(post.method, "POST");
    assert_eq!(post.path, "/todos");
    assert_eq!(post.query.as_deref(), Some("source=test&x=%20y"));
    assert_eq!(post.uri(), "/todos?source=test&x=%20y");
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(post.header("X-REQUEST-ID"), Some("abc-1"));
    assert_eq!(post.header("authorization"), Some("Bearer t"));
    assert!(
        post.headers
            .iter()
            .all(|(name, _)| name.chars().all(|c| !c.is_ascii_uppercase()))
    );
    assert_eq!(post.body, body.to_vec());
    assert_eq!(post.json(), Some(json!({ "title": "Logged" })));

    let get = &log[1];
    assert_eq!(
        (get.method.as_str(), get.uri(), get.query.clone()),
        ("GET", "/todos/1".to_owned(), None)
    );
    assert!(get.body.is_empty());
    assert_eq!(get.json(), None);
    assert_eq!(get.header("content-type"), None, "no body, no Content-Type");
    Ok(())
}

#[tokio::test]
async fn records_unknown_routes_and_bad_requests_and_clears() -> TestResult {
    let server = DemoServer::start().await?;
    client::get(server.addr(), "/no/such/route?q=1").await?;
    client::request(server.addr(), "POST", "/todos", &[], Some(b"{oops")).await?;
    let log = server.requests();
    assert_eq!(
        log.iter().map(|r| r.uri()).collect::<Vec<_>>(),
        ["/no/such/route?q=1", "/todos"]
    );
    assert_eq!(log[1].body, b"{oops".to_vec());

    server.clear_requests();
    assert!(server.requests().is_empty());
    client::get(server.addr(), "/users").await?;
    server.wait_for_requests(1).await;
    assert_eq!(server.requests().len(), 1);
    Ok(())
}

#[tokio::test]
async fn hold_answers_two_requests_in_reverse_order() -> TestResult {
    let server = DemoServer::start().await?;
    let mut hold = server.hold("/todos/1");
    let (done, mut finished) = mpsc::unbounded_channel();
    for title in ["A", "B"] {
        let addr = server.addr();
        let done = done.clone();
        tokio::spawn(async move {
            let body = json!({ "title": title }).to_string();
            let target = format!("/todos/1?title={title}");
            let response = client::request(addr, "PATCH", &target, &[], Some(body.as_bytes())).await;
            let _ = done.send((title, response));
        });
    }

    let first = hold.arrived().await;
    let second = hold.arrived().await;
    let title_of = |held: &demo_api::Held| held.request().json().unwrap()["title"].as_str().unwrap().to_owned();
    let (first_title, second_title) = (title_of(&first), title_of(&second));
    assert_ne!(first_title, second_title);
    assert_eq!(server.requests().len(), 2, "held requests are already in the log");
    assert_eq!(server.todo(1).unwrap()["title"], "Todo 1", "neither was handled yet");

    second.release();
    let (title, response) = finished.recv().await.unwrap();
    assert_eq!(title, second_title, "the later arrival is answered first");
    assert_eq!(response?.json().unwrap()["title"], second_title.as_str());
    assert!(finished.try_recv().is_err(), "the first arrival is still held");

    first.release();
    let (title, response) = finished.recv().await.unwrap();
    assert_eq!(title, first_title);
    assert_eq!(response?.json().unwrap()["title"], first_title.as_str());
    assert_eq!(
        server.todo(1).unwrap()["title"],
        first_title.as_str(),
        "the last one handled wins"
    );
    Ok(())
}

#[tokio::test]
async fn holds_only_its_path() -> TestResult {
    let server = DemoServer::start().await?;
    let mut hold = server.hold("/todos/2");
    let held = spawn_request(&server, "GET", "/todos/2?x=1".to_owned(), None);
    let waiting = hold.arrived().await;
    assert_eq!(hold.path(), "/todos/2");
    assert_eq!(waiting.request().uri(), "/todos/2?x=1");
    // Other paths (even a prefix or an extension of it) go through while that one waits.
    assert_eq!(client::get(server.addr(), "/todos/22").await?.status, 200);
    assert_eq!(client::get(server.addr(), "/todos").await?.status, 200);
    assert!(!held.is_finished());
    waiting.release();
    assert_eq!(held.await.unwrap()?.json().unwrap()["id"], 2);
    Ok(())
}

#[tokio::test]
async fn dropping_the_hold_releases_queued_requests_and_stops_holding() -> TestResult {
    let server = DemoServer::start().await?;
    let mut hold = server.hold("/users/u1");
    let taken = spawn_request(&server, "GET", "/users/u1?n=1".to_owned(), None);
    let held = hold.arrived().await;
    let queued = spawn_request(&server, "GET", "/users/u1?n=2".to_owned(), None);
    server.wait_for_requests(2).await;

    drop(hold);
    assert_eq!(
        queued.await.unwrap()?.status,
        200,
        "a request still queued on the hold is released"
    );
    let after = client::get(server.addr(), "/users/u1?n=3").await?;
    assert_eq!(after.status, 200, "the path is no longer held");

    assert!(
        !taken.is_finished(),
        "a request the test took stays held until its Held goes"
    );
    drop(held);
    assert_eq!(taken.await.unwrap()?.status, 200);
    Ok(())
}

#[tokio::test]
#[should_panic(expected = "was dropped")]
async fn arrived_panics_once_the_server_is_gone() {
    let server = DemoServer::start().await.unwrap();
    let mut hold = server.hold("/feed");
    drop(server);
    hold.arrived().await;
}
