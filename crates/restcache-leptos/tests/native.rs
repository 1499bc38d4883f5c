//! What the bindings do outside the browser, where Leptos runs no effects: the first value of a
//! live status, and errors (never panics) for what a caller got wrong. The live behaviour is
//! tested in the browser, through `examples/leptos-todos/tests/browser.rs`.

use leptos::prelude::*;
use restcache::controller::ReadStatus;
use restcache::prelude::*;
use restcache_leptos::{provide_controller, use_live};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, Entity)]
struct Todo {
    #[entity(pk)]
    id: u64,
    title: String,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

#[test]
fn use_live_starts_from_what_the_cache_has() {
    let ctrl = Controller::new();
    ctrl.set_response(
        &TodoResource::get(),
        params! { id: 1 },
        json!({ "id": 1, "title": "cached" }),
    )
    .unwrap();
    Owner::new().with(|| {
        provide_controller(ctrl.clone());
        let cached = use_live(&TodoResource::get(), || params! { id: 1 });
        let ReadStatus::Ready(todo) = cached.get_untracked() else {
            panic!("{:?}", cached.get_untracked())
        };
        assert_eq!(todo.title, "cached");
        let missing = use_live(&TodoResource::get(), || params! { id: 2 });
        assert!(matches!(missing.get_untracked(), ReadStatus::Loading));
    });
}

#[test]
fn r_err_use_live_gives_errors_for_bad_args_a_mutation_or_no_controller() {
    Owner::new().with(|| {
        let orphan = use_live(&TodoResource::get(), || params! { id: 1 });
        let ReadStatus::Error { error, data: None } = orphan.get_untracked() else {
            panic!()
        };
        assert!(error.to_string().contains("provide_controller"), "{error}");

        provide_controller(Controller::new());
        let no_id = use_live(&TodoResource::get(), || params! {});
        let ReadStatus::Error { error, .. } = no_id.get_untracked() else {
            panic!()
        };
        assert!(matches!(error, restcache::Error::MissingParam { .. }), "{error}");
        let mutation = use_live(&TodoResource::partial_update(), || params! { id: 1 });
        let ReadStatus::Error { error, .. } = mutation.get_untracked() else {
            panic!()
        };
        assert!(matches!(error, restcache::Error::InvalidConfig { .. }), "{error}");
    });
}
