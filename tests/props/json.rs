//! JSON strategies: arbitrary values, valid values of each fixture shape, and *nearly valid* ones
//! (a valid value with one to three edits at random positions), which reach the checks that fully
//! random JSON rarely gets past.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::{Map, Value, json};

/// Object keys: mostly the fixtures' field names (so random objects hit real fields), some
/// look-alikes, and any text.
const KEYS: &[&str] = &[
    "id",
    "name",
    "title",
    "completed",
    "score",
    "owner",
    "user",
    "todos",
    "books",
    "author",
    "type",
    "kind",
    "url",
    "content",
    "width",
    "seconds",
    "results",
    "total",
    "next_page",
    "ID",
    "id ",
    "",
    "a/b~c",
];

/// Texts that have tripped URL and JSON code elsewhere.
pub const TEXTS: &[&str] = &[
    "",
    ".",
    "..",
    "%2e%2e",
    ".%2E",
    "/",
    "?",
    "#",
    "&",
    "=",
    "a=b&c=d",
    "../etc",
    "%",
    "%zz",
    "+",
    " ",
    "\u{0}",
    "\n",
    "\r\n",
    "\t",
    "\"\\",
    "\u{7f}",
    "ü",
    "\u{FEFF}",
    "\u{1F600}",
    "\u{10FFFF}",
    "1",
    "0",
    "-1",
    "1.5",
    "u1",
    "x",
    "link",
    "post",
    "image",
    "video",
    "true",
    "null",
];

/// Any text: the list above, short runs of any `char` (control characters and astral ones
/// included), or short plain words.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => select(TEXTS).prop_map(str::to_owned),
        2 => vec(any::<char>(), 0..6).prop_map(String::from_iter),
        1 => "[a-z0-9]{1,5}",
    ]
    .boxed()
}

/// Numbers at the edges: `u64::MAX`, `i64::MIN`, `-0.0`, huge and tiny floats, 2^53 + 1, and
/// any `u64`, `i64` or finite `f64`.
pub fn number() -> BoxedStrategy<Value> {
    let edges = vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(-0.0),
        json!(0.5),
        json!(1.0),
        json!(1e308),
        json!(-1e308),
        json!(f64::MIN_POSITIVE),
        json!(9_007_199_254_740_993_u64),
        json!(4_294_967_296_u64),
    ];
    prop_oneof![
        2 => select(edges),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
    ]
    .boxed()
}

pub fn key() -> BoxedStrategy<String> {
    prop_oneof![4 => select(KEYS).prop_map(str::to_owned), 1 => text()].boxed()
}

pub fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON, up to 4 levels of arrays and objects.
pub fn any_json() -> BoxedStrategy<Value> {
    scalar()
        .prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..6).prop_map(Value::Array),
                vec((key(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
        .boxed()
}

/// A primary key of any shape: usable numbers and strings (few, so writes collide with stored
/// entities), and every kind R-NORM-3 calls missing: `""`, booleans, `null`, arrays, objects.
pub fn pk() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (0u64..4).prop_map(Value::from),
        3 => select(&["1", "2", "u1", "x"][..]).prop_map(Value::from),
        1 => Just(json!("")),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => number(),
        1 => text().prop_map(Value::String),
        1 => Just(json!([1])),
        1 => Just(json!({"id": 1})),
    ]
    .boxed()
}

fn num_pk() -> BoxedStrategy<Value> {
    (0u64..4).prop_map(Value::from).boxed()
}

fn str_pk() -> BoxedStrategy<Value> {
    prop_oneof![3 => select(&["1", "2", "u1", "x"][..]).prop_map(Value::from), 1 => "[a-z0-9]{1,3}".prop_map(Value::from)]
        .boxed()
}

/// An object from required and optional fields (an optional field is sometimes left out).
fn object(fields: Vec<(&'static str, BoxedStrategy<Value>, bool)>) -> BoxedStrategy<Value> {
    let parts: Vec<BoxedStrategy<Option<(&'static str, Value)>>> = fields
        .into_iter()
        .map(|(name, s, required)| {
            if required {
                s.prop_map(move |v| Some((name, v))).boxed()
            } else {
                proptest::option::of(s.prop_map(move |v| (name, v))).boxed()
            }
        })
        .collect();
    parts
        .prop_map(|kv| {
            Value::Object(
                kv.into_iter()
                    .flatten()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<_, _>>(),
            )
        })
        .boxed()
}

fn string() -> BoxedStrategy<Value> {
    text().prop_map(Value::String).boxed()
}

pub fn user() -> BoxedStrategy<Value> {
    object(vec![("id", str_pk(), true), ("name", string(), false)])
}

pub fn todo() -> BoxedStrategy<Value> {
    let score = prop_oneof![Just(Value::Null), (-1e6f64..1e6).prop_map(Value::from)].boxed();
    let owner = prop_oneof![Just(Value::Null), user()].boxed();
    object(vec![
        ("id", num_pk(), true),
        ("title", string(), false),
        ("completed", any::<bool>().prop_map(Value::Bool).boxed(), false),
        ("score", score, false),
        ("owner", owner, false),
    ])
}

pub fn assignment() -> BoxedStrategy<Value> {
    object(vec![
        ("id", str_pk(), true),
        ("user", user(), true),
        ("todos", vec(todo(), 0..3).prop_map(Value::Array).boxed(), false),
    ])
}

pub fn author() -> BoxedStrategy<Value> {
    let inner_author = object(vec![("id", str_pk(), true), ("books", Just(json!([])).boxed(), false)]);
    let book = object(vec![
        ("id", str_pk(), true),
        ("author", prop_oneof![Just(Value::Null), inner_author].boxed(), false),
    ]);
    object(vec![
        ("id", str_pk(), true),
        ("books", vec(book, 0..3).prop_map(Value::Array).boxed(), false),
    ])
}

pub fn feed_item() -> BoxedStrategy<Value> {
    let link = object(vec![
        ("type", Just(json!("link")).boxed(), true),
        ("id", num_pk(), true),
        ("url", string(), false),
    ]);
    let post = object(vec![
        ("type", Just(json!("post")).boxed(), true),
        ("id", str_pk(), true),
        ("content", string(), false),
    ]);
    let other = object(vec![("type", string(), false), ("id", pk(), false)]);
    prop_oneof![2 => link, 2 => post, 1 => other].boxed()
}

pub fn media() -> BoxedStrategy<Value> {
    let image = object(vec![
        ("kind", Just(json!("image")).boxed(), true),
        ("id", str_pk(), true),
        ("width", (0u32..5000).prop_map(Value::from).boxed(), false),
    ]);
    let video = object(vec![
        ("kind", Just(json!("video")).boxed(), true),
        ("id", str_pk(), true),
        ("seconds", (0f64..1e4).prop_map(Value::from).boxed(), false),
    ]);
    prop_oneof![image, video].boxed()
}

pub fn todo_page() -> BoxedStrategy<Value> {
    object(vec![
        ("results", vec(todo(), 0..4).prop_map(Value::Array).boxed(), true),
        ("total", any::<u64>().prop_map(Value::from).boxed(), false),
        (
            "next_page",
            proptest::option::of(0u64..9).prop_map(|p| json!(p)).boxed(),
            false,
        ),
        ("owner", prop_oneof![Just(Value::Null), user()].boxed(), false),
    ])
}

/// A `Values` map: entities with and without their own pk, and `null`s.
pub fn values_of(item: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let without_pk = item.clone().prop_map(|mut v| {
        if let Value::Object(m) = &mut v {
            m.remove("id");
        }
        v
    });
    let value = prop_oneof![3 => item, 2 => without_pk, 1 => Just(Value::Null)];
    vec((key(), value), 0..4)
        .prop_map(|kv| Value::Object(kv.into_iter().collect()))
        .boxed()
}

/// What a delete answers: a bare pk, an object with a pk, or the empty forms (R-RESP-6).
pub fn deleted(item: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![
        2 => str_pk(),
        2 => num_pk(),
        2 => item,
        1 => Just(Value::Null),
        1 => Just(json!("")),
        1 => Just(json!({})),
    ]
    .boxed()
}

pub fn list_of(item: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    vec(prop_oneof![6 => item, 1 => Just(Value::Null)], 0..4)
        .prop_map(Value::Array)
        .boxed()
}

/// One change to a JSON tree.
#[derive(Clone, Debug)]
pub enum Edit {
    /// The node becomes this value.
    Replace(Value),
    /// The node leaves its array or object (the root becomes `null`).
    Remove,
    /// An object gains this field (it may already exist); an array gains this element.
    Insert(String, Value),
    /// An object's `id` becomes this value.
    SetPk(Value),
    /// An object loses its `id`.
    RemovePk,
}

fn edit() -> BoxedStrategy<Edit> {
    prop_oneof![
        3 => any_json().prop_map(Edit::Replace),
        2 => scalar().prop_map(Edit::Replace),
        2 => Just(Edit::Remove),
        2 => (key(), any_json()).prop_map(|(k, v)| Edit::Insert(k, v)),
        3 => pk().prop_map(Edit::SetPk),
        1 => Just(Edit::RemovePk),
    ]
    .boxed()
}

/// A valid value with one to three edits at random positions.
pub fn nearly(valid: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (valid, vec((any::<Index>(), edit()), 1..4))
        .prop_map(|(mut value, edits)| {
            for (at, edit) in edits {
                let target = at.index(count(&value));
                apply(&mut value, target, &edit);
            }
            value
        })
        .boxed()
}

/// A shape's values: valid, nearly valid, or any JSON at all.
pub fn around(valid: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![2 => valid.clone(), 4 => nearly(valid), 1 => any_json()].boxed()
}

/// How many nodes the tree has (preorder numbering: the root is 0).
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

/// Applies `edit` to the node numbered `target` in preorder.
pub fn apply(v: &mut Value, target: usize, edit: &Edit) {
    if target == 0 {
        match edit {
            Edit::Remove => *v = Value::Null,
            e => edit_node(v, e),
        }
    } else {
        let mut left = target;
        visit(v, &mut left, edit);
    }
}

/// Walks the children of `v`; `left` counts the nodes before the target. Returns whether the
/// edit was applied.
fn visit(v: &mut Value, left: &mut usize, edit: &Edit) -> bool {
    match v {
        Value::Array(items) => {
            for i in 0..items.len() {
                *left -= 1;
                if *left == 0 {
                    match edit {
                        Edit::Remove => {
                            items.remove(i);
                        }
                        e => edit_node(&mut items[i], e),
                    }
                    return true;
                }
                if visit(&mut items[i], left, edit) {
                    return true;
                }
            }
            false
        }
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                *left -= 1;
                if *left == 0 {
                    match edit {
                        Edit::Remove => {
                            map.remove(&k);
                        }
                        e => edit_node(map.get_mut(&k).expect("key listed"), e),
                    }
                    return true;
                }
                if visit(map.get_mut(&k).expect("key listed"), left, edit) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

fn edit_node(node: &mut Value, edit: &Edit) {
    match (edit, &mut *node) {
        (Edit::Replace(x), _) => *node = x.clone(),
        (Edit::Remove, _) => *node = Value::Null,
        (Edit::Insert(k, x), Value::Object(map)) => {
            map.insert(k.clone(), x.clone());
        }
        (Edit::Insert(_, x), Value::Array(items)) => items.push(x.clone()),
        (Edit::Insert(_, x), _) => *node = x.clone(),
        (Edit::SetPk(p), Value::Object(map)) => {
            map.insert("id".into(), p.clone());
        }
        (Edit::SetPk(p), _) => *node = p.clone(),
        (Edit::RemovePk, Value::Object(map)) => {
            map.remove("id");
        }
        (Edit::RemovePk, _) => {}
    }
}

#[test]
fn edits_reach_every_node() {
    let base = json!({"a": [1, {"b": 2}], "c": 3});
    assert_eq!(count(&base), 6);
    let mut v = base.clone();
    apply(&mut v, 4, &Edit::Remove);
    assert_eq!(v, json!({"a": [1, {}], "c": 3}));
    let mut v = base.clone();
    apply(&mut v, 5, &Edit::Replace(json!("x")));
    assert_eq!(v, json!({"a": [1, {"b": 2}], "c": "x"}));
    let mut v = base.clone();
    apply(&mut v, 3, &Edit::SetPk(json!(7)));
    assert_eq!(v, json!({"a": [1, {"b": 2, "id": 7}], "c": 3}));
    let mut v = base;
    apply(&mut v, 0, &Edit::Remove);
    assert_eq!(v, Value::Null);
}
