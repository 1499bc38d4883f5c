//! A reusable resource factory: resources built at run time by functions generic over the
//! entity, instead of one `resource!` declaration each.
//!
//! `cargo run --example resource_factory` starts the embedded demo API on 127.0.0.1. The example
//! shows:
//!
//! 1. `paginated_resource::<E>(path)`: a `Resource<E>` whose list is the generic page object
//!    `Paginated<E>` (`{ results, total, limit, skip }`, the shape of `GET /articles`), with
//!    `get_page` on `skip`; used here for the articles;
//! 2. `search_member(&resource)`: a member added to any resource from its `get`, whose path holds
//!    query text with optional parameters (`/todos/search\?q=:q?&page=:page?`); used here on a
//!    todos resource.

use std::io::Write;

use restcache::prelude::*;
use restcache::rest::EndpointOptions;
use restcache::schema::EntitySchema;

/// An article of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
struct Article {
    #[entity(pk)]
    id: u64,
    title: String,
    author_id: String,
}

/// A todo of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
    completed: bool,
}

/// One page of any entity: the results, and where the page is in the whole list.
#[derive(Clone, Debug, Default, Schema)]
struct Paginated<E> {
    #[schema(nested)]
    results: Collection<Vec<E>>,
    total: u64,
    limit: u64,
    skip: u64,
}

/// A resource at `path` whose list reads `Paginated<E>` pages, paged by `skip`.
fn paginated_resource<E: EntitySchema + Default>(path: &str) -> Result<Resource<E, Paginated<E>>, restcache::Error> {
    let resource = Resource::<E>::new(ResourceOptions {
        path: path.into(),
        pagination_field: Some("skip".into()),
        ..Default::default()
    })?;
    Ok(resource.with_list_schema::<Paginated<E>>())
}

/// A search member for any resource: derived from its `get`, with another path and a list of
/// entities as its schema.
fn search_member<E: EntitySchema, L: restcache::schema::Schema>(
    resource: &Resource<E, L>,
    path: &str,
) -> Result<RestEndpoint<Vec<E>>, restcache::Error> {
    let search = resource.get().extend(EndpointOptions {
        path: Some(path.into()),
        name: Some(format!("{}.search", E::resource_name())), // `Todo.search`, for traces and errors
        ..Default::default()
    })?;
    Ok(search.with_schema::<Vec<E>>())
}

fn ids<'a>(ids: impl Iterator<Item = &'a u64>) -> String {
    ids.map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;

    let articles = paginated_resource::<Article>("/articles/:id")?;
    let page = ctrl.fetch(&articles.get_list(), params! { limit: 5 }).await?;
    writeln!(
        out,
        "\n1. paginated_resource::<Article>(\"/articles/:id\"), GET {}:",
        articles.get_list().url(&params! { limit: 5 })?
    )?;
    writeln!(
        out,
        "   Paginated<Article> {{ results: [{}], total: {}, limit: {}, skip: {} }}",
        ids(page.results.iter().map(|a| &a.id)),
        page.total,
        page.limit,
        page.skip
    )?;
    let next = articles.get_list().paginated()?.get_page();
    ctrl.fetch(&next, params! { limit: 5, skip: 5 }).await?;
    let cached = ctrl
        .get_response(&articles.get_list(), params! { limit: 5 })?
        .data
        .ok_or("the articles are not cached")?;
    writeln!(
        out,
        "   get_page with skip 5: the cached page now holds {} results: {}",
        cached.results.len(),
        ids(cached.results.iter().map(|a| &a.id))
    )?;
    let one = ctrl
        .get_response(&articles.get(), params! { id: 8 })?
        .data
        .ok_or("article 8 is not cached")?;
    writeln!(
        out,
        "   get() of article #8, read from the cache without a request: {:?}",
        one.title
    )?;

    let todos = Resource::<Todo>::new(ResourceOptions {
        path: "/todos/:id".into(),
        ..Default::default()
    })?;
    let search = search_member(&todos, r"/todos/search\?q=:q?&page=:page?")?;
    writeln!(
        out,
        "\n2. search_member(&todos, r\"{}\"): the member {:?}",
        search.path(),
        search.name()
    )?;
    writeln!(
        out,
        "   renders {{q: \"todo 2\"}} as {} (the optional page left empty)",
        search.url(&params! { q: "todo 2" })?
    )?;
    for page in [1, 2] {
        let args = params! { q: "todo 2", page: page };
        let found = ctrl.fetch(&search, &args).await?;
        writeln!(
            out,
            "   GET {}: found {}: {}",
            search.url(&args)?,
            found.len(),
            ids(found.iter().map(|t| &t.id))
        )?;
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
