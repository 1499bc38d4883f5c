//! The syntax of `resource! { ... }`: attributes, a struct declaration, and its members.
//!
//! ```text
//! #[attrs]* #[resource(options)] VIS struct NAME ;
//! #[attrs]* #[resource(options)] VIS struct NAME { (#[doc]* #[member(options)]* MEMBER),* }
//! ```

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Generics, Ident, Token, Visibility};

/// The macro's input, read but not checked.
pub(super) struct Input {
    /// Every outer attribute, `#[resource(...)]` included.
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub ident: Ident,
    /// Rejected when not empty; read so that the error can point at them.
    pub generics: Generics,
    pub members: Vec<MemberInput>,
}

/// One entry of the member list.
pub(super) struct MemberInput {
    /// Doc comments and `#[member(...)]`.
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![struct]>()?;
        let ident: Ident = input.parse()?;
        let generics: Generics = input.parse()?;
        let lookahead = input.lookahead1();
        let members = if lookahead.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            Vec::new()
        } else if lookahead.peek(syn::token::Brace) {
            let content;
            syn::braced!(content in input);
            Punctuated::<MemberInput, Token![,]>::parse_terminated(&content)?
                .into_iter()
                .collect()
        } else {
            return Err(lookahead.error());
        };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the resource: one `resource!` declares one resource"));
        }
        Ok(Input {
            attrs,
            vis,
            ident,
            generics,
            members,
        })
    }
}

impl Parse for MemberInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        Ok(MemberInput {
            attrs: input.call(Attribute::parse_outer)?,
            ident: input.parse()?,
        })
    }
}
