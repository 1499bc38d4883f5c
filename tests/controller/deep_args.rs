//! R-ERR-2 for args and bodies built in memory: nested far past the limit of 128 levels, they
//! are `Error::InvalidArgs` naming the limit, on a tokio worker's stack and on the test
//! thread's alike, and nothing is sent or written.

use std::future::Future;
use std::ops::Deref;
use std::sync::Arc;

use restcache::Error;
use restcache::prelude::*;
use restcache::rest::{EndpointHooks, RequestInit, ResourceOptions};
use restcache::store::WriteOptions;
use serde_json::{Map, Value, json};

use crate::fixtures::*;

/// Depths that overflow a tokio worker's stack (20,000) and a main thread's (100,000) when
/// walked recursively.
const DEPTHS: [usize; 2] = [20_000, 100_000];

/// A `Value` too deep to build, clone or drop recursively: built with a loop and taken apart
/// with one when dropped, so that only what restcache does with it could overflow.
struct Deep(Value);

impl Deep {
    /// `depth` arrays, one inside the other, around `1`.
    fn nested(depth: usize) -> Self {
        let mut value = json!(1);
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        Deep(value)
    }

    /// `{"id": 1, "q": <depth arrays>}`: a valid id, and a deep value beside it.
    fn args(depth: usize) -> Self {
        let mut args = Map::new();
        args.insert("id".into(), json!(1));
        args.insert("q".into(), Deep::nested(depth).take());
        Deep(Value::Object(args))
    }

    fn take(mut self) -> Value {
        self.0.take()
    }
}

impl Deref for Deep {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

impl Drop for Deep {
    fn drop(&mut self) {
        let mut stack = vec![self.0.take()];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
}

/// `err` is `Error::InvalidArgs` saying that `what` nest past the limit of 128 levels.
#[track_caller]
fn assert_too_deep(err: Error, what: &str) {
    match err {
        Error::InvalidArgs { reason } => {
            assert!(reason.contains(what), "{reason:?} names {what}");
            assert!(reason.contains("128"), "{reason:?} names the limit");
        }
        other => panic!("expected Error::InvalidArgs, got {other:?}"),
    }
}

/// With todo 1 cached, runs `refuse` with `{"id": 1, "q": <depth arrays>}` for every depth,
/// first on the test thread, then on a worker of the multi-thread runtime. After each run the
/// cache is unchanged, and in the end the server has seen only the request that cached todo 1.
async fn refused_on_both_threads<F, Fut>(refuse: F)
where
    F: Fn(Controller, Deep) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    let check = |depth| {
        let before = ctrl.inspect();
        let ctrl = ctrl.clone();
        let refused = refuse(ctrl.clone(), Deep::args(depth));
        async move {
            refused.await;
            assert_eq!(ctrl.inspect(), before);
        }
    };
    for depth in DEPTHS {
        check(depth).await;
        tokio::spawn(check(depth))
            .await
            .expect("the check runs to its end on the worker");
    }
    assert_eq!(
        server.requests().len(),
        1,
        "only the request that cached todo 1 was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_fetch_args_nested_past_the_limit_are_invalid_args() {
    refused_on_both_threads(|ctrl, args| async move {
        let err = ctrl.fetch(&todos().get(), &*args).await.unwrap_err();
        assert_too_deep(err, "args");
        let err = ctrl
            .fetch(&optimistic_todos().partial_update(), &*args)
            .body(&json!({ "title": "deep" }))
            .await
            .unwrap_err();
        assert_too_deep(err, "args");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_a_fetch_body_nested_past_the_limit_is_invalid_args() {
    refused_on_both_threads(|ctrl, body| async move {
        // Optimistic, so a body that got through would be copied into a layer.
        let err = ctrl
            .fetch(&optimistic_todos().partial_update(), params! { id: 1 })
            .body(&*body)
            .await
            .unwrap_err();
        assert_too_deep(err, "body");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_suspense_and_subscribe_args_nested_past_the_limit_are_invalid_args() {
    refused_on_both_threads(|ctrl, args| async move {
        let err = ctrl.suspense(&todos().get(), &*args).await.unwrap_err();
        assert_too_deep(err, "args");
        let first = ctrl.subscribe(&todos().get(), &*args).next().await;
        assert_too_deep(first.expect("one item").unwrap_err(), "args");
        let err = ctrl.get_response(&todos().get(), &*args).unwrap_err();
        assert_too_deep(err, "args");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_url_and_key_args_nested_past_the_limit_are_invalid_args() {
    refused_on_both_threads(|_, args| async move {
        assert_too_deep(todos().get().url(&*args).unwrap_err(), "args");
        assert_too_deep(todos().get().key(&*args).unwrap_err(), "args");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_set_response_args_nested_past_the_limit_are_invalid_args() {
    refused_on_both_threads(|ctrl, args| async move {
        let todo = json!({ "id": 1, "userId": "u1", "title": "deep", "completed": false });
        let err = ctrl.set_response(&todos().get(), &*args, &todo).unwrap_err();
        assert_too_deep(err, "args");
        let err = ctrl.invalidate(&todos().get(), &*args).unwrap_err();
        assert_too_deep(err, "args");

        let mut store = Store::new();
        store.set_response::<Todo>("GET /todos/1", &(), &todo).unwrap();
        let before = store.inspect();
        let err = store.set_response::<Todo>("GET /todos/1", &*args, &todo).unwrap_err();
        assert_too_deep(err, "args");
        let err = store.get_response::<Todo>("GET /todos/1", &*args).unwrap_err();
        assert_too_deep(err, "args");
        assert_eq!(store.inspect(), before);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_params_nested_past_the_limit_are_invalid_args() {
    refused_on_both_threads(|ctrl, deep| async move {
        let args = params! { id: 1, q: deep["q"] };
        assert_too_deep(todos().get().url(&args).unwrap_err(), "args");
        assert_too_deep(ctrl.fetch(&todos().get(), &args).await.unwrap_err(), "args");
        let body = params! { title: deep["q"] };
        let err = ctrl
            .fetch(&todos().partial_update(), params! { id: 1 })
            .body(&body)
            .await
            .unwrap_err();
        assert_too_deep(err, "body");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_a_store_write_body_nested_past_the_limit_is_invalid_args() {
    refused_on_both_threads(|_, body| async move {
        let mut store = Store::new();
        let todo = json!({ "id": 1, "userId": "u1", "title": "t", "completed": false });
        store.set_response::<Todo>("GET /todos/1", &(), &todo).unwrap();
        let before = store.inspect();
        // An empty PATCH response stands for args ⊕ body: the body would be copied.
        let opts = || WriteOptions::new().body(&body);
        let err = store
            .set_response_with::<Todo>("PATCH /todos/1", &json!({ "id": 1 }), Value::Null, opts())
            .unwrap_err();
        assert_too_deep(err, "body");
        let err = store
            .set_response_bytes_with::<Todo>("PATCH /todos/1", &json!({ "id": 1 }), b"", opts())
            .unwrap_err();
        assert_too_deep(err, "body");
        assert_eq!(store.inspect(), before);
    })
    .await;
}

/// Replaces the body of every request with one nested `depth` arrays deep.
struct DeepBody(usize);

impl EndpointHooks for DeepBody {
    fn request_init(&self, init: &mut RequestInit) {
        init.body = Some(Deep::nested(self.0).take());
    }
}

/// A PATCH whose hook sets a body too deep to send, at every depth, on the runtime's threads;
/// only the PATCH key's error record is written, and nothing is sent.
async fn hook_bodies_are_refused() {
    let (server, ctrl) = setup().await;
    ctrl.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    for depth in DEPTHS {
        let before = ctrl.inspect();
        let todos = resource(ResourceOptions {
            path: "/todos/:id".into(),
            hooks: Some(Arc::new(DeepBody(depth))),
            ..Default::default()
        });
        let err = ctrl
            .fetch(&todos.partial_update(), params! { id: 1 })
            .body(&json!({ "title": "shallow" }))
            .await
            .unwrap_err();
        assert_too_deep(err, "body");
        let after = ctrl.inspect();
        assert_eq!(after["entities"], before["entities"]);
        assert_eq!(after["results"], before["results"]);
    }
    assert_eq!(
        server.requests().len(),
        1,
        "only the request that cached todo 1 was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn r_err_2_a_hook_body_nested_past_the_limit_is_invalid_args_on_a_worker() {
    hook_bodies_are_refused().await;
}

#[tokio::test]
async fn r_err_2_a_hook_body_nested_past_the_limit_is_invalid_args_on_the_test_thread() {
    hook_bodies_are_refused().await;
}
