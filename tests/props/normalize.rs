//! R-ERR-2, R-NORM-2, R-EXP-6: whatever JSON a response holds, for every schema kind, a write
//! never panics; a failed write leaves the store exactly as it was (not even an error record); a
//! successful one can be read back, and stores no entity under an unusable pk (R-NORM-3).

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use restcache::prelude::*;
use restcache::schema::Schema;
use restcache::store::WriteOptions;
use serde_json::{Value, json};

use crate::fixtures::*;
use crate::json::*;

/// The schema a write uses. Every kind of R-NORM-1 (except `()`, which ignores its input) and
/// the collection-derived schemas of R-COL-4 and R-PAGE-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    User,
    Todo,
    Assignment,
    Author,
    VecTodo,
    OptionUser,
    FeedItem,
    Media,
    TodoList,
    FeedList,
    PushTodo,
    UnshiftFeed,
    PageTodo,
    AllUser,
    AllFeed,
    InvalidateTodo,
    InvalidateFeed,
    VecInvalidateUser,
    ValuesUser,
    TodoPage,
    Json,
}

impl Kind {
    const ALL: [Kind; 21] = [
        Kind::User,
        Kind::Todo,
        Kind::Assignment,
        Kind::Author,
        Kind::VecTodo,
        Kind::OptionUser,
        Kind::FeedItem,
        Kind::Media,
        Kind::TodoList,
        Kind::FeedList,
        Kind::PushTodo,
        Kind::UnshiftFeed,
        Kind::PageTodo,
        Kind::AllUser,
        Kind::AllFeed,
        Kind::InvalidateTodo,
        Kind::InvalidateFeed,
        Kind::VecInvalidateUser,
        Kind::ValuesUser,
        Kind::TodoPage,
        Kind::Json,
    ];

    /// Valid responses of this kind.
    fn valid(self) -> BoxedStrategy<Value> {
        match self {
            Kind::User | Kind::OptionUser => user(),
            Kind::Todo | Kind::PushTodo => todo(),
            Kind::Assignment => assignment(),
            Kind::Author => author(),
            Kind::VecTodo | Kind::TodoList | Kind::PageTodo => list_of(todo()),
            Kind::FeedItem | Kind::UnshiftFeed => feed_item(),
            Kind::Media => media(),
            Kind::FeedList | Kind::AllFeed => list_of(feed_item()),
            Kind::AllUser => list_of(user()),
            Kind::InvalidateTodo => deleted(todo()),
            Kind::InvalidateFeed => deleted(feed_item()),
            Kind::VecInvalidateUser => list_of(deleted(user())),
            Kind::ValuesUser => values_of(user()),
            Kind::TodoPage => todo_page(),
            Kind::Json => any_json(),
        }
    }
}

/// Runs `$f::<S>($args)` with the schema type of a [`Kind`].
macro_rules! with_schema {
    ($kind:expr, $f:ident($($arg:expr),*)) => {
        match $kind {
            Kind::User => $f::<User>($($arg),*),
            Kind::Todo => $f::<Todo>($($arg),*),
            Kind::Assignment => $f::<Assignment>($($arg),*),
            Kind::Author => $f::<Author>($($arg),*),
            Kind::VecTodo => $f::<Vec<Todo>>($($arg),*),
            Kind::OptionUser => $f::<Option<User>>($($arg),*),
            Kind::FeedItem => $f::<FeedItem>($($arg),*),
            Kind::Media => $f::<Media>($($arg),*),
            Kind::TodoList => $f::<TodoList>($($arg),*),
            Kind::FeedList => $f::<FeedList>($($arg),*),
            Kind::PushTodo => $f::<Push<TodoList>>($($arg),*),
            Kind::UnshiftFeed => $f::<Unshift<FeedList>>($($arg),*),
            Kind::PageTodo => $f::<Page<TodoList>>($($arg),*),
            Kind::AllUser => $f::<All<User>>($($arg),*),
            Kind::AllFeed => $f::<All<FeedItem>>($($arg),*),
            Kind::InvalidateTodo => $f::<Invalidate<Todo>>($($arg),*),
            Kind::InvalidateFeed => $f::<Invalidate<FeedItem>>($($arg),*),
            Kind::VecInvalidateUser => $f::<Vec<Invalidate<User>>>($($arg),*),
            Kind::ValuesUser => $f::<Values<User>>($($arg),*),
            Kind::TodoPage => $f::<TodoPage>($($arg),*),
            Kind::Json => $f::<Value>($($arg),*),
        }
    };
}

/// One `set_response_with` call.
#[derive(Clone, Debug)]
pub struct Write {
    kind: Kind,
    key: &'static str,
    args: Value,
    body: Option<Value>,
    value: Value,
}

/// Keys of every method, so the empty-response rules of PUT/PATCH (R-RESP-5) and of deletes
/// (R-RESP-6) apply; all writes of a case share a few keys, so they overwrite each other.
const KEYS: &[&str] = &[
    "GET /x",
    "GET /x?completed=true",
    "POST /x",
    "PUT /x/1",
    "PATCH /x/1",
    "DELETE /x/1",
];

fn args() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => Just(json!({})),
        2 => pk().prop_map(|id| json!({ "id": id })),
        2 => vec((key(), scalar()), 0..3).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        1 => any_json(),
    ]
    .boxed()
}

fn body() -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        3 => Just(None),
        2 => (pk(), text()).prop_map(|(id, title)| Some(json!({ "id": id, "title": title }))),
        1 => vec(pk(), 0..3).prop_map(|ids| Some(Value::Array(ids))),
        1 => any_json().prop_map(Some),
    ]
    .boxed()
}

fn write_of(kind: Kind) -> BoxedStrategy<Write> {
    (select(KEYS), args(), body(), around(kind.valid()))
        .prop_map(move |(key, args, body, value)| Write {
            kind,
            key,
            args,
            body,
            value,
        })
        .boxed()
}

fn any_write() -> BoxedStrategy<Write> {
    select(&Kind::ALL[..]).prop_flat_map(write_of).boxed()
}

/// A store holding a bit of everything, so writes merge into records, meet INVALID marks, and
/// push into stored lists.
fn seeded() -> Store {
    let mut store = Store::new();
    let todos = json!([
        {"id": 1, "title": "a", "completed": false, "owner": {"id": "u1", "name": "Ada"}},
        {"id": 2, "title": "b", "score": 2.5},
        {"id": 3, "title": "c"},
    ]);
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
    let feed = json!([{"type": "link", "id": 1, "url": "u"}, {"type": "post", "id": "1"}, {"type": "poll"}]);
    store.set_response::<FeedList>("GET /feed", &(), &feed).unwrap();
    store
        .set_response::<Author>(
            "GET /authors/x",
            &(),
            &json!({"id": "x", "books": [{"id": "b", "author": {"id": "x"}}]}),
        )
        .unwrap();
    store
        .set_response::<Invalidate<User>>("DELETE /users/2", &(), &json!("2"))
        .unwrap();
    store
}

/// Every pk of an entity table in the snapshot (collection tables, named `[..]`, excluded).
fn entity_pks(snapshot: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (table, t) in snapshot["entities"].as_object().expect("entities") {
        if table.starts_with('[') {
            continue;
        }
        for row in t["rows"].as_array().expect("rows") {
            out.push((table.clone(), row["pk"].as_str().expect("pk").to_owned()));
        }
    }
    out
}

/// Writes `w` as `S` and checks the guarantees.
fn check<S: Schema>(store: &mut Store, w: &Write) -> Result<(), TestCaseError> {
    let before = store.inspect();
    let mut opts = WriteOptions::new();
    if let Some(b) = &w.body {
        opts = opts.body(b);
    }
    match store.set_response_with::<S>(w.key, &w.args, &w.value, opts) {
        Err(e) => {
            // R-NORM-2 and R-EXP-6: nothing at all, not even the key's error record.
            prop_assert_eq!(store.inspect(), before, "a failed write ({}) changed the store", e);
            prop_assert!(store.meta(w.key).is_none_or(|m| m.error.is_none()));
        }
        Ok(()) => {
            let read = store.get_response::<S>(w.key, &w.args);
            prop_assert!(read.is_ok(), "the args were accepted by the write: {:?}", read.err());
            let read = read.unwrap();
            prop_assert!(
                read.data.is_some(),
                "a successful write reads back as nothing (status {:?})",
                read.status
            );
            prop_assert_eq!(read.status, ExpiryStatus::Valid);
            prop_assert!(read.error.is_none());
            let empty: Vec<_> = entity_pks(&store.inspect())
                .into_iter()
                .filter(|(_, pk)| pk.is_empty())
                .collect();
            prop_assert!(empty.is_empty(), "entities stored under an empty pk: {:?}", empty);
        }
    }
    Ok(())
}

fn run(writes: &[Write]) -> Result<(), TestCaseError> {
    let mut store = seeded();
    for w in writes {
        with_schema!(w.kind, check(&mut store, w))?;
    }
    Ok(())
}

/// One property per schema kind: a few writes of that kind in a row.
macro_rules! per_kind {
    ($($name:ident => $kind:ident,)*) => {
        proptest! {
            #![proptest_config(crate::config(48))]
            $(
                #[test]
                fn $name(writes in vec(write_of(Kind::$kind), 1..4)) {
                    run(&writes)?;
                }
            )*
        }
    };
}

per_kind! {
    r_err_2_entity => User,
    r_err_2_entity_with_a_number_pk_and_an_optional_nested_entity => Todo,
    r_err_2_entity_with_a_required_nested_entity => Assignment,
    r_err_2_entities_in_a_cycle => Author,
    r_err_2_vec => VecTodo,
    r_err_2_option => OptionUser,
    r_err_2_union_with_other => FeedItem,
    r_err_2_union_without_other => Media,
    r_err_2_collection => TodoList,
    r_err_2_collection_of_a_union => FeedList,
    r_err_2_push => PushTodo,
    r_err_2_unshift_of_a_union => UnshiftFeed,
    r_err_2_page => PageTodo,
    r_err_2_all => AllUser,
    r_err_2_all_of_a_union => AllFeed,
    r_err_2_invalidate => InvalidateTodo,
    r_err_2_invalidate_a_union => InvalidateFeed,
    r_err_2_vec_invalidate => VecInvalidateUser,
    r_err_2_values => ValuesUser,
    r_err_2_object_schema => TodoPage,
    r_err_2_json_value => Json,
}

proptest! {
    #![proptest_config(crate::config(128))]

    /// Writes of every kind, one after the other into one store, under shared keys.
    #[test]
    fn r_err_2_mixed_writes_are_each_all_or_nothing(writes in vec(any_write(), 1..6)) {
        run(&writes)?;
    }
}

/// The snapshot without its clock readings (two stores are written at different instants).
fn timeless(mut snapshot: Value) -> Value {
    let strip = |row: &mut Value| {
        if let Some(o) = row.as_object_mut() {
            for k in ["fetched_at", "written_at", "expires_at"] {
                o.remove(k);
            }
        }
    };
    if let Some(tables) = snapshot["entities"].as_object_mut() {
        for t in tables.values_mut() {
            t["rows"].as_array_mut().into_iter().flatten().for_each(strip);
        }
    }
    snapshot["meta"].as_array_mut().into_iter().flatten().for_each(strip);
    snapshot
}

/// Writes `w` as `S` from its bytes into `b`, and from the `Value` those bytes parse to into
/// `a`: the same outcome.
fn same_from_bytes<S: Schema>(a: &mut Store, b: &mut Store, w: &Write) -> Result<(), TestCaseError> {
    let opts = || match &w.body {
        Some(body) => WriteOptions::new().body(body),
        None => WriteOptions::new(),
    };
    let bytes = serde_json::to_vec(&w.value).expect("a Value serializes");
    // What the bytes denote (a float's text need not parse back to the very same f64).
    let parsed: Result<Value, _> = serde_json::from_slice(&bytes);
    let from_value = match parsed {
        Ok(value) => a.set_response_with::<S>(w.key, &w.args, value, opts()),
        Err(e) => Err(restcache::Error::Decode {
            url: String::new(),
            content_type: None,
            entity: None,
            position: String::new(),
            message: e.to_string(),
        }),
    };
    let from_bytes = b.set_response_bytes_with::<S>(w.key, &w.args, &bytes, opts());
    prop_assert_eq!(
        from_value.is_ok(),
        from_bytes.is_ok(),
        "from a Value: {:?}; from bytes: {:?}",
        from_value,
        from_bytes
    );
    prop_assert_eq!(timeless(a.inspect()), timeless(b.inspect()));
    Ok(())
}

proptest! {
    #![proptest_config(crate::config(128))]

    /// R-NORM on response bytes: normalizing while parsing writes exactly what parsing into a
    /// `Value` and normalizing that writes, and fails exactly when it fails, for every schema kind.
    #[test]
    fn r_norm_2_normalizing_from_bytes_writes_what_normalizing_the_value_writes(writes in vec(any_write(), 1..6)) {
        let (mut a, mut b) = (seeded(), seeded());
        for w in &writes {
            with_schema!(w.kind, same_from_bytes(&mut a, &mut b, w))?;
        }
    }
}
