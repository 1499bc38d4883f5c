//! Turning JSON scalars into URL text: the string form (docs/behaviour.md), path values
//! (R-URL-2) and the query string (R-URL-4).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Bytes that JavaScript's `encodeURIComponent` escapes: all but `A–Z a–z 0–9 - _ . ! ~ * ' ( )`.
const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// The string form of a scalar (docs/behaviour.md): a string as-is, an integer in decimal
/// digits, any other number as serde_json writes it, `true` / `false`. `null`, arrays and
/// objects have none.
///
/// # Example
///
/// ```
/// use restcache_path::string_form;
/// use serde_json::json;
///
/// assert_eq!(string_form(&json!("a b")).as_deref(), Some("a b"));
/// assert_eq!(string_form(&json!(5)).as_deref(), Some("5"));
/// assert_eq!(string_form(&json!(-5.5)).as_deref(), Some("-5.5"));
/// assert_eq!(string_form(&json!(true)).as_deref(), Some("true"));
/// assert_eq!(string_form(&json!(null)), None);
/// assert_eq!(string_form(&json!([1])), None);
/// ```
pub fn string_form(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Percent-encodes a path value like JavaScript's `encodeURIComponent` (R-URL-2): the UTF-8 bytes
/// of `A–Z a–z 0–9 - _ . ! ~ * ' ( )` are kept, every other byte becomes `%XX` (uppercase hex).
///
/// # Example
///
/// ```
/// use restcache_path::encode_path_value;
///
/// assert_eq!(encode_path_value("a b/c?d"), "a%20b%2Fc%3Fd");
/// assert_eq!(encode_path_value("ü"), "%C3%BC");
/// assert_eq!(encode_path_value("%20"), "%2520");
/// assert_eq!(encode_path_value("-_.!~*'()"), "-_.!~*'()");
/// ```
pub fn encode_path_value(value: &str) -> String {
    utf8_percent_encode(value, URI_COMPONENT).to_string()
}

/// Serializes query pairs as `application/x-www-form-urlencoded` (WHATWG): `a=1&q=x+y`.
pub(crate) fn form_encode<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        serializer.append_pair(key, &value);
    }
    serializer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn r_url_2_encodes_every_other_byte_uppercase() {
        for byte in 0u8..=0x7f {
            let c = char::from(byte);
            let encoded = encode_path_value(&c.to_string());
            let kept = c.is_ascii_alphanumeric() || "-_.!~*'()".contains(c);
            if kept {
                assert_eq!(encoded, c.to_string());
            } else {
                assert_eq!(encoded, format!("%{byte:02X}"));
            }
        }
        assert_eq!(encode_path_value("€"), "%E2%82%AC");
    }

    #[test]
    fn r_url_4_form_encoding() {
        let pairs = [("a b", "x y".to_owned()), ("k", "*-._~!'()/?&=+".to_owned())];
        assert_eq!(form_encode(pairs), "a+b=x+y&k=*-._%7E%21%27%28%29%2F%3F%26%3D%2B");
        assert_eq!(form_encode(std::iter::empty()), "");
    }

    #[test]
    fn string_form_of_numbers() {
        assert_eq!(string_form(&json!(u64::MAX)).unwrap(), u64::MAX.to_string());
        assert_eq!(string_form(&json!(i64::MIN)).unwrap(), i64::MIN.to_string());
        assert_eq!(string_form(&json!(2.0)).unwrap(), "2.0");
        assert_eq!(string_form(&json!(false)).unwrap(), "false");
    }
}
