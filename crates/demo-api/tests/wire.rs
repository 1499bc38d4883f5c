//! Credentials, redirects and the deliberately misbehaving routes.

use demo_api::DemoServer;
use demo_api::client::{self, Response};
use serde_json::{Value, json};

type TestResult = std::io::Result<()>;

#[tokio::test]
async fn me_requires_the_bearer_token() -> TestResult {
    let server = DemoServer::start().await?;
    let anonymous = client::get(server.addr(), "/me").await?;
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.json().unwrap()["error"].is_string());
    let wrong = client::request(server.addr(), "GET", "/me", &[("Authorization", "Bearer nope")], None).await?;
    assert_eq!(wrong.status, 401);
    let right = client::request(
        server.addr(),
        "GET",
        "/me",
        &[("Authorization", "Bearer demo-token")],
        None,
    )
    .await?;
    assert_eq!(right.status, 200);
    assert_eq!(right.json().unwrap()["id"], "u1");
    Ok(())
}

#[tokio::test]
async fn whoami_echoes_the_credentials_that_arrived() -> TestResult {
    let server = DemoServer::start().await?;
    let bare = client::get(server.addr(), "/whoami").await?;
    assert_eq!(bare.json(), Some(json!({ "authorization": null, "cookie": null })));
    let headers = [("Authorization", "Basic eDp5"), ("Cookie", "session=demo; theme=dark")];
    let full = client::request(server.addr(), "GET", "/whoami", &headers, None).await?;
    assert_eq!(
        full.json(),
        Some(json!({ "authorization": "Basic eDp5", "cookie": "session=demo; theme=dark" }))
    );
    Ok(())
}

#[tokio::test]
async fn login_sets_the_session_cookie_that_session_requires() -> TestResult {
    let server = DemoServer::start().await?;
    let login = client::request(server.addr(), "POST", "/login", &[], None).await?;
    assert_eq!(login.status, 200);
    assert_eq!(login.header("set-cookie"), Some("session=demo; Path=/"));
    assert_eq!(login.json(), Some(json!({ "ok": true })));

    assert_eq!(client::get(server.addr(), "/session").await?.status, 401);
    let with_cookie = client::request(
        server.addr(),
        "GET",
        "/session",
        &[("Cookie", "a=1; session=demo")],
        None,
    )
    .await?;
    assert_eq!(with_cookie.status, 200);
    assert_eq!(with_cookie.json().unwrap()["user"]["id"], "u1");
    Ok(())
}

#[tokio::test]
async fn redirect_answers_the_status_and_location_asked_for() -> TestResult {
    let server = DemoServer::start().await?;
    for (method, status) in [("GET", 301), ("GET", 302), ("POST", 303), ("PUT", 307), ("POST", 308)] {
        let target = format!("/redirect?status={status}&to=%2Ftodos%2F1%3Fa%3Db");
        let response = client::request(server.addr(), method, &target, &[], Some(b"{}")).await?;
        assert_eq!(response.status, status, "{method} {status}");
        assert_eq!(response.header("location"), Some("/todos/1?a=b"));
    }
    let default = client::get(server.addr(), "/redirect?to=http://example.invalid/x").await?;
    assert_eq!(
        (default.status, default.header("location")),
        (302, Some("http://example.invalid/x"))
    );
    assert_eq!(
        client::get(server.addr(), "/redirect?status=200&to=/").await?.status,
        400
    );
    assert_eq!(client::get(server.addr(), "/redirect?status=302").await?.status, 400);
    Ok(())
}

#[tokio::test]
async fn redirect_across_origins_lands_on_the_other_server() -> TestResult {
    let home = DemoServer::start().await?;
    let other = DemoServer::start().await?;
    let target = format!("/redirect?status=307&to={}/whoami", other.base_url());
    let hop = client::request(
        home.addr(),
        "GET",
        &target,
        &[("Authorization", "Bearer demo-token")],
        None,
    )
    .await?;
    let location = hop.header("location").unwrap().to_owned();
    assert_eq!(location, format!("{}/whoami", other.base_url()));

    // Follow it by hand, the way a client that drops credentials across origins would.
    let path = location.strip_prefix(&other.base_url()).unwrap();
    let landed = client::get(other.addr(), path).await?;
    assert_eq!(landed.json(), Some(json!({ "authorization": null, "cookie": null })));
    assert_eq!(other.requests().len(), 1);
    assert_eq!(other.requests()[0].header("authorization"), None);
    assert_eq!(home.requests()[0].header("authorization"), Some("Bearer demo-token"));
    Ok(())
}

#[tokio::test]
async fn redirect_loop_and_chain() -> TestResult {
    let server = DemoServer::start().await?;
    let looped = client::get(server.addr(), "/redirect-loop").await?;
    assert_eq!(
        (looped.status, looped.header("location")),
        (302, Some("/redirect-loop"))
    );

    let mut target = "/redirect-chain?hops=3".to_owned();
    let mut hops = 0;
    let last = loop {
        let response = client::get(server.addr(), &target).await?;
        match response.header("location") {
            Some(next) => target = next.to_owned(),
            None => break response,
        }
        hops += 1;
    };
    assert_eq!(hops, 3);
    assert_eq!(last.json(), Some(json!({ "ok": true })));
    Ok(())
}

#[tokio::test]
async fn error_statuses_carry_json_bodies() -> TestResult {
    let server = DemoServer::start().await?;
    for status in [500, 404, 503] {
        let response = client::get(server.addr(), &format!("/misbehave/{status}")).await?;
        assert_eq!(response.status, status);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(response.json().unwrap()["status"], status);
    }
    let not_modified = client::get(server.addr(), "/misbehave/not-modified").await?;
    assert_eq!((not_modified.status, not_modified.body.len()), (304, 0));
    Ok(())
}

#[tokio::test]
async fn content_type_cases() -> TestResult {
    let server = DemoServer::start().await?;
    let get = |path: &'static str| client::get(server.addr(), path);

    let html = get("/misbehave/html").await?;
    assert!(html.header("content-type").unwrap().starts_with("text/html"));
    assert!(html.text().starts_with("<html>"));

    let bare = get("/misbehave/no-content-type-json").await?;
    assert_eq!(bare.header("content-type"), None);
    assert_eq!(bare.json(), Some(json!({ "id": 1 })));

    let problem = get("/misbehave/problem-json").await?;
    assert_eq!(problem.header("content-type"), Some("application/problem+json"));
    assert_eq!(problem.json().unwrap()["id"], 1);

    let truncated = get("/misbehave/truncated").await?;
    assert_eq!(truncated.header("content-type"), Some("application/json"));
    assert_eq!(truncated.text(), r#"{"id": 1, "title": "cut"#);
    assert!(serde_json::from_slice::<Value>(&truncated.body).is_err());

    let blank = get("/misbehave/whitespace").await?;
    assert!(!blank.body.is_empty() && blank.body.iter().all(u8::is_ascii_whitespace));
    Ok(())
}

#[tokio::test]
async fn close_mid_body_sends_less_than_its_content_length() -> TestResult {
    let server = DemoServer::start().await?;
    let raw = client::exchange(
        server.addr(),
        &client::encode(server.addr(), "GET", "/misbehave/close-mid-body", &[], None),
    )
    .await?;
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.to_ascii_lowercase().contains("content-length: 64"));
    assert!(text.ends_with(r#"{"id": 1, "title": ""#), "{text}");
    let error = Response::parse(&raw, "GET").unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
    Ok(())
}

#[tokio::test]
async fn huge_bodies_with_and_without_length() -> TestResult {
    let server = DemoServer::start().await?;
    let sized = client::get(server.addr(), "/misbehave/huge?bytes=300000").await?;
    assert_eq!(sized.header("content-length"), Some("300000"));
    assert_eq!(sized.body.len(), 300_000);
    let string: String = serde_json::from_slice(&sized.body).expect("a JSON string");
    assert_eq!(string.len(), 299_998);

    let chunked = client::get(server.addr(), "/misbehave/huge-chunked?bytes=200001").await?;
    assert_eq!(chunked.header("content-length"), None);
    assert_eq!(chunked.header("transfer-encoding"), Some("chunked"));
    assert_eq!(chunked.body.len(), 200_001);
    assert!(serde_json::from_slice::<String>(&chunked.body).is_ok());
    Ok(())
}

#[tokio::test]
async fn deep_nests_arrays() -> TestResult {
    let server = DemoServer::start().await?;
    let shallow = client::get(server.addr(), "/misbehave/deep?depth=3").await?;
    assert_eq!(shallow.json(), Some(json!([[[]]])));
    let deep = client::get(server.addr(), "/misbehave/deep?depth=1000").await?;
    assert_eq!(deep.body.len(), 2000);
    let error = serde_json::from_slice::<Value>(&deep.body).unwrap_err();
    assert!(error.to_string().contains("recursion limit"), "{error}");
    Ok(())
}

#[tokio::test]
async fn slow_waits_before_answering() -> TestResult {
    let server = DemoServer::start().await?;
    let started = std::time::Instant::now();
    let response = client::get(server.addr(), "/misbehave/slow?ms=60").await?;
    assert!(started.elapsed() >= std::time::Duration::from_millis(60));
    assert_eq!(response.json(), Some(json!({ "ok": true })));
    Ok(())
}
