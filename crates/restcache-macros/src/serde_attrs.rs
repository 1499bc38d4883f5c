//! Reading serde's attributes: they are serde's, not ours. The derives hand them on to the row
//! type serde fills ([`forwarded`]), so serde gives each its documented meaning; restcache reads
//! only what it needs besides: a field's JSON name (for nested fields and `to_json`), whether it
//! is skipped, the function that deserializes it, and its default (applied when a row lacks
//! the field, see the entity derive).

use darling::util::{Flag, Ignored};
use darling::{FromAttributes, FromMeta};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Meta, Path, Token};

/// `#[serde(...)]` on the struct.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(serde), allow_unknown_fields)]
pub(crate) struct SerdeContainer {
    /// `rename_all = "..."` or `rename_all(deserialize = "...")`.
    pub rename_all: Option<Deserialize<RenameRule>>,
}

/// `#[serde(...)]` on a field.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(serde), allow_unknown_fields)]
pub(crate) struct SerdeField {
    /// `rename = "..."` or `rename(deserialize = "...")`.
    pub rename: Option<Deserialize<String>>,
    pub skip: Flag,
    pub skip_deserializing: Flag,
    pub deserialize_with: Option<Path>,
    /// `with = "module"`: deserialized by `module::deserialize`.
    pub with: Option<Path>,
    pub flatten: Flag,
    /// `default` or `default = "path"`.
    pub default: Option<FieldDefault>,
}

/// A field's `#[serde(default)]`: the type's `Default`, or a function.
#[derive(Debug, Clone)]
pub(crate) enum FieldDefault {
    Trait,
    Path(Path),
}

impl FromMeta for FieldDefault {
    fn from_word() -> darling::Result<Self> {
        Ok(FieldDefault::Trait)
    }

    fn from_string(value: &str) -> darling::Result<Self> {
        syn::parse_str(value)
            .map(FieldDefault::Path)
            .map_err(|e| darling::Error::custom(format!("not a path: {e}")))
    }
}

impl SerdeField {
    /// Whether serde leaves the field at its default when deserializing.
    pub fn skipped(&self) -> bool {
        self.skip.is_present() || self.skip_deserializing.is_present()
    }

    /// The function that deserializes the field, if it is not the type's own `Deserialize`.
    pub fn deserializer(&self) -> Option<Path> {
        if let Some(path) = &self.deserialize_with {
            return Some(path.clone());
        }
        self.with.as_ref().map(|module| {
            let mut path = module.clone();
            path.segments
                .push(syn::Ident::new("deserialize", proc_macro2::Span::call_site()).into());
            path
        })
    }
}

/// The serde options of `attrs` that the row type gets as they are: every one but those the
/// derive handles itself (`drop`), in order.
fn kept_metas(attrs: &[Attribute], drop: &[&str]) -> syn::Result<Vec<Meta>> {
    let mut kept = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let metas = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
        kept.extend(metas.into_iter().filter(|m| !drop.iter().any(|d| m.path().is_ident(d))));
    }
    Ok(kept)
}

/// The serde options of a field that its row field gets as they are. Dropped: those the derive
/// applies itself (`default`, `deserialize_with`, `with`) and those of serialization alone.
pub(crate) fn forwarded_field(attrs: &[Attribute]) -> syn::Result<Vec<Meta>> {
    const DROP: &[&str] = &[
        "default",
        "deserialize_with",
        "with",
        "serialize_with",
        "skip_serializing",
        "skip_serializing_if",
        "getter",
        "bound",
    ];
    kept_metas(attrs, DROP)
}

/// The serde options of a struct that its row type gets as they are, or an error on one that
/// cannot apply to a row filled field by field (`from`, `transparent`, ...). Dropped: `default`
/// (applied when a row lacks a field), `crate`, `bound` and those of serialization alone.
pub(crate) fn forwarded_container(attrs: &[Attribute], noun: &str) -> syn::Result<Vec<Meta>> {
    const DROP: &[&str] = &["default", "crate", "bound", "into", "serialize"];
    const REFUSED: &[&str] = &[
        "from",
        "try_from",
        "transparent",
        "remote",
        "tag",
        "untagged",
        "content",
    ];
    let kept = kept_metas(attrs, DROP)?;
    if let Some(meta) = kept.iter().find(|m| REFUSED.iter().any(|r| m.path().is_ident(r))) {
        let name = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
        return Err(syn::Error::new(
            meta.span(),
            format!("`#[serde({name})]` is not supported on an {noun}: restcache reads it field by field"),
        ));
    }
    Ok(kept)
}

/// The deserialize half of a serde option that is written either `name = value` (both halves)
/// or `name(serialize = value, deserialize = value)`.
#[derive(Debug)]
pub(crate) struct Deserialize<T>(pub Option<T>);

impl<T: FromMeta> FromMeta for Deserialize<T> {
    fn from_value(value: &syn::Lit) -> darling::Result<Self> {
        T::from_value(value).map(|v| Deserialize(Some(v)))
    }

    fn from_list(items: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        Halves::<T>::from_list(items).map(|h| Deserialize(h.deserialize))
    }
}

#[derive(FromMeta)]
struct Halves<T> {
    #[allow(dead_code)]
    serialize: Option<Ignored>,
    deserialize: Option<T>,
}

/// serde's `rename_all` rules, applied to a Rust field name (`snake_case` by convention).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl FromMeta for RenameRule {
    fn from_string(value: &str) -> darling::Result<Self> {
        RULES
            .iter()
            .find(|(name, _)| *name == value)
            .map(|(_, rule)| *rule)
            .ok_or_else(|| darling::Error::unknown_value_with_alts(value, RULES.iter().map(|(name, _)| name)))
    }
}

impl RenameRule {
    /// The JSON name of the field `field`, exactly as serde's `rename_all` computes it.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::with_capacity(field.len());
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// A variant name (`PascalCase`) in `snake_case`, as serde's `rename_all = "snake_case"` writes
/// it: `BlogPost` → `blog_post`.
pub(crate) fn snake_case_variant(variant: &str) -> String {
    let mut snake = String::with_capacity(variant.len() + 4);
    for (i, ch) in variant.char_indices() {
        if i > 0 && ch.is_uppercase() {
            snake.push('_');
        }
        snake.push(ch.to_ascii_lowercase());
    }
    snake
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules_match_serde_on_fields() {
        let cases = [
            (RenameRule::Lower, "user_id"),
            (RenameRule::Upper, "USER_ID"),
            (RenameRule::Pascal, "UserId"),
            (RenameRule::Camel, "userId"),
            (RenameRule::Snake, "user_id"),
            (RenameRule::ScreamingSnake, "USER_ID"),
            (RenameRule::Kebab, "user-id"),
            (RenameRule::ScreamingKebab, "USER-ID"),
        ];
        for (rule, want) in cases {
            assert_eq!(rule.apply_to_field("user_id"), want, "{rule:?}");
        }
        assert_eq!(RenameRule::Camel.apply_to_field("id"), "id");
        assert_eq!(RenameRule::Camel.apply_to_field("a_b_c"), "aBC");
    }

    #[test]
    fn every_rule_name_parses() {
        for (name, rule) in RULES {
            assert_eq!(RenameRule::from_string(name).unwrap(), *rule);
        }
        assert!(RenameRule::from_string("Camel").is_err());
    }

    #[test]
    fn variant_names_become_snake_case() {
        assert_eq!(snake_case_variant("Link"), "link");
        assert_eq!(snake_case_variant("BlogPost"), "blog_post");
        assert_eq!(snake_case_variant("A"), "a");
    }
}
