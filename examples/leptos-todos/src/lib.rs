//! restcache's todo list as a Leptos 0.8 app, on `restcache_leptos`: the todos of one user
//! (a `<Transition>` over `use_suspense`, live), a summary line (`use_live`), a detail read
//! from the cache without a request, a checkbox that toggles a todo with a `PATCH`, a form that
//! creates one with a `POST`, and a button that deletes one with a `DELETE`. Every change
//! reaches the list from the cache, with no refetch.
//!
//! The root component is `App`; `src/main.rs` mounts it, and the browser tests
//! (`tests/browser.rs`) mount it too. `scripts/wasm.sh serve leptos` builds it and serves it with
//! the demo API, same-origin, at `http://127.0.0.1:3000/app/`.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use leptos::task::spawn_local;
use restcache::prelude::*;
use restcache_leptos::{use_controller, use_live, use_suspense};
use serde::{Deserialize, Serialize};

/// A todo of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    /// Its id.
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
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

/// The user whose todos the app shows.
pub const USER: &str = "u1";

/// The app: a [`Controller`] must be provided (`restcache_leptos::provide_controller`).
#[component]
pub fn App() -> impl IntoView {
    let todos = use_suspense(&TodoResource::get_list(), || params! { userId: USER });
    let selected = RwSignal::new(None::<u64>);
    let error = RwSignal::new(None::<String>);
    view! {
        <h1>"Todos of user " {USER}</h1>
        <Summary/>
        <p id="error">{move || error.get()}</p>
        <NewTodo error/>
        <Transition fallback=|| view! { <p id="loading">"loading…"</p> }>
            <ul id="todos">
                {move || Suspend::new(async move {
                    match todos.await {
                        Ok(todos) => todos
                            .iter()
                            .map(|todo| view! { <TodoItem todo=todo.clone() selected error/> })
                            .collect_view()
                            .into_any(),
                        Err(e) => view! { <li class="error">{e.to_string()}</li> }.into_any(),
                    }
                })}
            </ul>
        </Transition>
        <h2>"Detail, read from the cache"</h2>
        <div id="detail">
            <Show when=move || selected.get().is_some() fallback=|| "Click a todo.">
                <Detail id=Signal::derive(move || selected.get().unwrap_or_default())/>
            </Show>
        </div>
    }
}

/// How many todos, how many done, and whether a refetch runs: the list's [`ReadStatus`].
#[component]
fn Summary() -> impl IntoView {
    let status = use_live(&TodoResource::get_list(), || params! { userId: USER });
    let count = |todos: &[Todo]| {
        let done = todos.iter().filter(|t| t.completed).count();
        format!("{} todos, {done} completed", todos.len())
    };
    view! {
        <p id="status">
            {move || match status.get() {
                ReadStatus::Loading => "loading…".to_string(),
                ReadStatus::Ready(todos) => count(&todos),
                ReadStatus::Fetching(todos) => format!("{} (refreshing…)", count(&todos)),
                ReadStatus::Error { error, .. } => format!("error: {error}"),
            }}
        </p>
    }
}

/// One todo: a checkbox that toggles it, its title (which selects it), and a delete button.
#[component]
fn TodoItem(todo: Todo, selected: RwSignal<Option<u64>>, error: RwSignal<Option<String>>) -> impl IntoView {
    let ctrl = use_controller();
    let (id, completed) = (todo.id, todo.completed);
    let toggle = {
        let ctrl = ctrl.clone();
        move |_| {
            let patch = ctrl
                .fetch(&TodoResource::partial_update(), params! { id: id })
                .body(&serde_json::json!({ "completed": !completed }));
            spawn_local(async move { report(error, patch.await) });
        }
    };
    let delete = move |_| {
        let delete = ctrl.fetch(&TodoResource::delete(), params! { id: id });
        spawn_local(async move { report(error, delete.await) });
    };
    view! {
        <li data-id=id class:done=completed>
            <input type="checkbox" prop:checked=completed on:change=toggle/>
            <button class="title" on:click=move |_| selected.set(Some(id))>
                {format!("#{id} {}", todo.title)}
            </button>
            <button class="delete" title="delete" on:click=delete>"✕"</button>
        </li>
    }
}

/// A form that creates a todo for [`USER`]; the list shows it once the `POST` answers.
#[component]
fn NewTodo(error: RwSignal<Option<String>>) -> impl IntoView {
    let ctrl = use_controller();
    let title = RwSignal::new(String::new());
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = serde_json::json!({ "userId": USER, "title": title.get_untracked() });
        let post = ctrl
            .fetch(&TodoResource::get_list().push(), params! { userId: USER })
            .body(&body);
        title.set(String::new());
        spawn_local(async move { report(error, post.await) });
    };
    view! {
        <form on:submit=create>
            <input id="new-title" placeholder="a new todo" bind:value=title/>
            <button id="add" type="submit">"Add"</button>
        </form>
    }
}

/// The selected todo, read from the cache: the list put it there, so this sends no request.
/// It stays live: toggling the todo in the list shows here too.
#[component]
fn Detail(id: Signal<u64>) -> impl IntoView {
    let todo = use_suspense(&TodoResource::get(), move || params! { id: id.get() });
    view! {
        <Suspense fallback=|| "loading…">
            {move || todo.get().map(|todo| match todo {
                Ok(t) => format!(
                    "#{} “{}” of {}: {}",
                    t.id,
                    t.title,
                    t.user_id,
                    if t.completed { "completed" } else { "to do" },
                ),
                Err(e) => format!("error: {e}"),
            })}
        </Suspense>
    }
}

/// Shows a mutation's error, or clears the last one.
fn report<T>(error: RwSignal<Option<String>>, outcome: Result<T, restcache::Error>) {
    error.set(outcome.err().map(|e| format!("error: {e}")));
}
