//! R-URL-1..4, R-PATH-3, R-KEY-1: whatever values the args hold, the URL of an endpoint has the
//! template's static segments and segment count, each value decodes back to exactly one segment
//! (never `.` or `..`), nothing injects a `?`, `#`, `&` or `=`, and the query parses back to the
//! args; or the call is a typed `MissingParam` / `InvalidParam` error. Never a panic.

use percent_encoding::percent_decode_str;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use restcache::rest::RestEndpoint;
use restcache::{Error, Method};
use serde_json::{Map, Value};

use crate::json::{TEXTS, key, number, text};

/// One piece of a template's path: a `/`-separated segment, or a placeholder that renders as
/// zero, one or several segments.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Static(&'static str),
    /// `:name`
    Param(&'static str),
    /// `/:name?` or `{/:name}`
    Optional(&'static str),
    /// `*name`
    Wildcard(&'static str),
    /// `{/*name}`
    OptionalWildcard(&'static str),
}

use Piece::*;

/// A template and what it renders to.
#[derive(Debug)]
struct Case {
    template: &'static str,
    prefix: &'static str,
    pieces: &'static [Piece],
    /// A parameter rendered after an escaped `\?`, as the first query pair.
    query_param: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        template: "/todos/:id",
        prefix: "",
        pieces: &[Static("todos"), Param("id")],
        query_param: None,
    },
    Case {
        template: "/users/:userId/todos/:id",
        prefix: "",
        pieces: &[Static("users"), Param("userId"), Static("todos"), Param("id")],
        query_param: None,
    },
    Case {
        template: "/users/:id?",
        prefix: "",
        pieces: &[Static("users"), Optional("id")],
        query_param: None,
    },
    Case {
        template: "/:group/things{/:number}",
        prefix: "",
        pieces: &[Param("group"), Static("things"), Optional("number")],
        query_param: None,
    },
    Case {
        template: "/repos/:owner/*path",
        prefix: "",
        pieces: &[Static("repos"), Param("owner"), Wildcard("path")],
        query_param: None,
    },
    Case {
        template: "/files{/*path}",
        prefix: "",
        pieces: &[Static("files"), OptionalWildcard("path")],
        query_param: None,
    },
    Case {
        template: r"/search\?q=:q",
        prefix: "",
        pieces: &[Static("search")],
        query_param: Some("q"),
    },
    Case {
        template: "/todos/:id",
        prefix: "http://test.com/api",
        pieces: &[Static("todos"), Param("id")],
        query_param: None,
    },
];

impl Case {
    fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .pieces
            .iter()
            .filter_map(|p| match *p {
                Static(_) => None,
                Param(n) | Optional(n) | Wildcard(n) | OptionalWildcard(n) => Some(n),
            })
            .collect();
        names.extend(self.query_param);
        names
    }
}

/// What rendering must give: the decoded path segments and query pairs, or the names an error
/// may be about.
#[derive(Debug)]
enum Expected {
    Url {
        segments: Vec<String>,
        query: Vec<(String, String)>,
    },
    Fails {
        missing: Vec<String>,
        invalid: Vec<String>,
    },
}

/// The string form of a scalar (docs/behaviour.md).
fn string_form(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A path value or wildcard segment (R-URL-2/3): a scalar other than `""`, `.` and `..`.
fn segment(v: &Value) -> Option<String> {
    string_form(v).filter(|s| !matches!(s.as_str(), "" | "." | ".."))
}

/// Errors found so far, by name.
#[derive(Default)]
struct Faults {
    missing: Vec<String>,
    invalid: Vec<String>,
}

impl Faults {
    /// One parameter (R-PATH-3, R-URL-2): its segment, nothing, or a fault.
    fn param(&mut self, name: &str, value: Option<&Value>, required: bool, out: &mut Vec<String>) {
        match value {
            None if required => self.missing.push(name.to_owned()),
            None => {}
            Some(v) => match segment(v) {
                Some(s) => out.push(s),
                None => self.invalid.push(name.to_owned()),
            },
        }
    }

    /// One wildcard (R-URL-3): its segments, nothing, or a fault.
    fn wildcard(&mut self, name: &str, value: Option<&Value>, required: bool, out: &mut Vec<String>) {
        match value {
            Some(Value::Array(items)) if !items.is_empty() => {
                match items.iter().map(segment).collect::<Option<Vec<_>>>() {
                    Some(parts) => out.extend(parts),
                    None => self.invalid.push(name.to_owned()),
                }
            }
            Some(Value::Array(_)) | None if required => self.missing.push(name.to_owned()),
            Some(Value::Array(_)) | None => {}
            Some(_) => self.invalid.push(name.to_owned()),
        }
    }
}

/// The model of R-PATH-3 and R-URL-2..4 for `case`.
fn expected(case: &Case, args: &Map<String, Value>) -> Expected {
    let given = |name: &str| args.get(name).filter(|v| !v.is_null());
    let mut faults = Faults::default();
    let mut segments = Vec::new();
    for piece in case.pieces {
        match *piece {
            Static(s) => segments.push(s.to_owned()),
            Param(n) => faults.param(n, given(n), true, &mut segments),
            Optional(n) => faults.param(n, given(n), false, &mut segments),
            Wildcard(n) => faults.wildcard(n, given(n), true, &mut segments),
            OptionalWildcard(n) => faults.wildcard(n, given(n), false, &mut segments),
        }
    }
    let mut query = Vec::new();
    if let Some(q) = case.query_param {
        let mut first = Vec::new();
        faults.param(q, given(q), true, &mut first);
        query.extend(first.into_iter().map(|v| (q.to_owned(), v)));
    }
    let names = case.names();
    let mut keys: Vec<&String> = args.keys().filter(|k| !names.contains(&k.as_str())).collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for k in keys {
        match &args[k.as_str()] {
            Value::Null => {}
            Value::Object(_) => faults.invalid.push(k.clone()),
            Value::Array(items) if items.iter().any(|i| i.is_array() || i.is_object()) => {
                faults.invalid.push(k.clone());
            }
            Value::Array(items) => query.extend(items.iter().filter_map(string_form).map(|v| (k.clone(), v))),
            scalar => query.extend(string_form(scalar).map(|v| (k.clone(), v))),
        }
    }
    if faults.missing.is_empty() && faults.invalid.is_empty() {
        Expected::Url { segments, query }
    } else {
        Expected::Fails {
            missing: faults.missing,
            invalid: faults.invalid,
        }
    }
}

/// Checks a rendered URL against the model.
fn check_url(case: &Case, url: &str, segments: &[String], query: &[(String, String)]) -> Result<(), TestCaseError> {
    let rest = url.strip_prefix(case.prefix);
    prop_assert!(rest.is_some(), "{} lost its prefix", url);
    let rest = rest.unwrap();
    prop_assert!(!rest.contains('#'), "a `#` in {}", url);
    let (path, q) = rest.split_once('?').unwrap_or((rest, ""));
    prop_assert!(path.starts_with('/'), "{}", url);
    let decoded: Vec<String> = path[1..]
        .split('/')
        .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    prop_assert_eq!(&decoded, segments, "path segments of {}", url);
    prop_assert!(
        !decoded.iter().any(|s| s == "." || s == ".."),
        "a dot segment in {}",
        url
    );
    if query.is_empty() {
        prop_assert!(!rest.contains('?'), "an empty query adds a `?`: {}", url);
    } else {
        // Exactly one `=` per pair and one `&` between pairs: no structure injected.
        let pieces: Vec<&str> = q.split('&').collect();
        prop_assert_eq!(pieces.len(), query.len(), "pairs of {}", url);
        prop_assert!(pieces.iter().all(|p| p.matches('=').count() == 1), "pairs of {}", url);
        let parsed: Vec<(String, String)> = form_urlencoded::parse(q.as_bytes()).into_owned().collect();
        prop_assert_eq!(&parsed, query, "query of {}", url);
    }
    Ok(())
}

/// Values for a path parameter: the awkward texts, any text, numbers, booleans, `null`, and the
/// wrong kinds.
fn param_value() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => select(TEXTS).prop_map(Value::from),
        3 => text().prop_map(Value::String),
        2 => "[a-z0-9]{1,5}".prop_map(Value::String),
        2 => number(),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => vec(text().prop_map(Value::String), 0..3).prop_map(Value::Array),
        1 => Just(serde_json::json!({"a": 1})),
    ]
    .boxed()
}

/// Values for a wildcard: arrays of segments (some of them bad), and the wrong kinds.
fn wildcard_value() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => vec(param_value(), 0..4).prop_map(Value::Array),
        1 => param_value(),
    ]
    .boxed()
}

/// Values for a query key: scalars, arrays of scalars (with `null`s), and nested values.
fn query_value() -> BoxedStrategy<Value> {
    let scalar = prop_oneof![
        3 => text().prop_map(Value::String),
        1 => number(),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
    ];
    prop_oneof![
        6 => scalar.clone(),
        2 => vec(scalar, 0..4).prop_map(Value::Array),
        1 => Just(serde_json::json!([["x"]])),
        1 => Just(serde_json::json!({"a": "b"})),
    ]
    .boxed()
}

/// A case and args for it: each placeholder given (or not) a value, plus extra query keys.
fn case_and_args() -> BoxedStrategy<(usize, Method, Map<String, Value>)> {
    let method = select(vec![
        Method::GET,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
    ]);
    (0..CASES.len(), method)
        .prop_flat_map(|(i, method)| {
            let case = &CASES[i];
            let slots: Vec<BoxedStrategy<Option<(String, Value)>>> = case
                .names()
                .into_iter()
                .map(|name| {
                    let wildcard = case
                        .pieces
                        .iter()
                        .any(|p| matches!(p, Wildcard(n) | OptionalWildcard(n) if *n == name));
                    let value = if wildcard { wildcard_value() } else { param_value() };
                    proptest::option::weighted(0.9, value.prop_map(move |v| (name.to_owned(), v))).boxed()
                })
                .collect();
            let extra = vec((key(), query_value()), 0..4);
            (Just(i), Just(method), slots, extra).prop_map(|(i, method, slots, extra)| {
                let mut args: Map<String, Value> = extra.into_iter().collect();
                args.extend(slots.into_iter().flatten());
                (i, method, args)
            })
        })
        .boxed()
}

proptest! {
    #![proptest_config(crate::config(1024))]

    #[test]
    fn r_url_2_values_stay_inside_their_segment_and_the_query_parses_back((i, method, args) in case_and_args()) {
        let case = &CASES[i];
        let endpoint = RestEndpoint::<Value>::builder(case.template)
            .url_prefix(case.prefix)
            .method(method.clone())
            .build()
            .expect("the template is valid");
        let url = endpoint.url(&args);
        let key = endpoint.key(&args);
        match (&url, &key) {
            (Ok(url), Ok(key)) => prop_assert_eq!(key, &format!("{method} {url}"), "R-KEY-1"),
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            _ => prop_assert!(false, "url and key disagree: {:?} / {:?}", url, key),
        }
        match (expected(case, &args), url) {
            (Expected::Url { segments, query }, Ok(url)) => check_url(case, &url, &segments, &query)?,
            (Expected::Fails { missing, .. }, Err(Error::MissingParam { name, template })) => {
                prop_assert!(missing.contains(&name), "MissingParam {} is not missing", name);
                prop_assert_eq!(template, case.template);
            }
            (Expected::Fails { invalid, .. }, Err(Error::InvalidParam { name, .. })) => {
                prop_assert!(invalid.contains(&name), "InvalidParam {} is not invalid", name);
            }
            (want, got) => prop_assert!(false, "expected {:?}, got {:?}", want, got),
        }
    }
}
