//! Polymorphic schemas: one of several entity types chosen by an attribute (R-UNION).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::StringDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::entity::{bare_pk_text, invalidated_pk};
use super::normalize::{fail, invalid, refuse_other_kinds, take_error, with};
use crate::pk::string_form;
use crate::refs::{EntityRef, RefSink, UnionRef};
use crate::schema::denormalize::{DenormalizeCtx, Unresolved};
use crate::tables::Record;

/// An enum whose variants each wrap one [`Entity`](super::Entity), chosen per input by an
/// attribute. Derive it with `#[derive(Union)]`:
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Link { #[entity(pk)] id: u64, url: String }
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Post { #[entity(pk)] id: u64, content: String }
///
/// #[derive(Clone, Debug, PartialEq, Union)]
/// #[union(attribute = "type")]
/// enum FeedItem {
///     Link(Link),
///     #[union(tag = "post")]
///     Post(Post),
///     #[union(other)]
///     Other(serde_json::Value),
/// }
/// assert_eq!(<FeedItem as restcache::schema::Union>::TAGS, &["link", "post"]);
/// ```
pub trait Union: Clone + Send + Sync + 'static {
    /// The enum's name (the `K` of a resource over this union).
    const NAME: &'static str;
    /// Each variant's tag, in declaration order.
    const TAGS: &'static [&'static str];
    /// Each variant's entity key, in declaration order.
    const KEYS: &'static [&'static str];
    /// The field whose value is the tag, when the variant is chosen by one (`schema_attribute`);
    /// lets stored records be matched without building a JSON object.
    #[doc(hidden)]
    const ATTRIBUTE: Option<&'static str> = None;
    /// Whether an `#[union(other)]` variant keeps unmatched inputs.
    const HAS_OTHER: bool;

    /// `[K1;K2;…]`, the table of this union's collections (R-UNION-4).
    fn collection_key() -> &'static str;

    /// The variant an input selects (R-UNION-2): the input value, the object holding it (for an
    /// array element, the object holding the array), and the key it appears under.
    fn select(value: &Value, parent: Option<&Value>, key: Option<&str>) -> Option<usize>;

    /// Normalizes the object `de` gives as the entity of variant `index`; returns its reference.
    fn normalize_variant<'de, D: Deserializer<'de>>(index: usize, de: D) -> Result<EntityRef, D::Error>;

    /// Reads the entity `pk` of variant `index`.
    fn read_variant(index: usize, pk: &str, ctx: &mut DenormalizeCtx<'_>) -> Result<Self, Unresolved>;

    /// The pk rule of variant `index` applied to an object.
    fn pk_of_variant(index: usize, input: &Value) -> Option<String>;

    /// `Other(value)` when the union has an `other` variant.
    fn from_other(value: &Value) -> Option<Self>;

    /// Registers the variants' entity keys.
    #[doc(hidden)]
    fn register_variants(registry: &mut super::Registry);
}

/// The string form of the attribute `attr`, looked up among `tags`.
#[doc(hidden)]
pub fn select_by_attribute(value: &Value, attr: &str, tags: &[&str]) -> Option<usize> {
    select_by_value(value.get(attr), tags)
}

/// The string form of a tag value, looked up among `tags`.
fn select_by_value(tag: Option<&Value>, tags: &[&str]) -> Option<usize> {
    let tag = string_form(tag?)?;
    tags.iter().position(|t| *t == tag)
}

/// A tag returned by an attribute function, looked up among `tags`.
#[doc(hidden)]
pub fn select_by_tag(tag: Option<impl AsRef<str>>, tags: &[&str]) -> Option<usize> {
    let tag = tag?;
    tags.iter().position(|t| *t == tag.as_ref())
}

/// `[K1;K2;…]`.
#[doc(hidden)]
pub fn collection_key(keys: &[&str]) -> String {
    format!("[{}]", keys.join(";"))
}

/// `Schema::normalize` of a union: a reference to the variant's entity, an inline `other`
/// object, or a skipped unmatched element of a list (R-UNION-3).
///
/// A union chosen by an attribute reads the object's entries until it meets the attribute,
/// keeping those before it, then gives the chosen variant the kept entries followed by the rest
/// of the object as it is parsed: no `Value` of the object is built unless the attribute comes
/// late. A union chosen by a function parses the object into a `Value` for the function.
#[doc(hidden)]
pub fn normalize<'de, U: Union, D: Deserializer<'de>>(de: D) -> Result<UnionRef, D::Error> {
    match U::ATTRIBUTE {
        Some(attribute) => de.deserialize_any(ByAttribute::<U> {
            attribute,
            union: PhantomData,
        }),
        None => {
            let value = Value::deserialize(de)?;
            if !value.is_object() {
                return Err(not_an_object::<U, D::Error>(crate::json::kind(&value)));
            }
            let selected = with(|n| U::select(&value, n.parent.as_ref(), n.key()));
            match selected {
                Some(i) => {
                    let pk = U::normalize_variant(i, value)
                        .map_err(|e| take_error().map_or_else(|| de::Error::custom(e), fail))?;
                    reference::<U, D::Error>(i, pk)
                }
                None => unmatched::<U, D::Error>(Some(value)),
            }
        }
    }
}

/// The error of a union given a value of another JSON kind (`found`) than an object.
fn not_an_object<U: Union, E: de::Error>(found: &str) -> E {
    invalid(
        Some(U::NAME),
        format!("expected an object for {}, found {found}", U::NAME),
    )
}

/// The reference to the entity `pk` of variant `i`.
fn reference<U: Union, E: de::Error>(i: usize, pk: EntityRef) -> Result<UnionRef, E> {
    let tag = U::TAGS
        .get(i)
        .ok_or_else(|| invalid(Some(U::NAME), "no such variant"))?;
    Ok(UnionRef::Entity { tag, pk })
}

/// What an object that matches no variant normalizes to: itself, kept inline, with an `other`
/// variant; nothing in a list (skipped with a warning); otherwise an error.
fn unmatched<U: Union, E: de::Error>(object: Option<Value>) -> Result<UnionRef, E> {
    if U::HAS_OTHER {
        return Ok(object.map_or(UnionRef::Skipped, UnionRef::Other));
    }
    let (in_list, position) = with(|n| (n.in_list, n.pointer()));
    if in_list {
        tracing::warn!(union = U::NAME, position = %position, "list element matches no variant; skipped");
        return Ok(UnionRef::Skipped);
    }
    Err(invalid(Some(U::NAME), format!("matches no variant of {}", U::NAME)))
}

struct ByAttribute<U> {
    attribute: &'static str,
    union: PhantomData<U>,
}

impl<'de, U: Union> Visitor<'de> for ByAttribute<U> {
    type Value = UnionRef;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object for {}", U::NAME)
    }

    refuse_other_kinds!(self, |found| not_an_object::<U, E>(found));

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<UnionRef, A::Error> {
        Err(not_an_object::<U, A::Error>("an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UnionRef, A::Error> {
        let mut before = Vec::new();
        let chosen = loop {
            let Some(key) = map.next_key::<String>()? else {
                break None;
            };
            let value: Value = map.next_value()?;
            let found = key == self.attribute;
            let chosen = found.then(|| select_by_value(Some(&value), U::TAGS)).flatten();
            before.push((key, value));
            if found {
                break chosen;
            }
        };
        match chosen {
            Some(i) => {
                let pk = U::normalize_variant(
                    i,
                    Kept {
                        before: before.into_iter(),
                        value: None,
                        rest: Some(map),
                    },
                )?;
                reference::<U, A::Error>(i, pk)
            }
            None if U::HAS_OTHER => {
                let mut object: Map<String, Value> = before.into_iter().collect();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    object.insert(k, v);
                }
                Ok(UnionRef::Other(Value::Object(object)))
            }
            None => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                unmatched::<U, A::Error>(None)
            }
        }
    }
}

/// An object given as the entries already read (`before`) followed by the rest of a map being
/// parsed (`rest`): a `Deserializer` (and `MapAccess`) for the chosen variant's row.
struct Kept<A> {
    before: std::vec::IntoIter<(String, Value)>,
    /// The value of the kept key just given.
    value: Option<Value>,
    rest: Option<A>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Kept<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if let Some((key, value)) = self.before.next() {
            self.value = Some(value);
            let key: StringDeserializer<A::Error> = key.into_deserializer();
            return seed.deserialize(key).map(Some);
        }
        match &mut self.rest {
            Some(rest) => rest.next_key_seed(seed),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match (self.value.take(), &mut self.rest) {
            (Some(value), _) => seed.deserialize(value).map_err(de::Error::custom),
            (None, Some(rest)) => rest.next_value_seed(seed),
            (None, None) => Err(de::Error::custom("a value without its key")),
        }
    }
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Kept<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// `Schema::denormalize` of a union.
#[doc(hidden)]
pub fn denormalize<U: Union>(stored: &UnionRef, ctx: &mut DenormalizeCtx<'_>) -> Result<U, Unresolved> {
    match stored {
        UnionRef::Entity { tag, pk } => {
            let i = U::TAGS.iter().position(|t| t == tag).ok_or(Unresolved)?;
            U::read_variant(i, pk.as_str(), ctx)
        }
        UnionRef::Other(value) => U::from_other(value).ok_or(Unresolved),
        UnionRef::Skipped => Err(Unresolved),
    }
}

/// `Schema::from_json` of a union: `[tag, pk]`, an input its `other` variant kept, or `null`.
#[doc(hidden)]
pub fn from_json<U: Union>(json: &Value) -> Option<UnionRef> {
    match json {
        Value::Array(pair) => {
            let [tag, pk] = pair.as_slice() else { return None };
            let tag = U::TAGS.iter().find(|t| tag.as_str() == Some(**t))?;
            Some(UnionRef::Entity {
                tag,
                pk: EntityRef::from_json(pk)?,
            })
        }
        Value::Object(_) if U::HAS_OTHER => Some(UnionRef::Other(json.clone())),
        Value::Null => Some(UnionRef::Skipped),
        _ => None,
    }
}

/// `Schema::skipped` of a union: an unmatched list element.
#[doc(hidden)]
pub fn skipped(stored: &UnionRef) -> bool {
    matches!(stored, UnionRef::Skipped)
}

/// `Schema::refs` of a union: the entity of the tagged variant (an `other` input and a skipped
/// element reference nothing).
#[doc(hidden)]
pub fn refs<U: Union>(stored: &UnionRef, sink: &mut RefSink<'_>) {
    if let UnionRef::Entity { tag, pk } = stored
        && let Some(i) = U::TAGS.iter().position(|t| t == tag)
        && let Some(key) = U::KEYS.get(i)
    {
        sink.entity(key, pk.as_str());
    }
}

/// `EntitySchema::tables` of a union: every variant's table.
#[doc(hidden)]
pub fn tables<U: Union>(sink: &mut RefSink<'_>) {
    U::KEYS.iter().for_each(|key| sink.table(key));
}

/// `EntitySchema::is_entity` of a union.
#[doc(hidden)]
pub fn is_entity(stored: &UnionRef) -> bool {
    matches!(stored, UnionRef::Entity { .. })
}

/// Query mode of a union (R-GET-3): the variant the args' attribute names, else the first
/// variant whose table holds the pk.
#[doc(hidden)]
pub fn query<U: Union>(ctx: &mut DenormalizeCtx<'_>) -> Option<Result<U, Unresolved>> {
    let args = ctx.args();
    let chosen = U::select(args, None, None);
    let candidates = chosen.map_or(0..U::KEYS.len(), |i| i..i + 1);
    for i in candidates {
        let (Some(pk), Some(key)) = (U::pk_of_variant(i, args), U::KEYS.get(i)) else {
            continue;
        };
        if ctx.slot(key, &pk).is_some() {
            return Some(U::read_variant(i, &pk, ctx));
        }
    }
    None
}

/// `EntitySchema::read_all` of a union (R-ALL-2): each variant's table in turn. A table that
/// two variants share (the same entity type) is told apart by the union's selection.
#[doc(hidden)]
pub fn read_all<U: Union>(ctx: &mut DenormalizeCtx<'_>, out: &mut Vec<U>) -> bool {
    let mut any = false;
    for (i, key) in U::KEYS.iter().enumerate() {
        if !ctx.enumerate(key) {
            continue;
        }
        any = true;
        let shared = U::KEYS.iter().filter(|k| *k == key).count() > 1;
        let tables = ctx.tables;
        for (_, _, pk, slot) in tables.rows(key) {
            let Record::Entity(row) = &slot.record else {
                continue;
            };
            if shared {
                let record = row.to_json();
                let selected = match U::ATTRIBUTE {
                    Some(attr) => select_by_value(record.get(attr), U::TAGS),
                    None => U::select(&Value::Object(record), None, None),
                };
                if selected != Some(i) {
                    continue;
                }
            }
            if let Ok(v) = U::read_variant(i, pk, ctx) {
                out.push(v);
            }
        }
    }
    any
}

/// `EntitySchema::invalidate` of a union (R-INV-1).
#[doc(hidden)]
pub fn invalidate<'de, U: Union, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    let input = Value::deserialize(de)?;
    with(|ctx| invalidate_value::<U>(&input, ctx)).map_err(fail)
}

fn invalidate_value<U: Union>(
    input: &Value,
    ctx: &mut crate::schema::normalize::Normalizing,
) -> Result<String, crate::Error> {
    let selected = if input.is_object() {
        U::select(input, ctx.parent.as_ref(), ctx.key())
    } else {
        None
    };
    if let Some(i) = selected {
        let key = U::KEYS
            .get(i)
            .ok_or_else(|| ctx.invalid(Some(U::NAME), "no such variant"))?;
        let pk = invalidated_pk(input, ctx, key, |o| U::pk_of_variant(i, o), bare_pk_text)?;
        ctx.pending.invalid(key, &pk);
        return Ok(pk);
    }
    // An object whose attribute names no variant is skipped: it deletes nothing (R-INV-1).
    let unmatched = U::ATTRIBUTE.is_some_and(|attr| input.get(attr).is_some());
    if unmatched {
        tracing::warn!(union = U::NAME, at = %ctx.pointer(), "an object to invalidate matches no variant; skipped");
    }
    // A bare pk (the same for every variant), or an object without the attribute: every variant
    // table that holds the pk its own rule computes (at the top of the response, from the args
    // when the object has none, as for an entity: R-RESP-6).
    let bare = match input {
        Value::Object(_) => None,
        _ => Some(invalidated_pk(input, ctx, U::NAME, |_| None, bare_pk_text)?),
    };
    let mut first = None;
    for (i, key) in U::KEYS.iter().enumerate() {
        let pk = match &bare {
            Some(pk) => Some(pk.clone()),
            None => U::pk_of_variant(i, input)
                .or_else(|| ctx.path.is_empty().then(|| U::pk_of_variant(i, &ctx.args)).flatten())
                .filter(|pk| !pk.is_empty()),
        };
        let Some(pk) = pk else { continue };
        if !unmatched {
            ctx.pending.if_stored.push((key, pk.clone()));
        }
        first.get_or_insert(pk);
    }
    // No variant's rule finds a pk: a missing pk, as for an entity (R-NORM-3, R-RESP-6).
    first.ok_or_else(|| ctx.invalid(Some(U::NAME), "missing or empty primary key"))
}
