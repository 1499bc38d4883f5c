//! `#[schema(...)]` and serde attributes of an object-schema struct → [`ObjectModel`].

use darling::FromAttributes;
use darling::util::Flag;
use syn::{DeriveInput, GenericParam, Generics, Ident, Type};

use crate::fields::{self, Derive, Field, FieldKind, error_at};

const DERIVE: Derive = Derive {
    name: "Schema",
    noun: "object schema",
    nouns: "object schemas",
    example: "struct TodoPage { #[schema(nested)] results: Collection<Vec<Todo>>, total: u64 }",
};

/// `#[schema(...)]` on the struct: no options yet, but a misplaced field option is reported.
#[derive(FromAttributes)]
#[darling(attributes(schema))]
struct ContainerAttrs {}

/// `#[schema(...)]` on a field.
#[derive(Default, FromAttributes)]
#[darling(attributes(schema))]
struct FieldAttrs {
    /// The field is a nested schema.
    nested: Flag,
    /// The field is the nested schema `push`, `unshift` and `get_page` work on (implies `nested`).
    collection: Flag,
}

/// An object-schema struct, checked.
pub(super) struct ObjectModel {
    pub ident: Ident,
    /// The struct's generics: type parameters only.
    pub generics: Generics,
    pub fields: Vec<Field>,
    /// The type of the field whose collection makes the struct a `ListSchema`, if any.
    pub list: Option<Type>,
    /// The struct's serde options its row type gets.
    pub serde: Vec<syn::Meta>,
}

pub(super) fn parse(input: &DeriveInput) -> darling::Result<ObjectModel> {
    let mut errors = darling::Error::accumulator();
    errors.handle(ContainerAttrs::from_attributes(&input.attrs));
    reject_non_type_params(&input.generics, &mut errors);
    let serde = fields::serde_container(input, &mut errors);
    let forwarded = errors
        .handle(crate::serde_attrs::forwarded_container(&input.attrs, "object schema").map_err(darling::Error::from))
        .unwrap_or_default();
    let named = errors.handle(fields::named_fields(input, DERIVE));
    let mut model_fields = Vec::new();
    // The `#[schema(collection)]` field: its name and type.
    let mut marked: Option<(Ident, Type)> = None;
    for field in named.iter().flat_map(|n| n.named.iter()) {
        let marks = errors
            .handle(FieldAttrs::from_attributes(&field.attrs))
            .unwrap_or_default();
        let collection = marks.collection.is_present();
        let Some(model) = fields::field(
            input,
            field,
            &serde,
            marks.nested.is_present() || collection,
            DERIVE,
            &mut errors,
        ) else {
            continue;
        };
        if collection {
            let span = marks.collection.span();
            if matches!(model.kind, FieldKind::Skipped) {
                errors.push(error_at(
                    span,
                    "the collection field cannot be `#[serde(skip)]`: it would never be read",
                ));
            }
            match &marked {
                Some((first, _)) => errors.push(error_at(
                    span,
                    format!("only one field can be `#[schema(collection)]`, and `{first}` already is"),
                )),
                None => marked = Some((model.member.clone(), model.ty.clone())),
            }
        }
        model_fields.push(model);
    }
    fields::refuse_repeated_names(&model_fields, &mut errors);
    // The marked field; otherwise the first nested field that is syntactically a `Collection`.
    let list = marked.map(|(_, ty)| ty).or_else(|| {
        model_fields
            .iter()
            .find(|f| matches!(f.kind, FieldKind::Nested) && is_collection(&f.ty))
            .map(|f| f.ty.clone())
    });
    errors.finish_with(ObjectModel {
        ident: input.ident.clone(),
        generics: input.generics.clone(),
        fields: model_fields,
        list,
        serde: forwarded,
    })
}

/// Lifetimes and const parameters are compile errors: an object schema is `'static` and its
/// fields are read from JSON.
fn reject_non_type_params(generics: &Generics, errors: &mut darling::error::Accumulator) {
    for param in &generics.params {
        let what = match param {
            GenericParam::Type(_) => continue,
            GenericParam::Lifetime(_) => "lifetime parameters",
            GenericParam::Const(_) => "const parameters",
        };
        errors.push(
            darling::Error::custom(format!(
                "{what} are not supported by `#[derive({})]`: only type parameters are",
                DERIVE.name
            ))
            .with_span(param),
        );
    }
}

/// Whether a type is written `Collection<..>` (any path whose last segment is `Collection`).
fn is_collection(ty: &Type) -> bool {
    match ty {
        Type::Paren(t) => is_collection(&t.elem),
        Type::Group(t) => is_collection(&t.elem),
        Type::Path(p) => p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Collection"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn collections_are_recognized_by_their_last_path_segment() {
        let yes: [Type; 3] = [
            parse_quote!(Collection<Vec<Todo>>),
            parse_quote!(restcache::schema::Collection<Vec<Todo>, Policy>),
            parse_quote!((Collection<Vec<E>>)),
        ];
        for ty in yes {
            assert!(is_collection(&ty));
        }
        let no: [Type; 3] = [
            parse_quote!(Vec<Todo>),
            parse_quote!(Option<Collection<Vec<Todo>>>),
            parse_quote!(<T as Trait>::Collection),
        ];
        for ty in no {
            assert!(!is_collection(&ty));
        }
    }
}
