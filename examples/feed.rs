//! A polymorphic list: one feed holding links and posts, read with `All`, and an item of a type
//! the client does not know.
//!
//! `cargo run --example feed` starts the embedded demo API on 127.0.0.1. Its `GET /feed` returns
//! links (`"type": "link"`) and posts (`"type": "post"`), plus one `"type": "video"` item that no
//! variant below matches; `POST /feed` creates an item. The example shows:
//!
//! 1. the string form of the union tag, `#[union(attribute = "type")]`, with an `other` variant:
//!    the video comes back as `FeedItem::Other` and creates no entity;
//! 2. the function form, `#[union(attribute_fn = ...)]`, whose tags carry a suffix and which has
//!    no `other` variant: the video is skipped;
//! 3. that a link created by `POST /feed` is part of `All<FeedItem>` at once, without refetching
//!    the feed.

use restcache::prelude::*;
use serde_json::{Value, json};
use std::io::Write;

/// A link of the feed: `{ "id": 1, "type": "link", "url": "...", "title": "..." }`.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Link {
    #[entity(pk)]
    id: u64,
    url: String,
    title: String,
}

/// A post of the feed: `{ "id": 2, "type": "post", "content": "..." }`.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Post {
    #[entity(pk)]
    id: u64,
    content: String,
}

/// A feed item, told apart by its `type` field: `"link"` is a [`Link`], `"post"` a [`Post`]
/// (the tags default to the variant names in snake_case).
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
enum FeedItem {
    Link(Link),
    Post(Post),
    /// Any other object, kept exactly as it came; it creates no entity.
    #[union(other)]
    Other(Value),
}

/// The tag of an item, computed by a function: its `type` with the suffix `_item`. The function
/// also receives the object holding the item and the key it appears under, unused here.
fn item_tag(item: &Value, _parent: Option<&Value>, _key: Option<&str>) -> Option<String> {
    Some(format!("{}_item", item.get("type")?.as_str()?))
}

/// The same items, tagged by [`item_tag`]. Without an `other` variant, an item whose tag matches
/// no variant is left out of lists.
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute_fn = item_tag)]
enum TaggedItem {
    #[union(tag = "link_item")]
    Link(Link),
    #[union(tag = "post_item")]
    Post(Post),
}

resource! {
    /// The feed: `GET /feed/:id`, `GET /feed`, `POST /feed`, `PATCH` and `DELETE /feed/:id`.
    #[resource(path = "/feed/:id", schema = FeedItem)]
    struct FeedResource;
}

fn describe(item: &FeedItem) -> String {
    match item {
        FeedItem::Link(link) => format!("link #{} {:?} -> {}", link.id, link.title, link.url),
        FeedItem::Post(post) => format!("post #{} {:?}", post.id, post.content),
        FeedItem::Other(value) => format!(
            "other #{} of type {}: no variant matched, kept as it came",
            value["id"], value["type"]
        ),
    }
}

/// `4 links, 3 posts, 1 other`.
fn counts(items: &[FeedItem]) -> String {
    let links = items.iter().filter(|i| matches!(i, FeedItem::Link(_))).count();
    let posts = items.iter().filter(|i| matches!(i, FeedItem::Post(_))).count();
    let others = items.len() - links - posts;
    format!("{links} links, {posts} posts, {others} other")
}

/// The entity tables of the cache and the pks they hold: `Link: 1, 3, 5 | Post: 2, 4, 6`.
fn tables(ctrl: &Controller) -> String {
    let cache = ctrl.inspect();
    let Some(entities) = cache["entities"].as_object() else {
        return "none".into();
    };
    let tables: Vec<String> = entities
        .iter()
        .map(|(name, table)| {
            let pks: Vec<&str> = table["rows"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|row| row["pk"].as_str())
                .collect();
            format!("{name}: {}", pks.join(", "))
        })
        .collect();
    tables.join(" | ")
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;

    // `All<FeedItem>`: every cached Link and Post, whichever request brought them, plus the
    // items of the response that matched no variant.
    let feed = FeedResource::get_list().with_schema::<All<FeedItem>>();
    let items = ctrl.suspense(&feed, ()).await?;
    writeln!(
        out,
        "\n1. GET /feed read as All<FeedItem>, tagged by the \"type\" field: {} items ({})",
        items.len(),
        counts(&items)
    )?;
    writeln!(
        out,
        "   (All lists the Link table, then the Post table, then the unmatched items)"
    )?;
    for item in items.iter() {
        writeln!(out, "   {}", describe(item))?;
    }
    writeln!(out, "   entity tables: {}  (none holds the video)", tables(&ctrl))?;

    // The function form, in a Controller of its own: both unions read the same URL, and a
    // cached result is stored per URL.
    let tagged_ctrl = Controller::builder().base_url(base_url).build()?;
    let tagged = FeedResource::get_list().with_schema::<All<TaggedItem>>();
    let tagged_items = tagged_ctrl.suspense(&tagged, ()).await?;
    let tags: Vec<String> = tagged_items
        .iter()
        .map(|item| match item {
            TaggedItem::Link(link) => format!("link_item #{}", link.id),
            TaggedItem::Post(post) => format!("post_item #{}", post.id),
        })
        .collect();
    writeln!(
        out,
        "\n2. GET /feed read as All<TaggedItem>, tagged by item_tag(): {} items, the video skipped",
        tagged_items.len()
    )?;
    writeln!(out, "   {}", tags.join(", "))?;

    // A new link, created through the resource's push member (`POST /feed`).
    let made = ctrl
        .fetch(&FeedResource::get_list().push(), ())
        .body(&json!({
            "type": "link",
            "url": "https://docs.rs/restcache",
            "title": "restcache on docs.rs",
        }))
        .await?;
    writeln!(out, "\n3. POST /feed created {}", describe(&made))?;
    // `get_response` only reads the cache; it never sends a request.
    let items = ctrl
        .get_response(&feed, ())?
        .data
        .ok_or("All<FeedItem> is no longer cached")?;
    writeln!(
        out,
        "   All<FeedItem> read again from the cache, without a request: {} items ({})",
        items.len(),
        counts(&items)
    )?;
    let links: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            FeedItem::Link(link) => Some(format!("#{}", link.id)),
            _ => None,
        })
        .collect();
    writeln!(out, "   links: {}", links.join(", "))?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
