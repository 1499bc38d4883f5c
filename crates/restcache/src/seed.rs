//! Normalizing while parsing (R-NORM on response bytes): a [`Schema`]'s
//! [`normalize_seed`](Schema::normalize_seed) reads its part of the JSON straight from the
//! deserializer, so no `serde_json::Value` tree of the whole response is built first.
//!
//! Entities and `#[derive(Schema)]` objects dispatch each key as it is parsed (the derive's
//! [`SeedFields`]): a plain field is parsed and type-checked on the spot, a nested field is
//! normalized by its own seed, and no field is looked up afterwards. `Vec`, `Option` and `Box`
//! pass their elements on. Every other schema parses its part into a `Value` and normalizes that.
//! The writes are the ones the `Value` path makes, into the same pending batch, committed in one
//! step or not at all.
//!
//! When the JSON does not fit the schema, the pass notes it in the context
//! ([`NormalizeCtx::seed_failed`]) and a placeholder serde error unwinds the parse;
//! [`normalize_bytes`] tells it from a syntax error. The store then normalizes the body again from
//! the `Value` it parses to, and gives that outcome, its error included: a value parsed before the
//! end of its object may yet be replaced by a later value of the same key (a repeated key keeps its
//! last value, as in a `Value`), so neither its error nor its writes need stand. A repeated key of
//! an object's only nested field fails the pass for the same reason, since the first value's writes
//! went straight into the batch.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize as _;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::Error;
use crate::normalize::{NormalizeCtx, Pending, RecordWriter, Seg};
use crate::record::Fields;
use crate::schema::{Entity, Schema};

/// Notes in the context that the pass failed, and returns the serde error that unwinds the
/// parse. What failed is told by the second pass, from the `Value` ([`normalize_bytes`]).
pub(crate) fn fail<E: de::Error>(ctx: &mut NormalizeCtx<'_>) -> E {
    ctx.seed_failed = true;
    E::custom("normalization error")
}

/// What went wrong in [`normalize_bytes`].
pub(crate) enum BytesError {
    /// The bytes are not JSON (or not one JSON value).
    Syntax(serde_json::Error),
    /// The JSON does not fit the schema somewhere, or repeats a key whose first value's writes
    /// cannot be taken back: to be normalized again from its `Value`.
    Normalize,
}

/// Parses `bytes` and normalizes them with `S` in one pass.
pub(crate) fn normalize_bytes<S: Schema>(bytes: &[u8], ctx: &mut NormalizeCtx<'_>) -> Result<Value, BytesError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result = S::normalize_seed(&mut de, ctx).and_then(|v| de.end().map(|()| v));
    result.map_err(|e| match std::mem::take(&mut ctx.seed_failed) {
        true => BytesError::Normalize,
        false => BytesError::Syntax(e),
    })
}

/// The default [`Schema::normalize_seed`]: parse this part into a `Value`, then normalize it.
pub(crate) fn via_value<'de, S: Schema, D: Deserializer<'de>>(
    de: D,
    ctx: &mut NormalizeCtx<'_>,
) -> Result<Value, D::Error> {
    let mut value = Value::deserialize(de)?;
    S::normalize(&mut value, ctx).map_err(|_| fail(ctx))
}

/// Seeds `S` at the current position.
struct SchemaSeed<'c, 'a, S> {
    ctx: &'c mut NormalizeCtx<'a>,
    schema: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for SchemaSeed<'_, '_, S> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        S::normalize_seed(de, self.ctx)
    }
}

/// Seeds `S`, or `null` for a `null` input (a list element, an `Option`).
struct OptionSeed<'c, 'a, S> {
    ctx: &'c mut NormalizeCtx<'a>,
    schema: PhantomData<S>,
}

impl<'de, S: Schema> DeserializeSeed<'de> for OptionSeed<'_, '_, S> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_option(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for OptionSeed<'_, '_, S> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        S::normalize_seed(de, self.ctx)
    }
}

/// `Option<S>::normalize_seed`: `null` stays `null`.
pub(crate) fn option<'de, S: Schema, D: Deserializer<'de>>(
    de: D,
    ctx: &mut NormalizeCtx<'_>,
) -> Result<Value, D::Error> {
    OptionSeed::<S> {
        ctx,
        schema: PhantomData,
    }
    .deserialize(de)
}

/// A visitor that accepts one JSON kind and fails the pass (`wrong`) on every other kind; the
/// second pass, over the `Value`, tells the error.
macro_rules! wrong_kinds {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong())
        }
    };
}

/// `Vec<S>::normalize_seed`: the list rule of [`NormalizeCtx::list`], element by element.
pub(crate) fn list<'de, S: Schema, D: Deserializer<'de>>(de: D, ctx: &mut NormalizeCtx<'_>) -> Result<Value, D::Error> {
    de.deserialize_any(ListVisitor::<S> {
        ctx,
        schema: PhantomData,
    })
}

struct ListVisitor<'c, 'a, S> {
    ctx: &'c mut NormalizeCtx<'a>,
    schema: PhantomData<S>,
}

impl<S> ListVisitor<'_, '_, S> {
    fn wrong<E: de::Error>(self) -> E {
        fail(self.ctx)
    }
}

impl<'de, S: Schema> Visitor<'de> for ListVisitor<'_, '_, S> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    wrong_kinds!();

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Value, A::Error> {
        Err(self.wrong())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let ctx = self.ctx;
        if ctx.check_depth().is_err() {
            return Err(fail(ctx));
        }
        let was = std::mem::replace(&mut ctx.in_list, true);
        ctx.pk_fallback = None;
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut i = 0;
        let result = loop {
            ctx.path.push(Seg::Index(i));
            let item = seq.next_element_seed(OptionSeed::<S> {
                ctx,
                schema: PhantomData,
            });
            ctx.path.pop();
            match item {
                Ok(Some(Value::Null)) => {}
                Ok(Some(v)) => out.push(v),
                Ok(None) => break Ok(Value::Array(out)),
                Err(e) => break Err(e),
            }
            i += 1;
        };
        ctx.in_list = was;
        result
    }
}

/// The per-key dispatch of a derived entity or object schema: what to do with the value of
/// `key`, parsed from `map`. Generated by `#[derive(Entity)]` and `#[derive(Schema)]`.
#[doc(hidden)]
pub trait SeedFields {
    /// The JSON field an entity's pk is read from, when it is one field (else the record is
    /// made a `Value` for `Entity::pk`).
    const PK_FIELD: Option<&'static str> = None;

    /// The JSON names of the declared fields, sorted: a record with exactly these fields
    /// shares this list instead of holding its names.
    const NAMES: &'static [&'static str] = &[];

    /// Parses the value of `key` with [`SeedWriter::plain`], [`SeedWriter::nested`] or
    /// [`SeedWriter::other`].
    fn seed_field<'de, A: MapAccess<'de>>(
        w: &mut SeedWriter<'_, '_>,
        key: &str,
        map: &mut A,
    ) -> Result<Value, A::Error>;
}

type Deferred = fn(&mut RecordWriter<'_, '_>, &'static str) -> Result<(), Error>;

/// A nested field's writes, kept apart until the object is complete so they join the pending
/// batch in declaration order, as the `Value` path writes them.
enum Held {
    /// Normalized as it was parsed: its writes.
    Written(Pending),
    /// Reads its parent: normalized once the object is complete.
    Deferred(&'static str, Deferred),
}

fn deferred_nested<S: Schema>(w: &mut RecordWriter<'_, '_>, name: &'static str) -> Result<(), Error> {
    w.nested::<S>(name)
}

/// What a derive's [`SeedFields::seed_field`] parses a field's value with.
#[doc(hidden)]
pub struct SeedWriter<'w, 'a> {
    ctx: &'w mut NormalizeCtx<'a>,
    /// Nested fields whose writes wait for the object to be complete, by declaration order.
    held: Vec<(u32, Held)>,
    /// The declared name of the field just parsed, kept in the record instead of its key.
    name: Option<&'static str>,
    /// Whether the object's only nested field was written, straight into the batch.
    nested_written: bool,
}

impl SeedWriter<'_, '_> {
    /// A plain field: parsed, and checked to deserialize into `T` (R-NORM-5).
    pub fn plain<'de, T: DeserializeOwned, A: MapAccess<'de>>(
        &mut self,
        map: &mut A,
        name: &'static str,
    ) -> Result<Value, A::Error> {
        self.plain_with(map, name, |v| T::deserialize(v).map(drop))
    }

    /// A plain field checked by `check` (`#[serde(deserialize_with = ...)]`).
    pub fn plain_with<'de, A: MapAccess<'de>>(
        &mut self,
        map: &mut A,
        name: &'static str,
        check: impl FnOnce(&Value) -> Result<(), serde_json::Error>,
    ) -> Result<Value, A::Error> {
        self.name = Some(name);
        let value: Value = map.next_value()?;
        match check(&value) {
            Ok(()) => Ok(value),
            Err(_) => Err(fail(self.ctx)),
        }
    }

    /// A nested-schema field, the `order`-th of `of` nested fields in declaration order:
    /// normalized by `S` as it is parsed, or, when `S` reads the object holding it
    /// ([`Schema::PARENT`]), parsed now and normalized once the object is complete. With more
    /// than one nested field, each field's writes are held until the object is complete and
    /// then join the batch in declaration order (a repeated key's replacing its earlier
    /// value's). An object's only nested field writes straight into the batch, so its key
    /// repeated fails the pass, and the body is normalized again from its `Value`.
    pub fn nested<'de, S: Schema, A: MapAccess<'de>>(
        &mut self,
        map: &mut A,
        name: &'static str,
        order: u32,
        of: u32,
    ) -> Result<Value, A::Error> {
        self.name = Some(name);
        let ctx = &mut *self.ctx;
        if S::PARENT.wanted(ctx.entity_depth) {
            self.held.retain(|(o, _)| *o != order);
            self.held.push((order, Held::Deferred(name, deferred_nested::<S>)));
            return map.next_value();
        }
        let outer = (of > 1).then(|| std::mem::take(&mut ctx.pending));
        if outer.is_none() && std::mem::replace(&mut self.nested_written, true) {
            // The key again: its first value's writes are in the batch and must not stand
            // (§0, a repeated key keeps its last value). The body is normalized again from
            // its `Value` (`Store::set_response_bytes`), where they never happen.
            return Err(fail(self.ctx));
        }
        let saved = (
            ctx.parent.take(),
            ctx.parent_key.replace(name),
            std::mem::replace(&mut ctx.in_list, false),
            ctx.pk_fallback.take(),
        );
        ctx.path.push(Seg::Key(Cow::Borrowed(name)));
        let r = map.next_value_seed(SchemaSeed::<S> {
            ctx,
            schema: PhantomData,
        });
        ctx.path.pop();
        (ctx.parent, ctx.parent_key, ctx.in_list, ctx.pk_fallback) = saved;
        if let Some(outer) = outer {
            let own = std::mem::replace(&mut ctx.pending, outer);
            // A repeated key: the last value is the one kept.
            self.held.retain(|(o, _)| *o != order);
            self.held.push((order, Held::Written(own)));
        }
        r
    }

    /// Any other field: kept as it is.
    pub fn other<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<Value, A::Error> {
        map.next_value()
    }
}

/// Parses an object with `T`'s field dispatch into its stored record.
fn record<'de, T: SeedFields, D: Deserializer<'de>>(
    de: D,
    ctx: &mut NormalizeCtx<'_>,
    entity: Option<&'static str>,
    shape: &'static [&'static str],
) -> Result<Fields, D::Error> {
    de.deserialize_any(ObjectVisitor::<T> {
        ctx,
        entity,
        shape,
        fields: PhantomData,
    })
}

struct ObjectVisitor<'c, 'a, T> {
    ctx: &'c mut NormalizeCtx<'a>,
    entity: Option<&'static str>,
    /// The names a record shares when it has exactly them ([`Fields::from_entries`]).
    shape: &'static [&'static str],
    fields: PhantomData<T>,
}

impl<T> ObjectVisitor<'_, '_, T> {
    fn wrong<E: de::Error>(self) -> E {
        fail(self.ctx)
    }
}

impl<'de, T: SeedFields> Visitor<'de> for ObjectVisitor<'_, '_, T> {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    wrong_kinds!();

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(self.wrong())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ObjectVisitor { ctx, entity, shape, .. } = self;
        if ctx.check_depth().is_err() {
            return Err(fail(ctx));
        }
        // A record's fields are collected in a buffer that the next record reuses; the record
        // itself is then allocated once, at its size.
        let mut entries = ctx.entries.pop().unwrap_or_default();
        let mut w = SeedWriter {
            ctx,
            held: Vec::new(),
            name: None,
            nested_written: false,
        };
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = T::seed_field(&mut w, &key, &mut map)?;
            let name = match w.name.take() {
                Some(declared) => Cow::Borrowed(declared),
                None => Cow::Owned(key.into_owned()),
            };
            entries.push((name, value));
        }
        let fields = Fields::from_buffer(&mut entries, shape);
        let SeedWriter { ctx, mut held, .. } = w;
        ctx.entries.push(entries);
        if held.is_empty() {
            return Ok(fields);
        }
        held.sort_by_key(|(order, _)| *order);
        if held.iter().all(|(_, h)| matches!(h, Held::Written(_))) {
            for (_, h) in held {
                if let Held::Written(writes) = h {
                    ctx.pending.append(writes);
                }
            }
            return Ok(fields);
        }
        // A field that reads its parent is normalized over the object as a JSON map.
        let mut obj = fields.into_map();
        let mut rw = RecordWriter::new(&mut obj, ctx, entity);
        for (_, h) in held {
            match h {
                Held::Written(writes) => rw.ctx().pending.append(writes),
                Held::Deferred(name, normalize) => {
                    if normalize(&mut rw, name).is_err() {
                        return Err(fail(rw.ctx()));
                    }
                }
            }
        }
        Ok(Fields::from_map(obj))
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// `normalize_seed` of a `#[derive(Schema)]` object.
#[doc(hidden)]
pub fn object<'de, T: SeedFields, D: Deserializer<'de>>(de: D, ctx: &mut NormalizeCtx<'_>) -> Result<Value, D::Error> {
    ctx.pk_fallback = None;
    record::<T, D>(de, ctx, None, &[]).map(|fields| Value::Object(fields.into_map()))
}

/// `normalize_seed` of a derived entity: its record, then its pk, then its pending write.
#[doc(hidden)]
pub fn entity<'de, E: Entity + SeedFields, D: Deserializer<'de>>(
    de: D,
    ctx: &mut NormalizeCtx<'_>,
) -> Result<Value, D::Error> {
    let fallback = ctx.pk_fallback.take();
    ctx.entity_depth += 1;
    let record = record::<E, D>(de, ctx, Some(E::KEY), <E as Entity>::NAMES);
    ctx.entity_depth -= 1;
    let record = record?;
    let pk = match E::PK_FIELD {
        Some(field) => crate::normalize::pk_string(record.get(field)),
        // A pk function only gets here for an entity without nested fields (the derive sees to
        // it), whose record is the input object as it came.
        None => E::pk(&Value::Object(record.to_map())),
    };
    let pk = pk
        .filter(|pk| !pk.is_empty())
        // A `Values` map key stands in for a missing pk, but an empty key is no pk either (R-NORM-3).
        .or(fallback.filter(|k| !k.is_empty()));
    let Some(pk) = pk else {
        return Err(fail(ctx));
    };
    ctx.pending.entity(E::KEY, pk.clone(), record);
    Ok(Value::String(pk))
}
