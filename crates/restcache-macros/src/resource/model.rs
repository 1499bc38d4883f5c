//! What `resource!` generates, checked and resolved: the input of [`super::expand`].

use proc_macro2::TokenStream;
use restcache_path::Template;
use syn::{Attribute, Ident, Type, Visibility};

/// A resource, checked and resolved.
pub(super) struct ResourceModel {
    /// The struct's attributes, `#[resource]` taken out.
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    /// `E`: the entity or union.
    pub schema: Type,
    /// `L`: the schema of `get_list`.
    pub list_schema: TokenStream,
    /// `B`: the declared body type, or `AnyBody`.
    pub body: TokenStream,
    /// `ResourceOptions` field initializers.
    pub resource_options: Vec<TokenStream>,
    /// `with_member(name, EndpointOptions { .. })` of the overridden standard members.
    pub overrides: Vec<(&'static str, Vec<TokenStream>)>,
    /// The standard members, then the custom ones in declaration order.
    pub members: Vec<Member>,
    /// One parameter struct per distinct path.
    pub params: Vec<ParamsStruct>,
    /// `const _` items checking the types given (schema, search params) where they are written.
    pub assertions: Vec<TokenStream>,
}

/// One associated fn of the resource.
pub(super) struct Member {
    pub ident: Ident,
    /// The member's doc comments.
    pub docs: Vec<Attribute>,
    pub build: Build,
    /// The schema type `S` of the `RestEndpoint<S, B, G>` returned.
    pub schema: TokenStream,
    /// The body type `B`.
    pub body: TokenStream,
    /// `G` is `Pages`: the member has a `pagination_field`.
    pub paginated: bool,
    /// The uppercase method.
    pub method: String,
    /// The path template.
    pub path: Template,
    /// The member's parameter struct.
    pub params: Ident,
}

/// How a member's endpoint is built.
pub(super) enum Build {
    /// The resource's own member, retyped when its schema or body was overridden.
    Standard {
        name: &'static str,
        /// The overriding schema type.
        with_schema: Option<TokenStream>,
        /// The overriding body type.
        with_body: Option<TokenStream>,
    },
    /// A new member: `Self::base().extend(EndpointOptions { .. })` (the add form from `get`,
    /// the derive form from `extends`).
    Custom {
        base: Ident,
        /// The derive form (`extends`), not the add form.
        derived: bool,
        fields: Vec<TokenStream>,
        name: Name,
    },
}

/// The name of a custom member.
pub(super) enum Name {
    /// `name = "..."`.
    Given(String),
    /// `K.member`: the member's name, after the resource name of the schema.
    Default(String),
}

/// A parameter struct: the parameters and wildcards of one path.
pub(super) struct ParamsStruct {
    pub ident: Ident,
    pub path: Template,
    /// The members using it, for its docs.
    pub members: Vec<String>,
}
