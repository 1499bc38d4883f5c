//! The typed parameter structs: one per distinct path, with a field per parameter or
//! wildcard, serializing to the args map the members read.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Visibility};

use super::model::ParamsStruct;

pub(super) fn expand(vis: &Visibility, resource: &Ident, params: &ParamsStruct) -> TokenStream {
    let ParamsStruct { ident, path, members } = params;
    let serializer = Ident::new("__S", Span::mixed_site());
    let s = Ident::new("serializer", Span::mixed_site());
    let map = Ident::new("map", Span::mixed_site());
    let v = Ident::new("v", Span::mixed_site());

    let mut fields = Vec::new();
    let mut entries = Vec::new();
    for p in path.placeholders() {
        let name = p.name();
        let field = field_ident(name);
        let (ty, doc) = if p.is_wildcard() {
            (
                quote!(::std::vec::Vec<::std::string::String>),
                format!("The `*{name}` wildcard: its path segments, joined with `/` when rendered."),
            )
        } else if p.is_required() {
            (quote!(::std::string::String), format!("The `:{name}` parameter."))
        } else {
            (
                quote!(::core::option::Option<::std::string::String>),
                format!("The optional `:{name}` parameter; left out of the args when `None`."),
            )
        };
        fields.push(quote! {
            #[doc = #doc]
            pub #field: #ty,
        });
        entries.push(if p.is_wildcard() || p.is_required() {
            quote! {
                ::restcache::__private::serde::ser::SerializeMap::serialize_entry(&mut #map, #name, &self.#field)?;
            }
        } else {
            quote! {
                if let ::core::option::Option::Some(#v) = &self.#field {
                    ::restcache::__private::serde::ser::SerializeMap::serialize_entry(&mut #map, #name, #v)?;
                }
            }
        });
    }
    let binding = if entries.is_empty() {
        quote!(#map)
    } else {
        quote!(mut #map)
    };

    let used_by = match members.as_slice() {
        [] => String::new(),
        members => {
            let links: Vec<String> = members.iter().map(|m| format!("[`{resource}::{m}`]")).collect();
            format!(", used by {}", links.join(", "))
        }
    };
    let doc = format!(
        "The path parameters of `{}`{used_by}.\n\n\
         Pass it as the args of a call: it serializes to a map of the parameters (an optional \
         parameter that is `None` is left out). Query parameters go in other args, such as \
         `params!{{..}}`.",
        path.as_str()
    );

    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::default::Default, ::core::cmp::PartialEq, ::core::cmp::Eq)]
        #[allow(non_snake_case, dead_code)]
        #vis struct #ident {
            #(#fields)*
        }

        impl ::restcache::__private::serde::Serialize for #ident {
            fn serialize<#serializer>(
                &self,
                #s: #serializer,
            ) -> ::core::result::Result<#serializer::Ok, #serializer::Error>
            where
                #serializer: ::restcache::__private::serde::Serializer,
            {
                let #binding = ::restcache::__private::serde::Serializer::serialize_map(
                    #s,
                    ::core::option::Option::None,
                )?;
                #(#entries)*
                ::restcache::__private::serde::ser::SerializeMap::end(#map)
            }
        }
    }
}

/// The field for a parameter name: the name itself, raw if it is a keyword (`gen` included,
/// which syn reads as an identifier but edition 2024 reserves), with a `_` after it if it cannot
/// be a field name even raw.
fn field_ident(name: &str) -> Ident {
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        return format_ident!("{name}_");
    }
    match syn::parse_str::<Ident>(name) {
        Ok(ident) if name != "gen" => ident,
        _ => Ident::new_raw(name, Span::call_site()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_become_field_names() {
        assert_eq!(field_ident("user_id").to_string(), "user_id");
        assert_eq!(field_ident("userId").to_string(), "userId");
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("gen").to_string(), "r#gen");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("_").to_string(), "__");
    }
}
