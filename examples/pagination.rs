//! Pagination: pages fetched one after another accumulate in one cached list.
//!
//! `cargo run --example pagination` starts the embedded demo API on 127.0.0.1. The example shows:
//!
//! 1. `pagination_field = "page"` on the todos: `get_list().get_page()` fetches `GET /todos?page=N`
//!    and appends the page's todos to the list stored under the list's own key (`GET /todos`),
//!    skipping todos it already holds, so fetching a page twice adds nothing;
//! 2. a paginated *object*, the seed's `{ results, total, limit, skip }` shape of `GET /articles`,
//!    declared with `#[derive(Schema)]`: its pages accumulate in `results`, while `total`,
//!    `limit` and `skip` come from the latest page.

use std::io::Write;

use restcache::prelude::*;
use serde_json::json;

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

resource! {
    /// `GET /todos?page=N` returns the N-th ten todos.
    #[resource(path = "/todos/:id", schema = Todo, pagination_field = "page")]
    struct TodoResource;
}

/// An article of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
struct Article {
    #[entity(pk)]
    id: u64,
    title: String,
    author_id: String,
}

/// One page of articles, as `GET /articles?skip=0&limit=10` returns it.
#[derive(Clone, Debug, Default, Schema)]
struct ArticlePage {
    /// The articles; a collection, so pages can be added to it.
    #[schema(nested)]
    results: Collection<Vec<Article>>,
    total: u64,
    limit: u64,
    skip: u64,
}

resource! {
    /// The articles; their list is an [`ArticlePage`], paged by the `skip` query parameter.
    #[resource(path = "/articles/:id", schema = Article, pagination_field = "skip")]
    struct ArticleResource {
        #[member(schema = ArticlePage)]
        get_list,
    }
}

/// `#1 to #10`, or the ids one by one when they are not consecutive.
fn span(ids: &[u64]) -> String {
    match (ids.first(), ids.last()) {
        (Some(first), Some(last)) if ids.windows(2).all(|w| w[1] == w[0] + 1) && ids.len() > 1 => {
            format!("#{first} to #{last}")
        }
        _ => ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", "),
    }
}

fn todo_ids(todos: &[Todo]) -> Vec<u64> {
    todos.iter().map(|t| t.id).collect()
}

fn distinct(ids: &[u64]) -> usize {
    ids.iter().collect::<std::collections::BTreeSet<_>>().len()
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;

    let page = TodoResource::get_list().get_page();
    let list = TodoResource::get_list();
    writeln!(
        out,
        "\n1. get_page() requests {} but stores under the list's key {:?}",
        page.url(&json!({ "page": 1 }))?,
        page.key(&json!({ "page": 1 }))?
    )?;
    for (step, n) in [(1, 1), (2, 2), (3, 2)] {
        let fetched = ctrl.fetch(&page, params! { page: n }).await?;
        let cached = ctrl.get_response(&list, ())?.data.unwrap_or_default();
        let ids = todo_ids(&cached);
        let again = if step == 3 { " again" } else { "" };
        writeln!(
            out,
            "   page {n}{again}: the page has todos {}; the cached list has {} todos ({} distinct), {}",
            span(&todo_ids(&fetched)),
            ids.len(),
            distinct(&ids),
            span(&ids)
        )?;
    }

    let articles = ArticleResource::get_list();
    let first = ctrl.fetch(&articles, ()).await?;
    writeln!(
        out,
        "\n2. GET /articles: a page object with {} results ({}), total {}, limit {}, skip {}",
        first.results.len(),
        span(&first.results.iter().map(|a| a.id).collect::<Vec<_>>()),
        first.total,
        first.limit,
        first.skip
    )?;
    for skip in [10, 20] {
        ctrl.fetch(&articles.get_page(), params! { skip: skip }).await?;
        let cached = ctrl
            .get_response(&articles, ())?
            .data
            .ok_or("the article list is not cached")?;
        let ids: Vec<u64> = cached.results.iter().map(|a| a.id).collect();
        writeln!(
            out,
            "   get_page(skip {skip}): the cached page now holds {} results ({}), total {}, skip {}",
            ids.len(),
            span(&ids),
            cached.total,
            cached.skip
        )?;
    }
    // The articles of every page are entities in the cache: `get` needs no request.
    let one = ctrl
        .get_response(&ArticleResource::get(), params! { id: 25 })?
        .data
        .ok_or("article 25 is not cached")?;
    writeln!(
        out,
        "   article #25 read from the cache, without a request: {:?} by {}",
        one.title, one.author_id
    )?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
