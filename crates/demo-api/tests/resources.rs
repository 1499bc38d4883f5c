//! The data routes over real HTTP: todos (plain and user-scoped), users, feed and articles.

use demo_api::DemoServer;
use demo_api::client::{self, Response};
use serde_json::{Value, json};

type TestResult = std::io::Result<()>;

fn ids(response: &Response) -> Vec<u64> {
    let body = response.json().expect("a JSON body");
    body.as_array()
        .expect("an array")
        .iter()
        .map(|item| item["id"].as_u64().expect("a numeric id"))
        .collect()
}

async fn send_json(server: &DemoServer, method: &str, target: &str, body: Value) -> std::io::Result<Response> {
    let bytes = body.to_string().into_bytes();
    client::request(
        server.addr(),
        method,
        target,
        &[("Content-Type", "application/json")],
        Some(&bytes),
    )
    .await
}

#[tokio::test]
async fn starts_on_loopback_with_its_own_port() -> TestResult {
    let one = DemoServer::start().await?;
    let two = DemoServer::start().await?;
    assert!(one.addr().ip().is_loopback());
    assert_eq!(one.addr().ip().to_string(), "127.0.0.1");
    assert_ne!(one.addr().port(), 0);
    assert_ne!(one.addr().port(), two.addr().port());
    assert_eq!(one.base_url(), format!("http://127.0.0.1:{}", one.addr().port()));
    Ok(())
}

#[tokio::test]
async fn lists_thirty_todos_and_filters_exactly() -> TestResult {
    let server = DemoServer::start().await?;
    let all = client::get(server.addr(), "/todos").await?;
    assert_eq!(all.status, 200);
    assert_eq!(all.header("content-type"), Some("application/json"));
    assert_eq!(ids(&all), (1..=30).collect::<Vec<_>>());

    let by_user = client::get(server.addr(), "/todos?userId=u2").await?;
    assert_eq!(ids(&by_user), (11..=20).collect::<Vec<_>>());

    let done = client::get(server.addr(), "/todos?completed=true&userId=u1&orderBy=title").await?;
    assert_eq!(ids(&done), vec![3, 6, 9]);

    let none = client::get(server.addr(), "/todos?userId=u").await?;
    assert_eq!(ids(&none), Vec::<u64>::new());
    Ok(())
}

#[tokio::test]
async fn pages_the_filtered_list() -> TestResult {
    let server = DemoServer::start().await?;
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?page=2").await?),
        (11..=20).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?page=2&limit=4").await?),
        vec![5, 6, 7, 8]
    );
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?userId=u3&page=2&limit=3").await?),
        vec![24, 25, 26]
    );
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?page=4").await?),
        Vec::<u64>::new()
    );
    let bad = client::get(server.addr(), "/todos?page=zero").await?;
    assert_eq!(bad.status, 400);
    assert!(bad.json().unwrap()["error"].as_str().unwrap().contains("page"));
    Ok(())
}

#[tokio::test]
async fn searches_titles_without_colliding_with_ids() -> TestResult {
    let server = DemoServer::start().await?;
    let found = client::get(server.addr(), "/todos/search?q=todo%202").await?;
    assert_eq!(ids(&found), vec![2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    let paged = client::get(server.addr(), "/todos/search?q=TODO%202&page=2&limit=5").await?;
    assert_eq!(ids(&paged), vec![24, 25, 26, 27, 28]);
    Ok(())
}

#[tokio::test]
async fn post_then_get_shows_the_new_todo() -> TestResult {
    let server = DemoServer::start().await?;
    let made = send_json(
        &server,
        "POST",
        "/todos",
        json!({ "title": "Buy milk", "userId": "u2", "id": 999 }),
    )
    .await?;
    assert_eq!(made.status, 201);
    let expected = json!({ "id": 31, "userId": "u2", "title": "Buy milk", "completed": false });
    assert_eq!(made.json(), Some(expected.clone()));

    let read = client::get(server.addr(), "/todos/31").await?;
    assert_eq!(read.json(), Some(expected.clone()));
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?userId=u2").await?).last(),
        Some(&31)
    );
    assert_eq!(server.todo(31), Some(expected));
    assert_eq!(server.todos().len(), 31);
    Ok(())
}

#[tokio::test]
async fn put_replaces_and_patch_merges() -> TestResult {
    let server = DemoServer::start().await?;
    let patched = send_json(&server, "PATCH", "/todos/3", json!({ "title": "Renamed" })).await?;
    assert_eq!(
        patched.json(),
        Some(json!({ "id": 3, "userId": "u1", "title": "Renamed", "completed": true }))
    );

    let put = send_json(&server, "PUT", "/todos/3", json!({ "title": "Replaced" })).await?;
    assert_eq!(put.status, 200);
    assert_eq!(
        put.json(),
        Some(json!({ "id": 3, "userId": "u1", "title": "Replaced", "completed": false }))
    );
    assert_eq!(server.todo(3), put.json());

    let missing = send_json(&server, "PATCH", "/todos/99", json!({})).await?;
    assert_eq!(missing.status, 404);
    assert!(missing.json().unwrap()["error"].is_string());
    Ok(())
}

#[tokio::test]
async fn respond_flag_shapes_mutation_answers() -> TestResult {
    let server = DemoServer::start().await?;
    let empty = send_json(&server, "PATCH", "/todos/4?respond=empty", json!({ "completed": true })).await?;
    assert_eq!(empty.status, 204);
    assert!(empty.body.is_empty());
    assert_eq!(
        server.todo(4).unwrap()["completed"],
        true,
        "the change is applied even when the answer is empty"
    );

    let empty_put = send_json(&server, "PUT", "/todos/4?respond=empty", json!({ "title": "T" })).await?;
    assert_eq!((empty_put.status, empty_put.body.len()), (204, 0));

    let pk = client::request(server.addr(), "DELETE", "/todos/5?respond=pk", &[], None).await?;
    assert_eq!((pk.status, pk.json()), (200, Some(json!("5"))));

    let object = client::request(server.addr(), "DELETE", "/todos/6?respond=object", &[], None).await?;
    assert_eq!(object.json().unwrap()["title"], "Todo 6");

    let plain = client::request(server.addr(), "DELETE", "/todos/7", &[], None).await?;
    assert_eq!((plain.status, plain.body.len()), (204, 0));
    assert_eq!(client::get(server.addr(), "/todos/7").await?.status, 404);

    let unknown = client::request(server.addr(), "DELETE", "/todos/8?respond=maybe", &[], None).await?;
    assert_eq!(unknown.status, 400);
    assert!(server.todo(8).is_some());
    Ok(())
}

#[tokio::test]
async fn patch_on_the_list_merges_into_the_todo_its_body_names() -> TestResult {
    let server = DemoServer::start().await?;
    let by_string = send_json(&server, "PATCH", "/todos", json!({ "id": "3", "title": "moved" })).await?;
    assert_eq!(by_string.status, 200);
    let todo = by_string.json().unwrap();
    assert_eq!((todo["id"].clone(), todo["title"].clone()), (json!(3), json!("moved")));
    assert_eq!(server.todo(3).unwrap()["title"], "moved");
    let by_number = send_json(&server, "PATCH", "/todos", json!({ "id": 4, "completed": true })).await?;
    assert_eq!(by_number.json().unwrap()["completed"], true);

    let unknown = send_json(&server, "PATCH", "/todos", json!({ "id": 404 })).await?;
    assert_eq!(unknown.status, 404);
    for bad in [json!({ "title": "no id" }), json!({ "id": true }), json!([3])] {
        let refused = send_json(&server, "PATCH", "/todos", bad.clone()).await?;
        assert_eq!(refused.status, 400, "{bad}");
    }
    Ok(())
}

#[tokio::test]
async fn batch_delete_answers_empty_and_empties_the_list() -> TestResult {
    let server = DemoServer::start().await?;
    let some = send_json(&server, "DELETE", "/todos", json!(["1", 2, "3", 404])).await?;
    assert_eq!(some.status, 200);
    assert!(some.body.is_empty(), "the batch pattern answers with an empty body");
    assert_eq!(some.header("content-type"), None);
    assert_eq!(
        ids(&client::get(server.addr(), "/todos?page=1&limit=2").await?),
        vec![4, 5]
    );

    let rest: Vec<Value> = (4..=30)
        .map(|id| if id % 2 == 0 { json!(id) } else { json!(id.to_string()) })
        .collect();
    let all = send_json(&server, "DELETE", "/todos", Value::Array(rest)).await?;
    assert_eq!((all.status, all.body.len()), (200, 0));
    assert_eq!(client::get(server.addr(), "/todos").await?.json(), Some(json!([])));
    assert!(server.todos().is_empty());

    let not_array = send_json(&server, "DELETE", "/todos", json!({ "ids": [1] })).await?;
    assert_eq!(not_array.status, 400);
    Ok(())
}

#[tokio::test]
async fn batch_delete_can_answer_pks_or_objects() -> TestResult {
    let server = DemoServer::start().await?;
    let pks = send_json(&server, "DELETE", "/todos?respond=pk", json!([1, "2"])).await?;
    assert_eq!(pks.json(), Some(json!(["1", "2"])));
    let objects = send_json(&server, "DELETE", "/todos?respond=object", json!([3])).await?;
    assert_eq!(objects.json().unwrap()[0]["title"], "Todo 3");
    Ok(())
}

#[tokio::test]
async fn bad_bodies_are_json_400s() -> TestResult {
    let server = DemoServer::start().await?;
    for (method, target, body) in [
        ("POST", "/todos", &b"{\"title\": "[..]),
        ("PUT", "/todos/1", b"not json"),
        ("PATCH", "/users/u1", b"[1, 2]"),
        ("POST", "/feed", b""),
        ("DELETE", "/todos", b"[true]"),
    ] {
        let response = client::request(server.addr(), method, target, &[], Some(body)).await?;
        assert_eq!(response.status, 400, "{method} {target}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert!(response.json().unwrap()["error"].is_string());
    }
    assert_eq!(server.todos().len(), 30);
    Ok(())
}

#[tokio::test]
async fn user_scoped_todos() -> TestResult {
    let server = DemoServer::start().await?;
    assert_eq!(
        ids(&client::get(server.addr(), "/users/u2/todos").await?),
        (11..=20).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&client::get(server.addr(), "/users/u2/todos?page=2&limit=4").await?),
        vec![15, 16, 17, 18]
    );
    assert_eq!(
        ids(&client::get(server.addr(), "/users/u2/todos/done").await?),
        vec![12, 15, 18]
    );
    assert_eq!(
        client::get(server.addr(), "/users/u2/todos/12").await?.json().unwrap()["title"],
        "Todo 12"
    );
    assert_eq!(
        client::get(server.addr(), "/users/u2/todos/1").await?.status,
        404,
        "todo 1 is u1's"
    );
    assert_eq!(client::get(server.addr(), "/users/u9/todos").await?.status, 404);

    let made = send_json(
        &server,
        "POST",
        "/users/u3/todos",
        json!({ "title": "Mine", "userId": "u1" }),
    )
    .await?;
    assert_eq!(made.status, 201);
    assert_eq!(made.json().unwrap()["userId"], "u3");

    let patched = send_json(&server, "PATCH", "/users/u3/todos/21", json!({ "completed": false })).await?;
    assert_eq!(patched.json().unwrap()["completed"], false);
    let deleted = client::request(server.addr(), "DELETE", "/users/u3/todos/21", &[], None).await?;
    assert_eq!(deleted.status, 204);
    assert!(server.todo(21).is_none());
    Ok(())
}

#[tokio::test]
async fn users_crud() -> TestResult {
    let server = DemoServer::start().await?;
    let users = client::get(server.addr(), "/users").await?.json().unwrap();
    assert_eq!(
        users[0],
        json!({ "id": "u1", "name": "Ada Lovelace", "email": "ada@example.com" })
    );
    assert_eq!(users.as_array().unwrap().len(), 3);

    let made = send_json(&server, "POST", "/users", json!({ "name": "Edsger Dijkstra" })).await?;
    assert_eq!(made.status, 201);
    assert_eq!(
        made.json(),
        Some(json!({ "id": "u4", "name": "Edsger Dijkstra", "email": "" }))
    );

    let renamed = send_json(&server, "PATCH", "/users/u2", json!({ "name": "A. M. Turing" })).await?;
    assert_eq!(renamed.json().unwrap()["email"], "alan@example.com");

    let deleted = client::request(server.addr(), "DELETE", "/users/u2", &[], None).await?;
    assert_eq!(deleted.status, 200);
    assert_eq!(deleted.json().unwrap()["name"], "A. M. Turing");
    assert_eq!(client::get(server.addr(), "/users/u2").await?.status, 404);
    assert_eq!(server.users().len(), 3);
    Ok(())
}

#[tokio::test]
async fn feed_mixes_types_and_deletes_answer_the_bare_pk() -> TestResult {
    let server = DemoServer::start().await?;
    let feed = client::get(server.addr(), "/feed").await?.json().unwrap();
    let types: Vec<&str> = feed
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["link", "post", "link", "post", "link", "post", "video"]);
    assert_eq!(
        client::get(server.addr(), "/feed/2").await?.json().unwrap()["content"],
        "Post 2 content"
    );

    let link = send_json(
        &server,
        "POST",
        "/feed",
        json!({ "type": "link", "url": "https://rust-lang.org" }),
    )
    .await?;
    assert_eq!(
        link.json(),
        Some(json!({ "id": 8, "type": "link", "url": "https://rust-lang.org", "title": "" }))
    );
    let video = send_json(&server, "POST", "/feed", json!({ "type": "video" })).await?;
    assert_eq!(video.status, 400);

    let deleted = client::request(server.addr(), "DELETE", "/feed/3", &[], None).await?;
    assert_eq!((deleted.status, deleted.text()), (200, "\"3\"".to_owned()));
    assert_eq!(server.feed().len(), 7);
    Ok(())
}

#[tokio::test]
async fn articles_come_as_a_page_object() -> TestResult {
    let server = DemoServer::start().await?;
    let first = client::get(server.addr(), "/articles").await?.json().unwrap();
    assert_eq!(
        (first["total"].clone(), first["limit"].clone(), first["skip"].clone()),
        (json!(25), json!(10), json!(0))
    );
    assert_eq!(first["results"].as_array().unwrap().len(), 10);
    let last = client::get(server.addr(), "/articles?skip=20&limit=10")
        .await?
        .json()
        .unwrap();
    let last_ids: Vec<u64> = last["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_u64().unwrap())
        .collect();
    assert_eq!(last_ids, vec![21, 22, 23, 24, 25]);
    assert_eq!(
        client::get(server.addr(), "/articles/7").await?.json().unwrap()["authorId"],
        "u1"
    );
    Ok(())
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json_errors() -> TestResult {
    let server = DemoServer::start().await?;
    let missing = client::get(server.addr(), "/nothing/here").await?;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json().unwrap()["status"], 404);
    let wrong_method = client::request(server.addr(), "PUT", "/feed", &[], None).await?;
    assert_eq!(wrong_method.status, 405);
    assert!(wrong_method.json().unwrap()["error"].is_string());
    Ok(())
}

#[test]
fn start_on_thread_serves_without_a_runtime_and_stops_on_drop() -> TestResult {
    use std::io::{Read, Write};
    let server = DemoServer::start_on_thread()?;
    let addr = server.addr();
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.write_all(&client::encode(addr, "GET", "/todos/30", &[], None))?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let response = Response::parse(&raw, "GET")?;
    assert_eq!(response.json().unwrap()["userId"], "u3");
    drop(server);
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing listens after the drop"
    );
    Ok(())
}
