//! The options of `#[resource(...)]` and `#[member(...)]` (darling attribute structs), and the
//! checks and conversions of their values.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use restcache_path::Template;
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitInt, LitStr, Path, Type};

use crate::fields::error_at;

/// `#[resource(...)]`: the options of R-RES-6.
#[derive(FromMeta)]
pub(super) struct ResourceAttrs {
    /// The path template of `get`, `update`, `partial_update` and `delete`. Required.
    pub path: Option<LitStr>,
    /// The entity or union. Required.
    pub schema: Option<Type>,
    pub url_prefix: Option<LitStr>,
    /// The list members' query parameters; checked to be `Serialize`, nothing more.
    pub search_params: Option<Type>,
    /// The body type of push, unshift and update.
    pub body: Option<Type>,
    pub pagination_field: Option<LitStr>,
    #[darling(default)]
    pub optimistic: bool,
    /// An `EndpointHooks + Default` type.
    pub endpoint: Option<Type>,
    /// A `CollectionPolicy + Default` type.
    pub collection: Option<Type>,
    pub non_filter_argument_keys: Option<SpannedValue<NonFilterKeys>>,
    pub poll_frequency: Option<LitInt>,
    pub data_expiry_length: Option<LitInt>,
    pub error_expiry_length: Option<LitInt>,
    #[darling(default)]
    pub invalid_if_stale: bool,
}

/// `#[member(...)]`: the options of R-RES-4.
#[derive(Default, FromMeta)]
pub(super) struct MemberAttrs {
    pub path: Option<LitStr>,
    pub method: Option<LitStr>,
    pub schema: Option<Type>,
    pub body: Option<Type>,
    pub search_params: Option<Type>,
    pub url_prefix: Option<LitStr>,
    pub pagination_field: Option<LitStr>,
    pub optimistic: Option<bool>,
    pub endpoint: Option<Type>,
    pub data_expiry_length: Option<LitInt>,
    pub error_expiry_length: Option<LitInt>,
    pub invalid_if_stale: Option<bool>,
    pub poll_frequency: Option<LitInt>,
    pub name: Option<LitStr>,
    pub extends: Option<Ident>,
}

/// `non_filter_argument_keys = ["orderBy", ...]` or `= path::to::fn`.
pub(super) enum NonFilterKeys {
    Keys(Vec<LitStr>),
    Fn(Path),
}

impl FromMeta for NonFilterKeys {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Array(_) => Vec::<LitStr>::from_expr(expr).map(NonFilterKeys::Keys),
            Expr::Path(p) if p.qself.is_none() => Ok(NonFilterKeys::Fn(p.path.clone())),
            Expr::Group(g) => Self::from_expr(&g.expr),
            _ => Err(darling::Error::custom(
                "expected a list of keys, `[\"orderBy\", ...]`, or the path of a `fn(&str) -> bool`",
            )
            .with_span(expr)),
        }
    }
}

/// The HTTP methods a member may use.
const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// A parsed, valid path template, or an error on the literal with the reason (R-PATH-2). The
/// literal's value is the template: Rust escapes are already resolved (`"\\?"` is `\?`).
pub(super) fn template(lit: &LitStr, errors: &mut darling::error::Accumulator) -> Option<Template> {
    Template::parse(&lit.value())
        .map_err(|e| errors.push(error_at(lit.span(), e)))
        .ok()
}

/// The uppercase method name, or an error on the literal.
pub(super) fn method(lit: &LitStr, errors: &mut darling::error::Accumulator) -> Option<String> {
    let upper = lit.value().to_ascii_uppercase();
    if METHODS.contains(&upper.as_str()) {
        Some(upper)
    } else {
        errors.push(error_at(
            lit.span(),
            format!(
                "unknown HTTP method {:?}: use one of {}",
                lit.value(),
                METHODS.join(", ")
            ),
        ));
        None
    }
}

/// `::restcache::Method::GET` and the like.
pub(super) fn method_tokens(method: &str) -> TokenStream {
    let ident = Ident::new(method, proc_macro2::Span::call_site());
    quote!(::restcache::Method::#ident)
}

/// A duration in integer milliseconds, as a `Duration` expression.
pub(super) fn millis(lit: &LitInt, errors: &mut darling::error::Accumulator) -> Option<TokenStream> {
    match lit.base10_parse::<u64>() {
        Ok(ms) => Some(quote_spanned! {lit.span()=> ::core::time::Duration::from_millis(#ms) }),
        Err(e) => {
            errors.push(e.into());
            None
        }
    }
}

/// `poll_frequency`: milliseconds, at least 1.
pub(super) fn poll_frequency(lit: &LitInt, errors: &mut darling::error::Accumulator) -> Option<TokenStream> {
    if lit.base10_parse::<u64>().is_ok_and(|ms| ms == 0) {
        errors.push(error_at(
            lit.span(),
            "`poll_frequency` must be at least 1 ms; leave it out to not poll",
        ));
        return None;
    }
    millis(lit, errors)
}

/// `endpoint = T`: `Arc<dyn EndpointHooks>` of `T::default()`; the error of a type that is not
/// `EndpointHooks + Default` points at it.
pub(super) fn hooks(ty: &Type) -> TokenStream {
    quote_spanned! {ty.span()=>
        ::std::sync::Arc::new(<#ty as ::core::default::Default>::default())
            as ::std::sync::Arc<dyn ::restcache::rest::EndpointHooks>
    }
}

/// `collection = T`: `Arc<dyn CollectionPolicy>` of `T::default()`.
pub(super) fn policy(ty: &Type) -> TokenStream {
    quote_spanned! {ty.span()=>
        ::std::sync::Arc::new(<#ty as ::core::default::Default>::default())
            as ::std::sync::Arc<dyn ::restcache::schema::CollectionPolicy>
    }
}

/// A `const _` item that fails to compile, at the type, unless `ty` is an `EntitySchema` (an
/// entity or a union). The errors of the generated members follow; this one comes first and
/// points at the type.
pub(super) fn assert_entity_schema(ty: &Type) -> TokenStream {
    let check = quote_spanned! {ty.span()=> let _ = __assert_entity_or_union::<#ty>; };
    quote! {
        const _: () = {
            fn __assert_entity_or_union<T: ::restcache::__private::EntitySchema>() {}
            #check
        };
    }
}

/// A `const _` item that fails to compile, at the type, unless `ty` is `Serialize`.
pub(super) fn assert_serialize(ty: &Type) -> TokenStream {
    let check = quote_spanned! {ty.span()=> let _ = __assert_search_params::<#ty>; };
    quote! {
        const _: () = {
            fn __assert_search_params<T: ::restcache::__private::serde::Serialize + ?::core::marker::Sized>() {}
            #check
        };
    }
}

/// The options a `#[member(...)]` gives, checked: `EndpointOptions` field initializers and
/// what the member's types and parameter struct depend on.
#[derive(Default)]
pub(super) struct MemberOptions {
    /// `field: value` initializers of `EndpointOptions`, except `name`.
    pub fields: Vec<TokenStream>,
    /// The uppercase method, if given.
    pub method: Option<String>,
    /// The path, if given.
    pub path: Option<Template>,
    /// Whether a `pagination_field` is given.
    pub paginated: bool,
    /// The `name`, if given.
    pub name: Option<String>,
}

impl MemberOptions {
    pub(super) fn check(attrs: &MemberAttrs, errors: &mut darling::error::Accumulator) -> Self {
        let mut out = MemberOptions::default();
        let fields = &mut out.fields;
        if let Some(lit) = &attrs.path
            && let Some(t) = template(lit, errors)
        {
            fields.push(quote!(path: ::core::option::Option::Some(<::std::string::String as ::core::convert::From<_>>::from(#lit))));
            out.path = Some(t);
        }
        if let Some(lit) = &attrs.method
            && let Some(m) = method(lit, errors)
        {
            let tokens = method_tokens(&m);
            fields.push(quote!(method: ::core::option::Option::Some(#tokens)));
            out.method = Some(m);
        }
        if let Some(lit) = &attrs.url_prefix {
            fields.push(quote!(url_prefix: ::core::option::Option::Some(<::std::string::String as ::core::convert::From<_>>::from(#lit))));
        }
        if let Some(lit) = &attrs.pagination_field {
            fields.push(quote!(pagination_field: ::core::option::Option::Some(<::std::string::String as ::core::convert::From<_>>::from(#lit))));
            out.paginated = true;
        }
        if let Some(b) = attrs.optimistic {
            fields.push(quote!(optimistic: ::core::option::Option::Some(#b)));
        }
        if let Some(ty) = &attrs.endpoint {
            let hooks = hooks(ty);
            fields.push(quote!(hooks: ::core::option::Option::Some(#hooks)));
        }
        if let Some(d) = attrs.data_expiry_length.as_ref().and_then(|l| millis(l, errors)) {
            fields.push(quote!(data_expiry_length: ::core::option::Option::Some(#d)));
        }
        if let Some(d) = attrs.error_expiry_length.as_ref().and_then(|l| millis(l, errors)) {
            fields.push(quote!(error_expiry_length: ::core::option::Option::Some(#d)));
        }
        if let Some(b) = attrs.invalid_if_stale {
            fields.push(quote!(invalid_if_stale: ::core::option::Option::Some(#b)));
        }
        if let Some(d) = attrs.poll_frequency.as_ref().and_then(|l| poll_frequency(l, errors)) {
            fields.push(quote!(poll_frequency: ::core::option::Option::Some(#d)));
        }
        out.name = attrs.name.as_ref().map(LitStr::value);
        out
    }
}
