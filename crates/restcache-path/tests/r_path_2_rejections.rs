//! R-PATH-2: every rejected template, with the byte offset of the offending character and the
//! reason.

use restcache_path::{Template, TemplateError};

#[track_caller]
fn rejects(template: &str, index: usize, reason: &str) {
    let err = Template::parse(template).expect_err(template);
    assert_eq!(
        err,
        TemplateError {
            template: template.to_owned(),
            index,
            reason: reason.to_owned()
        },
        "{template}"
    );
}

const COLON: &str = "`:` must be followed by a parameter name (escape a literal colon as `\\:`)";
const STAR: &str = "`*` must be followed by a wildcard name (escape a literal asterisk as `\\*`)";
const QUESTION: &str = "`?` must directly follow a parameter name (escape a literal question mark as `\\?`)";

#[test]
fn r_path_2_colon_without_a_name() {
    rejects("/a/:/b", 3, COLON);
    rejects("/a/:", 3, COLON);
    rejects(":", 0, COLON);
    rejects("/a/:1", 3, COLON);
    rejects("/a/:-b", 3, COLON);
    rejects("/a/:é", 3, COLON);
}

#[test]
fn r_path_2_unescaped_scheme_colon() {
    rejects("http://test.com/user/:id", 4, COLON);
}

#[test]
fn r_path_2_star_without_a_name() {
    rejects("/a/*/b", 3, STAR);
    rejects("/a/*", 3, STAR);
    rejects("/a/*9", 3, STAR);
}

#[test]
fn r_path_2_question_mark_not_after_a_name() {
    rejects("/search?q=:q", 7, QUESTION);
    rejects("?", 0, QUESTION);
    rejects("/a/:id??", 7, QUESTION);
    rejects("/a/:id/?", 7, QUESTION);
    rejects(r"/a/\:id?", 7, QUESTION);
}

#[test]
fn r_path_2_unescaped_reserved_characters() {
    for c in ['(', ')', '[', ']', '+', '!'] {
        rejects(
            &format!("/a{c}/:id"),
            2,
            &format!("unescaped `{c}` (escape it as `\\{c}`)"),
        );
    }
    rejects("/:id(\\d+)", 4, "unescaped `(` (escape it as `\\(`)");
}

#[test]
fn r_path_2_unbalanced_open_brace() {
    rejects("/a{/:id", 2, "unbalanced `{`: the group is never closed");
}

#[test]
fn r_path_2_unbalanced_close_brace() {
    rejects(
        "/a}/:id",
        2,
        "unbalanced `}`: no group is open (escape a literal brace as `\\}`)",
    );
    rejects(
        "/a{/:id}}",
        8,
        "unbalanced `}`: no group is open (escape a literal brace as `\\}`)",
    );
}

#[test]
fn r_path_2_nested_group() {
    rejects("/a{/:b{/:c}}", 6, "groups cannot be nested");
}

#[test]
fn r_path_2_group_without_a_parameter() {
    rejects("/a{/b}", 2, "a group needs a parameter or wildcard");
    rejects("/:a{}", 3, "a group needs a parameter or wildcard");
    rejects(r"/:a{/\:b}", 3, "a group needs a parameter or wildcard");
}

#[test]
fn r_path_2_optional_marker_inside_a_group() {
    rejects(
        "/a{/:id?}",
        7,
        "`?` is not allowed inside a group (the group already makes its content optional)",
    );
}

#[test]
fn r_path_2_optional_wildcard() {
    rejects("/a/*path?", 8, "`*path?` is not allowed: write `{/*path}`");
    rejects("/a{/*path?}", 9, "`*path?` is not allowed: write `{/*path}`");
}

#[test]
fn r_path_2_name_used_twice() {
    rejects("/:id/:id", 5, "parameter `id` is used twice");
    rejects("/:id/*id", 5, "wildcard `id` is used twice");
    rejects("/*p{/:p}", 5, "parameter `p` is used twice");
    rejects("/:id/:idx/:id?", 10, "parameter `id` is used twice");
}

#[test]
fn r_path_2_trailing_lone_backslash() {
    rejects("\\", 0, "trailing lone `\\` (escape a backslash as `\\\\`)");
    rejects("/a\\", 2, "trailing lone `\\` (escape a backslash as `\\\\`)");
    rejects("/a\\\\\\", 4, "trailing lone `\\` (escape a backslash as `\\\\`)");
}

#[test]
fn r_path_2_first_offending_character_is_reported() {
    rejects("/(/:", 1, "unescaped `(` (escape it as `\\(`)");
    rejects(
        "/a{/:b?/c",
        6,
        "`?` is not allowed inside a group (the group already makes its content optional)",
    );
}

#[test]
fn r_path_2_index_is_a_byte_offset() {
    rejects("/ünï/:", 7, COLON);
    rejects("/😀?", 5, QUESTION);
}

#[test]
fn r_path_2_display_states_the_facts() {
    let err = Template::parse("/a/:/b").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid path template `/a/:/b` at byte 3: {COLON}")
    );
    let _: &dyn std::error::Error = &err;
}

#[test]
fn r_path_2_escaped_special_characters_are_accepted() {
    let template = Template::parse(r"/a\(b\)\[c\]\+\!\{\}\?\*\:\\/:id").unwrap();
    let args = serde_json::json!({ "id": 1 });
    assert_eq!(
        template.render(args.as_object().unwrap()).unwrap(),
        r"/a(b)[c]+!{}?*:\/1"
    );
}

#[test]
fn r_path_2_valid_templates_are_accepted() {
    for template in [
        "",
        "/",
        "/todos",
        "/:a-:b",
        "/:a:b",
        "/users/:id?",
        "q=:q?",
        "/:group/posts{/:id}",
        "{/:id}{/:title}",
        "/repos/:owner/*path",
        "{/*path}",
        r"http\://test.com/user/:id",
        r"/search/issues\?q=:q?%20repo\::owner/:repo&page=:page?",
        "/a%20b/~x/.,;@$'=&/:_id9",
    ] {
        assert!(Template::parse(template).is_ok(), "{template}");
    }
}
