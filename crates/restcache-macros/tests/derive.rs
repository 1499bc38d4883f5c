//! What the derives generate, seen through the store: each test writes a response with
//! `Store::set_response` and reads it back with `Store::get_response`.

use std::sync::Arc;

use restcache::prelude::*;
use restcache::schema::{Entity as _, Schema as _, Union as _};
use serde::Deserialize;
use serde_json::{Value, json};

type Result<T = ()> = std::result::Result<T, Error>;

fn read<S: restcache::schema::Schema>(store: &Store, key: &str) -> Arc<S::Output> {
    store
        .get_response::<S>(key, &())
        .expect("a usable schema")
        .data
        .expect("data under the key")
}

// ---------------------------------------------------------------------------------------------
// Entities

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Entity)]
struct User {
    #[entity(pk)]
    id: String,
    name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Entity)]
#[entity(key = "Todo")]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: String,
    title: String,
    user_id: u32,
    #[serde(rename = "done")]
    is_done: bool,
    #[entity(schema)]
    owner: Option<User>,
}

#[test]
fn entity_key_defaults_to_the_struct_name_and_names_the_collection_table() {
    assert_eq!(<User as restcache::schema::Entity>::KEY, "User");
    assert_eq!(<User as restcache::schema::Entity>::COLLECTION_KEY, "[User]");
    assert_eq!(<Todo as restcache::schema::Entity>::KEY, "Todo");
    assert_eq!(<Todo as restcache::schema::EntitySchema>::collection_key(), "[Todo]");
}

#[test]
fn field_pk_is_the_string_form_of_the_renamed_json_field() {
    assert_eq!(Todo::pk(&json!({ "id": "t1" })).as_deref(), Some("t1"));
    assert_eq!(Todo::pk(&json!({ "id": 7 })).as_deref(), Some("7"));
    assert_eq!(Todo::pk(&json!({ "id": "" })), None);
    assert_eq!(Todo::pk(&json!({ "title": "no id" })), None);
    assert_eq!(Todo::pk(&json!("t1")), None);
}

#[test]
fn rename_all_and_rename_choose_the_json_names_read() -> Result {
    let mut store = Store::new();
    let response = json!({ "id": "1", "title": "ship", "userId": 7, "done": true, "user_id": 99, "is_done": false });
    store.set_response::<Todo>("GET /todos/1", &(), &response)?;
    let todo = read::<Todo>(&store, "GET /todos/1");
    assert_eq!(todo.user_id, 7, "read from \"userId\", not \"user_id\"");
    assert!(todo.is_done, "read from \"done\", not \"is_done\"");
    Ok(())
}

#[test]
fn rename_all_and_rename_choose_the_json_names_checked() {
    let mut store = Store::new();
    // The Rust names are not checked: they are unknown fields of the record.
    let ok = json!({ "id": "1", "user_id": "not a number", "is_done": "nope" });
    assert!(store.set_response::<Todo>("GET /todos/1", &(), &ok).is_ok());
    // The JSON names are.
    let bad = json!({ "id": "2", "userId": "not a number" });
    let err = store.set_response::<Todo>("GET /todos/2", &(), &bad).unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/userId"),
        "{err:?}"
    );
    let bad = json!({ "id": "3", "done": "nope" });
    let err = store.set_response::<Todo>("GET /todos/3", &(), &bad).unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/done"),
        "{err:?}"
    );
}

#[test]
fn a_wrong_field_type_is_a_decode_error_at_the_field() {
    let mut store = Store::new();
    let err = store
        .set_response::<Todo>("GET /todos/1", &(), &json!({ "id": "1", "title": 5 }))
        .unwrap_err();
    match err {
        Error::Decode {
            entity,
            position,
            message,
            ..
        } => {
            assert_eq!(entity.as_deref(), Some("Todo"));
            assert_eq!(position, "/title");
            assert!(message.contains("expected a string"), "{message}");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    assert!(
        store.get_response::<Todo>("GET /todos/1", &()).unwrap().data.is_none(),
        "nothing written"
    );
}

#[test]
fn deserialize_and_serialize_halves_of_rename_are_told_apart() -> Result {
    #[derive(Clone, Debug, Default, Deserialize, Entity)]
    #[serde(rename_all(serialize = "UPPERCASE", deserialize = "kebab-case"))]
    struct Halves {
        #[entity(pk)]
        the_id: u64,
        #[serde(rename(serialize = "out", deserialize = "in"))]
        renamed: String,
        only_serialize_renamed_all: u8,
    }
    #[derive(Clone, Debug, Default, Deserialize, Entity)]
    #[serde(rename_all(serialize = "UPPERCASE"))]
    struct SerializeOnly {
        #[entity(pk)]
        the_id: u64,
        #[serde(rename(serialize = "out"))]
        kept: String,
    }
    let mut store = Store::new();
    store.set_response::<Halves>(
        "a",
        &(),
        &json!({ "the-id": 1, "in": "x", "only-serialize-renamed-all": 3 }),
    )?;
    let h = read::<Halves>(&store, "a");
    assert_eq!(
        (h.the_id, h.renamed.as_str(), h.only_serialize_renamed_all),
        (1, "x", 3)
    );

    store.set_response::<SerializeOnly>("b", &(), &json!({ "the_id": 2, "kept": "y" }))?;
    let s = read::<SerializeOnly>(&store, "b");
    assert_eq!((s.the_id, s.kept.as_str()), (2, "y"));
    Ok(())
}

#[test]
fn every_rename_all_rule_names_the_json_fields() -> Result {
    macro_rules! case {
        ($name:ident, $rule:literal, $pk:literal, $field:literal) => {{
            #[derive(Clone, Debug, Default, Entity)]
            #[serde(rename_all = $rule)]
            struct $name {
                #[entity(pk)]
                id: u8,
                user_id: u8,
            }
            let mut store = Store::new();
            store.set_response::<$name>("k", &(), &json!({ $pk: 1, $field: 42 }))?;
            let read = read::<$name>(&store, "k");
            assert_eq!((read.id, read.user_id), (1, 42), "rule {}", $rule);
        }};
    }
    case!(Lower, "lowercase", "id", "user_id");
    case!(Upper, "UPPERCASE", "ID", "USER_ID");
    case!(Pascal, "PascalCase", "Id", "UserId");
    case!(Camel, "camelCase", "id", "userId");
    case!(Snake, "snake_case", "id", "user_id");
    case!(ScreamingSnake, "SCREAMING_SNAKE_CASE", "ID", "USER_ID");
    case!(Kebab, "kebab-case", "id", "user-id");
    case!(ScreamingKebab, "SCREAMING-KEBAB-CASE", "ID", "USER-ID");
    Ok(())
}

#[test]
fn raw_identifier_fields_are_read_without_r_hash() -> Result {
    #[derive(Clone, Debug, Default, Entity)]
    struct Event {
        #[entity(pk)]
        id: u64,
        r#type: String,
    }
    let mut store = Store::new();
    store.set_response::<Event>("k", &(), &json!({ "id": 1, "type": "click" }))?;
    assert_eq!(read::<Event>(&store, "k").r#type, "click");
    Ok(())
}

/// Reads numbers written as strings.
fn number_from_string<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

mod upper {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        <String as serde::Deserialize>::deserialize(d).map(|s| s.to_uppercase())
    }
}

#[derive(Clone, Debug, Default, Deserialize, Entity)]
struct Counter {
    #[entity(pk)]
    id: u64,
    #[serde(deserialize_with = "number_from_string")]
    count: u32,
    #[serde(with = "upper")]
    label: String,
}

#[test]
fn deserialize_with_and_with_read_the_field() -> Result {
    let mut store = Store::new();
    store.set_response::<Counter>("k", &(), &json!({ "id": 1, "count": "42", "label": "abc" }))?;
    let c = read::<Counter>(&store, "k");
    assert_eq!(c.count, 42, "the string was read by number_from_string");
    assert_eq!(c.label, "ABC", "read by upper::deserialize");
    Ok(())
}

#[test]
fn deserialize_with_checks_the_field_on_write() {
    let mut store = Store::new();
    // A plain number is what u32's own Deserialize accepts, but not number_from_string.
    let err = store
        .set_response::<Counter>("k", &(), &json!({ "id": 1, "count": 42 }))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/count"),
        "{err:?}"
    );
    let err = store
        .set_response::<Counter>("k", &(), &json!({ "id": 1, "count": "x" }))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/count"),
        "{err:?}"
    );
}

#[derive(Clone, Debug, Default, Deserialize, Entity)]
struct Secretive {
    #[entity(pk)]
    id: u64,
    #[serde(skip)]
    cache: Vec<u8>,
    #[serde(skip_deserializing)]
    local: String,
    #[serde(default, alias = "other")]
    kept: u8,
}

#[test]
fn skipped_fields_are_neither_checked_nor_read() -> Result {
    let mut store = Store::new();
    // Wrong types in skipped fields are not errors...
    store.set_response::<Secretive>(
        "k",
        &(),
        &json!({ "id": 1, "cache": "not bytes", "local": 5, "kept": 3 }),
    )?;
    let s = read::<Secretive>(&store, "k");
    // ...and right types are not read: skipped fields keep their Default.
    store.set_response::<Secretive>("k2", &(), &json!({ "id": 2, "cache": [1, 2], "local": "x" }))?;
    let s2 = read::<Secretive>(&store, "k2");
    assert_eq!((s.cache.len(), s.local.as_str(), s.kept), (0, "", 3));
    assert_eq!((s2.cache.len(), s2.local.as_str()), (0, ""));
    Ok(())
}

#[derive(Clone, Debug, Default, serde::Serialize, Deserialize, Entity)]
#[serde(crate = "serde", deny_unknown_fields, bound(deserialize = ""), rename = "Tolerant")]
#[serde(default, expecting = "a tolerant thing")]
struct Tolerant {
    #[entity(pk)]
    #[serde(alias = "ID", alias = "Id", skip_serializing_if = "String::is_empty")]
    id: String,
    #[serde(default = "seven", serialize_with = "serialize_doubled")]
    n: u8,
}

fn seven() -> u8 {
    7
}

fn serialize_doubled<S: serde::Serializer>(n: &u8, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u8(n * 2)
}

/// #25: the serde attributes of an entity behave as serde documents them, because serde itself
/// fills the row: `alias` names the field too, `default = "fn"` gives an absent field its value,
/// `deny_unknown_fields` refuses a field the struct does not declare; serialization-only ones
/// change nothing read.
#[test]
fn serde_alias_default_and_deny_unknown_fields_behave_as_serde_documents() -> Result {
    let mut store = Store::new();
    store.set_response::<Tolerant>("k", &(), &json!({ "id": "a", "n": 3 }))?;
    let t = read::<Tolerant>(&store, "k");
    assert_eq!((t.id.as_str(), t.n), ("a", 3));
    store.set_response::<Tolerant>("k2", &(), &json!({ "ID": "b" }))?;
    assert_eq!(read::<Tolerant>(&store, "k2").n, 7, "absent: `default = \"seven\"`");
    assert_eq!(read::<Tolerant>(&store, "k2").id, "b", "read through its alias");
    let refused = store.set_response::<Tolerant>("k3", &(), &json!({ "id": "c", "other": 1 }));
    assert!(
        matches!(&refused, Err(restcache::Error::Decode { message, .. }) if message.contains("unknown field `other`")),
        "{refused:?}"
    );
    Ok(())
}

/// A ticket whose pk the server writes `"T-<n>"` and the entity keeps as `n`.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Ticket {
    #[entity(pk)]
    #[serde(deserialize_with = "ticket_number")]
    id: u64,
}

fn ticket_number<'de, D: serde::Deserializer<'de>>(de: D) -> std::result::Result<u64, D::Error> {
    let text = String::deserialize(de)?;
    let n = text.strip_prefix("T-").and_then(|n| n.parse().ok());
    n.ok_or_else(|| serde::de::Error::custom(format!("not a ticket: {text}")))
}

/// R-NORM-3: the pk an input object names (a deleted entity given as an object, query args) is
/// read as a row reads it, through the pk field's own serde options: its `alias` names it too,
/// and its `deserialize_with` gives the pk the row has.
#[test]
fn r_norm_3_an_object_names_its_pk_through_the_pk_field_s_serde_options() -> Result {
    let mut store = Store::new();
    store.set_response::<Vec<Tolerant>>("all", &(), &json!([{ "id": "a" }, { "id": "b" }]))?;
    store.set_response::<Vec<Invalidate<Tolerant>>>("gone", &(), &json!([{ "ID": "a" }]))?;
    let left = read::<Vec<Tolerant>>(&store, "all");
    assert_eq!(left.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["b"]);

    store.set_response::<Vec<Ticket>>("tickets", &(), &json!([{ "id": "T-12" }, { "id": "T-13" }]))?;
    store.set_response::<Vec<Invalidate<Ticket>>>("closed", &(), &json!([{ "id": "T-12" }]))?;
    assert_eq!(*read::<Vec<Invalidate<Ticket>>>(&store, "closed"), ["12"]);
    let open = read::<Vec<Ticket>>(&store, "tickets");
    assert_eq!(open.iter().map(|t| t.id).collect::<Vec<_>>(), [13]);
    Ok(())
}

/// A score the server writes as text, read by a function of the entity's own impl.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Score {
    #[entity(pk)]
    id: u64,
    #[serde(deserialize_with = "Self::points_from_text")]
    points: u32,
}

impl Score {
    fn points_from_text<'de, D: serde::Deserializer<'de>>(de: D) -> std::result::Result<u32, D::Error> {
        String::deserialize(de)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A `deserialize_with` path through `Self` names the entity's own function, as serde has it,
/// not one of the hidden row type the derive fills.
#[test]
fn a_deserialize_with_path_through_self_names_the_entity_s_function() -> Result {
    let mut store = Store::new();
    store.set_response::<Score>("s", &(), &json!({ "id": 1, "points": "41" }))?;
    assert_eq!(read::<Score>(&store, "s").points, 41);
    Ok(())
}

/// An entity whose `Default` is its own: every field has a value no type's `Default` gives.
#[derive(Clone, Debug, PartialEq, Entity)]
struct Profile {
    #[entity(pk)]
    id: u64,
    name: String,
    #[entity(schema)]
    owner: Todo,
    #[serde(skip)]
    local: u8,
    #[serde(default)]
    visits: u8,
}

impl Default for Profile {
    fn default() -> Self {
        let owner = Todo {
            id: "nobody".into(),
            ..Todo::default()
        };
        Profile {
            id: 0,
            name: "anonymous".into(),
            owner,
            local: 5,
            visits: 9,
        }
    }
}

/// R-NORM-5: a field no response carried, plain, nested or skipped, reads as the struct's own
/// `Default` gives it (not as its type's), but for one with `#[serde(default)]`, which reads as
/// its type's; the fields a response carried keep their values.
#[test]
fn r_norm_5_a_field_no_response_carried_reads_as_the_structs_default() -> Result {
    let mut store = Store::new();
    store.set_response::<Profile>("k", &(), &json!({ "id": 1 }))?;
    let bare = read::<Profile>(&store, "k");
    assert_eq!(
        (bare.id, bare.name.as_str(), bare.owner.id.as_str(), bare.local),
        (1, "anonymous", "nobody", 5)
    );
    assert_eq!(
        bare.visits, 0,
        "`#[serde(default)]`: its type's default, not the struct's 9"
    );
    store.set_response::<Profile>("k2", &(), &json!({ "id": 2, "name": "Ann", "owner": { "id": "t1" } }))?;
    let full = read::<Profile>(&store, "k2");
    assert_eq!(
        (full.name.as_str(), full.owner.id.as_str(), full.local),
        ("Ann", "t1", 5)
    );
    Ok(())
}

/// An object schema whose plain field has `default = "fn"`, beside a nested entity.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct Counted {
    #[serde(default = "seven")]
    n: u8,
    #[schema(nested)]
    todo: Todo,
}

/// #25: an object schema's fields are read as an entity's are: a field the response lacks takes
/// its `default = "fn"` value, not the struct's `Default`; a field it holds keeps its value.
#[test]
fn an_object_schema_field_absent_takes_its_serde_default() -> Result {
    let mut store = Store::new();
    store.set_response::<Counted>("k", &(), &json!({ "todo": { "id": "1" } }))?;
    let counted = read::<Counted>(&store, "k");
    assert_eq!((counted.n, counted.todo.id.as_str()), (7, "1"));
    store.set_response::<Counted>("k2", &(), &json!({ "n": 2, "todo": { "id": "1" } }))?;
    assert_eq!(read::<Counted>(&store, "k2").n, 2);
    Ok(())
}

/// An object schema with a field read by `deserialize_with` (its JSON written back is the
/// type's) and a flattened map.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct Tally {
    #[serde(deserialize_with = "number_from_string")]
    count: u32,
    total: u64,
    #[serde(flatten)]
    extra: std::collections::BTreeMap<String, serde_json::Value>,
}

/// R-READ-6: an object schema's row read back from its JSON (a key read with another schema,
/// here an `Option` of it) is the row the response wrote: a flattened field holds only the
/// fields no other field names, and a field read with `deserialize_with`, which cannot read its
/// type's own JSON back, is absent (its `Default`) rather than failing the read.
#[test]
fn an_object_schema_row_is_read_back_from_its_json() -> Result {
    let mut store = Store::new();
    store.set_response::<Tally>("k", &(), &json!({ "count": "3", "total": 9, "note": "x" }))?;
    let direct = read::<Tally>(&store, "k");
    assert_eq!((direct.count, direct.total), (3, 9));
    assert_eq!(direct.extra, [("note".to_owned(), json!("x"))].into());
    let through = read::<Option<Tally>>(&store, "k");
    let through = through.as_ref().as_ref().expect("the row reads back from its JSON");
    assert_eq!((through.count, through.total), (0, 9));
    assert_eq!(through.extra, direct.extra);
    Ok(())
}

/// Text fields of every shape the row keeps as `RowText`, beside serde attributes.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Note {
    #[entity(pk)]
    id: String,
    short: String,
    long: std::string::String,
    maybe: Option<String>,
    other: ::core::option::Option<::std::string::String>,
    #[serde(alias = "t")]
    aliased: String,
    #[serde(default = "hello")]
    defaulted: String,
}

fn hello() -> String {
    "hello".to_owned()
}

/// A row keeps `String` and `Option<String>` fields as `RowText` (inline up to 24 bytes): each
/// reads back exactly as written, from a `Value` or from bytes, short or long, multi-byte
/// characters across the 24-byte boundary included; `null` is `None`; an absent field keeps
/// the stored text (R-NORM-6) or takes its serde default; a wrong type is refused as a `String`
/// field refuses it.
#[test]
fn text_fields_read_back_exactly_short_long_optional_and_merged() -> Result {
    let long = format!("{}é{}", "x".repeat(23), "y".repeat(40));
    let first = json!({
        "id": "1", "short": "ab", "long": long, "maybe": "ü".repeat(12), "other": "",
        "t": "via alias",
    });
    let expected = Note {
        id: "1".into(),
        short: "ab".into(),
        long: long.clone(),
        maybe: Some("ü".repeat(12)),
        other: Some(String::new()),
        aliased: "via alias".into(),
        defaulted: "hello".into(),
    };
    let mut store = Store::new();
    store.set_response::<Note>("v", &(), &first)?;
    assert_eq!(*read::<Note>(&store, "v"), expected);
    store.set_response_bytes::<Note>("b", &(), first.to_string().as_bytes())?;
    assert_eq!(*read::<Note>(&store, "b"), expected);

    store.set_response::<Note>("v", &(), &json!({ "id": "1", "short": "cd", "maybe": null }))?;
    let merged = read::<Note>(&store, "v");
    assert_eq!((merged.short.as_str(), &merged.maybe), ("cd", &None));
    assert_eq!((&merged.long, &merged.other), (&long, &Some(String::new())), "kept");

    let refused = store.set_response::<Note>("w", &(), &json!({ "id": "2", "short": 5 }));
    assert!(
        matches!(&refused, Err(Error::Decode { message, .. }) if message.contains("expected a string")),
        "{refused:?}"
    );
    Ok(())
}

#[test]
fn absent_fields_take_their_default() -> Result {
    let mut store = Store::new();
    store.set_response::<Todo>("k", &(), &json!({ "id": "1" }))?;
    assert_eq!(
        *read::<Todo>(&store, "k"),
        Todo {
            id: "1".into(),
            ..Todo::default()
        }
    );
    Ok(())
}

#[test]
fn a_nested_entity_is_stored_in_its_own_table_and_shared() -> Result {
    let mut store = Store::new();
    let todo = json!({ "id": "1", "title": "ship", "owner": { "id": "u1", "name": "Ada" } });
    store.set_response::<Todo>("GET /todos/1", &(), &todo)?;
    assert_eq!(read::<Todo>(&store, "GET /todos/1").owner.as_ref().unwrap().name, "Ada");
    // The user is in the User table: another response updates it, and the todo sees it.
    store.set_response::<User>("GET /users/u1", &(), &json!({ "id": "u1", "name": "Ada L." }))?;
    assert_eq!(
        read::<Todo>(&store, "GET /todos/1").owner.as_ref().unwrap().name,
        "Ada L."
    );
    Ok(())
}

/// A thread of comments: its replies are comments too, named with `Self`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Entity)]
struct Comment {
    #[entity(pk)]
    id: String,
    body: String,
    #[entity(schema)]
    replies: Vec<Self>,
    #[entity(schema)]
    parent: Option<Box<Self>>,
}

#[test]
fn an_entity_may_name_itself_with_self_in_a_nested_field() -> Result {
    let mut store = Store::new();
    let thread = json!({ "id": "1", "body": "first", "replies": [
        { "id": "2", "body": "second", "replies": [] },
        { "id": "3", "body": "third", "replies": [], "parent": { "id": "1" } },
    ] });
    store.set_response::<Comment>("GET /comments/1", &(), &thread)?;
    let first = read::<Comment>(&store, "GET /comments/1");
    let bodies: Vec<&str> = first.replies.iter().map(|c| c.body.as_str()).collect();
    assert_eq!(bodies, ["second", "third"]);
    // The replies are rows of the same table: another response updates one everywhere.
    store.set_response::<Comment>("GET /comments/2", &(), &json!({ "id": "2", "body": "edited" }))?;
    assert_eq!(read::<Comment>(&store, "GET /comments/1").replies[0].body, "edited");
    Ok(())
}

#[test]
fn a_nested_field_is_normalized_by_its_schema() {
    let mut store = Store::new();
    // A nested entity without a pk is an InvalidResponse at its position, not a decode error.
    let err = store
        .set_response::<Todo>("k", &(), &json!({ "id": "1", "owner": { "name": "Ada" } }))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResponse { entity: Some(e), position, .. } if e == "User" && position == "/owner"),
        "{err:?}"
    );
}

#[test]
fn nested_entity_keys_are_registered_so_key_clashes_are_found() {
    #[derive(Clone, Debug, Default, Entity)]
    #[entity(key = "User")]
    struct Impostor {
        #[entity(pk)]
        id: String,
    }
    let mut store = Store::new();
    store.set_response::<Todo>("a", &(), &json!({ "id": "1" })).unwrap();
    // Todo registered User through its nested field, so Impostor's "User" clashes.
    let err = store
        .set_response::<Impostor>("b", &(), &json!({ "id": "1" }))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }), "{err:?}");
}

fn isbn_pk(input: &Value) -> Option<String> {
    Some(format!(
        "{}-{}",
        input.get("prefix")?.as_str()?,
        input.get("number")?.as_u64()?
    ))
}

#[derive(Clone, Debug, Default, Entity)]
#[entity(pk = isbn_pk)]
struct Book {
    prefix: String,
    number: u64,
    title: String,
}

#[test]
fn container_pk_fn_computes_the_primary_key() -> Result {
    assert_eq!(
        Book::pk(&json!({ "prefix": "978", "number": 3 })).as_deref(),
        Some("978-3")
    );
    let mut store = Store::new();
    store.set_response::<Vec<Book>>("a", &(), &json!([{ "prefix": "978", "number": 3, "title": "A" }]))?;
    // Same pk from another response: the same record.
    store.set_response::<Book>("b", &(), &json!({ "prefix": "978", "number": 3, "title": "B" }))?;
    assert_eq!(read::<Vec<Book>>(&store, "a")[0].title, "B");
    let err = store
        .set_response::<Book>("c", &(), &json!({ "title": "no pk" }))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }), "{err:?}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Unions

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Link {
    #[entity(pk)]
    id: u64,
    url: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Post {
    #[entity(pk)]
    id: u64,
    content: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct BlogPost {
    #[entity(pk)]
    id: u64,
    body: String,
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "type")]
enum FeedItem {
    Link(Link),
    #[union(tag = "post")]
    Post(Post),
    #[union(other)]
    Other(serde_json::Value),
}

#[test]
fn union_constants_follow_the_declaration() {
    assert_eq!(FeedItem::NAME, "FeedItem");
    assert_eq!(FeedItem::TAGS, &["link", "post"]);
    assert_eq!(FeedItem::KEYS, &["Link", "Post"]);
    const { assert!(FeedItem::HAS_OTHER) };
    assert_eq!(<FeedItem as restcache::schema::Union>::collection_key(), "[Link;Post]");
    assert_eq!(
        <FeedItem as restcache::schema::EntitySchema>::collection_key(),
        "[Link;Post]"
    );
}

#[test]
fn union_with_attribute_picks_variants_by_the_field_and_keeps_others() -> Result {
    let mut store = Store::new();
    let feed = json!([
        { "type": "link", "id": 1, "url": "https://a" },
        { "type": "post", "id": 1, "content": "hello" },
        { "type": "video", "id": 9 },
    ]);
    store.set_response::<Vec<FeedItem>>("GET /feed", &(), &feed)?;
    let items = read::<Vec<FeedItem>>(&store, "GET /feed");
    assert_eq!(
        *items,
        [
            FeedItem::Link(Link {
                id: 1,
                url: "https://a".into()
            }),
            FeedItem::Post(Post {
                id: 1,
                content: "hello".into()
            }),
            FeedItem::Other(json!({ "type": "video", "id": 9 })),
        ]
    );
    // Variants are stored in their entities' tables.
    store.set_response::<Post>("GET /posts/1", &(), &json!({ "id": 1, "content": "edited" }))?;
    assert_eq!(
        read::<Vec<FeedItem>>(&store, "GET /feed")[1],
        FeedItem::Post(Post {
            id: 1,
            content: "edited".into()
        })
    );
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
enum Strict {
    Link(Link),
    BlogPost(BlogPost),
}

#[test]
fn union_default_tags_are_the_variant_names_in_snake_case() -> Result {
    assert_eq!(Strict::TAGS, &["link", "blog_post"]);
    const { assert!(!Strict::HAS_OTHER) };
    let mut store = Store::new();
    store.set_response::<Strict>("k", &(), &json!({ "kind": "blog_post", "id": 4, "body": "b" }))?;
    assert_eq!(
        *read::<Strict>(&store, "k"),
        Strict::BlogPost(BlogPost {
            id: 4,
            body: "b".into()
        })
    );
    Ok(())
}

#[test]
fn union_without_other_rejects_an_unmatched_object() {
    let mut store = Store::new();
    let err = store
        .set_response::<Strict>("k", &(), &json!({ "kind": "video", "id": 4 }))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResponse { .. }), "{err:?}");
    assert_eq!(Strict::from_other(&json!({})), None);
}

/// The tag from the shape of the input: a `url` makes a link, a `content` a post.
fn feed_kind(value: &Value, _parent: Option<&Value>, _key: Option<&str>) -> Option<String> {
    if value.get("url").is_some() {
        Some("link".into())
    } else if value.get("content").is_some() {
        Some("post".into())
    } else {
        None
    }
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute_fn = feed_kind)]
enum ByShape {
    Link(Link),
    #[union(tag = "post")]
    Article(Post),
}

#[test]
fn union_with_attribute_fn_picks_variants_by_the_function() -> Result {
    assert_eq!(ByShape::select(&json!({ "url": "x" }), None, None), Some(0));
    assert_eq!(ByShape::select(&json!({ "content": "x" }), None, None), Some(1));
    assert_eq!(ByShape::select(&json!({ "type": "link" }), None, None), None);
    let mut store = Store::new();
    let feed = json!([{ "id": 1, "url": "https://a" }, { "id": 2, "content": "c" }, { "id": 3 }]);
    store.set_response::<Vec<ByShape>>("GET /feed", &(), &feed)?;
    assert_eq!(
        *read::<Vec<ByShape>>(&store, "GET /feed"),
        [
            ByShape::Link(Link {
                id: 1,
                url: "https://a".into()
            }),
            ByShape::Article(Post {
                id: 2,
                content: "c".into()
            })
        ],
        "the unmatched element is dropped"
    );
    Ok(())
}

/// The tag is the key the item appears under in its parent object.
fn tag_from_key(value: &Value, parent: Option<&Value>, key: Option<&str>) -> Option<String> {
    let key = key?;
    (parent?.get(key)? == value).then(|| key.to_owned())
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute_fn = tag_from_key)]
enum ByKey {
    Link(Link),
    Post(Post),
}

#[test]
fn union_attribute_fn_gets_the_parent_and_the_key() -> Result {
    #[derive(Clone, Debug, Default, Schema)]
    struct Pair {
        #[schema(nested)]
        link: Option<ByKey>,
        #[schema(nested)]
        post: Option<ByKey>,
    }
    let mut store = Store::new();
    store.set_response::<Pair>(
        "k",
        &(),
        &json!({ "link": { "id": 1, "url": "u" }, "post": { "id": 2, "content": "c" } }),
    )?;
    let pair = read::<Pair>(&store, "k");
    assert_eq!(pair.link, Some(ByKey::Link(Link { id: 1, url: "u".into() })));
    assert_eq!(
        pair.post,
        Some(ByKey::Post(Post {
            id: 2,
            content: "c".into()
        }))
    );
    Ok(())
}

#[test]
fn union_as_a_nested_entity_field_and_in_all() -> Result {
    #[derive(Clone, Debug, Default, Entity)]
    struct Pin {
        #[entity(pk)]
        id: u64,
        #[entity(schema)]
        item: Option<FeedItem>,
    }
    let mut store = Store::new();
    store.set_response::<Pin>(
        "k",
        &(),
        &json!({ "id": 1, "item": { "type": "link", "id": 5, "url": "u" } }),
    )?;
    assert_eq!(
        read::<Pin>(&store, "k").item,
        Some(FeedItem::Link(Link { id: 5, url: "u".into() }))
    );
    store.set_response::<All<FeedItem>>("all", &(), &json!([{ "type": "post", "id": 6, "content": "p" }]))?;
    assert_eq!(
        read::<All<FeedItem>>(&store, "all").len(),
        2,
        "the link of the pin and the post"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Object schemas

#[derive(Clone, Debug, Default, Schema)]
#[serde(rename_all = "camelCase")]
struct TodoPage {
    #[schema(nested)]
    results: Collection<Vec<Todo>>,
    total_count: u64,
    #[serde(skip)]
    local: Option<u8>,
}

#[test]
fn object_schema_page_normalizes_its_collection_and_keeps_plain_fields() -> Result {
    let mut store = Store::new();
    let page =
        json!({ "results": [{ "id": "1", "title": "a" }, { "id": "2", "title": "b" }], "totalCount": 2, "local": 1 });
    store.set_response::<TodoPage>("GET /todos", &(), &page)?;
    let read_page = read::<TodoPage>(&store, "GET /todos");
    assert_eq!(
        read_page.results.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(read_page.total_count, 2);
    assert_eq!(read_page.local, None);
    // The todos are entities: updating one shows in the page.
    store.set_response::<Todo>("GET /todos/2", &(), &json!({ "id": "2", "title": "B" }))?;
    assert_eq!(read::<TodoPage>(&store, "GET /todos").results[1].title, "B");
    Ok(())
}

#[test]
fn object_schema_collection_is_its_first_nested_collection() {
    let info = TodoPage::collection().expect("the page has a collection");
    assert_eq!(info.table, "[Todo]");
    #[derive(Clone, Debug, Default, Schema)]
    struct NoCollection {
        #[schema(nested)]
        first: Vec<User>,
        #[schema(nested)]
        second: Collection<Vec<Link>>,
    }
    assert_eq!(NoCollection::collection().map(|c| c.table), Some("[Link]"));
    #[derive(Clone, Debug, Default, Schema)]
    struct Plain {
        n: u8,
    }
    assert!(Plain::collection().is_none());
}

#[test]
fn object_schema_plain_field_type_is_checked() {
    let mut store = Store::new();
    let err = store
        .set_response::<TodoPage>("k", &(), &json!({ "results": [], "totalCount": "two" }))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { entity: None, position, .. } if position == "/totalCount"),
        "{err:?}"
    );
}

#[test]
fn object_schema_may_hold_all() -> Result {
    #[derive(Clone, Debug, Default, Schema)]
    struct Everything {
        #[schema(nested)]
        users: All<User>,
    }
    let mut store = Store::new();
    store.set_response::<User>("one", &(), &json!({ "id": "a", "name": "A" }))?;
    store.set_response::<Everything>("all", &(), &json!({ "users": [{ "id": "b", "name": "B" }] }))?;
    assert_eq!(read::<Everything>(&store, "all").users.len(), 2);
    Ok(())
}

#[test]
fn object_schema_can_nest_in_an_entity() -> Result {
    #[derive(Clone, Debug, Default, Schema)]
    struct Stats {
        #[schema(nested)]
        top: Option<User>,
        score: u32,
    }
    #[derive(Clone, Debug, Default, Entity)]
    struct Team {
        #[entity(pk)]
        id: u64,
        #[entity(schema)]
        stats: Stats,
    }
    let mut store = Store::new();
    store.set_response::<Team>(
        "k",
        &(),
        &json!({ "id": 1, "stats": { "top": { "id": "u", "name": "N" }, "score": 3 } }),
    )?;
    let team = read::<Team>(&store, "k");
    assert_eq!(
        (team.stats.score, team.stats.top.as_ref().map(|u| u.name.as_str())),
        (3, Some("N"))
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// List schemas and generic object schemas

/// The seed's reusable page: generic over its entity.
#[derive(Clone, Debug, Default, Schema)]
pub struct Paginated<E> {
    #[schema(nested)]
    results: Collection<Vec<E>>,
    total: u64,
    limit: u64,
    skip: u64,
}

/// A page whose type parameter has the name of the one the derive's `normalize` takes.
#[derive(Clone, Debug, Default, Schema)]
pub struct PageOf<D> {
    #[schema(nested)]
    results: Collection<Vec<D>>,
    total: u64,
}

#[test]
fn a_type_parameter_may_have_any_name() -> Result {
    let mut store = Store::new();
    let page = json!({ "results": [{ "id": "1", "title": "a" }], "total": 1 });
    store.set_response::<PageOf<Todo>>("GET /todos", &(), &page)?;
    assert_eq!(read::<PageOf<Todo>>(&store, "GET /todos").results.len(), 1);
    Ok(())
}

/// The name of `L::Item`.
fn item_of<L: ListSchema>() -> &'static str {
    std::any::type_name::<L::Item>()
}

#[test]
fn an_object_with_a_collection_field_is_a_list_schema_of_its_items() {
    let todo = std::any::type_name::<Todo>();
    assert_eq!(item_of::<TodoPage>(), todo);
    assert_eq!(item_of::<Paginated<Todo>>(), todo);
    assert_eq!(item_of::<Paginated<User>>(), std::any::type_name::<User>());
}

#[test]
fn a_generic_page_normalizes_like_a_plain_one() -> Result {
    let mut store = Store::new();
    let page = json!({ "results": [{ "id": "1", "title": "a" }], "total": 3, "limit": 1, "skip": 0 });
    store.set_response::<Paginated<Todo>>("GET /todos", &(), &page)?;
    let read_page = read::<Paginated<Todo>>(&store, "GET /todos");
    assert_eq!(read_page.results.len(), 1);
    assert_eq!((read_page.total, read_page.limit, read_page.skip), (3, 1, 0));
    // The plain fields are checked against the type parameter's instantiation.
    let err = store
        .set_response::<Paginated<Todo>>("GET /bad", &(), &json!({ "results": [], "total": "three" }))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode { position, .. } if position == "/total"),
        "{err:?}"
    );
    Ok(())
}

#[test]
fn push_and_page_work_on_a_generic_page() -> Result {
    let mut store = Store::new();
    let first = json!({ "results": [{ "id": "1", "title": "a" }], "total": 3, "limit": 1, "skip": 0 });
    store.set_response::<Paginated<Todo>>("GET /todos", &(), &first)?;
    // A page appends its items to the list stored under the list's key (R-PAGE).
    let second = json!({ "results": [{ "id": "2", "title": "b" }], "total": 3, "limit": 1, "skip": 1 });
    store.set_response::<Page<Paginated<Todo>>>("GET /todos", &(), &second)?;
    // A push appends the created entity to every matching list (R-COL-4).
    store.set_response::<Push<Paginated<Todo>>>("POST /todos", &(), &json!({ "id": "3", "title": "c" }))?;
    let ids = |store: &Store| {
        read::<Paginated<Todo>>(store, "GET /todos")
            .results
            .iter()
            .map(|t| t.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&store), ["1", "2", "3"]);
    // And unshift prepends.
    store.set_response::<Unshift<Paginated<Todo>>>("POST /todos", &(), &json!({ "id": "0", "title": "z" }))?;
    assert_eq!(ids(&store), ["0", "1", "2", "3"]);
    let page = read::<Paginated<Todo>>(&store, "GET /todos");
    assert_eq!(page.skip, 1, "the plain fields are the last page's");
    Ok(())
}

#[test]
fn the_collection_mark_chooses_the_list_among_several() -> Result {
    #[derive(Clone, Debug, Default, Schema)]
    struct Board {
        #[schema(nested)]
        links: Collection<Vec<Link>>,
        #[schema(collection)]
        todos: Collection<Vec<Todo>>,
    }
    assert_eq!(item_of::<Board>(), std::any::type_name::<Todo>());
    // `collection()` follows the mark too, so push's policy is the marked collection's.
    assert_eq!(Board::collection().map(|c| c.table), Some("[Todo]"));

    let mut store = Store::new();
    store.set_response::<Board>("GET /board", &(), &json!({ "links": [], "todos": [] }))?;
    store.set_response::<Push<Board>>("POST /board", &(), &json!({ "id": "9", "title": "new" }))?;
    let board = read::<Board>(&store, "GET /board");
    assert_eq!(board.todos.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["9"]);
    assert!(board.links.is_empty());
    Ok(())
}

#[test]
fn a_generic_page_nests_another_generic_schema() -> Result {
    #[derive(Clone, Debug, Default, Schema)]
    struct Wrapped<T: Clone + Default + Send + Sync> {
        #[schema(nested)]
        page: Paginated<T>,
        note: Option<String>,
    }
    let mut store = Store::new();
    store.set_response::<Wrapped<User>>(
        "GET /users",
        &(),
        &json!({ "page": { "results": [{ "id": "u", "name": "N" }], "total": 1 }, "note": "hi" }),
    )?;
    let read_back = read::<Wrapped<User>>(&store, "GET /users");
    assert_eq!(read_back.page.results[0].name, "N");
    assert_eq!(read_back.note.as_deref(), Some("hi"));
    assert_eq!(Wrapped::<User>::collection().map(|c| c.table), Some("[User]"));
    Ok(())
}

/// A page whose plain field's type is a parameter: the derive bounds it itself.
#[derive(Clone, Debug, Schema)]
struct MetaPage<M> {
    #[schema(nested)]
    results: Vec<User>,
    meta: M,
}

/// Not `Default`: the row asks nothing of a plain field's type that the struct does not.
#[derive(Clone, Debug, PartialEq, serde::Serialize, Deserialize)]
struct Cursor {
    next: Option<String>,
}

impl Default for MetaPage<Cursor> {
    fn default() -> Self {
        MetaPage {
            results: Vec::new(),
            meta: Cursor { next: None },
        }
    }
}

impl Default for MetaPage<u32> {
    fn default() -> Self {
        MetaPage {
            results: Vec::new(),
            meta: 0,
        }
    }
}

#[test]
fn a_plain_field_of_a_parameter_type_is_read_and_written() -> Result {
    let mut store = Store::new();
    store.set_response::<MetaPage<u32>>("GET /a", &(), &json!({ "results": [], "meta": 7 }))?;
    assert_eq!(read::<MetaPage<u32>>(&store, "GET /a").meta, 7);
    let body = json!({ "results": [{ "id": "u", "name": "N" }], "meta": { "next": "c2" } });
    store.set_response::<MetaPage<Cursor>>("GET /b", &(), &body)?;
    let page = read::<MetaPage<Cursor>>(&store, "GET /b");
    assert_eq!(
        (page.results[0].name.as_str(), page.meta.next.as_deref()),
        ("N", Some("c2"))
    );
    Ok(())
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, Deserialize)]
struct Audit {
    created_by: String,
}

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Audited {
    #[entity(pk)]
    id: u32,
    #[serde(flatten)]
    audit: Audit,
}

/// #25: `#[serde(flatten)]` reads the flattened struct from the entity's own fields, as serde
/// documents; a later response carrying it replaces it whole.
#[test]
fn serde_flatten_reads_the_struct_from_the_entitys_own_fields() -> Result {
    let mut store = Store::new();
    store.set_response::<Audited>("k", &(), &json!({ "id": 1, "created_by": "ada" }))?;
    assert_eq!(read::<Audited>(&store, "k").audit.created_by, "ada");
    store.set_response::<Audited>("k", &(), &json!({ "id": 1, "created_by": "bob" }))?;
    assert_eq!(read::<Audited>(&store, "k").audit.created_by, "bob");
    Ok(())
}

/// A flattened field has no JSON name of its own: a field renamed to its Rust name is no repeat.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct AuditedById {
    #[entity(pk)]
    id: u32,
    #[serde(flatten)]
    audit: Audit,
    #[serde(rename = "audit")]
    audit_id: String,
}

#[test]
fn a_flattened_field_s_rust_name_is_free_for_another_field() -> Result {
    let mut store = Store::new();
    store.set_response::<AuditedById>("k", &(), &json!({ "id": 1, "created_by": "ada", "audit": "a1" }))?;
    let read_back = read::<AuditedById>(&store, "k");
    assert_eq!(
        (read_back.audit.created_by.as_str(), read_back.audit_id.as_str()),
        ("ada", "a1")
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Hygiene: the user's names are theirs

/// A user's deserializer named like the parameter the expansions' helpers take.
fn de<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    String::deserialize(d).map(|s| s.to_uppercase())
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Entity)]
struct Shout {
    #[entity(pk)]
    #[serde(deserialize_with = "de")]
    id: String,
    #[serde(deserialize_with = "de")]
    word: String,
}

/// An entity named like the type parameter the expansions' helpers take.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Entity)]
struct D {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
enum Letter {
    D(D),
    Shout(Shout),
}

#[test]
fn a_user_function_named_de_and_a_type_named_d_are_the_user_s() -> Result {
    let mut store = Store::new();
    store.set_response::<Shout>("a", &(), &json!({ "id": "x", "word": "hey" }))?;
    assert_eq!(
        *read::<Shout>(&store, "a"),
        Shout {
            id: "X".into(),
            word: "HEY".into()
        }
    );
    store.set_response::<Vec<Letter>>("b", &(), &json!([{ "kind": "d", "id": "1" }]))?;
    assert_eq!(*read::<Vec<Letter>>(&store, "b"), [Letter::D(D { id: "1".into() })]);
    Ok(())
}

/// A union named with a raw identifier is named without its `r#`, as an entity's key is.
#[allow(non_camel_case_types)]
#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
enum r#match {
    Link(Link),
}

#[test]
fn a_raw_union_name_loses_its_r_hash() {
    assert_eq!(<r#match as restcache::schema::Union>::NAME, "match");
}

/// The expansions name everything by absolute path: they build in a module without the prelude.
#[no_implicit_prelude]
mod without_the_prelude {
    #[derive(
        ::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default, ::core::cmp::PartialEq, ::restcache::Entity,
    )]
    pub struct Note {
        #[entity(pk)]
        pub id: ::std::string::String,
        pub text: ::std::string::String,
        pub tag: ::core::option::Option<::std::string::String>,
        #[entity(schema)]
        pub replies: ::std::vec::Vec<Self>,
        #[serde(
            deserialize_with = "::restcache::__private::serde::Deserialize::deserialize",
            default
        )]
        pub stars: u32,
    }

    #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default, ::restcache::Schema)]
    pub struct Notes<M> {
        #[schema(nested)]
        pub items: ::std::vec::Vec<Note>,
        pub meta: M,
        #[serde(flatten)]
        pub extra: ::std::collections::BTreeMap<::std::string::String, ::restcache::__private::Value>,
    }

    #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::cmp::PartialEq, ::restcache::Union)]
    #[union(attribute = "kind")]
    pub enum Item {
        Note(Note),
        #[union(other)]
        Other(::restcache::__private::Value),
    }

    ::restcache::resource! {
        #[resource(path = "/notes/:id", schema = Note, pagination_field = "cursor", url_prefix = "/api")]
        pub struct NoteResource {
            #[member(path = "/notes/recent\\?q=:q?", schema = ::std::vec::Vec<Note>)]
            recent,
            #[member(extends = get_list, path = "/notes/mine")]
            mine,
        }
    }
}

#[test]
fn the_derives_build_without_the_prelude() -> Result {
    use without_the_prelude::{Item, Note, NoteResource, Notes};
    let mut store = Store::new();
    let body = json!({ "items": [{ "id": "1", "text": "a", "replies": [], "stars": 3 }], "meta": 2, "more": true });
    store.set_response::<Notes<u32>>("k", &(), &body)?;
    let notes = read::<Notes<u32>>(&store, "k");
    assert_eq!((notes.items[0].text.as_str(), notes.items[0].stars), ("a", 3));
    assert_eq!(notes.extra["more"], true);
    store.set_response::<Vec<Item>>("i", &(), &json!([{ "kind": "note", "id": "1" }]))?;
    assert!(matches!(&read::<Vec<Item>>(&store, "i")[0], Item::Note(Note { id, .. }) if id == "1"));
    assert_eq!(NoteResource::get().url(&params! { id: 1 })?, "/api/notes/1");
    assert_eq!(
        NoteResource::recent().url(&params! { q: "x" })?,
        "/api/notes/recent?q=x"
    );
    Ok(())
}
