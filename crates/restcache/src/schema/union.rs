//! Polymorphic schemas: one of several entity types chosen by an attribute (R-UNION).

use serde_json::Value;

use super::entity::invalidated_pk;
use crate::denormalize::{DenormalizeCtx, Unresolved};
use crate::error::Error;
use crate::normalize::{NormalizeCtx, kind, string_form};
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

    /// Normalizes `input` as the entity of variant `index`; returns its pk.
    fn normalize_variant(index: usize, input: &mut Value, ctx: &mut NormalizeCtx<'_>) -> Result<String, Error>;

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
pub(crate) fn select_by_attribute(value: &Value, attr: &str, tags: &[&str]) -> Option<usize> {
    select_by_value(value.get(attr), tags)
}

/// The string form of a tag value, looked up among `tags`.
fn select_by_value(tag: Option<&Value>, tags: &[&str]) -> Option<usize> {
    let tag = string_form(tag?)?;
    tags.iter().position(|t| *t == tag)
}

/// A tag returned by an attribute function, looked up among `tags`.
pub(crate) fn select_by_tag(tag: Option<impl AsRef<str>>, tags: &[&str]) -> Option<usize> {
    let tag = tag?;
    tags.iter().position(|t| *t == tag.as_ref())
}

/// `[K1;K2;…]`.
#[doc(hidden)]
pub fn collection_key(keys: &[&str]) -> String {
    format!("[{}]", keys.join(";"))
}

/// `Schema::normalize` of a union: a `[tag, pk]` reference, an inline `other` object, or
/// `null` for an unmatched element of a list (R-UNION-3).
#[doc(hidden)]
pub fn normalize<U: Union>(input: &mut Value, ctx: &mut NormalizeCtx<'_>) -> Result<Value, Error> {
    if !input.is_object() {
        let reason = format!("expected an object for {}, found {}", U::NAME, kind(input));
        return Err(ctx.invalid(Some(U::NAME), reason));
    }
    match U::select(input, ctx.parent.as_ref(), ctx.parent_key) {
        Some(i) => {
            let tag = U::TAGS
                .get(i)
                .ok_or_else(|| ctx.invalid(Some(U::NAME), "no such variant"))?;
            let pk = U::normalize_variant(i, input, ctx)?;
            Ok(Value::Array(vec![Value::String((*tag).to_owned()), Value::String(pk)]))
        }
        None if U::HAS_OTHER => Ok(std::mem::take(input)),
        None if ctx.in_list => {
            tracing::warn!(union = U::NAME, position = %ctx.pointer(), "list element matches no variant; skipped");
            Ok(Value::Null)
        }
        None => Err(ctx.invalid(Some(U::NAME), format!("matches no variant of {}", U::NAME))),
    }
}

/// `Schema::denormalize` of a union.
#[doc(hidden)]
pub fn denormalize<U: Union>(stored: &Value, ctx: &mut DenormalizeCtx<'_>) -> Result<U, Unresolved> {
    match stored {
        Value::Array(pair) => {
            let [Value::String(tag), Value::String(pk)] = pair.as_slice() else {
                return Err(Unresolved);
            };
            let i = U::TAGS.iter().position(|t| t == tag).ok_or(Unresolved)?;
            U::read_variant(i, pk, ctx)
        }
        Value::Object(_) => U::from_other(stored).ok_or(Unresolved),
        _ => Err(Unresolved),
    }
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

/// `EntitySchema::read_all` of a union (R-ALL-2).
#[doc(hidden)]
pub fn read_all<U: Union>(ctx: &mut DenormalizeCtx<'_>, out: &mut Vec<U>) -> bool {
    let mut any = false;
    for (i, key) in U::KEYS.iter().enumerate() {
        if !ctx.enumerate(key) {
            continue;
        }
        any = true;
        let tables = ctx.tables;
        for (_, _, pk, slot) in tables.rows(key) {
            let Record::Entity(record) = &slot.record else {
                continue;
            };
            let selected = match U::ATTRIBUTE {
                Some(attr) => select_by_value(record.get(attr), U::TAGS),
                // A `select` function reads a JSON object; the record is one only for this call.
                None => U::select(&Value::Object(record.to_map()), None, None),
            };
            if selected == Some(i)
                && let Ok(v) = U::read_variant(i, pk, ctx)
            {
                out.push(v);
            }
        }
    }
    any
}

/// `EntitySchema::invalidate` of a union (R-INV-1).
#[doc(hidden)]
pub fn invalidate<U: Union>(input: &Value, ctx: &mut NormalizeCtx<'_>) -> Result<String, Error> {
    let selected = if input.is_object() {
        U::select(input, ctx.parent.as_ref(), ctx.parent_key)
    } else {
        None
    };
    if let Some(i) = selected {
        let key = U::KEYS
            .get(i)
            .ok_or_else(|| ctx.invalid(Some(U::NAME), "no such variant"))?;
        let pk = invalidated_pk(input, ctx, key, |o| U::pk_of_variant(i, o))?;
        ctx.pending.invalid(key, pk.clone());
        return Ok(pk);
    }
    // An object whose attribute names no variant is skipped: it deletes nothing (R-INV-1).
    let unmatched = U::ATTRIBUTE.is_some_and(|attr| input.get(attr).is_some());
    if unmatched {
        tracing::warn!(union = U::NAME, at = %ctx.pointer(), "an object to invalidate matches no variant; skipped");
    }
    // A bare pk, or an object without the attribute (the args fallback): every variant table
    // that holds the pk its own rule computes. At the top of the response, an object without a
    // pk falls back to the args, as for an entity (R-RESP-6).
    // A bare pk is the same for every variant.
    let bare = match input {
        Value::Object(_) => None,
        _ => Some(invalidated_pk(input, ctx, U::NAME, |_| None)?),
    };
    let mut first = None;
    for (i, key) in U::KEYS.iter().enumerate() {
        let pk = match &bare {
            Some(pk) => Some(pk.clone()),
            None => U::pk_of_variant(i, input)
                .or_else(|| ctx.path.is_empty().then(|| U::pk_of_variant(i, ctx.args)).flatten())
                .filter(|pk| !pk.is_empty()),
        };
        let Some(pk) = pk else { continue };
        if !unmatched && ctx.committed(key).is_some_and(|t| t.rows.contains_key(pk.as_str())) {
            ctx.pending.invalid(key, pk.clone());
        }
        first.get_or_insert(pk);
    }
    // No variant's rule finds a pk: a missing pk, as for an entity (R-NORM-3, R-RESP-6).
    first.ok_or_else(|| ctx.invalid(Some(U::NAME), "missing or empty primary key"))
}
