//! An in-memory REST API for restcache's examples and integration tests.
//!
//! [`DemoServer::start`] seeds a fresh data set (users, todos, a feed of links and posts, paginated
//! articles), binds `127.0.0.1:0` and serves it over real HTTP/1.1 on a spawned tokio task. Every
//! request is recorded ([`DemoServer::requests`]) before it is handled, and a test can make requests
//! to one path wait until it releases them ([`DemoServer::hold`]), which is how overlapping requests
//! are made to finish in a chosen order. A test without the [`DemoServer`] handle, such as one in a
//! browser, reads the log, arms faults and resets the server through the
//! [control routes](#control-routes), from any origin ([CORS](#cors)).
//!
//! # Data
//!
//! Seeded fresh for every server: users `u1`..`u3` (`{ id, name, email }`, u1 is Ada Lovelace);
//! todos `1..=30` (`{ id, userId, title: "Todo N", completed: N % 3 == 0 }`, ten per user in id
//! order); feed items `1..=6` alternating `link` (`{ id, type, url, title }`) and `post`
//! (`{ id, type, content }`) plus item 7 of the unknown type `video`; 25 articles
//! (`{ id, title, authorId }`). New numeric ids are the largest plus one; new users are `u4`, `u5`, ….
//!
//! # Routes
//!
//! Bodies are JSON; request bodies are parsed whatever their `Content-Type`, and one that is not
//! JSON (or not the shape a route needs) is a 400 with `{"error": ..., "status": 400}`. Unknown
//! routes are a JSON 404, known routes with another method a JSON 405.
//!
//! | method | path | behaviour |
//! |---|---|---|
//! | GET | `/todos` | array; filters `userId`, `completed` (exact match on the string form), `page` (1-based) + `limit` (default 10); other keys ignored; `X-Total-Count`: how many match before paging |
//! | POST | `/todos` | 201 + the todo: body fields over `{ userId: "u1", title: "", completed: false }`, new id |
//! | PATCH | `/todos` | body: a todo's `id` (string or number) and fields; merges them like `PATCH /todos/{id}`; 200 + todo |
//! | DELETE | `/todos` | body: JSON array of ids (strings or numbers); deletes them; 200 with an **empty** body |
//! | GET | `/todos/search?q=&page=&limit=` | todos whose title contains `q` (case-insensitive), filtered and paged like `/todos` |
//! | GET | `/todos/{id}` | the todo, or 404 |
//! | PUT | `/todos/{id}` | replace: body over the defaults (keeping `id` and, unless given, `userId`); 200 + todo |
//! | PATCH | `/todos/{id}` | merge the body's fields; 200 + todo |
//! | DELETE | `/todos/{id}` | 204, empty |
//! | GET, POST | `/users/{user_id}/todos` | like `/todos`, restricted to that user / creating with that `userId`; unknown user → 404 |
//! | GET | `/users/{user_id}/todos/done` | that user's completed todos (filters and paging apply) |
//! | GET, PUT, PATCH, DELETE | `/users/{user_id}/todos/{id}` | like `/todos/{id}`; 404 unless the todo is that user's |
//! | GET, POST | `/users` | all users; create (201, defaults `name: ""`, `email: ""`) |
//! | GET, PUT, PATCH | `/users/{user_id}` | read, replace, merge |
//! | DELETE | `/users/{user_id}` | 200 + the deleted user object |
//! | GET, POST | `/feed` | all items (the `video` one too); create a `link` or `post` by its `type` (else 400), 201 |
//! | GET, PATCH | `/feed/{id}` | read, merge |
//! | DELETE | `/feed/{id}` | 200 + the bare pk as a JSON string, e.g. `"3"` |
//! | GET | `/articles?skip=0&limit=10` | `{ "results": [...], "total": 25, "limit": 10, "skip": 0 }` |
//! | GET | `/articles/{id}` | the article |
//! | GET | `/me` | user u1 with `Authorization: Bearer demo-token`, else 401 (`WWW-Authenticate: Bearer`) |
//! | GET | `/whoami` | `{ "authorization": header or null, "cookie": header or null }` |
//! | POST | `/login` | `Set-Cookie: session=demo; Path=/`, `{ "ok": true }` |
//! | GET | `/session` | `{ "session": "demo", "user": u1 }` with the cookie `session=demo`, else 401 |
//! | any | `/redirect?status=302&to=URL` | that status (301, 302, 303, 307, 308; default 302) with `Location: URL` |
//! | GET | `/redirect-loop` | 302 to itself |
//! | GET | `/redirect-chain?hops=N` | 302 to `hops=N-1`; at 0, `{ "ok": true }` (N redirects in all) |
//! | any | `/misbehave/500`, `/404`, `/503` | that status with a JSON error body |
//! | GET | `/misbehave/html` | 200 `text/html` |
//! | GET | `/misbehave/no-content-type-json` | 200, no `Content-Type`, body `{"id":1}` |
//! | GET | `/misbehave/problem-json` | 200 `application/problem+json`, valid JSON |
//! | GET | `/misbehave/truncated` | 200 `application/json`, body `{"id": 1, "title": "cut` |
//! | GET | `/misbehave/close-mid-body` | 200, `Content-Length: 64`, 20 bytes, then the connection closes |
//! | GET | `/misbehave/huge?bytes=N` | a JSON string of exactly N bytes (default 1 MiB, at most 1 GiB), streamed, with `Content-Length` |
//! | GET | `/misbehave/huge-chunked?bytes=N` | the same, chunked, without `Content-Length` |
//! | GET | `/misbehave/slow?ms=N` | waits N ms (default 1000), then `{"ok":true}` |
//! | GET | `/misbehave/deep?depth=N` | N nested arrays `[[[...]]]` (default 200) |
//! | GET | `/misbehave/whitespace` | 200 `application/json`, a body of only whitespace |
//! | GET | `/misbehave/not-modified` | 304 |
//! | GET | `/_control/requests` | the request log, see [Control routes](#control-routes) |
//! | DELETE | `/_control/requests` | clears the request log; 204 |
//! | POST | `/_control/faults` | arms a fault: body `{ "path": "/todos/1", "fault": { "status": 500 } }` |
//! | POST | `/_control/reset` | reseeds the data, clears the log and disarms every fault; 204 |
//! | GET, HEAD | `/app/...` | with [`ServerOptions::serve_static`] only: a file, see [Static files](#static-files) |
//!
//! Every mutation (POST, PUT, PATCH, DELETE on the data routes) takes `?respond=` to choose its
//! answer: `empty` (204, no body), `blank` (200, zero-length body, no `Content-Type`), `null`
//! (200, `null`), `pk` (the pk as a JSON string; an array of them for the batch delete) or
//! `object` (the object; an array for the batch delete).
//!
//! # Injected faults
//!
//! Any route, the data routes included, can be made to fail for the next request(s):
//! [`DemoServer::inject`]`(path, fault)`, or `POST /_control/faults` over HTTP, arms a [`Fault`]
//! for one request to `path` (any method, any query), which is then answered by the fault instead of its route, so the same cache key
//! can fail once and succeed on the next request. The faults answer like the `/misbehave/*`
//! routes:
//!
//! | fault | answer |
//! |---|---|
//! | `Status(N)` | status N, `{"error": "injected N", "status": N}` |
//! | `RetryAfter { status, after }` | like `Status(status)`, with `Retry-After: after` |
//! | `CloseMidBody` | like `/misbehave/close-mid-body` |
//! | `Truncated` | like `/misbehave/truncated` |
//! | `Html` | like `/misbehave/html` |
//! | `Json(value)` | 200 `application/json`, that value |
//! | `Raw { content_type, body }` | 200 with exactly that `Content-Type` and body |
//! | `Huge(N)`, `HugeChunked(N)` | like `/misbehave/huge?bytes=N`, `/misbehave/huge-chunked?bytes=N` |
//! | `Deep(N)` | like `/misbehave/deep?depth=N` |
//! | `Redirect { status, to }` | that status (300..=399) with `Location: to`, empty body, for any method |
//! | `Delay(d)` | waits `d`, then the route answers as usual |
//! | `Hang` | never answers; the connection stays open |
//! | `EndlessBody` | 200 `application/json`, chunked, `[` and then a body that never ends |
//! | `StalledError(N)` | status N, `application/json`, chunked, `{` and then a body that never ends |
//!
//! # CORS
//!
//! A page on any other origin (say, a browser test served from another port) may call every
//! route with credentials and read the answer, whatever its status. Every answer carries
//! `Vary: Origin`; an answer to a request with an `Origin` also carries
//! `Access-Control-Allow-Origin: <that origin>`, `Access-Control-Allow-Credentials: true` and
//! `Access-Control-Expose-Headers: *, Content-Type, Content-Length, Location, WWW-Authenticate`
//! (requests with credentials take `*` literally). A preflight, an `OPTIONS` with
//! `Access-Control-Request-Method`, is answered 204 with `Access-Control-Allow-Methods: GET, HEAD,
//! POST, PUT, PATCH, DELETE`, the requested headers in `Access-Control-Allow-Headers` and
//! `Access-Control-Max-Age: 600`, before anything else: it is not recorded, held or faulted.
//!
//! ```
//! use demo_api::{DemoServer, client};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = DemoServer::start().await?;
//! let page = ("Origin", "http://127.0.0.1:8000");
//! let asked = [page, ("Access-Control-Request-Method", "PATCH"), ("Access-Control-Request-Headers", "content-type")];
//! let preflight = client::request(server.addr(), "OPTIONS", "/todos/1", &asked, None).await?;
//! assert_eq!(preflight.status, 204);
//! assert_eq!(preflight.header("access-control-allow-headers"), Some("content-type"));
//! let missing = client::request(server.addr(), "GET", "/todos/99", &[page], None).await?;
//! assert_eq!(missing.status, 404);
//! assert_eq!(missing.header("access-control-allow-origin"), Some("http://127.0.0.1:8000"));
//! assert_eq!(server.requests().len(), 1, "only the GET is recorded");
//! # Ok(())
//! # }
//! ```
//!
//! # Control routes
//!
//! The routes under `/_control/` do over HTTP what the [`DemoServer`] handle does, for tests that
//! have no handle (a browser test talks to a server a script started). They are not recorded,
//! held or faulted, and an unknown one is a JSON 404 that is not recorded either.
//!
//! - `GET /_control/requests`: the log ([`DemoServer::requests`]), oldest first, as a JSON array
//!   of `{ "method", "path", "query", "body" }`: `query` is the query string without the `?`, or
//!   `null`; `body` is the request body parsed as JSON if it is JSON, else as a string, or `null`
//!   if it is empty.
//! - `DELETE /_control/requests`: [`DemoServer::clear_requests`]; 204.
//! - `POST /_control/faults` with `{ "path": P, "fault": F }`: [`DemoServer::inject`]`(P, F)`;
//!   answers `{ "path": P, "armed": N }`, N the faults now armed for P. P is a path starting with
//!   `/`, without a query; F is an object with one key, from the table below. A body that is not
//!   such an object, or a fault [`DemoServer::inject`] would refuse, is a 400 with the usual JSON
//!   error, and arms nothing.
//! - `POST /_control/reset`: back to a freshly seeded data set, with an empty log and no armed
//!   faults (holds stay); 204.
//!
//! | `fault` | [`Fault`] |
//! |---|---|
//! | `{"status": N}` | `Status(N)` |
//! | `{"retry_after": {"status": N, "after": S}}` | `RetryAfter { status, after }` |
//! | `{"close_mid_body": true}` | `CloseMidBody` |
//! | `{"truncated": true}` | `Truncated` |
//! | `{"html": true}` | `Html` |
//! | `{"json": V}` | `Json(V)` |
//! | `{"raw": {"content_type": S, "body": S}}` | `Raw { content_type, body }` |
//! | `{"huge": N}`, `{"huge_chunked": N}` | `Huge(N)`, `HugeChunked(N)` |
//! | `{"deep": N}` | `Deep(N)` |
//! | `{"redirect": {"status": N, "to": S}}` | `Redirect { status, to }` |
//! | `{"delay_ms": N}` | `Delay` of N milliseconds |
//! | `{"hang": true}` | `Hang` |
//! | `{"endless_body": true}` | `EndlessBody` |
//! | `{"stalled_error": N}` | `StalledError(N)` |
//!
//! ```
//! use demo_api::{DemoServer, client};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = DemoServer::start().await?;
//! let arm = br#"{"path": "/todos/1", "fault": {"status": 503}}"#;
//! let armed = client::request(server.addr(), "POST", "/_control/faults", &[], Some(arm)).await?;
//! assert_eq!(armed.json().unwrap()["armed"], 1);
//! assert_eq!(client::get(server.addr(), "/todos/1").await?.status, 503);
//!
//! let log = client::get(server.addr(), "/_control/requests").await?.json().unwrap();
//! assert_eq!(log, serde_json::json!([{ "method": "GET", "path": "/todos/1", "query": null, "body": null }]));
//! let reset = client::request(server.addr(), "POST", "/_control/reset", &[], None).await?;
//! assert_eq!(reset.status, 204);
//! assert!(server.requests().is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! # Static files
//!
//! A server started with [`ServerOptions::serve_static`]`(dir)` (`demo-api --static DIR`) also
//! serves the files of `dir` under `/app/`, so a browser page can be served from the API's own
//! origin: `/app/` is `dir/index.html`, `/app/pkg/x.js` is `dir/pkg/x.js`, a path ending in `/`
//! names that directory's `index.html`, and `/app` redirects (308) to `/app/`. Each path segment
//! is percent-decoded and must then be a plain file name: a path with `.`, `..`, an empty segment,
//! an encoded `/` or `\`, a NUL or bytes that are not UTF-8, a directory, a missing file, or a link
//! that leads out of `dir`, is a JSON 404. The `Content-Type` follows the extension: `.html`
//! `text/html; charset=utf-8`, `.js` and `.mjs` `text/javascript`, `.wasm` `application/wasm`,
//! `.css` `text/css`, `.png` `image/png`, `.json` and `.map` `application/json`, `.svg`
//! `image/svg+xml`, `.ico` `image/x-icon`, `.txt` `text/plain; charset=utf-8`, anything else
//! `application/octet-stream`. Files are not recorded, held or faulted.
//!
//! Headers that never end need a server below HTTP: [`DripServer`] answers every request with
//! response headers dripped one byte per interval, forever.
//!
//! [`client`] is a minimal HTTP/1.1 client over a raw TCP stream, enough for tests that need to see
//! exactly what went over the wire without pulling in a full HTTP client.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = demo_api::DemoServer::start().await?;
//! let response = demo_api::client::get(server.addr(), "/todos?userId=u2&completed=true").await?;
//! assert_eq!(response.status, 200);
//! let todos = response.json().unwrap();
//! assert!(todos.as_array().unwrap().iter().all(|t| t["userId"] == "u2" && t["completed"] == true));
//! assert_eq!(server.requests()[0].uri(), "/todos?userId=u2&completed=true");
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

pub mod client;
mod cors;
mod data;
mod drip;
mod error;
mod extract;
mod fault;
mod hold;
mod options;
mod record;
mod reply;
mod routes;
mod server;
mod state;
mod stream_body;

pub use drip::DripServer;
pub use fault::Fault;
pub use hold::{Held, Hold};
pub use options::ServerOptions;
pub use record::RecordedRequest;
pub use server::DemoServer;
