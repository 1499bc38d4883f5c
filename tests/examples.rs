//! Every example runs against a fresh demo API, and prints the facts its feature stands for.
//!
//! Each example file is included as a module; its `run(base_url, out)` is called with a buffer,
//! and the assertions read the printed text (whitespace runs collapsed to one space) and, where
//! the claim is about the wire, the requests the server recorded.

use demo_api::DemoServer;
use serde_json::json;

#[path = "../examples/batch_delete.rs"]
#[allow(dead_code)]
mod batch_delete;
#[path = "../examples/bounded.rs"]
#[allow(dead_code)]
mod bounded;
#[path = "../examples/custom_collection.rs"]
#[allow(dead_code)]
mod custom_collection;
#[path = "../examples/custom_endpoint.rs"]
#[allow(dead_code)]
mod custom_endpoint;
#[path = "../examples/feed.rs"]
#[allow(dead_code)]
mod feed;
#[path = "../examples/offline.rs"]
#[allow(dead_code)]
mod offline;
#[path = "../examples/optimistic.rs"]
#[allow(dead_code)]
mod optimistic;
#[path = "../examples/pagination.rs"]
#[allow(dead_code)]
mod pagination;
#[path = "../examples/resource_factory.rs"]
#[allow(dead_code)]
mod resource_factory;
#[path = "../examples/todos.rs"]
#[allow(dead_code)]
mod todos;

/// The printed text with every run of whitespace collapsed to one space.
fn squash(out: Vec<u8>) -> String {
    let text = String::from_utf8(out).expect("the examples print UTF-8");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_says(text: &str, expected: &[&str]) {
    for fact in expected {
        assert!(text.contains(fact), "expected {fact:?} in the output:\n{text}");
    }
}

/// `METHOD /path?query` of every request the server saw.
fn requests(server: &DemoServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.uri()))
        .collect()
}

async fn start() -> DemoServer {
    DemoServer::start().await.expect("the demo API starts")
}

#[tokio::test]
async fn example_todos_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    todos::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "1. GET /todos: 30 todos, 10 completed",
            "[x] #3 Todo 3",
            "2. Todo #1 read without a request (the cached list had it, status Valid): \"Todo 1\"",
            "read status: ready",
            "3. POST /todos created #31 \"Try restcache\"",
            "live stream: the list now has 31 todos, 10 completed",
            "4. PATCH /todos/1 completed it; the cached list agrees: completed = true",
            "live stream: the list now has 31 todos, 11 completed",
            "5. DELETE /todos/31 removed it from every list: still listed = false",
            "6. All<Todo>: 30 todos, 11 completed",
        ],
    );
    assert!(
        !text.contains("no change"),
        "every step reached the live stream:\n{text}"
    );
    let seen = requests(&server);
    assert!(
        !seen.contains(&"GET /todos/1".to_owned()),
        "todo 1 came from the cached list: {seen:?}"
    );
    assert_eq!(
        seen.iter().filter(|r| r.starts_with("GET /todos")).count(),
        1,
        "one GET of the list, shared by the stream and the read: {seen:?}"
    );
}

#[tokio::test]
async fn example_feed_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    feed::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "7 items (3 links, 3 posts, 1 other)",
            "link #1 \"Link 1\" -> https://example.com/links/1",
            "post #6 \"Post 6 content\"",
            "other #7 of type \"video\": no variant matched",
            "entity tables: Link: 1, 3, 5 | Post: 2, 4, 6 (none holds the video)",
            "All<TaggedItem>, tagged by item_tag(): 6 items, the video skipped",
            "link_item #1, link_item #3, link_item #5, post_item #2, post_item #4, post_item #6",
            "POST /feed created link #8 \"restcache on docs.rs\"",
            "without a request: 8 items (4 links, 3 posts, 1 other)",
            "links: #1, #3, #5, #8",
        ],
    );
    assert_eq!(
        requests(&server),
        ["GET /feed", "GET /feed", "POST /feed"],
        "the new link reached All<FeedItem> without a refetch"
    );
}

#[tokio::test]
async fn example_offline_restores_its_lists_with_no_request() {
    let server = start().await;
    let mut out = Vec::new();
    offline::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "1. The first run: an empty log",
            "u1's todos, from the server: #1 #2 #3 #4 #5 #6 #7 #8 #9 #10",
            "u2's todos, from the server: #11 #12 #13 #14 #15 #16 #17 #18 #19 #20",
            "moved #1 to u2: it left u1's list and joined u2's",
            "2. The second run: the same log",
            "u1's todos, from the log: #2 #3 #4 #5 #6 #7 #8 #9 #10",
            "u2's todos, from the log: #11 #12 #13 #14 #15 #16 #17 #18 #19 #20 #1",
        ],
    );
    assert_eq!(
        requests(&server),
        ["GET /todos?userId=u1", "GET /todos?userId=u2", "PATCH /todos/1"],
        "the second run sent nothing"
    );
}

#[tokio::test]
async fn example_bounded_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    bounded::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "1. A live view shows todo #1: \"Todo 1\"",
            "2. Opened todos #2 to #30, one key each, with a budget of 8 KiB",
            "evicted, the least recently read; #1 kept, as a live view shows it",
            "3. Todo #2 again: fetched anew, \"Todo 2\"",
        ],
    );
    let cached = text
        .split("still cached: ")
        .nth(1)
        .and_then(|rest| rest.split(" evicted").next())
        .expect("the cached todos are printed");
    let ids: Vec<u64> = cached
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('#')?.parse().ok())
        .collect();
    assert_eq!(ids.first(), Some(&1), "the live view's todo: {cached}");
    assert_eq!(ids.last(), Some(&30), "the newest: {cached}");
    assert!(ids.len() < 20 && !ids.contains(&2), "the oldest evicted: {cached}");
    assert!(
        ids.windows(2).skip(1).all(|w| w[1] == w[0] + 1),
        "what stays is the most recent run: {cached}"
    );
    let todo2 = requests(&server).iter().filter(|r| *r == "GET /todos/2").count();
    assert_eq!(todo2, 2, "todo #2 fetched again once evicted");
}

#[tokio::test]
async fn example_pagination_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    pagination::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "get_page() requests /todos?page=1 but stores under the list's key \"GET /todos\"",
            "page 1: the page has todos #1 to #10; the cached list has 10 todos (10 distinct), #1 to #10",
            "page 2: the page has todos #11 to #20; the cached list has 20 todos (20 distinct), #1 to #20",
            "page 2 again: the page has todos #11 to #20; the cached list has 20 todos (20 distinct), #1 to #20",
            "GET /articles: a page object with 10 results (#1 to #10), total 25, limit 10, skip 0",
            "get_page(skip 10): the cached page now holds 20 results (#1 to #20), total 25, skip 10",
            "get_page(skip 20): the cached page now holds 25 results (#1 to #25), total 25, skip 20",
            "article #25 read from the cache, without a request: \"Article 25\" by u1",
        ],
    );
    assert_eq!(
        requests(&server),
        [
            "GET /todos?page=1",
            "GET /todos?page=2",
            "GET /todos?page=2",
            "GET /articles",
            "GET /articles?skip=10",
            "GET /articles?skip=20",
        ]
    );
}

#[tokio::test]
async fn example_custom_endpoint_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    custom_endpoint::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "1. GET /me without the hooks is refused: HTTP 401",
            "GET /me with the hooks (Authorization: Bearer demo-token): Ada Lovelace <ada@example.com>, user u1",
            "the server received authorization: \"Bearer demo-token\"",
            "the server received authorization: null",
        ],
    );
    let auth: Vec<(String, Option<String>)> = server
        .requests()
        .iter()
        .map(|r| (r.uri(), r.header("authorization").map(str::to_owned)))
        .collect();
    let bearer = Some("Bearer demo-token".to_owned());
    assert_eq!(
        auth,
        [
            ("/me".to_owned(), None),
            ("/me".to_owned(), bearer.clone()),
            ("/whoami".to_owned(), bearer),
        ],
        "the hooks' header arrived at the home origin"
    );
}

#[tokio::test]
async fn example_custom_collection_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    custom_collection::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "GET /todos?orderBy=title&userId=u1: 10 todos",
            "GET /todos?sort=title&userId=u1: 10 todos",
            "created #31 \"Plan the launch\"",
            "through SortedTodoResource (only `sort` does not filter) created #32 \"Write the notes\"",
            "list #31 (default) #32 (sort rule) size now",
            "{userId: u1} joined joined 12",
            "{orderBy: title, userId: u1} joined - 11",
            "{sort: title, userId: u1} - joined 11",
            "{userId: u2} - - 10",
        ],
    );
    let posts: Vec<String> = requests(&server)
        .into_iter()
        .filter(|r| r.starts_with("POST"))
        .collect();
    assert_eq!(posts, ["POST /todos?userId=u1", "POST /todos?userId=u1"]);
}

#[tokio::test]
async fn example_batch_delete_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    batch_delete::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "1. GET /todos: 30 todos, among them #5, #13, #7",
            "todo #7 is cached too: \"Todo 7\"",
            "DELETE /todos with the body [\"5\", \"13\", \"7\"]",
            "the ids sent were invalidated: 5, 13, 7",
            "3. The cached list now has 27 todos; of 5, 13 and 7 still listed: none",
            "todo #7 in the cache: gone, status Invalid",
        ],
    );
    let all = server.requests();
    let delete = all.last().expect("requests were made");
    assert_eq!((delete.method.as_str(), delete.uri().as_str()), ("DELETE", "/todos"));
    assert_eq!(delete.json(), Some(json!(["5", "13", "7"])));
    assert_eq!(server.todos().len(), 27, "the server deleted them too");
    assert_eq!(
        requests(&server),
        ["GET /todos", "DELETE /todos"],
        "todo 7 came from the list"
    );
}

#[tokio::test]
async fn example_resource_factory_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    resource_factory::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "GET /articles?limit=5:",
            "Paginated<Article> { results: [#1, #2, #3, #4, #5], total: 25, limit: 5, skip: 0 }",
            "get_page with skip 5: the cached page now holds 10 results: #1, #2, #3, #4, #5, #6, #7, #8, #9, #10",
            "get() of article #8, read from the cache without a request: \"Article 8\"",
            "the member \"Todo.search\"",
            "renders {q: \"todo 2\"} as /todos/search?q=todo%202&page= (the optional page left empty)",
            "GET /todos/search?q=todo%202&page=1: found 10: #2, #20, #21, #22, #23, #24, #25, #26, #27, #28",
            "GET /todos/search?q=todo%202&page=2: found 1: #29",
        ],
    );
    assert_eq!(
        requests(&server),
        [
            "GET /articles?limit=5",
            "GET /articles?limit=5&skip=5",
            "GET /todos/search?q=todo%202&page=1",
            "GET /todos/search?q=todo%202&page=2",
        ]
    );
}

#[tokio::test]
async fn example_optimistic_runs_on_the_demo_api() {
    let server = start().await;
    let mut out = Vec::new();
    optimistic::run(&server.base_url(), &mut out).await.unwrap();
    let text = squash(out);
    assert_says(
        &text,
        &[
            "among them #4 [ ] \"Todo 4\" and #5 [ ] \"Todo 5\"",
            "the live view changed as soon as the request started: #4 [x] \"Todo 4\"",
            "the server answered completed = true; the cached list keeps it: #4 [x] \"Todo 4\"",
            "3. PATCH /misbehave/500?id=5 {\"title\": \"Doomed edit\"}",
            "before: #5 [ ] \"Todo 5\"",
            "during: #5 [ ] \"Doomed edit\" (optimistic)",
            "the request failed: HTTP 500 from",
            "after: #5 [ ] \"Todo 5\" (rolled back)",
        ],
    );
    assert_eq!(
        requests(&server),
        ["GET /todos?userId=u1", "PATCH /todos/4", "PATCH /misbehave/500?id=5"],
        "the live views read the cache; only the mutations went out"
    );
    assert_eq!(server.todo(4).unwrap()["completed"], true);
    assert_eq!(server.todo(5).unwrap()["title"], "Todo 5");
}
