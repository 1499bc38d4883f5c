//! The Leptos todo app in a real browser: wasm-bindgen-test in headless Chromium, against the
//! demo API that `scripts/wasm.sh test` starts natively on 127.0.0.1 (its URL comes at build time
//! as `RESTCACHE_DEMO_API`). Each test reseeds the server, mounts [`App`] with a Controller of its
//! own, acts on the DOM as a person would, waits for the DOM to change (a MutationObserver, bounded
//! by a generous failure timeout) and asserts what reached the server through
//! `/_control/requests`.
#![cfg(target_arch = "wasm32")]

use browser_tests::{api, control};
use futures::StreamExt;
use futures::future::{Either, select};
use leptos::mount::mount_to;
use leptos::prelude::*;
use leptos_todos::{App, TodoResource, USER};
use restcache::controller::ReadStatus;
use restcache::prelude::*;
use restcache_leptos::{provide_controller, use_live, use_suspense};
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement, HtmlInputElement, MutationObserver, MutationObserverInit};

wasm_bindgen_test_configure!(run_in_browser);

/// How long a test waits for the DOM before it fails (never a pass condition).
const PATIENCE_MS: u32 = 20_000;

/// `METHOD /path?query` of every request the server saw, in order.
async fn requests() -> Vec<String> {
    let log = control("GET", "/_control/requests", None).await;
    log.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let query = r["query"].as_str().filter(|q| !q.is_empty());
            let query = query.map(|q| format!("?{q}")).unwrap_or_default();
            format!(
                "{} {}{query}",
                r["method"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect()
}

/// Changes a todo at the server behind restcache's back, and forgets that request.
async fn change_on_server(id: u64, body: Value) {
    control("PATCH", &format!("/todos/{id}"), Some(body)).await;
    control("DELETE", "/_control/requests", None).await;
}

/// A mounted app: its Controller, and the mount, removed (with its window listeners) on drop.
struct Mounted {
    ctrl: Controller,
    _mount: Box<dyn std::any::Any>,
    root: HtmlElement,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.root.remove();
    }
}

/// A fresh element for a test to mount into, after removing what a failed test (which drops
/// nothing) left on the page.
fn fresh_root() -> HtmlElement {
    let left = document().query_selector_all(".test-root").unwrap();
    for i in 0..left.length() {
        left.item(i).unwrap().unchecked_into::<Element>().remove();
    }
    let root: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    root.set_class_name("test-root");
    document().body().unwrap().append_child(&root).unwrap();
    root
}

/// Reseeds the server and mounts `view` under a Controller pointed at it.
async fn mount<V: IntoView + 'static>(view: impl Fn() -> V + 'static) -> Mounted {
    control("POST", "/_control/reset", None).await;
    let ctrl = Controller::builder().base_url(api()).build().expect("a Controller");
    let root = fresh_root();
    let provided = ctrl.clone();
    let mount = mount_to(root.clone(), move || {
        provide_controller(provided.clone());
        view()
    });
    Mounted {
        ctrl,
        _mount: Box::new(mount),
        root,
    }
}

/// Waits until `ready` holds, re-checking it after every DOM change; panics after
/// [`PATIENCE_MS`] saying what it waited for.
async fn until(what: &str, ready: impl Fn() -> bool) {
    let (tx, mut changed) = futures::channel::mpsc::unbounded::<()>();
    let callback = Closure::<dyn FnMut()>::new(move || {
        let _ = tx.unbounded_send(());
    });
    let observer = MutationObserver::new(callback.as_ref().unchecked_ref()).unwrap();
    let init = MutationObserverInit::new();
    init.set_subtree(true);
    init.set_child_list(true);
    init.set_attributes(true);
    init.set_character_data(true);
    observer
        .observe_with_options(&document().body().unwrap(), &init)
        .unwrap();
    let mut deadline = gloo_timers::future::TimeoutFuture::new(PATIENCE_MS);
    while !ready() {
        if let Either::Right(_) = select(changed.next(), &mut deadline).await {
            panic!(
                "timed out waiting for {what}; the page: {}",
                document().body().unwrap().inner_html()
            );
        }
    }
    observer.disconnect();
}

fn find(selector: &str) -> Option<Element> {
    document().query_selector(selector).unwrap()
}

fn count(selector: &str) -> u32 {
    document().query_selector_all(selector).unwrap().length()
}

fn text(selector: &str) -> String {
    find(selector).and_then(|e| e.text_content()).unwrap_or_default()
}

fn click(selector: &str) {
    find(selector)
        .unwrap_or_else(|| panic!("no {selector} on the page"))
        .unchecked_into::<HtmlElement>()
        .click();
}

/// Mounts the app and waits for its list of the user's ten todos.
async fn app() -> Mounted {
    let app = mount(|| view! { <App/> }).await;
    until("the list", || count("#todos li") == 10).await;
    app
}

/// The list's read status, as the Controller has it now.
fn list_status(ctrl: &Controller) -> ReadStatus<Vec<leptos_todos::Todo>> {
    ctrl.status(&TodoResource::get_list(), params! { userId: USER })
        .unwrap()
}

const LIST: &str = "GET /todos?userId=u1";

#[wasm_bindgen_test]
async fn r_sub_a_toggle_sends_one_patch_and_the_list_and_detail_update_from_the_cache() {
    let app = app().await;
    assert_eq!(count("#todos li.done"), 3);
    click(r#"#todos li[data-id="1"] button.title"#);
    until("the detail", || text("#detail") == "#1 “Todo 1” of u1: to do").await;
    click(r#"#todos li[data-id="1"] input[type="checkbox"]"#);
    until("todo 1 done", || find(r#"#todos li[data-id="1"].done"#).is_some()).await;
    until("the summary", || text("#status") == "10 todos, 4 completed").await;
    until("the detail", || text("#detail") == "#1 “Todo 1” of u1: completed").await;
    assert!(
        matches!(list_status(&app.ctrl), ReadStatus::Ready(_)),
        "no refetch running"
    );
    assert_eq!(requests().await, [LIST, "PATCH /todos/1"], "no GET after the PATCH");
}

#[wasm_bindgen_test]
async fn r_get_the_detail_of_a_listed_todo_comes_from_the_cache() {
    let _app = app().await;
    click(r#"#todos li[data-id="3"] button.title"#);
    until("the detail of todo 3", || text("#detail").contains("Todo 3")).await;
    assert_eq!(text("#detail"), "#3 “Todo 3” of u1: completed");
    // Another todo: the detail's args are reactive.
    click(r#"#todos li[data-id="4"] button.title"#);
    until("the detail of todo 4", || text("#detail").contains("Todo 4")).await;
    assert_eq!(requests().await, [LIST], "both details came from the cache");
}

#[wasm_bindgen_test]
async fn r_sub_a_created_todo_joins_the_list_without_a_refetch() {
    let app = app().await;
    let input: HtmlInputElement = find("#new-title").unwrap().unchecked_into();
    input.set_value("made in Leptos");
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    click("#add");
    until("the new todo", || count("#todos li") == 11).await;
    assert!(text("#todos li:last-child").contains("made in Leptos"));
    assert!(
        matches!(list_status(&app.ctrl), ReadStatus::Ready(_)),
        "no refetch running"
    );
    assert_eq!(requests().await, [LIST, "POST /todos?userId=u1"]);
}

#[wasm_bindgen_test]
async fn r_sub_a_deleted_todo_leaves_the_list_without_a_refetch() {
    let app = app().await;
    click(r#"#todos li[data-id="2"] button.delete"#);
    until("todo 2 gone", || count("#todos li") == 9).await;
    assert!(find(r#"#todos li[data-id="2"]"#).is_none());
    assert!(
        matches!(list_status(&app.ctrl), ReadStatus::Ready(_)),
        "no refetch running"
    );
    assert_eq!(requests().await, [LIST, "DELETE /todos/2"]);
}

#[wasm_bindgen_test]
async fn a_read_with_no_provided_controller_is_an_error_not_a_panic() {
    let root = fresh_root();
    let _mount = mount_to(root.clone(), || {
        let todos = use_suspense(&TodoResource::get_list(), || params! { userId: USER });
        let status = use_live(&TodoResource::get_list(), || params! { userId: USER });
        view! {
            <p id="orphan-read">{move || todos.get().map(|r| r.err().map(|e| e.to_string()))}</p>
            <p id="orphan-status">
                {move || match status.get() {
                    ReadStatus::Error { error, .. } => error.to_string(),
                    _ => String::new(),
                }}
            </p>
        }
    });
    until("both errors", || {
        text("#orphan-read").contains("provide_controller") && text("#orphan-status").contains("provide_controller")
    })
    .await;
    root.remove();
}

/// The app, and beside it the titles of user u2's todos, read live through the same endpoint.
fn app_and_u2() -> impl IntoView {
    let todos = use_suspense(&TodoResource::get_list(), || params! { userId: "u2" });
    view! {
        <App/>
        <ul id="u2">
            {move || todos.get().map(|r| r.map(|todos| todos.iter().map(|t| view! { <li>{t.title.clone()}</li> }).collect_view()).ok())}
        </ul>
    }
}

/// Whether a GET of user `user`'s todos is in flight.
fn refetching(ctrl: &Controller, user: &str) -> bool {
    let status = ctrl
        .status(&TodoResource::get_list(), params! { userId: user })
        .unwrap();
    matches!(status, ReadStatus::Fetching(_))
}

fn dispatch(target: &web_sys::EventTarget, name: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(name, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn focus_and_visibility_refetch_a_stale_live_read_but_not_a_fresh_one() {
    let app = mount(app_and_u2).await;
    until("both lists", || count("#todos li") == 10 && count("#u2 li") == 10).await;
    change_on_server(1, json!({ "title": "renamed, fresh in the cache" })).await;
    change_on_server(11, json!({ "title": "renamed, stale in the cache" })).await;

    // Expired, u2's list is stale; the live view would refetch it once its task runs, which
    // it cannot before this synchronous code yields: what refetches meanwhile is the focus.
    assert_eq!(app.ctrl.expire_all(&|key: &str| key.contains("userId=u2")), 1);
    assert!(!refetching(&app.ctrl, "u2"));
    dispatch(&window().into(), "focus");
    assert!(refetching(&app.ctrl, "u2"), "the focus refetched the stale read");
    assert!(!refetching(&app.ctrl, "u1"), "and not the fresh one");
    until("the refetched list", || text("#u2").contains("renamed, stale")).await;
    assert!(!text("#todos").contains("renamed"), "the fresh list kept its data");
    assert_eq!(
        requests().await,
        ["GET /todos?userId=u2"],
        "only the stale read refetched"
    );

    // The page coming back into view does the same (the browser fires it at the document).
    change_on_server(11, json!({ "title": "renamed again" })).await;
    app.ctrl.expire_all(&|key: &str| key.contains("userId=u2"));
    dispatch(&document().into(), "visibilitychange");
    assert!(refetching(&app.ctrl, "u2"), "visible again, the stale read refetched");
    assert!(!refetching(&app.ctrl, "u1"));
    until("the list refetched again", || text("#u2").contains("renamed again")).await;
    assert_eq!(requests().await, ["GET /todos?userId=u2"]);
}

/// Makes `navigator.onLine` say `online` (as the browser does before its `online` and `offline`
/// events), or gives the browser's own answer back with `None`.
fn pretend_online(online: Option<bool>) {
    let navigator = window().navigator();
    match online {
        Some(online) => {
            let descriptor = js_sys::Object::new();
            js_sys::Reflect::set(&descriptor, &"value".into(), &online.into()).unwrap();
            js_sys::Reflect::set(&descriptor, &"configurable".into(), &true.into()).unwrap();
            js_sys::Reflect::define_property(&navigator, &"onLine".into(), &descriptor).unwrap();
        }
        None => {
            js_sys::Reflect::delete_property(&navigator, &"onLine".into()).unwrap();
        }
    }
}

#[wasm_bindgen_test]
async fn offline_and_online_events_pause_and_resume_polling_until_unmounted() {
    let app = app().await;
    assert!(app.ctrl.is_online());
    pretend_online(Some(false));
    dispatch(&window().into(), "offline");
    assert!(!app.ctrl.is_online(), "offline pauses polling");
    pretend_online(None);
    dispatch(&window().into(), "online");
    assert!(app.ctrl.is_online(), "online resumes it");

    // Unmounted, the app no longer listens.
    let ctrl = app.ctrl.clone();
    drop(app);
    pretend_online(Some(false));
    dispatch(&window().into(), "offline");
    pretend_online(None);
    assert!(ctrl.is_online(), "the listeners went with the app");
}

/// A Controller that went offline under an earlier provider, which was gone when the window
/// came back online, is online again once provided in an online window.
#[wasm_bindgen_test]
async fn a_provider_brings_back_online_a_controller_left_offline() {
    let ctrl = Controller::builder().base_url(api()).build().expect("a Controller");
    ctrl.set_online(false);
    let root = fresh_root();
    let provided = ctrl.clone();
    let mount = mount_to(root.clone(), move || {
        provide_controller(provided.clone());
        view! { <p>"provided"</p> }
    });
    assert!(window().navigator().on_line(), "the test browser is online");
    assert!(ctrl.is_online());
    drop(mount);
    root.remove();
}

/// Expires everything and calls `refetch_stale`, which refetches what live views are left.
fn refetch_all_live(ctrl: &Controller) {
    ctrl.expire_all(&|_: &str| true);
    ctrl.refetch_stale();
}

/// Args that notify with no change to the key (a signal set to the value it had) leave the
/// reads as they are. A new subscription would refetch the stale data: none is made.
#[wasm_bindgen_test]
async fn r_sub_args_that_notify_with_the_same_key_keep_the_reads() {
    let get = TodoResource::get()
        .extend(restcache::rest::EndpointOptions {
            data_expiry_length: Some(std::time::Duration::from_millis(20)),
            ..Default::default()
        })
        .unwrap();
    let id = RwSignal::new(1u64);
    let ep = get.clone();
    let app = mount(move || {
        let live = use_live(&ep, move || params! { id: id.get() });
        let read = use_suspense(&ep, move || params! { id: id.get() });
        view! {
            <p id="live">{move || match live.get() {
                ReadStatus::Ready(todo) | ReadStatus::Fetching(todo) => todo.title.clone(),
                other => format!("{other:?}"),
            }}</p>
            <Suspense fallback=|| "waiting">
                <p id="read">{move || read.get().map(|todo| todo.map(|t| t.title.clone()).unwrap_or_default())}</p>
            </Suspense>
        }
    })
    .await;
    until("both reads", || text("#live") == "Todo 1" && text("#read") == "Todo 1").await;
    // Round trips until the data has gone stale (nothing refetches it on its own).
    let stale = || {
        let cached = app.ctrl.get_response(&get, params! { id: 1 }).unwrap();
        cached.is_stale(restcache::Instant::now())
    };
    for _ in 0..1_000 {
        if stale() {
            break;
        }
        requests().await;
    }
    assert!(stale(), "the data went stale");
    control("DELETE", "/_control/requests", None).await;
    id.set(1);
    // Two round trips: a GET a new subscription sent would have been sent before the second.
    requests().await;
    assert_eq!(
        requests().await,
        Vec::<String>::new(),
        "the same key: no new subscription"
    );
    // Another key is read.
    id.set(2);
    until("todo 2", || text("#live") == "Todo 2" && text("#read") == "Todo 2").await;
    assert_eq!(requests().await, ["GET /todos/2"]);
}

#[wasm_bindgen_test]
async fn r_sub_unmounting_the_app_ends_its_live_views() {
    let app = app().await;
    let ctrl = app.ctrl.clone();
    drop(app);
    // A round trip, in which the tasks of dropped views end.
    requests().await;
    refetch_all_live(&ctrl);
    assert!(!refetching(&ctrl, USER), "no live view of the list is left");
}
