//! R-KEY-3: every worked example row (1–18). Resource A is `/:group/posts/:id` with
//! `pagination_field = "page"`; list members use its shortened path.

use restcache_path::{KeyPattern, NESTED_QUERY_REASON, RenderError, Template, cache_key};
use serde_json::{Map, Value, json};

const A: &str = "/:group/posts/:id";

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("args must be an object, got {other}"),
    }
}

fn get_path() -> Template {
    Template::parse(A).unwrap()
}

fn list_path() -> Template {
    get_path().shorten().unwrap()
}

fn url(template: &str, value: Value) -> Result<String, RenderError> {
    Template::parse(template).unwrap().render_url("", &args(value))
}

#[test]
fn r_key_3_row_1_get() {
    let url = get_path()
        .render_url("", &args(json!({ "group": "react", "id": "1" })))
        .unwrap();
    assert_eq!(url, "/react/posts/1");
    assert_eq!(cache_key("GET", &url), "GET /react/posts/1");
    assert!(KeyPattern::new("GET", "", &get_path()).test_key("GET /react/posts/1"));
}

#[test]
fn r_key_3_row_2_get_list() {
    assert_eq!(list_path().as_str(), "/:group/posts");
    let url = list_path()
        .render_url("", &args(json!({ "group": "react", "author": "clara" })))
        .unwrap();
    assert_eq!(url, "/react/posts?author=clara");
    let key = cache_key("GET", &url);
    assert_eq!(key, "GET /react/posts?author=clara");
    assert!(KeyPattern::new("GET", "", &list_path()).test_key(&key));
    assert!(!KeyPattern::new("GET", "", &get_path()).test_key(&key));
}

#[test]
fn r_key_3_row_3_get_page_key_has_no_page() {
    let a = args(json!({ "group": "react", "author": "clara", "page": 2 }));
    let request = list_path().render_url("", &a).unwrap();
    assert_eq!(request, "/react/posts?author=clara&page=2");
    let key = cache_key("GET", &list_path().render_url_without("", &a, &["page"]).unwrap());
    assert_eq!(key, "GET /react/posts?author=clara");
}

#[test]
fn r_key_3_row_4_push() {
    let url = list_path()
        .render_url("", &args(json!({ "group": "react", "author": "clara" })))
        .unwrap();
    assert_eq!(url, "/react/posts?author=clara");
    let key = cache_key("POST", &url);
    assert_eq!(key, "POST /react/posts?author=clara");
    assert!(KeyPattern::new("POST", "", &list_path()).test_key(&key));
    assert!(!KeyPattern::new("GET", "", &list_path()).test_key(&key));
}

#[test]
fn r_key_3_row_5_push_without_group_is_missing_param() {
    assert_eq!(
        list_path().render_url("", &args(json!({}))),
        Err(RenderError::MissingParam {
            name: "group".into(),
            template: "/:group/posts".into()
        })
    );
}

#[test]
fn r_key_3_row_6_update_and_delete() {
    let url = get_path()
        .render_url("", &args(json!({ "group": "react", "id": "1" })))
        .unwrap();
    assert_eq!(cache_key("PUT", &url), "PUT /react/posts/1");
    assert_eq!(cache_key("DELETE", &url), "DELETE /react/posts/1");
    assert_eq!(cache_key("delete", &url), "DELETE /react/posts/1");
}

#[test]
fn r_key_3_row_7_encodes_path_values() {
    assert_eq!(
        url("/users/:id", json!({ "id": "a b/c?d" })).unwrap(),
        "/users/a%20b%2Fc%3Fd"
    );
    assert_eq!(
        cache_key("GET", &url("/users/:id", json!({ "id": "a b/c?d" })).unwrap()),
        "GET /users/a%20b%2Fc%3Fd"
    );
    assert_eq!(url("/users/:id", json!({ "id": "ü" })).unwrap(), "/users/%C3%BC");
    assert_eq!(url("/users/:id", json!({ "id": "%20" })).unwrap(), "/users/%2520");
}

#[test]
fn r_key_3_row_8_dot_dot_and_empty_are_invalid() {
    for id in ["..", ""] {
        let err = url("/users/:id", json!({ "id": id })).unwrap_err();
        assert!(
            matches!(&err, RenderError::InvalidParam { name, .. } if name == "id"),
            "{err:?}"
        );
    }
}

#[test]
fn r_key_3_row_9_optional_id() {
    assert_eq!(url("/users/:id?", json!({})).unwrap(), "/users");
    assert_eq!(
        url("/users/:id?", json!({ "id": 5, "sort": "asc" })).unwrap(),
        "/users/5?sort=asc"
    );
}

#[test]
fn r_key_3_row_10_group() {
    let template = "/:group/things{/:number}";
    assert_eq!(url(template, json!({ "group": "first" })).unwrap(), "/first/things");
    assert_eq!(
        url(template, json!({ "group": "first", "number": "fifty" })).unwrap(),
        "/first/things/fifty"
    );
}

#[test]
fn r_key_3_row_11_wildcard() {
    let template = "/repos/:owner/*path";
    assert_eq!(
        url(template, json!({ "owner": "john", "path": ["src", "a b"] })).unwrap(),
        "/repos/john/src/a%20b"
    );
    let err = url(template, json!({ "owner": "john", "path": "src/x" })).unwrap_err();
    assert!(
        matches!(&err, RenderError::InvalidParam { name, .. } if name == "path"),
        "{err:?}"
    );
}

#[test]
fn r_key_3_row_12_query() {
    assert_eq!(
        url(
            "/users",
            json!({ "z": 1, "a": 2, "tags": ["x", "y"], "q": "x y", "skip": null })
        )
        .unwrap(),
        "/users?a=2&q=x+y&tags=x&tags=y&z=1"
    );
}

#[test]
fn r_key_3_row_13_nested_query_value() {
    assert_eq!(
        url("/users", json!({ "f": { "a": 1 } })),
        Err(RenderError::InvalidParam {
            name: "f".into(),
            reason: NESTED_QUERY_REASON.into()
        })
    );
}

#[test]
fn r_key_3_row_14_escaped_scheme() {
    let url = url(r"http\://test.com/user/:id", json!({ "id": "100", "extra": "345" })).unwrap();
    assert_eq!(url, "http://test.com/user/100?extra=345");
    assert_eq!(cache_key("GET", &url), "GET http://test.com/user/100?extra=345");
}

#[test]
fn r_key_3_row_15_prefix_and_shortened_slash() {
    let prefix = "http://test.com/article-cooler";
    let list = Template::parse("/:id").unwrap().shorten().unwrap();
    assert_eq!(list.as_str(), "/");
    let url = list.render_url(prefix, &args(json!({}))).unwrap();
    assert_eq!(url, "http://test.com/article-cooler/");
    let key = cache_key("GET", &url);
    assert_eq!(key, "GET http://test.com/article-cooler/");
    assert!(KeyPattern::new("GET", prefix, &list).test_key(&key));
}

#[test]
fn r_key_3_row_16_literal_question_mark() {
    assert_eq!(
        url(r"/search\?q=:q", json!({ "q": "bug", "page": 2 })).unwrap(),
        "/search?q=bug&page=2"
    );
}

#[test]
fn r_key_3_row_17_query_text_in_the_template() {
    assert_eq!(
        url(
            r"/search/issues\?q=:q?%20repo\::owner/:repo&page=:page?",
            json!({ "owner": "facebook", "repo": "react" })
        )
        .unwrap(),
        "/search/issues?q=%20repo:facebook/react&page="
    );
}

#[test]
fn r_key_3_row_18_base_url_is_not_part_of_the_key() {
    let template = Template::parse("/todos/:id").unwrap();
    let path = template.render(&args(json!({ "id": "5" }))).unwrap();
    assert_eq!(path, "/todos/5");
    assert_eq!(format!("http://127.0.0.1:3000{path}"), "http://127.0.0.1:3000/todos/5");
    assert_eq!(cache_key("GET", &path), "GET /todos/5");
}
