//! Mounts the todo app on the page's body, with a Controller for the page's own origin (the
//! demo API serves the page). See `src/lib.rs`.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    use leptos_todos::App;
    use restcache::Controller;
    use restcache_leptos::provide_controller;

    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    match Controller::builder().base_url(origin).build() {
        Ok(ctrl) => leptos::mount::mount_to_body(move || {
            provide_controller(ctrl.clone());
            view! { <App/> }
        }),
        Err(e) => leptos::mount::mount_to_body(move || format!("error: {e}")),
    }
}

/// The app runs only in the browser.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
