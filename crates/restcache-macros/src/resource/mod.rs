//! `resource!`: syntax in [`input`], option lists in [`meta`] and [`options`], checks and
//! resolution in [`parse`] and [`members`] into a [`model`], code generation in [`expand`] and
//! [`params`].

mod expand;
mod input;
mod members;
mod meta;
mod model;
mod options;
mod params;
mod parse;

use proc_macro2::TokenStream;

/// Expands `resource! { ... }`, or the compile errors of its input.
pub(crate) fn resource(tokens: TokenStream) -> TokenStream {
    let input = match syn::parse2::<input::Input>(tokens) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    match parse::parse(input) {
        Ok(model) => expand::expand(&model),
        Err(errors) => errors.write_errors(),
    }
}
