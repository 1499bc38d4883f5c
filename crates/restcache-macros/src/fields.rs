//! The field list shared by entities and object schemas: which fields are plain, which are
//! nested schemas, under which JSON name each is read; and the `RecordWriter` / `RecordReader`
//! calls generated from it.

use darling::FromAttributes;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use crate::serde_attrs::{SerdeContainer, SerdeField};

/// One field of the struct, as the generated code reads and writes it.
pub(crate) struct Field {
    /// The Rust field.
    pub member: Ident,
    pub ty: Type,
    /// The JSON key the field is read from (serde's deserialize name).
    pub name: String,
    pub kind: FieldKind,
}

pub(crate) enum FieldKind {
    /// A plain value, checked and read with the type's `Deserialize` or with `deserialize_with`.
    Plain { deserialize_with: Option<Path> },
    /// A nested schema: the field's type implements `Schema`.
    Nested,
    /// `#[serde(skip)]` / `#[serde(skip_deserializing)]`: always `Default`.
    Skipped,
}

/// What the derive is called on, for messages: `"entity"` or `"object schema"`.
#[derive(Clone, Copy)]
pub(crate) struct Derive {
    /// `Entity` or `Schema`.
    pub name: &'static str,
    /// What the type becomes: `entity`, `object schema`.
    pub noun: &'static str,
    /// The plural of `noun`.
    pub nouns: &'static str,
    /// A short declaration of the right shape, for messages.
    pub example: &'static str,
}

/// An error at `span`.
pub(crate) fn error_at(span: Span, message: impl std::fmt::Display) -> darling::Error {
    syn::Error::new(span, message).into()
}

/// Rejects generic types, with the error on the generics.
pub(crate) fn reject_generics(input: &DeriveInput, derive: Derive, errors: &mut darling::error::Accumulator) {
    if !input.generics.params.is_empty() {
        errors.push(
            darling::Error::custom(format!(
                "generic {} are not supported by `#[derive({})]`",
                derive.nouns, derive.name
            ))
            .with_span(&input.generics),
        );
    }
}

/// The named fields of a struct, or an error on what the input is instead.
pub(crate) fn named_fields(input: &DeriveInput, derive: Derive) -> darling::Result<&syn::FieldsNamed> {
    let (span, found) = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => return Ok(fields),
            Fields::Unnamed(fields) => (fields.span(), "a tuple struct"),
            Fields::Unit => (input.ident.span(), "a unit struct"),
        },
        Data::Enum(data) => (data.enum_token.span(), "an enum"),
        Data::Union(data) => (data.union_token.span(), "a union"),
    };
    Err(error_at(
        span,
        format!(
            "`#[derive({})]` needs a struct with named fields, like `{}`; found {found}",
            derive.name, derive.example
        ),
    ))
}

/// Reads the struct-level serde attributes.
pub(crate) fn serde_container(input: &DeriveInput, errors: &mut darling::error::Accumulator) -> SerdeContainer {
    errors
        .handle(SerdeContainer::from_attributes(&input.attrs))
        .unwrap_or_default()
}

/// Builds the model of one field from its serde attributes and the derive's own marker
/// (`nested`: the field carries `#[entity(schema)]` / `#[schema(nested)]`).
pub(crate) fn field(
    field: &syn::Field,
    container: &SerdeContainer,
    nested: bool,
    derive: Derive,
    errors: &mut darling::error::Accumulator,
) -> Option<Field> {
    let member = field.ident.clone()?;
    let serde = errors
        .handle(SerdeField::from_attributes(&field.attrs))
        .unwrap_or_default();
    if serde.flatten.is_present() {
        errors.push(error_at(
            serde.flatten.span(),
            format!("`#[serde(flatten)]` is not supported on {} fields", derive.noun),
        ));
    }
    let renamed = serde.rename.as_ref().and_then(|r| r.0.clone());
    let name = renamed.unwrap_or_else(|| {
        let rust = member.unraw().to_string();
        match container.rename_all.as_ref().and_then(|r| r.0) {
            Some(rule) => rule.apply_to_field(&rust),
            None => rust,
        }
    });
    let deserialize_with = serde.deserializer();
    let kind = if serde.skipped() {
        FieldKind::Skipped
    } else if nested {
        if let Some(path) = &deserialize_with {
            errors.push(
                darling::Error::custom(
                    "`#[serde(deserialize_with)]` and `#[serde(with)]` cannot apply to a nested-schema field: \
                     its schema reads it",
                )
                .with_span(path),
            );
        }
        FieldKind::Nested
    } else {
        FieldKind::Plain { deserialize_with }
    };
    Some(Field {
        member,
        ty: field.ty.clone(),
        name,
        kind,
    })
}

/// Refuses a field whose JSON name an earlier field already has (a `rename` onto another
/// field's name): the record holds one value per name, so the two could not both be read.
pub(crate) fn refuse_repeated_names(fields: &[Field], errors: &mut darling::error::Accumulator) {
    for (i, field) in fields.iter().enumerate() {
        if matches!(field.kind, FieldKind::Skipped) {
            continue;
        }
        let earlier = fields[..i]
            .iter()
            .find(|f| !matches!(f.kind, FieldKind::Skipped) && f.name == field.name);
        if let Some(earlier) = earlier {
            errors.push(error_at(
                field.member.span(),
                format!(
                    "`{}` is read from the JSON field `{}`, as `{}` already is",
                    field.member, field.name, earlier.member
                ),
            ));
        }
    }
}

/// The `RecordWriter` calls of a field list, each ending in `?`: the plain fields' checks in
/// JSON-name order (a stored record's, so each finds its field where the previous one stopped),
/// then the nested fields in declaration order, the order their writes join the batch in.
pub(crate) fn write_fields(fields: &[Field], w: &Ident) -> TokenStream {
    let v = Ident::new("v", Span::mixed_site());
    let names = declared_names(fields);
    // Each call passes the field's bit among the declared names (`SeedFields::NAMES`): the
    // `i`-th name's is `1 << i`, and none has one past the 64th.
    let bit = |f: &Field| {
        let index = names.iter().position(|n| *n == f.name);
        index.and_then(|i| 1u64.checked_shl(i as u32)).unwrap_or(0)
    };
    let mut plain: Vec<&Field> = fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Plain { .. }))
        .collect();
    plain.sort_by(|a, b| a.name.cmp(&b.name));
    let nested = fields.iter().filter(|f| matches!(f.kind, FieldKind::Nested));
    plain
        .into_iter()
        .chain(nested)
        .map(|f| {
            let Field { ty, name, .. } = f;
            let span = ty.span();
            let bit = bit(f);
            match &f.kind {
                FieldKind::Plain { deserialize_with: None } => quote_spanned! {span=>
                    #w.plain_at::<#ty>(#name, #bit)?;
                },
                FieldKind::Plain {
                    deserialize_with: Some(path),
                } => quote_spanned! {span=>
                    #w.plain_with_at(#name, #bit, |#v| #path(#v).map(|_: #ty| ()))?;
                },
                FieldKind::Nested => quote_spanned! {span=>
                    #w.nested_at::<#ty>(#name, #bit)?;
                },
                FieldKind::Skipped => quote!(),
            }
        })
        .collect()
}

/// The JSON names of the fields that are not skipped, sorted: `SeedFields::NAMES`, the order
/// of a stored record, by which the readers and writers index the fields.
fn declared_names(fields: &[Field]) -> Vec<&str> {
    let mut names: Vec<&str> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .map(|f| f.name.as_str())
        .collect();
    names.sort_unstable();
    names
}

/// `impl SeedFields for #ty` (`head` is `#ident #ty_generics #where_clause`, after
/// `impl #impl_generics`): a `match` on the key, one arm per field (repeated names are refused
/// by the parsers, [`refuse_repeated_names`]), the rest kept as they are. `pk_field` is the JSON
/// field an entity's pk is read from, when it is one field.
pub(crate) fn seed_impl(
    impl_generics: TokenStream,
    head: TokenStream,
    fields: &[Field],
    pk_field: Option<&str>,
) -> TokenStream {
    let w = Ident::new("w", Span::mixed_site());
    let key = Ident::new("key", Span::mixed_site());
    let map = Ident::new("map", Span::mixed_site());
    let body = seed_match(fields, &w, &key, &map);
    let pk_field = pk_field.map(|name| {
        quote! {
            const PK_FIELD: ::core::option::Option<&'static str> = ::core::option::Option::Some(#name);
        }
    });
    let names = declared_names(fields);
    let count = names.len();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::restcache::__private::SeedFields for #head {
            #pk_field

            // A static, so that the list has one address however many crates and codegen units
            // use it: stored records are matched to it by address.
            const NAMES: &'static [&'static str] = {
                static NAMES: [&str; #count] = [#(#names),*];
                &NAMES
            };

            fn seed_field<'de, A: ::restcache::__private::serde::de::MapAccess<'de>>(
                #w: &mut ::restcache::__private::SeedWriter<'_, '_>,
                #key: &str,
                #map: &mut A,
            ) -> ::core::result::Result<::restcache::__private::Value, A::Error> {
                #body
            }
        }
    }
}

fn seed_match(fields: &[Field], w: &Ident, key: &Ident, map: &Ident) -> TokenStream {
    let v = Ident::new("v", Span::mixed_site());
    let of = fields.iter().filter(|f| matches!(f.kind, FieldKind::Nested)).count() as u32;
    let mut order = 0u32;
    let arms = fields.iter().filter_map(|f| {
        let Field { ty, name, .. } = f;
        let span = ty.span();
        Some(match &f.kind {
            FieldKind::Plain { deserialize_with: None } => quote_spanned! {span=>
                #name => #w.plain::<#ty, _>(#map, #name),
            },
            FieldKind::Plain {
                deserialize_with: Some(path),
            } => quote_spanned! {span=>
                #name => #w.plain_with(#map, #name, |#v| #path(#v).map(|_: #ty| ())),
            },
            FieldKind::Nested => {
                order += 1;
                quote_spanned! {span=>
                    #name => #w.nested::<#ty, _>(#map, #name, #order, #of),
                }
            }
            FieldKind::Skipped => return None,
        })
    });
    quote! {
        match #key {
            #(#arms)*
            _ => #w.other(#map),
        }
    }
}

/// The `RecordReader` calls of a field list, each assigning the field of `out` when the record
/// holds it. They come in JSON-name order, the order of a stored record, so that each finds its
/// field where the previous one stopped (which field is read first changes nothing else: every
/// failure is the same `Unresolved`). Each call also passes the field's index among the
/// declared names in that order (`SeedFields::NAMES`), by which a record holding some of those
/// names and no other is read.
pub(crate) fn read_fields(fields: &[Field], r: &Ident, out: &Ident) -> TokenStream {
    let v = Ident::new("v", Span::mixed_site());
    let names = declared_names(fields);
    let mut in_name_order: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .collect();
    in_name_order.sort_by(|a, b| a.name.cmp(&b.name));
    in_name_order
        .into_iter()
        .map(|f| {
            let Field { member, ty, name, .. } = f;
            let index = names.iter().position(|n| n == name).unwrap_or(usize::MAX);
            let span = ty.span();
            match &f.kind {
                FieldKind::Plain { deserialize_with: None } => quote_spanned! {span=>
                    if let ::core::option::Option::Some(#v) = #r.plain_at::<#ty>(#name, #index)? {
                        #out.#member = #v;
                    }
                },
                FieldKind::Plain {
                    deserialize_with: Some(path),
                } => quote_spanned! {span=>
                    if let ::core::option::Option::Some(#v) = #r.plain_with_at::<#ty>(#name, #index, #path)? {
                        #out.#member = #v;
                    }
                },
                FieldKind::Nested => quote_spanned! {span=>
                    if let ::core::option::Option::Some(#v) = #r.nested_at::<#ty>(#name, #index)? {
                        #out.#member = <#ty as ::core::convert::From<_>>::from(#v);
                    }
                },
                FieldKind::Skipped => quote!(),
            }
        })
        .collect()
}

/// The types of the nested-schema fields, in declaration order.
pub(crate) fn nested_types(fields: &[Field]) -> impl Iterator<Item = &Type> {
    fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Nested))
        .map(|f| &f.ty)
}
