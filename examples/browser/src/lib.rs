//! restcache's main example, live in a web page: the todos of one user, a detail read from the
//! cache without a request, and a checkbox that toggles a todo with a `PATCH`, which the live list
//! shows at once. Plain `web-sys` DOM, no framework.
//!
//! `scripts/wasm.sh serve` builds it and serves it with the demo API, same-origin, at
//! `http://127.0.0.1:3000/app/`.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use restcache::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlInputElement};

/// A todo of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
    completed: bool,
}

resource! {
    /// The todos of the demo API.
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

/// Runs when the module is loaded.
#[wasm_bindgen(start)]
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        if let Err(e) = run().await {
            show_status(&format!("error: {e}"));
        }
    });
}

fn document() -> Document {
    web_sys::window().and_then(|w| w.document()).expect("a page")
}

fn by_id(id: &str) -> Element {
    document().get_element_by_id(id).expect("the page's element")
}

fn show_status(text: &str) {
    by_id("status").set_text_content(Some(text));
}

async fn run() -> Result<(), restcache::Error> {
    // The page is served by the API itself, so requests go to its own origin.
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .expect("a page's origin");
    let ctrl = Rc::new(Controller::builder().base_url(origin).build()?);
    let mut live = ctrl.subscribe(&TodoResource::get_list(), params! { userId: "u1" });
    while let Some(todos) = live.next().await {
        let todos = todos?;
        let done = todos.iter().filter(|t| t.completed).count();
        show_status(&format!("{} todos, {done} completed", todos.len()));
        render(&ctrl, &todos);
    }
    Ok(())
}

/// Draws the list: a checkbox that toggles each todo, and its title, which shows its detail.
fn render(ctrl: &Rc<Controller>, todos: &[Todo]) {
    let doc = document();
    let list = by_id("todos");
    list.set_inner_html("");
    for todo in todos {
        let item = doc.create_element("li").expect("an li");
        if todo.completed {
            item.set_class_name("done");
        }
        let checkbox: HtmlInputElement = doc
            .create_element("input")
            .expect("an input")
            .dyn_into()
            .expect("an input element");
        checkbox.set_type("checkbox");
        checkbox.set_checked(todo.completed);
        let (c, id, completed) = (Rc::clone(ctrl), todo.id, !todo.completed);
        on(&checkbox, "change", move || {
            let c = Rc::clone(&c);
            wasm_bindgen_futures::spawn_local(async move {
                let patch = c
                    .fetch(&TodoResource::partial_update(), params! { id: id })
                    .body(&serde_json::json!({ "completed": completed }));
                if let Err(e) = patch.await {
                    show_status(&format!("error: {e}"));
                }
            });
        });
        let title = doc.create_element("button").expect("a button");
        title.set_text_content(Some(&format!("#{} {}", todo.id, todo.title)));
        let (c, id) = (Rc::clone(ctrl), todo.id);
        on(&title, "click", move || {
            let c = Rc::clone(&c);
            wasm_bindgen_futures::spawn_local(async move {
                // The list put every todo in the cache: this read sends no request.
                let detail = match c.suspense(&TodoResource::get(), params! { id: id }).await {
                    Ok(t) => format!(
                        "#{} “{}” of {}: {}",
                        t.id,
                        t.title,
                        t.user_id,
                        if t.completed { "completed" } else { "to do" }
                    ),
                    Err(e) => format!("error: {e}"),
                };
                by_id("detail").set_text_content(Some(&detail));
            });
        });
        item.append_child(&checkbox).expect("appended");
        item.append_child(&title).expect("appended");
        list.append_child(&item).expect("appended");
    }
}

/// Calls `f` on every `event` of `target`, for the page's lifetime.
fn on(target: &web_sys::EventTarget, event: &str, f: impl Fn() + 'static) {
    let closure = Closure::<dyn Fn()>::new(f);
    target
        .add_event_listener_with_callback(event, closure.as_ref().unchecked_ref())
        .expect("a listener");
    closure.forget();
}
