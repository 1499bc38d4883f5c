//! JSON values: how deep an input may nest, where one nests too deep, dropping a deep one, and
//! the names of JSON kinds and the args object, for every layer above.

use serde_json::{Map, Value};

/// How deep input may nest: serde_json's own recursion limit (R-NORM-8, R-RESP-4).
pub(crate) const MAX_INPUT_DEPTH: usize = 128;

/// Drops a value without recursion, however deep it nests.
pub(crate) fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// The JSON Pointer of the first value nested [`MAX_INPUT_DEPTH`] levels deep, if any.
pub(crate) fn too_deep(value: &Value, depth: usize) -> Option<String> {
    let at = |seg: String, rest: String| format!("/{seg}{rest}");
    if depth >= MAX_INPUT_DEPTH && matches!(value, Value::Array(_) | Value::Object(_)) {
        return Some(String::new());
    }
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| too_deep(v, depth + 1).map(|rest| at(i.to_string(), rest))),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| too_deep(v, depth + 1).map(|rest| at(k.replace('~', "~0").replace('/', "~1"), rest))),
        _ => None,
    }
}

/// `value`, or the JSON Pointer where it nests [`MAX_INPUT_DEPTH`] levels deep; such a value is
/// dropped without recursion.
pub(crate) fn shallow(value: Value) -> Result<Value, String> {
    match too_deep(&value, 0) {
        Some(at) => {
            dispose(value);
            Err(at)
        }
        None => Ok(value),
    }
}

/// The object inside an args value (`{}` for anything else).
pub(crate) fn as_map(args: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    args.as_object().unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The JSON kind of a value, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
