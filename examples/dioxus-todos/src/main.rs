//! The todo app on the page's `#main`, against the API that serves the page (see the library's
//! docs). Natively there is nothing to run.

#[cfg(target_arch = "wasm32")]
fn main() {
    let Some(window) = web_sys::window() else { return };
    let origin = window.location().origin().unwrap_or_default();
    match window.document().and_then(|d| d.get_element_by_id("main")) {
        Some(root) => dioxus_todos::launch(root, &origin),
        None => web_sys::console::error_1(&"dioxus-todos: the page has no #main".into()),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("dioxus-todos runs in the browser: scripts/wasm.sh serve dioxus");
}
