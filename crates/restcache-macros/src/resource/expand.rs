//! [`ResourceModel`] → the unit struct, its parameter structs, and `impl` with one associated
//! fn per member.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::model::{Build, Member, Name, ResourceModel};
use super::params;

pub(super) fn expand(model: &ResourceModel) -> TokenStream {
    let ResourceModel {
        attrs,
        vis,
        ident,
        schema,
        list_schema,
        body,
        resource_options,
        overrides,
        members,
        params,
        assertions,
    } = model;
    let resource_ty = quote!(::restcache::rest::Resource<#schema, #list_schema, #body>);
    let unreachable = format!("the options of `{ident}` were checked by resource!: {{e}}");
    let with_members = overrides.iter().map(|(name, fields)| {
        quote! {
            .and_then(|r| r.with_member(#name, ::restcache::rest::EndpointOptions {
                #(#fields,)*
                ..::core::default::Default::default()
            }))
        }
    });
    let members_fns = members.iter().map(|m| member_fn(model, m, &unreachable));
    let params = params.iter().map(|p| params::expand(vis, ident, p));

    quote! {
        #(#assertions)*

        #(#attrs)*
        #vis struct #ident;

        #(#params)*

        // Members a program does not call are not dead code: the macro makes them all.
        #[allow(dead_code, clippy::needless_update)]
        impl #ident {
            /// The resource, built once; every check `Resource::new` makes was made by the macro.
            fn __restcache_resource() -> &'static #resource_ty {
                static RESOURCE: ::std::sync::OnceLock<#resource_ty> = ::std::sync::OnceLock::new();
                RESOURCE.get_or_init(|| {
                    let built = ::restcache::rest::Resource::<#schema>::new(::restcache::rest::ResourceOptions {
                        #(#resource_options,)*
                        ..::core::default::Default::default()
                    })
                    #(#with_members)*;
                    match built {
                        ::core::result::Result::Ok(resource) => {
                            resource.with_list_schema::<#list_schema>().with_body::<#body>()
                        }
                        ::core::result::Result::Err(e) => ::core::unreachable!(#unreachable),
                    }
                })
            }

            #(#members_fns)*
        }
    }
}

fn member_fn(model: &ResourceModel, m: &Member, unreachable: &str) -> TokenStream {
    let Member {
        ident,
        docs,
        build,
        schema,
        body,
        paginated,
        ..
    } = m;
    let vis = &model.vis;
    let e = &model.schema;
    let pages = paginated.then(|| quote!(.__paginated_unchecked()));
    let ty = if *paginated {
        quote!(::restcache::rest::RestEndpoint<#schema, #body, ::restcache::rest::Pages>)
    } else {
        quote!(::restcache::rest::RestEndpoint<#schema, #body>)
    };
    let about = about(m);
    let spacer = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
    let body_fn = match build {
        Build::Standard {
            name,
            with_schema,
            with_body,
        } => {
            let name = syn::Ident::new(name, proc_macro2::Span::call_site());
            let with_schema = with_schema.as_ref().map(|s| quote!(.with_schema::<#s>()));
            let with_body = with_body.as_ref().map(|b| quote!(.with_body::<#b>()));
            quote! {
                Self::__restcache_resource().#name() #with_schema #with_body #pages
            }
        }
        Build::Custom { base, fields, name, .. } => {
            let name = match name {
                Name::Given(given) => quote!(<::std::string::String as ::core::convert::From<_>>::from(#given)),
                Name::Default(member) => {
                    let format = format!("{{}}.{member}");
                    quote!(::std::format!(#format, <#e as ::restcache::__private::EntitySchema>::resource_name()))
                }
            };
            quote! {
                static MEMBER: ::std::sync::OnceLock<#ty> = ::std::sync::OnceLock::new();
                ::core::clone::Clone::clone(MEMBER
                    .get_or_init(|| {
                        match Self::#base().extend(::restcache::rest::EndpointOptions {
                            #(#fields,)*
                            name: ::core::option::Option::Some(#name),
                            ..::core::default::Default::default()
                        }) {
                            ::core::result::Result::Ok(member) => {
                                member.with_schema::<#schema>().with_body::<#body>() #pages
                            }
                            ::core::result::Result::Err(e) => ::core::unreachable!(#unreachable),
                        }
                    }))
            }
        }
    };
    quote! {
        #(#docs)*
        #spacer
        #[doc = #about]
        #vis fn #ident() -> #ty {
            #body_fn
        }
    }
}

/// The generated part of a member's docs: its request, what it does, its parameter struct.
fn about(m: &Member) -> String {
    let what = match &m.build {
        Build::Standard { name, .. } => match *name {
            "get" => "reads one entity.".to_owned(),
            "get_list" => {
                let mut s = "reads the list; args that are not path parameters filter it, as query \
                             parameters. `push()` and `unshift()` create an entity and add it to the \
                             matching lists; `remove()` takes one out of them, `move_item()` moves \
                             one between them"
                    .to_owned();
                if m.paginated {
                    s.push_str("; `get_page()` reads one more page");
                }
                s.push('.');
                s
            }
            "update" => "replaces one entity.".to_owned(),
            "partial_update" => "changes some fields of one entity.".to_owned(),
            _ => "deletes one entity, which reads as invalid from then on; resolves to its primary key.".to_owned(),
        },
        Build::Custom { derived: false, .. } => {
            "a member added to the resource: it starts from `get`'s options.".to_owned()
        }
        Build::Custom { base, .. } => format!(
            "a member derived from [`{}`](Self::{}): it starts from every option of it.",
            base.unraw(),
            base
        ),
    };
    format!(
        "`{} {}`: {what}\n\nPath parameters: [`{}`]; other args go to the query string.",
        m.method,
        m.path.as_str(),
        m.params
    )
}
