//! The Leptos binding off the page: in a dedicated Web Worker, which has no window and no
//! document, an app may keep a Controller too. `provide_controller` provides it there and, with
//! no window to follow, registers no listeners instead of panicking (R-ERR-2).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use restcache::Controller;
use restcache_leptos::{provide_controller, try_use_controller};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn r_err_2_provide_controller_in_a_worker_provides_it_with_no_window() {
    assert!(web_sys::window().is_none(), "a worker has no window");
    let ctrl = Controller::builder()
        .base_url("http://127.0.0.1:9")
        .build()
        .expect("a Controller");
    Owner::new().with(|| {
        provide_controller(ctrl);
        assert!(try_use_controller().is_ok(), "provided");
    });
}
