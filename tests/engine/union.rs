//! R-UNION-1..4: polymorphic entities.

use restcache::Error;
use restcache::prelude::*;
use serde_json::{Value, json};

use crate::fixtures::*;

#[test]
fn r_union_1_default_tags_are_snake_case_variant_names() {
    #[derive(Clone, Debug, Default, PartialEq, Entity)]
    struct BlogPost {
        #[entity(pk)]
        id: u64,
    }
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute = "kind")]
    enum Content {
        BlogPost(BlogPost),
        Link(Link),
    }
    assert_eq!(<Content as restcache::schema::Union>::TAGS, &["blog_post", "link"]);
    let mut store = Store::new();
    store
        .set_response::<Content>("GET /c/1", &(), &json!({"id": 1, "kind": "blog_post"}))
        .unwrap();
    assert!(matches!(
        *data::<Content>(&store, "GET /c/1", &json!({})),
        Content::BlogPost(BlogPost { id: 1 })
    ));
}

#[test]
fn r_union_2_the_function_form_sees_the_parent_and_the_key() {
    /// Picks the variant from the field name the array appears under.
    fn by_key(_: &Value, parent: Option<&Value>, key: Option<&str>) -> Option<String> {
        assert!(
            parent.is_some_and(|p| p.get("links").is_some()),
            "the parent holds the array"
        );
        Some(key?.trim_end_matches('s').to_owned())
    }
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute_fn = by_key)]
    enum ByKey {
        Link(Link),
        Post(Post),
    }
    #[derive(Clone, Debug, Default, PartialEq, Schema)]
    struct Feed {
        #[schema(nested)]
        links: Vec<ByKey>,
        #[schema(nested)]
        posts: Vec<ByKey>,
    }
    let mut store = Store::new();
    let body = json!({"links": [{"id": 1, "url": "u"}], "posts": [{"id": 1, "content": "c"}]});
    store.set_response::<Feed>("GET /feed", &(), &body).unwrap();
    let feed = data::<Feed>(&store, "GET /feed", &json!({}));
    assert!(matches!(&feed.links[0], ByKey::Link(l) if l.url == "u"));
    assert!(matches!(&feed.posts[0], ByKey::Post(p) if p.content == "c"));

    // The same inside `All` and a collection: they pass the parent on too.
    #[derive(Clone, Debug, Default, PartialEq, Schema)]
    struct Wrapped {
        #[schema(nested)]
        links: All<ByKey>,
        #[schema(nested)]
        posts: Collection<Vec<ByKey>>,
    }
    let body = json!({"links": [{"id": 2, "url": "v"}], "posts": [{"id": 2, "content": "d"}]});
    store.set_response::<Wrapped>("GET /wrapped", &(), &body).unwrap();
    // (Read back, `All` enumerates the tables with no parent, so the check is of the writes.)
    let snapshot = store.inspect();
    let pks = |table: &str| -> Vec<Value> {
        let rows = snapshot["entities"][table]["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        rows.iter().map(|r| r["pk"].clone()).collect()
    };
    assert_eq!(pks("Link"), [json!("1"), json!("2")]);
    assert_eq!(pks("Post"), [json!("1"), json!("2")]);
}

#[test]
fn r_union_2_the_string_form_uses_the_attribute_string_form() {
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute = "v")]
    enum Versioned {
        #[union(tag = "1")]
        One(User),
    }
    let mut store = Store::new();
    store
        .set_response::<Versioned>("GET /x", &(), &json!({"id": "a", "v": 1}))
        .unwrap();
    assert!(matches!(
        *data::<Versioned>(&store, "GET /x", &json!({})),
        Versioned::One(_)
    ));
    let err = store
        .set_response::<Versioned>("GET /y", &(), &json!({"id": "b"}))
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidResponse { .. }),
        "a missing attribute matches nothing"
    );
}

#[test]
fn r_union_3_unmatched_input_at_a_single_position() {
    let mut store = Store::new();
    let before = store.inspect();
    let err = store
        .set_response::<SuffixedFeed>("GET /feed/9", &(), &json!({"id": 9, "type": "video"}))
        .unwrap_err();
    match &err {
        Error::InvalidResponse {
            entity,
            position,
            reason,
            ..
        } => {
            assert_eq!(entity.as_deref(), Some("SuffixedFeed"));
            assert_eq!(position, "");
            assert!(reason.contains("no variant"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.inspect(), before);
    // With an `other` variant the object is returned as-is, stored inline, and no entity is created.
    store
        .set_response::<FeedItem>("GET /feed/9", &(), &json!({"id": 9, "type": "video"}))
        .unwrap();
    assert_eq!(
        *data::<FeedItem>(&store, "GET /feed/9", &json!({})),
        FeedItem::Other(json!({"id": 9, "type": "video"}))
    );
    assert_eq!(store.inspect()["entities"], json!({}));
}

#[test]
fn r_union_3_unmatched_list_elements_are_skipped_without_other() {
    let mut store = Store::new();
    let feed = json!([{"id": 1, "type": "link"}, {"id": 2, "type": "video"}]);
    store
        .set_response::<Vec<SuffixedFeed>>("GET /feed", &(), &feed)
        .unwrap();
    assert_eq!(data::<Vec<SuffixedFeed>>(&store, "GET /feed", &json!({})).len(), 1);
    // In a list of `Option`s too: an unmatched element is skipped, not kept as `None`.
    store
        .set_response::<Vec<Option<SuffixedFeed>>>("GET /feed?some", &(), &feed)
        .unwrap();
    let some = data::<Vec<Option<SuffixedFeed>>>(&store, "GET /feed?some", &json!({}));
    assert!(matches!(some.as_slice(), [Some(SuffixedFeed::Link(_))]), "{some:?}");
}

#[test]
fn r_union_4_records_live_in_variant_tables_and_collections_in_one_table() {
    let mut store = Store::new();
    let feed = json!([{"id": 1, "type": "link"}, {"id": 1, "type": "post"}]);
    store
        .set_response::<Collection<Vec<FeedItem>>>("GET /feed", &(), &feed)
        .unwrap();
    let snap = store.inspect();
    let tables: Vec<&String> = snap["entities"].as_object().unwrap().keys().collect();
    assert_eq!(tables, ["Link", "Post", "[Link;Post]"]);
    let items = data::<Collection<Vec<FeedItem>>>(&store, "GET /feed", &json!({}));
    assert!(
        matches!((&items[0], &items[1]), (FeedItem::Link(_), FeedItem::Post(_))),
        "same pk, two tables"
    );
}

#[test]
fn r_get_3_union_query_mode_uses_the_attribute_or_the_first_table_holding_the_pk() {
    let mut store = Store::new();
    store
        .set_response::<Vec<FeedItem>>("GET /feed", &(), &json!([{"id": 2, "type": "post", "content": "c"}]))
        .unwrap();
    let read = data::<FeedItem>(&store, "GET /feed/2", &json!({"id": 2}));
    assert!(matches!(&*read, FeedItem::Post(p) if p.content == "c"));
    let none = store
        .get_response::<FeedItem>("GET /feed/2?type=link", &json!({"id": 2, "type": "link"}))
        .unwrap();
    assert!(
        none.data.is_none(),
        "the attribute names the Link table, which lacks pk 2"
    );
}

/// A union of one variant: its collections share the table of the variant's (`[Link]`).
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
enum OnlyLinks {
    Link(Link),
}

/// R-UNION-4 with R-READ-2: a union of one variant and that variant's entity keep their
/// collections in one table; a list the entity's collection wrote holds no reference of the
/// union's, so read as the union's it is empty (each reference dropped), not invalid.
#[test]
fn r_union_4_a_list_of_the_variant_read_as_the_union_drops_its_references() {
    let mut store = Store::new();
    store
        .set_response::<Collection<Vec<Link>>>("GET /links", &(), &json!([{"id": 1, "url": "u"}]))
        .unwrap();
    assert_eq!(
        <OnlyLinks as restcache::schema::EntitySchema>::collection_key(),
        "[Link]"
    );
    let read = store
        .get_response::<Collection<Vec<OnlyLinks>>>("GET /links", &())
        .unwrap();
    assert_eq!(read.status, ExpiryStatus::Valid);
    assert_eq!(read.data.as_deref().map(Vec::len), Some(0));
}

/// R-NORM-4 with R-UNION-3: a union given anything but an object is an `InvalidResponse` at the
/// value's place, whether it picks its variant by an attribute or by a function, from a `Value`
/// or from bytes.
#[test]
fn r_norm_4_a_union_refuses_a_value_that_is_not_an_object() {
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute = "type")]
    enum PlainFeed {
        Link(Link),
        Post(Post),
    }
    let refused = |err: &Error, at: &str| {
        matches!(err, Error::InvalidResponse { entity: Some(_), position, reason, .. }
            if position == at && reason.starts_with("expected an object for") && reason.contains("found"))
    };
    for bad in [
        json!("1"),
        json!(5),
        json!(true),
        json!(null),
        json!([{"id": 1, "type": "link"}]),
    ] {
        let mut store = Store::new();
        let err = store
            .set_response::<SuffixedFeed>("GET /feed/1", &(), &bad)
            .unwrap_err();
        assert!(refused(&err, ""), "SuffixedFeed {bad}: {err:?}");
        let err = store.set_response::<PlainFeed>("GET /feed/1", &(), &bad).unwrap_err();
        assert!(refused(&err, ""), "PlainFeed {bad}: {err:?}");
        let bytes = serde_json::to_vec(&bad).unwrap();
        let err = store
            .set_response_bytes::<PlainFeed>("GET /feed/1", &(), &bytes)
            .unwrap_err();
        assert!(refused(&err, ""), "PlainFeed from bytes {bad}: {err:?}");
        assert_eq!(store.keys().count(), 0, "nothing written");
    }
    let body = json!({"a": {"id": 1, "type": "link"}, "b": "oops"});
    let err = Store::new()
        .set_response::<Values<PlainFeed>>("GET /feed", &(), &body)
        .unwrap_err();
    assert!(refused(&err, "/b"), "{err:?}");
}

/// R-UNION-2 with R-VAL-1: a union's function, in a `Values` map, is given each value with the
/// map holding it and the key it is under, whether the map is read from a `Value` or from bytes.
#[test]
fn r_union_2_a_map_value_is_selected_with_its_map_and_key() {
    fn by_map_key(value: &Value, parent: Option<&Value>, key: Option<&str>) -> Option<String> {
        let key = key?;
        // The map holds the value under the key.
        (parent?.get(key)? == value).then(|| key.to_owned())
    }
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute_fn = by_map_key)]
    enum ByMapKey {
        Link(Link),
        Post(Post),
    }
    let body = json!({"link": {"id": 1, "url": "u"}, "post": {"id": 2, "content": "c"}});
    for (_, map) in written_both_ways::<Values<ByMapKey>>("GET /v", &body) {
        assert!(
            matches!(map.get("link"), Some(ByMapKey::Link(l)) if l.url == "u"),
            "{map:?}"
        );
        assert!(
            matches!(map.get("post"), Some(ByMapKey::Post(p)) if p.content == "c"),
            "{map:?}"
        );
    }
}

/// R-UNION-2 with R-VAL-1 and R-NORM-6: a `Values` map of a union chosen by a function keeps
/// document order (the later copy of an entity wins, as with an attribute), and a list that is
/// a value of the map gives its elements the map and the list's key.
#[test]
fn r_union_2_a_values_map_of_a_function_union_keeps_order_and_list_keys() {
    fn by_key(value: &Value, parent: Option<&Value>, key: Option<&str>) -> Option<String> {
        let key = key?;
        parent?.get(key)?;
        match value.get("type") {
            Some(tag) => Some(tag.as_str()?.to_owned()),
            None => Some(key.trim_end_matches('s').to_owned()),
        }
    }
    #[derive(Clone, Debug, PartialEq, Union)]
    #[union(attribute_fn = by_key)]
    enum ByKey {
        Link(Link),
        Post(Post),
    }
    let text = br#"{"z": {"id": 1, "type": "link", "url": "first"}, "a": {"id": 1, "type": "link", "url": "last"}}"#;
    let mut store = Store::new();
    store
        .set_response_bytes::<Values<FeedItem>>("GET /attr", &(), text)
        .unwrap();
    let map = data::<Values<FeedItem>>(&store, "GET /attr", &json!({}));
    assert!(
        matches!(map.get("z"), Some(FeedItem::Link(l)) if l.url == "last"),
        "attribute: {map:?}"
    );
    let mut store = Store::new();
    store.set_response_bytes::<Values<ByKey>>("GET /fn", &(), text).unwrap();
    let map = data::<Values<ByKey>>(&store, "GET /fn", &json!({}));
    assert!(
        matches!(map.get("z"), Some(ByKey::Link(l)) if l.url == "last"),
        "function: {map:?}"
    );

    let body = json!({"links": [{"id": 1, "url": "u"}], "posts": [{"id": 1, "content": "c"}]});
    let mut store = Store::new();
    store.set_response::<Values<Vec<ByKey>>>("GET /v", &(), &body).unwrap();
    let map = data::<Values<Vec<ByKey>>>(&store, "GET /v", &json!({}));
    let links = map.get("links").map(Vec::as_slice);
    assert!(matches!(links, Some([ByKey::Link(l)]) if l.url == "u"), "{map:?}");
    let posts = map.get("posts").map(Vec::as_slice);
    assert!(matches!(posts, Some([ByKey::Post(p)]) if p.content == "c"), "{map:?}");
}
