//! The demo API's todos, Controllers pointed at a server, and snapshot comparisons.
#![allow(dead_code)]

use std::sync::Arc;

use demo_api::DemoServer;
use restcache::controller::{ControllerBuilder, FetchRequest};
use restcache::prelude::*;
use restcache::rest::ResourceOptions;
use restcache::schema::Schema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    #[entity(pk)]
    pub id: u64,
    pub user_id: String,
    pub title: String,
    pub completed: bool,
}

/// `/todos/:id`.
pub fn todos() -> Resource<Todo> {
    Resource::new(ResourceOptions {
        path: "/todos/:id".into(),
        ..Default::default()
    })
    .expect("valid resource")
}

/// `/todos/:id`, optimistic.
pub fn optimistic_todos() -> Resource<Todo> {
    Resource::new(ResourceOptions {
        path: "/todos/:id".into(),
        optimistic: true,
        ..Default::default()
    })
    .expect("valid resource")
}

/// A client that follows no redirect (the Controller does) and keeps no idle-connection timer,
/// so a paused clock only jumps for the timers a test sets (see `tests/controller/fixtures.rs`).
pub fn client() -> restcache::reqwest::Client {
    restcache::reqwest::Client::builder()
        .redirect(restcache::reqwest::redirect::Policy::none())
        .pool_idle_timeout(None)
        .build()
        .expect("client")
}

/// A Controller for `server` with [`client`] and no timeout, which would fire as soon as a
/// paused clock idles while a request is on the wire; `configure` adds options (a timeout, for
/// the tests of timeouts).
pub fn controller(server: &DemoServer, configure: impl FnOnce(ControllerBuilder) -> ControllerBuilder) -> Controller {
    // Injected faults are one-shot: a retry would hide them. Tests of retries set their own.
    let builder = Controller::builder()
        .base_url(server.base_url())
        .client(client())
        .retry(restcache::rest::Retry::never());
    configure(builder.timeout(None)).build().expect("controller")
}

/// Runs a fetch on its own task, to act while it is in flight.
pub fn spawn_fetch<S: Schema, B>(
    request: FetchRequest<S, B>,
) -> tokio::task::JoinHandle<Result<Arc<S::Output>, restcache::Error>> {
    tokio::spawn(std::future::IntoFuture::into_future(request))
}

/// The todo with this id as the server holds it, typed.
pub fn server_todo(server: &DemoServer, id: u64) -> Todo {
    let todo = server.todo(id).unwrap_or_else(|| panic!("the server holds todo {id}"));
    serde_json::from_value(todo).expect("a todo")
}

/// SplitMix64: a tiny, good-enough generator for a reproducible schedule.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform enough in `0..n` for small `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Removes and returns the meta entry of `key` from a snapshot.
fn take_meta(snapshot: &mut Value, key: &str) -> Option<Value> {
    let meta = snapshot["meta"].as_array_mut().expect("snapshot meta");
    let at = meta.iter().position(|m| m["key"] == key)?;
    Some(meta.remove(at))
}

/// Asserts that the only change between two snapshots is what a failed fetch of `key` commits
/// (R-NORM-2, R-FETCH-1 step 7): a new `meta[key]` holding `err` that expires one
/// `error_expiry_length` (the default 1 s) after it was written, and the store version that
/// every commit moves (R-STORE-2). Entities, collections, results (the key's own included) and
/// every other key's meta must serialize byte for byte as before.
pub fn assert_only_error_recorded(before: &Value, after: &Value, key: &str, err: &restcache::Error) {
    let (mut before, mut after) = (before.clone(), after.clone());
    let (was, is) = (before["version"].take(), after["version"].take());
    assert!(
        is.as_u64() > was.as_u64(),
        "recording the error is a commit, so the store version moves: {was} → {is}"
    );
    let record = take_meta(&mut after, key).unwrap_or_else(|| panic!("no error record under {key}"));
    take_meta(&mut before, key);
    assert_eq!(record["error"], json!(err.to_string()), "the record holds the error");
    assert_eq!(record["invalidated"], json!(false));
    let at = |field: &str| record[field].as_i64().unwrap_or_else(|| panic!("{field} in {record}"));
    assert!(at("fetched_at") <= at("written_at"), "{record}");
    assert_eq!(
        at("expires_at") - at("written_at"),
        1_000_000_000,
        "an error stands for error_expiry_length: {record}"
    );
    let (was, is) = (
        serde_json::to_string(&before).unwrap(),
        serde_json::to_string(&after).unwrap(),
    );
    if was != is {
        panic!(
            "the cache changed besides the error record of {key}: {}",
            first_difference(&before, &after, String::new()).unwrap_or_default()
        );
    }
}

/// Where two JSON values first differ, as a JSON Pointer with both sides.
pub fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, format!("{at}/{k}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{at}/{k}: {v} before, absent after")),
                }
            }
            let added = y.keys().find(|k| !x.contains_key(*k))?;
            Some(format!("{at}/{added}: absent before, {} after", y[added]))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, format!("{at}/{i}")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}: {} elements before, {} after", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{at}: {a} before, {b} after")),
    }
}
