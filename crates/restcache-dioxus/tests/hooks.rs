//! The hooks in a Dioxus VirtualDom (natively, no renderer), against the demo API over real
//! HTTP on 127.0.0.1. Components write what they render into a shared log; a test drives the
//! VirtualDom until the log shows what it waits for (bounded, so a broken hook fails instead of
//! hanging), then checks the log and the requests the server saw.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Weak};
use std::time::Duration;

use demo_api::DemoServer;
use dioxus::core::NoOpMutations;
use dioxus::prelude::*;
use restcache::controller::ReadStatus;
use restcache::rest::ResourceOptions;
use restcache::{Controller, Entity, params};
use restcache_dioxus::{use_controller, use_controller_provider, use_live, use_suspense};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::oneshot;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
    completed: bool,
}

fn todos() -> restcache::rest::Resource<Todo> {
    restcache::rest::Resource::new(ResourceOptions {
        path: "/todos/:id".into(),
        ..Default::default()
    })
    .expect("a valid resource")
}

/// What every test's root reads from its context: the Controller to provide (none for the
/// tests of a missing provider) and the log the components write.
#[derive(Clone)]
struct Probe {
    ctrl: Option<Controller>,
    log: Rc<RefCell<Vec<String>>>,
    /// Resolves when the test wants [`Switcher`] to read another todo.
    switch: Rc<RefCell<Option<oneshot::Receiver<()>>>>,
    /// The args [`DeepArgs`] reads with.
    deep: Rc<Deep>,
    /// Each todo [`Switcher`] showed, weakly: whether anything still holds it.
    shown: Rc<RefCell<Vec<Weak<Todo>>>>,
}

/// Args with a value nested `depth` arrays deep beside a valid id: too deep to build, clone or
/// drop recursively, so built with a loop and taken apart with one.
struct Deep(Value);

impl Deep {
    fn args(depth: usize) -> Deep {
        let mut nested = json!(1);
        for _ in 0..depth {
            nested = Value::Array(vec![nested]);
        }
        // Not `json!`: it would copy `nested` recursively.
        let mut args = serde_json::Map::new();
        args.insert("id".into(), json!(1));
        args.insert("q".into(), nested);
        Deep(Value::Object(args))
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

fn note(line: String) {
    use_context::<Probe>().log.borrow_mut().push(line);
}

/// A VirtualDom of `root` with `probe` in its context, rendered once.
fn mount(root: fn() -> Element, probe: &Probe) -> VirtualDom {
    let mut dom = VirtualDom::new(root).with_root_context(probe.clone());
    dom.rebuild_in_place();
    dom
}

/// Runs the VirtualDom until the log holds `line`; fails after a generous bound.
async fn until(dom: &mut VirtualDom, probe: &Probe, line: &str) {
    let work = async {
        while !probe.log.borrow().iter().any(|l| l == line) {
            dom.wait_for_work().await;
            dom.render_immediate(&mut NoOpMutations);
        }
    };
    if tokio::time::timeout(Duration::from_secs(30), work).await.is_err() {
        panic!("never rendered {line:?}; rendered {:?}", probe.log.borrow());
    }
}

async fn setup() -> (DemoServer, Probe) {
    let server = DemoServer::start().await.expect("the demo API starts");
    let ctrl = Controller::builder()
        .base_url(server.base_url())
        .build()
        .expect("a Controller");
    let probe = Probe {
        ctrl: Some(ctrl),
        log: Rc::default(),
        switch: Rc::default(),
        deep: Rc::new(Deep(Value::Null)),
        shown: Rc::default(),
    };
    (server, probe)
}

fn paths(server: &DemoServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

/// Renames todo `id` through the Controller, as another part of the app would.
async fn rename(probe: &Probe, id: u64, title: &str) {
    let ctrl = probe.ctrl.as_ref().unwrap();
    ctrl.fetch(&todos().partial_update(), params! { id: id })
        .body(&json!({ "title": title }))
        .await
        .expect("the PATCH succeeds");
}

/// Provides the probe's Controller to `children`.
#[component]
fn Provide(children: Element) -> Element {
    let probe = use_context::<Probe>();
    use_controller_provider(move || probe.ctrl.clone().expect("a test with a Controller"));
    children
}

fn describe(status: &ReadStatus<Todo>) -> String {
    match status {
        ReadStatus::Loading => "loading".into(),
        ReadStatus::Ready(todo) => format!("ready: {}", todo.title),
        ReadStatus::Fetching(todo) => format!("fetching: {}", todo.title),
        ReadStatus::Error { error, .. } => format!("error: {error}"),
    }
}

#[component]
fn LiveTodo(id: u64) -> Element {
    let status = use_live(&todos().get(), params! { id: id });
    note(describe(&status.read()));
    rsx! {}
}

#[component]
fn SuspendedTodo(id: u64) -> Element {
    let todo = use_suspense(&todos().get(), params! { id: id })?;
    note(format!("shown: {}", todo.title));
    rsx! {}
}

#[component]
fn Fallback() -> Element {
    note("fallback".into());
    rsx! {}
}

#[tokio::test]
async fn r_sub_use_live_shows_loading_then_the_data_then_a_patch_with_no_refetch() {
    let (server, probe) = setup().await;
    let mut dom = mount(|| rsx! { Provide { LiveTodo { id: 1 } } }, &probe);
    until(&mut dom, &probe, "ready: Todo 1").await;
    assert_eq!(probe.log.borrow()[0], "loading");

    rename(&probe, 1, "renamed elsewhere").await;
    until(&mut dom, &probe, "ready: renamed elsewhere").await;
    assert_eq!(
        paths(&server),
        ["GET /todos/1", "PATCH /todos/1"],
        "no refetch after the PATCH"
    );
    // One render per status: a status equal to the one shown is not written again.
    assert_eq!(
        *probe.log.borrow(),
        ["loading", "ready: Todo 1", "ready: renamed elsewhere"]
    );
}

#[tokio::test]
async fn r_sus_use_suspense_shows_the_fallback_then_the_data_and_follows_the_cache() {
    let (server, probe) = setup().await;
    let mut dom = mount(
        || {
            rsx! {
                Provide {
                    SuspenseBoundary { fallback: |_| rsx! { Fallback {} }, SuspendedTodo { id: 2 } }
                }
            }
        },
        &probe,
    );
    until(&mut dom, &probe, "shown: Todo 2").await;
    assert_eq!(probe.log.borrow().first().map(String::as_str), Some("fallback"));

    rename(&probe, 2, "renamed elsewhere").await;
    until(&mut dom, &probe, "shown: renamed elsewhere").await;
    assert_eq!(
        paths(&server),
        ["GET /todos/2", "PATCH /todos/2"],
        "no refetch after the PATCH"
    );
}

#[tokio::test]
async fn r_get_use_suspense_of_cached_data_renders_at_once_with_no_request() {
    let (server, probe) = setup().await;
    let ctrl = probe.ctrl.clone().unwrap();
    ctrl.suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    server.clear_requests();
    let _dom = mount(
        || {
            rsx! {
                Provide {
                    SuspenseBoundary { fallback: |_| rsx! { Fallback {} }, SuspendedTodo { id: 3 } }
                }
            }
        },
        &probe,
    );
    // The first render already shows it: no fallback, no request.
    assert_eq!(*probe.log.borrow(), ["shown: Todo 3"]);
    assert!(server.requests().is_empty(), "{:?}", paths(&server));
}

#[component]
fn Orphan() -> Element {
    note(format!("{:?}", use_controller().err()));
    let status = use_live(&todos().get(), params! { id: 1 });
    note(describe(&status.read()));
    let read = use_suspense(&todos().get(), params! { id: 1 });
    note(format!(
        "suspense: {}",
        read.as_ref().err().map(ToString::to_string).unwrap_or_default()
    ));
    read?;
    rsx! {}
}

#[tokio::test]
async fn a_hook_with_no_provider_gives_a_typed_error_and_no_panic() {
    let probe = Probe {
        ctrl: None,
        log: Rc::default(),
        switch: Rc::default(),
        deep: Rc::new(Deep(Value::Null)),
        shown: Rc::default(),
    };
    let _dom = mount(
        || rsx! { ErrorBoundary { handle_error: |_| rsx! {}, Orphan {} } },
        &probe,
    );
    let reason = "no restcache Controller here: call use_controller_provider in an ancestor";
    let log = probe.log.borrow();
    assert_eq!(
        log[0],
        format!("{:?}", Some(restcache::Error::InvalidConfig { reason: reason.into() }))
    );
    assert!(log[1].starts_with("error: ") && log[1].contains(reason), "{log:?}");
    assert!(log[2].starts_with("suspense: ") && log[2].contains(reason), "{log:?}");
}

#[component]
fn BadReads() -> Element {
    let no_id = use_live(&todos().get(), params! {});
    note(describe(&no_id.read()));
    let not_a_read = use_live(&todos().partial_update(), params! { id: 1 });
    note(describe(&not_a_read.read()));
    rsx! {}
}

#[tokio::test]
async fn bad_args_or_a_member_that_is_not_a_get_are_a_typed_error_status() {
    let (server, probe) = setup().await;
    let _dom = mount(|| rsx! { Provide { BadReads {} } }, &probe);
    let log = probe.log.borrow();
    assert!(log[0].starts_with("error: ") && log[0].contains("id"), "{log:?}");
    assert!(
        log[1].starts_with("error: ") && log[1].contains("only GET members"),
        "{log:?}"
    );
    assert!(server.requests().is_empty());
}

/// The id of the todo to read: 1, then 4 once the test says so (through `probe.switch`).
fn use_switched_id() -> Signal<u64> {
    let mut id = use_signal(|| 1);
    let probe = use_context::<Probe>();
    use_hook(move || {
        let switch = probe.switch.borrow_mut().take();
        spawn(async move {
            if let Some(switch) = switch {
                let _ = switch.await;
                id.set(4);
            }
        })
    });
    id
}

/// Reads todo 1, then todo 4 once the test says so.
#[component]
fn Switcher() -> Element {
    let id = use_switched_id();
    let probe = use_context::<Probe>();
    let status = use_live(&todos().get(), params! { id: id() });
    if let ReadStatus::Ready(todo) = &*status.read() {
        probe.shown.borrow_mut().push(Arc::downgrade(todo));
    }
    note(describe(&status.read()));
    rsx! {}
}

#[tokio::test]
async fn r_sub_use_live_follows_its_args_to_another_key() {
    let (server, probe) = setup().await;
    let (switch, switched) = oneshot::channel();
    *probe.switch.borrow_mut() = Some(switched);
    let mut dom = mount(|| rsx! { Provide { Switcher {} } }, &probe);
    until(&mut dom, &probe, "ready: Todo 1").await;
    switch.send(()).unwrap();
    until(&mut dom, &probe, "ready: Todo 4").await;
    rename(&probe, 4, "renamed elsewhere").await;
    until(&mut dom, &probe, "ready: renamed elsewhere").await;
    assert_eq!(paths(&server), ["GET /todos/1", "GET /todos/4", "PATCH /todos/4"]);
}

/// Reads todo 1, then todo 4 once the test says so, through the handle its first render got.
#[component]
fn FirstHandle() -> Element {
    let id = use_switched_id();
    let status = use_live(&todos().get(), params! { id: id() });
    let first = use_hook(|| status);
    let handle = if first == status {
        "the same handle"
    } else {
        "a new handle"
    };
    note(format!("{handle}, {}", describe(&first.read())));
    rsx! {}
}

/// The signal `use_live` returns is one for the component's life: a handle kept from the first
/// render (in a hook, a memo, a child's props) follows the args to another key, and renders
/// make no new handle.
#[tokio::test]
async fn r_sub_use_live_returns_one_signal_that_follows_the_args() {
    let (_server, probe) = setup().await;
    let (switch, switched) = oneshot::channel();
    *probe.switch.borrow_mut() = Some(switched);
    let mut dom = mount(|| rsx! { Provide { FirstHandle {} } }, &probe);
    until(&mut dom, &probe, "the same handle, ready: Todo 1").await;
    switch.send(()).unwrap();
    until(&mut dom, &probe, "the same handle, ready: Todo 4").await;
    let log = probe.log.borrow();
    assert!(log.iter().all(|l| l.starts_with("the same handle")), "{log:?}");
}

/// A bounded memory (R-GC-4): a view that followed its args to another key keeps nothing of the
/// key it left, however long the component lives; once the cache drops that key's data too, the
/// data is gone.
#[tokio::test]
async fn r_sub_use_live_lets_go_of_the_data_of_the_key_it_left() {
    let (_server, probe) = setup().await;
    let (switch, switched) = oneshot::channel();
    *probe.switch.borrow_mut() = Some(switched);
    let mut dom = mount(|| rsx! { Provide { Switcher {} } }, &probe);
    until(&mut dom, &probe, "ready: Todo 1").await;
    switch.send(()).unwrap();
    until(&mut dom, &probe, "ready: Todo 4").await;
    probe.ctrl.as_ref().unwrap().reset();
    // The first todo shown is todo 1.
    assert!(probe.shown.borrow()[0].upgrade().is_none(), "todo 1 is still held");
}

#[component]
fn DeepArgs() -> Element {
    let probe = use_context::<Probe>();
    let status = use_live(&todos().get(), &probe.deep.0);
    note(describe(&status.read()));
    let read = use_suspense(&todos().get(), &probe.deep.0);
    note(format!(
        "suspense: {}",
        read.as_ref().err().map(ToString::to_string).unwrap_or_default()
    ));
    read?;
    rsx! {}
}

#[tokio::test]
async fn r_err_2_args_nested_past_the_limit_are_a_typed_error_with_no_overflow_or_request() {
    let (server, mut probe) = setup().await;
    probe.deep = Rc::new(Deep::args(100_000));
    let _dom = mount(
        || rsx! { Provide { ErrorBoundary { handle_error: |_| rsx! {}, DeepArgs {} } } },
        &probe,
    );
    let log = probe.log.borrow();
    assert!(log[0].starts_with("error: ") && log[0].contains("128"), "{log:?}");
    assert!(log[1].starts_with("suspense: ") && log[1].contains("128"), "{log:?}");
    assert!(server.requests().is_empty());
}
