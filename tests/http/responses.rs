//! R-RESP-1..6, R-RES-2, R-RES-7, R-REQ-2: what comes back, and what is refused before sending.

use std::time::Duration;

use demo_api::DemoServer;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use restcache::{Error, Method};
use serde_json::{Value, json};

use crate::fixtures::*;

fn at<S: restcache::schema::Schema>(path: &str) -> RestEndpoint<S> {
    RestEndpoint::<S>::builder(path).build().unwrap()
}

#[tokio::test]
async fn r_resp_1_a_non_2xx_status_is_a_network_error_recorded_under_the_key() {
    let (server, ctrl) = setup().await;
    for (path, status) in [
        ("/misbehave/500", 500u16),
        ("/misbehave/404", 404),
        ("/misbehave/not-modified", 304),
    ] {
        let ep = at::<Value>(path);
        let err = ctrl.fetch(&ep, ()).await.unwrap_err();
        match &err {
            Error::Status {
                status: s,
                url,
                body,
                retry_after: None,
            } => {
                assert_eq!(*s, status);
                assert_eq!(url, &format!("{}{path}", server.base_url()));
                assert!(status == 304 || body.contains("error"), "{body}");
            }
            other => panic!("{path}: {other:?}"),
        }
        let cached = ctrl.get_response(&ep, ()).unwrap();
        assert_eq!(cached.error, Some(err));
        assert!(cached.data.is_none());
    }
}

#[tokio::test]
async fn r_resp_2_empty_bodies_are_null() {
    let (_server, ctrl) = setup().await;
    assert_eq!(
        *ctrl
            .fetch(&at::<Option<Todo>>("/misbehave/whitespace"), ())
            .await
            .unwrap(),
        None
    );
    let deleted = ctrl.fetch(&todos().delete(), params! { id: 1 }).await.unwrap();
    assert_eq!(*deleted, "1");
}

#[tokio::test]
async fn r_resp_3_content_types() {
    let (_server, ctrl) = setup().await;
    let err = ctrl.fetch(&at::<Value>("/misbehave/html"), ()).await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { content_type: Some(ct), .. } if ct.starts_with("text/html")),
        "{err:?}"
    );
    assert_eq!(
        *ctrl
            .fetch(&at::<Value>("/misbehave/no-content-type-json"), ())
            .await
            .unwrap(),
        json!({ "id": 1 })
    );
    assert!(ctrl.fetch(&at::<Value>("/misbehave/problem-json"), ()).await.is_ok());
    let err = ctrl.fetch(&at::<Value>("/misbehave/truncated"), ()).await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { message, content_type: Some(_), .. } if message.contains("EOF")),
        "{err:?}"
    );
    // The schema `()` ignores the body, whatever it is.
    ctrl.fetch(&at::<()>("/misbehave/html"), ()).await.unwrap();
}

/// R-RESP-3: a body is JSON only under the media type `application/json` or a `+json` suffix
/// (case-insensitive, parameters ignored); a media type that merely contains `json` is refused
/// with `Error::Decode` naming it. A missing `Content-Type` stays accepted (above).
#[tokio::test]
async fn r_resp_3_only_a_json_media_type_or_suffix_is_read_as_json() {
    let (server, ctrl) = setup().await;
    let todo = at::<Value>("/todos/1");
    let body = r#"{"id": 1}"#;
    let answer = |content_type: &str| {
        server.inject(
            "/todos/1",
            demo_api::Fault::Raw {
                content_type: content_type.into(),
                body: body.into(),
            },
        );
        ctrl.fetch(&todo, ())
    };
    for json in [
        "application/json",
        "Application/JSON; charset=utf-8",
        " application/json ;charset=utf-8",
        "application/vnd.api+json",
        "application/problem+JSON; profile=x",
    ] {
        assert_eq!(*answer(json).await.unwrap(), json!({ "id": 1 }), "{json:?}");
    }
    for other in [
        "application/notjson-at-all",
        "application/jsonp",
        "application/json-seq",
        "text/x-json-ish",
        "application/+json",
        "json",
    ] {
        let err = answer(other).await.unwrap_err();
        assert!(
            matches!(&err, Error::Decode { content_type: Some(ct), message, .. }
                if ct == other && message.contains("JSON content type")),
            "{other:?}: {err:?}"
        );
    }
}

/// R-ERR-1: a decode or schema error names the absolute URL, like every other error over
/// HTTP, even for a relative member URL resolved against `base_url`; so does `set_response`'s,
/// whose URL is the key's.
#[tokio::test]
async fn r_err_1_decode_errors_name_the_absolute_url() {
    let (server, ctrl) = setup().await;
    let url = format!("{}/todos/15", server.base_url());
    let get = todos().get();
    let faults = [
        demo_api::Fault::Truncated,
        demo_api::Fault::Json(json!({ "id": 15, "userId": "u2", "title": "t", "completed": "yes" })),
        demo_api::Fault::Json(json!({ "userId": "u2", "title": "no pk" })),
    ];
    for fault in faults {
        server.inject("/todos/15", fault.clone());
        let err = ctrl.fetch(&get, params! { id: 15 }).await.unwrap_err();
        assert!(
            matches!(&err, Error::Decode { url: u, .. } | Error::InvalidResponse { url: u, .. } if *u == url),
            "{fault:?}: {err:?}"
        );
    }
    for bad in [
        json!({ "id": 15, "userId": "u2", "title": "t", "completed": "yes" }),
        json!({ "userId": "u2", "title": "no pk" }),
    ] {
        let err = ctrl.set_response(&get, params! { id: 15 }, &bad).unwrap_err();
        assert!(
            matches!(&err, Error::Decode { url: u, .. } | Error::InvalidResponse { url: u, .. } if *u == url),
            "set_response {bad}: {err:?}"
        );
    }
}

#[tokio::test]
async fn r_resp_4_bodies_over_the_limit_and_json_too_deep() {
    let server = DemoServer::start().await.unwrap();
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .max_response_bytes(1000)
        .build()
        .unwrap();
    for path in ["/misbehave/huge", "/misbehave/huge-chunked"] {
        let err = ctrl
            .fetch(&at::<Value>(path), json!({ "bytes": 5000 }))
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::ResponseTooLarge { limit: 1000, .. }),
            "{path}: {err:?}"
        );
    }
    assert!(
        ctrl.fetch(&at::<Value>("/misbehave/huge"), json!({ "bytes": 900 }))
            .await
            .is_ok()
    );
    let err = ctrl
        .fetch(&at::<Value>("/misbehave/deep"), json!({ "depth": 200 }))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { message, .. } if message.contains("nesting limit")),
        "{err:?}"
    );
    assert!(
        ctrl.fetch(&at::<Value>("/misbehave/deep"), json!({ "depth": 100 }))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn r_resp_5_an_empty_put_or_patch_answer_stands_for_args_and_body() {
    let (_server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 4 }).await.unwrap();
    // A 204, an empty 200 and a `null` 200 are each the empty answer.
    for (respond, completed) in [("empty", true), ("blank", false), ("null", true)] {
        let patched = ctrl
            .fetch(&todos().partial_update(), params! { id: 4, respond: respond })
            .body(&json!({ "completed": completed }))
            .await
            .unwrap();
        assert_eq!(patched.completed, completed, "{respond}");
        let cached = ctrl
            .get_response(&todos().get(), params! { id: 4 })
            .unwrap()
            .data
            .unwrap();
        assert_eq!(
            (cached.title.as_str(), cached.completed),
            ("Todo 4", completed),
            "the PATCH merge keeps unsent fields ({respond})"
        );
    }
}

#[tokio::test]
async fn r_resp_6_delete_answered_by_pk_object_or_nothing() {
    let (_server, ctrl) = setup().await;
    // Bare pk string: DELETE /feed/:id answers "3".
    let feed = restcache::Resource::<FeedItem>::new(restcache::rest::ResourceOptions {
        path: "/feed/:id".into(),
        ..Default::default()
    })
    .unwrap();
    ctrl.fetch(&feed.get_list(), ()).await.unwrap();
    assert_eq!(*ctrl.fetch(&feed.delete(), params! { id: 3 }).await.unwrap(), "3");
    assert_eq!(ctrl.get_response(&feed.get_list(), ()).unwrap().data.unwrap().len(), 6);
    // The deleted object: DELETE /users/:id answers the user.
    ctrl.fetch(&users().get_list(), ()).await.unwrap();
    assert_eq!(
        *ctrl.fetch(&users().delete(), params! { id: "u2" }).await.unwrap(),
        "u2"
    );
    let left = ctrl.get_response(&users().get_list(), ()).unwrap().data.unwrap();
    assert_eq!(left.iter().map(|u| u.id.as_str()).collect::<Vec<_>>(), ["u1", "u3"]);
    // Nothing (204): the args name the entity.
    ctrl.fetch(&todos().get_list(), params! { userId: "u3" }).await.unwrap();
    ctrl.fetch(&todos().delete(), params! { id: 21 }).await.unwrap();
    assert_eq!(
        ctrl.get_response(&todos().get_list(), params! { userId: "u3" })
            .unwrap()
            .data
            .unwrap()
            .len(),
        9
    );
}

#[tokio::test]
async fn r_res_7_batch_deletion_sends_the_ids_and_invalidates_them() {
    let (server, ctrl) = setup().await;
    let delete_many = RestEndpoint::<Vec<Invalidate<Todo>>>::builder("/todos")
        .method(Method::DELETE)
        .build()
        .unwrap();
    ctrl.fetch(&todos().get_list(), ()).await.unwrap();
    server.clear_requests();
    let gone = ctrl
        .fetch(&delete_many, params! {})
        .body(&["5", "13", "7"])
        .await
        .unwrap();
    assert_eq!(*gone, ["5", "13", "7"]);
    let req = only_request(&server);
    assert_eq!((req.method.as_str(), req.uri().as_str()), ("DELETE", "/todos"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.json(), Some(json!(["5", "13", "7"])));
    let left = ctrl.get_response(&todos().get_list(), ()).unwrap().data.unwrap();
    assert_eq!(left.len(), 27);
    assert!(!ids(&left).iter().any(|id| [5, 13, 7].contains(id)));
}

#[tokio::test]
async fn r_res_2_a_body_on_a_get_is_refused_before_sending() {
    let (server, ctrl) = setup().await;
    let err = ctrl
        .fetch(&todos().get(), params! { id: 1 })
        .body(&json!({ "x": 1 }))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgs { .. }));
    assert!(server.requests().is_empty());
    assert_eq!(ctrl.inspect()["meta"], json!([]), "nothing recorded");
}

#[tokio::test]
async fn r_path_3_a_missing_parameter_is_refused_before_sending() {
    let (server, ctrl) = setup().await;
    let err = ctrl.fetch(&todos().get(), params! {}).await.unwrap_err();
    assert!(
        matches!(&err, Error::MissingParam { name, .. } if name == "id"),
        "{err:?}"
    );
    // A slash in a value is encoded, so the request stays on this resource (a 404 here).
    let err = ctrl
        .fetch(&todos().get(), params! { id: "../users" })
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::NOT_FOUND), "{err:?}");
    let err = ctrl.fetch(&todos().get(), params! { id: ".." }).await.unwrap_err();
    assert!(matches!(err, Error::InvalidParam { .. }));
    assert!(
        server.requests().iter().all(|r| r.path.starts_with("/todos/")),
        "never another resource"
    );
}

#[tokio::test]
async fn r_req_2_a_relative_url_needs_a_base_url() {
    let ctrl = Controller::new();
    let err = ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidConfig { reason } if reason.contains("no base_url")),
        "{err:?}"
    );
    assert!(matches!(
        Controller::builder().base_url("ftp://x").build(),
        Err(Error::InvalidConfig { .. })
    ));
}

/// R-REQ-2: a member's path is appended to `base_url`, which a query or fragment would end
/// up in front of: such a `base_url` is refused when the Controller is built.
#[test]
fn r_req_2_a_base_url_with_a_query_or_fragment_is_refused_at_build() {
    for base in [
        "http://127.0.0.1:9/api?key=1",
        "http://127.0.0.1:9/api#top",
        "http://127.0.0.1:9/?",
    ] {
        let err = Controller::builder().base_url(base).build().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidConfig { reason } if reason.contains("query or fragment")),
            "{base}: {err:?}"
        );
    }
    assert!(
        Controller::builder()
            .base_url("http://127.0.0.1:9/api/")
            .build()
            .is_ok()
    );
}

#[test]
fn r_req_5_a_zero_timeout_is_refused_at_build() {
    let err = Controller::builder().timeout(Duration::ZERO).build().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidConfig { reason } if reason.contains("timeout")),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn r_req_5_a_timeout_is_a_transport_error() {
    // The server runs on its own thread in real time; this test's clock is paused, so the client
    // timeout fires as soon as the runtime is idle, without waiting.
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let err = ctrl
        .fetch(&at::<Value>("/misbehave/slow"), json!({ "ms": 600_000 }))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(err.is_soft());
}

#[tokio::test]
async fn r_inv_1_a_deleted_object_whose_type_matches_no_variant_invalidates_nothing() {
    let (server, ctrl) = setup().await;
    let feed = restcache::Resource::<FeedItem>::new(restcache::rest::ResourceOptions {
        path: "/feed/:id".into(),
        ..Default::default()
    })
    .unwrap();
    ctrl.fetch(&feed.get_list(), ()).await.unwrap();
    // The server answers a delete with an object of a type the union does not know, whose pk
    // a link also has.
    server.inject(
        "/feed/7",
        demo_api::Fault::Json(serde_json::json!({ "id": 1, "type": "video" })),
    );
    ctrl.fetch(&feed.delete(), params! { id: 7 }).await.unwrap();
    let list = ctrl.get_response(&feed.get_list(), ()).unwrap().data.unwrap();
    assert_eq!(list.len(), 7, "nothing was invalidated: {list:?}");
    assert!(matches!(&list[0], FeedItem::Link(l) if l.id == 1));
    let snapshot = ctrl.inspect();
    for table in ["Link", "Post"] {
        let rows = snapshot["entities"][table]["rows"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["record"] != "INVALID"), "{table}: {rows:?}");
    }
}
