//! [`Input`] → [`ResourceModel`]: the struct's declaration and `#[resource(...)]` here, the
//! members in [`super::members`]. Every check that would fail at run time is made here.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use restcache_path::Template;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Meta, Type};

use super::input::Input;
use super::members::{self, Resource};
use super::meta::parse_options;
use super::model::ResourceModel;
use super::options::{self, NonFilterKeys, ResourceAttrs};
use crate::fields::error_at;

pub(super) fn parse(input: Input) -> darling::Result<ResourceModel> {
    let mut errors = darling::Error::accumulator();
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.push(
            darling::Error::custom(
                "a resource cannot be generic: its members are built once and kept in statics; \
                 build generic resources at run time with `Resource::new`",
            )
            .with_span(&input.generics),
        );
    }
    let (attrs, resource) = resource_attrs(input.attrs, &input.ident, &mut errors);
    let shared = resource.map(|(span, r)| shared(span, r, &mut errors));
    let entries = members::check(input.members, &mut errors);
    let model = shared.and_then(|shared| {
        let Shared {
            schema: Some(schema),
            path: Some(path),
            list_path: Some(list_path),
            ..
        } = shared
        else {
            return None;
        };
        let resource = Resource {
            ident: &input.ident,
            schema: &schema,
            path: &path,
            list_path: &list_path,
            body: shared.body,
            collection: shared.collection,
            paginated: shared.paginated,
        };
        let members = members::resolve(&resource, entries, &mut errors);
        let mut assertions = shared.assertions;
        assertions.extend(members.assertions);
        Some(ResourceModel {
            attrs,
            vis: input.vis,
            ident: input.ident.clone(),
            schema,
            list_schema: members.list_schema,
            body: members.body,
            resource_options: shared.options,
            overrides: members.overrides,
            members: members.members,
            params: members.params,
            assertions,
        })
    });
    errors.finish()?;
    // Every way of reaching here without a model pushed an error above.
    model.ok_or_else(|| error_at(input.ident.span(), "internal error: the resource was not resolved"))
}

/// Takes `#[resource(...)]` out of the struct's attributes (it may be split over several) and
/// reads its options; returns the other attributes, and the options with the span of the
/// first `resource`.
fn resource_attrs(
    all: Vec<Attribute>,
    ident: &Ident,
    errors: &mut darling::error::Accumulator,
) -> (Vec<Attribute>, Option<(Span, ResourceAttrs)>) {
    let mut metas: Vec<NestedMeta> = Vec::new();
    let mut attrs = Vec::new();
    let mut found: Option<Span> = None;
    for attr in all {
        if !attr.path().is_ident("resource") {
            attrs.push(attr);
            continue;
        }
        found.get_or_insert(attr.path().span());
        match &attr.meta {
            Meta::List(list) => match parse_options(list.tokens.clone()) {
                Ok(m) => metas.extend(m),
                Err(e) => errors.push(e.into()),
            },
            _ => errors.push(error_at(
                attr.span(),
                "write the resource's options in a list: `#[resource(path = \"/todos/:id\", schema = Todo)]`",
            )),
        }
    }
    let Some(span) = found else {
        errors.push(error_at(
            ident.span(),
            format!(
                "resource `{ident}` has no `#[resource(...)]` attribute: it needs at least \
                 `#[resource(path = \"/todos/:id\", schema = Todo)]`"
            ),
        ));
        return (attrs, None);
    };
    let resource = errors.handle(ResourceAttrs::from_list(&metas));
    (attrs, resource.map(|r| (span, r)))
}

/// The resource-level options, checked.
struct Shared {
    schema: Option<Type>,
    path: Option<Template>,
    list_path: Option<Template>,
    body: Option<Type>,
    collection: Option<Type>,
    paginated: bool,
    /// `ResourceOptions` field initializers.
    options: Vec<TokenStream>,
    assertions: Vec<TokenStream>,
}

/// Checks the options of `#[resource(...)]` (R-RES-6) and converts them to `ResourceOptions`
/// fields. `span` is the attribute's, for what is missing.
fn shared(span: Span, resource: ResourceAttrs, errors: &mut darling::error::Accumulator) -> Shared {
    let mut options = Vec::new();
    let mut assertions = Vec::new();
    if resource.path.is_none() {
        errors.push(error_at(
            span,
            "`#[resource(...)]` needs `path = \"...\"`: the path template of `get`, such as \"/todos/:id\"",
        ));
    }
    if resource.schema.is_none() {
        errors.push(error_at(
            span,
            "`#[resource(...)]` needs `schema = Type`: the entity (or union) the resource serves",
        ));
    }
    let path = resource.path.as_ref().and_then(|lit| options::template(lit, errors));
    let list_path = path.as_ref().zip(resource.path.as_ref()).and_then(|(t, lit)| {
        t.shorten()
            .map_err(|e| {
                errors.push(error_at(
                    lit.span(),
                    format!(
                        "invalid resource path `{}`: {} (the list members use the path without its last \
                         parameter, as `/todos/:id` gives `/todos`)",
                        e.template, e.reason
                    ),
                ));
            })
            .ok()
    });
    if let Some(lit) = &resource.path {
        options.push(quote!(path: <::std::string::String as ::core::convert::From<_>>::from(#lit)));
    }
    if let Some(lit) = &resource.url_prefix {
        options.push(quote!(url_prefix: <::std::string::String as ::core::convert::From<_>>::from(#lit)));
    }
    if let Some(lit) = &resource.pagination_field {
        options.push(quote!(pagination_field: ::core::option::Option::Some(<::std::string::String as ::core::convert::From<_>>::from(#lit))));
    }
    if resource.optimistic {
        options.push(quote!(optimistic: true));
    }
    if resource.invalid_if_stale {
        options.push(quote!(invalid_if_stale: true));
    }
    if let Some(ty) = &resource.endpoint {
        let hooks = options::hooks(ty);
        options.push(quote!(hooks: ::core::option::Option::Some(#hooks)));
    }
    if let Some(ty) = &resource.collection {
        let policy = options::policy(ty);
        options.push(quote!(collection: ::core::option::Option::Some(#policy)));
    }
    if let Some(keys) = &resource.non_filter_argument_keys {
        if resource.collection.is_some() {
            errors.push(error_at(
                keys.span(),
                "`non_filter_argument_keys` and `collection` both decide which list arguments filter; \
                 keep one (a `collection` type says it with its `non_filter_argument_keys` method)",
            ));
        }
        let value = match &**keys {
            NonFilterKeys::Keys(list) => quote! {
                ::restcache::rest::NonFilterKeys::Keys(::std::vec![#(<::std::string::String as ::core::convert::From<_>>::from(#list)),*])
            },
            NonFilterKeys::Fn(path) => quote_spanned! {path.span()=> ::restcache::rest::NonFilterKeys::Fn(#path) },
        };
        options.push(quote!(non_filter_argument_keys: ::core::option::Option::Some(#value)));
    }
    if let Some(d) = resource
        .poll_frequency
        .as_ref()
        .and_then(|l| options::poll_frequency(l, errors))
    {
        options.push(quote!(poll_frequency: ::core::option::Option::Some(#d)));
    }
    if let Some(d) = resource
        .data_expiry_length
        .as_ref()
        .and_then(|l| options::millis(l, errors))
    {
        options.push(quote!(data_expiry_length: ::core::option::Option::Some(#d)));
    }
    if let Some(d) = resource
        .error_expiry_length
        .as_ref()
        .and_then(|l| options::millis(l, errors))
    {
        options.push(quote!(error_expiry_length: ::core::option::Option::Some(#d)));
    }
    if let Some(ty) = &resource.schema {
        assertions.push(options::assert_entity_schema(ty));
    }
    if let Some(ty) = &resource.search_params {
        assertions.push(options::assert_serialize(ty));
    }
    Shared {
        schema: resource.schema,
        path,
        list_path,
        body: resource.body,
        collection: resource.collection,
        paginated: resource.pagination_field.is_some(),
        options,
        assertions,
    }
}
