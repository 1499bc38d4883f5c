//! Raw bytes as a response: the first byte picks the schema kind, the method of the key and the
//! args; the rest is written to a seeded `Store` twice: as bytes with `set_response_bytes_with`
//! (normalized while parsed, the path of a fetch), and, when it parses as JSON, as that `Value`
//! with `set_response_with`.
//!
//! Checked (R-ERR-2, R-NORM-2/3, R-EXP-6): no panic; a failed write leaves the snapshot exactly
//! as it was (no error record either); a successful write reads back as valid data and stores
//! no entity under an empty pk; bytes that are not JSON (nor empty) fail. The two paths are one
//! normalization over two inputs: they may differ where the inputs do (a key repeated in one
//! object, which serde refuses in the bytes and a `Value` cannot hold; the order of a `Value`'s
//! keys), so each is checked on its own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restcache::prelude::*;
use restcache::schema::Schema;
use restcache::store::WriteOptions;
use serde_json::{Value, json};

use self::entities::*;

mod entities;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Assignment {
    #[entity(pk)]
    id: String,
    #[entity(schema)]
    user: User,
    #[entity(schema)]
    todos: Vec<Todo>,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Image {
    #[entity(pk)]
    id: String,
    width: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Video {
    #[entity(pk)]
    id: String,
    seconds: f64,
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
enum Media {
    Image(Image),
    Video(Video),
}

#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct TodoPage {
    #[schema(nested)]
    results: Collection<Vec<Todo>>,
    total: u64,
    next_page: Option<u64>,
}

const METHODS: [&str; 8] = ["GET", "GET", "POST", "PUT", "PATCH", "DELETE", "DELETE", "GET"];

fn seeded() -> Store {
    let mut store = Store::new();
    let todos = json!([{"id": 1, "title": "a", "owner": {"id": "u1", "name": "Ada"}}, {"id": 2}, {"id": 3}]);
    store.set_response::<TodoList>("GET /todos", &(), &todos).unwrap();
    store
        .set_response::<TodoList>(
            "GET /todos?completed=true",
            &json!({"completed": true}),
            &json!([{"id": 2}]),
        )
        .unwrap();
    store
        .set_response::<Invalidate<Todo>>("DELETE /todos/3", &(), &json!(3))
        .unwrap();
    let feed = json!([{"type": "link", "id": 1}, {"type": "post", "id": "1"}, {"type": "poll"}]);
    store.set_response::<All<FeedItem>>("GET /feed", &(), &feed).unwrap();
    store
}

fn empty_pks(snapshot: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (table, t) in snapshot["entities"].as_object().unwrap() {
        for row in t["rows"].as_array().unwrap() {
            if !table.starts_with('[') && row["pk"] == "" {
                out.push(table.clone());
            }
        }
    }
    out
}

/// Writes with `write` into a seeded store and checks the outcome; returns the store and
/// whether the write was made.
fn checked<S: Schema>(
    key: &str,
    args: &Value,
    write: impl FnOnce(&mut Store) -> Result<(), restcache::Error>,
) -> (Store, bool) {
    let mut store = seeded();
    let before = store.inspect();
    let written = match write(&mut store) {
        Err(e) => {
            assert_eq!(store.inspect(), before, "a failed write ({e}) changed the store");
            false
        }
        Ok(()) => {
            let read = store.get_response::<S>(key, args).expect("the args were accepted");
            assert!(
                read.data.is_some(),
                "a successful write reads back as nothing: {:?}",
                read.status
            );
            assert_eq!(read.status, ExpiryStatus::Valid);
            let empty = empty_pks(&store.inspect());
            assert!(empty.is_empty(), "entities stored under an empty pk in {empty:?}");
            true
        }
    };
    (store, written)
}

fn check<S: Schema>(key: &str, args: &Value, body: Option<&Value>, bytes: &[u8]) {
    let opts = || match body {
        Some(b) => WriteOptions::new().body(b),
        None => WriteOptions::new(),
    };
    let (_, bytes_written) = checked::<S>(key, args, |s| s.set_response_bytes_with::<S>(key, args, bytes, opts()));
    // R-RESP-2: no bytes, or only ASCII whitespace, are the empty response, JSON `null`.
    let parsed = if bytes.iter().all(u8::is_ascii_whitespace) {
        Ok(Value::Null)
    } else {
        serde_json::from_slice::<Value>(bytes)
    };
    let Ok(value) = parsed else {
        assert!(!bytes_written, "bytes that are not JSON were written");
        return;
    };
    checked::<S>(key, args, |s| s.set_response_with::<S>(key, args, value, opts()));
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, value)) = data.split_first() else {
        return;
    };
    let key = format!("{} /x", METHODS[usize::from(selector >> 4) & 7]);
    let (args, body) = if selector & 0x80 != 0 {
        (json!({"id": "1"}), Some(json!({"id": 1, "title": "t"})))
    } else {
        (json!({}), None)
    };
    let (key, args, body) = (key.as_str(), &args, body.as_ref());
    match selector & 0x0f {
        0 => check::<User>(key, args, body, value),
        1 => check::<Todo>(key, args, body, value),
        2 => check::<Assignment>(key, args, body, value),
        3 => check::<Vec<Todo>>(key, args, body, value),
        4 => check::<Option<User>>(key, args, body, value),
        5 => check::<FeedItem>(key, args, body, value),
        6 => check::<Media>(key, args, body, value),
        7 => check::<TodoList>(key, args, body, value),
        8 => check::<Push<TodoList>>(key, args, body, value),
        9 => check::<Page<TodoList>>(key, args, body, value),
        10 => check::<All<FeedItem>>(key, args, body, value),
        11 => check::<Invalidate<FeedItem>>(key, args, body, value),
        12 => check::<Vec<Invalidate<Todo>>>(key, args, body, value),
        13 => check::<Values<User>>(key, args, body, value),
        14 => check::<TodoPage>(key, args, body, value),
        _ => check::<Value>(key, args, body, value),
    }
});
