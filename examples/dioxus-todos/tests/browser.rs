//! The Dioxus todo app in a real browser: wasm-bindgen-test in headless Chromium, against the
//! demo API that `scripts/wasm.sh test` starts on 127.0.0.1 and names at build time
//! (`RESTCACHE_DEMO_API`). Each test reseeds the API, mounts the app's [`Todos`] under a
//! provider of its own in a fresh element, acts on the DOM as a user would, waits for the DOM to
//! change (a `MutationObserver`, never a sleep), and asserts what reached the server through
//! `/_control/requests`. It unmounts the app at the end, which removes the provider's window
//! listeners.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use browser_tests::{api, control};
use dioxus::prelude::*;
use dioxus_todos::Todos;
use futures_channel::oneshot;
use restcache::controller::ReadStatus;
use restcache::rest::{EndpointOptions, RestEndpoint};
use restcache::{Controller, params};
use restcache_dioxus::{use_controller_provider, use_live};
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// How long a test waits for the DOM before it fails: generous, as it only bounds a failure.
const PATIENCE_MS: f64 = 20_000.0;

/// `METHOD /path` of every request the server saw since the last reset to a path under
/// `under`, in order. Tests look only at the paths they act on: an always-stale read of another
/// test (see [`always_stale_user`]) may still be answered after that test ended.
async fn requests(under: &str) -> Vec<String> {
    let log = control("GET", "/_control/requests", None).await;
    log.as_array()
        .expect("a list of requests")
        .iter()
        .filter(|r| r["path"].as_str().unwrap().starts_with(under))
        .map(|r| format!("{} {}", r["method"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect()
}

/// Changes a record at the server behind the app's back (`PATCH path`), and forgets that
/// request.
async fn change_on_server(path: &str, body: Value) {
    control("PATCH", path, Some(body)).await;
    control("DELETE", "/_control/requests", None).await;
}

/// A user, read with no expiry to speak of: stale as soon as it is written, and read by nothing
/// else, so nothing but the page's events refetches it. (Once such a refetch is written, the
/// live view finds the data stale again and refetches once more: tests do not count these.)
fn always_stale_user() -> RestEndpoint<Value> {
    let opts = EndpointOptions {
        data_expiry_length: Some(Duration::ZERO),
        ..Default::default()
    };
    RestEndpoint::builder("/users/:id")
        .options(opts)
        .build()
        .expect("a valid endpoint")
}

/// What the test harness hands its root component.
#[derive(Clone)]
struct Setup {
    ctrl: Controller,
    /// Resolves when the test wants the app unmounted.
    unmount: Rc<RefCell<Option<oneshot::Receiver<()>>>>,
    /// Whether to show user u2 beside the app, from [`always_stale_user`].
    watch: bool,
}

/// The harness's root: the provider and the app, until the test unmounts them.
#[component]
fn Harness() -> Element {
    let setup = use_context::<Setup>();
    let mut mounted = use_signal(|| true);
    use_hook(|| {
        let unmount = setup.unmount.borrow_mut().take();
        spawn(async move {
            if let Some(unmount) = unmount {
                let _ = unmount.await;
            }
            mounted.set(false);
        })
    });
    rsx! {
        if mounted() {
            Provider {}
        } else {
            p { class: "unmounted" }
        }
    }
}

/// Provides the test's Controller, as an app would.
#[component]
fn Provider() -> Element {
    let setup = use_context::<Setup>();
    use_controller_provider(move || setup.ctrl.clone());
    rsx! {
        Todos {}
        if setup.watch {
            Watched {}
        }
    }
}

/// User u2's name, from a live read that is always stale.
#[component]
fn Watched() -> Element {
    let status = use_live(&always_stale_user(), params! { id: "u2" });
    let name = match &*status.read() {
        ReadStatus::Ready(user) | ReadStatus::Fetching(user) => user["name"].as_str().unwrap_or_default().to_string(),
        _ => String::new(),
    };
    rsx! { p { id: "watched", "{name}" } }
}

/// The app, mounted in its own element of the page.
struct App {
    ctrl: Controller,
    root: web_sys::Element,
    unmount: Option<oneshot::Sender<()>>,
}

impl App {
    /// Reseeds the API and mounts the app with a Controller pointed at it; with `watch`, shows
    /// user u2 beside it (see [`Watched`]).
    async fn mount(watch: bool) -> App {
        control("POST", "/_control/reset", None).await;
        let ctrl = Controller::builder().base_url(api()).build().expect("a Controller");
        let document = web_sys::window().unwrap().document().unwrap();
        let root = document.create_element("div").unwrap();
        document.body().unwrap().append_child(&root).unwrap();
        let (unmount, unmounted) = oneshot::channel();
        let setup = Setup {
            ctrl: ctrl.clone(),
            unmount: Rc::new(RefCell::new(Some(unmounted))),
            watch,
        };
        let vdom = VirtualDom::new(Harness).with_root_context(setup);
        dioxus::web::launch::launch_virtual_dom(vdom, dioxus::web::Config::new().rootelement(root.clone()));
        App {
            ctrl,
            root,
            unmount: Some(unmount),
        }
    }

    /// Mounts the app and waits for the list of the first user.
    async fn with_list() -> App {
        let app = App::mount(false).await;
        app.until("the list", |root| root.query_selector("#todos li").unwrap().is_some())
            .await;
        app
    }

    /// Mounts the app with user u2 beside it, waits for both, and renames u2 at the server
    /// behind the app's back, so that only a refetch of the stale user shows the new name.
    async fn with_a_stale_user() -> App {
        let app = App::mount(true).await;
        app.until("the list and the user", |root| {
            root.query_selector("#todos li").unwrap().is_some() && !app.text("#watched").is_empty()
        })
        .await;
        change_on_server("/users/u2", json!({ "name": "renamed on the server" })).await;
        app
    }

    /// Waits for the stale user to be refetched, and checks that the fresh list was not.
    async fn until_the_user_is_refetched(&self) {
        self.until("the user refetched", |_| {
            self.text("#watched") == "renamed on the server"
        })
        .await;
        assert_eq!(
            requests("/users").await.first().map(String::as_str),
            Some("GET /users/u2")
        );
        assert_eq!(
            requests("/todos").await,
            Vec::<String>::new(),
            "the fresh list was not refetched"
        );
    }

    /// The first element under the app that `selector` matches.
    fn find(&self, selector: &str) -> Option<web_sys::Element> {
        self.root.query_selector(selector).unwrap()
    }

    fn text(&self, selector: &str) -> String {
        self.find(selector).and_then(|e| e.text_content()).unwrap_or_default()
    }

    fn click(&self, selector: &str) {
        let element = self.find(selector).unwrap_or_else(|| panic!("no {selector}"));
        element.unchecked_into::<HtmlElement>().click();
    }

    /// Waits until `ok` holds for the app's element, checking again after each change to its
    /// subtree; fails after `PATIENCE_MS` without one.
    async fn until(&self, what: &str, ok: impl Fn(&web_sys::Element) -> bool) {
        let start = js_sys::Date::now();
        while !ok(&self.root) {
            let waited = js_sys::Date::now() - start;
            assert!(
                waited < PATIENCE_MS,
                "waited {waited} ms for {what}: {}",
                self.root.inner_html()
            );
            let mut observer = None;
            let changed = js_sys::Promise::new(&mut |resolve, _| {
                let watch = web_sys::MutationObserver::new(&resolve).unwrap();
                let options = web_sys::MutationObserverInit::new();
                options.set_subtree(true);
                options.set_child_list(true);
                options.set_attributes(true);
                options.set_character_data(true);
                watch.observe_with_options(&self.root, &options).unwrap();
                observer = Some(watch);
                // The failure timeout: resolve anyway, so the loop can give up.
                web_sys::window()
                    .unwrap()
                    .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, (PATIENCE_MS - waited) as i32)
                    .unwrap();
            });
            JsFuture::from(changed).await.unwrap();
            if let Some(observer) = observer {
                observer.disconnect();
            }
        }
    }

    /// Unmounts the app (its provider's listeners go with it) and removes its element.
    async fn unmount(mut self) {
        if let Some(unmount) = self.unmount.take() {
            let _ = unmount.send(());
        }
        self.until("the app to unmount", |root| {
            root.query_selector(".unmounted").unwrap().is_some()
        })
        .await;
        self.root.remove();
    }
}

/// A test that failed before [`App::unmount`] still unmounts its app, so the app's listeners
/// do not act in the tests after it.
impl Drop for App {
    fn drop(&mut self) {
        if let Some(unmount) = self.unmount.take() {
            let _ = unmount.send(());
        }
    }
}

/// Fires an event of `kind` at `target`, as the browser would.
fn dispatch(target: &web_sys::EventTarget, kind: &str) {
    let event = web_sys::Event::new(kind).unwrap();
    target.dispatch_event(&event).unwrap();
}

fn window() -> web_sys::Window {
    web_sys::window().unwrap()
}

/// Makes `navigator.onLine` read `online` (the page cannot really go offline), until
/// [`restore_navigator`].
fn pretend_online(online: bool) {
    let descriptor = js_sys::Object::new();
    js_sys::Reflect::set(&descriptor, &"value".into(), &JsValue::from_bool(online)).unwrap();
    js_sys::Reflect::set(&descriptor, &"configurable".into(), &JsValue::TRUE).unwrap();
    js_sys::Object::define_property(&window().navigator(), &"onLine".into(), &descriptor);
}

fn restore_navigator() {
    js_sys::Reflect::delete_property(&window().navigator(), &"onLine".into()).unwrap();
}

#[wasm_bindgen_test]
async fn r_sub_a_toggle_patches_and_the_list_shows_it_from_the_cache_with_no_get() {
    let app = App::with_list().await;
    assert_eq!(requests("/todos").await, ["GET /todos"]);
    // Todo 1 is not completed in the seed.
    assert!(!app.find("#todo-1").unwrap().class_list().contains("done"));
    assert_eq!(app.text("#status"), "10 todos, 3 completed");

    app.click("#todo-1 .toggle");
    app.until("todo 1 shown completed", |root| {
        root.query_selector("#todo-1.done").unwrap().is_some()
    })
    .await;
    let checkbox: HtmlInputElement = app.find("#todo-1 .toggle").unwrap().unchecked_into();
    assert!(checkbox.checked());
    app.until("the count of completed todos", |_| {
        app.text("#status") == "10 todos, 4 completed"
    })
    .await;
    assert_eq!(
        requests("/todos").await,
        ["GET /todos", "PATCH /todos/1"],
        "the PATCH went out and the list updated from the cache, with no GET"
    );
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn r_get_a_detail_shows_from_the_cache_with_no_request() {
    let app = App::with_list().await;
    app.click("#todo-3 .title");
    app.until("the detail of todo 3", |_| app.text("#detail").contains("Todo 3"))
        .await;
    assert_eq!(app.text("#detail"), "#3 “Todo 3” of u1: completed");
    assert_eq!(
        requests("/todos").await,
        ["GET /todos"],
        "the detail came from the cache"
    );
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn r_col_a_created_todo_is_posted_and_joins_the_list() {
    let app = App::with_list().await;
    let field: HtmlInputElement = app.find("#new-title").unwrap().unchecked_into();
    field.set_value("made with Dioxus");
    let input = web_sys::EventInit::new();
    input.set_bubbles(true);
    field
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &input).unwrap())
        .unwrap();
    app.click("#add");
    app.until("the new todo in the list", |_| {
        app.text("#todos").contains("made with Dioxus")
    })
    .await;
    assert_eq!(app.root.query_selector_all("#todos li").unwrap().length(), 11);
    assert_eq!(requests("/todos").await, ["GET /todos", "POST /todos"]);
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn r_inv_a_deleted_todo_leaves_the_list_with_no_refetch() {
    let app = App::with_list().await;
    app.click("#todo-2 .delete");
    app.until("todo 2 gone", |root| root.query_selector("#todo-2").unwrap().is_none())
        .await;
    assert_eq!(app.root.query_selector_all("#todos li").unwrap().length(), 9);
    assert_eq!(requests("/todos").await, ["GET /todos", "DELETE /todos/2"]);
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn focus_refetches_a_stale_read_and_not_a_fresh_one() {
    let app = App::with_a_stale_user().await;
    dispatch(&window(), "focus");
    app.until_the_user_is_refetched().await;
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn the_page_becoming_visible_refetches_a_stale_read_and_not_a_fresh_one() {
    let app = App::with_a_stale_user().await;
    let document = window().document().unwrap();
    assert_eq!(document.visibility_state(), web_sys::VisibilityState::Visible);
    dispatch(&document, "visibilitychange");
    app.until_the_user_is_refetched().await;
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn offline_pauses_the_controller_and_online_resumes_it_and_refetches_stale_reads() {
    let app = App::with_a_stale_user().await;
    assert!(app.ctrl.is_online());
    pretend_online(false);
    dispatch(&window(), "offline");
    assert!(!app.ctrl.is_online(), "offline pauses polling");

    pretend_online(true);
    dispatch(&window(), "online");
    restore_navigator();
    assert!(app.ctrl.is_online(), "online resumes polling");
    app.until_the_user_is_refetched().await;
    app.unmount().await;
}

#[wasm_bindgen_test]
async fn the_window_listeners_go_with_the_provider() {
    let app = App::with_list().await;
    let ctrl = app.ctrl.clone();
    pretend_online(false);
    dispatch(&window(), "offline");
    assert!(!ctrl.is_online(), "heard while the provider lives");
    pretend_online(true);
    dispatch(&window(), "online");
    assert!(ctrl.is_online());

    app.unmount().await;
    pretend_online(false);
    dispatch(&window(), "offline");
    restore_navigator();
    assert!(ctrl.is_online(), "no listener left to hear it");
}
