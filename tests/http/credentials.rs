//! R-REQ-3/4/5 and seed §5: hooks, credentials per origin, redirects — asserted on the
//! receiving server.

use demo_api::DemoServer;
use restcache::controller::ControllerBuilder;
use restcache::prelude::*;
use restcache::rest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue};
use restcache::rest::{AfterResponse, BoxFuture, Credentials, EndpointHooks, RequestInit, ResponseHead};
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
    two_servers_with(|b| b).await
}

/// Two servers and a Controller whose `base_url` is the first, with `configure`'s options.
async fn two_servers_with(
    configure: fn(ControllerBuilder) -> ControllerBuilder,
) -> (DemoServer, DemoServer, Controller) {
    let home = DemoServer::start().await.unwrap();
    let other = DemoServer::start().await.unwrap();
    let ctrl = configure(Controller::builder().base_url(home.base_url()))
        .build()
        .unwrap();
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

/// R-REQ-5: a 303 continues a GET as a GET; a POST it would turn into a GET is refused, not
/// followed (see `tests/faults/errors.rs` for what the cache keeps); 307 keeps the method and
/// body.
#[tokio::test]
async fn r_req_5_303_continues_a_get_refuses_a_post_and_307_keeps_method_and_body() {
    let (home, _other, ctrl) = two_servers().await;
    let get = RestEndpoint::<Value>::builder("/redirect").build().unwrap();
    let todo = ctrl
        .fetch(&get, json!({ "status": 303, "to": "/todos/1" }))
        .await
        .unwrap();
    assert_eq!(todo["id"], 1);
    let hop = RestEndpoint::<Value>::builder("/redirect")
        .method(Method::POST)
        .build()
        .unwrap();
    let body = json!({ "title": "via redirect" });
    let err = ctrl
        .fetch(&hop, json!({ "status": 303, "to": "/todos" }))
        .body(&body)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Transport { message, .. } if message.contains("would resend the POST as a GET")),
        "{err:?}"
    );
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
            ("GET".into(), "/redirect".into(), true),
            ("GET".into(), "/todos/1".into(), true),
            ("POST".into(), "/redirect".into(), false),
            ("POST".into(), "/redirect".into(), false),
            ("POST".into(), "/todos".into(), false),
        ]
    );
    assert_eq!(home.todos().last().unwrap()["title"], "via redirect");
}

/// R-REQ-5 (the Fetch standard's redirects): 301 and 302 resend PUT, PATCH and DELETE with
/// their method and body; only a POST would become a GET. Before, each was resent as a
/// bodiless GET.
#[tokio::test]
async fn r_req_5_301_and_302_keep_a_mutations_method_and_body() {
    let (home, _other, ctrl) = two_servers().await;
    for status in [301u16, 302] {
        for (n, method) in [Method::PUT, Method::PATCH, Method::DELETE].into_iter().enumerate() {
            let id = u64::from(status - 300) * 10 + n as u64;
            let title = format!("{method} after {status}");
            let body = (method != Method::DELETE).then(|| json!({ "title": title }));
            home.clear_requests();
            let hop = RestEndpoint::<Value>::builder("/redirect")
                .method(method.clone())
                .build()
                .unwrap();
            let request = ctrl.fetch(&hop, json!({ "status": status, "to": format!("/todos/{id}") }));
            match &body {
                Some(b) => request.body(b).await,
                None => request.await,
            }
            .unwrap();
            let hops: Vec<(String, String, Option<Value>)> = home
                .requests()
                .iter()
                .map(|r| (r.method.clone(), r.path.clone(), r.json()))
                .collect();
            let m = method.to_string();
            assert_eq!(
                hops,
                [
                    (m.clone(), "/redirect".into(), body.clone()),
                    (m, format!("/todos/{id}"), body.clone())
                ],
                "{status} {method}"
            );
            match body {
                Some(_) => assert_eq!(home.todo(id).unwrap()["title"], title.as_str()),
                None => assert_eq!(home.todo(id), None, "{status}: deleted"),
            }
        }
    }
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

/// Sets the credentials mode and every kind of hook-set credential (`Authorization`, a `Cookie`
/// header, a header marked sensitive), plus an ordinary header.
struct AllCredentials(Credentials);

impl EndpointHooks for AllCredentials {
    fn request_init(&self, init: &mut RequestInit) {
        init.credentials = self.0;
    }
    fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(async move {
            headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer demo-token"));
            headers.insert(COOKIE, HeaderValue::from_static("hook=1"));
            let mut key = HeaderValue::from_static("s3cret");
            key.set_sensitive(true);
            headers.insert("x-api-key", key);
            headers.insert("x-trace", HeaderValue::from_static("t1"));
            Ok(headers)
        })
    }
}

/// The three servers of a matrix row; `Home` is the Controller's `base_url` unless the row has
/// none.
#[derive(Clone, Copy, Debug, PartialEq)]
enum At {
    Home,
    Other,
    Third,
}

/// Where the first request goes.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// A relative path: to `base_url`, the home origin.
    BaseUrl,
    /// `url_prefix` set to the first hop's server, with `base_url` the home origin.
    Prefix,
    /// No `base_url`: `url_prefix` is the home server, so it is the home origin.
    PrefixOnly,
    /// No `base_url` and no `url_prefix`: an absolute template, so there is no home origin.
    NoHome,
}

/// One row: a chain of hops (the first where the request is sent, the others reached by
/// redirects, the last answering `/whoami`) and, per mode, what each hop must receive: `H` the
/// hook-set credentials (or `-`), then `J` the jar's cookie (or `-`), hops separated by spaces.
struct Row {
    name: &'static str,
    start: Start,
    hops: &'static [At],
    omit: &'static str,
    same_origin: &'static str,
    include: &'static str,
}

/// R-REQ-4's table and the sentence after it: SameOrigin sends credentials of every kind (hook
/// set and jar cookies) only on hops to the home origin of a chain that has never been anywhere
/// else, so not on a chain that started abroad or left home, even once it is back; Include
/// sends hook-set credentials to the first origin (every hop that returns to it) and jar
/// cookies by the jar's domain rules (every server here is 127.0.0.1); Omit sends nothing.
#[rustfmt::skip]
const MATRIX: &[Row] = &[
    Row { name: "home, directly", start: Start::BaseUrl, hops: &[At::Home],
          omit: "--", same_origin: "HJ", include: "HJ" },
    Row { name: "another origin by url_prefix", start: Start::Prefix, hops: &[At::Other],
          omit: "--", same_origin: "--", include: "HJ" },
    Row { name: "home -> other", start: Start::BaseUrl, hops: &[At::Home, At::Other],
          omit: "-- --", same_origin: "HJ --", include: "HJ -J" },
    Row { name: "home -> home -> other (cross-origin at the end)", start: Start::BaseUrl,
          hops: &[At::Home, At::Home, At::Other],
          omit: "-- -- --", same_origin: "HJ HJ --", include: "HJ HJ -J" },
    Row { name: "home -> other -> home (cross-origin in the middle)", start: Start::BaseUrl,
          hops: &[At::Home, At::Other, At::Home],
          omit: "-- -- --", same_origin: "HJ -- --", include: "HJ -J HJ" },
    Row { name: "home -> other -> third -> other", start: Start::BaseUrl,
          hops: &[At::Home, At::Other, At::Third, At::Other],
          omit: "-- -- -- --", same_origin: "HJ -- -- --", include: "HJ -J -J -J" },
    Row { name: "other (url_prefix) -> home", start: Start::Prefix, hops: &[At::Other, At::Home],
          omit: "-- --", same_origin: "-- --", include: "HJ -J" },
    Row { name: "other (url_prefix) -> home -> other", start: Start::Prefix,
          hops: &[At::Other, At::Home, At::Other],
          omit: "-- -- --", same_origin: "-- -- --", include: "HJ -J HJ" },
    Row { name: "home from url_prefix, no base_url: home -> other -> home", start: Start::PrefixOnly,
          hops: &[At::Home, At::Other, At::Home],
          omit: "-- -- --", same_origin: "HJ -- --", include: "HJ -J HJ" },
    Row { name: "no home origin: absolute template -> other", start: Start::NoHome, hops: &[At::Home, At::Other],
          omit: "-- --", same_origin: "-- --", include: "HJ -J" },
];

/// `encodeURIComponent`-style escaping, for a URL inside a query parameter.
fn escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The URL of hop `i` of `hops` (absolute), which redirects to hop `i + 1` or answers `/whoami`.
fn hop_url(servers: &[(At, &DemoServer)], hops: &[At], i: usize) -> String {
    let base = |at: At| servers.iter().find(|(a, _)| *a == at).unwrap().1.base_url();
    if i + 1 == hops.len() {
        return format!("{}/whoami", base(hops[i]));
    }
    let status = [307, 302, 308, 301, 303][i % 5];
    format!(
        "{}/redirect?status={status}&to={}",
        base(hops[i]),
        escape(&hop_url(servers, hops, i + 1))
    )
}

#[tokio::test]
async fn r_req_4_credentials_matrix_over_origins_and_redirect_chains() {
    let mut failures = Vec::new();
    for row in MATRIX {
        let home = DemoServer::start().await.unwrap();
        let other = DemoServer::start().await.unwrap();
        let third = DemoServer::start().await.unwrap();
        let servers = [(At::Home, &home), (At::Other, &other), (At::Third, &third)];
        for (mode, expected) in [
            (Credentials::Omit, row.omit),
            (Credentials::SameOrigin, row.same_origin),
            (Credentials::Include, row.include),
        ] {
            for (_, s) in &servers {
                s.clear_requests();
            }
            // The jar holds a cookie for the home server's host (127.0.0.1, any port).
            let jar = std::sync::Arc::new(restcache::reqwest::cookie::Jar::default());
            jar.add_cookie_str("jar=1; Path=/", &home.base_url().parse().unwrap());
            let mut builder = Controller::builder().cookie_provider(jar);
            if matches!(row.start, Start::BaseUrl | Start::Prefix) {
                builder = builder.base_url(home.base_url());
            }
            let ctrl = builder.build().unwrap();
            // The first hop: `/redirect` to the second (or `/whoami` if it is the only one), at
            // the first server as the row's start says.
            let (path, args) = match row.hops {
                [_] => ("/whoami", json!({})),
                _ => (
                    "/redirect",
                    json!({ "status": 307, "to": hop_url(&servers, row.hops, 1) }),
                ),
            };
            let first = servers.iter().find(|(a, _)| *a == row.hops[0]).unwrap().1.base_url();
            let (prefix, path) = match row.start {
                Start::BaseUrl => (String::new(), path.to_owned()),
                Start::Prefix | Start::PrefixOnly => (first, path.to_owned()),
                Start::NoHome => (String::new(), format!("{}{path}", first.replace(':', r"\:"))),
            };
            let ep = RestEndpoint::<Value>::builder(&path)
                .url_prefix(&prefix)
                .hooks(AllCredentials(mode))
                .build()
                .unwrap();
            if let Err(e) = ctrl.fetch(&ep, &args).await {
                failures.push(format!("{} / {mode:?}: the request failed: {e}", row.name));
                continue;
            }
            // Each server's log holds its hops, in order, and nothing else.
            for (at, server) in &servers {
                let visits = row.hops.iter().filter(|a| *a == at).count();
                if server.requests().len() != visits {
                    failures.push(format!(
                        "{} / {mode:?}: {at:?} saw {:?}, expected {visits} hops",
                        row.name,
                        server.requests().iter().map(|r| r.uri()).collect::<Vec<_>>()
                    ));
                }
            }
            for (i, (at, want)) in row.hops.iter().zip(expected.split(' ')).enumerate() {
                let nth = row.hops[..i].iter().filter(|a| *a == at).count();
                let server = servers.iter().find(|(a, _)| a == at).unwrap().1;
                let Some(req) = server.requests().get(nth).cloned() else {
                    failures.push(format!("{} / {mode:?}: hop {i} never reached {at:?}", row.name));
                    continue;
                };
                let cookie = req.header("cookie").unwrap_or("");
                let hook = [
                    req.header("authorization").is_some(),
                    req.header("x-api-key").is_some(),
                    cookie.contains("hook=1"),
                ];
                let got: String = [(hook[0], 'H'), (cookie.contains("jar=1"), 'J')]
                    .iter()
                    .map(|&(sent, c)| if sent { c } else { '-' })
                    .collect();
                // All hook-set credentials go together, and ordinary headers go everywhere.
                if got != want || hook.iter().any(|&h| h != hook[0]) || req.header("x-trace").is_none() {
                    failures.push(format!(
                        "{} / {mode:?}: hop {i} ({at:?} {}) expected {want}, got {got} \
                         (authorization {:?}, x-api-key {:?}, cookie {:?}, x-trace {:?})",
                        row.name,
                        req.path,
                        req.header("authorization"),
                        req.header("x-api-key"),
                        req.header("cookie"),
                        req.header("x-trace"),
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "credentials went where R-REQ-4 forbids, or not where it allows:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn r_req_4_set_cookie_from_another_origin_after_a_redirect_is_stored_only_with_include() {
    for (mode, home_gets) in [
        (Credentials::Omit, None),
        (Credentials::SameOrigin, None),
        (Credentials::Include, Some("session=demo")),
    ] {
        let home = DemoServer::start().await.unwrap();
        let other = DemoServer::start().await.unwrap();
        let ctrl = Controller::builder()
            .base_url(home.base_url())
            .credentials(mode)
            .cookie_store(true)
            .build()
            .unwrap();
        // POST home /redirect -307-> POST other /login, which answers `Set-Cookie: session=demo`.
        let hop = RestEndpoint::<Value>::builder("/redirect")
            .method(Method::POST)
            .build()
            .unwrap();
        let to = format!("{}/login", other.base_url());
        ctrl.fetch(&hop, json!({ "status": 307, "to": to }))
            .body(&json!({}))
            .await
            .unwrap();
        assert_eq!(
            other.requests()[0].path,
            "/login",
            "{mode:?}: the redirect was followed"
        );
        // The cookie is for 127.0.0.1, so the home server would get it if it had been stored.
        let whoami = RestEndpoint::<Value>::builder("/whoami").build().unwrap();
        let seen = ctrl.fetch(&whoami, ()).await.unwrap();
        assert_eq!(seen["cookie"].as_str(), home_gets, "{mode:?}");
    }
}

/// R-REQ-4, SameOrigin: once a request's chain has been anywhere but the home origin (its first
/// hop included), no credential of any kind goes on any later hop, even one that is back home.
/// The hostile case: a request sent abroad through an absolute `url_prefix` is redirected home
/// with a 307, which keeps the method and body; the home origin must not receive it with the
/// home session cookie or the hook's credentials, which would let the other origin forge a
/// credentialed mutation.
#[tokio::test]
async fn r_req_4_no_credential_goes_on_a_chain_that_left_or_started_outside_home() {
    let (home, other, ctrl) = two_servers_with(|b| b.cookie_store(true)).await;
    let login = RestEndpoint::<Value>::builder("/login")
        .method(Method::POST)
        .build()
        .unwrap();
    ctrl.fetch(&login, ()).await.unwrap();
    home.clear_requests();

    // Started abroad: other -307-> home, a PATCH with its body.
    let abroad = RestEndpoint::<Value>::builder("/redirect")
        .url_prefix(other.base_url())
        .method(Method::PATCH)
        .hooks(AllCredentials(Credentials::SameOrigin))
        .build()
        .unwrap();
    let to = format!("{}/todos/1", home.base_url());
    ctrl.fetch(&abroad, json!({ "status": 307, "to": to }))
        .body(&json!({ "title": "forged" }))
        .await
        .unwrap();
    let landed = home.requests();
    assert_eq!(landed.len(), 1, "the redirect was followed home");
    assert_eq!(
        (landed[0].method.as_str(), landed[0].path.as_str()),
        ("PATCH", "/todos/1")
    );
    for name in ["cookie", "authorization", "x-api-key"] {
        assert_eq!(landed[0].header(name), None, "started abroad: no {name} at home");
    }
    assert!(landed[0].header("x-trace").is_some(), "ordinary headers still go");

    // Left and came back: home -307-> other -307-> home.
    home.clear_requests();
    let back = format!("{}/whoami", home.base_url());
    let via_other = format!("{}/redirect?status=307&to={}", other.base_url(), escape(&back));
    let round_trip = RestEndpoint::<Value>::builder("/redirect")
        .hooks(AllCredentials(Credentials::SameOrigin))
        .build()
        .unwrap();
    let seen = ctrl
        .fetch(&round_trip, json!({ "status": 307, "to": via_other }))
        .await
        .unwrap();
    assert_eq!(
        *seen,
        json!({ "authorization": null, "cookie": null }),
        "left home: nothing on the way back"
    );
    let first = &home.requests()[0];
    assert_eq!(first.path, "/redirect");
    assert!(
        first.header("cookie").is_some_and(|c| c.contains("session=demo")),
        "the first hop is home"
    );
    assert!(first.header("authorization").is_some(), "the first hop is home");
}

/// R-REQ-4, SameOrigin: a `Set-Cookie` answered by the home origin on a hop of a chain that
/// started abroad, or left home, is not stored, just as that hop carried no cookie.
#[tokio::test]
async fn r_req_4_set_cookie_is_not_stored_from_home_on_a_chain_that_left_it() {
    let (home, other, ctrl) = two_servers_with(|b| b.cookie_store(true)).await;
    let home_login = format!("{}/login", home.base_url());
    // other -307-> home /login, and home -307-> other -307-> home /login.
    let via_other = format!("{}/redirect?status=307&to={}", other.base_url(), escape(&home_login));
    for (prefix, to) in [(other.base_url(), home_login.clone()), (String::new(), via_other)] {
        let hop = RestEndpoint::<Value>::builder("/redirect")
            .url_prefix(&prefix)
            .method(Method::POST)
            .build()
            .unwrap();
        ctrl.fetch(&hop, json!({ "status": 307, "to": to }))
            .body(&json!({}))
            .await
            .unwrap();
        assert_eq!(
            home.requests().last().unwrap().path,
            "/login",
            "{prefix:?}: followed home"
        );
        let whoami = RestEndpoint::<Value>::builder("/whoami").build().unwrap();
        let seen = ctrl.fetch(&whoami, ()).await.unwrap();
        assert_eq!(
            seen["cookie"],
            Value::Null,
            "{prefix:?}: the session cookie was not stored"
        );
    }
}

/// Sends a bearer token, and asks for the one retry a response hook may ask for after a 401.
struct RetryOn401(Credentials);

impl EndpointHooks for RetryOn401 {
    fn request_init(&self, init: &mut RequestInit) {
        init.credentials = self.0;
    }
    fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(async move {
            headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer demo-token"));
            Ok(headers)
        })
    }
    fn response<'a>(&'a self, head: &'a ResponseHead) -> BoxFuture<'a, AfterResponse> {
        Box::pin(async move {
            match head.status().as_u16() {
                401 => AfterResponse::Retry,
                _ => AfterResponse::Continue,
            }
        })
    }
}

/// R-REQ-4: a response hook's retry sends the request again from its start, through the same
/// redirects, not straight to where the chain ended: a 401 from another origin must not draw
/// the credentials there (Include), nor to a home URL the chain reached after leaving home
/// (SameOrigin).
#[tokio::test]
async fn r_req_4_a_hook_retry_after_a_redirect_starts_from_the_first_hop() {
    for mode in [Credentials::Include, Credentials::SameOrigin] {
        let (home, other, ctrl) = two_servers().await;
        let hop = RestEndpoint::<Value>::builder("/redirect")
            .hooks(RetryOn401(mode))
            .build()
            .unwrap();
        // Include: home -> other/me. SameOrigin: home -> other -> home/me.
        let to = match mode {
            Credentials::Include => format!("{}/me", other.base_url()),
            _ => format!(
                "{}/redirect?status=302&to={}",
                other.base_url(),
                escape(&format!("{}/me", home.base_url()))
            ),
        };
        let failed = ctrl.fetch(&hop, json!({ "status": 302, "to": to })).await.unwrap_err();
        assert_eq!(failed.status().map(|s| s.as_u16()), Some(401), "{mode:?}");
        let at_me = [&home, &other].map(|s| credentials_seen(s, "/me")).concat();
        assert_eq!(
            at_me,
            [(false, false, false); 2],
            "{mode:?}: no credential on a retry either"
        );
        assert_eq!(
            credentials_seen(&home, "/redirect")[..2],
            [(true, false, false); 2],
            "{mode:?}: the retry starts at home again"
        );
    }
}
