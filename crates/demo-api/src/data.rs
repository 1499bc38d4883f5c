//! The in-memory data set and the list operations the routes share (lookup by id, filters, paging).

use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::extract::Params;

/// One stored item: a JSON object that always carries an `id`.
pub(crate) type Record = Map<String, Value>;

/// Everything the server holds. Each list is kept in id order (new items are appended with the
/// next id), so listing order is deterministic.
#[derive(Debug, Clone)]
pub(crate) struct Data {
    pub(crate) users: Vec<Record>,
    pub(crate) todos: Vec<Record>,
    pub(crate) feed: Vec<Record>,
    pub(crate) articles: Vec<Record>,
}

const USERS: [(&str, &str, &str); 3] = [
    ("u1", "Ada Lovelace", "ada@example.com"),
    ("u2", "Alan Turing", "alan@example.com"),
    ("u3", "Grace Hopper", "grace@example.com"),
];

impl Data {
    /// The seed: users u1..u3; todos 1..=30 (10 per user, every third one completed); feed items
    /// 1..=6 alternating link and post, plus item 7 of the unknown type `video`; 25 articles.
    pub(crate) fn seeded() -> Self {
        let users = USERS
            .iter()
            .map(|(id, name, email)| object(json!({ "id": id, "name": name, "email": email })));
        let todos = (1..=30u64).map(|id| {
            let user = USERS[((id - 1) / 10) as usize].0;
            object(json!({ "id": id, "userId": user, "title": format!("Todo {id}"), "completed": id % 3 == 0 }))
        });
        let mut feed: Vec<Record> = (1..=6u64)
            .map(|id| {
                if id % 2 == 1 {
                    object(json!({
                        "id": id,
                        "type": "link",
                        "url": format!("https://example.com/links/{id}"),
                        "title": format!("Link {id}"),
                    }))
                } else {
                    object(json!({ "id": id, "type": "post", "content": format!("Post {id} content") }))
                }
            })
            .collect();
        feed.push(object(
            json!({ "id": 7, "type": "video", "src": "https://example.com/videos/7.mp4" }),
        ));
        let articles = (1..=25u64).map(|id| {
            let author = USERS[((id - 1) % 3) as usize].0;
            object(json!({ "id": id, "title": format!("Article {id}"), "authorId": author }))
        });
        Data {
            users: users.collect(),
            todos: todos.collect(),
            feed,
            articles: articles.collect(),
        }
    }
}

/// Turns a `json!` object literal into a [`Record`] (anything else into an empty one).
pub(crate) fn object(value: Value) -> Record {
    match value {
        Value::Object(map) => map,
        _ => Record::new(),
    }
}

/// The string form of a JSON value, as used for ids and filters: strings as they are, numbers and
/// booleans in their JSON spelling, `null` as `"null"`; arrays and objects have none.
pub(crate) fn string_form(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_owned()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// The string form of a record's `id`.
pub(crate) fn pk_of(record: &Record) -> Option<String> {
    record.get("id").and_then(string_form)
}

/// Where the record whose id has the string form `id` is.
pub(crate) fn position(list: &[Record], id: &str) -> Option<usize> {
    list.iter().position(|record| pk_of(record).as_deref() == Some(id))
}

/// The next numeric id: one more than the largest numeric id in the list (1 for an empty list).
pub(crate) fn next_numeric_id(list: &[Record]) -> u64 {
    list.iter()
        .filter_map(|r| r.get("id").and_then(Value::as_u64))
        .max()
        .unwrap_or(0)
        .saturating_add(1)
}

/// The next `u<n>` id for users.
pub(crate) fn next_user_id(list: &[Record]) -> String {
    let max = list
        .iter()
        .filter_map(|r| r.get("id").and_then(Value::as_str))
        .filter_map(|id| id.strip_prefix('u').and_then(|n| n.parse::<u64>().ok()))
        .max()
        .unwrap_or(0);
    format!("u{}", max.saturating_add(1))
}

/// Copies every field of `body` except `id` into `target`.
pub(crate) fn merge(target: &mut Record, body: &Record) {
    for (key, value) in body {
        if key != "id" {
            target.insert(key.clone(), value.clone());
        }
    }
}

/// Keeps the records whose `field`'s string form equals the query's value, for each of `fields`
/// present in the query.
pub(crate) fn filter_exact(records: Vec<Record>, params: &Params, fields: &[&str]) -> Vec<Record> {
    records
        .into_iter()
        .filter(|record| {
            fields.iter().all(|field| match params.get(field) {
                None => true,
                Some(wanted) => record.get(*field).and_then(string_form).as_deref() == Some(wanted),
            })
        })
        .collect()
}

/// Applies `page` (1-based) and `limit` (default 10) when either is in the query; otherwise the
/// whole list.
pub(crate) fn paginate(records: Vec<Record>, params: &Params) -> Result<Vec<Record>, ApiError> {
    if params.get("page").is_none() && params.get("limit").is_none() {
        return Ok(records);
    }
    let page = params.parse_or("page", 1usize)?;
    if page == 0 {
        return Err(ApiError::bad_request("`page` is 1-based"));
    }
    let limit = params.parse_or("limit", 10usize)?;
    let start = (page - 1).saturating_mul(limit);
    Ok(records.into_iter().skip(start).take(limit).collect())
}

/// A list of records as a JSON array.
pub(crate) fn to_array(records: Vec<Record>) -> Value {
    Value::Array(records.into_iter().map(Value::Object).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_has_the_documented_shape() {
        let data = Data::seeded();
        assert_eq!(data.users.len(), 3);
        assert_eq!(data.todos.len(), 30);
        assert_eq!(data.todos.iter().filter(|t| t["userId"] == "u2").count(), 10);
        assert_eq!(data.todos.iter().filter(|t| t["completed"] == true).count(), 10);
        assert_eq!(data.feed.len(), 7);
        assert_eq!(data.feed[6]["type"], "video");
        assert_eq!(data.articles.len(), 25);
    }

    #[test]
    fn ids() {
        let data = Data::seeded();
        assert_eq!(next_numeric_id(&data.todos), 31);
        assert_eq!(next_user_id(&data.users), "u4");
        assert_eq!(position(&data.todos, "5"), Some(4));
        assert_eq!(position(&data.users, "u2"), Some(1));
        assert_eq!(position(&data.todos, "x"), None);
    }

    #[test]
    fn merge_keeps_the_id() {
        let mut target = object(json!({ "id": 1, "title": "a" }));
        merge(&mut target, &object(json!({ "id": 9, "title": "b", "extra": true })));
        assert_eq!(Value::Object(target), json!({ "id": 1, "title": "b", "extra": true }));
    }
}
