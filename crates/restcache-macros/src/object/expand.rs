//! [`ObjectModel`] → `impl Schema` + `impl EntityField`, and `impl ListSchema` when the struct
//! holds a collection.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Generics, Ident, Type, parse_quote, parse_quote_spanned};

use super::parse::ObjectModel;
use crate::fields::{self, Field, FieldKind, RowNames};

pub(super) fn expand(model: &ObjectModel) -> TokenStream {
    let ObjectModel {
        ident,
        generics,
        fields,
        list,
        serde,
    } = model;
    let stored = Ident::new("stored", Span::mixed_site());
    let ctx = Ident::new("ctx", Span::mixed_site());
    let de = Ident::new("de", Span::mixed_site());
    let r = Ident::new("r", Span::mixed_site());
    let registry = Ident::new("registry", Span::mixed_site());
    let names = RowNames {
        row: Ident::new("__Row", Span::mixed_site()),
    };
    let row_ty = &names.row;

    let reads = fields::read_row(fields, &stored, &r);

    let nested: Vec<_> = fields::nested_types(fields).collect();
    // The collection `push` and `unshift` add to comes first; then the first collection of the
    // nested fields, in declaration order (R-RES-3).
    let mut searched: Vec<&Type> = list.iter().collect();
    searched.extend(nested.iter().copied().filter(|ty| Some(*ty) != list.as_ref()));
    let collection = searched.split_first().map(|(first, rest)| {
        let first = quote_spanned! {first.span()=> <#first as ::restcache::__private::Schema>::collection() };
        let rest = rest.iter().map(|ty| {
            quote_spanned! {ty.span()=> .or_else(<#ty as ::restcache::__private::Schema>::collection) }
        });
        quote! {
            fn collection() -> ::core::option::Option<::restcache::schema::CollectionInfo> {
                #first #(#rest)*
            }
        }
    });
    let register = (!nested.is_empty()).then(|| {
        let registers = nested.iter().map(|ty| {
            quote_spanned! {ty.span()=> <#ty as ::restcache::__private::Schema>::register(#registry); }
        });
        quote! {
            fn register(#registry: &mut ::restcache::__private::Registry) {
                #(#registers)*
            }
        }
    });

    let bounded = schema_generics(generics, fields, None);
    let (impl_generics, ty_generics, where_clause) = bounded.split_for_impl();
    let row_generics = row_generics(generics, fields);
    let row_type = fields::row_type(
        &names,
        fields,
        serde,
        &row_generics,
        quote!(),
        &format!("an object for {ident}"),
        false,
    );
    let row_traits = fields::object_row_traits(row_ty, fields, &row_generics);
    let row_from_json = fields::row_from_json(row_ty, fields, &row_generics);
    let (_, row_generics, _) = row_generics.split_for_impl();

    let list_schema = list.as_ref().map(|ty| {
        let list_generics = schema_generics(generics, fields, Some(ty));
        let (impl_generics, ty_generics, where_clause) = list_generics.split_for_impl();
        let item = quote_spanned! {ty.span()=> <#ty as ::restcache::schema::ListSchema>::Item };
        quote! {
            #[automatically_derived]
            impl #impl_generics ::restcache::schema::ListSchema for #ident #ty_generics #where_clause {
                type Item = #item;
            }
        }
    });

    quote! {
        const _: () = {
            #row_type

            #row_traits

            #row_from_json

            #[automatically_derived]
            // A nested field's type is often its schema's output: the `From` conversion is then
            // the identity, and the call carries the field's span.
            #[allow(clippy::useless_conversion)]
            impl #impl_generics ::restcache::__private::Schema for #ident #ty_generics #where_clause {
                type Output = Self;
                type Stored = #row_ty #row_generics;

                fn normalize<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
                    #de: __D,
                ) -> ::core::result::Result<Self::Stored, __D::Error> {
                    ::restcache::__private::normalize_object::<#row_ty #row_generics, __D>(#de)
                }

                fn from_json(
                    json: &::restcache::__private::Value,
                ) -> ::core::option::Option<Self::Stored> {
                    <#row_ty #row_generics>::__from_json(json)
                }

                #[allow(unused_variables)]
                fn denormalize<'s>(
                    #stored: &'s Self::Stored,
                    #ctx: &mut ::restcache::__private::DenormalizeCtx<'s>,
                ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                    ::restcache::__private::read_object(#ctx, |#r| {
                        #reads
                    })
                }

                fn refs(#stored: &Self::Stored, sink: &mut ::restcache::__private::RefSink<'_>) {
                    ::restcache::__private::RowData::refs(#stored, sink)
                }

                #collection

                #register
            }

            #[automatically_derived]
            impl #impl_generics ::restcache::__private::EntityField for #ident #ty_generics #where_clause {}

            #list_schema
        };
    }
}

/// The generics of the `Schema` impl (and, with `list`, of the `ListSchema` impl): the
/// struct's own, plus, when it has type parameters, the bounds the generated code relies on.
/// Field types that name no parameter get no bound: they are checked where they are used, like
/// the fields of a non-generic struct. One predicate per field type.
fn schema_generics(generics: &Generics, fields: &[Field], list: Option<&Type>) -> Generics {
    let mut bounded = generics.clone();
    if generics.params.is_empty() {
        return bounded;
    }
    // Field types in declaration order, each with its bounds.
    let mut bounds: Vec<(&Type, Vec<TokenStream>)> = Vec::new();
    for field in fields.iter().filter(|f| mentions_params(&f.ty, generics)) {
        let ty = &field.ty;
        match &field.kind {
            FieldKind::Nested => {
                add(&mut bounds, ty, &quote!(::restcache::__private::Schema));
                add(
                    &mut bounds,
                    ty,
                    &quote!(::core::convert::From<<#ty as ::restcache::__private::Schema>::Output>),
                );
            }
            FieldKind::Plain { deserialize_with } => {
                if deserialize_with.is_none() {
                    add(
                        &mut bounds,
                        ty,
                        &quote!(::restcache::__private::serde::de::DeserializeOwned),
                    );
                }
                add(&mut bounds, ty, &quote!(::restcache::__private::serde::Serialize));
                add(&mut bounds, ty, &quote!(::core::clone::Clone));
                add(&mut bounds, ty, &quote!(::core::cmp::PartialEq));
                add(&mut bounds, ty, &quote!(::core::marker::Send));
                add(&mut bounds, ty, &quote!(::core::marker::Sync));
            }
            FieldKind::Skipped => {}
        }
    }
    if let Some(ty) = list.filter(|ty| mentions_params(ty, generics)) {
        add(&mut bounds, ty, &quote!(::restcache::schema::ListSchema));
    }
    let clause = bounded.make_where_clause();
    for (ty, list) in bounds {
        clause
            .predicates
            .push(parse_quote_spanned! {ty.span()=> #ty: #(#list)+* });
    }
    clause.predicates.push(parse_quote! {
        Self: ::core::default::Default
            + ::core::clone::Clone
            + ::core::marker::Send
            + ::core::marker::Sync
            + 'static
    });
    for param in generics.type_params() {
        let param = &param.ident;
        clause.predicates.push(parse_quote! { #param: 'static });
    }
    bounded
}

/// The generics of the row type: the struct's, and for each field that names a type parameter,
/// `Serialize + Clone + PartialEq + Send + Sync` (a plain field: the row, a stored value, is
/// written back as JSON, cloned, compared and shared), with `DeserializeOwned` unless the field
/// has its own deserializer, or `Schema` (a nested field: the row normalizes it).
fn row_generics(generics: &Generics, fields: &[Field]) -> Generics {
    let mut bounded = generics.clone();
    if generics.params.is_empty() {
        return bounded;
    }
    let clause = bounded.make_where_clause();
    for field in fields.iter().filter(|f| mentions_params(&f.ty, generics)) {
        let ty = &field.ty;
        match &field.kind {
            FieldKind::Plain { deserialize_with } => {
                clause.predicates.push(parse_quote_spanned! {ty.span()=>
                    #ty: ::restcache::__private::serde::Serialize
                        + ::core::clone::Clone
                        + ::core::cmp::PartialEq
                        + ::core::marker::Send
                        + ::core::marker::Sync
                });
                // Read through `present`, from which serde infers no bound.
                if deserialize_with.is_none() {
                    clause.predicates.push(parse_quote_spanned! {ty.span()=>
                        #ty: ::restcache::__private::serde::de::DeserializeOwned
                    });
                }
            }
            FieldKind::Nested => clause
                .predicates
                .push(parse_quote_spanned! {ty.span()=> #ty: ::restcache::__private::Schema }),
            FieldKind::Skipped => {}
        }
    }
    bounded
}

/// Adds `bound` to the bounds of `ty`, spanned at the type.
fn add<'a>(bounds: &mut Vec<(&'a Type, Vec<TokenStream>)>, ty: &'a Type, bound: &TokenStream) {
    let bound = quote_spanned! {ty.span()=> #bound };
    match bounds.iter_mut().find(|(t, _)| *t == ty) {
        Some((_, list)) => list.push(bound),
        None => bounds.push((ty, vec![bound])),
    }
}

/// Whether a type names one of the type parameters (syntactically).
fn mentions_params(ty: &Type, generics: &Generics) -> bool {
    fn walk(tokens: TokenStream, params: &[&Ident]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => params.iter().any(|p| **p == i),
            TokenTree::Group(g) => walk(g.stream(), params),
            _ => false,
        })
    }
    let params: Vec<&Ident> = generics.type_params().map(|p| &p.ident).collect();
    walk(ty.to_token_stream(), &params)
}
