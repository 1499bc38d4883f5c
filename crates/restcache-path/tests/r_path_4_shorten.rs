//! R-PATH-4: `shorten_path`, one test per row of the rule's table, then the edges of the rule.

use restcache_path::{NO_PARAMETER_REASON, Template, TemplateError, shorten_path};

#[track_caller]
fn shortens(path: &str, shortened: &str) {
    let template = Template::parse(path).unwrap();
    assert_eq!(template.shorten().unwrap().as_str(), shortened, "{path}");
    assert_eq!(shorten_path(path).unwrap().as_str(), shortened, "{path}");
}

macro_rules! table_row {
    ($($name:ident: $path:expr => $shortened:expr;)*) => {
        $(
            #[test]
            fn $name() {
                shortens($path, $shortened);
            }
        )*
    };
}

table_row! {
    r_path_4_row_first_second: "/:first/:second" => "/:first";
    r_path_4_row_first: "/:first" => "/";
    r_path_4_row_todos_id: "/todos/:id" => "/todos";
    r_path_4_row_todos_optional_id: "/todos/:id?" => "/todos";
    r_path_4_row_group_posts_grouped_id: "/:group/posts{/:id}" => "/:group/posts";
    r_path_4_row_users_id_trailing_slash: "/users/:id/" => "/users";
    r_path_4_row_trailing_literal_goes_too: "/a/:id/comments" => "/a";
    r_path_4_row_wildcard: "/repos/:owner/*path" => "/repos/:owner";
    r_path_4_row_escaped_scheme_colon: r"http\://test.com/groups/:group/users/:id" => r"http\://test.com/groups/:group/users";
    r_path_4_row_bare_parameter: ":group" => "";
    r_path_4_row_two_groups: "{/:id}{/:title}" => "{/:id}";
}

#[test]
fn r_path_4_row_todos_has_no_parameter() {
    let err = Template::parse("/todos").unwrap().shorten().unwrap_err();
    assert_eq!(
        err,
        TemplateError {
            template: "/todos".into(),
            index: 0,
            reason: "a resource path needs at least one parameter".into()
        }
    );
    assert_eq!(err.reason, NO_PARAMETER_REASON);
    assert_eq!(shorten_path("/todos").unwrap_err(), err);
}

#[test]
fn r_path_4_escaped_colons_never_count() {
    assert_eq!(shorten_path(r"/a\:b").unwrap_err().reason, NO_PARAMETER_REASON);
    assert_eq!(shorten_path(r"/a/:id/b\:c").unwrap().as_str(), "/a");
    assert_eq!(shorten_path("").unwrap_err().reason, NO_PARAMETER_REASON);
}

#[test]
fn r_path_4_cuts_at_the_enclosing_group() {
    shortens("/:g/posts{/:id}/tail", "/:g/posts");
    shortens("/a{-:x}", "/a");
    shortens("/a/{:x}", "/a");
    shortens("/:a{/*rest}", "/:a");
}

#[test]
fn r_path_4_drops_only_one_unescaped_slash() {
    shortens("/a//:id", "/a/");
    shortens(r"/a\//:id", r"/a\/");
    shortens(r"/a/\/:id", r"/a/\/");
    shortens("//:id", "/");
    shortens("/:id", "/");
}

#[test]
fn r_path_4_keeps_other_text_before_the_cut() {
    shortens(r"/search\?q=:q", r"/search\?q=");
    shortens("/:a-:b", "/:a-");
}

#[test]
fn r_path_4_shortened_path_can_shorten_again() {
    let once = shorten_path("/:a/:b/:c").unwrap();
    assert_eq!(once.as_str(), "/:a/:b");
    assert_eq!(once.names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(once.shorten().unwrap().as_str(), "/:a");
}
