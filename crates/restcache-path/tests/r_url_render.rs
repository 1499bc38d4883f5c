//! R-PATH-1 and R-PATH-3 (rendering), R-URL-1..4 (prefix, path values, wildcards, query).

use restcache_path::{NESTED_QUERY_REASON, RenderError, Template};
use serde_json::{Map, Value, json};

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("args must be an object, got {other}"),
    }
}

#[track_caller]
fn render(template: &str, value: Value) -> Result<String, RenderError> {
    Template::parse(template).unwrap().render(&args(value))
}

#[track_caller]
fn renders(template: &str, value: Value, expected: &str) {
    assert_eq!(render(template, value).unwrap(), expected, "{template}");
}

#[track_caller]
fn invalid(template: &str, value: Value, name: &str) -> String {
    match render(template, value) {
        Err(RenderError::InvalidParam { name: got, reason }) => {
            assert_eq!(got, name, "{template}");
            reason
        }
        other => panic!("{template}: expected InvalidParam {{ name: {name} }}, got {other:?}"),
    }
}

#[track_caller]
fn missing(template: &str, value: Value, name: &str) {
    assert_eq!(
        render(template, value),
        Err(RenderError::MissingParam {
            name: name.into(),
            template: template.into()
        })
    );
}

// R-PATH-1: literals, escapes, parameters.

#[test]
fn r_path_1_literal_percent_20_stays_percent_20() {
    renders("/a%20b/:id", json!({ "id": "x y" }), "/a%20b/x%20y");
}

#[test]
fn r_path_1_literals_are_copied_verbatim() {
    renders("/ü é/~;,@$=&/:id", json!({ "id": "ü" }), "/ü é/~;,@$=&/%C3%BC");
}

#[test]
fn r_path_1_escaped_question_mark_and_colon() {
    renders(r"/a\?b\:c/:id", json!({ "id": 1 }), "/a?b:c/1");
    renders(r"http\://x/:id", json!({ "id": 1 }), "http://x/1");
}

#[test]
fn r_path_1_names_are_the_longest_match() {
    renders("/:a-:b", json!({ "a": 1, "b": 2 }), "/1-2");
    renders("/:a_b.json", json!({ "a_b": "x", "a": "no" }), "/x.json?a=no");
    renders("/:a:b", json!({ "a": 1, "b": 2 }), "/12");
}

#[test]
fn r_path_1_optional_parameter_absent_drops_the_slash_before_it() {
    renders("/users/:id?", json!({}), "/users");
    renders("/users/:id?", json!({ "id": null }), "/users");
    renders("/users/:id?", json!({ "id": 5 }), "/users/5");
    renders("/:id?", json!({}), "");
}

#[test]
fn r_path_1_optional_parameter_absent_keeps_other_text() {
    renders("q=:q?", json!({}), "q=");
    renders("q=:q?", json!({ "q": "a b" }), "q=a%20b");
    renders("/a-:x?", json!({}), "/a-");
}

#[test]
fn r_path_1_optional_parameter_keeps_an_escaped_slash() {
    renders(r"/users\/:id?", json!({}), "/users/");
    renders(r"/users\/:id?", json!({ "id": 1 }), "/users/1");
}

#[test]
fn r_path_1_group_rendered_only_when_complete() {
    let template = "/p{/:a-:b}/end";
    renders(template, json!({ "a": 1, "b": 2 }), "/p/1-2/end");
    renders(template, json!({ "a": 1 }), "/p/end");
    renders(template, json!({ "b": 2, "a": null }), "/p/end");
    renders(template, json!({}), "/p/end");
}

#[test]
fn r_path_1_group_with_a_wildcard() {
    let template = "/files{/*path}";
    renders(template, json!({ "path": ["a", "b"] }), "/files/a/b");
    renders(template, json!({ "path": [] }), "/files");
    renders(template, json!({}), "/files");
}

#[test]
fn r_path_1_group_names_never_go_to_the_query() {
    renders("/p{/:a-:b}", json!({ "a": 1 }), "/p");
}

// R-PATH-3: missing parameters.

#[test]
fn r_path_3_first_missing_in_template_order() {
    missing("/:a/:b/*c", json!({}), "a");
    missing("/:a/:b/*c", json!({ "a": 1 }), "b");
    missing("/:a/:b/*c", json!({ "a": 1, "b": 2 }), "c");
    missing("/:a/:b/*c", json!({ "a": 1, "b": 2, "c": [] }), "c");
    missing("/:a/:b/*c", json!({ "a": 1, "b": 2, "c": null }), "c");
}

#[test]
fn r_path_3_null_counts_as_absent() {
    missing("/users/:id", json!({ "id": null }), "id");
}

#[test]
fn r_path_3_missing_error_carries_the_template() {
    let err = render("/users/:id", json!({})).unwrap_err();
    assert_eq!(err.name(), "id");
    assert_eq!(err.to_string(), "missing path parameter `id` of template `/users/:id`");
}

// R-URL-1: prefix.

#[test]
fn r_url_1_prefix_is_copied_verbatim() {
    let template = Template::parse("/:id").unwrap();
    let url = template
        .render_url("http://h:8080/a:b%20", &args(json!({ "id": 1, "x": 2 })))
        .unwrap();
    assert_eq!(url, "http://h:8080/a:b%20/1?x=2");
}

#[test]
fn r_url_1_query_joined_with_ampersand_after_a_literal_question_mark() {
    renders(
        r"/search\?q=:q",
        json!({ "q": "bug", "page": 2 }),
        "/search?q=bug&page=2",
    );
    renders(r"/search\?q=:q", json!({ "q": "bug" }), "/search?q=bug");
    renders(r"/search\?", json!({ "page": 2 }), "/search?&page=2");
}

#[test]
fn r_url_1_question_mark_in_the_prefix_does_not_count() {
    let template = Template::parse("/x").unwrap();
    assert_eq!(
        template.render_url("http://h/?a=1", &args(json!({ "b": 2 }))).unwrap(),
        "http://h/?a=1/x?b=2"
    );
}

#[test]
fn r_url_1_render_without_excluded_keys() {
    let template = Template::parse("/:group/posts").unwrap();
    let a = args(json!({ "group": "react", "page": 2, "author": "clara" }));
    assert_eq!(
        template.render_url_without("p", &a, &["page"]).unwrap(),
        "p/react/posts?author=clara"
    );
    assert_eq!(
        template.render_url_without("", &a, &["group"]),
        Err(RenderError::MissingParam {
            name: "group".into(),
            template: "/:group/posts".into()
        })
    );
}

// R-URL-2: path values.

#[test]
fn r_url_2_scalar_string_forms() {
    renders("/:v", json!({ "v": 5 }), "/5");
    renders("/:v", json!({ "v": -12 }), "/-12");
    renders("/:v", json!({ "v": 5.5 }), "/5.5");
    renders("/:v", json!({ "v": true }), "/true");
    renders("/:v", json!({ "v": false }), "/false");
}

#[test]
fn r_url_2_encodes_like_encode_uri_component() {
    renders("/:v", json!({ "v": "a b/c?d&e=f#g" }), "/a%20b%2Fc%3Fd%26e%3Df%23g");
    renders("/:v", json!({ "v": "-_.!~*'()" }), "/-_.!~*'()");
    renders("/:v", json!({ "v": "ü😀" }), "/%C3%BC%F0%9F%98%80");
    renders("/:v", json!({ "v": "%20+" }), "/%2520%2B");
    renders("/:v", json!({ "v": "..." }), "/...");
}

#[test]
fn r_url_2_array_or_object_path_value_is_invalid() {
    let reason = invalid("/:v", json!({ "v": [1] }), "v");
    assert_eq!(reason, "a path value must be a string, number or boolean, not an array");
    let reason = invalid("/:v", json!({ "v": {} }), "v");
    assert_eq!(
        reason,
        "a path value must be a string, number or boolean, not an object"
    );
}

#[test]
fn r_url_2_empty_and_dot_values_are_invalid() {
    assert_eq!(invalid("/:v", json!({ "v": "" }), "v"), "a path value cannot be empty");
    assert_eq!(
        invalid("/:v", json!({ "v": "." }), "v"),
        "a path value cannot be `.`: the URL parser would resolve it as a dot segment"
    );
    assert_eq!(
        invalid("/:v", json!({ "v": ".." }), "v"),
        "a path value cannot be `..`: the URL parser would resolve it as a dot segment"
    );
}

#[test]
fn r_url_2_optional_and_grouped_values_are_checked_too() {
    invalid("/:v?", json!({ "v": "" }), "v");
    invalid("/x{/:v}", json!({ "v": ".." }), "v");
    // checked even when the group is left out for another missing value
    invalid("/x{/:v/:w}", json!({ "v": "." }), "v");
    invalid("/x{/:v/:w}", json!({ "w": [1] }), "w");
}

#[test]
fn r_url_2_a_value_cannot_complete_a_dot_segment() {
    // URL parsers read `%2e` as `.`, so a value can finish a dot segment the template started.
    let reason = invalid(r"/files/.%2:x", json!({ "x": "e" }), "x");
    assert_eq!(
        reason,
        "a path value cannot complete the segment `.%2e`: the URL parser would resolve it as a dot segment"
    );
    invalid("/files/%2:x", json!({ "x": "E" }), "x");
    invalid("/files/%:x", json!({ "x": "2e" }), "x");
    invalid("/files/%2:x%2:y", json!({ "x": "e", "y": "e" }), "x");
    invalid("/files/%*path", json!({ "path": ["2e", "a"] }), "path");
    invalid("/files{/.%2:x}", json!({ "x": "e" }), "x");
    // Before a fault further on, in template order.
    invalid("/.%2:a/:b", json!({ "a": "e" }), "a");
    missing("/.%2:a:b", json!({ "a": "e" }), "b");
    // Anything else renders as before: other segments, the template's own text, the query part.
    renders("/files/%2:x", json!({ "x": "f" }), "/files/%2f");
    renders("/files/.%2:x", json!({ "x": "ex" }), "/files/.%2ex");
    renders("/a/../:x", json!({ "x": "b" }), "/a/../b");
    renders(r"/s\?q=.%2:x", json!({ "x": "e" }), "/s?q=.%2e");
}

#[test]
fn r_url_2_first_problem_in_template_order() {
    invalid("/:a/:b", json!({ "a": "", "z": {} }), "a");
    missing("/:a/:b", json!({ "b": "", "z": {} }), "a");
    invalid("/:a", json!({ "a": 1, "z": {}, "y": [[1]] }), "y");
}

// R-URL-3: wildcards.

#[test]
fn r_url_3_wildcard_segments_encoded_and_joined() {
    renders(
        "/repos/:owner/*path",
        json!({ "owner": "john", "path": ["src", "a b", 5, true] }),
        "/repos/john/src/a%20b/5/true",
    );
    renders("/f/*path", json!({ "path": ["a/b"] }), "/f/a%2Fb");
}

#[test]
fn r_url_3_wildcard_non_array_is_invalid() {
    assert_eq!(
        invalid("/f/*path", json!({ "path": "src/x" }), "path"),
        "a wildcard takes an array of path segments, not a string"
    );
    invalid("/f/*path", json!({ "path": 5 }), "path");
    invalid("/f/*path", json!({ "path": { "a": 1 } }), "path");
}

#[test]
fn r_url_3_wildcard_bad_segments_are_invalid() {
    assert_eq!(
        invalid("/f/*p", json!({ "p": ["a", ""] }), "p"),
        "wildcard segment 1 cannot be empty"
    );
    assert_eq!(
        invalid("/f/*p", json!({ "p": [".."] }), "p"),
        "wildcard segment 0 cannot be `..`: the URL parser would resolve it as a dot segment"
    );
    invalid("/f/*p", json!({ "p": ["."] }), "p");
    assert_eq!(
        invalid("/f/*p", json!({ "p": ["a", ["b"]] }), "p"),
        "wildcard segment 1 must be a string, number or boolean, not an array"
    );
    assert_eq!(
        invalid("/f/*p", json!({ "p": [null] }), "p"),
        "wildcard segment 0 must be a string, number or boolean, not null"
    );
}

#[test]
fn r_url_3_empty_wildcard_is_absent() {
    missing("/f/*p", json!({ "p": [] }), "p");
}

// R-URL-4: query.

#[test]
fn r_url_4_sorted_repeated_and_null_omitted() {
    renders(
        "/users",
        json!({ "z": 1, "a": 2, "tags": ["x", "y"], "q": "x y", "skip": null }),
        "/users?a=2&q=x+y&tags=x&tags=y&z=1",
    );
}

#[test]
fn r_url_4_sorted_by_utf8_bytes() {
    // UTF-16 order would put U+1F600 (a surrogate pair, 0xD83D…) before U+FF61; UTF-8 order does not.
    renders(
        "/",
        json!({ "😀": 1, "\u{FF61}": 2, "b": 3, "B": 4, "é": 5, "a": 6 }),
        "/?B=4&a=6&b=3&%C3%A9=5&%EF%BD%A1=2&%F0%9F%98%80=1",
    );
}

#[test]
fn r_url_4_arrays_keep_their_order_and_skip_nulls() {
    renders("/", json!({ "b": [3, null, 1, 2], "a": [] }), "/?b=3&b=1&b=2");
    renders("/", json!({ "a": [null] }), "/");
}

#[test]
fn r_url_4_scalars_use_their_string_form() {
    renders(
        "/",
        json!({ "f": 5.5, "t": true, "n": -3, "s": "" }),
        "/?f=5.5&n=-3&s=&t=true",
    );
}

#[test]
fn r_url_4_form_urlencoded_keys_and_values() {
    renders(
        "/",
        json!({ "a b": "c&d=e+f", "k": "*-._~!'()/?é" }),
        "/?a+b=c%26d%3De%2Bf&k=*-._%7E%21%27%28%29%2F%3F%C3%A9",
    );
}

#[test]
fn r_url_4_nested_values_are_invalid() {
    assert_eq!(invalid("/users", json!({ "f": { "a": 1 } }), "f"), NESTED_QUERY_REASON);
    assert_eq!(
        invalid("/users", json!({ "f": [1, [2]] }), "f"),
        "nested values cannot be sent as query parameters"
    );
    assert_eq!(invalid("/users", json!({ "f": [{}] }), "f"), NESTED_QUERY_REASON);
}

#[test]
fn r_url_4_no_pairs_no_question_mark() {
    renders("/users", json!({ "a": null, "b": [] }), "/users");
}

#[test]
fn r_url_4_every_non_name_key_goes_to_the_query() {
    renders("/users/:id?", json!({ "id": 5, "sort": "asc" }), "/users/5?sort=asc");
    renders("/:a", json!({ "a": 1, "A": 2 }), "/1?A=2");
}

#[test]
fn r_url_4_invalid_param_display() {
    let err = render("/users", json!({ "f": {} })).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid parameter `f`: nested values cannot be sent as query parameters"
    );
}
