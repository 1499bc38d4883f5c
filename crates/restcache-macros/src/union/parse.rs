//! `#[union(...)]` attributes of an enum → [`UnionModel`].

use std::collections::HashMap;

use darling::FromAttributes;
use darling::util::{Flag, SpannedValue};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use crate::fields::error_at;
use crate::serde_attrs::snake_case_variant;

/// `#[union(...)]` on the enum.
#[derive(FromAttributes)]
#[darling(attributes(union))]
struct ContainerAttrs {
    /// The input field whose string form is the tag.
    attribute: Option<SpannedValue<String>>,
    /// A `fn(&Value, Option<&Value>, Option<&str>) -> Option<String>` returning the tag.
    attribute_fn: Option<Path>,
}

/// `#[union(...)]` on a variant.
#[derive(Default, FromAttributes)]
#[darling(attributes(union))]
struct VariantAttrs {
    /// The variant's tag; the variant's name in snake_case by default.
    tag: Option<SpannedValue<String>>,
    /// The variant keeps inputs that match no other variant.
    other: Flag,
}

/// A union enum, checked.
pub(super) struct UnionModel {
    pub ident: Ident,
    pub select: Select,
    /// The entity variants, in declaration order.
    pub variants: Vec<EntityVariant>,
    /// The `#[union(other)]` variant.
    pub other: Option<Ident>,
}

/// How an input selects its variant (R-UNION-2).
pub(super) enum Select {
    /// The string form of this field of the input.
    Attribute(String),
    /// The tag this function returns.
    Fn(Path),
}

pub(super) struct EntityVariant {
    pub ident: Ident,
    pub ty: Type,
    pub tag: String,
}

pub(super) fn parse(input: &DeriveInput) -> darling::Result<UnionModel> {
    let mut errors = darling::Error::accumulator();
    let attrs = errors.handle(ContainerAttrs::from_attributes(&input.attrs));
    if !input.generics.params.is_empty() {
        errors.push(
            darling::Error::custom("generic unions are not supported by `#[derive(Union)]`").with_span(&input.generics),
        );
    }

    let select = attrs.and_then(|attrs| match (attrs.attribute, attrs.attribute_fn) {
        (Some(attribute), None) if attribute.is_empty() => {
            errors.push(error_at(
                attribute.span(),
                "the discriminator field's name must not be empty",
            ));
            None
        }
        (Some(attribute), None) => Some(Select::Attribute(attribute.into_inner())),
        (None, Some(path)) => Some(Select::Fn(path)),
        (Some(_), Some(path)) => {
            errors.push(
                darling::Error::custom("`attribute` and `attribute_fn` both choose the variant; keep one of them")
                    .with_span(&path),
            );
            None
        }
        (None, None) => {
            errors.push(error_at(
                input.ident.span(),
                format!(
                    "union `{}` needs to know how to choose a variant: add `#[union(attribute = \"type\")]` \
                     (the name of the input field holding the tag) or `#[union(attribute_fn = path::to::fn)]`",
                    input.ident
                ),
            ));
            None
        }
    });

    let data = match &input.data {
        Data::Enum(data) => Some(data),
        Data::Struct(data) => {
            errors.push(not_an_enum(data.struct_token.span(), "a struct"));
            None
        }
        Data::Union(data) => {
            errors.push(not_an_enum(data.union_token.span(), "a Rust `union`"));
            None
        }
    };

    let mut variants = Vec::new();
    let mut other: Option<Ident> = None;
    let mut tags: HashMap<String, Ident> = HashMap::new();
    for variant in data.iter().flat_map(|d| d.variants.iter()) {
        let marks = errors
            .handle(VariantAttrs::from_attributes(&variant.attrs))
            .unwrap_or_default();
        let ty = match &variant.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => Some(f.unnamed[0].ty.clone()),
            fields => {
                let found = match fields {
                    Fields::Unit => "has no field".to_owned(),
                    Fields::Named(_) => "has named fields".to_owned(),
                    Fields::Unnamed(f) => format!("has {} fields", f.unnamed.len()),
                };
                errors.push(
                    darling::Error::custom(format!(
                        "a union variant wraps exactly one entity, like `Link(Link)`; `{}` {found}",
                        variant.ident
                    ))
                    .with_span(variant),
                );
                None
            }
        };
        if marks.other.is_present() {
            if let Some(tag) = &marks.tag {
                errors.push(error_at(
                    tag.span(),
                    "the `other` variant has no tag: it holds inputs that match no tag",
                ));
            }
            if let Some(first) = &other {
                errors.push(error_at(
                    marks.other.span(),
                    format!("only one variant can be `#[union(other)]`, and `{first}` already is"),
                ));
            } else {
                other = Some(variant.ident.clone());
            }
            if let Some(ty) = &ty
                && !is_value(ty)
            {
                errors.push(
                    darling::Error::custom(
                        "the `#[union(other)]` variant holds the unmatched input as it is: its type must be \
                         `serde_json::Value`",
                    )
                    .with_span(ty),
                );
            }
            continue;
        }
        let (tag, tag_span) = match &marks.tag {
            Some(tag) => {
                if tag.is_empty() {
                    errors.push(error_at(tag.span(), "a variant's tag must not be empty"));
                }
                (tag.as_str().to_owned(), tag.span())
            }
            None => (
                snake_case_variant(&variant.ident.unraw().to_string()),
                variant.ident.span(),
            ),
        };
        if let Some(first) = tags.get(&tag) {
            errors.push(error_at(
                tag_span,
                format!("the tag \"{tag}\" is already the tag of variant `{first}`; tags must be unique"),
            ));
        } else {
            tags.insert(tag.clone(), variant.ident.clone());
        }
        if let Some(ty) = ty {
            variants.push(EntityVariant {
                ident: variant.ident.clone(),
                ty,
                tag,
            });
        }
    }
    if let Some(data) = data
        && tags.is_empty()
    {
        errors.push(
            darling::Error::custom(format!(
                "union `{}` needs at least one variant wrapping an entity",
                input.ident
            ))
            .with_span(&data.enum_token),
        );
    }

    errors.finish()?;
    let select = select.ok_or_else(|| error_at(input.ident.span(), "internal error: no variant selection"))?;
    Ok(UnionModel {
        ident: input.ident.clone(),
        select,
        variants,
        other,
    })
}

fn not_an_enum(span: proc_macro2::Span, found: &str) -> darling::Error {
    error_at(
        span,
        format!(
            "`#[derive(Union)]` needs an enum whose variants each wrap an entity, like `enum FeedItem {{ Link(Link), Post(Post) }}`; found {found}"
        ),
    )
}

/// Whether a type is (syntactically) `serde_json::Value`.
fn is_value(ty: &Type) -> bool {
    match ty {
        Type::Paren(t) => is_value(&t.elem),
        Type::Group(t) => is_value(&t.elem),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Value" && s.arguments.is_empty())
        }
        _ => false,
    }
}
