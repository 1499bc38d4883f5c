//! CORS: a page on another origin (the browser tests' runner) can call every route, read the
//! answer, errors included, and preflights never reach the log, a hold or a fault.

use demo_api::client::{self, Response};
use demo_api::{DemoServer, Fault};

type TestResult = std::io::Result<()>;

/// The origin of a page served by another server on loopback, as a browser sends it.
const PAGE: &str = "http://127.0.0.1:8000";

async fn from_page(server: &DemoServer, method: &str, target: &str) -> std::io::Result<Response> {
    client::request(server.addr(), method, target, &[("Origin", PAGE)], Some(b"{}")).await
}

/// The values of every `name` header, split on commas and trimmed.
fn listed(response: &Response, name: &str) -> Vec<String> {
    response
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .flat_map(|(_, v)| v.split(',').map(|item| item.trim().to_owned()))
        .collect()
}

fn assert_cors_for_page(response: &Response, what: &str) {
    assert_eq!(response.header("access-control-allow-origin"), Some(PAGE), "{what}");
    assert_eq!(
        response.header("access-control-allow-credentials"),
        Some("true"),
        "{what}"
    );
    assert!(listed(response, "vary").contains(&"Origin".to_owned()), "{what}");
    let exposed = listed(response, "access-control-expose-headers");
    // `*` is taken literally on credentialed requests, so the names are listed too.
    for name in ["*", "Content-Type", "Content-Length", "Location", "WWW-Authenticate"] {
        assert!(
            exposed.iter().any(|e| e.eq_ignore_ascii_case(name)),
            "{what}: {name} in {exposed:?}"
        );
    }
}

#[tokio::test]
async fn cors_echoes_any_origin_with_credentials_and_exposes_the_headers() -> TestResult {
    let server = DemoServer::start().await?;
    for origin in [PAGE, "http://localhost:1234", "null"] {
        let response = client::request(server.addr(), "GET", "/todos/1", &[("Origin", origin)], None).await?;
        assert_eq!(response.status, 200);
        assert_eq!(response.header("access-control-allow-origin"), Some(origin));
        assert_eq!(response.header("access-control-allow-credentials"), Some("true"));
    }
    let created = from_page(&server, "POST", "/todos").await?;
    assert_eq!(created.status, 201);
    assert_cors_for_page(&created, "POST /todos");

    let same_origin = client::get(server.addr(), "/todos/1").await?;
    assert_eq!(
        same_origin.header("access-control-allow-origin"),
        None,
        "no Origin, no CORS"
    );
    assert_eq!(same_origin.header("access-control-allow-credentials"), None);
    assert!(
        listed(&same_origin, "vary").contains(&"Origin".to_owned()),
        "the answer varies by Origin even when there is none"
    );
    Ok(())
}

#[tokio::test]
async fn cors_answers_errors_faults_and_misbehaving_routes_too() -> TestResult {
    let server = DemoServer::start().await?;
    let cases = [
        ("GET", "/no/such/route", 404),
        ("PUT", "/todos", 405),
        ("PATCH", "/todos/999", 404),
        ("GET", "/misbehave/500", 500),
        ("GET", "/misbehave/html", 200),
        ("GET", "/misbehave/truncated", 200),
        ("GET", "/redirect?status=307&to=/todos/1", 307),
        ("GET", "/me", 401),
    ];
    for (method, target, status) in cases {
        let response = from_page(&server, method, target).await?;
        assert_eq!(response.status, status, "{method} {target}");
        assert_cors_for_page(&response, target);
    }
    let bad_body = client::request(server.addr(), "POST", "/todos", &[("Origin", PAGE)], Some(b"{oops")).await?;
    assert_eq!(bad_body.status, 400);
    assert_cors_for_page(&bad_body, "a bad body");

    server.inject("/todos/2", Fault::Status(503));
    server.inject("/todos/2", Fault::Html);
    server.inject(
        "/todos/2",
        Fault::Redirect {
            status: 303,
            to: "/todos/3".into(),
        },
    );
    for status in [503, 200, 303] {
        let faulted = from_page(&server, "GET", "/todos/2").await?;
        assert_eq!(faulted.status, status);
        assert_cors_for_page(&faulted, "a fault");
    }
    Ok(())
}

#[tokio::test]
async fn a_preflight_is_answered_204_and_never_logged_held_or_faulted() -> TestResult {
    let server = DemoServer::start().await?;
    let _hold = server.hold("/todos/1");
    server.inject("/todos/1", Fault::Status(500));
    let addr = server.addr();
    let preflight = tokio::spawn(async move {
        let headers = [
            ("Origin", PAGE),
            ("Access-Control-Request-Method", "PATCH"),
            ("Access-Control-Request-Headers", "content-type,authorization,x-trace"),
        ];
        client::request(addr, "OPTIONS", "/todos/1", &headers, None).await
    });
    // A preflight that went through the log would be recorded (and then held) before any answer.
    let response = tokio::select! {
        answered = preflight => answered.unwrap()?,
        () = server.wait_for_requests(1) => panic!("the preflight was recorded: {:?}", server.requests()),
    };
    assert_eq!(response.status, 204);
    assert!(response.body.is_empty());
    assert_eq!(response.header("access-control-allow-origin"), Some(PAGE));
    assert_eq!(response.header("access-control-allow-credentials"), Some("true"));
    let methods = listed(&response, "access-control-allow-methods");
    for method in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] {
        assert!(methods.contains(&method.to_owned()), "{method} in {methods:?}");
    }
    assert_eq!(
        listed(&response, "access-control-allow-headers"),
        ["content-type", "authorization", "x-trace"]
    );
    let max_age: u32 = response.header("access-control-max-age").unwrap().parse().unwrap();
    assert!(max_age > 0);
    let vary = listed(&response, "vary");
    for name in [
        "Origin",
        "Access-Control-Request-Method",
        "Access-Control-Request-Headers",
    ] {
        assert!(vary.contains(&name.to_owned()), "{name} in {vary:?}");
    }
    assert!(server.requests().is_empty());
    assert_eq!(
        server.armed_faults("/todos/1"),
        1,
        "the fault waits for the real request"
    );

    // A preflight that asks for no headers gets no `Access-Control-Allow-Headers`.
    let bare = client::request(
        server.addr(),
        "OPTIONS",
        "/users",
        &[("Origin", PAGE), ("Access-Control-Request-Method", "POST")],
        None,
    )
    .await?;
    assert_eq!((bare.status, bare.header("access-control-allow-headers")), (204, None));
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test]
async fn an_options_request_that_is_no_preflight_reaches_the_routes() -> TestResult {
    let server = DemoServer::start().await?;
    let response = client::request(server.addr(), "OPTIONS", "/users", &[("Origin", PAGE)], None).await?;
    assert_eq!(response.status, 405);
    assert_cors_for_page(&response, "OPTIONS without Access-Control-Request-Method");
    assert_eq!(server.requests().len(), 1);
    Ok(())
}
