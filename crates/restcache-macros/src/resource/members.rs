//! The members of a resource (R-RES-1, R-RES-4): each `#[member(...)]` checked, the standard
//! members with their overrides, the custom ones (add and derive forms) in declaration order,
//! and the parameter structs of their paths.

use std::collections::HashMap;

use darling::FromMeta;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use restcache_path::Template;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Meta, Type};

use super::input::MemberInput;
use super::meta::parse_options;
use super::model::{Build, Member, Name, ParamsStruct};
use super::options::{self, MemberAttrs, MemberOptions};
use crate::fields::error_at;

/// A standard member's defaults (R-RES-1).
struct Standard {
    name: &'static str,
    method: &'static str,
}

/// The standard members, in the order they are generated; `get_list` is the second.
const STANDARD: [Standard; 5] = [
    Standard {
        name: "get",
        method: "GET",
    },
    Standard {
        name: "get_list",
        method: "GET",
    },
    Standard {
        name: "update",
        method: "PUT",
    },
    Standard {
        name: "partial_update",
        method: "PATCH",
    },
    Standard {
        name: "delete",
        method: "DELETE",
    },
];
const GET_LIST: usize = 1;

/// A member entry, its options checked.
pub(super) struct Entry {
    input: MemberInput,
    docs: Vec<Attribute>,
    attrs: MemberAttrs,
    opts: MemberOptions,
}

/// Reads each member's attributes and options; reports members declared twice and attributes
/// that are not the member's.
pub(super) fn check(members: Vec<MemberInput>, errors: &mut darling::error::Accumulator) -> Vec<Entry> {
    let mut seen: HashMap<String, Span> = HashMap::new();
    let mut entries = Vec::new();
    for mut member in members {
        let mut metas = Vec::new();
        let mut docs = Vec::new();
        for attr in std::mem::take(&mut member.attrs) {
            if attr.path().is_ident("doc") {
                docs.push(attr);
            } else if attr.path().is_ident("member") {
                match &attr.meta {
                    Meta::List(list) => match parse_options(list.tokens.clone()) {
                        Ok(m) => metas.extend(m),
                        Err(e) => errors.push(e.into()),
                    },
                    _ => errors.push(error_at(
                        attr.span(),
                        "write the member's options in a list: `#[member(path = \"...\")]`",
                    )),
                }
            } else {
                errors.push(error_at(
                    attr.path().span(),
                    "a member takes doc comments and `#[member(...)]` only",
                ));
            }
        }
        let attrs = errors.handle(MemberAttrs::from_list(&metas)).unwrap_or_default();
        let opts = MemberOptions::check(&attrs, errors);
        let name = member.ident.unraw().to_string();
        if seen.contains_key(&name) {
            errors.push(error_at(
                member.ident.span(),
                format!("member `{name}` is declared twice; declare each member once, with all its options"),
            ));
            continue;
        }
        seen.insert(name, member.ident.span());
        entries.push(Entry {
            input: member,
            docs,
            attrs,
            opts,
        });
    }
    entries
}

/// What the members are resolved against: the resource's checked options.
pub(super) struct Resource<'a> {
    pub ident: &'a Ident,
    /// `E`.
    pub schema: &'a Type,
    pub path: &'a Template,
    pub list_path: &'a Template,
    /// The resource's `body`.
    pub body: Option<Type>,
    /// The resource's `collection` policy.
    pub collection: Option<Type>,
    /// The resource has a `pagination_field`.
    pub paginated: bool,
}

/// The members, resolved.
pub(super) struct Members {
    /// `L`.
    pub list_schema: TokenStream,
    /// `B`.
    pub body: TokenStream,
    pub overrides: Vec<(&'static str, Vec<TokenStream>)>,
    pub members: Vec<Member>,
    pub params: Vec<ParamsStruct>,
    /// The members' `search_params` checks.
    pub assertions: Vec<TokenStream>,
}

/// What a member resolves to, as the members derived from it see it.
#[derive(Clone)]
struct Resolved {
    schema: TokenStream,
    body: TokenStream,
    paginated: bool,
    method: String,
    path: Template,
}

pub(super) fn resolve(
    resource: &Resource<'_>,
    entries: Vec<Entry>,
    errors: &mut darling::error::Accumulator,
) -> Members {
    let e = resource.schema.to_token_stream();
    let body = resource
        .body
        .as_ref()
        .map_or_else(|| quote!(::restcache::rest::AnyBody), ToTokens::to_token_stream);
    let default_list = match &resource.collection {
        Some(policy) => quote!(::restcache::schema::Collection<::std::vec::Vec<#e>, #policy>),
        None => quote!(::restcache::schema::Collection<::std::vec::Vec<#e>>),
    };
    let assertions = entries
        .iter()
        .filter_map(|entry| entry.attrs.search_params.as_ref().map(options::assert_serialize))
        .collect();
    let (standard, custom): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .partition(|entry| STANDARD.iter().any(|s| entry.input.ident.unraw() == s.name));

    let mut out = Members {
        list_schema: default_list.clone(),
        body: body.clone(),
        overrides: Vec::new(),
        members: Vec::new(),
        params: Vec::new(),
        assertions,
    };
    let mut resolved: HashMap<String, Resolved> = HashMap::new();
    let mut standard: Vec<Option<Entry>> = standard.into_iter().map(Some).collect();
    for (i, std_member) in STANDARD.iter().enumerate() {
        let entry = standard
            .iter_mut()
            .find(|e| e.as_ref().is_some_and(|e| e.input.ident.unraw() == std_member.name))
            .and_then(Option::take);
        let list = i == GET_LIST;
        let defaults = Resolved {
            schema: match std_member.name {
                "get_list" => default_list.clone(),
                "delete" => quote!(::restcache::schema::Invalidate<#e>),
                _ => e.clone(),
            },
            body: match std_member.name {
                "partial_update" | "delete" => quote!(::restcache::rest::AnyBody),
                _ => body.clone(),
            },
            paginated: list && resource.paginated,
            method: std_member.method.to_owned(),
            path: if list { resource.list_path } else { resource.path }.clone(),
        };
        let member = match entry {
            None => member(
                Ident::new(std_member.name, Span::call_site()),
                Vec::new(),
                Build::Standard {
                    name: std_member.name,
                    with_schema: None,
                    with_body: None,
                },
                defaults,
            ),
            Some(entry) => {
                let (member, fields) = override_standard(std_member, list, defaults, entry, errors);
                if list {
                    out.list_schema = member.schema.clone();
                }
                if !fields.is_empty() {
                    out.overrides.push((std_member.name, fields));
                }
                member
            }
        };
        resolved.insert(std_member.name.to_owned(), resolved_of(&member));
        out.members.push(member);
    }

    let names: Vec<String> = custom.iter().map(|e| e.input.ident.unraw().to_string()).collect();
    for (index, entry) in custom.into_iter().enumerate() {
        if let Some(member) = custom_member(&e, &names, index, entry, &resolved, errors) {
            resolved.insert(names[index].clone(), resolved_of(&member));
            out.members.push(member);
        }
    }
    out.params = params_structs(resource.ident, resource.path, &mut out.members, errors);
    out
}

/// The override form: a standard member with some options changed. Returns the member and the
/// `EndpointOptions` fields of its `with_member`.
fn override_standard(
    std_member: &Standard,
    list: bool,
    mut r: Resolved,
    entry: Entry,
    errors: &mut darling::error::Accumulator,
) -> (Member, Vec<TokenStream>) {
    if let Some(target) = &entry.attrs.extends {
        errors.push(error_at(
            target.span(),
            format!(
                "`{}` is a standard member: its options are changed in place, so it cannot `extends` \
                 another; give the new member a name of its own",
                std_member.name
            ),
        ));
    }
    let opts = &entry.opts;
    if let Some(m) = &opts.method {
        r.method.clone_from(m);
    }
    if let Some(p) = &opts.path {
        r.path = p.clone();
    }
    r.paginated |= opts.paginated;
    check_body(&entry, &r.method, errors);
    let schema = entry.attrs.schema.as_ref().map(ToTokens::to_token_stream);
    let body = entry.attrs.body.as_ref().map(ToTokens::to_token_stream);
    if let Some(s) = &schema {
        r.schema = s.clone();
    }
    if let Some(b) = &body {
        r.body = b.clone();
    }
    let mut fields = opts.fields.clone();
    if let Some(name) = &opts.name {
        fields.push(quote!(name: ::core::option::Option::Some(<::std::string::String as ::core::convert::From<_>>::from(#name))));
    }
    let build = Build::Standard {
        name: std_member.name,
        // The list's schema is the resource's `L` already.
        with_schema: schema.filter(|_| !list),
        with_body: body,
    };
    (member(entry.input.ident, entry.docs, build, r), fields)
}

/// The add form (no `extends`: from `get`) or the derive form (from the member it extends).
/// `None` when the base is not one of `resolved`, after reporting it.
fn custom_member(
    e: &TokenStream,
    names: &[String],
    index: usize,
    entry: Entry,
    resolved: &HashMap<String, Resolved>,
    errors: &mut darling::error::Accumulator,
) -> Option<Member> {
    let name = &names[index];
    let base = match &entry.attrs.extends {
        None => Ident::new("get", Span::call_site()),
        Some(target) => {
            let wanted = target.unraw().to_string();
            if !resolved.contains_key(&wanted) {
                let reason = if wanted == *name {
                    format!("member `{name}` cannot extend itself")
                } else if names[index..].contains(&wanted) {
                    format!(
                        "`{wanted}` is declared after `{name}`: a member can only extend a standard member or \
                         one declared before it"
                    )
                } else {
                    format!(
                        "no member `{wanted}` to extend: extend a standard member (get, get_list, update, \
                         partial_update, delete) or one declared before `{name}`"
                    )
                };
                errors.push(error_at(target.span(), reason));
                return None;
            }
            target.clone()
        }
    };
    let from = &resolved[&base.unraw().to_string()];
    let derived = entry.attrs.extends.is_some();
    let opts = &entry.opts;
    let r = Resolved {
        schema: match &entry.attrs.schema {
            Some(ty) => ty.to_token_stream(),
            // The add form reads the entity whatever `get` was changed to read.
            None if !derived => e.clone(),
            None => from.schema.clone(),
        },
        body: entry
            .attrs
            .body
            .as_ref()
            .map_or_else(|| from.body.clone(), ToTokens::to_token_stream),
        paginated: from.paginated || opts.paginated,
        method: opts.method.clone().unwrap_or_else(|| from.method.clone()),
        path: opts.path.clone().unwrap_or_else(|| from.path.clone()),
    };
    check_body(&entry, &r.method, errors);
    let build = Build::Custom {
        base,
        derived,
        fields: opts.fields.clone(),
        name: match &opts.name {
            Some(given) => Name::Given(given.clone()),
            None => Name::Default(name.clone()),
        },
    };
    Some(member(entry.input.ident, entry.docs, build, r))
}

fn member(ident: Ident, docs: Vec<Attribute>, build: Build, r: Resolved) -> Member {
    Member {
        ident,
        docs,
        build,
        schema: r.schema,
        body: r.body,
        paginated: r.paginated,
        method: r.method,
        path: r.path,
        params: Ident::new("_", Span::call_site()),
    }
}

fn resolved_of(m: &Member) -> Resolved {
    Resolved {
        schema: m.schema.clone(),
        body: m.body.clone(),
        paginated: m.paginated,
        method: m.method.clone(),
        path: m.path.clone(),
    }
}

/// R-RES-2: a member that sends no body cannot declare one.
fn check_body(entry: &Entry, method: &str, errors: &mut darling::error::Accumulator) {
    if let Some(ty) = &entry.attrs.body
        && (method == "GET" || method == "HEAD")
    {
        errors.push(
            darling::Error::custom(format!(
                "`body` is declared on `{}`, a {method} member, but {method} requests send no body; \
                 give the member a method that sends one (`method = \"POST\"`), or leave `body` out",
                entry.input.ident.unraw()
            ))
            .with_span(ty),
        );
    }
}

/// One struct per distinct path: the resource path's `{R}Params`, `get_list`'s `{R}ListParams`,
/// then `{R}{Member}Params` in member order. Sets each member's `params`. A member whose
/// struct would take a name another path's struct has is an error at the member.
fn params_structs(
    resource: &Ident,
    path: &Template,
    members: &mut [Member],
    errors: &mut darling::error::Accumulator,
) -> Vec<ParamsStruct> {
    let mut structs = vec![ParamsStruct {
        ident: format_ident!("{resource}Params"),
        path: path.clone(),
        members: Vec::new(),
    }];
    // get_list first, so that its path is `ListParams` whatever the paths of the others.
    let order = std::iter::once(GET_LIST).chain((0..members.len()).filter(|i| *i != GET_LIST));
    for i in order {
        let m = &mut members[i];
        let name = m.ident.unraw().to_string();
        let at = match structs.iter().position(|s| s.path.as_str() == m.path.as_str()) {
            Some(at) => at,
            None => {
                let ident = if i == GET_LIST {
                    format_ident!("{resource}ListParams")
                } else {
                    format_ident!("{resource}{}Params", pascal_case(&name))
                };
                if let Some(taken) = structs.iter().find(|s| s.ident == ident) {
                    errors.push(error_at(
                        m.ident.span(),
                        format!(
                            "member `{name}` would name the parameters of its path `{ident}`, which already \
                             names those of {}; rename the member",
                            match taken.members.first() {
                                Some(other) => format!("`{other}` (path \"{}\")", taken.path.as_str()),
                                None => format!("the resource's path \"{}\"", taken.path.as_str()),
                            }
                        ),
                    ));
                }
                structs.push(ParamsStruct {
                    ident,
                    path: m.path.clone(),
                    members: Vec::new(),
                });
                structs.len() - 1
            }
        };
        structs[at].members.push(name);
        m.params = structs[at].ident.clone();
    }
    structs
}

/// `delete_many` → `DeleteMany`.
fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_become_pascal_case() {
        assert_eq!(pascal_case("delete_many"), "DeleteMany");
        assert_eq!(pascal_case("search"), "Search");
        assert_eq!(pascal_case("by_id_2"), "ById2");
    }
}
