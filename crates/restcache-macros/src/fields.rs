//! The field list shared by entities and object schemas: which fields are plain, which are
//! nested schemas, under which JSON name each is read; and the row type generated from it, which
//! serde fills with the fields' own serde attributes.

use darling::FromAttributes;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use crate::serde_attrs::{FieldDefault, SerdeContainer, SerdeField, forwarded_field};

/// One field of the struct, as the generated code reads and writes it.
pub(crate) struct Field {
    /// The Rust field.
    pub member: Ident,
    pub ty: Type,
    /// The JSON key the field is read from (serde's deserialize name).
    pub name: String,
    pub kind: FieldKind,
    /// The field's serde options its row field gets as they are.
    pub forwarded: Vec<syn::Meta>,
    /// `#[serde(default)]`: applied when the row lacks the field.
    pub default: Option<FieldDefault>,
    /// `#[serde(flatten)]`.
    pub flatten: bool,
    /// A plain `String` or `Option<String>` that serde reads by itself: the row keeps the text
    /// as a `restcache::schema::RowText`, inline when short.
    pub text: Option<Text>,
}

/// The shape of a text field the row keeps as `RowText`.
#[derive(Clone, Copy)]
pub(crate) enum Text {
    /// `String`.
    Plain,
    /// `Option<String>`.
    Optional,
}

pub(crate) enum FieldKind {
    /// A plain value, read with the type's `Deserialize` or with `deserialize_with` (or a
    /// `with` module's `deserialize`).
    Plain { deserialize_with: Option<Path> },
    /// A nested schema: the field's type implements `Schema`.
    Nested,
    /// `#[serde(skip)]` / `#[serde(skip_deserializing)]`: always `Default`.
    Skipped,
}

/// What the derive is called on, for messages: `"entity"` or `"object schema"`.
#[derive(Clone, Copy)]
pub(crate) struct Derive {
    /// `Entity` or `Schema`.
    pub name: &'static str,
    /// What the type becomes: `entity`, `object schema`.
    pub noun: &'static str,
    /// The plural of `noun`.
    pub nouns: &'static str,
    /// A short declaration of the right shape, for messages.
    pub example: &'static str,
}

/// An error at `span`.
pub(crate) fn error_at(span: Span, message: impl std::fmt::Display) -> darling::Error {
    syn::Error::new(span, message).into()
}

/// Rejects generic types, with the error on the generics.
pub(crate) fn reject_generics(input: &DeriveInput, derive: Derive, errors: &mut darling::error::Accumulator) {
    if !input.generics.params.is_empty() {
        errors.push(
            darling::Error::custom(format!(
                "generic {} are not supported by `#[derive({})]`",
                derive.nouns, derive.name
            ))
            .with_span(&input.generics),
        );
    }
}

/// The named fields of a struct, or an error on what the input is instead.
pub(crate) fn named_fields(input: &DeriveInput, derive: Derive) -> darling::Result<&syn::FieldsNamed> {
    let (span, found) = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => return Ok(fields),
            Fields::Unnamed(fields) => (fields.span(), "a tuple struct"),
            Fields::Unit => (input.ident.span(), "a unit struct"),
        },
        Data::Enum(data) => (data.enum_token.span(), "an enum"),
        Data::Union(data) => (data.union_token.span(), "a union"),
    };
    Err(error_at(
        span,
        format!(
            "`#[derive({})]` needs a struct with named fields, like `{}`; found {found}",
            derive.name, derive.example
        ),
    ))
}

/// Reads the struct-level serde attributes.
pub(crate) fn serde_container(input: &DeriveInput, errors: &mut darling::error::Accumulator) -> SerdeContainer {
    errors
        .handle(SerdeContainer::from_attributes(&input.attrs))
        .unwrap_or_default()
}

/// Builds the model of one field of `input` from its serde attributes and the derive's own
/// marker (`nested`: the field carries `#[entity(schema)]` / `#[schema(nested)]`).
pub(crate) fn field(
    input: &DeriveInput,
    field: &syn::Field,
    container: &SerdeContainer,
    nested: bool,
    derive: Derive,
    errors: &mut darling::error::Accumulator,
) -> Option<Field> {
    let member = field.ident.clone()?;
    let serde = errors
        .handle(SerdeField::from_attributes(&field.attrs))
        .unwrap_or_default();
    let forwarded = errors
        .handle(forwarded_field(&field.attrs).map_err(darling::Error::from))
        .unwrap_or_default();
    if serde.flatten.is_present() && nested {
        errors.push(error_at(
            serde.flatten.span(),
            format!(
                "`#[serde(flatten)]` cannot apply to a nested-schema field of an {}",
                derive.noun
            ),
        ));
    }
    let renamed = serde.rename.as_ref().and_then(|r| r.0.clone());
    let name = renamed.unwrap_or_else(|| {
        let rust = member.unraw().to_string();
        match container.rename_all.as_ref().and_then(|r| r.0) {
            Some(rule) => rule.apply_to_field(&rust),
            None => rust,
        }
    });
    if let (Some(_), Some(path)) = (&serde.with, &serde.deserialize_with) {
        errors.push(error_at(
            path.span(),
            "`#[serde(with)]` and `#[serde(deserialize_with)]` both say how to read this field: give one",
        ));
    }
    if serde.skipped() && nested {
        errors.push(error_at(
            member.span(),
            format!(
                "a nested-schema field of an {} cannot be `#[serde(skip)]`: it would never be read",
                derive.noun
            ),
        ));
    }
    let deserialize_with = serde.deserializer().map(|path| through_self(path, input));
    let kind = if serde.skipped() {
        FieldKind::Skipped
    } else if nested {
        if let Some(path) = &deserialize_with {
            errors.push(
                darling::Error::custom(
                    "`#[serde(deserialize_with)]` and `#[serde(with)]` cannot apply to a nested-schema field: \
                     its schema reads it",
                )
                .with_span(path),
            );
        }
        FieldKind::Nested
    } else {
        FieldKind::Plain { deserialize_with }
    };
    let plain = matches!(kind, FieldKind::Plain { deserialize_with: None }) && !serde.flatten.is_present();
    let text = plain.then(|| text_shape(&field.ty)).flatten();
    Some(Field {
        member,
        ty: self_spelled_out(field.ty.clone(), input),
        name,
        kind,
        forwarded,
        default: serde.default.clone(),
        flatten: serde.flatten.is_present(),
        text,
    })
}

/// `path` with a leading `Self` spelled as the derive's type (with its parameters): the row's
/// helpers that call it live in the row's own impl, where `Self` is the row, while serde has
/// `Self` name the type the attribute is written on.
fn through_self(path: Path, input: &DeriveInput) -> Path {
    if path.leading_colon.is_some() || path.segments.first().is_none_or(|s| s.ident != "Self") {
        return path;
    }
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let turbofish = ty_generics.as_turbofish();
    let rest = path.segments.iter().skip(1);
    syn::parse2(quote!(#ident #turbofish #(:: #rest)*)).unwrap_or(path)
}

/// `ty` with every `Self` in it spelled as the derive's type (with its parameters), as serde's
/// derive does: the field types are copied into the hidden row type and its impls, where `Self`
/// would name the row, and into items where it names nothing.
fn self_spelled_out(mut ty: Type, input: &DeriveInput) -> Type {
    struct SpellOut<'a>(&'a DeriveInput);
    impl syn::visit_mut::VisitMut for SpellOut<'_> {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::Path(syn::TypePath { qself: None, path, .. }) = ty
                && path.leading_colon.is_none()
                && path.segments.len() == 1
                && path.segments[0].ident == "Self"
            {
                let ident = &self.0.ident;
                let (_, ty_generics, _) = self.0.generics.split_for_impl();
                if let Ok(spelled) =
                    syn::parse2(quote::quote_spanned!(path.segments[0].ident.span()=> #ident #ty_generics))
                {
                    *ty = spelled;
                }
                return;
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    syn::visit_mut::VisitMut::visit_type_mut(&mut SpellOut(input), &mut ty);
    ty
}

/// Whether `ty` names std's `String` (`String`, `std::string::String` or
/// `alloc::string::String`), or an `Option` of it (`Option`, `std::option::Option` or
/// `core::option::Option`).
fn text_shape(ty: &Type) -> Option<Text> {
    if is_path(ty, "String", &["std::string", "alloc::string"]).is_some() {
        return Some(Text::Plain);
    }
    let inner = is_path(ty, "Option", &["std::option", "core::option"])?;
    let syn::PathArguments::AngleBracketed(args) = inner else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [syn::GenericArgument::Type(inner)] if matches!(text_shape(inner), Some(Text::Plain)) => Some(Text::Optional),
        _ => None,
    }
}

/// The arguments of `ty`'s last segment when `ty` is the path `name`, bare or under one of
/// `modules` (with or without a leading `::`).
fn is_path<'t>(ty: &'t Type, name: &str, modules: &[&str]) -> Option<&'t syn::PathArguments> {
    let Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let segments = &path.path.segments;
    let last = segments.last()?;
    if last.ident != name || segments.iter().rev().skip(1).any(|s| !s.arguments.is_none()) {
        return None;
    }
    let module: Vec<String> = segments
        .iter()
        .rev()
        .skip(1)
        .rev()
        .map(|s| s.ident.to_string())
        .collect();
    let bare = module.is_empty() && path.path.leading_colon.is_none();
    (bare || modules.contains(&module.join("::").as_str())).then_some(&last.arguments)
}

impl Field {
    /// The type the row stores the field's value as: its own, or `RowText` for a `String`.
    fn stored_ty(&self) -> TokenStream {
        match self.text {
            None => self.ty.to_token_stream(),
            Some(Text::Plain) => quote_spanned! {self.ty.span()=> ::restcache::__private::RowText },
            Some(Text::Optional) => quote_spanned! {self.ty.span()=>
                ::core::option::Option<::restcache::__private::RowText>
            },
        }
    }
}

/// Refuses a field whose JSON name an earlier field already has (a `rename` onto another
/// field's name): serde would fill only one of them, and the row's JSON holds one value per name.
/// Flattened fields are left out: their own fields are named inside them.
pub(crate) fn refuse_repeated_names(fields: &[Field], errors: &mut darling::error::Accumulator) {
    // A flattened field has no JSON name of its own: its fields are read from the object.
    let named = |f: &Field| !matches!(f.kind, FieldKind::Skipped) && !f.flatten;
    for (i, field) in fields.iter().enumerate() {
        if !named(field) {
            continue;
        }
        let earlier = fields[..i].iter().find(|f| named(f) && f.name == field.name);
        if let Some(earlier) = earlier {
            errors.push(error_at(
                field.member.span(),
                format!(
                    "`{}` is read from the JSON field `{}`, as `{}` already is",
                    field.member, field.name, earlier.member
                ),
            ));
        }
    }
}

/// The names of the generated items of a row type.
pub(crate) struct RowNames {
    /// The row type.
    pub row: Ident,
}

/// The row type of a field list: a struct that serde fills (every field optional, nested fields
/// normalized as they are parsed and kept as their references), with the container's serde
/// options `container` and the fields' own, the functions its fields deserialize with, its
/// `Debug` and its [`RowData`] impl. `generics` are the struct's (an object schema's); `derives`
/// are more derives for the row (an entity's `Clone` and `PartialEq`); `expecting` is what serde
/// says it expected when the input is not an object.
pub(crate) fn row_type(
    names: &RowNames,
    fields: &[Field],
    container: &[syn::Meta],
    generics: &syn::Generics,
    derives: TokenStream,
    expecting: &str,
    from_text: bool,
) -> TokenStream {
    let row = &names.row;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let d = Ident::new("__D", Span::mixed_site());
    // Hygienic: a user's `deserialize_with = "de"` names their function, not this parameter.
    let de = Ident::new("__de", Span::mixed_site());
    // The functions the fields deserialize with are the row's own, so they have its generics;
    // serde calls them by this path.
    let prefix = format!("{row}{}::", ty_generics.as_turbofish().to_token_stream()).replace(' ', "");
    let mut helpers = Vec::new();
    let mut members = Vec::new();
    for f in fields {
        let Field {
            member,
            ty,
            name,
            forwarded,
            ..
        } = f;
        let span = ty.span();
        let forwarded = (!forwarded.is_empty()).then(|| quote!(#[serde(#(#forwarded),*)]));
        match &f.kind {
            FieldKind::Skipped => continue,
            FieldKind::Nested => {
                let function = format_ident("__nested_", member);
                helpers.push(quote_spanned! {span=>
                    fn #function<'de, #d: ::restcache::__private::serde::Deserializer<'de>>(
                        #de: #d,
                    ) -> ::core::result::Result<
                        ::core::option::Option<<#ty as ::restcache::__private::Schema>::Stored>,
                        #d::Error,
                    >
                    where
                        #ty: ::restcache::__private::Schema,
                    {
                        ::restcache::__private::nested::<#ty, #d>(#de, #name)
                    }
                });
                let path = format!("{prefix}{function}");
                // A default by path: its type names the struct's parameters only through its
                // schema, so serde is to infer no `Default` bound for them.
                members.push(quote_spanned! {span=>
                    #[serde(default = "::restcache::__private::none", deserialize_with = #path)]
                    #forwarded
                    #member: ::core::option::Option<<#ty as ::restcache::__private::Schema>::Stored>,
                });
            }
            FieldKind::Plain { deserialize_with } => {
                // A default by path, as for nested fields: serde infers no `Default` bound on
                // the struct's parameters from it.
                let default = (!f.flatten).then(|| quote!(#[serde(default = "::restcache::__private::none")]));
                // A field the object holds is `Some`, whatever its value: a `null` is the type's
                // to accept or refuse, as serde has it, not a missing field.
                let present = (!f.flatten && deserialize_with.is_none())
                    .then(|| quote!(#[serde(deserialize_with = "::restcache::__private::present")]));
                let custom = deserialize_with.as_ref().map(|path| {
                    let function = format_ident("__deserialize_", member);
                    helpers.push(quote_spanned! {span=>
                        fn #function<'de, #d: ::restcache::__private::serde::Deserializer<'de>>(
                            #de: #d,
                        ) -> ::core::result::Result<::core::option::Option<#ty>, #d::Error> {
                            let value: #ty = #path(#de)?;
                            ::core::result::Result::Ok(::core::option::Option::Some(value))
                        }
                    });
                    let function = format!("{prefix}{function}");
                    quote!(#[serde(deserialize_with = #function)])
                });
                let stored = f.stored_ty();
                members.push(quote_spanned! {span=>
                    #default
                    #present
                    #custom
                    #forwarded
                    #member: ::core::option::Option<#stored>,
                });
            }
        }
    }
    let params: Vec<&Ident> = generics.type_params().map(|p| &p.ident).collect();
    if !params.is_empty() {
        members.push(quote! {
            #[serde(skip, bound = "")]
            __params: ::core::marker::PhantomData<fn() -> (#(#params,)*)>,
        });
    }
    let user_expecting = container.iter().any(|m| m.path().is_ident("expecting"));
    let expecting = (!user_expecting).then(|| quote!(#[serde(expecting = #expecting)]));
    let container = (!container.is_empty()).then(|| quote!(#[serde(#(#container),*)]));
    let to_json = to_json(fields);
    let set_nested = set_nested(fields);
    let refs_and_bytes = refs_and_bytes(fields);
    let from_text = from_text.then(|| {
        quote! {
            fn from_json_text(text: &str) -> ::core::option::Option<Self> {
                Self::__from_json_text(text)
            }
        }
    });
    quote! {
        #[derive(::restcache::__private::serde::Deserialize #derives)]
        #[serde(crate = "::restcache::__private::serde")]
        #expecting
        #container
        #[doc(hidden)]
        // A nested field's type is its schema's `Stored` projection.
        #[allow(clippy::type_complexity)]
        pub struct #row #impl_generics #where_clause {
            #(#members)*
        }

        #[automatically_derived]
        #[allow(clippy::type_complexity)]
        impl #impl_generics #row #ty_generics #where_clause {
            #(#helpers)*
        }

        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #row #ty_generics #where_clause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&::restcache::__private::RowData::to_json(self), f)
            }
        }

        #[automatically_derived]
        impl #impl_generics ::restcache::__private::RowData for #row #ty_generics #where_clause {
            #to_json
            #set_nested
            #refs_and_bytes

            fn from_json(json: &::restcache::__private::Value) -> ::core::option::Option<Self> {
                Self::__from_json(json)
            }

            #from_text
        }
    }
}

/// `__nested_member`, `__deserialize_member`: a helper function's name for a field.
fn format_ident(prefix: &str, member: &Ident) -> Ident {
    Ident::new(&format!("{prefix}{}", member.unraw()), Span::mixed_site())
}

/// `RowData::to_json`: each field the row holds under its JSON name, plain ones as their type
/// serializes them (a `with` module may have no `serialize`), nested ones as their normalized
/// form serializes, flattened ones merged in.
fn to_json(fields: &[Field]) -> TokenStream {
    let map = Ident::new("map", Span::mixed_site());
    let v = Ident::new("v", Span::mixed_site());
    let entries = fields.iter().map(|f| {
        let Field { member, ty, name, .. } = f;
        let span = ty.span();
        match &f.kind {
            FieldKind::Skipped => quote!(),
            FieldKind::Nested => quote! {
                if let ::core::option::Option::Some(json) =
                    self.#member.as_ref().and_then(::restcache::__private::json_of)
                {
                    #map.insert(<::std::string::String as ::core::convert::From<_>>::from(#name), json);
                }
            },
            FieldKind::Plain { .. } => {
                let stored = f.stored_ty();
                let json = quote_spanned! {span=> ::restcache::__private::json_of::<#stored>(#v) };
                let put = if f.flatten {
                    quote! { ::restcache::__private::flatten_into(&mut #map, #json); }
                } else {
                    quote! {
                        if let ::core::option::Option::Some(json) = #json {
                            #map.insert(<::std::string::String as ::core::convert::From<_>>::from(#name), json);
                        }
                    }
                };
                quote! {
                    if let ::core::option::Option::Some(#v) = &self.#member {
                        #put
                    }
                }
            }
        }
    });
    quote! {
        fn to_json(&self) -> ::restcache::__private::Map<::std::string::String, ::restcache::__private::Value> {
            #[allow(unused_mut)]
            let mut #map = ::restcache::__private::Map::new();
            #(#entries)*
            #map
        }
    }
}

/// `RowData::refs` (each nested field's references, through its schema) and
/// `RowData::heap_bytes` (each field's heap, estimated through its `Serialize` impl).
fn refs_and_bytes(fields: &[Field]) -> TokenStream {
    let sink = Ident::new("sink", Span::mixed_site());
    let kept: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .collect();
    let refs = kept
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Nested))
        .map(|Field { member, ty, .. }| {
            quote_spanned! {ty.span()=>
                if let ::core::option::Option::Some(v) = &self.#member {
                    <#ty as ::restcache::__private::Schema>::refs(v, #sink);
                }
            }
        });
    // Spanned at the field's type: a type that cannot be serialized is an error there.
    let bytes = kept.iter().map(|Field { member, ty, .. }| {
        let v = Ident::new("__restcache_field", ty.span());
        quote_spanned! {ty.span()=> {
            let #v = &self.#member;
            ::restcache::__private::heap_bytes(#v)
        }}
    });
    quote! {
        #[allow(unused_variables)]
        fn refs(&self, #sink: &mut ::restcache::__private::RefSink<'_>) {
            #(#refs)*
        }

        fn heap_bytes(&self) -> usize {
            0usize #(.saturating_add(#bytes))*
        }
    }
}

/// `RowData::set_nested`: each nested field by its JSON name, set to a normalized form of its
/// schema's `Stored` type.
fn set_nested(fields: &[Field]) -> TokenStream {
    let stored = Ident::new("stored", Span::mixed_site());
    let arms: Vec<TokenStream> = fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Nested))
        .map(|Field { member, name, ty, .. }| {
            quote_spanned! {ty.span()=>
                #name => {
                    if let ::core::result::Result::Ok(v) =
                        #stored.downcast::<<#ty as ::restcache::__private::Schema>::Stored>()
                    {
                        self.#member = ::core::option::Option::Some(*v);
                    }
                }
            }
        })
        .collect();
    if arms.is_empty() {
        return quote!();
    }
    quote! {
        fn set_nested(
            &mut self,
            name: &str,
            #stored: ::std::boxed::Box<dyn ::core::any::Any + ::core::marker::Send>,
        ) {
            match name {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// The row's `Clone` and `PartialEq` (with the row's `generics`), field by field through the
/// [`FieldValue`] helpers, so a field type that lacks one is one error, at the field, naming
/// what it needs.
pub(crate) fn clone_and_eq(row: &Ident, fields: &[Field], generics: &syn::Generics) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let other = Ident::new("other", Span::mixed_site());
    let kept: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .collect();
    let clones = kept.iter().map(|f| {
        let Field { member, ty, .. } = f;
        quote_spanned! {ty.span()=>
            #member: match &self.#member {
                ::core::option::Option::Some(v) => ::core::option::Option::Some(::restcache::__private::clone_field(v)),
                ::core::option::Option::None => ::core::option::Option::None,
            },
        }
    });
    let eqs = kept.iter().map(|f| {
        let Field { member, ty, .. } = f;
        quote_spanned! {ty.span()=> && ::restcache::__private::same_field(&self.#member, &#other.#member) }
    });
    let params = (generics.type_params().count() > 0).then(|| quote!(__params: ::core::marker::PhantomData,));
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #row #ty_generics #where_clause {
            fn clone(&self) -> Self {
                #row { #(#clones)* #params }
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::cmp::PartialEq for #row #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn eq(&self, #other: &Self) -> bool {
                true #(#eqs)*
            }
        }
    }
}

/// `EntityRow::merge`: field by field.
pub(crate) fn merge(fields: &[Field]) -> TokenStream {
    let newer = Ident::new("newer", Span::mixed_site());
    let older = Ident::new("older", Span::mixed_site());
    let changed = Ident::new("changed", Span::mixed_site());
    let merges = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .map(|f| {
            let Field { member, ty, .. } = f;
            quote_spanned! {ty.span()=>
                #changed |= ::restcache::__private::merge_field(&mut self.#member, #newer.#member, #older);
            }
        });
    quote! {
        #[allow(unused_variables)]
        fn merge(&mut self, #newer: Self, #older: bool) -> bool {
            #[allow(unused_mut)]
            let mut #changed = false;
            #(#merges)*
            #changed
        }
    }
}

/// The body of an entity's `read` (and an object schema's `denormalize`): `Ok(Self { .. })`,
/// each field cloned from the row (`row`) or read through the reader `r`. A field the row lacks
/// is its `#[serde(default)]`, or else the struct's `Default`'s.
pub(crate) fn read_row(fields: &[Field], row: &Ident, r: &Ident) -> TokenStream {
    let v = Ident::new("v", Span::mixed_site());
    let defaults = Ident::new("defaults", Span::mixed_site());
    let inits = fields.iter().map(|f| {
        let Field { member, ty, .. } = f;
        let span = ty.span();
        let default = match &f.default {
            None => quote_spanned! {span=> #defaults.#member },
            Some(FieldDefault::Trait) => quote_spanned! {span=> <#ty as ::core::default::Default>::default() },
            Some(FieldDefault::Path(path)) => quote_spanned! {path.span()=> #path() },
        };
        let value = match &f.kind {
            FieldKind::Skipped => default,
            FieldKind::Plain { .. } => {
                let value = match f.text {
                    None => quote_spanned! {span=> ::restcache::__private::clone_field(#v) },
                    Some(Text::Plain) => quote_spanned! {span=> <::std::string::String as ::core::convert::From<_>>::from(#v) },
                    Some(Text::Optional) => quote_spanned! {span=>
                        ::core::option::Option::map(::core::option::Option::as_ref(#v), <::std::string::String as ::core::convert::From<_>>::from)
                    },
                };
                quote_spanned! {span=>
                    match &#row.#member {
                        ::core::option::Option::Some(#v) => #value,
                        ::core::option::Option::None => #default,
                    }
                }
            }
            FieldKind::Nested => quote_spanned! {span=>
                match #r.nested::<#ty>(&#row.#member)? {
                    ::core::option::Option::Some(#v) => <#ty as ::core::convert::From<_>>::from(#v),
                    ::core::option::Option::None => #default,
                }
            },
        };
        quote! { #member: #value, }
    });
    quote! {
        #[allow(unused_variables)]
        let #defaults = <Self as ::core::default::Default>::default();
        ::core::result::Result::Ok(Self { #(#inits)* })
    }
}

/// The row of an object schema as a stored value: its `Clone` and `PartialEq` as an entity
/// row's ([`clone_and_eq`]), and its `Serialize` through its JSON.
pub(crate) fn object_row_traits(row: &Ident, fields: &[Field], generics: &syn::Generics) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let clone_and_eq = clone_and_eq(row, fields, generics);
    let s = Ident::new("__S", Span::mixed_site());
    quote! {
        #clone_and_eq

        #[automatically_derived]
        impl #impl_generics ::restcache::__private::serde::Serialize for #row #ty_generics #where_clause {
            fn serialize<#s: ::restcache::__private::serde::Serializer>(
                &self,
                serializer: #s,
            ) -> ::core::result::Result<#s::Ok, #s::Error> {
                ::restcache::__private::serde::Serialize::serialize(
                    &::restcache::__private::RowData::to_json(self),
                    serializer,
                )
            }
        }
    }
}

/// `__from_json`, an inherent function of an entity's or object schema's row: the row whose
/// JSON is `json` (what its `RowData::to_json` writes), `None` when `json` is not one. A plain field is read
/// back with its type's `Deserialize`, as its type wrote it; a field read with
/// `deserialize_with` (whose input is the response's form, not its type's) is kept only if that
/// function reads it back; a flattened field is read from the fields no other field names.
pub(crate) fn row_from_json(row: &Ident, fields: &[Field], generics: &syn::Generics) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let json = Ident::new("json", Span::mixed_site());
    let map = Ident::new("map", Span::mixed_site());
    let rest = Ident::new("rest", Span::mixed_site());
    let v = Ident::new("v", Span::mixed_site());
    let named: Vec<&String> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped) && !f.flatten)
        .map(|f| &f.name)
        .collect();
    let members = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .map(|f| {
            let Field { member, ty, name, .. } = f;
            let span = ty.span();
            let value = match &f.kind {
                FieldKind::Skipped => unreachable!("filtered out"),
                FieldKind::Nested => quote_spanned! {span=>
                    match #map.get(#name) {
                        ::core::option::Option::Some(#v) => ::core::option::Option::Some(
                            <#ty as ::restcache::__private::Schema>::from_json(#v)?,
                        ),
                        ::core::option::Option::None => ::core::option::Option::None,
                    }
                },
                FieldKind::Plain { deserialize_with } => {
                    let read = match deserialize_with {
                        Some(path) => quote_spanned! {span=> #path },
                        None => {
                            let stored = f.stored_ty();
                            quote_spanned! {span=> <#stored as ::restcache::__private::serde::Deserialize>::deserialize }
                        }
                    };
                    match (f.flatten, deserialize_with) {
                        (true, _) => quote_spanned! {span=> #read(&#rest).ok() },
                        (false, Some(_)) => quote_spanned! {span=> #map.get(#name).and_then(|#v| #read(#v).ok()) },
                        (false, None) => quote_spanned! {span=>
                            match #map.get(#name) {
                                ::core::option::Option::Some(#v) => ::core::option::Option::Some(#read(#v).ok()?),
                                ::core::option::Option::None => ::core::option::Option::None,
                            }
                        },
                    }
                }
            };
            quote! { #member: #value, }
        });
    let flattens = fields
        .iter()
        .any(|f| f.flatten && !matches!(f.kind, FieldKind::Skipped));
    let rest_of = flattens.then(|| {
        quote! {
            let #rest = ::restcache::__private::Value::Object(::core::iter::Iterator::collect(
                ::core::iter::Iterator::map(
                    ::core::iter::Iterator::filter(#map.iter(), |(k, _)| {
                        ![#(#named),*].contains(&::std::string::String::as_str(k))
                    }),
                    |(k, v)| (::core::clone::Clone::clone(k), ::core::clone::Clone::clone(v)),
                ),
            ));
        }
    });
    let params = (generics.type_params().count() > 0).then(|| quote!(__params: ::core::marker::PhantomData,));
    quote! {
        #[automatically_derived]
        impl #impl_generics #row #ty_generics #where_clause {
            fn __from_json(#json: &::restcache::__private::Value) -> ::core::option::Option<Self> {
                let #map = #json.as_object()?;
                #rest_of
                ::core::option::Option::Some(#row { #(#members)* #params })
            }
        }
    }
}

/// `__from_json_text`, an inherent function of an entity's row: [`row_from_json`]'s row read
/// straight from the JSON text, with no `Value` in between: serde fills a struct of the same
/// fields under their JSON names (a plain field with its type's `Deserialize`; a nested one, or a
/// plain one read with `deserialize_with`, as a `Value` first, as `__from_json` reads them), which
/// then moves into the row. A row with a flattened field reads the text as a `Value` first.
pub(crate) fn row_from_json_text(row: &Ident, fields: &[Field]) -> TokenStream {
    let text = Ident::new("text", Span::mixed_site());
    if fields
        .iter()
        .any(|f| f.flatten && !matches!(f.kind, FieldKind::Skipped))
    {
        return quote! {
            #[automatically_derived]
            impl #row {
                fn __from_json_text(#text: &str) -> ::core::option::Option<Self> {
                    let json = ::restcache::__private::serde_json::from_str(#text).ok()?;
                    Self::__from_json(&json)
                }
            }
        };
    }
    let stored = Ident::new("__Stored", Span::mixed_site());
    let s = Ident::new("stored", Span::mixed_site());
    let v = Ident::new("v", Span::mixed_site());
    let kept: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Skipped))
        .collect();
    let members = kept.iter().map(|f| {
        let Field { member, name, .. } = f;
        let ty = match &f.kind {
            FieldKind::Plain { deserialize_with: None } => {
                let stored = f.stored_ty();
                quote!(#stored)
            }
            _ => quote!(::restcache::__private::Value),
        };
        quote! {
            #[serde(rename = #name, default, deserialize_with = "::restcache::__private::present")]
            #member: ::core::option::Option<#ty>,
        }
    });
    let moves = kept.iter().map(|f| {
        let Field { member, ty, .. } = f;
        let span = ty.span();
        let value = match &f.kind {
            FieldKind::Skipped => unreachable!("filtered out"),
            FieldKind::Plain { deserialize_with: None } => quote!(#s.#member),
            FieldKind::Plain {
                deserialize_with: Some(path),
            } => quote_spanned! {span=> #s.#member.and_then(|#v| #path(&#v).ok()) },
            FieldKind::Nested => quote_spanned! {span=>
                match #s.#member {
                    ::core::option::Option::Some(#v) => ::core::option::Option::Some(
                        <#ty as ::restcache::__private::Schema>::from_json(&#v)?,
                    ),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            },
        };
        quote! { #member: #value, }
    });
    quote! {
        #[automatically_derived]
        impl #row {
            fn __from_json_text(#text: &str) -> ::core::option::Option<Self> {
                #[derive(::restcache::__private::serde::Deserialize)]
                #[serde(crate = "::restcache::__private::serde")]
                #[allow(clippy::type_complexity)]
                struct #stored {
                    #(#members)*
                }
                // Only an object: serde would also fill the struct from an array, by position.
                if !#text.trim_start().starts_with('{') {
                    return ::core::option::Option::None;
                }
                let #s: #stored = ::restcache::__private::serde_json::from_str(#text).ok()?;
                ::core::option::Option::Some(#row { #(#moves)* })
            }
        }
    }
}

/// The types of the nested-schema fields, in declaration order.
pub(crate) fn nested_types(fields: &[Field]) -> impl Iterator<Item = &Type> {
    fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Nested))
        .map(|f| &f.ty)
}
