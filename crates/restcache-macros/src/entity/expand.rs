//! [`EntityModel`] → its row type, `impl Entity`, `impl_entity_schema!` and the nested-field
//! assertions, all inside one anonymous `const` so the row type is named nowhere else.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::parse::{EntityModel, Pk};
use crate::fields::{self, Field, FieldKind, RowNames};

pub(super) fn expand(model: &EntityModel) -> TokenStream {
    let EntityModel {
        ident,
        key,
        pk,
        fields,
        serde,
    } = model;
    let collection_key = format!("[{key}]");
    let input = Ident::new("input", Span::mixed_site());
    let row = Ident::new("row", Span::mixed_site());
    let r = Ident::new("r", Span::mixed_site());
    let registry = Ident::new("registry", Span::mixed_site());
    let names = RowNames {
        row: Ident::new("__Row", Span::mixed_site()),
    };
    let row_ty = &names.row;

    // A bare pk (a delete's answer) read as the pk field's type, as a row holds it; a field read
    // by a function, or a pk function, keeps the value's text.
    let bare_pk = match pk {
        Pk::Field(member, _) => fields
            .iter()
            .find(|f| f.member == *member && matches!(f.kind, FieldKind::Plain { deserialize_with: None }))
            .map(|Field { ty, .. }| {
                quote! {
                    fn bare_pk(#input: &::restcache::__private::Value) -> ::core::option::Option<::std::string::String> {
                        ::restcache::__private::pk_value_as::<#ty>(#input)
                    }
                }
            }),
        Pk::Fn(_) => None,
    };

    let (pk, row_pk, row_ref) = match pk {
        Pk::Field(member, name) => (
            match fields.iter().find(|f| f.member == *member) {
                Some(field) => pk_of_object(field, name, serde, &input),
                None => quote! { ::restcache::__private::pk_field(#input, #name) },
            },
            quote! {
                match &#row.#member {
                    ::core::option::Option::Some(value) => ::restcache::__private::pk_of(value),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            },
            Some(quote! {
                fn row_ref(#row: &#row_ty) -> ::core::option::Option<::restcache::__private::EntityRef> {
                    match &#row.#member {
                        ::core::option::Option::Some(value) => ::restcache::__private::pk_ref(value),
                        ::core::option::Option::None => ::core::option::Option::None,
                    }
                }
            }),
        ),
        Pk::Fn(path) => (
            quote_spanned! {path.span()=> #path(#input) },
            quote_spanned! {path.span()=> ::restcache::__private::pk_by_fn(#row, #path) },
            None,
        ),
    };

    let expecting = format!("an object for entity {ident}");
    let row_type = fields::row_type(
        &names,
        fields,
        serde,
        &syn::Generics::default(),
        quote!(),
        &expecting,
        true,
    );
    let clone_and_eq = fields::clone_and_eq(&names.row, fields, &syn::Generics::default());
    let row_from_json = fields::row_from_json(&names.row, fields, &syn::Generics::default());
    let row_from_json_text = fields::row_from_json_text(&names.row, fields);
    let merge = fields::merge(fields);
    let reads = fields::read_row(fields, &row, &r);

    let nested: Vec<_> = fields::nested_types(fields).collect();
    let register_nested = (!nested.is_empty()).then(|| {
        let registers = nested.iter().map(|ty| {
            quote_spanned! {ty.span()=> <#ty as ::restcache::__private::Schema>::register(#registry); }
        });
        quote! {
            fn register_nested(#registry: &mut ::restcache::__private::Registry) {
                #(#registers)*
            }
        }
    });
    // `All<_>` (and anything else that is not an `EntityField`) cannot be a nested field of an
    // entity (R-ALL-5); the error points at the field's type.
    let assertions = (!nested.is_empty()).then(|| {
        let checks = nested
            .iter()
            .map(|ty| quote_spanned! {ty.span()=> let _ = __assert_entity_field::<#ty>; });
        quote! {
            fn __assert_entity_field<T: ::restcache::__private::EntityField>() {}
            const _: () = {
                #(#checks)*
            };
        }
    });

    quote! {
        const _: () = {
            #row_type

            #clone_and_eq

            #row_from_json

            #row_from_json_text

            #[automatically_derived]
            impl ::restcache::__private::EntityRow for #row_ty {
                #merge
            }

            #[automatically_derived]
            // A nested field's type is often its schema's output: the `From` conversion is then
            // the identity, and the call carries the field's span.
            #[allow(clippy::useless_conversion)]
            impl ::restcache::__private::Entity for #ident {
                const KEY: &'static str = #key;
                const COLLECTION_KEY: &'static str = #collection_key;
                type Row = #row_ty;

                fn pk(#input: &::restcache::__private::Value) -> ::core::option::Option<::std::string::String> {
                    #pk
                }

                fn row_pk(#row: &#row_ty) -> ::core::option::Option<::std::string::String> {
                    #row_pk
                }

                #row_ref

                #bare_pk

                #[allow(unused_variables)]
                fn read<'s>(
                    #row: &'s #row_ty,
                    #r: &mut ::restcache::__private::EntityReader<'_, 's>,
                ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                    #reads
                }

                #register_nested
            }

            ::restcache::impl_entity_schema!(#ident);

            #assertions
        };
    }
}

/// The body of `Entity::pk` for a pk field: the pk an object (query args, a deleted entity given
/// as an object) names, as a row of that object would have it. The field's value under its JSON
/// name, else under each of its `alias`es, read as the field's type (else taken as the pk rule
/// takes a value: a number given as a string); for a field read by a function
/// (`deserialize_with`, `with`), the field alone read from the object by serde with its own
/// options and the struct's `rename_all`, so the pk is the one the function gives the row.
fn pk_of_object(field: &Field, name: &str, container: &[syn::Meta], input: &Ident) -> TokenStream {
    let Field {
        member, ty, forwarded, ..
    } = field;
    let FieldKind::Plain {
        deserialize_with: Some(path),
    } = &field.kind
    else {
        let aliases = forwarded.iter().filter_map(|m| match m {
            syn::Meta::NameValue(nv) if nv.path.is_ident("alias") => Some(&nv.value),
            _ => None,
        });
        return quote! {
            ::restcache::__private::pk_field_as::<#ty>(#input, #name)
                #(.or_else(|| ::restcache::__private::pk_field_as::<#ty>(#input, #aliases)))*
        };
    };
    let span = ty.span();
    let forwarded = (!forwarded.is_empty()).then(|| quote!(#[serde(#(#forwarded),*)]));
    let rename_all: Vec<&syn::Meta> = container.iter().filter(|m| m.path().is_ident("rename_all")).collect();
    let rename_all = (!rename_all.is_empty()).then(|| quote!(#[serde(#(#rename_all),*)]));
    // Hygienic: a user's `deserialize_with = "de"` or a pk type `D` is theirs, not these.
    let (d, de) = (
        Ident::new("__D", Span::mixed_site()),
        Ident::new("__de", Span::mixed_site()),
    );
    quote_spanned! {span=>
        fn __pk_value<'de, #d: ::restcache::__private::serde::Deserializer<'de>>(
            #de: #d,
        ) -> ::core::result::Result<::core::option::Option<#ty>, #d::Error> {
            #path(#de).map(::core::option::Option::Some)
        }
        #[derive(::restcache::__private::serde::Deserialize)]
        #[serde(crate = "::restcache::__private::serde")]
        #rename_all
        struct __Pk {
            #[serde(default, deserialize_with = "__pk_value")]
            #forwarded
            #member: ::core::option::Option<#ty>,
        }
        let pk: __Pk = ::restcache::__private::serde::Deserialize::deserialize(#input).ok()?;
        pk.#member.as_ref().and_then(::restcache::__private::pk_of).filter(|pk| !pk.is_empty())
    }
}
