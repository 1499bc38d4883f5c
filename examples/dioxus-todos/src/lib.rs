//! restcache's todo list as a Dioxus 0.7 web app, over `restcache-dioxus`: the todos of one
//! user (a live list that suspends while it loads), a detail read from the cache without a
//! request, a checkbox that toggles a todo with a `PATCH` (the list shows it with no refetch),
//! a form that creates a todo (`POST`, pushed onto the list) and a button that deletes one.
//!
//! The binary (`src/main.rs`) mounts `App` on the page's `#main`; `scripts/wasm.sh
//! serve dioxus` builds it and serves it with the demo API, same-origin. The browser tests
//! (`tests/browser.rs`) mount `Todos` under a provider of their own.
#![cfg(target_arch = "wasm32")]

use dioxus::prelude::*;
use restcache::prelude::*;
use restcache_dioxus::{use_controller, use_controller_provider, use_live, use_suspense};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The user whose todos the app shows.
///
/// ```ignore
/// assert_eq!(dioxus_todos::USER, "u1");
/// ```
pub const USER: &str = "u1";

/// A todo of the demo API.
///
/// ```ignore
/// let todo: dioxus_todos::Todo =
///     serde_json::from_str(r#"{"id":1,"userId":"u1","title":"Todo 1","completed":false}"#)?;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    /// Its primary key.
    #[entity(pk)]
    pub id: u64,
    /// The user it belongs to.
    pub user_id: String,
    /// What to do.
    pub title: String,
    /// Whether it is done.
    pub completed: bool,
}

resource! {
    /// The todos of the demo API.
    ///
    /// ```ignore
    /// let todos = use_suspense(&TodoResource::get_list(), params! { userId: USER })?;
    /// ```
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

/// Mounts the app on `root`, with a Controller for `base_url` (the page's origin, when the demo
/// API serves the page). A `base_url` restcache refuses is shown on the page instead.
///
/// ```ignore
/// let document = web_sys::window().unwrap().document().unwrap();
/// dioxus_todos::launch(document.get_element_by_id("main").unwrap(), "http://127.0.0.1:3000");
/// ```
pub fn launch(root: web_sys::Element, base_url: &str) {
    match Controller::builder().base_url(base_url).build() {
        Ok(ctrl) => {
            let vdom = VirtualDom::new(App).with_root_context(ctrl);
            dioxus::web::launch::launch_virtual_dom(vdom, dioxus::web::Config::new().rootelement(root));
        }
        Err(e) => root.set_text_content(Some(&format!("error: {e}"))),
    }
}

/// The app: provides the Controller given to [`launch`] (with the page's focus and network
/// events wired to it), and shows [`Todos`].
///
/// ```ignore
/// let vdom = VirtualDom::new(App).with_root_context(controller);
/// dioxus::web::launch::launch_virtual_dom(vdom, dioxus::web::Config::new().rootname("main"));
/// ```
#[component]
pub fn App() -> Element {
    use_controller_provider(consume_context::<Controller>);
    rsx! { Todos {} }
}

/// The todo list, the form that adds one, and the detail of the one picked, with the
/// Controller an ancestor provides.
///
/// ```ignore
/// fn Page() -> Element {
///     use_controller_provider(|| controller.clone());
///     rsx! { Todos {} }
/// }
/// ```
#[component]
pub fn Todos() -> Element {
    let selected = use_signal(|| None::<u64>);
    let error = use_signal(|| None::<String>);
    rsx! {
        h1 { "Todos of user {USER}" }
        Status {}
        NewTodo { error }
        SuspenseBoundary {
            fallback: |_| rsx! { p { id: "loading", "loading…" } },
            TodoList { selected, error }
        }
        if let Some(message) = error() {
            p { id: "error", "{message}" }
        }
        h2 { "Detail, read from the cache" }
        div { id: "detail",
            match selected() {
                None => rsx! { "Click a todo." },
                Some(id) => rsx! {
                    SuspenseBoundary {
                        fallback: |_| rsx! { "loading…" },
                        Detail { id }
                    }
                },
            }
        }
    }
}

/// A line counting the todos, from a live read that never suspends.
#[component]
fn Status() -> Element {
    let status = use_live(&TodoResource::get_list(), params! { userId: USER });
    let text = match &*status.read() {
        ReadStatus::Loading => "loading…".to_string(),
        ReadStatus::Ready(todos) => count(todos),
        ReadStatus::Fetching(todos) => format!("{} (refreshing)", count(todos)),
        ReadStatus::Error { error, .. } => format!("error: {error}"),
    };
    rsx! { p { id: "status", "{text}" } }
}

fn count(todos: &[Todo]) -> String {
    let done = todos.iter().filter(|t| t.completed).count();
    format!("{} todos, {done} completed", todos.len())
}

/// The live list: it suspends until the todos are read, then follows the cache.
#[component]
fn TodoList(selected: Signal<Option<u64>>, error: Signal<Option<String>>) -> Element {
    let todos = use_suspense(&TodoResource::get_list(), params! { userId: USER })?;
    rsx! {
        ul { id: "todos",
            for todo in todos.iter() {
                TodoItem { key: "{todo.id}", todo: todo.clone(), selected, error }
            }
        }
    }
}

/// One todo: a checkbox that toggles it (`PATCH`), its title, which picks it for the detail,
/// and a button that deletes it (`DELETE`).
#[component]
fn TodoItem(todo: Todo, selected: Signal<Option<u64>>, error: Signal<Option<String>>) -> Element {
    let ctrl = use_controller()?;
    let id = todo.id;
    let toggle = {
        let ctrl = ctrl.clone();
        move |_| {
            let (ctrl, completed) = (ctrl.clone(), !todo.completed);
            spawn(async move {
                let patch = ctrl
                    .fetch(&TodoResource::partial_update(), params! { id: id })
                    .body(&json!({ "completed": completed }));
                report(error, patch.await.map(drop));
            });
        }
    };
    let delete = move |_| {
        let ctrl = ctrl.clone();
        spawn(async move {
            let gone = ctrl.fetch(&TodoResource::delete(), params! { id: id }).await;
            report(error, gone.map(drop));
        });
    };
    rsx! {
        li { id: "todo-{id}", class: if todo.completed { "done" },
            input { r#type: "checkbox", class: "toggle", checked: todo.completed, onchange: toggle }
            button { class: "title", onclick: move |_| selected.set(Some(id)), "#{id} {todo.title}" }
            button { class: "delete", title: "delete", onclick: delete, "✕" }
        }
    }
}

/// A field and a button that create a todo: the `POST` pushes it onto the list.
#[component]
fn NewTodo(error: Signal<Option<String>>) -> Element {
    let ctrl = use_controller()?;
    let mut title = use_signal(String::new);
    let add = move |_| {
        let ctrl = ctrl.clone();
        let body = json!({ "userId": USER, "title": title(), "completed": false });
        title.set(String::new());
        spawn(async move {
            let made = ctrl
                .fetch(&TodoResource::get_list().push(), params! { userId: USER })
                .body(&body)
                .await;
            report(error, made.map(drop));
        });
    };
    rsx! {
        p {
            input {
                id: "new-title",
                placeholder: "What to do?",
                value: "{title}",
                oninput: move |e| title.set(e.value()),
            }
            button { id: "add", onclick: add, "Add" }
        }
    }
}

/// The detail of one todo: the list put it in the cache, so this read sends no request.
#[component]
fn Detail(id: u64) -> Element {
    let todo = use_suspense(&TodoResource::get(), params! { id: id })?;
    let state = if todo.completed { "completed" } else { "to do" };
    rsx! { "#{todo.id} “{todo.title}” of {todo.user_id}: {state}" }
}

/// Shows a failed mutation's error, or clears the last one.
fn report(mut error: Signal<Option<String>>, outcome: Result<(), restcache::Error>) {
    error.set(outcome.err().map(|e| format!("error: {e}")));
}
