//! R-ERR-1, R-POL-1, R-REQ-5: errors read the way reqwest's do. An HTTP error answer is
//! `Error::Status`, whose `status()` is the `StatusCode`; a failure with no answer is
//! `Error::Transport`, whose `source()` is reqwest's own error, and `is_timeout()` and
//! `is_connect()` say which kind of failure it was.
//!
//! The servers run on their own threads in real time; the test's clock is paused only once a
//! request that will never be answered is at the server, so the 30 s timeout fires at once.

use std::error::Error as _;
use std::time::Duration;

use demo_api::{DemoServer, Fault};
use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;

use crate::fixtures::*;

const PATH: &str = "/todos/15";

/// The reqwest error behind `err`, through `std::error::Error::source`.
fn reqwest_source(err: &Error) -> Option<&restcache::reqwest::Error> {
    err.source()?.downcast_ref::<restcache::reqwest::Error>()
}

#[tokio::test]
async fn r_err_status_accessor_gives_the_http_status() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let missing = ctrl.fetch(&todos().get(), params! { id: 999 }).await.unwrap_err();
    assert!(
        matches!(&missing, Error::Status { status: StatusCode::NOT_FOUND, url, .. }
            if *url == format!("{}/todos/999", server.base_url())),
        "{missing:?}"
    );
    assert_eq!(missing.status(), Some(StatusCode::NOT_FOUND));
    assert!(!missing.is_soft() && !missing.is_timeout() && !missing.is_connect());
    assert!(missing.source().is_none(), "an answer is not a transport failure");
    assert_eq!(
        missing.to_string(),
        format!("HTTP 404 from {}/todos/999", server.base_url())
    );

    server.inject(PATH, Fault::Status(503));
    let unavailable = ctrl.fetch(&todos().get(), params! { id: 15 }).await.unwrap_err();
    assert_eq!(unavailable.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert!(unavailable.is_soft());
    assert!(matches!(&unavailable, Error::Status { body, .. } if body.contains("injected 503")));

    server.inject(PATH, Fault::CloseMidBody);
    let cut = ctrl.fetch(&todos().get(), params! { id: 15 }).await.unwrap_err();
    assert_eq!(cut.status(), None, "no status without a whole answer: {cut:?}");
    assert_eq!(Error::Reset.status(), None);
}

#[tokio::test]
async fn r_err_transport_keeps_reqwest_as_its_source() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    server.inject(PATH, Fault::CloseMidBody);
    let err = ctrl.fetch(&todos().get(), params! { id: 15 }).await.unwrap_err();
    let Error::Transport {
        url,
        message,
        timed_out,
        source,
        ..
    } = &err
    else {
        panic!("a connection closed mid-body is a transport failure: {err:?}");
    };
    assert_eq!(*url, format!("{}{PATH}", server.base_url()));
    assert!(!timed_out);
    let reqwest_error = reqwest_source(&err).expect("source() is reqwest's error");
    assert!(
        !reqwest_error.is_timeout() && !reqwest_error.is_connect(),
        "{reqwest_error:?}"
    );
    assert_eq!(
        source.as_deref().map(ToString::to_string),
        Some(reqwest_error.to_string())
    );
    // The message still states reqwest's whole cause chain, and the chain stays reachable.
    assert!(message.starts_with(&reqwest_error.to_string()), "{message}");
    assert!(
        reqwest_error.source().is_some(),
        "reqwest's own causes are kept: {reqwest_error:?}"
    );
    // Errors shared by waiters are clones, and equal.
    assert_eq!(err.clone(), err);
    assert!(reqwest_source(&err.clone()).is_some());
}

#[tokio::test]
async fn r_err_a_timeout_is_timeout() {
    for fault in [Fault::Hang, Fault::EndlessBody] {
        let server = DemoServer::start_on_thread().unwrap();
        let ctrl = controller(&server, |b| b.timeout(Duration::from_secs(30)));
        server.inject(PATH, fault.clone());
        let failing = spawn_fetch(ctrl.fetch(&todos().get(), params! { id: 15 }));
        server.wait_for_requests(1).await;
        tokio::time::pause();
        let err = failing.await.unwrap().unwrap_err();
        tokio::time::resume();
        assert!(
            matches!(&err, Error::Transport { timed_out: true, .. }),
            "{fault:?}: {err:?}"
        );
        assert!(err.is_timeout(), "{fault:?}: {err:?}");
        assert!(!err.is_connect() && err.status().is_none(), "{fault:?}: {err:?}");
        assert!(err.is_soft());
    }
}

#[tokio::test]
async fn r_err_a_refused_connection_is_connect() {
    let server = DemoServer::start_on_thread().unwrap();
    let ctrl = controller(&server, |b| b);
    let url = format!("{}{PATH}", server.base_url());
    // Dropping a thread server joins its thread: nothing listens on the port any more.
    drop(server);
    let err = ctrl.fetch(&todos().get(), params! { id: 15 }).await.unwrap_err();
    assert!(
        matches!(&err, Error::Transport { url: u, timed_out: false, .. } if *u == url),
        "{err:?}"
    );
    assert!(err.is_connect(), "{err:?}");
    assert!(!err.is_timeout() && err.status().is_none(), "{err:?}");
    assert!(reqwest_source(&err).is_some_and(|e| e.is_connect()), "{err:?}");
}
