//! [`ObjectModel`] → `impl Schema` + `impl EntityField`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::parse::ObjectModel;
use crate::fields;

pub(super) fn expand(model: &ObjectModel) -> TokenStream {
    let ObjectModel { ident, fields } = model;
    let input = Ident::new("input", Span::mixed_site());
    let stored = Ident::new("stored", Span::mixed_site());
    let ctx = Ident::new("ctx", Span::mixed_site());
    let w = Ident::new("w", Span::mixed_site());
    let r = Ident::new("r", Span::mixed_site());
    let out = Ident::new("out", Span::mixed_site());
    let registry = Ident::new("registry", Span::mixed_site());

    let writes = fields::write_fields(fields, &w);
    let writer = if writes.is_empty() { quote!(_) } else { quote!(#w) };
    let reads = fields::read_fields(fields, &r, &out);
    let (reader, out_binding) = if reads.is_empty() {
        (quote!(_), quote!(#out))
    } else {
        (quote!(#r), quote!(mut #out))
    };

    let nested: Vec<_> = fields::nested_types(fields).collect();
    // The first collection of the nested fields, in declaration order (R-RES-3).
    let collection = nested.split_first().map(|(first, rest)| {
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

    quote! {
        #[automatically_derived]
        // A nested field's type is often its schema's output: the `From` conversion is then
        // the identity, and the call carries the field's span.
        #[allow(clippy::useless_conversion)]
        impl ::restcache::__private::Schema for #ident {
            type Output = Self;

            fn normalize<'a>(
                #input: &'a ::restcache::__private::Value,
                #ctx: &mut ::restcache::__private::NormalizeCtx<'a>,
            ) -> ::core::result::Result<::restcache::__private::Value, ::restcache::Error> {
                ::restcache::__private::normalize_object(#input, #ctx, |#writer| {
                    #writes
                    ::core::result::Result::Ok(())
                })
            }

            fn denormalize<'s>(
                #stored: &'s ::restcache::__private::Value,
                #ctx: &mut ::restcache::__private::DenormalizeCtx<'s>,
            ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                ::restcache::__private::read_object(#stored, #ctx, |#reader| {
                    let #out_binding = <Self as ::core::default::Default>::default();
                    #reads
                    ::core::result::Result::Ok(#out)
                })
            }

            #collection

            #register
        }

        #[automatically_derived]
        impl ::restcache::__private::EntityField for #ident {}
    }
}
