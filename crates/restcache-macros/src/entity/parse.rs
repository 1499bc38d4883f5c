//! `#[entity(...)]` and serde attributes of an entity struct → [`EntityModel`].

use darling::FromAttributes;
use darling::util::{Flag, SpannedValue};
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, Path, Type};

use crate::fields::{self, Derive, Field, FieldKind, error_at};

const DERIVE: Derive = Derive {
    name: "Entity",
    noun: "entity",
    nouns: "entities",
    example: "struct Todo { #[entity(pk)] id: String }",
};

/// `#[entity(...)]` on the struct.
#[derive(FromAttributes)]
#[darling(attributes(entity))]
struct ContainerAttrs {
    /// The entity key (table name); the struct's name by default.
    key: Option<SpannedValue<String>>,
    /// A `fn(&Value) -> Option<String>` computing the primary key.
    pk: Option<Path>,
}

/// `#[entity(...)]` on a field.
#[derive(Default, FromAttributes)]
#[darling(attributes(entity))]
struct FieldAttrs {
    /// The field is the primary key.
    pk: Flag,
    /// The field is a nested schema.
    schema: Flag,
}

/// An entity struct, checked.
pub(super) struct EntityModel {
    pub ident: Ident,
    pub key: String,
    pub pk: Pk,
    pub fields: Vec<Field>,
    /// The struct's serde options its row type gets.
    pub serde: Vec<syn::Meta>,
}

/// How the primary key of an input object is found.
pub(super) enum Pk {
    /// The field whose value is the pk: its Rust name and its JSON name.
    Field(Ident, String),
    /// `#[entity(pk = path)]`: a function of the object.
    Fn(Path),
}

pub(super) fn parse(input: &DeriveInput) -> darling::Result<EntityModel> {
    let mut errors = darling::Error::accumulator();
    let attrs = errors.handle(ContainerAttrs::from_attributes(&input.attrs));
    fields::reject_generics(input, DERIVE, &mut errors);
    let serde = fields::serde_container(input, &mut errors);
    let forwarded = errors
        .handle(crate::serde_attrs::forwarded_container(&input.attrs, "entity").map_err(darling::Error::from))
        .unwrap_or_default();

    let key = match attrs.as_ref().and_then(|a| a.key.as_ref()) {
        Some(key) => {
            if key.is_empty() {
                errors.push(error_at(key.span(), "the entity key must not be empty"));
            }
            key.as_str().to_owned()
        }
        None => input.ident.unraw().to_string(),
    };
    let container_pk = attrs.as_ref().and_then(|a| a.pk.clone());

    let named = errors.handle(fields::named_fields(input, DERIVE));
    let mut model_fields = Vec::new();
    // The first `#[entity(pk)]` field: its Rust name and JSON name.
    let mut pk_field: Option<(Ident, String)> = None;
    for field in named.iter().flat_map(|n| n.named.iter()) {
        let marks = errors
            .handle(FieldAttrs::from_attributes(&field.attrs))
            .unwrap_or_default();
        let Some(model) = fields::field(input, field, &serde, marks.schema.is_present(), DERIVE, &mut errors) else {
            continue;
        };
        if marks.pk.is_present() {
            let span = marks.pk.span();
            if marks.schema.is_present() {
                errors.push(error_at(
                    span,
                    "the primary key cannot be a nested-schema field (`#[entity(schema)]`)",
                ));
            } else if let Some(what) = non_scalar(&field.ty) {
                errors.push(
                    darling::Error::custom(format!("the primary key must be a string or a number, not {what}"))
                        .with_span(&field.ty),
                );
            }
            if matches!(model.kind, FieldKind::Skipped) {
                errors.push(error_at(
                    span,
                    "the primary key field cannot be `#[serde(skip)]`: it would never be read",
                ));
            }
            if model.flatten {
                errors.push(error_at(
                    span,
                    "the primary key field cannot be `#[serde(flatten)]`: a pk is one string or number, \
                     not the object's other fields",
                ));
            }
            if container_pk.is_some() {
                errors.push(error_at(
                    span,
                    "the primary key is set twice: by `#[entity(pk)]` on this field and by `#[entity(pk = ...)]` \
                     on the struct; keep one",
                ));
            }
            match &pk_field {
                Some((first, _)) => errors.push(error_at(
                    span,
                    format!("only one field can be `#[entity(pk)]`, and `{first}` already is"),
                )),
                None => pk_field = Some((model.member.clone(), model.name.clone())),
            }
        }
        model_fields.push(model);
    }
    fields::refuse_repeated_names(&model_fields, &mut errors);

    let pk = match (pk_field, container_pk) {
        (Some((member, name)), _) => Some(Pk::Field(member, name)),
        (None, Some(path)) => Some(Pk::Fn(path)),
        (None, None) => {
            // Without the struct's attributes (they did not parse) the pk may well be set there.
            if attrs.is_some() && named.is_some() {
                errors.push(error_at(
                    input.ident.span(),
                    format!(
                        "entity `{}` has no primary key: mark its pk field `#[entity(pk)]`, or set \
                         `#[entity(pk = path::to::fn)]` on the struct",
                        input.ident
                    ),
                ));
            }
            None
        }
    };

    errors.finish()?;
    // Every way of reaching here without a pk pushed an error above.
    let pk = pk.ok_or_else(|| error_at(input.ident.span(), "internal error: no primary key"))?;
    Ok(EntityModel {
        ident: input.ident.clone(),
        key,
        pk,
        fields: model_fields,
        serde: forwarded,
    })
}

/// What a type that cannot hold a primary key is, syntactically; `None` for anything that may be
/// a string or a number (R-NORM-3).
fn non_scalar(ty: &Type) -> Option<String> {
    let what = match ty {
        Type::Paren(t) => return non_scalar(&t.elem),
        Type::Group(t) => return non_scalar(&t.elem),
        Type::Tuple(t) if t.elems.is_empty() => "`()`",
        Type::Tuple(_) => "a tuple",
        Type::Array(_) => "an array",
        Type::Slice(_) => "a slice",
        Type::Reference(_) => "a reference",
        Type::Ptr(_) => "a pointer",
        Type::FnPtr(_) => "a function pointer",
        Type::TraitObject(_) | Type::ImplTrait(_) => "a trait object",
        Type::Never(_) => "`!`",
        Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            return match name.as_str() {
                "bool" => Some("`bool`".to_owned()),
                "Vec" | "VecDeque" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "Option" | "Box" | "Value"
                | "Map" => Some(if last.arguments.is_empty() {
                    format!("`{name}`")
                } else {
                    format!("`{name}<..>`")
                }),
                _ => None,
            };
        }
        _ => return None,
    };
    Some(what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn strings_and_numbers_can_be_pks() {
        for ty in [
            parse_quote!(String),
            parse_quote!(u64),
            parse_quote!(f64),
            parse_quote!(std::string::String),
        ] {
            assert_eq!(non_scalar(&ty), None);
        }
    }

    #[test]
    fn containers_and_bools_cannot_be_pks() {
        let cases: [(Type, &str); 7] = [
            (parse_quote!(bool), "`bool`"),
            (parse_quote!(Option<String>), "`Option<..>`"),
            (parse_quote!(serde_json::Value), "`Value`"),
            (parse_quote!((String, u32)), "a tuple"),
            (parse_quote!([u8; 4]), "an array"),
            (parse_quote!(&'static str), "a reference"),
            (parse_quote!(Vec<u8>), "`Vec<..>`"),
        ];
        for (ty, what) in cases {
            assert_eq!(non_scalar(&ty).as_deref(), Some(what));
        }
    }
}
