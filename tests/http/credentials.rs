//! R-REQ-3/4/5 and seed §5: hooks, credentials per origin, redirects — asserted on the
//! receiving server.

use demo_api::DemoServer;
use restcache::prelude::*;
use restcache::rest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use restcache::rest::{BoxFuture, Credentials, EndpointHooks, RequestInit};
use restcache::{Error, Method};
use serde_json::{Value, json};

/// The seed's custom endpoint: sets a credentials mode and adds a bearer token, a header marked
/// sensitive, and an ordinary header.
struct Bearer(Credentials);

impl EndpointHooks for Bearer {
    fn request_init(&self, init: &mut RequestInit) {
        init.credentials = self.0;
    }
    fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(async move {
            headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer demo-token"));
            let mut key = HeaderValue::from_static("s3cret");
            key.set_sensitive(true);
            headers.insert("x-api-key", key);
            headers.insert("x-trace", HeaderValue::from_static("t1"));
            Ok(headers)
        })
    }
}

fn endpoint(path: &str, prefix: &str, mode: Credentials) -> RestEndpoint<Value> {
    RestEndpoint::<Value>::builder(path)
        .url_prefix(prefix)
        .hooks(Bearer(mode))
        .build()
        .unwrap()
}

/// Whether the credential headers reached the server on the request to `path`.
fn credentials_seen(server: &DemoServer, path: &str) -> Vec<(bool, bool, bool)> {
    server
        .requests()
        .iter()
        .filter(|r| r.path == path)
        .map(|r| {
            (
                r.header("authorization").is_some(),
                r.header("x-api-key").is_some(),
                r.header("x-trace").is_some(),
            )
        })
        .collect()
}

async fn two_servers() -> (DemoServer, DemoServer, Controller) {
    let home = DemoServer::start().await.unwrap();
    let other = DemoServer::start().await.unwrap();
    let ctrl = Controller::builder().base_url(home.base_url()).build().unwrap();
    (home, other, ctrl)
}

#[tokio::test]
async fn seed_custom_endpoint_adds_credentials_for_the_home_origin() {
    let (home, _other, ctrl) = two_servers().await;
    let me = RestEndpoint::<Value>::builder("/me")
        .hooks(Bearer(Credentials::SameOrigin))
        .build()
        .unwrap();
    let user = ctrl.fetch(&me, ()).await.unwrap();
    assert_eq!(user["id"], "u1", "the auth-required route accepted the token");
    assert_eq!(credentials_seen(&home, "/me"), [(true, true, true)]);
}

#[tokio::test]
async fn r_req_4_same_origin_withholds_credentials_from_another_origin() {
    let (_home, other, ctrl) = two_servers().await;
    let seen = ctrl
        .fetch(&endpoint("/whoami", &other.base_url(), Credentials::SameOrigin), ())
        .await
        .unwrap();
    assert_eq!(*seen, json!({ "authorization": null, "cookie": null }));
    assert_eq!(
        credentials_seen(&other, "/whoami"),
        [(false, false, true)],
        "ordinary hook headers still go"
    );
}

#[tokio::test]
async fn r_req_4_include_sends_credentials_to_any_origin_directly() {
    let (_home, other, ctrl) = two_servers().await;
    ctrl.fetch(&endpoint("/whoami", &other.base_url(), Credentials::Include), ())
        .await
        .unwrap();
    assert_eq!(credentials_seen(&other, "/whoami"), [(true, true, true)]);
}

#[tokio::test]
async fn r_req_4_omit_never_sends_credentials() {
    let (home, _other, ctrl) = two_servers().await;
    ctrl.fetch(&endpoint("/whoami", "", Credentials::Omit), ())
        .await
        .unwrap();
    assert_eq!(credentials_seen(&home, "/whoami"), [(false, false, true)]);
}

#[tokio::test]
async fn r_req_4_a_redirect_never_carries_credentials_to_another_origin() {
    for mode in [Credentials::SameOrigin, Credentials::Include] {
        let (home, other, ctrl) = two_servers().await;
        let hop = endpoint("/redirect", "", mode);
        let to = format!("{}/whoami", other.base_url());
        let seen = ctrl.fetch(&hop, json!({ "status": 307, "to": to })).await.unwrap();
        assert_eq!(seen["authorization"], Value::Null, "{mode:?}");
        assert_eq!(
            credentials_seen(&home, "/redirect"),
            [(true, true, true)],
            "{mode:?}: the first hop is home"
        );
        assert_eq!(credentials_seen(&other, "/whoami"), [(false, false, true)], "{mode:?}");
    }
}

#[tokio::test]
async fn r_req_4_url_prefix_is_the_home_origin_without_base_url() {
    let home = DemoServer::start().await.unwrap();
    let other = DemoServer::start().await.unwrap();
    let ctrl = Controller::new();
    let hop = endpoint("/redirect", &home.base_url(), Credentials::SameOrigin);
    ctrl.fetch(
        &hop,
        json!({ "status": 302, "to": format!("{}/whoami", other.base_url()) }),
    )
    .await
    .unwrap();
    assert_eq!(credentials_seen(&home, "/redirect"), [(true, true, true)]);
    assert_eq!(credentials_seen(&other, "/whoami"), [(false, false, true)]);
}

#[tokio::test]
async fn r_req_5_303_continues_as_get_and_307_keeps_method_and_body() {
    let (home, _other, ctrl) = two_servers().await;
    let hop = RestEndpoint::<Value>::builder("/redirect")
        .method(Method::POST)
        .build()
        .unwrap();
    let body = json!({ "title": "via redirect" });
    ctrl.fetch(&hop, json!({ "status": 303, "to": "/todos" }))
        .body(&body)
        .await
        .unwrap();
    ctrl.fetch(&hop, json!({ "status": 307, "to": "/todos" }))
        .body(&body)
        .await
        .unwrap();
    let hops: Vec<(String, String, bool)> = home
        .requests()
        .iter()
        .map(|r| (r.method.clone(), r.path.clone(), r.body.is_empty()))
        .collect();
    assert_eq!(
        hops,
        [
            ("POST".into(), "/redirect".into(), false),
            ("GET".into(), "/todos".into(), true),
            ("POST".into(), "/redirect".into(), false),
            ("POST".into(), "/todos".into(), false),
        ]
    );
    assert_eq!(home.todos().last().unwrap()["title"], "via redirect");
}

#[tokio::test]
async fn r_req_5_more_than_ten_redirects_is_a_transport_error() {
    let (_home, _other, ctrl) = two_servers().await;
    let chain = RestEndpoint::<Value>::builder("/redirect-chain").build().unwrap();
    assert_eq!(
        *ctrl.fetch(&chain, json!({ "hops": 10 })).await.unwrap(),
        json!({ "ok": true })
    );
    let err = ctrl.fetch(&chain, json!({ "hops": 11 })).await.unwrap_err();
    assert!(
        matches!(&err, Error::Transport { message, .. } if message.contains("more than 10 redirects")),
        "{err:?}"
    );
    let looped = RestEndpoint::<Value>::builder("/redirect-loop").build().unwrap();
    assert!(matches!(ctrl.fetch(&looped, ()).await, Err(Error::Transport { .. })));
}

#[tokio::test]
async fn r_req_4_jar_cookies_are_credentials_too() {
    for (mode, home_gets, other_gets) in [
        (Credentials::SameOrigin, true, false),
        (Credentials::Include, true, true),
        (Credentials::Omit, false, false),
    ] {
        let home = DemoServer::start().await.unwrap();
        let other = DemoServer::start().await.unwrap();
        let ctrl = Controller::builder()
            .base_url(home.base_url())
            .credentials(mode)
            .cookie_store(true)
            .build()
            .unwrap();
        let at = |prefix: &str, path: &str, method: Method| {
            RestEndpoint::<Value>::builder(path)
                .url_prefix(prefix)
                .method(method)
                .build()
                .unwrap()
        };
        // Both origins answer `Set-Cookie: session=demo`.
        ctrl.fetch(&at("", "/login", Method::POST), ()).await.unwrap();
        ctrl.fetch(&at(&other.base_url(), "/login", Method::POST), ())
            .await
            .unwrap();
        let seen_home = ctrl.fetch(&at("", "/whoami", Method::GET), ()).await.unwrap();
        let seen_other = ctrl
            .fetch(&at(&other.base_url(), "/whoami", Method::GET), ())
            .await
            .unwrap();
        assert_eq!(seen_home["cookie"].as_str().is_some(), home_gets, "{mode:?}: home");
        assert_eq!(
            seen_other["cookie"].as_str().is_some(),
            other_gets,
            "{mode:?}: other origin"
        );
        if home_gets {
            assert_eq!(seen_home["cookie"], "session=demo");
        }
    }
}
