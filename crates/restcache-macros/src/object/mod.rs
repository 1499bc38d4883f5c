//! `#[derive(Schema)]`: object schemas. Parsing in [`parse`], code generation in [`expand`].

mod expand;
mod parse;

use proc_macro2::TokenStream;
use syn::DeriveInput;

/// Expands `#[derive(Schema)]`, or the compile errors of its input.
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    match parse::parse(input) {
        Ok(model) => expand::expand(&model),
        Err(errors) => errors.write_errors(),
    }
}
