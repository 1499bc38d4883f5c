//! `Values<S>`: a JSON object used as a map of schema values (R-VAL).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;

use serde_json::{Map, Value};

use super::{EntityField, Registry, Schema};
use crate::denormalize::{DenormalizeCtx, Unresolved};
use crate::error::Error;
use crate::normalize::{NormalizeCtx, Seg, kind};

/// A JSON object whose values each follow `S`; an entity value without a pk takes its map key.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct User { #[entity(pk)] id: String, name: String }
///
/// let mut store = Store::new();
/// store.set_response::<Values<User>>("GET /users", &(), &json!({"a": {"name": "Ada"}}))?;
/// let users = store.get_response::<Values<User>>("GET /users", &())?.data.unwrap();
/// assert_eq!(users["a"].name, "Ada");
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Values<S: Schema>(BTreeMap<String, S::Output>);

impl<S: Schema> Values<S> {
    /// The map.
    pub fn into_inner(self) -> BTreeMap<String, S::Output> {
        self.0
    }
}

impl<S: Schema> Deref for Values<S> {
    type Target = BTreeMap<String, S::Output>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<S: Schema> From<BTreeMap<String, S::Output>> for Values<S> {
    fn from(map: BTreeMap<String, S::Output>) -> Self {
        Values(map)
    }
}

impl<S: Schema> Clone for Values<S> {
    fn clone(&self) -> Self {
        Values(self.0.clone())
    }
}

impl<S: Schema> Default for Values<S> {
    fn default() -> Self {
        Values(BTreeMap::new())
    }
}

impl<S: Schema> fmt::Debug for Values<S>
where
    S::Output: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<S: Schema> Schema for Values<S> {
    type Output = BTreeMap<String, S::Output>;

    const PARENT: super::ParentUse = S::PARENT;

    fn normalize(input: &mut Value, ctx: &mut NormalizeCtx<'_>) -> Result<Value, Error> {
        let Value::Object(map) = input else {
            return Err(ctx.invalid(None, format!("expected an object for Values, found {}", kind(input))));
        };
        ctx.check_depth()?;
        let was = std::mem::replace(&mut ctx.in_list, true);
        let mut out = Map::new();
        let mut result = Ok(());
        for (k, v) in map.iter_mut() {
            if v.is_null() {
                continue;
            }
            ctx.pk_fallback = Some(k.clone());
            let r = ctx.at(Seg::Key(k.clone().into()), |ctx| S::normalize(v, ctx));
            ctx.pk_fallback = None;
            match r {
                Ok(Value::Null) => {}
                Ok(n) => {
                    out.insert(k.clone(), n);
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        ctx.in_list = was;
        result.map(|()| Value::Object(out))
    }

    fn denormalize<'s>(stored: &'s Value, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        let Value::Object(map) = stored else {
            return Err(Unresolved);
        };
        Ok(map
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), S::denormalize(v, ctx).ok()?)))
            .collect())
    }

    fn register(registry: &mut Registry) {
        S::register(registry);
    }
}
impl<S: EntityField> EntityField for Values<S> {}
