//! What `resource!` generates, seen without a network: each member's URL, key, name, method,
//! `test_key`, options and types, and the parameter structs.

use std::time::Duration;

use restcache::prelude::*;
use restcache::rest::{AnyBody, EndpointHooks, Optimistic, Pages};
use restcache::schema::CollectionPolicy;
use restcache::{Method, RestEndpoint};
use restcache_macros::resource;
use serde::{Deserialize, Serialize};
use serde_json::json;

type Result<T = ()> = std::result::Result<T, Error>;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
pub struct User {
    #[entity(pk)]
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
#[entity(key = "Todo")]
pub struct Todo {
    #[entity(pk)]
    pub id: String,
    pub title: String,
    pub completed: bool,
    #[entity(schema)]
    pub owner: Option<User>,
}

/// The body of push, unshift and update.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TodoInput {
    pub title: String,
}

/// The list's query parameters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TodoFilter {
    pub completed: Option<bool>,
}

/// Request hooks (the defaults).
#[derive(Default)]
pub struct AuthEndpoint;

impl EndpointHooks for AuthEndpoint {}

/// `sort` does not filter.
#[derive(Default)]
pub struct TodoCollection;

impl CollectionPolicy for TodoCollection {
    fn non_filter_argument_keys(&self, key: &str) -> bool {
        key == "sort"
    }
}

/// A page of todos.
#[derive(Clone, Debug, Default, Schema)]
pub struct TodoPage {
    #[schema(nested)]
    pub results: Collection<Vec<Todo>>,
    pub total: u64,
}

// ---------------------------------------------------------------------------------------------
// The DESIGN §3 example

resource! {
    /// Todos of one user.
    #[resource(
        path = "/users/:user_id/todos/:id",
        schema = Todo,
        url_prefix = "http://127.0.0.1:3000",
        search_params = TodoFilter,
        body = TodoInput,
        pagination_field = "page",
        optimistic,
        endpoint = AuthEndpoint,
        collection = TodoCollection,
        poll_frequency = 60_000,
    )]
    #[derive(Clone, Copy, Debug)]
    pub struct TodoResource {
        /// The list reads pages.
        #[member(schema = TodoPage)]
        get_list,
        #[member(path = "/todos/search\\?q=:q?&page=:page?", schema = Vec<Todo>)]
        search,
        #[member(extends = get_list, path = "/users/:user_id/todos/done")]
        done,
        #[member(method = "DELETE", path = "/todos", body = Vec<String>, schema = Vec<Invalidate<Todo>>)]
        delete_many,
    }
}

const PREFIX: &str = "http://127.0.0.1:3000";

#[test]
fn the_struct_keeps_its_attributes() {
    // `#[derive(Clone, Copy, Debug)]` went through to the struct.
    let r = TodoResource;
    let copy = r;
    assert_eq!(format!("{r:?} {copy:?}"), "TodoResource TodoResource");
}

#[test]
fn get_renders_the_full_path_after_the_prefix() -> Result {
    let get = TodoResource::get();
    let args = params! { user_id: "u1", id: "5", sort: "asc" };
    assert_eq!(get.url(&args)?, format!("{PREFIX}/users/u1/todos/5?sort=asc"));
    assert_eq!(
        get.key(&params! { user_id: "u1", id: "5" })?,
        format!("GET {PREFIX}/users/u1/todos/5")
    );
    assert_eq!(get.name(), "Todo.get");
    assert_eq!(get.method(), &Method::GET);
    assert_eq!(get.path(), "/users/:user_id/todos/:id");
    assert_eq!(get.url_prefix(), PREFIX);
    assert!(get.test_key(&format!("GET {PREFIX}/users/u2/todos/7")));
    assert!(get.test_key(&format!("GET {PREFIX}/users/u2/todos/7?x=1")));
    assert!(!get.test_key(&format!("GET {PREFIX}/users/u2/todos")));
    assert!(!get.test_key(&format!("PUT {PREFIX}/users/u2/todos/7")));
    assert!(!get.test_key("GET /users/u2/todos/7"), "the prefix is part of the key");
    Ok(())
}

#[test]
fn get_list_uses_the_shortened_path_and_its_args_filter() -> Result {
    let list = TodoResource::get_list();
    let args = params! { user_id: "u1", completed: true };
    assert_eq!(list.url(&args)?, format!("{PREFIX}/users/u1/todos?completed=true"));
    assert_eq!(list.key(&args)?, format!("GET {PREFIX}/users/u1/todos?completed=true"));
    assert_eq!(list.name(), "Todo.get_list");
    assert_eq!(list.method(), &Method::GET);
    assert_eq!(list.path(), "/users/:user_id/todos");
    assert_eq!(list.pagination_field(), Some("page"));
    assert!(list.test_key(&format!("GET {PREFIX}/users/u1/todos")));
    assert!(list.test_key(&format!("GET {PREFIX}/users/u1/todos?completed=true")));
    assert!(!list.test_key(&format!("GET {PREFIX}/users/u1/todos/5")));
    Ok(())
}

#[test]
fn push_unshift_and_get_page_derive_from_the_overridden_list() -> Result {
    // The override changed get_list's schema; push, unshift and get_page follow it.
    let list: RestEndpoint<TodoPage, TodoInput, Pages> = TodoResource::get_list();
    let push: RestEndpoint<Push<TodoPage>, TodoInput> = list.push();
    let unshift: RestEndpoint<Unshift<TodoPage>, TodoInput> = list.unshift();
    let page: RestEndpoint<Page<TodoPage>, TodoInput> = list.get_page();
    let args = params! { user_id: "u1" };
    assert_eq!(push.key(&args)?, format!("POST {PREFIX}/users/u1/todos"));
    assert_eq!(push.name(), "Todo.get_list.push");
    assert_eq!(push.method(), &Method::POST);
    assert!(push.test_key(&format!("POST {PREFIX}/users/u1/todos")));
    assert!(!push.test_key(&format!("GET {PREFIX}/users/u1/todos")));
    assert_eq!(unshift.name(), "Todo.get_list.unshift");
    assert_eq!(unshift.key(&args)?, format!("POST {PREFIX}/users/u1/todos"));
    let page_args = params! { user_id: "u1", completed: false, page: 2 };
    assert_eq!(page.name(), "Todo.get_list.get_page");
    assert_eq!(
        page.url(&page_args)?,
        format!("{PREFIX}/users/u1/todos?completed=false&page=2")
    );
    assert_eq!(
        page.key(&page_args)?,
        format!("GET {PREFIX}/users/u1/todos?completed=false"),
        "a page is keyed as its list (R-PAGE-2)"
    );
    assert!(page.test_key(&format!("GET {PREFIX}/users/u1/todos?completed=false")));
    Ok(())
}

#[test]
fn update_partial_update_and_delete_use_the_full_path() -> Result {
    let args = params! { user_id: "u1", id: "5" };
    let update: RestEndpoint<Todo, TodoInput> = TodoResource::update();
    let partial: RestEndpoint<Todo, AnyBody> = TodoResource::partial_update();
    let delete: RestEndpoint<Invalidate<Todo>, AnyBody> = TodoResource::delete();
    let cases = [
        (
            update.key(&args)?,
            update.name(),
            update.method().clone(),
            update.test_key(&format!("PUT {PREFIX}/users/a/todos/b")),
        ),
        (
            partial.key(&args)?,
            partial.name(),
            partial.method().clone(),
            partial.test_key(&format!("PATCH {PREFIX}/users/a/todos/b")),
        ),
        (
            delete.key(&args)?,
            delete.name(),
            delete.method().clone(),
            delete.test_key(&format!("DELETE {PREFIX}/users/a/todos/b")),
        ),
    ];
    let want = [
        (format!("PUT {PREFIX}/users/u1/todos/5"), "Todo.update", Method::PUT),
        (
            format!("PATCH {PREFIX}/users/u1/todos/5"),
            "Todo.partial_update",
            Method::PATCH,
        ),
        (
            format!("DELETE {PREFIX}/users/u1/todos/5"),
            "Todo.delete",
            Method::DELETE,
        ),
    ];
    for ((key, name, method, matches), (want_key, want_name, want_method)) in cases.into_iter().zip(want) {
        assert_eq!((key, name, method, matches), (want_key, want_name, want_method, true));
    }
    assert!(!update.test_key(&format!("GET {PREFIX}/users/a/todos/b")));
    Ok(())
}

#[test]
fn the_add_form_starts_from_get() -> Result {
    let search: RestEndpoint<Vec<Todo>, TodoInput> = TodoResource::search();
    assert_eq!(search.name(), "Todo.search");
    assert_eq!(search.method(), &Method::GET);
    assert_eq!(search.path(), r"/todos/search\?q=:q?&page=:page?");
    assert_eq!(
        search.url(&params! { q: "bug" })?,
        format!("{PREFIX}/todos/search?q=bug&page=")
    );
    assert_eq!(
        search.key(&params! { q: "bug", page: 2, sort: "asc" })?,
        format!("GET {PREFIX}/todos/search?q=bug&page=2&sort=asc")
    );
    assert!(search.test_key(&format!("GET {PREFIX}/todos/search?q=bug&page=")));
    assert!(!search.test_key(&format!("GET {PREFIX}/users/u1/todos/5")));
    // get's options: prefix, polling; no optimistic transform, no pagination.
    assert_eq!(search.url_prefix(), PREFIX);
    assert_eq!(search.poll_frequency(), Some(Duration::from_secs(60)));
    assert_eq!(search.optimistic(), None);
    assert_eq!(search.pagination_field(), None);
    Ok(())
}

#[test]
fn the_derive_form_starts_from_every_option_of_its_base() -> Result {
    let done: RestEndpoint<TodoPage, TodoInput, Pages> = TodoResource::done();
    assert_eq!(done.name(), "Todo.done");
    assert_eq!(done.method(), &Method::GET);
    assert_eq!(
        done.url(&params! { user_id: "u1", sort: "title" })?,
        format!("{PREFIX}/users/u1/todos/done?sort=title")
    );
    assert_eq!(done.pagination_field(), Some("page"), "inherited from get_list");
    let push = done.push();
    assert_eq!(push.name(), "Todo.done.push");
    assert_eq!(
        push.key(&params! { user_id: "u1" })?,
        format!("POST {PREFIX}/users/u1/todos/done")
    );
    assert_eq!(push.optimistic(), Some(Optimistic::Push));
    assert_eq!(
        done.get_page().key(&params! { user_id: "u1", page: 3 })?,
        format!("GET {PREFIX}/users/u1/todos/done")
    );
    Ok(())
}

#[test]
fn the_batch_delete_member_sends_delete_with_a_body() -> Result {
    let delete_many: RestEndpoint<Vec<Invalidate<Todo>>, Vec<String>> = TodoResource::delete_many();
    assert_eq!(delete_many.name(), "Todo.delete_many");
    assert_eq!(delete_many.method(), &Method::DELETE);
    assert_eq!(delete_many.path(), "/todos");
    assert_eq!(delete_many.key(&params! {})?, format!("DELETE {PREFIX}/todos"));
    assert!(delete_many.test_key(&format!("DELETE {PREFIX}/todos")));
    assert!(!delete_many.test_key(&format!("DELETE {PREFIX}/todos/5")));
    Ok(())
}

#[test]
fn optimistic_gives_each_mutation_its_transform() {
    assert_eq!(TodoResource::get().optimistic(), None);
    assert_eq!(TodoResource::get_list().optimistic(), None);
    assert_eq!(TodoResource::update().optimistic(), Some(Optimistic::Update));
    assert_eq!(
        TodoResource::partial_update().optimistic(),
        Some(Optimistic::PartialUpdate)
    );
    assert_eq!(TodoResource::delete().optimistic(), Some(Optimistic::Delete));
    assert_eq!(TodoResource::get_list().push().optimistic(), Some(Optimistic::Push));
    assert_eq!(
        TodoResource::get_list().unshift().optimistic(),
        Some(Optimistic::Unshift)
    );
    assert_eq!(TodoResource::get_list().get_page().optimistic(), None);
    // The add form has none, even as a DELETE (R-RES-4).
    assert_eq!(TodoResource::delete_many().optimistic(), None);
}

#[test]
fn resource_options_reach_every_member() {
    let sixty = Some(Duration::from_secs(60));
    assert_eq!(TodoResource::get().poll_frequency(), sixty);
    assert_eq!(TodoResource::get_list().poll_frequency(), sixty);
    assert_eq!(TodoResource::get_list().push().poll_frequency(), sixty);
    assert_eq!(TodoResource::delete().poll_frequency(), sixty);
    assert_eq!(TodoResource::done().poll_frequency(), sixty);
    // Defaults where nothing was said (R-RES-6).
    assert_eq!(TodoResource::get().data_expiry_length(), Duration::from_secs(60));
    assert_eq!(TodoResource::get().error_expiry_length(), Duration::from_secs(1));
    assert!(!TodoResource::get().invalid_if_stale());
}

#[test]
fn parameter_structs_follow_each_distinct_path() -> Result {
    let item = TodoResourceParams {
        user_id: "u1".into(),
        id: "5".into(),
    };
    assert_eq!(
        serde_json::to_value(&item).unwrap(),
        json!({ "user_id": "u1", "id": "5" })
    );
    assert_eq!(TodoResource::get().url(&item)?, format!("{PREFIX}/users/u1/todos/5"));
    assert_eq!(
        TodoResource::update().key(&item)?,
        format!("PUT {PREFIX}/users/u1/todos/5")
    );

    let list = TodoResourceListParams { user_id: "u1".into() };
    assert_eq!(serde_json::to_value(&list).unwrap(), json!({ "user_id": "u1" }));
    assert_eq!(TodoResource::get_list().url(&list)?, format!("{PREFIX}/users/u1/todos"));

    // Optional parameters are `Option`s, left out when `None`.
    let search = TodoResourceSearchParams {
        q: Some("bug".into()),
        page: None,
    };
    assert_eq!(serde_json::to_value(&search).unwrap(), json!({ "q": "bug" }));
    assert_eq!(
        TodoResource::search().url(&search)?,
        format!("{PREFIX}/todos/search?q=bug&page=")
    );
    assert_eq!(
        serde_json::to_value(TodoResourceSearchParams::default()).unwrap(),
        json!({})
    );

    let done = TodoResourceDoneParams { user_id: "u2".into() };
    assert_eq!(
        TodoResource::done().url(&done)?,
        format!("{PREFIX}/users/u2/todos/done")
    );

    // A path with no parameter has an empty struct.
    assert_eq!(
        serde_json::to_value(TodoResourceDeleteManyParams {}).unwrap(),
        json!({})
    );
    assert_eq!(TodoResourceDeleteManyParams::default(), TodoResourceDeleteManyParams {});
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The seed's search path, without a prefix; the smallest resource

resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct Todos {
        #[member(path = "/todos/search\\?q=:q?&page=:page?", schema = Vec<Todo>)]
        search,
    }
}

resource! {
    #[resource(path = "/users/:id", schema = User)]
    struct Users;
}

#[test]
fn the_seed_search_path_renders_its_optional_parameters() -> Result {
    assert_eq!(Todos::search().url(&params! { q: "bug" })?, "/todos/search?q=bug&page=");
    assert_eq!(
        Todos::search().url(&params! { q: "bug", page: 2 })?,
        "/todos/search?q=bug&page=2"
    );
    assert_eq!(Todos::search().key(&params! {})?, "GET /todos/search?q=&page=");
    Ok(())
}

#[test]
fn a_resource_without_options_has_the_standard_members() -> Result {
    let get: RestEndpoint<User> = Users::get();
    let list: RestEndpoint<Collection<Vec<User>>> = Users::get_list();
    assert_eq!(get.key(&params! { id: "a" })?, "GET /users/a");
    assert_eq!(list.key(&params! { sort: "name" })?, "GET /users?sort=name");
    assert_eq!(list.pagination_field(), None);
    assert_eq!(Users::delete().key(&params! { id: "a" })?, "DELETE /users/a");
    assert_eq!(Users::update().optimistic(), None, "not optimistic");
    assert_eq!(Users::get_list().push().name(), "User.get_list.push");
    assert_eq!(UsersListParams {}, UsersListParams::default());
    assert_eq!(
        serde_json::to_value(UsersParams { id: "a".into() }).unwrap(),
        json!({ "id": "a" })
    );
    Ok(())
}

resource! {
    #[resource(path = "/games/:gen/:type", schema = User)]
    struct Games;
}

/// Parameters named like keywords become raw fields: `type`, and `gen`, which edition 2024
/// reserves (this crate is on it), so a plain field `gen` would not compile.
#[test]
fn parameters_named_like_keywords_are_raw_fields() -> Result {
    let params = GamesParams {
        r#gen: "3".into(),
        r#type: "rpg".into(),
    };
    assert_eq!(Games::get().url(&params)?, "/games/3/rpg");
    Ok(())
}

resource! {
    #[resource(path = "/repos/:owner/*path{/:rev}", schema = User)]
    pub struct Files;
}

#[test]
fn wildcards_are_lists_and_grouped_parameters_are_options() -> Result {
    let params = FilesParams {
        owner: "ada".into(),
        path: vec!["src".into(), "a b.rs".into()],
        rev: None,
    };
    assert_eq!(
        serde_json::to_value(&params).unwrap(),
        json!({ "owner": "ada", "path": ["src", "a b.rs"] })
    );
    assert_eq!(Files::get().url(&params)?, "/repos/ada/src/a%20b.rs");
    let at_rev = FilesParams {
        rev: Some("v1".into()),
        ..params
    };
    assert_eq!(Files::get().url(&at_rev)?, "/repos/ada/src/a%20b.rs/v1");
    // The list path drops the group: `/repos/:owner/*path`.
    assert_eq!(Files::get_list().path(), "/repos/:owner/*path");
    let list = FilesListParams {
        owner: "ada".into(),
        path: vec!["docs".into()],
    };
    assert_eq!(Files::get_list().url(&list)?, "/repos/ada/docs");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Expiry, polling and the other member options

/// `orderBy` and `sort` do not filter.
fn not_a_filter(key: &str) -> bool {
    key == "orderBy"
}

resource! {
    #[resource(
        path = "/articles/:slug",
        schema = User,
        url_prefix = "https://api.example.com/v1",
        data_expiry_length = 30_000,
        error_expiry_length = 500,
        invalid_if_stale,
        non_filter_argument_keys = not_a_filter,
    )]
    pub(crate) struct Articles {
        #[member(
            data_expiry_length = 5_000,
            error_expiry_length = 250,
            poll_frequency = 1_000,
            invalid_if_stale = false,
            name = "Articles.read",
        )]
        get,
        #[member(body = TodoInput)]
        update,
        #[member(
            extends = update,
            method = "post",
            path = "/articles/:slug/publish",
            url_prefix = "https://admin.example.com",
            endpoint = AuthEndpoint,
            search_params = TodoFilter,
            optimistic,
        )]
        publish,
        #[member(extends = publish, name = "Articles.republish", pagination_field = "page")]
        republish,
    }
}

resource! {
    #[resource(path = "/tags/:name", schema = User, non_filter_argument_keys = ["orderBy", "sort"])]
    struct Tags;
}

#[test]
fn expiry_options_apply_to_every_member_unless_a_member_overrides_them() {
    let list = Articles::get_list();
    assert_eq!(list.data_expiry_length(), Duration::from_secs(30));
    assert_eq!(list.error_expiry_length(), Duration::from_millis(500));
    assert!(list.invalid_if_stale());
    assert_eq!(list.poll_frequency(), None);

    let get = Articles::get();
    assert_eq!(get.data_expiry_length(), Duration::from_secs(5));
    assert_eq!(get.error_expiry_length(), Duration::from_millis(250));
    assert_eq!(get.poll_frequency(), Some(Duration::from_secs(1)));
    assert!(!get.invalid_if_stale());
    assert_eq!(get.name(), "Articles.read", "`name` replaces `K.get`");
}

#[test]
fn a_derived_member_changes_method_and_prefix_and_keeps_the_body_type() -> Result {
    // `update`'s overridden body type, inherited.
    let _: RestEndpoint<User, TodoInput> = Articles::update();
    let publish: RestEndpoint<User, TodoInput> = Articles::publish();
    assert_eq!(publish.method(), &Method::POST, "methods are case-insensitive");
    assert_eq!(publish.name(), "User.publish");
    assert_eq!(
        publish.key(&params! { slug: "hello" })?,
        "POST https://admin.example.com/articles/hello/publish"
    );
    // Inherited from `update`: the expiry of the resource.
    assert_eq!(publish.data_expiry_length(), Duration::from_secs(30));

    let republish: RestEndpoint<User, TodoInput, Pages> = Articles::republish();
    assert_eq!(republish.name(), "Articles.republish");
    assert_eq!(republish.pagination_field(), Some("page"));
    assert_eq!(
        republish.url(&params! { slug: "hello" })?,
        "https://admin.example.com/articles/hello/publish"
    );
    assert_eq!(
        ArticlesPublishParams { slug: "s".into() },
        ArticlesPublishParams { slug: "s".into() }
    );
    Ok(())
}

resource! {
    #[resource(path = "/people/:id", schema = User, body = TodoInput)]
    struct People {
        #[member(schema = Option<User>)]
        get,
        #[member(body = Vec<String>)]
        partial_update,
        #[member(body = Vec<String>, name = "People.remove")]
        delete,
        lookup,
        #[member(extends = get, method = "PATCH", path = "/people/:id/tags", body = Vec<String>)]
        tag,
    }
}

#[test]
fn schema_and_body_overrides_retype_the_members() -> Result {
    let get: RestEndpoint<Option<User>, TodoInput> = People::get();
    let partial: RestEndpoint<User, Vec<String>> = People::partial_update();
    let delete: RestEndpoint<Invalidate<User>, Vec<String>> = People::delete();
    assert_eq!(get.name(), "User.get");
    assert_eq!(partial.method(), &Method::PATCH);
    assert_eq!(delete.name(), "People.remove");
    assert_eq!(delete.key(&params! { id: "p" })?, "DELETE /people/p");
    // The add form reads the entity whatever `get` reads, with `get`'s body type.
    let lookup: RestEndpoint<User, TodoInput> = People::lookup();
    assert_eq!(lookup.key(&params! { id: "p" })?, "GET /people/p");
    assert_eq!(lookup.name(), "User.lookup");
    // The derive form keeps its base's schema, here `get`'s override.
    let tag: RestEndpoint<Option<User>, Vec<String>> = People::tag();
    assert_eq!(tag.key(&params! { id: "p" })?, "PATCH /people/p/tags");
    assert_eq!(PeopleTagParams { id: "p".into() }.id, "p");
    Ok(())
}

#[test]
fn non_filter_argument_keys_take_a_function_or_a_list() -> Result {
    assert_eq!(
        Articles::get_list().key(&params! { orderBy: "date" })?,
        "GET https://api.example.com/v1/articles?orderBy=date"
    );
    assert_eq!(Tags::get_list().key(&params! { sort: "name" })?, "GET /tags?sort=name");
    assert!(not_a_filter("orderBy"));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A generic page object as the list schema

#[derive(Clone, Debug, Default, Schema)]
pub struct Paginated<E> {
    #[schema(nested)]
    results: Collection<Vec<E>>,
    total: u64,
    limit: u64,
    skip: u64,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo, pagination_field = "skip")]
    pub struct PagedTodos {
        #[member(schema = Paginated<Todo>)]
        get_list,
    }
}

#[test]
fn an_overridden_list_schema_types_push_and_get_page() -> Result {
    let list: RestEndpoint<Paginated<Todo>, AnyBody, Pages> = PagedTodos::get_list();
    let push: RestEndpoint<Push<Paginated<Todo>>> = list.push();
    let page: RestEndpoint<Page<Paginated<Todo>>> = list.get_page();
    assert_eq!(push.key(&params! {})?, "POST /todos");
    assert_eq!(page.key(&params! { skip: 30 })?, "GET /todos");
    assert_eq!(page.url(&params! { skip: 30 })?, "/todos?skip=30");

    // And the store reads through it: the push joins the page's collection.
    let mut store = Store::new();
    store.set_response::<Paginated<Todo>>(
        &list.key(&())?,
        &(),
        &json!({ "results": [{ "id": "1", "title": "a" }], "total": 2, "limit": 1, "skip": 0 }),
    )?;
    store.set_response::<Push<Paginated<Todo>>>(&push.key(&())?, &(), &json!({ "id": "2", "title": "b" }))?;
    let read = store
        .get_response::<Paginated<Todo>>("GET /todos", &())?
        .data
        .expect("stored");
    assert_eq!(
        read.results.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["1", "2"]
    );
    assert_eq!((read.total, read.limit, read.skip), (2, 1, 0));
    Ok(())
}

resource! {
    #[resource(path = "/notes/:id", schema = User)]
    struct Notes {
        /// A raw identifier names the same standard member.
        #[member(path = "/notes/by-id/:id")]
        r#get,
    }
}

#[test]
fn a_raw_identifier_overrides_the_standard_member_it_names() -> Result {
    assert_eq!(Notes::get().path(), "/notes/by-id/:id");
    assert_eq!(Notes::get().url(&params! { id: "1" })?, "/notes/by-id/1");
    Ok(())
}
