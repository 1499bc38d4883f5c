//! `#[schema(...)]` and serde attributes of an object-schema struct → [`ObjectModel`].

use darling::FromAttributes;
use darling::util::Flag;
use syn::{DeriveInput, Ident};

use crate::fields::{self, Derive, Field};

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
}

/// An object-schema struct, checked.
pub(super) struct ObjectModel {
    pub ident: Ident,
    pub fields: Vec<Field>,
}

pub(super) fn parse(input: &DeriveInput) -> darling::Result<ObjectModel> {
    let mut errors = darling::Error::accumulator();
    errors.handle(ContainerAttrs::from_attributes(&input.attrs));
    fields::reject_generics(input, DERIVE, &mut errors);
    let serde = fields::serde_container(input, &mut errors);
    let named = errors.handle(fields::named_fields(input, DERIVE));
    let mut model_fields = Vec::new();
    for field in named.iter().flat_map(|n| n.named.iter()) {
        let marks = errors
            .handle(FieldAttrs::from_attributes(&field.attrs))
            .unwrap_or_default();
        model_fields.extend(fields::field(
            field,
            &serde,
            marks.nested.is_present(),
            DERIVE,
            &mut errors,
        ));
    }
    errors.finish_with(ObjectModel {
        ident: input.ident.clone(),
        fields: model_fields,
    })
}
