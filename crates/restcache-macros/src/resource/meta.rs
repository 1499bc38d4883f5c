//! The option lists of `#[resource(...)]` and `#[member(...)]`, read into darling's
//! [`NestedMeta`] so darling's attribute structs can check them.
//!
//! darling reads a `name = value` value as an expression, and a type such as `Vec<Todo>` or
//! `Collection<Vec<Todo>, Policy>` is not one (and its comma would end the option). Here a value
//! is read for what it is: a literal, a `[...]` list, or else a type (which covers paths), kept
//! as tokens that darling's `syn::Type` reads back.

use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, ExprLit, ExprPath, Ident, Lit, Meta, MetaNameValue, Path, PathArguments, Token, Type};

/// Reads `name, name = value, ...` (a trailing comma allowed).
pub(super) fn parse_options(tokens: TokenStream) -> syn::Result<Vec<NestedMeta>> {
    let parser = |input: ParseStream<'_>| {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(option(input)?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(items)
    };
    parser.parse2(tokens)
}

/// Whether an option's value ends here.
fn at_end(input: ParseStream<'_>) -> bool {
    input.is_empty() || input.peek(Token![,])
}

fn option(input: ParseStream<'_>) -> syn::Result<NestedMeta> {
    let path = Path::from(Ident::parse_any(input)?);
    if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        let tokens: TokenStream = content.parse()?;
        return Ok(NestedMeta::Meta(Meta::List(syn::MetaList {
            path,
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens,
        })));
    }
    if !input.peek(Token![=]) {
        return Ok(NestedMeta::Meta(Meta::Path(path)));
    }
    let eq_token: Token![=] = input.parse()?;
    let value = value(input)?;
    Ok(NestedMeta::Meta(Meta::NameValue(MetaNameValue {
        path,
        eq_token,
        value,
    })))
}

fn value(input: ParseStream<'_>) -> syn::Result<Expr> {
    if input.peek(Lit) {
        let ahead = input.fork();
        let lit: Lit = ahead.parse()?;
        if at_end(&ahead) {
            input.parse::<Lit>()?;
            return Ok(Expr::Lit(ExprLit { attrs: Vec::new(), lit }));
        }
    }
    if input.peek(syn::token::Bracket) {
        return input.parse();
    }
    let ahead = input.fork();
    match ahead.parse::<Type>() {
        Ok(ty) if at_end(&ahead) => {
            input.parse::<Type>()?;
            Ok(match ty {
                Type::Path(p)
                    if p.qself.is_none()
                        && p.path
                            .segments
                            .iter()
                            .all(|s| matches!(s.arguments, PathArguments::None)) =>
                {
                    Expr::Path(ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: p.path,
                    })
                }
                ty => Expr::Verbatim(ty.into_token_stream()),
            })
        }
        // Not a type: an expression (a negative number, say) for darling to judge.
        _ => input.parse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darling::FromMeta;
    use quote::quote;

    #[derive(FromMeta)]
    struct Probe {
        schema: Type,
        body: Option<Type>,
        flag: darling::util::Flag,
        keys: Option<Vec<syn::LitStr>>,
        path: Option<Path>,
        n: Option<syn::LitInt>,
    }

    fn probe(tokens: TokenStream) -> darling::Result<Probe> {
        Probe::from_list(&parse_options(tokens)?)
    }

    #[test]
    fn generic_types_with_commas_are_one_value() {
        let p = probe(quote!(schema = Collection<Vec<Todo>, Policy>, body = Vec<String>, flag,)).unwrap();
        assert_eq!(
            p.schema.to_token_stream().to_string(),
            quote!(Collection<Vec<Todo>, Policy>).to_string()
        );
        assert_eq!(p.body.unwrap().to_token_stream().to_string(), "Vec < String >");
        assert!(p.flag.is_present());
    }

    #[test]
    fn paths_lists_and_literals_keep_their_form() {
        let p = probe(quote!(
            schema = Todo,
            keys = ["orderBy", "sort"],
            path = a::b,
            n = 60_000
        ))
        .unwrap();
        assert_eq!(
            p.keys.unwrap().iter().map(|k| k.value()).collect::<Vec<_>>(),
            ["orderBy", "sort"]
        );
        assert_eq!(p.path.unwrap().segments.len(), 2);
        assert_eq!(p.n.unwrap().base10_parse::<u64>().unwrap(), 60_000);
        assert!(!p.flag.is_present());
    }

    #[test]
    fn unknown_options_are_darlings_errors() {
        let err = probe(quote!(schema = Todo, shema = Todo)).err().unwrap();
        assert!(err.to_string().contains("shema"), "{err}");
    }
}
