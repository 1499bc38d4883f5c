//! [`UnionModel`] → `impl Union`, `impl Schema`, `impl EntitySchema`, `impl EntityField`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::parse::{EntityVariant, Select, UnionModel};

pub(super) fn expand(model: &UnionModel) -> TokenStream {
    let UnionModel {
        ident,
        select,
        variants,
        other,
    } = model;
    let name = ident.unraw().to_string();
    let value = Ident::new("value", Span::mixed_site());
    let parent = Ident::new("parent", Span::mixed_site());
    let key = Ident::new("key", Span::mixed_site());
    let input = Ident::new("input", Span::mixed_site());
    let ctx = Ident::new("ctx", Span::mixed_site());
    let de = Ident::new("de", Span::mixed_site());
    let index = Ident::new("index", Span::mixed_site());
    let pk = Ident::new("pk", Span::mixed_site());
    let registry = Ident::new("registry", Span::mixed_site());
    let stored = Ident::new("stored", Span::mixed_site());
    let out = Ident::new("out", Span::mixed_site());

    let tags = variants.iter().map(|v| &v.tag);
    let keys = variants.iter().map(|EntityVariant { ty, .. }| {
        quote_spanned! {ty.span()=> <#ty as ::restcache::__private::Entity>::KEY }
    });
    let has_other = other.is_some();

    let attribute_const = match select {
        Select::Attribute(attribute) => quote! {
            const ATTRIBUTE: ::core::option::Option<&'static str> = ::core::option::Option::Some(#attribute);
        },
        Select::Fn(_) => quote!(),
    };
    // Only a select function reads the object holding the union; copying it for the attribute
    // form would be wasted.
    let parent_use = match select {
        Select::Attribute(_) => quote!(Never),
        Select::Fn(_) => quote!(Always),
    };
    let select = match select {
        Select::Attribute(attribute) => quote! {
            fn select(
                #value: &::restcache::__private::Value,
                _: ::core::option::Option<&::restcache::__private::Value>,
                _: ::core::option::Option<&str>,
            ) -> ::core::option::Option<usize> {
                ::restcache::__private::union::select_by_attribute(
                    #value,
                    #attribute,
                    <Self as ::restcache::__private::Union>::TAGS,
                )
            }
        },
        Select::Fn(path) => {
            let call = quote_spanned! {path.span()=> #path(#value, #parent, #key) };
            quote! {
                fn select(
                    #value: &::restcache::__private::Value,
                    #parent: ::core::option::Option<&::restcache::__private::Value>,
                    #key: ::core::option::Option<&str>,
                ) -> ::core::option::Option<usize> {
                    ::restcache::__private::union::select_by_tag(#call, <Self as ::restcache::__private::Union>::TAGS)
                }
            }
        }
    };

    let arms = |f: &dyn Fn(&EntityVariant) -> TokenStream| -> Vec<TokenStream> {
        variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let body = f(v);
                quote!(#i => #body,)
            })
            .collect()
    };
    let normalize_arms = arms(&|EntityVariant { ty, .. }| {
        quote_spanned! {ty.span()=> ::restcache::__private::entity::normalize::<#ty, __D>(#de) }
    });
    let read_arms = arms(&|EntityVariant { ident: variant, ty, .. }| {
        quote_spanned! {ty.span()=> ::restcache::__private::read_entity::<#ty>(#pk, #ctx).map(Self::#variant) }
    });
    let pk_arms = arms(&|EntityVariant { ty, .. }| {
        quote_spanned! {ty.span()=> <#ty as ::restcache::__private::Entity>::pk(#input) }
    });
    // `entity::register` is what an entity's `Schema::register` does, and needs only `Entity`:
    // a variant type that is not an entity gets one error less.
    let registers = variants.iter().map(|EntityVariant { ty, .. }| {
        quote_spanned! {ty.span()=> ::restcache::__private::entity::register::<#ty>(#registry); }
    });
    let from_other = match other {
        Some(variant) => quote! {
            fn from_other(#value: &::restcache::__private::Value) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(Self::#variant(::core::clone::Clone::clone(#value)))
            }
        },
        None => quote! {
            fn from_other(_: &::restcache::__private::Value) -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }
        },
    };

    quote! {
        #[automatically_derived]
        impl ::restcache::__private::Union for #ident {
            const NAME: &'static str = #name;
            const TAGS: &'static [&'static str] = &[#(#tags),*];
            const KEYS: &'static [&'static str] = &[#(#keys),*];
            const HAS_OTHER: bool = #has_other;
            #attribute_const

            fn collection_key() -> &'static str {
                static KEY: ::restcache::__private::OnceLock<::std::string::String> =
                    ::restcache::__private::OnceLock::new();
                KEY.get_or_init(|| {
                    ::restcache::__private::union::collection_key(<Self as ::restcache::__private::Union>::KEYS)
                })
            }

            #select

            fn normalize_variant<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
                #index: usize,
                #de: __D,
            ) -> ::core::result::Result<::restcache::__private::EntityRef, __D::Error> {
                match #index {
                    #(#normalize_arms)*
                    _ => ::core::result::Result::Err(<__D::Error as ::restcache::__private::serde::de::Error>::custom(
                        "no such variant",
                    )),
                }
            }

            fn read_variant(
                #index: usize,
                #pk: &str,
                #ctx: &mut ::restcache::__private::DenormalizeCtx<'_>,
            ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                match #index {
                    #(#read_arms)*
                    _ => ::core::result::Result::Err(::restcache::__private::Unresolved),
                }
            }

            fn pk_of_variant(
                #index: usize,
                #input: &::restcache::__private::Value,
            ) -> ::core::option::Option<::std::string::String> {
                match #index {
                    #(#pk_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            #from_other

            fn register_variants(#registry: &mut ::restcache::__private::Registry) {
                #(#registers)*
            }
        }

        #[automatically_derived]
        impl ::restcache::__private::Schema for #ident {
            type Output = Self;
            type Stored = ::restcache::__private::UnionRef;
            const KIND: ::restcache::__private::SchemaKind = ::restcache::__private::SchemaKind::Entity;
            const PARENT: ::restcache::__private::ParentUse = ::restcache::__private::ParentUse::#parent_use;

            fn normalize<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
                #de: __D,
            ) -> ::core::result::Result<::restcache::__private::UnionRef, __D::Error> {
                ::restcache::__private::union::normalize::<Self, __D>(#de)
            }

            fn denormalize<'s>(
                #stored: &'s ::restcache::__private::UnionRef,
                #ctx: &mut ::restcache::__private::DenormalizeCtx<'s>,
            ) -> ::core::result::Result<Self, ::restcache::__private::Unresolved> {
                ::restcache::__private::union::denormalize::<Self>(#stored, #ctx)
            }

            fn skipped(#stored: &::restcache::__private::UnionRef) -> bool {
                ::restcache::__private::union::skipped(#stored)
            }

            fn from_json(
                #value: &::restcache::__private::Value,
            ) -> ::core::option::Option<::restcache::__private::UnionRef> {
                ::restcache::__private::union::from_json::<Self>(#value)
            }

            fn query<'s>(
                #ctx: &mut ::restcache::__private::DenormalizeCtx<'s>,
            ) -> ::core::option::Option<::core::result::Result<Self, ::restcache::__private::Unresolved>> {
                ::restcache::__private::union::query::<Self>(#ctx)
            }

            fn register(#registry: &mut ::restcache::__private::Registry) {
                <Self as ::restcache::__private::Union>::register_variants(#registry)
            }

            fn refs(#stored: &::restcache::__private::UnionRef, sink: &mut ::restcache::__private::RefSink<'_>) {
                ::restcache::__private::union::refs::<Self>(#stored, sink)
            }
        }

        #[automatically_derived]
        impl ::restcache::__private::EntitySchema for #ident {
            fn collection_key() -> &'static str {
                <Self as ::restcache::__private::Union>::collection_key()
            }

            fn read_all(
                #ctx: &mut ::restcache::__private::DenormalizeCtx<'_>,
                #out: &mut ::std::vec::Vec<Self>,
            ) -> bool {
                ::restcache::__private::union::read_all::<Self>(#ctx, #out)
            }

            fn invalidate<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
                #de: __D,
            ) -> ::core::result::Result<::std::string::String, __D::Error> {
                ::restcache::__private::union::invalidate::<Self, __D>(#de)
            }

            fn tables(sink: &mut ::restcache::__private::RefSink<'_>) {
                ::restcache::__private::union::tables::<Self>(sink)
            }

            fn is_entity(#stored: &::restcache::__private::UnionRef) -> bool {
                ::restcache::__private::union::is_entity(#stored)
            }
        }

        #[automatically_derived]
        impl ::restcache::__private::EntityField for #ident {}
    }
}
