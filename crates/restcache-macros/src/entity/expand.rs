//! [`EntityModel`] → `impl Entity` + `impl_entity_schema!` + the nested-field assertions.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::parse::{EntityModel, Pk};
use crate::fields;

pub(super) fn expand(model: &EntityModel) -> TokenStream {
    let EntityModel { ident, key, pk, fields } = model;
    let collection_key = format!("[{key}]");
    let input = Ident::new("input", Span::mixed_site());
    let w = Ident::new("w", Span::mixed_site());
    let r = Ident::new("r", Span::mixed_site());
    let out = Ident::new("out", Span::mixed_site());
    let registry = Ident::new("registry", Span::mixed_site());

    let pk = match pk {
        Pk::Field(name) => quote! { ::restcache::__private::pk_field(#input, #name) },
        Pk::Fn(path) => quote_spanned! {path.span()=> #path(#input) },
    };

    let writes = fields::write_fields(fields, &w);
    let write_record = (!writes.is_empty()).then(|| {
        quote! {
            fn write_record(
                #w: &mut ::restcache::__private::RecordWriter<'_, '_>,
            ) -> ::core::result::Result<(), ::restcache::Error> {
                #writes
                ::core::result::Result::Ok(())
            }
        }
    });

    let pk_field = match model.pk {
        Pk::Field(ref name) => Some(name.as_str()),
        Pk::Fn(_) => None,
    };
    let seeds = fields::seed_impl(quote!(), quote!(#ident), fields, pk_field);

    let reads = fields::read_fields(fields, &r, &out);
    let (reader, out_binding) = if reads.is_empty() {
        (quote!(_), quote!(#out))
    } else {
        (quote!(#r), quote!(mut #out))
    };

    let nested: Vec<_> = fields::nested_types(fields).collect();
    // Normalizing while parsing builds the record with its nested fields already normalized; a
    // pk function must see them as the input has them, so such an entity parses into a `Value`.
    let seeded = if matches!(model.pk, Pk::Fn(_)) && !nested.is_empty() {
        quote!()
    } else {
        quote!(, seeded)
    };
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
            const _: () = {
                fn __assert_entity_field<T: ::restcache::__private::EntityField>() {}
                #(#checks)*
            };
        }
    });

    quote! {
        #[automatically_derived]
        // A nested field's type is often its schema's output: the `From` conversion is then
        // the identity, and the call carries the field's span.
        #[allow(clippy::useless_conversion)]
        impl ::restcache::__private::Entity for #ident {
            const KEY: &'static str = #key;
            const COLLECTION_KEY: &'static str = #collection_key;
            const NAMES: &'static [&'static str] = <Self as ::restcache::__private::SeedFields>::NAMES;

            fn pk(#input: &::restcache::__private::Value) -> ::core::option::Option<::std::string::String> {
                #pk
            }

            #write_record

            fn read_record(
                #reader: &mut ::restcache::__private::RecordReader<'_, '_>,
            ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                let #out_binding = <Self as ::core::default::Default>::default();
                #reads
                ::core::result::Result::Ok(#out)
            }

            #register_nested
        }

        #seeds

        ::restcache::impl_entity_schema!(#ident #seeded);

        #assertions
    }
}
