//! R-KEY-2: `test_key`. First every row of the rule's table for `http\://test.com/user/:id`,
//! then the pieces of the pattern.

use restcache_path::{KeyPattern, Template};

const PATH: &str = r"http\://test.com/user/:id";

fn get() -> KeyPattern {
    KeyPattern::new("GET", "", &Template::parse(PATH).unwrap())
}

fn get_list() -> KeyPattern {
    KeyPattern::new("GET", "", &Template::parse(PATH).unwrap().shorten().unwrap())
}

fn update() -> KeyPattern {
    KeyPattern::new("PUT", "", &Template::parse(PATH).unwrap())
}

fn pattern(method: &str, prefix: &str, template: &str) -> KeyPattern {
    KeyPattern::new(method, prefix, &Template::parse(template).unwrap())
}

#[test]
fn r_key_2_get_matches_item_with_query() {
    assert!(get().test_key("GET http://test.com/user/100?extra=345"));
}

#[test]
fn r_key_2_get_matches_encoded_id() {
    assert!(get().test_key("GET http://test.com/user/xxx%3F*"));
}

#[test]
fn r_key_2_get_does_not_match_list() {
    assert!(!get().test_key("GET http://test.com/user"));
}

#[test]
fn r_key_2_get_does_not_match_extra_segment() {
    assert!(!get().test_key("GET http://test.com/user/100/extra"));
}

#[test]
fn r_key_2_get_list_matches_list() {
    assert!(get_list().test_key("GET http://test.com/user"));
}

#[test]
fn r_key_2_get_list_matches_list_with_query() {
    assert!(get_list().test_key("GET http://test.com/user?page=2"));
}

#[test]
fn r_key_2_get_list_does_not_match_item() {
    assert!(!get_list().test_key("GET http://test.com/user/100"));
}

#[test]
fn r_key_2_update_matches_put() {
    assert!(update().test_key("PUT http://test.com/user/100"));
}

#[test]
fn r_key_2_update_does_not_match_get() {
    assert!(!update().test_key("GET http://test.com/user/100"));
}

#[test]
fn r_key_2_one_trailing_slash_tolerated() {
    assert!(get().test_key("GET http://test.com/user/100/"));
    assert!(get().test_key("GET http://test.com/user/100/?a=1"));
    assert!(!get().test_key("GET http://test.com/user/100//"));
    assert!(get_list().test_key("GET http://test.com/user/"));
}

#[test]
fn r_key_2_rest_is_case_insensitive_head_is_not() {
    assert!(get().test_key("GET HTTP://TEST.COM/USER/100"));
    assert!(!get().test_key("get http://test.com/user/100"));
    let prefixed = pattern("GET", "http://Api", "/users/:id");
    assert!(prefixed.test_key("GET http://Api/USERS/1"));
    assert!(!prefixed.test_key("GET http://api/users/1"));
}

#[test]
fn r_key_2_method_is_uppercased() {
    assert!(pattern("delete", "", "/users/:id").test_key("DELETE /users/1"));
}

#[test]
fn r_key_2_prefix_must_be_followed_by_the_template() {
    let p = pattern("GET", "http://test.com/article-cooler", "/");
    assert!(p.test_key("GET http://test.com/article-cooler/"));
    // T is `/`: the slash itself is required.
    assert!(!p.test_key("GET http://test.com/article-cooler"));
    assert!(p.test_key("GET http://test.com/article-cooler/?page=3"));
    assert!(!p.test_key("GET http://test.com/article-cooler/5"));
    assert!(!p.test_key("GET http://test.com/article-coolers"));
}

#[test]
fn r_key_2_query_tail_starts_with_question_mark_or_ampersand() {
    let p = pattern("GET", "", "/a");
    assert!(p.test_key("GET /a?x"));
    assert!(p.test_key("GET /a&x"));
    assert!(p.test_key("GET /a?"));
    assert!(!p.test_key("GET /ax"));
    assert!(!p.test_key("GET /a#x"));
}

#[test]
fn r_key_2_optional_parameter_takes_the_slash_inside() {
    let p = pattern("GET", "", "/users/:id?");
    assert!(p.test_key("GET /users"));
    assert!(p.test_key("GET /users/"));
    assert!(p.test_key("GET /users/5"));
    assert!(p.test_key("GET /users/5?sort=asc"));
    assert!(!p.test_key("GET /users/5/6"));
    assert!(!p.test_key("GET /usersx"));
}

#[test]
fn r_key_2_optional_parameter_without_a_slash() {
    let p = pattern("GET", "", r"/search\?q=:q?&page=:page?");
    assert!(p.test_key("GET /search?q=&page="));
    assert!(p.test_key("GET /search?q=bug&page=2"));
    assert!(p.test_key("GET /search?q=bug&page=2&sort=x"));
    assert!(!p.test_key("GET /search?q=a/b&page="));
}

#[test]
fn r_key_2_group_is_optional() {
    let p = pattern("GET", "", "/:group/things{/:number}");
    assert!(p.test_key("GET /first/things"));
    assert!(p.test_key("GET /first/things/fifty"));
    assert!(!p.test_key("GET /first/things/fifty/more"));
    assert!(!p.test_key("GET /things"));
}

#[test]
fn r_key_2_wildcard_spans_segments() {
    let p = pattern("GET", "", "/repos/:owner/*path");
    assert!(p.test_key("GET /repos/john/src/a%20b"));
    assert!(p.test_key("GET /repos/john/a/b/c?x=1"));
    assert!(!p.test_key("GET /repos/john/"));
    assert!(!p.test_key("GET /repos/john"));
}

#[test]
fn r_key_2_literal_question_mark_in_template() {
    let p = pattern("GET", "", r"/search\?q=:q");
    assert!(p.test_key("GET /search?q=bug&page=2"));
    assert!(p.test_key("GET /search?Q=bug"));
    assert!(!p.test_key("GET /search?q="));
    assert!(!p.test_key("GET /search"));
}

#[test]
fn r_key_2_segment_never_holds_separators() {
    let p = pattern("GET", "", "/u/:id/x");
    assert!(p.test_key("GET /u/1/x"));
    assert!(!p.test_key("GET /u/1&2/x"));
    assert!(!p.test_key("GET /u/1?2/x"));
}

#[test]
fn r_key_2_keys_from_other_methods_or_prefixes_never_match() {
    let p = pattern("GET", "http://a", "/x");
    assert!(!p.test_key(""));
    assert!(!p.test_key("GET"));
    assert!(!p.test_key("GET http://b/x"));
    assert!(!p.test_key("POST http://a/x"));
}
