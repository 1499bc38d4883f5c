//! R-KEY-3 worked examples through endpoints (the template rows are in restcache-path).

use restcache::Error;
use restcache::prelude::*;
use restcache::rest::ResourceOptions;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Post {
    #[entity(pk)]
    id: String,
    title: String,
}

/// Resource A: the seed's group example.
fn a() -> Resource<Post> {
    Resource::new(ResourceOptions {
        path: "/:group/posts/:id".into(),
        pagination_field: Some("page".into()),
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn r_key_3_rows_1_to_6_resource_a() {
    let a = a();
    assert_eq!(
        a.get().key(&params! { group: "react", id: "1" }).unwrap(),
        "GET /react/posts/1"
    );
    let list_args = params! { group: "react", author: "clara" };
    assert_eq!(a.get_list().url(&list_args).unwrap(), "/react/posts?author=clara");
    assert_eq!(a.get_list().key(&list_args).unwrap(), "GET /react/posts?author=clara");
    let page = a.get_list().paginated().unwrap().get_page();
    let page_args = params! { group: "react", author: "clara", page: 2 };
    assert_eq!(page.url(&page_args).unwrap(), "/react/posts?author=clara&page=2");
    assert_eq!(page.key(&page_args).unwrap(), "GET /react/posts?author=clara");
    assert_eq!(
        a.get_list().push().key(&list_args).unwrap(),
        "POST /react/posts?author=clara"
    );
    let err = a.get_list().push().key(&params! {}).unwrap_err();
    assert!(
        matches!(&err, Error::MissingParam { name, .. } if name == "group"),
        "{err:?}"
    );
    let one = params! { group: "react", id: "1" };
    assert_eq!(a.update().key(&one).unwrap(), "PUT /react/posts/1");
    assert_eq!(a.delete().key(&one).unwrap(), "DELETE /react/posts/1");
}

#[test]
fn r_key_3_rows_7_8_14_15_through_endpoints() {
    let user = Resource::<Post>::new(ResourceOptions {
        path: "/users/:id".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        user.get().url(&params! { id: "a b/c?d" }).unwrap(),
        "/users/a%20b%2Fc%3Fd"
    );
    assert!(matches!(
        user.get().url(&params! { id: ".." }),
        Err(Error::InvalidParam { .. })
    ));
    let abs = Resource::<Post>::new(ResourceOptions {
        path: r"http\://test.com/user/:id".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        abs.get().key(&params! { id: "100", extra: "345" }).unwrap(),
        "GET http://test.com/user/100?extra=345"
    );
    assert!(abs.get().test_key("GET http://test.com/user/xxx%3F*"));
    assert!(abs.get_list().test_key("GET http://test.com/user?page=2"));
    assert!(!abs.get_list().test_key("GET http://test.com/user/100"));
    assert!(abs.update().test_key("PUT http://test.com/user/100"));
    assert!(!abs.update().test_key("GET http://test.com/user/100"));
    let cooler = Resource::<Post>::new(ResourceOptions {
        path: "/:id".into(),
        url_prefix: "http://test.com/article-cooler".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        cooler.get_list().key(&params! {}).unwrap(),
        "GET http://test.com/article-cooler/"
    );
}

#[test]
fn r_conventions_args_must_be_an_object() {
    assert!(matches!(a().get().key(&[1, 2]), Err(Error::InvalidArgs { .. })));
}
