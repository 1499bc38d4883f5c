//! R-SNAP-2: a server's cache handed to a client, which reads it with no request until it goes
//! stale. Expiry uses tokio's paused clock; the server runs on its own thread.

use std::time::Duration;

use restcache::prelude::*;
use restcache::store::{Schemas, Snapshot};
use serde_json::json;

use crate::fixtures::*;

fn schemas() -> Schemas {
    Schemas::new().with::<Collection<Vec<Todo>>>()
}

/// A snapshot of a cache that read the todos of u1 and todo 1, as JSON text.
async fn rendered(ctrl: &Controller) -> String {
    ctrl.suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    ctrl.snapshot().to_json()
}

#[tokio::test(start_paused = true)]
async fn r_snap_2_a_server_snapshot_serves_the_client_with_no_request_until_stale() {
    let (server, rendering) = setup_paused();
    let text = rendered(&rendering).await;
    let before = server.requests().len();

    let client = controller(&server);
    client.hydrate(Snapshot::from_json(&text).unwrap(), &schemas()).unwrap();
    let list = client
        .suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    let one = client.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!((list.len(), one.title.as_str()), (10, "Todo 1"));
    let detail = client.suspense(&todos().get(), params! { id: 3 }).await.unwrap();
    assert_eq!(detail.title, "Todo 3", "an entity of the list, from its table");
    assert_eq!(server.requests().len(), before, "no request: the snapshot served them");

    // Stale on time: the next read serves the snapshot's data and refetches, as any read does.
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(server.upsert_todo(json!({ "id": 1, "title": "refreshed" })));
    let stale = client.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(stale.title, "Todo 1", "the stale data at once");
    client.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(
        hits(&server, "/todos/1"),
        1,
        "the refetch (the rendering read it from the list)"
    );
    let fresh = client.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(fresh.title, "refreshed");
}

#[tokio::test]
async fn r_snap_2_live_views_see_the_hydrated_state() {
    let (server, rendering) = setup().await;
    let text = rendered(&rendering).await;
    let client = controller(&server);
    let mut live = client.subscribe(&todos().get(), params! { id: 1 });
    assert_eq!(
        live.next().await.unwrap().unwrap().title,
        "Todo 1",
        "fetched by the view itself"
    );
    server.upsert_todo(json!({ "id": 1, "title": "changed on the server" }));
    client.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(live.next().await.unwrap().unwrap().title, "changed on the server");
    client.hydrate(Snapshot::from_json(&text).unwrap(), &schemas()).unwrap();
    assert_eq!(
        live.next().await.unwrap().unwrap().title,
        "Todo 1",
        "the view shows the snapshot's state"
    );
    let bad = client.hydrate(
        Snapshot::from_json(&text.replace("\"format\":1", "\"format\":9")).unwrap(),
        &schemas(),
    );
    assert!(matches!(bad, Err(restcache::Error::InvalidSnapshot { .. })));
    assert_eq!(
        client.snapshot(),
        Snapshot::from_json(&text).unwrap(),
        "a refused snapshot changes nothing"
    );
}
