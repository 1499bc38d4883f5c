//! R-ERR-2 for templates and keys: huge, odd or random inputs never panic and never take
//! exponential time; every rendered key matches its own endpoint's pattern.

use std::time::{Duration, Instant};

use restcache_path::{KeyPattern, PlaceholderKind, RenderError, Template, cache_key};
use serde_json::{Map, Value, json};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn r_err_2_very_long_literal_template() {
    let template = format!("{}/:id", "/abc".repeat(50_000));
    let parsed = Template::parse(&template).unwrap();
    let url = parsed.render(json!({ "id": 1 }).as_object().unwrap()).unwrap();
    assert_eq!(url.len(), template.len() - 2);
    assert_eq!(parsed.shorten().unwrap().as_str().len(), 200_000);
    assert!(parsed.key_pattern("GET", "").test_key(&cache_key("GET", &url)));
}

#[test]
fn r_err_2_many_parameters() {
    let template: String = (0..5_000).map(|i| format!("/:p{i}")).collect();
    let parsed = Template::parse(&template).unwrap();
    assert_eq!(parsed.placeholders().len(), 5_000);
    let args: Map<String, Value> = (0..5_000).map(|i| (format!("p{i}"), json!(i))).collect();
    let url = parsed.render(&args).unwrap();
    assert!(parsed.key_pattern("GET", "").test_key(&cache_key("GET", &url)));
    let duplicate = format!("{template}/:p4999");
    assert_eq!(
        Template::parse(&duplicate).unwrap_err().reason,
        "parameter `p4999` is used twice"
    );
}

#[test]
fn r_err_2_many_groups_and_a_long_error_template() {
    let template: String = (0..2_000).map(|i| format!("{{/:g{i}}}")).collect();
    let parsed = Template::parse(&template).unwrap();
    assert_eq!(parsed.render(&Map::new()).unwrap(), "");
    let pattern = parsed.key_pattern("GET", "");
    assert!(pattern.test_key("GET "));
    assert!(pattern.test_key(&format!("GET {}", "/x".repeat(2_000))));
    assert!(!pattern.test_key(&format!("GET {}", "/x".repeat(2_001))));
    let bad = format!("{}(", "/a".repeat(100_000));
    assert_eq!(Template::parse(&bad).unwrap_err().index, 200_000);
}

#[test]
fn r_err_2_keys_with_many_slashes_are_linear() {
    let started = Instant::now();
    let wildcards: String = (0..50).map(|i| format!("/*w{i}")).collect();
    let pattern = KeyPattern::new("GET", "", &Template::parse(&wildcards).unwrap());
    let key = format!("GET {}x\n", "/".repeat(100_000));
    assert!(!pattern.test_key(&key));
    let key = format!("GET {}", "/a".repeat(100_000));
    assert!(pattern.test_key(&key));
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn r_err_2_adjacent_parameters_do_not_backtrack_exponentially() {
    let started = Instant::now();
    let template: String = (0..40).map(|i| format!(":a{i}")).collect::<String>() + "/end";
    let pattern = KeyPattern::new("GET", "", &Template::parse(&format!("/{template}")).unwrap());
    let key = format!("GET /{}/nope", "x".repeat(20_000));
    assert!(!pattern.test_key(&key));
    let key = format!("GET /{}/end", "x".repeat(20_000));
    assert!(pattern.test_key(&key));
    let optional: String = (0..40).map(|i| format!("{{-:o{i}}}")).collect();
    let pattern = KeyPattern::new("GET", "", &Template::parse(&optional).unwrap());
    assert!(!pattern.test_key(&format!("GET {}/z", "-x".repeat(40))));
    assert!(pattern.test_key(&format!("GET {}/", "-x".repeat(40))));
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn r_err_2_unicode_everywhere() {
    let parsed = Template::parse(r"/😀/ü\é/:ﬁle_id/*ß").unwrap_err();
    assert_eq!(parsed.index, 12);
    let parsed = Template::parse(r"/😀/ü\é/:id/*rest").unwrap();
    let url = parsed
        .render(
            json!({ "id": "İ", "rest": ["ﬃ", "😀"], "ключ": "значение" })
                .as_object()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        url,
        "/😀/üé/%C4%B0/%EF%AC%83/%F0%9F%98%80?%D0%BA%D0%BB%D1%8E%D1%87=%D0%B7%D0%BD%D0%B0%D1%87%D0%B5%D0%BD%D0%B8%D0%B5"
    );
    let pattern = parsed.key_pattern("GET", "");
    assert!(pattern.test_key(&cache_key("GET", &url)));
    assert!(pattern.test_key("GET /😀/ÜÉ/x/y"));
    assert!(!pattern.test_key("GET /😁/üé/x/y"));
    assert_eq!(parsed.shorten().unwrap().as_str(), r"/😀/ü\é/:id");
}

#[test]
fn r_err_2_random_templates_never_panic() {
    const PIECES: &[&str] = &[
        "/", "a", "Z", ":id", ":x", ":y_1", "?", "{", "}", "*w", "*v", "\\", "\\:", "\\?", "\\/", "(", ")", "[", "]",
        "+", "!", ":", "*", "%20", "&", "=", "é", "😀", "-", ".", "\n",
    ];
    let values = [
        json!("v"),
        json!(""),
        json!(".."),
        json!(7),
        json!(null),
        json!(["s", "t"]),
        json!([]),
        json!({}),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut valid, mut rendered) = (0, 0);
    for _ in 0..20_000 {
        let len = rng.below(12);
        let source: String = (0..len).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        let template = match Template::parse(&source) {
            Ok(template) => template,
            Err(err) => {
                assert!(
                    source.is_char_boundary(err.index) && err.index < source.len().max(1),
                    "{source:?}: {err}"
                );
                continue;
            }
        };
        valid += 1;
        if let Ok(short) = template.shorten() {
            assert!(source.starts_with(short.as_str()));
            assert!(short.placeholders().len() < template.placeholders().len());
        }
        // Args: good values for every name, sometimes a random one, plus a query key.
        let mut args = Map::new();
        for placeholder in template.placeholders() {
            let value = if rng.below(4) == 0 {
                values[rng.below(values.len())].clone()
            } else if placeholder.kind() == PlaceholderKind::Wildcard {
                json!(["a b", "c"])
            } else {
                json!("x/y")
            };
            args.insert(placeholder.name().to_owned(), value);
        }
        args.insert("q".into(), json!("1 2"));
        match template.render_url("http://h", &args) {
            Ok(url) => {
                rendered += 1;
                let pattern = template.key_pattern("GET", "http://h");
                assert!(pattern.test_key(&cache_key("GET", &url)), "{source:?} -> {url:?}");
            }
            Err(RenderError::MissingParam { name, .. } | RenderError::InvalidParam { name, .. }) => {
                assert!(template.has_name(&name), "{source:?}: {name}");
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert!(valid > 1_000 && rendered > 500, "valid {valid}, rendered {rendered}");
}

#[test]
fn r_err_2_random_keys_never_panic() {
    const PIECES: &[&str] = &["/", "?", "&", "a", "A", "%3F", "é", "É", "😀", "\n", "x", "GET ", " "];
    let patterns: Vec<KeyPattern> = ["/:a/:b?", "/x{/:y}/*z", r"/s\?q=:q?", "/", "", "/:a:b:c"]
        .iter()
        .map(|t| KeyPattern::new("GET", "", &Template::parse(t).unwrap()))
        .collect();
    let mut rng = Rng(42);
    for _ in 0..20_000 {
        let len = rng.below(16);
        let key: String = std::iter::once("GET ")
            .chain((0..len).map(|_| PIECES[rng.below(PIECES.len())]))
            .collect();
        for pattern in &patterns {
            let _ = pattern.test_key(&key);
        }
    }
}
