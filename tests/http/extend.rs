//! Seed §4.4, R-RES-4/5: the three extend forms at run time.

use std::time::Duration;

use restcache::prelude::*;
use restcache::rest::{EndpointOptions, Optimistic};
use restcache::{Error, Method};

use crate::fixtures::*;

#[tokio::test]
async fn r_res_4_override_changes_only_the_named_member() {
    let resource = todos()
        .with_member(
            "get",
            EndpointOptions {
                data_expiry_length: Some(Duration::from_secs(5)),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(resource.get().data_expiry_length(), Duration::from_secs(5));
    assert_eq!(resource.get_list().data_expiry_length(), Duration::from_secs(60));
    // Overriding get's path does not move get_list, which is shortened from the resource path.
    let moved = todos()
        .with_member(
            "get",
            EndpointOptions {
                path: Some("/tasks/:id".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(moved.get().url(&params! { id: 1 }).unwrap(), "/tasks/1");
    assert_eq!(moved.get_list().url(&params! {}).unwrap(), "/todos");
    // A path given to a list member is used verbatim.
    let list = todos()
        .with_member(
            "get_list",
            EndpointOptions {
                path: Some("/users/:user/todos".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(list.get_list().url(&params! { user: "u1" }).unwrap(), "/users/u1/todos");
    assert_eq!(
        list.get_list().push().url(&params! { user: "u1" }).unwrap(),
        "/users/u1/todos",
        "push re-derived"
    );
    assert!(matches!(
        todos().with_member("search", EndpointOptions::default()),
        Err(Error::InvalidConfig { .. })
    ));
}

#[tokio::test]
async fn seed_search_member_with_an_escaped_question_mark() {
    let (server, ctrl) = setup().await;
    let search = todos()
        .get()
        .extend(EndpointOptions {
            path: Some(r"/todos/search\?q=:q?&page=:page?".into()),
            name: Some("Todo.search".into()),
            ..Default::default()
        })
        .unwrap()
        .with_schema::<Vec<Todo>>();
    assert_eq!(search.url(&params! { q: "bug" }).unwrap(), "/todos/search?q=bug&page=");
    let found = ctrl.fetch(&search, params! { q: "todo 1", page: 1 }).await.unwrap();
    assert_eq!(only_request(&server).uri(), "/todos/search?q=todo%201&page=1");
    assert_eq!(ids(&found), [1, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    assert_eq!((search.name(), search.method()), ("Todo.search", &Method::GET));
}

#[tokio::test]
async fn r_res_4_derive_form_starts_from_every_option_of_its_member() {
    let (server, ctrl) = setup().await;
    let user_todos = Resource::<Todo>::new(restcache::rest::ResourceOptions {
        path: "/users/:user_id/todos/:id".into(),
        optimistic: true,
        data_expiry_length: Some(Duration::from_secs(7)),
        ..Default::default()
    })
    .unwrap();
    let done = user_todos
        .get_list()
        .extend(EndpointOptions {
            path: Some("/users/:user_id/todos/done".into()),
            name: Some("Todo.done".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(done.data_expiry_length(), Duration::from_secs(7));
    let list = ctrl.fetch(&done, params! { user_id: "u1" }).await.unwrap();
    assert_eq!(ids(&list), [3, 6, 9]);
    assert_eq!(only_request(&server).uri(), "/users/u1/todos/done");
    // Collection-derived members come along, optimistic like the resource.
    assert_eq!(done.push().optimistic(), Some(Optimistic::Push));
    assert_eq!(user_todos.update().optimistic(), Some(Optimistic::Update));
    assert_eq!(user_todos.get().optimistic(), None);
}

#[test]
fn r_path_2_run_time_templates_are_checked() {
    let err = Resource::<Todo>::new(restcache::rest::ResourceOptions {
        path: "/todos/:".into(),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(&err, Error::InvalidTemplate { index: 7, .. }), "{err:?}");
    let err = Resource::<Todo>::new(restcache::rest::ResourceOptions {
        path: "/todos".into(),
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidTemplate { reason, .. } if reason == "a resource path needs at least one parameter"),
        "{err:?}"
    );
    let err = todos()
        .get()
        .extend(EndpointOptions {
            path: Some("/a/(b)/:id".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(matches!(err, Error::InvalidTemplate { index: 3, .. }));
    assert!(matches!(
        restcache::RestEndpoint::<Todo>::builder("/x/{/static}").build(),
        Err(Error::InvalidTemplate { .. })
    ));
}

#[test]
fn r_res_6_collection_and_non_filter_argument_keys_conflict() {
    use restcache::rest::{NonFilterKeys, ResourceOptions};
    use std::sync::Arc;
    #[derive(Default)]
    struct Policy;
    impl CollectionPolicy for Policy {}
    let err = Resource::<Todo>::new(ResourceOptions {
        path: "/todos/:id".into(),
        collection: Some(Arc::new(Policy)),
        non_filter_argument_keys: Some(NonFilterKeys::Keys(vec!["sort".into()])),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }));
}

/// R-RES-6: a poll period under 1 ms (a busy loop of requests) is refused at run time, as the
/// macro refuses it at compile time; 1 ms is allowed.
#[test]
fn r_res_6_a_poll_frequency_under_a_millisecond_is_refused() {
    let poll = |every: Duration| {
        todos().get().extend(EndpointOptions {
            poll_frequency: Some(every),
            ..Default::default()
        })
    };
    for every in [Duration::ZERO, Duration::from_nanos(1), Duration::from_micros(999)] {
        match poll(every) {
            Err(Error::InvalidConfig { reason }) => assert!(reason.contains("at least 1 ms"), "{reason}"),
            other => panic!("{every:?}: {other:?}"),
        }
    }
    assert_eq!(
        poll(Duration::from_millis(1)).unwrap().poll_frequency(),
        Some(Duration::from_millis(1))
    );
}

/// R-OPTM-1: reads are never optimistic: a member extended into a GET drops its transform, so
/// no read can leave an optimistic layer behind.
#[test]
fn r_optm_1_a_member_turned_into_a_get_is_not_optimistic() {
    let patch = todos()
        .with_member(
            "partial_update",
            EndpointOptions {
                optimistic: Some(true),
                ..Default::default()
            },
        )
        .unwrap()
        .partial_update();
    assert!(patch.optimistic().is_some());
    let read = patch
        .extend(EndpointOptions {
            method: Some(Method::GET),
            ..Default::default()
        })
        .unwrap();
    assert!(read.optimistic().is_none());
    // Overridden in place, with `optimistic` said again: still a read.
    let overridden = todos()
        .with_member(
            "partial_update",
            EndpointOptions {
                method: Some(Method::GET),
                optimistic: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(overridden.partial_update().optimistic().is_none());
}

#[test]
fn r_res_1_get_page_needs_a_pagination_field() {
    assert!(matches!(
        users().get_list().paginated(),
        Err(Error::InvalidConfig { .. })
    ));
    assert_eq!(
        todos().get_list().paginated().unwrap().get_page().name(),
        "Todo.get_list.get_page"
    );
    assert_eq!(todos().get_list().push().name(), "Todo.get_list.push");
}
