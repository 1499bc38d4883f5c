//! Tracing (issue #24, item 6): one span per request with method, url, key, status, entities
//! written and duration; events for invalidation, expiry, optimistic commit and rollback, and retries;
//! all at the debug and trace levels.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use demo_api::{DemoServer, Fault};
use restcache::prelude::*;
use restcache::rest::Retry;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

use crate::fixtures::*;

/// A span or an event restcache emitted: its name (a span's) or message (an event's), level
/// and fields.
#[derive(Clone, Debug)]
struct Seen {
    span: bool,
    name: String,
    level: Level,
    fields: BTreeMap<String, String>,
}

/// A subscriber that keeps what restcache emits, at every level.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Seen>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("restcache")
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        let mut seen = self.0.lock().unwrap();
        seen.push(Seen {
            span: true,
            name: span.metadata().name().to_owned(),
            level: *span.metadata().level(),
            fields,
        });
        Id::from_u64(seen.len() as u64)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut seen = self.0.lock().unwrap();
        let index = usize::try_from(span.into_u64()).unwrap() - 1;
        values.record(&mut Fields(&mut seen[index].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let name = fields.remove("message").unwrap_or_default();
        self.0.lock().unwrap().push(Seen {
            span: false,
            name,
            level: *event.metadata().level(),
            fields,
        });
    }

    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

impl Capture {
    /// Installs this capture as the thread's subscriber (see the binary's doc, `tests/traces.rs`,
    /// for why these tests run apart from the others).
    fn install(&self) -> tracing::subscriber::DefaultGuard {
        tracing::subscriber::set_default(self.clone())
    }

    fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    fn events(&self, message: &str) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| !s.span && s.name == message)
            .collect()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn r_trace_one_span_per_request_with_method_url_key_status_entities_and_duration() {
    let capture = Capture::default();
    let _default = capture.install();
    let (server, ctrl) = setup().await;
    let list = ctrl.fetch(&todos().get_list(), params! { userId: "u1" }).await.unwrap();
    server.inject("/todos/1", Fault::Status(404));
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap_err();
    ctrl.fetch(&todos().delete(), params! { id: 3 }).await.unwrap();

    let spans: Vec<Seen> = capture
        .seen()
        .into_iter()
        .filter(|s| s.span && s.name == "fetch")
        .collect();
    assert_eq!(spans.len(), 3, "one span per request: {spans:#?}");
    let ok = &spans[0].fields;
    assert_eq!(ok["method"], "GET");
    assert_eq!(ok["url"], "/todos?userId=u1");
    assert_eq!(ok["key"], "GET /todos?userId=u1");
    assert_eq!(ok["status"], "200");
    assert_eq!(ok["entities"], list.len().to_string());
    assert_eq!(ok["invalidated"], "0");
    assert!(ok.contains_key("duration_ms"), "{ok:?}");
    let failed = &spans[1].fields;
    assert_eq!(failed["status"], "404");
    assert!(failed["error"].contains("HTTP 404"), "{failed:?}");
    assert!(failed.contains_key("duration_ms"));
    let deleted = &spans[2].fields;
    assert_eq!(
        (deleted["method"].as_str(), deleted["status"].as_str()),
        ("DELETE", "204")
    );
    assert_eq!(
        (deleted["entities"].as_str(), deleted["invalidated"].as_str()),
        ("0", "1")
    );
    assert!(spans.iter().all(|s| s.level == Level::DEBUG));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn r_trace_events_for_invalidation_expiry_optimistic_updates_and_retries_at_debug_or_trace() {
    let capture = Capture::default();
    let _default = capture.install();
    let server = DemoServer::start_on_thread().unwrap();
    let client = restcache::reqwest::Client::builder()
        .redirect(restcache::reqwest::redirect::Policy::none())
        .pool_idle_timeout(None)
        .build()
        .unwrap();
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .client(client)
        .timeout(None)
        .retry(Retry::new(1, Duration::from_millis(100)))
        .build()
        .unwrap();
    let get = todos().get();

    server.inject("/todos/1", Fault::Status(503));
    ctrl.fetch(&get, params! { id: 1 }).await.unwrap();
    let retries = capture.events("retrying after a failure that may pass");
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].fields["retry"], "1");

    ctrl.expire_all(&get);
    assert_eq!(
        capture.events("expired the keys a matcher selects")[0].fields["count"],
        "1"
    );
    ctrl.suspense(&get, params! { id: 1 }).await.unwrap();
    assert_eq!(
        capture.events("stale: served, and refetched in the background").len(),
        1
    );
    ctrl.invalidate(&get, params! { id: 1 }).unwrap();
    assert_eq!(capture.events("invalidated")[0].fields["key"], "GET /todos/1");
    ctrl.invalidate_all(&get);
    assert_eq!(capture.events("invalidated the keys a matcher selects").len(), 1);

    let optimistic = optimistic_todos();
    ctrl.fetch(&optimistic.partial_update(), params! { id: 2 })
        .body(&json!({ "title": "kept" }))
        .await
        .unwrap();
    assert_eq!(
        capture.events("optimistic update committed")[0].fields["key"],
        "PATCH /todos/2"
    );
    server.inject("/todos/2", Fault::Status(500));
    ctrl.fetch(&optimistic.partial_update(), params! { id: 2 })
        .body(&json!({ "title": "undone" }))
        .await
        .unwrap_err();
    let rolled_back = capture.events("optimistic update rolled back");
    assert_eq!(rolled_back.len(), 1);
    assert!(rolled_back[0].fields["error"].contains("HTTP 500"));

    ctrl.reset();
    assert_eq!(
        capture
            .events("reset: the cache is empty and GETs in flight are aborted")
            .len(),
        1
    );
    let seen = capture.seen();
    assert!(
        seen.iter().all(|s| s.level == Level::DEBUG || s.level == Level::TRACE),
        "only debug and trace: {seen:#?}"
    );
}

/// R-OPTM-2: a layer that cannot be computed is skipped with a warning: an optimistic update
/// whose body is not an object has no value to show.
#[tokio::test(flavor = "current_thread")]
async fn r_optm_2_a_layer_that_cannot_be_computed_is_skipped_with_a_warning() {
    let capture = Capture::default();
    let _default = capture.install();
    let (_server, ctrl) = setup().await;
    let optimistic = optimistic_todos();
    let before = ctrl.suspense(&optimistic.get(), params! { id: 2 }).await.unwrap();
    let update = ctrl.fetch(&optimistic.update(), params! { id: 2 });
    let outcome = update.body(&json!(["not", "an", "object"])).await;
    let skipped = capture.events("optimistic layer skipped");
    assert_eq!(skipped.len(), 1, "{:#?}", capture.seen());
    assert_eq!(skipped[0].level, Level::WARN);
    assert_eq!(skipped[0].fields["key"], "PUT /todos/2");
    assert!(skipped[0].fields["error"].contains("object"), "{:?}", skipped[0].fields);
    let after = ctrl.get_response(&optimistic.get(), params! { id: 2 }).unwrap();
    assert_eq!(after.data.as_deref(), Some(&*before), "{outcome:?}");
}
